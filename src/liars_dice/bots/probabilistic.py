"""``probabilistic``: bids and challenges by the binomial chance that a bid is true.

The chance comes from :mod:`liars_dice.engine.odds`: the seat's own hidden dice
and every shown die are counted, every other die is an independent fair roll
that matches with probability ``(1 + wild) / faces``. The wild rules in force
are the engine's (:meth:`~liars_dice.engine.Rules.matches`), including the
classic suspension (seed 004 "One's Are Wild!"): once a round has opened on
the wild face wilds do not count, and an opening bid is judged with the
suspension its own face would cause. Raises are enumerated from the rules
(:meth:`~liars_dice.engine.Rules.min_raise_quantity`), so the ``wild-stars``
track and the ``aces-wild`` half/double conversions are respected.

Policy, for the seat to move:

1. A current bid with chance ``p`` below ``challenge_below`` is challenged
   (a bid that cannot be true, ``p == 0``, always; a certain one, ``p == 1``,
   never).
2. Otherwise the bot looks at the cheapest raise on each face and keeps the
   most likely ones (within ``tie_margin`` of the best; a seeded choice among
   them). If even the best raise is less likely than ``plausible`` and the
   current bid is more likely false than that raise true, it challenges.
3. An opening bid is, for each face, the highest quantity whose chance is at
   least ``open_at``; the bot opens on the face that allows the highest bid.
4. Under show-and-reroll (seed 000 "The Show and Reroll Rule") the bot, after
   its bid, shows the hidden dice that match the bid and rerolls the rest
   when that raises the bid's chance by at least ``show_gain``. With no
   matching die it may show one die to reroll the others. Showing matches
   can only help the bid: a shown match keeps counting, and a rerolled
   non-match becomes a match with probability ``p`` instead of 0.

5. Under the ``calza`` option (RULES.md ``perudo``) the bot calls calza when
   its expected dice from the calza, ``gain * P(exact) - P(not exact)``
   (``gain`` is 1 below the starting count, else 0), beats the expected loss
   of its best other move (``P(bid true)`` for a challenge, ``raise_risk *
   (1 - P(raise true))`` for the likeliest raise) by ``calza_margin``.
6. Raises and openings are the legal ones (``view.legal_actions()``), so a
   palifico round's fixed face and the perudo rule against opening on pacos
   hold; in a palifico round wilds count for nothing, the opening included.

The default thresholds were chosen by self-play, two seats of a variant
against two of the previous defaults over 400 seeded 4-player games per
preset: challenging below 0.25 and opening at 0.6 won 59%, 54% and 57%
(wild-stars, aces-wild, classic) against challenging below 0.35 and opening
at 0.5; showing only for a gain of 0.15 won 57.5% in wild-stars against
showing for any gain of 0.02.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine import (
    CALZA,
    CHALLENGE,
    Action,
    Bid,
    Hand,
    SeatView,
    bid_probability,
    exact_probability,
)
from .base import Decision, Probabilities, register


class ProbabilisticBot:
    """A threshold player over binomial bid chances. Reproducible from ``seed``.

    :param seed: seeds the choice among near-equal raises (``None`` = unseeded).
    :param challenge_below: challenge a current bid whose chance is below this.
    :param plausible: a raise at least this likely is always preferred to a challenge.
    :param open_at: the least chance an opening bid may have.
    :param tie_margin: raises whose chance is within this of the best are near-equal.
    :param show_gain: the least gain in the bid's chance that makes a show worth it.
    :param calza_margin: how much better (in expected dice) a calza must be than
        the best other move.
    :param raise_risk: the share of a false raise's loss counted when weighing a
        calza (a false raise costs a die only when it is challenged).
    """

    name = "probabilistic"

    def __init__(
        self,
        seed: int | None = None,
        *,
        challenge_below: float = 0.25,
        plausible: float = 0.5,
        open_at: float = 0.6,
        tie_margin: float = 0.03,
        show_gain: float = 0.15,
        calza_margin: float = 0.0,
        raise_risk: float = 0.5,
    ) -> None:
        self._rng = random.Random(seed)
        self.challenge_below = challenge_below
        self.plausible = plausible
        self.open_at = open_at
        self.tie_margin = tie_margin
        self.show_gain = show_gain
        self.calza_margin = calza_margin
        self.raise_risk = raise_risk

    # -- chances ------------------------------------------------------------

    @staticmethod
    def _wilds_for(view: SeatView, bid: Bid) -> bool:
        """Whether wilds count for ``bid``: this round's rule (none in a palifico
        round), or for an opening bid the rule its own face would set (seed 004)."""
        if view.bids or view.palifico:
            return view.wilds_active
        return view.rules.wilds_active_after_opening(bid.face)

    def chance(self, view: SeatView, bid: Bid) -> float:
        """Chance that ``bid`` is true from ``view``'s knowledge (its hand, every shown die)."""
        seen = view.hand + tuple(d for h in view.shown for d in h)
        return bid_probability(view.rules, bid, seen, view.unknown_dice, self._wilds_for(view, bid))

    def chance_after_show(self, view: SeatView, bid: Bid, show: Hand) -> float:
        """Chance that ``bid`` is true if the bot shows ``show`` from its hand and
        rerolls the rest of its hidden dice (before seeing the reroll)."""
        if not show:
            return self.chance(view, bid)
        seen = show + tuple(d for h in view.shown for d in h)
        rerolled = len(view.hand) - len(show)
        return bid_probability(view.rules, bid, seen, view.unknown_dice + rerolled, self._wilds_for(view, bid))

    # -- decisions ----------------------------------------------------------

    def exact_chance(self, view: SeatView, bid: Bid) -> float:
        """Chance that the count of ``bid`` is exactly its quantity (a right calza)."""
        seen = view.hand + tuple(d for h in view.shown for d in h)
        return exact_probability(view.rules, bid, seen, view.unknown_dice, self._wilds_for(view, bid))

    def decide(self, view: SeatView) -> Decision:
        options = self._options(view)
        pick = options[0] if len(options) == 1 else self._rng.choice(options)
        return Decision(pick.action, self.show_for(view, pick.action)) if isinstance(pick.action, Bid) else pick

    def action_probabilities(self, view: SeatView) -> Probabilities:
        """The decisions :meth:`decide` chooses among, equally likely (one
        decision with probability 1 where the thresholds leave one; the
        near-equal raises or openings of steps 2 and 3 otherwise), each bid
        with its show (step 4)."""
        options = self._options(view)
        out: Probabilities = {}
        for d in options:
            move = Decision(d.action, self.show_for(view, d.action)) if isinstance(d.action, Bid) else d
            out[move] = out.get(move, 0.0) + 1.0 / len(options)
        return out

    def _options(self, view: SeatView) -> list[Decision]:
        """The equally likely decisions of this view (shows not yet chosen)."""
        cur = view.current_bid
        legal = view.legal_actions()
        if cur is None:
            return [Decision(b) for b in self._opening_options(view, legal)]
        p_cur = self.chance(view, cur)
        raises: list[tuple[float, Bid]] = []
        seen_faces: set[int] = set()
        for b in legal:  # the cheapest legal raise on each face
            if isinstance(b, Bid) and b.face not in seen_faces:
                seen_faces.add(b.face)
                raises.append((self.chance(view, b), b))
        raises.sort(key=lambda pb: pb[1].face)
        best = max((p for p, _ in raises), default=0.0)
        if CALZA in legal:
            start = view.start_dice[view.seat] if view.start_dice else view.rules.dice_per_player
            gain = 1.0 if view.dice[view.seat] < start else 0.0
            p_exact = self.exact_chance(view, cur)
            # expected dice lost otherwise: a challenge loses when the bid is
            # true; a raise only when it is false and then challenged (about half)
            other = min(p_cur, self.raise_risk * (1.0 - best)) if raises else p_cur
            if gain * p_exact - (1.0 - p_exact) > -other + self.calza_margin:
                return [Decision(CALZA)]
        if p_cur < 1.0 and p_cur < self.challenge_below:
            return [Decision(CHALLENGE)]
        if not raises:  # the bid is at the top of the track: nothing left but to call it
            return [Decision(CHALLENGE)]
        if p_cur < 1.0 and best < self.plausible and 1.0 - p_cur > best:
            return [Decision(CHALLENGE)]
        return [Decision(b) for p, b in raises if p >= best - self.tie_margin]

    def _opening_options(self, view: SeatView, legal: list[Action]) -> list[Bid]:
        """The highest bid on each face with chance >= ``open_at``; the face that
        allows the highest-ranked such bid (the bids within one rank step of
        it, for a seeded choice among them). Only faces the rules let open (``legal``)."""
        rules = view.rules
        n = view.dice_in_play
        faces = sorted({b.face for b in legal if isinstance(b, Bid)})
        rank: Callable[[int, int], int]
        if view.palifico:  # a palifico round: plain order
            rank = lambda q, f: (q - 1) * rules.faces + f - 1  # noqa: E731
        else:
            rank = rules.rank
        options: list[tuple[int, Bid]] = []
        for face in faces:
            q = 0
            while q < n and self.chance(view, Bid(q + 1, face)) >= self.open_at:
                q += 1
            if q:
                options.append((rank(q, face), Bid(q, face)))
        if not options:  # nothing is even odds: open on the likeliest single die
            best = max(faces, key=lambda f: self.chance(view, Bid(1, f)))
            return [Bid(1, best)]
        top = max(r for r, _ in options)
        # near-equal: within one rank step of the top, for a little variety
        near = [b for r, b in options if r >= top - 1]
        return near

    def show_for(self, view: SeatView, bid: Bid) -> Hand:
        """The dice to show with ``bid`` (``()`` for none), one of ``view.legal_shows()``:
        see the module docstring, step 4."""
        if not view.rules.show_and_reroll or len(view.hand) < 2:
            return ()
        wilds = self._wilds_for(view, bid)
        matching = tuple(sorted(d for d in view.hand if view.rules.matches(d, bid.face, wilds)))
        if len(matching) == len(view.hand):
            return ()  # every hidden die already counts; a reroll could only lose some
        show = matching if matching else (max(view.hand),)
        if self.chance_after_show(view, bid, show) >= self.chance(view, bid) + self.show_gain:
            return show
        return ()


@register("probabilistic")
def _factory(seed: int | None = None) -> ProbabilisticBot:
    return ProbabilisticBot(seed)
