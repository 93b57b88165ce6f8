"""The opponent model's back-off (``bots/opponent_model.py``, "context" level;
issue 11, target "dudo.ai 1 vs 1"): the exact situation's counts where they are
many, the counts of its context (dice, hand, last bid, place in the round) where
the situation was never seen, the generic policy where neither was; and the
evidence ``strong``'s plans trust grows with the context's counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.bots.exploit import model_counts
from liars_dice.bots.opponent_model import (
    BACKOFF_STRENGTH,
    ModelError,
    OpponentModel,
    backoff_context,
)
from liars_dice.engine import CHALLENGE, Bid, Rules, SeatView
from liars_dice.engine.state import Phase, RoundResult
from liars_dice.solver.tree import BidTree

JOKER = Rules.preset("joker")


def _view(hand: int, history: list[Bid]) -> SeatView:
    """Seat ``len(history) % 2`` to move in a one-die-each ``joker`` round opened by seat 0."""
    seat = len(history) % 2
    bids = tuple((i % 2, b, ()) for i, b in enumerate(history))
    return SeatView(JOKER, ("a", "b"), seat, (1, 1), (hand,), ((), ()), bids, Phase.BID, seat, True, (), None)


def _model(n: int = 1000) -> OpponentModel:
    m = OpponentModel("opp", rules="joker")
    m.table = {
        "1,1|3|1x2,1x6": {"liar": n},  # facing 1x6 as opener, holding a 3: always challenges here
        "1,1|3|1x4,1x6": {"2x3": n},  # same context, another history: always raises to 2x3
    }
    return m


def test_the_exact_situation_rules_where_its_counts_are_many() -> None:
    m = _model()
    p = m.policy(_view(3, [Bid(1, 2), Bid(1, 6)]))
    assert p[CHALLENGE] > 0.99
    assert m.policy(_view(3, [Bid(1, 4), Bid(1, 6)]))[Bid(2, 3)] > 0.99


def test_an_unseen_situation_takes_its_contexts_counts_and_no_context_the_generic_policy() -> None:
    m = _model()
    unseen = _view(3, [Bid(1, 5), Bid(1, 6)])  # same dice, hand, last bid and role: never seen itself
    p = m.policy(unseen)
    assert p[CHALLENGE] == pytest.approx(0.5, abs=0.01) and p[Bid(2, 3)] == pytest.approx(0.5, abs=0.01)
    generic = m.generic_policy(unseen)
    assert p[CHALLENGE] == pytest.approx((1000 + BACKOFF_STRENGTH * generic[CHALLENGE]) / (2000 + BACKOFF_STRENGTH))
    for other in (_view(4, [Bid(1, 5), Bid(1, 6)]),  # another hand
                  _view(3, [Bid(1, 6)]),  # the other role facing the same bid
                  _view(3, [Bid(1, 2), Bid(1, 5)])):  # another last bid
        assert m.policy(other) == m.generic_policy(other)


def test_few_exact_counts_lean_on_the_context() -> None:
    m = _model()
    m.table["1,1|3|1x5,1x6"] = {"2x3": 2}
    p = m.policy(_view(3, [Bid(1, 5), Bid(1, 6)]))
    # two raises seen here against the context's even split: a little above half, far from 1
    assert 0.5 < p[Bid(2, 3)] < 0.8


def test_evidence_and_the_plans_trust_grow_with_the_contexts_counts() -> None:
    tree = BidTree(JOKER, (1, 1))
    small, large = _model(3), _model(300)
    unseen = (Bid(1, 5), Bid(1, 6))
    assert small.evidence((1, 1), (3,), unseen) == 6 and large.evidence((1, 1), (3,), unseen) == 600
    assert small.evidence((1, 1), (4,), unseen) == 0
    # role 1 plans against the opener (seat 0): every history ending 1x6 after an even number of bids
    counts = model_counts(large, (1, 1), 1, tree)
    assert counts[((3,), unseen)] == 600 and counts[((3,), (Bid(1, 2), Bid(1, 6)))] == 600
    assert ((4,), unseen) not in counts and ((3,), (Bid(1, 6),)) not in counts
    assert all(n == 600 for n in counts.values()) and len(counts) == sum(
        1 for d in range(0, len(tree.depths), 2) for mask in tree.depths[d].masks
        if int(mask) and max(j for j in range(tree.n_bids) if int(mask) >> j & 1) == tree.bids.index(Bid(1, 6))
    )
    # without the tree: only the situations the table holds, with their own counts
    assert model_counts(large, (1, 1), 1) == {((3,), (Bid(1, 2), Bid(1, 6))): 300.0, ((3,), (Bid(1, 4), Bid(1, 6))): 300.0}


def test_a_counted_round_moves_the_context_at_once() -> None:
    m = _model(3)
    view = _view(3, [Bid(1, 5), Bid(1, 6)])
    before = m.policy(view)[CHALLENGE]
    res = RoundResult(  # the opener (seat 0), holding a 3, challenges 1x6 after opening 1x3
        bid=Bid(1, 6), bidder=1, challenger=0, count=0, wilds_active=True,
        bids=((0, Bid(1, 3), ()), (1, Bid(1, 6), ())), revealed=((3,), (2,)), lost=(0, 1), out=(1,),
        next_opener=None, loser=1,
    )
    for _ in range(10):
        m.observe_round(JOKER, res, 0)
    assert m.evidence((1, 1), (3,), (Bid(1, 5), Bid(1, 6))) == 16
    assert m.policy(view)[CHALLENGE] > before + 0.1


def test_a_saved_model_round_trips_with_its_back_off() -> None:
    m = _model(7)
    back = OpponentModel.loads(m.dumps())
    assert back.to_json() == m.to_json()
    for view in (_view(3, [Bid(1, 5), Bid(1, 6)]), _view(3, [Bid(1, 2), Bid(1, 6)]), _view(4, [])):
        assert back.policy(view) == m.policy(view)


def test_a_bad_table_is_refused_in_one_sentence_and_contexts_of_any_table_are_bounded() -> None:
    d = _model().to_json()
    d["table"]["1,1|3|1x2,1x6"] = {"liar": 10**10}
    with pytest.raises(ModelError, match=r"^The model's table is a whole number from 0 to 1,000,000,000\.$"):
        OpponentModel.from_json(d)
    # counts at the maximum in many situations of one context: the context's count stops there too
    m = OpponentModel("opp", rules="joker")
    m.table = {f"1,1|3|{h},1x6": {"liar": 10**9} for h in ("1x1", "1x2", "1x3", "1x4", "1x5")}
    assert m.evidence((1, 1), (3,), (Bid(1, 1), Bid(1, 6))) == 10**9
    p = m.policy(_view(3, [Bid(1, 3), Bid(1, 6)]))
    assert abs(sum(p.values()) - 1) < 1e-9


def test_the_context_is_the_last_bid_and_the_place_in_the_round() -> None:
    assert backoff_context((1, 1), (3,), [Bid(1, 2), Bid(1, 6)]) == ((1, 1), (3,), Bid(1, 6), 0)
    assert backoff_context((1, 1), (3,), [Bid(1, 6)]) == ((1, 1), (3,), Bid(1, 6), 1)
    # a seat out of the game (0 dice) never moves: it is not part of the context
    assert backoff_context((2, 0, 1), (6, 1), []) == ((2, 1), (1, 6), None, 0)
    assert backoff_context((2, 0, 1), (1, 6), [Bid(1, 2), Bid(1, 3), Bid(1, 4)]) == ((2, 1), (1, 6), Bid(1, 4), 1)
    assert backoff_context((1, 0, 0, 1), (3,), [Bid(1, 6)]) == backoff_context((1, 1), (3,), [Bid(1, 6)])


def test_the_final_two_of_a_larger_game_count_for_the_plans() -> None:
    """A model fitted on 4-player records keys the final two's situations with
    every seat (``1,0,0,1|...``); the plans ask for the two players' dice
    (``(1, 1)``). Before the context dropped the seats out, such a model gave
    the plans no evidence at all (issue 11, branch ``gap4p``)."""
    m = OpponentModel("opp", rules="joker")
    m.table = {"1,0,0,1|3|1x2,1x6": {"liar": 5}, "1,0,1,0|3|1x4,1x6": {"2x3": 3}}
    assert m.evidence((1, 1), (3,), (Bid(1, 5), Bid(1, 6))) == 8
    counts = model_counts(m, (1, 1), 1)  # the modelled player opened: the plan's seat is role 1
    assert counts == {((3,), (Bid(1, 2), Bid(1, 6))): 5.0, ((3,), (Bid(1, 4), Bid(1, 6))): 3.0}
    tree_counts = model_counts(m, (1, 1), 1, BidTree(JOKER, (1, 1)))
    assert tree_counts[((3,), (Bid(1, 5), Bid(1, 6)))] == 8.0


_BIDS = [Bid(q, f) for q in (1, 2) for f in range(1, 7)]  # joker's order at one die each


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(1, 6), st.sets(st.integers(0, 11), max_size=4), st.integers(0, 12), st.integers(1, 50)),
        max_size=30,
    ),
    hand=st.integers(1, 6),
    history=st.sets(st.integers(0, 11), max_size=4),
)
def test_any_table_gives_a_distribution_over_legal_moves_and_evidence_covers_the_situation(rows, hand, history) -> None:
    m = OpponentModel("opp", rules="joker")
    for h, idx, move, n in rows:
        bids = [_BIDS[i] for i in sorted(idx)]
        later = [b for b in _BIDS if not bids or _BIDS.index(b) > _BIDS.index(bids[-1])]
        name = "liar" if move == 12 or not later else str(later[move % len(later)])
        key = f"1,1|{h}|{','.join(map(str, bids))}"
        m.table.setdefault(key, {})[name] = m.table.get(key, {}).get(name, 0) + n
    m.table = dict(m.table)  # a new table: the contexts are read again
    bids = [_BIDS[i] for i in sorted(history)]
    view = _view(hand, bids)
    p = m.policy(view)
    assert sum(p.values()) == pytest.approx(1.0) and all(q >= 0 for q in p.values())
    assert set(p) == set(m.generic_policy(view))
    own = sum(m.table.get(f"1,1|{hand}|{','.join(map(str, bids))}", {}).values())
    assert m.evidence((1, 1), (hand,), bids) >= own
    if m.evidence((1, 1), (hand,), bids) == 0:
        assert p == m.generic_policy(view)
