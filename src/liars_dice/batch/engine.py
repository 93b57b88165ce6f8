"""The batched engine: B games of one rule set, stepped together as numpy arrays.

Every game in a batch has the same rules and seat count; each has its own
dice, bids and seat to move. A move for every game is one call to
:meth:`BatchGame.step` with a ``(B,)`` array of action numbers (see
:class:`~liars_dice.engine.encoding.ActionEncoding`, shared with the
OpenSpiel, PettingZoo and Gymnasium integrations); a finished game stays
finished (its action is ignored) until :meth:`BatchGame.reset` starts it again.

Chance is sampled inside: the deal at the start of every round, and the reroll
after a show, from the batch's :class:`numpy.random.Generator`.

Sources: the seeds and ``shared/RULES.md``, through the same
:class:`~liars_dice.engine.Rules` options as the scalar engine
(:mod:`liars_dice.engine.state`), which this module must agree with move for
move (``tests/test_batch.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from ..engine import Exact, IllegalActionError, Loss, Opener, Rules, RulesError, most_dice
from ..engine.encoding import ActionEncoding

#: Phases of a batched game (``BatchGame.phase``, int8).
BID, SHOW, OVER = 0, 1, 2

#: Largest table of precomputed legal masks (bytes); beyond it masks are computed.
MASK_TABLE_BYTES = 32 << 20

#: Most games one batch may hold (about 150 bytes of state each, so at most
#: some 600 MB; a legal mask takes ``n_actions`` more bytes per game).
MAX_BATCH = 1 << 22

#: The Rules options this engine reads; any other option that differs from its
#: default makes :class:`BatchGame` refuse the rules (so a new engine option is
#: never silently ignored here).
SUPPORTED_OPTIONS = frozenset({
    "name", "faces", "wild_face", "wilds_suspended_on_wild_opening", "ordering", "loss", "exact",
    "die_hard", "show_and_reroll", "next_opener", "dice_per_player", "min_players", "max_players",
    "star_symbol", "single_round", "face_names", "wild_opening", "calza", "calza_min_players", "palifico",
})


class UnsupportedRulesError(RulesError):
    """Rules with an option the batched engine cannot step yet; the message names it."""

    code = "batch/unsupported-rules"


@dataclass(frozen=True, slots=True)
class BatchStep:
    """What one :meth:`BatchGame.step` did, per game (B games, N seats).

    :ivar round_over: ``(B,)`` bool: a challenge or a calza ended the round.
    :ivar game_over: ``(B,)`` bool: the game ended in this step.
    :ivar count: ``(B,)`` int32: the count revealed, -1 where no round ended.
    :ivar loser: ``(B,)`` int32: the seat that lost the challenge (the
        challenger on a perfect bid, the caller of a wrong calza), -1 where
        none (and after a right calza).
    :ivar lost: ``(B, N)`` int8: dice lost by each seat in this step.
    :ivar winner: ``(B,)`` int32: the game's winner where ``game_over``, else -1.
    :ivar gained: ``(B, N)`` int8: dice gained by a right calza (RULES.md ``perudo``).
    """

    round_over: np.ndarray
    game_over: np.ndarray
    count: np.ndarray
    loser: np.ndarray
    lost: np.ndarray
    winner: np.ndarray
    gained: np.ndarray


class BatchGame:
    """B games of Liar's Dice as arrays.

    State (B games, N seats, F faces), public attributes read by observers;
    change them only through :meth:`reset` and :meth:`step`:

    :ivar dice: ``(B, N)`` int8: dice held per seat (hidden plus shown); 0 means out.
    :ivar hidden: ``(B, N, F)`` int8: per seat, how many hidden dice show each
        face (index ``f - 1``).
    :ivar shown: ``(B, N, F)`` int8: per seat, dice set out in the open this round.
    :ivar phase: ``(B,)`` int8: :data:`BID`, :data:`SHOW` (the bidder, after a
        bid, chooses which dice to show) or :data:`OVER`.
    :ivar to_move: ``(B,)`` int32: the seat to act (the bidder during a show),
        -1 when over.
    :ivar bid: ``(B,)`` int32: the current bid's action number, -1 before the
        opening bid and in a finished game (which keeps its last round's dice).
    :ivar bidder: ``(B,)`` int32 (a property): the seat that made the current
        bid, -1 before it.
    :ivar wilds_active: ``(B,)`` bool: whether the wild face counts for other
        faces this round (seed 004: not after an opening on the wild face;
        RULES.md ``perudo``: not in a palifico round).
    :ivar palifico: ``(B,)`` bool: this round is a palifico round (RULES.md ``perudo``).
    :ivar palifico_used: ``(B, N)`` bool: seats that have had their palifico round.
    :ivar total: ``(B,)`` int32: dice in play (the highest legal quantity).
    :ivar rounds: ``(B,)`` int32: rounds finished.
    :ivar winner: ``(B,)`` int32: the winning seat of a finished game, else -1.

    :param rules: the rule set of every game.
    :param players: seats per game, within the rules' bounds.
    :param batch: B, the number of games (1 to :data:`MAX_BATCH`).
    :param dice: starting dice per seat (1 to 100): one number for every
        seat, or one per seat; default ``rules.dice_per_player``.
    :param seed: seed or :class:`numpy.random.Generator` for deals and rerolls.
    :raises UnsupportedRulesError: for a rules option this engine cannot step.
    :raises RulesError: for a seat count outside the rules' bounds, a batch
        below 1, or bad starting dice.
    """

    def __init__(
        self,
        rules: Rules,
        players: int,
        batch: int,
        dice: int | Sequence[int] | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        default = Rules()
        for f in fields(rules):
            if f.name not in SUPPORTED_OPTIONS and getattr(rules, f.name) != getattr(default, f.name):
                raise UnsupportedRulesError(
                    f"The batched engine cannot yet play the rule option {f.name}={getattr(rules, f.name)!r}."
                )
        if not rules.min_players <= players <= rules.max_players:
            raise RulesError(f"{rules.name} is played by {rules.min_players} to {rules.max_players} players, not {players}.")
        if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= MAX_BATCH:
            raise RulesError(f"A batch holds from 1 to {MAX_BATCH:,} games, not {batch!r}.")
        start = [rules.dice_per_player] * players if dice is None else (
            [dice] * players if isinstance(dice, int) else list(dice)
        )
        if len(start) != players or any(not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 100 for d in start):
            raise RulesError(f"Each of the {players} seats needs a whole number of dice from 1 to 100.")
        self.rules = rules
        self.n_players = n = players
        self.batch = b = batch
        self.faces = nf = rules.faces
        self.start_dice = np.array(start, dtype=np.int8)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.encoding = enc = ActionEncoding.create(rules, players, start)
        self.n_actions = enc.num_actions
        self._tables()
        self.dice = np.zeros((b, n), np.int8)
        self.hidden = np.zeros((b, n, nf), np.int8)
        self.shown = np.zeros((b, n, nf), np.int8)
        self.phase = np.full(b, OVER, np.int8)
        self.to_move = np.full(b, -1, np.int32)
        self.bid = np.full(b, -1, np.int32)
        self.wilds_active = np.zeros(b, bool)
        self.palifico = np.zeros(b, bool)
        self.palifico_used = np.zeros((b, n), bool)
        self.total = np.zeros(b, np.int32)
        self.rounds = np.zeros(b, np.int32)
        self.winner = np.full(b, -1, np.int32)
        self._alive = np.zeros(b, np.int32)  # bit s set: seat s holds dice
        self._tw = np.full(b, self._over_row, np.int32)  # dice in play * (n_bids + 1): a row of the sampling tables
        self._n_over = b  # games in phase OVER
        self.reset()

    # -- tables ---------------------------------------------------------------

    def _tables(self) -> None:
        rules, enc, n, nf = self.rules, self.encoding, self.n_players, self.faces
        nb, na = enc.num_bids, enc.num_actions
        self._nb, self._ch = nb, enc.challenge
        self._cz = -2 if enc.calza is None else enc.calza  # -2 matches no action
        self._so = enc.show_offset
        if self._so is not None:  # every show as face counts (S, F) and its size (S,)
            self._show_counts = np.array([[s.count(f) for f in range(1, nf + 1)] for s in enc.shows], np.int8)
            self._show_size = self._show_counts.sum(axis=1, dtype=np.int32)
        # per action number, extended by one entry so that -1 (no bid / no
        # action) indexes harmlessly: quantity, face, rank (-1 below every bid)
        a = np.arange(na + 1)
        self._q_of = np.where(a < nb, a // nf + 1, 0).astype(np.int32)
        self._f_of = np.where(a < nb, a % nf + 1, 0).astype(np.int32)
        self._rank_of = np.array(
            [rules.rank(int(q), int(f)) if i < nb else -1 for i, (q, f) in enumerate(zip(self._q_of, self._f_of))],
            np.int64,
        )
        self._rank_of[na] = -1
        wild = rules.wild_face
        self._wild = -1 if wild is None else wild - 1
        self._suspend = rules.wilds_suspended_on_wild_opening
        # a bid the opening of a normal round may make (RULES.md perudo: not on the wild face)
        self._opens_ok = np.ones(na + 1, bool)
        if not rules.wild_opening:
            self._opens_ok[:nb] = self._f_of[:nb] != wild
        # Sampling tables, keyed by (dice in play T, current bid or "none" = nb):
        # the bids with quantity <= T in bid order form row T of the ladder, the
        # legal bids after the current one are a suffix of it, and the
        # challenge follows the last one. Openings have rows of their own.
        qmax, w = enc.max_dice, nb + 1
        self._width = w
        order = np.argsort(self._rank_of[:nb], kind="stable")
        q = self._q_of[:nb]
        ladder = np.full((qmax + 1, w), enc.challenge, np.int32)
        opening = np.full((qmax + 1, w), enc.challenge, np.int32)
        count = np.zeros((qmax + 1, w), np.int32)
        base = np.zeros((qmax + 1, w), np.int32)
        second = (qmax + 1) * w  # where the opening rows start
        for t in range(qmax + 1):
            rows = order[q[order] <= t]
            ladder[t, : len(rows)] = rows
            after = np.zeros(w, np.int32)
            after[rows] = np.arange(1, len(rows) + 1)  # the first legal place after each bid
            count[t] = len(rows) - after + 1  # legal bids, plus the challenge
            base[t] = t * w + after
            first = rows[self._opens_ok[rows]]
            opening[t, : len(first)] = first
            count[t, nb] = len(first)
            base[t, nb] = second + t * w
        # one more row of keys for a finished game: no legal action, sampled as -1
        self._over_row = second
        # per key: (first legal place, number of legal actions), as floats so
        # that floor(place + u * number) draws a place in one expression
        self._draw_base = np.concatenate([base.ravel(), np.full(w, 2 * second)]).astype(np.float64)
        self._draw_count = np.concatenate([count.ravel(), np.zeros(w)]).astype(np.float64)
        self._ladder_flat = np.concatenate([ladder.ravel(), opening.ravel(), np.full(w, -1)]).astype(np.int32)
        # The legal mask of a normal round's bid decision, per key: one gather
        # builds the whole (B, n_actions) mask. Kept while it stays small.
        self._mask_table = None
        if (second + w) * na <= MASK_TABLE_BYTES:
            table = np.zeros((qmax + 2, w, na), bool)
            cur = self._rank_of[np.r_[np.arange(nb), -1]]  # the current bid's rank per column (-1: none)
            for t in range(qmax + 1):
                bids = (self._rank_of[None, :nb] > cur[:, None]) & (q[None, :] <= t)
                bids[nb] &= self._opens_ok[:nb]
                table[t, :, :nb] = bids
                table[t, :nb, enc.challenge] = True
            self._mask_table = table.reshape((qmax + 2) * w, na)
        # seats still in as a bit mask: the next seat in after s, the one
        # before, and the seat that opens when s should (s itself if still in)
        nxt = np.zeros((1 << n, n), np.int32)
        prev = np.zeros((1 << n, n), np.int32)
        opens = np.zeros((1 << n, n), np.int32)
        for mask in range(1, 1 << n):
            for s in range(n):
                nxt[mask, s] = next(t for t in ((s + k) % n for k in range(1, n + 1)) if mask >> t & 1)
                prev[mask, s] = next(t for t in ((s - k) % n for k in range(1, n + 1)) if mask >> t & 1)
                opens[mask, s] = s if mask >> s & 1 else nxt[mask, s]
        self._next, self._prev, self._opens = nxt, prev, opens
        self._next_flat = nxt.ravel()
        self._popcount = np.array([bin(m).count("1") for m in range(1 << n)], np.int32)
        self._bits = (1 << np.arange(n)).astype(np.int32)
        self._rows = np.arange(self.batch)
        self._start_alive = int((self.start_dice > 0) @ self._bits)
        self._start_total = int(self.start_dice.sum())
        self._roll_tables()
        # _matches[2 * (F + 1)]: row (wilds active) * (F + 1) + bid face: 1 where a die face counts
        m = np.zeros((2, nf + 1, nf), np.int32)
        for active in (0, 1):
            for bf in range(1, nf + 1):
                for df in range(1, nf + 1):
                    m[active, bf, df - 1] = rules.matches(df, bf, bool(active))
        self._matches = m.reshape(2 * (nf + 1), nf)
        self._eye = np.eye(n, dtype=np.int32)
        self._start_rows = np.broadcast_to(self.start_dice, (self.batch, n))

    def _roll_tables(self) -> None:
        """Rolls of d dice (d = 0 .. the most one seat can hold) as one table of
        face counts: row ``offset[d] + r`` for each of the ``F**d`` equally
        likely ordered rolls ``r``. Used when it stays small (2**20 rows);
        otherwise dice are rolled one by one."""
        # a right calza may lift a seat above its start, to the rule set's dice per player (RULES.md ruling)
        nf, dmax = self.faces, max(1, *most_dice(self.rules, [int(d) for d in self.start_dice]))
        self._dmax = dmax
        if sum(nf**d for d in range(dmax + 1)) > 1 << 20:
            self._roll_table = None
            self._shift = (7 * np.arange(nf)).astype(np.int64)
            self._field = np.left_shift(np.int64(1), self._shift)
            self._slots = np.arange(dmax, dtype=np.int8)
            return
        parts, offsets = [], []
        at = 0
        for d in range(dmax + 1):
            r = np.arange(nf**d)
            digits = (r[:, None] // nf ** np.arange(d)) % nf  # (F**d, d): the ordered roll
            parts.append((digits[:, :, None] == np.arange(nf)).sum(axis=1).astype(np.int8))
            offsets.append(at)
            at += nf**d
        self._roll_table = np.concatenate(parts)
        self._roll_offset = np.array(offsets, np.int64)
        self._roll_size = np.array([float(nf**d) for d in range(dmax + 1)])
        self._start_size = self._roll_size[self.start_dice]  # (N,)
        self._start_offset = self._roll_offset[self.start_dice].astype(np.float64)  # (N,)

    # -- chance ---------------------------------------------------------------

    def _roll(self, counts: np.ndarray) -> np.ndarray:
        """Face counts ``(*counts.shape, F)`` int8 of rolling ``counts`` dice each,
        every die uniform over the faces: one ordered roll of all of a seat's
        dice drawn from the roll table (``floor(u * F**d)`` for a uniform
        double ``u``, so each roll has probability ``F**-d`` to within 2**-32),
        or without the table the dice one by one, summed as 7-bit fields of an
        int64."""
        out: np.ndarray
        if self._roll_table is not None:
            u = self.rng.random(counts.shape)
            out = self._roll_table[(u * self._roll_size[counts]).astype(np.int64) + self._roll_offset[counts]]
            return out
        faces = self.rng.integers(0, self.faces, (*counts.shape, self._dmax), dtype=np.int8)
        packed = np.where(self._slots < counts[..., None], self._field[faces], 0).sum(axis=-1)
        out = ((packed[..., None] >> self._shift) & 127).astype(np.int8)
        return out

    def _deal(
        self, idx: np.ndarray, dice: np.ndarray | None = None, total: np.ndarray | int | None = None, fresh: bool = False,
    ) -> None:
        """Start a round in games ``idx``: roll every seat's dice, clear the bids.
        ``dice`` and ``total`` are the games' (already stored) dice and dice in
        play, when the caller has them at hand; ``fresh``: they are the
        starting dice. The round's ``palifico`` flag is set by the caller."""
        if fresh and self._roll_table is not None:  # every game holds the starting dice: no lookups per seat
            u = self.rng.random((idx.size, self.n_players))
            self.hidden[idx] = self._roll_table.take((u * self._start_size + self._start_offset).astype(np.intp), axis=0)
        else:
            self.hidden[idx] = self._roll(self.dice[idx] if dice is None else dice)
        self.bid[idx] = -1
        self._tw[idx] = (self.total[idx] if total is None else total) * self._width
        if self.rules.palifico:
            self.wilds_active[idx] = (self._wild >= 0) & ~self.palifico[idx]
        else:
            self.wilds_active[idx] = self._wild >= 0
        if self._so is not None:
            self.shown[idx] = 0
        self.phase[idx] = BID

    def reset(self, games: np.ndarray | None = None, start: int | np.ndarray | None = None) -> None:
        """Start new games and deal their first round.

        :param games: a ``(B,)`` bool mask or an index array of the games to
            restart; default every game.
        :param start: the opener per restarted game (a seat, or an array); a
            seat that starts with no dice passes to the next seat still in.
            Default: a random seat for each game (RULES.md "The opener of the
            first round is chosen ... at random").
        :raises RulesError: for a seat that does not exist; nothing changes.
        """
        idx = self._rows if games is None else np.asarray(games)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        k = idx.size
        if k == 0:
            return
        n = self.n_players
        if start is not None:
            opener = np.broadcast_to(np.asarray(start), (k,))
            if np.any((opener < 0) | (opener >= n)):
                raise RulesError(f"There is no such seat: seats run from 0 to {n - 1}.")
        self._n_over -= int(np.count_nonzero(self.phase[idx] == OVER))
        self._restart(idx, None if start is None else opener)

    def _restart(self, idx: np.ndarray, opener: np.ndarray | None = None) -> None:
        """Start new games in ``idx`` (the opener a random seat by default)."""
        if opener is None:
            opener = (self.rng.random(idx.size) * self.n_players).astype(np.int32)
        self.dice[idx] = self.start_dice
        self._alive[idx] = self._start_alive
        self.total[idx] = self._start_total
        self.rounds[idx] = 0
        self.winner[idx] = -1
        if self.rules.palifico:
            self.palifico[idx] = False
            self.palifico_used[idx] = False
        self.to_move[idx] = self._opens[self._start_alive, opener]
        self._deal(idx, self._start_rows[: idx.size], self._start_total, fresh=True)

    # -- legal actions ----------------------------------------------------------

    def legal_mask(self) -> np.ndarray:
        """``(B, n_actions)`` bool: the legal actions of each game's seat to
        move (none for a finished game): in the bid phase every bid that
        raises the current one with quantity up to the dice in play (a normal
        round's opening not on the wild face without ``wild_opening``; in a
        palifico round plain order, keeping the face unless the player holds
        one die), the challenge once a bid stands, and the calza where the
        rules allow it; in a show decision (seed 000), every show of the
        bidder's hidden dice that keeps one hidden, ``()`` (none) included."""
        if self._mask_table is None:
            return self._legal_rows(self._rows)
        out = self._mask_table.take(self._tw + self.bid % self._width, axis=0)
        if self._cz >= 0:
            out[:, self._cz] = (self.bid >= 0) & self._calza_ok(self._rows) & (self.phase == BID)
        special = self._special()
        if special.size:
            out[special] = self._legal_rows(special)
        return out

    def _special(self) -> np.ndarray:
        """Games whose decision the tables do not cover: palifico rounds and shows."""
        special = np.zeros(0, np.int64)
        if self.rules.palifico:
            special = np.flatnonzero(self.palifico & (self.phase == BID))
        if self._so is not None:
            special = np.concatenate([special, np.flatnonzero(self.phase == SHOW)])
        return special

    def _legal_rows(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`legal_mask` for the games ``rows`` only: ``(len(rows), n_actions)``."""
        nb = self._nb
        out = np.zeros((rows.size, self.n_actions), bool)
        bidding = self.phase[rows] == BID
        bid = self.bid[rows]
        cur = self._rank_of[bid]
        bids = (self._rank_of[None, :nb] > cur[:, None]) & (self._q_of[None, :nb] <= self.total[rows, None]) & bidding[:, None]
        opening = bid < 0
        if not self.rules.wild_opening:
            bids &= self._opens_ok[None, :nb] | ~opening[:, None]
        if self.rules.palifico:
            pal = np.flatnonzero(self.palifico[rows] & bidding)
            if pal.size:  # plain order (the action number is the plain rank); the face kept unless one die
                g = rows[pal]
                b = self.bid[g]
                plain = (np.arange(nb)[None, :] > b[:, None]) & (self._q_of[None, :nb] <= self.total[g, None])
                keep = (b >= 0) & (self.dice[g, self.to_move[g]] != 1)
                plain &= ~keep[:, None] | (self._f_of[None, :nb] == self._f_of[b][:, None])
                bids[pal] = plain
        out[:, :nb] = bids
        out[:, self._ch] = bidding & ~opening
        if self._cz >= 0:
            out[:, self._cz] = self._calza_ok(rows) & bidding & ~opening
        if self._so is not None:
            showing = np.flatnonzero(self.phase[rows] == SHOW)
            if showing.size:
                g = rows[showing]
                out[showing, self._so :] = self._shows_of(self.hidden[g, self.to_move[g]])
        return out

    def _shows_of(self, hand: np.ndarray) -> np.ndarray:
        """``(k, S)`` bool: the shows each of ``k`` hands (face counts ``(k, F)``)
        may make: inside the hand, keeping at least one die hidden."""
        inside = (self._show_counts[None, :, :] <= hand[:, None, :]).all(axis=2)
        out: np.ndarray = inside & (self._show_size[None, :] < hand.sum(axis=1, dtype=np.int32)[:, None])
        return out

    def _calza_ok(self, rows: np.ndarray) -> np.ndarray:
        """Whether enough players are still in for a calza (RULES.md ``perudo``)."""
        out: np.ndarray = self._popcount[self._alive[rows]] >= self.rules.calza_min_players
        return out

    def is_legal(self, actions: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: whether each game's action is legal; a finished
        game's action never is. O(B) outside palifico rounds, without building
        the mask."""
        a = np.asarray(actions)
        nb = self._nb
        bidding = self.phase == BID
        opening = self.bid < 0
        ab = np.where((a >= 0) & (a < nb), a, -1)
        ok = bidding & (ab >= 0) & (self._rank_of[ab] > self._rank_of[self.bid]) & (self._q_of[ab] <= self.total)
        if not self.rules.wild_opening:
            ok &= self._opens_ok[ab] | ~opening
        ok |= bidding & (a == self._ch) & ~opening
        if self._cz >= 0:
            ok |= bidding & (a == self._cz) & ~opening & self._calza_ok(self._rows)
        if self.rules.palifico:
            pal = np.flatnonzero(self.palifico & bidding)
            if pal.size:
                mask = self._legal_rows(pal)
                inside = (a[pal] >= 0) & (a[pal] < self.n_actions)
                ok[pal] = inside & mask[np.arange(pal.size), np.clip(a[pal], 0, self.n_actions - 1)]
        if self._so is not None:
            showing = np.flatnonzero(self.phase == SHOW)
            if showing.size:
                s = a[showing] - self._so
                inside = (s >= 0) & (s < len(self._show_size))
                hand = self.hidden[showing, self.to_move[showing]]
                fits = self._shows_of(hand)[np.arange(showing.size), np.clip(s, 0, len(self._show_size) - 1)]
                ok[showing] = inside & fits
        out: np.ndarray = ok
        return out

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """``(B,)`` int32: one legal action per game, uniformly at random among
        its legal actions (-1 for a finished game). O(B) outside palifico
        rounds and shows: bids are drawn by their place in the bid order,
        without building the mask."""
        u = (rng or self.rng).random(self.batch)
        key = self._tw + self.bid % self._width  # no bid (-1): the last column
        base, count = self._draw_base.take(key), self._draw_count.take(key)
        if self._cz >= 0:  # one more option, drawn as the place just past the challenge
            extra = (self.bid >= 0) & self._calza_ok(self._rows)
            k = (u * (count + extra)).astype(np.int64)
            out = self._ladder_flat.take(base.astype(np.int64) + np.minimum(k, np.maximum(count - 1, 0).astype(np.int64)))
            out = np.where(extra & (k == count), self._cz, out).astype(np.int32)
        else:
            out = self._ladder_flat.take((base + u * count).astype(np.intp))
        special = self._special()
        if special.size:  # draw from the mask
            mask = self._legal_rows(special)
            pick = (u[special] * mask.sum(axis=1)).astype(np.int64)
            out[special] = (np.cumsum(mask, axis=1) > pick[:, None]).argmax(axis=1)
        result: np.ndarray = out
        return result

    # -- transitions -------------------------------------------------------------

    def step(self, actions: np.ndarray, check: bool = True, autoreset: bool = False) -> BatchStep:
        """Apply one action in every game still going (finished games ignore theirs).

        :param actions: ``(B,)`` integer action numbers (anything, e.g. -1, for
            a finished game).
        :param check: verify every action is legal first; without it an
            illegal action gives undefined results.
        :param autoreset: a game that ends is restarted at once, as
            :meth:`reset` with a random opener would (the result still reports
            its end and winner).
        :returns: what happened, see :class:`BatchStep`.
        :raises IllegalActionError: when ``check`` and some game's action is
            illegal; the message names the first such game; nothing changes.
        """
        a = np.asarray(actions)
        if a.shape != (self.batch,):
            raise IllegalActionError(f"step needs one action per game: an array of shape ({self.batch},), not {a.shape}.")
        live = self.phase != OVER if (check or self._n_over) else None
        if check:
            bad = np.flatnonzero(live & ~self.is_legal(a))
            if bad.size:
                g = int(bad[0])
                raise IllegalActionError(f"Action {int(a[g])} is not legal in game {g}; no game was changed.")
        b, n = self.batch, self.n_players
        if self._n_over:
            assert live is not None
            a = np.where(live, a, -1)
        flags = np.zeros((2, b), bool)
        ints = np.full((3, b), -1, np.int32)
        per_seat = np.zeros((2, b, n), np.int8)
        result = BatchStep(flags[0], flags[1], ints[0], ints[1], per_seat[0], ints[2], per_seat[1])
        shows = self._so is not None
        simple = not (shows or self._cz >= 0 or self._n_over)
        is_bid = (a < self._ch) if simple else (a >= 0) & (a < self._nb)
        ci = np.flatnonzero(a == self._ch)
        ki = np.flatnonzero(a == self._cz) if self._cz >= 0 else ci[:0]
        si = np.flatnonzero(a >= self._so) if shows else ci[:0]
        self._bids(is_bid, a)
        if ci.size:
            self._challenge(ci, result, autoreset)
        if ki.size:
            self._calza(ki, result, autoreset)
        if si.size:  # seed 000: the shown dice go out in the open, the rest are rerolled
            seat = self.to_move[si]
            show = self._show_counts[a[si] - self._so]
            self.hidden[si, seat] -= show
            self.shown[si, seat] += show
            rr = self._show_size[a[si] - self._so] > 0
            if rr.any():
                g, s = si[rr], seat[rr]
                self.hidden[g, s] = self._roll(self.hidden[g, s].sum(axis=1, dtype=np.int32))
            self.phase[si] = BID
            self.to_move[si] = self._next[self._alive[si], seat]
        return result

    def _bids(self, is_bid: np.ndarray, a: np.ndarray) -> None:
        """Bids, in every game where ``is_bid`` (whole-batch arrays: most moves are bids)."""
        seat = self.to_move
        if self._wild >= 0 and self._suspend:  # seed 004: an opening on the wild face suspends wilds
            opening = is_bid & (self.bid < 0)
            if self.rules.palifico:
                opening &= ~self.palifico
            np.copyto(self.wilds_active, self._f_of[a] != self._wild + 1, where=opening)
        np.copyto(self.bid, a, where=is_bid)
        nxt = self._next_flat.take(self._alive * self.n_players + seat)  # seat -1 (a finished game): harmless
        if self._so is not None:  # seed 000: a show decision while two or more dice are hidden
            can = is_bid & (self.hidden[self._rows, np.maximum(seat, 0)].sum(axis=1, dtype=np.int32) >= 2)
            np.copyto(self.phase, SHOW, where=can)
            np.copyto(self.to_move, nxt, where=is_bid & ~can)
        else:
            np.copyto(self.to_move, nxt, where=is_bid)

    def _count(self, ci: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The current bid's quantity and the count, ``(m,)`` each, in games ``ci``."""
        a = self.bid[ci]
        q = self._q_of[a]
        counts = self._matches.take(self.wilds_active[ci] * (self.faces + 1) + self._f_of.take(a), axis=0)  # (m, F): which faces count
        dice = self.hidden[ci].astype(np.int32)  # (m, N, F)
        if self._so is not None:
            dice += self.shown[ci]
        return q, np.einsum("msf,mf->m", dice, counts)

    def _challenge(self, ci: np.ndarray, out: BatchStep, autoreset: bool) -> None:
        rules = self.rules
        m = ci.size
        rows = self._rows[:m]
        challenger = self.to_move[ci]
        bidder = self._prev[self._alive[ci], challenger]  # play passed from the bidder to the challenger
        q, c = self._count(ci)
        under = c < q
        lose = np.where(under, bidder, challenger)
        win = np.where(under, challenger, bidder)
        held = self.dice[ci]  # (m, N) int8
        new = held.astype(np.int32)
        if rules.loss is Loss.ONE:
            new -= self._eye[lose]
        else:  # seed 000: the difference, at least one, capped at the dice held
            k = np.where(under, q - c, np.maximum(1, c - q))
            new[rows, lose] = np.maximum(new[rows, lose] - k, 0)
        if rules.exact is Exact.ALL_BUT_BIDDER:
            pi = np.flatnonzero(c == q)
            if pi.size:  # the perfect bid: everyone but the bidder loses one die (seed 000)
                seats = np.arange(self.n_players)[None, :]
                d = held[pi].astype(np.int32)
                hit = (d > 0) & (seats != bidder[pi, None])
                if rules.die_hard:  # Die Hard: a last die is kept, unless by the challenger
                    hit &= ~((d == 1) & (seats != challenger[pi, None]))
                new[pi] = d - hit
        out.round_over[ci] = True
        out.count[ci] = c
        out.loser[ci] = lose
        out.lost[ci] = held - new
        if rules.single_round:  # every challenge ends the game, won by the challenge's winner
            out.game_over[ci] = True
            out.winner[ci] = win
            if autoreset:
                self._restart(ci)
            else:
                self.dice[ci] = new
                self.total[ci] = new.sum(axis=1)
                self.rounds[ci] += 1
                self._finish(ci, win)
            return
        # the last player with dice is the challenge's winner: they lose no die
        side = lose if rules.next_opener is Opener.LOSER else win
        self._close_round(ci, held, new, side, win, out, autoreset)

    def _calza(self, ki: np.ndarray, out: BatchStep, autoreset: bool) -> None:
        """A calza (RULES.md ``perudo`` "Calza"): exact, the caller gains one die
        up to the rule set's dice per player (the ruling of 2026-12-01) and nobody loses; else the caller loses one
        die. The caller opens the next round."""
        caller = self.to_move[ki]
        q, c = self._count(ki)
        exact = c == q
        held = self.dice[ki]
        one = self._eye[caller]
        gain = exact & (held[self._rows[: ki.size], caller] < self.rules.dice_per_player)
        new = held.astype(np.int32) + one * gain[:, None] - one * ~exact[:, None]
        out.round_over[ki] = True
        out.count[ki] = c
        out.loser[ki] = np.where(exact, -1, caller)
        out.lost[ki] = np.maximum(held - new, 0)
        out.gained[ki] = np.maximum(new - held, 0)
        alive_after = (new > 0).argmax(axis=1)  # the winner, if only one is left
        self._close_round(ki, held, new, caller, alive_after, out, autoreset)

    def _close_round(
        self, ci: np.ndarray, held: np.ndarray, new: np.ndarray, side: np.ndarray, win: np.ndarray,
        out: BatchStep, autoreset: bool,
    ) -> None:
        """After a challenge or calza in games ``ci``: the new dice, the game's end
        (won by ``win`` when one player is left), else the next opener (``side``,
        or the next player still in after it), a palifico round under that
        option, and the next deal."""
        m = ci.size
        alive = ((new > 0) * self._bits).sum(axis=1, dtype=np.int32)
        n_alive = self._popcount[alive]
        over = n_alive == 1
        self.dice[ci] = new
        self._alive[ci] = alive
        self.total[ci] = new.sum(axis=1)
        self.rounds[ci] += 1
        done = ci[over]
        if done.size:
            out.game_over[done] = True
            out.winner[done] = win[over]
            if autoreset:
                self._restart(done)
            else:
                self._finish(done, win[over])
        if done.size == m:
            return
        going = ~over
        g = ci[going]
        opener = self._opens[alive[going], side[going]]
        if self.rules.palifico:  # the first player down to one die, with more than two in (RULES.md perudo)
            cand = (new[going] == 1) & (held[going] > 1) & ~self.palifico_used[g] & (n_alive[going] > 2)[:, None]
            has = cand.any(axis=1)
            seat = cand.argmax(axis=1)
            opener = np.where(has, seat, opener)
            self.palifico[g] = has
            self.palifico_used[g[has], seat[has]] = True
        self.to_move[g] = opener
        self._deal(g, new[going])

    def _finish(self, done: np.ndarray, winner: np.ndarray) -> None:
        """End games ``done``; they keep their last round's dice, for the reveal."""
        self.winner[done] = winner
        self.phase[done] = OVER
        self.to_move[done] = -1
        self.bid[done] = -1
        self._tw[done] = self._over_row
        self._n_over += done.size

    # -- views ------------------------------------------------------------------------

    @property
    def bidder(self) -> np.ndarray:
        """``(B,)`` int32: the seat that made the current bid, -1 before the
        opening bid (play passes from the bidder to the next seat still in)."""
        seat = np.where(self.phase == SHOW, self.to_move, self._prev[self._alive, self.to_move])
        return np.where(self.bid >= 0, seat, -1).astype(np.int32)

    def current_quantity_face(self) -> tuple[np.ndarray, np.ndarray]:
        """``(quantity, face)``, each ``(B,)`` int32, of the current bid (0, 0 before the opening bid)."""
        has = self.bid >= 0
        a = np.maximum(self.bid, 0)
        return np.where(has, self._q_of[a], 0), np.where(has, self._f_of[a], 0)
