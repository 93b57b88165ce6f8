"""The engine's fast paths agree with the plain rules (benchmarks/engine_vs_openspiel.py
is why they exist): ``apply``'s quick yes never accepts what ``check`` refuses,
a deal is split seat by seat in seating order, and the count of a bid is the
count die by die (RULES.md Common; seeds 000/003/004 for the wild rules)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import CHALLENGE, Game, IllegalActionError, Phase, Rules, SeededDice, State, legal_actions
from test_properties import SETTINGS, games, transitions


def _outcome(state: State, action: object, seat: object) -> object:
    try:
        return state.apply(action, seat=seat)  # type: ignore[arg-type]  # deliberately any seat value
    except IllegalActionError as e:
        return type(e), e.message


def _checked(state: State, action: object, seat: object) -> object:
    try:
        state.check(action, seat=seat)  # type: ignore[arg-type]  # deliberately any seat value
    except IllegalActionError as e:
        return type(e), e.message
    return state.apply_unchecked(action)  # type: ignore[arg-type]  # checked just above


@SETTINGS
@given(games())
def test_apply_agrees_with_check_then_apply_unchecked(g) -> None:
    """For every action of every ladder of the game (legal or not) and the
    challenge, by the seat to move, another seat, or no seat: ``apply`` gives
    exactly what ``check`` then ``apply_unchecked`` give, error for error."""
    game = g[0]
    tried = 0
    for before, action, _show, _after in transitions(*g):
        if before.phase is not Phase.BID or action is None:
            continue
        assert before.to_move is not None
        opening = legal_actions(game.rules, None, before.dice_in_play)  # every bid, the ladder's own objects
        candidates = [*before.legal_actions(), *opening[:: max(1, len(opening) // 12)], CHALLENGE]
        other = (before.to_move + 1) % len(before.dice)
        for cand in candidates:
            for seat in (None, before.to_move, other, float(before.to_move)):
                assert _outcome(before, cand, seat) == _checked(before, cand, seat)
                tried += 1
    assert tried > 0


@settings(max_examples=80, deadline=None)
@given(
    held=st.lists(st.integers(0, 6), min_size=2, max_size=6).filter(lambda h: sum(1 for d in h if d) >= 2),
    seed=st.integers(0, 2**32),
    preset=st.sampled_from(["classic", "wild-stars", "perudo"]),
)
def test_a_deal_is_split_seat_by_seat(held: list[int], seed: int, preset: str) -> None:
    """One draw of every die in play, handed out in seating order: the same faces
    as rolling each seat's dice in turn (whatever the counts held)."""
    rules = Rules.preset(preset).with_options(dice_per_player=6, max_players=6, min_players=2)
    game = Game.create(rules, [f"p{i}" for i in range(len(held))])
    opener = next(s for s, d in enumerate(held) if d)
    state = game.position(held, opener).roll(SeededDice(seed))
    draw = SeededDice(seed).roll(sum(held), rules.faces)
    expected, i = [], 0
    for d in held:
        expected.append(draw[i : i + d])
        i += d
    assert state.hidden == tuple(expected) == state.deal_faces
    assert all(not s for s in state.shown) and len(state.shown) == len(held)


@SETTINGS
@given(games())
def test_the_count_is_the_count_die_by_die(g) -> None:
    game = g[0]
    rules = game.rules
    counted = 0
    for before, _action, _show, _after in transitions(*g):
        if before.phase is not Phase.BID or not before.bids:
            continue
        for face in range(1, rules.faces + 1):
            bid = before.bids[-1][1].__class__(1, face)
            dice = [d for hand in (*before.hidden, *before.shown) for d in hand]
            assert before.count(bid) == sum(1 for d in dice if rules.matches(d, face, before.wilds_active))
            counted += 1
    assert counted > 0
