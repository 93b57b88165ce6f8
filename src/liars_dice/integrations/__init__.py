"""Where researchers live: our rule sets in OpenSpiel, PettingZoo, Gymnasium and
TextArena (issue 10; ``docs/integrations.md``).

Layer: integrations, above cli: the top layer of the package. Each integration
is an optional extra and is imported on its own, so this package imports nothing:

- :mod:`liars_dice.integrations.openspiel` (extra ``openspiel``) registers the
  game ``python_liars_dice_ld`` with ``pyspiel.register_game``, and the OpenSpiel
  bots ``openspiel:ismcts`` and ``openspiel:mccfr:N`` as arena entrants;
- :mod:`liars_dice.integrations.openspiel.policies` (extra ``openspiel``): a
  solved policy as an OpenSpiel ``TabularPolicy``, any bot of ours as an
  OpenSpiel policy or ``pyspiel.Bot``;
- :mod:`liars_dice.integrations.pettingzoo` (extra ``pettingzoo``) holds ``env()``
  and registers the Gymnasium environment ``LiarsDice-v0``;
  :mod:`liars_dice.integrations.liars_dice_v0` gives it PettingZoo's module names
  (``env``, ``raw_env``, ``parallel_env``);
- :mod:`liars_dice.integrations.textarena` (extra ``textarena``): our presets as
  TextArena environments, and any TextArena agent as a bot-protocol program;
- :mod:`liars_dice.integrations.vector` (extra ``gymnasium``): the batched engine
  (:mod:`liars_dice.batch`) as a Gymnasium vector environment.

All of them number actions with :mod:`liars_dice.engine.encoding`.
"""
