"""`perudo`: RULES.md "Beyond the seeds: `perudo`" and its worked cases 7-9.

Every difference from the seed presets is a Rules option (``ordering=half_up``,
``wild_opening``, ``calza``, ``calza_min_players``, ``palifico``); the tests
below cite the ruling each checks, and check that the options combine with the
other presets where they make sense.
"""

from __future__ import annotations

import pytest

from liars_dice.engine import (
    CALZA,
    CHALLENGE,
    Bid,
    Exact,
    Game,
    IllegalActionError,
    Loss,
    NotYourTurnError,
    Opener,
    Ordering,
    Rules,
    RulesError,
    legal_actions,
    parse_action,
)
from rule_helpers import lost_by_name, new_round, play, seat

PERUDO = Rules.preset("perudo")
PACO = 1


def later_round(counts, hands, opener: int = 0, names=("ann", "bob", "cy")):
    """A perudo game of 5 dice each, at a later round where seats hold ``counts``,
    dealt ``hands`` (Game.position)."""
    game = Game.create(PERUDO, list(names))
    return game.position(counts, opener).deal(hands)


def test_preset_options_match_rules_md() -> None:
    """RULES.md `perudo`: 2-6 players, 5 dice each, faces 1-6, pacos wild, one die
    lost, an exact count wins for the bidder, the loser opens; calza and palifico
    on by default; calza needs three players still in."""
    r = PERUDO
    assert (r.faces, r.wild_face, r.dice_per_player, r.min_players, r.max_players) == (6, PACO, 5, 2, 6)
    assert r.ordering is Ordering.HALF_UP and r.loss is Loss.ONE and r.exact is Exact.CHALLENGER_LOSES
    assert r.next_opener is Opener.LOSER and not r.wilds_suspended_on_wild_opening
    assert r.calza and r.calza_min_players == 3 and r.palifico and not r.wild_opening
    assert not r.show_and_reroll and not r.single_round and not r.die_hard
    assert r.describe_bid(Bid(3, PACO)) == "three pacos"


# -- raising: worked case 7 ------------------------------------------------


def test_worked_case_7_paco_conversions() -> None:
    """Worked case 7: four players. After five 4s: three pacos is legal, two pacos
    is not. After three pacos: seven 2s is legal, six 6s is not."""
    hands = {p: [2, 3, 4, 5, 6] for p in ("ann", "bob", "cy", "dee")}
    s = play(new_round(PERUDO, hands), "5x4")
    assert s.is_legal(Bid(3, PACO)) and not s.is_legal(Bid(2, PACO))
    with pytest.raises(IllegalActionError, match="two pacos does not raise the bid of five 4s.*three pacos"):
        s.apply(Bid(2, PACO))
    s = play(s, "3x1")
    assert s.is_legal(Bid(7, 2)) and not s.is_legal(Bid(6, 6))
    with pytest.raises(IllegalActionError, match="more than double"):
        s.apply(Bid(6, 6))


@pytest.mark.parametrize("q", range(1, 12))
def test_conversions_half_rounded_up_and_double_plus_one(q: int) -> None:
    """RULES.md `perudo` Raising: non-paco q -> pacos needs ceil(q/2); pacos q ->
    non-paco needs 2q+1; pacos -> pacos a higher quantity; non-paco -> non-paco
    a higher quantity, or the same quantity of a higher face."""
    n = 30
    after_four = legal_actions(PERUDO, Bid(q, 4), n)
    pacos = [b.quantity for b in after_four if isinstance(b, Bid) and b.face == PACO]
    assert min(pacos) == (q + 1) // 2
    after_pacos = legal_actions(PERUDO, Bid(q, PACO), n)
    for face in range(2, 7):
        assert min(b.quantity for b in after_pacos if isinstance(b, Bid) and b.face == face) == 2 * q + 1
    assert min(b.quantity for b in after_pacos if isinstance(b, Bid) and b.face == PACO) == q + 1
    assert Bid(q, 5) in after_four and Bid(q, 3) not in after_four and Bid(q + 1, 2) in after_four


def test_no_opening_on_pacos() -> None:
    """RULES.md `perudo` Opening: "any face but pacos, except in a palifico round"."""
    s = new_round(PERUDO, {"ann": [1, 1, 2, 3, 4], "bob": [2, 2, 3, 4, 5], "cy": [6, 6, 6, 5, 5]})
    assert all(b.face != PACO for b in s.legal_actions())
    with pytest.raises(IllegalActionError, match="cannot open on pacos"):
        s.apply(Bid(2, PACO))
    assert s.is_legal(Bid(1, 2))


def test_dudo_costs_one_die_and_the_loser_opens() -> None:
    """RULES.md `perudo` Dudo: count < quantity, the bidder loses one die; otherwise
    the challenger loses one die. Next round: the player who lost a die opens."""
    hands = {"ann": [1, 4, 4, 2, 3], "bob": [4, 5, 6, 2, 2], "cy": [3, 3, 5, 6, 6]}
    s = play(new_round(PERUDO, hands), "4x4", "liar")  # three 4s and one paco: exact, bob loses
    assert lost_by_name(s) == {"bob": 1} and s.to_move == seat(s, "bob")
    s = play(new_round(PERUDO, hands), "5x4", "liar")
    assert lost_by_name(s) == {"ann": 1} and s.to_move == seat(s, "ann")


# -- calza: worked case 8 ------------------------------------------------------


def test_worked_case_8_calza_gains_a_die_up_to_the_start() -> None:
    """Worked case 8: three players with 5, 5, 4 dice. Bid six 3s; calza; the count
    is 6. The caller has 4 and ends with 5, and opens the next round."""
    s = later_round((5, 5, 4), [[3, 3, 1, 2, 5], [3, 6, 6, 2, 4], [3, 1, 5, 5]])
    s = play(s, "2x3", "6x3", "calza")
    r = s.results[-1]
    assert r.calza and r.count == 6 and r.challenger == seat(s, "cy")
    assert s.dice == (5, 5, 5) and r.gained == (0, 0, 1) and r.lost == (0, 0, 0)
    assert r.loser is None and s.to_move == seat(s, "cy") and r.next_opener == seat(s, "cy")


def test_calza_never_beyond_the_starting_count() -> None:
    """RULES.md `perudo` Calza: "the caller gains one die, never beyond the
    starting count; nobody loses" (worked case 8: "only if below 5 dice")."""
    hands = {"ann": [3, 3, 1, 2, 5], "bob": [3, 6, 6, 2, 4], "cy": [3, 1, 5, 5, 2]}
    s = play(new_round(PERUDO, hands), "2x3", "6x3", "calza")
    r = s.results[-1]
    assert r.calza and s.dice == (5, 5, 5) and r.gained == (0, 0, 0) and r.lost == (0, 0, 0)
    assert s.to_move == seat(s, "cy")


def test_calza_cap_is_the_rule_sets_dice_per_player_in_a_record_begun_mid_game(cli, tmp_path) -> None:
    """RULES.md `perudo` Calza, ruling of 2026-12-01: "the starting count" is the
    rule set's dice per player (5 in perudo), the same for every player, not the
    count a player holds when a record begins. A record beginning mid-game with
    cy at 3 dice: cy's right calza takes cy to 4 (before: 3, nothing gained), in
    the engine and in `liars-dice replay`; and the positions after it exist."""
    import json
    import subprocess

    game = Game.create(PERUDO, ["ann", "bob", "cy"], [5, 4, 3])
    s = game.initial_state().deal([[3, 3, 1, 2, 5], [3, 6, 6, 2], [3, 1, 5]])
    s = play(s, "2x3", "6x3", "calza")
    r = s.results[-1]
    assert r.calza and r.count == 6 and s.dice == (5, 4, 4) and r.gained == (0, 0, 1)
    assert game.most_dice == (5, 5, 5)
    game.position((5, 4, 5), 2)  # cy may hold 5 later: a position past the record's start count
    with pytest.raises(RulesError, match="cy cannot hold more dice than 5, the most they may hold in this game."):
        game.position((5, 4, 6), 2)
    record = {
        "rules": "perudo", "players": ["ann", "bob", "cy"], "dice": {"ann": 5, "bob": 4, "cy": 3},
        "rounds": [{
            "dice": {"ann": [3, 3, 1, 2, 5], "bob": [3, 6, 6, 2], "cy": [3, 1, 5]},
            "moves": [{"player": "ann", "bid": {"quantity": 2, "face": 3}},
                      {"player": "bob", "bid": {"quantity": 6, "face": 3}}, {"player": "cy", "calza": True}],
        }],
    }
    path = tmp_path / "mid.json"
    path.write_text(json.dumps(record))
    proc = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout
    result = json.loads(proc.stdout)
    assert result["dice"] == {"ann": 5, "bob": 4, "cy": 4} and result["rounds"][0]["gained"] == {"cy": 1}


def test_wrong_calza_costs_the_caller_one_die_and_the_caller_opens() -> None:
    """RULES.md `perudo` Calza: "Not exact: the caller loses one die"; "After a
    calza, the caller opens"."""
    hands = {"ann": [3, 3, 1, 2, 5], "bob": [3, 6, 6, 2, 4], "cy": [3, 1, 5, 5, 2]}
    s = play(new_round(PERUDO, hands), "2x3", "5x3", "calza")
    r = s.results[-1]
    assert r.calza and r.count == 6 and lost_by_name(s) == {"cy": 1} and r.loser == seat(s, "cy")
    assert s.to_move == seat(s, "cy")


def test_wrong_calza_on_a_last_die_puts_the_caller_out() -> None:
    """RULES.md Common "A player left with 0 dice is out"; the next player still in
    after the caller opens."""
    s = new_round(PERUDO, {"ann": [3, 2], "bob": [4, 4], "cy": [6]})
    s = play(s, "1x3", "2x3", "calza")
    r = s.results[-1]
    assert r.out == (seat(s, "cy"),) and s.dice == (2, 2, 0) and s.to_move == seat(s, "ann")


def test_calza_not_with_two_players_left() -> None:
    """Ruling: "Calza is not allowed when only two players are left"."""
    s = play(new_round(PERUDO, {"ann": [3, 3, 2], "bob": [3, 4, 5], "cy": []}), "2x3")
    assert CALZA not in s.legal_actions() and CHALLENGE in s.legal_actions()
    with pytest.raises(IllegalActionError, match="at least 3 players"):
        s.apply(CALZA)
    three = play(new_round(PERUDO, {"ann": [3], "bob": [3], "cy": [4]}), "1x3")
    assert three.legal_actions()[-2:] == [CHALLENGE, CALZA]


def test_calza_only_by_the_player_to_move_and_only_after_a_bid() -> None:
    """Ruling: "only the player to move may call calza"; like a challenge, it
    needs a bid to call."""
    s = new_round(PERUDO, {"ann": [3, 3], "bob": [3, 4], "cy": [4, 5]})
    with pytest.raises(IllegalActionError, match="no bid"):
        s.apply(CALZA)
    s = play(s, "2x3")
    with pytest.raises(NotYourTurnError, match="bob's turn"):
        s.apply(CALZA, seat=seat(s, "cy"))
    assert s.apply(CALZA, seat=seat(s, "bob")).results[-1].calza


def test_calza_words() -> None:
    """Issue 9 "Terminal": calza, also exact and spot on, as input."""
    for text in ("calza", "Calza!", "exact", "spot on", "Spot  on", "spot-on"):
        assert parse_action(text) is CALZA


def test_rules_without_calza_refuse_it() -> None:
    """The seed presets have no calza (RULES.md: only under the `calza` option)."""
    s = play(new_round("classic", {"ann": [3, 3], "bob": [3, 4], "cy": [4, 5]}), "2x3")
    assert CALZA not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="has no calza"):
        s.apply(CALZA)


# -- palifico: worked case 9 -------------------------------------------------


def test_worked_case_9_palifico_round() -> None:
    """Worked case 9: a player drops from 2 dice to 1; the next round is palifico
    and they open it with two 1s; a count of 1s only. After two 1s a player
    holding 3 dice may bid three 1s but not two 5s or three 5s; a player holding
    1 die may bid two 5s."""
    s = new_round(PERUDO, {"ann": [2, 2], "bob": [6, 6, 6], "cy": [6, 6, 6]})
    s = play(s, "3x2", "liar")  # two 2s: ann loses one die, down to one
    assert s.dice == (1, 3, 3) and s.palifico and s.to_move == seat(s, "ann")
    s = s.deal([[1], [1, 5, 5], [1, 2, 6]])
    assert not s.wilds_active
    assert Bid(2, PACO) in s.legal_actions()  # the palifico opening may be on pacos
    s = play(s, "2x1")
    assert s.is_legal(Bid(3, PACO)) and not s.is_legal(Bid(2, 5)) and not s.is_legal(Bid(3, 5))
    with pytest.raises(IllegalActionError, match="face stays"):
        s.apply(Bid(3, 5))
    assert s.count(Bid(2, 5)) == 2, "pacos are not wild: two 5s count 2, not 5"
    end = play(s, "liar")
    r = end.results[-1]
    assert r.palifico and r.count == 3 and lost_by_name(end) == {"bob": 1}


def test_worked_case_9_one_die_player_may_change_the_face() -> None:
    """Worked case 9: "a player holding 1 die may bid two 5s" (plain order, 1 the
    lowest face, no conversions)."""
    s = new_round(PERUDO, {"ann": [2, 2], "dee": [6], "bob": [6, 6, 6]}, dice={"ann": 2, "dee": 1, "bob": 3})
    s = play(s, "3x2", "liar")  # ann (seat 0) drops to one die; dee started with one
    assert s.palifico and s.to_move == 0
    s = play(s.deal([[3], [5], [1, 5, 6]]), "2x1")
    assert s.to_move == seat(s, "dee")
    assert s.is_legal(Bid(2, 5)) and s.is_legal(Bid(3, PACO)) and not s.is_legal(Bid(1, 6))
    legal = s.legal_actions()
    assert legal[:5] == [Bid(2, f) for f in range(2, 7)] and legal[-2:] == [CHALLENGE, CALZA]
    s = play(s, "2x5")
    assert s.legal_actions()[0] == Bid(3, 5), "the three-dice player keeps the new face"


def test_palifico_once_per_player_even_after_a_calza() -> None:
    """RULES.md `perudo` Palifico: "Each player triggers at most one palifico round
    per game, even after regaining dice by a calza"."""
    s = later_round((2, 3, 3), [[2, 2], [6, 6, 6], [6, 6, 6]])
    s = play(s, "3x2", "liar")  # ann drops to one die: her palifico round
    assert s.dice == (1, 3, 3) and s.palifico and s.palifico_used == (0,) and s.to_move == 0
    s = play(s.deal([[4], [4, 5, 5], [4, 2, 6]]), "1x4", "2x4", "3x4", "calza")  # ann: three 4s, exact
    assert s.dice == (2, 3, 3) and not s.palifico and s.results[-1].palifico and s.to_move == 0
    s = play(s.deal([[2, 2], [6, 6, 6], [6, 6, 6]]), "3x2", "liar")  # ann drops to one die again
    assert s.dice == (1, 3, 3) and not s.palifico, "ann has had her palifico round"


def test_no_palifico_with_two_players_left() -> None:
    """RULES.md `perudo` Palifico: "(and more than two players are still in)"."""
    s = new_round(PERUDO, {"ann": [2, 2], "bob": [6, 6, 6], "cy": []})
    s = play(s, "3x2", "liar")
    assert s.dice == (1, 3, 0) and not s.palifico and s.to_move == 0


def test_palifico_round_counts_and_view() -> None:
    """A palifico round: wilds do not count (RULES.md "Pacos are not wild"), and
    every seat's view says so."""
    s = new_round(PERUDO, {"ann": [2, 2], "bob": [6, 6, 6], "cy": [6, 6, 6]})
    s = play(s, "3x2", "liar").deal([[1], [1, 6, 6], [6, 6, 1]])
    view = s.view(1)
    assert view.palifico and not view.wilds_active and view.to_json()["palifico"] is True
    s = play(s, "2x6")
    assert s.count() == 4 and s.view(1).legal_actions()[0] == Bid(3, 6)


# -- options combine with the other presets ------------------------------------


def test_classic_with_calza() -> None:
    """Issue 9: "classic with calza": the classic suspension stays and calza works."""
    rules = Rules.preset("classic").with_options(calza=True)
    s = play(new_round(rules, {"ann": [1, 1, 3], "bob": [3, 4, 5], "cy": [3, 2, 2]}), "2x1", "3x3", "calza")
    r = s.results[-1]
    # cy began this game's record with 3 dice and regains up to classic's 5 (RULES.md Calza, ruling of 2026-12-01)
    assert not r.wilds_active and r.count == 3 and r.calza and s.dice == (3, 3, 4)


def test_aces_wild_with_palifico_and_calza_for_two() -> None:
    """Options combine: aces-wild + palifico; calza_min_players=2 allows a
    two-player calza."""
    rules = Rules.preset("aces-wild").with_options(palifico=True, calza=True, calza_min_players=2)
    s = play(new_round(rules, {"ann": [2, 2], "bob": [6, 6, 6]}), "2x2", "calza")
    # bob regains up to aces-wild's 5 dice from the record's 3 (RULES.md Calza, ruling of 2026-12-01)
    assert s.results[-1].calza and s.dice == (2, 4)
    three = play(new_round(rules, {"ann": [2, 2], "bob": [6, 6, 6], "cy": [5, 5]}), "3x2", "liar")
    assert three.palifico


@pytest.mark.parametrize(
    "options, words",
    [
        ({"preset": "wild-stars", "palifico": True}, "palifico.*exact"),
        ({"preset": "joker", "calza": True}, "calza.*single_round"),
        ({"preset": "openspiel", "palifico": True}, "palifico.*single_round"),
        ({"wild_face": None, "wild_opening": False}, "wild_opening.*wild face"),
        ({"wild_face": None, "ordering": "half_up"}, "half_up.*wild face"),
        ({"preset": "classic", "wild_opening": False}, "wilds_suspended_on_wild_opening.*wild_opening"),
        ({"preset": "perudo", "calza_min_players": 1}, "calza_min_players"),
        ({"preset": "perudo", "calza": "yes"}, "calza must be true or false"),
        ({"preset": "perudo", "ordering": "spiral"}, "ordering.*'plain', 'track', 'half_up'"),
    ],
)
def test_impossible_combinations_raise_rules_error(options, words) -> None:
    """Issue 9: "Where two options cannot combine, creating the rules gives a clear
    RulesError" (one sentence naming the options)."""
    with pytest.raises(RulesError, match=words) as e:
        Rules.from_json(options)
    assert e.value.message.endswith(".") and "\n" not in e.value.message


def test_rules_json_round_trip_with_preset() -> None:
    """RECORD-FORMAT.md rules: a preset name, or {"preset": NAME, ...} with the
    options that differ."""
    assert PERUDO.to_json() == "perudo"
    variant = PERUDO.with_options(calza=False)
    assert variant.to_json() == {"preset": "perudo", "calza": False}
    assert Rules.from_json(variant.to_json()) == variant
    assert Rules.from_json(Rules(name="mine", faces=8).to_json()) == Rules(name="mine", faces=8)


def test_game_position_rebuilds_a_later_round() -> None:
    """Game.position: a later round from public facts (protocol, server)."""
    game = Game.create(PERUDO, ["ann", "bob", "cy"])
    s = game.position((1, 3, 5), 0, palifico=True, palifico_used=(0,))
    assert s.palifico and s.deal([[2], [1, 1, 1], [2] * 5]).wilds_active is False
    with pytest.raises(RulesError, match="more dice"):
        game.position((6, 3, 5), 0)
    with pytest.raises(RulesError, match="no palifico"):
        Game.create(Rules.preset("classic"), ["a", "b"]).position((2, 2), 0, palifico=True)
