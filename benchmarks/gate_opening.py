"""How often ``strong``'s evidence gate is open (issue 11; ``bots/strong.py``
module docstring, step 5): the share of ``strong``'s search positions at which
the evidence on an opponent would open the gate, for a grid of thresholds.

``strong`` (seat ``g % players``) is given the model of ``probabilistic``
(fitted on ``--model-records`` of its self-play games, as
``benchmarks/strength_4p.py`` fits it) for every other seat, and plays
``--games`` games against ``--opponent``: ``probabilistic`` (the right model)
or ``strong`` (a wrong one). At each of its moves, for each opponent still in,
the evidence ``(log-likelihood ratio, decisions)`` is recorded (positions with
two players count only above 4 dice in play, where the search plays; the
tables play the rest; with ``--tables``, only those table positions,
two players with 3 or 4 dice in play, where ``search_endgames`` may replace
the tables, :data:`~liars_dice.bots.strong.ENDGAME_GATE_LLR`). Prints, per number of players in, the share of
(position, opponent) pairs at which ``llr > L`` over at least ``m`` decisions,
and the mean evidence after 3, 6 and 10 decisions; with ``--tables`` also the
share at which the shipped gate of the tables' positions is open
(``StrongBot.gate_open(..., tables=True)``, the pooled evidence included) and
the evidence pooled over the players given the model
(``StrongBot.pooled_evidence``), in nats a decision.

    .venv/bin/python benchmarks/gate_opening.py --players 2 --opponent probabilistic --games 60
    .venv/bin/python benchmarks/gate_opening.py --players 2 --dice 5 --opponent strong --games 40
"""

from __future__ import annotations

import argparse
import statistics

from strength_4p import fitted_model

from liars_dice.bots import make_bot
from liars_dice.bots.strong import (
    ENDGAME_GATE_LLR,
    ENDGAME_GATE_MIN_DECISIONS,
    GATE_LLR,
    GATE_MIN_DECISIONS,
    StrongBot,
)
from liars_dice.engine import Game, Rules, SeededDice
from liars_dice.match import play_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--opponent", default="probabilistic")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--dice", type=int, default=0, help="starting dice per player (0: the preset's)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--model-records", type=int, default=1000)
    ap.add_argument("--tables", action="store_true",
                    help="count the tables' two-player positions (3-4 dice in play) instead of the search's")
    a = ap.parse_args()
    if not 2 <= a.players <= 6 or a.games < 1 or a.dice < 0 or a.model_records < 1:
        ap.error("players must be 2 to 6, games and model records at least 1, dice at least 0.")
    model = fitted_model(a.preset, "probabilistic", a.model_records, a.players)
    pts: list[tuple[int, float, int]] = []  # (players in, llr, decisions)
    shipped: list[tuple[int, bool, float, int]] = []  # (players in, tables' gate open, pooled llr, pooled decisions)
    for g in range(a.games):
        seat = g % a.players
        bot = StrongBot(500 + g, models={f"p{s}": model for s in range(a.players) if s != seat})
        bots = [bot if s == seat else make_bot(a.opponent, 7000 + 1000 * s + g) for s in range(a.players)]

        def grab(state):  # type: ignore[no-untyped-def]
            if state.is_over or state.is_chance or state.to_move != seat:
                return
            v = state.view(seat)
            bot._update_models(v)  # the evidence the move about to be made sees
            alive = [s for s, d in enumerate(v.dice) if d > 0]
            table = len(alive) == 2 and v.dice_in_play <= 4
            if table != a.tables or (a.tables and v.dice_in_play <= 2):
                return
            for o in alive:
                if o != seat:
                    llr, n = bot.evidence(f"p{o}")
                    pts.append((len(alive), llr, n))
                    if a.tables:
                        shipped.append((len(alive), bot.gate_open(f"p{o}", tables=True), *bot.pooled_evidence(f"p{o}")))

        game = Game.create(Rules.preset(a.preset), [f"p{s}" for s in range(a.players)],
                           dice=[a.dice] * a.players if a.dice else None)
        play_game(game, bots, SeededDice(50000 + g), start=g % a.players, on_state=grab)
    print(f"{a.preset}, {a.players} players, strong with probabilistic's model against {a.opponent}, "
          f"{a.games} games; the shipped gate: > {ENDGAME_GATE_LLR if a.tables else GATE_LLR} nat over >= "
          f"{ENDGAME_GATE_MIN_DECISIONS if a.tables else GATE_MIN_DECISIONS} decisions")
    for alive in sorted({p[0] for p in pts}, reverse=True):
        sub = [p for p in pts if p[0] == alive]
        print(f"  {alive} players in: {len(sub)} (position, opponent) pairs; "
              f"any decision scored {sum(p[2] >= 1 for p in sub) / len(sub):.2f}")
        for lim in (-2.0, -1.0, 0.0, 0.5, 1.0, 2.0):
            cells = [f"m{m}: {sum(1 for _, llr, n in sub if n >= m and llr > lim) / len(sub):.2f}" for m in (1, 3, 6, 10)]
            print(f"    llr > {lim}: " + "  ".join(cells))
        for m in (3, 6, 10, 15):
            xs = [llr for _, llr, n in sub if n == m]
            if xs:
                print(f"    after {m} decisions: mean {statistics.mean(xs):+.2f} nat (sd {statistics.pstdev(xs):.2f}, {len(xs)})")
        sh = [p for p in shipped if p[0] == alive]
        if sh:
            rates = sorted(pl / pn for _, _, pl, pn in sh if pn >= ENDGAME_GATE_MIN_DECISIONS)
            line = f"    the tables' gate as shipped (pooled evidence included): open {sum(p[1] for p in sh) / len(sh):.2f}"
            if rates:
                line += (f"; pooled over >= {ENDGAME_GATE_MIN_DECISIONS} decisions at {len(rates) / len(sh):.2f}, "
                         f"nats a decision min {rates[0]:+.2f}, median {rates[len(rates) // 2]:+.2f}, max {rates[-1]:+.2f}")
            print(line)


if __name__ == "__main__":
    main()
