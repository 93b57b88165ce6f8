"""OpenSpiel: every rule set of ours as the Python game ``python_liars_dice_ld``
(registered with ``pyspiel.register_game`` on import), and OpenSpiel's ISMCTS and
MCCFR as bots for the arena (``openspiel:ismcts``, ``openspiel:mccfr:N``).

Needs the ``openspiel`` extra. See ``docs/integrations.md``.

>>> import pyspiel
>>> import liars_dice.integrations.openspiel  # registers the game
>>> game = pyspiel.load_game("python_liars_dice_ld", {"rules": "openspiel", "dice": 1})
>>> game.num_distinct_actions(), game.num_players()
(13, 2)
"""

from .game import SHORT_NAME, LiarsDiceGame, LiarsDiceObserver, LiarsDiceState, rules_from_param

__all__ = ["SHORT_NAME", "LiarsDiceGame", "LiarsDiceObserver", "LiarsDiceState", "rules_from_param"]
