"""Play an arena: many seat-rotated games between bots, in parallel.

Every game's randomness comes from ``(seed, game index)`` alone: the dice and
each registered bot's seed are drawn from ``numpy.random.SeedSequence([seed, g])``.
So the outcomes, and the report built from them in game order, are the same
for any number of worker processes. (An external program keeps its own
randomness; ``liars-dice bot --seed S`` makes its replies depend on each
request alone, which keeps an arena with it reproducible too.)
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.util
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bots import Bot, Decision
from ..engine import Game, LiarsDiceError, Rules, SeatView, SeededDice, State
from ..match import play_game
from ..protocol import DEFAULT_TIMEOUT, ExternalBot
from .entrants import Entrant
from .seating import seating
from .stats import ratings, report


class ArenaError(LiarsDiceError):
    """A game that could not be finished: a bot failed, timed out, or chose an
    illegal move. The message names the game and the bot."""

    code = "arena/failed"


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What to play.

    :ivar rules: the rule set of every game.
    :ivar entrants: one per seat (see :func:`~liars_dice.arena.entrants.parse_entrants`).
    :ivar games: how many games.
    :ivar seed: the arena's seed (non-negative).
    :ivar timeout: seconds an external bot has for each move.
    :ivar models: opponent models as ``(entrant name, model JSON text)``: every
        other seat's bot gets the model of that entrant (a registered bot through
        ``set_models``, a program in its requests' ``models`` field).
    """

    rules: Rules
    entrants: tuple[Entrant, ...]
    games: int
    seed: int
    timeout: float = DEFAULT_TIMEOUT
    models: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """One finished game.

    :ivar game: its index.
    :ivar seats: ``seats[s]`` is the entrant in seat ``s``.
    :ivar winner: the winning entrant.
    :ivar ranks: per entrant, its finishing rank (1 = winner; those knocked out
        in the same round tie; later elimination ranks better).
    :ivar rounds: rounds played.
    """

    game: int
    seats: tuple[int, ...]
    winner: int
    ranks: tuple[int, ...]
    rounds: int


@dataclass
class ArenaResult:
    """Every outcome in game order, and the report."""

    config: ArenaConfig
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.config.entrants]

    def wins(self) -> list[int]:
        w = [0] * len(self.config.entrants)
        for o in self.outcomes:
            w[o.winner] += 1
        return w

    def report(self) -> dict[str, Any]:
        """``{"games": N, "bots": {NAME: {"wins", "win_rate", "ci95", "rating"}}}``,
        see :func:`liars_dice.arena.stats.report`."""
        rated = ratings(
            len(self.config.entrants),
            [(o.seats, tuple(o.ranks[e] for e in o.seats)) for o in self.outcomes],
        )
        return report(self.names, self.wins(), len(self.outcomes), rated)


def finishing_ranks(state: State) -> tuple[int, ...]:
    """Per seat, the finishing rank of a finished game: the winner 1, then by
    elimination, latest first; seats knocked out in the same round tie, and
    seats still holding dice at the end (a single-round game) tie just below
    the winner."""
    n = len(state.dice)
    score = [len(state.results)] * n  # still in at the end
    for i, r in enumerate(state.results):
        for s in r.out:
            score[s] = i
    assert state.winner is not None
    score[state.winner] = len(state.results) + 1
    return tuple(1 + sum(1 for t in score if t > score[s]) for s in range(n))


class _Checked:
    """A bot whose failures and illegal moves raise :class:`ArenaError` naming it."""

    def __init__(self, bot: Bot, label: str) -> None:
        self.bot, self.name = bot, label

    def decide(self, view: SeatView) -> Decision:
        try:
            d = self.bot.decide(view)
        except LiarsDiceError as e:
            raise ArenaError(e.message) from None
        except Exception as e:
            raise ArenaError(f"The bot {self.name} failed: {type(e).__name__}: {e}.") from None
        if d.action not in view.legal_actions() or (d.show and tuple(sorted(d.show)) not in view.legal_shows()):
            raise ArenaError(f"The bot {self.name} chose {d.action}, which is not a legal move here.")
        return d


def game_seeds(seed: int, game: int, n: int) -> tuple[int, list[int]]:
    """The dice seed and the ``n`` entrants' bot seeds of game ``game``."""
    words = np.random.SeedSequence([seed, game]).generate_state(n + 1, dtype=np.uint64)
    return int(words[0]), [int(w) for w in words[1:]]


def play_one(config: ArenaConfig, g: int, external: dict[int, Bot]) -> Outcome:
    """Play game ``g``: seat the entrants, make fresh registered bots, reuse
    the external ones in ``external`` (entrant -> bot).

    :raises ArenaError: when a bot fails; the message names the game.
    """
    n = len(config.entrants)
    seats = seating(g, n)
    dice_seed, bot_seeds = game_seeds(config.seed, g, n)
    try:
        bots = []
        for e in seats:
            entrant = config.entrants[e]
            bot = external[e] if e in external else entrant.make(bot_seeds[e], config.timeout)
            if config.models:
                _give_models(bot, entrant.name, config.models)
            bots.append(_Checked(bot, entrant.name))
        game = Game.create(config.rules, [config.entrants[e].name for e in seats])
        final = play_game(game, bots, SeededDice(dice_seed), start=0)
    except LiarsDiceError as err:
        raise ArenaError(f"Game {g} stopped: {err.message}") from None
    ranks_by_seat = finishing_ranks(final)
    ranks = [0] * n
    for s, e in enumerate(seats):
        ranks[e] = ranks_by_seat[s]
    assert final.winner is not None
    return Outcome(g, seats, seats[final.winner], tuple(ranks), len(final.results))


def _give_models(bot: Bot, own: str, models: tuple[tuple[str, str], ...]) -> None:
    """Hand ``bot`` the models of every entrant but its own (see :class:`ArenaConfig`)."""
    import json

    others = {name: text for name, text in models if name != own}
    if isinstance(bot, ExternalBot):
        bot.models = {name: json.loads(text) for name, text in others.items()}
        return
    set_models = getattr(bot, "set_models", None)
    if set_models is not None:
        from ..bots.opponent_model import OpponentModel

        set_models({name: OpponentModel.loads(text) for name, text in others.items()})


# -- workers ---------------------------------------------------------------

_WORKER_EXTERNAL: dict[int, Bot] = {}


def _close_external(bots: dict[int, Bot]) -> None:
    for b in bots.values():
        if isinstance(b, ExternalBot):
            b.close()
    bots.clear()


def _external_bots(config: ArenaConfig, cache: dict[int, Bot]) -> dict[int, Bot]:
    for i, e in enumerate(config.entrants):
        if e.external and i not in cache:
            cache[i] = e.make(None, config.timeout)
    return cache


@contextlib.contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Ignore SIGINT while worker processes start, so they inherit "ignored"
    from the first instruction (a worker still importing would otherwise print
    a traceback on Ctrl-C); the parent's handler is back once they run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _worker_init() -> None:
    # Ctrl-C is the parent's to handle (it stops the pool); a worker that took it too
    # would print "Process SpawnPoolWorker-1:" and a traceback over the terminal.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    multiprocessing.util.Finalize(None, _close_external, args=(_WORKER_EXTERNAL,), exitpriority=10)


def _play_chunk(args: tuple[ArenaConfig, range]) -> list[Outcome]:
    config, games = args
    try:
        external = _external_bots(config, _WORKER_EXTERNAL)
    except LiarsDiceError as e:
        raise ArenaError(e.message) from None
    return [play_one(config, g, external) for g in games]


def _chunks(games: int, jobs: int) -> list[range]:
    size = max(1, min(20, games // (jobs * 8)))
    return [range(i, min(games, i + size)) for i in range(0, games, size)]


#: Where the games run: worker processes on this machine, or Ray tasks.
BACKENDS = ("processes", "ray")


def run_arena(
    config: ArenaConfig,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    backend: str = "processes",
    address: str | None = None,
) -> ArenaResult:
    """Play ``config.games`` games on ``jobs`` processes (1: in this process),
    or as Ray tasks (``backend="ray"``, :mod:`liars_dice.arena.ray_backend`).

    :param jobs: worker processes; with Ray, the CPUs of the local Ray it
        starts (``jobs <= 1``: every CPU).
    :param on_progress: called with the number of games just finished.
    :param backend: ``"processes"`` or ``"ray"``.
    :param address: with Ray, an existing cluster to run on instead of a local Ray.
    :returns: the outcomes in game order; the same for every ``jobs`` and backend.
    :raises ArenaError: for the first game that fails (the message names it);
        the other games are abandoned; for an unknown backend, or an address
        without Ray.
    :raises RulesError: when the rules do not allow this many seats.
    """
    Game.create(config.rules, [e.name for e in config.entrants])  # fail early on a bad seat count
    if backend not in BACKENDS:
        raise ArenaError(f"There is no arena backend called {backend!r}; choose from {', '.join(BACKENDS)}.")
    if backend == "ray":
        from .ray_backend import run_on_ray

        return ArenaResult(config, run_on_ray(config, jobs if jobs > 1 else None, address, on_progress))
    if address is not None:
        raise ArenaError("An address names a Ray cluster, so it needs the Ray backend (--backend ray).")
    outcomes: list[Outcome] = []
    chunks = _chunks(config.games, jobs)
    if jobs <= 1 or len(chunks) <= 1:
        external: dict[int, Bot] = {}
        try:
            for chunk in chunks:
                outcomes.extend(_play_chunk_local(config, chunk, external))
                if on_progress is not None:
                    on_progress(len(chunk))
        finally:
            _close_external(external)
    else:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads (the progress bar)
        # never more processes than pieces of work: each one starts a Python interpreter
        with _workers_ignore_ctrl_c():
            pool = ctx.Pool(min(jobs, len(chunks)), initializer=_worker_init)
        with pool:
            for part in pool.imap_unordered(_play_chunk, [(config, c) for c in chunks]):
                outcomes.extend(part)
                if on_progress is not None:
                    on_progress(len(part))
            pool.close()
            pool.join()
    outcomes.sort(key=lambda o: o.game)
    return ArenaResult(config, outcomes)


def _play_chunk_local(config: ArenaConfig, games: Sequence[int], external: dict[int, Bot]) -> list[Outcome]:
    try:
        _external_bots(config, external)
    except LiarsDiceError as e:
        raise ArenaError(e.message) from None
    return [play_one(config, g, external) for g in games]
