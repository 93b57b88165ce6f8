"""Helpers shared by the benchmark scripts (imported as ``_common``: a script run
as ``.venv/bin/python benchmarks/NAME.py`` has this folder first on its path).

- the random-playout loops timed against OpenSpiel (``engine_vs_openspiel.py``,
  ``batch_vs_openspiel.py``) and counted in instructions (``engine_instructions.py``);
- a process's resident memory and CPU time from ``/proc`` (``server_load.py``,
  ``many_sockets.py``).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def require_pyspiel() -> None:
    """Exit with one sentence when pyspiel (the ``openspiel`` extra) is missing."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        sys.exit("pyspiel is missing: .venv/bin/pip install -e '.[openspiel]'")


def pyspiel_game(dice_each: int) -> Any:
    """OpenSpiel's C++ ``liars_dice`` (two players, ``dice_each`` dice each) through pyspiel."""
    import pyspiel

    return pyspiel.load_game("liars_dice", {"numdice": dice_each, "players": 2})


def pyspiel_playouts(game: Any, n: int, rng: random.Random) -> None:
    """``n`` random playouts of a pyspiel ``game``: each chance outcome and each
    legal action drawn uniformly with ``rng``."""
    choice, new = rng.choice, game.new_initial_state
    for _ in range(n):
        s = new()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(choice(s.chance_outcomes())[0])
            else:
                s.apply_action(choice(s.legal_actions()))


def pyspiel_runner(dice_each: int) -> Callable[[int, int], float]:
    """A runner of ``n`` random playouts of pyspiel's ``liars_dice`` seeded with
    ``seed``: ``run(n, seed)`` returns playouts per second."""
    game = pyspiel_game(dice_each)

    def run(n: int, seed: int) -> float:
        rng = random.Random(seed)
        t = time.perf_counter()
        pyspiel_playouts(game, n, rng)
        return n / (time.perf_counter() - t)

    return run


def our_game(dice_each: int) -> Any:
    """Our engine's ``openspiel`` preset, two seats, ``dice_each`` dice each."""
    from liars_dice.engine import Game, Rules

    return Game.create(Rules.preset("openspiel"), ["p0", "p1"], [dice_each, dice_each])


def our_playouts(game: Any, n: int, rng: random.Random, dice: Any, checked: bool) -> None:
    """``n`` random playouts of our engine's ``game`` (seat 0 opens): a whole deal
    rolled from ``dice`` at once, each legal action drawn uniformly with ``rng``,
    applied by ``State.apply`` (``checked``) or ``State.apply_unchecked``."""
    choice, initial = rng.choice, game.initial_state
    for _ in range(n):
        s = initial(0)
        while not s.is_over:
            if s.is_chance:
                s = s.roll(dice)
            elif checked:
                s = s.apply(choice(s.legal_actions()))
            else:
                s = s.apply_unchecked(choice(s.legal_actions()))


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` in KiB (``VmRSS`` of ``/proc/PID/status``; 0 if absent)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def git_src(rev: str) -> Path:
    """``src/`` of git revision ``rev`` of this repository, extracted (``git
    archive``) to a new temporary folder: a baseline to run in the same session."""
    import io
    import subprocess
    import tarfile
    import tempfile

    root = Path(__file__).resolve().parent.parent
    dest = Path(tempfile.mkdtemp(prefix="ld-baseline-"))
    raw = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "src"
