"""The memory page: a web window where one signed-in person sees and tends their memory.

- ``sessions``: one-time sign-in links and the sessions they open (hashed, in ``state/``);
- ``guard``: the cookie, CSRF and Origin checks, and the headers every page sends (CSP);
- ``backend``: what the page reads and changes, through the bot's own commands;
- ``views``: records, history events, reminders and dialogues shaped for the templates;
- ``svg``: a dialogue's tree and the status charts, drawn server-side;
- ``routes``: the pages (``/web/...``), added to the API's FastAPI app.

This face stays light (no FastAPI or Jinja2): ``/memory web`` needs only the sign-in links.
"""

from familiars.bot._web.sessions import SignInLinks, WebSessions, base_url, sign_in_link

__all__ = ["SignInLinks", "WebSessions", "base_url", "sign_in_link"]
