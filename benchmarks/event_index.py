"""CPU per stored event with and without events' own ``table_id`` index.

Migration 0004 dropped ``ix_events_table_id``: the unique constraint on
``(table_id, seq)`` leads with the same column, so the second index only cost
one more B-tree insert per event. This script stores ``--events`` single-event
transactions into SQLite shaped as the server's ``events`` table (WAL,
``synchronous=NORMAL``, foreign keys on: ``liars_dice.server.runtime.db``'s
settings) with the old index and without it, taking turns for ``--rounds``
rounds, and prints the medians of process CPU per event and the ratio.

Usage::

    .venv/bin/python benchmarks/event_index.py
    .venv/bin/python benchmarks/event_index.py --events 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id VARCHAR(32) NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL, kind VARCHAR(24) NOT NULL, payload JSON NOT NULL, created_at DATETIME NOT NULL,
    CONSTRAINT uq_events_table_seq UNIQUE (table_id, seq)
);
"""
PAYLOAD = json.dumps({"seat": 1, "bid": {"quantity": 3, "face": 4}, "show": [], "reroll": []})


def per_event_us(path: Path, own_index: bool, events: int, tables: int = 200) -> float:
    """Process CPU microseconds per single-event transaction."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON"):
        db.execute(f"PRAGMA {pragma}")
    db.executescript(SCHEMA)
    if own_index:
        db.execute("CREATE INDEX ix_events_table_id ON events (table_id)")
    ids = [os.urandom(16).hex() for _ in range(tables)]
    db.executemany("INSERT INTO tables VALUES (?)", [(i,) for i in ids])
    insert = "INSERT INTO events (table_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)"
    t0 = time.process_time()
    for k in range(events):
        db.execute("BEGIN")
        db.execute(insert, (ids[k % tables], k // tables, "moved", PAYLOAD, "2026-12-03 12:00:00"))
        db.execute("COMMIT")
    took = time.process_time() - t0
    db.close()
    return took / events * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "events.db"
        both: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for own in (True, False):
                both[own].append(per_event_us(path, own, args.events))
    old, new = statistics.median(both[True]), statistics.median(both[False])
    print(f"with ix_events_table_id (before 0004): {', '.join(f'{v:.1f}' for v in both[True])} us per event")
    print(f"without it (0004):                     {', '.join(f'{v:.1f}' for v in both[False])} us per event")
    print(f"medians: {old:.1f} / {new:.1f} us, ratio {old / new:.2f}x")
    print("RESULT " + json.dumps({"with_us": old, "without_us": new, "ratio": old / new}))


if __name__ == "__main__":
    main()
