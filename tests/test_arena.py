"""The arena: seating, statistics, and `liars-dice arena` through the real CLI."""

from __future__ import annotations

import itertools
import json
import subprocess
from collections import Counter
from math import factorial

import pytest

from liars_dice.arena import (
    ArenaConfig,
    EntrantError,
    finishing_ranks,
    parse_entrants,
    ratings,
    run_arena,
    seating,
    split_specs,
    wilson,
)
from liars_dice.bots import make_bot
from liars_dice.engine import Game, Rules, SeededDice
from liars_dice.match import play_game


def arena(cli, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([cli, "arena", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


# -- seating ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_seating_plays_every_permutation_once_per_n_factorial_games(n) -> None:
    perms = [seating(g, n) for g in range(factorial(n))]
    assert sorted(perms) == sorted(itertools.permutations(range(n)))


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_seating_balances_seats_in_every_block_of_n_games(n) -> None:
    for block in range(0, 5 * n, n):
        for seat in range(n):
            assert sorted(seating(g, n)[seat] for g in range(block, block + n)) == list(range(n))


# -- statistics --------------------------------------------------------------------


def test_wilson_matches_published_values() -> None:
    """Wilson (1927) score interval; the values agree with Newcombe, "Two-sided
    confidence intervals for the single proportion", Stat. Med. 17 (1998),
    table I: 81/263 -> 0.2553-0.3662, 0/20 -> 0-0.1611."""
    lo, hi = wilson(81, 263)
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert wilson(20, 20)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


def test_ratings_rank_a_consistent_winner_first() -> None:
    by_entrant = (1, 2, 3)  # entrant e always finishes (e+1)-th
    games = [(seats, tuple(by_entrant[e] for e in seats)) for seats in [(0, 1, 2), (2, 0, 1), (1, 2, 0)] * 5]
    rated = ratings(3, games)
    ords = [r.ordinal() for r in rated]
    assert ords[0] > ords[1] > ords[2]


def test_finishing_ranks_follow_elimination_order() -> None:
    rules = Rules.preset("classic")
    for seed in range(5):
        bots = [make_bot("random", seed * 4 + i) for i in range(4)]
        final = play_game(Game.create(rules, ["a", "b", "c", "d"], [2, 2, 2, 2]), bots, SeededDice(seed))
        ranks = finishing_ranks(final)
        assert ranks[final.winner] == 1
        out_round = {s: i for i, r in enumerate(final.results) for s in r.out}
        for s, t in itertools.permutations(out_round, 2):
            if out_round[s] > out_round[t]:
                assert ranks[s] < ranks[t]
            elif out_round[s] == out_round[t]:
                assert ranks[s] == ranks[t]


def test_single_round_game_ranks_winner_then_the_rest() -> None:
    final = play_game(Game.create(Rules.preset("openspiel"), ["a", "b"]), [make_bot("random", 1), make_bot("random", 2)], SeededDice(3))
    assert sorted(finishing_ranks(final)) == [1, 2]


# -- entrants --------------------------------------------------------------------------


def test_entrant_names_and_command_syntax() -> None:
    es = parse_entrants(["random,random", 'ext=cmd:prog --x "a,b", random, cmd:other-prog -v'])
    assert [e.name for e in es] == ["random", "random#2", "ext", "random#3", "other-prog -v"]
    assert es[2].command == ("prog", "--x", "a,b") and es[2].external and not es[0].external
    assert split_specs("a, b,,c") == ["a", "b", "c"]


@pytest.mark.parametrize("specs, words", [(["random"], "at least two"), (["random,nobody"], "no bot called 'nobody'"), (["random,cmd:"], "no command")])
def test_bad_entrants(specs, words) -> None:
    with pytest.raises(EntrantError, match=words):
        parse_entrants(specs)


def test_outcomes_do_not_depend_on_jobs_in_process() -> None:
    config = ArenaConfig(Rules.preset("classic"), tuple(parse_entrants("random,random,random")), 24, seed=9)
    one, two = run_arena(config, 1), run_arena(config, 2)
    assert one.outcomes == two.outcomes and len(one.outcomes) == 24
    assert [o.game for o in one.outcomes] == list(range(24))
    assert Counter(o.seats[0] for o in one.outcomes) == {0: 8, 1: 8, 2: 8}


# -- the real CLI ----------------------------------------------------------------------


def test_arena_json_shape(cli) -> None:
    proc = arena(cli, "--rules", "classic", "--bots", "random,random,random", "--games", "30", "--seed", "1", "--json")
    rep = json.loads(proc.stdout)
    assert set(rep) == {"games", "bots"} and rep["games"] == 30
    assert list(rep["bots"]) == ["random", "random#2", "random#3"]
    assert sum(b["wins"] for b in rep["bots"].values()) == 30
    for b in rep["bots"].values():
        assert set(b) == {"wins", "win_rate", "ci95", "rating"}
        lo, hi = b["ci95"]
        assert 0 <= lo <= b["win_rate"] <= hi <= 1 and lo < hi
        assert b["win_rate"] == pytest.approx(b["wins"] / 30, abs=1e-6)
        assert isinstance(b["rating"], float)
    assert proc.stderr == ""  # no progress bar with --json


def test_arena_is_deterministic_across_jobs(cli) -> None:
    args = ["--rules", "wild-stars", "--bots", "random,random,random,random", "--games", "40", "--json"]
    one = arena(cli, *args, "--seed", "7", "--jobs", "1").stdout
    two = arena(cli, *args, "--seed", "7", "--jobs", "2").stdout
    assert one == two
    other = arena(cli, *args, "--seed", "8", "--jobs", "2").stdout
    assert other != one  # a different seed gives different games


def test_arena_plot_writes_png(cli, tmp_path) -> None:
    out = tmp_path / "arena.png"
    proc = arena(cli, "--bots", "random,random", "--games", "10", "--seed", "2", "--plot", str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    assert "random#2" in proc.stdout  # the table


def test_arena_with_external_command_bot(cli) -> None:
    spec = f"ext=cmd:{cli} bot random --rules classic --seed 5"
    args = ["--rules", "classic", "--bots", f"random,{spec},random", "--games", "12", "--seed", "3", "--json"]
    one = json.loads(arena(cli, *args, "--jobs", "2").stdout)
    assert list(one["bots"]) == ["random", "ext", "random#2"]
    assert sum(b["wins"] for b in one["bots"].values()) == 12
    # the external bot's replies depend on each request alone (--seed), so the arena stays reproducible
    assert json.loads(arena(cli, *args, "--jobs", "1").stdout) == one


def test_arena_reports_a_failing_external_bot(cli) -> None:
    proc = arena(cli, "--bots", "random,cmd:false", "--games", "4", "--seed", "1", "--json", check=False)
    assert proc.returncode == 2
    msg = proc.stderr.strip()
    assert msg.startswith("Game ") and "'false'" in msg and "exited with status 1" in msg


@pytest.mark.parametrize(
    "args, words",
    [
        (["--rules", "openspiel", "--bots", "random,random,random"], "played by exactly 2 players, not 3"),
        (["--bots", "random,nobody"], "no bot called 'nobody'"),
        (["--rules", "nope", "--bots", "random,random"], "no rule set called 'nope'"),
    ],
)
def test_arena_bad_input_is_one_sentence(cli, args, words) -> None:
    proc = arena(cli, *args, "--games", "2", check=False)
    assert proc.returncode == 2 and words in proc.stderr and proc.stdout == ""


def test_ratings_do_not_depend_on_the_order_the_games_were_played() -> None:
    """Bots do not change during a tournament, so the same games in another
    order must give the same ratings (openskill alone, rating game by game,
    moved three equal bots' ratings by 2-3 points with the order)."""
    import random

    from liars_dice.arena.stats import ratings

    rng = random.Random(1)
    games = []
    for _ in range(600):
        order = [0, 1, 2]
        rng.shuffle(order)
        games.append(([0, 1, 2], [order.index(i) + 1 for i in range(3)]))
    first = [round(r.ordinal(), 9) for r in ratings(3, games)]
    for trial in range(2):
        shuffled = games[:]
        random.Random(trial).shuffle(shuffled)
        assert [round(r.ordinal(), 9) for r in ratings(3, shuffled)] == first


def test_ratings_rank_a_clearly_stronger_entrant_first() -> None:
    import random

    from liars_dice.arena.stats import ratings

    rng = random.Random(2)
    games = []
    for _ in range(600):
        order = [0, 1, 2] if rng.random() < 0.5 else rng.sample([0, 1, 2], 3)
        games.append(([0, 1, 2], [order.index(i) + 1 for i in range(3)]))
    rated = ratings(3, games)
    assert rated[0].ordinal() > max(rated[1].ordinal(), rated[2].ordinal())


def test_plot_labels_are_readable_and_off_the_fair_share_line() -> None:
    """Issue 8 fault 8: the "0.0%" label was white on white (centred in a bar of
    no width) and a 75% label sat on the fair-share line. Every label is dark on
    white outside a bar, or white inside a bar; none covers the line at 1/n."""
    from liars_dice.arena.plot import DARK, LABEL_WIDTH, label_place

    cases = [(0.0, 0.2, 0.5), (0.75, 0.85, 0.5), (0.5, 0.6, 0.5), (0.45, 0.55, 0.5), (1.0, 1.0, 0.5),
             (0.9, 0.97, 0.25), (0.3, 0.35, 0.25), (0.2, 0.3, 1 / 6), (0.05, 0.12, 1 / 6), (0.95, 0.99, 0.5)]
    for rate, upper, fair in cases:
        x, ha, color = label_place(rate, upper, fair)
        left, right = (x, x + LABEL_WIDTH) if ha == "left" else (x - LABEL_WIDTH, x)
        assert not left <= fair <= right, (rate, upper, fair)
        assert 0 <= left and right <= 1, (rate, upper, fair)
        if color == DARK:
            assert left >= upper, "dark labels sit right of the interval, on white"
        else:
            assert color == "white" and right <= rate, "white labels sit inside the blue bar"
    assert label_place(0.0, 0.2, 0.5)[2] == DARK
