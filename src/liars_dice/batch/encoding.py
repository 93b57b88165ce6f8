"""The dense action encoding of the batched engine.

Actions are integers ``0 .. n_actions - 1``, in the style of OpenSpiel's
``liars_dice``:

* a bid of quantity ``q`` (1 .. ``max_quantity``, the dice at the table at the
  start) on face ``f`` (1 .. ``faces``) is ``(q - 1) * faces + (f - 1)``;
* the challenge is ``max_quantity * faces``;
* with show-and-reroll (seed 000), the bidder then shows dice one at a time:
  ``show(f)`` sets one hidden die of face ``f`` out in the open, and ``stop``
  ends the show (and rerolls the rest if anything was shown).

A scalar ``bid`` with ``show=(2, 5, 5)`` is the actions ``bid``, ``show(2)``,
``show(5)``, ``show(5)``, ``stop``; a bid with no show is ``bid``, ``stop``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import CHALLENGE, Action, Bid, Challenge, Rules


@dataclass(frozen=True, slots=True)
class ActionEncoding:
    """The action numbers for one rule set and table size.

    :ivar faces: faces on a die.
    :ivar max_quantity: the highest bid quantity ever legal: every die at the
        table at the start of the game.
    :ivar shows: whether show/stop actions exist (``Rules.show_and_reroll``).
    """

    faces: int
    max_quantity: int
    shows: bool

    @staticmethod
    def for_rules(rules: Rules, total_dice: int) -> "ActionEncoding":
        """The encoding for ``rules`` with ``total_dice`` dice at the table."""
        return ActionEncoding(rules.faces, total_dice, rules.show_and_reroll)

    @property
    def n_bids(self) -> int:
        return self.max_quantity * self.faces

    @property
    def challenge(self) -> int:
        """The challenge's action number."""
        return self.n_bids

    def show(self, face: int) -> int:
        """The action that shows one hidden die of ``face``."""
        return self.n_bids + face

    @property
    def stop(self) -> int:
        """The action that ends a show (and rerolls the rest when dice were shown)."""
        return self.n_bids + self.faces + 1

    @property
    def n_actions(self) -> int:
        return self.stop + 1 if self.shows else self.n_bids + 1

    def bid(self, quantity: int, face: int) -> int:
        """The action number of a bid. :raises ValueError: outside the encoding."""
        if not (1 <= quantity <= self.max_quantity and 1 <= face <= self.faces):
            raise ValueError(f"The bid {quantity}x{face} lies outside this table's encoding.")
        return (quantity - 1) * self.faces + (face - 1)

    def encode(self, action: Action) -> int:
        """The number of an engine action (a :class:`Bid` or the challenge)."""
        if isinstance(action, Challenge):
            return self.challenge
        return self.bid(action.quantity, action.face)

    def decode(self, number: int) -> Action:
        """The engine action of a bid or challenge number.

        :raises ValueError: for a show/stop number or one outside the encoding.
        """
        if 0 <= number < self.n_bids:
            q, f = divmod(number, self.faces)
            return Bid(q + 1, f + 1)
        if number == self.challenge:
            return CHALLENGE
        raise ValueError(f"Action {number} is not a bid or the challenge.")
