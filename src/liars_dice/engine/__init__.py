"""The rules engine: pure, deterministic, no I/O.

Layer: engine, the lowest (engine < records < solver < bots < match < protocol <
arena < server < cli < integrations); imports nothing else of the project.

>>> from liars_dice.engine import Game, Rules, Bid, CHALLENGE, SeededDice
>>> game = Game.create(Rules.preset("classic"), ["ann", "bob"])
>>> s = game.initial_state().roll(SeededDice(1))
>>> s = s.apply(Bid(2, 3))
>>> s.to_move
1
"""

from .actions import CALZA, CHALLENGE, Action, Bid, Calza, Challenge, parse_action
from .dice import (
    FAIR_DICE_VERSION,
    DiceSource,
    FairDice,
    FairRounds,
    ScriptedDice,
    SecureDice,
    SeededDice,
    commitment,
    mix_seeds,
    fair_deal,
    fair_face,
    fair_reroll,
    new_seed,
    seed_from_hex,
    seed_from_source,
)
from .errors import (
    ChanceError,
    GameOverError,
    IllegalActionError,
    InvalidBidError,
    LiarsDiceError,
    NotYourTurnError,
    RulesError,
)
from .odds import (
    bid_probability,
    binomial_pmf,
    binomial_tail,
    exact_probability,
    match_probability,
    view_bid_probabilities,
    view_bid_probability,
    view_exact_probability,
)
from .rules import (
    MAX_DICE_PER_PLAYER,
    MAX_PLAYERS,
    PERUDO,
    PRESETS,
    SEED_PRESETS,
    Exact,
    Loss,
    Opener,
    Ordering,
    Rules,
    number_word,
)
from .state import (
    Game,
    Hand,
    Move,
    Phase,
    RoundLog,
    RoundResult,
    State,
    calza_allowed,
    legal_actions,
    legal_shows,
    most_dice,
    next_alive,
    palifico_raise_message,
    raise_message,
)
from .view import PublicView, SeatView, result_extras, result_to_json

__all__ = [
    "FAIR_DICE_VERSION", "FairDice", "FairRounds", "commitment", "mix_seeds", "fair_deal", "fair_face", "fair_reroll", "new_seed",
    "seed_from_hex", "seed_from_source",
    "Action", "Bid", "CALZA", "CHALLENGE", "Calza", "Challenge", "PERUDO", "calza_allowed",
    "palifico_raise_message", "result_extras", "binomial_pmf", "exact_probability", "view_exact_probability", "ChanceError", "DiceSource", "Exact", "Game",
    "GameOverError", "Hand", "IllegalActionError", "InvalidBidError", "LiarsDiceError", "Loss",
    "MAX_DICE_PER_PLAYER", "MAX_PLAYERS", "Move", "NotYourTurnError", "Opener", "Ordering", "PRESETS", "Phase", "PublicView", "RoundLog", "RoundResult",
    "Rules", "RulesError", "SEED_PRESETS", "ScriptedDice", "SeatView", "SecureDice", "SeededDice",
    "State", "bid_probability", "binomial_tail", "legal_actions", "legal_shows", "match_probability", "most_dice", "next_alive",
    "number_word", "parse_action", "raise_message", "result_to_json", "view_bid_probabilities", "view_bid_probability",
]
