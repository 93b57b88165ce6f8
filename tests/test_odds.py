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
