"""The bot's one access policy: bare ids and ``platform:id`` mean the same for access and for
ownership, on every platform, for the adapters and for the owner-only commands."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from familiars.bot import Application
from familiars.bot._access import AccessPolicy
from familiars.bot._adapters.base import CommandInvocation, PlatformAdapter, TurnHandler
from familiars.config import AccessSettings, DiscordSettings, Settings

OWNER = "7"
PLATFORMS = ("discord", "telegram")
OWNER_ONLY = "Only the bot's owners can look at that."


def policy(**lists: list[str]) -> AccessPolicy:
    return AccessPolicy.from_settings(Settings(access=AccessSettings(**lists)))


def owner_forms(platform: str) -> list[list[str]]:
    return [[OWNER], [f"{platform}:{OWNER}"], [f" {platform.upper()}:{OWNER} "]]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_bare_and_prefixed_owner_are_the_same_owner(platform: str) -> None:
    for owners in owner_forms(platform):
        access = policy(owners=owners, allowed_users=["someone:else"], allowed_chats=["-1"])
        assert access.is_owner(platform, OWNER), owners
        assert access.allows(platform, OWNER, group_chat_ids=("-9",)), owners
        assert access.nobody_allowed(platform) is None
    other = "telegram" if platform == "discord" else "discord"
    assert not policy(owners=[f"{other}:{OWNER}"]).is_owner(platform, OWNER)


def test_the_console_is_always_an_owner_and_others_are_not_by_default() -> None:
    assert AccessPolicy().is_owner("console", "me")
    assert not AccessPolicy().is_owner("telegram", OWNER)


def test_lists_rules_on_every_platform() -> None:
    access = policy(allowed_users=["2", "discord:3"], allowed_chats=["telegram:-5", "11"])
    assert access.allows("telegram", "2") and access.allows("discord", "2")
    assert access.allows("discord", "3") and not access.allows("telegram", "3")
    assert access.allows("telegram", "2", group_chat_ids=("-5",))
    assert not access.allows("discord", "2", group_chat_ids=("-5",))
    assert access.allows("discord", "2", group_chat_ids=("10", "11"))  # a listed thread
    assert "nobody may use the bot on Telegram" in (
        policy(allowed_users=["discord:1"]).nobody_allowed("telegram") or ""
    )


def test_discord_servers_are_limited_by_allowed_guilds() -> None:
    access = AccessPolicy.from_settings(Settings(discord=DiscordSettings(allowed_guilds=["9"])))
    assert access.allows("discord", "2", group_chat_ids=("1",), server_id="9")
    assert not access.allows("discord", "2", group_chat_ids=("1",), server_id="8")
    assert access.allows("discord", "2")  # a DM has no server


class MatrixAdapter(PlatformAdapter):
    """A new platform: nothing about access of its own."""

    name = "matrix"

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        return ""


def test_a_new_platform_gets_the_policy_for_free() -> None:
    handler: TurnHandler = None  # type: ignore[assignment]  # never called here
    adapter = MatrixAdapter(handler, policy(owners=[OWNER], allowed_users=["matrix:2"]))
    assert adapter.allows(OWNER) and adapter.allows("2")
    assert not adapter.allows("3")
    assert MatrixAdapter(handler).allows("3")  # no policy given: empty lists, everyone


MakeApp = Callable[[list[str]], Application]


@pytest.fixture
def make_app(app_factory: Callable[..., Application]) -> MakeApp:
    def make(owners: list[str]) -> Application:
        return app_factory(settings={"access": {"owners": owners}}, model=None)

    return make


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_owner_only_commands_take_bare_and_prefixed_owners(
    platform: str, make_app: MakeApp
) -> None:
    ask = CommandInvocation(platform, f"dm-{OWNER}", OWNER, "Owner", "memory", ("list", "identity"))
    for owners in [*owner_forms(platform), []]:
        async with make_app(owners) as app:
            assert app.dialogues is not None and app.dialogues.access is app.access
            answer = await app.dialogues.command(ask)
        assert (answer.text == OWNER_ONLY) == (owners == []), (owners, answer.text)
