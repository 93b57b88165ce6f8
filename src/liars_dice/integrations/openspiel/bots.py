"""OpenSpiel's algorithms as bots of ours, seated in the arena by spec:

- ``openspiel:ismcts`` or ``openspiel:ismcts:S``: OpenSpiel's information-set
  MCTS (``open_spiel.python.algorithms.ismcts``) with ``S`` simulations per move
  (default 100), UCT constant 2, one random rollout per leaf;
- ``openspiel:mccfr:N``: ``N`` iterations of OpenSpiel's outcome-sampling MCCFR
  (``outcome_sampling_mccfr``) on the whole game, then its average policy
  (uniform at information states it never visited). Trained once per process
  and game (rules, seats, dice), on the bot's first move. It gives its move
  probabilities (``action_probabilities``), so ``liars-dice exploitability``
  and OpenSpiel's wrapper read its mixed policy.

Each bot sees only its seat's view; it rebuilds a pyspiel state with the same
information state for its seat (other seats' hidden dice drawn at random; ISMCTS
resamples them anyway) and maps the chosen action id back to a
:class:`~liars_dice.bots.Decision`. Registered with the arena through the
``liars_dice.entrants`` entry point (``pyproject.toml``), so the arena, a lower
layer, never imports this module by name.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from ..extras import needs

with needs("openspiel", __name__):
    import pyspiel

from ...bots import Decision
from ...engine import Bid, Calza, Challenge, SeatView
from ...engine.encoding import Show
from .game import SHORT_NAME, LiarsDiceGame, LiarsDiceState

#: The spec prefix these bots answer to.
PREFIX = "openspiel"
#: Bounds on the spec's numbers: simulations per move, MCCFR iterations.
MAX_SIMULATIONS = 100_000
MAX_ITERATIONS = 10_000_000

_GAMES: dict[tuple[str, int, int], LiarsDiceGame] = {}
_POLICIES: dict[tuple[Any, ...], Any] = {}


def game_for(view: SeatView) -> LiarsDiceGame:
    """The pyspiel game of ``view``'s table: its rules, seats and starting dice
    (dice held now plus every die lost so far; the same for every seat)."""
    n = len(view.players)
    start = [view.dice[s] + sum(r.lost[s] for r in view.results) for s in range(n)]
    key = (json.dumps(view.rules.to_dict(), sort_keys=True), n, max(start))
    game = _GAMES.get(key)
    if game is None:
        game = pyspiel.load_game(SHORT_NAME, {"rules": key[0], "players": n, "dice": key[2]})
        _GAMES[key] = game
    return game


def _split(final: tuple[int, ...], shows: list[tuple[int, ...]]) -> tuple[list[int], list[list[int]]]:
    """A deal and reroll outcomes consistent with a seat's ``shows`` (in order)
    and its ``final`` hidden dice: the deal holds every shown die and the final
    ones; after each show the reroll brings the dice shown later and the final ones."""
    deal = [f for s in shows for f in s] + list(final)
    rerolls = []
    for i in range(len(shows)):
        rerolls.append([f for s in shows[i + 1 :] for f in s] + list(final))
    return deal, rerolls


def state_for(view: SeatView, rng: random.Random) -> LiarsDiceState:
    """A pyspiel state where ``view.seat`` is to move and knows what the view
    knows: past rounds as revealed, this round's public moves, the seat's own
    hidden dice; every other seat's hidden dice this round drawn from ``rng``."""
    game = game_for(view)
    state = game.new_initial_state()
    enc = state.pos.setup.encoding
    n = len(view.players)
    rounds = [(r.bids, r.revealed, r.calza) for r in view.results] + [(view.bids, None, False)]
    for bids, revealed, calza in rounds:
        shows: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
        for s, _, sh in bids:
            if sh:
                shows[s].append(tuple(sh))
        deals, rerolls = [], []
        for s in range(n):
            if revealed is not None:
                final = list(revealed[s])
                for sh in shows[s]:
                    for f in sh:
                        final.remove(f)
            elif s == view.seat:
                final = list(view.hand)
            else:
                hidden = view.dice[s] - len(view.shown[s])
                final = [rng.randrange(view.rules.faces) + 1 for _ in range(max(hidden, 0))]
            d, rr = _split(tuple(final), shows[s])
            deals.append(d)
            rerolls.append(rr)
        for s in range(n):
            for f in deals[s]:
                state.apply_action(f - 1)
        used = [0] * n
        for s, bid, sh in bids:
            state.apply_action(enc.encode(bid))
            if state.pos.pending is not None:
                state.apply_action(enc.show_id(sh))
            if sh:
                for f in rerolls[s][used[s]]:
                    state.apply_action(f - 1)
                used[s] += 1
        if revealed is not None:
            state.apply_action(enc.calza if calza else enc.challenge)
    return state


def decide_with(view: SeatView, choose: Any, rng: random.Random) -> Decision:
    """Rebuild the state, ask ``choose(state) -> action id`` for the move (and
    again for the show decision, if the rules ask one), and decode."""
    state = state_for(view, rng)
    enc = state.pos.setup.encoding
    move = enc.decode(int(choose(state)))
    if isinstance(move, (Challenge, Calza)):
        return Decision(move)
    assert isinstance(move, Bid)
    state.apply_action(enc.encode(move))
    if state.pos.pending is None:
        return Decision(move)
    show = enc.decode(int(choose(state)))
    assert isinstance(show, Show)
    return Decision(move, show.faces)


class ISMCTSBot:
    """OpenSpiel's ISMCTS with ``simulations`` per move."""

    def __init__(self, simulations: int = 100, seed: int | None = None) -> None:
        self.name = f"openspiel:ismcts:{simulations}"
        self.simulations = simulations
        self._rng = random.Random(seed)
        self._np = np.random.RandomState(self._rng.randrange(2**31))
        self._bots: dict[int, Any] = {}

    def _bot(self, game: LiarsDiceGame) -> Any:
        from open_spiel.python.algorithms import ismcts, mcts

        bot = self._bots.get(id(game))
        if bot is None:
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._np)
            bot = ismcts.ISMCTSBot(
                game, evaluator, uct_c=2.0, max_simulations=self.simulations, random_state=self._np,
                max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            )
            bot.set_resampler(lambda state, player: state.resample(player, self._np))
            self._bots[id(game)] = bot
        return bot

    def decide(self, view: SeatView) -> Decision:
        bot = self._bot(game_for(view))
        return decide_with(view, bot.step, self._rng)


def mccfr_policy(game: LiarsDiceGame, iterations: int, seed: int) -> Any:
    """The average policy after ``iterations`` of outcome-sampling MCCFR,
    cached per process by (game, iterations, seed)."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    key = (str(game), iterations, seed)
    pol = _POLICIES.get(key)
    if pol is None:
        state = np.random.get_state()
        np.random.seed(seed)  # the solver samples with numpy's global generator
        try:
            solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
            for _ in range(iterations):
                solver.iteration()
        finally:
            np.random.set_state(state)
        pol = _POLICIES[key] = solver.average_policy()
    return pol


class MCCFRBot:
    """Plays the average policy of ``iterations`` of outcome-sampling MCCFR."""

    def __init__(self, iterations: int, seed: int | None = None) -> None:
        self.name = f"openspiel:mccfr:{iterations}"
        self.iterations = iterations
        self._rng = random.Random(seed)

    def decide(self, view: SeatView) -> Decision:
        game = game_for(view)
        pol = mccfr_policy(game, self.iterations, 0)

        def choose(state: LiarsDiceState) -> int:
            probs = pol.action_probabilities(state)
            actions = list(probs)
            return int(self._rng.choices(actions, weights=[max(float(probs[a]), 0.0) for a in actions])[0])

        return decide_with(view, choose, self._rng)

    def action_probabilities(self, view: SeatView) -> dict[Decision, float]:
        """The average policy's probabilities at ``view``'s information state
        (:class:`~liars_dice.bots.base.MixedBot`), a bid and the show after it
        joined as one move (``P(bid) * P(show | bid)``); the other seats'
        dice drawn to rebuild the state do not change the information state."""
        pol = mccfr_policy(game_for(view), self.iterations, 0)
        state = state_for(view, self._rng)
        enc = state.pos.setup.encoding
        out: dict[Decision, float] = {}
        for a, p in pol.action_probabilities(state).items():
            move = enc.decode(int(a))
            if p <= 0 or isinstance(move, Show):
                continue
            child = state.child(int(a))
            if isinstance(move, Bid) and child.pos.pending is not None:
                for s, q in pol.action_probabilities(child).items():
                    show = enc.decode(int(s))
                    if q > 0 and isinstance(show, Show):
                        d = Decision(move, tuple(sorted(show.faces)))
                        out[d] = out.get(d, 0.0) + float(p) * float(q)
                continue
            out[Decision(move)] = out.get(Decision(move), 0.0) + float(p)
        total = sum(out.values())
        return {d: q / total for d, q in out.items()} if total > 0 else out


def make_entrant_bot(spec: str, seed: int | None = None) -> Any:
    """The bot a spec names: ``openspiel:ismcts[:S]`` or ``openspiel:mccfr:N``.

    :raises ValueError: for any other spec, or a number out of bounds (one sentence).
    """
    parts = spec.split(":")
    if parts[0] != PREFIX or len(parts) < 2:
        raise ValueError(f"{spec!r} is not an OpenSpiel bot; use openspiel:ismcts[:S] or openspiel:mccfr:N.")
    kind, args = parts[1], parts[2:]
    if kind == "ismcts" and len(args) <= 1:
        sims = _number(args[0], "simulations", MAX_SIMULATIONS) if args else 100
        return ISMCTSBot(sims, seed)
    if kind == "mccfr" and len(args) == 1:
        return MCCFRBot(_number(args[0], "iterations", MAX_ITERATIONS), seed)
    raise ValueError(f"{spec!r} is not an OpenSpiel bot; use openspiel:ismcts[:S] or openspiel:mccfr:N.")


def _number(text: str, what: str, most: int) -> int:
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= most):
        raise ValueError(f"The number of {what} must be a whole number from 1 to {most}, not {text!r}.")
    return int(text)
