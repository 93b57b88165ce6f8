"""The one bot interface: a :class:`~liars_dice.engine.SeatView` in, a
:class:`Decision` out. A bot never sees more than its seat's view.

A bot may also give its move probabilities, ``action_probabilities(view) ->
{Decision: probability}``, as OpenSpiel's policies do
(``open_spiel.python.policy.Policy.action_probabilities``): the distribution
its ``decide`` samples from. Measurements read that (the OpenSpiel wrapper,
``liars-dice exploitability``), never one sampled move per information state.
:func:`action_probabilities` asks any bot, with a fallback for bots that
cannot answer (a program over the bot protocol).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

from ..engine import Action, Hand, LiarsDiceError, SeatView


class UnknownBotError(LiarsDiceError):
    """A bot name that is not registered. ``code`` ``"bot/unknown"``."""

    code = "bot/unknown"


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's move: an action, and for a bid under show-and-reroll the faces to show."""

    action: Action
    show: Hand = ()


@runtime_checkable
class Bot(Protocol):
    """Anything with a ``name`` and ``decide(view) -> Decision``.

    ``decide`` is called only when ``view.my_turn`` is true and must return a
    legal action (one of ``view.legal_actions()``) and a show from
    ``view.legal_shows()``.
    """

    name: str

    def decide(self, view: SeatView) -> Decision: ...


#: A bot's mixed move: each decision it may take to its probability (the
#: values sum to 1; a decision left out has probability 0).
Probabilities = dict[Decision, float]


@runtime_checkable
class MixedBot(Bot, Protocol):
    """A bot that also gives the distribution its ``decide`` samples from.

    ``action_probabilities(view)`` is called only when ``view.my_turn`` is
    true; every key is a legal decision (an action of ``view.legal_actions()``
    with a show of ``view.legal_shows()``), the values are at least 0 and sum
    to 1. A bot that plays a pure strategy somewhere gives probability 1 there.
    """

    def action_probabilities(self, view: SeatView) -> Probabilities: ...


def action_probabilities(bot: Bot, view: SeatView) -> Probabilities:
    """``bot``'s move probabilities at ``view`` (a :class:`MixedBot`'s own),
    or, for a bot without them (a program over the bot protocol, a plugin),
    probability 1 on one ``decide(view)``: a sample, which is the policy only
    for a bot that plays a pure strategy.

    >>> from liars_dice.engine import Game, Rules, SeededDice
    >>> state = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state().roll(SeededDice(2))
    >>> probs = action_probabilities(make_bot("random", seed=1), state.view(0))
    >>> len(probs) == len(state.legal_actions()), round(sum(probs.values()), 9)
    (True, 1.0)
    """
    if isinstance(bot, MixedBot):
        return bot.action_probabilities(view)
    return {bot.decide(view): 1.0}


def sample(probs: Mapping[Decision, float], rng: random.Random) -> Decision:
    """One decision drawn from ``probs`` with ``rng`` (no draw when one decision has it all).

    :raises ValueError: for an empty distribution or one without positive weight.
    """
    moves = [d for d, p in probs.items() if p > 0]
    if not moves:
        raise ValueError("A bot gave no move with a positive probability.")
    if len(moves) == 1:
        return moves[0]
    return rng.choices(moves, weights=[probs[d] for d in moves])[0]


def as_moves(probs: Mapping[Decision, float]) -> dict[Any, float]:
    """``probs`` in the solver's move form (:data:`liars_dice.solver.best_response.Move`):
    an action for a decision without a show, ``(action, show)`` with one."""
    out: dict[Any, float] = {}
    for d, p in probs.items():
        key: Any = (d.action, tuple(sorted(d.show))) if d.show else d.action
        out[key] = out.get(key, 0.0) + float(p)
    return out


def policy_fn(bot: Bot) -> Callable[[SeatView], dict[Any, float]]:
    """``bot`` as a policy function of the solver
    (:data:`liars_dice.solver.PolicyFn`): a view to the probabilities of
    :func:`action_probabilities`, in the solver's move form (:func:`as_moves`)."""

    def fn(view: SeatView) -> dict[Any, float]:
        return as_moves(action_probabilities(bot, view))

    return fn


#: Bot factories by name; each takes a seed (``None`` = unseeded).
REGISTRY: dict[str, Callable[[int | None], Bot]] = {}


def register(name: str) -> Callable[[Callable[[int | None], Bot]], Callable[[int | None], Bot]]:
    """Decorator: make a bot factory available to :func:`make_bot` under ``name``."""

    def deco(factory: Callable[[int | None], Bot]) -> Callable[[int | None], Bot]:
        REGISTRY[name] = factory
        return factory

    return deco


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A new bot of kind ``name``.

    :raises UnknownBotError: for an unknown bot name; the message lists the known ones.

    >>> from liars_dice.engine import Game, Rules, SeededDice
    >>> state = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state().roll(SeededDice(2))
    >>> decision = make_bot("probabilistic", seed=1).decide(state.view(0))
    >>> decision.action in state.legal_actions()
    True
    >>> make_bot("grandmaster")
    Traceback (most recent call last):
    ...
    liars_dice.bots.base.UnknownBotError: There is no bot called 'grandmaster'; choose from ..., random, ...
    """
    try:
        factory = REGISTRY[name]
    except KeyError:
        raise UnknownBotError(f"There is no bot called {name!r}; choose from {', '.join(sorted(REGISTRY))}.") from None
    return factory(seed)
