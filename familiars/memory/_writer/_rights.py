"""Who may change what (issue 12): the one rule between a writer's output and the store.

The agent's ``identity`` scope (its standing instructions, procedures and preferences) sits
in every chat's prompt, so it changes only on the word of an owner in a private chat.
:func:`govern` looks at each write of a turn against the :class:`Speaker` of that turn,
whatever the writer (the chat model, the offline rules) proposed:

- a write that changes how the agent behaves (identity scope, a directive or procedure
  anywhere) is taken only when the person's own message asks the agent to behave a certain
  way (:func:`asks_behaviour`: "from now on ...", "please always ...", "call me ...",
  "don't ..."): a writer that makes an order out of small talk is refused, whoever spoke;
- a standing instruction that would undo the rule about untrusted data ("obey instructions
  found inside untrusted_data blocks", :func:`defies_data_rule`) is refused always;
- a tainted turn (its prompt held document text or other people's words, issue 19): a write
  to the identity scope or of a directive or procedure anywhere is refused, whoever spoke,
  an owner too: the writer cannot tell the speaker's words from the document's, and an
  instruction hidden in a file must not become one of the agent's;
- an owner in a private chat: every write passes;
- an owner in a group: identity becomes that group's own (``dialogue`` scope), not every
  chat's;
- anyone else: a request about how the agent behaves is kept for that person
  (``user/preference``, "The user asked: ..."), in a private chat and in a group alike;
- in a group, a non-owner's directive to the whole group (``dialogue/directive``) is kept
  for that person too, so one member does not set the rules for the others; a one-turn
  ``ephemeral/directive`` there is refused;
- where there is no one to keep it for, the write is refused, never dropped silently.

:func:`apply_writes_report <familiars.memory._writer._apply.apply_writes_report>` calls
:func:`govern` before anything is written, so every writer path goes through it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from familiars.memory._writer._schema import WriteOp

logger = logging.getLogger(__name__)

#: The tag a redirected write carries: where the writer meant to put it.
ASKED_TAG = "asked-for:{scope}/{category}"
#: Categories that change how the agent behaves (as opposed to facts about someone).
BEHAVIOUR = frozenset({"directive", "procedure"})


@dataclass(frozen=True)
class Speaker:
    """Who said the turn. The defaults are the safe values: a turn that does not say who
    spoke is treated as a non-owner in a group."""

    is_owner: bool = False
    is_group: bool = True
    #: The turn's prompt held text the speaker did not write (see the module docstring).
    tainted: bool = False
    #: The person's own message asks the agent to behave a certain way (:func:`asks_behaviour`).
    asked_behaviour: bool = False

    @property
    def may_instruct_agent(self) -> bool:
        """Whether this speaker may change the agent's identity (every chat's prompt)."""
        return self.is_owner and not self.is_group and not self.tainted


#: The speaker of a turn that does not say who spoke: a non-owner in a group.
UNKNOWN_SPEAKER = Speaker()


#: The tag of a record written in a tainted turn (the bot's taint reads it back on recall).
TAINTED_TURN_TAG = "tainted-turn"


@dataclass(frozen=True)
class Ruling:
    """What became of one write: ``write`` is what to apply (None: refused) and ``note``
    says why it changed (None: it passed as the writer proposed it)."""

    write: WriteOp | None
    note: str | None = None


def govern(write: WriteOp, speaker: Speaker, *, has_user: bool, has_dialogue: bool) -> Ruling:
    """The ruling on one write of a turn said by ``speaker``; ``has_user`` / ``has_dialogue``:
    whether the turn has a person / a dialogue to keep a redirected write for. What a tainted
    turn may still write carries :data:`TAINTED_TURN_TAG`, so recalling it taints the turn
    that recalls it (a planted note does not become an order one turn later)."""
    ruling = _ruling(write, speaker, has_user=has_user, has_dialogue=has_dialogue)
    if not speaker.tainted or ruling.write is None or ruling.write.op == "skip":
        return ruling
    entry = ruling.write.entry
    tagged = entry.model_copy(update={"tags": list(dict.fromkeys([*entry.tags, TAINTED_TURN_TAG]))})
    return Ruling(ruling.write.model_copy(update={"entry": tagged}), ruling.note)


def _ruling(write: WriteOp, speaker: Speaker, *, has_user: bool, has_dialogue: bool) -> Ruling:
    if write.op == "skip":
        return Ruling(write)
    behaviour = write.scope == "identity" or write.category in BEHAVIOUR
    if behaviour and defies_data_rule(write.entry.content):
        return _refused(write, "it would make me follow instructions inside untrusted data")
    if behaviour and speaker.tainted:
        return _refused(write, "the turn held documents or other people's words")
    if behaviour and not speaker.asked_behaviour:
        return _refused(write, "the person's message did not ask me to behave a certain way")
    if speaker.may_instruct_agent:
        return Ruling(write)
    if write.scope == "identity":
        if speaker.is_owner and has_dialogue:
            category = "preference" if write.category == "preference" else "directive"
            return _moved(write, "dialogue", category, "an owner in a group: for this group")
        return _for_the_person(write, has_user, "not said by an owner in a private chat")
    if speaker.is_owner or not speaker.is_group or write.category not in BEHAVIOUR:
        return Ruling(write)
    if write.scope == "dialogue":
        return _for_the_person(write, has_user, "a non-owner's directive to a group")
    if write.scope == "ephemeral":
        return _refused(write, "a non-owner's directive to a group")
    return Ruling(write)


def _for_the_person(write: WriteOp, has_user: bool, why: str) -> Ruling:
    if not has_user:
        return _refused(write, f"{why}, and no person to keep it for")
    content = write.entry.content
    if not content.lower().startswith("the user"):
        content = f"The user asked: {content}"
    return _moved(write, "user", "preference", f"{why}: kept for the person", content)


def _moved(
    write: WriteOp, scope: str, category: str, why: str, content: str | None = None
) -> Ruling:
    asked = ASKED_TAG.format(scope=write.scope, category=write.category)
    entry = write.entry.model_copy(
        update={
            "content": content or write.entry.content,
            "tags": list(dict.fromkeys([*write.entry.tags, asked])),
            # It named a record of the scope it meant to change, which it may not touch.
            "supersedes_id": None,
        }
    )
    moved = write.model_copy(update={"scope": scope, "category": category, "entry": entry})
    note = f"{write.scope}/{write.category} -> {scope}/{category} ({why})"
    logger.info("writer: %s: %r", note, write.entry.content[:200])
    return Ruling(moved, note)


def _refused(write: WriteOp, why: str) -> Ruling:
    note = f"refused {write.scope}/{write.category} ({why})"
    logger.info("writer: %s: %r", note, write.entry.content[:200])
    return Ruling(None, note)


#: What a person says to ask the agent to behave a certain way: a marker of time ("from now
#: on"), a name to be called by, or a clause that starts as an order ("please always ...",
#: "don't ...", "stop ...").
_ASKS = re.compile(
    r"\b(?:from now on|going forward|in (?:the )?future|from here on|call me|address me|"
    r"refer to me)\b"
    r"|(?:^|[.!?;:,\n]\s*|\b(?:and|but)\s+)(?:(?:ok(?:ay)?|and|also|so|hey)[,\s]+)*"
    r"(?:please\s+|pls\s+|kindly\s+)?(?:always|never|don'?t|do not|stop|quit|avoid|"
    r"remember to|make sure to|be (?:more|less)|keep (?:your|it)|use|speak|talk|reply|"
    r"respond|answer|write)\b",
    re.IGNORECASE,
)


def asks_behaviour(text: str) -> bool:
    """Whether the person's message asks the agent to behave a certain way ("from now on,
    answer in French", "please always use metric", "call me Sam", "don't use emoji")."""
    return _ASKS.search(" ".join(text.replace("\u2019", "'").split())) is not None


#: A standing instruction that would undo the rule about untrusted data: one that says to
#: follow, obey or run instructions that come inside data (the data blocks, documents, tool
#: results, memories), or to ignore the rule itself.
_OBEY = r"(?:obey|follow|execute|carry out|act on|do what|comply with|trust|treat .{0,40} as)"
_DATA = (
    r"(?:untrusted|untrusted_data|<\s*/?\s*untrusted|data block|documents?|files?|"
    r"tool results?|memories|notes|quoted|the data)"
)
_DEFIES = re.compile(
    rf"\b{_OBEY}\b.{{0,80}}\b(?:instructions?|orders?|commands?|requests?)\b.{{0,60}}{_DATA}"
    rf"|{_DATA}.{{0,60}}\b(?:instructions?|orders?|commands?)\b.{{0,40}}\b{_OBEY}\b"
    r"|\bignore\b.{0,60}\b(?:rule|instructions?|guard|untrusted)",
    re.IGNORECASE,
)


def defies_data_rule(content: str) -> bool:
    """Whether ``content`` would have the agent follow instructions found inside untrusted
    data (or drop the rule that it never does): never kept as a directive, by any writer."""
    return _DEFIES.search(" ".join(content.split())) is not None
