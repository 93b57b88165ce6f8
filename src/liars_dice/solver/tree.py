"""The public bid tree of one two-player round.

Every public history of a round is a strictly rising sequence of bids, so a
node is a bit mask over the ``K`` bids (in bid order, ``rules.rank``): bit ``j``
set means bid ``j`` was made. Player 0 opens; depth ``d`` (bids made) has player
``d % 2`` to act. A node's actions are every bid above its last one, then the
challenge (except at the root). Perfect recall holds: a player's information
set is a node plus their own hand.

Nodes of one depth are ordered by their terminal type (wilds active, last bid),
so the challenge payoffs of a depth are contiguous slices. Edges of one depth
are stored flat, node by node, each node's bids then its challenge, so
per-node sums are one ``np.add.reduceat``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from ..engine import Action, Bid, LiarsDiceError, Rules, legal_actions

#: Most nodes a tree may have (the full tree of K bids has 2**K; six faces and
#: 3 dice in play make K = 18).
MAX_NODES = 1 << 21
#: Most pairs of hands (player 0's times player 1's) in a round the solver takes:
#: its payoffs hold one value per pair (six faces: 7 dice each make 627,264).
MAX_HAND_PAIRS = 1_000_000


class SolverError(LiarsDiceError):
    """A solve that cannot be done as asked (too large a tree, bad dice, a bad policy file).

    ``code`` ``"solver/invalid"``.
    """

    code = "solver/invalid"


@dataclass(frozen=True)
class Depth:
    """Nodes and edges of one depth ``d``.

    :ivar masks: ``(n_nodes,)`` int64 node masks, ordered by terminal type.
    :ivar starts: ``(n_nodes,)`` first edge of each node.
    :ivar n_actions: ``(n_nodes,)`` actions per node.
    :ivar edge_node: ``(n_edges,)`` node of each edge.
    :ivar edge_action: ``(n_edges,)`` bid index of each edge, ``K`` for the challenge.
    :ivar challenge_edges: ``(n_nodes,)`` the challenge edge of each node (empty at the root).
    :ivar bid_edges: ``(n_bid_edges,)`` edges that lead to a node of depth ``d + 1``.
    :ivar parent_edge: ``(n_nodes,)`` the edge of depth ``d - 1`` leading here (empty at the root).
    :ivar parent_node: ``(n_nodes,)`` the node of depth ``d - 1`` above each node.
    :ivar type_slices: ``(start, stop, wild, last)`` runs of nodes with one terminal type.
    """

    masks: np.ndarray
    starts: np.ndarray
    n_actions: np.ndarray
    edge_node: np.ndarray
    edge_action: np.ndarray
    challenge_edges: np.ndarray
    bid_edges: np.ndarray
    parent_edge: np.ndarray
    parent_node: np.ndarray
    type_slices: tuple[tuple[int, int, int, int], ...]

    @property
    def n_nodes(self) -> int:
        return len(self.masks)

    @property
    def n_edges(self) -> int:
        return len(self.edge_node)

    def edges_of(self, nodes: np.ndarray) -> np.ndarray:
        """``(sum of n_actions[nodes],)`` int64: the edges of ``nodes`` (rows of
        this depth), node by node in the order given."""
        if len(nodes) == 0:
            return np.zeros(0, dtype=np.int64)
        counts = self.n_actions[nodes]
        first = np.repeat(self.starts[nodes], counts)
        offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        edges: np.ndarray = (first + offset).astype(np.int64)
        return edges


def round_bids(rules: Rules, dice: tuple[int, ...]) -> tuple[list[Bid], set[Bid]]:
    """Every bid of a two-player round with ``dice`` in bid order, and the
    openings: the opening may be narrower (no opening on the wild face under
    ``wild_opening=false``, RULES.md perudo).

    :raises SolverError: unless two players each hold at least one die, or for
        more than :data:`MAX_HAND_PAIRS` pairs of hands (checked before any bid is listed).
    """
    if len(dice) != 2 or min(dice) < 1:
        raise SolverError("The solver plays two players, each with at least one die.")
    n = int(dice[0]) + int(dice[1])
    # Bounded before anything is enumerated: a million dice took minutes and
    # gigabytes before the tree's size check (attack4).
    pairs = comb(int(dice[0]) + rules.faces - 1, int(dice[0])) * comb(int(dice[1]) + rules.faces - 1, int(dice[1]))
    if pairs > MAX_HAND_PAIRS or n * rules.faces > MAX_NODES:
        raise SolverError(
            f"Dice {int(dice[0])} and {int(dice[1])} make "
            + (f"{pairs:,}" if pairs < 10**15 else "more than 10^15")
            + " pairs of hands; the solver handles at most "
            f"{MAX_HAND_PAIRS:,} (with six faces, at most 7 dice each)."
        )
    every = rules if rules.wild_opening else rules.with_options(wild_opening=True)
    bids = [a for a in legal_actions(every, None, n) if isinstance(a, Bid)]
    return bids, {a for a in legal_actions(rules, None, n) if isinstance(a, Bid)}


class BidTree:
    """The public tree of one round between player 0 (opener, ``dice[0]`` dice)
    and player 1 (``dice[1]`` dice).

    :param max_depth: most bids in a history, or ``None`` for the full tree.
        With a cap, a player facing ``max_depth`` bids must challenge: an
        abstraction of the real round, used for positions whose full tree is
        too large (equilibrium play at 3 dice never reaches 8 bids).
    :ivar bids: the ``K`` bids with quantity up to the dice in play, in bid order.
    :ivar wild_of_first: ``(K,)`` bool, whether wilds count in a round opened by bid ``j``.
    :ivar depths: one :class:`Depth` per number of bids made, ``0 .. max_depth``.
    :raises SolverError: for a tree of more than :data:`MAX_NODES` nodes, a
        player without dice, too many dice (:func:`round_bids`), or ``max_depth`` below 1.
    """

    def __init__(self, rules: Rules, dice: tuple[int, int], max_depth: int | None = None):
        self.rules = rules
        self.bids, openings = round_bids(rules, dice)
        self.dice = (int(dice[0]), int(dice[1]))
        n = sum(self.dice)
        if rules.calza and rules.calza_min_players <= 2:
            raise SolverError(
                "The solver does not model calza in two-player rounds (calza_min_players is "
                f"{rules.calza_min_players}): a right calza gains a die and nobody loses, which a round's "
                "+1/-1 payoff cannot express; set calza_min_players to 3 or more."
            )
        k = len(self.bids)
        self.n_bids = k
        if max_depth is not None and max_depth < 1:
            raise SolverError(f"max_depth is the most bids in a history, at least 1, not {max_depth!r}.")
        depth_cap = k if max_depth is None else min(int(max_depth), k)
        self.max_depth = depth_cap
        # Exact up to 64 bids deep (any real table); past that the count is only
        # bounded: summing comb(12000, d) for --dice 1000 1000 took 43 s, and
        # 2**k past 14,000 bids has more digits than Python will print.
        exact = depth_cap <= 64
        size = sum(comb(k, d) for d in range(depth_cap + 1)) if exact else MAX_NODES + 1
        if size > MAX_NODES:
            raise SolverError(
                f"{n} dice in play make {k} bids and "
                + (f"{size:,}" if exact else "more than 2^64") + " public histories"
                + ("" if max_depth is None else f" of at most {depth_cap} bids")
                + f"; the exact solver handles at most {MAX_NODES:,} (with six faces and no cap, at most 3 dice in play)."
            )
        self.wild_of_first = np.array([rules.wilds_active_after_opening(b.face) for b in self.bids], dtype=bool)
        self.depths: list[Depth] = []
        self._sorted_masks: list[np.ndarray] = []
        self._sorted_rows: list[np.ndarray] = []
        ms = np.zeros(1, dtype=np.int64)
        lst = np.full(1, -1, dtype=np.int64)
        first = np.full(1, -1, dtype=np.int64)
        parent_edge = parent_node = np.zeros(0, dtype=np.int64)
        for d in range(depth_cap + 1):
            wild = np.where(first >= 0, self.wild_of_first[np.maximum(first, 0)], True).astype(np.int64)
            order = np.lexsort((ms, lst, wild))
            ms, lst, first, wild = ms[order], lst[order], first[order], wild[order]
            if d > 0:
                parent_edge, parent_node = parent_edge[order], parent_node[order]
            srt = np.argsort(ms)
            self._sorted_masks.append(ms[srt])
            self._sorted_rows.append(srt.astype(np.int64))
            n_bid = (k - 1 - lst) if d < depth_cap else np.zeros(len(ms), dtype=np.int64)
            has_ch = 1 if d > 0 else 0
            n_act = (n_bid + has_ch).astype(np.int64)
            starts = np.concatenate(([0], np.cumsum(n_act)[:-1])).astype(np.int64)
            n_edges = int(n_act.sum())
            edge_node = np.repeat(np.arange(len(ms)), n_act)
            offset = np.arange(n_edges) - starts[edge_node]
            edge_action = lst[edge_node] + 1 + offset
            if d == 0 and len(openings) < k:  # the root: legal openings only
                edge_action = np.array([i for i, b in enumerate(self.bids) if b in openings], dtype=np.int64)
                n_act = np.array([len(edge_action)], dtype=np.int64)
                n_edges = len(edge_action)
                edge_node = np.zeros(n_edges, dtype=np.int64)
            if has_ch:
                challenge_edges = starts + n_act - 1
                edge_action[challenge_edges] = k
            else:
                challenge_edges = np.zeros(0, dtype=np.int64)
            bid_edges = np.nonzero(edge_action < k)[0]
            slices: list[tuple[int, int, int, int]] = []
            if d > 0:
                key = wild * (k + 1) + lst
                cut = np.nonzero(np.diff(key))[0] + 1
                bounds = np.concatenate(([0], cut, [len(ms)]))
                for a, b in zip(bounds[:-1], bounds[1:]):
                    slices.append((int(a), int(b), int(wild[a]), int(lst[a])))
            self.depths.append(
                Depth(ms, starts, n_act, edge_node, edge_action, challenge_edges, bid_edges,
                      parent_edge, parent_node, tuple(slices))
            )
            # The next depth: one child per bid edge, in edge order (re-sorted above).
            parent_node = edge_node[bid_edges]
            parent_edge = bid_edges
            j = edge_action[bid_edges]
            first = np.where(first[parent_node] >= 0, first[parent_node], j)
            ms = ms[parent_node] | (np.int64(1) << j)
            lst = j

    @property
    def n_nodes(self) -> int:
        return sum(dep.n_nodes for dep in self.depths)

    def actor(self, depth: int) -> int:
        """The player to act at ``depth`` (player 0 opens)."""
        return depth % 2

    def locate(self, history: list[Bid] | tuple[Bid, ...]) -> tuple[int, int]:
        """``(depth, row)`` of the node reached by ``history`` (this round's bids in order).

        :raises SolverError: when a bid is not in the tree, the bids do not
            rise, or the history is longer than :attr:`max_depth`.
        """
        mask, last = 0, -1
        index = {(b.quantity, b.face): j for j, b in enumerate(self.bids)}
        for b in history:
            j = index.get((b.quantity, b.face))
            if j is None or j <= last:
                raise SolverError(f"The history {[str(x) for x in history]} is not a rising sequence of bids of this tree.")
            mask |= 1 << j
            last = j
        d = len(history)
        if d > self.max_depth:
            raise SolverError(f"The history has {d} bids; this tree stops at {self.max_depth}.")
        return d, self.locate_mask(d, mask)

    def locate_mask(self, depth: int, mask: int) -> int:
        """Row of the node ``mask`` (bit ``j``: bid ``j`` made) at ``depth``.

        :raises SolverError: when no such node exists.
        """
        masks = self._sorted_masks[depth]
        k = int(np.searchsorted(masks, mask))
        if k >= len(masks) or masks[k] != mask:
            raise SolverError(f"No node {mask:#x} at depth {depth}.")
        return int(self._sorted_rows[depth][k])

    def actions(self, depth: int, row: int) -> list[Action]:
        """The actions at a node, in edge order (bids, then the challenge)."""
        from ..engine import CHALLENGE

        dep = self.depths[depth]
        s, n = int(dep.starts[row]), int(dep.n_actions[row])
        return [self.bids[a] if a < self.n_bids else CHALLENGE for a in dep.edge_action[s : s + n]]
