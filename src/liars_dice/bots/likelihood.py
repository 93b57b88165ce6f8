"""A likelihood model of how a player bids given their hand: ``P(action | hand, public state)``.

The model is a conditional logit (a softmax over the legal actions) with a few
features, each a function of the actor's hand only through ``k``, the number of
the actor's hidden dice that match the action's face:

* bids ``(q, f)``: ``truth * logit P(bid true | actor's hand)``
  ``+ support * (k - n * p_f)`` ``+ jump * rank(q, f) / faces`` ``+ wild * [f is wild]``;
  ``+ minimal * [q is the smallest raise on face f]``
  ``+ plausible * [P(bid true | hand) >= 1/2]`` ``+ certain * [the actor's dice and
  the shown dice make the bid true]``;
* the challenge of bid ``b``: ``challenge + challenge_truth * logit P(b true | hand)``
  ``+ doubt * [P(b true | hand) < 1/2]``
  ``+ jump * (rank(b) + 1) / faces`` (so bids are scored by how far they jump
  past the smallest raise).

``P(bid true | hand)`` is the binomial tail over the dice the actor cannot see,
counting their own matching dice and every shown die. Because every feature
depends on the hand only through per-face match counts, the normaliser of a hand
``h`` is ``sum_f Zf[f, k_f(h)] + exp(challenge score)``: a table of shape
``(faces, n + 1)`` gathered per hand, never a loop over hands and actions.

The parameters are fitted by maximum likelihood on self-play records by
``scripts/fit_likelihood.py`` and stored per preset in
``liars_dice/data/likelihood.json``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..engine import Bid, Rules
from .inference import table_size, tail_logit, tail_table

#: Feature names, in the order of :meth:`LikelihoodParams.vector`.
FEATURES = (
    "truth", "support", "jump", "wild", "challenge", "challenge_truth", "minimal", "plausible", "certain", "doubt",
)


@dataclass(frozen=True)
class LikelihoodParams:
    """Weights of the conditional-logit bidding model (see the module docstring)."""

    truth: float = 1.0
    support: float = 0.3
    jump: float = -2.0
    wild: float = -0.3
    challenge: float = -0.5
    challenge_truth: float = -1.0
    minimal: float = 1.0
    plausible: float = 0.0
    certain: float = 0.0
    doubt: float = 0.0

    def vector(self) -> np.ndarray:
        """The weights as shape ``(10,)`` float64, in :data:`FEATURES` order."""
        return np.array([getattr(self, f) for f in FEATURES], dtype=np.float64)

    @staticmethod
    def from_vector(v: np.ndarray) -> "LikelihoodParams":
        return LikelihoodParams(**{f: float(x) for f, x in zip(FEATURES, v)})


@lru_cache(maxsize=None)
def _stored() -> dict[str, dict[str, float]]:
    try:
        text = resources.files("liars_dice").joinpath("data/likelihood.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):  # pragma: no cover - data missing
        return {}
    data = json.loads(text)
    return {k: v for k, v in data.get("presets", {}).items()}


def params_for(rules: Rules) -> LikelihoodParams:
    """The fitted parameters for ``rules.name``, else the ``default`` entry, else
    the built-in defaults. Unknown keys in the data are ignored."""
    stored = _stored()
    entry = stored.get(rules.name) or stored.get("default")
    if not entry:
        return LikelihoodParams()
    return LikelihoodParams(**{k: float(v) for k, v in entry.items() if k in FEATURES})


def save_params(path: str, presets: dict[str, LikelihoodParams], meta: dict[str, Any]) -> None:
    """Write fitted parameters as ``{"meta": ..., "presets": {name: {feature: weight}}}``."""
    with open(path, "w") as fh:
        json.dump({"meta": meta, "presets": {k: asdict(v) for k, v in presets.items()}}, fh, indent=2)
        fh.write("\n")


@lru_cache(maxsize=256)
def rank_table(rules: Rules, n_total: int) -> np.ndarray:
    """``R[f - 1, q - 1] = rules.rank(q, f)``, shape ``(faces, n_total)`` float64."""
    r = np.array(
        [[rules.rank(q, f) for q in range(1, n_total + 1)] for f in range(1, rules.faces + 1)],
        dtype=np.float64,
    )
    r.setflags(write=False)
    return r


def match_probs(rules: Rules, wilds: bool) -> np.ndarray:
    """Chance one fair die matches a bid on each face, shape ``(faces,)``."""
    p = np.full(rules.faces, 1.0 / rules.faces)
    if wilds and rules.wild_face is not None:
        p[:] = 2.0 / rules.faces
        p[rules.wild_face - 1] = 1.0 / rules.faces
    return p


def lowest_raises(rules: Rules, bid: Bid | None, n_total: int) -> np.ndarray:
    """Smallest legal quantity per face after ``bid`` (1 before the opening),
    shape ``(faces,)`` int64; ``n_total + 1`` means no legal bid on that face."""
    if bid is None:
        return np.ones(rules.faces, dtype=np.int64)
    lo = np.array(
        [rules.min_raise_quantity(bid.quantity, bid.face, f) for f in range(1, rules.faces + 1)], dtype=np.int64
    )
    return np.minimum(lo, n_total + 1)


@dataclass
class ActorContext:
    """The public facts an actor bid from, and their hidden dice count.

    :ivar n: the actor's hidden dice.
    :ivar unseen: dice the actor cannot see (everyone else's hidden dice).
    :ivar shown_match: shown dice matching each face, shape ``(faces,)`` int64.
    :ivar wilds: whether wilds count for the faces' matches.
    :ivar n_total: dice in play (the largest quantity).
    """

    n: int
    unseen: int
    shown_match: np.ndarray
    wilds: bool
    n_total: int


class ActorTables:
    """Scores of every bid for an actor with ``k = 0..n`` matching dice.

    ``bid[f, k, q - 1]`` is the (unnormalised) log-weight of bidding ``(q, f + 1)``
    with ``k`` matching hidden dice, shape ``(faces, n + 1, n_total)``.
    """

    __slots__ = ("rules", "ctx", "theta", "bid", "logit", "p", "prob")

    def __init__(self, rules: Rules, ctx: ActorContext, theta: LikelihoodParams) -> None:
        self.rules, self.ctx, self.theta = rules, ctx, theta
        faces, n, nt = rules.faces, ctx.n, ctx.n_total
        size = table_size(max(ctx.unseen, nt))
        p = match_probs(rules, ctx.wilds)
        self.p = p
        q = np.arange(1, nt + 1)
        k = np.arange(n + 1)
        need = q[None, None, :] - k[None, :, None] - ctx.shown_match[:, None, None]
        need = np.clip(need, 0, ctx.unseen + 1)
        logit = np.empty((faces, n + 1, nt))
        prob = np.empty((faces, n + 1, nt))
        for f in range(faces):
            logit[f] = tail_logit(size, float(p[f]))[ctx.unseen][need[f]]
            prob[f] = tail_table(size, float(p[f]))[ctx.unseen][need[f]]
        self.logit = logit
        self.prob = prob
        support = (k[None, :] - n * p[:, None])[:, :, None]
        ranks = rank_table(rules, nt)[:, None, :]
        score = theta.truth * logit + theta.support * support + theta.jump * ranks / faces
        score = score + theta.plausible * (prob >= 0.5) + theta.certain * (need == 0)
        if rules.wild_face is not None:
            score[rules.wild_face - 1] += theta.wild
        self.bid = score

    def challenge(self, bid: Bid) -> np.ndarray:
        """Log-weight of challenging ``bid`` per ``k`` (matches of ``bid.face``), shape ``(n + 1,)``."""
        th = self.theta
        rank = self.rules.rank(bid.quantity, bid.face)
        f, q = bid.face - 1, bid.quantity - 1
        return (
            th.challenge
            + th.challenge_truth * self.logit[f, :, q]
            + th.doubt * (self.prob[f, :, q] < 0.5)
            + th.jump * (rank + 1) / self.rules.faces
        )

    def log_normaliser(self, current: Bid | None, matches: np.ndarray) -> np.ndarray:
        """``log Z`` per hand for the decision after ``current``.

        :param matches: matching dice per hand and face, shape ``(H, faces)`` int64.
        :returns: shape ``(H,)`` float64.
        """
        lo = lowest_raises(self.rules, current, self.ctx.n_total)
        q = np.arange(1, self.ctx.n_total + 1)
        masked = np.where(q[None, None, :] >= lo[:, None, None], self.bid, -np.inf)
        m = np.max(self.bid)
        with np.errstate(divide="ignore"):
            zf = np.exp(masked - m).sum(axis=2)  # (faces, n+1)
        if current is not None:
            zf = zf + self._minimal_extra(lo, m)
        faces = np.arange(self.rules.faces)
        z = zf[faces[None, :], matches].sum(axis=1)  # (H,)
        if current is not None:
            ch = self.challenge(current)
            z = z + np.exp(ch[matches[:, current.face - 1]] - m)
        log_z: np.ndarray = np.log(z) + m
        return log_z

    def _minimal_extra(self, lo: np.ndarray, m: float) -> np.ndarray:
        """Extra weight of the smallest raise on each face, shape ``(faces, n + 1)``."""
        nt = self.ctx.n_total
        has = lo <= nt
        idx = np.minimum(lo, nt) - 1
        e = np.exp(self.bid[np.arange(self.rules.faces), :, idx] - m)  # (faces, n+1)
        return np.where(has[:, None], (np.exp(self.theta.minimal) - 1.0) * e, 0.0)

    def log_likelihood(self, current: Bid | None, action: Bid | None, matches: np.ndarray) -> np.ndarray:
        """``log P(action | hand)`` for every hand, shape ``(H,)``; ``action=None`` is the challenge."""
        if action is None:
            assert current is not None
            s = self.challenge(current)[matches[:, current.face - 1]]
        else:
            s = self.bid[action.face - 1, matches[:, action.face - 1], action.quantity - 1]
            if current is not None and action.quantity == lowest_raises(
                self.rules, current, self.ctx.n_total
            )[action.face - 1]:
                s = s + self.theta.minimal
        ll: np.ndarray = s - self.log_normaliser(current, matches)
        return ll

    def response_challenge_prob(self, candidates: list[Bid], matches: np.ndarray) -> np.ndarray:
        """Chance the actor challenges each candidate bid, per hand, shape ``(B, H)``.

        Uses suffix sums over quantities so that each candidate costs one gather
        of shape ``(H, faces)``.
        """
        rules, nt = self.rules, self.ctx.n_total
        m = np.max(self.bid)
        e = np.exp(self.bid - m)  # (faces, n+1, nt)
        suffix = np.concatenate([np.cumsum(e[:, :, ::-1], axis=2)[:, :, ::-1], np.zeros(e.shape[:2] + (1,))], axis=2)
        faces = np.arange(rules.faces)
        out = np.empty((len(candidates), matches.shape[0]))
        for i, b in enumerate(candidates):
            lo = lowest_raises(rules, b, nt) - 1  # index into suffix; nt means none
            extra = self._minimal_extra(lo + 1, m)  # (faces, n+1)
            zb = (suffix[faces[None, :], matches, lo[None, :]] + extra[faces[None, :], matches]).sum(axis=1)
            ch = np.exp(self.challenge(b)[matches[:, b.face - 1]] - m)
            out[i] = ch / (zb + ch)
        return out
