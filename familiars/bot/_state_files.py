"""The bot's state as files in the workspace: the source of truth that ``familiars.db`` is not.

Layout (every file 0600, every folder this module creates 0700, written atomically: a temp
file in the same folder, fsync, rename)::

    state/people/<user_key>.json        one person: display name, time zone, proactive opt-out,
                                        platform identities, and ``linked_to`` once /link
                                        joined this person into another
    state/link_codes.json               pending /link codes (10 minutes each)
    agents/<agent>/<dialogue>/chat.json which platform chat (and thread) the folder belongs to,
                                        whether it is a group, whose DM; written once
    agents/<agent>/<dialogue>/activity.json  when the person and the bot last spoke there

``activity.json`` changes twice a turn, so it is replaced (temp file, rename) without the
fsyncs, which cost some 20 ms a write on a shared disk: a crash may lose the last times,
and an unreadable one is ignored with a warning (the times only pace proactive messages).

A ``dialogue_<n>`` folder is taken with ``mkdir`` (never ``exist_ok``) at max+1 of the folders
that exist, so a number is never handed out twice and never reused, even with the database
gone. A file that cannot be read raises :class:`StateFileError` naming it; nothing is
rewritten in its place.

Every read and write goes through the workspace's :class:`~familiars.memory.StateHome`: these
files, or (the database home) rows of ``state_docs`` holding the same bytes by the same
names; there a dialogue's number is reserved in ``dialogue_numbers``, never handed out twice
by any worker.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from familiars.memory import (
    AGENT_ID_RE,
    DIALOGUE_ID_RE,
    USER_KEY_RE,
    FileStateHome,
    StateHome,
    atomic_write_text,
    check_agent_id,
    check_user_key,
)

logger = logging.getLogger(__name__)

STATE_DIR = "state"
PEOPLE_DIR = "people"
CHAT_FILE = "chat.json"
ACTIVITY_FILE = "activity.json"
LINK_CODES_FILE = "link_codes.json"
#: What a running bot says of its embedder in ``state/embedder.json`` (for ``familiars
#: status`` from another process). Here, not beside the status that reads it: the runtime
#: that writes it would import the API (fastapi) on the way to the chat's first reply.
EMBEDDER_FIELDS = ("model", "dim", "fallback_from", "backend")
FILE_MODE = 0o600
DIR_MODE = 0o700
VERSION = 1
_DIALOGUE_PREFIX = "dialogue_"

#: (platform, chat id, thread id or "", agent id): the key a chat is found by.
ChatKey = tuple[str, str, str, str]


class StateFileError(ValueError):
    """A state file that cannot be used as it is; ``path`` names it. A ValueError, so the
    command line reports it in one line, as it does a bad setting."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = Path(path)
        super().__init__(
            f"bot state file {self.path}: {problem}. Fix it or move it away; the bot does not "
            "start without it, so that no chat is given another chat's dialogue"
        )


@dataclass
class PersonFile:
    user_key: str
    display_name: str = ""
    timezone: str | None = None
    proactive: bool = True
    created_at: str = ""
    linked_to: str | None = None
    #: (platform, platform user id) -> display name on that platform.
    identities: dict[tuple[str, str], str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["identities"] = [
            {"platform": p, "user_id": u, "display_name": n}
            for (p, u), n in sorted(self.identities.items())
        ]
        return {"version": VERSION, **data}


@dataclass
class ChatFile:
    agent_id: str
    dialogue_id: str
    platform: str
    chat_id: str
    thread_id: str
    is_group: bool
    user_key: str | None
    created_at: str = ""
    last_user_at: str | None = None
    last_bot_at: str | None = None

    @property
    def key(self) -> ChatKey:
        return (self.platform, self.chat_id, self.thread_id, self.agent_id)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in ("agent_id", "dialogue_id", "last_user_at", "last_bot_at"):
            del data[name]  # the folder's own names, and what activity.json holds
        return {"version": VERSION, **data}

    def activity_json(self) -> dict[str, Any]:
        return {"last_user_at": self.last_user_at, "last_bot_at": self.last_bot_at}


# ------------------------------------------------------------------------------ writing


def ensure_dir(folder: Path) -> Path:
    """``folder`` and any missing parents, created 0700 (existing ones are left as they are)."""
    missing = []
    here = Path(folder)
    while not here.exists():
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(path, DIR_MODE)  # mkdir's mode is cut by the umask
    return Path(folder)


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def state_json(data: Any) -> bytes:
    """A state document's bytes, as :func:`write_json` writes them."""
    return _dumps(data).encode("utf-8", "surrogateescape")


def write_json(path: Path, data: Any) -> None:
    ensure_dir(path.parent)
    atomic_write_text(path, _dumps(data), mode=FILE_MODE)


def replace_json(path: Path, data: Any) -> None:
    """Like :func:`write_json`, without the fsyncs (see the module docstring)."""
    ensure_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp's file is 0600
            fh.write(_dumps(data))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------------------ reading


def _read_json(path: Path, raw: bytes | None = None) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes() if raw is None else raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise StateFileError(path, f"cannot be read as JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise StateFileError(path, "is not a JSON object")
    if data.get("version", VERSION) != VERSION:
        raise StateFileError(path, f"has version {data.get('version')!r}, expected {VERSION}")
    return data


def _text(path: Path, data: dict[str, Any], name: str, *, empty: bool = True) -> str:
    value = data.get(name, "")
    if not isinstance(value, str) or (not empty and not value):
        raise StateFileError(path, f"{name!r} must be a {'' if empty else 'non-empty '}string")
    return value


def _optional(path: Path, data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise StateFileError(path, f"{name!r} must be a string or null")
    return value or None


def _flag(path: Path, data: dict[str, Any], name: str, default: bool) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise StateFileError(path, f"{name!r} must be true or false")
    return value


def _optional_key(path: Path, data: dict[str, Any], name: str) -> str | None:
    value = _optional(path, data, name)
    if value is not None and not USER_KEY_RE.fullmatch(value):
        raise StateFileError(path, f"{name!r} is not a valid user key: {value!r}")
    return value


def parse_person(path: Path, raw: bytes | None = None) -> PersonFile:
    data = _read_json(path, raw)
    user_key = path.name.removesuffix(".json")
    if data.get("user_key", user_key) != user_key:
        raise StateFileError(path, f"says user_key {data.get('user_key')!r}, not {user_key!r}")
    raw = data.get("identities", [])
    if not isinstance(raw, list):
        raise StateFileError(path, "'identities' must be a list")
    identities: dict[tuple[str, str], str] = {}
    for item in raw:
        if not isinstance(item, dict):
            raise StateFileError(path, "each identity must be an object")
        ident = (_text(path, item, "platform", empty=False), _text(path, item, "user_id"))
        identities[ident] = _text(path, item, "display_name")
    return PersonFile(
        user_key=user_key,
        display_name=_text(path, data, "display_name"),
        timezone=_optional(path, data, "timezone"),
        proactive=_flag(path, data, "proactive", True),
        created_at=_text(path, data, "created_at"),
        linked_to=_optional_key(path, data, "linked_to"),
        identities=identities,
    )


def parse_chat(
    path: Path,
    agent_id: str,
    dialogue_id: str,
    raw: bytes | None = None,
    activity: bytes | None = None,
) -> ChatFile:
    data = _read_json(path, raw)
    if "is_group" not in data:
        raise StateFileError(path, "'is_group' is missing")
    return ChatFile(
        agent_id=agent_id,
        dialogue_id=dialogue_id,
        platform=_text(path, data, "platform", empty=False),
        chat_id=_text(path, data, "chat_id", empty=False),
        thread_id=_optional(path, data, "thread_id") or "",
        is_group=_flag(path, data, "is_group", False),
        user_key=_optional_key(path, data, "user_key"),
        created_at=_text(path, data, "created_at"),
        **_activity(path.with_name(ACTIVITY_FILE), activity if raw is not None else None),
    )


def _activity(path: Path, raw: bytes | None = None) -> dict[str, str | None]:
    try:
        data = json.loads(path.read_bytes() if raw is None else raw)
        return {k: _optional(path, data, k) for k in ("last_user_at", "last_bot_at")}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        logger.warning("ignoring %s (%s); the dialogue's last activity is unknown", path, exc)
        return {}


# ------------------------------------------------------------------------------ the workspace


class StateFiles:
    """Where each state document lives, and reading all of them at once."""

    def __init__(self, workspace: Path, home: StateHome | None = None) -> None:
        self.workspace = Path(workspace)
        self.home: StateHome = home or FileStateHome(self.workspace)
        self.state_dir = self.workspace / STATE_DIR
        self.people_dir = self.state_dir / PEOPLE_DIR
        self.link_codes_path = self.state_dir / LINK_CODES_FILE

    @property
    def on_files(self) -> bool:
        return self.home.kind == "files"

    def name(self, path: Path) -> str:
        return path.relative_to(self.workspace).as_posix()

    def read(self, path: Path) -> bytes | None:
        return self.home.read(self.name(path))

    def person_path(self, user_key: str) -> Path:
        return self.people_dir / f"{check_user_key(user_key)}.json"

    def agent_dir(self, agent_id: str) -> Path:
        return self.workspace / "agents" / check_agent_id(agent_id)

    def chat_path(self, agent_id: str, dialogue_id: str) -> Path:
        return self.agent_dir(agent_id) / dialogue_id / CHAT_FILE

    def load_people(self) -> dict[str, PersonFile]:
        prefix = self.name(self.people_dir) + "/"
        people = {}
        for name in self.home.names(prefix, ".json"):
            key = name.removeprefix(prefix).removesuffix(".json")
            if "/" not in key and USER_KEY_RE.fullmatch(key):
                path = self.workspace / name
                people[key] = parse_person(path, None if self.on_files else self.read(path))
        return people

    def load_chats(self) -> list[ChatFile]:
        chats = []
        for name in self.home.names("agents/", f"/{CHAT_FILE}"):
            parts = name.split("/")
            if len(parts) != 4 or not parts[2].startswith(_DIALOGUE_PREFIX):
                continue
            agent_id, dialogue_id = parts[1], parts[2]
            if AGENT_ID_RE.fullmatch(agent_id) and DIALOGUE_ID_RE.fullmatch(dialogue_id):
                chats.append(self._chat(self.workspace / name, agent_id, dialogue_id))
        return chats

    def _chat(self, path: Path, agent_id: str, dialogue_id: str) -> ChatFile:
        if self.on_files:
            return parse_chat(path, agent_id, dialogue_id)
        activity = self.read(path.with_name(ACTIVITY_FILE))
        raw = self.read(path)
        return parse_chat(path, agent_id, dialogue_id, raw, activity or b"{}")

    def load_link_codes(self) -> dict[str, tuple[str, str]]:
        """code -> (user key, expiry as ISO text)."""
        path = self.link_codes_path
        raw = self.read(path)
        if raw is None:
            return {}
        raw_codes = _read_json(path, raw).get("codes", {})
        if not isinstance(raw_codes, dict):
            raise StateFileError(path, "'codes' must be an object")
        codes = {}
        for code, entry in raw_codes.items():
            if not isinstance(entry, dict):
                raise StateFileError(path, f"code {code!r} must be an object")
            key = _optional_key(path, entry, "user_key")
            if key is None:
                raise StateFileError(path, f"code {code!r} has no user_key")
            codes[str(code)] = (key, _text(path, entry, "expires_at", empty=False))
        return codes

    def _write(self, path: Path, data: Any, *, durable: bool = True) -> None:
        if self.on_files:  # the files exactly as before the seam
            (write_json if durable else replace_json)(path, data)
            return
        self.home.write(self.name(path), state_json(data), durable=durable)

    def write_person(self, person: PersonFile) -> None:
        self._write(self.person_path(person.user_key), person.to_json())

    def change_person(self, person: PersonFile, change: Callable[[PersonFile], None]) -> PersonFile:
        """``change`` made on the person as stored now (``person`` where none is), read and
        written under the document's lock every worker's change of it waits for
        (:meth:`StateHome.update`): another worker's change to this person meanwhile is kept.
        Files: on ``person`` (one process owns them). Returns the person as written."""
        path = self.person_path(person.user_key)
        changed = [PersonFile(**{**person.__dict__, "identities": dict(person.identities)})]
        if self.on_files:
            change(changed[0])
            self.write_person(changed[0])
            return changed[0]

        def on_stored(raw: bytes | None) -> bytes:
            changed[0] = changed[0] if raw is None else parse_person(path, raw)
            change(changed[0])
            return state_json(changed[0].to_json())

        self.home.update(self.name(path), on_stored)
        return changed[0]

    def write_chat(self, chat: ChatFile) -> None:
        self._write(self.chat_path(chat.agent_id, chat.dialogue_id), chat.to_json())

    def activity_path(self, agent_id: str, dialogue_id: str) -> Path:
        return self.chat_path(agent_id, dialogue_id).with_name(ACTIVITY_FILE)

    def write_activity(self, chat: ChatFile) -> None:
        path = self.activity_path(chat.agent_id, chat.dialogue_id)
        self._write(path, chat.activity_json(), durable=False)

    def write_link_codes(self, codes: dict[str, tuple[str, str]]) -> None:
        data = {c: {"user_key": k, "expires_at": e} for c, (k, e) in sorted(codes.items())}
        self._write(self.link_codes_path, {"version": VERSION, "codes": data})

    def take_dialogue_folder(self, agent_id: str) -> str:
        """Create the next free ``dialogue_<n>`` folder of this agent and return its name.

        n is one more than the largest number of any folder that exists (with or without a
        ``chat.json``: a folder made by hand or left by a crash is never reused); ``mkdir``
        fails when another creator got there first, and the next number is tried. In the
        database the number is reserved there first (no worker is given it again) and the
        folder, for what still lives beside the worker, is made as well."""
        parent = ensure_dir(self.agent_dir(agent_id))
        number = max(_dialogue_numbers(parent), default=-1) + 1
        if not self.on_files:
            number = self.home.next_dialogue_number(agent_id, [number - 1] if number else [])
        while True:
            folder = parent / f"{_DIALOGUE_PREFIX}{number}"
            try:
                folder.mkdir(mode=DIR_MODE)
            except FileExistsError:
                if not self.on_files:
                    number = self.home.next_dialogue_number(agent_id, [number])
                    continue
                number += 1
                continue
            os.chmod(folder, DIR_MODE)
            return folder.name


def _dialogue_numbers(parent: Path) -> list[int]:
    numbers = []
    for entry in parent.iterdir():
        suffix = entry.name.removeprefix(_DIALOGUE_PREFIX)
        if entry.name.startswith(_DIALOGUE_PREFIX) and suffix.isdigit():
            numbers.append(int(suffix))
    return numbers
