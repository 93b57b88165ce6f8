"""The ``strong`` bot: legality, information hygiene, inference, strength.

Rules under test come from the seeds and ``shared/RULES.md``; each test that
leans on a rule names it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liars_dice.bots import make_bot
from liars_dice.bots.inference import hands, log_prior
from liars_dice.bots.likelihood import FEATURES, ActorContext, ActorTables, params_for
from liars_dice.bots.strong import StrongBot
from liars_dice.engine import CHALLENGE, PRESETS, Bid, Challenge, Game, Rules, ScriptedDice, SeededDice, legal_actions
from liars_dice.match import play_game


class _Checked:
    """Wraps a bot and checks each decision against the view's legal sets."""

    def __init__(self, bot):  # type: ignore[no-untyped-def]
        self.bot, self.name, self.moves = bot, bot.name, 0

    def decide(self, view):  # type: ignore[no-untyped-def]
        d = self.bot.decide(view)
        assert d.action in view.legal_actions()
        assert tuple(d.show) in view.legal_shows()
        self.moves += 1
        return d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    players=st.integers(2, 6),
    seed=st.integers(0, 10_000),
    others=st.sampled_from(["random", "probabilistic", "strong"]),
)
def test_always_legal_over_whole_games(preset: str, players: int, seed: int, others: str) -> None:
    rules = Rules.preset(preset)
    players = max(rules.min_players, min(players, rules.max_players))
    bots = [_Checked(make_bot("strong", seed))] + [make_bot(others, seed + i) for i in range(1, players)]
    game = Game.create(rules, [f"p{i}" for i in range(players)])
    final = play_game(game, bots, SeededDice(seed), start=seed % players)  # checked apply: raises if illegal
    assert final.is_over
    assert bots[0].moves > 0 or final.results[0].bidder != 0


@pytest.mark.parametrize("preset", ["classic", "wild-stars"])
def test_single_round_dice_counts_and_many_seats(preset: str) -> None:
    """Six seats with uneven dice, 30 in play: every decision is legal, and the
    round is played out to its challenge, which takes dice from the count."""
    rules = Rules.preset(preset)
    dice = [1, 2, 4, 6, 8, 9]
    game = Game.create(rules, [f"p{i}" for i in range(6)], dice=dice)
    state = game.initial_state().roll(SeededDice(3))
    assert state.dice_in_play == 30
    bot = StrongBot(seed=1)
    decisions = 0
    while not state.results:
        assert decisions < 200, "the round should end in a challenge"  # 180 bids on the ladder
        if state.is_chance:
            state = state.roll(SeededDice(4 + decisions))  # the reroll after a show
            continue
        assert state.to_move is not None
        view = state.view(state.to_move)
        d = bot.decide(view)
        assert d.action in view.legal_actions()
        assert tuple(d.show) in view.legal_shows()
        state = state.apply(d.action, d.show, seat=state.to_move)
        decisions += 1
    assert decisions >= 2  # an opening bid, then at least the challenge
    result = state.results[0]
    assert 1 <= sum(result.lost) and state.dice_in_play == 30 - sum(result.lost)
    assert [len(h) for h in result.revealed] == dice


def test_decision_depends_only_on_the_view() -> None:
    """Two states that differ only in the opponents' hidden dice give the same view,
    and so the same decision from equally seeded bots."""
    rules = Rules.preset("classic")
    game = Game.create(rules, ["me", "b", "c"])
    s1 = game.initial_state(1).deal([(2, 3, 3, 5, 6), (1, 1, 4, 4, 4), (6, 6, 6, 2, 2)])
    s2 = game.initial_state(1).deal([(2, 3, 3, 5, 6), (5, 5, 5, 5, 5), (3, 2, 4, 1, 6)])
    s1 = s1.apply(Bid(3, 4)).apply(Bid(4, 4))
    s2 = s2.apply(Bid(3, 4)).apply(Bid(4, 4))
    assert s1.view(0) == s2.view(0)
    assert s1.hidden != s2.hidden
    d1 = StrongBot(seed=7).decide(s1.view(0))
    d2 = StrongBot(seed=7).decide(s2.view(0))
    assert d1 == d2


def test_posterior_mean_rises_after_a_high_bid_on_a_face() -> None:
    """Bayesian inference: after an opponent opens high on 5s, the posterior mean
    of their 5s rises above the prior mean n/6, and their other faces' fall."""
    rules = Rules.preset("aces-wild")
    game = Game.create(rules, ["opp", "me"])
    state = game.initial_state(0).deal([(5, 5, 5, 2, 3), (2, 3, 4, 6, 6)])
    bot = StrongBot(seed=0)
    # Before any bid the posterior is the prior.
    before = bot.posteriors(state.view(1))[0]
    assert np.allclose(before, 5 / 6)
    after = bot.posteriors(state.apply(Bid(5, 5)).view(1))[0]
    assert after[4] > before[4] + 0.3
    assert after[5] < before[5]
    # A low opening on 5s says less than a high one.
    low = bot.posteriors(state.apply(Bid(1, 5)).view(1))[0]
    assert before[4] <= low[4] < after[4]


def test_shown_and_rerolled_hand_forgets_earlier_bids() -> None:
    """Show and reroll (seed 000): the rerolled dice are fresh, so bids made
    before the reroll say nothing about them."""
    rules = Rules.preset("wild-stars")
    game = Game.create(rules, ["opp", "me"])
    state = game.initial_state(0).deal([(5, 5, 5, 2, 3), (2, 3, 4, 6, 6)])
    state = state.apply(Bid(5, 5), show=(5, 5)).reroll((2, 4, 6))
    post = StrongBot(seed=0).posteriors(state.view(1))[0]
    assert np.allclose(post, 3 / 6)


def test_classic_suspension_is_respected() -> None:
    """classic (seed 004): after an opening on 1s, 1s are not wild, so five 4s
    is nearly hopeless for a seat holding five 1s; after an opening on 2s the
    same bid is certain."""
    rules = Rules.preset("classic")
    game = Game.create(rules, ["me", "b", "c"])
    hands_ = [(1, 1, 1, 1, 1), (2, 3, 5, 6, 2), (3, 5, 6, 2, 3)]
    s = game.initial_state(1).deal(hands_).apply(Bid(1, 1)).apply(Bid(5, 4))
    assert not s.wilds_active
    assert StrongBot(seed=0).decide(s.view(0)).action == CHALLENGE
    s = game.initial_state(1).deal(hands_).apply(Bid(1, 2)).apply(Bid(5, 4))
    assert s.wilds_active
    assert StrongBot(seed=0).decide(s.view(0)).action != CHALLENGE


def test_difference_loss_raises_the_cost_of_a_bad_challenge() -> None:
    """wild-stars (seed 000 "Losing Dice"): a challenger loses count - quantity
    dice, so challenging a bid the seat can see is far exceeded costs more than one die."""
    rules = Rules.preset("wild-stars")
    game = Game.create(rules, ["opp", "me"])
    s = game.initial_state(0).deal([(2, 3, 4, 5, 6), (6, 6, 6, 1, 1)]).apply(Bid(1, 6))
    an = StrongBot(seed=0).analyse(s.view(1))
    assert an.costs["liar"] >= 4.0  # at least five 6s against a bid of one
    assert an.decision.action != CHALLENGE


def test_likelihood_is_a_distribution_over_legal_actions() -> None:
    """For every hand, P(action | hand) sums to 1 over the legal actions, and the
    challenge probability used in the lookahead is the same number."""
    rules = Rules.preset("classic")
    theta = params_for(rules)
    ctx = ActorContext(n=3, unseen=7, shown_match=np.zeros(6, dtype=np.int64), wilds=True, n_total=10)
    tables = ActorTables(rules, ctx, theta)
    from liars_dice.bots.inference import match_table

    mt = match_table(3, 6, 1, True)
    for cur in (None, Bid(2, 3), Bid(4, 1)):
        total = np.zeros(mt.shape[0])
        for a in legal_actions(rules, cur, 10):
            total += np.exp(tables.log_likelihood(cur, None if isinstance(a, Challenge) else a, mt))
        assert np.allclose(total, 1.0)
        if cur is not None:
            assert np.allclose(tables.response_challenge_prob([cur], mt)[0], np.exp(tables.log_likelihood(cur, None, mt)))


def test_hand_tables() -> None:
    assert hands(5, 6).shape == (252, 6)
    assert np.isclose(np.exp(log_prior(5, 6)).sum(), 1.0)


def test_fitted_parameters_ship_for_every_preset() -> None:
    from liars_dice.bots.likelihood import _stored

    stored = _stored()
    for name in PRESETS:
        assert set(FEATURES) <= set(stored[name])
    assert params_for(Rules.preset("classic")).vector().shape == (len(FEATURES),)


def _win_rate(preset: str, opponent: str, n_players: int, games: int) -> float:
    rules = Rules.preset(preset)
    wins = 0
    for g in range(games):
        seat = g % n_players
        bots = [make_bot("strong", g) if s == seat else make_bot(opponent, 100 * g + s) for s in range(n_players)]
        final = play_game(Game.create(rules, [f"p{s}" for s in range(n_players)]), bots, SeededDice(g),
                          start=(g // n_players) % n_players)
        wins += final.winner == seat
    return wins / games


def test_beats_random() -> None:
    assert _win_rate("classic", "random", 2, 30) >= 0.9


@pytest.mark.parametrize("preset", ["classic", "aces-wild"])
def test_beats_three_probabilistic_bots(preset: str) -> None:
    """Fair share 25%; seeded games, so the figure is exact."""
    assert _win_rate(preset, "probabilistic", 4, 60) >= 0.40


def test_beats_probabilistic_head_to_head() -> None:
    assert _win_rate("classic", "probabilistic", 2, 80) >= 0.60


def test_plays_the_equilibrium_table_where_it_applies() -> None:
    """joker 1 vs 1 is covered by the packaged equilibrium table: the bot's
    moves are always in the support of the table's policy."""
    from liars_dice.solver import endgame

    rules = Rules.preset("joker")
    assert endgame.tables_for(rules) is not None, "the joker tables are packaged (src/liars_dice/data)"
    game = Game.create(rules, ["a", "b"], dice=(1, 1))
    checked = 0
    for seed in range(20):
        state = game.initial_state(seed % 2).roll(SeededDice(seed))
        bot = StrongBot(seed=seed)
        while not state.is_over:
            view = state.view(state.to_move)
            policy = endgame.endgame_policy(view)
            d = bot.decide(view)
            if policy:
                assert d.action in policy
                checked += 1
            state = state.apply(d.action)
    assert checked >= 20
