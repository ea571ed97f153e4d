"""What the turn did, said to the person offline: "Okay, I'll remind you to stretch on Tue 1
Dec 09:27.", "When should I remind you to water the plants?", "Updated: you live in Seattle now
(was Portland).", "Noted: you like hiking." (:func:`action_lines`), and a record as a reply
names it (:func:`said_back`)."""

from __future__ import annotations

import re

from familiars.bot._turn_actions import PendingReminder, Reminder, TurnActions
from familiars.llm import second_person

#: The name in a death the writer kept: "The user no longer has their cat Pickle (it died)."
#: A name of several words is said whole ("Mr Darcy"), fond words before it are not.
_DIED_NAME = re.compile(
    r"(?:(?P<named>(?:[A-Z][\w'-]*\s)+[A-Z][\w'-]*)|(?P<word>\S+)) \(it died\)\.?$"
)


def action_lines(actions: TurnActions) -> list[str]:
    lines = [reminder_line(r) for r in actions.reminders]
    lines += [
        f"You already have that one: {r.task}, {r.rule or 'on ' + r.when_text()}."
        for r in actions.already
    ]
    if actions.ask_when is not None:
        lines.append(ask_when_line(actions.ask_when))
    if actions.unreadable_time is not None:
        lines.append(
            f"I couldn't read a time in that, so no reminder is set to "
            f"{actions.unreadable_time.said_back}. Try: remind me to "
            f"{actions.unreadable_time.task} tomorrow at 9."
        )
    if actions.unread_request:
        lines.append(UNREAD_REQUEST)
    if actions.passed_time is not None:
        lines.append(
            f"That day has passed, so no reminder is set to {actions.passed_time.said_back}. "
            f"Tell me a time still to come: remind me to {actions.passed_time.task} tomorrow at 9."
        )
    for new, old in actions.updated:
        said = _lower_first(second_person(new)).rstrip(".")
        if died := _DIED_NAME.search(new):  # a death is met with sympathy (tester s37)
            who = died.group("named") or died.group("word")
            lines.append(f"I'm so sorry about {who}. I've noted that {said}.")
        elif "no longer" in new.lower():  # "you no longer like green tea" says what it was
            lines.append(f"Updated: {said}.")
        else:
            lines.append(f"Updated: {said} now{_was(new, old)}.")
    lines += [f"Noted: {said_back(n)}" for n in actions.noted]
    lines += [f"I know, you told me: {said_back(k)}" for k in actions.known]
    lines += [f"Marked as done: {said_back(d)}" for d in actions.done]
    return lines


UNREAD_REQUEST = (
    "I couldn't tell what to remind you of, or when, so no reminder is set. "
    "Try: remind me to call mum tomorrow at 9."
)


def ask_when_line(pending: PendingReminder) -> str:
    """The bot's question for a reminder asked for with no time."""
    return f"When should I remind you {pending.what}?"


def reminder_line(r: Reminder) -> str:
    """ "Okay, I'll remind you to call mum on Tue 8 Dec 09:00."; the time first when the task
    ends in "on" ("... on Mon 14 Dec 15:00 to put the kettle on", not "on on Mon") or is news
    ("on Thu 17 Dec 10:00 that the recital is on 18 December")."""
    if r.rule:
        return f"Okay, I'll remind you {r.what} {r.rule}, first on {r.when_text()}."
    if re.search(r"\bon$", r.task, re.IGNORECASE) or r.that:
        return f"Okay, I'll remind you on {r.when_text()} {r.what}."
    return f"Okay, I'll remind you {r.what} on {r.when_text()}."


def said_back(content: str) -> str:
    """A record as the reply names it: "you like hiking.", "the reminder to stretch on ..."."""
    said = second_person(content)
    if said.startswith("I'll remind you to "):
        return "the reminder to " + said.removeprefix("I'll remind you to ")
    return _lower_first(said)


def _lower_first(text: str) -> str:
    # "I ...", and a name's possessive ("Emma's husband is called Joaquin.") keep theirs.
    if text.startswith("I ") or text.startswith("I'") or re.match(r"[A-Z][a-z]+'s\b", text):
        return text
    return text[:1].lower() + text[1:]


_VERBS_ONLY = frozenset({"likes", "like", "loves", "love", "enjoys", "doesn't", "no", "longer"})
#: Words that name no value: a new record that lost only these added to the old one ("your
#: brother is called Dev" -> "your brother Dev is 25"), and "(was called)" says nothing.
_NO_VALUE = frozenset({"called", "named", "is", "are", "a", "an", "the", "has", "have"})


def _was(new: str, old: str) -> str:
    """ " (was Portland)": the old record's words the new one lacks, when that is short."""
    new_words = {w.lower() for w in re.findall(r"[\w']+", new)}
    gone = [w for w in re.findall(r"[\w']+", old) if w.lower() not in new_words]
    if all(w.lower() in _NO_VALUE for w in gone):  # nothing of the old one was lost
        return ""
    if gone and all(w.lower() in _VERBS_ONLY for w in gone):  # "(was likes)" says nothing
        return f" (was: {_lower_first(second_person(old)).rstrip('.')})"
    # only a run of the old words reads as a value ("was Portland"); scattered ones
    # ("was fixes teeth for living") do not
    if 0 < len(gone) <= 4 and " ".join(gone).lower() in old.lower():
        return f" (was {' '.join(gone)})"
    return f" (was: {_lower_first(second_person(old)).rstrip('.')})"
