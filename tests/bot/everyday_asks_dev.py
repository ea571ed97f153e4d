"""A small dev set of reminders and questions in everyday words, offline, through the whole
turn (not a test: run it to measure; ``python -m tests.bot.everyday_asks_dev [--real]``).

Each case is a short conversation in a fresh workspace on Monday 7 December 2037 (2026's
calendar), and a check on its replies. Kinds:

- ``ask``: a reminder asked for in other words: it is set, or the reply says plainly that
  none is (or asks when); never passed over in silence;
- ``after``: a reminder wished the turn after its event was told ("remind me the day
  before"): set on the right day;
- ``that``: "remind me that ...": the reminder reads naturally ("that your passport expires
  in March", never "to your passport ...") and has a sensible time, or asks when;
- ``partner``: "who am I going out with?": the partner, or that none is known; never another
  relative;
- ``family``: "what do you know about my family?": the relatives kept.

``--real`` uses the bundled sentence model (as ``familiars chat`` does); the default is the
tests' hash embedder.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.harness import running_app, say, speaker

T0 = datetime(2037, 12, 7, 10, 0, tzinfo=UTC)  # a Monday
SET = re.compile(r"I'll remind you")
PLAIN_NO = re.compile(r"no reminder is set|When should I remind you|couldn't set", re.I)


@dataclass(frozen=True)
class Case:
    kind: str
    said: tuple[str, ...]
    check: Callable[[str], bool]


def _set_or_plain(reply: str) -> bool:
    return bool(SET.search(reply) or PLAIN_NO.search(reply))


def _set_on(day: str) -> Callable[[str], bool]:
    return lambda reply: bool(SET.search(reply)) and day in reply


def _that(words: str) -> Callable[[str], bool]:
    def check(reply: str) -> bool:
        natural = f"that {words}" in reply and not re.search(r"\bto (?:your|my|the)\b", reply)
        return natural and _set_or_plain(reply)

    return check


def _names(*wanted: str, never: tuple[str, ...] = ()) -> Callable[[str], bool]:
    return lambda reply: all(w in reply for w in wanted) and not any(n in reply for n in never)


def _unknown_partner(reply: str) -> bool:
    return "don't know" in reply and not re.search(r"^Your (?:brother|nan|mum)", reply, re.M)


_KIN = ("my brother Tom lives in Leeds", "my nan Edna is 90", "I have a sister called Lucy")

CASES = (
    Case("ask", ("I need reminding to put the bins out tomorrow night",), _set_on("Tue 8 Dec")),
    Case(
        "ask",
        ("can you nudge me about the dentist on friday at 3",),
        _set_on("you about the dentist on Fri 11 Dec"),
    ),
    Case("ask", ("don't let me forget to call mum at 6",), _set_on("18:00")),
    Case("ask", ("I'll need a reminder to renew the car tax on the 14th",), _set_on("14 Dec")),
    Case("ask", ("make sure I remember the recycling on Thursday",), _set_or_plain),
    Case("ask", ("I need reminding about the gas bill",), _set_or_plain),
    Case("ask", ("could you remind me later about the parcel",), _set_or_plain),
    Case("ask", ("I must remember to book the MOT, remind me",), _set_or_plain),
    Case("ask", ("pls remind me abt mums bday on the 20th",), _set_on("20 Dec")),
    Case("ask", ("give me a shout when it's time to leave for the station",), _set_or_plain),
    Case(
        "after",
        ("it's my sister's birthday on Saturday", "remind me the day before"),
        _set_on("Fri 11 Dec"),
    ),
    Case(
        "after",
        ("I've got a job interview on Thursday at 2", "can you remind me the morning of it?"),
        _set_on("Thu 10 Dec"),
    ),
    Case(
        "after",
        ("the boiler man is coming on the 15th", "could you remind me the evening before"),
        _set_on("Mon 14 Dec"),
    ),
    Case(
        "after",
        ("our anniversary is on the 19th of December", "remind me two days before please"),
        _set_on("Thu 17 Dec"),
    ),
    Case(
        "that",
        ("remind me that my passport expires in March",),
        _that("your passport expires in March"),
    ),
    Case(
        "that",
        ("remind me my passport runs out in March",),
        _that("your passport runs out in March"),
    ),
    Case(
        "that",
        ("remind me that the car goes in for its MOT on the 14th",),
        _that("the car goes in for its MOT"),
    ),
    Case(
        "that",
        ("remind me tomorrow that my library books are due back",),
        _that("your library books are due back"),
    ),
    Case("that", ("remind me that I have a smear test next Tuesday",), _that("you have a smear")),
    Case(
        "partner",
        (*_KIN, "my boyfriend Jake is a nurse", "who am I going out with these days?"),
        _names("Jake", never=("Tom", "Edna")),
    ),
    Case("partner", (*_KIN, "who am I going out with these days?"), _unknown_partner),
    Case("partner", (*_KIN, "who am I seeing at the moment?"), _unknown_partner),
    Case(
        "partner",
        (*_KIN, "I'm married to Priya", "who's my other half nowadays?"),
        _names("Priya", never=("Tom", "Edna")),
    ),
    Case("family", (*_KIN, "what do you know about my family?"), _names("Tom", "Edna", "Lucy")),
    Case("family", (*_KIN, "tell me about my relatives"), _names("Tom", "Edna", "Lucy")),
    Case("family", (*_KIN, "who are my relatives?"), _names("Tom", "Edna", "Lucy")),
    Case("family", (*_KIN, "what family have I got?"), _names("Tom", "Edna", "Lucy")),
)


async def _run(case: Case, options: dict[str, Any]) -> str:
    with tempfile.TemporaryDirectory() as folder:
        async with running_app(Path(folder), model=None, **options) as app:
            msg = speaker(platform="console", chat="dev", user="sam", name="Sam", at=T0)
            reply = ""
            for i, text in enumerate(case.said):
                reply = await say(app, msg(text, i))
            return reply


async def main(real: bool, verbose: bool) -> None:
    options: dict[str, Any] = {}
    if real:
        from familiars.memory import load_embedder

        options["embedder"] = load_embedder("bundled")
    passed: dict[str, list[bool]] = {}
    for case in CASES:
        reply = await _run(case, options)
        ok = case.check(reply)
        passed.setdefault(case.kind, []).append(ok)
        if verbose or not ok:
            print(f"{'ok  ' if ok else 'MISS'} [{case.kind}] {case.said[-1]!r}\n     {reply!r}")
    total = [ok for oks in passed.values() for ok in oks]
    for kind, oks in passed.items():
        print(f"{kind:8} {sum(oks)}/{len(oks)}")
    print(f"{'all':8} {sum(total)}/{len(total)}")


if __name__ == "__main__":
    asyncio.run(main("--real" in sys.argv, "-v" in sys.argv))
