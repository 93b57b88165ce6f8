"""The two sweeps every computation on the bid tree is made of, vectorized
over hands and over all nodes of one depth at a time.

* :func:`reach`: forward, each player's probability of playing to every node.
* :func:`backward`: counterfactual values of one player at every node, with
  that player following a policy or best-responding.

A *policy* here is a list over depths of ``(n_edges_d, n_hands_actor)``
float64 arrays: at depth ``d`` the probability that the acting player
(``d % 2``), holding each hand, takes each edge; the edges of a node sum to 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from .hands import Hands
from .tree import BidTree


class TreeAndHands(Protocol):
    """What :func:`reach` reads of a round: its bid tree and each player's hand count."""

    @property
    def tree(self) -> BidTree: ...

    def n_hands(self, player: int) -> int: ...


class RoundGame:
    """A round ready to solve: tree, both players' hands, terminal payoffs.

    :ivar payoff: ``(2, 2, K, n0, n1)`` payoff to player 0 (see :func:`terminal_payoffs`).
    :ivar weighted: per player ``i``, ``(2, 2, K, n_i, n_other)``: payoff to
        ``i`` times the other player's chance weights, the matrix a
        counterfactual value multiplies the other player's reach by.
    """

    def __init__(self, tree: BidTree, hands: tuple[Hands, Hands], payoff: np.ndarray):
        self.tree = tree
        self.hands = hands
        self.payoff = payoff
        w0, w1 = hands[0].weights, hands[1].weights
        self.weighted = (
            np.ascontiguousarray(payoff * w1[None, None, None, None, :]),
            np.ascontiguousarray(np.swapaxes(-payoff, 3, 4) * w0[None, None, None, None, :]),
        )

    def n_hands(self, player: int) -> int:
        return self.hands[player].n_hands

    def uniform_policy(self) -> list[np.ndarray]:
        """Every action equally likely at every node."""
        out = []
        for d, dep in enumerate(self.tree.depths):
            p = 1.0 / dep.n_actions[dep.edge_node]
            out.append(np.repeat(p[:, None], self.n_hands(d % 2), axis=1))
        return out


def reach(game: TreeAndHands, policy: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each player's own reach probability, per depth ``(n_nodes_d, n_hands_p)``
    (chance excluded)."""
    depths = game.tree.depths
    r: tuple[list[np.ndarray], list[np.ndarray]] = (
        [np.ones((1, game.n_hands(0)))],
        [np.ones((1, game.n_hands(1)))],
    )
    for d in range(len(depths) - 1):
        nxt = depths[d + 1]
        a = d % 2
        r[a].append(r[a][d][nxt.parent_node] * policy[d][nxt.parent_edge])
        r[1 - a].append(r[1 - a][d][nxt.parent_node])
    return r


def node_values(
    edge_values: np.ndarray,
    starts: np.ndarray,
    policy: np.ndarray | None,
    best_response: bool = False,
    legal: np.ndarray | None = None,
) -> np.ndarray:
    """A player's counterfactual values at nodes, ``(n_nodes, n_hands)``, from
    their values on the nodes' edges ``edge_values`` ``(n_edges, n_hands)``
    (each node's edges contiguous from ``starts``).

    :param policy: ``(n_edges, n_hands)`` the player's own policy at their
        nodes, or ``None`` at the other player's nodes (whose probabilities are
        already in ``edge_values``): the edges' plain sum.
    :param best_response: at the player's own nodes, the best edge per hand.
    :param legal: ``(n_edges, n_hands)`` bool, the edges a hand may take (a
        show needs the shown faces); ``None``: all.
    """
    if policy is None:
        return np.add.reduceat(edge_values, starts, axis=0)
    if best_response:
        masked = edge_values if legal is None else np.where(legal, edge_values, -np.inf)
        return np.maximum.reduceat(masked, starts, axis=0)
    return np.add.reduceat(policy * edge_values, starts, axis=0)


OwnNodeHook = Callable[[int, np.ndarray, np.ndarray], None]

#: At the player's own nodes of a depth, node values ``(n_nodes, n)`` from
#: ``(depth, edge values (n_edges, n))``, in place of following a policy.
OwnNodeValues = Callable[[int, np.ndarray], np.ndarray]


def backward(
    game: RoundGame,
    player: int,
    policy: list[np.ndarray],
    other_reach: list[np.ndarray],
    best_response: bool | list[np.ndarray] = False,
    on_own_node: OwnNodeHook | None = None,
    own_values: OwnNodeValues | None = None,
) -> np.ndarray:
    """Counterfactual values of ``player`` at the root, ``(n_hands_player,)``.

    :param other_reach: the other player's reach per depth (from :func:`reach`).
    :param best_response: at ``player``'s nodes take the best edge per hand
        instead of following ``policy``; or, per depth, a ``(n_nodes_d,)`` bool
        mask of the nodes where to (``policy`` elsewhere; entries at the other
        player's depths are ignored).
    :param on_own_node: called at each depth where ``player`` acts with
        ``(depth, edge_values (n_edges, n), node_values (n_nodes, n))``.
    :param own_values: at ``player``'s nodes, their values from the edges'
        (e.g. a best response restricted to part of a policy,
        :mod:`.restricted`); overrides ``policy`` and ``best_response`` there.
    """
    tree = game.tree
    depths = tree.depths
    other = 1 - player
    a_mat = game.weighted[player]
    n = game.n_hands(player)
    v_next = np.zeros((0, n))
    for d in range(len(depths) - 1, -1, -1):
        dep = depths[d]
        actor = d % 2
        ve = np.empty((dep.n_edges, n))
        if d + 1 < len(depths):
            ve[depths[d + 1].parent_edge] = v_next
        if d > 0:
            rho = other_reach[d]
            if actor == other:
                rho = rho * policy[d][dep.challenge_edges]
            bidder = 1 - actor
            ch = dep.challenge_edges
            for s, e, wild, last in dep.type_slices:
                ve[ch[s:e]] = rho[s:e] @ a_mat[bidder, wild, last].T
        if own_values is not None and actor == player:
            v = own_values(d, ve)
        elif isinstance(best_response, list):
            v = node_values(ve, dep.starts, policy[d] if actor == player else None)
            mask = best_response[d]
            if actor == player and mask.any():
                v[mask] = node_values(ve, dep.starts, policy[d], True)[mask]
        else:
            v = node_values(ve, dep.starts, policy[d] if actor == player else None, best_response)
        if actor == player and on_own_node is not None:
            on_own_node(d, ve, v)
        v_next = v
    root: np.ndarray = v_next[0]
    return root
