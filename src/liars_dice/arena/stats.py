"""Arena statistics: win rates with Wilson intervals, and openskill ratings.

Sources: E. B. Wilson, "Probable inference, the law of succession, and
statistical inference", JASA 22 (1927), for the score interval; openskill's
Plackett-Luce model (Weng and Lin, "A Bayesian approximation method for online
ranking", JMLR 12, 2011) for ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt
from typing import Any

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate ``wins / games``.

    :returns: ``(lo, hi)`` with ``0 <= lo <= wins/games <= hi <= 1``;
        ``(0.0, 1.0)`` for no games.

    >>> lo, hi = wilson(60, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.502, 0.691)
    >>> wilson(0, 0)
    (0.0, 1.0)
    """
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return min(lo, p), max(hi, p)  # exact at p = 0 or 1 despite rounding


@dataclass(frozen=True)
class Rating:
    """An openskill rating averaged over game orders: ``mu``, ``sigma`` and the
    conservative ``ordinal() = mu - 3 sigma``."""

    mu: float
    sigma: float

    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


#: How many seeded orders of the games the ratings are averaged over.
RATING_ORDERS = 8


def ratings(n_entrants: int, games: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[Rating]:
    """openskill Plackett-Luce ratings of a tournament, independent of the
    order the games were played in.

    openskill rates one game at a time, so its result depends on the order of
    the games: 2,000 games of three equal ``random`` bots, rated in the order
    played, ranked the bot with the most wins last. A bot's skill does not
    drift during a tournament, so here the games are put in a canonical order,
    rated in :data:`RATING_ORDERS` seeded shuffles of it with no dynamics
    variance (``tau = 0``), and ``mu`` and ``sigma`` are averaged.

    :param games: per game, ``(entrants, ranks)``: the entrants seated, and
        each one's finishing rank (1 = winner; equal ranks tie).
    :returns: one :class:`Rating` per entrant.
    """
    import random

    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    canonical = sorted((tuple(e), tuple(r)) for e, r in games)
    mu = [0.0] * n_entrants
    sigma = [0.0] * n_entrants
    for k in range(RATING_ORDERS):
        order = canonical[:]
        random.Random(k).shuffle(order)
        current = [model.rating(name=str(i)) for i in range(n_entrants)]
        for entrants, ranks in order:
            new = model.rate([[current[e]] for e in entrants], ranks=list(ranks))
            for e, team in zip(entrants, new):
                current[e] = team[0]
        for i, r in enumerate(current):
            mu[i] += r.mu / RATING_ORDERS
            sigma[i] += r.sigma / RATING_ORDERS
    return [Rating(m, sd) for m, sd in zip(mu, sigma)]


def report(names: Sequence[str], wins: Sequence[int], games: int, rated: Sequence[Any]) -> dict[str, Any]:
    """The arena's JSON report:
    ``{"games": N, "bots": {NAME: {"wins", "win_rate", "ci95": [lo, hi], "rating"}}}``.

    ``rating`` is the openskill ordinal, mu - 3 sigma (a conservative skill
    estimate; 0 for a newcomer at mu 25, sigma 25/3)."""
    bots: dict[str, Any] = {}
    for name, w, r in zip(names, wins, rated):
        lo, hi = wilson(w, games)
        bots[name] = {
            "wins": w,
            "win_rate": round(w / games, 6) if games else 0.0,
            "ci95": [round(lo, 6), round(hi, 6)],
            "rating": round(r.ordinal(), 6),
        }
    return {"games": games, "bots": bots}
