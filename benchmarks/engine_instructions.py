"""Engine speed in machine instructions: the playouts of
`benchmarks/engine_vs_openspiel.py`, counted by valgrind's callgrind, which
(unlike a timer) does not depend on the load of a shared machine.

For each side and size: instructions of N playouts minus those of the same
process with 0 playouts, divided by N. Ratio = pyspiel's count / ours (above 1:
fewer instructions than pyspiel).

Run: .venv/bin/python benchmarks/engine_instructions.py [--playouts 4000]
Needs valgrind (Debian: apt-get install valgrind) and the `openspiel` extra.
Takes a few minutes (valgrind runs Python about 50 times slower).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys

from _common import our_game, our_playouts, pyspiel_game, pyspiel_playouts

SIDES = ("ours", "ours-checked", "pyspiel")


def playouts(side: str, dice_each: int, n: int) -> None:
    """The loops of engine_vs_openspiel.py (benchmarks/_common.py), seeded with 1."""
    if side == "pyspiel":
        pyspiel_playouts(pyspiel_game(dice_each), n, random.Random(1))
        return
    from liars_dice.engine import SeededDice

    our_playouts(our_game(dice_each), n, random.Random(1), SeededDice(1), side == "ours-checked")


def instructions(side: str, dice_each: int, n: int) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.devnull}", sys.executable, __file__,
         "--run", side, str(dice_each), str(n)],
        capture_output=True, text=True, check=True,
    ).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))  # type: ignore[union-attr]  # valgrind always prints it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, default=4000, help="playouts with 1 die each (5 dice: a quarter)")
    parser.add_argument("--run", nargs=3, metavar=("SIDE", "DICE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        side, dice_each, n = args.run[0], int(args.run[1]), int(args.run[2])
        if side == "pyspiel":
            import pyspiel  # noqa: F401  (imported alike with 0 playouts)
        else:
            import liars_dice.engine  # noqa: F401
        playouts(side, dice_each, n)
        return
    print("Instructions per random playout (callgrind), `openspiel` preset vs pyspiel liars_dice")
    print(f"{'dice each':>9}  {'ours':>9}  {'checked':>9}  {'pyspiel':>9}  {'ours ratio':>10}  {'checked ratio':>13}")
    for dice_each in (1, 5):
        n = args.playouts if dice_each == 1 else max(1, args.playouts // 4)
        per = {side: (instructions(side, dice_each, n) - instructions(side, dice_each, 0)) // n for side in SIDES}
        print(f"{dice_each:>9}  {per['ours']:>9,}  {per['ours-checked']:>9,}  {per['pyspiel']:>9,}  "
              f"{per['pyspiel'] / per['ours']:>10.2f}  {per['pyspiel'] / per['ours-checked']:>13.2f}")


if __name__ == "__main__":
    main()
