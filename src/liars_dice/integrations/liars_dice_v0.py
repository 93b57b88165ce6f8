"""PettingZoo's names for this game, as its classic environments have them
(``pettingzoo.classic.chess_v6``): ``from liars_dice.integrations import
liars_dice_v0``, then ``liars_dice_v0.env(...)``, ``raw_env(...)`` or
``parallel_env(...)``.

- ``env`` and ``raw_env``: the AEC environment of
  :mod:`liars_dice.integrations.pettingzoo` (wrapped, and bare);
- ``parallel_env``: the same game through PettingZoo's
  ``turn_based_aec_to_parallel``: each ``step`` takes a dict of actions and uses
  only the one of the agent to move (the others' observations carry an all-zero
  action mask). The game stays turn-based (``is_parallelizable`` is ``False``).

>>> from liars_dice.integrations import liars_dice_v0
>>> e = liars_dice_v0.parallel_env(rules="classic", players=2, dice=1)
>>> obs, infos = e.reset(seed=3)
>>> sorted(obs), int(sum(o["action_mask"].sum() for o in obs.values()))
(['player_0', 'player_1'], 12)

Needs the ``pettingzoo`` extra.
"""

from __future__ import annotations

from typing import Any

from .extras import needs

with needs("pettingzoo", __name__):
    from pettingzoo import ParallelEnv
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .pettingzoo import env, raw_env


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """The game as a PettingZoo ``ParallelEnv`` (see the module); arguments
    as :class:`~liars_dice.integrations.pettingzoo.raw_env`.

    :raises RulesError: for a bad rule set, seat count or dice."""
    made: ParallelEnv = turn_based_aec_to_parallel(env(**kwargs))
    return made


__all__ = ["env", "parallel_env", "raw_env"]
