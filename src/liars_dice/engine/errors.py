"""The engine's error tree.

Every error is a :class:`ValueError` (as in python-chess), carries a stable
``code`` string for the network (as in boardgame.io's ``src/core/errors.ts``),
and a ``message`` that is one sentence a player would understand, naming the
rule broken. An engine call that raises leaves the state it was called on
unchanged: states are immutable.
"""

from __future__ import annotations


class LiarsDiceError(ValueError):
    """Base of every error the engine raises.

    :ivar code: stable machine-readable code, e.g. ``"action/illegal"``.
    """

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidBidError(LiarsDiceError):
    """Text that is not a bid or a challenge in any notation we read (bad syntax)."""

    code = "action/invalid_syntax"


class IllegalActionError(LiarsDiceError):
    """An action the rules forbid here: a bid that does not raise, a challenge
    with no bid, a quantity above the dice in play, a bad show."""

    code = "action/illegal"


class NotYourTurnError(IllegalActionError):
    """A seat acted when it was not its turn."""

    code = "action/inactive_player"


class GameOverError(IllegalActionError):
    """An action or a roll after the game has a winner."""

    code = "game/over"


class ChanceError(LiarsDiceError):
    """Dice supplied for a roll or reroll that do not fit: wrong number of dice,
    a face outside the die, a roll when none is due."""

    code = "chance/invalid"


class RulesError(LiarsDiceError):
    """A :class:`~liars_dice.engine.rules.Rules` value or a game set-up that does not make sense
    (unknown preset, too few players, a track ordering without a wild face)."""

    code = "rules/invalid"
