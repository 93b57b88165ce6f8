"""Reading a record file or standard input, bounded: every command that reads a
record (``replay``, ``verify``) refuses one larger than :data:`MAX_RECORD_BYTES`
before holding it."""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import BinaryIO

from .replay import RecordError

#: The largest record read, in bytes. A long game of six players is under 1 MB;
#: a 100 MB file given to ``replay`` took 330 MB of memory before this bound.
MAX_RECORD_BYTES = 32 * 1024 * 1024


#: Bytes read at a time by :func:`read_bounded`.
CHUNK_BYTES = 1024 * 1024


def read_bounded(stream: BinaryIO, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``stream``, read in chunks of
    :data:`CHUNK_BYTES`: memory follows the bytes there are, not the bound
    (``read(limit + 1)`` allocated the whole 32 MiB for a record of 2 bytes).

    :raises OSError: as the stream's ``read`` does.
    """
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        part = stream.read(min(CHUNK_BYTES, limit + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def open_regular(path: str) -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file
    (symbolic links followed). The file is opened without blocking and then
    checked (``fstat``), so a fifo with no writer is refused at once, not
    waited on, and nothing can be swapped in between the check and the read.

    A fifo nobody writes to was waited on for ever, and ``/dev/zero`` was read
    to the bound (attack7).

    :raises OSError: ``path`` is a fifo, device or socket (``errno.EINVAL``,
        ``strerror`` "Not a regular file (a pipe, device or socket)").
        As ``open`` does otherwise (``IsADirectoryError`` for a directory).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "Not a regular file (a pipe, device or socket)", path)
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_record_bytes(spec: str) -> bytes:
    """The bytes of the record at path ``spec`` (``-``: standard input), at most
    :data:`MAX_RECORD_BYTES`.

    :raises RecordError: the file cannot be read (the system's reason), is not
        a regular file (a fifo or device: :func:`open_regular`), or it is
        larger than the bound (read no further than one byte past it).
    """
    try:
        if spec == "-":
            raw = read_bounded(sys.stdin.buffer, MAX_RECORD_BYTES)
        else:
            with open_regular(spec) as f:
                raw = read_bounded(f, MAX_RECORD_BYTES)
    except OSError as e:
        if e.errno == errno.EINVAL:  # a pipe or device (open_regular): stdin reads one, e.g. `cmd | replay -`
            raise RecordError(f"Cannot read {spec}: {e.strerror}; pipe it in with '-' instead.") from None
        raise RecordError(f"Cannot read {spec}: {e.strerror}.") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"The record is over {MAX_RECORD_BYTES // (1024 * 1024)} MB, far larger than any game.")
    return raw
