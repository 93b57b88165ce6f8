"""RULES.md "Common to every preset", for each of the three seed presets.

Every test names the ruling it checks.
"""

from __future__ import annotations

import pytest

from liars_dice.engine import (
    CHALLENGE,
    SEED_PRESETS,
    Bid,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidBidError,
    NotYourTurnError,
    Phase,
    Rules,
    parse_action,
)
from rule_helpers import new_round, play, seat

pytestmark = pytest.mark.parametrize("preset", SEED_PRESETS)


def test_play_passes_to_next_player_still_in(preset: str) -> None:
    """RULES.md Common: "play passes to the next player still in the game"."""
    s = new_round(preset, {"ann": [2, 3], "bob": [], "cy": [4, 5], "dee": [6, 6]})
    assert s.to_move == seat(s, "ann")
    s = play(s, "1x2")
    assert s.to_move == seat(s, "cy"), "bob is out and is skipped"
    s = play(s, "1x3")
    assert s.to_move == seat(s, "dee")
    s = play(s, "1x4")
    assert s.to_move == seat(s, "ann"), "the seating order wraps round"


def test_opener_must_bid_no_challenge_before_opening_bid(preset: str) -> None:
    """RULES.md Common: "There is no challenge before the opening bid"."""
    s = new_round(preset, {"ann": [2, 3], "bob": [4, 5]})
    assert CHALLENGE not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="no bid to challenge"):
        s.apply(CHALLENGE)


def test_each_next_player_must_raise_or_challenge_no_passing(preset: str) -> None:
    """RULES.md Common: "each next player must either raise or challenge. No passing"."""
    s = play(new_round(preset, {"ann": [2, 3], "bob": [4, 5]}), "1x2")
    actions = s.legal_actions()
    assert actions[-1] == CHALLENGE
    assert all(isinstance(a, Bid) for a in actions[:-1])
    with pytest.raises(InvalidBidError):
        parse_action("pass")


def test_only_player_to_move_may_challenge(preset: str) -> None:
    """RULES.md Common: "Only the player whose turn it is may challenge"."""
    s = play(new_round(preset, {"ann": [2, 3], "bob": [4, 5], "cy": [6, 6]}), "1x2")
    with pytest.raises(NotYourTurnError):
        s.apply(CHALLENGE, seat=seat(s, "cy"))
    with pytest.raises(NotYourTurnError):
        s.apply(CHALLENGE, seat=seat(s, "ann"))
    s.apply(CHALLENGE, seat=seat(s, "bob"))


def test_challenge_is_of_the_latest_bid(preset: str) -> None:
    """RULES.md Common: "and only the latest bid"."""
    s = play(new_round(preset, {"ann": [2, 3], "bob": [4, 5], "cy": [6, 6]}), "1x2", "1x4", "liar")
    r = s.results[0]
    assert r.bid == Bid(1, 4) and r.bidder == 1 and r.challenger == 2


def test_quantity_runs_from_one_to_dice_in_play(preset: str) -> None:
    """RULES.md Common: "Quantity runs from 1 to the number of dice in play this round"."""
    s = new_round(preset, {"ann": [2, 3, 4], "bob": [4, 5]})
    assert s.dice_in_play == 5
    quantities = {a.quantity for a in s.legal_actions()}
    assert quantities == {1, 2, 3, 4, 5}
    for q in (0, 6, -1):
        with pytest.raises(IllegalActionError, match="quantity"):
            s.apply(Bid(q, 3))
    s.apply(Bid(5, 3))
    s.apply(Bid(1, 3))


def test_challenge_reveals_all_dice(preset: str) -> None:
    """RULES.md Common: "A challenge reveals all dice"."""
    hands = {"ann": [2, 3, 1], "bob": [4, 5], "cy": [6, 6, 6]}
    s = play(new_round(preset, hands), "1x2", "liar")
    assert s.results[0].revealed == tuple(tuple(h) for h in hands.values())


def test_player_with_no_dice_is_out_and_game_ends_with_one_player(preset: str) -> None:
    """RULES.md Common: "A player left with 0 dice is out and never moves again.
    The game ends when one player has dice: that player wins"."""
    s = new_round(preset, {"ann": [2], "bob": [3]})
    s = play(s, "2x5", "liar")  # one 5 at most: the bidder ann loses her only die
    assert s.dice == (0, 1)
    assert s.phase is Phase.OVER and s.winner == 1 and s.to_move is None
    assert s.results[0].out == (0,)
    with pytest.raises(GameOverError):
        s.apply(Bid(1, 2))
    with pytest.raises(GameOverError):
        s.deal([[], [4]])


def test_out_player_never_moves_again(preset: str) -> None:
    """RULES.md Common: "A player left with 0 dice is out and never moves again"."""
    game = Game.create(Rules.preset(preset), ["ann", "bob", "cy"], {"ann": 1, "bob": 1, "cy": 2})
    s = game.initial_state(0).deal([[2], [3], [4, 4]])
    s = play(s, "3x5", "liar")  # ann bid three 5s and there are none: ann is out
    assert s.dice[0] == 0
    s = s.deal([[], [3], [4, 4]])
    assert s.to_move != 0
    while not s.is_over:
        if s.is_chance:
            s = s.deal([[], [3] * s.dice[1], [4] * s.dice[2]])
            continue
        assert s.to_move != 0, "an eliminated player moved"
        with pytest.raises(NotYourTurnError, match="out of the game"):
            s.apply(s.legal_actions()[0], seat=0)
        s = s.apply(CHALLENGE if s.bids else Bid(s.dice_in_play, 5))


def test_first_opener_is_chosen_by_the_caller(preset: str) -> None:
    """RULES.md Common: "The opener of the first round is chosen by the caller"."""
    game = Game.create(Rules.preset(preset), ["ann", "bob", "cy"])
    for start in range(3):
        assert game.initial_state(start).to_move == start


def test_next_player_still_in_after_x_walks_the_seating_order(preset: str) -> None:
    """RULES.md Common: "Next player still in after X: walk the seating order
    from X, skipping players who are out" (an opener with no dice hands on)."""
    game = Game.create(Rules.preset(preset), ["ann", "bob", "cy", "dee"], {"ann": 2, "bob": 0, "cy": 0, "dee": 3})
    assert game.initial_state(1).to_move == 3
    assert game.initial_state(3).to_move == 3
