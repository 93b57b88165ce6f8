"""Integrations with the tools researchers use, the top layer (issue 10).

Each is an optional extra and is imported only on demand:

* :mod:`.textarena`: our presets as TextArena environments, and any TextArena
  agent as a bot-protocol program (``textarena`` extra).
* :mod:`.vector`: the batched engine as a Gymnasium vector environment
  (``gymnasium`` extra).
"""
