"""engine.odds against brute-force enumeration of the unseen dice, under each
seed preset's wild rules (aces/stars wild, the classic suspension of seed 004)."""

from __future__ import annotations

import itertools

import pytest

from liars_dice.engine import SEED_PRESETS, Bid, Rules, bid_probability, view_bid_probability
from rule_helpers import new_round, play


def _brute(rules: Rules, bid: Bid, seen: tuple[int, ...], unseen: int, wilds: bool) -> float:
    hits = total = 0
    for rest in itertools.product(range(1, rules.faces + 1), repeat=unseen):
        total += 1
        hits += sum(1 for d in seen + rest if rules.matches(d, bid.face, wilds)) >= bid.quantity
    return hits / total


@pytest.mark.parametrize("preset", SEED_PRESETS)
@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("quantity", range(1, 6))
def test_bid_probability_matches_enumeration(preset: str, face: int, quantity: int) -> None:
    rules = Rules.preset(preset)
    seen = (1, face, 3)
    for wilds in (True, False):
        got = bid_probability(rules, Bid(quantity, face), seen, 3, wilds)
        assert got == pytest.approx(_brute(rules, Bid(quantity, face), seen, 3, wilds), abs=1e-12)


def test_opening_on_ones_in_classic_counts_ones_only() -> None:
    """Seed 004: a round opened on 1s has no wilds, so the odds of a later bid use p = 1/6."""
    rules = Rules.preset("classic")
    s = play(new_round(rules, {"ann": [1, 1, 4], "bob": [2, 3, 5]}), "2x1")
    view = s.view(1)
    assert not view.wilds_active
    got = view_bid_probability(view, Bid(2, 4))
    assert got == pytest.approx(_brute(rules, Bid(2, 4), (2, 3, 5), 3, False))
    assert bid_probability(rules, Bid(2, 1), (1,), 3) == pytest.approx(_brute(rules, Bid(2, 1), (1,), 3, False))


# -- every raise at once (the server's menu of legal raises) --------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from liars_dice.engine import PRESETS, CHALLENGE, Game, SeededDice, view_bid_probabilities  # noqa: E402


@given(preset=st.sampled_from(sorted(set(SEED_PRESETS) | {"perudo"})), seed=st.integers(0, 10**6),
       players=st.integers(2, 4), moves=st.integers(0, 12))
@settings(max_examples=150, deadline=None)
def test_view_bid_probabilities_equal_one_at_a_time(preset: str, seed: int, players: int, moves: int) -> None:
    """Batched per face (the seen matches and the chance of a match once per face),
    the chances are exactly :func:`view_bid_probability` of each raise, before the
    opening bid (the opening's wild rule, palifico rounds) and after it."""
    import random

    rules = PRESETS[preset]
    rng = random.Random(seed)
    state = Game.create(rules, [f"p{i}" for i in range(players)]).initial_state(0)
    dice = SeededDice(seed)
    for _ in range(moves):
        if state.is_over:
            return
        if state.is_chance:
            state = state.roll(dice)
            continue
        acts = state.legal_actions()
        bids = [a for a in acts if isinstance(a, Bid)]
        opts: list = bids[:3]
        if CHALLENGE in acts and (not opts or rng.random() < 0.2):
            opts = [CHALLENGE]
        state = state.apply(rng.choice(opts))
    if state.is_chance or state.is_over:
        state = state.roll(dice) if state.is_chance else state
    if state.is_over or state.is_chance:
        return
    v = state.view(state.to_move)
    raises = [a for a in v.legal_actions() if isinstance(a, Bid)]
    assert view_bid_probabilities(v, raises) == [view_bid_probability(v, b) for b in raises]
