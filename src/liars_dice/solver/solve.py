"""``solve``: CFR+ on one two-player round until a target exploitability."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine import Rules
from .cfr import CFRPlus, CFRPlusLoop
from .exploitability import exploitability as exploitability_of
from .exploitability import expected_value
from .hands import enumerate_hands
from .passes import RoundGame
from .payoff import LeafValue, single_round_value, terminal_payoffs
from .policy import Policy
from .shows import ShowDCFR, ShowGame, ShowPolicy, ShowTree
from .tree import BidTree, SolverError


@dataclass
class SolveResult:
    """What :func:`solve` found.

    :ivar value: player 0's (the opener's) expected payoff under the policy,
        in payoff units (+1 win, -1 loss for a single round).
    :ivar exploitability: NashConv / 2 of the policy (OpenSpiel's definition).
    :ivar iterations: CFR+ iterations run.
    :ivar seconds: wall time, tree building included.
    :ivar policy: the average policy (a :class:`~liars_dice.solver.shows.ShowPolicy`
        when shows are modelled).
    :ivar show_and_reroll: whether the rules' show-and-reroll is modelled
        (always, when the rules have it: a round where nobody hides two dice
        has no show to make).
    """

    value: float
    exploitability: float
    iterations: int
    seconds: float
    policy: "Policy | ShowPolicy"
    show_and_reroll: bool = False

    def to_json(self) -> dict[str, float | int | bool]:
        return {
            "value": self.value,
            "exploitability": self.exploitability,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "show_and_reroll": self.show_and_reroll,
        }


def build_game(
    rules: Rules, dice: tuple[int, int], leaf_value: LeafValue = single_round_value, max_depth: int | None = None
) -> RoundGame:
    """The tree, hands and payoffs of one round (player 0 opens); ``max_depth``
    caps the bids in a history (see :class:`BidTree`)."""
    tree = BidTree(rules, dice, max_depth)
    hands = (enumerate_hands(dice[0], rules.faces), enumerate_hands(dice[1], rules.faces))
    return RoundGame(tree, hands, terminal_payoffs(tree, hands, leaf_value))


def solve(
    rules: Rules | str,
    dice: tuple[int, int] = (1, 1),
    target_exploitability: float = 1e-3,
    max_iterations: int = 100_000,
    check_every: int = 10,
    leaf_value: LeafValue | None = None,
    max_depth: int | None = None,
    on_check: Callable[[int, float], None] | None = None,
) -> SolveResult:
    """Solve one two-player round with CFR+ (:mod:`liars_dice.solver.cfr`).

    Stops at the first check (every ``check_every`` iterations) where the
    exploitability is at most ``target_exploitability``, or after
    ``max_iterations``. Player 0 holds ``dice[0]`` dice and opens, as in
    OpenSpiel. Show-and-reroll (``rules.show_and_reroll``) is modelled
    (:mod:`liars_dice.solver.shows`): where a player hides two dice or more the
    solve runs on the tree of bids and shows with Discounted CFR
    (:class:`~liars_dice.solver.shows.ShowDCFR`, Brown & Sandholm 2019: fewer
    iterations than CFR+ there), and the policy is a
    :class:`~liars_dice.solver.shows.ShowPolicy`.

    :param rules: a :class:`Rules` value or a preset name.
    :param leaf_value: the value to player 0 of a challenge's outcome; by
        default +1 / -1 for the winner of the challenge (the game's winner in
        a single-round preset).
    :param max_depth: most bids in a history (``None``: the full round). With a
        cap the exploitability is exact within the capped game (see :class:`BidTree`).
    :param on_check: called after each check with the iterations run so far and
        the exploitability then (for a progress display).
    :raises SolverError: for a tree too large (see :data:`~liars_dice.solver.tree.MAX_NODES`),
        bad dice, or bad limits.
    :raises RulesError: for an unknown preset name.
    """
    start = time.perf_counter()
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    if max_iterations < 1 or check_every < 1:
        raise SolverError("max_iterations and check_every must be at least 1.")
    if target_exploitability < 0:
        raise SolverError("The target exploitability cannot be negative.")
    shows = rules.show_and_reroll and len(dice) == 2 and max(dice) >= 2
    try:
        game = None if shows else build_game(rules, dice, leaf_value or single_round_value, max_depth)
    except ValueError as e:
        if isinstance(e, SolverError):
            raise
        raise SolverError(str(e)) from None
    if shows:
        return _solve_shows(rules, dice, target_exploitability, max_iterations, check_every,
                            leaf_value or single_round_value, max_depth, start, on_check)
    assert game is not None
    cfr = CFRPlus(game)
    expl = _run(cfr, lambda p: exploitability_of(game, p), target_exploitability, max_iterations, check_every, on_check)
    avg = cfr.average_policy()
    value = expected_value(game, avg)
    return SolveResult(value, expl, cfr.iterations, time.perf_counter() - start, Policy(game.tree, game.hands, avg),
                       show_and_reroll=rules.show_and_reroll)


def _run(cfr: CFRPlusLoop, exploitability: Callable[[list[np.ndarray]], float], target: float, max_iterations: int,
         check_every: int, on_check: Callable[[int, float], None] | None) -> float:
    """Iterate ``cfr`` until a check (every ``check_every`` iterations) finds the
    average policy's exploitability at most ``target``, or ``max_iterations``;
    the last exploitability measured."""
    expl = float("inf")
    while cfr.iterations < max_iterations:
        cfr.iterate(min(check_every, max_iterations - cfr.iterations))
        expl = exploitability(cfr.average_policy())
        if on_check is not None:
            on_check(cfr.iterations, expl)
        if expl <= target:
            break
    return expl


def _solve_shows(rules: Rules, dice: tuple[int, int], target: float, max_iterations: int, check_every: int,
                 leaf_value: LeafValue, max_depth: int | None, start: float,
                 on_check: Callable[[int, float], None] | None = None) -> SolveResult:
    game = ShowGame(ShowTree(rules, dice, max_depth), leaf_value)
    cfr = ShowDCFR(game)
    expl = _run(cfr, game.exploitability, target, max_iterations, check_every, on_check)
    avg = cfr.average_policy()
    return SolveResult(game.expected_value(avg), expl, cfr.iterations, time.perf_counter() - start,
                       ShowPolicy(game.tree, avg), show_and_reroll=True)
