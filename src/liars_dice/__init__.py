"""Liar's Dice: rules engine, game records, bots, solver and ways to play.

Layers, each importing only downward (``tests/test_layering.py``):

* :mod:`liars_dice.engine` - rules, state, views (imports nothing of the project)
* :mod:`liars_dice.records` - game records (RECORD-FORMAT.md) and replay
* :mod:`liars_dice.solver` - exact CFR+ solver, exploitability, endgame tables (``liars_dice.solve``)
* :mod:`liars_dice.bots` - bots behind one interface (view -> decision)
* :mod:`liars_dice.match` - the game loop between bots
* :mod:`liars_dice.protocol` - the bot protocol (JSON lines)
* :mod:`liars_dice.arena` - rated tournaments between bots
* :mod:`liars_dice.server` - ``liars-dice serve``, play in the browser
* :mod:`liars_dice.cli` - the ``liars-dice`` command
* :mod:`liars_dice.integrations` - adapters to other frameworks (OpenSpiel, Gymnasium, ...)

Layer: the root package; it imports nothing of the project at module level.

``__version__`` is the one place the version is written: the packaging metadata
(``pyproject.toml``, ``dynamic = ["version"]``) and ``liars-dice --version`` read it.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:  # lazy: `liars_dice.solve` without importing the solver at start-up
    if name == "solve":
        from .solver import solve

        return solve
    raise AttributeError(f"module 'liars_dice' has no attribute {name!r}")
