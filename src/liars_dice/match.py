"""Run a whole game between bots: the loop shared by ``play --watch``, the
arena, the benchmarks and the tests.

Layer: match, above bots; imports engine and bots only."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .bots.base import Bot
from .engine import DiceSource, Game, State


def play_game(
    game: Game,
    bots: Sequence[Bot],
    dice: DiceSource,
    start: int = 0,
    on_state: Callable[[State], None] | None = None,
    max_moves: int = 100_000,
) -> State:
    """Play ``game`` to the end with ``bots[seat]`` choosing for each seat.

    Each bot sees only its seat's view. Moves go through the checked
    :meth:`State.apply`, so a bot that returns an illegal move raises
    :class:`~liars_dice.engine.IllegalActionError`.

    :param on_state: called with every state after a transition (for display).
    :returns: the final state (``state.winner`` is set).
    :raises RuntimeError: if the game exceeds ``max_moves`` (never in a legal game).
    """
    state = game.initial_state(start)
    for _ in range(max_moves):
        if state.is_over:
            return state
        if state.is_chance:
            state = state.roll(dice)
        else:
            seat = state.to_move
            assert seat is not None
            d = bots[seat].decide(state.view(seat))
            state = state.apply(d.action, d.show, seat=seat)
        if on_state is not None:
            on_state(state)
    raise RuntimeError(f"The game did not end within {max_moves} moves.")
