"""A numpy engine that steps B games at once, as arrays.

:class:`BatchGame` holds B independent games of one rule set and seat count
in arrays (dice held, hidden and shown face counts, the current bid, the seat
to move) and advances all of them with one call per move: the deal, the
legal-action masks, bids, shows and rerolls, the challenge and the next
opener. It agrees with the scalar engine (:class:`liars_dice.engine.State`)
move for move; ``tests/test_batch.py`` replays random batched games through
``State.apply`` to check it.

The action encoding is the one every integration shares,
:class:`liars_dice.engine.encoding.ActionEncoding` (re-exported here): bids
``(q - 1) * faces + (f - 1)`` as OpenSpiel's ``liars_dice``, the challenge, the
calza where the rules have it, then every show as a second decision after a
bid under show-and-reroll.

Layer: batch, above solver; imports the engine only.

>>> import numpy as np
>>> from liars_dice.engine import Rules
>>> g = BatchGame(Rules.preset("classic"), players=3, batch=4, seed=1)
>>> g.legal_mask().shape
(4, 91)
>>> result = g.step(g.sample_legal())
>>> int(result.game_over.sum())
0

Layer: batch, above solver; imports the engine only.
"""

from __future__ import annotations

from ..engine.encoding import ActionEncoding
from .engine import BatchGame, BatchStep, UnsupportedRulesError

__all__ = ["ActionEncoding", "BatchGame", "BatchStep", "UnsupportedRulesError"]
