"""State contracts: pure, immutable transitions that share unchanged parts with
their parents (issue 2 section 3: "There is no deep copy per move"), and
legal-action lists that belong to the caller."""

from __future__ import annotations

from liars_dice.engine import CHALLENGE, Bid, Game, Phase, Rules, SeededDice, legal_actions
from rule_helpers import new_round, play


def test_a_bid_shares_the_unchanged_parts_of_the_state() -> None:
    """A transition copies nothing it does not change."""
    s = play(new_round("classic", {"ann": [2, 3], "bob": [4, 5]}), "1x2", "liar")
    s = s.deal([[1, 1], [6]])
    t = s.apply(Bid(1, 4))
    assert t.hidden is s.hidden and t.shown is s.shown and t.dice is s.dice
    assert t.results is s.results and t.logs is s.logs and t.game is s.game
    assert t.deal_faces is s.deal_faces


def test_the_parent_state_is_untouched_by_its_children() -> None:
    s = new_round("wild-stars", {"ann": [5, 5, 2], "bob": [3, 3]})
    before = (s.hidden, s.shown, s.bids, s.moves, s.phase, s.to_move)
    s.apply(Bid(2, 5), (5,)).reroll((1, 1))
    s.apply(Bid(2, 5)).apply(CHALLENGE)
    assert (s.hidden, s.shown, s.bids, s.moves, s.phase, s.to_move) == before


def test_legal_actions_list_belongs_to_the_caller() -> None:
    """legal_actions() returns a fresh list each call (the bid ladder behind it is cached)."""
    s = new_round("aces-wild", {"ann": [5, 5, 2], "bob": [3, 3]})
    first = s.legal_actions()
    first.clear()
    assert len(s.legal_actions()) == 5 * 6
    t = s.apply(Bid(2, 5))
    after = t.legal_actions()
    after.append("junk")
    after.reverse()
    assert t.legal_actions()[-1] is CHALLENGE and "junk" not in t.legal_actions()


def test_legal_actions_after_a_bid_beyond_the_dice_in_play() -> None:
    """The module function answers for any current bid, even one above the dice in play."""
    assert legal_actions(Rules.preset("classic"), Bid(20, 3), 10) == [CHALLENGE]
    # after six stars, a number bid needs 12 (RULES.md: star k -> number q iff q >= 2k); stars 7.. follow
    ws = Rules.preset("wild-stars")
    assert legal_actions(ws, Bid(6, 1), 11) == [Bid(k, 1) for k in range(7, 12)] + [CHALLENGE]
    assert legal_actions(ws, Bid(6, 1), 12) == (
        [Bid(12, f) for f in range(2, 7)] + [Bid(k, 1) for k in range(7, 13)] + [CHALLENGE]
    )
    assert legal_actions(ws, Bid(12, 6), 12) == [Bid(k, 1) for k in range(7, 13)] + [CHALLENGE]


def test_phases_of_a_round() -> None:
    """DEAL -> BID (-> REROLL -> BID) ... -> DEAL or OVER."""
    game = Game.create(Rules.preset("wild-stars"), ["a", "b"], [2, 2])
    s = game.initial_state()
    assert s.phase is Phase.DEAL and s.is_chance and s.legal_actions() == []
    s = s.roll(SeededDice(1))
    assert s.phase is Phase.BID and not s.is_chance
    s = s.apply(Bid(1, 2), (s.hidden[0][0],))
    assert s.phase is Phase.REROLL and s.is_chance and s.legal_actions() == []
    s = s.roll(SeededDice(2))
    assert s.phase is Phase.BID and s.to_move == 1
    s = s.apply(CHALLENGE)
    assert s.phase in (Phase.DEAL, Phase.OVER)


def test_records_replay_of_a_pending_reroll_leaves_the_bid_out() -> None:
    """records.writer: a bid whose reroll is still pending is left out of the record."""
    from liars_dice.records import record_from_state, replay

    s = new_round("wild-stars", {"ann": [5, 5, 2], "bob": [3, 3]})
    pending = s.apply(Bid(2, 5), (5,))
    back = replay(record_from_state(pending))
    assert back.ok and back.state == s
