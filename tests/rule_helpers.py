"""Small helpers for the rule tests: set up a round with known dice and play moves.

Moves are written in the bid notation people type (``"4x5"``, ``"3*"``,
``"liar"``), optionally with a show: ``("11x6", [6, 1])``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from liars_dice.engine import Game, Rules, State, parse_action


def new_round(
    preset: str | Rules,
    hands: Mapping[str, Sequence[int]],
    start: str | None = None,
    dice: Mapping[str, int] | None = None,
) -> State:
    """A game whose seats are ``hands``' keys in order, dealt those faces.

    ``dice`` gives starting counts; by default each seat holds ``len(hand)``
    dice (an empty hand means the seat is out).
    """
    rules = Rules.preset(preset) if isinstance(preset, str) else preset
    names = list(hands)
    counts = dict(dice) if dice is not None else {n: len(h) for n, h in hands.items()}
    game = Game.create(rules, names, counts)
    state = game.initial_state(names.index(start) if start else 0)
    return state.deal([list(hands[n]) for n in names])


def play(state: State, *moves: str | tuple[str, Sequence[int]] | tuple[str, Sequence[int], Sequence[int]]) -> State:
    """Apply moves in turn order through the checked :meth:`State.apply`.

    A move is notation text, ``(text, show)`` (the reroll comes from the
    shown dice's complement unchanged), or ``(text, show, reroll)``.
    """
    for move in moves:
        if isinstance(move, str):
            state = state.apply(parse_action(move))
            continue
        text, show, *rest = move
        state = state.apply(parse_action(text), tuple(show))
        seat = state.to_move
        assert seat is not None
        reroll = rest[0] if rest else state.hidden[seat]
        state = state.reroll(tuple(reroll))
    return state


def seat(state: State, name: str) -> int:
    return state.game.players.index(name)


def lost_by_name(state: State, round_index: int = -1) -> dict[str, int]:
    """The dice lost per name in a finished round (only non-zero entries)."""
    r = state.results[round_index]
    return {state.game.players[s]: k for s, k in enumerate(r.lost) if k}
