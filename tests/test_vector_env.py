"""The batched engine as a Gymnasium vector environment (issue 10 "A batched
engine for self-play": "exposed as a Gymnasium vector environment")."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")

from liars_dice.engine import IllegalActionError  # noqa: E402
from liars_dice.integrations.vector import LiarsDiceVectorEnv  # noqa: E402


def _masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    pick = (rng.random(len(mask)) * mask.sum(axis=1)).astype(int)
    return (np.cumsum(mask, axis=1) > pick[:, None]).argmax(axis=1)


@pytest.mark.parametrize("rules, players", [("classic", 4), ("wild-stars", 3), ("openspiel", 2), ("perudo", 4)])
def test_masked_self_play_runs_with_next_step_autoreset(rules: str, players: int) -> None:
    env = gymnasium.make_vec("LiarsDiceBatch-v0", num_envs=16, rules=rules, players=players)
    inner = env.unwrapped
    assert env.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space and obs["observation"].shape == (16, inner.obs_size)
    rng = np.random.default_rng(0)
    ended = 0
    done_before = np.zeros(16, bool)
    for _ in range(3000 if rules != "openspiel" else 300):
        actions = _masked_random(obs["action_mask"], rng)
        obs, reward, term, trunc, info = env.step(actions)
        assert obs in env.observation_space and not trunc.any()
        assert (info["actor"][done_before] == -1).all() and (reward[done_before] == 0).all()  # the reset step
        if term.any():
            r = info["rewards"][term]
            assert np.allclose(r.sum(axis=1), 0.0, atol=1e-6) and (r.max(axis=1) == 1.0).all()  # zero sum, one winner
            assert np.isin(reward[term], np.array([1.0, -1.0 / (players - 1)], np.float32)).all()
        assert (reward[~term] == 0).all()
        ended += int(term.sum())
        done_before = term
        assert (obs["action_mask"][~term].sum(axis=1) > 0).all()
    assert ended >= 16
    env.close()


def test_observations_hold_the_seat_to_move_and_no_other_hidden_dice() -> None:
    env = LiarsDiceVectorEnv(8, rules="classic", players=3, seed=1)
    obs, info = env.reset(seed=1)
    g = env.game
    nf = 6
    seat = info["seat"]
    assert (obs["observation"][:, :nf] == g.hidden[np.arange(8), seat]).all()
    # changing the other seats' hidden dice changes nothing in the observation
    before = obs["observation"].copy()
    for b in range(8):
        for s in range(3):
            if s != seat[b]:
                g.hidden[b, s] = np.roll(g.hidden[b, s], 1)
    assert (env._obs()["observation"] == before).all()


def test_an_illegal_action_raises() -> None:
    env = LiarsDiceVectorEnv(4, rules="classic", players=2, seed=1)
    obs, _ = env.reset(seed=1)
    with pytest.raises(IllegalActionError):
        env.step(np.full(4, env.game.encoding.challenge))  # nothing to challenge at the opening


def test_the_ended_games_row_has_an_empty_mask_and_its_next_action_is_ignored() -> None:
    """The README's and the module's word on autoreset: the row returned with
    ``terminated`` has an all-zero mask, and the next step ignores its action
    (even one no game could take) and deals a new game there."""
    env = LiarsDiceVectorEnv(8, rules="classic", players=2, dice=1)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(500):
        obs, _, terminated, _, _ = env.step(_masked_random(obs["action_mask"], rng))
        if terminated.any():
            break
    assert terminated.any()
    ended = np.flatnonzero(terminated)
    assert not obs["action_mask"][ended].any()
    assert obs["action_mask"][~terminated].any(axis=1).all()
    actions = _masked_random(np.where(terminated[:, None], 1, obs["action_mask"]), rng)
    actions[ended] = env.single_action_space.n - 1
    obs, _, terminated2, _, _ = env.step(actions)
    assert obs["action_mask"][ended].any(axis=1).all()
    assert not terminated2[ended].any()
