"""The Typer application; sub-commands register themselves from their modules."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="liars-dice",
    help="Liar's Dice: play in the terminal, replay records, and more.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Liar's Dice: play in the terminal, replay records, and more."""


# Sub-command modules: importing one registers its command on `app`.
from . import replay as _replay  # noqa: E402,F401
from . import solve as _solve  # noqa: E402,F401
from . import play as _play  # noqa: E402,F401
from . import bot as _bot  # noqa: E402,F401
from . import arena as _arena  # noqa: E402,F401


def main() -> None:
    """Console-script entry point."""
    app()
