"""One fixed, dense integer action space per (rules, seats, starting dice).

Every integration (OpenSpiel, PettingZoo, Gymnasium) and the batched numpy
engine number actions the same way, so a policy trained in one runs in the
others. The space depends only on the rules, the number of seats and their
starting dice, never on the position: a legal-action mask is a boolean vector
of length :attr:`ActionEncoding.num_actions`.

Layout, with ``F = rules.faces`` and ``N = sum(most_dice(rules, starting
dice))`` (the most dice that can ever be in play: a player never holds more
than their starting count, or under calza the rule set's dice per player,
seed rules and RULES.md ``perudo`` "never beyond the starting count" with its
ruling of 2026-12-01; :func:`~liars_dice.engine.state.most_dice`):

===============================  ==============================================
ids                              meaning
===============================  ==============================================
``0 .. N*F - 1``                 the bid ``(q, f)`` is ``(q - 1) * F + (f - 1)``
``N*F``                          the challenge ("liar", "dudo")
``N*F + 1`` (only with calza)    calza: the count is exactly the latest bid
next ``S`` ids (show-and-reroll) a show: the multiset of faces set out after a
                                 bid, ``()`` (show nothing) first
===============================  ==============================================

The bid numbering is OpenSpiel's ``liars_dice`` (``liars_dice.cc``: quantity-major,
face-minor, the challenge right after the last bid), so for the ``openspiel``
preset the ids are the C++ game's ids move by move. For the plain ordering an
id's order is the bid order; for the track ordering (seed 000 "bidding track")
it is not, so a legal set there is not a contiguous range of ids.

Shows (seed 000 "The Show and Reroll Rule") are a second decision by the same
seat right after its bid: the bid id first, then one show id. The show ids
enumerate every multiset of faces with 0 to ``D - 1`` dice, ``D = max(most_dice(rules,
starting dice))`` (a show leaves at least one die hidden), ordered by size, then
lexicographically, the order of :func:`liars_dice.engine.state.legal_shows`. A
show decision is asked only when the bidder has a choice, i.e. holds at least
two hidden dice; with one hidden die the only show is ``()`` and the bid stands
alone. For ``D = 5`` and ``F = 6`` there are 210 show ids.

>>> from liars_dice.engine import Rules, Bid, CHALLENGE
>>> enc = ActionEncoding.create(Rules.preset("openspiel"), 2, 1)
>>> enc.num_actions, enc.encode(Bid(1, 1)), enc.encode(Bid(2, 6)), enc.encode(CHALLENGE)
(13, 0, 11, 12)
>>> enc.decode(7)
Bid(quantity=2, face=2)
>>> ws = ActionEncoding.create(Rules.preset("wild-stars"), 2, 5)
>>> ws.num_actions, ws.decode(ws.show_offset), ws.decode(ws.show_offset + 1)
(271, Show(faces=()), Show(faces=(1,)))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from math import comb
from typing import NamedTuple, Union

from .actions import CALZA, CHALLENGE, Action, Bid, Calza, Challenge
from .errors import RulesError
from .rules import Rules
from .state import Hand, Phase, State, legal_shows, most_dice

#: Most action ids one encoding may have; bounds memory for masks and tables.
MAX_ACTIONS = 1 << 16


class Show(NamedTuple):
    """A show as an action: the faces set out right after a bid (sorted
    ascending; ``()`` shows nothing). Seed 000 "The Show and Reroll Rule"."""

    faces: Hand


# The calza is the engine's own action (RULES.md ``perudo`` "Calza"), so a
# decoded calza id can be applied to a State as it is.

Decoded = Union[Bid, Challenge, Calza, Show]


@dataclass(frozen=True)
class ActionEncoding:
    """The action space of one (rules, seats, starting dice). Immutable; build
    one with :meth:`create`.

    :ivar rules: the rule set.
    :ivar n_players: seats.
    :ivar dice: starting dice per seat.
    :ivar faces: ``F``, faces on a die.
    :ivar max_dice: ``N``, the most dice ever in play (the highest bid quantity).
    :ivar challenge: the challenge's id, ``N*F``.
    :ivar calza: calza's id, or ``None`` when the rules have no calza.
    :ivar show_offset: the id of the empty show, or ``None`` without show-and-reroll.
    :ivar shows: every show in id order (empty without show-and-reroll).
    :ivar num_actions: ids run from 0 to ``num_actions - 1``.
    """

    rules: Rules
    n_players: int
    dice: tuple[int, ...]
    faces: int = field(init=False)
    max_dice: int = field(init=False)
    challenge: int = field(init=False)
    calza: int | None = field(init=False)
    show_offset: int | None = field(init=False)
    shows: tuple[Hand, ...] = field(init=False)
    num_actions: int = field(init=False)
    _show_ids: dict[Hand, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        f = self.rules.faces
        top = most_dice(self.rules, self.dice)
        n = sum(top)
        nxt = n * f + 1
        calza: int | None = None
        if self.rules.calza:
            calza, nxt = nxt, nxt + 1
        shows: tuple[Hand, ...] = ()
        offset: int | None = None
        if self.rules.show_and_reroll:
            offset = nxt
            # multisets of 0 .. D-1 faces out of F: C(F + D - 1, D - 1), counted before building
            nxt += comb(f + max(top) - 1, max(top) - 1)
        if nxt > MAX_ACTIONS:
            raise RulesError(
                f"This game would need {nxt} action ids, more than the {MAX_ACTIONS} an encoding may have; "
                "use fewer dice."
            )
        if offset is not None:
            shows = tuple(
                combo for k in range(max(top)) for combo in combinations_with_replacement(range(1, f + 1), k)
            )
        object.__setattr__(self, "faces", f)
        object.__setattr__(self, "max_dice", n)
        object.__setattr__(self, "challenge", n * f)
        object.__setattr__(self, "calza", calza)
        object.__setattr__(self, "show_offset", offset)
        object.__setattr__(self, "shows", shows)
        object.__setattr__(self, "num_actions", nxt)
        object.__setattr__(self, "_show_ids", {s: i for i, s in enumerate(shows)})

    @staticmethod
    def create(rules: Rules, players: int, dice: int | Sequence[int] | None = None) -> "ActionEncoding":
        """The encoding for ``players`` seats with ``dice`` each (default the
        rules' ``dice_per_player``), or a sequence of starting dice per seat.

        :raises RulesError: for a seat count outside the rules' bounds, a
            starting count below 1 or above 100, or more than :data:`MAX_ACTIONS` ids.
        """
        if not isinstance(players, int) or isinstance(players, bool):
            raise RulesError(f"The number of players must be a whole number, not {players!r}.")
        if not rules.min_players <= players <= rules.max_players:
            raise RulesError(
                f"{rules.name} is played by {rules.min_players} to {rules.max_players} players, not {players}."
            )
        if dice is None:
            dice = rules.dice_per_player
        counts = (dice,) * players if isinstance(dice, int) else tuple(dice)
        if len(counts) != players or any(
            not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 100 for d in counts
        ):
            raise RulesError(f"Each of the {players} seats needs a whole number of dice from 1 to 100.")
        return ActionEncoding(rules, players, counts)

    @staticmethod
    def for_game(state: State) -> "ActionEncoding":
        """The encoding of the game ``state`` belongs to (its starting dice)."""
        game = state.game
        return ActionEncoding.create(game.rules, game.n_players, game.dice)

    # -- ids ----------------------------------------------------------------

    @property
    def num_bids(self) -> int:
        """``N*F``: bid ids are ``0 .. num_bids - 1``."""
        return self.challenge

    def bid_id(self, quantity: int, face: int) -> int:
        """``(quantity - 1) * F + (face - 1)``.

        :raises ValueError: for a quantity outside 1..N or a face outside 1..F.
        """
        if not (1 <= quantity <= self.max_dice and 1 <= face <= self.faces):
            raise ValueError(f"{quantity}x{face} is no bid of a game with {self.max_dice} dice of {self.faces} faces.")
        return (quantity - 1) * self.faces + (face - 1)

    def show_id(self, faces: Iterable[int]) -> int:
        """The id of the show of ``faces`` (any order).

        :raises ValueError: when the rules have no show-and-reroll, or no
            seat could show that many dice or those faces.
        """
        key = tuple(sorted(faces))
        if self.show_offset is None:
            raise ValueError(f"{self.rules.name} has no show-and-reroll, so no show has an id.")
        i = self._show_ids.get(key)
        if i is None:
            raise ValueError(f"{list(key)} is not a show of this game.")
        return self.show_offset + i

    def encode(self, action: Action | Decoded) -> int:
        """The id of a bid, the challenge, calza, or a :class:`Show`.

        :raises ValueError: for anything else, or a bid outside the game.
        """
        if isinstance(action, Bid):
            return self.bid_id(action.quantity, action.face)
        if isinstance(action, Challenge):
            return self.challenge
        if isinstance(action, Show):
            return self.show_id(action.faces)
        if isinstance(action, Calza):
            if self.calza is None:
                raise ValueError(f"{self.rules.name} has no calza.")
            return self.calza
        raise ValueError(f"{action!r} is not an action of this game.")

    def decode(self, action_id: int) -> Decoded:
        """The meaning of an id: a :class:`Bid`, :data:`CHALLENGE`, :data:`CALZA`
        or a :class:`Show`.

        :raises ValueError: for an id outside ``0 .. num_actions - 1``.
        """
        if not isinstance(action_id, int) or not 0 <= action_id < self.num_actions:
            raise ValueError(f"{action_id!r} is not an action id (0 to {self.num_actions - 1}).")
        if action_id < self.challenge:
            q, f = divmod(action_id, self.faces)
            return Bid(q + 1, f + 1)
        if action_id == self.challenge:
            return CHALLENGE
        if action_id == self.calza:
            return CALZA
        assert self.show_offset is not None
        return Show(self.shows[action_id - self.show_offset])

    def is_show(self, action_id: int) -> bool:
        """Whether ``action_id`` is a show id."""
        return self.show_offset is not None and action_id >= self.show_offset

    # -- legal sets -----------------------------------------------------------

    def legal_ids(self, state: State) -> list[int]:
        """Ids of the bids, challenge and calza legal in ``state``, ascending;
        ``[]`` unless the state waits for a bid (:attr:`Phase.BID`). Shows are
        asked separately, after the bid: :meth:`legal_show_ids`."""
        if state.phase is not Phase.BID:
            return []
        out = []
        f = self.faces
        challenge = self.challenge
        for a in state.legal_actions():
            if isinstance(a, Bid):
                out.append((a.quantity - 1) * f + a.face - 1)
            elif isinstance(a, Challenge):
                out.append(challenge)
            else:
                out.append(self.encode(a))
        out.sort()
        return out

    def legal_show_ids(self, hidden: Hand) -> list[int]:
        """Ids of the shows a bidder holding ``hidden`` may make, ascending;
        ``[]`` when there is no choice to make (no show-and-reroll, or fewer
        than two hidden dice): the bid then stands without a show decision."""
        if self.show_offset is None or len(hidden) < 2:
            return []
        return sorted(self.show_id(s) for s in legal_shows(tuple(hidden)))

    def mask(self, ids: Iterable[int]) -> list[int]:
        """A 0/1 list of length :attr:`num_actions` with ones at ``ids``."""
        out = [0] * self.num_actions
        for i in ids:
            out[i] = 1
        return out
