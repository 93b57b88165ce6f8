"""``restricted_response``: a safe counter-strategy to a modelled player in a two-player round.

The **data-biased response** of Johanson & Bowling ("Data Biased Robust Counter
Strategies", AISTATS 2009), which holds the **restricted Nash response** of
Johanson, Zinkevich & Bowling ("Computing Robust Counter-Strategies", NIPS
2007) as the case of one constant confidence. CFR+ solves a modified round in
which the *modelled* player, at each of their information sets ``I`` (a node of
the public bid tree and a hand), plays

    conf(I) * model(I) + (1 - conf(I)) * free(I)

where ``model`` is the model's policy (tabulated once from a
:data:`~liars_dice.solver.best_response.PolicyFn`) and ``free`` is learned by
regret matching+ on its own regrets: the counterfactual value of each action
minus the value of ``free`` at ``I`` (the (1 - conf) factor of the DBR regrets is
one constant per information set, which regret matching+ ignores). The other
player, the *exploiter*, runs plain CFR+; its average policy is the
counter-strategy. ``conf = 0`` everywhere is the equilibrium; ``conf = 1``
everywhere is the best response to the model; in between it trades what it
wins against the model for what it may lose against anyone else
(exploitability), along the curve the NIPS paper draws.

``conf(I)`` is DBR's ``P_conf``: with observation counts ``n(I)`` (how often the
model's data saw that information set), ``p_max * n / (n + n0)``; without
counts, ``p_max`` everywhere (the restricted Nash response). Where ``conf`` is 0
the model is not consulted at all, so a large tree is tabulated only where
data exist.

Payoffs are whatever ``leaf_value`` gives a challenge's outcome: +1 / -1 for a
single round, or the continuation values of the whole game
(:func:`liars_dice.solver.endgame.leaf_value_for` of the equilibrium tables), as
the endgame tables solve every position.

The loop reuses :class:`~liars_dice.solver.cfr.CFRPlusLoop` and the two sweeps
of :mod:`liars_dice.solver.passes`: every update is one numpy operation over all
nodes of a depth and all hands.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..engine import Bid, Hand, Rules
from .best_response import PolicyFn, tabulate
from .cfr import CFRPlusLoop, regret_matching
from .passes import RoundGame, backward, reach
from .payoff import LeafValue, single_round_value
from .policy import Policy
from .solve import build_game, solve
from .tree import SolverError

#: Most information sets of the modelled player that :func:`restricted_response`
#: asks the model about (about 60 microseconds each for an ``OpponentModel``).
MAX_MODEL_CALLS = 300_000

#: A count key: the modelled player's hand (sorted) and the round's bids, oldest first.
CountKey = tuple[Hand, tuple[Bid, ...]]


@dataclass
class RestrictedResult:
    """What :func:`restricted_response` found.

    :ivar policy: the average policy of both players on the round's tree: the
        exploiter's depths hold the counter-strategy, the modelled player's the
        restricted player's (``conf * model + (1 - conf) * average free``).
    :ivar player: the exploiter's seat (0 opens the round).
    :ivar value: the exploiter's expected payoff against the restricted player
        (the value of the modified round), in payoff units.
    :ivar value_vs_model: the exploiter's expected payoff against the model
        itself (``None`` when the model was not tabulated everywhere).
    :ivar worst_value: the exploiter's expected payoff against a best response to it.
    :ivar game_value: the exploiter's equilibrium value of the round.
    :ivar exploitability: ``game_value - worst_value``: the most it gives away
        against any opponent (>= 0 up to the equilibrium's own error).
    :ivar iterations: CFR+ iterations run.
    :ivar seconds: wall time, the model's tabulation included.
    :ivar model_calls: information sets where the model was asked.
    """

    policy: Policy
    player: int
    value: float
    value_vs_model: float | None
    worst_value: float
    game_value: float
    exploitability: float
    iterations: int
    seconds: float
    model_calls: int

    def counter_strategy(self) -> dict[int, np.ndarray]:
        """The exploiter's policy per depth where it acts, ``(n_edges_d, n_hands)`` float64."""
        return {d: s for d, s in enumerate(self.policy.strategy) if d % 2 == self.player}


class RestrictedCFR(CFRPlusLoop):
    """CFR+ on a round whose ``modelled`` player is restricted (module docstring).

    :param game: the round.
    :param exploiter: the exploiter's seat; the other is modelled.
    :param model: per depth of the modelled player, ``(n_edges_d, n_hands)``
        float64 the model's policy (any values where ``conf`` is 0).
    :param conf: per depth of the modelled player, ``(n_nodes_d, n_hands)``
        float64 in [0, 1].
    :raises SolverError: for shapes that do not fit the tree, or ``conf`` outside [0, 1].
    """

    def __init__(self, game: RoundGame, exploiter: int, model: Mapping[int, np.ndarray],
                 conf: Mapping[int, np.ndarray]):
        self.game = game
        self.exploiter = exploiter
        self.modelled = 1 - exploiter
        depths = game.tree.depths
        n_m = game.n_hands(self.modelled)
        self.model: dict[int, np.ndarray] = {}
        self.conf_edges: dict[int, np.ndarray] = {}
        for d in range(self.modelled, len(depths), 2):
            dep = depths[d]
            m, c = np.asarray(model[d], dtype=np.float64), np.asarray(conf[d], dtype=np.float64)
            if m.shape != (dep.n_edges, n_m) or c.shape != (dep.n_nodes, n_m):
                raise SolverError(f"The model or confidence at depth {d} does not fit the round's tree.")
            if not (np.all(c >= 0) and np.all(c <= 1)):
                raise SolverError("A confidence is a probability, from 0 to 1.")
            self.model[d] = m
            self.conf_edges[d] = c[dep.edge_node]
        self.regret = [np.zeros((dep.n_edges, game.n_hands(d % 2))) for d, dep in enumerate(depths)]
        self.cumulative = [np.zeros_like(r) for r in self.regret]
        self.free = game.uniform_policy()
        self.policy = [self._mixed(d, p) for d, p in enumerate(self.free)]
        self.iterations = 0

    def _mixed(self, d: int, free: np.ndarray) -> np.ndarray:
        if d % 2 != self.modelled:
            return free
        c = self.conf_edges[d]
        mixed: np.ndarray = c * self.model[d] + (1.0 - c) * free
        return mixed

    def _normalize(self, block: int, positive: np.ndarray) -> np.ndarray:
        return regret_matching(self.game, block, positive)

    def _update(self, player: int, weight: float) -> None:
        game = self.game
        depths = game.tree.depths
        r = reach(game, self.policy)
        own, other_reach = r[player], r[1 - player]

        def hook(d: int, ve: np.ndarray, v: np.ndarray) -> None:
            dep = depths[d]
            if player == self.exploiter:
                self._accumulate(d, dep.edge_node, ve, v, weight * own[d])
                return
            # the free part's regrets: against the free part's own value at the node
            free = self.free[d]
            v_free = np.add.reduceat(free * ve, dep.starts, axis=0)
            reg = self.regret[d]
            reg += ve
            reg -= v_free[dep.edge_node]
            np.maximum(reg, 0.0, out=reg)
            self.cumulative[d] += (weight * own[d])[dep.edge_node] * (1.0 - self.conf_edges[d]) * free

        backward(game, player, self.policy, other_reach, on_own_node=hook)
        for d in range(player, len(depths), 2):
            matched = regret_matching(game, d, self.regret[d])
            if player == self.exploiter:
                self.policy[d] = matched
            else:
                self.free[d] = matched
                self.policy[d] = self._mixed(d, matched)

    def average_policy(self) -> list[np.ndarray]:
        """The exploiter's average policy, and for the modelled player ``conf *
        model + (1 - conf) * average free``; per depth ``(n_edges, n_hands_actor)``."""
        return [self._mixed(d, self._normalize(d, c)) for d, c in enumerate(self.cumulative)]


def confidence(counts: np.ndarray, p_max: float, n0: float) -> np.ndarray:
    """DBR's ``P_conf``: ``p_max * n / (n + n0)`` per information set (``n0 = 0``: ``p_max`` where ``n > 0``).

    :param counts: observations per information set, any shape, >= 0.
    :returns: float64 of the same shape, in ``[0, p_max]``.
    """
    n = np.asarray(counts, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray = np.where(n > 0, p_max * n / (n + n0), 0.0)
    return out


def restricted_response(
    rules: Rules | str,
    model_fn: PolicyFn,
    dice: tuple[int, int] = (1, 1),
    player: int = 1,
    p_max: float = 0.5,
    counts: Mapping[CountKey, float] | None = None,
    n0: float = 10.0,
    iterations: int = 1000,
    target: float | None = None,
    check_every: int = 50,
    max_depth: int | None = None,
    leaf_value: LeafValue | None = None,
    game_value: float | None = None,
    seconds: float | None = None,
    max_model_calls: int = MAX_MODEL_CALLS,
) -> RestrictedResult:
    """The data-biased (or restricted Nash) response of seat ``player`` to
    ``model_fn`` playing the other seat, in one two-player round (module docstring).

    :param model_fn: the model's policy, called with the modelled seat's view at
        each of its information sets where ``conf > 0`` (once each); moves
        legal, probabilities summing to 1 within 1e-6.
    :param dice: (opener's, other's) dice; player 0 opens.
    :param player: the exploiter's seat, 0 or 1.
    :param p_max: the most the modelled player is trusted to follow the model, in [0, 1].
    :param counts: observations of the modelled player per information set,
        ``(sorted hand, bids of the round)`` to a count (situations outside the
        tree are ignored); ``conf = p_max * n / (n + n0)``. ``None``: ``conf =
        p_max`` everywhere (the restricted Nash response).
    :param n0: the count at which ``conf`` is ``p_max / 2``, > 0.
    :param iterations: most CFR+ iterations (each: both players once).
    :param target: stop at the first check (every ``check_every`` iterations)
        where the restricted game's NashConv / 2 is at most ``target``;
        ``None``: run all ``iterations``.
    :param max_depth: most bids in a history (the solver's capped tree; see
        :class:`~liars_dice.solver.tree.BidTree`); ``None``: the full round.
    :param leaf_value: a challenge outcome's value to player 0 (default +1 / -1
        for the round's winner; whole-game values: :func:`~liars_dice.solver.endgame.leaf_value_for`).
    :param game_value: player 0's equilibrium value of this round and payoff
        (for the exploitability); ``None``: solved here with CFR+ to 1e-3.
    :param seconds: stop the CFR+ loop after this much wall time (checked
        every ``check_every`` iterations); ``None``: no limit.
    :param max_model_calls: most information sets at which the model is asked.
    :returns: a :class:`RestrictedResult`.
    :raises SolverError: for bad dice, seat or limits, a tree too large
        (:data:`~liars_dice.solver.tree.MAX_NODES`), more than
        ``max_model_calls`` information sets to tabulate, a policy giving an
        illegal move, or rules with show-and-reroll and two dice in a hand (the
        public tree has no shows).
    :raises RulesError: for an unknown preset name.
    """
    start = time.perf_counter()
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    # (attack4 leftovers: player=True, dice=(1.5, 1), n0=inf and target=nan were taken)
    if isinstance(player, bool) or player not in (0, 1):
        raise SolverError(f"The exploiter is seat 0 or 1, not {player!r}.")
    if not 0.0 <= p_max <= 1.0:
        raise SolverError(f"p_max is a probability, from 0 to 1, not {p_max!r}.")
    if not 0 < n0 < float("inf"):
        raise SolverError(f"n0 is a finite count above 0, not {n0!r}.")
    if target is not None and not 0 <= target < float("inf"):
        raise SolverError(f"target is an exploitability, at least 0, not {target!r}.")
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dice):
        raise SolverError(f"Dice are whole numbers, not {str(tuple(dice))[:60]}.")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in (iterations, check_every)):
        raise SolverError("iterations and check_every are whole numbers, at least 1.")
    if seconds is not None and not seconds > 0:
        raise SolverError(f"seconds is a time above 0, not {seconds!r}.")
    if game_value is not None and not -1e9 < game_value < 1e9:
        raise SolverError(f"game_value is a finite payoff, not {game_value!r}.")
    if counts is not None:  # attack4: NaN, inf or text counts and malformed keys gave TypeError or a wrong sentence
        for key, n in counts.items():
            if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(x, (tuple, list)) for x in key)):
                raise SolverError(f"A count's key is (sorted hand, bids of the round), not {str(key)[:60]!r}.")
            if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)) or not 0 <= n < float("inf"):
                raise SolverError(f"A count is a finite number of observations, at least 0, not {str(n)[:60]!r}.")
    if len(dice) != 2 or min(dice) < 1:
        raise SolverError("The solver plays two players, each with at least one die.")
    if rules.show_and_reroll and max(dice) >= 2:
        raise SolverError("The restricted response plays the public bid tree, which has no show-and-reroll.")
    leaf = leaf_value or single_round_value
    dice = (int(dice[0]), int(dice[1]))
    game = build_game(rules, dice, leaf, max_depth)
    tree, hands = game.tree, game.hands
    modelled = 1 - player
    n_m = hands[modelled].n_hands
    conf: dict[int, np.ndarray] = {d: np.zeros((tree.depths[d].n_nodes, n_m)) for d in range(modelled, len(tree.depths), 2)}
    if counts is None:
        for d in conf:
            conf[d][:] = p_max
    else:
        for (hand, bids), n in counts.items():
            if len(bids) % 2 != modelled or len(hand) != dice[modelled]:
                continue
            try:
                d, row = tree.locate(list(bids))
                col = hands[modelled].index(hand)
            except (SolverError, KeyError):
                continue
            conf[d][row, col] = float(confidence(np.array(n), p_max, n0))
    for d in conf:  # at the cap the move is forced: nothing to trust or learn
        if d == tree.max_depth and d < tree.n_bids:
            conf[d][:] = 0.0
    capped = {d for d in conf if d == tree.max_depth and d < tree.n_bids}
    # without counts the model is asked everywhere (also at p_max 0, for value_vs_model)
    asked = {d: (c > 0) if counts is not None else np.full(c.shape, d not in capped) for d, c in conf.items()}
    calls = int(sum(a.sum() for a in asked.values()))
    if calls > max_model_calls:
        raise SolverError(
            f"The model would be asked at {calls:,} information sets; the limit is {max_model_calls:,} "
            "(give counts, or a smaller round)."
        )
    everywhere = all(a.all() or d in capped for d, a in asked.items())
    model = tabulate(tree, hands, model_fn, modelled, only=asked)
    cfr = RestrictedCFR(game, player, model, conf)
    while cfr.iterations < iterations:
        cfr.iterate(min(check_every, iterations - cfr.iterations))
        if target is not None and _restricted_gap(cfr) <= target:
            break
        if seconds is not None and time.perf_counter() - start > seconds:
            break
    avg = cfr.average_policy()
    sign = 1.0 if player == 0 else -1.0
    r = reach(game, avg)
    value = float(hands[player].weights @ backward(game, player, avg, r[modelled]))
    worst = -float(hands[modelled].weights @ backward(game, modelled, avg, r[player], best_response=True))
    value_vs_model = None
    if everywhere:
        vs = list(avg)
        for d, m in model.items():
            vs[d] = m
        value_vs_model = float(hands[player].weights @ backward(game, player, vs, reach(game, vs)[modelled]))
    if game_value is None:
        game_value = solve(rules, dice, 1e-3, 100_000, leaf_value=leaf, max_depth=max_depth).value
    mine = sign * game_value
    return RestrictedResult(
        Policy(tree, hands, avg), player, value, value_vs_model, worst, mine, mine - worst, cfr.iterations,
        time.perf_counter() - start, calls,
    )


def _restricted_gap(cfr: RestrictedCFR) -> float:
    """NashConv / 2 of the average policies in the restricted game: the
    exploiter's best-response gain plus the free part's."""
    game = cfr.game
    avg = cfr.average_policy()
    e, m = cfr.exploiter, cfr.modelled
    r = reach(game, avg)
    v = float(game.hands[e].weights @ backward(game, e, avg, r[m]))
    br_e = float(game.hands[e].weights @ backward(game, e, avg, r[m], best_response=True))
    # the modelled player's best response keeps the model's share: best-respond
    # with the free part only, i.e. a best response in the restricted game
    br_m = _restricted_best_response(cfr, avg, r[e])
    return ((br_e - v) + (br_m + v)) / 2.0


def _restricted_best_response(cfr: RestrictedCFR, avg: list[np.ndarray], exploiter_reach: list[np.ndarray]) -> float:
    """The modelled player's best value when only its free part may change
    (the model's share ``conf`` stays)."""
    game = cfr.game
    depths = game.tree.depths
    m = cfr.modelled

    def own(d: int, ve: np.ndarray) -> np.ndarray:
        starts = depths[d].starts
        best = np.maximum.reduceat(ve, starts, axis=0)
        c = cfr.conf_edges[d]
        model_part = np.add.reduceat(c * cfr.model[d] * ve, starts, axis=0)
        conf_nodes = np.maximum.reduceat(c, starts, axis=0)  # one value per node
        values: np.ndarray = model_part + (1.0 - conf_nodes) * best
        return values

    return float(game.hands[m].weights @ backward(game, m, avg, exploiter_reach, own_values=own))


__all__ = ["CountKey", "MAX_MODEL_CALLS", "RestrictedCFR", "RestrictedResult", "confidence", "restricted_response"]
