"""`liars-dice play --rules perudo` through the real command (issue 9 "Terminal"):
calza typed as `calza`, `exact` or `spot on`; the hint gives the chance of an
exact count; a palifico round is announced with what it changes; a custom
rules file plays. RULES.md `perudo` is the rule source.
"""

from __future__ import annotations

import json
import re
import subprocess

import pexpect
import pytest

from liars_dice.cli import screen
from liars_dice.engine import Bid, Game, Rules
from test_play_cli import (
    AGAIN_PROMPT,
    ANSI,
    BID_PROMPT,
    END_LINE,
    OUT_PROMPT,
    PAUSE_PROMPT,
    WIN_LINE,
    _last_line,
    _spawn,
)


def test_interactive_perudo_game_with_calza_and_palifico_to_the_end(cli, tmp_path) -> None:
    """A whole 4-player perudo game at the real prompt: no opening on pacos, '?'
    with the exact-count chance, a calza typed in words, challenges to the end,
    palifico rounds announced; the record replays to the same winner."""
    path = tmp_path / "perudo.json"
    child = _spawn(cli, "--rules", "perudo", "--players", "4", "--seed", "11", "--start", "you", "--record", str(path))
    child.expect(r"'calza'[\s│]+\(or[\s│]+'exact'\)[\s│]+claims")  # the panel may wrap the line
    child.expect(BID_PROMPT)
    child.sendline("2 pacos")  # RULES.md perudo: no opening on pacos
    child.expect("✗ A round cannot open on pacos")
    child.expect(BID_PROMPT)
    child.sendline("1x2")
    called = hinted = False
    text = ""
    while True:
        i = child.expect([BID_PROMPT, PAUSE_PROMPT, END_LINE, OUT_PROMPT, pexpect.EOF])
        text += ANSI.sub("", child.before)
        if i == 0:
            before = ANSI.sub("", child.before)
            if "Bids: none yet" in before:
                child.sendline("1x2" if "Palifico round" not in before else "1x6")
            elif not hinted:
                child.sendline("?")
                child.expect(r"Chance that the count is exactly \d+ \(a right calza\), from your dice: \d+%")
                hinted = True
            elif not called:
                child.sendline("spot on")
                child.expect(r"(You call calza: exactly!|✗ Calza needs at least 3 players)")
                called = "You call calza" in child.after
            else:
                child.sendline("liar")
        elif i == 1:
            child.sendline("")
        elif i == 2:
            winner = child.match.group(1) or "you"
            break
        elif i == 3:  # out: watch the rest at the readable pace (issue 8), so every announcement prints
            child.sendline("w")
            child.timeout = 600
        else:  # pragma: no cover - a failure path
            pytest.fail("the game ended without a winner line:\n" + text[-2000:])
    child.expect(AGAIN_PROMPT)
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert hinted and called
    text = re.sub(r"\s+", " ", text)  # lines wrap at 80 columns
    assert "You called calza on" in text and re.search(r"the calza is (right|wrong)", text)
    assert re.search(r"(is|are) down to one die, so this is a palifico round", text)
    rep = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert rep.returncode == 0, rep.stdout
    result = json.loads(rep.stdout)
    assert result["winner"] == winner
    assert any(r.get("calza") for r in result["rounds"]) and any(r.get("palifico") for r in result["rounds"])


@pytest.mark.parametrize("word", ["calza", "exact", "spot on"])
def test_calza_words_at_the_prompt(word) -> None:
    """Issue 9: calza (also exact, spot on) as input."""
    from liars_dice.engine import CALZA

    assert Rules.preset("perudo").parse_action(word) is CALZA


def test_watch_perudo_ends_with_the_winner_and_fits_80_columns(cli) -> None:
    proc = subprocess.run(
        [cli, "play", "--watch", "--rules", "perudo", "--players", "5", "--seed", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert WIN_LINE.match(_last_line(proc.stdout))
    out = " ".join(proc.stdout.split())
    assert "calls calza: exactly!" in out
    assert "is down to one die, so this is a palifico round: pacos are not wild, the opening may name any face" in out
    assert not re.search(r"\b(is|are) the round\.", out)  # issue 38, fault 3: it says who opens
    assert all(len(ln) <= 80 for ln in proc.stdout.splitlines())


def test_play_with_a_custom_rules_file(cli, tmp_path) -> None:
    """Issue 9 "Rule sets from a file": a custom rules file works in play; the
    record holds the rules object and replays."""
    rules_file = tmp_path / "house.toml"
    rules_file.write_text('preset = "perudo"\nname = "house"\ndice_per_player = 3\npalifico = false\n')
    path = tmp_path / "game.json"
    proc = subprocess.run(
        [cli, "play", "--watch", "--rules", str(rules_file), "--players", "3", "--seed", "2", "--record", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Liar's Dice · house" in proc.stdout and "3 dice each" in proc.stdout
    assert "Palifico" not in proc.stdout
    record = json.loads(path.read_text())
    assert record["rules"]["name"] == "house" and record["rules"]["dice_per_player"] == 3
    rep = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert rep.returncode == 0 and json.loads(rep.stdout)["winner"] == WIN_LINE.match(_last_line(proc.stdout)).group(1)


def test_palifico_turn_screen_and_hint_fit_80_columns() -> None:
    """The palifico banner on the turn screen, and the raises hint keeping the face."""
    from rich.console import Console

    game = Game.create(Rules.preset("perudo"), ["you", "ann", "bob"])
    s = game.position((1, 3, 3), 1, palifico=True).deal([[4], [2, 2, 3], [5, 6, 6]]).apply(Bid(2, 2))
    view = s.view(2)
    console = Console(width=80, record=True, color_system=None)
    console.print(screen.turn_screen(view, 5))
    console.print(screen.raises_text(view.rules, view, lambda b: 0.5))
    out = console.export_text()
    assert "Palifico round: pacos are not wild" in out
    assert "3x2+" in out and "3x5+" not in out, "a three-dice player keeps the face"
    assert all(len(ln) <= 80 for ln in out.splitlines())


class _Challenger:
    """A seat that always calls liar (a scripted player for one round)."""

    name = "challenger"

    def decide(self, view):
        from liars_dice.bots import Decision
        from liars_dice.engine import CHALLENGE

        return Decision(CHALLENGE)


def _palifico_opening() -> str:
    """The screen of a perudo game in which the person drops to one die and a
    palifico round starts (RULES.md `perudo` "Palifico"), up to the person's
    first prompt in it."""
    import io

    from rich.console import Console

    from liars_dice.cli.session import PlaySession, Quit
    from liars_dice.engine import ScriptedDice

    console = Console(file=io.StringIO(), width=80, color_system=None)
    prompts = iter(["5x6"])
    def ask(prompt: str) -> str:
        try:
            return next(prompts)
        except StopIteration:
            raise Quit from None

    names = ["you", "ann", "bob"]
    game = Game.create(Rules.preset("perudo"), names, [2, 5, 5])
    bots = [None, _Challenger(), _Challenger()]
    dice = ScriptedDice([2] * 12 + [3] * 12)  # no 6s: the person's 5x6 is a lie
    session = PlaySession(console, game, bots, dice, 0, ask=ask)
    try:
        session.run()
    except Quit:
        pass
    return " ".join(console.file.getvalue().split())


def test_a_palifico_round_is_announced_once_in_lower_case() -> None:
    """Issue 17 fault 7: "You are down to one die: Palifico round: ..." had a
    capital P mid-sentence and the sentence twice (the announcement, then the
    turn screen). Now one announcement, and what the round changes once."""
    text = _palifico_opening()
    assert "You are down to one die, so this is a palifico round." in text
    assert "one die: Palifico" not in text
    # issue 38, fault 3: the next line said "You are the round."
    assert "You are down to one die, so this is a palifico round. You open the round." in text
    assert not re.search(r"\b(is|are) the round\.", text)
    after = text[text.index("so this is a palifico round"):]
    assert after.count("the opening may name any face") == 1, after
