"""How much of a whole game outcome-sampling MCCFR has seen: train
``openspiel:mccfr:1000``'s policy (1,000 iterations of OpenSpiel's
outcome-sampling MCCFR on ``python_liars_dice_ld``, ``classic``, 2 seats, 5 dice,
numpy seed 0, as the bot does), then play 200 random games and count the
decisions whose information state is in its table (elsewhere the bot plays
uniformly), by round. Figures in benchmarks/RESULTS.md ("strong against the
OpenSpiel bots").

    .venv/bin/python benchmarks/mccfr_coverage.py
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import outcome_sampling_mccfr

from liars_dice.integrations.openspiel import SHORT_NAME


def main() -> None:
    game = pyspiel.load_game(SHORT_NAME, {"rules": "classic", "players": 2})
    np.random.seed(0)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(1000):
        solver.iteration()
    table = solver._infostates
    rng = random.Random(1)
    hits = total = 0
    by_round: dict[int, tuple[int, int]] = {}
    for _ in range(200):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
                continue
            key = s.information_state_string(s.current_player())
            r = s.pos.rounds
            h, t = by_round.get(r, (0, 0))
            by_round[r] = (h + (key in table), t + 1)
            hits += key in table
            total += 1
            s.apply_action(rng.choice(s.legal_actions()))
    print("infostates in table", len(table), "decisions", total, "found", hits, f"{hits/total:.4f}")
    print({r: f"{h}/{t}" for r, (h, t) in sorted(by_round.items())})


if __name__ == "__main__":
    main()
