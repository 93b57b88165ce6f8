"""Server CPU per move spent building the ``state`` messages, against a peer.

After every move the server builds each seat's ``state`` message
(``liars_dice.server.core.views.state_message_text``): the seat's view, the words of
every bid, and for the seat to move every legal raise with its words and the
chance it is true. In a profile of ``benchmarks/server_load.py`` this was
about half of the server's time. This script times the four messages of one
move at a 4-seat ``classic`` table (20 dice in play, after the opening bid: about
100 legal raises), in this source tree and, with ``--peer-src``, in another one
(for example main before a change, extracted with ``git archive``), each in a
fresh interpreter, and prints the medians and their ratio.

Usage::

    .venv/bin/python benchmarks/state_messages.py
    git archive main src | tar -x -C /tmp/peer && .venv/bin/python benchmarks/state_messages.py --peer-src /tmp/peer/src
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import dataclasses, json, statistics, sys, time
from liars_dice.engine import Bid, Game, Rules, SeededDice
from liars_dice.server.core import views
from liars_dice.server.runtime.room import Room
from liars_dice.server.core.tables import TableStatus, created

rules = Rules.preset("classic")
state = Game.create(rules, ["a", "b", "c", "d"]).initial_state(0).roll(SeededDice(1)).apply(Bid(3, 4))
payload = {"id": "x", "code": "ABCDEF", "preset": "classic", "rules": rules.to_dict(), "n_seats": 4,
           "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00"}
room = Room(dataclasses.replace(created(payload, 50), state=state, status=TableStatus.PLAYING))
reps, runs = int(sys.argv[1]), int(sys.argv[2])
for _ in range(50):
    views.state_message_text(room, state.to_move)
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    for _ in range(reps):
        for seat in range(4):
            views.state_message_text(room, seat)
    times.append((time.perf_counter() - t0) / reps * 1000)
print(json.dumps(times))
"""


def measure(src: Path, reps: int, runs: int) -> list[float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(reps), str(runs)], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(src)})
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer-src", type=Path, default=None, help="another tree's src/ to compare with")
    ap.add_argument("--reps", type=int, default=300, help="moves per run")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    import os
    import statistics

    here = Path(__file__).resolve().parent.parent / "src"
    mine = measure(here, args.reps, args.runs)
    med = statistics.median(mine)
    print(f"this tree: the 4 state messages of a move: median {med:.3f} ms "
          f"(runs {', '.join(f'{x:.3f}' for x in mine)}); load average {os.getloadavg()[0]:.2f}")
    if args.peer_src is not None:
        peer = measure(args.peer_src, args.reps, args.runs)
        pm = statistics.median(peer)
        print(f"peer {args.peer_src}: median {pm:.3f} ms (runs {', '.join(f'{x:.3f}' for x in peer)})")
        print(f"ratio peer / this tree: {pm / med:.2f}x")


if __name__ == "__main__":
    main()
