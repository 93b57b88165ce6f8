"""Train sb3-contrib's MaskablePPO against the ``probabilistic`` bot in
``LiarsDice-v0`` (``classic``, one die each) and print the win rate before and
after (issue 19 "An example that trains").

MaskablePPO reads the legal actions through the environment's
``action_masks()`` method (sb3-contrib's ``get_action_masks``), so no wrapper
is needed; the policy sees the Dict observation (``MultiInputPolicy``).

Needs the ``rl`` extra (sb3-contrib, which brings stable-baselines3 and
PyTorch): ``pip install 'liars-dice-game[rl]'``, or in a clone
``.venv/bin/pip install -e '.[rl]'``.

    python examples/maskable_ppo.py            # 6,144 steps, about 20 s on one core
    python examples/maskable_ppo.py --steps 30000 --seed 1

The default run is short enough for CI (tests/test_example_maskable_ppo.py
runs it): a larger learning rate (2e-3), 512 steps a rollout, batches of 128
and 5 epochs a rollout learn the one-die table in a few thousand steps. The
network is small, so PyTorch runs on one thread (more threads only wait on
each other).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import liars_dice.integrations.pettingzoo  # noqa: F401  (registers LiarsDice-v0)

#: The table: classic rules, one die each, the learner against ``probabilistic``.
ENV_KWARGS: dict[str, Any] = {"rules": "classic", "opponents": ["probabilistic"], "dice": 1}


def make_env() -> gymnasium.Env[Any, Any]:
    return gymnasium.make("LiarsDice-v0", **ENV_KWARGS)


def win_rate(predict: Callable[[dict[str, np.ndarray], np.ndarray], int], episodes: int, seed: int) -> float:
    """Share of ``episodes`` games won by ``predict(observation, action_masks) ->
    action id``, on fresh tables seeded ``seed, seed + 1, ...``."""
    env = make_env()
    wins = 0
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        reward, done = 0.0, False
        while not done:
            action = predict(obs, env.unwrapped.action_masks())  # type: ignore[attr-defined]
            obs, reward, terminated, truncated, _ = env.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    return wins / episodes


#: MaskablePPO's settings for the short default run (PPO's defaults, 2,048
#: steps a rollout, batches of 64, 10 epochs and a rate of 3e-4, needed about
#: 30,000 steps for the same gain).
PPO_KWARGS: dict[str, Any] = {"learning_rate": 2e-3, "n_steps": 512, "batch_size": 128, "n_epochs": 5}


def train(steps: int = 6_144, seed: int = 0, eval_episodes: int = 500, n_steps: int = 512) -> tuple[float, float]:
    """Win rates of MaskablePPO before and after ``steps`` environment steps
    (a game of one die each is one or two of the learner's steps).

    :param n_steps: steps per rollout (PPO's ``n_steps``); small for a smoke run.
    :returns: ``(before, after)``, each a share of ``eval_episodes`` games won.
    """
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    kwargs = {**PPO_KWARGS, "n_steps": n_steps, "batch_size": min(PPO_KWARGS["batch_size"], n_steps)}
    model = MaskablePPO("MultiInputPolicy", make_env(), seed=seed, verbose=0, **kwargs)

    def predict(obs: dict[str, np.ndarray], masks: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return int(action)

    before = win_rate(predict, eval_episodes, seed=10_000 + seed)
    model.learn(total_timesteps=steps)
    after = win_rate(predict, eval_episodes, seed=10_000 + seed)
    return before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6_144)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-episodes", type=int, default=500)
    args = parser.parse_args()
    before, after = train(args.steps, args.seed, args.eval_episodes)
    print(f"win rate against probabilistic: {before:.1%} before, {after:.1%} after {args.steps:,} steps")


if __name__ == "__main__":
    main()
