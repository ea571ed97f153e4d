"""The platform-neutral surface every adapter (console, Discord, Telegram) speaks.

An adapter turns platform events into :class:`IncomingMessage` / :class:`CommandInvocation`,
hands them to the :class:`TurnHandler` the runtime gives it, and renders what comes back
(streamed reply text, :class:`CommandResponse`). The runtime also uses :meth:`send` for
messages the familiar starts itself (reminders, check-ins).

Every adapter holds the bot's one :class:`~familiars.bot._access.AccessPolicy` (given to
:class:`PlatformAdapter`'s constructor) and asks it through :meth:`PlatformAdapter.allows`,
so a new platform gets the access rules without code of its own.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from familiars.bot._access import AccessPolicy


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str | None = None
    size: int | None = None
    url: str | None = None
    data: bytes | None = None


@dataclass(frozen=True)
class IncomingMessage:
    platform: str  # "console" | "discord" | "telegram"
    chat_id: str
    user_id: str
    display_name: str
    text: str
    thread_id: str | None = None
    message_id: str | None = None
    attachments: tuple[Attachment, ...] = ()
    is_group: bool = False
    mentions_bot: bool = False
    #: Id of the message this one replies to, and whether that message was the bot's.
    reply_to: str | None = None
    reply_to_bot: bool = False
    ts: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: Typed by the person after the familiar's last reply was shown: False for a line
    #: typed ahead (or pasted) while a reply was coming, or a forwarded message. A "yes"
    #: that is not fresh never confirms a forget: it did not answer the question.
    fresh: bool = True


@dataclass(frozen=True)
class CommandInvocation:
    """``/name args``: e.g. name="memory", args=("forget", "m_123")."""

    platform: str
    chat_id: str
    user_id: str
    display_name: str
    name: str
    args: tuple[str, ...] = ()
    is_group: bool = False
    thread_id: str | None = None
    ts: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: As :attr:`IncomingMessage.fresh`: a command that is not fresh never carries its own
    #: confirmation (``/memory forget everything confirm`` asks first).
    fresh: bool = True


#: Said when a message held a line starting with "/": it was read as part of the message.
PASTED_COMMAND = (
    "(A command runs only when it is sent on its own, so the '/' line in what you "
    "pasted was read as part of the message, not run.)"
)


def is_one_line(text: str) -> bool:
    """Whether ``text`` is one line (blank space around it aside). A command is: a message
    of several lines is a message, whatever its lines start with (a pasted chat log, a
    forwarded text), so no command runs from inside a longer message."""
    return not any(end in text.strip() for end in ("\n", "\r", "\u2028", "\u2029"))


def has_command_line(text: str) -> bool:
    """Whether a message of several lines has a line that starts with "/" (it was not run)."""
    lines = text.strip().splitlines()
    return len(lines) > 1 and any(line.lstrip().startswith("/") for line in lines)


@dataclass(frozen=True)
class CommandResponse:
    text: str
    #: Always true for memory commands: ephemeral on Discord, a private chat on Telegram.
    private: bool = True
    file_name: str | None = None
    file_data: bytes | None = None
    #: Where the file lies on this machine (``/find``): the terminal prints it, never the
    #: bytes; a platform that cannot take the file says it instead (:func:`without_file`).
    file_path: str | None = None
    #: The arguments of the same command that a plain "yes" in the person's next message in
    #: this chat runs (a command that asks first: ``/memory forget ID`` -> ``forget ID
    #: confirm``); a "no" or any other message drops it.
    on_yes: tuple[str, ...] | None = None


def without_file(response: CommandResponse, limit_bytes: int, platform: str) -> CommandResponse:
    """``response`` as it can be sent where files may be at most ``limit_bytes``: unchanged
    when its file fits, else its text with a note (and the file's path) and no file."""
    data = response.file_data
    if data is None or len(data) <= limit_bytes:
        return response
    where = f" It is at {response.file_path}." if response.file_path else ""
    note = (
        f"(The file {response.file_name or ''} is {_mb(len(data))}, more than {platform} "
        f"takes ({_mb(limit_bytes)}), so I cannot send it here.{where})"
    )
    return CommandResponse(f"{response.text}\n{note}", private=response.private)


def _mb(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB"


@dataclass(frozen=True)
class ArgumentSpec:
    """One typed argument of a command: a word, or (``rest``) the rest of the line."""

    name: str
    description: str
    required: bool = True
    #: Takes every remaining word (``/find QUERY``); only the last argument may.
    rest: bool = False
    #: The handler's ``complete`` offers choices for it.
    autocomplete: bool = False

    @property
    def placeholder(self) -> str:
        """``ID`` when required, ``[category]`` when optional (as in the usage line)."""
        return self.name.upper() if self.required else f"[{self.name}]"


@dataclass(frozen=True)
class SubcommandSpec:
    name: str
    description: str
    arguments: tuple[ArgumentSpec, ...] = ()

    @property
    def usage(self) -> str:
        """``show ID``."""
        return " ".join([self.name, *(a.placeholder for a in self.arguments)])


@dataclass(frozen=True)
class CommandSpec:
    """What an adapter registers with the platform (Discord's slash layout, Telegram's menu),
    as the command declares it. A spec that declares neither ``arguments`` nor
    ``subcommands`` is laid out from its ``usage`` line."""

    name: str
    description: str
    usage: str
    arguments: tuple[ArgumentSpec, ...] = ()
    subcommands: tuple[SubcommandSpec, ...] = ()
    #: Answers always private (ephemeral on Discord, a private chat on Telegram) whatever
    #: the response says.
    private: bool = False


class TurnHandler(Protocol):
    """Implemented by the runtime's DialogueManager."""

    def respond(self, message: IncomingMessage) -> AsyncIterator[str]:
        """Yield the reply as text deltas; yields nothing when the bot should stay silent."""
        ...

    async def command(self, invocation: CommandInvocation) -> CommandResponse: ...

    def command_specs(self) -> list[CommandSpec]: ...

    async def complete(self, invocation: CommandInvocation, partial: str) -> list[str]:
        """Autocomplete choices (memory ids, categories) for the argument being typed."""
        ...


@contextlib.asynccontextmanager
async def closing_reply(deltas: AsyncIterator[str]) -> AsyncIterator[AsyncIterator[str]]:
    """``deltas`` (a handler's :meth:`TurnHandler.respond`) to iterate, closed when the
    block ends, however it ends: a stop while the adapter awaits a send or edit closes the
    handler's turn here and now (what was shown is kept, the dialogue's lock let go after
    that), not later in the event loop's finalizer, after the next message started."""
    try:
        yield deltas
    finally:
        aclose = getattr(deltas, "aclose", None)
        if aclose is not None:
            await aclose()


class WebhookReceiver(Protocol):
    """A platform that posts its updates to the bot's own HTTP server: the API serves
    ``path`` (outside its bearer token) and answers each request with ``deliver``'s status."""

    @property
    def path(self) -> str: ...

    async def deliver(self, headers: Mapping[str, str], body: bytes) -> int:
        """Check and take one request; the HTTP status to answer with."""
        ...


class PlatformAdapter(ABC):
    """One chat platform. Lifecycle: ``start`` connects and begins receiving, ``stop``
    disconnects and returns once no handler call is in flight."""

    name: str = ""
    #: Set by an adapter whose platform posts updates to the bot's HTTP server.
    webhook: WebhookReceiver | None = None

    def __init__(self, handler: TurnHandler, access: AccessPolicy | None = None) -> None:
        self.handler = handler
        #: The bot's one access policy; without one, everyone is allowed (as empty lists say).
        self.access = access or AccessPolicy()

    def allows(
        self, user_id: str, *, group_chat_ids: tuple[str, ...] = (), server_id: str | None = None
    ) -> bool:
        """Whether ``user_id`` may use the bot here, on this adapter's platform."""
        return self.access.allows(
            self.name, user_id, group_chat_ids=group_chat_ids, server_id=server_id
        )

    def nobody_allowed(self) -> str | None:
        """Why nobody can use the bot on this platform (to warn at start-up), or None."""
        return self.access.nobody_allowed(self.name)

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def stop(self) -> None: ...

    @abstractmethod
    async def send(self, chat_id: str, text: str, *, thread_id: str | None = None) -> str:
        """Send a message the familiar starts itself; returns the platform message id."""

    def reaches(self, chat_id: str) -> bool:
        """Whether a message for ``chat_id`` can go out through this adapter now. A platform
        addresses every chat by its id; the terminal holds one person's chat only."""
        return True


def split_message(text: str, limit: int) -> list[str]:
    """Split ``text`` into pieces of at most ``limit`` characters, preferring paragraph and
    line breaks, and never leaving a fenced code block open across pieces (a piece that cuts
    a block closes it with ``` and the next reopens it with the same fence line)."""
    if limit < 16:
        raise ValueError("limit too small to split messages sensibly")
    if len(text) <= limit:
        return [text] if text else []
    pieces: list[str] = []
    fence: str | None = None  # the opening fence line of the code block we are inside
    rest = text
    while rest:
        prefix = (fence + "\n") if fence else ""
        room = limit - len(prefix) - 4  # leave room for a closing "\n```"
        if len(prefix) + len(rest) <= limit:
            pieces.append(prefix + rest)
            break
        cut = _best_cut(rest, room)
        chunk, rest = rest[:cut], rest[cut:]
        body = prefix + chunk
        fence = _reopenable(_fence_after(body, fence is not None, fence), limit)
        if fence:
            body = body.rstrip("\n") + "\n```"
        pieces.append(body)
        rest = rest.lstrip("\n") if not fence else rest
    return pieces


def _reopenable(fence: str | None, limit: int) -> str | None:
    """The fence line to reopen a cut block with; a plain one when the original (with its
    info string) would leave too little room in the next piece."""
    if fence is None or len(fence) + 5 <= limit // 2:
        return fence
    return "```"


def _best_cut(text: str, room: int) -> int:
    window = text[:room]
    for sep in ("\n\n", "\n", " "):
        pos = window.rfind(sep)
        if pos > room // 3:
            return pos + len(sep)
    return room


def _fence_after(body: str, started_inside: bool, fence: str | None) -> str | None:
    """The fence line still open at the end of ``body``, or None."""
    open_fence = fence if started_inside else None
    for line in body.split("\n")[1 if started_inside else 0 :]:
        stripped = line.strip()
        if stripped.startswith("```"):
            open_fence = None if open_fence else stripped
    return open_fence
