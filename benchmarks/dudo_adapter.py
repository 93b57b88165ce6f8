"""An onnxruntime adapter that seats the dudo.ai value networks as a bot.

Benchmark-only: the networks (``shared/peers/dudo-ai/models``) are third-party
data and never ship; nothing under ``src/`` or ``tests/`` imports this module.
The input encoding and the move sampling follow
``shared/peers/dudo-ai/README.md``:

* ``priv`` (length ``D * 6 + 2``, ``D = max(d1, d2)``): for each face ``f`` with
  ``c`` dice, positions ``(f - 1) * D + i`` for ``i < c``; then position
  ``D * 6 + p`` for the player ``p`` whose view it is;
* ``pub`` (length ``2 * (N + 1)``, ``N = (d1 + d2) * 6 + 1``): per player a block
  with one position per action id they made, and a turn flag at position ``N``;
* a bid ``(q, f)`` is action id ``(q - 1) * 6 + (f - 1)``, liar is ``(d1 + d2) * 6``;
* a move: ``value`` of the current state and of every legal child; sample in
  proportion to ``max(v(child) - v(current), 0)``, uniformly if all are 0.

The network plays the ``joker`` preset (``Rules.preset("joker")``), whose
bid order is the same id order.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import onnxruntime as ort

from liars_dice.bots import Decision
from liars_dice.engine import CHALLENGE, Bid, SeatView, view_bid_probability

#: The networks' folder; ``LIARS_DICE_DUDO_MODELS`` overrides it (e.g. from a git worktree elsewhere).
MODELS = Path(
    os.environ.get("LIARS_DICE_DUDO_MODELS")
    or Path(__file__).resolve().parent.parent.parent / "shared" / "peers" / "dudo-ai" / "models"
)

_SESSIONS: dict[tuple[int, int], ort.InferenceSession] = {}


def session(d1: int, d2: int) -> ort.InferenceSession:
    """The network for player 0 holding ``d1`` dice and player 1 ``d2`` (one thread)."""
    key = (d1, d2)
    if key not in _SESSIONS:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        _SESSIONS[key] = ort.InferenceSession(
            str(MODELS / f"model_{d1}{d2}_joker.onnx"), opts, providers=["CPUExecutionProvider"]
        )
    return _SESSIONS[key]


class DudoBot:
    """The dudo.ai network for one seat of a two-seat ``joker`` round.

    :param first: the seat that moves first (the networks' player 0).
    :param seed: seeds the sampling of moves.
    """

    name = "dudo.ai"

    def __init__(self, first: int, seed: int | None = None) -> None:
        self.first = first
        self._rng = random.Random(seed)

    def decide(self, view: SeatView) -> Decision:
        acts, regrets, liar = self._regrets(view)
        if sum(regrets) > 0:
            a = self._rng.choices(acts, weights=regrets)[0]
        else:
            a = self._rng.choice(acts)
        if a == liar:
            return Decision(CHALLENGE)
        return Decision(Bid(a // 6 + 1, a % 6 + 1))

    def probabilities(self, view: SeatView) -> dict:
        """The move distribution ``decide`` samples from: ``{action: probability}``."""
        acts, regrets, liar = self._regrets(view)
        total = sum(regrets)
        probs = [r / total for r in regrets] if total > 0 else [1 / len(acts)] * len(acts)
        return {(CHALLENGE if a == liar else Bid(a // 6 + 1, a % 6 + 1)): p for a, p in zip(acts, probs)}

    def _regrets(self, view: SeatView) -> tuple[list[int], list[float], int]:
        seats = [s for s in range(len(view.dice))]
        assert len(seats) == 2, "the dudo.ai networks play two seats"
        p = 0 if view.seat == self.first else 1
        order = [self.first, 1 - self.first]
        d1, d2 = view.dice[order[0]], view.dice[order[1]]
        sess = session(d1, d2)
        dmax = max(d1, d2)
        n_act = (d1 + d2) * 6 + 1
        liar = n_act - 1
        priv = np.zeros(dmax * 6 + 2, dtype=np.float32)
        for f in range(1, 7):
            c = sum(1 for d in view.hand if d == f)
            priv[(f - 1) * dmax : (f - 1) * dmax + c] = 1
        priv[dmax * 6 + p] = 1
        pub = np.zeros(2 * (n_act + 1), dtype=np.float32)
        turn = 0
        last = -1
        for seat, bid, _ in view.bids:
            who = 0 if seat == self.first else 1
            a = (bid.quantity - 1) * 6 + (bid.face - 1)
            pub[who * (n_act + 1) + a] = 1
            turn = 1 - who
            last = a
        pub[turn * (n_act + 1) + n_act] = 1
        assert turn == p

        def value(pb: np.ndarray) -> float:
            return float(sess.run(None, {"priv": priv, "pub": pb})[0][0])

        v0 = value(pub)
        acts = list(range(last + 1, liar + 1)) if last >= 0 else list(range(0, liar))
        regrets = []
        for a in acts:
            child = pub.copy()
            child[p * (n_act + 1) + a] = 1
            child[p * (n_act + 1) + n_act] = 0
            child[(1 - p) * (n_act + 1) + n_act] = 1
            regrets.append(max(value(child) - v0, 0.0))
        return acts, regrets, liar


class PlainHeuristic:
    """The "plain binomial heuristic" of ``shared/peers/dudo-ai/README.md``, to check
    this adapter against the figures measured there: challenge when the last bid
    is less than 50% likely given its own dice, otherwise make the cheapest bid
    that is at least 50% likely (the cheapest legal bid if none is); it ignores
    what bids reveal."""

    name = "heuristic"

    def decide(self, view: SeatView) -> Decision:
        cur = view.current_bid
        if cur is not None and view_bid_probability(view, cur) < 0.5:
            return Decision(CHALLENGE)
        bids = [a for a in view.legal_actions() if isinstance(a, Bid)]
        for b in bids:  # legal_actions lists bids in bid order
            if view_bid_probability(view, b) >= 0.5:
                return Decision(b)
        return Decision(CHALLENGE if cur is not None else bids[0])
