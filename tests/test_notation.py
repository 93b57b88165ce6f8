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
    assert ws.format_bid(3, 1) == "3★"
    assert ws.format_bid(4, 5) == "4x5"
    assert str(Bid(4, 5)) == "4x5"
    assert str(CHALLENGE) == "liar"
    assert Rules.preset("classic").format_bid(3, 1) == "3x1", "no star outside wild-stars"
    assert ws.face_label(1) == "★" and ws.face_label(2) == "2"


@settings(max_examples=100, deadline=None)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    quantity=st.integers(min_value=1, max_value=30),
    face=st.integers(min_value=1, max_value=6),
)
def test_round_trip_compact_and_words(preset: str, quantity: int, face: int) -> None:
    """Round trip: parse(format(bid)) == bid for the compact notation (with ★)
    and the words of messages ("four 3s", "three stars", "two aces")."""
    rules = Rules.preset(preset)
    star = rules.wild_face or 1
    bid = Bid(quantity, face)
    assert parse_action(rules.format_bid(quantity, face), star_face=star) == bid
    assert parse_action(rules.describe_bid(quantity, face), star_face=star) == bid
    assert parse_action(str(bid), star_face=star) == bid


@settings(max_examples=60, deadline=None)
@given(quantity=st.integers(min_value=1, max_value=30), face=st.integers(min_value=1, max_value=6))
def test_format_of_parse_is_canonical(quantity: int, face: int) -> None:
    """Formatting is canonical: every lenient spelling formats back to the one compact form."""
    ws = Rules.preset("wild-stars")
    canon = ws.format_bid(quantity, face)
    spellings = [f"{quantity}x{face}", f"{quantity} {face}s", ws.describe_bid(quantity, face)]
    if face == 1:
        spellings += [f"{quantity}*", f"{quantity} stars"]
    for text in spellings:
        b = parse_action(text)
        assert ws.format_bid(b.quantity, b.face) == canon, text
