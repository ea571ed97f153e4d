"""Walking a folder: which entries are documents, which are refused and why."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from familiars.memory._documents.errors import DocumentSkipped, UnsafePathError

_IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", ".part", ".crdownload", ".lock", "~")


def is_ignored_name(name: str) -> bool:
    """Hidden files and editor or download leftovers: not documents, not worth a reason."""
    return name.startswith((".", "~$")) or name.endswith(_IGNORED_SUFFIXES)


def walk_folder(
    root: Path, *, exclude: Sequence[Path] = ()
) -> tuple[list[Path], list[DocumentSkipped]]:
    """Files under ``root`` (sorted), and the entries refused: symlinks that leave it.
    Folders in ``exclude`` (the workspace itself) are not entered."""
    real_root = root.resolve()
    skip = {Path(p).resolve() for p in exclude}
    files: list[Path] = []
    refused: list[DocumentSkipped] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        if Path(folder).resolve() in skip:
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if is_ignored_name(name):
                continue
            path = Path(folder) / name
            if path.is_symlink() and not _inside(path.resolve(), real_root):
                refused.append(UnsafePathError(path, "a link that leads outside the folder"))
                continue
            files.append(path)
    return files, refused


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True
