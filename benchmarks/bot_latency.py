"""Move time per bot, p50 and p99, at 10 and 30 dice in play, on one core.

Positions come from real play: rounds of each seed preset (``wild-stars``,
``aces-wild``, ``classic``) opened with full cups, 2 players x 5 dice (10 in
play) and 6 players x 5 dice (30 in play), played by ``strong`` and ``probabilistic`` bots in alternate seats;
every view at a seat's turn is kept. Each bot then decides every kept view
(one warm-up pass, then a timed pass), so all bots are timed on the same
positions. Wall-clock and CPU (``time.process_time``) percentiles are both
printed: on a shared machine the CPU figures are the steadier ones. Ratios are against ``probabilistic``.

    .venv/bin/python benchmarks/bot_latency.py --positions 400

Target (issue 3): ``strong`` at most 50 ms at p99 with 30 dice in play.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from liars_dice.bots import make_bot  # noqa: E402
from liars_dice.engine import SEED_PRESETS, Game, Rules, SeededDice  # noqa: E402


def positions(players: int, count: int, seed: int) -> list:  # type: ignore[type-arg]
    """``count`` views at a seat's turn, from first rounds with full cups."""
    out = []
    g = 0
    while len(out) < count:
        rules = Rules.preset(SEED_PRESETS[g % len(SEED_PRESETS)])
        game = Game.create(rules, [f"p{i}" for i in range(players)])
        bots = [make_bot("strong" if i % 2 else "probabilistic", seed + 31 * g + i) for i in range(players)]
        state = game.initial_state(g % players).roll(SeededDice(seed + g))
        while state.phase.value in ("bid", "reroll") and len(out) < count:
            if state.is_chance:
                state = state.roll(SeededDice(seed + 7 * g + len(out)))
                continue
            view = state.view(state.to_move)
            out.append(view)
            d = bots[state.to_move].decide(view)
            state = state.apply(d.action, d.show)
        g += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="random,probabilistic,strong")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out: dict[str, dict[str, dict[str, float]]] = {}
    for dice, players in ((10, 2), (30, 6)):
        views = positions(players, a.positions, a.seed)
        assert all(v.dice_in_play == dice for v in views)
        out[str(dice)] = {}
        for name in a.bots.split(","):
            bot = make_bot(name, a.seed)
            for v in views:  # warm-up: caches and tables
                bot.decide(v)
            times, cpu = [], []
            for v in views:
                t0, c0 = time.perf_counter(), time.process_time()
                bot.decide(v)
                cpu.append(time.process_time() - c0)
                times.append(time.perf_counter() - t0)
            ms, cms = np.array(times) * 1e3, np.array(cpu) * 1e3
            out[str(dice)][name] = {"p50_ms": float(np.percentile(ms, 50)), "p99_ms": float(np.percentile(ms, 99)),
                                    "max_ms": float(ms.max()), "cpu_p50_ms": float(np.percentile(cms, 50)),
                                    "cpu_p99_ms": float(np.percentile(cms, 99)), "positions": len(views)}
    if a.json:
        print(json.dumps(out, indent=2))
        return
    for dice, per in out.items():
        ref = per.get("probabilistic")
        for name, r in per.items():
            ratio = f"  ({r['p50_ms'] / ref['p50_ms']:.1f}x / {r['p99_ms'] / ref['p99_ms']:.1f}x probabilistic)" if ref else ""
            print(f"{dice:>2} dice  {name:13s} p50 {r['p50_ms']:7.3f} ms  p99 {r['p99_ms']:7.3f} ms  "
                  f"max {r['max_ms']:7.3f} ms  (CPU p50 {r['cpu_p50_ms']:6.3f}, p99 {r['cpu_p99_ms']:6.3f} ms){ratio}")


if __name__ == "__main__":
    main()
