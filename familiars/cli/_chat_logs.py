"""Where the terminal chat's log goes: a file in the workspace, never the prompt line.

    workspace/logs/familiars.log    (0600, rotating: 1 MB x 3)

:func:`log_to_workspace` replaces the stderr handler with that file, and adds a
:class:`NoticeHandler` that says the warnings that matter to the person (the fallback
embedding model, a language model that cannot be reached, ...) above the prompt: in the words
a warning carries for the person (``extra={"notice": ...}``, :data:`NOTICE_KEY`) when it has
them, so an exception's class and a model's raw answer stay in the file. Both drop
a warning already given once in this process (:class:`OncePerTemplate`: the same broken
memory entry is not reported on every turn). ``familiars run`` with platform tokens keeps
logging to stderr.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable
from logging.handlers import RotatingFileHandler
from pathlib import Path

LOG_FILE = Path("logs") / "familiars.log"
MAX_BYTES = 1_048_576
BACKUPS = 3

#: Loggers whose warnings the person in the chat is told about (the rest go to the file).
PERSON_FACING: tuple[str, ...] = (
    "familiars.memory._embedder_loading",  # the configured model did not load: the fallback
    "familiars.memory._writer._model",  # the writer's model is unreachable: offline writer
    "familiars.llm",  # a provider without its key, or cooling down
)

#: The log record attribute that holds a warning's words for the person (F1: the start note
#: said "(EmbedderUnavailableError)", which means nothing to the person reading it).
NOTICE_KEY = "notice"
#: How the store words an entry of a memory file that does not parse (``EntryParseError``);
#: the person is told of each one once, with :data:`CHECK_HINT`.
BROKEN_ENTRY = "broken memory entry"
CHECK_HINT = "run familiars memory check"

_ONLY_PLACEHOLDERS = re.compile(r"^(\s|%[-#0 +]*\d*(\.\d+)?[sdrfgi]|[:;,.()])*$")


class OncePerTemplate(logging.Filter):
    """Lets a warning (or worse) through once per logger and message template; a template
    that is only placeholders (``"%s"``) counts by its text. Lower levels all pass."""

    def __init__(self, min_level: int = logging.WARNING) -> None:
        super().__init__()
        self.min_level = min_level
        self._seen: set[tuple[str, int, str]] = set()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self.min_level:
            return True
        key = (record.name, record.levelno, template_of(record))
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
        return True


def template_of(record: logging.LogRecord) -> str:
    template = str(record.msg)
    return record.getMessage() if _ONLY_PLACEHOLDERS.match(template) else template


class PrivateRotatingFileHandler(RotatingFileHandler):
    """A rotating file readable by its owner only (each new file is created 0600). When a
    record cannot be written (a full disk), stderr gets one line the first time, not
    logging's traceback per record."""

    _said_failure = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if self._said_failure:
            return
        self._said_failure = True
        exc = sys.exc_info()[1]
        reason = getattr(exc, "strerror", None) or exc
        with contextlib.suppress(Exception):
            sys.stderr.write(f"(note: cannot write the log {self.baseFilename}: {reason})\n")
            sys.stderr.flush()

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(self.baseFilename, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: SIM115


#: A notice is one line of at most about this many characters: the head and the tail.
NOTICE_CHARS = 240


#: A broken entry's notice is the person's own file, line and what its break hides (text
#: written after it included): a cut there hid the very words that say nothing is lost.
BROKEN_NOTICE_CHARS = 800


def notice_text(message: str, limit: int = NOTICE_CHARS) -> str:
    """A warning as the person is told it: one line, its middle elided when long (a writer
    warning quoted a model's whole raw answer, pages of it). The log keeps it whole; the
    console shows no control character of it."""
    line = " ".join(message.split())
    if len(line) > limit:
        line = f"{line[: limit - 80].rstrip()} … {line[-60:].lstrip()} (all in the log)"
    return f"(note: {line})"


class NoticeHandler(logging.Handler):
    """Warnings from :data:`PERSON_FACING` loggers, given to ``say`` (which may be called
    from any thread: it is the caller's to hand the text to the event loop)."""

    def __init__(self, say: Callable[[str], None], loggers: Iterable[str] = PERSON_FACING):
        super().__init__(logging.WARNING)
        self.say = say
        self.loggers = tuple(loggers)
        self._broken_said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        limit = NOTICE_CHARS
        if BROKEN_ENTRY in message:  # a hand edit that hides an entry: said, with the fix
            if message in self._broken_said:
                return  # the store and the index both find it: said once
            self._broken_said.add(message)
            message += f" (left out of what I know until fixed: {CHECK_HINT})"
            limit = BROKEN_NOTICE_CHARS
        elif not any(record.name == n or record.name.startswith(n + ".") for n in self.loggers):
            return
        try:
            self.say(notice_text(getattr(record, NOTICE_KEY, None) or message, limit))
        except Exception:  # noqa: BLE001 - a notice must never break the chat
            self.handleError(record)


def log_to_workspace(
    workspace: Path, level: str, *, say: Callable[[str], None] | None = None
) -> Path | None:
    """Send the root logger to ``workspace/logs/familiars.log`` instead of stderr (and the
    person-facing warnings to ``say``); returns the log file's path, or None when the
    workspace cannot hold one (read-only, full): logging stays as it was, and the workspace's
    own checks then say what is wrong in one line."""
    path = Path(workspace) / LOG_FILE
    try:
        _private_dirs(path.parent)
        to_file = PrivateRotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError:
        return None
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "stream", None) in (sys.stderr, sys.__stderr__):
            root.removeHandler(handler)  # the stderr handler (the prompt's line)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    to_file.addFilter(OncePerTemplate())
    root.addHandler(to_file)
    if say is not None:
        notices = NoticeHandler(say)
        notices.addFilter(OncePerTemplate())
        root.addHandler(notices)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    return path


def _private_dirs(folder: Path) -> None:
    """Create ``folder`` and any missing parent 0700 (``mkdir(parents=True, mode=...)`` gives
    the parents the umask's mode, and the workspace itself may be one of them)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        created.mkdir(mode=0o700, exist_ok=True)
        os.chmod(created, 0o700)
