"""The shared action encoding (issue 10 "one fixed, documented action encoding
shared with PettingZoo"): ids round-trip, the openspiel preset numbers actions as
OpenSpiel's ``liars_dice.cc`` does, shows are numbered in ``legal_shows`` order,
and over random games the legal ids are exactly the engine's legal actions.
"""

from __future__ import annotations

import random
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liars_dice.engine import CHALLENGE, PRESETS, Bid, Game, Rules, RulesError, SeededDice, legal_shows
from liars_dice.engine.encoding import CALZA, ActionEncoding, Show


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_id_round_trips(name: str) -> None:
    rules = Rules.preset(name)
    enc = ActionEncoding.create(rules, rules.min_players, min(rules.dice_per_player, 3))
    for i in range(enc.num_actions):
        assert enc.encode(enc.decode(i)) == i
    assert enc.decode(enc.challenge) == CHALLENGE


def test_openspiel_ids_are_liars_dice_cc_ids() -> None:
    """liars_dice.cc: bid id = (quantity - 1) * 6 + (face - 1), liar = total dice * 6."""
    enc = ActionEncoding.create(Rules.preset("openspiel"), 2, 1)
    assert enc.num_actions == 13 and enc.challenge == 12
    assert [enc.decode(i) for i in (0, 5, 6, 11)] == [Bid(1, 1), Bid(1, 6), Bid(2, 1), Bid(2, 6)]
    assert ActionEncoding.create(Rules.preset("openspiel"), 2, 2).challenge == 24


def test_show_ids_follow_legal_shows_order() -> None:
    """Seed 000 "The Show and Reroll Rule": every multiset leaving one die hidden;
    ids ordered by size then faces, as State.legal_shows."""
    enc = ActionEncoding.create(Rules.preset("wild-stars"), 2, 5)
    assert len(enc.shows) == sum(comb(6 + k - 1, k) for k in range(5)) == 210
    assert enc.num_actions == 60 + 1 + 210
    hand = (1, 3, 3, 5, 6)
    ids = enc.legal_show_ids(hand)
    assert [enc.decode(i).faces for i in ids] == legal_shows(hand)  # type: ignore[union-attr]
    assert enc.decode(ids[0]) == Show(())
    assert enc.legal_show_ids((4,)) == []  # one hidden die: no choice, no show decision
    assert ActionEncoding.create(Rules.preset("classic"), 4, 5).legal_show_ids(hand) == []


def test_calza_id_only_with_the_option() -> None:
    """RULES.md perudo "Calza": one id right after the challenge."""
    enc = ActionEncoding.create(Rules.preset("classic"), 3, 5)
    assert enc.calza is None
    with pytest.raises(ValueError, match="no calza"):
        enc.encode(CALZA)
    per = ActionEncoding.create(Rules.preset("perudo"), 3, 5)
    assert per.calza == per.challenge + 1 == 15 * 6 + 1 and per.num_actions == 92
    assert per.decode(per.calza) == CALZA and per.encode(CALZA) == per.calza


def test_bad_input_is_refused_with_one_sentence() -> None:
    enc = ActionEncoding.create(Rules.preset("classic"), 2, 2)
    for bad in (-1, enc.num_actions, "3"):
        with pytest.raises(ValueError, match="is not an action id"):
            enc.decode(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no bid"):
        enc.encode(Bid(5, 2))
    with pytest.raises(ValueError, match="no show-and-reroll"):
        enc.show_id(())
    with pytest.raises(RulesError, match="played by"):
        ActionEncoding.create(Rules.preset("openspiel"), 3, 1)
    with pytest.raises(RulesError, match="whole number of dice"):
        ActionEncoding.create(Rules.preset("classic"), 2, 0)
    with pytest.raises(RulesError, match="action ids"):
        ActionEncoding.create(Rules.preset("wild-stars"), 6, 100)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32), data=st.data())
def test_legal_ids_are_the_engines_legal_actions(name: str, seed: int, data: st.DataObject) -> None:
    """Property: in every position of a random game, decoding the legal ids gives
    the engine's legal actions (and shows), and each is accepted by State.apply."""
    rules = Rules.preset(name)
    n = data.draw(st.integers(rules.min_players, min(rules.max_players, 4)))
    d = data.draw(st.integers(1, min(rules.dice_per_player, 3)))
    game = Game.create(rules, [f"p{i}" for i in range(n)], [d] * n)
    enc = ActionEncoding.for_game(game.initial_state())
    rng, dice = random.Random(seed), SeededDice(seed)
    state = game.initial_state()
    while not state.is_over:
        if state.is_chance:
            assert enc.legal_ids(state) == []
            state = state.roll(dice)
            continue
        ids = enc.legal_ids(state)
        assert ids == sorted(ids)
        assert {enc.decode(i) for i in ids} == set(state.legal_actions())
        assert len(ids) == len(state.legal_actions())
        a = enc.decode(rng.choice(ids))
        show: tuple[int, ...] = ()
        if isinstance(a, Bid):
            hidden = state.hidden[state.to_move]
            show_ids = enc.legal_show_ids(hidden)
            if show_ids:
                assert [enc.decode(i).faces for i in show_ids] == state.legal_shows()  # type: ignore[union-attr]
                show = enc.decode(rng.choice(show_ids)).faces  # type: ignore[union-attr]
            else:
                assert state.legal_shows() == [()]
        state = state.apply(a, show)  # type: ignore[arg-type]
