"""The batched engine as a Gymnasium vector environment, for self-play.

``LiarsDiceVectorEnv(num_envs, rules=..., players=...)`` steps ``num_envs``
games of :class:`liars_dice.batch.BatchGame` at once. Every seat is played by
the agent (self-play): each observation is that of the seat to move, and the
action is that seat's. Also made by ``gymnasium.make_vec("LiarsDiceBatch-v0",
num_envs=B, rules="classic", players=4)`` once this module is imported.

**Actions**: ``Discrete(n_actions)`` per game, in the encoding every
integration shares, :class:`liars_dice.engine.encoding.ActionEncoding` (bids
``(q - 1) * faces + (f - 1)``, the challenge, the calza, then with
show-and-reroll every show, as a second decision right after a bid).
Illegal actions raise :class:`~liars_dice.engine.IllegalActionError`; use the
mask.

**Observations**: a dict per game, batched on the first axis:

* ``"observation"``: float32 ``(B, obs_size)``, from the seat to move, seats
  counted from it (0 = itself, 1 = next, ...): its hidden dice per face ``(F,)``;
  every seat's shown dice per face ``(N * F,)``; every seat's dice held ``(N,)``;
  the current bid's quantity ``(1,)`` (0 for none) and face one-hot ``(F + 1,)``
  (index 0: no bid); the bidder one-hot ``(N,)`` (zeros for none); whether a
  show is under way and whether wilds count this round ``(2,)``. Nothing of
  another seat's hidden dice.
* ``"action_mask"``: int8 ``(B, n_actions)``, 1 for the legal actions.

**Rewards**: float32 ``(B,)`` for the seat that acted, 0 until the game ends;
then ``+1`` for the winner and ``-1 / (N - 1)`` for every other seat (zero sum).
``info["rewards"]`` ``(B, N)`` gives every seat's, ``info["actor"]`` ``(B,)``
the seat that acted and ``info["seat"]`` ``(B,)`` the seat to move in the
returned observation.

**Autoreset**: next step (Gymnasium's default): after a game terminates, the
next ``step`` ignores that game's action and starts a new game. The
observation returned with ``terminated`` is the ended game's, and its
``action_mask`` row is all zeros: give that row any action (it is ignored).

Needs the ``gymnasium`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .extras import needs

with needs("gymnasium", __name__):
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv

from ..batch import BatchGame
from ..batch.engine import SHOW
from ..engine import Rules


class LiarsDiceVectorEnv(VectorEnv):
    """``num_envs`` self-play games of one rule set; see the module.

    :param num_envs: B, games stepped at once.
    :param rules: a preset name or a :class:`Rules` value.
    :param players: seats per game.
    :param dice: starting dice per seat (default: the rules').
    :param seed: seed of the deals (also settable through :meth:`reset`).
    :raises UnsupportedRulesError: for rules the batched engine cannot step.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self, num_envs: int = 64, rules: str | Rules = "classic", players: int = 2, dice: int | None = None,
        seed: int | None = None,
    ) -> None:
        self.rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
        self.game = BatchGame(self.rules, players, num_envs, dice=dice, seed=seed)
        self.num_envs = num_envs
        self.n_players = n = players
        nf = self.rules.faces
        self.obs_size = nf + n * nf + n + 1 + (nf + 1) + n + 2
        high = float(max(self.game.encoding.max_dice, 1))
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, high, (self.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.game.n_actions,), np.int8),
        })
        self.single_action_space = spaces.Discrete(self.game.n_actions)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, high, (num_envs, self.obs_size), np.float32),
            "action_mask": spaces.Box(0, 1, (num_envs, self.game.n_actions), np.int8),
        })
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.game.n_actions))
        self._rows = np.arange(num_envs)
        self._needs_reset = np.zeros(num_envs, bool)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start every game afresh. ``seed`` reseeds the deals and openers."""
        if seed is not None:
            self.game.rng = np.random.default_rng(seed)
            self.action_space.seed(seed)
        self.game.reset()
        self._needs_reset[:] = False
        return self._obs(), {"seat": self.game.to_move.copy()}

    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        g = self.game
        actor = g.to_move.copy()
        fresh = self._needs_reset.copy()
        # next-step autoreset: a game that ended last step is still over, so it
        # ignores its action here; then it starts again
        result = g.step(np.asarray(actions))
        if fresh.any():
            g.reset(fresh)
        over = result.game_over
        n = self.n_players
        rewards = np.zeros((self.num_envs, n), np.float32)
        if over.any():
            rewards[over] = -1.0 / (n - 1)
            rewards[over, result.winner[over]] = 1.0
        self._needs_reset = over.copy()
        acted = np.where(actor >= 0, actor, 0)
        reward = np.where(fresh, 0.0, rewards[self._rows, acted]).astype(np.float32)
        info = {"rewards": rewards, "actor": np.where(fresh, -1, actor), "seat": g.to_move.copy()}
        return self._obs(), reward, over.copy(), np.zeros(self.num_envs, bool), info

    def _obs(self) -> dict[str, np.ndarray]:
        g, n, nf = self.game, self.n_players, self.rules.faces
        rows = self._rows
        me = np.maximum(g.to_move, 0)
        order = (me[:, None] + np.arange(n)) % n  # (B, N): seats counted from the seat to move
        parts = [
            g.hidden[rows, me].astype(np.float32),
            g.shown[rows[:, None], order].reshape(self.num_envs, n * nf).astype(np.float32),
            g.dice[rows[:, None], order].astype(np.float32),
        ]
        q, f = g.current_quantity_face()
        face = np.zeros((self.num_envs, nf + 1), np.float32)
        face[rows, f] = 1.0
        bidder = np.zeros((self.num_envs, n), np.float32)
        has = g.bid >= 0
        bidder[rows[has], ((g.bidder - me) % n)[has]] = 1.0
        flags = np.stack([g.phase == SHOW, g.wilds_active], axis=1).astype(np.float32)
        obs = np.concatenate([*parts, q[:, None].astype(np.float32), face, bidder, flags], axis=1)
        return {"observation": obs, "action_mask": g.legal_mask().astype(np.int8)}


if "LiarsDiceBatch-v0" not in gymnasium.registry:
    gymnasium.register("LiarsDiceBatch-v0", vector_entry_point="liars_dice.integrations.vector:LiarsDiceVectorEnv")
