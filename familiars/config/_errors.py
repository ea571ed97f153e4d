"""The one error whose text is meant for a person.

    UserFacingError        its message is shown to the person as it is (chat reply, CLI line)

It lives in ``config``, the lowest layer, so that every package above (``memory``, ``bot``,
``cli``) can raise it and the CLI and the bot's commands can catch it, with no new layer and
no import upwards. Any other exception reaching a command or the CLI is a bug: it is logged
and the person gets a generic line instead of its text.
"""

from __future__ import annotations


class UserFacingError(Exception):
    """An error written for the person who caused it: say what happened and what to do."""
