"""Dice come from an injected source (issue 2 section 3): seeded for simulation
and tests, so a seed plus the actions reproduce a game; `secrets`-based for
human play; scripted for tests."""

from __future__ import annotations

import random

import pytest

from liars_dice.engine import ChanceError, Game, Rules, ScriptedDice, SecureDice, SeededDice


def _play(seed: int, choices: int) -> object:
    game = Game.create(Rules.preset("wild-stars"), ["a", "b", "c"])
    dice, rng = SeededDice(seed), random.Random(choices)
    s = game.initial_state(0)
    while not s.is_over:
        if s.is_chance:
            s = s.roll(dice)
        else:
            a = rng.choice(s.legal_actions())
            shows = s.legal_shows()
            s = s.apply(a, rng.choice(shows) if hasattr(a, "face") else ())
    return s


def test_seed_plus_actions_reproduce_a_game() -> None:
    """Issue 2 section 3: "a seed plus the actions reproduce a game"."""
    assert _play(7, 3) == _play(7, 3)
    assert _play(7, 3) != _play(8, 3)


def test_seeded_dice_are_the_random_module_draws() -> None:
    """SeededDice(seed) rolls what random.Random(seed).randrange(faces) + 1 gives, one die after another."""
    d, r = SeededDice(11), random.Random(11)
    for n in (1, 5, 0, 3):
        assert d.roll(n, 6) == tuple(r.randrange(6) + 1 for _ in range(n))


def test_a_deal_is_each_seat_in_turn() -> None:
    """A deal hands out one seeded draw seat by seat in seating order."""
    game = Game.create(Rules.preset("classic"), ["a", "b", "c"], [2, 0, 3])
    s = game.initial_state(0).roll(SeededDice(5))
    r = random.Random(5)
    faces = [r.randrange(6) + 1 for _ in range(5)]
    assert s.hidden == (tuple(faces[:2]), (), tuple(faces[2:]))


def test_secure_dice_roll_in_range() -> None:
    """SecureDice (the `secrets` module) for human play: faces 1..faces."""
    faces = SecureDice().roll(500, 6)
    assert len(faces) == 500 and set(faces) == set(range(1, 7))


def test_scripted_dice_hand_out_given_faces_then_run_out() -> None:
    d = ScriptedDice([1, 2, 3])
    assert d.roll(2) == (1, 2)
    with pytest.raises(ChanceError, match="run out"):
        d.roll(2)


def test_reroll_comes_from_the_source() -> None:
    """Seed 000 Show and reroll: the remaining hidden dice are rerolled, from the injected source."""
    game = Game.create(Rules.preset("wild-stars"), ["a", "b"], [3, 3])
    s = game.initial_state(0).roll(ScriptedDice([5, 5, 2, 3, 3, 4, 6]))
    s = s.apply(s.legal_actions()[0], (5,))
    s = s.roll(ScriptedDice([6, 1]))
    assert s.hidden[0] == (6, 1) and s.shown[0] == (5,)
