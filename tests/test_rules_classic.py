"""`classic`: seed 004_16cc4cb7912f53f9.txt as settled by RULES.md "`classic`",
its "Ruling, raising", and worked case 6."""

from __future__ import annotations

import pytest

from liars_dice.engine import Bid, Exact, Loss, Opener, Ordering, Rules, legal_actions
from rule_helpers import lost_by_name, new_round, play

CL = Rules.preset("classic")


def test_preset_options_match_rules_md() -> None:
    """RULES.md `classic`: faces 1-6, 1s wild unless the round opens on 1s, plain
    ordering, one die lost, exact count wins for the bidder, the loser opens, 5 dice."""
    assert CL.faces == 6 and CL.wild_face == 1 and CL.wilds_suspended_on_wild_opening
    assert CL.ordering is Ordering.PLAIN
    assert CL.loss is Loss.ONE and CL.exact is Exact.CHALLENGER_LOSES
    assert CL.next_opener is Opener.LOSER
    assert not CL.die_hard and not CL.show_and_reroll and not CL.single_round
    assert (CL.min_players, CL.max_players, CL.dice_per_player) == (2, 6, 5)


def test_ones_wild_for_other_faces() -> None:
    """Seed 004 "One's Are Wild!": ones "can represent any face value in a call"."""
    s = play(new_round(CL, {"ann": [1, 4, 2], "bob": [4, 1, 6]}), "2x4", "liar")
    assert s.results[0].count == 4 and s.results[0].wilds_active


def test_worked_case_6_opening_on_ones_suspends_wilds_for_the_round() -> None:
    """RULES.md worked case 6 (seed 004: "if the first player of the round calls two
    1's, then for the rest of the round, a 1 can only represent the face value of 1"):
    the round opens on two 1s; later "five 4s" counts only 4s."""
    hands = {"ann": [1, 1, 4, 2, 2], "bob": [1, 4, 4, 6, 6], "cy": [4, 1, 5, 5, 3]}
    s = play(new_round(CL, hands), "2x1", "3x4", "5x4", "liar")
    r = s.results[0]
    assert r.count == 4 and not r.wilds_active
    assert lost_by_name(s) == {"cy": 1}


def test_suspension_lasts_one_round() -> None:
    """Seed 004: the suspension holds "for the rest of the round" only; the next round has wilds again."""
    hands = {"ann": [1, 1, 4], "bob": [1, 4, 6]}
    s = play(new_round(CL, hands), "2x1", "liar")
    assert not s.results[0].wilds_active
    s = play(s.deal([[1, 4, 4], [1, 4, 6][: s.dice[1]]]), "2x4")
    assert s.wilds_active


def test_later_bid_on_ones_does_not_suspend_wilds() -> None:
    """RULES.md `classic`: only an *opening* bid on 1s suspends wilds; a later one does not."""
    hands = {"ann": [1, 1, 4, 2, 2], "bob": [1, 4, 4, 6, 6], "cy": [4, 1, 5, 5, 3]}
    s = play(new_round(CL, hands), "2x4", "3x1", "6x4", "liar")
    assert s.results[0].wilds_active and s.results[0].count == 8


def test_bid_on_ones_counts_ones_only() -> None:
    """RULES.md `classic`: "A bid on 1s always counts 1s only"."""
    s = play(new_round(CL, {"ann": [1, 1, 4], "bob": [1, 4, 6]}), "2x4", "3x1", "liar")
    assert s.results[0].count == 3


def test_ones_may_be_bid_at_any_point() -> None:
    """Seed 004 "Note: 1's can be called by any player on their turn in the round,
    regardless if they went first" and RULES.md "Ruling, raising": a higher
    quantity may name any face, including 1."""
    s = play(new_round(CL, {"ann": [2] * 5, "bob": [3] * 5}), "4x6")
    assert s.is_legal(Bid(5, 1)) and s.is_legal(Bid(5, 2))
    assert not s.is_legal(Bid(4, 1)), "the same quantity needs a higher face, and 1 is the lowest"


def test_raise_quantity_value_or_both() -> None:
    """Seed 004 "Raise the Bid: Increase the quantity, the value, or both (e.g.,
    "five threes" or "four fours")" after four threes."""
    s = play(new_round(CL, {"ann": [2] * 5, "bob": [3] * 5}), "4x3")
    assert s.is_legal(Bid(5, 3)) and s.is_legal(Bid(4, 4)) and s.is_legal(Bid(5, 4))
    assert not s.is_legal(Bid(4, 3)) and not s.is_legal(Bid(4, 2)) and not s.is_legal(Bid(3, 6))


@pytest.mark.parametrize("q", range(1, 8))
@pytest.mark.parametrize("f", range(1, 7))
def test_plain_order_is_exactly_quantity_then_face(q: int, f: int) -> None:
    """RULES.md "Ruling, raising": a raise is a higher quantity of any face, or the
    same quantity of a higher face (1 is the lowest face)."""
    after = set(legal_actions(CL, Bid(q, f), 10)[:-1])
    expected = {Bid(q2, f2) for q2 in range(1, 11) for f2 in range(1, 7) if q2 > q or (q2 == q and f2 > f)}
    assert after == expected


def test_exact_count_is_a_win_for_the_bidder() -> None:
    """Seed 004 "Exact Quantity Bid": "the player making the correct bid wins, and the challenger loses one die"."""
    s = play(new_round(CL, {"ann": [3, 3, 1], "bob": [2, 5, 6]}), "3x3", "liar")
    assert s.results[0].count == 3
    assert lost_by_name(s) == {"bob": 1}


def test_false_bid_bidder_loses_one_die() -> None:
    """Seed 004 "Correct Challenge: If the bid is false ... the bidder loses one die"."""
    s = play(new_round(CL, {"ann": [3, 3, 2], "bob": [2, 5, 6]}), "6x3", "liar")
    assert lost_by_name(s) == {"ann": 1}


def test_true_bid_challenger_loses_one_die_not_the_difference() -> None:
    """Seed 004 "Incorrect Challenge: ... the challenger loses one die"."""
    s = play(new_round(CL, {"ann": [3, 3, 1], "bob": [3, 1, 3]}), "1x3", "liar")
    assert s.results[0].count == 6 and lost_by_name(s) == {"bob": 1}


def test_loser_opens_next_round() -> None:
    """Seed 004 "Next Round: ... starting from the player who lost a die"."""
    hands = {"ann": [3, 3], "bob": [2, 5], "cy": [4, 4]}
    assert play(new_round(CL, hands), "3x6", "liar").to_move == 0
    assert play(new_round(CL, hands), "1x3", "liar").to_move == 1


def test_loser_out_next_player_still_in_opens() -> None:
    """RULES.md `classic` Next round: "If that player is out, the next player still in after them opens"."""
    s = play(new_round(CL, {"ann": [3, 3], "bob": [2], "cy": [4, 4]}), "1x3", "5x6", "liar")
    assert s.results[0].out == (1,) and s.to_move == 2
