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
from . import serve as _serve  # noqa: E402,F401

try:  # commands whose modules may not exist yet in a partial checkout
    from . import play as _play  # noqa: F401
except ImportError:  # pragma: no cover
    pass


def main() -> None:
    """Console-script entry point."""
    app()
