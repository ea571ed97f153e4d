"""Documents in the conversation: attachments a person sends are stored privately under
their user scope and indexed; ``/find`` searches them (and the owner's watched folders) and
sends the best file back; relevant passages join a reply's context."""

from __future__ import annotations

import logging

import httpx

from familiars.bot._adapters.base import Attachment, CommandResponse
from familiars.bot._commands import Caller
from familiars.memory import (
    DocumentError,
    DocumentFinder,
    context_lines,
    format_found,
    relevant_for_context,
)

logger = logging.getLogger(__name__)

#: Files larger than this are listed by /find but not attached to the answer (the largest
#: any platform takes, Telegram's 50 MB; each adapter applies its own limit, see
#: ``without_file``).
SEND_BACK_MAX_BYTES = 50 * 1024 * 1024


class Documents:
    def __init__(self, finder: DocumentFinder, *, max_bytes: int) -> None:
        self.finder = finder
        self.max_bytes = max_bytes

    async def save_attachment(self, user_key: str, attachment: Attachment) -> str:
        """Store and index one attachment; a short note for the reply either way."""
        try:
            data = attachment.data
            if data is None:
                data = await self._download(attachment)
            result = await self.finder.add_attachment(user_key, attachment.filename, data)
        except (DocumentError, httpx.HTTPError, ValueError) as exc:
            logger.info("attachment %s not indexed: %s", attachment.filename, exc)
            return f"(I could not read {attachment.filename}: {exc})"
        if result.status == "skipped":
            return f"(I could not read {attachment.filename}: {result.reason})"
        return f"(I saved {attachment.filename} privately; ask me to /find it any time.)"

    async def _download(self, attachment: Attachment) -> bytes:
        if not attachment.url or not attachment.url.startswith(("http://", "https://")):
            raise ValueError("the platform gave no way to fetch the file")
        if attachment.size is not None and attachment.size > self.max_bytes:
            raise ValueError("the file is larger than the configured limit")
        async with httpx.AsyncClient(timeout=60.0, follow_redirects=True) as client:
            response = await client.get(attachment.url)
            response.raise_for_status()
            if len(response.content) > self.max_bytes:
                raise ValueError("the file is larger than the configured limit")
            return response.content

    async def find(self, query: str, caller: Caller) -> CommandResponse:
        found = await self.finder.find(
            query, user_key=caller.user_key, include_owner=caller.is_owner
        )
        text = format_found(found, query=query, ids=True)
        if not found:
            return CommandResponse(text)
        try:
            blob = await self.finder.open_file(
                found[0].file_id, user_key=caller.user_key, include_owner=caller.is_owner
            )
        except DocumentError:
            return CommandResponse(text)
        if len(blob.data) > SEND_BACK_MAX_BYTES:
            note = f"\n(The file is too large to send here. It is at {blob.path}.)"
            return CommandResponse(text + note, file_path=blob.path)
        return CommandResponse(text, file_name=blob.name, file_data=blob.data, file_path=blob.path)

    async def context(self, query: str, user_key: str, *, is_owner: bool) -> list[str]:
        """Passages worth showing the model for this message (may be none)."""
        try:
            found = await self.finder.find(query, user_key=user_key, include_owner=is_owner, k=5)
        except DocumentError:
            return []
        return context_lines(relevant_for_context(found))
