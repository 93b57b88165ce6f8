"""Per-seat views: the only thing a bot, a client or a log ever receives.

A :class:`SeatView` holds what one seat may see (boardgame.io's ``playerView``):
its own hidden dice, every shown die, every dice count, this round's bids and
the public results of past rounds (their reveals). It never holds another
seat's hidden dice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action, Bid
from .rules import Rules
from .state import Hand, Phase, RoundResult, calza_allowed, legal_actions, legal_shows


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's information. Immutable.

    :ivar seat: whose view this is.
    :ivar hand: that seat's hidden faces.
    :ivar shown: every seat's shown faces this round.
    :ivar dice: every seat's dice count.
    :ivar bids: this round's bids, ``(seat, bid, shown faces)``.
    :ivar results: past rounds' public results, with every revealed cup.
    :ivar palifico: this round is a palifico round (RULES.md ``perudo``): no
        wilds, and the face is fixed except for players holding one die.
    :ivar start_dice: under rules with calza, every seat's starting dice count
        (public; the most a right calza brings a player back to); else ``()``.
    """

    rules: Rules
    players: tuple[str, ...]
    seat: int
    dice: tuple[int, ...]
    hand: Hand
    shown: tuple[Hand, ...]
    bids: tuple[tuple[int, Bid, Hand], ...]
    phase: Phase
    to_move: int | None
    wilds_active: bool
    results: tuple[RoundResult, ...]
    winner: int | None
    palifico: bool = False
    start_dice: tuple[int, ...] = ()

    @property
    def current_bid(self) -> Bid | None:
        return self.bids[-1][1] if self.bids else None

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice)

    @property
    def my_turn(self) -> bool:
        return self.phase is Phase.BID and self.to_move == self.seat

    @property
    def unknown_dice(self) -> int:
        """Dice this seat cannot see: every other seat's hidden dice."""
        return sum(self.dice) - len(self.hand) - sum(len(s) for s in self.shown)

    def legal_actions(self) -> list[Action]:
        """The legal actions when it is this seat's turn, else ``[]``."""
        if not self.my_turn:
            return []
        rules = self.rules
        if not (self.palifico or rules.calza):
            return legal_actions(rules, self.current_bid, self.dice_in_play)
        return legal_actions(
            rules, self.current_bid, self.dice_in_play, palifico=self.palifico,
            one_die=self.dice[self.seat] == 1, calza=calza_allowed(rules, self.dice),
        )

    def legal_shows(self) -> list[Hand]:
        """The shows this seat may add to a bid now (``()`` = none)."""
        if not self.my_turn or not self.rules.show_and_reroll:
            return [()]
        return legal_shows(self.hand)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, names instead of seat numbers. Holds nothing
        another seat keeps hidden."""
        names = self.players
        return {
            "rules": self.rules.name,
            "players": list(names),
            "seat": names[self.seat],
            "dice": {names[s]: d for s, d in enumerate(self.dice)},
            "hand": list(self.hand),
            "shown": {names[s]: list(h) for s, h in enumerate(self.shown) if h},
            "bids": [
                {"player": names[s], "bid": b.to_json(), **({"show": list(sh)} if sh else {})}
                for s, b, sh in self.bids
            ],
            "phase": self.phase.value,
            "to_move": names[self.to_move] if self.to_move is not None else None,
            "wilds_active": self.wilds_active,
            "results": [result_to_json(r, names) for r in self.results],
            "winner": names[self.winner] if self.winner is not None else None,
            **({"palifico": self.palifico} if self.rules.palifico else {}),
        }


@dataclass(frozen=True, slots=True)
class PublicView:
    """What anyone may see, with no seat: a spectator's view (boardgame.io's
    ``playerView`` with a ``null`` player). Every dice count, every shown die,
    this round's bids and the past rounds' public results; no hidden die of
    anyone. Build one with :meth:`of`.

    :ivar shown: every seat's shown faces this round.
    :ivar dice: every seat's dice count.
    :ivar bids: this round's bids, ``(seat, bid, shown faces)``.
    :ivar results: past rounds' public results, with every revealed cup.
    :ivar palifico: this round is a palifico round (as :class:`SeatView`).
    :ivar start_dice: under rules with calza, every seat's starting dice count; else ``()``.
    """

    rules: Rules
    players: tuple[str, ...]
    dice: tuple[int, ...]
    shown: tuple[Hand, ...]
    bids: tuple[tuple[int, Bid, Hand], ...]
    phase: Phase
    to_move: int | None
    wilds_active: bool
    results: tuple[RoundResult, ...]
    winner: int | None
    palifico: bool = False
    start_dice: tuple[int, ...] = ()

    @classmethod
    def of(cls, state: Any) -> "PublicView":
        """The public part of ``state`` (a :class:`~liars_dice.engine.State`)."""
        game = state.game
        return cls(
            game.rules, game.players, state.dice, state.shown, state.bids, state.phase, state.to_move,
            state.wilds_active, state.results, state.winner, state.palifico,
            game.dice if game.rules.calza else (),
        )

    @property
    def current_bid(self) -> Bid | None:
        return self.bids[-1][1] if self.bids else None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, in :meth:`SeatView.to_json`'s shape with ``seat``
        ``None`` and an empty ``hand`` (so one client reads both)."""
        names = self.players
        return {
            "rules": self.rules.name,
            "players": list(names),
            "seat": None,
            "dice": {names[s]: d for s, d in enumerate(self.dice)},
            "hand": [],
            "shown": {names[s]: list(h) for s, h in enumerate(self.shown) if h},
            "bids": [
                {"player": names[s], "bid": b.to_json(), **({"show": list(sh)} if sh else {})}
                for s, b, sh in self.bids
            ],
            "phase": self.phase.value,
            "to_move": names[self.to_move] if self.to_move is not None else None,
            "wilds_active": self.wilds_active,
            "results": [result_to_json(r, names) for r in self.results],
            "winner": names[self.winner] if self.winner is not None else None,
            **({"palifico": self.palifico} if self.rules.palifico else {}),
        }


def result_to_json(r: RoundResult, names: tuple[str, ...]) -> dict[str, Any]:
    """A round's public result in RECORD-FORMAT.md's result shape, plus the reveal."""
    return {
        "bid": r.bid.to_json(),
        "bidder": names[r.bidder],
        "challenger": names[r.challenger],
        "count": r.count,
        "lost": {names[s]: k for s, k in enumerate(r.lost) if k},
        "out": [names[s] for s in r.out],
        "next": names[r.next_opener] if r.next_opener is not None else None,
        "revealed": {names[s]: list(h) for s, h in enumerate(r.revealed) if h},
        **result_extras(r, names),
    }


def result_extras(r: RoundResult, names: tuple[str, ...]) -> dict[str, Any]:
    """The result fields only some rules have (RECORD-FORMAT.md, ``perudo``):
    ``"calza": true`` after a calza, ``gained`` after a right calza that
    brought a die back,
    ``"palifico": true`` for a palifico round; empty otherwise."""
    out: dict[str, Any] = {}
    if r.calza:
        out["calza"] = True
    if any(r.gained):
        out["gained"] = {names[s]: k for s, k in enumerate(r.gained) if k}
    if r.palifico:
        out["palifico"] = True
    return out
