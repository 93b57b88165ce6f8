"""The batched engine (issue 10 "A batched engine for self-play"): random
batched games replayed through the scalar engine's checked ``State.apply``
agree move for move (states, legal masks, results), for every preset and for
rule sets mixing the options; plus the encoding, bad input, and fair dice.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liars_dice.batch import ActionEncoding, BatchGame, UnsupportedRulesError
from liars_dice.batch import engine as batch_engine
from liars_dice.engine import (
    CALZA,
    CHALLENGE,
    PRESETS,
    Bid,
    Exact,
    Game,
    IllegalActionError,
    Loss,
    Opener,
    Ordering,
    Phase,
    Rules,
    RulesError,
    State,
    legal_shows,
)

B = 8
MAX_STEPS = 3_000


@st.composite
def tables(draw: st.DrawFn) -> tuple[Rules, int, int]:
    """(rules, seats, dice each): a preset, or a rule set mixing the options."""
    if draw(st.booleans()):
        rules = Rules.preset(draw(st.sampled_from(sorted(PRESETS))))
    else:
        faces = draw(st.integers(2, 6))
        wild = draw(st.one_of(st.none(), st.integers(1, faces)))
        ordering = draw(st.sampled_from(list(Ordering))) if wild is not None else Ordering.PLAIN
        exact = draw(st.sampled_from(list(Exact)))
        single = draw(st.booleans())
        suspend = wild is not None and draw(st.booleans())
        rules = Rules(
            name="mixed", faces=faces, wild_face=wild, ordering=ordering,
            wilds_suspended_on_wild_opening=suspend,
            wild_opening=wild is None or suspend or draw(st.booleans()),
            loss=draw(st.sampled_from(list(Loss))), exact=exact,
            die_hard=exact is Exact.ALL_BUT_BIDDER and draw(st.booleans()),
            show_and_reroll=draw(st.booleans()), next_opener=draw(st.sampled_from(list(Opener))),
            single_round=single,
            calza=not single and draw(st.booleans()), calza_min_players=draw(st.integers(2, 4)),
            palifico=not single and exact is Exact.CHALLENGER_LOSES and draw(st.booleans()),
        )
    n = draw(st.integers(rules.min_players, min(rules.max_players, 5)))
    dice = draw(st.integers(1, 5))
    return rules, n, dice


def _hand(counts: np.ndarray) -> tuple[int, ...]:
    return tuple(f + 1 for f, k in enumerate(counts) for _ in range(int(k)))


def _counts(hand: tuple[int, ...], faces: int) -> list[int]:
    c = Counter(hand)
    return [c[f] for f in range(1, faces + 1)]


def _dealt(state: State, g: BatchGame, b: int) -> State:
    return state.deal([_hand(g.hidden[b, s]) for s in range(g.n_players)])


def _assert_same(state: State, g: BatchGame, b: int) -> None:
    """The scalar state and batched game ``b`` hold the same position."""
    nf = g.faces
    assert state.dice == tuple(int(d) for d in g.dice[b])
    if state.is_over:
        assert g.phase[b] == batch_engine.OVER and g.winner[b] == state.winner
        return
    assert state.phase is Phase.BID
    assert state.to_move == g.to_move[b]
    for s in range(g.n_players):
        assert _counts(state.hidden[s], nf) == list(g.hidden[b, s]), (b, s)
        assert _counts(state.shown[s], nf) == list(g.shown[b, s]), (b, s)
    bid = state.current_bid
    assert (g.encoding.encode(bid) if bid else -1) == g.bid[b]
    assert state.bidder == (None if g.bidder[b] < 0 else g.bidder[b])
    assert state.wilds_active == bool(g.wilds_active[b])
    assert state.palifico == bool(g.palifico[b])
    assert set(state.palifico_used) == set(np.flatnonzero(g.palifico_used[b]).tolist())


@given(tables(), st.integers(0, 2**32 - 1), st.sampled_from(["sample", "mask"]))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_batched_games_agree_with_the_scalar_engine_move_for_move(table: tuple[Rules, int, int], seed: int, how: str) -> None:
    rules, n, dice = table
    g = BatchGame(rules, n, B, dice=dice, seed=seed)
    enc = g.encoding
    rng = np.random.default_rng(seed + 1)
    game = Game.create(rules, [f"p{i}" for i in range(n)], [dice] * n)
    states = [_dealt(game.initial_state(int(g.to_move[b])), g, b) for b in range(B)]
    pending: list[tuple[Bid, State] | None] = [None] * B  # a bid awaiting its show decision
    for _ in range(MAX_STEPS):
        if (g.phase == batch_engine.OVER).all():
            break
        mask = g.legal_mask()
        for b in range(B):
            legal = set(np.flatnonzero(mask[b]).tolist())
            if pending[b] is not None:  # the show decision after a bid (seed 000)
                bid, before = pending[b]
                assert legal == set(enc.legal_show_ids(before.hidden[before.to_move]))
            elif states[b].is_over:
                assert legal == set()
            else:
                assert legal == set(enc.legal_ids(states[b]))
        if how == "sample":
            actions = g.sample_legal(rng)
        else:
            pick = (rng.random(B) * mask.sum(axis=1)).astype(int)
            actions = np.where(mask.any(axis=1), (np.cumsum(mask, axis=1) > pick[:, None]).argmax(axis=1), -1)
        live = g.phase != batch_engine.OVER
        assert (g.is_legal(actions) == live).all()
        assert all(mask[b, actions[b]] for b in range(B) if live[b])
        rerolling = [int(g.to_move[b]) for b in range(B)]
        step = g.step(actions)
        for b in range(B):
            a, state = int(actions[b]), states[b]
            if not live[b]:
                assert not step.round_over[b]
                continue
            if a < enc.num_bids:
                bid = enc.decode(a)
                # seed 000: a show is offered exactly when the scalar engine allows one
                assert (g.phase[b] == batch_engine.SHOW) == (len(state.legal_shows()) > 1)
                if g.phase[b] == batch_engine.SHOW:
                    pending[b] = (bid, state)
                    continue
                states[b] = state.apply(bid, seat=rerolling[b])
            elif a in (enc.challenge, enc.calza):
                after = state.apply(CHALLENGE if a == enc.challenge else CALZA, seat=rerolling[b])
                r = after.results[-1]
                assert step.round_over[b] and r.count == step.count[b]
                assert (-1 if r.loser is None else r.loser) == step.loser[b]
                assert r.lost == tuple(int(x) for x in step.lost[b])
                assert r.gained == tuple(int(x) for x in step.gained[b])
                assert bool(step.game_over[b]) == after.is_over
                if after.is_over:
                    assert after.winner == step.winner[b]
                else:
                    assert after.to_move == g.to_move[b]  # the next opener
                    after = _dealt(after, g, b)
                states[b] = after
            else:  # a show: the scalar engine takes the bid and its show at once, then the reroll
                bid, before = pending[b]  # type: ignore[misc]
                pending[b] = None
                show = enc.decode(a).faces
                after = before.apply(bid, show, seat=rerolling[b])
                if show:
                    after = after.reroll(_hand(g.hidden[b, rerolling[b]]))
                states[b] = after
            _assert_same(states[b], g, b)
    else:
        pytest.fail("the batched games did not finish")
    assert all(s.is_over for s in states)


def test_the_batch_uses_the_shared_encoding() -> None:
    """Issue 10: one action encoding for every integration and the batch."""
    g = BatchGame(Rules.preset("wild-stars"), 2, 3, dice=5)
    assert g.encoding == ActionEncoding.create(Rules.preset("wild-stars"), 2, 5)
    assert g.n_actions == g.encoding.num_actions == 271 and g.legal_mask().shape == (3, 271)


def test_an_illegal_action_names_the_game_and_changes_nothing() -> None:
    g = BatchGame(Rules.preset("classic"), 3, 4, seed=3)
    before = (g.dice.copy(), g.hidden.copy(), g.bid.copy(), g.to_move.copy())
    actions = g.sample_legal()
    actions[2] = g.encoding.challenge  # no bid stands yet: no challenge
    with pytest.raises(IllegalActionError, match="game 2"):
        g.step(actions)
    with pytest.raises(IllegalActionError, match="shape"):
        g.step(actions[:2])
    after = (g.dice, g.hidden, g.bid, g.to_move)
    assert all((x == y).all() for x, y in zip(before, after))


def test_bad_tables_are_refused_in_one_sentence() -> None:
    with pytest.raises(RulesError, match="not 7"):
        BatchGame(Rules.preset("classic"), 7, 4)
    with pytest.raises(RulesError, match="from 1 to"):
        BatchGame(Rules.preset("classic"), 2, 0)
    with pytest.raises(RulesError, match="from 1 to"):
        BatchGame(Rules.preset("classic"), 2, batch_engine.MAX_BATCH + 1)
    with pytest.raises(RulesError, match="1 to 100"):
        BatchGame(Rules.preset("classic"), 2, 4, dice=101)
    g = BatchGame(Rules.preset("classic"), 2, 4)
    with pytest.raises(RulesError, match="no such seat"):
        g.reset(start=5)


def test_an_option_the_batch_cannot_step_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Rules option outside SUPPORTED_OPTIONS that differs from its default
    is refused, naming it (so a new engine option is never silently ignored)."""
    monkeypatch.setattr(batch_engine, "SUPPORTED_OPTIONS", batch_engine.SUPPORTED_OPTIONS - {"show_and_reroll"})
    with pytest.raises(UnsupportedRulesError, match="show_and_reroll=True"):
        BatchGame(Rules.preset("wild-stars"), 2, 4)
    BatchGame(Rules.preset("classic"), 2, 4)  # at its default the option is no bar


@pytest.mark.parametrize("dice", [5, 40])  # the roll table, and dice rolled one by one
def test_deals_are_uniform(dice: int) -> None:
    """Every face comes up about equally often (a 6-face chi-square at p > 1e-4)."""
    g = BatchGame(Rules.preset("classic"), 2, 2000, dice=dice, seed=11)
    freq = g.hidden.sum(axis=(0, 1)).astype(float)
    assert freq.sum() == 2000 * 2 * dice
    expected = freq.sum() / 6
    chi2 = ((freq - expected) ** 2 / expected).sum()
    assert chi2 < 25.7  # the 1e-4 quantile of chi-square with 5 degrees of freedom


def test_autoreset_restarts_finished_games_and_reports_them() -> None:
    g = BatchGame(Rules.preset("openspiel"), 2, 64, dice=5, seed=2)
    finished = 0
    for _ in range(200):
        step = g.step(g.sample_legal(), autoreset=True)
        over = step.game_over
        finished += int(over.sum())
        assert (step.winner[over] >= 0).all() and (step.winner[~over] == -1).all()
        assert (g.phase != batch_engine.OVER).all() and (g.total[over] == 10).all()
    assert finished > 64


@pytest.mark.parametrize("preset, players", [("classic", 3), ("perudo", 4), ("wild-stars", 2), ("aces-wild", 5)])
def test_the_mask_table_equals_the_computed_mask(preset: str, players: int) -> None:
    """legal_mask() reads precomputed rows where it can; they equal the masks
    computed from the rules (the path used beyond MASK_TABLE_BYTES)."""
    g = BatchGame(Rules.preset(preset), players, 64, seed=5)
    assert g._mask_table is not None
    for _ in range(400):
        assert (g.legal_mask() == g._legal_rows(g._rows)).all()
        g.step(g.sample_legal(), autoreset=True)
