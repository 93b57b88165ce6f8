"""Issue 8 "Faults seen as a new user", through the real command where a user
meets them. Each test failed on main before its fix (the issue names how)."""

from __future__ import annotations

import io
import os
import re
import subprocess

import pytest
from rich.console import Console

from liars_dice.bots import bot_names
from liars_dice.cli import screen
from liars_dice.cli.session import PlaySession
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeededDice

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _run(cli: str, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    full_env.update(env or {})
    return subprocess.run(
        [cli, *args], capture_output=True, text=True, timeout=120, env=full_env,
        input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
    )


# -- 1. the suite at any terminal width, and with no terminal ---------------------------------


@pytest.mark.parametrize("columns", ["100", "200"])
def test_watch_output_does_not_follow_columns(cli, columns: str) -> None:
    """Fault 1: with COLUMNS=100 `--watch` printed lines wider than 80 columns and
    test_watch_ends_with_the_winner failed. Output to a pipe is laid out for 80
    columns whatever COLUMNS says, and is the same as with no COLUMNS at all."""
    args = ("play", "--watch", "--rules", "wild-stars", "--players", "4", "--seed", "3")
    plain = _run(cli, *args)
    wide = _run(cli, *args, env={"COLUMNS": columns})
    assert plain.returncode == wide.returncode == 0, wide.stderr
    assert all(len(ln) <= 80 for ln in wide.stdout.splitlines())
    assert wide.stdout == plain.stdout


# -- 2. Die Hard with two protected players -------------------------------------------------


def test_die_hard_names_two_players_in_words(cli) -> None:
    """Fault 2: "Die Hard: bob, cy keeps a last die." (seed 000 "Die Hard";
    the issue's command, with a seed whose fair dice give such a reveal)."""
    proc = _run(cli, "play", "--watch", "--rules", "wild-stars", "--players", "6", "--seed", "3")
    text = " ".join(proc.stdout.split())
    assert re.search(r"Die Hard: \w+ and \w+ keep a last die\.", text)
    assert "keeps a last die" in text  # one player: "Eve keeps"
    assert not re.search(r"Die Hard: \w+, \w+ keeps", text)


def test_die_hard_wording_in_the_reveal() -> None:
    rules = Rules.preset("wild-stars")
    game = Game.create(rules, ["you", "ann", "bob", "cy"], [2, 2, 1, 1])
    s = game.initial_state().deal([(3, 3), (3, 5), (4,), (6,)]).apply(Bid(3, 3)).apply(CHALLENGE)
    r = s.results[-1]
    assert r.count == 3 and r.lost == (0, 1, 0, 0)  # a perfect bid; bob and cy keep their last die
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(screen.reveal(rules, game.players, r, you=0))
    assert "Die Hard: bob and cy keep a last die." in " ".join(buf.getvalue().split())


# -- 3. --name in the reveal ------------------------------------------------------------------


def test_name_labels_the_persons_cup_in_a_reveal(cli) -> None:
    """Fault 3: with --name Bartholomew every reveal labelled that row `you`."""
    bot = bot_names(1, 2, taken=("Bartholomew",))[0]  # the bot's name follows --seed
    proc = _run(cli, "play", "--name", "Bartholomew", "--players", "2", "--seed", "2", "--start", bot,
                stdin="liar\n")
    assert proc.returncode == 0, proc.stderr
    reveal = proc.stdout.split("challenged", 1)[1]
    rows = [ln.split()[0] for ln in reveal.splitlines() if re.match(r"^\S+ .*\[", ln)]
    assert "Bartholomew" in rows and "you" not in rows, reveal


# -- 6. help text, --version, -h, play first ------------------------------------------------


@pytest.mark.parametrize(
    "command", [[], ["play"], ["replay"], ["solve"], ["arena"], ["bot"], ["serve"], ["rules"], ["rules", "show"]]
)
def test_help_shows_what_to_type_not_python_types(cli, command: list[str]) -> None:
    """Fault 6: flags showed `<bool>`, --bots `<list[str]>`, usage lines `{file}`."""
    proc = _run(cli, *command, "--help")
    assert proc.returncode == 0, proc.stderr
    for wrong in ("<bool>", "<list[str]>", "<str>", "<int>", "{file}", "{name}"):
        assert wrong not in proc.stdout, (wrong, proc.stdout)
    usage = next(ln for ln in proc.stdout.splitlines() if "Usage:" in ln)
    assert "{" not in usage and "<" not in usage, usage
    assert proc.stdout == _run(cli, *command, "-h").stdout, "-h is --help"


def test_version_and_play_listed_first(cli) -> None:
    from importlib.metadata import packages_distributions, version

    from liars_dice import __version__

    proc = _run(cli, "--version")
    installed = version(packages_distributions()["liars_dice"][0])
    assert proc.returncode == 0 and proc.stdout.strip() == f"liars-dice {installed}"
    assert installed == __version__
    listed = re.findall(r"^  (\w+)  ", _run(cli, "--help").stdout, re.M)
    known = {"play", "replay", "solve", "arena", "bot", "serve", "rules", "verify"}
    commands = [w for w in listed if w in known]
    assert commands[0] == "play" and set(commands) == known


# -- 8. smaller faults ------------------------------------------------------------------------


def _console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=80, force_terminal=False, color_system=None), buf


def test_a_win_is_announced_once() -> None:
    """Fault 8: a win printed "You won! Well played." and then "you win"."""
    game = Game.create(Rules.preset("classic"), ["you", "ann"], [1, 1])
    won = game.initial_state().deal([(2,), (3,)]).apply(Bid(1, 2)).apply(CHALLENGE)
    assert won.winner == 0
    console, buf = _console()
    session = PlaySession(console, game, [None, None], SeededDice(1), 0)
    session.state = won
    session._the_end()
    out = buf.getvalue().lower()
    assert len(re.findall(r"\bwin|\bwon\b", out)) == 1, out
    assert out.strip().splitlines()[-1] == "you win! well played."


@pytest.mark.parametrize("preset", ["wild-stars", "classic"])
def test_bid_history_breaks_between_entries_at_80_columns(preset: str) -> None:
    """Fault 8: at 80 columns the bid history wrapped in the middle of an entry."""
    rules = Rules.preset(preset)
    names = ("Bartholomew", "ann", "bob", "cy", "dee", "eve")
    bids = [(i % 6, Bid(q, f), (5, 5) if i == 4 and rules.show_and_reroll else ()) for i, (q, f) in
            enumerate([(3, 5), (4, 5), (5, 2), (6, 1), (13, 3), (14, 4), (15, 6), (16, 6), (17, 2), (18, 4),
                       (19, 5), (20, 6), (21, 2)])]
    console, buf = _console()
    console.print(screen.bids_text(rules, names, bids, 80))
    lines = buf.getvalue().rstrip("\n").splitlines()
    assert len(lines) > 1 and all(len(ln) <= 80 for ln in lines)
    entry = re.compile(r"^\w+ \d+(x\d|★)( \(showed [^)]*\))?$")
    items = []
    for ln in lines:
        body = ln.removeprefix("Bids: ").strip()
        items += [x.strip() for x in body.split("→") if x.strip()]
    assert all(entry.match(x) for x in items), items
    assert len(items) == len(bids)


@pytest.mark.parametrize("flag", ["--max-depth", "--depth-cap", "--show-depth-cap"])
def test_a_depth_below_one_is_refused_under_its_flag(cli, flag: str) -> None:
    """attack4 leftover: `solve --max-depth 0` was refused as "max_depth is the
    most bids...", the library's parameter, not the flag the user typed."""
    args = ["solve", "--rules", "openspiel", "--dice", "1", "1", flag, "0"] + (["--tables"] if flag != "--max-depth" else [])
    out = _run(cli, *args)
    assert out.returncode == 2
    assert out.stderr.strip() == f"error: {flag} is the most bids in a history, at least 1, not 0.", out.stderr
