"""A whole game as a sequence of integer actions: the core every integration wraps.

A :class:`Position` is an engine :class:`~liars_dice.engine.State` plus what the
integer interface adds on top of it:

- chance one die at a time (outcome ``face - 1``), as OpenSpiel's
  ``liars_dice.cc`` deals: the deal of a round (seats in seating order, each
  seat's dice in turn) and every reroll after a show (seed 000 "The Show and
  Reroll Rule");
- a bid under show-and-reroll as two decisions of the same seat, the bid then
  the show (:mod:`liars_dice.engine.encoding`);
- each seat's perfect-recall information-state string, extended move by move
  (never rebuilt from the history, which would make every algorithm quadratic);
- :meth:`resample` for ISMCTS: the same information state for one seat, with
  every other seat's dice of the current round redrawn.

Payoff of the whole game (zero-sum, to the last player standing): +1 for the
winner and ``-1/(n-1)`` for each other seat, ``n`` the number of seats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import Bid, Challenge, Game, Phase, Rules, State
from ..engine.encoding import ActionEncoding, Show

#: ``current_player`` of a chance node and of a terminal position (OpenSpiel's ids).
CHANCE, TERMINAL = -1, -4


#: Under calza, a game is cut after this many rounds per die in play at the start
#: (then it ends as a draw, every return 0): a right calza gives a die back, so
#: without a cut no game length bound exists.
CALZA_ROUNDS_PER_DIE = 4


def round_sizes(rules: Rules, dice: Sequence[int]) -> list[int]:
    """Dice in play in each round of the longest game, as an upper bound.

    Without calza every round costs at least one die (lose one, or the
    difference, or a perfect bid, where the challenger always loses one even
    under Die Hard), so a game of ``N`` dice has at most one round with each of
    ``N, N-1, ..., 2`` dice in play; one round for a single-round game. Under
    calza the game is cut after ``CALZA_ROUNDS_PER_DIE * N`` rounds of at most
    ``N`` dice each."""
    total = sum(dice)
    if rules.single_round:
        return [total]
    if rules.calza:
        return [total] * (CALZA_ROUNDS_PER_DIE * total)
    return list(range(2, total + 1))


def game_length_bound(rules: Rules, dice: Sequence[int]) -> int:
    """A true upper bound on the decisions (player moves) of one game: a round
    with ``n`` dice in play has at most ``n*F`` bids (each raises), each followed
    by at most one show decision, and one challenge or calza."""
    per_bid = 2 if rules.show_and_reroll else 1
    return sum(n * rules.faces * per_bid + 1 for n in round_sizes(rules, dice))


def chance_bound(rules: Rules, dice: Sequence[int]) -> int:
    """A true upper bound on the chance events of one game: every die dealt in
    every round, plus at most ``max(dice) - 1`` rerolled dice after each bid."""
    reroll = max(dice) - 1 if rules.show_and_reroll else 0
    return sum(n + n * rules.faces * reroll for n in round_sizes(rules, dice))


@dataclass(frozen=True)
class Setup:
    """What every position of one game shares: rules, seats, encoding. Never
    copied (``__deepcopy__`` returns itself), as OpenSpiel clones states with
    ``deepcopy``."""

    game: Game
    encoding: ActionEncoding
    max_game_length: int
    max_chance: int
    max_rounds: int

    @staticmethod
    def create(rules: Rules, players: int, dice: int | None = None) -> "Setup":
        """:raises RulesError: for bad seats or dice."""
        enc = ActionEncoding.create(rules, players, dice)
        game = Game.create(rules, [f"p{i}" for i in range(players)], enc.dice)
        return Setup(
            game, enc, game_length_bound(rules, enc.dice), chance_bound(rules, enc.dice),
            max(1, len(round_sizes(rules, enc.dice))),
        )

    def __deepcopy__(self, memo: dict[int, object]) -> "Setup":
        return self

    @property
    def n_players(self) -> int:
        return self.game.n_players


class Position:
    """One game in progress, driven by integer actions. Mutable; :meth:`copy`
    is cheap (the engine state is immutable and shared).

    :ivar setup: the shared :class:`Setup`.
    :ivar state: the engine state.
    :ivar pending: the bid waiting for its show decision, or ``None``.
    :ivar info: per seat, its information-state string so far.
    """

    __slots__ = ("setup", "state", "pending", "faces", "info", "history", "round_index", "rounds", "start", "truncated")

    def __init__(self, setup: Setup, start: int = 0) -> None:
        self.setup = setup
        self.start = start
        self.state: State = setup.game.initial_state(start)
        self.pending: Bid | None = None
        self.faces: list[int] = []  # dice rolled so far in the pending deal or reroll
        self.info: list[str] = [f"p{p}" for p in range(setup.n_players)]
        self.history: list[int] = []  # every action so far, chance outcomes included
        self.round_index = 0  # where the current round starts in ``history``
        self.rounds = 0
        self.truncated = False  # cut as a draw after Setup.max_rounds rounds (calza only)

    def copy(self) -> "Position":
        other = Position.__new__(Position)
        other.setup = self.setup
        other.start = self.start
        other.state = self.state
        other.pending = self.pending
        other.faces = list(self.faces)
        other.info = list(self.info)
        other.history = list(self.history)
        other.round_index = self.round_index
        other.rounds = self.rounds
        other.truncated = self.truncated
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> "Position":
        return self.copy()

    # -- who moves ------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to decide, :data:`CHANCE` or :data:`TERMINAL`."""
        phase = self.state.phase
        if phase is Phase.BID:
            return self._mover()
        if phase is Phase.OVER or self.truncated:
            return TERMINAL
        return CHANCE

    def _mover(self) -> int:
        """The seat to move in the bid or reroll phase (the engine's ``to_move``)."""
        seat = self.state.to_move
        assert seat is not None, "no seat moves at the deal or after the game"
        return seat

    def is_terminal(self) -> bool:
        return self.state.phase is Phase.OVER or self.truncated

    def chance_seat(self) -> int:
        """Whose die the next chance outcome is (deal or reroll)."""
        st = self.state
        if st.phase is Phase.REROLL:
            return self._mover()
        i = len(self.faces)
        for seat, d in enumerate(st.dice):
            if i < d:
                return seat
            i -= d
        raise AssertionError("the deal is complete")  # pragma: no cover

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to move, ascending; ``[]`` at chance and terminal."""
        st = self.state
        if st.phase is not Phase.BID:
            return []
        enc = self.setup.encoding
        if self.pending is not None:
            return enc.legal_show_ids(st.hidden[self._mover()])
        return enc.legal_ids(st)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(face - 1, 1/F)`` for every face: one fair die."""
        f = self.setup.game.rules.faces
        return [(i, 1.0 / f) for i in range(f)]

    # -- moves ----------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply a chance outcome (``face - 1``) or a legal action id. The
        caller passes legal ids (as OpenSpiel guarantees); see :meth:`check`."""
        st = self.state
        self.history.append(action)
        phase = st.phase
        if phase is Phase.DEAL:
            self.faces.append(action + 1)
            if len(self.faces) == sum(st.dice):
                hands, i = [], 0
                for d in st.dice:
                    hands.append(tuple(self.faces[i : i + d]))
                    i += d
                self.faces = []
                self.state = st.deal(hands)
                self.rounds += 1
                dice = ",".join(map(str, st.dice))
                for p in range(len(self.info)):
                    own = "".join(map(str, sorted(hands[p])))
                    self.info[p] += f" |r{self.rounds} d{dice} h{own}"
            return
        if phase is Phase.REROLL:
            self.faces.append(action + 1)
            seat = self._mover()
            if len(self.faces) == len(st.hidden[seat]):
                faces, self.faces = tuple(self.faces), []
                self.state = st.reroll(faces)
                self.info[seat] += " rr" + "".join(map(str, sorted(faces)))
            return
        seat = self._mover()
        enc = self.setup.encoding
        if self.pending is not None:
            show = enc.decode(action)
            assert isinstance(show, Show)
            bid, self.pending = self.pending, None
            self.state = st.apply_unchecked(bid, show.faces)
            token = " s" + ("".join(map(str, show.faces)) or "-")
            for p in range(len(self.info)):
                self.info[p] += token
            return
        move = enc.decode(action)
        if isinstance(move, Bid):
            for p in range(len(self.info)):
                self.info[p] += f" {seat}:{move.quantity}x{move.face}"
            if enc.legal_show_ids(st.hidden[seat]):
                self.pending = move
            else:
                self.state = st.apply_unchecked(move)
            return
        # the challenge or calza: the round ends, every cup is revealed
        assert not isinstance(move, Show)  # a show id is decoded only while a bid is pending
        self.state = st.apply_unchecked(move)
        r = self.state.results[-1]
        reveal = "/".join("".join(map(str, sorted(h))) for h in r.revealed)
        word = "liar" if isinstance(move, Challenge) else "calza"
        for p in range(len(self.info)):
            self.info[p] += f" {seat}:{word} rev{reveal}"
        self.round_index = len(self.history)
        if self.state.phase is not Phase.OVER and self.rounds >= self.setup.max_rounds:
            self.truncated = True

    def check(self, action: int) -> None:
        """:raises ValueError: when ``action`` is not legal here (one sentence)."""
        if self.current_player() == CHANCE:
            if not isinstance(action, int) or not 0 <= action < self.setup.game.rules.faces:
                raise ValueError(f"{action!r} is not a die face outcome (0 to {self.setup.game.rules.faces - 1}).")
            return
        if self.is_terminal():
            raise ValueError("The game is over, so no action is legal.")
        if action not in self.legal_actions():
            raise ValueError(f"The action {action!r} is not legal here; the legal ids are {self.legal_actions()}.")

    # -- results --------------------------------------------------------------

    def returns(self) -> list[float]:
        """+1 for the winner, ``-1/(n-1)`` for each other seat; zeros before the
        end and for a game cut as a draw (:data:`CALZA_ROUNDS_PER_DIE`)."""
        n = self.setup.n_players
        winner = self.state.winner
        if winner is None:
            return [0.0] * n
        lose = -1.0 / (n - 1)
        return [1.0 if s == winner else lose for s in range(n)]

    # -- imperfect information ------------------------------------------------

    def resample_history(self, player: int, draw: Callable[[int], int]) -> list[int]:
        """The history of a world that ``player`` cannot tell from this one:
        every chance outcome of the current round that is another seat's die
        (dealt or rerolled) is redrawn with ``draw(F)`` (a face index
        ``0..F-1``), except the dice that seat shows later in the round, which
        the table saw (seed 000 "The Show and Reroll Rule"). Past rounds were
        revealed to all, so they stay. Costs one replay of the game."""
        shown: dict[int, list[int]] = {}
        for s, _, sh in self.state.bids:
            shown.setdefault(s, []).extend(sh)
        later: dict[int, list[int]] = {}  # per seat, faces it shows later in the round
        queue: dict[int, list[int]] = {}  # per seat, faces its next chance outcomes must bring
        out: list[int] = []
        other = Position(self.setup, self.start)
        f = self.setup.game.rules.faces
        for i, a in enumerate(self.history):
            if i >= self.round_index and other.current_player() == CHANCE:
                st = other.state
                seat = other.chance_seat()
                if not other.faces:  # the first die of a deal or of a reroll
                    if st.phase is Phase.DEAL:
                        later = {s: list(v) for s, v in shown.items()}
                        queue = {s: list(v) for s, v in shown.items()}
                    else:
                        rest = later.get(seat, [])
                        for face in st.bids[-1][2]:
                            rest.remove(face)
                        queue[seat] = list(rest)
                if seat != player:
                    q = queue.get(seat)
                    a = q.pop(0) - 1 if q else draw(f)
            out.append(a)
            other.apply(a)
        return out

    # -- text -----------------------------------------------------------------

    def observation_string(self, player: int, private: bool = True) -> str:
        """What ``player`` sees now (no history of past rounds): dice counts,
        own hidden dice (left out when not ``private``: the public
        observation), every shown die and this round's bids."""
        st = self.state
        dice = ",".join(map(str, st.dice))
        own = " h" + "".join(map(str, sorted(st.hidden[player]))) if private else ""
        shown = "/".join("".join(map(str, sorted(h))) for h in st.shown)
        bids = " ".join(f"{s}:{b.quantity}x{b.face}" for s, b, _ in st.bids)
        pend = f" {st.to_move}:{self.pending.quantity}x{self.pending.face}?" if self.pending else ""
        return f"p{player} d{dice}{own} sh{shown} [{bids}{pend}]"

    def __str__(self) -> str:
        """The whole position for a person (every cup): round, phase, dice per
        seat, hands (hidden+shown), this round's bids. At the end of a game, or
        when a game is cut, the last round instead: every revealed cup, its
        bids and the challenge or calza that ended it, with the count."""
        st = self.state
        if (st.phase is Phase.OVER or self.truncated) and st.results:
            r = st.results[-1]
            cups = " ".join(f"p{s}:{''.join(map(str, sorted(h)))}" for s, h in enumerate(r.revealed))
            bids = " ".join(f"{s}:{b.quantity}x{b.face}" for s, b, _ in r.bids)
            word = "calza" if r.calza else "liar"
            head = f"over, p{st.winner} wins" if st.phase is Phase.OVER else f"cut as a draw after round {self.rounds}"
            return (
                f"{head}; dice {list(st.dice)}; last round {self.rounds}: revealed {cups}; bids [{bids}]; "
                f"p{r.challenger}:{word} on p{r.bidder}'s {r.bid.quantity}x{r.bid.face}, count {r.count}"
            )
        hands = " ".join(
            f"p{s}:{''.join(map(str, st.hidden[s]))}{'+' + ''.join(map(str, st.shown[s])) if st.shown[s] else ''}"
            for s in range(len(st.dice))
        )
        bids = " ".join(f"{s}:{b.quantity}x{b.face}" for s, b, _ in st.bids)
        head = f"round {self.rounds} {st.phase.value}"
        if st.phase is Phase.OVER:
            head = f"over, p{st.winner} wins"
        pend = f" (p{st.to_move} bid {self.pending}, to choose a show)" if self.pending else ""
        return f"{head}; dice {list(st.dice)}; {hands}; bids [{bids}]{pend}"
