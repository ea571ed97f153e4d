"""Small talk: how much of a message tells nothing about anyone.

A companion remembers what people said about themselves (a state, a feeling, a goal, a value,
an event); it has little reason to recall "Wow, that's awesome! Did you make it?" or "Hey!
Good to see you, anything new?". Those replies are also the embedding hubs that sit close to
every query (see ``_hubness``), so they crowd recall most when the query shares no word with
what it should find.

:func:`small_talk_share` is the share of a message's sentences that are small talk: a
question, a greeting, thanks or a bare reaction ("wow", "that's great", "sorry to hear"),
or a sentence with no first-person word (it says nothing about the speaker). Computed once
per dialogue message at index time; memory records are statements about someone by
construction and read 0. The rule was written from what a chat message is, not fitted to a
benchmark; ``familiars bench locomo`` measures what the ``small_talk`` knob earns.
"""

from __future__ import annotations

import re

from familiars.memory._text import sentences, words

#: An aside that is not the speaker's words (the LoCoMo photo captions, an attachment).
_BRACKETED = re.compile(r"\[[^\]]*\]")
_OPENERS = frozenset(
    {
        "hey", "hi", "hello", "hiya", "yo", "wow", "whoa", "thanks", "thank", "thx",
        "congrats", "congratulations", "aw", "aww", "awww", "oh", "ooh", "yeah", "yep", "yes",
        "nope", "no", "cool", "nice", "great", "awesome", "amazing", "sounds", "haha",
        "lol", "omg", "sorry", "glad", "good", "ok", "okay", "sure", "totally", "right",
        "bye", "cheers", "welcome", "absolutely", "definitely", "exactly", "indeed",
    }
)  # fmt: skip
#: "that's great", "that sounds fun", "what a ...", "how lovely": a reaction to the other.
_REACTION = re.compile(
    r"^(?:that(?:'s| is| was| sounds| looks)|what an?|how (?:nice|cool|fun|lovely|sweet|"
    r"awesome|amazing|great|sad|awful)|you(?:'re| are) (?:so|such|the)|so (?:happy|glad|"
    r"sorry) (?:for|to))\b",
    re.IGNORECASE,
)
FIRST_PERSON = frozenset(
    {
        "i",
        "im",
        "ive",
        "id",
        "ill",
        "me",
        "my",
        "mine",
        "myself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
    }  # fmt: skip
)


def small_talk_share(text: str) -> float:
    """0 (every sentence says something about the speaker) .. 1 (none does)."""
    said = [s for s in sentences(_BRACKETED.sub(" ", text)) if words(s)]
    if not said:
        return 1.0
    return sum(1 for s in said if is_small_talk(s)) / len(said)


def is_small_talk(sentence: str) -> bool:
    """A question, an opener or reaction, or nothing in the first person."""
    text = sentence.strip()
    if text.endswith("?"):
        return True
    tokens = [w.replace("'", "") for w in words(text.lower().replace("’", "'"))]
    if not tokens:
        return True
    if tokens[0] in _OPENERS or _REACTION.match(text):
        return True
    return not any(t in FIRST_PERSON for t in tokens)
