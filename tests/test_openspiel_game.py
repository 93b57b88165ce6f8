"""The OpenSpiel game ``python_liars_dice_ld`` (issue 10 "OpenSpiel"): OpenSpiel's
own consistency test on every preset and seat count, move-by-move agreement
with OpenSpiel's C++ ``liars_dice`` on the ``openspiel`` preset, MCCFR on a whole
game, serialization, and a property that no information state or observation
holds another seat's hidden dice.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

from liars_dice.engine import PRESETS, Rules  # noqa: E402
from liars_dice.integrations.openspiel import SHORT_NAME  # noqa: E402  (registers the game)
from liars_dice.integrations.openspiel.game import LiarsDiceState  # noqa: E402


def load(rules: str, players: int = 2, dice: int = 0) -> object:
    return pyspiel.load_game(SHORT_NAME, {"rules": rules, "players": players, "dice": dice})


def _cases() -> list[tuple[str, int]]:
    out = []
    for name, rules in sorted(PRESETS.items()):
        for n in range(max(2, rules.min_players), min(6, rules.max_players) + 1):
            out.append((name, n))
    return out


@pytest.mark.parametrize(("name", "players"), _cases())
def test_random_sim_test_on_every_preset(name: str, players: int) -> None:
    """OpenSpiel's own API consistency check (clone, history, serialization,
    returns, tensors) over random games of every preset, 2-6 seats."""
    dice = Rules.preset(name).dice_per_player if players <= 3 else 2
    game = load(name, players, dice)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "players"), [("classic", 3), ("wild-stars", 4), ("aces-wild", 2)])
def test_max_game_length_holds_and_returns_are_zero_sum(name: str, players: int) -> None:
    game = load(name, players, 2)
    rng = random.Random(7)
    for _ in range(20):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        assert moves <= game.max_game_length()
        r = state.returns()
        assert sum(r) == pytest.approx(0) and max(r) == 1.0
        assert sorted(r)[0] == pytest.approx(-1 / (players - 1))


@pytest.mark.parametrize("dice", [1, 2])
def test_openspiel_preset_matches_cpp_liars_dice_move_by_move(dice: int) -> None:
    """The same chance outcomes, legal actions, players and returns as OpenSpiel's
    C++ liars_dice, move by move, over random games."""
    ours = load("openspiel", 2, dice)
    theirs = pyspiel.load_game("liars_dice", {"numdice": dice})
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    rng = random.Random(dice)
    for _ in range(200):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not b.is_terminal():
            assert a.current_player() == b.current_player()
            if b.is_chance_node():
                assert [o for o, _ in a.chance_outcomes()] == [o for o, _ in b.chance_outcomes()]
                assert [q for _, q in a.chance_outcomes()] == pytest.approx([q for _, q in b.chance_outcomes()])
                act = rng.choice([o for o, _ in b.chance_outcomes()])
            else:
                assert a.legal_actions() == b.legal_actions()
                act = rng.choice(b.legal_actions())
            a.apply_action(act)
            b.apply_action(act)
        assert a.is_terminal()
        assert a.returns() == b.returns()


def test_external_sampling_mccfr_runs_on_a_whole_game() -> None:
    """OpenSpiel's external-sampling MCCFR on a two-player whole game (every
    round to the last player standing) of 2 dice each: it visits information
    states, and its average policy is a distribution over the legal actions.

    The dice have two faces: external sampling enumerates every action of the
    updating seat in every round, so with six faces one iteration can take
    minutes (a heavy tail measured on this machine)."""
    import json

    from open_spiel.python.algorithms import external_sampling_mccfr

    rules = Rules.preset("classic").with_options(name="classic-2-faces", faces=2)
    game = pyspiel.load_game(SHORT_NAME, {"rules": json.dumps(rules.to_dict()), "players": 2, "dice": 2})
    np.random.seed(0)
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    for _ in range(2):
        solver.iteration()
    assert len(solver._infostates) > 100
    pol = solver.average_policy()
    state = game.new_initial_state()
    for a in (0, 1, 1, 0):  # deal 1, 2 | 2, 1
        state.apply_action(a)
    assert state.pos.rounds == 1 and not state.is_chance_node()
    probs = pol.action_probabilities(state)
    assert sorted(probs) == state.legal_actions()
    assert sum(probs.values()) == pytest.approx(1.0)
    # play one whole game with the average policy against itself: it ends
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(2))
        else:
            p = pol.action_probabilities(state)
            state.apply_action(rng.choices(list(p), weights=list(p.values()))[0])
    assert sorted(state.returns()) == [-1.0, 1.0]


def _final_round_deals(game: object, how_many: int, seed: int) -> list[object]:
    """States of random whole games at the deal of their last round (every
    seat down to one die), each after a different history."""
    rng = random.Random(seed)
    out: list[object] = []
    while len(out) < how_many:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        while not state.is_terminal():
            if state.is_chance_node() and sum(state.pos.state.dice) == 2 and not state.pos.state.hidden[0]:
                out.append(state)
                break
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return out


def test_external_sampling_mccfr_on_a_real_preset_whole_game() -> None:
    """OpenSpiel's external-sampling MCCFR on a whole game of the ``classic``
    preset (six faces), two seats, 2 dice each: a few hundred of its updates
    (``_update_regrets``, one per seat, as ``iteration()`` makes from the root)
    from the deal of the last round of random whole games, so the information
    states carry the past rounds. The average policy is a distribution over our
    legal actions wherever it is asked, and learned something (not uniform
    everywhere).

    Not from the root: one external-sampling iteration of the whole game
    enumerates every action of the updating seat in every round, and each
    first-round leaf opens a whole second round: about 8 million node visits per
    iteration here (measured: 300,000 visits in 289 s without finishing one;
    docs/integrations.md)."""
    from open_spiel.python.algorithms import external_sampling_mccfr

    game = load("classic", 2, 2)
    starts = _final_round_deals(game, 4, seed=3)
    assert all("|r2" in s.information_state_string(0) for s in starts)  # past rounds in the key
    np.random.seed(0)  # the solver samples with numpy's global generator
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    for i in range(200):
        for player in range(2):
            solver._update_regrets(starts[i % len(starts)].clone(), player)
    assert len(solver._infostates) > 100
    pol = solver.average_policy()
    rng = random.Random(5)
    learned = False
    for start in starts:
        for _ in range(25):
            state = start.clone()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                    continue
                probs = pol.action_probabilities(state)
                legal = state.legal_actions()
                assert sorted(probs) == legal
                p = np.array([probs[a] for a in legal])
                assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)
                learned |= bool(np.ptp(p) > 1e-6)
                state.apply_action(rng.choices(legal, weights=list(p))[0])
            assert sorted(state.returns()) == [-1.0, 1.0]
    assert learned


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_serialization_round_trips(name: str) -> None:
    game = load(name, 2, 2)
    rng = random.Random(1)
    state = game.new_initial_state()
    for _ in range(9):
        if state.is_terminal():
            break
        acts = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(acts))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.information_state_string(0) == state.information_state_string(0)
    assert str(pickle.loads(pickle.dumps(state))) == str(state)


def test_rules_as_json_and_bad_parameters() -> None:
    import json

    rules = Rules.preset("classic").with_options(name="mine", faces=4)
    game = pyspiel.load_game(SHORT_NAME, {"rules": json.dumps(rules.to_dict()), "players": 3, "dice": 1})
    assert game.max_chance_outcomes() == 4 and game.num_distinct_actions() == 3 * 4 + 1
    with pytest.raises(Exception, match="no rule set called 'nope'"):
        load("nope")
    with pytest.raises(Exception, match="played by 2 to 2 players"):
        load("openspiel", 3, 1)


def _random_state(game: object, rng: random.Random, steps: int) -> LiarsDiceState:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    for _ in range(steps):
        if state.is_terminal():
            break
        acts = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(acts))
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(PRESETS)),
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 80),
)
def test_no_information_state_or_observation_holds_another_seats_dice(
    name: str, players: int, seed: int, steps: int
) -> None:
    """Property: redraw every other seat's hidden dice of the current round; the
    seat's information-state string and tensor, observation string and tensor
    are unchanged (so none of them depends on those dice)."""
    rules = Rules.preset(name)
    players = min(players, rules.max_players)
    game = load(name, players, min(rules.dice_per_player, 3))
    rng = random.Random(seed)
    state = _random_state(game, rng, steps)
    if state.is_terminal() or state.is_chance_node():
        return
    np_rng = np.random.default_rng(seed)
    for p in range(players):
        other = state.resample(p, np_rng)
        assert other.pos.state.hidden[p] == state.pos.state.hidden[p]
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.observation_string(p) == state.observation_string(p)
        assert other.information_state_tensor(p) == state.information_state_tensor(p)
        assert other.observation_tensor(p) == state.observation_tensor(p)


def test_the_no_leak_property_can_fail() -> None:
    """Resampling does change other seats' dice (so the property above tests
    something), and a seat's own string does show its own dice."""
    game = load("classic", 2, 5)
    state = _random_state(game, random.Random(0), 10)
    assert not state.is_chance_node()
    changed = False
    for k in range(20):
        other = state.resample(0, np.random.default_rng(k))
        changed |= other.pos.state.hidden[1] != state.pos.state.hidden[1]
        assert other.information_state_string(1) != state.information_state_string(1) or (
            other.pos.state.hidden[1] == state.pos.state.hidden[1]
        ) or sorted(other.pos.state.hidden[1]) == sorted(state.pos.state.hidden[1])
    assert changed
    own = "".join(map(str, sorted(state.pos.state.hidden[0])))
    assert f"h{own}" in state.information_state_string(0)


# -- issue 19: observation types, the rules-file form, seeded resampling, the terminal string --


def _mid_second_round(dice: int = 2, seed: int = 0) -> LiarsDiceState:
    """A state of a classic whole game in its second round, after one bid."""
    game = load("classic", 2, dice)
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        while not state.is_terminal():
            if not state.is_chance_node() and state.pos.rounds == 2 and len(state.pos.state.bids) == 1:
                return state
            acts = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(rng.choice(acts))


@pytest.mark.parametrize("perfect_recall", [False, True])
def test_a_public_observation_holds_no_private_dice(perfect_recall: bool) -> None:
    """Issue 19, fault 1: a public-only request (``PrivateInfoType.NONE``) gets
    the public information alone, through OpenSpiel's Python
    ``make_observation`` and pyspiel's ``game.make_observer``: the seat's own
    dice are in no string or tensor (redrawing them changes nothing), while the
    default observer does show them."""
    from open_spiel.python.observation import make_observation

    state = _mid_second_round()
    game = state.get_game()
    public = pyspiel.IIGObservationType(
        private_info=pyspiel.PrivateInfoType.NONE, perfect_recall=perfect_recall, public_info=True
    )
    private = pyspiel.IIGObservationType(perfect_recall=perfect_recall)
    obs, own = make_observation(game, public), make_observation(game, private)
    hand = "".join(map(str, sorted(state.pos.state.hidden[0])))
    assert f" h{hand}" in own.string_from(state, 0)  # the default observer shows seat 0's dice
    assert "hand" not in obs.dict and " h" not in obs.string_from(state, 0)
    # seat 1's point of view redraws seat 0's dice: seat 0's public view is unchanged
    other = state.resample(1, np.random.default_rng(3))
    assert other.pos.state.hidden[0] != state.pos.state.hidden[0]
    assert obs.string_from(other, 0) == obs.string_from(state, 0) == obs.string_from(state, 1).replace("p1", "p0", 1)
    obs.set_from(state, 0)
    first = obs.tensor.copy()
    obs.set_from(other, 0)
    assert np.array_equal(first, obs.tensor)
    assert game.make_observer(public, {}) is not None  # pyspiel's own path builds it too


def test_an_observation_type_the_game_does_not_provide_gets_none() -> None:
    """As OpenSpiel's built-in liars_dice: all players' private information
    is not provided, so the observer is None (never one with private dice)."""
    from open_spiel.python.observation import make_observation

    game = load("classic", 2, 2)
    every = pyspiel.IIGObservationType(private_info=pyspiel.PrivateInfoType.ALL_PLAYERS, perfect_recall=False)
    assert make_observation(game, every) is None
    assert make_observation(pyspiel.load_game("liars_dice"), every) is None


def test_the_rules_parameter_takes_the_rules_file_form() -> None:
    """Issue 19, fault 4: ``{"preset": NAME, ...}``, the form of every rules
    file (RECORD-FORMAT.md "rules"), is a rules parameter; a bad option is one
    sentence naming it."""
    import json

    game = pyspiel.load_game(SHORT_NAME, {"rules": json.dumps({"preset": "perudo", "calza": False}), "players": 3, "dice": 2})
    rules = game.setup.game.rules
    assert rules.name == "perudo" and rules.calza is False and rules.palifico == Rules.preset("perudo").palifico
    assert game.num_distinct_actions() == 3 * 2 * 6 + 1  # no calza id
    with pytest.raises(Exception, match="The rules parameter: unknown rule option 'nope'"):
        load(json.dumps({"preset": "perudo", "nope": 1}))


def test_resample_from_infostate_follows_openspiel_s_sampler() -> None:
    """Issue 19, fault 5: the same seeded ``UniformProbabilitySampler`` gives
    the same world (so ISMCTS runs repeat), and the sampler decides the draws."""
    state = _mid_second_round(dice=5)
    worlds = {
        seed: [state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)).history() for _ in range(2)]
        for seed in range(6)
    }
    assert all(a == b for a, b in worlds.values())
    assert len({tuple(a) for a, _ in worlds.values()}) > 1
    np.random.seed(4)
    first = state.resample_from_infostate(0).history()
    np.random.seed(4)
    assert state.resample_from_infostate(0).history() == first  # no sampler: numpy's seeded global generator


def test_the_terminal_string_shows_the_revealed_dice_and_the_bids() -> None:
    """Issue 19, fault 6: at the end, ``str(state)`` tells the last round:
    every revealed cup, its bids and the call, with the count."""
    game = load("classic", 2, 1)
    state = game.new_initial_state()
    for a in (3, 3):  # deal 4 | 4
        state.apply_action(a)
    enc = state.pos.setup.encoding
    for bid in ((1, 4), (2, 4)):
        state.apply_action(enc.bid_id(*bid))
    state.apply_action(enc.challenge)
    assert state.is_terminal()
    text = str(state)
    assert "revealed p0:4 p1:4" in text and "bids [0:1x4 1:2x4]" in text, text
    assert "p0:liar on p1's 2x4, count 2" in text and "p1 wins" in text
