"""The table option "bots learn from this player's past games": fitting
opponent models on a person's finished public games, and keeping them.

A :class:`Learner` belongs to one worker. Fits run one at a time (a worker
thread: at most one core, whoever starts tables), and each ``(name, preset,
rules)`` model is kept :data:`LEARN_CACHE_SECONDS` (at most
:data:`LEARN_CACHE_SIZE`, least recently used out first), so tables started
again and again under the same prolific names fit them once.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ...engine import LiarsDiceError
from ..core.tables import Table, TableStatus, rebuild
from .store import Store

#: Finished games per seated person the table option "bots learn" fits a model on.
LEARN_GAMES = 50
#: Seconds a "bots learn" model of a (name, rule set) is reused before it is fitted
#: again: a table started by anyone under a prolific player's name cost up to 8 s of
#: CPU (five names, 50 games each), and the same again at every such start (attack7).
LEARN_CACHE_SECONDS = 600.0
#: The most (name, rule set) models kept at once; the oldest used goes first.
LEARN_CACHE_SIZE = 512


class Learner:
    """Opponent models of seated persons, fitted on their past games.

    :param store: where the past games are read.
    :param record_of: a finished table's record (RECORD-FORMAT.md).
    """

    def __init__(self, store: Store, record_of: Callable[[Table], dict[str, Any]]) -> None:
        self.store = store
        self.record_of = record_of
        #: models by (name, preset, rules): (monotonic expiry, model or None)
        self.cache: OrderedDict[tuple[str, str, Any], tuple[float, Any]] = OrderedDict()
        self._lock: asyncio.Lock | None = None  # made on the event loop, at first use

    async def models(self, names: Sequence[str], code: str, preset: str, rules: Any) -> dict[str, Any]:
        """The models of ``names`` by name (none for a person without one), each
        fitted on the person's last :data:`LEARN_GAMES` finished public games
        of ``preset`` under ``rules`` other than table ``code``. A person's
        games finished meanwhile count from the next fit. The models are
        shared: bots copy what they are given."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        cache = self.cache
        async with self._lock:
            now = time.monotonic()
            learned: dict[str, Any] = {}
            missing: list[str] = []
            for name in dict.fromkeys(names):
                hit = cache.get((name, preset, rules))
                if hit is not None and hit[0] > now:
                    cache.move_to_end((name, preset, rules))
                    if hit[1] is not None:
                        learned[name] = hit[1]
                else:
                    missing.append(name)
            if missing:
                fitted = await asyncio.to_thread(self.fit, missing, code, preset, rules)
                expires = time.monotonic() + LEARN_CACHE_SECONDS
                for name in missing:
                    cache[(name, preset, rules)] = (expires, fitted.get(name))
                    cache.move_to_end((name, preset, rules))
                    if name in fitted:
                        learned[name] = fitted[name]
                while len(cache) > LEARN_CACHE_SIZE:
                    cache.popitem(last=False)
            return learned

    def fit(self, names: Sequence[str], code: str, preset: str, rules: Any) -> dict[str, Any]:
        """Models of ``names`` by name, fitted now (blocking: database and CPU,
        for a worker thread); see :meth:`models`."""
        from ...bots.opponent_model import ModelError, fit

        learned: dict[str, Any] = {}
        for name in names:
            codes = [g["code"] for g in self.store.games_of(name=name)
                     if g.get("code") != code and g.get("rules") == preset][:LEARN_GAMES]
            records = []
            for c in codes:
                table_id = self.store.table_id_for_code(c)
                if table_id is None:
                    continue
                try:
                    past = rebuild(self.store.events(table_id), 0)
                except (LiarsDiceError, ValueError):
                    continue
                if past.status is not TableStatus.FINISHED or past.state is None:
                    continue
                records.append(self.record_of(past))
            if records:
                try:
                    learned[name] = fit(records, name, rules=rules)
                except ModelError:
                    continue
        return learned
