"""Opponent models fitted from game records: how one player bids and challenges,
conditioned on the dice they actually held.

Records hold every hand at the challenge (``shared/RECORD-FORMAT.md``), so each
of the player's moves can be read against their own dice. The model keeps
counts in a few situations, each with a conjugate prior (pseudo-counts), so a
model fitted on few records stays close to its prior:

* **challenge**: facing a bid whose chance of being true *given the player's
  own dice* falls in bin ``j`` (:data:`BINS` equal bins of [0, 1]), how often
  they challenged: ``challenged[j]`` of ``faced[j]``, Beta prior with mean
  ``1 - p_j`` (``p_j`` the bin's midpoint, clipped to [0.05, 0.95]) and weight
  ``prior.challenge_strength``;
* **bids** and **openings**: the chance of their own raise (or opening bid)
  given their dice, by the same bins; Dirichlet prior ``prior.bid_alpha`` per
  bin. A bid of chance below 1/2 is a *bluff*;
* **jumps**: how far a raise goes past the smallest legal raise, in ranks
  (:data:`JUMP_EDGES`: 0, 1, 2, 3-5, 6 or more); Dirichlet prior ``prior.jump_alpha``.

* **table**: in small positions (at most :data:`TABLE_MAX_DICE` dice in
  play), the player's moves by exact situation: their sorted hand, every
  seat's dice count and the round's bids so far (at most :data:`MAX_TABLE`
  situations, :data:`MAX_TABLE_ACTIONS` moves each).

From these the model gives a policy for the player (:meth:`OpponentModel.policy`),
a back-off from the exact situation to coarser ones (hierarchical Dirichlet
smoothing; MacKay & Peto, "A hierarchical Dirichlet language model", Natural
Language Engineering 1995; the back-off of Katz, IEEE TASSP 1987):

1. **generic**: challenge with the posterior mean rate of the standing bid's
   bin, else a raise with weight ``bid bin mean * jump bin mean`` shared by the
   legal raises in that (bin, jump) cell;
2. **context**: the table's counts summed over every situation with the same
   dice of the players still in, hand, *last* bid and place in the round
   (:func:`backoff_context`; the final two of a 4-player game share the
   context of a 2-player game), a
   Dirichlet whose mean is the generic policy, weight :data:`BACKOFF_STRENGTH`;
3. **situation**: the exact situation's counts, a Dirichlet whose mean is the
   context's policy, weight ``prior.table_strength``.

Each level is ``(count(move) + strength * coarser(move)) / (n + strength)``, so
the exact counts rule where they are many, the context's where the situation
was never seen. :meth:`OpponentModel.evidence` is the context's count, the
evidence ``strong``'s plans trust (:mod:`liars_dice.bots.exploit`). Measured on
the dudo.ai networks at one die each, their policy is close to a function of
(hand, last bid, role): that projection of their exact policy is within 0.017
in total variation of it where play goes (``benchmarks/RESULTS.md``).

Bids made by the player before a show-and-reroll of theirs are skipped (the
hand at the reveal is not the hand they bid from). Shown dice count as seen.

File format (JSON, ``format`` ``"liars-dice-opponent-model"``, ``version`` 1),
bounded: at most :data:`MAX_MODEL_BYTES` bytes, every count an integer in
``[0, MAX_COUNT]``, the name at most :data:`MAX_NAME` characters::

    {"format": "liars-dice-opponent-model", "version": 1, "player": "ann",
     "rules": "classic", "records": 12, "rounds": 80,
     "prior": {"challenge_strength": 4.0, "bid_alpha": 1.0, "jump_alpha": 1.0},
     "challenge": {"faced": [10 ints], "challenged": [10 ints]},
     "bids": [10 ints], "openings": [10 ints], "jumps": [5 ints],
     "table": {"1,1|4|2x6": {"liar": 3, "3x6": 1}, ...}}

A table key is ``DICE|HAND|BIDS``: the dice counts from the seat to move
onwards, the sorted hand, and the bids as ``QxF``, comma-separated.

Source: the frequency-count opponent models of poker (Billings et al.,
"Opponent modeling in poker", AAAI 1998; Southey et al., "Bayes' bluff", UAI
2005, for the Beta/Dirichlet priors).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import CHALLENGE, Action, Bid, LiarsDiceError, Rules, SeatView
from ..engine.odds import bid_probability

#: The file's ``format`` and ``version``.
FORMAT = "liars-dice-opponent-model"
VERSION = 1
#: Equal-width bins of a bid's chance of being true given the player's dice.
BINS = 10
#: Lower edges of the jump bins, in ranks past the smallest legal raise.
JUMP_EDGES = (0, 1, 2, 3, 6)
#: Largest model file, in bytes.
MAX_MODEL_BYTES = 512 * 1024
#: Largest count in a model (about a billion moves).
MAX_COUNT = 1_000_000_000
#: Longest player name.
MAX_NAME = 200
#: Largest prior weight or pseudo-count.
MAX_PRIOR = 1_000.0
#: Most dice in play for a situation to be kept in the table.
TABLE_MAX_DICE = 4
#: Most situations in the table (fitting stops adding new ones there).
MAX_TABLE = 4_000
#: Most distinct moves per situation.
MAX_TABLE_ACTIONS = 64
#: Longest table key.
MAX_KEY = 300
#: Weight of the generic policy under a back-off context's counts (pseudo-moves);
#: chosen by measurement (``benchmarks/RESULTS.md``, "A back-off model").
BACKOFF_STRENGTH = 16.0


class ModelError(LiarsDiceError):
    """A model file or fit that cannot be used; the message is one sentence. ``code`` ``"model/invalid"``."""

    code = "model/invalid"


@dataclass(frozen=True)
class Prior:
    """Pseudo-counts of the conjugate priors (see the module docstring)."""

    challenge_strength: float = 4.0
    bid_alpha: float = 1.0
    jump_alpha: float = 1.0
    table_strength: float = 2.0


def _bin(p: float) -> int:
    return min(BINS - 1, max(0, int(p * BINS)))


def _jump_bin(j: int) -> int:
    b = 0
    for i, e in enumerate(JUMP_EDGES):
        if j >= e:
            b = i
    return b


def prior_challenge_mean() -> np.ndarray:
    """The prior's challenge rate per bin, ``1 - midpoint`` clipped to [0.05, 0.95]; shape ``(BINS,)``."""
    mid = (np.arange(BINS) + 0.5) / BINS
    out: np.ndarray = np.clip(1.0 - mid, 0.05, 0.95)
    return out


@dataclass
class OpponentModel:
    """Counts of one player's moves by situation (see the module docstring).

    :ivar faced: bids faced per bin, shape ``(BINS,)`` int64.
    :ivar challenged: of those, challenged, shape ``(BINS,)`` int64.
    :ivar bids: raises per bin of their own chance, shape ``(BINS,)`` int64.
    :ivar openings: opening bids per bin, shape ``(BINS,)`` int64.
    :ivar jumps: raises per jump bin, shape ``(len(JUMP_EDGES),)`` int64.
    """

    player: str
    rules: str = ""
    records: int = 0
    rounds: int = 0
    prior: Prior = field(default_factory=Prior)
    faced: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    challenged: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    bids: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    openings: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    jumps: np.ndarray = field(default_factory=lambda: np.zeros(len(JUMP_EDGES), dtype=np.int64))
    table: dict[str, dict[str, int]] = field(default_factory=dict)
    # the table's counts by back-off context, built when first asked; (the table
    # it was built from, its size), rebuilt when either changes or a move is counted
    _contexts: tuple[Any, int, dict[BackoffContext, dict[str, int]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # -- estimates -------------------------------------------------------------

    def challenge_rate(self) -> np.ndarray:
        """Posterior mean chance of a challenge per bin, shape ``(BINS,)`` float64."""
        s = self.prior.challenge_strength
        m = prior_challenge_mean()
        rate: np.ndarray = (self.challenged + s * m) / (self.faced + s)
        return rate

    def bid_mix(self, opening: bool = False) -> np.ndarray:
        """Posterior mean share of (opening) bids per bin, shape ``(BINS,)``, summing to 1."""
        c = (self.openings if opening else self.bids) + self.prior.bid_alpha
        out: np.ndarray = c / c.sum()
        return out

    def jump_mix(self) -> np.ndarray:
        """Posterior mean share of raises per jump bin, shape ``(len(JUMP_EDGES),)``, summing to 1."""
        c = self.jumps + self.prior.jump_alpha
        out: np.ndarray = c / c.sum()
        return out

    def bluff_rate(self) -> float:
        """Posterior mean share of raises whose chance given the player's dice is below 1/2."""
        return float(self.bid_mix()[: BINS // 2].sum())

    def fingerprint(self) -> str:
        """A short key of the counts and prior (changes with any update); for caches."""
        return json.dumps(self.to_json(), sort_keys=True)

    # -- fitting ---------------------------------------------------------------

    def observe_round(self, rules: Rules, result: Any, seat: int) -> bool:
        """Add one revealed round (a :class:`~liars_dice.engine.RoundResult`) for ``seat``.

        :returns: whether the seat took part (held dice).
        """
        revealed = result.revealed
        if seat >= len(revealed) or not revealed[seat]:
            return False
        hand = tuple(revealed[seat])
        total = sum(len(h) for h in revealed)
        moves = list(result.bids)
        last_show = max((i for i, (s, _, sh) in enumerate(moves) if s == seat and sh), default=-1)
        shown: list[int] = []
        prev: Bid | None = None
        dice = tuple(len(h) for h in revealed)
        small = total <= TABLE_MAX_DICE and not any(sh for _, _, sh in moves)
        for i, (s, bid, sh) in enumerate(moves):
            if s == seat and small:
                self._count(situation_key(dice, seat, hand, [b for _, b, _ in moves[:i]]), str(bid))
            if s == seat and i > last_show:
                seen = hand + tuple(d for d in shown)
                unseen = total - len(hand) - len(shown)
                wilds = result.wilds_active
                if prev is not None:
                    p_prev = bid_probability(rules, prev, seen, unseen, wilds)
                    self.faced[_bin(p_prev)] += 1
                p = bid_probability(rules, bid, seen, unseen, wilds)
                if prev is None:
                    self.openings[_bin(p)] += 1
                else:
                    self.bids[_bin(p)] += 1
                    lo = _lowest_rank(rules, prev, total)
                    self.jumps[_jump_bin(rules.rank(bid.quantity, bid.face) - lo)] += 1
            shown.extend(d for d in sh if s != seat)
            prev = bid
        if result.challenger == seat and prev is not None and result.calza:  # a calza is no challenge
            if small:
                self._count(situation_key(dice, seat, hand, [b for _, b, _ in moves]), "calza")
        elif result.challenger == seat and prev is not None:
            if small:
                self._count(situation_key(dice, seat, hand, [b for _, b, _ in moves]), "liar")
            seen = hand + tuple(shown)
            p = bid_probability(rules, prev, seen, total - len(hand) - len(shown), result.wilds_active)
            self.faced[_bin(p)] += 1
            self.challenged[_bin(p)] += 1
        self.rounds += 1
        self._check_bounds()
        return True

    def _count(self, key: str, action: str) -> None:
        self._contexts = None
        entry = self.table.get(key)
        if entry is None:
            if len(self.table) >= MAX_TABLE or len(key) > MAX_KEY:
                return
            entry = self.table[key] = {}
        if action in entry or len(entry) < MAX_TABLE_ACTIONS:
            entry[action] = min(MAX_COUNT, entry.get(action, 0) + 1)

    def _check_bounds(self) -> None:
        # Counts stop at MAX_COUNT, as the table's do (attack4: a model read at the
        # maximum made strong raise ModelError mid-game at the next revealed round).
        for name in ("faced", "challenged", "bids", "openings", "jumps"):
            np.minimum(getattr(self, name), MAX_COUNT, out=getattr(self, name))
        self.rounds = min(self.rounds, MAX_COUNT)

    # -- the policy ------------------------------------------------------------

    def policy(self, view: SeatView) -> dict[Action, float]:
        """The modelled player's move distribution at ``view`` (their own view):
        the back-off of the module docstring (generic, context, situation).

        :returns: legal action to probability (summing to 1), over every legal
            bid and the challenge; no calza and no show (the model has no counts for them).
        """
        generic = self.generic_policy(view)
        if not self.table or any(view.shown) or view.dice_in_play > TABLE_MAX_DICE:
            return generic
        bids = [b for _, b, _ in view.bids]
        order = tuple(view.dice[view.seat:]) + tuple(view.dice[: view.seat])
        context = self._by_context().get(backoff_context(order, tuple(sorted(view.hand)), bids))
        if not context:
            return generic
        out = _smoothed(context, generic, BACKOFF_STRENGTH)
        entry = self.table.get(situation_key(view.dice, view.seat, view.hand, bids))
        return _smoothed(entry, out, self.prior.table_strength) if entry else out

    def evidence(self, dice: Sequence[int], hand: Sequence[int], bids: Sequence[Bid]) -> int:
        """Moves the table holds in the back-off context of a situation (every
        situation with the same dice, hand, last bid and place in the round).

        :param dice: dice counts from the modelled seat onwards (as in a table key).
        :param hand: the modelled player's hand.
        :param bids: the round's bids, oldest first.
        :returns: a count, 0 where the records never saw the context.
        """
        entry = self._by_context().get(backoff_context(tuple(dice), tuple(sorted(hand)), bids))
        return min(MAX_COUNT, sum(entry.values())) if entry else 0

    def _by_context(self) -> dict[BackoffContext, dict[str, int]]:
        cached = self._contexts
        if cached is not None and cached[0] is self.table and cached[1] == len(self.table):
            return cached[2]
        out: dict[BackoffContext, dict[str, int]] = {}
        for key, moves in self.table.items():
            entry = out.setdefault(backoff_context(*parse_situation_key(key)), {})
            for act, c in moves.items():
                entry[act] = min(MAX_COUNT, entry.get(act, 0) + c)
        self._contexts = (self.table, len(self.table), out)
        return out

    def generic_policy(self, view: SeatView) -> dict[Action, float]:
        """The policy from the binned counts alone (see the module docstring)."""
        rules = view.rules
        legal = [a for a in view.legal_actions() if isinstance(a, Bid) or a == CHALLENGE]
        bids = [a for a in legal if isinstance(a, Bid)]
        cur = view.current_bid
        seen = view.hand + tuple(d for h in view.shown for d in h)
        unseen = view.unknown_dice
        out: dict[Action, float] = {}
        p_ch = 0.0
        if cur is not None and CHALLENGE in legal:
            p_ch = float(self.challenge_rate()[_bin(bid_probability(rules, cur, seen, unseen, view.wilds_active))])
            if not bids:
                return {CHALLENGE: 1.0}
            out[CHALLENGE] = p_ch
        if not bids:
            return out
        wilds = view.wilds_active if view.bids or view.palifico else None
        mix = self.bid_mix(opening=cur is None)
        jm = self.jump_mix()
        lo = bids[0] if cur is not None else None
        lo_rank = rules.rank(lo.quantity, lo.face) if lo is not None else 0
        cells: dict[tuple[int, int], list[Bid]] = {}
        for b in bids:
            pb = bid_probability(rules, b, seen, unseen, wilds)
            j = _jump_bin(rules.rank(b.quantity, b.face) - lo_rank) if cur is not None else 0
            cells.setdefault((_bin(pb), j), []).append(b)
        weights: dict[Bid, float] = {}
        for (bi, j), members in cells.items():
            w = float(mix[bi]) * (float(jm[j]) if cur is not None else 1.0) / len(members)
            for b in members:
                weights[b] = w
        z = sum(weights.values())
        for b, w in weights.items():
            out[b] = (1.0 - p_ch) * w / z
        return out

    # -- the file --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The file's JSON object (see the module docstring)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "player": self.player,
            "rules": self.rules,
            "records": self.records,
            "rounds": self.rounds,
            "prior": {
                "challenge_strength": self.prior.challenge_strength,
                "bid_alpha": self.prior.bid_alpha,
                "jump_alpha": self.prior.jump_alpha,
                "table_strength": self.prior.table_strength,
            },
            "challenge": {"faced": self.faced.tolist(), "challenged": self.challenged.tolist()},
            "bids": self.bids.tolist(),
            "openings": self.openings.tolist(),
            "jumps": self.jumps.tolist(),
            "table": {k: dict(v) for k, v in self.table.items()},
        }

    def dumps(self) -> str:
        """The model as JSON text (one line per top-level field)."""
        data = self.to_json()
        return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()) + "\n}\n"

    @classmethod
    def from_json(cls, data: Any) -> "OpponentModel":
        """Read a model from parsed JSON.

        :raises ModelError: for anything but a version-1 model within the bounds,
            naming the first field at fault.
        """
        if not isinstance(data, Mapping):
            raise ModelError("An opponent model is a JSON object with format, version and counts.")
        if data.get("format") != FORMAT:
            raise ModelError(f"This is not an opponent model: its format is not {FORMAT!r}.")
        if data.get("version") != VERSION:
            raise ModelError(f"The model's version {_short(data.get('version'))} is not one this program reads ({VERSION}).")
        known = {"format", "version", "player", "rules", "records", "rounds", "prior", "challenge", "bids", "openings", "jumps", "table"}
        extra = sorted(set(data) - known)
        if extra:
            raise ModelError(f"The model has an unknown field {_short(extra[0])}.")
        player = data.get("player")
        if not isinstance(player, str) or not 0 < len(player) <= MAX_NAME:
            raise ModelError(f"The model's player is a name of 1 to {MAX_NAME} characters.")
        rules = data.get("rules", "")
        if not isinstance(rules, str) or len(rules) > MAX_NAME:
            raise ModelError(f"The model's rules is a name of at most {MAX_NAME} characters.")
        for what, text in (("player", player), ("rules", rules)):
            if not text.isprintable():  # names reach terminals, as the engine's player names: no ESC, no bidi
                raise ModelError(f"The model's {what} may hold only printable characters (no control, invisible or bidi characters).")
        prior_raw = data.get("prior", {})
        if not isinstance(prior_raw, Mapping) or set(prior_raw) - {"challenge_strength", "bid_alpha", "jump_alpha", "table_strength"}:
            raise ModelError("The model's prior holds only challenge_strength, bid_alpha, jump_alpha and table_strength.")
        pr = {}
        for k, v in prior_raw.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v <= MAX_PRIOR) or not math.isfinite(v):
                raise ModelError(f"The model's prior {k} is a number above 0 and at most {MAX_PRIOR:g}.")
            pr[k] = float(v)
        ch = data.get("challenge")
        if not isinstance(ch, Mapping) or set(ch) != {"faced", "challenged"}:
            raise ModelError("The model's challenge holds faced and challenged, each a list of counts.")
        faced = _counts(ch["faced"], "challenge.faced", BINS)
        challenged = _counts(ch["challenged"], "challenge.challenged", BINS)
        if np.any(challenged > faced):
            raise ModelError("The model's challenge counts exceed the bids faced in the same bin.")
        return cls(
            player=player,
            rules=rules,
            records=_count(data.get("records", 0), "records"),
            rounds=_count(data.get("rounds", 0), "rounds"),
            prior=Prior(**pr),
            faced=faced,
            challenged=challenged,
            bids=_counts(data.get("bids"), "bids", BINS),
            openings=_counts(data.get("openings"), "openings", BINS),
            jumps=_counts(data.get("jumps"), "jumps", len(JUMP_EDGES)),
            table=_table(data.get("table", {})),
        )

    @classmethod
    def loads(cls, text: str | bytes) -> "OpponentModel":
        """Read a model from JSON text.

        :raises ModelError: for text above :data:`MAX_MODEL_BYTES`, bad JSON, or
            a bad model (:meth:`from_json`).
        """
        if len(text) > MAX_MODEL_BYTES:
            raise ModelError(f"The model is {len(text):,} bytes; a model is at most {MAX_MODEL_BYTES:,}.")
        if isinstance(text, bytes):
            # json.loads would also take UTF-16 and UTF-32 bytes, which the arena then
            # could not pass on as text: a model file is UTF-8, as `model fit` writes it
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise ModelError("The model is not UTF-8 text.") from None
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise ModelError("The model is not valid JSON.") from None
        return cls.from_json(data)

    def check_rules(self, rules: Rules) -> None:
        """Refuse a model fitted under other rules than ``rules`` (by the rules' name;
        a model with no ``rules`` is for any).

        :raises ModelError: naming both rule sets.
        """
        if self.rules and self.rules != rules.name:
            raise ModelError(f"The model is of {_short(self.player)} playing {_short(self.rules)}, not {_short(rules.name)}.")

    def copy(self) -> "OpponentModel":
        return OpponentModel.from_json(self.to_json())


def _smoothed(counts: Mapping[str, int], prior: Mapping[Action, float], strength: float) -> dict[Action, float]:
    """``(count(move) + strength * prior(move)) / (n + strength)`` over the moves of
    ``prior`` (counts of other moves ignored)."""
    n = sum(counts.get(str(a), 0) for a in prior)
    return {a: (counts.get(str(a), 0) + strength * p) / (n + strength) for a, p in prior.items()}


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _count(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNT:
        raise ModelError(f"The model's {name} is a whole number from 0 to {MAX_COUNT:,}.")
    return v


def _counts(v: Any, name: str, n: int) -> np.ndarray:
    if not isinstance(v, list) or len(v) != n:
        raise ModelError(f"The model's {name} is a list of {n} counts.")
    return np.array([_count(x, name) for x in v], dtype=np.int64)


def _table(v: Any) -> dict[str, dict[str, int]]:
    if not isinstance(v, Mapping) or len(v) > MAX_TABLE:
        raise ModelError(f"The model's table is an object of at most {MAX_TABLE:,} situations.")
    out: dict[str, dict[str, int]] = {}
    for key, entry in v.items():
        if not isinstance(key, str) or len(key) > MAX_KEY or not _KEY.match(key):
            raise ModelError(f"The model's table has a situation {_short(key)} that is not DICE|HAND|BIDS.")
        if not isinstance(entry, Mapping) or not 0 < len(entry) <= MAX_TABLE_ACTIONS:
            raise ModelError(f"The model's table situation {_short(key)} holds 1 to {MAX_TABLE_ACTIONS} moves.")
        moves = {}
        for act, c in entry.items():
            if not isinstance(act, str) or not _ACTION.match(act):
                raise ModelError(f"The model's table situation {_short(key)} has a move {_short(act)} that is not QxF, liar or calza.")
            moves[act] = _count(c, "table")
        out[key] = moves
    return out


_KEY = re.compile(r"^[0-9]{1,3}(,[0-9]{1,3}){0,63}\|[0-9]{0,100}\|([0-9]{1,3}x[0-9]{1,2}(,[0-9]{1,3}x[0-9]{1,2}){0,99})?$")
_ACTION = re.compile(r"^([0-9]{1,3}x[0-9]{1,2}|liar|calza)$")


def situation_key(dice: Sequence[int], seat: int, hand: Sequence[int], bids: Sequence[Bid]) -> str:
    """The table's key of a situation: dice counts from ``seat`` onwards, the sorted hand, the bids."""
    order = list(dice[seat:]) + list(dice[:seat])
    return f"{','.join(map(str, order))}|{''.join(map(str, sorted(hand)))}|{','.join(str(b) for b in bids)}"


#: A back-off context: (dice counts of the players with dice, from the seat
#: onwards, sorted hand, last bid or ``None``, bids so far modulo the players with dice).
BackoffContext = tuple[tuple[int, ...], tuple[int, ...], Bid | None, int]


def backoff_context(dice: Sequence[int], hand: Sequence[int], bids: Sequence[Bid]) -> BackoffContext:
    """The back-off context of a situation (module docstring): the dice counts
    from the seat onwards of the players still in (a seat out of the game, 0
    dice, never moves, so the final two of a 4-player game, key ``1,0,0,1``,
    share the context of a 2-player game's ``1,1``: what ``strong``'s plans ask,
    :func:`~liars_dice.bots.exploit.model_counts`), the sorted hand, the last
    bid (``None`` to open) and the number of bids so far modulo the players
    with dice (with two players, whether the seat opened the round: the
    networks of dudo.ai play differently as opener and responder)."""
    alive = tuple(c for c in dice if c > 0)
    return alive, tuple(sorted(hand)), (bids[-1] if bids else None), len(bids) % max(1, len(alive))


def parse_situation_key(key: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[Bid, ...]]:
    """The inverse of :func:`situation_key`: ``(dice counts from the seat
    onwards, sorted hand, bids)``.

    :raises ValueError: for a key not in that form (keys of a model that was
        read are checked, :data:`_KEY`).
    """
    dice, hand, bids = key.split("|")
    return (
        tuple(int(c) for c in dice.split(",")),
        tuple(int(c) for c in hand),
        tuple(Bid(int(q), int(f)) for q, f in (b.split("x") for b in bids.split(",") if b)),
    )


def _lowest_rank(rules: Rules, prev: Bid, total: int) -> int:
    """Rank of the smallest legal raise over ``prev`` (over every face)."""
    ranks = []
    for f in range(1, rules.faces + 1):
        q = rules.min_raise_quantity(prev.quantity, prev.face, f)
        if q <= total:
            ranks.append(rules.rank(q, f))
    return min(ranks, default=rules.rank(prev.quantity, prev.face) + 1)


def fit(
    records: Iterable[Any],
    player: str,
    prior: Prior | None = None,
    labels: Sequence[str] | None = None,
    rules: Rules | None = None,
    skipped: list[str] | None = None,
) -> OpponentModel:
    """Fit the model of ``player`` from game records (JSON text, bytes or parsed).

    :param records: records as :func:`liars_dice.records.replay` reads them.
    :param labels: names of the records for error sentences (e.g. file paths).
    :param rules: when given, only records under these rules count (a model is
        of one rule set: see :meth:`OpponentModel.check_rules`); otherwise every
        record with the player must be under the rules of the first.
    :param skipped: when given, a sentence is appended for every record that
        replays but does not count: the player is not in it, or (``rules``
        given) it is under other rules.
    :returns: the model, counting every round of every record in which the player held dice.
    :raises ModelError: for a record that does not replay (``"record N: ..."``,
        1-based), a record under other rules than the first (``rules`` not given),
        or a player in none of the records.
    """
    from ..records import replay

    model = OpponentModel(player=player, prior=prior or Prior())
    seen_in = 0

    def label(i: int) -> str:
        return labels[i - 1] if labels is not None and i <= len(labels) else f"Record {i}"

    for i, rec in enumerate(records, 1):
        r = replay(rec)
        if not r.ok or r.state is None:
            msg = r.error.message if r.error is not None else "it does not replay"
            raise ModelError(f"{label(i)} does not replay: {msg}")
        state = r.state
        names = state.game.players
        if player not in names:
            if skipped is not None:
                skipped.append(f"{label(i)} has no player called {_short(player)}.")
            continue
        seat = names.index(player)
        rec_rules = state.game.rules
        if rules is not None and rec_rules != rules:
            if skipped is not None:
                skipped.append(f"{label(i)} is a game of {_short(rec_rules.name)}, not {_short(rules.name)}.")
            continue
        if not model.rules:
            model.rules = rec_rules.name
        elif rec_rules.name != model.rules:
            raise ModelError(
                f"{label(i)} is a game of {_short(rec_rules.name)}, not {_short(model.rules)} as the first; "
                "a model is of one rule set."
            )
        seen_in += 1
        for res in state.results:
            model.observe_round(rec_rules, res, seat)
    if seen_in == 0:
        where = f" under {_short(rules.name)}" if rules is not None else ""
        raise ModelError(f"No record{where} has a player called {_short(player)}.")
    model.records = seen_in
    return model
