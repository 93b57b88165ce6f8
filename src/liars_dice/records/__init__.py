"""Game records: what PGN is to chess (``shared/RECORD-FORMAT.md``).

Imports only :mod:`liars_dice.engine`.
"""

from .replay import RecordError, Replay, parse_record, replay, round_result_json, rules_from_record
from .rules_file import MAX_RULES_BYTES, RulesFileError, load_rules, parse_rules_text, rules_schema
from .schema import FORMAT
from .writer import dumps_record, record_from_state

__all__ = [
    "FORMAT", "RecordError", "Replay", "dumps_record", "parse_record", "record_from_state", "replay",
    "round_result_json", "rules_from_record", "MAX_RULES_BYTES", "RulesFileError", "load_rules",
    "parse_rules_text", "rules_schema",
]
