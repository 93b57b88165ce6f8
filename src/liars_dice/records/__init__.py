"""Game records: what PGN is to chess (``shared/RECORD-FORMAT.md``).

Layer: records, above engine; imports only :mod:`liars_dice.engine`.

A record replays to the same state it was written from:

>>> from liars_dice.engine import Game, Rules, SeededDice
>>> from liars_dice.bots import make_bot
>>> from liars_dice.match import play_game
>>> game = Game.create(Rules.preset("classic"), ["ann", "bob", "cy"])
>>> final = play_game(game, [make_bot("random", seat) for seat in range(3)], SeededDice(7))
>>> record = record_from_state(final)
>>> record["players"], len(record["rounds"])
(['ann', 'bob', 'cy'], 11)
>>> result = replay(record)
>>> result.ok, result.state == final
(True, True)
"""

from .fairness import FairDiceError, FairReport, FairRound, OwnSeed, own_seeds, verify_record
from .reading import MAX_RECORD_BYTES, read_record_bytes
from .replay import RecordError, Replay, parse_record, replay, round_result_json, rules_from_record
from .rules_file import MAX_RULES_BYTES, RulesFileError, load_rules, parse_rules_text, rules_schema
from .schema import FORMAT
from .writer import dumps_record, record_from_state

__all__ = [
    "FORMAT", "MAX_RECORD_BYTES", "read_record_bytes", "FairDiceError", "FairReport", "FairRound", "OwnSeed", "own_seeds", "verify_record", "RecordError", "Replay", "dumps_record", "parse_record", "record_from_state", "replay",
    "round_result_json", "rules_from_record", "MAX_RULES_BYTES", "RulesFileError", "load_rules",
    "parse_rules_text", "rules_schema",
]
