"""Liar's Dice: rules engine, game records, bots, solver and ways to play.

Layers, each importing only downward:

* :mod:`liars_dice.engine` - rules, state, views (imports nothing of the project)
* :mod:`liars_dice.records` - game records (RECORD-FORMAT.md) and replay
* :mod:`liars_dice.bots` - bots behind one interface (view -> decision)
* :mod:`liars_dice.cli` - the ``liars-dice`` command
"""

__version__ = "0.1.0"
