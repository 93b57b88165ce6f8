"""The table option "bots learn from this player's past games": fitting
opponent models on a person's finished public games, and keeping them.

A :class:`Learner` belongs to one worker. What it keeps, and why:

* **The key** of a model is ``(name, preset, rules)``, the full rule set: a
  model is of one rule set (:meth:`~liars_dice.bots.opponent_model.OpponentModel.check_rules`,
  and its fit counts only games played under exactly these rules), so a
  model fitted under other options would be refused or wrong. What changing
  one option must not do is cost a refit of the person's whole history
  (issue 16 fault 4): a fit first reads, in one query, the rules of each of
  the person's games of the preset (their ``created`` events), and rebuilds
  only the games under the table's rules, at most :data:`LEARN_GAMES`. A table
  under a rule set nobody has played costs one query per name, no rebuild.
* **The cache**: each model is kept :data:`LEARN_CACHE_SECONDS` (at most
  :data:`LEARN_CACHE_SIZE`, least recently used out first). A cached model is
  looked up without waiting for anything: never behind a queued fit.
* **The fits** run one at a time, on a thread of their own (at most one
  core, whoever starts tables), in the order they were asked for, one job
  per ``(name, preset, rules)``: two tables wanting the same model share one
  fit, a table asks for at most one fit per seat, and at most
  :data:`LEARN_QUEUE_MAX` fits wait at once (past that, the bots of a new
  table play that person without a model: the fit is not queued).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...engine import LiarsDiceError, Rules
from ..core.tables import Table, TableStatus, rebuild
from .store import Store

log = logging.getLogger(__name__)

#: Finished games per seated person the table option "bots learn" fits a model on.
LEARN_GAMES = 50
#: Seconds a "bots learn" model of a (name, rule set) is reused before it is fitted
#: again: a table started by anyone under a prolific player's name cost up to 8 s of
#: CPU (five names, 50 games each), and the same again at every such start (attack7).
LEARN_CACHE_SECONDS = 600.0
#: The most (name, rule set) models kept at once; the oldest used goes first.
LEARN_CACHE_SIZE = 512
#: The most fits waiting or running at once (each one name under one rule set).
LEARN_QUEUE_MAX = 32

#: (name, preset, rules, account id or None: a fit on every game under the name)
Key = tuple[str, str, Any, int | None]


class Learner:
    """Opponent models of seated persons, fitted on their past games.

    :param store: where the past games are read.
    :param record_of: a finished table's record (RECORD-FORMAT.md).
    """

    def __init__(self, store: Store, record_of: Callable[[Table], dict[str, Any]]) -> None:
        self.store = store
        self.record_of = record_of
        #: models by (name, preset, rules): (monotonic expiry, model or None)
        self.cache: OrderedDict[Key, tuple[float, Any]] = OrderedDict()
        #: the fit under way (or queued) of each key
        self._fitting: dict[Key, asyncio.Future[Any]] = {}
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="liars-dice-learn")

    async def models(
        self, names: Sequence[str], code: str, preset: str, rules: Any, accounts: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """The models of ``names`` by name (none for a person without one), each
        fitted on the person's last :data:`LEARN_GAMES` finished public games
        of ``preset`` under ``rules`` other than table ``code``. A person's
        games finished meanwhile count from the next fit. The models are
        shared: bots copy what they are given.

        :param accounts: the account each name is seated under (issue 18):
            when given, only those names get a model, fitted on the games
            played under that account only (a guest gets none, so nobody can
            shape someone else's model); ``None``: every game under each name."""
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        learned: dict[str, Any] = {}
        waiting: dict[str, asyncio.Future[Any]] = {}
        for name in dict.fromkeys(names):
            account = None if accounts is None else accounts.get(name)
            if accounts is not None and account is None:
                continue  # a guest: no learned model (issue 18)
            key = (name, preset, rules, account)
            hit = self.cache.get(key)
            if hit is not None and hit[0] > now:
                self.cache.move_to_end(key)
                if hit[1] is not None:
                    learned[name] = hit[1]
                continue
            fut = self._fitting.get(key)
            if fut is None:
                if len(self._fitting) >= LEARN_QUEUE_MAX:
                    log.warning("bots_learn: %d fits are waiting; table %s plays %r without a model",
                                len(self._fitting), code, name)
                    continue
                fut = self._fitting[key] = loop.run_in_executor(
                    self._pool, self._fit_one, name, code, preset, rules, account)
                fut.add_done_callback(functools.partial(self._fitted, key))
            waiting[name] = fut
        for name, fut in waiting.items():
            try:
                model = await asyncio.shield(fut)
            except Exception:  # noqa: BLE001 - the bots play without this model
                log.exception("bots_learn: the fit of %r failed at table %s", name, code)
                continue
            if model is not None:
                learned[name] = model
        return learned

    def _fitted(self, key: Key, fut: asyncio.Future[Any]) -> None:
        self._fitting.pop(key, None)
        if fut.cancelled() or fut.exception() is not None:
            return
        self.cache[key] = (time.monotonic() + LEARN_CACHE_SECONDS, fut.result())
        self.cache.move_to_end(key)
        while len(self.cache) > LEARN_CACHE_SIZE:
            self.cache.popitem(last=False)

    def _fit_one(self, name: str, code: str, preset: str, rules: Any, account: int | None = None) -> Any:
        return self.fit([name], code, preset, rules, None if account is None else {name: account}).get(name)

    def fit(
        self, names: Sequence[str], code: str, preset: str, rules: Any, accounts: Mapping[str, int] | None = None,
    ) -> dict[str, Any]:
        """Models of ``names`` by name, fitted now (blocking: database and CPU,
        for a worker thread); see :meth:`models`. Only the games under
        ``rules`` are rebuilt (their rules are read from their ``created``
        events first). With ``accounts``, a name's games are those its account
        played (under that name) only, and a name with no account gets none."""
        from ...bots.opponent_model import ModelError, fit
        from .ratings_store import games_of_account, reading

        learned: dict[str, Any] = {}
        for name in names:
            own: set[str] | None = None
            if accounts is not None:
                if name not in accounts:
                    continue
                own = set(reading(self.store.engine, games_of_account, accounts[name], name))
            codes = [g["code"] for g in self.store.games_of(name=name)
                     if g.get("code") != code and g.get("rules") == preset and not g.get("not_in_last_game")]
            created = self.store.created_of(codes)
            same: list[str] = []
            for c in codes:
                if c in created and (own is None or created[c][0] in own) and _rules_of(created[c][1]) == rules:
                    same.append(created[c][0])
                if len(same) >= LEARN_GAMES:
                    break
            records = []
            for table_id in same:
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


def _rules_of(payload: dict[str, Any]) -> Rules | None:
    try:
        return Rules.from_dict(payload["rules"])
    except (KeyError, TypeError, ValueError, LiarsDiceError):
        return None
