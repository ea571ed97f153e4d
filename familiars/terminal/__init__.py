"""What every command line command receives and how it prints: settings from the command's
context, JSON lines, rich tables and one-line errors. Shared by ``cli/`` and ``benchmarks/``,
which sit above it."""

from familiars.terminal._context import (
    CliContext,
    console,
    err_console,
    fail,
    get_ctx,
    print_json,
    print_table,
    want_json,
)

__all__ = [
    "CliContext",
    "console",
    "err_console",
    "fail",
    "get_ctx",
    "print_json",
    "print_table",
    "want_json",
]
