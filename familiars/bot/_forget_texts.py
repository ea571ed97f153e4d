"""What a forget says (pure): the question before it, counted or listed, and what went after
it, with the merged memories made again or dropped; a whole person's holdings.

The words that ask for a forget and the state between question and answer are
:class:`~familiars.bot._forgetting.ForgetByWords`'s; these functions only word the counts.
"""

from __future__ import annotations

from familiars.bot._action_lines import said_back
from familiars.bot._forget_window import Window
from familiars.llm import second_person
from familiars.memory import PERSON_KEPT, ForgetReport, PersonHoldings, Redactor, TurnsPlan

PERSON_IN_PRIVATE = (
    "Forgetting everything about you is done in a private chat: message me directly "
    "(or send /memory forget everything there)."
)


NOTHING_OF_YOURS = "I keep nothing about you: there is nothing to forget."


def holdings_text(h: PersonHoldings) -> str:
    """ "12 memories (2 reminders, 1 open loop), 40 messages in 3 conversations (1 with
    others) on telegram and discord, and 1 file"."""
    inner = [count(h.reminders, "reminder") if h.reminders else ""]
    inner.append(count(h.open_loops, "open loop") if h.open_loops else "")
    among = ", ".join(p for p in inner if p)
    memories = count(h.memories, "memory", "memories") + (f" ({among})" if among else "")
    talks = f"{_person_messages(h.messages, h.replies)} in {count(h.dialogues, 'conversation')}"
    if h.groups:
        talks += f" ({h.groups} with others)"
    if h.platforms:
        talks += f" on {' and '.join(h.platforms)}"
    files = count(h.files, "file")
    if h.unread:  # hand-broken entries: their words go too, though I cannot read them
        unread = count(h.unread, "entry", "entries")
        return f"{memories}, {talks}, {files}, and {unread} I could not read"
    return f"{memories}, {talks}, and {files}"


def _person_messages(yours: int, mine: int) -> str:
    """ "6 messages of yours and 7 of mine": the words the question and the answer share,
    so the same forget is counted the same (tester s36: 22 asked, 29 forgotten)."""
    return f"{count(yours, 'message')} of yours and {mine} of mine"


def person_ask_text(h: PersonHoldings, *, command: bool) -> str:
    how = "Reply yes (or send /memory forget everything confirm)" if command else "Reply yes"
    return (
        f"About to forget everything about you, for good: {holdings_text(h)}, with "
        "what I noted from them, your name, time zone and links, "
        f"and your memory-page sign-ins.\n{PERSON_KEPT}\n{how} to go ahead, or no to keep it."
    )


def person_done_text(report: ForgetReport) -> str:
    """What went, counted from the report as :func:`holdings_text` counted it before."""
    said = len(report.said)
    went = [
        count(len(report.records), "memory", "memories"),
        _person_messages(said, len(report.nodes) - said),
        count(len(report.files), "file"),
    ]
    if report.unread:  # not counted: text typed before the first entry is no entry
        went.append("what I could not read in your files")
    return (
        f"Forgotten everything about you: {', '.join(went[:-1])} and {went[-1]}, everywhere I "
        f"kept them.\n{PERSON_KEPT}"
    )


def record_said(content: str) -> str:
    """ "you live in Denver.", "the reminder to ..."; a record not about the person as is
    ("Oskar is obsessed with trains.")."""
    return content.strip() if second_person(content) == content.strip() else said_back(content)


#: What a forget's question or answer never reads out, whatever the privacy settings kept.
_SECRET_KINDS = frozenset({"password", "api_key"})


def without_secrets(text: str) -> str:
    """``text`` with each password, PIN or key the redactor finds as its mask token: a
    forget's question reads out what goes, and a secret said with it stays unsaid (tester
    s38: "my insta pw is ..." was read back in clear)."""
    found = [d for d in Redactor().scan(text).discoveries if d.kind in _SECRET_KINDS]
    for d in sorted(found, key=lambda d: d.start, reverse=True):
        text = text[: d.start] + d.token + text[d.end :]
    return text


def shorten(text: str, limit: int = 140) -> str:
    """``text`` on one line, without secrets, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(without_secrets(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def gone_text(report: ForgetReport) -> str:
    """The line under "Forgotten: <what>": how much went (and merged memories made again)."""
    return f"(Gone from everywhere I kept it: {_kept_count(report)}.){_derived(report)}"


def _kept_count(report: ForgetReport) -> str:
    files = f"{count(len(report.files), 'file')}, " if report.files else ""
    said = set(report.said)
    # Replies of mine that said a forgotten value again, named: "everywhere" takes them too.
    echoes = sum(1 for key in report.repeats if key not in said)
    mine = f" ({count(echoes, 'reply', 'replies')} of mine that repeated it among them)"
    return files + (
        f"{count(len(report.records), 'memory', 'memories')} and "
        f"{count(len(report.nodes), 'message')}{mine if echoes else ''}"
    )


def plan_words(plan: TurnsPlan, window: Window) -> str:
    """ "the 9 messages you sent me in the last 2 minutes, my 9 replies to them, 1 memory
    I noted from them and 8 other messages (yours or my replies) that repeated what they
    said"."""
    counts = len(plan.turns), len(plan.replies), len(plan.records), len(plan.echoes)
    return _window_words(f" {window.label}", *counts, sent=len(plan.sent))


def _window_words(
    label: str, turns: int, replies: int, records: int, echoes: int, *, sent: int = 0
) -> str:
    parts = [f"the {count(turns, 'message')} you sent me{label}"] if turns or not sent else []
    them, say = ("it", "says") if turns == 1 else ("them", "say")
    if replies:
        parts.append(f"my {count(replies, 'reply', 'replies')} to {them}")
    if sent:  # a reminder that fired, a check-in
        then = " then" if parts else label
        parts.append(f"{count(sent, 'message')} I sent you{then} on my own")
    if records:
        parts.append(f"{count(records, 'memory', 'memories')} I noted from {them}")
    if echoes:
        parts.append(
            f"{count(echoes, 'other message')} (yours or my replies) that repeated what "
            f"{them} {say}"
        )
    if len(parts) == 1:
        return parts[0]
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def window_done_text(window: Window, plan: TurnsPlan, report: ForgetReport) -> str:
    """What a window's forget took, in the words of its question (the same counts when
    nothing was said meanwhile); merged memories only as such."""
    turns, replies, sent, echoes = plan.split(report.nodes)
    # merged memories made again or dropped are told apart by _derived (review s33 item 9)
    merged = set(report.rederived) | set(report.dropped)
    noted = sum(1 for r in report.records if r not in merged)
    said = _window_words("", turns, replies, noted, echoes, sent=sent)
    return f"Forgotten {window.label}: {said}, everywhere I kept them.{_derived(report)}"


def done_text(report: ForgetReport, window: Window | None = None) -> str:
    what = f" {window.label}" if window is not None else ""
    return f"Forgotten{what}: {_kept_count(report)}, everywhere I kept them.{_derived(report)}"


def _derived(report: ForgetReport) -> str:
    """Issue 25: consolidated memories that held the forgotten words."""
    parts = [
        f"{count(len(report.rederived), 'merged memory', 'merged memories')} made again "
        f"without it ({', '.join(f'{old} -> {new}' for old, new in report.rederived.items())})"
        if report.rederived
        else "",
        f"{count(len(report.dropped), 'merged memory', 'merged memories')} dropped "
        f"({', '.join(report.dropped)})"
        if report.dropped
        else "",
    ]
    said = "; ".join(p for p in parts if p)
    return f" {said[0].upper()}{said[1:]}." if said else ""


def count(n: int, one: str, many: str | None = None) -> str:
    """ "1 memory", "3 memories", "no messages"."""
    if n == 0:
        return f"no {many or one + 's'}"
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"
