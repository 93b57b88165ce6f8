"""``strong`` against three ``probabilistic`` bots in 4-player full games.

For each seed preset, plays ``--games`` games with ``strong`` rotated through
the four seats (game ``g`` seats it at ``g % 4``; the first opener is seat
``(g // 4) % 4``, so seats and openers both rotate), each game from dice seed
``--seed + g``. Prints the win rate of ``strong``
with a Wilson 95% confidence interval; the fair share is 25%.

    .venv/bin/python benchmarks/strength_4p.py --games 400 --jobs 2

Target (issue 3): ``strong`` wins at least 40% of the games.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import time

from liars_dice.bots import make_bot
from liars_dice.engine import SEED_PRESETS, Game, Rules, SeededDice
from liars_dice.match import play_game


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


_MODELS: dict[str, object] = {}


def fitted_model(preset: str, opponent: str, records: int) -> object:
    """The opponent model of ``opponent`` fitted on ``records`` games of four
    ``opponent`` bots (seat ``p0``; dice ``SeededDice(10**6 + g)``, apart from the
    evaluation's), made once per process and preset."""
    if preset not in _MODELS:
        from liars_dice.bots.opponent_model import fit
        from liars_dice.records import record_from_state

        recs = []
        for g in range(records):
            bots = [make_bot(opponent, 10**6 + 1000 * s + g) for s in range(4)]
            game = Game.create(Rules.preset(preset), [f"p{s}" for s in range(4)])
            recs.append(record_from_state(play_game(game, bots, SeededDice(10**6 + g), start=g % 4)))
        _MODELS[preset] = fit(recs, "p0")
    return _MODELS[preset]


def one_game(args: tuple[str, int, int, str, str, int]) -> int:
    """1 if ``strong`` wins game ``g`` of ``preset``, else 0."""
    preset, g, seed, opponent, options, model_records = args
    rules = Rules.preset(preset)
    seat = g % 4
    bots = [make_bot("strong", seed + g) if s == seat else make_bot(opponent, seed + 1000 * s + g) for s in range(4)]
    if options or model_records:  # StrongBot keyword options, for tuning; an opponent model
        from liars_dice.bots.strong import StrongBot

        kw = json.loads(options) if options else {}
        if model_records:
            model = fitted_model(preset, opponent, model_records)
            kw["models"] = {f"p{s}": model for s in range(4) if s != seat}
        bots[seat] = StrongBot(seed + g, **kw)
    game = Game.create(rules, [f"p{s}" for s in range(4)])
    final = play_game(game, bots, SeededDice(seed + g), start=(g // 4) % 4)
    return int(final.winner == seat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="games per preset (a multiple of 4 keeps seats balanced)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--presets", default=",".join(SEED_PRESETS))
    ap.add_argument("--opponent", default="probabilistic")
    ap.add_argument("--options", default="", help="StrongBot keyword options as JSON (tuning)")
    ap.add_argument("--model-records", type=int, default=0,
                    help="give strong an opponent model of --opponent fitted on this many of its self-play games")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = {}
    for preset in a.presets.split(","):
        t0 = time.perf_counter()
        tasks = [(preset, g, a.seed, a.opponent, a.options, a.model_records) for g in range(a.games)]
        if a.jobs > 1:
            with mp.Pool(a.jobs) as pool:
                res = pool.map(one_game, tasks, chunksize=8)
        else:
            res = [one_game(t) for t in tasks]
        wins = sum(res)
        lo, hi = wilson(wins, a.games)
        out[preset] = {"games": a.games, "wins": wins, "win_rate": wins / a.games, "ci95": [lo, hi],
                       "seconds": time.perf_counter() - t0}
        if not a.json:
            print(f"{preset:11s} strong wins {wins}/{a.games} = {wins / a.games:.3f} "
                  f"(95% CI {lo:.3f}-{hi:.3f}) vs 3 x {a.opponent}; fair share 0.250; "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
    if a.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
