"""Protocol overhead: move latency of a bot through `liars-dice bot` (a
subprocess, JSON lines) against the same bot in process.

    .venv/bin/python benchmarks/protocol_latency.py [--positions 400]

For each dice total (10 and 30 dice in play, classic, 2 and 6 seats) it collects
positions from seeded random games, with their past rounds, then times
``decide`` for ``random`` in process, for ``ExternalBot`` running
``liars-dice bot random --rules classic``, and the request <-> view conversion
alone. Prints p50 and p99 per move in microseconds, and the ratios. The row
``<=30+h`` takes positions from every round of 6-seat games, so its requests
carry the past rounds (``history``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from liars_dice.bots import make_bot
from liars_dice.engine import Game, Phase, Rules, SeededDice
from liars_dice.match import play_game
from liars_dice.protocol import ExternalBot, parse_request, request_from_view, view_from_request


def positions(rules: Rules, seats: int, per_seat: int, want: int, first_round: bool = True) -> list:
    """Views of the seat to move; with ``first_round`` only those with every
    die still in play (no history), else from any round (with past rounds)."""
    out, seed = [], 0
    while len(out) < want:
        views = []

        def keep(s) -> None:
            if s.phase is Phase.BID and (not first_round or sum(s.dice) == seats * per_seat):
                views.append(s.view(s.to_move))

        game = Game.create(rules, [f"p{i}" for i in range(seats)], [per_seat] * seats)
        play_game(game, [make_bot("random", seed * 10 + i) for i in range(seats)], SeededDice(seed), on_state=keep)
        out.extend(views)
        seed += 1
    return out[:want]


def timed(fn, items) -> list[float]:
    times = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - t) * 1e6)
    return times


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q) - 1] if len(xs) >= 2 else xs[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=400)
    args = ap.parse_args()
    rules = Rules.preset("classic")
    exe = Path(sys.executable).parent / "liars-dice"
    cmd = [str(exe) if exe.exists() else shutil.which("liars-dice"), "bot", "random", "--rules", "classic"]
    print(f"python {sys.version.split()[0]}, {args.positions} positions per row; times in microseconds per move")
    print(f"{'dice':>9} {'seats':>5} | {'in-process p50':>14} {'p99':>8} | {'external p50':>12} {'p99':>8} | {'convert p50':>11} | {'ext/in p50':>10}")
    with ExternalBot(cmd, timeout=30) as ext:
        for seats, per_seat, first in ((2, 5, True), (6, 5, True), (6, 5, False)):
            views = positions(rules, seats, per_seat, args.positions, first)
            label = f"{seats * per_seat}" if first else f"<={seats * per_seat}+h"
            local = make_bot("random", 1)
            ext.decide(views[0])  # warm up the process
            t_in = timed(local.decide, views)
            t_ext = timed(ext.decide, views)
            t_conv = timed(lambda v: view_from_request(parse_request(json.dumps(request_from_view(v))), rules), views)
            m_in, m_ext, m_conv = statistics.median(t_in), statistics.median(t_ext), statistics.median(t_conv)
            print(f"{label:>9} {seats:>5} | {m_in:>14.0f} {pct(t_in, 99):>8.0f} | {m_ext:>12.0f} {pct(t_ext, 99):>8.0f} | {m_conv:>11.0f} | {m_ext / m_in:>10.1f}")


if __name__ == "__main__":
    main()
