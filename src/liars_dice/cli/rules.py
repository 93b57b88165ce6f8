"""``liars-dice rules``: the rule options' JSON Schema and a rule set in words.

    liars-dice rules --schema              # the JSON Schema of a rules file (pydantic, from Rules)
    liars-dice rules show perudo           # a preset in words
    liars-dice rules show my-rules.toml    # a rules file in words

Every ``--rules`` option of the other commands takes a preset name or a rules
file (TOML or JSON) through :func:`rules_or_exit`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from .app import Command, Group, app

if TYPE_CHECKING:
    from ..engine import Rules

#: What every ``--rules`` option says about its value.
RULES_HELP = "A preset (wild-stars, aces-wild, classic, perudo, openspiel, joker) or a TOML/JSON rules file."

rules_app = typer.Typer(
    help="The rule options: their JSON Schema, and any rule set in words.",
    no_args_is_help=False,
    invoke_without_command=True,
    cls=Group,
)
app.add_typer(rules_app, name="rules")


def rules_or_exit(spec: str) -> Rules:
    """The rules ``--rules`` names (a preset or a rules file), or one sentence on
    standard error and exit status 2."""
    from ..engine import RulesError
    from ..records import load_rules

    try:
        return load_rules(spec)
    except RulesError as e:
        typer.echo(e.message, err=True)
        raise typer.Exit(2) from None


@rules_app.callback()
def rules_root(
    ctx: typer.Context,
    schema: bool = typer.Option(False, "--schema", help="Print the JSON Schema of a rules file's options."),
) -> None:
    """The rule options: --schema prints their JSON Schema; `show NAME|FILE` a rule set in words."""
    if schema:
        from ..records import rules_schema

        typer.echo(json.dumps(rules_schema(), indent=2))
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


@rules_app.command("show", cls=Command)
def rules_show(
    spec: str = typer.Argument(..., metavar="NAME|FILE", help=RULES_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON instead."),
) -> None:
    """Print a rule set in words: faces, wilds, raise order, opening, what a
    challenge costs, who opens, and the special rounds."""
    from ..engine.summary import rules_summary

    rules = rules_or_exit(spec)
    if as_json:
        typer.echo(json.dumps(rules.to_dict(), indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    from ..engine.catalog import preset_info, rule_set_title

    info = preset_info(rules)
    table = Table(
        title=f"Rules: {rule_set_title(rules)}", caption=info.line if info is not None else None,
        show_header=False, title_justify="left", caption_justify="left", width=80,
    )
    table.add_column("topic", style="bold", no_wrap=True)
    table.add_column("rule")
    for topic, sentence in rules_summary(rules):
        table.add_row(topic, sentence)
    Console(highlight=False).print(table)
