"""``familiars memory forget ID`` and ``familiars memory forget --person KEY``: through the
running bot's one Forgetter (its control socket), or, with nothing running, this process's."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from familiars.cli._memory_route import run_write
from familiars.memory import PERSON_KEPT, MemoryError_, check_user_key, person_ref
from familiars.terminal import fail


def register(app: typer.Typer) -> None:
    app.command("forget")(forget)


def forget(
    ctx: typer.Context,
    item_id: Annotated[
        str | None,
        typer.Argument(metavar="ID", help="m_..., node:AGENT/DIALOGUE/N or file:ID."),
    ] = None,
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "-p",
            metavar="KEY",
            help="Forget a whole person: every account linked to KEY (a user key, as "
            "`memory list --user` takes it: telegram_123, discord_456).",
        ),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="With --person: go ahead without asking.")
    ] = False,
) -> None:
    """Forget a memory (m_...), a turn (node:AGENT/DIALOGUE/N) or a file (file:ID) for good:
    its words leave the file, the history, the dialogue it came from, the index and the
    recall caches. With --person KEY, everything of that person (asks first, naming what
    goes and what is kept)."""
    if (item_id is None) == (person is None):
        fail("give an ID or --person KEY (one of them)")
    if person is not None:
        _forget_person(ctx, person, yes)
        return
    assert item_id is not None
    rec = run_write(ctx, {"op": "forget", "id": item_id})
    typer.echo(f"forgot {rec['id']}")
    if repeats := rec.get("repeats"):  # taken whole: said, not silently
        typer.echo(f"  with it {len(repeats)} other message(s) that said it again:")
        for key in repeats:
            typer.echo(f"    {key}")
    for old, new in (rec.get("rederived") or {}).items():  # issue 25: what derived from it
        typer.echo(f"  derived memory {old} made again without it: {new}")
    for gone in rec.get("dropped") or []:
        typer.echo(f"  derived memory {gone} dropped (an episode is cut again next pass)")


def _forget_person(ctx: typer.Context, key: str, yes: bool) -> None:
    try:
        check_user_key(key)
    except (MemoryError_, ValueError) as exc:
        fail(str(exc))
    if not yes:
        held = run_write(ctx, {"op": "person", "key": key})
        typer.echo(f"About to forget everything about {', '.join(held['keys'])}: {_held(held)}.")
        typer.echo(PERSON_KEPT)
        if not typer.confirm("Forget all of it for good?", default=False):
            fail("kept: nothing was forgotten")
    done = run_write(ctx, {"op": "forget", "id": person_ref(key)})
    said = len(done.get("said") or [])
    typer.echo(  # counted as the question counted them
        f"forgot {', '.join(done.get('people') or [key])}: {len(done['records'])} memories, "
        f"{said} messages of theirs and {len(done['nodes']) - said} of mine, "
        f"{len(done['files'])} files"
    )
    for line in done.get("state") or []:
        typer.echo(f"  also: {line}")


def _held(held: dict[str, Any]) -> str:
    among = f" ({held['reminders']} reminders, {held['open_loops']} open loops)"
    places = f" on {' and '.join(held['platforms'])}" if held["platforms"] else ""
    return (
        f"{held['memories']} memories{among}, {held['messages']} messages of theirs and "
        f"{held.get('replies', 0)} of mine in "
        f"{held['dialogues']} conversations ({held['groups']} with others){places}, "
        f"{held['files']} files"
    )
