"""``liars-dice arena``: seat-rotated games between bots, with win rates,
95% intervals and openskill ratings."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer

from .app import Command, app

#: Seconds an external bot has per move by default: the protocol's ``DEFAULT_TIMEOUT``
#: (written out here so `--help` needs no import of the protocol; a test keeps them equal).
DEFAULT_TIMEOUT = 10.0


def _fail(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(2)


def _read_models(specs: list[str], names: list[str], rules: Any = None) -> tuple[tuple[str, str], ...]:
    """``NAME=PATH`` options to ``(name, model text)``; one sentence and status 2 on a fault."""
    from ..bots.opponent_model import MAX_MODEL_BYTES, ModelError, OpponentModel
    from ..records.reading import open_regular, read_bounded

    out: list[tuple[str, str]] = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            _fail(f"--model takes NAME=PATH (an entrant's name and a model file), not {spec[:80]!r}.")
        if name not in names:
            _fail(f"--model names {name[:80]!r}, which is not an entrant here ({', '.join(names)}).")
        if any(n == name for n, _ in out):
            _fail(f"--model gives {name!r} twice.")
        try:
            with open_regular(path) as f:
                raw = read_bounded(f, MAX_MODEL_BYTES)  # in chunks: memory follows the file, not the bound
            model = OpponentModel.loads(raw)
            if rules is not None:
                model.check_rules(rules)
        except OSError as e:
            _fail(f"Cannot read {path}: {e.strerror}.")
        except ModelError as e:
            _fail(f"{path}: {e.message}")
        out.append((name, raw.decode()))
    return tuple(out)


@app.command("arena", cls=Command)
def arena_command(
    rules: str = typer.Option("classic", "--rules", help="The rule set: a preset name or a TOML/JSON rules file."),
    bots: list[str] = typer.Option(
        ...,
        "--bots",
        help="Comma-separated bots, one per seat: registered names (random), external programs "
        "speaking the bot protocol (cmd:liars-dice bot random --rules classic) or policy files "
        "(policy:cfr.npz: a solved round or an exported OpenSpiel policy), optionally labelled "
        "(ext=cmd:./mybot). Repeat --bots to add more.",
    ),
    games: int = typer.Option(100, "--games", min=1, help="How many games."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="Seed; the same seed gives the same report for any --jobs."),
    jobs: int = typer.Option(
        1, "--jobs", min=1, help="Worker processes; with --backend ray, the CPUs of the local Ray it starts (1: all)."
    ),
    backend: str = typer.Option(
        "processes", "--backend", help="Where games run: processes (on this machine) or ray (Ray tasks; the ray extra)."
    ),
    address: str | None = typer.Option(
        None, "--address", help="With --backend ray: an existing Ray cluster (ray://HOST:10001, HOST:6379 or auto)."
    ),
    timeout: float = typer.Option(
        DEFAULT_TIMEOUT, "--timeout", min=0.001, max=3600.0, help="Seconds an external bot has per move (up to 3600)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON (no progress bar)."),
    plot: str | None = typer.Option(None, "--plot", help="Draw win rates with 95% intervals to this image (e.g. out.png)."),
    model: list[str] = typer.Option(
        [], "--model", help="NAME=PATH: an opponent model (liars-dice model fit) of entrant NAME, given to every "
        "other seat's bot that takes models (strong; a program gets it in its requests). Repeatable.",
    ),
) -> None:
    """Play bots against each other, rotating seats, and rate them.

    Reports per bot its wins, win rate with a 95% Wilson interval, and an
    openskill rating (Plackett-Luce ordinal, from each game's finishing order).
    When one bot fills several seats, each seat reports as NAME, NAME#2, ...
    """
    import secrets

    from ..engine import LiarsDiceError, RulesError
    from ..records import load_rules

    try:
        import openskill  # noqa: F401
    except ImportError:
        _fail("The arena needs the 'arena' extra (openskill): pip install 'liars-dice-game[arena]', or in a clone .venv/bin/pip install -e '.[arena]'.")
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from ..arena import ArenaConfig, ArenaError, EntrantError, parse_entrants, run_arena
    from ..arena.run import BACKENDS

    if backend not in BACKENDS:
        _fail(f"There is no arena backend called {backend!r}; choose from {', '.join(BACKENDS)}.")
    if address is not None and backend != "ray":
        _fail("--address names a Ray cluster, so it needs --backend ray.")
    try:
        preset = load_rules(rules)
        entrants = tuple(parse_entrants(bots))
    except (RulesError, EntrantError) as e:
        _fail(getattr(e, "message", None) or str(e))
    if plot:
        from ..arena.plot import check_plot_path

        try:
            check_plot_path(plot)  # before the games, so a long run is not lost to a bad path
        except ValueError as e:
            _fail(str(e))
    if seed is None:
        seed = secrets.randbelow(2**32)
    models = _read_models(model, [e.name for e in entrants], preset)
    config = ArenaConfig(preset, entrants, games, seed, timeout, models)
    err = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]arena[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=as_json or not err.is_terminal,
    )
    try:
        with progress:
            task = progress.add_task("games", total=games)
            result = run_arena(config, jobs, lambda k: progress.advance(task, k), backend, address)
    except (ArenaError, LiarsDiceError) as e:
        _fail(e.message)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        _fail("Interrupted.")
    rep = result.report()
    if as_json:
        sys.stdout.write(json.dumps(rep, ensure_ascii=False) + "\n")
    else:
        _print_table(rep, preset.name, games, seed)
    if plot:  # after the report, so a failing plot loses nothing
        from ..arena.plot import plot_report

        try:
            plot_report(rep, plot, title=f"{preset.name}: {games} games, seed {seed}")
        except (OSError, ValueError) as e:
            _fail(f"Cannot write the plot to {plot}: {getattr(e, 'strerror', None) or e}.")
        if not as_json:
            typer.echo(f"plot written to {plot}")


def _print_table(rep: dict[str, Any], rules_name: str, games: int, seed: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{rules_name}, {games} games, seed {seed}")
    table.add_column("bot")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("rating", justify="right")
    for name, row in rep["bots"].items():
        lo, hi = row["ci95"]
        table.add_row(name, str(row["wins"]), f"{row['win_rate']:.1%}", f"{lo:.1%} - {hi:.1%}", f"{row['rating']:.2f}")
    Console().print(table)
