"""Files written whole or not at all: a write that fails (a full disk, an
interrupt) leaves the earlier file as it was and no partial file beside it.

Used for game records (``play --record``), opponent models (``model fit -o``)
and endgame tables (``solve --tables``); :func:`output_path_problem` checks an
output path before the work that fills it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: str | Path, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a new file beside ``path`` and rename it over ``path``.

    The file gets the permissions ``open()`` would give it (``0o666`` less the
    umask). A ``path`` that is a symbolic link has the file it points to
    replaced, the link kept, as an ordinary write through it would.

    :raises OSError: the folder cannot hold the new file, or the rename fails
        (the new file is removed; ``path`` is untouched). Whatever ``write``
        raises is raised the same way.
    """
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would make it (mkstemp's is 0600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomically(path: str | Path, text: str) -> None:
    """``text`` in UTF-8 at ``path``, through :func:`write_atomically`.

    :raises OSError: as :func:`write_atomically`.
    """
    data = text.encode("utf-8")

    def write(f: BinaryIO) -> None:
        f.write(data)

    write_atomically(path, write)


def output_path_problem(flag: str, path: Path, name: str, or_else: str = "") -> str | None:
    """Why a file could not be written at ``path`` (one sentence naming the
    option ``flag``), or ``None``: checked before the work, so a finished game,
    fit or arena run is not lost to a bad path. ``name`` is an example file
    name for the advice, ``or_else`` an alternative added to it.

    A folder, a pipe or a device, a missing folder, or a folder or file that
    cannot be written is refused. A fifo nobody read held the finished work
    for ever, and ``/dev/full`` lost it (attack7).
    """
    if path.is_dir():
        return f"{flag} {path} is a folder, not a file; give a file name such as {path / name}{or_else}."
    if path.exists() and not path.is_file():
        return f"{flag} {path} is a pipe or a device, not a file; give a file name such as {name}{or_else}."
    folder = path.parent
    if not folder.is_dir():
        return f"{flag} {path}: there is no folder {folder}."
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{flag} {path}: that file cannot be written here."
    return None
