"""Fault injection on SQLite (issue 16, fault 7 and its "done when"): the
disk under the database file full for 5 s in the middle of 12 games played
by bots on a real ``liars-dice serve`` (a small tmpfs, filled and freed).
Before, 7 of 8 games never moved again. Afterwards every game goes on to its
end by itself, every move a spectator was shown is stored, and the server
restarts cleanly. Needs root (to mount the tmpfs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from liars_dice.records import replay
from liars_dice.server.runtime.db import make_engine

from .test_db_outage import GAMES, Spectator, bots_only_table, drain, stop_server, stored_moves
from .test_restart import start_server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None, reason="needs root to mount a tmpfs"),
]


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 24 MiB tmpfs of its own."""
    where = Path(tempfile.mkdtemp(prefix="liars-dice-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        shutil.rmtree(where, ignore_errors=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to its last byte; returns the file that fills it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 16, 1):  # blocks, then the last bytes
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def test_games_go_on_after_the_disk_was_full(small_disk: Path, tmp_path: Path) -> None:
    cli = str(Path(sys.executable).parent / "liars-dice")
    url = f"sqlite:///{small_disk / 'tables.db'}"
    # The WAL truncated every second: a PASSIVE checkpoint rewinds the WAL, whose
    # blocks the next commits then reuse, so a full disk could pass unnoticed
    # (CI: "the disk never filled"); after a truncation the next commit needs
    # new blocks, so the full disk is met within a second.
    proc, base = start_server(cli, url, tmp_path, bot_delay=0.15, extra=("--limit", "wal_truncate_seconds=1", "--limit", "open_tables_per_address=100"))
    log = drain(proc)
    try:
        http = httpx.Client(base_url=base, timeout=30)
        codes = [bots_only_table(http, base) for _ in range(GAMES)]
        watchers = {code: Spectator(base, code) for code in codes}
        for w in watchers.values():
            w.start()
        time.sleep(2.0)
        assert not any(w.over.is_set() for w in watchers.values()), "a game ended before the disk was full"
        filler = fill(small_disk)
        time.sleep(5.0)
        filler.unlink()
        for code, w in watchers.items():
            assert w.over.wait(180), f"table {code} did not go on to its end by itself"
            assert w.error is None, w.error
        engine = make_engine(url)
        for code, w in watchers.items():
            moves = stored_moves(engine, code)
            for mn, ev in w.shown:
                assert mn <= len(moves), f"table {code}: move {mn} was shown, and is not stored"
                assert (ev["kind"] == "bid") == (moves[mn - 1]["bid"] is not None), (code, mn)
        engine.dispose()
    finally:
        stop_server(proc)
    assert any("the store failed" in line for line in log), "the disk never filled: " + "".join(log)[-2000:]
    # The WAL truncated every second: a PASSIVE checkpoint rewinds the WAL, whose
    # blocks the next commits then reuse, so a full disk could pass unnoticed
    # (CI: "the disk never filled"); after a truncation the next commit needs
    # new blocks, so the full disk is met within a second.
    proc, base = start_server(cli, url, tmp_path, bot_delay=0.15, extra=("--limit", "wal_truncate_seconds=1", "--limit", "open_tables_per_address=100"))  # restarts cleanly
    drain(proc)
    try:
        for code in codes:
            rec = httpx.get(base + f"api/tables/{code}/record", timeout=30)
            assert rec.status_code == 200, rec.text
            assert replay(rec.json()).ok
    finally:
        stop_server(proc)
