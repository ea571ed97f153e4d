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
    stem = re.escape(what.rstrip("s"))
    return re.search(rf"\b{stem}s?\b", content, re.IGNORECASE) is not None


def likes_answer(text: str, contents: Sequence[str]) -> str | None:
    """The reply to "do I like X?" from ``contents`` (the person's live records, oldest
    first), or None when it asks something else or no record names X."""
    m = _ASKED.match(" ".join(text.replace("\u2019", "'").split()))
    if m is None:
        return None
    what = re.sub(r"^(?:the|a|an)\s+", "", m.group("what").strip(), flags=re.IGNORECASE)
    said = [c for c in contents if _names(c, what) and (_FOR.search(c) or _AGAINST.search(c))]
    if not said:
        return None
    last = said[-1]  # the newest says where the person stands now
    if _NO_MORE.search(last) and _FOR.search(last):
        # "The user likes tea now, no longer coffee." says what took its place: said whole
        return f"You don't like {what} any more." if _LEADS_NO.match(last) else second_person(last)
    if _AGAINST.search(last) or _NO_MORE.search(last):
        return f"You don't like {what}."
    return second_person(last)


__all__ = ["likes_answer"]
