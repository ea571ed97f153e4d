"""The answer to "do I like running?": what the person's records say of that one thing.

Offline, "do i like running?" after "I've gone off running" was answered with the other things
the person likes (the nearest records by meaning), never with the change. Here the records
that name the thing asked are read: one saying it is no longer liked (or disliked) answers
"You don't like running any more." ("You don't like running."; one saying what took its
place is said whole: "You like tea now, no longer coffee."), one saying it is liked answers
with itself; none naming it leaves the question to the other answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from familiars.llm import second_person

_ASKED = re.compile(
    r"^(?:(?:so|and|hey|um+|ok(?:ay)?|wait)[,!]?\s+)*(?:do|did)\s+i\s+(?:still\s+|really\s+)?"
    r"(?:like|love|enjoy|fancy|dig|hate|dislike)\s+(?P<what>[\w' -]+?)(?:\s+any\s*more|\s+still)?"
    r"\s*[?!.]*$",
    re.IGNORECASE,
)
_NO_MORE = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|doesn't|does\s+not|don't|do\s+not|stopped|"
    r"gone\s+off|went\s+off|gave\s+up|quit)\b",
    re.IGNORECASE,
)
_LEADS_NO = re.compile(r"^The user (?:no\s+longer|doesn't|does\s+not|stopped|has\s+gone\s+off)\b")
_AGAINST = re.compile(r"\b(?:dislikes|hates|can't\s+stand|cannot\s+stand)\b", re.IGNORECASE)
_FOR = re.compile(r"\b(?:likes|loves|enjoys|is\s+into|is\s+a\s+fan\s+of)\b", re.IGNORECASE)


def _names(content: str, what: str) -> bool:
    """Whether ``content`` names ``what`` ("running" in "The user likes running and swimming";
    a plural or a trailing s alike)."""
    stem = re.escape(what.removesuffix("s"))
    return re.search(rf"\b{stem}s?\b", content, re.IGNORECASE) is not None


#: A record of the user themselves ("The user likes tea."), not of someone of theirs ("The
#: user's son hates broccoli.").
_OWN = re.compile(r"^The user\b(?!'s)")
#: Where one clause of a record ends and another, perhaps of the other stance, begins.
_CLAUSES = re.compile(r",|;|\bbut\b|\bwhereas\b|\bwhile\b|\bthough\b", re.IGNORECASE)


#: The verbs of a clause, in any person ("… whereas they enjoy olives").
_CLAUSE_FOR = re.compile(r"\b(?:likes?|loves?|enjoys?|adores?|is\s+into|is\s+a\s+fan\s+of)\b", re.I)
_CLAUSE_AGAINST = re.compile(
    r"\b(?:dislikes?|hates?|detests?|can't\s+stand|cannot\s+stand)\b", re.I
)


def _stance(content: str, what: str) -> str | None:
    """ "for" or "against": what the verb governing ``what`` says ("The user dislikes coffee but
    loves tea": tea "for"); the nearest verb at or before the clause naming it; None: none."""
    stance = None
    for part in _CLAUSES.split(content):
        if _CLAUSE_AGAINST.search(part) or _NO_MORE.search(part):
            stance = "against"
        elif _CLAUSE_FOR.search(part):
            stance = "for"
        if _names(part, what):
            return stance
    return None


def likes_answer(text: str, contents: Sequence[str]) -> str | None:
    """The reply to "do I like X?" from ``contents`` (the person's live records, oldest
    first), or None when it asks something else or no record names X."""
    m = _ASKED.match(" ".join(text.replace("\u2019", "'").split()))
    if m is None:
        return None
    what = re.sub(r"^(?:the|a|an)\s+", "", m.group("what").strip(), flags=re.IGNORECASE)
    said = [
        c for c in contents if _OWN.match(c) and _names(c, what) and _stance(c, what) is not None
    ]
    if not said:
        return None
    last = said[-1]  # the newest says where the person stands now
    if _NO_MORE.search(last) and _FOR.search(last):
        # "The user likes tea now, no longer coffee." says what took its place: said whole
        return f"You don't like {what} any more." if _LEADS_NO.match(last) else second_person(last)
    if _LEADS_NO.match(last) and _AGAINST.search(last):  # "The user no longer dislikes maths."
        return f"You don't dislike {what} any more."
    if _stance(last, what) == "against":
        return f"You don't like {what}."
    parts = [p.strip() for p in _CLAUSES.split(last.rstrip(". "))]
    if len(parts) == 1:
        return second_person(last)
    part = next(p for p in parts if _names(p, what))  # "… but loves tea": that clause alone
    part = re.sub(r"^The user\s+", "", part)
    if not _FOR.match(part):  # "… whereas they enjoy olives", "coffee and cake"
        return f"You like {what}."
    return second_person(f"The user {part}.")


__all__ = ["likes_answer"]
