"""Property tests (issue 2 section 7), for every preset: random games terminate;
dice never increase; an eliminated player never moves; every enumerated legal
action is accepted and every other bid is refused; no view of a seat ever holds
another seat's hidden dice; ``replay(record(game)) == game``.

Games are driven by hypothesis-drawn seeds: one for the dice, one for the
choices (uniform over legal actions, and in show-and-reroll presets a random
legal show on some bids).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liars_dice.engine import (
    CALZA,
    CHALLENGE,
    PRESETS,
    Bid,
    Game,
    IllegalActionError,
    Phase,
    Rules,
    SeededDice,
    State,
)
from liars_dice.records import record_from_state, replay

PRESET_NAMES = sorted(PRESETS)
MAX_STEPS = 20_000
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, int, int, int]:
    """(game, start seat, dice seed, choice seed) under any preset and seat count."""
    rules = Rules.preset(draw(st.sampled_from(PRESET_NAMES)))
    n = draw(st.integers(rules.min_players, min(rules.max_players, 6)))
    dice = draw(st.integers(1, rules.dice_per_player)) if draw(st.booleans()) else rules.dice_per_player
    game = Game.create(rules, [f"p{i}" for i in range(n)], [dice] * n)
    return game, draw(st.integers(0, n - 1)), draw(st.integers(0, 2**32)), draw(st.integers(0, 2**32))


def transitions(game: Game, start: int, dice_seed: int, choice_seed: int) -> Iterator[tuple[State, object, tuple, State]]:
    """Play a random game through the checked transitions, yielding
    ``(before, action, show, after)``; chance steps yield ``action=None``."""
    dice, rng = SeededDice(dice_seed), random.Random(choice_seed)
    state = game.initial_state(start)
    for _ in range(MAX_STEPS):
        if state.is_over:
            return
        if state.is_chance:
            nxt = state.roll(dice)
            yield state, None, (), nxt
        else:
            legal = state.legal_actions()
            # calza (RULES.md perudo) is one action among many; call it often
            # enough that generated games hold right and wrong calzas
            action = CALZA if CALZA in legal and rng.random() < 0.1 else rng.choice(legal)
            shows = state.legal_shows()
            show = rng.choice(shows) if isinstance(action, Bid) and len(shows) > 1 and rng.random() < 0.4 else ()
            nxt = state.apply(action, show, seat=state.to_move)
            yield state, action, show, nxt
        state = nxt
    raise AssertionError(f"the game did not end within {MAX_STEPS} steps")


def final_state(game: Game, start: int, dice_seed: int, choice_seed: int) -> State:
    last = game.initial_state(start)
    for _, _, _, last in transitions(game, start, dice_seed, choice_seed):
        pass
    return last


@SETTINGS
@given(games())
def test_random_games_terminate_with_one_winner(g) -> None:
    """RULES.md Common: "The game ends when one player has dice: that player wins"
    (single-round presets: the challenge winner wins)."""
    game, *_ = g
    end = final_state(*g)
    assert end.phase is Phase.OVER and end.winner is not None and end.to_move is None
    assert end.dice[end.winner] > 0
    if not game.rules.single_round:
        assert sum(1 for d in end.dice if d > 0) == 1
    else:
        assert len(end.results) == 1 and end.winner == (
            end.results[0].bidder if end.results[0].loser == end.results[0].challenger else end.results[0].challenger
        )


@SETTINGS
@given(games())
def test_dice_never_increase_and_eliminated_players_never_move(g) -> None:
    """RULES.md Common: dice are only lost, except by a right calza (RULES.md
    `perudo`: "the caller gains one die"); "A player left with 0 dice is out
    and never moves again"."""
    for before, action, _show, after in transitions(*g):
        if action is CALZA and after.results[-1].gained[before.to_move]:
            gained = [a - b for a, b in zip(after.dice, before.dice)]
            assert gained == [1 if s == before.to_move else 0 for s in range(len(gained))]
        else:
            assert all(a <= b for a, b in zip(after.dice, before.dice)), "dice increased"
        if action is not None:
            assert before.dice[before.to_move] > 0, "an eliminated player moved"
        if after.phase in (Phase.BID, Phase.REROLL):
            assert after.dice[after.to_move] > 0, "an eliminated player is to move"
            assert len(after.hidden[after.to_move]) + len(after.shown[after.to_move]) == after.dice[after.to_move]
        if action is CHALLENGE:
            assert sum(after.dice) < sum(before.dice), "a challenge costs at least one die"
        if action is CALZA:
            assert abs(sum(after.dice) - sum(before.dice)) <= 1, "a calza moves at most one die"
        for s, d in enumerate(before.dice):
            if d == 0:
                assert after.dice[s] == 0 and not after.hidden[s], "an eliminated player came back"


@SETTINGS
@given(games())
def test_dice_never_exceed_the_starting_count(g) -> None:
    """Issue 9: "the dice a player holds never exceed the starting count" (RULES.md
    `perudo` Calza: "never beyond the starting count"), which RULES.md rules is the
    rule set's dice per player, the same for every player (issue 17 fault 8): a
    game begun with fewer may calza back up to it, never past it or past its start."""
    game = g[0]
    top = game.rules.dice_per_player
    for _, _, _, after in transitions(*g):
        assert all(d <= max(start, top) for d, start in zip(after.dice, game.dice))


@SETTINGS
@given(games())
def test_palifico_rounds_have_no_wilds_and_a_fixed_face(g) -> None:
    """RULES.md `perudo` Palifico: pacos are not wild; a raise keeps the face
    unless the raiser holds one die; each player triggers at most one."""
    triggered: list[int] = []
    for before, action, _, after in transitions(*g):
        if after.phase is Phase.DEAL and after.palifico:
            triggered.append(after.to_move)
            assert after.dice[after.to_move] == 1
        if before.phase is Phase.BID and before.palifico:
            assert not before.wilds_active
            if isinstance(action, Bid) and before.bids and before.dice[before.to_move] > 1:
                assert action.face == before.current_bid.face
    assert len(triggered) == len(set(triggered)), "a player had two palifico rounds"


def test_generated_perudo_games_hold_calzas_and_palifico_rounds() -> None:
    """The generator above reaches the perudo rules the properties are about: over
    a few seeds, right calzas, wrong calzas and palifico rounds all occur."""
    game = Game.create(Rules.preset("perudo"), ["p0", "p1", "p2", "p3"])
    seen = {"right calza": 0, "wrong calza": 0, "palifico": 0}
    for seed in range(30):
        end = final_state(game, 0, seed, seed + 1)
        for r in end.results:
            if r.calza:
                seen["right calza" if r.loser is None else "wrong calza"] += 1
            seen["palifico"] += r.palifico
    assert all(seen.values()), seen


def _check_whole_bid_space(state: State) -> None:
    legal = state.legal_actions()
    legal_set = set(legal)
    assert len(legal_set) == len(legal), "legal_actions lists an action twice"
    n, faces = state.dice_in_play, state.rules.faces
    for q in range(0, n + 3):
        for f in range(0, faces + 2):
            bid = Bid(q, f)
            if bid in legal_set:
                state.apply(bid, seat=state.to_move)  # accepted
            else:
                try:
                    state.apply(bid, seat=state.to_move)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"{bid} was accepted but is not enumerated as legal")
    if state.bids:
        calls = [CHALLENGE, CALZA] if CALZA in legal_set else [CHALLENGE]
        assert legal[-len(calls) :] == calls
        for call in calls:
            state.apply(call, seat=state.to_move)
        if CALZA not in legal_set:
            try:
                state.apply(CALZA, seat=state.to_move)
            except IllegalActionError:
                pass
            else:
                raise AssertionError("a calza was accepted but is not enumerated as legal")
    else:
        assert CHALLENGE not in legal_set and CALZA not in legal_set
    if state.palifico:  # plain order, whatever the rules' ordering (RULES.md perudo Palifico)
        ranks = [(b.quantity, b.face) for b in legal if isinstance(b, Bid)]
    else:
        ranks = [state.rules.rank(b.quantity, b.face) for b in legal if isinstance(b, Bid)]
    assert ranks == sorted(ranks), "legal bids are not in bid order"
    bids = [a for a in legal if isinstance(a, Bid)]
    if not bids:  # the highest bid stands: only the challenge (and calza) is left
        assert legal[0] is CHALLENGE
        return
    for show in state.legal_shows():
        state.apply(bids[0], show, seat=state.to_move)  # every enumerated show is accepted
    hand = state.hidden[state.to_move]
    if state.rules.show_and_reroll:
        for bad in (hand, hand + (hand[0],) if hand else (1,), (state.rules.faces + 1,)):
            try:
                state.apply(bids[0], bad, seat=state.to_move)
            except IllegalActionError:
                continue
            raise AssertionError(f"the show {bad} of {hand} was accepted")


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_legal_actions_accepted_and_every_other_bid_refused(g, pick_seed) -> None:
    """Issue 2 section 3: "legal_actions() is enumerated from the rules": at sampled
    states, every enumerated action and show is accepted and every other bid with
    quantity 0..N+2 and face 0..faces+1 is refused."""
    pick = random.Random(pick_seed)
    checked = 0
    for before, _, _, _ in transitions(*g):
        if before.phase is Phase.BID and (checked == 0 or pick.random() < 0.05):
            _check_whole_bid_space(before)
            checked += 1
    assert checked >= 1


def _twin(state: State, seat: int) -> State:
    """The same state with every other seat's hidden dice changed (each face moved up by one)."""
    faces = state.rules.faces
    hidden = tuple(h if s == seat else tuple(f % faces + 1 for f in h) for s, h in enumerate(state.hidden))
    return state._replace(hidden=hidden)


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_no_view_holds_another_seats_hidden_dice(g, pick_seed) -> None:
    """Issue 2 section 3: "A per-seat view holds only what that seat may see". A
    view (its fields and its JSON) does not change when other seats' hidden dice
    change, and it holds the seat's own hidden dice as its hand."""
    pick = random.Random(pick_seed)
    for before, _, _, _ in transitions(*g):
        if before.phase not in (Phase.BID, Phase.REROLL) or pick.random() > 0.15:
            continue
        for seat in range(before.game.n_players):
            view = before.view(seat)
            twin = _twin(before, seat).view(seat)
            assert view.hand == before.hidden[seat]
            assert view == twin, "a view changed with another seat's hidden dice"
            text = json.dumps(view.to_json(), sort_keys=True)
            assert text == json.dumps(twin.to_json(), sort_keys=True), "a view's JSON holds another seat's hidden dice"
            assert view.shown == before.shown, "shown dice are visible to everyone"


@SETTINGS
@given(games())
def test_replay_of_record_is_the_game(g) -> None:
    """Issue 2 section 7: replay(record(game)) == game: the final state compares
    equal, show-and-reroll games included."""
    end = final_state(*g)
    rec = record_from_state(end)
    result = replay(json.loads(json.dumps(rec)))
    assert result.ok, result.error and result.error.message
    assert result.state == end


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_replay_of_record_mid_game(g, pick_seed) -> None:
    """A record of a game stopped at any bid or deal replays to that state
    (RECORD-FORMAT.md: the last round may stop at any move)."""
    pick = random.Random(pick_seed)
    stops = [after for _, _, _, after in transitions(*g) if after.phase in (Phase.BID, Phase.DEAL)]
    stop = pick.choice(stops)
    result = replay(record_from_state(stop))
    assert result.ok, result.error and result.error.message
    assert result.state == stop


@st.composite
def custom_rules(draw: st.DrawFn) -> Rules:
    """Any consistent Rules value: "A new rule set is a new Rules value" (issue 2 section 3)."""
    faces = draw(st.integers(2, 9))
    wild = draw(st.one_of(st.none(), st.integers(1, faces)))
    ordering = draw(st.sampled_from(["plain", "track", "half_up"])) if wild is not None else "plain"
    exact = draw(st.sampled_from(["challenger_loses", "all_but_bidder"]))
    single_round = draw(st.booleans())
    suspended = wild is not None and draw(st.booleans())
    return Rules(
        name="custom",
        faces=faces,
        wild_face=wild,
        wilds_suspended_on_wild_opening=suspended,
        ordering=ordering,
        loss=draw(st.sampled_from(["one", "difference"])),
        exact=exact,
        die_hard=exact == "all_but_bidder" and draw(st.booleans()),
        show_and_reroll=draw(st.booleans()),
        next_opener=draw(st.sampled_from(["loser", "winner"])),
        dice_per_player=draw(st.integers(1, 4)),
        single_round=single_round,
        wild_opening=wild is None or suspended or draw(st.booleans()),
        calza=not single_round and draw(st.booleans()),
        calza_min_players=draw(st.integers(2, 3)),
        palifico=not single_round and exact == "challenger_loses" and draw(st.booleans()),
    )


@SETTINGS
@given(custom_rules(), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 2**32))
def test_any_rules_value_plays_legally_to_the_end_and_replays(rules, n, dice_seed, choice_seed) -> None:
    """Every option combination plays through the same engine: games end, the
    enumerated actions are exactly the accepted ones, and the record replays."""
    game = Game.create(rules, [f"p{i}" for i in range(n)])
    last = None
    for i, (before, _, _, after) in enumerate(transitions(game, 0, dice_seed, choice_seed)):
        if i < 3 and before.phase is Phase.BID:
            _check_whole_bid_space(before)
        last = after
    assert last is not None and last.is_over and last.dice[last.winner] > 0
    result = replay(json.loads(json.dumps(record_from_state(last))))
    assert result.ok, result.error and result.error.message
    assert result.state == last
