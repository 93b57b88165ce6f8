"""Bots under `perudo` (issue 9 "Bots"): legal in every round, calza when the
exact count is likely enough to pay, palifico rounds played knowing that pacos
are not wild. Rules cited: RULES.md `perudo` (Calza, Palifico, Opening).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liars_dice.bots import Decision, make_bot
from liars_dice.bots.probabilistic import ProbabilisticBot
from liars_dice.engine import CALZA, CHALLENGE, Bid, Game, Rules, SeededDice, binomial_tail
from liars_dice.match import play_game

PERUDO = Rules.preset("perudo")


class _Checked:
    """Wraps a bot; checks every decision is legal and counts calzas and
    palifico decisions."""

    def __init__(self, bot, seen) -> None:
        self.bot, self.name, self.seen = bot, bot.name, seen

    def decide(self, view) -> Decision:
        d = self.bot.decide(view)
        assert d.action in view.legal_actions(), (d, view.to_json())
        self.seen["calza"] += d.action is CALZA
        self.seen["palifico"] += view.palifico
        return d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 10**6),
    kinds=st.lists(st.sampled_from(["probabilistic", "random", "strong"]), min_size=6, max_size=6),
)
def test_bots_make_legal_moves_in_perudo(players, seed, kinds) -> None:
    """Whole perudo games through the checked State.apply: no opening on pacos, a
    fixed face in palifico rounds, calza only where allowed."""
    seen = {"calza": 0, "palifico": 0}
    bots = [_Checked(make_bot(kinds[i], seed + i), seen) for i in range(players)]
    final = play_game(Game.create(PERUDO, [f"p{i}" for i in range(players)]), bots, SeededDice(seed))
    assert final.is_over and final.winner is not None


@pytest.mark.parametrize("kind", ["probabilistic", "strong"])
def test_bots_meet_calza_and_palifico_in_four_player_games(kind) -> None:
    """Over a few seeded 4-player games each bot calls calza and plays palifico rounds."""
    seen = {"calza": 0, "palifico": 0}
    for g in range(6):
        bots = [_Checked(make_bot(kind, 10 * g + s), seen) for s in range(4)]
        play_game(Game.create(PERUDO, ["a", "b", "c", "d"]), bots, SeededDice(g))
    assert seen["calza"] > 0 and seen["palifico"] > 0, seen


def _palifico_view(hand, others, bids):
    """Seat 0 holds ``hand``; the others one die each (``others``); a palifico
    round with ``bids`` made by seats 1, 2, ...; seat 0 to move."""
    n = 1 + len(others)
    game = Game.create(PERUDO, [f"p{i}" for i in range(n)])
    s = game.position((len(hand),) + (1,) * len(others), 1, palifico=True).deal([hand, *[[f] for f in others]])
    for b in bids:
        s = s.apply(b)
    assert s.to_move == 0
    return s.view(0)


@pytest.mark.parametrize("kind", ["probabilistic", "strong"])
def test_calza_when_the_exact_count_is_likely(kind) -> None:
    """RULES.md `perudo` Calza: holding four 6s below the starting count, facing
    four 6s in a palifico round with two unseen dice (one-die players, whose
    bids said nothing of 6s: two 3s, then four 6s from my count alone), the count
    is exact with chance about (5/6)^2 = 0.69: a calza gains a die more often
    than not, while a challenge surely loses one."""
    view = _palifico_view([6, 6, 6, 6], [2, 3], [Bid(2, 3), Bid(4, 6)])
    assert CALZA in view.legal_actions()
    assert make_bot(kind, 1).decide(view).action is CALZA


@pytest.mark.parametrize("kind", ["probabilistic", "strong"])
def test_no_calza_when_the_exact_count_is_unlikely(kind) -> None:
    """With no matching die and a bid near the expected count the exact count
    is unlikely and a wrong calza costs a die: no calza."""
    game = Game.create(PERUDO, ["a", "b", "c"])
    s = game.initial_state(0).deal([[2, 3, 4, 5, 2], [6, 6, 1, 2, 3], [4, 4, 5, 5, 3]])
    s = s.apply(Bid(9, 6))
    view = s.view(1)
    assert make_bot(kind, 1).decide(view).action is not CALZA


def test_probabilistic_counts_no_wilds_in_a_palifico_round() -> None:
    """RULES.md `perudo` Palifico: "Pacos are not wild": the chance of a bid counts
    the face only, the opening included."""
    view = _palifico_view([1, 6], [2, 3], [Bid(1, 6), Bid(2, 6)])
    bot = ProbabilisticBot(1)
    assert bot.chance(view, Bid(2, 6)) == pytest.approx(binomial_tail(2, 1, 1 / 6))
    game = Game.create(PERUDO, ["a", "b", "c"])
    opening = game.position((1, 3, 3), 0, palifico=True).deal([[1], [2, 2, 2], [3, 3, 3]]).view(0)
    assert bot.chance(opening, Bid(2, 5)) == pytest.approx(binomial_tail(6, 2, 1 / 6))
    d = bot.decide(opening)
    assert d.action in opening.legal_actions()


@pytest.mark.parametrize("kind", ["probabilistic", "strong"])
def test_never_opens_on_pacos_and_keeps_the_palifico_face(kind) -> None:
    """RULES.md `perudo` Opening and Palifico, decision by decision."""
    game = Game.create(PERUDO, ["a", "b", "c"])
    opening = game.initial_state(0).deal([[1, 1, 1, 1, 2], [2] * 5, [3] * 5]).view(0)
    d = make_bot(kind, 3).decide(opening)
    assert isinstance(d.action, Bid) and d.action.face != 1
    view = _palifico_view([5, 5, 5], [2, 3], [Bid(1, 2), Bid(2, 2)])
    d = make_bot(kind, 3).decide(view)
    assert d.action in (CHALLENGE, CALZA) or d.action.face == 2
