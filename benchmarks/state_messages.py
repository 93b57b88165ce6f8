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

The trees take turns (``--rounds`` interpreters each), so a busy machine
weighs on both alike. Without ``--peer-src`` the peer is ``--baseline``, a git
revision (default ``97450a9``: main before issue 16's "cheaper moves"),
extracted with ``git archive``. Also printed: the bytes of the four messages.

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

from _common import git_src

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
# the four messages of one event: at once where the tree builds them at once
if hasattr(views, "state_texts"):
    def move():
        return sum(len(t) for t in views.state_texts(room, range(4)).values())
else:
    def move():
        return sum(len(views.state_message_text(room, seat)) for seat in range(4))
for _ in range(50):
    nbytes = move()
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    for _ in range(reps):
        move()
    times.append((time.perf_counter() - t0) / reps * 1000)
print(json.dumps({"times": times, "bytes": nbytes}))
"""


def measure(src: Path, reps: int, runs: int) -> tuple[list[float], int]:
    """``(ms per move of each run, bytes of the move's four messages)`` in tree ``src``."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(reps), str(runs)], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(src)})
    got = json.loads(out.stdout)
    return got["times"], got["bytes"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer-src", type=Path, default=None, help="another tree's src/ to compare with")
    ap.add_argument("--baseline", default="97450a9",
                    help="without --peer-src: the git revision to compare with (default: main before issue 16's "
                         "'cheaper moves'; '' for none)")
    ap.add_argument("--reps", type=int, default=300, help="moves per run")
    ap.add_argument("--runs", type=int, default=3, help="runs per interpreter")
    ap.add_argument("--rounds", type=int, default=3, help="interpreters per tree, the trees taking turns")
    args = ap.parse_args()
    import os
    import statistics

    here = Path(__file__).resolve().parent.parent / "src"
    peer_src = args.peer_src or (git_src(args.baseline) if args.baseline else None)
    mine: list[float] = []
    peer: list[float] = []
    for _ in range(args.rounds):
        got, nbytes = measure(here, args.reps, args.runs)
        mine += got
        if peer_src is not None:
            got, peer_bytes = measure(peer_src, args.reps, args.runs)
            peer += got
    med = statistics.median(mine)
    print(f"this tree: the 4 state messages of a move: median {med:.3f} ms, {nbytes} bytes "
          f"(runs {', '.join(f'{x:.3f}' for x in mine)}); load average {os.getloadavg()[0]:.2f}")
    if peer_src is not None:
        pm = statistics.median(peer)
        name = args.peer_src or f"baseline {args.baseline}"
        print(f"{name}: median {pm:.3f} ms, {peer_bytes} bytes (runs {', '.join(f'{x:.3f}' for x in peer)})")
        print(f"ratio baseline / this tree: time {pm / med:.2f}x, bytes {peer_bytes / nbytes:.2f}x")


if __name__ == "__main__":
    main()
