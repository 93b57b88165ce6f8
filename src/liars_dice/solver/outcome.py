"""What a challenge does to a two-player position, read from the rule options.

This mirrors the challenge of :mod:`liars_dice.engine.state` for two seats with
no shown dice, as a function of the count alone, so the solver can build one
payoff per count instead of one per deal (a test checks it against the engine).
Sources: seed 000 "Losing Dice", "A Perfect Bid", "Die Hard"; seeds 003, 004;
RULES.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Exact, Loss, Opener, Rules


@dataclass(frozen=True, slots=True)
class Outcome:
    """The position after a challenge.

    :ivar dice: dice per player after the losses.
    :ivar winner: the game's winner (0 or 1) if the game is over, else ``None``.
    :ivar next_opener: who opens the next round, ``None`` when the game is over.
    :ivar round_winner: who won the challenge (the bidder on a true bid).
    """

    dice: tuple[int, int]
    winner: int | None
    next_opener: int | None
    round_winner: int


def challenge_outcome(
    rules: Rules, dice: tuple[int, int], bidder: int, quantity: int, count: int
) -> Outcome:
    """The result of player ``1 - bidder`` challenging ``bidder``'s bid of
    ``quantity`` when ``count`` dice match it."""
    challenger = 1 - bidder
    lost = [0, 0]
    if count < quantity:
        loser, winner = bidder, challenger
        lost[bidder] = 1 if rules.loss is Loss.ONE else quantity - count
    elif count > quantity or rules.exact is Exact.CHALLENGER_LOSES:
        loser, winner = challenger, bidder
        lost[challenger] = 1 if rules.loss is Loss.ONE else max(1, count - quantity)
    else:  # perfect bid: every player but the bidder loses one die (Die Hard spares no challenger)
        loser, winner = challenger, bidder
        lost[challenger] = 1
    after = (dice[0] - min(lost[0], dice[0]), dice[1] - min(lost[1], dice[1]))
    alive = [p for p in (0, 1) if after[p] > 0]
    if len(alive) == 1:
        return Outcome(after, alive[0], None, winner)
    if rules.single_round:
        return Outcome(after, winner, None, winner)
    side = loser if rules.next_opener is Opener.LOSER else winner
    return Outcome(after, None, side, winner)
