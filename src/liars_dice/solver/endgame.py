"""Whole-game equilibrium tables for two players, and their lookup for bots.

A two-player position is ``(a, b)``: the opener of the round holds ``a`` dice,
the other player ``b``. Its value ``V(a, b)`` is the opener's expected result
in [-1, 1] under equilibrium play of the rest of the game (win probability
``(1 + V) / 2``). A round's payoff is the value of the position its challenge
leads to (:func:`~liars_dice.solver.outcome.challenge_outcome`): +1 / -1 when
the game ends, else ``V`` of the next position, negated when the other player
opens it. Every challenge costs at least one die, so the tables are solved by
backward induction from the smallest positions (issue 3, section 3).

Each round is solved with CFR+ on its public tree. The full tree of a round
has ``2**K`` histories for ``K`` bids, which fits
(:data:`~liars_dice.solver.tree.MAX_NODES`) up to 3 dice in play with six
faces: ``(1, 1)``, ``(1, 2)``, ``(2, 1)`` are solved exactly. Larger positions
are solved with histories capped at ``depth_cap`` bids (the player facing the
last one must challenge); equilibrium play of the exact 3-dice rounds never
reaches 8 bids with probability above 1e-6, and the cap's effect on the 3-dice
values is measured in ``docs/solver.md``.
Show-and-reroll (``wild-stars``, seed 000) is in the tables where the round
solver's show tree (:mod:`.shows`) fits: with ``show_max_total`` (the packaged
``wild-stars`` file: 3 dice in play), a position where someone holds two dice
or more is solved on the tree of bids and shows, histories capped at
``show_depth_cap`` bids, and :func:`endgame_moves` gives moves with the faces
to show. Larger positions hold no-show strategies, and :func:`endgame_moves`
declines a round of theirs in which dice were shown.

File ``data/endgame-<preset>.npz``: ``rules`` (JSON of the round-relevant
options), ``positions`` ``(P, 2)``, ``values``, ``exploitability``,
``iterations`` ``(P,)``, and per position ``p`` and depth ``d``:
``p<p>_d<d>_nodes`` (rows of the stored nodes of that depth) and
``p<p>_d<d>_policy`` ``(edges of those nodes, n_hands_actor)`` uint8, each
probability times 255. A position solved with shows (``shows`` ``(P,)``
bool) stores ``p<p>_g<i>_nodes`` and ``p<p>_g<i>_policy`` per group ``i`` of
its :class:`~liars_dice.solver.shows.ShowTree` instead (edges of a kept node:
every bid with every show, then the challenge; a show the hand cannot make has
probability 0). Nodes that equilibrium play reaches with probability
below ``min_reach`` (chance of deals and rerolls included) are left out, to keep the files small.

Positions stored whole (``whole`` ``(P,)`` bool; :data:`WHOLE_POSITIONS`, one die
each, issue 37) keep every node of their tree, and their probabilities are
``uint16``, each probability times 65535: the table plays every information set
of the round, so ``strong`` there is the solved policy (its exploitability
within 1e-5 of the solve's, ``benchmarks/strong_exploitability.py``). With the
reach threshold, a best response steered play to the nodes left out, where the
bot's deterministic search played: ``strong`` at one die each was up to 8 times
as exploitable as its table. Readers normalise each stored column, so either
scale reads alike.
"""

from __future__ import annotations

import json
import threading
import os
import time
import zipfile
from collections import OrderedDict
from math import comb
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import Action, Bid, Hand, Phase, Rules, SeatView, legal_actions
from .hands import Hands, enumerate_hands
from .outcome import Outcome
from .passes import reach
from .shows import ShowGame, ShowPolicy, ShowTree
from .solve import SolveResult, build_game, solve
from .tree import MAX_NODES, BidTree, SolverError, round_bids

#: Rule options that do not change a two-player round (display and set-up only).
_NOT_IN_ROUND = ("name", "star_symbol", "face_names", "dice_per_player", "min_players", "max_players")


def round_key(rules: Rules) -> dict[str, Any]:
    """The options that decide a two-player round, as JSON-ready data."""
    return {k: v for k, v in rules.to_dict().items() if k not in _NOT_IN_ROUND}


def positions(max_total: int) -> list[tuple[int, int]]:
    """Every ``(a, b)`` with ``a, b >= 1`` and ``2 <= a + b <= max_total``, smallest totals first."""
    return [(a, t - a) for t in range(2, max_total + 1) for a in range(1, t)]


def depth_for(rules: Rules, dice: tuple[int, int], depth_cap: int) -> int | None:
    """``None`` (the full round) when its tree fits :data:`MAX_NODES`, else ``depth_cap``."""
    k = sum(1 for a in legal_actions(rules, None, sum(dice)) if isinstance(a, Bid))
    return None if (1 << k) <= MAX_NODES else depth_cap


def leaf_value_for(values: dict[tuple[int, int], float]) -> Callable[[Outcome], float]:
    """The round payoff to player 0 (the opener) given the solved position values."""

    def leaf(outcome: Outcome) -> float:
        if outcome.winner is not None:
            return 1.0 if outcome.winner == 0 else -1.0
        a, b = outcome.dice
        if outcome.next_opener == 0:
            return values[(a, b)]
        return -values[(b, a)]

    return leaf


@dataclass
class TableEntry:
    """One position of the tables: solved now (``result``), or read back from
    an earlier tables file (``stored``, its pruned byte arrays by file key suffix)."""

    dice: tuple[int, int]
    value: float
    exploitability: float
    iterations: int
    max_depth: int
    result: SolveResult | None = None
    stored: dict[str, np.ndarray] | None = None
    shows: bool = False
    whole: bool = False

    @staticmethod
    def solved(dice: tuple[int, int], result: SolveResult) -> "TableEntry":
        return TableEntry(
            dice, result.value, result.exploitability, result.iterations, result.policy.tree.max_depth, result,
            shows=isinstance(result.policy, ShowPolicy), whole=dice in WHOLE_POSITIONS,
        )


#: Positions stored whole (module doc): every node, probabilities to 1/65535.
#: One die each, whose tree (4,096 histories with six faces) costs 0.1 to 0.2 MB
#: a preset this way; 2 vs 1 would cost about 100 times that.
WHOLE_POSITIONS: frozenset[tuple[int, int]] = frozenset({(1, 1)})
#: The exploitability the positions stored whole are solved to (``solve_tables``),
#: well under ``strong``'s target there (0.002, issue 37): about 1,100 CFR+
#: iterations, 10 s, at one die each.
WHOLE_TARGET = 1e-4


def _check_largest(rules: Rules, max_total: int, depth_cap: int | None) -> None:
    """Refuse at once a ``max_total`` whose largest positions no tree takes even
    capped at ``depth_cap`` (attack4: ``--max-total 1000000`` listed every position
    first, 12 GB in 30 s).

    :raises SolverError: for ``max_total`` below 2, or its largest positions too large.
    """
    if max_total < 2:
        raise SolverError(f"The tables need at least 2 dice in play (one each), not {max_total!r}.")
    if depth_cap is not None and depth_cap < 1:
        raise SolverError(f"The depth cap is the most bids in a history, at least 1, not {depth_cap!r}.")
    k = len(round_bids(rules, (max_total - 1, 1))[0])  # bounded: round_bids refuses too many dice
    cap = k if depth_cap is None else min(depth_cap, k)
    if cap > 64 or sum(comb(k, d) for d in range(cap + 1)) > MAX_NODES:
        raise SolverError(
            f"{max_total} dice in play make {k} bids, too many public histories even at "
            f"{cap} bids a history; the tables take at most {MAX_NODES:,} (lower --max-total or --depth-cap)."
        )


def solve_tables(
    rules: Rules,
    max_total: int = 3,
    target_exploitability: float = 2e-3,
    max_iterations: int = 2000,
    on_solved: Callable[[TableEntry], None] | None = None,
    depth_cap: int = 6,
    known: dict[tuple[int, int], TableEntry] | None = None,
    show_max_total: int = 0,
    show_depth_cap: int | None = 4,
    whole_target: float = WHOLE_TARGET,
) -> Iterator[TableEntry]:
    """Solve every position up to ``max_total`` dice by backward induction, yielding each.

    Positions whose full round tree is too large are solved with histories
    capped at ``depth_cap`` bids (:class:`BidTree`). Positions in ``known``
    are yielded as they are, not solved again. Under show-and-reroll, positions
    of at most ``show_max_total`` dice where someone holds two or more are
    solved with shows (:mod:`.shows`), histories capped at ``show_depth_cap``
    bids (``None``: the full round); the others without (``show_max_total``
    0, the default: none with shows). The positions stored whole
    (:data:`WHOLE_POSITIONS`) are solved to ``whole_target`` (or
    ``target_exploitability`` if lower), with at least 20,000 iterations allowed.

    :raises SolverError: when a position's tree is too large even so.
    """
    values: dict[tuple[int, int], float] = {}
    known = known or {}
    _check_largest(rules, max_total, depth_cap)
    for pos in positions(max_total):
        if pos in known:
            entry = known[pos]
        else:
            target, most = target_exploitability, max_iterations
            if pos in WHOLE_POSITIONS:
                target, most = min(target, whole_target), max(most, 20_000)
            if rules.show_and_reroll and max(pos) >= 2 and sum(pos) <= show_max_total:
                res = solve(rules, pos, target, most, leaf_value=leaf_value_for(values), max_depth=show_depth_cap)
            else:
                res = solve(  # no-show strategies (module doc): the plain bid tree
                    rules.with_options(show_and_reroll=False), pos, target, most,
                    leaf_value=leaf_value_for(values), max_depth=depth_for(rules, pos, depth_cap),
                )
            entry = TableEntry.solved(pos, res)
            if on_solved:
                on_solved(entry)
        values[pos] = entry.value
        yield entry


def save_tables(path: str | Path, rules: Rules, entries: list[TableEntry], min_reach: float = 1e-6) -> None:
    """Write positions to ``path`` (layout in the module doc): a solved entry
    of :data:`WHOLE_POSITIONS` whole, the others without the nodes equilibrium
    play reaches with probability below ``min_reach``."""
    arrays: dict[str, Any] = {  # Any: numpy types **kwargs as its allow_pickle flag too
        "rules": np.array(json.dumps(round_key(rules))),
        "positions": np.array([e.dice for e in entries], dtype=np.int64).reshape(-1, 2),
        "values": np.array([e.value for e in entries]),
        "exploitability": np.array([e.exploitability for e in entries]),
        "iterations": np.array([e.iterations for e in entries]),
        "max_depth": np.array([e.max_depth for e in entries]),
        "min_reach": np.array(min_reach),
        "shows": np.array([e.shows for e in entries], dtype=bool),
        "whole": np.array([e.whole if e.result is None else e.dice in WHOLE_POSITIONS for e in entries], dtype=bool),
    }
    for p, e in enumerate(entries):
        if e.result is None:
            assert e.stored is not None
            for suffix, arr in e.stored.items():
                arrays[f"p{p}_{suffix}"] = arr
            continue
        pol = e.result.policy
        if isinstance(pol, ShowPolicy):
            arrays.update(_show_arrays(p, pol, min_reach))
            continue
        whole = e.dice in WHOLE_POSITIONS
        game_reach = reach(_GameView(pol.tree, pol.hands), pol.strategy)
        for d, dep in enumerate(pol.tree.depths):
            prob = (game_reach[0][d] @ pol.hands[0].weights) * (game_reach[1][d] @ pol.hands[1].weights)
            nodes = np.nonzero((prob >= min_reach) | whole)[0].astype(np.int32)
            edges = _edges_of(dep.starts, dep.n_actions, nodes)
            arrays[f"p{p}_d{d}_nodes"] = nodes
            arrays[f"p{p}_d{d}_policy"] = _quantized(pol.strategy[d][edges], whole)
    _write_atomically(Path(path), arrays)


def _quantized(probs: np.ndarray, whole: bool) -> np.ndarray:
    """Probabilities in [0, 1] as ``uint16`` times 65535 (a position stored
    whole) or ``uint8`` times 255 (module doc)."""
    scale, dtype = (65535, np.uint16) if whole else (255, np.uint8)
    out: np.ndarray = np.rint(probs * scale).astype(dtype)
    return out


def _write_atomically(path: Path, arrays: dict[str, Any]) -> None:
    """Write ``arrays`` as an ``.npz`` at exactly ``path`` (numpy would add
    ``.npz`` to another name), whole or not at all
    (:func:`liars_dice.records.writing.write_atomically`: a failed write leaves
    the earlier file whole; a symbolic link is kept, its file replaced)."""
    from ..records.writing import write_atomically

    write_atomically(path, lambda f: np.savez_compressed(f, **arrays))


def _show_arrays(p: int, pol: ShowPolicy, min_reach: float) -> dict[str, np.ndarray]:
    """The stored groups of a position solved with shows (layout in the module doc)."""
    out: dict[str, np.ndarray] = {}
    game_reach = ShowGame(pol.tree).reach(pol.strategy)
    for gi, g in enumerate(pol.tree.groups):
        r0, r1 = game_reach[gi]
        prob = r0.sum(axis=1) * r1.sum(axis=1)  # chance is in the reach of a show tree
        nodes = np.nonzero(prob >= min_reach)[0].astype(np.int32)
        edges = _edges_of(g.starts, _n_actions(g.starts, g.n_edges), nodes)
        out[f"p{p}_g{gi}_nodes"] = nodes
        out[f"p{p}_g{gi}_policy"] = np.rint(pol.strategy[gi][edges] * 255).astype(np.uint8)
    return out


def _n_actions(starts: np.ndarray, n_edges: int) -> np.ndarray:
    return np.diff(np.append(starts, n_edges))


def read_entries(path: str | Path, rules: Rules) -> dict[tuple[int, int], TableEntry]:
    """The positions of an earlier tables file of the same rules (``{}`` if none), for reuse."""
    path = Path(path)
    if not path.exists():
        return {}
    tables = EndgameTables.load(path)
    if tables.key != round_key(rules):
        return {}
    out: dict[tuple[int, int], TableEntry] = {}
    with np.load(path, allow_pickle=False) as z:
        for p, dice in enumerate(tables.values):
            prefix = f"p{p}_"
            stored = {k[len(prefix) :]: np.array(z[k]) for k in z.files if k.startswith(prefix)}
            it = int(z["iterations"][p])
            out[dice] = TableEntry(
                dice, tables.values[dice], tables.exploitability[dice], it, tables.max_depth[dice], stored=stored,
                shows=dice in tables.shows, whole=dice in tables.whole,
            )
    return out


@dataclass
class _GameView:
    """The parts of a round that :func:`reach` reads."""

    tree: BidTree
    hands: tuple[Hands, Hands]

    def n_hands(self, player: int) -> int:
        return self.hands[player].n_hands


def _edges_of(starts: np.ndarray, n_actions: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    if len(nodes) == 0:
        return np.zeros(0, dtype=np.int64)
    counts = n_actions[nodes]
    first = np.repeat(starts[nodes], counts)
    offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    edges: np.ndarray = first + offset
    return edges


@dataclass
class _Position:
    """A position's stored policy, per depth (no shows) or per group of the show tree."""

    dice: tuple[int, int]
    value: float
    tree: BidTree | ShowTree
    hands: tuple[Hands, Hands]
    nodes: list[np.ndarray]
    offsets: list[np.ndarray]
    policy: list[np.ndarray]

    def stored(self, block: int, row: int) -> np.ndarray | None:
        """``(n_edges_of_node, n_hands_actor)`` uint8 of node ``row`` of a depth or
        group, or ``None`` when that node was left out (rarely reached)."""
        k = int(np.searchsorted(self.nodes[block], row))
        if k >= len(self.nodes[block]) or self.nodes[block][k] != row:
            return None
        return self.policy[block][self.offsets[block][k] : self.offsets[block][k + 1]]


@dataclass
class EndgameTables:
    """The loaded tables of one rule set.

    :ivar key: the round-relevant rule options (:func:`round_key`).
    :ivar values: ``V(a, b)`` per position, to the opener, in [-1, 1].
    """

    key: dict[str, Any]
    values: dict[tuple[int, int], float]
    exploitability: dict[tuple[int, int], float]
    max_depth: dict[tuple[int, int], int]
    _file: Path
    shows: frozenset[tuple[int, int]] = frozenset()
    whole: frozenset[tuple[int, int]] = frozenset()

    @staticmethod
    def load(path: str | Path) -> "EndgameTables":
        """Read a tables file.

        :raises SolverError: when the file is missing or malformed.
        """
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                key = json.loads(str(z["rules"]))
                pos = [(int(row[0]), int(row[1])) for row in z["positions"]]
                values = {p: float(v) for p, v in zip(pos, z["values"])}
                expl = {p: float(v) for p, v in zip(pos, z["exploitability"])}
                depth = {p: int(v) for p, v in zip(pos, z["max_depth"])}
                shows = frozenset(p for p, v in zip(pos, z["shows"]) if v) if "shows" in z.files else frozenset()
                whole = frozenset(p for p, v in zip(pos, z["whole"]) if v) if "whole" in z.files else frozenset()
            # A file written before an option existed holds that option's default:
            # the key is read through Rules, which fills in every missing option.
            key = round_key(Rules.from_dict(key))
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
            # attack5: a truncated file raised BadZipFile, a traceback; numpy's
            # refusal of a file that is no archive advised loading it with pickle
            why = (str(e).splitlines() or [type(e).__name__])[0].rstrip(".")
            if isinstance(e, (zipfile.BadZipFile, EOFError)) or "pickle" in why:
                why = "it is not a whole .npz archive"
            raise SolverError(f"{path} is not a readable endgame tables file: {why}.") from None
        return EndgameTables(key, values, expl, depth, path, shows, whole)

    def position(self, dice: tuple[int, int]) -> _Position | None:
        """The stored policy of position ``dice``, or ``None`` when not in the tables.

        Built from the file on first use (about 40 ms of CPU) and kept in a
        cache shared by every rule set's tables: at most :data:`POSITIONS_MAX`
        positions, the least recently used out first, and none unused for
        :data:`POSITION_IDLE_SECONDS`. A built position holds 17-30 MiB (its
        bid tree), and the packaged files hold 22: kept for good, they took a
        worker that hosted strong bots under every preset from 34 to 478 MiB
        (issue 16, "bounded memory"). Thread-safe: one build at a time.
        """
        if dice not in self.values:
            return None
        key = (str(self._file), dice)
        with _POSITIONS_LOCK:
            now = time.monotonic()
            pos = _POSITIONS.get(key)
            if pos is None:
                pos = self._build(dice)
            _POSITIONS[key] = pos
            _POSITIONS.move_to_end(key)
            _USED[key] = now
            for old in list(_POSITIONS)[:-1]:  # oldest first; never the one just asked for
                if len(_POSITIONS) > POSITIONS_MAX or now - _USED[old] > POSITION_IDLE_SECONDS:
                    del _POSITIONS[old], _USED[old]
            return pos

    def _build(self, dice: tuple[int, int]) -> _Position:
        p = list(self.values).index(dice)
        rules = Rules.from_dict(self.key)
        tree: BidTree | ShowTree
        if dice in self.shows:
            tree = ShowTree(rules, dice, self.max_depth[dice])
            blocks = [(f"g{gi}", _n_actions(g.starts, g.n_edges)) for gi, g in enumerate(tree.groups)]
        else:
            tree = BidTree(rules, dice, self.max_depth[dice])
            blocks = [(f"d{d}", dep.n_actions) for d, dep in enumerate(tree.depths)]
        hands = (enumerate_hands(dice[0], rules.faces), enumerate_hands(dice[1], rules.faces))
        nodes, offsets, policy = [], [], []
        with np.load(self._file, allow_pickle=False) as z:
            for name, n_actions in blocks:
                nd = np.array(z[f"p{p}_{name}_nodes"], dtype=np.int64)
                nodes.append(nd)
                counts = n_actions[nd]
                offsets.append(np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
                policy.append(np.array(z[f"p{p}_{name}_policy"]))
        return _Position(dice, self.values[dice], tree, hands, nodes, offsets, policy)


#: The most built endgame positions kept at once, over every rule set
#: (:meth:`EndgameTables.position`): two presets' whole tables, about 230 MiB; a
#: rebuild costs about 40 ms of CPU, so fewer would rebuild at every endgame move of
#: a server that plays two presets.
POSITIONS_MAX = 12
#: Seconds an unused built position stays in memory.
POSITION_IDLE_SECONDS = 300.0
_POSITIONS: OrderedDict[tuple[str, tuple[int, int]], _Position] = OrderedDict()
_USED: dict[tuple[str, tuple[int, int]], float] = {}
_POSITIONS_LOCK = threading.Lock()


def evict_idle(now: float | None = None) -> int:
    """Drop the built positions unused for :data:`POSITION_IDLE_SECONDS`;
    returns how many. :meth:`EndgameTables.position` drops them only when it
    is asked for another position, so once endgames stopped a process kept its
    positions for good (stop 31's attacker: bot processes at 374 MiB stayed at
    408 MiB 330 s later). A served worker and its bot processes call this
    before each return of freed memory (server/runtime/memory.py).

    :param now: ``time.monotonic()`` seconds (default: now)."""
    with _POSITIONS_LOCK:
        now = time.monotonic() if now is None else now
        idle = [k for k in _POSITIONS if now - _USED[k] > POSITION_IDLE_SECONDS]
        for k in idle:
            del _POSITIONS[k], _USED[k]
        return len(idle)


def _data_dir() -> Path:
    return Path(str(resources.files("liars_dice") / "data"))


@lru_cache(maxsize=None)
def _all_tables() -> tuple[EndgameTables, ...]:
    out = []
    for f in sorted(_data_dir().glob("endgame-*.npz")):
        try:
            out.append(EndgameTables.load(f))
        except SolverError:  # pragma: no cover - a broken package file
            continue
    return tuple(out)


def tables_for(rules: Rules) -> EndgameTables | None:
    """The packaged tables of ``rules`` (matched on round-relevant options), or ``None``."""
    key = round_key(rules)
    for t in _all_tables():
        if t.key == key:
            return t
    return None


def preload(rules: Rules) -> bool:
    """Load every table position of ``rules`` now (trees take up to a second each
    to build), so later :func:`endgame_policy` calls are fast. Returns whether
    tables exist for ``rules``."""
    tables = tables_for(rules)
    if tables is None:
        return False
    for dice in tables.values:
        tables.position(dice)
    return True


def endgame_moves(view: SeatView) -> dict[tuple[Action, Hand], float] | None:
    """The equilibrium move probabilities for ``view``'s seat, from the packaged tables.

    Returns ``{(action, shown faces): probability}`` over legal moves with a
    positive probability (summing to 1; ``()``: no show), or ``None`` where no
    table applies: not this seat's turn, not exactly two players with dice, no
    tables for these rules, a position outside the tables, dice shown this
    round in a position stored without shows, a history that equilibrium play
    reaches too rarely to be stored, or one at the bid cap of a position
    solved with capped histories, with or without shows (its forced challenge
    is the abstraction's, not play).
    """
    if view.phase is not Phase.BID or view.to_move != view.seat:
        return None
    alive = [s for s, d in enumerate(view.dice) if d > 0]
    if len(alive) != 2:
        return None
    tables = tables_for(view.rules)
    if tables is None:
        return None
    opener = view.bids[0][0] if view.bids else view.seat
    other = alive[1] if alive[0] == opener else alive[0]
    pos = tables.position((view.dice[opener], view.dice[other]))
    if pos is None:
        return None
    me = 0 if view.seat == opener else 1
    if isinstance(pos.tree, ShowTree):
        return _show_moves(pos, pos.tree, view, me)
    if any(view.shown) or any(sh for _, _, sh in view.bids):
        return None
    history = [b for _, b, _ in view.bids]
    try:
        depth, row = pos.tree.locate(history)
    except SolverError:
        return None
    if depth % 2 != me or len(view.hand) != pos.dice[me]:
        return None
    if depth == pos.tree.max_depth and pos.tree.max_depth < pos.tree.n_bids:
        return None  # the capped tree's forced challenge: the abstraction's, not play
    block = pos.stored(depth, row)
    if block is None:
        return None
    col = pos.hands[me].index(tuple(view.hand))
    actions = pos.tree.actions(depth, row)
    return _normalized([(a, ()) for a in actions], block[:, col])


def _show_moves(pos: _Position, tree: ShowTree, view: SeatView, me: int) -> dict[tuple[Action, Hand], float] | None:
    try:
        gi, row = tree.locate([(b, tuple(s)) for _, b, s in view.bids])
    except SolverError:
        return None
    g = tree.groups[gi]
    if g.actor != me or len(view.hand) != g.hidden[me]:
        return None
    if g.depth == tree.max_depth and tree.max_depth < tree.n_bids:
        return None
    block = pos.stored(gi, row)
    if block is None:
        return None
    col = tree.hands[me][g.hidden[me]].index(tuple(view.hand))
    s = int(g.starts[row])
    legal = g.legal[s : s + len(block), col]
    return _normalized(tree.moves_at(gi, row), np.where(legal, block[:, col], 0))


def _normalized(moves: list[tuple[Action, Hand]], weights: np.ndarray) -> dict[tuple[Action, Hand], float] | None:
    probs = weights.astype(np.float64)
    total = probs.sum()
    if total <= 0:
        return None
    return {m: float(p / total) for m, p in zip(moves, probs) if p > 0}


def endgame_policy(view: SeatView) -> dict[Action, float] | None:
    """The equilibrium action probabilities for ``view``'s seat: :func:`endgame_moves`
    summed over the faces shown with each action (``None`` where that is)."""
    moves = endgame_moves(view)
    if moves is None:
        return None
    out: dict[Action, float] = {}
    for (action, _), p in moves.items():
        out[action] = out.get(action, 0.0) + p
    return out


def build_tables_file(
    rules: Rules,
    path: str | Path,
    max_total: int = 3,
    target_exploitability: float = 2e-3,
    max_iterations: int = 2000,
    min_reach: float = 1e-6,
    report: Callable[[str], None] = print,
    depth_cap: int = 6,
    reuse: bool = True,
    show_max_total: int = 0,
    show_depth_cap: int | None = 4,
) -> list[TableEntry]:
    """Solve and save the tables of ``rules`` (the generator behind ``liars-dice solve --tables``).

    With ``reuse``, positions already in the file at ``path`` (same rules) are
    kept, not solved again, so a run with a larger ``max_total`` only adds the
    new positions; a kept position solved without shows that should now have
    them (``show_max_total``, see :func:`solve_tables`) is solved again, and
    so is a position of :data:`WHOLE_POSITIONS` that the file stores pruned
    (the larger positions kept keep the round payoffs of its earlier value).

    :raises SolverError: with ``reuse``, when the file holds positions of more
        than ``max_total`` dice (the build would drop them) or is a tables file
        of other rules; for a file at ``path`` that is not a tables file (also
        without ``reuse``); for a ``path`` that cannot be
        written (checked before solving); for sizes :func:`solve_tables` refuses.
    """
    start = time.perf_counter()
    path = Path(path)
    if path.is_symlink():  # the checks below are of the file the link points to, which is written
        path = path.resolve()
    _check_largest(rules, max_total, depth_cap)  # sizes first: the cheapest refusal, and path-independent
    # attack5: a bad path was found only when writing, after the whole build
    if path.is_dir():
        raise SolverError(f"{path} is a directory: give --out a file name.")
    if not path.parent.is_dir():
        raise SolverError(f"There is no directory {path.parent} to write {path.name} in.")
    if not os.access(path.parent, os.W_OK):
        raise SolverError(f"The directory {path.parent} cannot be written to.")
    if path.exists():
        # attack5: a file that is no tables file is never replaced (--fresh included: a
        # mistyped --out game.json lost the record); read_entries read another rule
        # set's file as nothing to reuse, and the build replaced it
        other, mine = EndgameTables.load(path).key, round_key(rules)
        if reuse and other != mine:
            k = min(k for k in set(other) | set(mine) if other.get(k) != mine.get(k))
            raise SolverError(
                f"{path} holds the tables of other rules ({k} {other.get(k)!r}, not {mine.get(k)!r} as in "
                f"{rules.name}): pass --fresh to replace them, or another --out."
            )
    known = read_entries(path, rules) if reuse else {}
    beyond = max((sum(p) for p in known), default=0)
    if beyond > max_total:
        raise SolverError(
            f"{path} holds positions of up to {beyond} dice, which a build to {max_total} would drop: "
            f"pass --max-total {beyond} (or more), --fresh, or another --out."
        )
    want = {p for p in positions(max_total) if rules.show_and_reroll and max(p) >= 2 and sum(p) <= show_max_total}
    known = {p: e for p, e in known.items() if e.shows == (p in want) and (not e.shows or e.max_depth == show_depth_cap)
             and (e.whole or p not in WHOLE_POSITIONS)}
    # (a kept show position capped otherwise than asked is solved again, and so is one of
    # WHOLE_POSITIONS stored pruned, by a build before issue 37; ``None`` keeps none)
    entries: list[TableEntry] = []
    for e in solve_tables(rules, max_total, target_exploitability, max_iterations, depth_cap=depth_cap, known=known,
                          show_max_total=show_max_total, show_depth_cap=show_depth_cap):
        entries.append(e)
        how = "kept from the file" if e.result is None else f"{e.result.seconds:.1f} s"
        report(
            f"{rules.name} {e.dice[0]} vs {e.dice[1]}: value {e.value:+.5f}, exploitability "
            f"{e.exploitability:.5f}, {e.iterations} iterations, {how}, "
            f"histories of at most {e.max_depth} bids" + (", with shows" if e.shows else "")
        )
    save_tables(path, rules, entries, min_reach)
    report(f"{rules.name}: wrote {path} in {time.perf_counter() - start:.1f} s")
    return entries


__all__ = [
    "EndgameTables", "TableEntry", "build_game", "build_tables_file", "endgame_moves", "endgame_policy", "leaf_value_for",
    "depth_for", "positions", "preload", "read_entries", "round_key", "save_tables", "solve_tables", "tables_for",
]
