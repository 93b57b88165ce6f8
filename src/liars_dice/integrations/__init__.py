"""Where researchers live: our rule sets as an OpenSpiel game, a PettingZoo AEC
environment and a Gymnasium environment (issue 10; ``docs/integrations.md``).

The top layer of the package. Each integration is an optional extra and is
imported on its own, so this package imports nothing:

- :mod:`liars_dice.integrations.openspiel` (extra ``openspiel``) registers the
  game ``python_liars_dice_ld`` with ``pyspiel.register_game``, and the OpenSpiel
  bots ``openspiel:ismcts`` and ``openspiel:mccfr:N`` as arena entrants;
- :mod:`liars_dice.integrations.pettingzoo` (extra ``pettingzoo``) holds ``env()``
  and registers the Gymnasium environment ``LiarsDice-v0``.

All of them number actions with :mod:`liars_dice.engine.encoding` and build
observations with :mod:`liars_dice.integrations.observation`.
"""
