"""`liars-dice solve` shows its progress (issue 8, "Solving shows progress"):
a Rich progress bar with the iterations, the current exploitability and an
estimate of the time left; through the real command in a pseudo-terminal."""

from __future__ import annotations

import os
import re

import pexpect
import pytest

from liars_dice.cli.solve import Estimate

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_estimate_extends_a_power_law_to_the_target() -> None:
    """CFR+'s exploitability falls about as a power of the iterations: on an
    exact power law the estimate finds the iteration that reaches the target."""
    est = Estimate(target=1e-3, max_iterations=100_000)
    assert est.iterations_needed() is None and est.seconds_left() is None
    for i in range(10, 110, 10):
        est.add(i, 2.0 / i**1.5, seconds=i * 0.01)  # 0.01 s per iteration
    need = est.iterations_needed()
    truth = (2.0 / 1e-3) ** (1 / 1.5)  # ~158.7
    assert need is not None and abs(need - truth) <= 2
    left = est.seconds_left()
    assert left is not None and abs(left - (need - 100) * 0.01) < 1e-6


def test_the_estimate_is_capped_and_honest() -> None:
    est = Estimate(target=1e-9, max_iterations=500)
    for i in (10, 20, 30):
        est.add(i, 1.0 / i, seconds=i)
    assert est.iterations_needed() == 500, "never beyond --max-iterations"
    flat = Estimate(target=1e-3, max_iterations=500)
    for i in (10, 20, 30):
        flat.add(i, 0.5, seconds=i)
    assert flat.iterations_needed() is None, "no trend, no guess"


def test_the_estimate_never_raises() -> None:
    """attack2: ``solve --target-exploitability 0`` was a traceback (log of 0), and a
    nearly flat trend overflowed math.exp; the estimate is then no guess or the cap."""
    zero = Estimate(target=0.0, max_iterations=500)
    for i in (10, 20, 30):
        zero.add(i, 1.0 / i, seconds=i)
    assert zero.iterations_needed() is None and zero.seconds_left() is None
    slow = Estimate(target=1e-300, max_iterations=500)
    for i, e in ((10, 0.5), (20, 0.5 - 1e-12), (30, 0.5 - 2e-12)):
        slow.add(i, e, seconds=i)
    assert slow.iterations_needed() == 500


def test_solve_shows_a_progress_bar_at_a_terminal(cli) -> None:
    child = pexpect.spawn(
        cli, ["solve", "--rules", "openspiel", "--dice", "1", "1"], encoding="utf-8",
        dimensions=(30, 140), timeout=120,
        env={**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "TERM": "xterm"},
    )
    child.expect(pexpect.EOF)
    out = ANSI.sub("", child.before)
    child.close()
    assert child.exitstatus == 0, out
    assert re.search(r"CFR\+ .*\b310 iterations exploitability 0\.000995 → 0\.001 .*(left|estimating)", out), out
    assert re.search(r"\d+ iterations exploitability 0\.0\d+ → 0\.001", out)
    assert out.strip().splitlines()[-1].startswith("openspiel 1 vs 1: value -0.027597 for player 0")


def test_no_progress_bar_without_a_terminal(cli) -> None:
    import subprocess

    proc = subprocess.run([cli, "solve", "--rules", "openspiel", "--dice", "1", "1", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert '"iterations": 310' in proc.stdout


@pytest.mark.parametrize("word", ["3 dice in play", "min"])
def test_help_says_how_long_the_largest_sizes_take(cli, word: str) -> None:
    import subprocess

    proc = subprocess.run([cli, "solve", "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    assert word in proc.stdout
