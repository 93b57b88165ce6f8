"""The bid notation for people (issue 2 section 2): parse `4x5`, `4 5s`,
`four fives`, `3 stars`, `3*`, `liar`, `challenge`; format back with ★ for the
star. Parsing is lenient, formatting canonical, and the round trip holds
(STYLE.md "Bid is a frozen value with parse and str, and the round trip is tested")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import CHALLENGE, PRESETS, Bid, InvalidBidError, Rules, parse_action


@pytest.mark.parametrize(
    "text, bid",
    [
        ("4x5", Bid(4, 5)),
        ("4 x 5", Bid(4, 5)),
        ("4X5", Bid(4, 5)),
        ("4×5", Bid(4, 5)),
        ("4 5s", Bid(4, 5)),
        ("4 5's", Bid(4, 5)),
        ("4 5", Bid(4, 5)),
        ("four fives", Bid(4, 5)),
        ("Four Fives", Bid(4, 5)),
        ("4 fives", Bid(4, 5)),
        ("four 5s", Bid(4, 5)),
        ("one six", Bid(1, 6)),
        ("twelve twos", Bid(12, 2)),
        ("3 stars", Bid(3, 1)),
        ("three stars", Bid(3, 1)),
        ("1 star", Bid(1, 1)),
        ("3*", Bid(3, 1)),
        ("3 *", Bid(3, 1)),
        ("3★", Bid(3, 1)),
        ("3 aces", Bid(3, 1)),
        ("two ones", Bid(2, 1)),
        ("  7x3  ", Bid(7, 3)),
        ("21x4", Bid(21, 4)),
    ],
)
def test_parse_bid_notations(text: str, bid: Bid) -> None:
    """Issue 2 section 2: parse `4x5`, `4 5s`, `four fives`, `3 stars`, `3*` (and lenient variants)."""
    assert parse_action(text) == bid


@pytest.mark.parametrize("text", ["liar", "challenge", "Liar!", "CHALLENGE", "call", " liar "])
def test_parse_challenge(text: str) -> None:
    """Issue 2 section 2: `liar`, `challenge`."""
    assert parse_action(text) is CHALLENGE


def test_star_word_names_the_wild_face() -> None:
    """`3 stars` names the rules' wild face (face 1 in wild-stars; another face in a custom rule set)."""
    assert parse_action("3 stars", star_face=6) == Bid(3, 6)
    assert parse_action("3*", star_face=6) == Bid(3, 6)


@pytest.mark.parametrize("text", ["", "   ", "4", "x5", "four", "banana", "0x5", "zero fives", "4x5x6", "pass", "4 dice"])
def test_bad_syntax_is_invalid_bid_error(text: str) -> None:
    """Bad syntax raises InvalidBidError (code action/invalid_syntax) with one sentence."""
    with pytest.raises(InvalidBidError) as e:
        parse_action(text)
    assert e.value.code == "action/invalid_syntax"
    assert e.value.message.endswith(".") and "\n" not in e.value.message


def test_format_with_star() -> None:
    """Issue 2 section 2: "format back, with ★ for the star"."""
    ws = Rules.preset("wild-stars")
    assert ws.format_bid(Bid(3, 1)) == "3★"
    assert ws.format_bid(Bid(4, 5)) == "4x5"
    assert str(Bid(4, 5)) == "4x5"
    assert str(CHALLENGE) == "liar"
    assert Rules.preset("classic").format_bid(Bid(3, 1)) == "3x1", "no star outside wild-stars"
    assert ws.face_label(1) == "★" and ws.face_label(2) == "2"


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    quantity=st.integers(min_value=1, max_value=99),
    face=st.integers(min_value=1, max_value=6),
)
def test_round_trip_compact_and_words(preset: str, quantity: int, face: int) -> None:
    """Round trip under every preset (issue 8 "Notation lives on the rules"):
    ``rules.parse_bid(rules.format_bid(b)) == b`` for the compact notation (with ★)
    and for the words of messages ("four 3s", "three stars", "two aces")."""
    rules = Rules.preset(preset)
    bid = Bid(quantity, face)
    assert rules.parse_bid(rules.format_bid(bid)) == bid
    assert rules.parse_bid(rules.describe_bid(bid)) == bid
    assert rules.parse_action(str(bid)) == bid
    star = rules.wild_face or 1
    assert parse_action(rules.format_bid(bid), star_face=star) == bid


@settings(max_examples=60, deadline=None)
@given(quantity=st.integers(min_value=1, max_value=30), face=st.integers(min_value=1, max_value=6))
def test_format_of_parse_is_canonical(quantity: int, face: int) -> None:
    """Formatting is canonical: every lenient spelling formats back to the one compact form."""
    ws = Rules.preset("wild-stars")
    canon = ws.format_bid(Bid(quantity, face))
    spellings = [f"{quantity}x{face}", f"{quantity} {face}s", ws.describe_bid(Bid(quantity, face))]
    if face == 1:
        spellings += [f"{quantity}*", f"{quantity} stars"]
    for text in spellings:
        assert ws.format_bid(ws.parse_bid(text)) == canon, text


@pytest.mark.parametrize("preset", ["classic", "aces-wild", "openspiel", "joker"])
@pytest.mark.parametrize("text", ["9 stars", "3*", "3★", "two stars"])
def test_star_words_only_where_there_are_stars(preset: str, text: str) -> None:
    """Issue 8 fault 4: in classic, '9 stars' was accepted as nine 1s. Stars
    exist only where the rules draw the wild face as a star (wild-stars, seed 000)."""
    rules = Rules.preset(preset)
    with pytest.raises(InvalidBidError) as e:
        rules.parse_bid(text)
    assert e.value.code == "action/invalid_syntax"
    assert "star" not in e.value.message.replace(repr(text.strip()), "").replace("'stars'", "").replace("★", ""), (
        "the message must not suggest stars"
    )


def test_star_words_in_wild_stars() -> None:
    """Seed 000: the wild face is the star; '3 stars', '3*', '3★' name it."""
    ws = Rules.preset("wild-stars")
    for text in ("3 stars", "3*", "3★", "three stars", "3 wilds"):
        assert ws.parse_bid(text) == Bid(3, 1), text


def test_aces_where_1s_are_aces() -> None:
    """Seed 003 names the wild 1s aces: aces-wild reads 'aces'; classic (seed 004,
    which calls them ones) does not, and says what to type instead."""
    assert Rules.preset("aces-wild").parse_bid("three aces") == Bid(3, 1)
    assert Rules.preset("aces-wild").parse_bid("1 ace") == Bid(1, 1)
    with pytest.raises(InvalidBidError) as e:
        Rules.preset("classic").parse_bid("3 aces")
    assert "'3 1s'" in e.value.message


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_not_a_bid_message_uses_the_rules_words(preset: str) -> None:
    """Issue 8 fault 4: the "not a bid" message suggested '3 stars' under every
    preset. It now suggests stars only where there are stars, aces where 1s are aces."""
    rules = Rules.preset(preset)
    with pytest.raises(InvalidBidError) as e:
        rules.parse_action("banana")
    message = e.value.message
    assert message.startswith("'banana' is not a bid")
    assert ("'3 stars'" in message) == rules.star_symbol
    assert ("'3 aces'" in message) == any(many == "aces" for _, _, many in rules.face_names)


@pytest.mark.parametrize("text", ["twenty one 5s", "twenty-one 5s", "Twenty  One fives", "21 5s", "twenty-one x 5"])
def test_compound_numbers_with_or_without_hyphen(text: str) -> None:
    """Issue 8 fault 8: `twenty-one 5s` was accepted but `twenty one 5s` refused."""
    assert Rules.preset("classic").parse_bid(text) == Bid(21, 5)
    assert parse_action(text) == Bid(21, 5)


def test_parse_bid_refuses_a_challenge_and_parse_action_reads_it() -> None:
    rules = Rules.preset("classic")
    assert rules.parse_action("liar") is CHALLENGE
    with pytest.raises(InvalidBidError, match="is a challenge, not a bid"):
        rules.parse_bid("liar")


def test_long_text_is_refused_without_echo() -> None:
    """Every input has a bound: text longer than 40 characters is not a bid and is not echoed back."""
    with pytest.raises(InvalidBidError) as e:
        Rules.preset("classic").parse_action("4x5" + " " * 10 + "z" * 60)
    assert "zzz" not in e.value.message and "too long" in e.value.message


@pytest.mark.parametrize(
    "text, sentence",
    [
        ("1000x5", "A bid's quantity runs from 1 to the 19 dice in play, so 1000 is not allowed."),
        ("999999999999x5", "A bid's quantity runs from 1 to the 19 dice in play, so 999999999999 is not allowed."),
        ("9999999999999999999999 5s", "A bid's quantity runs from 1 to the 19 dice in play, so 9999999999… (22 digits) is not allowed."),
        ("5x9", "A bid names a face from 1 to 6, not 9."),
        ("5 9999999s", "A bid names a face from 1 to 6, not 9999999."),
    ],
)
def test_a_huge_number_gets_the_range_sentence_not_is_not_a_bid(text: str, sentence: str) -> None:
    """Issue 17 fault 6: `1000x5` got the quantity range sentence but
    `999999999999x5` "'…' is not a bid" (the parser read at most six digits);
    a face of seven digits the same. Any number within the entry's 40
    characters is a quantity or a face, and the state names its range."""
    from liars_dice.engine import Game, IllegalActionError

    rules = Rules.preset("classic")
    state = Game.create(rules, ["a", "b", "c", "d"], [5, 5, 4, 5]).initial_state().deal(
        [[1] * 5, [2] * 5, [3] * 4, [4] * 5]
    )
    with pytest.raises(IllegalActionError) as e:
        state.check(rules.parse_action(text))
    assert e.value.message == sentence
