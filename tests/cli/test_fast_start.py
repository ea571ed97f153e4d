"""Fast to start: ``--help`` and the commands that do not embed import no model library,
the lazily loaded groups keep their help, and the terminal chat logs to a file. (Times are
measured by ``scripts/startup_times.py``, not asserted here.)"""

from __future__ import annotations

import inspect
import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli._chat_logs import NoticeHandler, OncePerTemplate, log_to_workspace
from familiars.cli._main import GROUPS, app, use_offline_models

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "sentence_transformers", "fastapi", "uvicorn", "discord", "telegram", "pypdf")
EMBEDDING = ("torch", "sentence_transformers")
#: What a terminal chat with the model exported (and the API off) does not import.
CHAT_HEAVY = (*EMBEDDING, "transformers", "fastapi")

PROBE = """
import json, sys
from familiars.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = %r
print(json.dumps([m for m in heavy if m in sys.modules]), file=sys.stderr)
"""


def _imported(args: list[str], workspace: Path) -> list[str]:
    """Which of :data:`HEAVY` ``familiars ARGS`` imported, run in a fresh interpreter."""
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(workspace), "PYTHONPATH": str(ROOT)}
    env.pop("FAMILIARS_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return found


@pytest.mark.slow
def test_help_imports_no_heavy_library(tmp_path: Path) -> None:
    assert _imported(["--help"], tmp_path) == []
    assert _imported(["bench", "--help"], tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("args", [["files", "list"], ["memory", "list"], ["status"]])
def test_commands_that_do_not_embed_never_load_the_model(args: list[str], tmp_path: Path) -> None:
    assert not set(_imported(args, tmp_path)) & set(EMBEDDING)


def test_help_lists_every_lazy_group_and_benchmark() -> None:
    runner = CliRunner()
    top = runner.invoke(app, ["--help"]).output
    for entry in GROUPS:
        assert entry.name in top
    from familiars.benchmarks import COMMANDS

    bench = runner.invoke(app, ["bench", "--help"]).output
    for command in COMMANDS:
        assert command.name in bench


def test_the_static_help_says_what_each_loaded_command_says() -> None:
    from familiars.benchmarks import COMMANDS, load_command

    for command in COMMANDS:
        doc = inspect.getdoc(load_command(command.name)) or ""
        assert command.help == " ".join(doc.split("\n\n")[0].split()), command.name
    from familiars.cli import _bench, _db, _files, _gate, _memory, _reminders

    declared = {
        "memory": _memory.app.info.help,
        "bench": _bench.HELP,
        "files": _files.app.info.help,
        "reminders": _reminders.app.info.help,
        "gate": _gate.app.info.help,
        "db": _db.app.info.help,
    }
    assert {entry.name: entry.help for entry in GROUPS} == declared


def test_a_lazy_group_runs_its_real_command() -> None:
    result = CliRunner().invoke(app, ["bench", "gate", "--help"])
    assert result.exit_code == 0 and "--cycles" in result.output


def test_the_entry_point_sets_the_same_offline_variables_as_memory() -> None:
    from familiars.memory import use_offline_models as memorys

    ours: dict[str, str] = {}
    theirs: dict[str, str] = {}
    use_offline_models(ours)
    memorys(theirs)
    assert ours == theirs


# ---------------------------------------------------------------------- the chat's log


def _record(msg: str, *args: object, name: str = "familiars.memory._store") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, None)


def test_a_repeated_warning_is_let_through_once() -> None:
    once = OncePerTemplate()
    broken = "bob.md:3: unparseable entry"
    assert once.filter(_record("%s", broken))
    assert not once.filter(_record("%s", broken))  # the next turn: not again
    assert once.filter(_record("%s", "alice.md:9: unparseable entry"))  # another text
    assert once.filter(_record("provider %s cools down", "a", name="familiars.llm"))
    assert not once.filter(_record("provider %s cools down", "b", name="familiars.llm"))
    info = _record("hello")
    info.levelno = logging.INFO
    assert once.filter(info) and once.filter(info)


def test_only_person_facing_warnings_are_said() -> None:
    said: list[str] = []
    handler = NoticeHandler(said.append)
    handler.handle(
        _record("embedding model %r fell back", "bge", name="familiars.memory._embedder_loading")
    )
    handler.handle(_record("%s", "bob.md:3: broken"))
    assert said == ["(note: embedding model 'bge' fell back)"]


def test_a_notice_is_one_short_line() -> None:
    """A writer warning that quotes a hostile model's raw answer is said in one line, its
    middle elided (the log keeps the whole of it)."""
    said: list[str] = []
    handler = NoticeHandler(said.append)
    raw = "\x1b[2J\x1b[31m" + "x" * 5000 + "\nSECOND LINE"
    handler.handle(
        _record(
            "writer: output invalid (%s); raw output: %s; using the offline writer",
            "bad cell",
            raw,
            name="familiars.memory._writer._model",
        )
    )
    [note] = said
    assert note.startswith("(note: writer: output invalid (bad cell); raw output:")
    assert note.endswith("using the offline writer (all in the log))")
    assert len(note) < 300 and "\n" not in note


def test_the_chat_logs_to_a_private_file_in_the_workspace(tmp_path: Path) -> None:
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    said: list[str] = []
    try:
        path = log_to_workspace(tmp_path, "INFO", say=said.append)
        logging.getLogger("familiars.memory._store").warning("%s", "bob.md:3: broken")
        logging.getLogger("familiars.memory._store").warning("%s", "bob.md:3: broken")
        logging.getLogger("familiars.llm._router").warning("provider %s cools down", "x")
        for handler in root.handlers:
            handler.flush()
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(level)
    assert path == tmp_path / "logs" / "familiars.log"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert text.count("bob.md:3: broken") == 1
    assert said == ["(note: provider x cools down)"]


def _chat_imports(workspace: Path) -> tuple[str, list[str]]:
    """A piped one-message ``familiars chat`` in a fresh interpreter: its reply, and which
    embedding libraries (and the API's fastapi, the API being off) were in ``sys.modules``
    at its end."""
    env = {**os.environ, "FAMILIARS_WORKSPACE": str(workspace), "PYTHONPATH": str(ROOT)}
    for name in ("FAMILIARS_CONFIG", "DISCORD_BOT_TOKEN", "TELEGRAM_BOT_TOKEN"):
        env.pop(name, None)
    env.pop("FAMILIARS_EMBEDDING__ONNX_DIR", None)  # the default: under the workspace
    env["FAMILIARS_EMBEDDING__MODEL"] = "bundled"
    done = subprocess.run(
        [sys.executable, "-c", PROBE % (CHAT_HEAVY,), "chat", "--user", "a"],
        input="hello\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return done.stdout, found


@pytest.mark.slow
def test_a_chat_with_the_model_exported_imports_no_torch(tmp_path: Path) -> None:
    """Issue 20: the first start runs the model on torch and exports it to ONNX (in the
    background, finished before the process ends); every later start loads the export with
    onnxruntime, and torch is never imported on the way to (or after) the reply; nor is
    fastapi with the API off (the runtime reached it through the status module: seconds)."""
    workspace = tmp_path / "ws"
    first_reply, first = _chat_imports(workspace)
    assert "torch" in first and "Hello" in first_reply
    models = workspace / "state" / "models"
    assert [p.name for p in models.iterdir() if (p / "manifest.json").is_file()]
    reply, later = _chat_imports(workspace)
    assert later == [] and "Hello" in reply


def test_the_person_facing_loggers_are_the_ones_that_warn() -> None:
    """The fallback embedding model's warning moved to another module and was never said
    above the prompt again (a tester's first start fell back to MiniLM in silence): each
    logger named is a module that still warns, and the fallback's is one. The modules are
    found by the names the CLI lists, so no private path is written here."""
    import importlib
    from pathlib import Path as P

    from familiars.cli._chat_logs import PERSON_FACING

    texts: dict[str, str] = {}
    for name in PERSON_FACING:
        module = importlib.import_module(name)
        where = P(str(module.__file__))
        files = [where] if where.name != "__init__.py" else list(where.parent.rglob("*.py"))
        texts[name] = text = "".join(f.read_text(encoding="utf-8") for f in files)
        assert "logger.warning" in text or "logging.WARNING" in text, name
    assert any("could not be loaded offline" in text for text in texts.values())
