"""The ratings' pure computation (issue 18): finishing orders, a leaver's
place, the fixed bots, the rule set a game counts under; with hypothesis."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import PRESETS, Game, Phase, SeededDice, State
from liars_dice.server.core.ratings import (
    BOT_RATINGS, MU0, Placing, Rated, rate_game, rule_set_name, standings,
)


def random_game(seed: int, n: int = 3, dice: int = 2) -> State:
    """A whole game of ``n`` seats under classic with ``dice`` each, random legal moves."""
    rng = random.Random(seed)
    rules = PRESETS["classic"].with_options(dice_per_player=dice)
    s = Game.create(rules, [f"p{i}" for i in range(n)]).initial_state(seed % n)
    source = SeededDice(seed)
    while not s.is_over:
        if s.phase is Phase.DEAL:
            s = s.roll(source)
            continue
        acts = s.legal_actions()
        s = s.apply(rng.choice(acts[:4] + acts[-1:]))
    return s


def out_order(s: State) -> list[int]:
    return [seat for r in s.results for seat in r.out]


def test_without_leavers_the_winner_is_first_and_the_first_out_last() -> None:
    """Issue 18: "from the game's finishing order (first eliminated = last place)"."""
    s = random_game(11, n=4)
    places = {p.seat: p.place for p in standings(s, [], {})}
    first_out, *_, last_out = out_order(s)
    assert places[s.winner] == 1 and places[first_out] == 4 and places[last_out] == 2


def test_a_leaver_is_last_of_those_still_in_when_they_left() -> None:
    """Issue 18: "A player who leaves a rated game loses it for rating purposes"."""
    s = random_game(12, n=4)
    first_out = out_order(s)[0]
    # the winner left before any round was over: last of all four, below the first out
    places = {p.seat: (p.place, p.left) for p in standings(s, [(s.winner, 0)], {})}
    assert places[s.winner] == (4, True) and places[first_out][0] == 3
    # after the first elimination, the leaver is still above the seat already out
    when = next(j + 1 for j, r in enumerate(s.results) if r.out)
    places = {p.seat: (p.place, p.left) for p in standings(s, [(s.winner, when)], {})}
    assert places[s.winner] == (3, True) and places[first_out][0] == 4


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.data())
def test_standings_are_a_ranking_with_every_leaver_below_those_still_in(seed: int, n: int, data: st.DataObject) -> None:
    """Property: places are 1..n; a leaver is below every seat still in when
    they left and above every seat out before; the other seats keep the
    engine's order."""
    s = random_game(seed, n=n)
    rounds = len(s.results)
    leavers = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    times = sorted(data.draw(st.lists(st.integers(0, rounds), min_size=len(leavers), max_size=len(leavers))))
    departed = list(zip(leavers, times))
    placings = standings(s, departed, {})
    place = {p.seat: p.place for p in placings}
    assert sorted(place.values()) == list(range(1, n + 1))
    out_after = {seat: j + 1 for j, r in enumerate(s.results) for seat in r.out}
    # when each seat left the game: (rounds over, 0 out / 1 left, order of leaving)
    gone = {seat: (k, 1, i) for i, (seat, k) in enumerate(departed)}
    for seat in range(n):
        gone.setdefault(seat, (out_after.get(seat, rounds + 1), 0, 0))
    for seat, _ in departed:
        for other in range(n):
            if other != seat:
                # still in when ``seat`` left: above it; out before: below it
                assert (place[other] < place[seat]) == (gone[other] > gone[seat])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.permutations([1, 2, 3]), st.sampled_from(sorted(BOT_RATINGS))), min_size=1, max_size=12))
def test_ratings_depend_on_the_games_only_through_their_order(games: list[tuple[list[int], str]]) -> None:
    """Property (issue 18, "rebuild == running"): folding rate_game over the
    same games in the same order gives exactly the same numbers; the bots'
    ratings never move; the listing order of a game's seats does not matter."""
    def fold(shuffle: bool) -> dict[int, tuple[float, float]]:
        r = {1: (MU0, 25 / 3), 2: (MU0, 25 / 3)}
        rng = random.Random(0)
        for places, bot in games:
            placings = [Placing(0, "a", None, places[0]), Placing(1, "b", None, places[1]), Placing(2, "c", bot, places[2])]
            if shuffle:
                rng.shuffle(placings)
            people = {0: Rated(1, *r[1]), 1: Rated(2, *r[2])}
            new = rate_game(placings, people)
            assert new is not None and set(new) == {1, 2}
            r.update(new)
        return r

    assert fold(False) == fold(False) == fold(True)
    assert BOT_RATINGS["strong"] == (32.0, 1.0)


def test_winning_raises_and_losing_lowers_the_mean_and_a_guest_makes_no_rated_game() -> None:
    placings = [Placing(0, "a", None, 1), Placing(1, "bot", "strong", 2), Placing(2, "b", None, 3)]
    new = rate_game(placings, {0: Rated(1), 2: Rated(2)})
    assert new is not None and new[1][0] > MU0 > new[2][0]
    assert rate_game(placings, {0: Rated(1)}) is None  # seat 2 is a guest
    assert rate_game([Placing(0, "x", "random", 1), Placing(1, "y", "strong", 2)], {}) is None


def test_only_standard_rule_sets_count_under_their_names() -> None:
    """Issue 18: "Only standard rule sets count; a rules file's games count
    under its own rule set, and never under a preset's name"."""
    assert rule_set_name("perudo", PRESETS["perudo"]) == "perudo"
    assert rule_set_name("classic", PRESETS["classic"].with_options(dice_per_player=3)) is None
    assert rule_set_name("custom: classic", PRESETS["classic"].with_options(dice_per_player=3)) == "custom: classic"
