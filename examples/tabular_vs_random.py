"""Train a tabular agent against the ``random`` bot in ``LiarsDice-v0`` and show
that it improves (issue 10 "an example ... that trains a small tabular or numpy
agent against random"). Runs in seconds; the tests run it.

The agent is every-visit Monte Carlo control with epsilon-greedy exploration
over the legal actions (the ``action_mask``): one row of action values per
information key (its own dice and the bids of the round so far), numpy arrays
indexed by the shared action ids.

    python examples/tabular_vs_random.py --episodes 3000 --seed 1
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import gymnasium
import numpy as np

import liars_dice.integrations.pettingzoo  # noqa: F401  (registers LiarsDice-v0)


def key(obs: dict[str, np.ndarray]) -> bytes:
    """The agent's information: the whole observation vector (own dice, dice
    counts, this round's bids), as bytes for a dictionary key."""
    return obs["observation"].astype(np.int8).tobytes()


def choose(q: np.ndarray, mask: np.ndarray, eps: float, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    if rng.random() < eps:
        return int(rng.choice(legal))
    values = q[legal]
    best = legal[values == values.max()]
    return int(rng.choice(best))


def evaluate(env: gymnasium.Env, table: dict[bytes, np.ndarray], episodes: int, seed: int) -> float:
    """Win rate of the greedy policy (untrained keys: uniform over legal actions)."""
    rng = np.random.default_rng(seed)
    n = env.action_space.n
    wins = 0
    for e in range(episodes):
        obs, _ = env.reset(seed=seed + e)
        done = False
        reward = 0.0
        while not done:
            q = table.get(key(obs), np.zeros(n))
            obs, reward, done, _, _ = env.step(choose(q, obs["action_mask"], 0.0, rng))
        wins += reward > 0
    return wins / episodes


def train(episodes: int = 3000, seed: int = 1, eval_episodes: int = 1000) -> tuple[float, float]:
    """Win rate against ``random`` before and after ``episodes`` of training."""
    env = gymnasium.make("LiarsDice-v0", rules="classic", opponents=["random"], dice=1)
    n = env.action_space.n
    before = evaluate(env, {}, eval_episodes, 10_000_000)
    rng = np.random.default_rng(seed)
    values: dict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(n))
    counts: dict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(n))
    for e in range(episodes):
        obs, _ = env.reset(seed=seed * 1_000_003 + e)
        visited = []
        done = False
        reward = 0.0
        while not done:
            k = key(obs)
            a = choose(values[k], obs["action_mask"], 0.2, rng)
            visited.append((k, a))
            obs, reward, done, _, _ = env.step(a)
        for k, a in visited:  # the return is the final reward (no discount)
            counts[k][a] += 1
            values[k][a] += (reward - values[k][a]) / counts[k][a]
    after = evaluate(env, dict(values), eval_episodes, 10_000_000)
    return before, after


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    before, after = train(args.episodes, args.seed)
    print(f"win rate against random: {before:.1%} before training, {after:.1%} after {args.episodes} episodes")


if __name__ == "__main__":
    main()
