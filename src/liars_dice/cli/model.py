"""``liars-dice model``: fit an opponent model from game records, and show one.

    liars-dice model fit games/*.json --player ann -o ann.model.json
    liars-dice model show ann.model.json

The model (``liars_dice.bots.opponent_model``) counts how one player bids and
challenges given their own dice; ``strong`` plays a safe best response to it
(``docs/opponent-models.md``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from .app import Command, Group, app

#: The most records one fit reads.
MAX_RECORDS = 100_000
#: The skipped records named one by one on standard error; the rest are counted.
SKIPS_SHOWN = 10

model_app = typer.Typer(help="Opponent models: fit one from game records, show one.", no_args_is_help=True, cls=Group)
app.add_typer(model_app, name="model")


def _fail(message: str, status: int = 2) -> typer.Exit:
    sys.stderr.write(message.rstrip() + "\n")
    return typer.Exit(status)


def _read(path: str, limit: int, what: str) -> bytes:
    from ..records.reading import open_regular, read_bounded

    try:
        with open_regular(path) as f:
            raw = read_bounded(f, limit)
    except OSError as e:
        raise _fail(f"Cannot read {path}: {e.strerror}.") from None
    if len(raw) > limit:
        raise _fail(f"{path} is over {limit:,} bytes, too large for {what}.")
    return raw


@model_app.command("fit", cls=Command)
def fit_command(
    records: list[str] = typer.Argument(..., help="Game records (JSON) holding the player."),
    player: str = typer.Option(..., "--player", "-p", help="The player to model, by their name in the records."),
    output: str = typer.Option(..., "--output", "-o", help="Where to write the model (JSON); '-' for standard output."),
) -> None:
    """Fit a model of one player's bidding and challenging from their records.

    Exits 2 with one sentence, writing nothing, when a record cannot be read or
    does not replay, or no record has the player. A record without the player
    is skipped with a line on standard error saying so.
    """
    from ..bots.opponent_model import ModelError, fit
    from ..records.reading import MAX_RECORD_BYTES  # the bound of `replay` and `verify`

    if len(records) > MAX_RECORDS:
        raise _fail(f"{len(records):,} records is more than one fit reads ({MAX_RECORDS:,}).")
    from ..records.writing import output_path_problem, write_text_atomically

    # checked before the records are read: a fifo nobody read held the fit for ever (attack7)
    problem = None if output == "-" else output_path_problem("-o", Path(output), "ann.model.json", ", or '-' for standard output")
    if problem is not None:
        raise _fail(problem)
    # one record in memory at a time: 100,000 records of up to 32 MiB each must not all be held
    raws = (_read(path, MAX_RECORD_BYTES, "a game record") for path in records)
    skipped: list[str] = []
    try:
        model = fit(raws, player, labels=records, skipped=skipped)
    except ModelError as e:
        raise _fail(e.message) from None
    for line in skipped[:SKIPS_SHOWN]:
        sys.stderr.write(f"Skipped: {line}\n")
    if len(skipped) > SKIPS_SHOWN:
        sys.stderr.write(f"Skipped {len(skipped) - SKIPS_SHOWN:,} more record(s) without the player.\n")
    text = model.dumps()
    if output == "-":
        sys.stdout.write(text)
        return
    try:
        write_text_atomically(output, text)  # whole or not at all: a full disk leaves no half model
    except OSError as e:
        raise _fail(f"Cannot write {output}: {e.strerror}.") from None
    typer.echo(
        f"Fitted {player} on {model.records} record(s){f' ({len(skipped):,} skipped)' if skipped else ''}, "
        f"{model.rounds} round(s): bluff rate "
        f"{model.bluff_rate():.2f}; wrote {output}."
    )


def _count_text(n: int) -> str:
    """A count for the table: whole below 10**7, else in two significant digits
    (``1.0e+09``), so the table's counts up to MAX_COUNT fit 80 columns
    (attack5: Rich cut ten-digit counts to ``1000000…``)."""
    return str(int(n)) if n < 10**7 else f"{int(n):.1e}"


@model_app.command("show", cls=Command)
def show_command(model_path: str = typer.Argument(..., metavar="MODEL", help="An opponent model file.")) -> None:
    """Summarise an opponent model: challenge rate and bid mix by the chance of the bid."""
    from ..bots.opponent_model import BINS, JUMP_EDGES, MAX_MODEL_BYTES, ModelError, OpponentModel

    raw = _read(model_path, MAX_MODEL_BYTES, "an opponent model")
    try:
        model = OpponentModel.loads(raw)
    except ModelError as e:
        raise _fail(e.message) from None
    from rich.console import Console
    from rich.table import Table
    from rich import box

    from rich.markup import escape

    console = Console()
    console.print(
        f"[bold]{escape(model.player)}[/bold] ({escape(model.rules or 'any rules')}): {model.records} record(s), "
        f"{model.rounds} round(s); bluff rate {model.bluff_rate():.2f}",
        highlight=False,
    )
    # simple boxes and two-line headers: the table fits 80 columns, also when piped
    table = Table(title="By the chance the bid is true, given the player's own dice", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("chance", "bids\nfaced", "challenged", "challenge\nrate", "bids", "bid\nshare", "openings",
                "opening\nshare"):
        table.add_column(col, justify="right", no_wrap=True)
    rate, mix, omix = model.challenge_rate(), model.bid_mix(), model.bid_mix(opening=True)
    for j in range(BINS):
        table.add_row(
            f"{j / BINS:.1f}-{(j + 1) / BINS:.1f}", _count_text(model.faced[j]), _count_text(model.challenged[j]),
            f"{rate[j]:.2f}", _count_text(model.bids[j]), f"{mix[j]:.2f}", _count_text(model.openings[j]), f"{omix[j]:.2f}",
        )
    console.print(table)
    # a new user (stop 27) asked why a row with no bids faced has a challenge rate of 0.95
    console.print(
        "Rates and shares are the counts smoothed toward a prior: a row with few bids faced shows mostly the "
        f"prior's challenge rate (1 - the chance, within 0.05-0.95, worth {model.prior.challenge_strength:g} bids).",
        highlight=False,
    )
    console.print("Raises by ranks past the smallest raise")  # a line, not a title wrapped to the table
    jumps = Table(box=box.SIMPLE_HEAD)
    jumps.add_column("jump", justify="right")
    jumps.add_column("raises", justify="right")
    jumps.add_column("share", justify="right")
    jm = model.jump_mix()
    for i, edge in enumerate(JUMP_EDGES):
        last = i == len(JUMP_EDGES) - 1
        label = f"{edge}+" if last else (str(edge) if JUMP_EDGES[i + 1] == edge + 1 else f"{edge}-{JUMP_EDGES[i + 1] - 1}")
        jumps.add_row(label, str(model.jumps[i]), f"{jm[i]:.2f}")
    console.print(jumps)
