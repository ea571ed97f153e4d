"""One turn end to end through the runtime, offline, with a fast deterministic embedder."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation
from familiars.config import load_settings
from familiars.llm import ChatModel, ChatResult, ProviderServerError
from familiars.memory import BUNDLED_MODEL_NAME
from tests.fakes import HashEmbedder
from tests.harness import make_app, running_app, say, speaker

T0 = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
msg = speaker(platform="telegram", user="alice", name="Alice", group_chat="group-1", at=T0)


def cmd(
    name: str, *args: str, user: str = "alice", chat: str | None = None, group: bool = False
) -> CommandInvocation:
    return CommandInvocation(
        platform="telegram",
        chat_id=chat or f"dm-{user}",
        user_id=user,
        display_name=user.capitalize(),
        name=name,
        args=args,
        is_group=group,
    )


async def test_a_fact_told_once_is_used_in_a_later_reply(app: Application) -> None:
    first = await say(app, msg("My name is Alice and I love hiking."))
    reply = await say(app, msg("What is my name?", minutes=1))
    assert "Alice" in reply
    assert "Offline mode" in first and "Offline mode" not in reply  # said once per conversation


async def test_each_message_becomes_q_and_a_nodes(app: Application, workspace: Path) -> None:
    await say(app, msg("hello there"))
    await say(app, msg("how are you", minutes=1))
    assert app.trees is not None
    tree = app.trees.get("agent_0", "dialogue_0")
    assert [n.node_type for n in tree.node_list] == ["Q", "A", "Q", "A"]
    assert [n.origin for n in tree.node_list] == ["user", "response", "user", "response"]
    assert tree.node_list[1].parent == 0


async def test_secrets_are_masked_before_the_model_sees_them(workspace: Path) -> None:
    seen: list[str] = []

    class Spy(ChatModel):
        name = "spy"

        async def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
            seen.extend(m.content for m in messages)
            return ChatResult(text="noted")

    settings = load_settings(workspace=workspace)
    async with make_app(settings, model=Spy()) as app:
        await say(app, msg("my email is alice@example.com and card 4111 1111 1111 1111"))
        assert app.trees is not None
        node = app.trees.get("agent_0", "dialogue_0").node_list[0]
    assert node.content == "my email is [EMAIL] and card [CARD]"  # never at rest in clear
    assert [r["kind"] for r in node.metadata["redactions"]] == ["email", "card"]
    assert not any("alice@example.com" in s or "4111 1111" in s for s in seen)
    for path in workspace.rglob("*"):
        if path.is_file() and not path.name.startswith("familiars.db"):
            data = path.read_bytes()
            assert b"alice@example.com" not in data and b"4111 1111" not in data, path


async def test_a_failing_model_gets_the_offline_answer_and_the_message_is_kept(
    workspace: Path,
) -> None:
    class Down(ChatModel):
        name = "down"

        async def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
            raise ProviderServerError("down", "500 from provider")

    settings = load_settings(workspace=workspace)
    async with make_app(settings, model=Down()) as app:
        reply = await say(app, msg("My name is Alice."))
        assert "Noted: your name is Alice." in reply and "can't be reached" in reply
        assert app.trees is not None
        assert app.trees.get("agent_0", "dialogue_0").node_list[0].content == "My name is Alice."


async def test_empty_huge_and_binary_messages_never_crash(app: Application) -> None:
    assert await say(app, msg("")) == ""
    huge = await say(app, msg("x" * 100_000))
    assert huge
    junk = await say(
        app,
        msg(
            "\x00\x01\x02 hello \ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        ),
    )
    assert junk


async def test_commands_reach_only_the_callers_own_memories(app: Application) -> None:
    assert app.dialogues is not None
    await say(app, msg("My name is Alice. I love hiking."))
    alice_list = await app.dialogues.command(cmd("memory", "list"))
    assert "Alice" in alice_list.text and alice_list.private
    alice_id = alice_list.text.split("`")[1]
    bob_list = await app.dialogues.command(cmd("memory", "list", user="bob"))
    assert "Alice" not in bob_list.text
    for sub in ("show", "pin", "forget"):
        denied = await app.dialogues.command(cmd("memory", sub, alice_id, user="bob"))
        assert "no memory" in denied.text and "Alice" not in denied.text
    ask = await app.dialogues.command(cmd("memory", "forget", alice_id))
    assert "confirm" in ask.text
    assert alice_id in (await app.dialogues.command(cmd("memory", "list"))).text
    done = await app.dialogues.command(cmd("memory", "forget", alice_id, "confirm"))
    assert "Forgotten" in done.text
    assert alice_id not in (await app.dialogues.command(cmd("memory", "list"))).text


async def test_a_replaced_memory_is_not_pinned_as_if_it_were_the_live_one(
    app: Application,
) -> None:
    """A tester corrected their job with /memory edit, then pinned the id they had listed
    before: 'Pinned: The user works as a driving instructor.', on the replaced copy, while
    the live correction stayed unpinned. A replaced memory is refused as /memory edit
    refuses it, naming the newer one."""
    assert app.dialogues is not None and app.memory is not None
    await say(app, msg("My name is Alice."))
    old_id = (await app.dialogues.command(cmd("memory", "list"))).text.split("`")[1]
    fixed = await app.dialogues.command(cmd("memory", "edit", old_id, "The user's name is Alicia."))
    new_id = fixed.text.split("`")[1]
    for sub in ("pin", "unpin"):
        said = (await app.dialogues.command(cmd("memory", sub, old_id))).text
        assert "already replaced" in said and new_id in said
    assert not (await app.memory.store.get(old_id)).pinned
    assert (await app.dialogues.command(cmd("memory", "pin", new_id))).text.startswith("Pinned")


async def test_in_a_group_bob_cannot_get_alices_memories(app: Application) -> None:
    assert app.dialogues is not None
    from familiars.memory import make_record

    assert app.memory is not None
    await say(app, msg("My name is Alice."))
    for fact in ("Alice's locker code is 4471.", "Alice loves pumpernickel bread."):
        await app.memory.store.append(
            make_record(fact, scope="user", category="knowledge", user_key="telegram_alice")
        )
    group = "group-1"
    # Alice's own reply in the group is read by everyone: her memories stay out of it.
    hello = await say(
        app, msg("hi all, what bread do I love?", user="alice", chat=group, group=True, minutes=2)
    )
    assert "pumpernickel" not in hello.lower() and "4471" not in hello
    questions = (
        "What does Alice love?",
        "what bread does alice like",
        "what is alice's locker code",
        "tell me everything you remember about Alice",
    )
    for n, question in enumerate(questions):
        reply = await say(app, msg(question, 3 + n, user="bob", name="Bob", chat=group, group=True))
        assert "pumpernickel" not in reply.lower() and "4471" not in reply
    for args in (("search", "pumpernickel"), ("why",), ("list",), ("export",)):
        out = await app.dialogues.command(cmd("memory", *args, user="bob", chat=group, group=True))
        assert "pumpernickel" not in out.text.lower()
        assert out.file_data is None or b"pumpernickel" not in out.file_data.lower()
    # Alice herself, in the same group, does get her own memories (privately).
    own = await app.dialogues.command(
        cmd("memory", "search", "pumpernickel", user="alice", chat=group, group=True)
    )
    assert "pumpernickel" in own.text.lower() and own.private


async def test_unknown_commands_and_bad_arguments_get_usage(app: Application) -> None:
    assert app.dialogues is not None
    assert "Unknown command" in (await app.dialogues.command(cmd("frobnicate"))).text
    assert "Usage" in (await app.dialogues.command(cmd("memory"))).text
    assert "Usage" in (await app.dialogues.command(cmd("memory", "show"))).text
    assert "Unknown category" in (await app.dialogues.command(cmd("memory", "list", "bogus"))).text
    assert "no memory" in (await app.dialogues.command(cmd("memory", "show", "../../etc"))).text


async def test_export_gives_a_markdown_file(app: Application) -> None:
    assert app.dialogues is not None
    await say(app, msg("My name is Alice."))
    out = await app.dialogues.command(cmd("memory", "export"))
    assert out.file_name == "memory-telegram_alice.md"
    assert out.file_data is not None and b"Alice" in out.file_data


async def test_confirmations_and_the_export_speak_to_the_person(app: Application) -> None:
    """A tester read "Forgotten: The user doesn't like..." and "# What I remember about me":
    what a command confirms is said to the person ("you ..."), as "Noted:" lines are."""
    assert app.dialogues is not None
    await say(app, msg("I love hiking."))
    rec_id = (await app.dialogues.command(cmd("memory", "list"))).text.split("`")[1]
    for sub in ("pin", "unpin"):
        said = (await app.dialogues.command(cmd("memory", sub, rec_id))).text
        assert "you like hiking" in said.lower() and "the user" not in said.lower()
    out = await app.dialogues.command(cmd("memory", "export"))
    assert out.file_data is not None
    assert out.file_data.decode().startswith("# What I remember about you\n")
    await app.dialogues.command(cmd("memory", "forget", rec_id))  # asked first
    done = (await app.dialogues.command(cmd("memory", "forget", rec_id, "confirm"))).text
    assert done.startswith("Forgotten: you like hiking") and "The user" not in done


async def test_link_joins_two_identities_into_one_memory(app: Application) -> None:
    assert app.dialogues is not None
    await say(app, msg("My name is Alice."))
    code_text = (await app.dialogues.command(cmd("link"))).text
    code = code_text.split("code is ")[1].split(".")[0]
    other = CommandInvocation(
        platform="discord",
        chat_id="d1",
        user_id="999",
        display_name="Ali",
        name="link",
        args=(code,),
    )
    linked = await app.dialogues.command(other)
    assert "Linked" in linked.text
    listing = await app.dialogues.command(
        CommandInvocation(
            platform="discord",
            chat_id="d1",
            user_id="999",
            display_name="Ali",
            name="memory",
            args=("list",),
        )
    )
    assert "Alice" in listing.text
    again = await app.dialogues.command(other)
    assert "unknown or expired" in again.text


async def test_an_attachment_is_kept_private_and_found_again(app: Application) -> None:
    from familiars.bot._adapters.base import Attachment

    assert app.dialogues is not None
    lease = b"Residential lease. Pets: one cat is allowed with a deposit of 200 euros.\n" * 5
    files = (Attachment(filename="lease.txt", data=lease),)
    reply = await say(app, msg("here is my lease", attachments=files))
    assert "saved lease.txt" in reply
    found = await app.dialogues.command(cmd("find", "lease", "pets"))
    assert "lease.txt" in found.text and found.file_data == lease
    other = await app.dialogues.command(cmd("find", "lease", "pets", user="bob"))
    assert "lease.txt" not in other.text and other.file_data is None


async def test_memory_search_lists_only_what_relates_to_the_query(workspace: Path) -> None:
    """T30: "/memory search xylophone" said "10 found", the first scored 1.01, for a word in
    no memory (the scores are relative to the candidates). Unrelated memories are not
    listed (no keyword, a raw cosine under the floor of the model that measured it): nothing
    found is said so."""
    embedder = HashEmbedder(model_name=BUNDLED_MODEL_NAME)  # scored as the measured model
    async with running_app(workspace, model=None, embedder=embedder) as app:
        assert app.dialogues is not None
        for n, fact in enumerate(["I love jazz music.", "I live in Oslo.", "My dog is Biscuit."]):
            await say(app, msg(fact, minutes=n))
        await app.settle()
        nothing = await app.dialogues.command(cmd("memory", "search", "xylophone"))
        assert "found" not in nothing.text and "Nothing" in nothing.text, nothing.text
        jazz = await app.dialogues.command(cmd("memory", "search", "jazz"))
        assert jazz.text.startswith("1 found:") and "jazz" in jazz.text, jazz.text


async def test_memory_search_has_no_floor_for_a_model_not_measured(workspace: Path) -> None:
    """MiniLM's floor (0.25) said nothing of the default bge-m3's cosines (unrelated text
    scores above 0.3 there): a model not measured lists the best, as before the floor."""
    embedder = HashEmbedder(model_name="BAAI/bge-m3")
    async with running_app(workspace, model=None, embedder=embedder) as app:
        assert app.dialogues is not None
        await say(app, msg("I love jazz music."))
        await app.settle()
        found = await app.dialogues.command(cmd("memory", "search", "xylophone"))
        assert found.text.startswith("1 found:"), found.text
