"""``liars-dice solve``: solve a two-player round with CFR+, or build the endgame tables.

    liars-dice solve --rules openspiel --dice 1 1 --target-exploitability 0.001 --json
    liars-dice solve --rules openspiel --dice 1 1 --save policy.npz
    liars-dice solve --tables --rules classic --max-total 3
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .app import Command, app


@app.command("solve", cls=Command)
def solve_command(
    rules: str = typer.Option("openspiel", "--rules", help="Preset name of the rule set."),
    dice: tuple[int, int] = typer.Option((1, 1), "--dice", help="Dice of player 0 (the opener) and player 1."),
    target_exploitability: float = typer.Option(
        1e-3, "--target-exploitability", help="Stop once NashConv/2 is at most this."
    ),
    max_iterations: int = typer.Option(100_000, "--max-iterations", help="Stop after this many CFR+ iterations."),
    save: Path | None = typer.Option(None, "--save", help="Write the policy to this .npz file."),
    max_depth: int | None = typer.Option(
        None, "--max-depth", help="Cap histories at this many bids (then exploitability is within the capped game)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {value, exploitability, iterations, seconds} as JSON."),
    tables: bool = typer.Option(
        False, "--tables", help="Build the whole-game endgame tables of --rules instead (backward induction)."
    ),
    max_total: int = typer.Option(3, "--max-total", help="With --tables: most dice in play."),
    depth_cap: int = typer.Option(
        6, "--depth-cap", help="With --tables: most bids per history where the full round tree is too large."
    ),
    fresh: bool = typer.Option(False, "--fresh", help="With --tables: solve every position again, keep none."),
    out: Path | None = typer.Option(
        None, "--out", help="With --tables: output file (default: the package's data/endgame-<rules>.npz)."
    ),
) -> None:
    """Solve one two-player round of a preset to a target exploitability (CFR+).

    The value is player 0's expected payoff (+1 win, -1 loss), player 0 opening
    as in OpenSpiel. Exits 2 with one sentence on bad input.
    """
    from ..engine import Rules, RulesError
    from ..solver import SolverError, solve
    from ..solver.endgame import build_tables_file

    try:
        rule_set = Rules.preset(rules)
        if tables:
            path = out or Path(__file__).resolve().parent.parent / "data" / f"endgame-{rules}.npz"
            build_tables_file(
                rule_set, path, max_total, target_exploitability, max_iterations,
                report=lambda s: typer.echo(s, err=as_json), depth_cap=depth_cap, reuse=not fresh,
            )
            return
        result = solve(rule_set, dice, target_exploitability, max_iterations, max_depth=max_depth)
        if save is not None:
            result.policy.save(save)
    except (RulesError, SolverError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
    else:
        typer.echo(
            f"{rules} {dice[0]} vs {dice[1]}: value {result.value:+.6f} for player 0, exploitability "
            f"{result.exploitability:.6f} after {result.iterations} iterations in {result.seconds:.2f} s"
        )
        if save is not None:
            typer.echo(f"policy written to {save}")
