"""Bots on the largest requests the bot protocol allows (docs/bot-protocol.md:
15 players of up to 100 dice (the engine's bounds), 10,000 past rounds in a 1 MiB line), and the
bounds on the work of ``strong``'s evidence gate (bots/strong.py, step 5).

Before these fixes, a binomial term ``comb(n, k) * p**k * ...`` overflowed a
float from about 1,030 unseen dice (``OverflowError`` replies from ``strong``
and ``probabilistic`` to valid requests), the likelihood built a whole
``(8193, 8194)`` tail table to read one row of it, and the gate scored every
past round of every opponent afresh on each request (5.8 s a round of 63
opponents of 100 dice).
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import liars_dice.bots.strong as strong_mod
from liars_dice.bots.inference import tail_logit, tail_logit_row, tail_row, tail_table
from liars_dice.bots.opponent_model import OpponentModel
from liars_dice.bots.strong import StrongBot
from liars_dice.engine import MAX_DICE_PER_PLAYER, MAX_PLAYERS, Bid, Rules, RoundResult, binomial_pmf, binomial_tail
from liars_dice.engine.odds import binomial_pmfs
from liars_dice.protocol.messages import parse_reply
from liars_dice.protocol.serve import answer
from liars_dice.bots import make_bot

from test_strong_endgame_gate import _evidence_after_game


def _always_challenges(name: str) -> OpponentModel:
    m = OpponentModel(name)
    m.faced[:] = 200
    m.challenged[:] = 200
    return m


# -- binomial terms of any size ----------------------------------------------------------


def test_binomial_tails_of_thousands_of_dice_are_finite() -> None:
    """Past 1,030 dice ``comb`` outgrows a float; the terms come from logarithms."""
    assert binomial_tail(2001, 1001, 0.5) == pytest.approx(0.5, abs=1e-12)  # symmetry
    pmfs = binomial_pmfs(6400, 1 / 3)
    assert len(pmfs) == 6401 and all(math.isfinite(x) for x in pmfs)
    assert math.fsum(pmfs) == pytest.approx(1.0, abs=1e-9)
    assert binomial_pmf(6400, 2133, 1 / 3) == pmfs[2133]
    mean = sum(k * x for k, x in enumerate(pmfs))
    assert mean == pytest.approx(6400 / 3, rel=1e-9)
    assert binomial_pmfs(1500, 0.0)[0] == 1.0 and binomial_pmfs(1500, 1.0)[-1] == 1.0


@settings(max_examples=40, deadline=None)
@given(u=st.integers(0, 80), p=st.sampled_from([1 / 6, 1 / 3, 1 / 9, 2 / 9, 0.25, 0.5]))
def test_a_tail_row_is_its_row_of_the_tail_table(u: int, p: float) -> None:
    """The likelihood reads one row; it is the table's row, float for float."""
    assert np.array_equal(tail_row(u, p), tail_table(80, p)[u, : u + 2])
    assert np.array_equal(tail_logit_row(u, p), tail_logit(80, p)[u, : u + 2])


def test_a_tail_row_of_thousands_of_dice() -> None:
    row = tail_row(6300, 1 / 3)
    assert row.shape == (6302,) and np.isfinite(row).all()
    assert row[0] == 1.0 and row[-1] == 0.0 and (np.diff(row) <= 1e-15).all()


# -- the protocol's largest requests -----------------------------------------------------


def _big_request() -> tuple[Rules, bytes]:
    """15 players (the most a rule set seats): p0 with 10 dice (enumerated by strong)
    has bid, 14 others hold 100 (the most a player holds)."""
    rng = random.Random(1)
    rules = Rules.preset("classic").with_options(dice_per_player=MAX_DICE_PER_PLAYER, max_players=MAX_PLAYERS)
    names = [f"p{i}" for i in range(MAX_PLAYERS)]
    dice = {n: 100 for n in names}
    dice["p0"] = 10
    req = {
        "rules": {"preset": "classic", "dice_per_player": MAX_DICE_PER_PLAYER, "max_players": MAX_PLAYERS},
        "players": names, "seat": "p1", "dice": dice, "hand": [rng.randint(1, 6) for _ in range(100)],
        "moves": [{"player": "p0", "bid": {"quantity": 1000, "face": 3}}],
    }
    return rules, json.dumps(req).encode()


@pytest.mark.parametrize("bot", ["strong", "probabilistic"])
def test_bots_answer_the_largest_request_with_a_legal_move(bot: str) -> None:
    """A valid request with 6,310 dice in play (64 players, before the engine's
    bound of 15) got ``OverflowError`` replies; the largest now holds 1,410."""
    rules, line = _big_request()
    reply = parse_reply(answer(line, rules, make_bot(bot, 1)))
    assert reply.error is None
    assert reply.challenge or (reply.bid is not None and reply.bid.quantity > 1000) or (
        reply.bid is not None and reply.bid.quantity == 1000 and reply.bid.face > 3
    )


# -- the gate's work is bounded ------------------------------------------------------------


def test_the_gate_builds_no_table_past_its_budget_for_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no budget left, no round is scored (the same game opens the gate
    with the default budget: test_strong_endgame_gate)."""
    monkeypatch.setattr(strong_mod, "GATE_MAX_CELLS", 0)
    bot, seen = _evidence_after_game(True, 1)
    assert all(e == (0.0, 0) for e in seen)
    assert not bot.gate_open("p1")


def test_the_gate_budget_stops_scoring_mid_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget of a few rounds' tables: the evidence stops growing there, and
    the cells built never pass it."""
    full = _evidence_after_game(True, 1)[1]
    monkeypatch.setattr(strong_mod, "GATE_MAX_CELLS", 600)  # classic, 14 dice: at most 6 * 10 * 14 = 840 a table
    bot, seen = _evidence_after_game(True, 1)
    assert bot._gate_cells <= 600
    assert 0 < seen[-1][1] < full[-1][1]


def test_a_round_of_a_huge_table_is_not_scored() -> None:
    """An opponent of 100 hidden dice among 1,500 on 9-faced dice: a table of 1.4
    million cells (100 among 6,400 was 3.9 million, about 300 MB at its peak,
    and an ``OverflowError`` before) is not built."""
    rng = random.Random(2)
    revealed = tuple(tuple(rng.randint(1, 9) for _ in range(100)) for _ in range(MAX_PLAYERS))
    res = RoundResult(
        bid=Bid(2, 3), bidder=1, challenger=2, count=200, wilds_active=True,
        bids=((0, Bid(1, 3), ()), (1, Bid(2, 3), ())),
        revealed=revealed, lost=(0,) * MAX_PLAYERS, out=(), next_opener=2, loser=2,
    )
    rules = Rules.preset("classic").with_options(faces=9, dice_per_player=100, max_players=MAX_PLAYERS)
    model = _always_challenges("p1")
    bot = StrongBot(seed=0, models={"p1": model})
    assert bot._score_round(rules, res, 1, model) == (0.0, 0)
    assert bot._gate_cells == 0
    # the same round among 15 players of 2 dice is scored
    small = res._replace(revealed=tuple(h[:2] for h in revealed), count=4)
    assert bot._score_round(rules.with_options(dice_per_player=2), small, 1, model)[1] == 1
