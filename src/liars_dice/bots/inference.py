"""Hidden-hand tables for Bayesian inference over opponents' dice.

An opponent's hidden hand of ``n`` dice is a multiset of faces, written as a
count vector ``c`` of length ``faces`` with ``sum(c) == n``. Every table here is
built once per ``(n, faces)`` and cached:

* :func:`hands` -- every count vector, shape ``(H, faces)`` int64, with
  ``H = C(n + faces - 1, faces - 1)`` (252 for five six-sided dice);
* :func:`log_prior` -- the multinomial log-probability of each hand under fair
  rolls, shape ``(H,)`` float64;
* :func:`match_table` -- how many dice of each hand count toward a bid on each
  face, shape ``(H, faces)``, with or without wilds;
* :func:`tail_logit` / :func:`tail_table` -- binomial tails ``P[X >= j]`` for
  ``X ~ Binomial(U, p)``, and their clipped logits; :func:`tail_row` /
  :func:`tail_logit_row` -- one ``U``'s row of them (what the likelihood reads:
  a whole table of ``U`` up to 8,192 dice would take gigabytes).

:func:`count_pmf` turns a posterior over hands into the distribution of one
opponent's matching dice for a face, and :func:`convolve_all` adds independent
opponents' counts together.
"""

from __future__ import annotations

from functools import lru_cache
from math import lgamma, log

import numpy as np

from ..engine.odds import binomial_pmfs

#: Logits of probabilities are clipped to [-LOGIT_CLIP, LOGIT_CLIP].
LOGIT_CLIP = 7.0


@lru_cache(maxsize=None)
def hands(n: int, faces: int) -> np.ndarray:
    """Every hand of ``n`` dice as a count vector, shape ``(H, faces)`` int64."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == faces - 1:
            out.append(tuple(acc + [left]))
            return
        for c in range(left + 1):
            rec(i + 1, left - c, acc + [c])

    rec(0, n, [])
    arr = np.array(out, dtype=np.int64).reshape(len(out), faces)
    arr.setflags(write=False)
    return arr


@lru_cache(maxsize=None)
def log_prior(n: int, faces: int) -> np.ndarray:
    """Multinomial log-probability of each hand of :func:`hands`, shape ``(H,)``."""
    h = hands(n, faces)
    lg = np.array([lgamma(c + 1) for c in range(n + 1)])
    out: np.ndarray = lgamma(n + 1) - lg[h].sum(axis=1) - n * log(faces)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=None)
def match_table(n: int, faces: int, wild_face: int | None, wilds: bool) -> np.ndarray:
    """Matching dice per hand and bid face, shape ``(H, faces)`` int64.

    Column ``f - 1`` counts the dice that show ``f``, plus the wild dice when
    ``wilds`` is true and ``f`` is not the wild face.
    """
    h = hands(n, faces)
    k = h.copy()
    if wilds and wild_face is not None:
        w = wild_face - 1
        for f in range(faces):
            if f != w:
                k[:, f] += h[:, w]
    k.setflags(write=False)
    return k


@lru_cache(maxsize=None)
def tail_table(u_max: int, p: float) -> np.ndarray:
    """``T[U, j] = P[X >= j]`` for ``X ~ Binomial(U, p)``, shape ``(u_max + 1, u_max + 2)``.

    ``j`` runs 0..u_max+1; ``T[U, 0] = 1`` and ``T[U, j] = 0`` for ``j > U``.
    Callers clip ``j`` into that range (a need below 0 is a need of 0).
    """
    t = np.zeros((u_max + 1, u_max + 2))
    for u in range(u_max + 1):
        t[u] = _tail(u, p, u_max + 2)
    t.setflags(write=False)
    return t


def _tail(u: int, p: float, width: int) -> np.ndarray:
    out = np.zeros(width)
    pmf = np.array(binomial_pmfs(u, p))
    out[: u + 1] = np.cumsum(pmf[::-1])[::-1]
    out[0] = 1.0
    return out


@lru_cache(maxsize=256)
def tail_row(u: int, p: float) -> np.ndarray:
    """``P[X >= j]`` for ``X ~ Binomial(u, p)`` and ``j = 0..u + 1``, shape ``(u + 2,)``:
    row ``u`` of :func:`tail_table` (the same floats), without the rows below it."""
    t = _tail(u, p, u + 2)
    t.setflags(write=False)
    return t


@lru_cache(maxsize=256)
def tail_logit_row(u: int, p: float) -> np.ndarray:
    """Clipped logit of :func:`tail_row`, same shape (row ``u`` of :func:`tail_logit`)."""
    t = np.clip(tail_row(u, p), 1e-12, 1 - 1e-12)
    lg: np.ndarray = np.clip(np.log(t) - np.log1p(-t), -LOGIT_CLIP, LOGIT_CLIP)
    lg.setflags(write=False)
    return lg


@lru_cache(maxsize=None)
def tail_logit(u_max: int, p: float) -> np.ndarray:
    """Clipped logit of :func:`tail_table`, same shape."""
    t = np.clip(tail_table(u_max, p), 1e-12, 1 - 1e-12)
    lg: np.ndarray = np.clip(np.log(t) - np.log1p(-t), -LOGIT_CLIP, LOGIT_CLIP)
    lg.setflags(write=False)
    return lg


def table_size(n: int) -> int:
    """A cached table size of at least ``n``, rounded up so few sizes are built."""
    return max(16, 1 << (max(n, 1) - 1).bit_length())


def count_pmf(weights: np.ndarray, match_col: np.ndarray, n: int) -> np.ndarray:
    """Distribution of one opponent's matching dice for one face.

    :param weights: posterior over hands, shape ``(H,)``, summing to 1.
    :param match_col: matching dice per hand for the face, shape ``(H,)``.
    :returns: shape ``(n + 1,)`` float64, ``P[k matching dice]``.
    """
    return np.bincount(match_col, weights=weights, minlength=n + 1)


def convolve_all(pmfs: list[np.ndarray]) -> np.ndarray:
    """Distribution of the sum of independent counts (``[1.0]`` for none)."""
    out = np.ones(1)
    for p in pmfs:
        out = np.convolve(out, p)
    return out
