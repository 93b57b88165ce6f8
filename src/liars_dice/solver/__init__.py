"""Exact equilibrium solving of two-player Liar's Dice rounds.

CFR+ vectorized with numpy over private hands on the public bid tree, exact
exploitability by best response (OpenSpiel's NashConv / 2), ``.npz`` policies,
and whole-game endgame tables for two players.

>>> from liars_dice.solver import solve
>>> r = solve("openspiel", (1, 1), target_exploitability=0.01)
>>> round(r.value, 2)
-0.03

Modules: :mod:`.hands` (chance), :mod:`.tree` (public bid tree),
:mod:`.outcome` and :mod:`.payoff` (terminal payoffs), :mod:`.passes` (reach and
value sweeps), :mod:`.cfr` (CFR+), :mod:`.exploitability`, :mod:`.policy`
(lookup and files), :mod:`.best_response` (exact best response to any fixed
policy), :mod:`.restricted` (data-biased / restricted Nash response to a
model), :mod:`.solve`, :mod:`.endgame` (whole-game tables).

Layer: solver, above records; imports the engine and records only.
"""

from .best_response import BestResponse, PolicyFn, best_response, policy_fn_of
from .exploitability import (
    Exploitability, best_response_values, expected_value, exploitability, local_best_response, measure_exploitability,
    nash_conv, policy_exploitability,
)
from .policy import Policy
from .restricted import RestrictedResult, restricted_response
from .solve import SolveResult, build_game, solve
from .tree import MAX_NODES, BidTree, SolverError

__all__ = [
    "BestResponse", "PolicyFn", "best_response", "policy_fn_of",
    "BidTree", "MAX_NODES", "Policy", "SolveResult", "SolverError", "best_response_values", "build_game",
    "expected_value", "exploitability", "nash_conv", "Exploitability", "local_best_response", "measure_exploitability",
    "policy_exploitability", "RestrictedResult", "restricted_response", "solve",
]
