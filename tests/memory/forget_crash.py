"""``familiars ARGS...`` killed with SIGKILL at a chosen step of its forget (what a power cut
or an OOM kill does), for the resumed-forget tests:

    python -m tests.memory.forget_crash POINT --workspace WS memory forget ...

POINT: ``purge`` (a record's entry is gone from its file, its history not yet purged),
``scrub`` (every first place is done, no derived copy yet: the queue's copies, the
index's vectors and keyword segments, the state JSON and logs still hold the words) or
``rewrite:N`` (at the N-th fold of a dialogue's tombstones into its file: some turns are
tombstones on disk, the rest not yet, records already gone).

It lives with memory's tests because its kill points are the Forgetter's private steps; the
tests that use it (``tests/bot/test_forget_resumed.py``) only run it as a process."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from familiars.memory import _forget, _history


def _die(*_: Any, **__: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _arm(point: str) -> None:
    if point == "purge":
        _history.purge = _die  # type: ignore[assignment]
        return
    if point == "scrub":
        _forget.scrub_files = _die  # type: ignore[assignment]
        return
    name, _, n = point.partition(":")
    assert name == "rewrite" and n.isdigit(), point
    rewrite, calls = _forget._rewrite, [0]

    def counted(tree: Any) -> None:
        calls[0] += 1
        if calls[0] == int(n):
            _die()
        rewrite(tree)

    _forget._rewrite = counted  # type: ignore[assignment]


def main() -> None:
    point, *args = sys.argv[1:]
    _arm(point)
    from familiars.cli import app

    app(args, prog_name="familiars")


if __name__ == "__main__":
    main()
