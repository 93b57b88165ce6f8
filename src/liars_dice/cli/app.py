"""The Typer application; sub-commands register themselves from their modules."""

from __future__ import annotations

import errno
import os
import sys

import typer

app = typer.Typer(
    name="liars-dice",
    help="Liar's Dice: play in the terminal, replay records, and more.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion and --show-completion for bash, zsh, fish, PowerShell
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
from . import serve as _serve  # noqa: E402,F401
from . import rules as _rules  # noqa: E402,F401
from . import verify as _verify  # noqa: E402,F401


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
