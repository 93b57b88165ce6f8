"""``strong``'s search with opponent models (issue 11, module docstring step 5 of
``bots/strong.py``): the model of each opponent enters the likelihood of their
bids and the chance that the next player challenges a raise.

Positions come from seeded games of ``probabilistic`` bots (seat 0's turns
facing a bid); the equilibrium tables are off so that every decision is the search's.
The tests of what a model does in the search pass ``search_gate=False`` (the
model used without waiting for evidence); the gate itself is tested at the end
and in ``tests/test_strong_endgame_gate.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from liars_dice.bots import make_bot
from liars_dice.bots.inference import hands, match_table
from liars_dice.bots.likelihood import ActorContext, ActorTables, ModelTerms, params_for
from liars_dice.bots.opponent_model import OpponentModel
from liars_dice.bots.strong import StrongBot
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeatView, SeededDice, bid_probability
from liars_dice.match import play_game

#: (preset, players, dice per player or None for the preset's)
TABLES = [("classic", 4, None), ("wild-stars", 4, None), ("aces-wild", 4, None), ("classic", 3, None), ("classic", 2, [5, 5])]


def _views(preset: str, players: int, seed: int, dice: list[int] | None = None, limit: int = 30) -> list[SeatView]:
    """Seat 0's views at its turns in a game of ``players`` ``probabilistic`` bots."""
    game = Game.create(Rules.preset(preset), [f"p{i}" for i in range(players)], dice=dice)
    out: list[SeatView] = []

    def grab(state):  # type: ignore[no-untyped-def]
        if len(out) < limit and not state.is_over and not state.is_chance and state.to_move == 0:
            out.append(state.view(0))

    play_game(game, [make_bot("probabilistic", seed + i) for i in range(players)], SeededDice(seed), on_state=grab)
    return out


def _facing(preset: str, players: int, dice: list[int] | None, seeds: range = range(100, 106)) -> list[SeatView]:
    return [v for s in seeds for v in _views(preset, players, s, dice) if v.current_bid is not None]


def _bluffer(name: str) -> OpponentModel:
    """A player whose raises and openings all have a chance below 1/2 given their dice."""
    m = OpponentModel(name)
    m.bids[:] = [300, 300, 300, 300, 300, 0, 0, 0, 0, 0]
    m.openings[:] = [100, 100, 100, 100, 100, 0, 0, 0, 0, 0]
    return m


def _never_challenges(name: str) -> OpponentModel:
    """A player who faced 2,000 bids, 200 in each bin, and challenged none."""
    m = OpponentModel(name)
    m.faced[:] = 200
    return m


def _play(views: list[SeatView], models: dict[str, OpponentModel], **kw: object) -> tuple[int, list[int]]:
    """Challenges, and the ranks of the raises, of ``strong`` (tables off) over ``views``."""
    challenges, ranks = 0, []
    for v in views:
        d = StrongBot(seed=0, use_endgame=False, models=models, **kw).decide(v)  # type: ignore[arg-type]
        if d.action == CHALLENGE:
            challenges += 1
        else:
            assert isinstance(d.action, Bid)
            ranks.append(v.rules.rank(d.action.quantity, d.action.face))
    return challenges, ranks


def test_no_model_decisions_are_pinned() -> None:
    """With no model, the search plays as before models entered it (decisions
    recorded from main at c18979e, before this change)."""
    pinned = {
        ("classic", 4, 3, None): ["4x5", "7x6", "3x6", "liar", "6x6", "4x5"],
        ("wild-stars", 4, 5, None): ["5x6", "7x5", "5x2", "5x2", "7x3+33", "6x4"],
        ("aces-wild", 3, 7, None): ["1x1", "liar", "5x4", "7x4", "5x5", "5x5"],
        ("classic", 2, 11, (5, 5)): ["2x6", "4x5", "liar", "4x6", "4x5", "5x5"],
    }
    for (preset, players, seed, dice), want in pinned.items():
        got = []
        for v in _views(preset, players, seed, list(dice) if dice else None)[: len(want)]:
            d = StrongBot(seed=0, use_endgame=False).decide(v)
            got.append(str(d.action) + ("+" + "".join(map(str, d.show)) if d.show else ""))
        assert got == want, (preset, players, seed)


@pytest.mark.parametrize("preset,players,dice", TABLES)
def test_prior_model_plays_as_no_model(preset: str, players: int, dice: list[int] | None) -> None:
    """A model of nothing (the prior, no counts) changes no decision of the search."""
    views = _facing(preset, players, dice, range(100, 103))
    names = [f"p{i}" for i in range(1, players)]
    for v in views:
        plain = StrongBot(seed=0, use_endgame=False).analyse(v)
        prior = StrongBot(seed=0, use_endgame=False, learn=False, models={n: OpponentModel(n) for n in names},
                          search_gate=False).analyse(v)
        assert prior.decision == plain.decision
        assert prior.costs == plain.costs


def test_prior_model_learning_in_game_stays_close() -> None:
    """With the prior model and learning from the game's revealed rounds, the
    few rounds counted move the search little: nine decisions in ten unchanged."""
    same = total = 0
    for preset, players, dice in TABLES:
        names = [f"p{i}" for i in range(1, players)]
        for v in _facing(preset, players, dice, range(100, 103)):
            a = StrongBot(seed=0, use_endgame=False).decide(v)
            b = StrongBot(seed=0, use_endgame=False, models={n: OpponentModel(n) for n in names}).decide(v)
            same += a == b
            total += 1
    assert total >= 60
    assert same >= 0.9 * total


@pytest.mark.parametrize("preset,players,dice", TABLES)
def test_a_bluffers_bids_are_challenged_more(preset: str, players: int, dice: list[int] | None) -> None:
    """Opponents modelled as always bluffing: ``strong`` challenges their bids
    more often than with no model (here at least twice as often, and in at
    least a quarter more of the positions)."""
    views = _facing(preset, players, dice)
    names = [f"p{i}" for i in range(1, players)]
    base, _ = _play(views, {})
    bluff, _ = _play(views, {n: _bluffer(n) for n in names}, search_gate=False)
    assert bluff >= max(2 * base, base + len(views) // 4), (base, bluff, len(views))


#: Two-player searches (the model's challenge chance is used there only).
DUELS = [("classic", 2, [5, 5]), ("wild-stars", 2, [4, 5]), ("aces-wild", 2, [5, 4])]


@pytest.mark.parametrize("preset,players,dice", DUELS)
def test_a_never_challenging_next_player_gets_bolder_bids(preset: str, players: int, dice: list[int] | None) -> None:
    """The other player modelled as never challenging (two players, the whole-ladder
    search): ``strong`` challenges no more often, and its raises go higher on
    average, than with no model."""
    views = _facing(preset, players, dice)
    base_ch, base_ranks = _play(views, {})
    never_ch, never_ranks = _play(views, {"p1": _never_challenges("p1")}, search_gate=False)
    assert never_ch <= base_ch
    assert np.mean(never_ranks) > np.mean(base_ranks), (np.mean(base_ranks), np.mean(never_ranks))


def test_model_terms_weigh_by_evidence() -> None:
    """The prior has weight 0 (inert); weights grow with the counts toward 1."""
    assert ModelTerms.of(OpponentModel("a")).inert
    few, many = _never_challenges("a"), _never_challenges("a")
    few.faced[:] = 1
    assert 0 < ModelTerms.of(few).w_challenge < 0.2 < 0.9 < ModelTerms.of(many).w_challenge < 1
    assert ModelTerms.of(_bluffer("a")).w_raise == ModelTerms.of(_bluffer("a")).w_open == 0.5  # MODEL_MAX_BID_WEIGHT
    assert ModelTerms.of(_bluffer("a"), max_bid_weight=1.0).w_raise > 0.9


@pytest.mark.parametrize("preset,players,dice", [t for t in TABLES if t[1] > 2])
def test_three_or_more_players_keep_the_logits_challenge_chance(preset: str, players: int, dice: list[int] | None) -> None:
    """With three or more players the raise costs use the logit's challenge
    chance (the model's enters only the posteriors): a model that only counts
    bids faced, never challenged, changes no cost of a raise there."""
    views = [v for v in _facing(preset, players, dice, range(100, 102)) if sum(d > 0 for d in v.dice) >= 3]
    assert len(views) >= 10
    for v in views:
        plain = StrongBot(seed=0, use_endgame=False).analyse(v)
        never = StrongBot(seed=0, use_endgame=False, learn=False, models={"p1": _never_challenges("p1")},
                          search_gate=False).analyse(v)
        assert never.costs == plain.costs


def test_model_challenge_chance_is_the_models_rate_at_full_weight() -> None:
    """With the model's full weight, the actor's chance of challenging a bid is
    the model's rate in the bin of the bid's chance given the actor's dice."""
    rules = Rules.preset("classic")
    model = _never_challenges("a")
    model.challenged[:3] = 200  # challenges every bid of chance below 0.3, no other
    terms = ModelTerms.of(model, half_faced=1e-9)
    assert terms.w_challenge == pytest.approx(1.0)
    ctx = ActorContext(n=2, unseen=8, shown_match=np.zeros(6, dtype=np.int64), wilds=False, n_total=10)
    tables = ActorTables(rules, ctx, params_for(rules), terms)
    mt = match_table(2, 6, rules.wild_face, False)
    bids = [Bid(1, 6), Bid(3, 6), Bid(8, 6)]
    p = tables.response_challenge_prob(bids, mt)
    rate = model.challenge_rate()
    for i, bid in enumerate(bids):
        for h, counts in enumerate(hands(2, 6)):
            dice = tuple(f + 1 for f in range(6) for _ in range(counts[f]))
            chance = bid_probability(rules, bid, dice, 8, False)  # the engine's, as the model bins it
            assert p[i, h] == pytest.approx(rate[min(9, int(chance * 10))])
    assert p[2].max() == pytest.approx(rate[0])  # eight sixes: below 0.1 with any two dice


def _count_table_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the dice in play each time ``strong`` asks the endgame tables."""
    import liars_dice.bots.strong as strong_mod
    from liars_dice.solver.endgame import endgame_moves

    asked: list[int] = []

    def counting(view: SeatView):  # type: ignore[no-untyped-def]
        asked.append(view.dice_in_play)
        return endgame_moves(view)

    monkeypatch.setattr(strong_mod, "_endgame_moves", counting)
    return asked


def test_search_endgames_replaces_the_tables_and_the_plan_where_the_gate_lets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_endgames=True`` with a model and no gate: at two dice each and
    at one die each (``ENDGAME_SEARCH_MIN_DICE`` 2: there also in place of the
    safe plan) the search moves and the tables are not asked; with no model the
    tables play everywhere; above one die each only (the constant at 3), the
    tables play at one die each."""
    import liars_dice.bots.strong as strong_mod
    from liars_dice.bots.exploit import PlanBudget

    asked = _count_table_calls(monkeypatch)
    rules = Rules.preset("classic")
    model = _never_challenges("p1")
    for min_dice in (2, 3):
        monkeypatch.setattr(strong_mod, "ENDGAME_SEARCH_MIN_DICE", min_dice)
        for dice in ([2, 2], [1, 1]):
            searched = sum(dice) >= min_dice
            game = Game.create(rules, ["p0", "p1"], dice=dice)
            for seed in range(4):
                view = game.initial_state(0).roll(SeededDice(seed)).view(0)
                asked.clear()
                bot = StrongBot(seed=0, models={"p1": model}, learn=False, search_endgames=True, endgame_gate=False,
                                search_gate=False, plan_budget=PlanBudget(max_cells=0))  # no plan: the tables
                d = bot.decide(view)
                if searched:
                    assert asked == [] and d == bot.analyse(view).decision
                else:
                    assert asked == [sum(dice)]
                asked.clear()
                StrongBot(seed=0, search_endgames=True).decide(view)
                assert asked == [sum(dice)]


def test_the_tables_gate_is_weaker_but_over_more_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a position the tables hold the gate opens when the evidence exceeds
    ``ENDGAME_GATE_LLR`` (-2 nats) over ``ENDGAME_GATE_MIN_DECISIONS`` (10),
    or where the search's opens; the search's: ``GATE_LLR`` (0.5) over
    ``GATE_MIN_DECISIONS`` (3)
    (benchmarks/RESULTS.md, "The gate in the tables' positions")."""
    from liars_dice.bots.strong import (
        ENDGAME_GATE_LLR,
        ENDGAME_GATE_MIN_DECISIONS,
        GATE_LLR,
        GATE_MIN_DECISIONS,
    )

    assert ENDGAME_GATE_LLR < GATE_LLR and ENDGAME_GATE_MIN_DECISIONS > GATE_MIN_DECISIONS
    bot = StrongBot(seed=0, models={"p1": _never_challenges("p1")})
    cases = {
        (ENDGAME_GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS): (True, False),
        (ENDGAME_GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS - 1): (False, False),
        (ENDGAME_GATE_LLR - 0.1, 50): (False, False),
        (GATE_LLR + 0.1, GATE_MIN_DECISIONS): (True, True),  # the search's gate opens it too
        (GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS): (True, True),
    }
    for evidence, (tables, search) in cases.items():
        bot._evidence = {"p1": evidence}
        assert bot.gate_open("p1", tables=True) is tables and bot.gate_open("p1") is search
    # the weaker gate lets the search replace the tables at two dice each, not the search elsewhere
    asked = _count_table_calls(monkeypatch)
    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[2, 2])
    view = game.initial_state(0).roll(SeededDice(1)).view(0)
    bot = StrongBot(seed=0, models={"p1": _never_challenges("p1")}, learn=False)
    bot._evidence = {"p1": (ENDGAME_GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS)}
    d = bot.decide(view)
    assert asked == [] and d == bot.analyse(view).decision
    assert bot._terms(view) == {} and set(bot._terms(view, tables=True)) == {1}
    bot._evidence = {"p1": (ENDGAME_GATE_LLR - 0.1, 50)}
    bot.decide(view)
    assert asked == [4]
    # a model that is not trusted (the server's fits, step 4) keeps the search's gate there
    asked.clear()
    untrusted = StrongBot(seed=0, learn=False)
    untrusted.set_models({"p1": _never_challenges("p1")}, trusted=False)
    untrusted._evidence = {"p1": (ENDGAME_GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS)}
    untrusted.decide(view)
    assert asked == [4]
    untrusted._evidence = {"p1": (GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS)}
    asked.clear()
    untrusted.decide(view)
    assert asked == []


def test_the_tables_gate_pools_the_evidence_of_players_given_the_same_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a position the tables hold the gate also opens on the evidence summed
    over every player given the same model (the same counts), above
    ``ENDGAME_POOL_RATE`` nats a decision over at least
    ``ENDGAME_GATE_MIN_DECISIONS`` of them, while the player's own evidence
    stays above ``ENDGAME_POOL_OWN_LLR``; a player given another model, or no
    model, pools nothing, and a player's own evidence alone keeps the rule
    of ``ENDGAME_GATE_LLR``; the search's gate elsewhere is unchanged
    (benchmarks/RESULTS.md, "Pooled evidence in the tables' positions")."""
    from liars_dice.bots.strong import (
        ENDGAME_GATE_LLR,
        ENDGAME_GATE_MIN_DECISIONS,
        ENDGAME_POOL_OWN_LLR,
        ENDGAME_POOL_RATE,
    )

    assert ENDGAME_POOL_OWN_LLR < ENDGAME_GATE_LLR < 0
    few = ENDGAME_GATE_MIN_DECISIONS - 1  # too few of p1's own moves to open it alone
    model = _never_challenges("p")
    same = {"p1": model, "p2": model.copy(), "p3": model.copy()}  # equal counts, distinct objects
    other = _never_challenges("p")
    other.faced[0] += 1  # other counts: another model
    cases = [
        # (models, evidence by player, open in the tables' positions)
        (same, {"p1": (-1.0, few), "p2": (-1.0, 12), "p3": (0.0, 10)}, True),
        (same, {"p1": (-1.0, few)}, False),  # the pooled decisions too few (p2 and p3 no evidence)
        (same, {"p1": (-1.0, few), "p2": (-1.0, 2)}, True),  # -2 nats over 11 decisions: above the rate
        (same, {"p1": (ENDGAME_POOL_OWN_LLR + 0.1, few), "p2": (4.0, 30)}, True),
        (same, {"p1": (ENDGAME_POOL_OWN_LLR - 0.1, few), "p2": (4.0, 30)}, False),  # p1's own evidence refutes it
        (same, {"p1": (ENDGAME_POOL_OWN_LLR + 0.1, 20)}, False),  # p1 alone: the rule of ENDGAME_GATE_LLR
        (same, {"p1": (ENDGAME_GATE_LLR + 0.1, 10)}, True),
        (same, {"p1": (-1.0, few), "p2": (ENDGAME_POOL_RATE * (30 + few) + 1.0, 30)}, False),  # at the rate: shut
        ({"p1": model, "p2": other, "p3": other.copy()}, {"p1": (-1.0, few), "p2": (0.0, 20), "p3": (0.0, 20)}, False),
    ]
    for models, evidence, tables in cases:
        bot = StrongBot(seed=0, models=models, learn=False)
        bot._evidence = dict(evidence)
        assert bot.gate_open("p1", tables=True) is tables, (evidence, tables)
        assert bot.gate_open("p1") is False  # the search's gate does not pool
    # a player given no model pools nothing
    bot = StrongBot(seed=0, models={"p2": model}, learn=False)
    bot._evidence = {"p1": (-1.0, few), "p2": (0.0, 30)}
    assert bot.pooled_evidence("p1") == (-1.0, few) and not bot.gate_open("p1", tables=True)
    # set_models forgets the old grouping: p2 given another model no longer pools with p1
    bot = StrongBot(seed=0, models=same, learn=False)
    bot._evidence = {"p1": (-1.0, few), "p2": (0.0, 20)}
    assert bot.gate_open("p1", tables=True)
    bot.set_models({"p1": model, "p2": other})
    bot._evidence = {"p1": (-1.0, few), "p2": (0.0, 20)}
    assert not bot.gate_open("p1", tables=True)
    # in a four-player game's last two (p1 and strong; p2, p3 out) the pooled gate lets the search replace the tables
    asked = _count_table_calls(monkeypatch)
    game = Game.create(Rules.preset("classic"), ["p0", "p1", "p2", "p3"], dice=[2, 2, 0, 0])
    view = game.initial_state(0).roll(SeededDice(1)).view(0)
    assert list(view.dice) == [2, 2, 0, 0]
    for evidence, searched in (({"p1": (-1.0, few), "p2": (0.0, 15)}, True), ({"p1": (-1.0, few)}, False)):
        bot = StrongBot(seed=0, models=same, learn=False)
        bot._evidence = dict(evidence)
        asked.clear()
        d = bot.decide(view)
        if searched:
            assert asked == [] and d == bot.analyse(view).decision
            assert set(bot._terms(view, tables=True)) == {1}
        else:
            assert asked == [4]


def test_where_the_search_replaces_the_tables_the_model_waits_for_the_searchs_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables' gate lets the search play in their positions; the model's
    terms enter that search only where the search's own gate (``GATE_LLR``
    over ``GATE_MIN_DECISIONS``) is open: with the tables' gate alone open the
    search is the plain one (the decision of ``strong`` without tables or
    model), with both open it uses the model (benchmarks/RESULTS.md, "Pooled
    evidence in the tables' positions": in wild-stars the model at full weight
    there lost dice)."""
    from liars_dice.bots.strong import ENDGAME_GATE_LLR, ENDGAME_GATE_MIN_DECISIONS, GATE_LLR

    asked = _count_table_calls(monkeypatch)
    rules = Rules.preset("classic")
    differs = 0
    for seed in range(12):
        game = Game.create(rules, ["p0", "p1"], dice=[2, 2])
        view = game.initial_state(0).roll(SeededDice(seed)).view(0)
        plain = StrongBot(seed=0, use_endgame=False).decide(view)
        tables_only = StrongBot(seed=0, models={"p1": _never_challenges("p1")}, learn=False)
        tables_only._evidence = {"p1": (ENDGAME_GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS)}
        asked.clear()
        assert tables_only.decide(view) == plain and asked == []
        assert tables_only._analyser(view).terms == {}
        both = StrongBot(seed=0, models={"p1": _never_challenges("p1")}, learn=False)
        both._evidence = {"p1": (GATE_LLR + 0.1, ENDGAME_GATE_MIN_DECISIONS)}
        assert set(both._analyser(view).terms) == {1}
        differs += both.decide(view) != plain
    assert differs > 0  # the model changes some decisions where it enters


def test_by_default_the_search_replaces_the_tables_once_the_gate_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_endgames`` is on by default (benchmarks/RESULTS.md: gated, as safe
    as the tables and better against the modelled player): at two dice each a
    default ``strong`` given a model plays the tables while the gate is shut, and
    searches once it is open."""
    asked = _count_table_calls(monkeypatch)
    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[2, 2])
    view = game.initial_state(0).roll(SeededDice(1)).view(0)
    bot = StrongBot(seed=0, models={"p1": _never_challenges("p1")}, learn=False)
    bot.decide(view)
    assert asked == [4]  # gate shut: the tables
    asked.clear()
    monkeypatch.setattr(StrongBot, "gate_open", lambda self, player, tables=False: True)
    d = bot.decide(view)
    assert asked == [] and d == bot.analyse(view).decision  # gate open: the search


# -- the evidence gate of the model in the search (module docstring step 5) ----------


def test_no_evidence_the_search_ignores_the_model() -> None:
    """With no evidence on an opponent (nothing revealed, or learning off) the
    gate is shut and the search is the plain one: the pinned decisions of
    :func:`test_no_model_decisions_are_pinned` and every cost are unchanged by a
    model that would change them ungated (the bluffer)."""
    pinned = {
        ("classic", 4, 3, None): ["4x5", "7x6", "3x6", "liar", "6x6", "4x5"],
        ("classic", 2, 11, (5, 5)): ["2x6", "4x5", "liar", "4x6", "4x5", "5x5"],
    }
    changed = 0
    for (preset, players, seed, dice), want in pinned.items():
        names = [f"p{i}" for i in range(1, players)]
        models = {n: _bluffer(n) for n in names}
        got = []
        for v in _views(preset, players, seed, list(dice) if dice else None)[: len(want)]:
            gated = StrongBot(seed=0, use_endgame=False, learn=False, models=models)
            d = gated.decide(v)
            got.append(str(d.action))
            assert all(gated.evidence(n) == (0.0, 0) and not gated.gate_open(n) for n in names)
            assert gated.analyse(v).costs == StrongBot(seed=0, use_endgame=False).analyse(v).costs
            ungated = StrongBot(seed=0, use_endgame=False, learn=False, models=models, search_gate=False)
            changed += ungated.analyse(v).costs != gated.analyse(v).costs
        assert got == want, (preset, players, seed)
    assert changed >= 6  # the model would have moved the search: the test can fail


class _Scripted:
    """Challenges every bid it faces (``challenger``) or never does; opens and
    raises with the first legal bid."""

    name = "scripted"

    def __init__(self, challenger: bool) -> None:
        self.challenger = challenger

    def decide(self, view: SeatView) -> "Decision":
        from liars_dice.bots.base import Decision

        if self.challenger and view.current_bid is not None:
            return Decision(CHALLENGE)
        return Decision(next(a for a in view.legal_actions() if isinstance(a, Bid)))


def _always_challenges(name: str) -> OpponentModel:
    m = OpponentModel(name)
    m.faced[:] = 200
    m.challenged[:] = 200
    return m


def _search_views(challenger: bool, seed: int) -> list[SeatView]:
    """``strong``'s (seat 0) turns in a classic game of five against nine dice
    against a scripted seat 1, at more than four dice in play (the search's)."""
    out: list[SeatView] = []

    def grab(state):  # type: ignore[no-untyped-def]
        if not state.is_over and not state.is_chance and state.to_move == 0 and state.view(0).dice_in_play > 4:
            out.append(state.view(0))

    game = Game.create(Rules.preset("classic"), ["p0", "p1"], dice=[5, 9])
    bot = StrongBot(seed=seed, models={"p1": _always_challenges("p1")})
    play_game(game, [bot, _Scripted(challenger)], SeededDice(seed), on_state=grab)
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_evidence_for_the_model_lets_the_search_use_it(seed: int) -> None:
    """The opponent challenges every bid, as its model says: once the evidence
    opens the gate, the two-player search costs its raises with the model (the
    ungated search's costs), before that with the built-in likelihood alone."""
    models = {"p1": _always_challenges("p1")}
    opened = shut = 0
    for v in _search_views(True, seed):
        bot = StrongBot(seed=0, models=models)
        bot.decide(v)  # counts the revealed rounds' evidence
        costs = bot.analyse(v).costs
        plain = StrongBot(seed=0).analyse(v).costs
        ungated = StrongBot(seed=0, models=models, search_gate=False)
        ungated.decide(v)
        if bot.gate_open("p1"):
            opened += 1
            assert costs == ungated.analyse(v).costs
            assert costs != plain
        else:
            shut += 1
            assert costs == plain
    assert opened >= 2 and shut >= 1, (opened, shut)


@pytest.mark.parametrize("seed", [1, 2])
def test_evidence_against_the_model_keeps_it_out_of_the_search(seed: int) -> None:
    """The opponent never challenges, where its model says it always does: the
    evidence goes against the model, the gate stays shut, and the search plays
    as with no model, where the ungated search would not."""
    models = {"p1": _always_challenges("p1")}
    differs = 0
    views = _search_views(False, seed)
    assert len(views) >= 4
    for v in views:
        bot = StrongBot(seed=0, models=models)
        bot.decide(v)
        assert not bot.gate_open("p1")
        plain = StrongBot(seed=0).analyse(v).costs
        assert bot.analyse(v).costs == plain
        ungated = StrongBot(seed=0, models=models, search_gate=False)
        ungated.decide(v)
        differs += ungated.analyse(v).costs != plain
    assert StrongBot(seed=0, models=models).evidence("p1") == (0.0, 0)
    bot = StrongBot(seed=0, models=models)
    bot.decide(views[-1])
    llr, n = bot.evidence("p1")
    assert n >= 6 and llr < -1.0
    assert differs >= 2
