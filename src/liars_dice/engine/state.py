"""Game, state and transitions.

A :class:`Game` is an immutable factory: rules, seats, starting dice. A
:class:`State` is an immutable position; every transition returns a new state
and leaves the old one as it was, so an error raised by a transition never
changes anything. States share their unchanged tuples with their parents: there
is no deep copy per move.

Chance is explicit, as in OpenSpiel: a state in :attr:`Phase.DEAL` waits for
every player's roll and one in :attr:`Phase.REROLL` waits for a bidder's reroll
after a show. Supply the faces with :meth:`State.deal` / :meth:`State.reroll`,
or let a :class:`~liars_dice.engine.dice.DiceSource` roll them with
:meth:`State.roll`.

There is a checked way and a fast way to act: :meth:`State.apply` validates and
raises typed errors (people, records, the network); :meth:`State.apply_unchecked`
trusts its caller (bots and search, with actions from :meth:`State.legal_actions`).

Sources: the seeds and ``shared/RULES.md``; see :mod:`liars_dice.engine.rules`.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .actions import CALZA, CHALLENGE, Action, Bid, Calza, Challenge
from .dice import DiceSource
from .echo import echo
from .errors import ChanceError, GameOverError, IllegalActionError, NotYourTurnError, RulesError
from .rules import MAX_DICE_PER_PLAYER, Exact, Loss, Opener, Ordering, Rules, number_word

if TYPE_CHECKING:  # view.py imports this module
    from .view import SeatView

Hand = tuple[int, ...]


def most_dice(rules: Rules, start: Sequence[int]) -> tuple[int, ...]:
    """Per seat, the most dice it can ever hold, given the starting counts
    ``start``: its starting count, since dice are only lost; under
    :attr:`Rules.calza`, at least :attr:`Rules.dice_per_player`, the count a
    right calza brings a player back up to (RULES.md ``perudo`` "Calza", the
    ruling of 2026-12-01: a record that begins mid-game with a player at 2 dice
    still lets them regain up to 5).

    >>> most_dice(Rules.preset("perudo"), (3, 5, 6)), most_dice(Rules.preset("classic"), (3, 5))
    ((5, 5, 6), (3, 5))
    """
    if not rules.calza:
        return tuple(start)
    return tuple(max(d, rules.dice_per_player) for d in start)


class Phase(str, enum.Enum):
    """What a state waits for."""

    DEAL = "deal"  #: every player still in must roll (chance)
    BID = "bid"  #: ``to_move`` must bid or challenge
    REROLL = "reroll"  #: ``to_move`` showed dice and must reroll the rest (chance)
    OVER = "over"  #: the game has a winner


class Move(NamedTuple):
    """One move as a record holds it: the seat, its action, and for a bid
    with show-and-reroll the shown faces and the new faces of the rerolled dice.
    Immutable (a named tuple, so building one per move is cheap)."""

    seat: int
    action: Action
    show: Hand = ()
    reroll: Hand = ()


class RoundResult(NamedTuple):
    """What everyone learns when a challenge ends a round (public). Immutable.

    :ivar bids: the round's public moves as ``(seat, bid, shown faces)``.
    :ivar revealed: per seat, every die it held at the reveal (hidden and shown).
    :ivar lost: per seat, the dice lost (0 for most), capped at the dice held.
    :ivar out: seats eliminated in this round, in seat order.
    :ivar next_opener: the seat that opens the next round, ``None`` if the game is over.
    :ivar loser: the seat that lost the challenge (the challenger on a perfect
        bid, the caller of a wrong calza), ``None`` after a right calza.
    :ivar calza: the round ended by a calza (``challenger`` is its caller).
    :ivar gained: per seat, the dice gained (a right calza: one die for its
        caller, none when they already hold the rule set's dice per player).
    :ivar palifico: the round was a palifico round (RULES.md ``perudo``).
    """

    bid: Bid
    bidder: int
    challenger: int
    count: int  # type: ignore[assignment]  # the field shadows tuple.count on purpose: the public name of the count
    wilds_active: bool
    bids: tuple[tuple[int, Bid, Hand], ...]
    revealed: tuple[Hand, ...]
    lost: tuple[int, ...]
    out: tuple[int, ...]
    next_opener: int | None
    loser: int | None
    calza: bool = False
    gained: tuple[int, ...] = ()
    palifico: bool = False


class RoundLog(NamedTuple):
    """Everything needed to replay a round (god's-eye; never part of a view):
    the dealt faces and every move with its rerolls. Immutable."""

    deal: tuple[Hand, ...]
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class Game:
    """Rules plus seats: the factory of states.

    :ivar rules: the rule set.
    :ivar players: seat names in seating order, unique and non-empty.
    :ivar dice: starting dice per seat.
    :raises RulesError: for a seat count outside the rules' bounds, duplicate or
        empty names, or a starting count below 1.
    """

    rules: Rules
    players: tuple[str, ...]
    dice: tuple[int, ...]

    @staticmethod
    def create(rules: Rules, players: Sequence[str], dice: Sequence[int] | dict[str, int] | None = None) -> "Game":
        """Build a game; ``dice`` defaults to ``rules.dice_per_player`` each and may
        be a mapping from name to count.

        :raises RulesError: see :class:`Game`.
        """
        players = tuple(players)
        n = len(players)
        if not rules.min_players <= n <= rules.max_players:
            many = (
                f"exactly {rules.min_players}"
                if rules.min_players == rules.max_players
                else f"{rules.min_players} to {rules.max_players}"
            )
            raise RulesError(
                f"{rules.name} is played by {many} players, not {n}."
            )
        if len(set(players)) != n or any(not isinstance(p, str) or not p for p in players):
            raise RulesError("Player names must be unique, non-empty strings.")
        if not all(p.isprintable() for p in players):  # names reach terminals: no ESC, no bidi
            raise RulesError("Player names may hold only printable characters (no control, invisible or bidi characters).")
        if dice is None:
            counts = (rules.dice_per_player,) * n
        elif isinstance(dice, dict):
            unknown = set(dice) - set(players)
            if unknown:
                raise RulesError(f"{sorted(unknown)[0]!r} has dice but is not a player.")
            counts = tuple(dice.get(p, rules.dice_per_player) for p in players)
        else:
            counts = tuple(dice)
        if len(counts) != n or any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in counts):
            raise RulesError("Every player needs a whole, non-negative number of dice.")
        if any(c > MAX_DICE_PER_PLAYER for c in counts):
            raise RulesError(f"A player may start with at most {MAX_DICE_PER_PLAYER} dice.")
        if sum(1 for c in counts if c > 0) < 2:
            raise RulesError("At least two players must start with dice.")
        return Game(rules, players, counts)

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def most_dice(self) -> tuple[int, ...]:
        """Per seat, the most dice it can ever hold: :func:`most_dice` of the
        rules and the starting counts."""
        return most_dice(self.rules, self.dice)

    def seat(self, name: str) -> int:
        """Seat index of ``name``. :raises RulesError: for an unknown name."""
        try:
            return self.players.index(name)
        except ValueError:
            raise RulesError(f"{name!r} is not a player in this game.") from None

    def initial_state(self, start: int = 0) -> "State":
        """The state before the first roll, with seat ``start`` to open.

        If ``start`` has no dice, the next player still in after it opens.
        """
        key = (id(self), start)
        cached = _INITIAL.get(key)
        if cached is not None and cached[0] is self:  # states are immutable: share the first one
            return cached
        if not isinstance(start, int) or not 0 <= start < self.n_players:
            raise RulesError(f"There is no seat {start!r}.")
        empty: tuple[Hand, ...] = ((),) * self.n_players
        opener = start if self.dice[start] > 0 else next_alive(self.dice, start)
        state = State(self, self.dice, empty, empty, Phase.DEAL, opener, (), True, (), (), None, (), (), False, ())
        if len(_INITIAL) > _INITIAL_MAX:
            _INITIAL.clear()
        _INITIAL[key] = state  # the entry keeps the game alive, so its id is not reused meanwhile
        return state

    def position(
        self, dice: Sequence[int], opener: int, *, palifico: bool = False, palifico_used: Sequence[int] = (),
    ) -> "State":
        """A state waiting for the deal of a later round: ``dice`` held per seat
        now, ``opener`` to open, and the palifico facts (this round is palifico;
        the seats that have had theirs). For callers that rebuild a position from
        public facts (the bot protocol, the server); the starting counts stay
        :attr:`dice`.

        :raises RulesError: for counts of the wrong length, below 0, above
            :attr:`most_dice`, fewer than two players with dice, an opener with no
            dice, or a palifico round under rules without palifico.
        """
        dice = tuple(dice)
        n = self.n_players
        if len(dice) != n or any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in dice):
            raise RulesError(f"A position needs a whole, non-negative dice count for each of the {n} seats.")
        top = self.most_dice
        over = [s for s in range(n) if dice[s] > top[s]]
        if over:
            raise RulesError(f"{self.players[over[0]]} cannot hold more dice than {top[over[0]]}, the most they may hold in this game.")
        if sum(1 for d in dice if d) < 2:
            raise RulesError("At least two players must have dice for a round to be played.")
        if not isinstance(opener, int) or not 0 <= opener < n or not dice[opener]:
            raise RulesError(f"The opener must be a seat with dice, not {opener!r}.")
        if palifico and not self.rules.palifico:
            raise RulesError(f"{self.rules.name} has no palifico rounds.")
        used = tuple(sorted(set(palifico_used)))
        if any(not isinstance(s, int) or not 0 <= s < n for s in used):
            raise RulesError("palifico_used names seats of this game.")
        empty: tuple[Hand, ...] = ((),) * n
        return State(self, dice, empty, empty, Phase.DEAL, opener, (), True, (), (), None, (), (), palifico, used)


def next_alive(dice: tuple[int, ...], seat: int) -> int:
    """Next seat still in after ``seat``, walking the seating order (RULES.md
    "Next player still in after X").

    :param dice: dice held per seat; 0 means out.
    :raises RulesError: when nobody has dice.
    """
    n = len(dice)
    for k in range(1, n + 1):
        s = (seat + k) % n
        if dice[s] > 0:
            return s
    raise RulesError("No player has dice.")  # pragma: no cover - unreachable in a game


def _sub_multiset(hand: Hand, show: Hand) -> Hand | None:
    """``hand`` minus ``show`` as multisets, or ``None`` if ``show`` is not inside it."""
    rest = list(hand)
    for f in show:
        try:
            rest.remove(f)
        except ValueError:
            return None
    return tuple(rest)


def _show_shortfall(rules: Rules, hand: Hand, show: Hand) -> str:
    """The sentence for a show not inside ``hand``: it names a face the dice
    do not have, or else the first face
    shown more often than held (a new user, stop 27: "★, 5 are not all among
    3, 5, 3, 3, 6" named the 5 that was there). A face the dice do not have
    is never held, so it is told here, off the path of a legal show."""
    off = [f for f in show if not 1 <= f <= rules.faces]
    if off:
        which = ", ".join(map(str, off)) + (" is not a face" if len(off) == 1 else " are not faces")
        return f"{which} of these dice: a show names faces 1 to {rules.faces}."
    face = next(f for f in dict.fromkeys(show) if show.count(f) > hand.count(f))
    have, want = hand.count(face), show.count(face)
    held = ", ".join(rules.face_label(f) for f in hand)
    if have == 0:
        return f"Only your hidden dice can be shown: {held} hold no {rules.face_noun(face, False)}."
    return f"Only your hidden dice can be shown: {held} hold {rules.describe_bid(Bid(have, face))}, not {number_word(want)}."


class _StateFields(NamedTuple):
    """The fields of a :class:`State`, in order (documented there)."""

    game: Game
    dice: tuple[int, ...]
    hidden: tuple[Hand, ...]
    shown: tuple[Hand, ...]
    phase: Phase
    to_move: int | None
    bids: tuple[tuple[int, Bid, Hand], ...]
    wilds_active: bool
    results: tuple[RoundResult, ...]
    logs: tuple[RoundLog, ...]
    winner: int | None
    moves: tuple[Move, ...]
    deal_faces: tuple[Hand, ...] = ()
    palifico: bool = False
    palifico_used: tuple[int, ...] = ()


class State(_StateFields):
    """An immutable position. Build one with :meth:`Game.initial_state`.

    A state is a named tuple of its fields, so a transition builds the next
    state in one step and shares every unchanged tuple with its parent; there
    is no copy per move. Two states are equal when every field is equal (and
    a state never equals a plain tuple).

    :ivar game: the :class:`Game` (rules, seats, starting dice).
    :ivar dice: dice held per seat (hidden plus shown); 0 means out.
    :ivar hidden: per seat, the faces under the cup.
    :ivar shown: per seat, the faces set out in the open this round.
    :ivar phase: what the state waits for, see :class:`Phase`.
    :ivar to_move: the seat to bid or challenge (``BID``), the seat to reroll
        (``REROLL``), the next opener (``DEAL``), or ``None`` (``OVER``).
    :ivar bids: this round's bids as ``(seat, bid, shown faces)``, oldest first.
    :ivar wilds_active: whether the wild face counts for other faces this round;
        before the opening bid, whether the rules have a wild face at all (the
        opening may still suspend wilds, seed 004).
    :ivar results: every finished round's public result, oldest first.
    :ivar logs: every finished round's full log (dealt faces, rerolls), for records.
    :ivar winner: the winning seat once the game is over.
    :ivar moves: this round's moves with rerolls (god's-eye, for records).
    :ivar deal_faces: the faces dealt at this round's start (god's-eye, for records).
    :ivar palifico: this round (or, in :attr:`Phase.DEAL`, the round about to be
        dealt) is a palifico round: no wilds, a fixed face (RULES.md ``perudo``).
    :ivar palifico_used: seats that have triggered their one palifico round,
        ascending.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is State and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    # -- derived facts ------------------------------------------------------

    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def is_chance(self) -> bool:
        """Whether the state waits for dice (a deal or a reroll)."""
        phase = self.phase
        return phase is _DEAL or phase is _REROLL

    @property
    def current_bid(self) -> Bid | None:
        """The latest bid of this round, or ``None`` before the opening bid."""
        bids = self.bids
        return bids[-1][1] if bids else None

    @property
    def bidder(self) -> int | None:
        """The seat that made the latest bid."""
        bids = self.bids
        return bids[-1][0] if bids else None

    @property
    def dice_in_play(self) -> int:
        """Total dice held by every player; the highest legal bid quantity."""
        return sum(self.dice)

    @property
    def alive(self) -> tuple[int, ...]:
        """Seats still in, in seat order."""
        return tuple(s for s, d in enumerate(self.dice) if d > 0)

    def _winner_name(self) -> str:
        return self.game.players[self.winner] if self.winner is not None else "nobody"

    # -- chance -------------------------------------------------------------

    def deal(self, hands: Sequence[Sequence[int]]) -> "State":
        """Start a round with the given faces, one hand per seat (empty for seats out).

        :raises ChanceError: when no deal is due, a hand has the wrong number of
            dice, or a face lies outside the die.
        :raises GameOverError: when the game is over.
        """
        if self.phase is _OVER:
            raise GameOverError(f"The game is over ({self._winner_name()} won), so no more rounds are played.")
        if self.phase is not _DEAL:
            raise ChanceError("The dice are already rolled for this round.")
        if len(hands) != len(self.dice):
            raise ChanceError(f"A deal needs one hand for each of the {len(self.dice)} seats.")
        faces = self.rules.faces
        out: list[Hand] = []
        for seat, hand in enumerate(hands):
            hand = tuple(hand)
            if len(hand) != self.dice[seat]:
                held = self.dice[seat]
                raise ChanceError(
                    f"{self.game.players[seat]} holds {held} {'die' if held == 1 else 'dice'} "
                    f"but {len(hand)} {'face was' if len(hand) == 1 else 'faces were'} given."
                )
            for f in hand:
                if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= faces:
                    raise ChanceError(f"{f!r} is not a face of a {faces}-sided die.")
            out.append(hand)
        return self._dealt(tuple(out))

    def _dealt(self, hands: tuple[Hand, ...]) -> "State":
        game = self.game
        return _new(State, (
            game, self.dice, hands, _empty(len(hands)), _BID, self.to_move, (),
            game.rules.wild_face is not None and not self.palifico,
            self.results, self.logs, None, (), hands, self.palifico, self.palifico_used,
        ))

    def reroll(self, faces: Sequence[int]) -> "State":
        """Give the new faces of the rerolling seat's hidden dice after a show.

        :raises ChanceError: when no reroll is due, or for a wrong number of faces
            or a face outside the die.
        """
        if self.phase is not _REROLL:
            raise ChanceError("No reroll is due: only a bidder who just showed dice rerolls.")
        seat = self.to_move
        assert seat is not None
        faces = tuple(faces)
        need = len(self.hidden[seat])
        if len(faces) != need:
            raise ChanceError(
                f"{self.game.players[seat]} must reroll exactly {need} hidden "
                f"{'die' if need == 1 else 'dice'}, but {len(faces)} {'face was' if len(faces) == 1 else 'faces were'} given."
            )
        for f in faces:
            if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= self.rules.faces:
                raise ChanceError(f"{f!r} is not a face of a {self.rules.faces}-sided die.")
        return self._rerolled(faces)

    def _rerolled(self, faces: Hand) -> "State":
        seat = self.to_move
        assert seat is not None
        hidden = self.hidden[:seat] + (faces,) + self.hidden[seat + 1 :]
        moves = self.moves
        last = moves[-1]
        moves = moves[:-1] + (Move(last.seat, last.action, last.show, faces),)
        return _new(State, (
            self.game, self.dice, hidden, self.shown, _BID, next_alive(self.dice, seat), self.bids,
            self.wilds_active, self.results, self.logs, None, moves, self.deal_faces, self.palifico,
            self.palifico_used,
        ))

    def roll(self, source: DiceSource) -> "State":
        """Resolve the pending chance event (a deal or a reroll) from ``source``.

        :raises ChanceError: when the state does not wait for dice.
        :raises GameOverError: when the game is over.
        """
        phase = self.phase
        game = self.game
        faces = game.rules.faces
        if phase is _DEAL:
            # One draw for the whole deal, split seat by seat in seating order:
            # the same faces as rolling each seat's dice in turn.
            held = self.dice
            deal = _DEALS.get(held)
            if deal is None:
                deal = _deal_split(held)
            rolled = source.roll(deal[0], faces)
            each = deal[1]
            hands: tuple[Hand, ...]
            if each == 1:  # one die each: the 1-tuples of the draw
                hands = tuple(zip(rolled))
            elif each:  # the same number each: consecutive chunks of the draw
                draw = iter(rolled)
                hands = tuple(zip(*(draw,) * each))
            else:
                if rolled.__class__ is not tuple:
                    rolled = tuple(rolled)
                hands = tuple([rolled[cut] for cut in deal[3]])
            palifico = self.palifico
            return _new(State, (
                game, held, hands, deal[2], _BID, self.to_move, (), game.rules.wild_face is not None and not palifico,
                self.results, self.logs, None, (), hands, palifico, self.palifico_used,
            ))
        if phase is _REROLL:
            seat = self.to_move
            assert seat is not None  # a reroll is due from the bidder who showed
            return self._rerolled(tuple(source.roll(len(self.hidden[seat]), faces)))
        if phase is _OVER:
            raise GameOverError(f"The game is over ({self._winner_name()} won), so no more dice are rolled.")
        raise ChanceError("No dice are due: it is a player's turn to bid or challenge.")

    # -- actions ------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal bid in bid order, then the challenge where one is legal.
        Empty unless the phase is ``BID``. Shows are chosen separately
        (:meth:`legal_shows`). A fresh list each call (the caller may keep or
        change it); built from a cached bid ladder, so it costs one slice."""
        if self.phase is not _BID:
            return []
        rules = self.game.rules
        if self.palifico or rules.calza:
            n = sum(self.dice)
            assert self.to_move is not None  # a state in BID has a seat to move
            return legal_actions(
                rules, self.current_bid, n, palifico=self.palifico,
                one_die=self.dice[self.to_move] == 1, calza=calza_allowed(rules, self.dice),
            )
        # The round's ladder (the one-entry memo of _round_ladder, inlined) and
        # _after's slice: the hot path of a playout.
        last = _LAST_ROUND
        dice = self.dice
        lad = last[2] if last[0] is dice and last[1] is rules else _round_ladder(rules, dice)
        assert lad is not None
        bids = self.bids
        if not bids:
            return list(lad.opening)
        i = lad.by_id.get(id(bids[-1][1]))
        if i is None:
            return _after(lad, rules, bids[-1][1], False)
        actions = lad.bids[i + 1 :]
        actions.append(CHALLENGE)
        return actions

    def legal_shows(self) -> list[Hand]:
        """The distinct shows the player to move may add to a bid: ``()`` (none)
        and every sub-multiset of their hidden dice that leaves at least one die
        hidden, sorted. Only ``()`` when the rules have no show-and-reroll."""
        if self.phase is not _BID or not self.rules.show_and_reroll:
            return [()]
        assert self.to_move is not None
        return legal_shows(self.hidden[self.to_move])

    def is_legal(self, action: Action, show: Sequence[int] = ()) -> bool:
        """Whether :meth:`apply` would accept ``action`` with ``show``."""
        try:
            self.check(action, show)
        except IllegalActionError:
            return False
        return True

    def apply(self, action: Action, show: Sequence[int] = (), *, seat: int | None = None) -> "State":
        """The checked transition: bid (optionally showing dice) or challenge.

        A bid with a non-empty ``show`` moves the faces from the bidder's hidden
        dice into the open and leaves the state in :attr:`Phase.REROLL`, waiting
        for the reroll of the rest.

        :param seat: who is acting, when known; a mismatch raises.
        :raises NotYourTurnError: when ``seat`` is not the seat to move.
        :raises GameOverError: when the game is over.
        :raises IllegalActionError: when the action breaks a rule; the message
            names the rule (e.g. "two stars does not raise the bid of four 3s: ...").
        """
        show = tuple(show)
        # A quick yes for the common legal move (from the seat to move, no show,
        # outside a palifico round: the challenge of a standing bid, or a bid
        # from the cached ladder that outranks the current one); anything else
        # goes through check(), which names the rule broken. Never a yes that
        # check() would refuse.
        bids = self.bids
        if self.phase is not _BID or show or self.palifico or not (
            seat is None or type(seat) is int and seat == self.to_move
        ):
            self.check(action, show, seat=seat)
        elif action is CHALLENGE:
            if not bids:
                self.check(action, show, seat=seat)
        else:
            rules = self.game.rules
            lad = _round_ladder(rules, self.dice)
            i = lad.by_id.get(id(action))
            if i is None:
                self.check(action, show, seat=seat)
            elif bids:
                j = lad.by_id.get(id(bids[-1][1]))
                if j is None or lad.ranks[i] <= lad.ranks[j]:
                    self.check(action, show, seat=seat)
            elif not rules.wild_opening and type(action) is Bid and action.face == rules.wild_face:
                self.check(action, show, seat=seat)
        return self.apply_unchecked(action, show)

    def check(self, action: Action, show: Sequence[int] = (), *, seat: int | None = None) -> None:
        """Raise the typed error that :meth:`apply` would raise for ``action``
        with ``show``, naming the rule; return ``None`` when it is legal. The
        state is not changed (python-chess's ``is_legal``, with the reason).

        :raises NotYourTurnError: when ``seat`` is given and is not the seat to move.
        :raises GameOverError: when the game is over.
        :raises IllegalActionError: when the action or the show breaks a rule.
        """
        show = tuple(show)
        if self.phase is _OVER:
            raise GameOverError(f"The game is over ({self._winner_name()} won), so nobody moves any more.")
        names = self.game.players
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < len(names)):
            raise NotYourTurnError(f"There is no seat {seat!r} in this game.")
        if self.phase is not _BID:
            who = names[self.to_move] if self.to_move is not None else "a player"
            what = "the dice must be rolled" if self.phase is _DEAL else f"{who} must reroll"
            raise IllegalActionError(f"Nobody can bid yet: {what} first.")
        assert self.to_move is not None
        if seat is not None and seat != self.to_move:
            if self.dice[seat] == 0:
                raise NotYourTurnError(f"{names[seat]} is out of the game and never moves again.")
            raise NotYourTurnError(f"It is {names[self.to_move]}'s turn, not {names[seat]}'s.")
        rules = self.rules
        if isinstance(action, Challenge):
            if not self.bids:
                raise IllegalActionError("There is no bid to challenge yet: the opener must bid.")
            if show:
                raise IllegalActionError("Dice can only be shown right after a bid, not with a challenge.")
            return
        if isinstance(action, Calza):
            if not rules.calza:
                raise IllegalActionError(f"{rules.name} has no calza: raise the bid or challenge it.")
            if not self.bids:
                raise IllegalActionError("There is no bid to call exact yet: the opener must bid.")
            if not calza_allowed(rules, self.dice):
                left = sum(1 for d in self.dice if d)
                raise IllegalActionError(
                    f"Calza needs at least {rules.calza_min_players} players still in, and only {left} are left: "
                    "raise the bid or challenge it."
                )
            if show:
                raise IllegalActionError("Dice can only be shown right after a bid, not with a calza.")
            return
        if not isinstance(action, Bid):
            raise IllegalActionError(f"{echo(action)} is neither a bid nor a challenge.")
        q, f = action.quantity, action.face
        if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= rules.faces:
            raise IllegalActionError(f"A bid names a face from 1 to {rules.faces}, not {echo(f)}.")
        n = self.dice_in_play
        if not isinstance(q, int) or isinstance(q, bool) or not 1 <= q <= n:
            raise IllegalActionError(
                f"A bid's quantity runs from 1 to the {n} dice in play, so {echo(q)} is not allowed."
            )
        cur = self.current_bid
        if self.palifico:
            if cur is not None:
                message = palifico_raise_message(rules, cur, action, n, self.dice[self.to_move] == 1)
                if message:
                    raise IllegalActionError(message)
        elif cur is None:
            if not rules.wild_opening and f == rules.wild_face:
                noun = rules.face_noun(f)
                when = f" (only a palifico round may open on {noun})" if rules.palifico else ""
                raise IllegalActionError(f"A round cannot open on {noun}{when}: name another face.")
        elif rules.rank(q, f) <= rules.rank(cur.quantity, cur.face):
            raise IllegalActionError(raise_message(rules, cur, action, n))
        if show:
            if not rules.show_and_reroll:
                raise IllegalActionError(f"{rules.name} has no show-and-reroll: a bid cannot show dice.")
            hand = self.hidden[self.to_move]
            if len(show) > len(hand):
                raise IllegalActionError(
                    f"A show sets out some of your {len(hand)} hidden dice, not {len(show)} dice."
                )
            rest = _sub_multiset(hand, show)
            if rest is None:
                raise IllegalActionError(_show_shortfall(rules, hand, show))
            if not rest:
                raise IllegalActionError(
                    "A show must leave at least one hidden die to reroll, so it can set out at most "
                    f"{len(hand) - 1} of your {len(hand)} hidden dice."
                )

    def apply_unchecked(self, action: Action, show: Hand = ()) -> "State":
        """The fast transition for callers that pass an action from
        :meth:`legal_actions` (and a show from :meth:`legal_shows`). Undefined
        results for anything else."""
        seat = self.to_move
        assert seat is not None
        if type(action) is not Bid:  # the bid comes first: most moves are bids
            if isinstance(action, Challenge):
                return self._challenge(seat)
            if isinstance(action, Calza):
                return self._calza(seat)
            assert isinstance(action, Bid)
        bids = self.bids
        if bids or self.palifico:
            wilds = self.wilds_active
        else:
            wilds = self.game.rules.wilds_active_after_opening(action.face)
        bids = bids + ((seat, action, show),)
        if show:
            hidden = self.hidden
            rest = _sub_multiset(hidden[seat], show)
            assert rest is not None
            shown = self.shown
            return _new(State, (
                self.game, self.dice, hidden[:seat] + (rest,) + hidden[seat + 1 :],
                shown[:seat] + (shown[seat] + show,) + shown[seat + 1 :], _REROLL, seat, bids, wilds,
                self.results, self.logs, None, self.moves + (Move(seat, action, show),), self.deal_faces,
                self.palifico, self.palifico_used,
            ))
        dice = self.dice
        n = len(dice)
        nxt = seat + 1 if seat + 1 < n else 0
        if not dice[nxt]:
            nxt = next_alive(dice, seat)
        return _new(State, (
            self.game, dice, self.hidden, self.shown, _BID, nxt, bids, wilds,
            self.results, self.logs, None, self.moves + (_new(Move, (seat, action, (), ())),), self.deal_faces,
            self.palifico, self.palifico_used,
        ))

    def count(self, bid: Bid | None = None) -> int:
        """Dice matching ``bid`` (default: the current bid) under this round's
        wild rules, over every hidden and shown die."""
        bid = bid or self.current_bid
        assert bid is not None
        face = bid.face
        wild = self.game.rules.wild_face
        dice = sum(self.hidden, ())  # every die in one tuple (a few hands): the counts run in C
        shown = self.shown
        if any(shown):
            dice += sum(shown, ())
        if self.wilds_active and wild is not None and face != wild:
            return dice.count(face) + dice.count(wild)
        return dice.count(face)

    def _challenge(self, challenger: int) -> "State":
        game = self.game
        rules = game.rules
        bids = self.bids
        bidder, bid, _ = bids[-1]
        # self.count(bid), inlined (the hot path of a playout)
        face = bid.face
        wild = rules.wild_face
        hidden, shown = self.hidden, self.shown
        every = sum(hidden, ())
        any_shown = any(shown)
        if any_shown:
            every += sum(shown, ())
        c = every.count(face)
        if wild is not None and face != wild and self.wilds_active:
            c += every.count(wild)
        q = bid.quantity
        held = self.dice
        n = len(held)
        if c < q:
            loser, winner = bidder, challenger
            k = 1 if rules.loss is _ONE else q - c
        elif c > q or rules.exact is _CHALLENGER_LOSES:
            loser, winner = challenger, bidder
            k = 1 if rules.loss is _ONE else max(1, c - q)
        else:
            loser, winner, k = challenger, bidder, 0
        side = loser if rules.next_opener is _LOSER else winner
        if not k:  # perfect bid: everyone but the bidder loses one die
            die_hard = rules.die_hard
            lost_list = [0] * n
            for s in range(n):
                d = held[s]
                if s == bidder or d == 0:
                    continue
                if die_hard and d == 1 and s != challenger:
                    continue  # Die Hard (seed 000)
                lost_list[s] = 1
            lost = tuple(lost_list)
            new_dice = tuple([d - k for d, k in zip(held, lost)])
            gone = tuple([s for s in range(n) if held[s] and not new_dice[s]])
            alive = [s for s in range(n) if new_dice[s]]
            game_winner = alive[0] if len(alive) == 1 else (winner if rules.single_round else None)
            return self._end_round(CHALLENGE, challenger, c, new_dice, lost, gone, game_winner, side, loser, ())
        # One loser.
        d = held[loser]
        if k > d:
            k = d  # a loss is capped at the dice held
        left = d - k
        new_dice = held[:loser] + (left,) + held[loser + 1 :]
        zeros = _ZEROS[n] if n < 17 else (0,) * n
        lost = zeros[:loser] + (k,) + zeros[loser + 1 :]
        if left:
            out: tuple[int, ...] = ()
            game_winner = winner if rules.single_round else None
        else:
            out = (loser,)
            # the winner of the challenge holds dice, so if one seat is left it is theirs
            game_winner = winner if rules.single_round or new_dice.count(0) == n - 1 else None
        if game_winner is None and rules.palifico:  # the next round may be palifico
            return self._end_round(CHALLENGE, challenger, c, new_dice, lost, out, game_winner, side, loser, ())
        # The state after the round, as _end_round builds it (inlined: the commonest end of a round).
        if game_winner is None:
            next_opener: int | None = side if new_dice[side] else next_alive(new_dice, side)
            phase = _DEAL
        else:
            next_opener, phase = None, _OVER
        if any_shown:
            revealed = tuple([h + s if s else h for h, s in zip(hidden, shown)])
            shown = _empty(n)
        else:
            revealed = hidden
        result = _new(RoundResult, (
            bid, bidder, challenger, c, self.wilds_active, bids, revealed, lost, out, next_opener, loser,
            False, zeros, self.palifico,
        ))
        log = _new(RoundLog, (self.deal_faces, self.moves + (_new(Move, (challenger, CHALLENGE, (), ())),)))
        return _new(State, (
            game, new_dice, shown, shown, phase, next_opener, (), True,
            self.results + (result,), self.logs + (log,), game_winner, (), (), False, self.palifico_used,
        ))

    def _calza(self, caller: int) -> "State":
        """A calza (RULES.md ``perudo`` "Calza"): exact, the caller gains one
        die up to the rule set's :attr:`~Rules.dice_per_player` (the ruling of
        2026-12-01: "the starting count" is the same for every player, whatever
        they held when the record began) and nobody loses; else the caller
        loses one die. The caller opens the next round."""
        bid = self.bids[-1][1]
        c = self.count(bid)
        held = self.dice
        n = len(held)
        zeros = _zeros(n)
        if c == bid.quantity:
            k = 1 if held[caller] < self.game.rules.dice_per_player else 0
            gained = zeros[:caller] + (k,) + zeros[caller + 1 :]
            new_dice = held[:caller] + (held[caller] + k,) + held[caller + 1 :]
            return self._end_round(CALZA, caller, c, new_dice, zeros, (), None, caller, None, gained)
        left = held[caller] - 1
        new_dice = held[:caller] + (left,) + held[caller + 1 :]
        lost = zeros[:caller] + (1,) + zeros[caller + 1 :]
        out: tuple[int, ...] = ()
        game_winner = None
        if not left:
            out = (caller,)
            alive = [s for s in range(n) if new_dice[s]]
            game_winner = alive[0] if len(alive) == 1 else None
        return self._end_round(CALZA, caller, c, new_dice, lost, out, game_winner, caller, caller, zeros)

    def _end_round(
        self, action: Action, caller: int, c: int, new_dice: tuple[int, ...], lost: tuple[int, ...],
        out: tuple[int, ...], game_winner: int | None, side: int, loser: int | None, gained: tuple[int, ...],
    ) -> "State":
        """The state after a challenge or a calza: the result, the log, the next
        opener (``side``, or the next player still in after it) and, under the
        ``palifico`` option, whether the next round is palifico."""
        rules = self.game.rules
        bidder, bid, _ = self.bids[-1]
        n = len(new_dice)
        palifico = False
        used = self.palifico_used
        if game_winner is not None:
            next_opener = None
        else:
            next_opener = side if new_dice[side] > 0 else next_alive(new_dice, side)
            if rules.palifico and sum(1 for d in new_dice if d) > 2:
                held = self.dice
                for s in range(n):
                    if new_dice[s] == 1 and held[s] > 1 and s not in used:
                        palifico, next_opener = True, s
                        used = tuple(sorted(used + (s,)))
                        break
        hidden, shown = self.hidden, self.shown
        revealed = tuple([h + s if s else h for h, s in zip(hidden, shown)]) if any(shown) else hidden
        result = _new(RoundResult, (
            bid, bidder, caller, c, self.wilds_active, self.bids, revealed, lost, out, next_opener, loser,
            action is CALZA, gained or (_ZEROS[n] if n < 17 else (0,) * n), self.palifico,
        ))
        log = _new(RoundLog, (self.deal_faces, self.moves + (_new(Move, (caller, action, (), ())),)))
        empty = shown if not any(shown) else _empty(n)
        return _new(State, (
            self.game, new_dice, empty, empty, _OVER if game_winner is not None else _DEAL, next_opener, (), True,
            self.results + (result,), self.logs + (log,), game_winner, (), (), palifico, used,
        ))

    # -- views --------------------------------------------------------------

    def view(self, seat: int) -> "SeatView":
        """What ``seat`` may see: its own hidden dice, every shown die, every
        dice count, this round's bids, and past reveals. Never another seat's
        hidden dice, dealt faces or rerolls."""
        from .view import SeatView  # view.py imports this module

        game = self.game
        return SeatView(
            game.rules, game.players, seat, self.dice, self.hidden[seat], self.shown, self.bids,
            self.phase, self.to_move, self.wilds_active, self.results, self.winner, self.palifico,
            game.dice if game.rules.calza else (),
        )


_new = tuple.__new__
#: Per dice-held tuple: (dice in play, the dice each seat holds when all hold
#: the same number (else 0), the empty shown dice, a slice of the draw per seat).
_DEALS: dict[tuple[int, ...], tuple[int, int, tuple[Hand, ...], tuple[slice, ...]]] = {}


def _deal_split(held: tuple[int, ...]) -> tuple[int, int, tuple[Hand, ...], tuple[slice, ...]]:
    """How one draw of ``sum(held)`` faces splits into hands, cached per ``held``."""
    slices = []
    i = 0
    for d in held:
        slices.append(slice(i, i + d))
        i += d
    each = held[0] if held[0] > 0 and held.count(held[0]) == len(held) else 0
    if len(_DEALS) > 4096:
        _DEALS.clear()
    out = _DEALS[held] = (i, each, _empty(len(held)), tuple(slices))
    return out

_DEAL, _BID, _REROLL, _OVER = Phase.DEAL, Phase.BID, Phase.REROLL, Phase.OVER
_ONE, _CHALLENGER_LOSES, _LOSER = Loss.ONE, Exact.CHALLENGER_LOSES, Opener.LOSER
_EMPTY: dict[int, tuple[Hand, ...]] = {}
_INITIAL: dict[tuple[int, int], State] = {}
#: Games whose first state is kept (``Game.initial_state``). Each entry keeps
#: its game alive, and a server makes a new game for every game of every
#: table: 1,025 entries held about 1.2 MB that grew game by game until the
#: clear (issue 16, "RSS within 10% after a turnover"). A loop that replays
#: one game (arena, solver, bots) needs one entry.
_INITIAL_MAX = 64


def _zeros(n: int) -> tuple[int, ...]:
    """``(0,) * n``."""
    return _ZEROS[n] if n < len(_ZEROS) else (0,) * n


_ZEROS = tuple((0,) * i for i in range(17))


def _empty(n: int) -> tuple[Hand, ...]:
    """``((),) * n``, shared."""
    e = _EMPTY.get(n)
    if e is None:
        e = _EMPTY[n] = ((),) * n
    return e


class _Ladder:
    """Every bid with quantity 1..n under one rule set, in bid order (the
    bidding track for :attr:`Ordering.TRACK`), with each bid's position."""

    __slots__ = ("rules", "bids", "ranks", "pos", "by_id", "opening")

    def __init__(self, rules: Rules, n: int) -> None:
        rank = rules.rank
        bids = sorted(
            (Bid(q, f) for q in range(1, n + 1) for f in range(1, rules.faces + 1)),
            key=lambda b: rank(b.quantity, b.face),
        )
        self.rules = rules
        self.bids: list[Action] = list(bids)
        self.ranks = [rank(b.quantity, b.face) for b in bids]
        self.pos = {(b.quantity, b.face): i for i, b in enumerate(bids)}
        # The same positions by object: the ladder's own Bid objects (what
        # legal_actions hands out) are found without building a key. The
        # ladder keeps them alive, so no other object can take their ids.
        self.by_id = {id(b): i for i, b in enumerate(bids)}
        if rules.wild_opening:
            self.opening: tuple[Action, ...] = tuple(bids)
        else:  # no opening on the wild face (RULES.md ``perudo`` "Opening")
            self.opening = tuple(b for b in bids if b.face != rules.wild_face)


_LADDERS: dict[tuple[int, int], _Ladder] = {}


#: The ladder of the last round asked for: (its dice held, its rules, its ladder).
#: A round's states share one dice tuple, so a playout finds its ladder here
#: without hashing; rebound whole (never mutated), so threads read a consistent entry.
_LAST_ROUND: tuple[object, object, _Ladder | None] = (None, None, None)


def _round_ladder(rules: Rules, dice: tuple[int, ...]) -> _Ladder:
    """The ladder of a round with ``dice`` held per seat (the one of :func:`_ladder`)."""
    global _LAST_ROUND
    last = _LAST_ROUND
    if last[0] is dice and last[1] is rules:
        lad = last[2]
        assert lad is not None
        return lad
    lad = _ladder(rules, sum(dice))
    _LAST_ROUND = (dice, rules, lad)
    return lad


def _ladder(rules: Rules, n: int) -> _Ladder:
    """The cached ladder for ``(rules, n)``. Keyed by the rules' identity (a
    Rules value hashes slowly); the entry keeps the rules alive, so an id is
    never reused while its entry stands."""
    key = (id(rules), n)
    lad = _LADDERS.get(key)
    if lad is None or lad.rules is not rules:
        if len(_LADDERS) > 4096:
            _LADDERS.clear()
        lad = _LADDERS[key] = _Ladder(rules, n)
    return lad


def calza_allowed(rules: Rules, dice: Sequence[int]) -> bool:
    """Whether the rules allow a calza with these dice held per seat (the
    ``calza`` option and at least ``calza_min_players`` still in); a bid must
    also stand."""
    return rules.calza and sum(1 for d in dice if d) >= rules.calza_min_players


def legal_actions(
    rules: Rules, current: Bid | None, dice_in_play: int, *,
    palifico: bool = False, one_die: bool = False, calza: bool = False,
) -> list[Action]:
    """Every legal bid after ``current`` (any opening bid up to ``dice_in_play``
    when ``None``), in bid order, then the challenge when a bid stands, then
    the calza when ``calza`` is true and a bid stands. The one enumeration of
    legal actions: :meth:`State.legal_actions` and
    :meth:`SeatView.legal_actions <liars_dice.engine.view.SeatView.legal_actions>` delegate here.

    :param palifico: a palifico round (RULES.md ``perudo``): the opening may
        name any face, in plain order; a raise keeps the face unless
        ``one_die`` (the player to move holds one die), then plain order.
    :param calza: whether calza is allowed now (see :func:`calza_allowed`).

    A new list each call, sliced from a cached ladder of every bid.
    """
    if not palifico:
        return _after(_ladder(rules, dice_in_play), rules, current, calza)
    actions = _palifico_bids(rules, current, dice_in_play, one_die)
    if current is not None:
        actions.append(CHALLENGE)
        if calza:
            actions.append(CALZA)
    return actions


def _after(lad: _Ladder, rules: Rules, current: Bid | None, calza: bool) -> list[Action]:
    """:func:`legal_actions` outside a palifico round, on the ladder of the dice in play."""
    if current is None:
        return list(lad.opening)
    i = lad.by_id.get(id(current))
    if i is None:
        i = lad.pos.get((current.quantity, current.face))
        if i is None:  # a bid outside the ladder: find its place by rank
            i = bisect_right(lad.ranks, rules.rank(current.quantity, current.face)) - 1
    actions = lad.bids[i + 1 :]
    actions.append(CHALLENGE)
    if calza:
        actions.append(CALZA)
    return actions


def _palifico_bids(rules: Rules, current: Bid | None, n: int, one_die: bool) -> list[Action]:
    """Bids of a palifico round after ``current``: plain order (faces 1..faces,
    no conversions) for an opening or a one-die player; else the same face
    with a higher quantity."""
    faces = rules.faces
    if current is None:
        return [Bid(q, f) for q in range(1, n + 1) for f in range(1, faces + 1)]
    q0, f0 = current.quantity, current.face
    if not one_die:
        return [Bid(q, f0) for q in range(q0 + 1, n + 1)]
    same: list[Action] = [Bid(q0, f) for f in range(f0 + 1, faces + 1)]
    return same + [
        Bid(q, f) for q in range(q0 + 1, n + 1) for f in range(1, faces + 1)
    ]


def palifico_raise_message(rules: Rules, current: Bid, bid: Bid, dice_in_play: int, one_die: bool) -> str | None:
    """Why ``bid`` does not raise ``current`` in a palifico round, or ``None``
    when it does (RULES.md ``perudo`` "Palifico")."""
    new, old = rules.describe_bid(bid), rules.describe_bid(current)
    noun = rules.face_noun(current.face)
    if one_die:
        if (bid.quantity, bid.face) > (current.quantity, current.face):
            return None
        return (
            f"{new} does not raise the bid of {old}: in a palifico round with one die, raise the quantity, "
            "or keep it and name a higher face (1 is the lowest face, and nothing is wild)."
        )
    if bid.face != current.face:
        return (
            f"{new} does not raise the bid of {old}: in a palifico round the face stays {noun}, and only a "
            f"player holding one die may change it; raise the quantity of {noun}."
        )
    if bid.quantity > current.quantity:
        return None
    return f"{new} does not raise the bid of {old}: in a palifico round raise the quantity of {noun}."


def legal_shows(hand: Hand) -> list[Hand]:
    """``()`` plus every distinct sub-multiset of ``hand`` that leaves at least
    one die hidden, each sorted ascending."""
    if len(hand) < 2:
        return [()]
    counts = sorted(Counter(hand).items())
    out: list[Hand] = [()]

    def rec(i: int, acc: list[int]) -> None:
        if i == len(counts):
            if acc and len(acc) < len(hand):
                out.append(tuple(acc))
            return
        face, k = counts[i]
        for take in range(k + 1):
            rec(i + 1, acc + [face] * take)

    rec(0, [])
    return sorted(set(out), key=lambda s: (len(s), s))


def raise_message(rules: Rules, current: Bid, bid: Bid, dice_in_play: int) -> str:
    """One sentence saying why ``bid`` does not raise ``current``, naming the
    rule, and what would: e.g. "two stars does not raise the bid of four 3s: a
    bid on stars needs more than half the quantity of a bid on another face;
    the smallest bid on that face now is three stars." Faces are written with the
    rules' :attr:`~Rules.face_names`."""
    new, old = rules.describe_bid(bid), rules.describe_bid(current)
    lo = rules.min_raise_quantity(current.quantity, current.face, bid.face)
    noun = rules.face_noun(bid.face)
    if lo <= dice_in_play:
        hint = f"the smallest bid on that face now is {rules.describe_bid(Bid(lo, bid.face))}"
    else:
        hint = f"no bid on {noun} is high enough with {dice_in_play} dice in play, so name another face or challenge"
    wild = rules.wild_face
    converts = rules.ordering is not Ordering.PLAIN
    late = rules.ordering is Ordering.HALF_UP
    if converts and bid.face == wild and current.face == wild:
        rule = f"a bid on {rules.face_noun(wild)} must raise the quantity"
    elif converts and bid.face == wild:
        half = "at least half (rounded up)" if late else "more than half"
        rule = f"a bid on {rules.face_noun(wild)} needs {half} the quantity of a bid on another face"
    elif converts and current.face == wild:
        double = "more than double" if late else "at least double"
        rule = f"a bid on another face after {rules.face_noun(wild)} needs {double} the quantity"
    else:
        rule = "raise the quantity, or keep it and name a higher face"
    return f"{new} does not raise the bid of {old}: {rule}; {hint}."
