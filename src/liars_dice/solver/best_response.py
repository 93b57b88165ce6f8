"""``best_response``: the exact best response to a fixed policy in a two-player round.

The fixed policy is any function of a seat's information (a
:class:`~liars_dice.engine.SeatView`) to a distribution over moves, so a bot, a
network or a solved :class:`~liars_dice.solver.Policy` can be measured alike.
The value returned is the ceiling for any player against that policy: what
the best counter-strategy wins on average, computed exactly (no sampling).

Two exact methods, chosen by the rules:

* **Public tree** (rules without show-and-reroll, or no player with two
  dice): the policy is tabulated once per information set (every node of the
  :class:`~liars_dice.solver.tree.BidTree` times every hand of its actor), then
  one backward sweep vectorized over hands best-responds at every node at once
  (:func:`~liars_dice.solver.passes.backward`). This is the public-tree walk
  of Johanson, Waugh, Bowling & Zinkevich, "Accelerating Best Response
  Calculation in Large Extensive Games" (IJCAI 2011).
* **Engine walk** (show-and-reroll in play): every deal, move and reroll is
  walked through the engine; states are grouped by the responder's
  information set (their view), and each information set takes the action of
  highest counterfactual value given the best responses below it (the
  textbook recursion; Lanctot 2013, PhD thesis, section 2.2; OpenSpiel's
  ``best_response.py``).

The responder's information set is their view (own hidden dice, every shown
die, the bids). Hidden dice rerolled away after a show are forgotten, which
loses nothing: they are independent of everything still to happen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from ..engine import CHALLENGE, Action, Bid, Challenge, Game, Hand, Rules
from ..engine.state import Phase, State, legal_shows
from ..engine.view import SeatView
from .hands import Hands, enumerate_hands
from .passes import RoundGame, backward, reach
from .payoff import terminal_payoffs
from .tree import BidTree, SolverError

#: A move: an action, or a bid with the faces shown after it ``(bid, show)``
#: (show-and-reroll; ``show`` sorted ascending, ``()`` for no show).
Move = Union[Action, tuple[Action, Hand]]

#: The fixed policy: a seat's view to a mapping of moves to probabilities
#: (summing to 1; absent moves have probability 0).
PolicyFn = Callable[[SeatView], Mapping[Move, float]]

#: Default cap on the states an engine walk visits (each costs a few
#: microseconds and about a kilobyte; 2,000,000 is about a minute).
MAX_STATES = 2_000_000

#: An information set of the responder: their hidden dice (sorted), every
#: seat's shown dice, and the bids ``(seat, bid, shown)``.
InfoKey = tuple[Hand, tuple[Hand, ...], tuple[tuple[int, Bid, Hand], ...]]


@dataclass
class BestResponse:
    """What :func:`best_response` found.

    :ivar value: the responder's expected payoff (+1 for a won challenge, -1
        for a lost one) when best-responding, averaged over deals; in [-1, 1].
        The policy's exploitability from that seat is ``value`` minus what the
        seat gets when both follow the policy.
    :ivar player: the responder's seat (0 opens the round).
    :ivar method: ``"public tree"`` or ``"engine walk"``.
    :ivar information_sets: responder information sets decided.
    :ivar policy: the best response, information set to move (pure).
    """

    value: float
    player: int
    method: str
    information_sets: int
    policy: dict[InfoKey, Move] = field(repr=False)

    def action(self, view: SeatView) -> Move:
        """The best response's move for the responder's ``view``.

        :raises KeyError: for a view the best response never decided (not the
            responder's, or unreachable under the fixed policy).
        """
        return self.policy[info_key(view)]


def info_key(view: SeatView) -> InfoKey:
    """The information set of a view (one round of two players)."""
    return (tuple(sorted(view.hand)), view.shown, view.bids)


def best_response(
    rules: Rules | str,
    policy_fn: PolicyFn,
    dice: tuple[int, int] = (1, 1),
    player: int = 1,
    max_depth: int | None = None,
    max_states: int = MAX_STATES,
    method: str | None = None,
) -> BestResponse:
    """The exact best response of seat ``player`` to ``policy_fn`` playing the other seat.

    One round between seat 0 (opens, ``dice[0]`` dice) and seat 1 (``dice[1]``
    dice), as :func:`~liars_dice.solver.solve` plays it: payoff +1 / -1 for the
    winner of the challenge.

    :param policy_fn: the fixed policy, called with the other seat's view at
        each of its information sets (once per set on the public tree; once per
        state on the engine walk). Moves must be legal; probabilities at least
        0 and summing to 1 within 1e-6.
    :param max_depth: cap: the player facing ``max_depth`` bids must challenge
        (the solver's capped game; the policy's other moves there are ignored).
        The result is exact within the capped game. ``None``: the full round.
    :param max_states: cap on an engine walk's states (the public tree is capped
        by :data:`~liars_dice.solver.tree.MAX_NODES` nodes instead).
    :param method: ``"tree"`` or ``"walk"`` to force a method (the walk works
        for every rule set; the tree refuses show-and-reroll with two dice);
        ``None`` picks the tree where it applies.
    :returns: the value and the best-response policy (a :class:`BestResponse`).
    :raises SolverError: for a round too large for its method (tree above
        ``MAX_NODES``, walk above ``max_states``), a bad seat or dice, or a
        policy that gives an illegal move or probabilities that do not sum to 1.
    :raises RulesError: for an unknown preset name.
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    if player not in (0, 1):
        raise SolverError(f"The responder is seat 0 or 1, not {player!r}.")
    if len(dice) != 2 or min(dice) < 1:
        raise SolverError("The solver plays two players, each with at least one die.")
    shows = rules.show_and_reroll and max(dice) >= 2
    if method not in (None, "tree", "walk"):
        raise SolverError(f"The method is 'tree' or 'walk', not {method!r}.")
    if method == "tree" and shows:
        raise SolverError("The public tree has no shows; show-and-reroll with two dice needs method='walk'.")
    if shows or method == "walk":
        return _engine_walk(rules, policy_fn, (int(dice[0]), int(dice[1])), player, max_depth, max_states)
    return _public_tree(rules, policy_fn, (int(dice[0]), int(dice[1])), player, max_depth)


def _check(probs: Mapping[Move, float], where: str) -> None:
    total = 0.0
    for p in probs.values():
        if not p >= 0.0:
            raise SolverError(f"The policy gave probability {p!r} at {where}.")
        total += p
    if abs(total - 1.0) > 1e-6:
        raise SolverError(f"The policy's probabilities sum to {total:.6g}, not 1, at {where}.")


def _split(move: Move) -> tuple[Action, Hand]:
    if isinstance(move, tuple):
        return move[0], tuple(sorted(move[1]))
    return move, ()


def _public_tree(
    rules: Rules, policy_fn: PolicyFn, dice: tuple[int, int], player: int, max_depth: int | None
) -> BestResponse:
    tree = BidTree(rules, dice, max_depth)
    hands = (enumerate_hands(dice[0], rules.faces), enumerate_hands(dice[1], rules.faces))
    game = RoundGame(tree, hands, terminal_payoffs(tree, hands))
    other = 1 - player
    policy = game.uniform_policy()
    for d, arr in tabulate_reached(tree, hands, policy_fn, other).items():
        policy[d] = arr
    chosen: dict[int, np.ndarray] = {}

    def hook(d: int, ve: np.ndarray, v: np.ndarray) -> None:
        dep = tree.depths[d]
        # First edge of highest value per node and hand.
        best = np.empty((dep.n_nodes, ve.shape[1]), dtype=np.int64)
        for row in range(dep.n_nodes):
            s, n = int(dep.starts[row]), int(dep.n_actions[row])
            best[row] = s + np.argmax(ve[s : s + n], axis=0)
        chosen[d] = best

    r = reach(game, policy)
    values = backward(game, player, policy, r[other], best_response=True, on_own_node=hook)
    value = float(hands[player].weights @ values)
    out: dict[InfoKey, Move] = {}
    for d, best in chosen.items():
        dep = tree.depths[d]
        for row in range(dep.n_nodes):
            history = _history(tree, int(dep.masks[row]))
            bids = tuple((i % 2, b, ()) for i, b in enumerate(history))
            for col, hand in enumerate(hands[player].hands):
                e = int(best[row, col])
                a = int(dep.edge_action[e])
                out[(hand, ((), ()), bids)] = tree.bids[a] if a < tree.n_bids else CHALLENGE
    return BestResponse(value, player, "public tree", len(out), out)


def tabulate(
    tree: BidTree,
    hands: tuple[Hands, Hands],
    policy_fn: PolicyFn,
    actor: int,
    only: dict[int, np.ndarray] | None = None,
) -> dict[int, np.ndarray]:
    """``policy_fn`` of seat ``actor`` at every information set of ``tree``
    (one call per node and hand of the actor).

    :param only: per depth, ``(n_nodes_d, n_hands_actor)`` bool: call the
        policy only there (the other columns of a node stay 0); ``None``: everywhere.
    :returns: per depth ``d`` where ``actor`` moves, ``(n_edges_d,
        n_hands_actor)`` float64: the probability of each edge (at the tree's
        cap, the forced challenge has 1).
    :raises SolverError: for an illegal move or probabilities that do not sum to 1.
    """
    out: dict[int, np.ndarray] = {}
    for d in range(actor, len(tree.depths), 2):
        out[d] = _tabulate_depth(tree, hands, policy_fn, actor, d, None if only is None else only[d])
    return out


def tabulate_reached(
    tree: BidTree, hands: tuple[Hands, Hands], policy_fn: PolicyFn, actor: int
) -> dict[int, np.ndarray]:
    """:func:`tabulate` only at the information sets the policy itself plays
    to: ``(node, hand)`` pairs whose own reach (the product of the policy's
    probabilities along the path, for that hand) is above 0, depth by depth
    from the root. A best response needs no more (every other set has
    counterfactual reach 0), and a policy that rules out most of the tree
    is asked far less (a pure strategy: one path per hand between the other
    player's choices).

    :returns: as :func:`tabulate`; columns never asked stay 0.
    :raises SolverError: as :func:`tabulate`.
    """
    out: dict[int, np.ndarray] = {}
    own_prev: np.ndarray | None = None
    n_h = hands[actor].n_hands
    for d in range(actor, len(tree.depths), 2):
        dep = tree.depths[d]
        if d < 2 or own_prev is None:
            own = np.ones((dep.n_nodes, n_h))
        else:
            prev, mid = tree.depths[d - 2], tree.depths[d - 1]
            edge_reach = out[d - 2] * own_prev[prev.edge_node]
            own = edge_reach[mid.parent_edge[dep.parent_node]]
        out[d] = _tabulate_depth(tree, hands, policy_fn, actor, d, own > 0)
        own_prev = own
    return out


def _tabulate_depth(
    tree: BidTree, hands: tuple[Hands, Hands], policy_fn: PolicyFn, actor: int, d: int, only: np.ndarray | None
) -> np.ndarray:
    rules = tree.rules
    dice = tree.dice
    players = ("p0", "p1")
    dep = tree.depths[d]
    arr = np.zeros((dep.n_edges, hands[actor].n_hands))
    rows = range(dep.n_nodes) if only is None else np.nonzero(only.any(axis=1))[0]
    for row in rows:
        row = int(row)
        history = _history(tree, int(dep.masks[row]))
        s, n = int(dep.starts[row]), int(dep.n_actions[row])
        actions = tree.actions(d, row)
        index = {a: s + i for i, a in enumerate(actions)}
        bids = tuple((i % 2, b, ()) for i, b in enumerate(history))
        wilds = rules.wilds_active_after_opening(history[0].face) if history else True
        capped = d == tree.max_depth and d < tree.n_bids
        for col, hand in enumerate(hands[actor].hands):
            if only is not None and not only[row, col]:
                continue
            if capped:
                arr[s + n - 1, col] = 1.0
                continue
            view = SeatView(
                rules, players, actor, dice, hand, ((), ()), bids, Phase.BID, actor, wilds, (), None
            )
            probs = policy_fn(view)
            _check(probs, f"bids {[str(b) for b in history]} with hand {hand}")
            for move, p in probs.items():
                action, show = _split(move)
                e = index.get(action)
                if e is None or show:
                    if p == 0:
                        continue
                    raise SolverError(f"The policy gave the illegal move {move} after bids {[str(b) for b in history]}.")
                arr[e, col] += p
    return arr


def _history(tree: BidTree, mask: int) -> list[Bid]:
    return [b for j, b in enumerate(tree.bids) if mask >> j & 1]


def _multisets(n: int, faces: int) -> list[tuple[Hand, float]]:
    h = enumerate_hands(n, faces)
    return list(zip(h.hands, (float(w) for w in h.weights)))


class _Walk:
    """The engine walk of :func:`best_response` (see the module doc)."""

    def __init__(self, rules: Rules, policy_fn: PolicyFn, dice: tuple[int, int], player: int,
                 max_depth: int | None, max_states: int):
        self.rules = rules
        self.policy_fn = policy_fn
        self.player = player
        self.max_depth = max_depth
        self.max_states = max_states
        self.states = 0
        # Information set -> list of (node, counterfactual reach: chance x the other seat's policy).
        self.infosets: dict[InfoKey, list[tuple[list[Any], float]]] = {}
        self.decided: dict[InfoKey, int] = {}
        self.moves: dict[InfoKey, list[tuple[Action, Hand]]] = {}
        self.rolls = {n: _multisets(n, rules.faces) for n in range(1, max(dice) + 1)}

    def moves_of(self, state: State) -> list[tuple[Action, Hand]]:
        if self.max_depth is not None and len(state.bids) >= self.max_depth and state.bids:
            return [(CHALLENGE, ())]
        shows = state.legal_shows()
        out: list[tuple[Action, Hand]] = []
        for a in state.legal_actions():
            if isinstance(a, Challenge):
                out.append((a, ()))
            else:
                out.extend((a, s) for s in shows)
        return out

    def build(self, state: State, reach: float) -> list[Any]:
        """A node ``[kind, children, weights, key]``: kind 0 terminal (payoff in
        ``weights``), 1 chance or the fixed policy (children weighted), 2 the
        responder (children in move order)."""
        self.states += 1
        if self.states > self.max_states:
            raise SolverError(
                f"The round has more than {self.max_states:,} states; the engine walk stops there "
                "(pass a larger max_states, or a max_depth)."
            )
        if state.phase is not Phase.BID and state.phase is not Phase.REROLL:
            loser = state.results[-1].loser
            return [0, None, 1.0 if loser != self.player else -1.0, None]
        if state.phase is Phase.REROLL:
            seat = state.to_move
            assert seat is not None
            n = len(state.hidden[seat])
            kids, ws = [], []
            for faces, w in self.rolls[n]:
                kids.append(self.build(state.reroll(faces), reach * w))
                ws.append(w)
            return [1, kids, ws, None]
        seat = state.to_move
        assert seat is not None
        moves = self.moves_of(state)
        if seat == self.player:
            key = info_key(state.view(seat))
            node: list[Any] = [2, [self.build(state.apply_unchecked(a, s), reach) for a, s in moves], None, key]
            self.infosets.setdefault(key, []).append((node, reach))
            self.moves.setdefault(key, moves)
            return node
        probs = self.policy_fn(state.view(seat))
        where = f"bids {[str(b) for _, b, _ in state.bids]} with hand {state.hidden[seat]}"
        _check(probs, where)
        legal = set(moves)
        if self.max_depth is not None and len(state.bids) >= self.max_depth and state.bids:
            return [1, [self.build(state.apply_unchecked(CHALLENGE), reach)], [1.0], None]
        kids, ws = [], []
        for move, p in probs.items():
            action, show = _split(move)
            if (action, show) not in legal:
                if p == 0:
                    continue
                raise SolverError(f"The policy gave the illegal move {move} at {where}.")
            if p > 0:
                kids.append(self.build(state.apply_unchecked(action, show), reach * p))
                ws.append(p)
        return [1, kids, ws, None]

    def value(self, node: list[Any]) -> float:
        kind = node[0]
        if kind == 0:
            return float(node[2])
        if kind == 1:
            return float(sum(w * self.value(k) for k, w in zip(node[1], node[2])))
        return self.value(node[1][self.decide(node[3])])

    def decide(self, key: InfoKey) -> int:
        best = self.decided.get(key)
        if best is None:
            members = self.infosets[key]
            n = len(members[0][0][1])
            totals = [sum(r * self.value(node[1][i]) for node, r in members) for i in range(n)]
            best = int(np.argmax(totals))
            self.decided[key] = best
        return best


def _engine_walk(
    rules: Rules, policy_fn: PolicyFn, dice: tuple[int, int], player: int, max_depth: int | None, max_states: int
) -> BestResponse:
    game = Game.create(rules.with_options(single_round=True), ["p0", "p1"], list(dice))
    walk = _Walk(game.rules, policy_fn, dice, player, max_depth, max_states)
    start = game.initial_state(0)
    roots = []
    for h0, w0 in walk.rolls[dice[0]]:
        for h1, w1 in walk.rolls[dice[1]]:
            roots.append((walk.build(start.deal([list(h0), list(h1)]), w0 * w1), w0 * w1))
    value = sum(w * walk.value(node) for node, w in roots)
    for key in walk.infosets:  # decide unreachable-by-value sets too, for a complete policy
        walk.decide(key)
    out: dict[InfoKey, Move] = {}
    for key, i in walk.decided.items():
        a, s = walk.moves[key][i]
        out[key] = (a, s) if s else a
    return BestResponse(float(value), player, "engine walk", len(out), out)


def policy_fn_of(policy: Any) -> PolicyFn:
    """A :data:`PolicyFn` reading a solved :class:`~liars_dice.solver.Policy`
    (its ``action_probabilities`` by hand and bids)."""

    def fn(view: SeatView) -> Mapping[Move, float]:
        probs: Mapping[Move, float] = policy.action_probabilities(view.hand, [b for _, b, _ in view.bids])
        return probs

    return fn
