"""The ``familiars`` command line: one private module per command group, ``app`` the root."""

from familiars.cli._main import app, main

__all__ = [
    "app",
    "main",
]
