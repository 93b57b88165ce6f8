"""The dense action encoding of the batched engine.

Actions are integers ``0 .. n_actions - 1``, in the style of OpenSpiel's
``liars_dice``:

* a bid of quantity ``q`` (1 .. ``max_quantity``, the dice at the table at the
  start) on face ``f`` (1 .. ``faces``) is ``(q - 1) * faces + (f - 1)``;
* the challenge is ``max_quantity * faces``;
* with calza (RULES.md ``perudo``), the calza is the next number;
* with show-and-reroll (seed 000), the bidder then shows dice one at a time:
  ``show(f)`` sets one hidden die of face ``f`` out in the open, and ``stop``
  ends the show (and rerolls the rest if anything was shown).

A scalar ``bid`` with ``show=(2, 5, 5)`` is the actions ``bid``, ``show(2)``,
``show(5)``, ``show(5)``, ``stop``; a bid with no show is ``bid``, ``stop``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import CALZA, CHALLENGE, Action, Bid, Calza, Challenge, Rules


@dataclass(frozen=True, slots=True)
class ActionEncoding:
    """The action numbers for one rule set and table size.

    :ivar faces: faces on a die.
    :ivar max_quantity: the highest bid quantity ever legal: every die at the
        table at the start of the game.
    :ivar shows: whether show/stop actions exist (``Rules.show_and_reroll``).
    :ivar calza: whether the calza action exists (``Rules.calza``).
    """

    faces: int
    max_quantity: int
    shows: bool
    calza: bool = False

    @staticmethod
    def for_rules(rules: Rules, total_dice: int) -> "ActionEncoding":
        """The encoding for ``rules`` with ``total_dice`` dice at the table."""
        return ActionEncoding(rules.faces, total_dice, rules.show_and_reroll, rules.calza)

    @property
    def n_bids(self) -> int:
        return self.max_quantity * self.faces

    @property
    def challenge(self) -> int:
        """The challenge's action number."""
        return self.n_bids

    @property
    def calza_action(self) -> int:
        """The calza's action number (-1 when the rules have none)."""
        return self.n_bids + 1 if self.calza else -1

    @property
    def _show0(self) -> int:
        return self.n_bids + 1 + self.calza

    def show(self, face: int) -> int:
        """The action that shows one hidden die of ``face``."""
        return self._show0 + face - 1

    @property
    def stop(self) -> int:
        """The action that ends a show (and rerolls the rest when dice were shown)."""
        return self._show0 + self.faces

    @property
    def n_actions(self) -> int:
        return self.stop + 1 if self.shows else self._show0

    def bid(self, quantity: int, face: int) -> int:
        """The action number of a bid. :raises ValueError: outside the encoding."""
        if not (1 <= quantity <= self.max_quantity and 1 <= face <= self.faces):
            raise ValueError(f"The bid {quantity}x{face} lies outside this table's encoding.")
        return (quantity - 1) * self.faces + (face - 1)

    def encode(self, action: Action) -> int:
        """The number of an engine action (a :class:`Bid`, the challenge or the calza).

        :raises ValueError: for a bid outside the encoding or a calza without calza rules.
        """
        if isinstance(action, Challenge):
            return self.challenge
        if isinstance(action, Calza):
            if not self.calza:
                raise ValueError("These rules have no calza.")
            return self.calza_action
        return self.bid(action.quantity, action.face)

    def decode(self, number: int) -> Action:
        """The engine action of a bid, challenge or calza number.

        :raises ValueError: for a show/stop number or one outside the encoding.
        """
        if 0 <= number < self.n_bids:
            q, f = divmod(number, self.faces)
            return Bid(q + 1, f + 1)
        if number == self.challenge:
            return CHALLENGE
        if self.calza and number == self.calza_action:
            return CALZA
        raise ValueError(f"Action {number} is not a bid, the challenge or the calza.")
