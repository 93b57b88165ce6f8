"""Liar's Dice: rules engine, game records, bots, solver and ways to play.

Layers, each importing only downward:

* :mod:`liars_dice.engine` - rules, state, views (imports nothing of the project)
* :mod:`liars_dice.records` - game records (RECORD-FORMAT.md) and replay
* :mod:`liars_dice.solver` - exact CFR+ solver, exploitability, endgame tables (``liars_dice.solve``)
* :mod:`liars_dice.bots` - bots behind one interface (view -> decision)
* :mod:`liars_dice.cli` - the ``liars-dice`` command
"""

__version__ = "0.1.0"


def __getattr__(name: str):  # lazy: `liars_dice.solve` without importing the solver at start-up
    if name == "solve":
        from .solver import solve

        return solve
    raise AttributeError(f"module 'liars_dice' has no attribute {name!r}")
