"""What a name that becomes part of a path may be (a user key, an agent id), in one place:
the memory checks every one against it before any path is built, and the terminal chat
checks ``--user`` before it starts (tester F14: ``--user zoë`` was refused with the raw
pattern after the whole start)."""

from __future__ import annotations

import re

NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
NAME_RE = re.compile(rf"^{NAME_PATTERN}$")
#: The rule in words, as a person is told it.
NAME_RULE = (
    "use only letters a-z and A-Z, digits, - and _ (no spaces or accents), at most 64, "
    "the first a letter or digit"
)


def name_problem(kind: str, value: str) -> str | None:
    """What is wrong with ``value`` as a ``kind`` ("user key"), in words; None when fine."""
    if NAME_RE.fullmatch(value):
        return None
    return f"invalid {kind} {value!r}: {NAME_RULE}"
