"""Run a whole game: the one loop shared by ``play`` (a person's game and
``--watch``), the arena, the benchmarks and the tests.

Layer: match, above bots; imports engine and bots only."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .bots.base import Bot
from .engine import DiceSource, FairRounds, Game, State


def play_game(
    game: Game,
    bots: Sequence[Bot],
    dice: DiceSource | FairRounds,
    start: int = 0,
    on_state: Callable[[State], None] | None = None,
    max_moves: int = 100_000,
    on_transition: Callable[[State, State], None] | None = None,
) -> State:
    """Play ``game`` to the end with ``bots[seat]`` choosing for each seat.

    Each player sees only its seat's view: ``bots[seat].decide(state.view(seat))``.
    A person is a player like any other (``liars-dice play`` seats one that
    asks at the prompt). Moves go through the checked :meth:`State.apply`, so
    a bot that returns an illegal move raises
    :class:`~liars_dice.engine.IllegalActionError`.

    :param dice: where the deals and rerolls come from: any dice source, or
        :class:`~liars_dice.engine.FairRounds` (provably fair dice, a fresh
        round seed per deal, ``docs/fair-dice.md``).
    :param on_state: called with every state after a transition (for display).
    :param on_transition: called with the state before and after every
        transition (a roll, a reroll, a bid, a challenge), after ``on_state``.
        An exception it raises (a person quitting) ends the game there.
    :returns: the final state (``state.winner`` is set).
    :raises RuntimeError: if the game exceeds ``max_moves`` (never in a legal game).
    """
    state = game.initial_state(start)
    for _ in range(max_moves):
        if state.is_over:
            return state
        before = state
        if state.is_chance:
            state = state.roll(dice.source(state) if isinstance(dice, FairRounds) else dice)
        else:
            seat = state.to_move
            assert seat is not None
            d = bots[seat].decide(state.view(seat))
            state = state.apply(d.action, d.show, seat=seat)
        if on_state is not None:
            on_state(state)
        if on_transition is not None:
            on_transition(before, state)
    raise RuntimeError(f"The game did not end within {max_moves} moves.")
