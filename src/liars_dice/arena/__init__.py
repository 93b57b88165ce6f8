"""The arena: rated tournaments between bots (``liars-dice arena``).

* :mod:`.entrants`: bot specs (registered names, ``cmd:`` programs) and their names.
* :mod:`.seating`: seat rotation through every seating.
* :mod:`.run`: games in parallel, reproducible from a seed.
* :mod:`.stats`: Wilson intervals and openskill ratings.
* :mod:`.plot`: the win-rate chart.

Layer: arena, above protocol; imports engine, bots, match and protocol.
"""

from .entrants import COMMAND_PREFIX, Entrant, EntrantError, parse_entrants, split_specs
from .run import ArenaConfig, ArenaError, ArenaResult, Outcome, finishing_ranks, play_one, run_arena
from .seating import seating
from .stats import ratings, report, wilson

__all__ = [
    "COMMAND_PREFIX", "ArenaConfig", "ArenaError", "ArenaResult", "Entrant", "EntrantError", "Outcome",
    "finishing_ranks", "parse_entrants", "play_one", "ratings", "report", "run_arena", "seating",
    "split_specs", "wilson",
]
