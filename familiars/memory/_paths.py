"""Where records live on disk (§5.2.4, with DESIGN.md's per-person user scope).

Every id that becomes part of a path is checked against a strict pattern before any path is
built, so ``../x``, ``a/b``, absolute paths and empty strings never reach the filesystem.
"""

from __future__ import annotations

import re
from pathlib import Path

from familiars.config import NAME_PATTERN, NAME_RULE
from familiars.memory._errors import InvalidIdError
from familiars.memory._records import CATEGORIES, SCOPES, check_cell

_NAME = NAME_PATTERN
USER_KEY_RE = re.compile(rf"^{_NAME}$")
AGENT_ID_RE = re.compile(rf"^{_NAME}$")
#: Dialogue folders sit beside ``identity/`` in an agent's folder; the prefix keeps them apart.
DIALOGUE_ID_RE = re.compile(r"^dialogue_[A-Za-z0-9_-]{1,64}$")
RECORD_ID_RE = re.compile(r"^m_[A-Za-z0-9_-]{1,64}$")
#: Where memory files are, relative to the workspace (``owner_from_path`` tells the rest).
MEMORY_GLOBS = (
    "users/*/*.md",
    "agents/*/identity/*.md",
    "agents/*/dialogue_*/dialogue/*.md",
    "agents/*/dialogue_*/ephemeral/*.md",
)


def _check(kind: str, value: object, pattern: re.Pattern[str], rule: str | None = None) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise InvalidIdError(kind, value, pattern.pattern, rule)
    return value


def check_user_key(value: object) -> str:
    return _check("user_key", value, USER_KEY_RE, NAME_RULE)


def check_agent_id(value: object) -> str:
    return _check("agent_id", value, AGENT_ID_RE, NAME_RULE)


def check_dialogue_id(value: object) -> str:
    return _check("dialogue_id", value, DIALOGUE_ID_RE)


def check_record_id(value: object) -> str:
    return _check("memory id", value, RECORD_ID_RE)


def check_category(value: object) -> str:
    if value not in CATEGORIES:
        raise InvalidIdError("category", value, "|".join(CATEGORIES))
    return str(value)


def check_scope(value: object) -> str:
    if value not in SCOPES:
        raise InvalidIdError("scope", value, "|".join(SCOPES))
    return str(value)


def agent_dir(workspace: Path, agent_id: str) -> Path:
    return Path(workspace) / "agents" / check_agent_id(agent_id)


def dialogue_dir(workspace: Path, agent_id: str, dialogue_id: str) -> Path:
    return agent_dir(workspace, agent_id) / check_dialogue_id(dialogue_id)


def user_dir(workspace: Path, user_key: str) -> Path:
    return Path(workspace) / "users" / check_user_key(user_key)


def resolve_path(
    *,
    workspace: Path,
    scope: str,
    category: str,
    agent_id: str = "agent_0",
    dialogue_id: str | None = None,
    user_key: str | None = None,
) -> Path:
    """The markdown file holding records of this cell and owner."""
    check_scope(scope)
    check_category(category)
    check_cell(scope, category)
    fname = f"{category}.md"
    if scope == "user":
        if user_key is None:
            raise InvalidIdError("user_key", user_key, "user scope needs a user key")
        return user_dir(workspace, user_key) / fname
    if scope == "identity":
        return agent_dir(workspace, agent_id) / "identity" / fname
    if dialogue_id is None:
        raise InvalidIdError("dialogue_id", dialogue_id, f"{scope} scope needs a dialogue id")
    sub = "dialogue" if scope == "dialogue" else "ephemeral"
    return dialogue_dir(workspace, agent_id, dialogue_id) / sub / fname


def owner_from_path(workspace: Path, path: Path) -> dict[str, str | None] | None:
    """Inverse of :func:`resolve_path`: scope, category and owner ids of a memory file, or None
    when the path is not a memory file of this workspace."""
    try:
        # Paths this package built or globbed are under the workspace as spelled; resolving
        # (a syscall per component) is only needed for other spellings.
        parts = Path(path).relative_to(Path(workspace)).parts
    except ValueError:
        try:
            parts = Path(path).resolve().relative_to(Path(workspace).resolve()).parts
        except ValueError:
            return None
    if ".." in parts:
        return None
    if not parts or not parts[-1].endswith(".md"):
        return None
    category = parts[-1][:-3]
    if category not in CATEGORIES:
        return None
    info: dict[str, str | None] = {"user_key": None, "agent_id": None, "dialogue_id": None}
    if len(parts) == 3 and parts[0] == "users" and USER_KEY_RE.fullmatch(parts[1]):
        info.update(scope="user", category=category, user_key=parts[1])
    elif len(parts) == 4 and parts[0] == "agents" and parts[2] == "identity":
        info.update(scope="identity", category=category, agent_id=parts[1])
    elif (
        len(parts) == 5
        and parts[0] == "agents"
        and DIALOGUE_ID_RE.fullmatch(parts[2])
        and parts[3] in ("dialogue", "ephemeral")
    ):
        info.update(scope=parts[3], category=category, agent_id=parts[1], dialogue_id=parts[2])
    else:
        return None
    if info.get("agent_id") is not None and not AGENT_ID_RE.fullmatch(str(info["agent_id"])):
        return None
    return info


def cell_of_file(workspace: Path, path: Path) -> tuple[str, str] | None:
    """The (scope, category) of the records a memory file holds; None when it is not one."""
    info = owner_from_path(workspace, path)
    return None if info is None else (str(info["scope"]), str(info["category"]))
