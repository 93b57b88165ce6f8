"""Reading a record file or standard input, bounded: every command that reads a
record (``replay``, ``verify``) refuses one larger than :data:`MAX_RECORD_BYTES`
before holding it."""

from __future__ import annotations

import sys
from pathlib import Path

from .replay import RecordError

#: The largest record read, in bytes. A long game of six players is under 1 MB;
#: a 100 MB file given to ``replay`` took 330 MB of memory before this bound.
MAX_RECORD_BYTES = 32 * 1024 * 1024


def read_record_bytes(spec: str) -> bytes:
    """The bytes of the record at path ``spec`` (``-``: standard input), at most
    :data:`MAX_RECORD_BYTES`.

    :raises RecordError: the file cannot be read (the system's reason), or it is
        larger than the bound (read no further than one byte past it).
    """
    try:
        if spec == "-":
            raw = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with Path(spec).open("rb") as f:
                raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as e:
        raise RecordError(f"Cannot read {spec}: {e.strerror}.") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"The record is over {MAX_RECORD_BYTES // (1024 * 1024)} MB, far larger than any game.")
    return raw
