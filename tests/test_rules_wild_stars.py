"""`wild-stars`: seed 000_9899601612668d06.txt (the Milton Bradley board game)
as settled by RULES.md "`wild-stars`" and its worked cases 1-4.

In records and code the star is face 1.
"""

from __future__ import annotations

import pytest

from liars_dice.engine import (
    Bid,
    Exact,
    IllegalActionError,
    Loss,
    Opener,
    Ordering,
    Phase,
    Rules,
    legal_actions,
)
from rule_helpers import lost_by_name, new_round, play, seat

WS = Rules.preset("wild-stars")
STAR = 1


def test_preset_options_match_rules_md() -> None:
    """RULES.md `wild-stars`: star wild (face 1), track ordering, lose the
    difference, perfect bid, Die Hard, winner opens, show-and-reroll, 5 dice."""
    assert WS.wild_face == STAR and WS.faces == 6
    assert WS.ordering is Ordering.TRACK
    assert WS.loss is Loss.DIFFERENCE
    assert WS.exact is Exact.ALL_BUT_BIDDER
    assert WS.die_hard and WS.show_and_reroll
    assert WS.next_opener is Opener.WINNER
    assert WS.dice_per_player == 5, 'seed 000: "Each player starts with a cup that contains five dice"'
    assert not WS.wilds_suspended_on_wild_opening and not WS.single_round


def test_star_is_face_one_and_reads_as_star() -> None:
    """RULES.md `wild-stars`: "a star on the face of the 1 ... the star is face 1"."""
    assert WS.describe_bid(Bid(3, STAR)) == "three stars"
    assert WS.describe_bid(Bid(1, STAR)) == "one star"
    assert WS.format_bid(Bid(3, STAR)) == "3★"
    assert WS.describe_bid(Bid(4, 3)) == "four 3s"


def test_number_bid_counts_face_plus_stars() -> None:
    """RULES.md `wild-stars`: "Number bid (face 2-6): the count is the dice showing that face plus all stars"."""
    s = play(new_round(WS, {"ann": [5, 5, 1, 2, 3], "bob": [1, 1, 4, 6, 5]}), "1x5")
    assert s.count(Bid(1, 5)) == 6
    assert s.count(Bid(1, 2)) == 4


def test_star_bid_counts_stars_only() -> None:
    """RULES.md `wild-stars`: "Star bid: the count is stars only"."""
    s = play(new_round(WS, {"ann": [5, 5, 1, 2, 3], "bob": [1, 1, 4, 6, 5]}), "1*")
    assert s.count(Bid(1, STAR)) == 3


def test_seed_example_two_fives_and_three_stars_make_five_fives() -> None:
    """Seed 000: "I have two fives and my opponents each have one Wild Star, but
    no fives. In total, that would be five fives in play (2+2+H+H+H)"."""
    s = new_round(WS, {"me": [5, 5, 2, 3, 4], "o1": [1, 2, 3, 4, 6], "o2": [1, 2, 2, 3, 4], "o3": [1, 6, 6, 4, 3]})
    s = play(s, "5x5", "liar")
    assert s.results[0].count == 5
    assert lost_by_name(s) == {"o1": 1, "o2": 1, "o3": 1}, "a perfect bid"


def _spaces(n: int) -> list[str]:
    """The distinct spaces of the track up to quantity n, in bid order."""
    out: list[str] = []
    for b in legal_actions(WS, None, n):
        label = f"*{b.quantity}" if b.face == STAR else str(b.quantity)
        if not out or out[-1] != label:
            out.append(label)
    return out


def test_bidding_track_order() -> None:
    """RULES.md `wild-stars` "Bidding track": "the track starts 1, ★1, 2, 3, ★2, 4, 5, ★3, 6, 7, ★4, …"."""
    assert _spaces(8)[:12] == ["1", "*1", "2", "3", "*2", "4", "5", "*3", "6", "7", "*4", "8"]
    # star spaces beyond the last number space in play still follow, in order
    assert _spaces(8)[12:] == ["*5", "*6", "*7", "*8"]


@pytest.mark.parametrize("q", range(1, 13))
@pytest.mark.parametrize("k", range(1, 7))
def test_raise_conversions_number_and_star(q: int, k: int) -> None:
    """RULES.md `wild-stars` "Raising. In numbers": number q -> star k iff 2k > q;
    star k -> number q iff q >= 2k."""
    n = 12
    after_number = {(b.quantity, b.face) for b in legal_actions(WS, Bid(q, 4), n)[:-1]}
    assert ((k, STAR) in after_number) == (2 * k > q)
    after_star = {(b.quantity, b.face) for b in legal_actions(WS, Bid(k, STAR), n)[:-1]}
    assert ((q, 4) in after_star) == (q >= 2 * k)
    assert ((q, 2) in after_star) == (q >= 2 * k)


@pytest.mark.parametrize("k", range(1, 7))
@pytest.mark.parametrize("k2", range(1, 7))
def test_raise_star_to_star_needs_higher_star_space(k: int, k2: int) -> None:
    """RULES.md `wild-stars`: "star k -> star k' is legal iff k' > k"."""
    after = legal_actions(WS, Bid(k, STAR), 12)
    assert (Bid(k2, STAR) in after) == (k2 > k)


def test_raise_same_space_higher_face_or_higher_space_any_face() -> None:
    """Seed 000 "Bluff, Bluster, and Raise": after four 3s, "four 4's, four 5's,
    or even four 6's", or "five 2's, six 5's, or even seven 3's"; not four 2s."""
    s = play(new_round(WS, {"ann": [1] * 5, "bob": [2] * 5}), "4x3")
    for text in ("4x4", "4x5", "4x6", "5x2", "6x5", "7x3"):
        assert s.is_legal(Bid(*map(int, text.split("x")))), text
    assert not s.is_legal(Bid(4, 2))
    assert not s.is_legal(Bid(4, 3))
    assert not s.is_legal(Bid(3, 6))


def test_after_four_threes_three_stars_legal_two_stars_not() -> None:
    """RULES.md `wild-stars` "Check against the seed": after four 3s, three stars
    is legal (★3 lies past space 4), and two stars is not (seed 000: "a bid of 3 Wild Stars")."""
    s = play(new_round(WS, {"ann": [1] * 5, "bob": [2] * 5}), "4x3")
    play(s, "3*")
    with pytest.raises(IllegalActionError) as e:
        play(s, "2*")
    msg = str(e.value)
    assert "two stars does not raise the bid of four 3s" in msg
    assert "three stars" in msg and "half" in msg


def test_opening_bid_may_be_any_space() -> None:
    """RULES.md `wild-stars`: "The opening bid may be any space" (seed 000: "any number or wild star")."""
    s = new_round(WS, {"ann": [1] * 3, "bob": [2] * 3})
    opening = set(s.legal_actions())
    assert opening == {Bid(q, f) for q in range(1, 7) for f in range(1, 7)}


def test_worked_case_1_nine_fives_challenger_loses_two_bidder_opens() -> None:
    """RULES.md worked case 1 (seed 000 Challenge Example 1): bid nine 5s;
    revealed seven 5s and four stars; count 11, the challenger loses 2; the bidder opens next."""
    s = new_round(WS, {
        "ann": [5, 5, 5, 1, 2], "bob": [5, 5, 1, 1, 3], "cy": [5, 5, 1, 4, 6], "dee": [2, 3, 4, 6, 6],
    })
    s = play(s, "9x5", "liar")
    r = s.results[0]
    assert r.count == 11
    assert lost_by_name(s) == {"bob": 2}
    assert r.next_opener == seat(s, "ann") and s.to_move == seat(s, "ann")


def test_worked_case_2_six_stars_five_revealed_bidder_loses_one() -> None:
    """RULES.md worked case 2 and "Ruling, the second challenge example": bid six
    stars, five stars revealed: the bidder loses 1 and the challenger opens next."""
    s = new_round(WS, {"ann": [1, 1, 1, 2, 2], "bob": [1, 1, 3, 3, 4], "cy": [5, 5, 6, 6, 2]})
    s = play(s, "4x2", "6*", "liar")
    r = s.results[0]
    assert r.count == 5 and r.bidder == seat(s, "bob") and r.challenger == seat(s, "cy")
    assert lost_by_name(s) == {"bob": 1}
    assert r.next_opener == seat(s, "cy")


def test_worked_case_3_fourteen_twos_perfect_bid() -> None:
    """RULES.md worked case 3 (seed 000 Example 3, "A Perfect Bid"): bid fourteen 2s,
    count 14: every other player loses 1, except players with one die who did not challenge."""
    s = new_round(WS, {
        "ann": [2, 2, 2, 1, 1], "bob": [2, 2, 1, 3, 4], "cy": [2, 2, 2, 2, 5], "dee": [1], "eve": [6, 2],
    })
    s = play(s, "14x2", "liar")
    r = s.results[0]
    assert r.count == 14
    assert lost_by_name(s) == {"bob": 1, "cy": 1, "eve": 1}, "dee keeps her last die (Die Hard)"
    assert r.next_opener == seat(s, "ann"), "the bidder won the challenge and opens"


def test_worked_case_4_die_hard() -> None:
    """RULES.md worked case 4 (seed 000 "Die Hard"): a player with 1 die, Shane 4,
    Mike 3, Mary 3. Mary bids eight 5s, Shane challenges, the count is 8: Shane
    and Mike lose 1 each, the one-die player keeps their die."""
    hands = {"mary": [5, 5, 6], "shane": [5, 5, 1, 2], "mike": [5, 1, 3], "you": [5]}
    s = play(new_round(WS, hands, start="mary"), "8x5", "liar")
    assert s.results[0].challenger == seat(s, "shane")
    assert s.results[0].count == 8
    assert lost_by_name(s) == {"shane": 1, "mike": 1}
    assert s.dice == (3, 3, 2, 1)
    assert s.results[0].out == ()


def test_worked_case_4_one_die_challenger_loses_it() -> None:
    """RULES.md worked case 4: "Had the one-die player challenged, they would have
    lost it and been out" (Die Hard: "A challenger with one die loses it")."""
    hands = {"mary": [5, 5, 6], "you": [5], "shane": [5, 5, 1, 2], "mike": [5, 1, 3]}
    s = play(new_round(WS, hands), "8x5", "liar")
    assert lost_by_name(s) == {"you": 1, "shane": 1, "mike": 1}
    assert s.results[0].out == (seat(s, "you"),)
    assert s.dice == (3, 0, 3, 2)


def test_lose_the_difference_capped_at_dice_held() -> None:
    """RULES.md `wild-stars` Challenge: "A player told to lose more dice than they
    have loses them all and is out"."""
    s = new_round(WS, {"ann": [2, 3], "bob": [4, 6, 6], "cy": [5, 5, 5]})
    s = play(s, "8x1", "liar")  # no stars: ann should lose 8 but holds 2
    assert lost_by_name(s) == {"ann": 2}
    assert s.results[0].out == (0,)
    assert s.to_move == seat(s, "bob"), "the challenger won and opens"


def test_challenger_loses_difference_when_count_exceeds_bid() -> None:
    """RULES.md `wild-stars` Challenge: "c > q: the challenger loses c - q dice"."""
    s = play(new_round(WS, {"ann": [6, 6, 6, 1, 1], "bob": [6, 2, 3, 4, 5]}), "2x6", "liar")
    assert s.results[0].count == 6
    assert lost_by_name(s) == {"bob": 4}


def test_next_round_winner_opens() -> None:
    """RULES.md `wild-stars` "Next round": the bidder opens when c >= q, the challenger when c < q
    (seed 000: "the winner of the previous challenge gets the honor of starting off")."""
    hands = {"ann": [2, 3], "bob": [4, 6], "cy": [5, 5]}
    assert play(new_round(WS, hands), "1x5", "liar").to_move == 0
    assert play(new_round(WS, hands), "4x5", "liar").to_move == 1


def test_show_and_reroll_seed_example() -> None:
    """Seed 000 "Show and Reroll Example": four dice (a 6, a star, two 4s); raise
    ten 6s to eleven 6s, show the 6 and the star, reroll the two 4s; the shown
    dice count toward the bid."""
    s = new_round(WS, {"opp": [6, 6, 6, 6, 1, 1, 6, 1, 6, 2], "me": [6, 1, 4, 4]})
    s = play(s, "10x6")
    s = s.apply(Bid(11, 6), (6, 1))
    assert s.phase is Phase.REROLL and s.to_move == 1
    assert s.hidden[1] == (4, 4) and s.shown[1] == (6, 1)
    s = s.reroll((3, 2))
    assert s.hidden[1] == (3, 2) and s.shown[1] == (6, 1)
    for viewer in (0, 1):
        assert s.view(viewer).shown[1] == (6, 1), "shown dice are visible to everyone"
    s = play(s, "liar")
    assert s.results[0].count == 11, "the shown 6 and star count"
    assert s.results[0].revealed[1] == (3, 2, 6, 1)


def test_show_after_opening_bid_too() -> None:
    """RULES.md Show and reroll: "Right after making a bid (opening or raise)"."""
    s = new_round(WS, {"ann": [5, 5, 2], "bob": [3, 3]})
    s = s.apply(Bid(2, 5), (5, 5)).reroll((4,))
    assert s.shown[0] == (5, 5) and s.hidden[0] == (4,) and s.to_move == 1


def test_show_must_leave_one_die_to_reroll() -> None:
    """RULES.md Show and reroll: "At least one hidden die must remain to be rerolled"."""
    s = new_round(WS, {"ann": [5, 5, 2], "bob": [3, 3]})
    with pytest.raises(IllegalActionError, match="at least one hidden die"):
        s.apply(Bid(2, 5), (5, 5, 2))
    one = new_round(WS, {"ann": [5], "bob": [3, 3]})
    assert one.legal_shows() == [()]
    with pytest.raises(IllegalActionError):
        one.apply(Bid(1, 5), (5,))


def test_show_only_hidden_dice() -> None:
    """RULES.md Show and reroll: "set one or more of their hidden dice out in the open"."""
    s = new_round(WS, {"ann": [5, 5, 2], "bob": [3, 3]})
    with pytest.raises(IllegalActionError, match="hidden dice"):
        s.apply(Bid(2, 5), (6,))
    with pytest.raises(IllegalActionError, match="hidden dice"):
        s.apply(Bid(2, 5), (2, 2))


def test_shown_dice_stay_out_for_the_round_and_show_again_while_two_hidden() -> None:
    """RULES.md Show and reroll: shown dice "stay out for the rest of the round";
    "A player may do this after each of their bids while they have at least two hidden dice"."""
    s = new_round(WS, {"ann": [5, 5, 2, 3], "bob": [3, 3, 4, 4]})
    s = s.apply(Bid(2, 5), (5,)).reroll((6, 6, 2))
    s = play(s, "3x5")
    assert sorted(s.legal_shows()) == sorted([(), (2,), (6,), (2, 6), (6, 6)])
    s = s.apply(Bid(4, 5), (6, 6)).reroll((1,))
    assert s.shown[0] == (5, 6, 6) and s.hidden[0] == (1,)
    s = play(s, "5x5")
    assert s.legal_shows() == [()], "one hidden die left: no more shows"
    s = play(s, "liar")
    assert s.results[0].revealed[0] == (1, 5, 6, 6)


def test_no_reroll_without_showing() -> None:
    """RULES.md Show and reroll: "There is no reroll without showing"."""
    s = new_round(WS, {"ann": [5, 5, 2], "bob": [3, 3]})
    s = s.apply(Bid(2, 5))
    assert s.phase is Phase.BID and s.to_move == 1
    with pytest.raises(Exception, match="No reroll is due"):
        s.reroll((1, 2, 3))


def test_no_show_with_a_challenge() -> None:
    """Seed 000: the show comes "Right after you open or raise a bid", so never with a challenge."""
    s = play(new_round(WS, {"ann": [5, 5, 2], "bob": [3, 3]}), "1x5")
    with pytest.raises(IllegalActionError, match="only be shown right after a bid"):
        s.apply(parse("liar"), (3,))


def parse(text: str):  # noqa: ANN201
    from liars_dice.engine import parse_action

    return parse_action(text)


def test_shown_dice_need_not_match_the_bid() -> None:
    """Seed 000 "The Show and Reroll Rule": "The dice you show don't have to match your bid exactly"."""
    s = new_round(WS, {"ann": [2, 3, 4], "bob": [3, 3]})
    s = s.apply(Bid(2, 5), (2, 3)).reroll((5,))
    assert s.shown[0] == (2, 3)
    s = play(s, "liar")
    assert s.results[0].count == 1, "only the rerolled 5 matches"


def test_rerolled_dice_count_toward_the_bid() -> None:
    """Seed 000: "If any of the rerolled dice match your bid, they will still count towards it"."""
    s = new_round(WS, {"ann": [2, 3, 4], "bob": [3, 3]})
    s = s.apply(Bid(3, 5), (2,)).reroll((5, 1))
    s = play(s, "liar")
    assert s.results[0].count == 2 and lost_by_name(s) == {"ann": 1}


def test_ruling_no_passing() -> None:
    """RULES.md `wild-stars` "Ruling, no passing": the seed says "there is no option
    to pass your turn"; the player to move must raise or challenge."""
    s = play(new_round(WS, {"ann": [2, 3], "bob": [4, 5]}), "1x2")
    actions = s.legal_actions()
    assert actions[-1] == parse("liar") and all(isinstance(a, Bid) for a in actions[:-1])
    with pytest.raises(Exception) as e:
        parse("pass")
    assert e.value.code == "action/invalid_syntax"
