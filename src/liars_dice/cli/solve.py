"""``liars-dice solve``: solve a two-player round with CFR+, or build the endgame tables.

    liars-dice solve --rules openspiel --dice 1 1 --target-exploitability 0.001 --json
    liars-dice solve --rules openspiel --dice 1 1 --save policy.npz
    liars-dice solve --tables --rules classic --max-total 3
    liars-dice solve --tables --rules wild-stars --max-total 4 --show-max-total 3 --show-depth-cap 4
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from typing import TYPE_CHECKING

import typer

from .app import Command, app

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


@app.command("solve", cls=Command)
def solve_command(
    rules: str = typer.Option("openspiel", "--rules", help="The rule set: a preset name or a TOML/JSON rules file."),
    dice: tuple[int, int] = typer.Option((1, 1), "--dice", help="Dice of player 0 (the opener) and player 1."),
    target_exploitability: float = typer.Option(
        1e-3, "--target-exploitability", help="Stop once NashConv/2 is at most this."
    ),
    max_iterations: int = typer.Option(100_000, "--max-iterations", help="Stop after this many CFR+ iterations."),
    save: Path | None = typer.Option(None, "--save", help="Write the policy to this .npz file."),
    max_depth: int | None = typer.Option(
        None, "--max-depth", help="Cap histories at this many bids (then exploitability is within the capped game)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {value, exploitability, iterations, seconds, show_and_reroll} as JSON."),
    tables: bool = typer.Option(
        False, "--tables",
        help="Build the whole-game endgame tables of --rules instead (backward induction; "
        "1 vs 1 solved to 1e-4 and stored whole).",
    ),
    max_total: int = typer.Option(3, "--max-total", help="With --tables: most dice in play."),
    depth_cap: int = typer.Option(
        6, "--depth-cap", help="With --tables: most bids per history where the full round tree is too large."
    ),
    show_max_total: int = typer.Option(
        0, "--show-max-total",
        help="With --tables under show-and-reroll: solve positions of at most this many dice with shows.",
    ),
    show_depth_cap: int = typer.Option(
        4, "--show-depth-cap", help="With --tables: most bids per history of a position solved with shows."
    ),
    fresh: bool = typer.Option(False, "--fresh", help="With --tables: solve every position again, keep none."),
    out: Path | None = typer.Option(
        None, "--out", help="With --tables: output file (default: the package's data/endgame-<rules>.npz)."
    ),
) -> None:
    """Solve one two-player round of a preset to a target exploitability (CFR+;
    Discounted CFR on show-and-reroll trees).

    The value is player 0's expected payoff (+1 win, -1 loss), player 0 opening
    as in OpenSpiel. Exits 2 with one sentence on bad input. At a terminal a
    progress bar shows the iterations, the exploitability and the time left.

    How long: 1 vs 1 takes seconds. The largest trees the exact solver takes
    (3 dice in play with six faces: --dice 2 1 or 1 2) take minutes, measured
    to 0.001: classic 2 1 in 180 iterations and 181 CPU seconds (3 min).
    wild-stars 2 1 with show-and-reroll needs --max-depth (the full round has
    7.7 million public states): --max-depth 6 in 280 iterations and 295 CPU
    seconds. A busy machine stretches the wall time several-fold.
    """
    from ..engine import RulesError
    from ..records import load_rules
    from ..solver import SolverError, solve
    from ..solver.endgame import build_tables_file

    for flag, value in (("--max-depth", max_depth), ("--depth-cap", depth_cap), ("--show-depth-cap", show_depth_cap)):
        if value is not None and value < 1:  # named as the user typed it, before the library's parameter name
            typer.echo(f"error: {flag} is the most bids in a history, at least 1, not {value}.", err=True)
            raise typer.Exit(2)
    try:
        rule_set = load_rules(rules)
        if tables:
            path = out or Path(__file__).resolve().parent.parent / "data" / f"endgame-{rule_set.name}.npz"
            build_tables_file(
                rule_set, path, max_total, target_exploitability, max_iterations,
                report=lambda s: typer.echo(s, err=as_json), depth_cap=depth_cap, reuse=not fresh,
                show_max_total=show_max_total, show_depth_cap=show_depth_cap,
            )
            return
        with _SolveProgress(target_exploitability, max_iterations) as progress:
            result = solve(rule_set, dice, target_exploitability, max_iterations, max_depth=max_depth,
                           on_check=progress.update)
        if save is not None:
            result.policy.save(save)
    except (RulesError, SolverError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
    else:
        typer.echo(
            f"{rule_set.name} {dice[0]} vs {dice[1]}: value {result.value:+.6f} for player 0, exploitability "
            f"{result.exploitability:.6f} after {result.iterations} iterations in {result.seconds:.2f} s"
        )
        if save is not None:
            typer.echo(f"policy written to {save}")


class Estimate:
    """How many CFR+ iterations are still needed to reach a target
    exploitability, and how long they take, from the checks so far.

    CFR+'s exploitability falls roughly as a power of the iterations run, so
    the last few checks are fitted as a line of log(exploitability) against
    log(iterations) and extended to the target; the time per iteration is the
    mean since the first check. A guess, shown as such, capped at
    ``max_iterations``.
    """

    def __init__(self, target: float, max_iterations: int, window: int = 8) -> None:
        self.target = target
        self.max_iterations = max_iterations
        self.window = window
        self.points: list[tuple[int, float, float]] = []  # (iterations, exploitability, seconds)

    def add(self, iterations: int, exploitability: float, seconds: float) -> None:
        self.points.append((iterations, exploitability, seconds))

    def iterations_needed(self) -> int | None:
        """Estimated total iterations at the target, or ``None`` before there is a trend."""
        pts = [(math.log(i), math.log(e)) for i, e, _ in self.points[-self.window:] if i > 0 and e > 0]
        if len(pts) < 2:
            return None
        if self.points[-1][1] <= self.target:
            return self.points[-1][0]
        n = len(pts)
        mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        if sxx == 0:
            return None
        slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
        if slope >= 0 or self.target <= 0:  # not falling yet, or a target of 0: no honest guess
            return None
        log_total = mx + (math.log(self.target) - my) / slope
        if log_total >= math.log(self.max_iterations):  # (math.exp would overflow for a flat slope)
            return self.max_iterations
        return min(self.max_iterations, max(self.points[-1][0], int(math.exp(log_total))))

    def seconds_left(self) -> float | None:
        need = self.iterations_needed()
        if need is None or len(self.points) < 2:
            return None
        (i0, _, t0), (i1, _, t1) = self.points[0], self.points[-1]
        if i1 <= i0:
            return None
        return max(0.0, (need - i1) * (t1 - t0) / (i1 - i0))


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    if seconds < 60:
        return f"about {seconds:.0f} s left"
    if seconds < 3600:
        return f"about {seconds / 60:.0f} min left"
    return f"about {seconds / 3600:.1f} h left"


class _SolveProgress:
    """A Rich progress bar on standard error while CFR+ runs: iterations, the
    current exploitability against the target, and an estimate of the time
    left. Drawn only at a terminal; silent otherwise."""

    def __init__(self, target: float, max_iterations: int) -> None:
        self.target = target
        self.max_iterations = max_iterations
        self.estimate = Estimate(target, max_iterations)
        self.start = time.perf_counter()
        self.progress: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> "_SolveProgress":
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        err = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]CFR+[/]"),
            BarColumn(bar_width=16),
            TextColumn("{task.completed:,} iterations"),
            TextColumn("exploitability {task.fields[expl]} → {task.fields[target]}"),
            TextColumn("{task.fields[eta]}"),
            TimeElapsedColumn(),
            console=err,
            disable=not err.is_terminal,
        )
        self.progress.__enter__()
        self.task = self.progress.add_task(
            "solve", total=self.max_iterations, expl="–", target=f"{self.target:g}", eta=_duration(None)
        )
        return self

    def update(self, iterations: int, exploitability: float) -> None:
        assert self.progress is not None and self.task is not None
        self.estimate.add(iterations, exploitability, time.perf_counter() - self.start)
        need = self.estimate.iterations_needed()
        self.progress.update(
            self.task, completed=iterations, total=need or self.max_iterations,
            expl=f"{exploitability:.6f}", eta=_duration(self.estimate.seconds_left()),
        )

    def __exit__(self, *exc: object) -> None:
        assert self.progress is not None
        self.progress.__exit__(None, None, None)
