"""How much of a whole game outcome-sampling MCCFR has seen: train
``openspiel:mccfr:1000``'s policy (1,000 iterations of OpenSpiel's
outcome-sampling MCCFR on ``python_liars_dice_ld``, ``classic``, 2 seats, 5 dice,
numpy seed 0, as the bot does), then play 200 random games and count the
decisions whose information state is in its table (elsewhere the bot plays
uniformly), by round. Figures in benchmarks/RESULTS.md ("strong against the
OpenSpiel bots").

    .venv/bin/python benchmarks/mccfr_coverage.py
"""

import random, numpy as np, pyspiel
from liars_dice.integrations.openspiel import SHORT_NAME
from open_spiel.python.algorithms import outcome_sampling_mccfr as os_
game = pyspiel.load_game(SHORT_NAME, {"rules": "classic", "players": 2})
np.random.seed(0)
solver = os_.OutcomeSamplingSolver(game)
for _ in range(1000):
    solver.iteration()
table = solver._infostates
rng = random.Random(1)
hits = total = 0
by_round = {}
for g in range(200):
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()])); continue
        key = s.information_state_string(s.current_player())
        r = s.pos.rounds
        h, t = by_round.get(r, (0, 0))
        by_round[r] = (h + (key in table), t + 1)
        hits += key in table; total += 1
        s.apply_action(rng.choice(s.legal_actions()))
print("infostates in table", len(table), "decisions", total, "found", hits, f"{hits/total:.4f}")
print({r: f"{h}/{t}" for r, (h, t) in sorted(by_round.items())})
