"""The `Rules` value: validation, immutability, JSON round trip, and the presets
exactly as RULES.md (seed presets) and issue 3 section 1 (comparison presets)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from liars_dice.engine import PRESETS, SEED_PRESETS, Bid, Exact, Loss, Opener, Ordering, Rules, RulesError


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"faces": 1}, "between 2 and 9 faces"),
        ({"faces": 10}, "between 2 and 9 faces"),
        ({"faces": 6.0}, "whole number"),
        ({"faces": True}, "whole number"),
        ({"wild_face": 7}, "not a face"),
        ({"wild_face": 0}, "not a face"),
        ({"wild_face": "1"}, "wild face"),
        ({"wild_face": None, "ordering": "track"}, "needs a wild face"),
        ({"wild_face": None, "ordering": Ordering.TRACK}, "needs a wild face"),
        ({"wild_face": None, "wilds_suspended_on_wild_opening": True}, "wild face"),
        ({"wild_face": None, "star_symbol": True}, "wild face"),
        ({"dice_per_player": 0}, "at least one die"),
        ({"min_players": 1}, "min_players"),
        ({"min_players": 5, "max_players": 4}, "min_players"),
        ({"ordering": "zigzag"}, "not a valid ordering"),
        ({"loss": "all"}, "not a valid loss"),
        ({"exact": "nobody"}, "not a valid exact"),
        ({"next_opener": "oldest"}, "not a valid next_opener"),
        ({"die_hard": True}, "Die Hard"),
        ({"show_and_reroll": "yes"}, "true or false"),
        ({"name": ""}, "name"),
        ({"face_names": ((7, "seven", "sevens"),)}, "face_names"),
        ({"face_names": ((1, "", "aces"),)}, "face_names"),
        ({"face_names": ((1, "ace", "aces"), (1, "one", "ones"))}, "face_names"),
        ({"face_names": "aces"}, "face_names"),
    ],
)
def test_contradictory_or_bad_options_raise_rules_error(options: dict, fragment: str) -> None:
    """Rules docstring: ":raises RulesError: when options contradict each other"."""
    with pytest.raises(RulesError) as e:
        Rules(**options)
    assert fragment.lower() in e.value.message.lower()
    assert e.value.code == "rules/invalid"


def test_enum_options_accept_their_json_strings() -> None:
    """Options read from JSON arrive as strings and become the enums."""
    r = Rules(ordering="track", loss="difference", exact="all_but_bidder", next_opener="winner", die_hard=True)
    assert r.ordering is Ordering.TRACK and r.loss is Loss.DIFFERENCE
    assert r.exact is Exact.ALL_BUT_BIDDER and r.next_opener is Opener.WINNER


def test_with_options_rejects_unknown_option() -> None:
    with pytest.raises(RulesError, match="Unknown rule option 'jokers'"):
        Rules.preset("classic").with_options(jokers=2)


def test_unknown_preset() -> None:
    """RECORD-FORMAT.md Errors: "an unknown ... preset"; the message lists the presets."""
    with pytest.raises(RulesError) as e:
        Rules.preset("dudo-extreme")
    assert "dudo-extreme" in e.value.message and "wild-stars" in e.value.message


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_are_immutable_hashable_and_round_trip_json(name: str) -> None:
    """Rules are immutable data (issue 2 section 2 "One immutable Rules value")."""
    r = Rules.preset(name)
    assert r.name == name
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.faces = 8  # type: ignore[misc]
    assert hash(r) == hash(Rules.from_dict(r.to_dict()))
    assert Rules.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_seed_presets_are_the_three_seeds() -> None:
    assert SEED_PRESETS == ("wild-stars", "aces-wild", "classic")
    assert set(SEED_PRESETS) <= set(PRESETS)


@pytest.mark.parametrize("name", SEED_PRESETS)
def test_seed_presets_two_to_six_players_five_dice(name: str) -> None:
    """Issue 2 section 2: "player count (2-6 for the presets)"; every seed: five dice each."""
    r = Rules.preset(name)
    assert (r.min_players, r.max_players, r.dice_per_player, r.faces) == (2, 6, 5, 6)
    assert not r.single_round


def test_openspiel_preset() -> None:
    """Issue 3 section 1: OpenSpiel's liars_dice: 2 players, one round, the highest
    face (6) wild, plain ordering, count >= quantity means the challenger loses."""
    r = Rules.preset("openspiel")
    assert (r.min_players, r.max_players, r.wild_face, r.faces) == (2, 2, 6, 6)
    assert r.single_round and r.ordering is Ordering.PLAIN
    assert r.exact is Exact.CHALLENGER_LOSES and r.loss is Loss.ONE
    assert not r.wilds_suspended_on_wild_opening and not r.show_and_reroll


def test_joker_preset() -> None:
    """Issue 3 section 1 / shared/peers/dudo-ai/README.md: 2 players, one round,
    1s always wild and a bid on 1s counts 1s only, plain ordering with 1 lowest."""
    r = Rules.preset("joker")
    assert (r.min_players, r.max_players, r.wild_face, r.faces) == (2, 2, 1, 6)
    assert r.single_round and r.ordering is Ordering.PLAIN
    assert not r.wilds_suspended_on_wild_opening
    assert r.exact is Exact.CHALLENGER_LOSES


def test_face_names_are_display_only() -> None:
    """face_names changes the words of messages, never the play."""
    plain = Rules.preset("aces-wild").with_options(face_names=())
    assert plain.describe_bid(Bid(3, 1)) == "three 1s"
    assert Rules.preset("aces-wild").describe_bid(Bid(3, 1)) == "three aces"
    for q in range(1, 10):
        for f in range(1, 7):
            assert plain.rank(q, f) == Rules.preset("aces-wild").rank(q, f)


def test_a_new_rule_set_is_a_new_value() -> None:
    """Issue 2 section 3: "A new rule set is a new Rules value" (e.g. eight-sided dice, 8 wild)."""
    from liars_dice.engine import Game, SeededDice

    r = Rules(name="octo", faces=8, wild_face=8, ordering="track", dice_per_player=3)
    s = Game.create(r, ["a", "b", "c"]).initial_state().roll(SeededDice(1))
    assert all(1 <= f <= 8 for h in s.hidden for f in h)
    assert len(s.legal_actions()) == 9 * 8


@pytest.mark.parametrize(
    "face_names",
    [
        ((1, "star", "stars"), (2, "star", "stars")),  # two faces, one name
        ((1, "star", "stars"), (2, "Star", "STARS")),  # the same name in other case
        ((2, "six", "sixes"),),  # a standard word of another face: "three sixes" would be a bid on 2s
        ((2, "5", "5s"),),  # notation of another face
        ((2, "liar", "liars"),),  # a move
        ((2, "calza", "calzas"),),
    ],
)
def test_face_names_must_read_back_as_their_face(face_names: tuple[tuple[int, str, str], ...]) -> None:
    """A face name that reads as another face or a move would make the words a
    table shows for a bid ("bob bids three sixes") say another bid (attack
    review of issue 7: a host-chosen face name is a spoofing vector).
    Rules.parse_action's docstring promises parse_bid(describe_bid(b)) == b."""
    with pytest.raises(RulesError, match="face_names"):
        Rules.preset("classic").with_options(face_names=face_names)


def test_face_names_of_their_own_face_are_fine() -> None:
    rules = Rules.preset("classic").with_options(face_names=((2, "deuce", "deuces"), (6, "six", "sixes")))
    for face in (2, 6):
        for quantity in (1, 2, 3):
            bid = Bid(quantity, face)
            assert rules.parse_bid(rules.describe_bid(bid)) == bid


@pytest.mark.parametrize(
    "options",
    [
        {"name": "ho\x1b]0;pwned\x07use"},  # an OSC sequence: `rules show` set the terminal title
        {"name": "\u202ehouse"},
        {"name": "x" * 65},
        {"face_names": ((2, "\u202edeuce", "deuces"),)},
        {"face_names": ((2, "deuce", "deuces\x1b[31m"),)},
    ],
)
def test_text_options_are_printable_and_bounded(options: dict) -> None:
    """Attack review of issue 7: rule files reach terminals (`rules show`, `play`)."""
    with pytest.raises(RulesError, match="printable|at most"):
        Rules.preset("classic").with_options(**options)
