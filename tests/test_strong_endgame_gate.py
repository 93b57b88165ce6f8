"""The evidence gate (issue 11; ``bots/strong.py`` module docstring, step 5):
``strong``'s search uses an opponent's model (and, with ``search_endgames``,
searches instead of playing the equilibrium tables) only when the opponent's
revealed decisions in this game are better predicted by the search's
model-blended likelihood than by the built-in one (log-likelihood ratio above
``GATE_LLR`` over at least ``GATE_MIN_DECISIONS`` decisions; each decision
scored by ``likelihood.decision_llr``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import liars_dice.bots.strong as strong_mod
from liars_dice.bots.base import Decision
from liars_dice.bots.inference import match_table
from liars_dice.bots.likelihood import ActorContext, ActorTables, ModelTerms, decision_llr, decision_log_probs, params_for
from liars_dice.bots.opponent_model import OpponentModel
from liars_dice.bots.strong import GATE_LLR, GATE_MIN_DECISIONS, StrongBot
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeatView, SeededDice
from liars_dice.match import play_game


def _always_challenges(name: str) -> OpponentModel:
    """A player who faced 2,000 bids, 200 in each bin, and challenged every one."""
    m = OpponentModel(name)
    m.faced[:] = 200
    m.challenged[:] = 200
    return m


class _Scripted:
    """Challenges every bid it faces (``challenger``) or never does; opens and
    raises with the first legal bid."""

    name = "scripted"

    def __init__(self, challenger: bool) -> None:
        self.challenger = challenger

    def decide(self, view: SeatView) -> Decision:
        if self.challenger and view.current_bid is not None:
            return Decision(CHALLENGE)
        return Decision(next(a for a in view.legal_actions() if isinstance(a, Bid)))


def _evidence_after_game(challenger: bool, seed: int) -> tuple[StrongBot, list[tuple[float, int]]]:
    """``strong`` (seat 0, the model of an always-challenger for seat 1) against a
    scripted seat 1, five against nine dice; the gate's evidence at each of its turns."""
    bot = StrongBot(seed=seed, models={"p1": _always_challenges("p1")}, search_endgames=True)
    seen: list[tuple[float, int]] = []

    def grab(state):  # type: ignore[no-untyped-def]
        if not state.is_over and not state.is_chance and state.to_move == 0:
            seen.append(bot.evidence("p1"))

    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[5, 9])
    play_game(game, [bot, _Scripted(challenger)], SeededDice(seed), on_state=grab)
    return bot, seen


def test_gate_closed_without_revealed_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """No revealed round: no evidence, the gate is closed and the tables play
    (the search does not replace them) at two dice each, model or not."""
    asked: list[int] = []
    real = strong_mod._endgame_moves

    def counting(view: SeatView):  # type: ignore[no-untyped-def]
        asked.append(view.dice_in_play)
        return real(view)

    monkeypatch.setattr(strong_mod, "_endgame_moves", counting)
    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[2, 2])
    for seed in range(4):
        view = game.initial_state(0).roll(SeededDice(seed)).view(0)
        bot = StrongBot(seed=0, models={"p1": _always_challenges("p1")}, search_endgames=True)
        asked.clear()
        bot.decide(view)
        assert bot.evidence("p1") == (0.0, 0)
        assert not bot.gate_open("p1")
        assert asked == [4]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gate_opens_for_an_opponent_who_plays_as_the_model_says(seed: int) -> None:
    """The opponent challenges every bid, as the model says and the built-in
    likelihood (which expects sound bids to stand) does not: the evidence grows
    with each revealed round and the gate opens."""
    bot, seen = _evidence_after_game(True, seed)
    assert seen[0] == (0.0, 0)
    llrs = [llr for llr, _ in seen]
    assert llrs == sorted(llrs)  # every challenge is evidence for the model
    llr, n = seen[-1]
    assert n >= GATE_MIN_DECISIONS and llr > GATE_LLR
    assert bot.gate_open("p1")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gate_stays_closed_for_an_opponent_who_contradicts_the_model(seed: int) -> None:
    """The opponent never challenges, where the model says it always does: the
    evidence goes against the model and the gate stays closed however many
    decisions are counted."""
    bot, seen = _evidence_after_game(False, seed)
    llr, n = seen[-1]
    assert n >= GATE_MIN_DECISIONS
    assert llr < -GATE_LLR
    assert not bot.gate_open("p1")
    assert all(v[0] <= GATE_LLR for v in seen)


def test_gate_evidence_starts_again_each_game() -> None:
    """A new game (fewer results than seen) forgets the last game's evidence."""
    bot, seen = _evidence_after_game(True, 1)
    assert bot.gate_open("p1")
    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[2, 2])
    bot.decide(game.initial_state(0).roll(SeededDice(9)).view(0))
    assert bot.evidence("p1") == (0.0, 0)
    assert not bot.gate_open("p1")


@settings(max_examples=60, deadline=None)
@given(
    preset=st.sampled_from(["classic", "wild-stars", "aces-wild"]),
    n=st.integers(1, 5),
    unseen=st.integers(1, 8),
    wilds=st.booleans(),
    cur=st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    hand=st.integers(0, 10_000),
    counts=st.lists(st.integers(0, 60), min_size=30, max_size=30),
)
def test_decision_log_probs_are_the_likelihoods(preset: str, n: int, unseen: int, wilds: bool,
                                                cur: tuple[int, int] | None, hand: int, counts: list[int]) -> None:
    """The built-in prediction of a whole decision is the likelihood's own
    (``log_likelihood`` of every legal raise and of the challenge) and sums to
    1; the search's, with any model terms, sums to 1 too; without terms the
    two are equal and every decision's log-likelihood ratio is 0."""
    rules = Rules.preset(preset)
    nt = n + unseen
    current = None if cur is None or cur[0] > nt else Bid(*cur)
    ctx = ActorContext(n=n, unseen=unseen, shown_match=np.zeros(rules.faces, dtype=np.int64), wilds=wilds, n_total=nt)
    mt = match_table(n, rules.faces, rules.wild_face, wilds)
    h = hand % len(mt)
    plain = ActorTables(rules, ctx, params_for(rules))
    builtin, search = decision_log_probs(plain, current, mt[h])
    assert np.logaddexp.reduce(builtin) == pytest.approx(0.0, abs=1e-9)
    assert np.array_equal(builtin, search)
    legal = [i for i in range(rules.faces * nt) if np.isfinite(builtin[i])]
    for i in legal[:: max(1, len(legal) // 6)]:
        bid = Bid(i % nt + 1, i // nt + 1)
        assert builtin[i] == pytest.approx(plain.log_likelihood(current, bid, mt[h : h + 1])[0], abs=1e-9)
        assert decision_llr(plain, current, bid, mt[h]) == 0.0
    if current is not None:
        assert builtin[-1] == pytest.approx(plain.log_likelihood(current, None, mt[h : h + 1])[0], abs=1e-9)
    else:
        assert builtin[-1] == -np.inf
    model = OpponentModel("a")
    model.faced[:] = counts[:10]
    model.challenged[:] = [min(c, f) for c, f in zip(counts[10:20], counts[:10])]
    model.bids[:] = counts[20:30]
    model.openings[:] = counts[10:20]
    terms = ModelTerms.of(model)
    _, blended = decision_log_probs(ActorTables(rules, ctx, params_for(rules), terms), current, mt[h])
    assert np.logaddexp.reduce(blended) == pytest.approx(0.0, abs=1e-9)
    assert np.array_equal(np.isfinite(blended[:-1]), np.isfinite(builtin[:-1]))  # the same legal raises


def test_a_show_skips_the_moves_before_it_and_opens_the_shown_dice() -> None:
    """``wild-stars`` (seed 000, show-and-reroll): a seat's moves up to and
    including its own show are not scored (the hand they came from is not
    known); its later moves are, from its hidden dice after the reroll, with
    every shown die in the open (as the search's posterior takes them)."""
    from liars_dice.engine import RoundResult

    rules = Rules.preset("wild-stars")
    model = _always_challenges("p1")
    model.bids[:] = 40
    model.openings[:] = 20
    res = RoundResult(
        bid=Bid(6, 3), bidder=0, challenger=1, count=4, wilds_active=True,
        bids=((0, Bid(2, 4), ()), (1, Bid(3, 3), (3, 3)), (0, Bid(4, 4), ()), (1, Bid(5, 3), ()), (0, Bid(6, 3), ())),
        revealed=((4, 4, 1, 2, 6), (3, 3, 5, 6, 2)), lost=(0, 1), out=(), next_opener=1, loser=1,
    )
    bot = StrongBot(seed=0, models={"p1": model})
    llr, n = bot._score_round(rules, res, 1, model)
    assert n == 2  # 5x3 facing 4x4, and the challenge of 6x3; not 3x3 (the show)
    terms = ModelTerms.of(model)
    open_match = np.array([2 * rules.matches(3, f, True) for f in range(1, 7)], dtype=np.int64)  # the shown 3, 3
    ctx = ActorContext(n=3, unseen=5, shown_match=open_match, wilds=True, n_total=10)
    tables = ActorTables(rules, ctx, params_for(rules), terms)
    k = np.array([sum(rules.matches(d, f, True) for d in (5, 6, 2)) for f in range(1, 7)], dtype=np.int64)
    want = decision_llr(tables, Bid(4, 4), Bid(5, 3), k) + decision_llr(tables, Bid(6, 3), None, k)
    assert llr == pytest.approx(want)
    assert want != 0.0
    # the same round with no show: every move of the seat counts, from its whole hand
    plain = res._replace(bids=tuple((s, b, ()) for s, b, _ in res.bids))
    assert bot._score_round(rules, plain, 1, model)[1] == 3


def test_a_show_that_does_not_fit_the_reveal_scores_nothing() -> None:
    """A history (e.g. from the bot protocol) whose shown dice are not in the
    seat's revealed hand is not scored, and raises nothing."""
    from liars_dice.engine import RoundResult

    model = _always_challenges("p1")
    res = RoundResult(
        bid=Bid(3, 3), bidder=1, challenger=0, count=2, wilds_active=True,
        bids=((0, Bid(2, 4), ()), (1, Bid(3, 3), (3, 3))),
        revealed=((4, 4, 1, 2, 6), (5, 5, 5, 6, 2)), lost=(0, 1), out=(), next_opener=1, loser=1,
    )
    assert StrongBot(seed=0, models={"p1": model})._score_round(Rules.preset("wild-stars"), res, 1, model) == (0.0, 0)


_CHALLENGER_MODEL: list[OpponentModel] = []


def _recorded_challenger() -> OpponentModel:
    """A model of ``p1`` fitted on 300 one-die games where it challenged every
    bid (its situation table, which plans need, not only the generic part)."""
    if not _CHALLENGER_MODEL:
        from liars_dice.bots import make_bot

        rules = Rules.preset("classic")
        model = OpponentModel("p1", rules=rules.name)
        for g in range(300):
            game = Game.create(rules, ["p0", "p1"], dice=[1, 1])
            end = play_game(game, [make_bot("probabilistic", g), _Scripted(True)], SeededDice(g), start=g % 2)
            for res in end.results:
                model.observe_round(rules, res, 1)
        _CHALLENGER_MODEL.append(model)
    return _CHALLENGER_MODEL[0].copy()


def _plans_played(trusted: bool, challenger: bool, seed: int, plan_gate: bool = False) -> tuple[int, int, bool]:
    """``strong`` (a recorded always-challenger's model for ``p1``) against the
    scripted ``p1``, one die against four, classic: (its decisions at one die each,
    the plans it played, whether the gate was open at every plan)."""
    import liars_dice.bots.exploit as exploit_mod

    bot = StrongBot(seed=seed, plan_gate=plan_gate)
    bot.set_models({"p1": _recorded_challenger()}, trusted=trusted)
    played: list[bool] = []
    at_one_die = 0
    real = exploit_mod.planned_action

    def spy(plan, view, rng=None):  # type: ignore[no-untyped-def]
        played.append(bot.gate_open("p1"))
        return real(plan, view, rng)

    def grab(state):  # type: ignore[no-untyped-def]
        nonlocal at_one_die
        if not state.is_over and not state.is_chance and state.to_move == 0 and state.dice == (1, 1):
            at_one_die += 1

    exploit_mod.planned_action = spy
    try:
        game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[1, 4])
        play_game(game, [bot, _Scripted(challenger)], SeededDice(seed), on_state=grab)
    finally:
        exploit_mod.planned_action = real
    return at_one_die, len(played), all(played)


def test_an_untrusted_models_plan_waits_for_evidence_in_the_first_round() -> None:
    """One die each, nothing revealed yet: a trusted model's plan plays at once;
    the same model given untrusted (``set_models(..., trusted=False)``, as the
    server's "bots learn" gives it; strong.py step 4), or with ``plan_gate``,
    does not (the gate is shut)."""
    import liars_dice.bots.exploit as exploit_mod

    calls: list[int] = []
    real = exploit_mod.planned_action

    def spy(plan, view, rng=None):  # type: ignore[no-untyped-def]
        calls.append(view.seat)
        return real(plan, view, rng)

    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[1, 1])
    view = game.initial_state(0).roll(SeededDice(3)).view(0)
    exploit_mod.planned_action = spy
    try:
        seen = {}
        for label, trusted, gate in (("trusted", True, False), ("untrusted", False, False), ("plan_gate", True, True)):
            bot = StrongBot(seed=0, plan_gate=gate)
            bot.set_models({"p1": _recorded_challenger()}, trusted=trusted)
            calls.clear()
            bot.decide(view)
            seen[label] = len(calls)
    finally:
        exploit_mod.planned_action = real
    assert seen == {"trusted": 1, "untrusted": 0, "plan_gate": 0}


def test_untrusted_plans_play_only_with_the_gate_open() -> None:
    """Whole games, one die against four: an untrusted model's plan is played
    only at moves where the evidence gate is open, and it is played (against a
    player who challenges every bid, as the model says); a trusted model's plan
    is also played with the gate shut."""
    untrusted = trusted_shut = 0
    for seed in range(1, 9):
        for challenger in (True, False):
            _, played, all_open = _plans_played(trusted=False, challenger=challenger, seed=seed)
            assert all_open
            _, played_g, all_open_g = _plans_played(trusted=True, challenger=challenger, seed=seed, plan_gate=True)
            assert all_open_g
            if challenger:
                untrusted += played
            _, _, all_open_t = _plans_played(trusted=True, challenger=challenger, seed=seed)
            trusted_shut += not all_open_t
    assert untrusted > 0 and trusted_shut > 0
