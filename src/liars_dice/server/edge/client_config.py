"""``GET /api/config``: the rule sets, bots and every limit a client needs,
read from the settings, so the page never hard-codes one."""

from __future__ import annotations

from typing import Any

from ...engine import PRESETS, SEED_PRESETS
from ...bots.names import levels_json
from ...engine.catalog import DEFAULT_PRESET, catalog_json
from ...engine.summary import CHOICE_WORDS, OPTION_LABELS
from ..core.config import Settings
from ..runtime.bots_runner import bot_kinds, default_bot


def config_json(settings: Settings) -> dict[str, Any]:
    """The ``GET /api/config`` answer for ``settings``."""
    s = settings
    return {
        "presets": {name: r.to_dict() for name, r in PRESETS.items()},
        "seed_presets": list(SEED_PRESETS),
        "option_choices": {
            "ordering": ["plain", "track", "half_up"], "loss": ["one", "difference"],
            "exact": ["challenger_loses", "all_but_bidder"], "next_opener": ["loser", "winner"],
        },
        "option_labels": OPTION_LABELS,
        "choice_words": CHOICE_WORDS,
        "bots": bot_kinds(),
        # names for people (issue 17): the rule sets by their names, with the
        # research presets marked (the table form hides them), the bots by level,
        # and the defaults the terminal uses too
        "catalog": catalog_json(),
        "levels": levels_json(),
        "default_preset": DEFAULT_PRESET,
        "default_bot": default_bot(),
        "seats": {"min": s.seats_min, "max": s.seats_max},
        "turn_timer": {"min": s.turn_timer_min, "max": s.turn_timer_max, "choices": list(s.turn_timer_choices)},
        "reveal_seconds": s.reveal_seconds,
        "limits": {
            "nickname_max": s.nickname_max, "chat_max": s.chat_max, "chat_history": s.chat_history,
            "message_max_bytes": s.max_message_bytes, "dice_per_player_max": s.dice_per_player_max,
            "grace": s.grace, "hello_timeout": s.hello_timeout,
            **s.limits(),
        },
    }
