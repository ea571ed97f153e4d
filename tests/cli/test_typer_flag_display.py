"""Review s33 #10: the CLI mends typer's flag display at import; a typer (>=0.12 is allowed)
whose option has no ``display_type_rich`` must still start, not fail with AttributeError."""

from __future__ import annotations

import pytest
from typer.core import TyperOption

from familiars.cli import _main


def test_a_typer_without_display_type_rich_still_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    for cls in TyperOption.__mro__:  # as in a typer from before it existed
        if "display_type_rich" in cls.__dict__:
            monkeypatch.delattr(cls, "display_type_rich")
    _main._flags_show_no_value()  # an older typer: nothing to mend, and no error
    assert not hasattr(TyperOption, "display_type_rich")
