"""The independent check of endgame tables, shared by tests/test_endgame.py
(no shows) and tests/test_endgame_shows.py (show-and-reroll): play the tables'
round policies through the engine over every deal, show and reroll, each round
to the end of the game, and return the exact expectation per position
(seeds 000/003/004 and RULES.md for losses, Die Hard, shows and who opens next)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import product
from typing import Any

from liars_dice.engine import Game, Rules
from liars_dice.solver.shows import ShowPolicy


def deals(dice: tuple[int, int], faces: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every deal of ``dice`` dice with ``faces`` faces, equally likely, in order."""
    return list(product(product(range(1, faces + 1), repeat=dice[0]), product(range(1, faces + 1), repeat=dice[1])))


def whole_game_values(rules: Rules, policies: dict[tuple[int, int], Any]) -> Callable[[int, int], float]:
    """``value(a, b)``: the opener's expected result (+1 win, -1 loss) of the game
    from position ``(a, b)`` when both players follow ``policies[(a', b')]``
    (a :class:`~liars_dice.solver.policy.Policy` or a :class:`ShowPolicy`) in
    every round, computed by walking the engine, rerolls as chance nodes."""
    faces = rules.faces

    @lru_cache(maxsize=None)
    def value(a: int, b: int) -> float:
        pol = policies[(a, b)]
        game = Game.create(rules.with_options(max_players=2), ["p0", "p1"], [a, b])

        def walk(state: Any, prob: float) -> float:
            if state.phase.value == "reroll":  # the chance node after a show
                n = len(state.hidden[state.to_move])
                outcomes = list(product(range(1, faces + 1), repeat=n))
                return sum(walk(state.reroll(list(f)), prob / len(outcomes)) for f in outcomes)
            if state.phase.value != "bid":
                res = state.results[-1]
                if state.is_over:
                    return prob * (1.0 if state.winner == 0 else -1.0)
                na, nb = state.dice
                return prob * (value(na, nb) if res.next_opener == 0 else -value(nb, na))
            hand = state.hidden[state.to_move]
            if isinstance(pol, ShowPolicy):
                moves = pol.action_probabilities(hand, [(bid, sh) for _, bid, sh in state.bids])
            else:
                moves = {(x, ()): p for x, p in pol.action_probabilities(hand, [bid for _, bid, _ in state.bids]).items()}
            total = 0.0
            for (action, show), p in moves.items():
                if p > 0:
                    assert state.is_legal(action, show)
                    total += walk(state.apply_unchecked(action, show), prob * p)
            return total

        all_deals = deals((a, b), faces)
        return sum(walk(game.initial_state(0).deal([list(h0), list(h1)]), 1 / len(all_deals)) for h0, h1 in all_deals)

    return value
