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

import numpy as np

from ..engine import Action, Bid, Rules, legal_actions, wilds_active_after_opening

#: Most bids a tree may have: 2**MAX_BIDS nodes (six faces: at most 3 dice in play).
MAX_BIDS = 20


class SolverError(ValueError):
    """A solve that cannot be done as asked (too large a tree, bad dice, a bad policy file)."""


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


class BidTree:
    """The public tree of one round between player 0 (opener, ``dice[0]`` dice)
    and player 1 (``dice[1]`` dice).

    :ivar bids: the ``K`` bids with quantity up to the dice in play, in bid order.
    :ivar wild_of_first: ``(K,)`` bool, whether wilds count in a round opened by bid ``j``.
    :ivar depths: ``K + 1`` :class:`Depth` values.
    :ivar node_index: ``(2**K,)`` int32, a mask's row within its depth.
    :raises SolverError: for more than :data:`MAX_BIDS` bids, or a player without dice.
    """

    def __init__(self, rules: Rules, dice: tuple[int, int]):
        if len(dice) != 2 or min(dice) < 1:
            raise SolverError("The solver plays two players, each with at least one die.")
        self.rules = rules
        self.dice = (int(dice[0]), int(dice[1]))
        n = sum(self.dice)
        self.bids: list[Bid] = [a for a in legal_actions(rules, None, n) if isinstance(a, Bid)]
        k = len(self.bids)
        if k > MAX_BIDS:
            raise SolverError(
                f"{n} dice in play make {k} bids and 2**{k} public histories; the exact solver "
                f"handles at most {MAX_BIDS} bids (with six faces, at most 3 dice in play)."
            )
        self.n_bids = k
        self.wild_of_first = np.array([wilds_active_after_opening(rules, b.face) for b in self.bids], dtype=bool)
        masks = np.arange(1 << k, dtype=np.int64)
        pop = np.zeros(1 << k, dtype=np.int64)
        last = np.full(1 << k, -1, dtype=np.int64)
        first = np.full(1 << k, -1, dtype=np.int64)
        for j in range(k):
            bit = ((masks >> j) & 1).astype(bool)
            pop += bit
            last[bit] = j
        for j in reversed(range(k)):
            first[((masks >> j) & 1).astype(bool)] = j
        wild = np.where(first >= 0, self.wild_of_first[np.maximum(first, 0)], True).astype(np.int64)
        self.node_index = np.zeros(1 << k, dtype=np.int32)
        by_depth: list[np.ndarray] = []
        for d in range(k + 1):
            ms = masks[pop == d]
            order = np.lexsort((ms, last[ms], wild[ms]))
            ms = ms[order]
            self.node_index[ms] = np.arange(len(ms), dtype=np.int32)
            by_depth.append(ms)
        self.depths: list[Depth] = []
        prev_edges: tuple[np.ndarray, np.ndarray] | None = None  # (edge child masks, -) of depth d-1
        for d, ms in enumerate(by_depth):
            lst = last[ms]
            n_bid = (k - 1 - lst).astype(np.int64)
            has_ch = 1 if d > 0 else 0
            n_act = n_bid + has_ch
            starts = np.concatenate(([0], np.cumsum(n_act)[:-1])).astype(np.int64)
            n_edges = int(n_act.sum())
            edge_node = np.repeat(np.arange(len(ms)), n_act)
            offset = np.arange(n_edges) - starts[edge_node]
            edge_action = lst[edge_node] + 1 + offset
            if has_ch:
                challenge_edges = starts + n_act - 1
                edge_action[challenge_edges] = k
            else:
                challenge_edges = np.zeros(0, dtype=np.int64)
            bid_edges = np.nonzero(edge_action < k)[0]
            if d > 0:
                assert prev_edges is not None
                child_masks, parent_nodes = prev_edges
                rows = self.node_index[child_masks]
                parent_edge = np.empty(len(ms), dtype=np.int64)
                parent_node = np.empty(len(ms), dtype=np.int64)
                parent_edge[rows] = prev_bid_edges
                parent_node[rows] = parent_nodes
            else:
                parent_edge = parent_node = np.zeros(0, dtype=np.int64)
            child_masks = ms[edge_node[bid_edges]] | (np.int64(1) << edge_action[bid_edges])
            prev_edges = (child_masks, edge_node[bid_edges])
            prev_bid_edges = bid_edges
            slices: list[tuple[int, int, int, int]] = []
            if d > 0:
                key = wild[ms] * (k + 1) + lst
                cut = np.nonzero(np.diff(key))[0] + 1
                bounds = np.concatenate(([0], cut, [len(ms)]))
                for a, b in zip(bounds[:-1], bounds[1:]):
                    slices.append((int(a), int(b), int(wild[ms[a]]), int(lst[a])))
            self.depths.append(
                Depth(ms, starts, n_act, edge_node, edge_action, challenge_edges, bid_edges,
                      parent_edge, parent_node, tuple(slices))
            )

    @property
    def n_nodes(self) -> int:
        return 1 << self.n_bids

    def actor(self, depth: int) -> int:
        """The player to act at ``depth`` (player 0 opens)."""
        return depth % 2

    def locate(self, history: list[Bid] | tuple[Bid, ...]) -> tuple[int, int]:
        """``(depth, row)`` of the node reached by ``history`` (this round's bids in order).

        :raises SolverError: when a bid is not in the tree or the bids do not rise.
        """
        mask, last = 0, -1
        index = {(b.quantity, b.face): j for j, b in enumerate(self.bids)}
        for b in history:
            j = index.get((b.quantity, b.face))
            if j is None or j <= last:
                raise SolverError(f"The history {[str(x) for x in history]} is not a rising sequence of bids of this tree.")
            mask |= 1 << j
            last = j
        return len(history), int(self.node_index[mask])

    def actions(self, depth: int, row: int) -> list[Action]:
        """The actions at a node, in edge order (bids, then the challenge)."""
        from ..engine import CHALLENGE

        dep = self.depths[depth]
        s, n = int(dep.starts[row]), int(dep.n_actions[row])
        return [self.bids[a] if a < self.n_bids else CHALLENGE for a in dep.edge_action[s : s + n]]
