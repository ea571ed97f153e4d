"""Atomic JSON files (through the memory's writer: a temp file in the same folder, fsync,
rename, fsync the folder), private to the owner: files 0600, folders this creates 0700."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from familiars.memory import atomic_write_text

FILE_MODE = 0o600
DIR_MODE = 0o700


def json_bytes(data: Any) -> bytes:
    """The scheduler's JSON documents as their files hold them."""
    text = json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n"
    return text.encode("utf-8", "surrogateescape")


def atomic_write_json(path: Path, data: Any) -> None:
    path = Path(path)
    _ensure_private_dir(path.parent)
    text = json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n"
    atomic_write_text(path, text, mode=FILE_MODE)


def _ensure_private_dir(folder: Path) -> None:
    if folder.exists():
        return
    _ensure_private_dir(folder.parent)
    try:
        folder.mkdir(mode=DIR_MODE)
    except FileExistsError:
        return
    os.chmod(folder, DIR_MODE)
