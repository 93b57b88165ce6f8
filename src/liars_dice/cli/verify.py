"""``liars-dice verify RECORD``: check a record's fair dice (``docs/fair-dice.md``).

Recomputes every round's commitment from its revealed seed and every die,
dealt and rerolled, from that seed, then replays the record.
"""

from __future__ import annotations

import sys

import typer

from .app import Command, app


def _fail(message: str, status: int) -> typer.Exit:
    sys.stderr.write(message.rstrip() + "\n")
    return typer.Exit(status)


def _contributed(contributors: tuple[str, ...], missing: tuple[str, ...]) -> str:
    """The players' seeds of one round, in words: who sent one, who did not."""
    sent = ", ".join(contributors) if contributors else "nobody"
    return f"{sent}" + (f"; none from {', '.join(missing)}" if missing else "")


@app.command("verify", cls=Command)
def verify_command(
    record: str = typer.Argument(..., help="A game record with fair dice (docs/fair-dice.md); '-' reads standard input."),
) -> None:
    """Check that every die of a record came from its round's committed seed.

    Exits 0 with a summary when every seed matches its commitment and every
    die (dealt and rerolled) is the one its seed gives; 1 with one sentence
    naming the round, player and die on the first mismatch or missing seed;
    2 when the record cannot be read or does not replay.
    """
    from ..engine.narration import sentence
    from ..records import FairDiceError, RecordError, read_record_bytes, verify_record

    try:
        raw = read_record_bytes(record)
    except RecordError as e:
        raise _fail(e.message, 2) from None
    try:
        report = verify_record(raw)
    except FairDiceError as e:
        raise _fail(e.message, 1) from None
    except RecordError as e:
        raise _fail(e.message, 2) from None

    from rich.console import Console
    from rich.table import Table

    table = Table(title="Fair dice: every seed matches its commitment", title_justify="left")
    table.add_column("round", justify="right")
    table.add_column("commitment (SHA-256 of the seed)")
    table.add_column("dealt", justify="right")
    table.add_column("rerolled", justify="right")
    mixed = any(r.mixed for r in report.rounds)
    if mixed:
        table.add_column("players' seeds mixed in (docs/fair-dice.md, version 2)")
    for r in report.rounds:
        row = [str(r.round + 1), f"{r.commitment[:16]}…", str(r.dealt), str(r.rerolled)]
        if mixed:
            row.append(_contributed(r.contributors, r.missing) if r.mixed else "none (the server's seed alone)")
        table.add_row(*row)
    console = Console()
    console.print(table)
    rerolls = f" and {report.rerolled} rerolled in {report.rerolls} rerolls" if report.rerolls else ""
    winner = " " + sentence(f"{report.winner} won.") if report.winner else ""
    if mixed:
        names = sorted({n for r in report.rounds for n in r.contributors})
        console.print(
            f"The dice of {sum(r.mixed for r in report.rounds)} rounds mix the server's seed with seeds from "
            f"the players' own pages ({', '.join(names) or 'none sent'}): not even the server could choose them.",
            highlight=False,
        )
    console.print(
        f"[green]OK[/green]: all {len(report.rounds)} rounds check out: {report.dealt} dice dealt{rerolls}, "
        f"each the one its round's seed gives.{winner}",
        highlight=False,
    )
