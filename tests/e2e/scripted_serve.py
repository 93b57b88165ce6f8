"""``liars-dice serve`` with the browser tests' dice (issue 36, fault 10).

Usage: ``python tests/e2e/scripted_serve.py SEED serve [serve's options]``.

The real command, in this process, with one change: the app is made with
:class:`OpenerBeforeHost` dice, passed to ``create_app(dice=...)`` in-process.
That is the only way in: no setting, option, environment variable or request
of the server chooses its dice, so a served game's are always secure.

Why: a test that needs the host's turn with a standing bid, or a whole round
played by the host, got it only when the secure dice and the random opener
went its way, and retried (a fresh clone's CI failed 2 of 71 browser tests so:
"the game ended before a turn with a standing bid", and a round by keyboard
that ended before the host's turn). Here the seat before the host's opens the
first game, so the host's first turn faces that seat's bid, by construction.
"""

from __future__ import annotations

import sys

from liars_dice.engine import SeededDice


class OpenerBeforeHost:
    """A :class:`~liars_dice.engine.DiceSource` for tests: every die that is not
    a seed byte shows its highest face, so the first opener (a die of as many
    faces as seats) is the last seat, the one before the host's seat 0; every
    round seed (32 dice of 256 faces) comes from ``SeededDice(seed)``, so the
    fair-dice commitments stay valid and a run's server seeds are the same
    each time (a person's page still mixes in a seed of its own, docs/fair-dice.md)."""

    def __init__(self, seed: int) -> None:
        self._seeds = SeededDice(seed)

    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:
        if faces == 256:  # a seed's bytes (engine.seed_from_source)
            return self._seeds.roll(n, faces)
        return (faces,) * n


def main() -> None:
    import liars_dice.server as server
    from liars_dice.cli import main as cli_main

    seed = int(sys.argv[1])
    made = server.create_app

    def create_app(settings: server.Settings | None = None) -> object:
        return made(settings, dice=OpenerBeforeHost(seed))

    server.create_app = create_app  # type: ignore[assignment]  # what serve_command imports when it runs
    sys.argv = ["liars-dice", *sys.argv[2:]]
    cli_main()


if __name__ == "__main__":
    main()
