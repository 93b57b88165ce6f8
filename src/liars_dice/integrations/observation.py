"""Observation and information-state tensors, one layout for every integration.

With ``n`` seats, ``F`` faces, ``N`` dice at most in play and ``B = N*F`` bid
ids (:mod:`liars_dice.engine.encoding`), the observation tensor (float32) is the
concatenation of these pieces, in this order:

============  =========  ==========================================================
piece         shape      holds
============  =========  ==========================================================
``player``    ``(n,)``   one-hot: the observing seat
``dice``      ``(n,)``   dice held per seat (0 = out)
``hand``      ``(F,)``   the observer's hidden dice, a count per face
``shown``     ``(n,F)``  dice set out this round per seat, a count per face
``bids``      ``(B,n)``  1 where seat s made bid id b this round
``pending``   ``(B,)``   one-hot: the observer's bid that waits for its show decision
``wilds``     ``(1,)``   1 when the wild face counts for others this round
============  =========  ==========================================================

The information-state tensor (perfect recall of the public history) adds
``past`` of shape ``(R, B*n + n*F)``: for each finished round, oldest first,
its ``bids`` matrix and every seat's revealed dice (a count per face); ``R`` is
the most rounds a game can have (``N - 1``, 1 for a single-round game, and
the cut of :data:`~liars_dice.integrations.position.CALZA_ROUNDS_PER_DIE` under calza).

Neither holds another seat's hidden dice: only ``hand`` is private, and it is
the observer's own (a property test checks it over random games). A public
layout (``private=False``: OpenSpiel's ``PrivateInfoType.NONE``) leaves
``hand`` out.
"""

from __future__ import annotations

import numpy as np

from .position import Position, Setup


def pieces(setup: Setup, perfect_recall: bool, private: bool = True) -> list[tuple[str, tuple[int, ...]]]:
    """The named pieces and their shapes, in tensor order (``hand`` only when ``private``)."""
    n, f = setup.n_players, setup.game.rules.faces
    b = setup.encoding.num_bids
    out: list[tuple[str, tuple[int, ...]]] = [
        ("player", (n,)), ("dice", (n,)), ("hand", (f,)), ("shown", (n, f)),
        ("bids", (b, n)), ("pending", (b,)), ("wilds", (1,)),
    ]
    if not private:
        out = [p for p in out if p[0] != "hand"]
    if perfect_recall:
        out.append(("past", (max_rounds(setup), b * n + n * f)))
    return out


def max_rounds(setup: Setup) -> int:
    """The most rounds one game can have (see :func:`~.position.round_sizes`)."""
    return setup.max_rounds


def size(setup: Setup, perfect_recall: bool, private: bool = True) -> int:
    return sum(int(np.prod(shape)) for _, shape in pieces(setup, perfect_recall, private))


class Layout:
    """A flat float32 tensor and named views into it (``dict``), as OpenSpiel's
    observers keep them. :meth:`set_from` fills both for one seat; with
    ``private=False`` the seat's own dice are left out (a public observation)."""

    def __init__(self, setup: Setup, perfect_recall: bool, private: bool = True) -> None:
        self.setup = setup
        self.perfect_recall = perfect_recall
        self.private = private
        self.tensor = np.zeros(size(setup, perfect_recall, private), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        i = 0
        for name, shape in pieces(setup, perfect_recall, private):
            k = int(np.prod(shape))
            self.dict[name] = self.tensor[i : i + k].reshape(shape)
            i += k

    def set_from(self, pos: Position, player: int) -> np.ndarray:
        """Fill the tensor with what ``player`` may know in ``pos``; returns it."""
        self.tensor.fill(0)
        d = self.dict
        st = pos.state
        enc = self.setup.encoding
        f = enc.faces
        d["player"][player] = 1
        d["dice"][:] = st.dice
        if self.private:
            for face in st.hidden[player]:
                d["hand"][face - 1] += 1
        for s, hand in enumerate(st.shown):
            for face in hand:
                d["shown"][s, face - 1] += 1
        bids = d["bids"]
        for s, bid, _ in st.bids:
            bids[(bid.quantity - 1) * f + bid.face - 1, s] = 1
        if pos.pending is not None and st.to_move == player:
            d["pending"][(pos.pending.quantity - 1) * f + pos.pending.face - 1] = 1
            bids[(pos.pending.quantity - 1) * f + pos.pending.face - 1, player] = 1
        elif pos.pending is not None:
            bids[(pos.pending.quantity - 1) * f + pos.pending.face - 1, st.to_move] = 1
        d["wilds"][0] = 1.0 if st.bids and st.wilds_active else 0.0
        if self.perfect_recall:
            past = d["past"]
            n = self.setup.n_players
            nb = enc.num_bids * n
            for r, res in enumerate(st.results[: past.shape[0]]):
                row = past[r]
                m = row[:nb].reshape(enc.num_bids, n)
                for s, bid, _ in res.bids:
                    m[(bid.quantity - 1) * f + bid.face - 1, s] = 1
                rev = row[nb:].reshape(n, f)
                for s, hand in enumerate(res.revealed):
                    for face in hand:
                        rev[s, face - 1] += 1
        return self.tensor
