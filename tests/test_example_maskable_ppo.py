"""examples/maskable_ppo.py (issue 19 "An example that trains"): its
evaluation loop runs through ``action_masks()`` without sb3-contrib; with
sb3-contrib installed (the ``rl`` extra) a tiny training run goes through the
example's whole code path, and the full run (marked slow) improves.
"""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "maskable_ppo.py"
HAS_SB3 = importlib.util.find_spec("sb3_contrib") is not None


def test_the_example_s_evaluation_plays_through_action_masks() -> None:
    """A masked random player against probabilistic: only legal actions (an
    illegal one would end a game with -1 and lower the rate to 0), a rate in (0, 1)."""
    mod = runpy.run_path(str(EXAMPLE))
    rng = np.random.default_rng(0)
    rate = mod["win_rate"](lambda obs, masks: int(rng.choice(np.flatnonzero(masks))), 60, 0)
    assert 0.0 < rate < 1.0


@pytest.mark.skipif(not HAS_SB3, reason="sb3-contrib (the rl extra) is not installed")
def test_the_example_trains_a_few_steps() -> None:
    """The example's code path with a tiny step count: MaskablePPO builds on
    the Dict observation, learns through action_masks() and is evaluated."""
    mod = runpy.run_path(str(EXAMPLE))
    before, after = mod["train"](steps=128, seed=0, eval_episodes=10, n_steps=64)
    assert 0.0 <= before <= 1.0 and 0.0 <= after <= 1.0


@pytest.mark.slow
@pytest.mark.skipif(not HAS_SB3, reason="sb3-contrib (the rl extra) is not installed")
def test_the_example_learns_to_beat_probabilistic() -> None:
    mod = runpy.run_path(str(EXAMPLE))
    before, after = mod["train"](steps=30_000, seed=0, eval_episodes=300)
    assert after > before + 0.1, (before, after)
