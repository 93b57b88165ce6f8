"""The one bot interface: a :class:`~liars_dice.engine.SeatView` in, a
:class:`Decision` out. A bot never sees more than its seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable

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
