"""The Typer application; sub-commands register themselves from their modules."""

from __future__ import annotations

import errno
import os
import sys

import typer

from .helptext import Command, Group

app = typer.Typer(
    name="liars-dice",
    help="Liar's Dice: play in the terminal, replay records, and more.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion and --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: Rich's help renderer costs more than all of Typer to import (benchmarks/RESULTS.md)
    cls=Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 200},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"liars-dice {installed_version()}")
        raise typer.Exit()


def installed_version() -> str:
    """The package's ``__version__``. The root package is always imported before
    this sub-package, so reading it costs no import (the layers never import
    the root package; its metadata is no layer)."""
    return str(sys.modules[__name__.partition(".")[0]].__version__)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Liar's Dice: play in the terminal, replay records, and more."""


# Sub-command modules: importing one registers its command on `app`, in the
# order `--help` lists them. Each imports only Typer at the top; the engine,
# records, bots, numpy, pydantic and the server load when a command runs.
from . import play as _play  # noqa: E402,F401
from . import replay as _replay  # noqa: E402,F401
from . import solve as _solve  # noqa: E402,F401
from . import exploitability as _exploitability  # noqa: E402,F401
from . import arena as _arena  # noqa: E402,F401
from . import bot as _bot  # noqa: E402,F401
from . import serve as _serve  # noqa: E402,F401
from . import rules as _rules  # noqa: E402,F401
from . import verify as _verify  # noqa: E402,F401
from . import model as _model  # noqa: E402,F401
from . import ratings as _ratings  # noqa: E402,F401

__all__ = ["Command", "Group", "app", "main"]


#: errno values of a failed write to standard output (a full disk, a lost terminal).
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT}


def main() -> None:
    """Console-script entry point.

    Output that cannot be written ends the command with one sentence on
    standard error and status 1, not a traceback; a reader that went away
    (``| head``) ends it quietly.
    """
    try:
        app()
    except BrokenPipeError:
        _drop_stdout()
        sys.exit(1)
    except OSError as e:
        if e.errno not in _OUTPUT_ERRNOS:
            raise
        _drop_stdout()
        sys.stderr.write(f"liars-dice could not write its output: {e.strerror}.\n")
        sys.exit(1)


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so the final flush at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
