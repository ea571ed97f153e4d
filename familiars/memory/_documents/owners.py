"""Who a file belongs to: the owner scope (``""``) or a person's ``user_key``, and file ids."""

from __future__ import annotations

import hashlib

from familiars.memory._documents.history import OWNER
from familiars.memory._paths import check_user_key


def file_id_for(owner: str, path: str) -> str:
    return hashlib.sha256(f"{owner}\0{path}".encode("utf-8", "surrogateescape")).hexdigest()[:24]


def owner_of(user_key: str | None) -> str:
    return OWNER if user_key is None else check_user_key(user_key)
