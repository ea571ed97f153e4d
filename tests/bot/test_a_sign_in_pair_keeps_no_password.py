"""Tester: "my netflix login is x@y.com / sunflower77" (a label, an e-mail, then the
password) kept the password in memory: the redactor's labels named the first value only.
Told to the bot, in any of the shapes people use, the password reaches no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import message, running_app, say


def _files_holding(root: Path, word: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


@pytest.mark.parametrize(
    ("said", "secret"),
    [
        ("my netflix login is x@y.com / sunflower77", "sunflower77"),
        ("remember that my netflix login is x@y.com / sunflower77", "sunflower77"),
        ("netflix: bob@mail.com pw sunflower77", "sunflower77"),
        ("login for hulu is me@x.io and the password is Tr0ub4dor", "Tr0ub4dor"),
    ],
)
async def test_a_sign_in_pair_keeps_no_password(workspace: Path, said: str, secret: str) -> None:
    async with running_app(workspace) as app:
        reply = await say(app, message(said))
        await app.settle()
        assert secret not in reply, reply
        assert _files_holding(workspace, secret) == []
