"""Reading a record file or standard input, bounded: every command that reads a
record (``replay``, ``verify``) refuses one larger than :data:`MAX_RECORD_BYTES`
before holding it."""

from __future__ import annotations

import sys
from pathlib import Path
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


def read_record_bytes(spec: str) -> bytes:
    """The bytes of the record at path ``spec`` (``-``: standard input), at most
    :data:`MAX_RECORD_BYTES`.

    :raises RecordError: the file cannot be read (the system's reason), or it is
        larger than the bound (read no further than one byte past it).
    """
    try:
        if spec == "-":
            raw = read_bounded(sys.stdin.buffer, MAX_RECORD_BYTES)
        else:
            with Path(spec).open("rb") as f:
                raw = read_bounded(f, MAX_RECORD_BYTES)
    except OSError as e:
        raise RecordError(f"Cannot read {spec}: {e.strerror}.") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"The record is over {MAX_RECORD_BYTES // (1024 * 1024)} MB, far larger than any game.")
    return raw
