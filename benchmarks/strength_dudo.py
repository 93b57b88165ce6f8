"""``strong`` against the dudo.ai networks: single ``joker`` rounds, d vs d dice.

For each dice count ``d`` in ``--dice`` (default 1..5), plays ``--rounds``
rounds of the ``joker`` preset with ``d`` dice each. Seats are balanced:
``strong`` sits in seat ``r % 2`` and the first mover is seat ``(r // 2) % 2``,
so each of the four (seat, first mover) pairs gets a quarter of the rounds.
Dice come from ``SeededDice(seed + r)``, the bot's own draws from ``BOT_SEED + seed + r``.
Prints the win rate of ``strong`` with a Wilson
95% confidence interval.

    .venv/bin/python benchmarks/strength_dudo.py --rounds 2000 --jobs 2

Needs ``pip install onnxruntime`` (benchmark only; see ``dudo_adapter.py``).
Target (issue 3): ``strong`` wins at least 55% of rounds at every dice count.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dudo_adapter import DudoBot, PlainHeuristic  # noqa: E402
from strength_4p import wilson  # noqa: E402

from liars_dice.bots import make_bot  # noqa: E402
from liars_dice.engine import Game, Rules, SeededDice  # noqa: E402
from liars_dice.match import play_game  # noqa: E402


#: Offset of the evaluated bot's seed from the dice's (``SeededDice(seed + r)``).
BOT_SEED = 10**7


def one_round(args: tuple[int, int, int, str, str]) -> int:
    """1 if ``strong`` (or ``--bot``) wins round ``r`` with ``d`` dice each."""
    d, r, seed, bot, options = args
    rules = Rules.preset("joker")
    me = r % 2  # strong's seat
    start = (r // 2) % 2  # the seat that moves first (the networks' player 0)
    game = Game.create(rules, ["a", "b"], dice=(d, d))
    bots = [None, None]
    # the bot's own draws seeded apart from the dice (seeded alike, a mixed move
    # followed the bot's own die; benchmarks/opponent_models.py RECORD_SEEDS)
    bots[me] = PlainHeuristic() if bot == "heuristic" else make_bot(bot, BOT_SEED + seed + r)
    if options:  # StrongBot keyword options, for tuning
        from liars_dice.bots.strong import StrongBot

        bots[me] = StrongBot(BOT_SEED + seed + r, **json.loads(options))
    bots[1 - me] = DudoBot(first=start, seed=seed * 7919 + r)
    final = play_game(game, bots, SeededDice(seed + r), start=start)  # type: ignore[arg-type]
    return int(final.winner == me)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--dice", default="1,2,3,4,5")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--bot", default="strong", help="a registered bot, or 'heuristic' (the peer README's)")
    ap.add_argument("--options", default="", help="StrongBot keyword options as JSON (tuning)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = {}
    for d in (int(x) for x in a.dice.split(",")):
        t0 = time.perf_counter()
        tasks = [(d, r, a.seed, a.bot, a.options) for r in range(a.rounds)]
        if a.jobs > 1:
            with mp.Pool(a.jobs) as pool:
                res = pool.map(one_round, tasks, chunksize=16)
        else:
            res = [one_round(t) for t in tasks]
        wins = sum(res)
        lo, hi = wilson(wins, a.rounds)
        first = sum(res[r] for r in range(a.rounds) if (r // 2) % 2 == r % 2)
        out[f"{d}v{d}"] = {"rounds": a.rounds, "wins": wins, "win_rate": wins / a.rounds, "ci95": [lo, hi],
                           "wins_moving_first": first, "seconds": time.perf_counter() - t0}
        if not a.json:
            print(f"{d}v{d}: {a.bot} wins {wins}/{a.rounds} = {wins / a.rounds:.3f} (95% CI {lo:.3f}-{hi:.3f}) "
                  f"vs dudo.ai; {time.perf_counter() - t0:.0f} s", flush=True)
    if a.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
