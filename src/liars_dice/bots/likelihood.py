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

**An opponent model in the likelihood** (:class:`ModelTerms`). Given an
:class:`~liars_dice.bots.opponent_model.OpponentModel` of the actor, the
tables blend the logit with the model's own policy, whose features are the
same bins of ``P(bid true | actor's hand)``:

* a raise ``b`` facing ``c``: ``log P_model(b | hand) = log(1 - rate[bin(P(c))])
  + log mix[bin(P(b))] - log sum_b' mix[bin(P(b'))]`` over the legal raises
  (an opening: the opening mix and no challenge term), blended with the logit
  geometrically, ``(1 - w) * log P_logit + w * log P_model``;
* the chance the actor challenges ``b``: ``(1 - w_c) * P_logit + w_c * rate[bin(P(b))]``.

The weights grow with the model's evidence, ``w = n / (n + n0)`` (``n`` the
model's counted raises, openings or faced bids; ``w`` at most
:data:`MODEL_MAX_BID_WEIGHT`), so a model of nothing (the prior) has weight 0
and leaves the logit as it is.

**A whole decision** (:func:`decision_log_probs`, :func:`decision_llr`): for
one known hand, the normalised distribution over the challenge and every legal
raise, as the logit predicts it and as ``strong``'s two-player search predicts
it with the model's terms; ``strong``'s evidence gate sums the log ratio of the
two over an opponent's revealed moves (``bots/strong.py``, step 5).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..engine import Bid, Rules
from .inference import tail_logit_row, tail_row

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


#: Evidence (counted moves) at which a model's terms get half the weight, raises
#: and openings (:class:`ModelTerms`).
MODEL_HALF_BIDS = 50.0
#: The same for the challenge chance, in bids faced.
MODEL_HALF_FACED = 50.0
#: Most weight of the model's terms in the likelihood of a bid: the model's bins
#: are coarser than the logit (no jump or smallest-raise features), and on
#: positions of ``probabilistic`` play the posterior of the true hand was best
#: near an even blend (mean log posterior -3.29 with the logit alone, -3.19 at
#: 0.5, -3.27 at 1.0; classic, 4 players, 1,333 hands).
MODEL_MAX_BID_WEIGHT = 0.5


@dataclass(frozen=True)
class ModelTerms:
    """An opponent model's part in the likelihood (module docstring, last section).

    :ivar challenge_rate: chance of a challenge per bin of the faced bid's chance, shape ``(bins,)``.
    :ivar raise_mix: share of raises per bin of the raise's chance, shape ``(bins,)``, summing to 1.
    :ivar open_mix: the same for opening bids.
    :ivar w_raise: blend weight of the model for raises, in [0, 1].
    :ivar w_open: for openings.
    :ivar w_challenge: for the chance of a challenge.
    """

    challenge_rate: np.ndarray
    raise_mix: np.ndarray
    open_mix: np.ndarray
    w_raise: float
    w_open: float
    w_challenge: float

    @property
    def bins(self) -> int:
        return len(self.raise_mix)

    @property
    def inert(self) -> bool:
        """Whether every weight is 0 (the terms change nothing)."""
        return self.w_raise <= 0.0 and self.w_open <= 0.0 and self.w_challenge <= 0.0

    @staticmethod
    def of(model: "Any", half_bids: float = MODEL_HALF_BIDS, half_faced: float = MODEL_HALF_FACED,
           max_bid_weight: float = MODEL_MAX_BID_WEIGHT) -> "ModelTerms":
        """The terms of an :class:`~liars_dice.bots.opponent_model.OpponentModel`:
        its posterior means, weighted by ``n / (n + half)`` (at most
        ``max_bid_weight`` for the bids)."""

        def weight(n: float, half: float, cap: float = 1.0) -> float:
            return min(cap, n / (n + half)) if n > 0 else 0.0

        return ModelTerms(
            challenge_rate=np.clip(model.challenge_rate(), 1e-4, 1.0 - 1e-4),
            raise_mix=model.bid_mix(),
            open_mix=model.bid_mix(opening=True),
            w_raise=weight(float(model.bids.sum()), half_bids, max_bid_weight),
            w_open=weight(float(model.openings.sum()), half_bids, max_bid_weight),
            w_challenge=weight(float(model.faced.sum()), half_faced),
        )

    def without_challenge(self) -> "ModelTerms":
        """These terms with the challenge chance left to the logit (``w_challenge`` 0)."""
        return ModelTerms(self.challenge_rate, self.raise_mix, self.open_mix, self.w_raise, self.w_open, 0.0)


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

    __slots__ = ("rules", "ctx", "theta", "bid", "logit", "p", "prob", "terms", "bins")

    def __init__(
        self, rules: Rules, ctx: ActorContext, theta: LikelihoodParams, terms: ModelTerms | None = None
    ) -> None:
        self.rules, self.ctx, self.theta = rules, ctx, theta
        self.terms = None if terms is None or terms.inert else terms
        faces, n, nt = rules.faces, ctx.n, ctx.n_total
        p = match_probs(rules, ctx.wilds)
        self.p = p
        q = np.arange(1, nt + 1)
        k = np.arange(n + 1)
        need = q[None, None, :] - k[None, :, None] - ctx.shown_match[:, None, None]
        need = np.clip(need, 0, ctx.unseen + 1)
        logit = np.empty((faces, n + 1, nt))
        prob = np.empty((faces, n + 1, nt))
        for f in range(faces):
            logit[f] = tail_logit_row(ctx.unseen, float(p[f]))[need[f]]
            prob[f] = tail_row(ctx.unseen, float(p[f]))[need[f]]
        self.logit = logit
        self.prob = prob
        support = (k[None, :] - n * p[:, None])[:, :, None]
        ranks = rank_table(rules, nt)[:, None, :]
        score = theta.truth * logit + theta.support * support + theta.jump * ranks / faces
        score = score + theta.plausible * (prob >= 0.5) + theta.certain * (need == 0)
        if rules.wild_face is not None:
            score[rules.wild_face - 1] += theta.wild
        self.bid = score
        #: bin of each bid's chance given the actor's dice, shape like ``bid`` (model terms only)
        self.bins: np.ndarray | None = None
        if self.terms is not None:
            nb = self.terms.bins
            self.bins = np.clip((prob * nb).astype(np.int64), 0, nb - 1)

    # -- the opponent model's terms -------------------------------------------

    def model_bid_score(self, opening: bool = False) -> np.ndarray:
        """``log mix[bin(P(bid true | k))]``, shape like :attr:`bid` (requires model terms)."""
        assert self.terms is not None and self.bins is not None
        mix = self.terms.open_mix if opening else self.terms.raise_mix
        out: np.ndarray = np.log(mix)[self.bins]
        return out

    def blended_bid(self) -> np.ndarray:
        """The raise scores blended with the model's, ``(1 - w) * bid + w * model``,
        shape like :attr:`bid`; :attr:`bid` itself without model terms."""
        if self.terms is None or self.terms.w_raise <= 0.0:
            plain: np.ndarray = self.bid
            return plain
        w = self.terms.w_raise
        out: np.ndarray = (1.0 - w) * self.bid + w * self.model_bid_score()
        return out

    def model_challenge_prob(self, bid: Bid) -> np.ndarray:
        """The model's chance of a challenge of ``bid`` per ``k``, shape ``(n + 1,)`` (requires model terms)."""
        assert self.terms is not None and self.bins is not None
        out: np.ndarray = self.terms.challenge_rate[self.bins[bid.face - 1, :, bid.quantity - 1]]
        return out

    def _model_log_likelihood(self, current: Bid | None, action: Bid, matches: np.ndarray) -> np.ndarray:
        """``log P_model(action | hand)`` per hand, shape ``(H,)`` (module docstring)."""
        score = self.model_bid_score(opening=current is None)
        lo = lowest_raises(self.rules, current, self.ctx.n_total)
        q = np.arange(1, self.ctx.n_total + 1)
        zf = np.where(q[None, None, :] >= lo[:, None, None], np.exp(score), 0.0).sum(axis=2)  # (faces, n+1)
        faces = np.arange(self.rules.faces)
        z = zf[faces[None, :], matches].sum(axis=1)
        ll: np.ndarray = score[action.face - 1, matches[:, action.face - 1], action.quantity - 1] - np.log(
            np.maximum(z, 1e-300)
        )
        if current is not None:
            rate = self.model_challenge_prob(current)[matches[:, current.face - 1]]
            ll = ll + np.log1p(-rate)
        return ll

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
        """``log P(action | hand)`` for every hand, shape ``(H,)``; ``action=None`` is the challenge.
        With model terms, a bid's is the blend of the module docstring."""
        ll = self._logit_log_likelihood(current, action, matches)
        if self.terms is None or action is None:
            return ll
        w = self.terms.w_open if current is None else self.terms.w_raise
        if w <= 0.0:
            return ll
        out: np.ndarray = (1.0 - w) * ll + w * self._model_log_likelihood(current, action, matches)
        return out

    def _logit_log_likelihood(self, current: Bid | None, action: Bid | None, matches: np.ndarray) -> np.ndarray:
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
            if self.terms is not None and self.terms.w_challenge > 0.0:
                wc = self.terms.w_challenge
                out[i] = (1.0 - wc) * out[i] + wc * self.model_challenge_prob(b)[matches[:, b.face - 1]]
        return out


def decision_log_probs(tables: ActorTables, current: Bid | None, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The actor's whole decision after ``current`` (``None``: the opening) for
    one hand, as the built-in likelihood predicts it and as ``strong``'s search
    does with the model's terms (the two-player search's prediction, ``_duel``
    in ``bots/strong.py``): challenge with ``(1 - w_c) P_logit + w_c rate[bin]``,
    else raise ``b`` in proportion to ``exp((1 - w) score_logit(b) + w log
    mix[bin(b)])`` (plus the smallest raise's bonus, as the logit). Without
    model terms both are the built-in one.

    :param tables: the actor's tables (with or without :class:`ModelTerms`).
    :param k: the hand's matching hidden dice per face, shape ``(faces,)`` int64.
    :returns: ``(builtin, search)``, each shape ``(faces * n_total + 1,)``
        float64 log-probabilities: index ``f * n_total + q - 1`` the bid
        ``(q, f + 1)`` (``-inf`` when not a legal raise), the last the challenge
        (``-inf`` at the opening).
    """
    rules, nt = tables.rules, tables.ctx.n_total
    faces = rules.faces
    lo = lowest_raises(rules, current, nt)
    q = np.arange(1, nt + 1)
    legal = q[None, :] >= lo[:, None]  # (faces, nt)
    fi = np.arange(faces)
    bonus = tables.theta.minimal * (q[None, :] == lo[:, None]) if current is not None else 0.0
    plain = np.where(legal, tables.bid[fi, k, :] + bonus, -np.inf)  # (faces, nt)
    ch = float(tables.challenge(current)[k[current.face - 1]]) if current is not None else -np.inf
    flat = np.append(plain.ravel(), ch)
    top = float(np.max(flat))
    builtin = flat - (top + np.log(np.exp(flat - top).sum()))
    terms = tables.terms
    if terms is None:
        return builtin, builtin.copy()
    assert tables.bins is not None
    w = terms.w_open if current is None else terms.w_raise
    mix = terms.open_mix if current is None else terms.raise_mix
    pch = float(np.exp(builtin[-1]))
    if current is not None and terms.w_challenge > 0.0:
        rate = float(terms.challenge_rate[tables.bins[current.face - 1, k[current.face - 1], current.quantity - 1]])
        pch = (1.0 - terms.w_challenge) * pch + terms.w_challenge * rate
    raw = tables.bid[fi, k, :]
    blend = (1.0 - w) * raw + w * np.log(mix)[tables.bins[fi, k, :]] + bonus
    blend = np.where(legal, blend, -np.inf).ravel()
    if not np.isfinite(blend).any():  # nothing left to raise to: the challenge only
        search = np.full(faces * nt + 1, -np.inf)
        search[-1] = 0.0
        return builtin, search
    bt = float(np.max(blend))
    raise_log = blend - (bt + np.log(np.exp(blend - bt).sum()))
    with np.errstate(divide="ignore"):
        search = np.append(raise_log + np.log1p(-min(pch, 1.0 - 1e-12)), np.log(pch) if current is not None else -np.inf)
    return builtin, search


def decision_llr(tables: ActorTables, current: Bid | None, action: Bid | None, k: np.ndarray) -> float:
    """``log P_search(action) - log P_builtin(action)`` for one decision of one
    hand (:func:`decision_log_probs`; ``action=None`` is the challenge), each
    probability floored at ``1e-12`` so one surprise weighs at most about 28 nats."""
    builtin, search = decision_log_probs(tables, current, k)
    i = -1 if action is None else (action.face - 1) * tables.ctx.n_total + action.quantity - 1
    floor = np.log(1e-12)
    return float(max(search[i], floor) - max(builtin[i], floor))
