"""A forgotten record said back counts only as a whole sentence of a reply to its person (review
s36 item 4: forgetting "The user likes tea." took "Since you like teaching, try tutoring." in
every conversation: the said-back form "you like tea" was matched as a bare substring)."""

from __future__ import annotations

from familiars.memory import DialogTree, forgotten_of
from familiars.memory._forget_plan import quoting


def test_a_record_said_back_is_a_whole_sentence_not_a_longer_word() -> None:
    tea = forgotten_of((), ["The user likes tea."])
    assert tea.holds("You like tea.")
    assert tea.holds("Noted: you like tea.")
    assert tea.holds("Hello again!\nYou like tea.")
    assert not tea.holds("Since you like teaching, try tutoring.")
    assert not tea.holds("you like team sports, so join a club")
    tired = forgotten_of((), ["The user is tired."])
    assert tired.holds("You are tired.")
    assert not tired.holds("Sounds like you are tired of your job, not of life.")


def _tree(user_key: str) -> DialogTree:
    tree = DialogTree()
    tree.agent_id, tree.dialogue_id = "agent_0", f"dialogue_{user_key}"
    tree.add_node("hi", [1.0, 0.0], timestamp=1.0, metadata={"user_key": user_key})
    tree.add_node("You like tea.", [1.0, 0.0], node_type="A", timestamp=2.0)
    return tree


def test_a_record_said_back_goes_only_in_its_persons_conversations() -> None:
    tea = forgotten_of((), ["The user likes tea."])
    assert quoting(_tree("al"), set(), tea, set(), "al") == [1]
    assert quoting(_tree("bo"), set(), tea, set(), "al") == []
