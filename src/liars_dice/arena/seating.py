"""Seat rotation: which entrant sits where in game ``g``.

Seat order matters in Liar's Dice (a player bids on, and challenges, the bid of
the player before them), so an arena cycles through every seating. Game ``g``
of ``n`` entrants takes the cyclic order ``(g // n) mod (n-1)!`` (entrant 0
first, the others in the lexicographic permutation of that index) and rotates
it by ``g mod n``. So:

* every block of ``n`` consecutive games puts each entrant in each seat once;
* every block of ``n!`` consecutive games plays each of the ``n!`` seatings once.

>>> [seating(g, 3) for g in range(6)]
[(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)]
"""

from __future__ import annotations

from math import factorial


def nth_permutation(items: list[int], k: int) -> list[int]:
    """The ``k``-th permutation of ``items`` in lexicographic order (0-based),
    through the factorial number system."""
    pool = list(items)
    out = []
    for i in range(len(pool), 0, -1):
        q, k = divmod(k, factorial(i - 1))
        out.append(pool.pop(q))
    return out


def seating(game: int, n: int) -> tuple[int, ...]:
    """``seats[s]``: the entrant (0..n-1) in seat ``s`` in game ``game``."""
    order = [0] + nth_permutation(list(range(1, n)), (game // n) % factorial(n - 1))
    r = game % n
    return tuple(order[(s + r) % n] for s in range(n))
