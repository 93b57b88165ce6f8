"""``liars-dice verify RECORD``: check a record's fair dice (``docs/fair-dice.md``).

Recomputes every round's commitment from its revealed seed and every die,
dealt and rerolled, from that seed, then replays the record.
"""

from __future__ import annotations

import re
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


_HEX = re.compile(r"[0-9a-f]{64}")
#: Most --my-seed options (a game has far fewer rounds; bounds the work).
MY_SEEDS_MAX = 1000


def parse_my_seeds(given: list[str]) -> dict[int, str]:
    """``--my-seed ROUND=HEX`` options as ``{0-based round: hex}``.

    :raises typer.BadParameter: not ``ROUND=HEX``, a round below 1, a seed that is
        not 64 hex digits, one round twice, or more than :data:`MY_SEEDS_MAX`.
    """
    if len(given) > MY_SEEDS_MAX:
        raise typer.BadParameter(f"at most {MY_SEEDS_MAX} seeds may be given.", param_hint="--my-seed")
    out: dict[int, str] = {}
    for text in given:
        head, eq, tail = text.partition("=")
        seed = tail.strip().lower()
        if not eq or not head.strip().isdigit() or int(head) < 1 or int(head) > 1_000_000:
            raise typer.BadParameter("each is ROUND=SEED, with the round counted from 1 (for example 4=3fa2...).", param_hint="--my-seed")
        if not _HEX.fullmatch(seed):
            raise typer.BadParameter(f"the seed for round {int(head)} is not 64 hex digits.", param_hint="--my-seed")
        if int(head) - 1 in out:
            raise typer.BadParameter(f"round {int(head)} is given twice.", param_hint="--my-seed")
        out[int(head) - 1] = seed
    return out


@app.command("verify", cls=Command)
def verify_command(
    record: str = typer.Argument(..., help="A game record with fair dice (docs/fair-dice.md); '-' reads standard input."),
    my_seed: list[str] = typer.Option(
        [], "--my-seed", metavar="ROUND=SEED",
        help="Your own seed for a round (counted from 1), as your page kept it: says whether the record's dice used it. Repeatable.",
    ),
) -> None:
    """Check that every die of a record came from its round's committed seed.

    Exits 0 with a summary when every seed matches its commitment and every
    die (dealt and rerolled) is the one its seed gives; 1 with one sentence
    naming the round, player and die on the first mismatch or missing seed;
    2 when the record cannot be read or does not replay. With ``--my-seed``,
    also says for each of your own seeds whether the round's dice used it, and
    exits 1 when one was not (the record's writer dropped or replaced it).
    """
    from ..engine.narration import sentence
    from ..records import FairDiceError, RecordError, own_seeds, read_record_bytes, verify_record

    mine = parse_my_seeds(my_seed)

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
    try:
        checked = own_seeds(report, mine)
    except RecordError as e:
        raise _fail(e.message, 2) from None
    for own in checked:
        short = f"{own.seed[:12]}…"
        if own.used_as is not None:
            console.print(f"[green]OK[/green]: Round {own.round + 1}: your seed {short} went into the dice (as {own.used_as}'s seed).",
                          highlight=False)
        else:
            console.print(f"[red]NOT USED[/red]: Round {own.round + 1}: your seed {short} is not among the seeds the "
                          "record's dice came from.", highlight=False)
    if any(own.used_as is None for own in checked):
        raise typer.Exit(1)
