"""Start-up of the ``liars-dice`` command (issue 8, "Start-up"): how long
``liars-dice --help`` and ``liars-dice play`` take before anything happens.

Peer: ``python -c "import typer"``, the floor every Typer command pays. Each
command runs as a real subprocess ``--runs`` times, interleaved so that load on
the shared machine hits every command alike; the figures are medians of wall
clock and of CPU (user + system) seconds. ``play`` is timed to its first
prompt: it reads ``q`` from standard input and stops there.

Also printed: the cumulative import time of ``liars_dice.cli`` from
``python -X importtime`` (microseconds, the CLI's own import cost).

Every command runs with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` is
removed from the environment) after one warm-up run, as an installed command
runs: with it set, each start recompiles the project's sources, which cost
more than half the start-up in our first measurements.

Usage::

    .venv/bin/python benchmarks/startup.py --runs 11
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CLI = str(BIN / "liars-dice")
PY = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

COMMANDS: dict[str, tuple[list[str], str | None]] = {
    "python -c 'import typer'": ([PY, "-c", "import typer"], None),
    "liars-dice --help": ([CLI, "--help"], None),
    "liars-dice --version": ([CLI, "--version"], None),
    "liars-dice play (to the first prompt)": ([CLI, "play", "--seed", "1", "--start", "you"], "q\n"),
}


def _timed(cmd: list[str], stdin: str | None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=False, env=ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def import_time_us(module: str) -> int:
    """Cumulative import time of ``module`` from ``python -X importtime`` (microseconds)."""
    proc = subprocess.run([PY, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True, env=ENV)
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)$", line)
        if m and m.group(2) == module:
            return int(m.group(1))
    raise RuntimeError(f"no import time for {module}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    walls: dict[str, list[float]] = {k: [] for k in COMMANDS}
    cpus: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for cmd, stdin in COMMANDS.values():  # warm-up: writes the bytecode caches
        _timed(cmd, stdin)
    for _ in range(args.runs):
        for name, (cmd, stdin) in COMMANDS.items():
            w, c = _timed(cmd, stdin)
            walls[name].append(w)
            cpus[name].append(c)
    peer = "python -c 'import typer'"
    pw, pc = statistics.median(walls[peer]), statistics.median(cpus[peer])
    print(f"{args.runs} runs each, interleaved; medians")
    print(f"{'command':40} {'wall ms':>8} {'cpu ms':>8} {'wall/typer':>10} {'cpu/typer':>9}")
    for name in COMMANDS:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"{name:40} {w * 1000:8.0f} {c * 1000:8.0f} {w / pw:10.2f} {c / pc:9.2f}")
    imports = {m: statistics.median(import_time_us(m) for _ in range(5)) for m in ("typer", "liars_dice.cli")}
    print("python -X importtime, cumulative, median of 5 (ms):",
          ", ".join(f"{m} {us / 1000:.1f}" for m, us in imports.items()))


if __name__ == "__main__":
    main()
