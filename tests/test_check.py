"""`State.check` gives the typed error and its reason without applying anything;
`Rules.wilds_active_after_opening` is the one statement of the classic suspension
(issue 8 "Notation lives on the rules and the position")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import (
    CHALLENGE,
    PRESETS,
    Bid,
    Game,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    Rules,
    SeededDice,
    legal_actions,
)


def _state(preset: str = "wild-stars", hands=((6, 4, 2, 5, 5), (3, 3, 3, 3, 3))):
    return Game.create(Rules.preset(preset), ["ann", "bob"]).initial_state().deal(hands)


def test_check_raises_the_same_error_as_apply_and_changes_nothing() -> None:
    s = _state()
    assert s.check(Bid(2, 3)) is None
    s1 = s.apply(Bid(4, 3))
    with pytest.raises(IllegalActionError) as e:
        s1.check(Bid(2, 1))
    assert e.value.message.startswith("two stars does not raise the bid of four 3s")
    with pytest.raises(NotYourTurnError):
        s1.check(Bid(5, 5), seat=0)
    assert s1 == s.apply(Bid(4, 3))


def test_show_message_names_faces_not_python_lists() -> None:
    """Issue 8 fault 7: the message read "[5, 5, 5] are not all among [6, 4, 2, 5, 5]"."""
    s = _state()
    with pytest.raises(IllegalActionError) as e:
        s.check(Bid(3, 5), (5, 5, 5))
    assert "[" not in e.value.message and "]" not in e.value.message
    assert e.value.message == "Only your hidden dice can be shown: 6, 4, 2, 5, 5 hold two 5s, not three."


def test_show_message_draws_the_star() -> None:
    s = _state(hands=((1, 4, 2, 5, 5), (3, 3, 3, 3, 3)))
    with pytest.raises(IllegalActionError, match="^Only your hidden dice can be shown: ★, 4, 2, 5, 5 hold one star, not two.$"):
        s.check(Bid(3, 5), (1, 1))


def test_check_after_the_game_is_over() -> None:
    g = Game.create(Rules.preset("classic"), ["ann", "bob"], [1, 1])
    s = g.initial_state().deal([(2,), (3,)]).apply(Bid(2, 2)).apply(CHALLENGE)
    s = s.deal([(2,), ()] if s.dice[1] == 0 else [(), (3,)]) if not s.is_over else s
    if not s.is_over:
        s = s.apply(Bid(1, 2)).apply(CHALLENGE)
    assert s.is_over
    with pytest.raises(GameOverError):
        s.check(Bid(1, 2))


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10_000), steps=st.integers(0, 8))
def test_one_legal_actions(preset: str, seed: int, steps: int) -> None:
    """State.legal_actions, SeatView.legal_actions and the module function agree,
    and check() accepts exactly those actions."""
    rules = Rules.preset(preset)
    n = rules.min_players
    s = Game.create(rules, [f"p{i}" for i in range(n)], [2] * n).initial_state().roll(SeededDice(seed))
    import random

    rng = random.Random(seed)
    for _ in range(steps):
        if not s.phase.value == "bid":
            break
        acts = s.legal_actions()
        assert acts == s.view(s.to_move).legal_actions()
        assert acts == legal_actions(rules, s.current_bid, s.dice_in_play)
        for q in range(1, s.dice_in_play + 1):
            for f in range(1, rules.faces + 1):
                assert s.is_legal(Bid(q, f)) == (Bid(q, f) in acts)
        a = [x for x in acts if x is not CHALLENGE][:3] or acts
        s = s.apply_unchecked(rng.choice(a))
        if s.is_chance and not s.is_over:
            s = s.roll(SeededDice(seed))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_wilds_active_after_opening(preset: str) -> None:
    """Seed 004 "One's Are Wild!": a round opened on the wild face suspends wilds
    only where the rules say so; a rule set without wilds never has them."""
    rules = Rules.preset(preset)
    for face in range(1, rules.faces + 1):
        expected = rules.wild_face is not None and not (
            rules.wilds_suspended_on_wild_opening and face == rules.wild_face
        )
        assert rules.wilds_active_after_opening(face) is expected
    assert Rules(wild_face=None).wilds_active_after_opening(1) is False
    assert Rules.preset("classic").wilds_active_after_opening(1) is False
    assert Rules.preset("classic").wilds_active_after_opening(2) is True
    assert Rules.preset("aces-wild").wilds_active_after_opening(1) is True


def test_show_message_of_one_die_is_singular() -> None:
    """One die shown that is not held names that face alone."""
    s = _state()
    with pytest.raises(IllegalActionError) as e:
        s.check(Bid(3, 5), (3,))
    assert e.value.message == "Only your hidden dice can be shown: 6, 4, 2, 5, 5 hold no 3."


def test_show_message_names_only_the_face_not_held() -> None:
    """A new user (stop 27) showed ★ 5 from 3, 5, 3, 3, 6
    and read "★, 5 are not all among ...", though the 5 was there."""
    s = _state(hands=((3, 5, 3, 3, 6), (2, 2, 2, 2, 2)))
    with pytest.raises(IllegalActionError) as e:
        s.check(Bid(3, 5), (1, 5))
    assert e.value.message == "Only your hidden dice can be shown: 3, 5, 3, 3, 6 hold no star."


def test_show_of_a_face_the_dice_do_not_have_says_so() -> None:
    """Over the websocket, show [7] read "7 is not among ...": 7 is no face at all."""
    s = _state()
    for show, message in [((7,), "7 is not a face"), ((0, 9), "0, 9 are not faces")]:
        with pytest.raises(IllegalActionError) as e:
            s.check(Bid(3, 5), show)
        assert e.value.message == f"{message} of these dice: a show names faces 1 to 6."
    assert s.check(Bid(3, 5), (5,)) is None
