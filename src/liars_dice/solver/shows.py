"""Show-and-reroll in the two-player round solver (seed 000 "Show and reroll"; RULES.md ``wild-stars``).

Right after a bid the bidder may set some hidden dice out in the open (a
*show*) and must reroll the rest, keeping at least one hidden. The shown faces
become public and count like any other die; the reroll is a chance node whose
outcome only the bidder sees.

The public tree of :mod:`.tree` becomes a tree of *public states*: the bids
made, with the faces each one showed. A player's private state is their
current hidden dice. Dice rerolled away are forgotten: they are independent of
everything still to happen, so an information set (public state, hidden
dice) loses nothing a player could use (the same argument makes the engine's
:class:`~liars_dice.engine.SeatView` a sufficient information set).

Nodes are grouped by (depth, hidden dice of each player): a :class:`Group`
holds its nodes' edges flat, node by node, so every sweep is a handful of
numpy operations per group, vectorized over nodes and hands as in
:mod:`.passes`. Reach includes chance here (the deal's multinomial weights,
and a reroll's), so a show edge maps the shower's reach ``(n_hands_before,)``
to ``sum(reach * policy) * roll_weights (n_hands_after,)``; its value to the
shower is ``roll_weights @ child_values`` for every hand holding the shown
faces (other hands may not take it: a legality mask).

Sizes: with two dice the opener may show one die (6 faces) after any of their
bids, so a 2 vs 1 round has about 7.5 million public states against 262,144
without shows; :data:`MAX_STATES` caps the tree, and ``max_depth`` (the player
facing ``max_depth`` bids must challenge) keeps larger rounds inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from math import comb

import numpy as np

from ..engine import CHALLENGE, Action, Bid, Hand, Rules
from ..engine.view import SeatView
from .cfr import CFRPlusLoop
from .hands import Hands, enumerate_hands
from .outcome import challenge_outcome
from .passes import node_values
from .payoff import LeafValue, single_round_value
from .policy import OfRound, read_policy_file, write_policy_file
from .tree import SolverError, round_bids

#: Most public states a show tree may have (memory: about 200 bytes per state
#: and hand for a solve).
MAX_STATES = 1_500_000


@dataclass
class Link:
    """Edges of a group that lead to nodes of one child group.

    :ivar child: index of the child group.
    :ivar edges: ``(m,)`` edges of the parent group.
    :ivar rows: ``(m,)`` the child nodes, rows of the child group.
    :ivar shown: dice shown on these edges (0: a plain bid).
    """

    child: int
    edges: np.ndarray
    rows: np.ndarray
    shown: int


@dataclass
class Group:
    """Nodes of one depth where player 0 hides ``hidden[0]`` dice and player 1 ``hidden[1]``.

    :ivar edge_node: ``(n_edges,)`` node of each edge; a node's edges are contiguous.
    :ivar starts: ``(n_nodes,)`` first edge of each node.
    :ivar edge_bid: ``(n_edges,)`` bid index, ``K`` for the challenge.
    :ivar edge_show: ``(n_edges,)`` the shown faces, an index into :attr:`ShowTree.show_options`
        of the actor's hidden count (0: none).
    :ivar legal: ``(n_edges, n_hands_actor)`` bool: the hand holds the shown faces.
    :ivar terminals: ``(edges, nodes, key)``: challenge edges of one payoff type.
    """

    depth: int
    hidden: tuple[int, int]
    n_nodes: int
    starts: np.ndarray
    edge_node: np.ndarray
    edge_bid: np.ndarray
    edge_show: np.ndarray
    legal: np.ndarray
    links: list[Link] = field(default_factory=list)
    terminals: list[tuple[np.ndarray, np.ndarray, tuple[int, ...]]] = field(default_factory=list)
    shown: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))

    @property
    def actor(self) -> int:
        return self.depth % 2

    @property
    def n_edges(self) -> int:
        return len(self.edge_node)


def _multisets(k: int, faces: int) -> list[Hand]:
    return list(combinations_with_replacement(range(1, faces + 1), k))


class ShowTree:
    """The public tree of a round with show-and-reroll (player 0 opens).

    :ivar bids: the ``K`` bids in bid order.
    :ivar hands: ``hands[p][n]``: the :class:`Hands` of ``n`` hidden dice of player ``p``'s size.
    :ivar show_options: ``show_options[n]``: ``()`` then every multiset a player
        hiding ``n`` dice may show (1 to ``n - 1`` dice).
    :ivar shown_sets: every multiset of shown faces a player may have out, by id.
    :ivar groups: the node groups, parents before children.
    :raises SolverError: for more than :data:`MAX_STATES` public states, bad dice.
    """

    def __init__(self, rules: Rules, dice: tuple[int, int], max_depth: int | None = None,
                 max_states: int = MAX_STATES):
        self.rules = rules
        self.bids, openings = round_bids(rules, dice)
        self.dice = (int(dice[0]), int(dice[1]))
        k = self.n_bids = len(self.bids)
        if max_depth is not None and max_depth < 1:
            raise SolverError(f"max_depth is the most bids in a history, at least 1, not {max_depth!r}.")
        self.max_depth = k if max_depth is None else min(int(max_depth), k)
        faces = rules.faces
        # Refuse before enumerating: every plain history is a state, and the
        # hands and shows of the larger player grow as multisets of their dice
        # (--dice 1000 1000 would otherwise enumerate for ever).
        cap = min(self.max_depth, 64)
        plain = sum(comb(k, d) for d in range(cap + 1)) if self.max_depth <= 64 else max_states + 1
        multisets = comb(max(self.dice) + faces - 1, faces - 1)
        if plain > max_states or multisets > max_states:
            raise SolverError(
                f"With show-and-reroll, {sum(self.dice)} dice in play make more than {max_states:,} public states"
                + ("" if self.max_depth == k else f" in histories of at most {self.max_depth} bids")
                + "; solve fewer dice or cap the bids per history (max_depth)."
            )
        self.hands = tuple({m: enumerate_hands(m, faces) for m in range(1, d + 1)} for d in self.dice)
        self.show_options: dict[int, list[Hand]] = {
            m: [()] + [s for size in range(1, m) for s in _multisets(size, faces)] if rules.show_and_reroll else [()]
            for m in range(1, max(self.dice) + 1)
        }
        self.shown_sets: list[Hand] = [()]
        self._shown_id: dict[Hand, int] = {(): 0}
        self.wild_of_first = np.array([rules.wilds_active_after_opening(b.face) for b in self.bids], dtype=bool)
        self._opening = np.array([b in openings for b in self.bids], dtype=bool)
        self.groups: list[Group] = []
        self._build(max_states)

    def shown_id(self, faces: Hand) -> int:
        key = tuple(sorted(faces))
        i = self._shown_id.get(key)
        if i is None:
            i = self._shown_id[key] = len(self.shown_sets)
            self.shown_sets.append(key)
        return i

    @property
    def n_states(self) -> int:
        return sum(g.n_nodes for g in self.groups)

    def _build(self, max_states: int) -> None:
        k = self.n_bids
        # Pending nodes per (depth, hidden): arrays of mask, last, first, shown0, shown1, and their parent link.
        frontier: dict[tuple[int, int, int], dict[str, list[np.ndarray]]] = {}
        root = {"mask": [np.zeros(1, np.int64)], "last": [np.full(1, -1, np.int64)], "first": [np.full(1, -1, np.int64)],
                "s0": [np.zeros(1, np.int64)], "s1": [np.zeros(1, np.int64)]}
        frontier[(0, self.dice[0], self.dice[1])] = root
        pending_links: dict[tuple[int, int, int], list[tuple[int, np.ndarray, int, int]]] = {}
        index: dict[tuple[int, int, int], int] = {}
        total = 0
        for d in range(self.max_depth + 1):
            for key in sorted(kk for kk in frontier if kk[0] == d):
                parts = frontier.pop(key)
                cols = {name: np.concatenate(v) for name, v in parts.items()}
                hidden = (key[1], key[2])
                gi = len(self.groups)
                index[key] = gi
                n_nodes = len(cols["mask"])
                total += n_nodes
                if total > max_states:
                    raise SolverError(
                        f"With show-and-reroll, {sum(self.dice)} dice in play make more than {max_states:,} public "
                        + ("states" if self.max_depth == k else f"states in histories of at most {self.max_depth} bids")
                        + "; cap the bids per history (max_depth)."
                    )
                # Link parents to these rows (rows in concatenation order).
                offset = 0
                for parent, edges, shown, count in pending_links.pop(key, []):
                    self.groups[parent].links.append(Link(gi, edges, np.arange(offset, offset + count), shown))
                    offset += count
                actor = d % 2
                options = self.show_options[hidden[actor]]
                last, first = cols["last"], cols["first"]
                n_bid = (k - 1 - last) if d < self.max_depth else np.zeros(n_nodes, np.int64)
                has_ch = 1 if d > 0 else 0
                n_opt = len(options)
                if d == 0:
                    opening = np.nonzero(self._opening)[0]
                    edge_bid = np.repeat(opening, n_opt)
                    edge_show = np.tile(np.arange(n_opt), len(opening))
                    n_act = np.array([len(edge_bid)], np.int64)
                    edge_node = np.zeros(len(edge_bid), np.int64)
                else:
                    n_act = n_bid * n_opt + has_ch
                    n_edges = int(n_act.sum())
                    edge_node = np.repeat(np.arange(n_nodes), n_act)
                    starts = np.concatenate(([0], np.cumsum(n_act)[:-1])).astype(np.int64)
                    off = np.arange(n_edges) - starts[edge_node]
                    edge_bid = last[edge_node] + 1 + off // n_opt
                    edge_show = off % n_opt
                    ch = starts + n_act - 1
                    edge_bid[ch] = k
                    edge_show[ch] = 0
                starts = np.concatenate(([0], np.cumsum(n_act)[:-1])).astype(np.int64)
                hands_a = self.hands[actor][hidden[actor]]
                legal = np.ones((len(edge_node), hands_a.n_hands), dtype=bool)
                for si, s in enumerate(options):
                    if not s:
                        continue
                    need = np.zeros(self.rules.faces, np.int64)
                    for f in s:
                        need[f - 1] += 1
                    ok = (hands_a.face_counts >= need).all(axis=1)
                    legal[edge_show == si] = ok
                group = Group(d, hidden, n_nodes, starts, edge_node, edge_bid, edge_show, legal,
                              shown=(cols["s0"], cols["s1"]))
                self.groups.append(group)
                # Terminals: challenge edges by type (wild, last bid, shown0, shown1).
                if d > 0:
                    ch_edges = np.nonzero(edge_bid == k)[0]
                    nodes = edge_node[ch_edges]
                    wild = np.where(first[nodes] >= 0, self.wild_of_first[np.maximum(first[nodes], 0)], True)
                    tkey = np.stack([wild.astype(np.int64), last[nodes], cols["s0"][nodes], cols["s1"][nodes]], axis=1)
                    uniq, inv = np.unique(tkey, axis=0, return_inverse=True)
                    inv = inv.reshape(-1)
                    order = np.argsort(inv, kind="stable")
                    cuts = np.searchsorted(inv[order], np.arange(len(uniq) + 1))
                    for t in range(len(uniq)):
                        sel = order[cuts[t] : cuts[t + 1]]
                        group.terminals.append((ch_edges[sel], nodes[sel], tuple(int(x) for x in uniq[t])))
                # Children: bid edges, grouped by dice shown.
                bid_edges = np.nonzero(edge_bid < k)[0]
                if len(bid_edges) == 0:
                    continue
                pn = edge_node[bid_edges]
                j = edge_bid[bid_edges]
                c_mask = cols["mask"][pn] | (np.int64(1) << j)
                c_first = np.where(first[pn] >= 0, first[pn], j)
                sizes = np.array([len(s) for s in options])[edge_show[bid_edges]]
                s_own = cols[f"s{actor}"][pn]
                # New shown id per (old shown id, option).
                new_own = s_own.copy()
                showing = np.nonzero(edge_show[bid_edges] > 0)[0]
                if len(showing):
                    pairs = np.stack([s_own[showing], edge_show[bid_edges][showing]], axis=1)
                    up, upinv = np.unique(pairs, axis=0, return_inverse=True)
                    ids = np.array([self.shown_id(self.shown_sets[a] + options[b]) for a, b in up], np.int64)
                    new_own[showing] = ids[upinv.reshape(-1)]
                for size in np.unique(sizes):
                    sel = np.nonzero(sizes == size)[0]
                    nh = list(hidden)
                    nh[actor] -= int(size)
                    ckey = (d + 1, nh[0], nh[1])
                    part = frontier.setdefault(ckey, {"mask": [], "last": [], "first": [], "s0": [], "s1": []})
                    part["mask"].append(c_mask[sel])
                    part["last"].append(j[sel])
                    part["first"].append(c_first[sel])
                    s0 = new_own[sel] if actor == 0 else cols["s0"][pn[sel]]
                    s1 = new_own[sel] if actor == 1 else cols["s1"][pn[sel]]
                    part["s0"].append(s0)
                    part["s1"].append(s1)
                    pending_links.setdefault(ckey, []).append((gi, bid_edges[sel], int(size), len(sel)))
        self._index = index

    # -- lookup -------------------------------------------------------------------------------

    def locate(self, moves: list[tuple[Bid, Hand]]) -> tuple[int, int]:
        """``(group, row)`` of the node after ``moves`` (this round's bids with their shown faces).

        :raises SolverError: when the history is not in the tree.
        """
        if not hasattr(self, "_paths"):
            self._paths = self._build_paths()
        key = tuple((b.quantity, b.face, tuple(sorted(s))) for b, s in moves)
        found = self._paths.get(key)
        if found is None:
            raise SolverError(f"The history {[(str(b), s) for b, s in moves]} is not in this tree.")
        return found

    def _build_paths(self) -> dict[tuple[Any, ...], tuple[int, int]]:
        paths: dict[tuple[Any, ...], tuple[int, int]] = {(): (0, 0)}
        keys: list[list[tuple[Any, ...]] | None] = [None] * len(self.groups)
        keys[0] = [()]
        for gi, g in enumerate(self.groups):
            mine = keys[gi]
            assert mine is not None
            options = self.show_options[g.hidden[g.actor]]
            for link in g.links:
                child = keys[link.child]
                if child is None:
                    child = keys[link.child] = [()] * self.groups[link.child].n_nodes
                for e, row in zip(link.edges.tolist(), link.rows.tolist()):
                    b = self.bids[int(g.edge_bid[e])]
                    key = mine[int(g.edge_node[e])] + ((b.quantity, b.face, options[int(g.edge_show[e])]),)
                    child[row] = key
                    paths[key] = (link.child, row)
        return paths

    def moves_at(self, gi: int, row: int) -> list[tuple[Action, Hand]]:
        """The moves at a node, in edge order."""
        g = self.groups[gi]
        options = self.show_options[g.hidden[g.actor]]
        s = int(g.starts[row])
        e = int(g.starts[row + 1]) if row + 1 < g.n_nodes else g.n_edges
        return [
            (self.bids[int(b)] if b < self.n_bids else CHALLENGE, options[int(o)])
            for b, o in zip(g.edge_bid[s:e], g.edge_show[s:e])
        ]


def history_size(rules: Rules, dice: tuple[int, int], max_depth: int | None) -> int:
    """Public histories of the tree without shows (for messages)."""
    k = len(round_bids(rules, dice)[0])
    cap = k if max_depth is None else min(max_depth, k)
    return sum(comb(k, d) for d in range(cap + 1))


def embed_capped(pol: "ShowPolicy", full: ShowTree) -> list[np.ndarray]:
    """A policy solved with histories capped at ``pol.tree.max_depth`` bids, on the
    tree ``full`` of the same round with a higher cap or none: the policy's own
    play below the cap, a challenge at and beyond it (what the capped tree
    forces). Per group of ``full``, ``(n_edges_g, n_hands_actor)`` float64.

    Both trees are built depth by depth alike, so below the cap their groups,
    nodes and edges are the same in the same order.

    :raises SolverError: when ``full`` is not that round with at least as many bids.
    """
    cap = pol.tree.max_depth
    if full.dice != pol.tree.dice or full.rules.to_dict() != pol.rules.to_dict() or full.max_depth < cap:
        raise SolverError(f"The tree is not the round {pol.tree.dice} of this policy with at least {cap} bids.")
    out = []
    for gi, g in enumerate(full.groups):
        if g.depth < cap:
            cg = pol.tree.groups[gi]
            if (cg.depth, cg.hidden) != (g.depth, g.hidden) or not np.array_equal(cg.edge_bid, g.edge_bid) \
                    or not np.array_equal(cg.edge_show, g.edge_show):
                raise SolverError(f"The trees differ below the cap at group {gi}.")  # pragma: no cover - a bug
            out.append(pol.strategy[gi])
        else:
            p = np.zeros(g.legal.shape)
            p[g.edge_bid == full.n_bids] = 1.0  # the challenge, the last edge of every node past the root
            out.append(p)
    return out


class ShowGame:
    """A show-and-reroll round ready to solve: tree and terminal payoffs.

    Policies are lists over groups of ``(n_edges_g, n_hands_actor)`` float64.
    """

    def __init__(self, tree: ShowTree, leaf_value: LeafValue = single_round_value):
        self.tree = tree
        self.leaf_value = leaf_value
        self._payoffs: dict[tuple[Any, ...], np.ndarray] = {}
        rules = tree.rules
        # Matching dice per (hidden count, player, face, wild) and per shown set.
        self._match: dict[tuple[int, int, int, int], np.ndarray] = {}
        for p in (0, 1):
            for m, hands in tree.hands[p].items():
                for b in tree.bids:
                    for wild in (0, 1):
                        self._match[(p, m, b.face, wild)] = hands.matching(rules, b.face, bool(wild))
        for g in tree.groups:
            for _, _, key in g.terminals:
                self.payoff(g, key)

    def hands_of(self, g: Group, player: int) -> Hands:
        return self.tree.hands[player][g.hidden[player]]

    def payoff(self, g: Group, key: tuple[int, ...]) -> np.ndarray:
        """``(n_hands_p0, n_hands_p1)``: payoff to player 0 of a challenge of type ``key`` in group ``g``."""
        full = (g.hidden, g.actor) + key
        out = self._payoffs.get(full)
        if out is not None:
            return out
        tree = self.tree
        rules = tree.rules
        wild, last, s0, s1 = key
        bid = tree.bids[last]
        shown = sum(1 for f in tree.shown_sets[s0] + tree.shown_sets[s1] if rules.matches(f, bid.face, bool(wild)))
        count = (self._match[(0, g.hidden[0], bid.face, wild)][:, None]
                 + self._match[(1, g.hidden[1], bid.face, wild)][None, :] + shown)
        bidder = 1 - g.actor
        by_count = np.array([
            self.leaf_value(challenge_outcome(rules, tree.dice, bidder, bid.quantity, c))
            for c in range(sum(tree.dice) + 1)
        ])
        out = self._payoffs[full] = np.asarray(by_count[count], dtype=np.float64)
        return out

    def uniform_policy(self) -> list[np.ndarray]:
        return [self.normalize(gi, np.ones(g.legal.shape)) for gi, g in enumerate(self.tree.groups)]

    def normalize(self, gi: int, positive: np.ndarray) -> np.ndarray:
        """The policy of group ``gi`` proportional to ``positive`` on legal edges, uniform over the
        legal edges where all are zero."""
        g = self.tree.groups[gi]
        x = positive * g.legal
        sums = np.add.reduceat(x, g.starts, axis=0)[g.edge_node]
        legal = g.legal.astype(np.float64)
        cnt = np.add.reduceat(legal, g.starts, axis=0)[g.edge_node]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(np.where(sums > 0, x / np.where(sums > 0, sums, 1.0), legal / np.maximum(cnt, 1.0)))

    def reach(self, policy: list[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each player's reach per group ``(n_nodes, n_hands)``, chance included."""
        tree = self.tree
        out: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(tree.groups)
        g0 = tree.groups[0]
        out[0] = (self.hands_of(g0, 0).weights[None, :].copy(), self.hands_of(g0, 1).weights[None, :].copy())
        for gi, g in enumerate(tree.groups):
            r = out[gi]
            assert r is not None
            a = g.actor
            for link in g.links:
                cg = tree.groups[link.child]
                if out[link.child] is None:
                    out[link.child] = (np.zeros((cg.n_nodes, self.hands_of(cg, 0).n_hands)),
                                       np.zeros((cg.n_nodes, self.hands_of(cg, 1).n_hands)))
                cr = out[link.child]
                assert cr is not None
                pn = g.edge_node[link.edges]
                own = r[a][pn] * policy[gi][link.edges]
                if link.shown:
                    own = own.sum(axis=1)[:, None] * self.hands_of(cg, a).weights[None, :]
                cr[a][link.rows] = own
                cr[1 - a][link.rows] = r[1 - a][pn]
        reached = [x for x in out if x is not None]
        assert len(reached) == len(out), "every group of the tree is reached from the root"
        return reached

    def backward(self, player: int, policy: list[np.ndarray], r: list[tuple[np.ndarray, np.ndarray]],
                 best_response: bool = False,
                 hook: Callable[[int, np.ndarray, np.ndarray], None] | None = None) -> np.ndarray:
        """``player``'s counterfactual values at the root ``(n_hands,)`` (chance of the
        other's hands and of rerolls included)."""
        tree = self.tree
        values: list[np.ndarray | None] = [None] * len(tree.groups)
        other = 1 - player
        for gi in range(len(tree.groups) - 1, -1, -1):
            g = tree.groups[gi]
            n = self.hands_of(g, player).n_hands
            ve = np.zeros((g.n_edges, n))
            for link in g.links:
                v = values[link.child]
                assert v is not None
                v = v[link.rows]
                if link.shown and g.actor == player:
                    cg = tree.groups[link.child]
                    v = np.repeat((v @ self.hands_of(cg, player).weights)[:, None], n, axis=1)
                ve[link.edges] = v
            rho_all = r[gi][other]
            for edges, nodes, key in g.terminals:
                rho = rho_all[nodes]
                if g.actor == other:
                    rho = rho * policy[gi][edges]
                u = self.payoff(g, key)
                ve[edges] = rho @ u.T if player == 0 else rho @ (-u)
            v = node_values(ve, g.starts, policy[gi] if g.actor == player else None, best_response, g.legal)
            if g.actor == player and hook is not None:
                hook(gi, ve, v)
            values[gi] = v
        root = values[0]
        assert root is not None
        return np.asarray(root[0])

    def expected_value(self, policy: list[np.ndarray]) -> float:
        r = self.reach(policy)
        return float(self.hands_of(self.tree.groups[0], 0).weights @ self.backward(0, policy, r))

    def best_response_values(self, policy: list[np.ndarray]) -> tuple[float, float]:
        r = self.reach(policy)
        g0 = self.tree.groups[0]
        return (
            float(self.hands_of(g0, 0).weights @ self.backward(0, policy, r, best_response=True)),
            float(self.hands_of(g0, 1).weights @ self.backward(1, policy, r, best_response=True)),
        )

    def exploitability(self, policy: list[np.ndarray]) -> float:
        """NashConv / 2, as :func:`~liars_dice.solver.exploitability.exploitability`."""
        return sum(self.best_response_values(policy)) / 2.0


class ShowCFRPlus(CFRPlusLoop):
    """CFR+ on a :class:`ShowGame` (the loop of :class:`~liars_dice.solver.cfr.CFRPlus`:
    alternating updates, regret matching+, linear averaging), one block of edges per group."""

    def __init__(self, game: ShowGame):
        self.game = game
        self.policy = game.uniform_policy()
        self.regret = [np.zeros_like(p) for p in self.policy]
        self.cumulative = [np.zeros_like(p) for p in self.policy]
        self.iterations = 0

    def _normalize(self, block: int, positive: np.ndarray) -> np.ndarray:
        return self.game.normalize(block, positive)

    def _update(self, player: int, weight: float) -> None:
        game = self.game
        r = game.reach(self.policy)
        groups = game.tree.groups

        def hook(gi: int, ve: np.ndarray, v: np.ndarray) -> None:
            g = groups[gi]
            self._accumulate(gi, g.edge_node, ve, v, self._reach_weight(weight) * r[gi][player], g.legal)

        game.backward(player, self.policy, r, hook=hook)
        for gi, g in enumerate(groups):
            if g.actor == player:
                self.policy[gi] = game.normalize(gi, self._positive(gi))

    def _reach_weight(self, weight: float) -> float:
        """The weight of this iteration's strategy in the average (CFR+: the iteration number)."""
        return weight

    def _positive(self, block: int) -> np.ndarray:
        """The regrets that regret matching reads (CFR+ keeps them non-negative)."""
        return self.regret[block]


class ShowDCFR(ShowCFRPlus):
    """Discounted CFR (Brown & Sandholm, "Solving Imperfect-Information Games via
    Discounted Regret Minimization", AAAI 2019) on a :class:`ShowGame`, with the
    paper's recommended ``alpha=1.5, beta=0, gamma=2`` and alternating updates.

    After iteration ``t`` adds its regrets, positive cumulative regrets are
    multiplied by ``t**alpha / (t**alpha + 1)`` and negative ones by
    ``t**beta / (t**beta + 1)``; the average strategy is multiplied by
    ``(t / (t + 1))**gamma`` before iteration ``t``'s strategy (weight 1) is added.
    Regrets may be negative (regret matching reads their positive part).

    On the ``wild-stars`` show trees it reaches exploitability 0.001 in 0.3
    to 0.55 times CFR+'s iterations at the same cost per iteration
    (``benchmarks/show_dcfr.py``; benchmarks/RESULTS.md "Show-and-reroll solves to 0.001").
    """

    def __init__(self, game: ShowGame, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
        super().__init__(game)
        self.alpha, self.beta, self.gamma = alpha, beta, gamma

    def _reach_weight(self, weight: float) -> float:
        return 1.0

    def _positive(self, block: int) -> np.ndarray:
        positive: np.ndarray = np.maximum(self.regret[block], 0.0)
        return positive

    def _accumulate(self, block: int, edge_node: np.ndarray, edge_values: np.ndarray, node_values: np.ndarray,
                    weighted_reach: np.ndarray, legal: np.ndarray | None = None) -> None:
        t = float(self.iterations)
        reg = self.regret[block]
        reg += edge_values
        reg -= node_values[edge_node]
        if legal is not None:
            reg *= legal
        pos = t ** self.alpha / (t ** self.alpha + 1.0)
        neg = t ** self.beta / (t ** self.beta + 1.0)
        reg *= np.where(reg > 0, pos, neg)
        cum = self.cumulative[block]
        cum *= (t / (t + 1.0)) ** self.gamma
        cum += weighted_reach[edge_node] * self.policy[block]


@dataclass
class ShowPolicy(OfRound):
    """A solved show-and-reroll round: lookup by hidden dice and history.

    :ivar strategy: per group, ``(n_edges_g, n_hands_actor)`` float64.
    """

    tree: ShowTree
    strategy: list[np.ndarray]

    def action_probabilities(self, hand: Hand, history: list[tuple[Bid, Hand]]) -> dict[tuple[Action, Hand], float]:
        """The acting player's probabilities over moves ``(action, shown faces)`` after
        ``history`` (this round's bids with the faces shown after each) when hiding ``hand``.

        :raises SolverError: for a history outside the tree or a hand of the wrong size.
        """
        gi, row = self.tree.locate(history)
        g = self.tree.groups[gi]
        hands = self.tree.hands[g.actor][g.hidden[g.actor]]
        try:
            col = hands.index(hand)
        except KeyError:
            raise SolverError(f"Player {g.actor} hides {g.hidden[g.actor]} dice here, not {hand}.") from None
        s = int(g.starts[row])
        moves = self.tree.moves_at(gi, row)
        probs = self.strategy[gi][s : s + len(moves), col]
        return {m: float(p) for i, (m, p) in enumerate(zip(moves, probs)) if g.legal[s + i, col]}

    def save(self, path: str | Path) -> None:
        """Write a compressed ``.npz``: ``rules`` (JSON), ``dice``, ``max_depth``,
        ``show_and_reroll`` (1), and ``group_<i>`` ``(n_edges_g, n_hands_actor)`` per group."""
        write_policy_file(path, self.rules, self.dice, self.tree.max_depth, "group", self.strategy,
                          show_and_reroll=np.array(1))

    @staticmethod
    def load(path: str | Path) -> "ShowPolicy":
        """Read a file written by :meth:`save`.

        :raises SolverError: when the file is missing, not such a policy, or its
            shapes do not fit the tree of its rules and dice.
        """
        tree, strategy = read_policy_file(path, "show-and-reroll policy", ShowTree, "group", lambda t: len(t.groups))
        for g, st in zip(tree.groups, strategy):
            if st.shape != g.legal.shape:
                raise SolverError(f"{path} has a policy of the wrong shape at depth {g.depth}.")
        return ShowPolicy(tree, strategy)

    def policy_fn(self) -> Callable[[SeatView], Mapping[Any, float]]:
        """A :data:`~liars_dice.solver.best_response.PolicyFn` reading this policy."""

        def fn(view: SeatView) -> Mapping[Any, float]:
            probs = self.action_probabilities(view.hand, [(b, s) for _, b, s in view.bids])
            return {(a if not s else (a, s)): p for (a, s), p in probs.items()}

        return fn
