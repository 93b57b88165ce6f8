"""``strong`` against three ``probabilistic`` bots in 4-player full games.

For each seed preset, plays ``--games`` games with ``strong`` rotated through
the four seats (game ``g`` seats it at ``g % 4``; the first opener is seat
``(g // 4) % 4``, so seats and openers both rotate), each game from dice seed
``--seed + g``. Prints the win rate of ``strong``
with a Wilson 95% confidence interval; the fair share is 25%.
``--players 2`` (or 3, 5, 6) plays that many seats instead, rotated the same way.
``--breakdown`` also prints where ``strong``'s dice went, by the players with
dice in each round (and, for two, whether the endgame tables cover it).

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


def fitted_model(preset: str, opponent: str, records: int, players: int = 4) -> object:
    """The opponent model of ``opponent`` fitted on ``records`` games of ``players``
    ``opponent`` bots (seat ``p0``; dice ``SeededDice(10**6 + g)``, apart from the
    evaluation's), made once per process, preset and table size."""
    key = f"{preset}/{players}"
    if key not in _MODELS:
        from liars_dice.bots.opponent_model import fit
        from liars_dice.records import record_from_state

        recs = []
        for g in range(records):
            bots = [make_bot(opponent, 10**6 + 1000 * s + g) for s in range(players)]
            game = Game.create(Rules.preset(preset), [f"p{s}" for s in range(players)])
            recs.append(record_from_state(play_game(game, bots, SeededDice(10**6 + g), start=g % players)))
        _MODELS[key] = fit(recs, "p0")
    return _MODELS[key]


def breakdown(final: object, seat: int) -> dict[str, list[float]]:
    """Where ``seat``'s dice went in one game: per kind of round (players with dice,
    and for two players whether the endgame tables cover it: at most 4 dice in
    play), ``[rounds, dice seat lost, fair share of the dice lost]``, the fair
    share being the dice lost in the round divided by the players with dice;
    plus ``final2`` ``[reached, won]``: whether the seat was one of the last two
    players, and whether it then won."""
    out: dict[str, list[float]] = {}
    reached = 0
    for res in final.results:  # type: ignore[attr-defined]
        held = [len(h) for h in res.revealed]
        if held[seat] == 0:
            break
        alive = sum(1 for d in held if d > 0)
        kind = f"{alive}p" if alive > 2 else ("2p<=4" if sum(held) <= 4 else "2p>4")
        reached |= alive == 2
        row = out.setdefault(kind, [0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += res.lost[seat] - (res.gained[seat] if res.gained else 0)
        row[2] += (sum(res.lost) - sum(res.gained or ())) / alive
    out["final2"] = [float(reached), float(reached and final.winner == seat)]  # type: ignore[attr-defined]
    return out


def one_game(args: tuple[str, int, int, str, str, int, int, str, int]) -> tuple[int, dict[str, list[float]]]:
    """(1 if ``strong`` wins game ``g`` of ``preset`` else 0, :func:`breakdown` of the game)."""
    preset, g, seed, opponent, options, model_records, players, model_of, dice = args
    rules = Rules.preset(preset)
    seat = g % players
    bots = [
        make_bot("strong", seed + g) if s == seat else make_bot(opponent, seed + 1000 * s + g) for s in range(players)
    ]
    if options or model_records:  # StrongBot keyword options, for tuning; an opponent model
        from liars_dice.bots.strong import StrongBot

        kw = json.loads(options) if options else {}
        if model_records:
            model = fitted_model(preset, model_of or opponent, model_records, players)
            kw["models"] = {f"p{s}": model for s in range(players) if s != seat}
        bots[seat] = StrongBot(seed + g, **kw)
    game = Game.create(rules, [f"p{s}" for s in range(players)], dice=[dice] * players if dice else None)
    final = play_game(game, bots, SeededDice(seed + g), start=(g // players) % players)
    return int(final.winner == seat), breakdown(final, seat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="games per preset (a multiple of 4 keeps seats balanced)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--presets", default=",".join(SEED_PRESETS))
    ap.add_argument("--opponent", default="probabilistic")
    ap.add_argument("--players", type=int, default=4, help="seats at the table (strong and players - 1 opponents)")
    ap.add_argument("--dice", type=int, default=0, help="starting dice per player (0: the preset's)")
    ap.add_argument("--model-of", default="",
                    help="fit the model on this bot's self-play instead of --opponent's (a wrong model: safety)")
    ap.add_argument("--options", default="", help="StrongBot keyword options as JSON (tuning)")
    ap.add_argument("--model-records", type=int, default=0,
                    help="give strong an opponent model of --opponent fitted on this many of its self-play games")
    ap.add_argument("--breakdown", action="store_true",
                    help="also print where strong's dice went, by players with dice (and tables' reach)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = {}
    for preset in a.presets.split(","):
        t0 = time.perf_counter()
        tasks = [(preset, g, a.seed, a.opponent, a.options, a.model_records, a.players, a.model_of, a.dice)
                 for g in range(a.games)]
        if a.jobs > 1:
            with mp.Pool(a.jobs) as pool:
                res = pool.map(one_game, tasks, chunksize=8)
        else:
            res = [one_game(t) for t in tasks]
        wins = sum(w for w, _ in res)
        lo, hi = wilson(wins, a.games)
        parts: dict[str, list[float]] = {}
        for _, b in res:
            for k, v in b.items():
                row = parts.setdefault(k, [0.0] * len(v))
                for i, x in enumerate(v):
                    row[i] += x
        out[preset] = {"games": a.games, "wins": wins, "win_rate": wins / a.games, "ci95": [lo, hi],
                       "seconds": time.perf_counter() - t0, "breakdown": parts}
        if not a.json:
            print(f"{preset:11s} strong wins {wins}/{a.games} = {wins / a.games:.3f} "
                  f"(95% CI {lo:.3f}-{hi:.3f}) vs {a.players - 1} x {a.opponent}; fair share {1 / a.players:.3f}; "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
            if a.breakdown:
                reached, won = parts.pop("final2", [0.0, 0.0])
                print(f"  reached the last two {reached:.0f}/{a.games}, won {won:.0f} of those "
                      f"({won / max(reached, 1):.3f})")
                for k in sorted(parts, reverse=True):
                    n, lost, fair = parts[k]
                    print(f"  {k:6s} rounds {n:5.0f}  dice lost {lost / n:.3f}/round, fair share {fair / n:.3f}")
    if a.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
