"""CFR+ (Tammelin 2014; Bowling et al., Science 2015) on the public bid tree.

Regrets and cumulative strategies live per depth as ``(n_edges_d, n_hands)``
float64, one row per (node, action) edge and one column per private hand of
the acting player: a node's block of rows is its ``(n_actions, n_hands)``
regret table. Every update is a numpy operation over all nodes of a depth and
all hands at once; no information set is visited alone.

CFR+ as in OpenSpiel's ``CFRPlusSolver``: alternating updates, regret
matching+ (regrets floored at 0), and a linearly weighted average strategy
(iteration ``t`` weighs ``t``).
"""

from __future__ import annotations

import numpy as np

from .passes import RoundGame, backward, reach


def regret_matching(game: RoundGame, d: int, positive: np.ndarray) -> np.ndarray:
    """The policy at depth ``d`` proportional to ``positive`` ``(n_edges, n)``;
    uniform at a node whose entries are all zero."""
    dep = game.tree.depths[d]
    sums = np.add.reduceat(positive, dep.starts, axis=0)[dep.edge_node]
    uniform = (1.0 / dep.n_actions[dep.edge_node])[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums > 0, positive / np.where(sums > 0, sums, 1.0), uniform)


class CFRPlusLoop:
    """The CFR+ loop shared by the plain round (:class:`CFRPlus`) and the
    show-and-reroll round (:class:`~liars_dice.solver.shows.ShowCFRPlus`):
    alternating updates, iteration ``t`` weighing ``t`` in the average.

    A subclass sets :attr:`cumulative` (one array per block of edges: a depth,
    or a group of nodes) and gives :meth:`_update` (one player's regrets,
    cumulative strategy and policy) and :meth:`_normalize` (a block's policy
    proportional to non-negative entries).

    :ivar iterations: iterations done (one iteration updates both players).
    """

    regret: list[np.ndarray]
    cumulative: list[np.ndarray]
    policy: list[np.ndarray]
    iterations: int

    def _accumulate(self, block: int, edge_node: np.ndarray, edge_values: np.ndarray, node_values: np.ndarray,
                    weighted_reach: np.ndarray, legal: np.ndarray | None = None) -> None:
        """Regret matching+ and the average of one block of the acting player's
        edges: regrets gain ``edge_values - node_values`` (zero where ``legal``
        forbids an edge) floored at 0; the cumulative strategy gains the policy
        times ``weighted_reach`` ``(n_nodes, n_hands)`` (own reach times the
        iteration's weight)."""
        reg = self.regret[block]
        reg += edge_values
        reg -= node_values[edge_node]
        if legal is not None:
            reg *= legal
        np.maximum(reg, 0.0, out=reg)
        self.cumulative[block] += weighted_reach[edge_node] * self.policy[block]

    def _update(self, player: int, weight: float) -> None:
        raise NotImplementedError

    def _normalize(self, block: int, positive: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (each: player 0 then player 1)."""
        for _ in range(n):
            self.iterations += 1
            for player in (0, 1):
                self._update(player, float(self.iterations))

    def average_policy(self) -> list[np.ndarray]:
        """The weighted average policy, per block ``(n_edges, n_hands_actor)``;
        uniform where a hand never reaches a node."""
        return [self._normalize(i, c) for i, c in enumerate(self.cumulative)]


class CFRPlus(CFRPlusLoop):
    """A CFR+ run. Call :meth:`iterate`, read :meth:`average_policy`.

    :ivar iterations: iterations done (one iteration updates both players).
    """

    def __init__(self, game: RoundGame):
        self.game = game
        depths = game.tree.depths
        self.regret = [np.zeros((dep.n_edges, game.n_hands(d % 2))) for d, dep in enumerate(depths)]
        self.cumulative = [np.zeros_like(r) for r in self.regret]
        self.policy = game.uniform_policy()
        self.iterations = 0

    def _normalize(self, block: int, positive: np.ndarray) -> np.ndarray:
        return regret_matching(self.game, block, positive)

    def _update(self, player: int, weight: float) -> None:
        game = self.game
        r = reach(game, self.policy)
        own = r[player]
        depths = game.tree.depths

        def hook(d: int, ve: np.ndarray, v: np.ndarray) -> None:
            self._accumulate(d, depths[d].edge_node, ve, v, weight * own[d])

        backward(game, player, self.policy, r[1 - player], on_own_node=hook)
        for d in range(player, len(depths), 2):
            self.policy[d] = regret_matching(game, d, self.regret[d])
