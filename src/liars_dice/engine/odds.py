"""Chance that a bid is true from one seat's knowledge.

Counts the matching dice the seat can see (its own hidden dice and every shown
die) and treats every unseen die as an independent fair roll: the chance that
at least ``quantity - seen`` of ``unseen`` dice match is a binomial tail with
per-die match probability ``p = (1 + wild) / faces``, where ``wild`` is 1 when
wilds count for that face this round (including the classic suspension, seed
004) and 0 otherwise.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, exp, lgamma, log, log1p
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .actions import Bid
from .rules import Rules

if TYPE_CHECKING:  # view.py imports this module
    from .view import SeatView


@lru_cache(maxsize=65536)
def binomial_tail(n: int, k: int, p: float) -> float:
    """P[X >= k] for X ~ Binomial(n, p). 1.0 for k <= 0, 0.0 for k > n.

    >>> binomial_tail(3, 2, 0.5), binomial_tail(3, 0, 0.5), binomial_tail(3, 4, 0.5)
    (0.5, 1.0, 0.0)
    """
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return sum(binomial_pmfs(n, p)[k:])


@lru_cache(maxsize=65536)
def binomial_pmf(n: int, k: int, p: float) -> float:
    """P[X == k] for X ~ Binomial(n, p). 0.0 outside 0..n."""
    if not 0 <= k <= n:
        return 0.0
    return _term(n, k, p)


#: Most dice for which a binomial term is ``comb(n, k) * p**k * (1 - p)**(n - k)``
#: in floats; above it ``comb`` outgrows a float (from n = 1,030 at k = n / 2) and
#: the term is computed from logarithms (a bot-protocol request may hold 6,400 dice).
EXACT_TERMS_MAX_N = 1000


def _term(n: int, k: int, p: float) -> float:
    if n <= EXACT_TERMS_MAX_N:
        return comb(n, k) * p**k * (1 - p) ** (n - k)
    if p <= 0.0 or p >= 1.0:
        return float(k == (n if p >= 1.0 else 0))
    return exp(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * log(p) + (n - k) * log1p(-p))


@lru_cache(maxsize=1024)
def binomial_pmfs(n: int, p: float) -> tuple[float, ...]:
    """``P[X == k]`` for ``k = 0..n``, X ~ Binomial(n, p): a tuple of ``n + 1`` floats,
    finite for any ``n`` (from logarithms above :data:`EXACT_TERMS_MAX_N` dice).

    >>> binomial_pmfs(2, 0.5)
    (0.25, 0.5, 0.25)
    """
    return tuple(_term(n, k, p) for k in range(n + 1))


def match_probability(rules: Rules, face: int, wilds_active: bool) -> float:
    """Chance that one unseen fair die counts toward a bid on ``face``."""
    wild = wilds_active and rules.wild_face is not None and face != rules.wild_face
    return (2 if wild else 1) / rules.faces


def bid_probability(
    rules: Rules,
    bid: Bid,
    seen: tuple[int, ...],
    unseen: int,
    wilds_active: bool | None = None,
) -> float:
    """Chance that ``bid`` is true given the visible faces ``seen`` and
    ``unseen`` unknown fair dice.

    :param wilds_active: whether wilds count this round; ``None`` means the bid
        would open the round, so the classic suspension applies to its own face.
    :returns: a probability in [0, 1].

    Holding 5, 1 and 2 (the 1 is wild), three 5s need one more 5 or 1 among
    five unseen dice, each a match with chance 1/3:

    >>> from liars_dice.engine import Bid, Rules
    >>> p = bid_probability(Rules.preset("classic"), Bid(3, 5), (5, 1, 2), 5)
    >>> round(p, 4), round(1 - (2 / 3) ** 5, 4)
    (0.8683, 0.8683)
    """
    if wilds_active is None:
        wilds_active = rules.wilds_active_after_opening(bid.face)
    have = sum(1 for d in seen if rules.matches(d, bid.face, wilds_active))
    return binomial_tail(unseen, bid.quantity - have, match_probability(rules, bid.face, wilds_active))


def exact_probability(
    rules: Rules,
    bid: Bid,
    seen: tuple[int, ...],
    unseen: int,
    wilds_active: bool,
) -> float:
    """Chance that the count of ``bid`` is exactly its quantity (a right
    calza, RULES.md ``perudo``) given the visible faces ``seen`` and ``unseen``
    unknown fair dice. :returns: a probability in [0, 1]."""
    have = sum(1 for d in seen if rules.matches(d, bid.face, wilds_active))
    return binomial_pmf(unseen, bid.quantity - have, match_probability(rules, bid.face, wilds_active))


def view_bid_probability(view: SeatView, bid: Bid | None = None) -> float:
    """:func:`bid_probability` from a :class:`~liars_dice.engine.view.SeatView`;
    ``bid`` defaults to the current bid. A bid considered before the opening
    bid gets the opening's wild rule (none in a palifico round).

    :raises ValueError: when no ``bid`` is given and none stands yet.
    """
    bid = bid or view.current_bid
    if bid is None:
        raise ValueError("There is no bid to weigh: none is given and none stands yet.")
    seen = view.hand + tuple(d for h in view.shown for d in h)
    wilds = view.wilds_active if view.bids or view.palifico else None
    return bid_probability(view.rules, bid, seen, view.unknown_dice, wilds)


def view_bid_probabilities(view: SeatView, bids: Sequence[Bid]) -> list[float]:
    """:func:`view_bid_probability` of each of ``bids`` (every legal raise, for
    a seat's menu), sharing the work: the seen dice are gathered once, and the
    count of seen matches and the chance of a match once per face.

    >>> from liars_dice.engine import Bid, Game, Rules
    >>> s = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state().deal([[2, 3, 3, 5, 6], [1, 3, 4, 4, 6]])
    >>> v = s.view(0)
    >>> bids = [Bid(2, 3), Bid(4, 3), Bid(2, 5)]
    >>> view_bid_probabilities(v, bids) == [view_bid_probability(v, b) for b in bids]
    True
    """
    rules = view.rules
    seen = view.hand + tuple(d for h in view.shown for d in h)
    wilds = view.wilds_active if view.bids or view.palifico else None
    unseen = view.unknown_dice
    per_face: dict[int, tuple[int, float]] = {}
    out: list[float] = []
    for bid in bids:
        known = per_face.get(bid.face)
        if known is None:
            w = rules.wilds_active_after_opening(bid.face) if wilds is None else wilds
            have = sum(1 for d in seen if rules.matches(d, bid.face, w))
            known = per_face[bid.face] = (have, match_probability(rules, bid.face, w))
        out.append(binomial_tail(unseen, bid.quantity - known[0], known[1]))
    return out


def view_exact_probability(view: SeatView, bid: Bid | None = None) -> float:
    """:func:`exact_probability` from a :class:`~liars_dice.engine.view.SeatView`;
    ``bid`` defaults to the current bid.

    :raises ValueError: when no ``bid`` is given and none stands yet.
    """
    bid = bid or view.current_bid
    if bid is None:
        raise ValueError("There is no bid to weigh: none is given and none stands yet.")
    seen = view.hand + tuple(d for h in view.shown for d in h)
    return exact_probability(view.rules, bid, seen, view.unknown_dice, view.wilds_active)
