"""``liars-dice bot NAME --rules R``: serve a bot over the protocol
(``docs/bot-protocol.md``) on standard input and output."""

from __future__ import annotations

import sys

import typer

from .app import Command, app


@app.command("bot", cls=Command)
def bot_command(
    name: str = typer.Argument(..., help="A registered bot, e.g. random."),
    rules: str = typer.Option(
        ..., "--rules", help="The rule set this bot plays (a preset name or a TOML/JSON rules file); requests must match."
    ),
    seed: int | None = typer.Option(
        None, help="Seed each request's bot from this and the request's text, so a reply depends on the request alone."
    ),
) -> None:
    """Read one JSON request per line on stdin; write one JSON move per line on stdout.

    A malformed request gets {"error": "..."} and the bot keeps serving; it stops
    at the end of its input.
    """
    from ..bots import REGISTRY
    from ..engine import RulesError
    from ..protocol import serve
    from ..records import load_rules

    try:
        preset = load_rules(rules)
    except RulesError as e:
        typer.echo(e.message, err=True)
        raise typer.Exit(2)
    if name not in REGISTRY:
        typer.echo(f"There is no bot called {name!r}; choose from {', '.join(sorted(REGISTRY))}.", err=True)
        raise typer.Exit(2)
    try:
        serve(name, preset, sys.stdin.buffer, sys.stdout.buffer, seed=seed)
    except KeyboardInterrupt:  # pragma: no cover - interactive use
        pass
    except BrokenPipeError:  # the reader went away
        pass
