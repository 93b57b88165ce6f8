"""`aces-wild`: seed 003_c4013feaf8943fbd.txt as settled by RULES.md "`aces-wild`"
and its worked case 5."""

from __future__ import annotations

import pytest

from liars_dice.engine import (
    Bid,
    Exact,
    Game,
    IllegalActionError,
    Loss,
    Opener,
    Ordering,
    Rules,
    RulesError,
    legal_actions,
)
from rule_helpers import lost_by_name, new_round, play, seat

AW = Rules.preset("aces-wild")
ACE = 1


def test_preset_options_match_rules_md() -> None:
    """RULES.md `aces-wild`: faces 1-6, aces wild, half/double conversions, one die lost,
    exact count wins for the bidder, the loser opens, 2-6 players, 5 dice each."""
    assert AW.faces == 6 and AW.wild_face == ACE
    assert AW.ordering is Ordering.TRACK
    assert AW.loss is Loss.ONE and AW.exact is Exact.CHALLENGER_LOSES
    assert AW.next_opener is Opener.LOSER
    assert not AW.die_hard and not AW.show_and_reroll and not AW.wilds_suspended_on_wild_opening
    assert (AW.min_players, AW.max_players, AW.dice_per_player) == (2, 6, 5)


def test_two_to_six_players() -> None:
    """Seed 003 "Players: 2-6 players"."""
    for n in (2, 6):
        Game.create(AW, [f"p{i}" for i in range(n)])
    for n in (1, 7):
        with pytest.raises(RulesError, match="2 to 6 players"):
            Game.create(AW, [f"p{i}" for i in range(n)])


def test_messages_say_aces() -> None:
    """Seed 003 calls 1s "aces": "3 aces", "4 aces"."""
    assert AW.describe_bid(Bid(3, ACE)) == "three aces"
    assert AW.describe_bid(Bid(1, ACE)) == "one ace"


def test_aces_wild_for_other_faces() -> None:
    """Seed 003 "Aces Are Wild": for "three fives", every die showing 1 or 5 counts."""
    s = play(new_round(AW, {"ann": [1, 5, 2], "bob": [5, 1, 3]}), "3x5")
    assert s.count() == 4


def test_bid_on_aces_counts_aces_only() -> None:
    """Seed 003 "Exception: When someone bids on 1s specifically, only actual 1s count"."""
    s = play(new_round(AW, {"ann": [1, 5, 2], "bob": [5, 1, 3]}), "2 aces")
    assert s.count() == 2


def test_raise_non_ace_to_non_ace() -> None:
    """Seed 003 "To raise a bid": "four twos" beats "three fives"; "three sixes"
    beats "three fives"; RULES.md: a higher quantity of any face, or the same quantity of a higher face."""
    s = play(new_round(AW, {"ann": [2] * 5, "bob": [3] * 5}), "3x5")
    assert s.is_legal(Bid(4, 2)) and s.is_legal(Bid(3, 6))
    assert not s.is_legal(Bid(3, 4)) and not s.is_legal(Bid(3, 5)) and not s.is_legal(Bid(2, 6))


def test_worked_case_5_six_threes_then_four_aces() -> None:
    """RULES.md worked case 5 (seed 003 "Non-ace -> Ace bid"): after six 3s, the smallest ace bid is four aces."""
    after = legal_actions(AW, Bid(6, 3), 15)
    aces = [b.quantity for b in after[:-1] if b.face == ACE]
    assert min(aces) == 4
    s = play(new_round(AW, {"ann": [2] * 5, "bob": [3] * 5, "cy": [4] * 5}), "6x3")
    with pytest.raises(IllegalActionError) as e:
        play(s, "3 aces")
    assert "three aces does not raise the bid of six 3s" in str(e.value)
    assert "four aces" in str(e.value)
    play(s, "4 aces")


def test_worked_case_5_three_aces_then_six_of_any_face() -> None:
    """RULES.md worked case 5 (seed 003 "Ace -> Non-ace bid"): after three aces,
    the smallest non-ace bid is six of any face."""
    after = legal_actions(AW, Bid(3, ACE), 15)
    for face in range(2, 7):
        assert min(b.quantity for b in after[:-1] if b.face == face) == 6
    s = play(new_round(AW, {"ann": [2] * 5, "bob": [3] * 5, "cy": [4] * 5}), "3 aces")
    with pytest.raises(IllegalActionError, match="double"):
        play(s, "5x6")
    play(s, "6x2")


@pytest.mark.parametrize("q", range(1, 13))
def test_conversion_formulas(q: int) -> None:
    """RULES.md `aces-wild` Raising: non-ace q -> aces needs >= q//2 + 1; aces q -> non-ace needs >= 2q;
    aces -> aces a higher quantity."""
    n = 30
    after_plain = legal_actions(AW, Bid(q, 4), n)
    assert min(b.quantity for b in after_plain[:-1] if b.face == ACE) == q // 2 + 1
    after_aces = legal_actions(AW, Bid(q, ACE), n)
    assert min(b.quantity for b in after_aces[:-1] if b.face == 2) == 2 * q
    assert min(b.quantity for b in after_aces[:-1] if b.face == ACE) == q + 1


def test_ace_to_ace_needs_higher_quantity() -> None:
    """Seed 003 "Ace -> Ace bid: Simply increase the quantity (e.g., "4 aces" beats "3 aces")"."""
    s = play(new_round(AW, {"ann": [2] * 5, "bob": [3] * 5}), "3 aces")
    assert s.is_legal(Bid(4, ACE)) and not s.is_legal(Bid(3, ACE)) and not s.is_legal(Bid(2, ACE))


def test_opening_bid_may_be_on_aces() -> None:
    """RULES.md `aces-wild`: "The opening bid may be on aces; the seed forbids nothing"."""
    s = new_round(AW, {"ann": [2] * 5, "bob": [3] * 5})
    assert s.is_legal(Bid(1, ACE)) and Bid(10, ACE) in s.legal_actions()


def test_challenge_count_at_least_quantity_challenger_loses_one() -> None:
    """RULES.md `aces-wild` Challenge / seed 003 Challenging 3: "greater than or equal
    to the bid -> the challenger loses a die" (one die, even when far over)."""
    hands = {"ann": [5, 5, 1, 1, 5], "bob": [5, 2, 3, 4, 6]}
    s = play(new_round(AW, hands), "2x5", "liar")
    assert s.results[0].count == 6 and lost_by_name(s) == {"bob": 1}
    exact = play(new_round(AW, hands), "6x5", "liar")
    assert exact.results[0].count == 6 and lost_by_name(exact) == {"bob": 1}


def test_challenge_count_below_quantity_bidder_loses_one() -> None:
    """Seed 003 Challenging 4: "less than the bid -> the bidder loses a die" (one, not the difference)."""
    s = play(new_round(AW, {"ann": [2, 2, 3, 4, 6], "bob": [2, 3, 3, 4, 6]}), "10x5", "liar")
    assert s.results[0].count == 0 and lost_by_name(s) == {"ann": 1}


def test_loser_opens_next_round() -> None:
    """RULES.md `aces-wild` Next round / seed 003: "The player who lost a die starts the new round"."""
    hands = {"ann": [2, 2], "bob": [3, 3], "cy": [4, 4]}
    assert play(new_round(AW, hands), "1x2", "liar").to_move == seat_of("bob", hands)
    assert play(new_round(AW, hands), "1x2", "5x6", "liar").to_move == seat_of("bob", hands)


def test_loser_out_next_player_still_in_opens() -> None:
    """RULES.md `aces-wild` Next round: "If that player is out, the next player still in after them opens"."""
    s = play(new_round(AW, {"ann": [2, 2], "bob": [3], "cy": [4, 4]}), "1x2", "2x6", "liar")
    assert lost_by_name(s) == {"bob": 1} and s.results[0].out == (1,)
    assert s.to_move == 2


def seat_of(name: str, hands: dict) -> int:
    return list(hands).index(name)


def test_seat_helper_agrees() -> None:
    """(helper check) seat() and seat_of() agree."""
    s = new_round(AW, {"ann": [2], "bob": [3]})
    assert seat(s, "bob") == seat_of("bob", {"ann": 0, "bob": 0}) == 1
