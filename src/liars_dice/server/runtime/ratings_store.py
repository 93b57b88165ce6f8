"""Storing the ratings (issue 18): the running update, the rebuild, the reads.

* **The running update** is a store op (``Op("rate", outcome)``, made by the
  change path with the ``finished`` event of a rated table's game, see
  :func:`~liars_dice.server.runtime.service._ops`): it runs in the same
  transaction as that event (:func:`apply_outcome`), so a game is rated once
  it is stored, and only by the worker that owns the table (the op follows the
  owner's fence, :mod:`.ownership`). A repeat is a no-op: a game already in
  ``rating_history`` (unique ``account_id, table_id, game_no``) is not rated again.
* **One order.** Rated games are applied one at a time in the order of their
  ``finished`` events' ids: on PostgreSQL each rating transaction first takes
  one transaction-level advisory lock (:data:`LOCK_KEY`), before its events
  are inserted, so their ids follow the order the ratings were applied in,
  across workers; SQLite has one writer. :func:`rebuild` folds the same
  :func:`~liars_dice.server.core.ratings.rate_game` over the same order, so
  it gives exactly the running numbers.
* **Reads**: the leaderboard (:func:`leaderboard`), a player's profile
  (:func:`profile`) and the ratings of the lobby's seats (:func:`seat_ratings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, select, text, update

from ...engine import LiarsDiceError
from ..core.ratings import Outcome, Rated, conservative, outcome, rate_game
from ..core.tables import Event, EventKind, apply, created
from .db import accounts_t, events_t, rating_history_t, ratings_t, seats_t, tables_t

#: The PostgreSQL advisory lock every rating transaction takes first (issue 18).
LOCK_KEY = 18_0001
#: Rated games a player needs to be listed on the leaderboard.
LEADERBOARD_MIN_GAMES = 10
#: The most players one leaderboard answer lists.
LEADERBOARD_MAX = 100
#: The most history points per rule set a profile answers with (the latest).
HISTORY_MAX = 500


def lock(conn: Connection) -> None:
    """Serialise the rating transactions (PostgreSQL; SQLite has one writer)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})


def accounts_of(conn: Connection, table_id: str, seats: Iterable[tuple[int, str]]) -> dict[int, int]:
    """The account of each ``(seat, name)`` of table ``table_id``: the latest
    ``seats`` row of that seat under that name, when it has an account."""
    want = dict(seats)
    if not want:
        return {}
    rows = conn.execute(
        select(seats_t.c.seat, seats_t.c.name, seats_t.c.account_id)
        .where(seats_t.c.table_id == table_id, seats_t.c.seat.in_(list(want)))
        .order_by(seats_t.c.id)
    )
    out: dict[int, int] = {}
    for r in rows:
        if want.get(r.seat) == r.name:
            if r.account_id is None:
                out.pop(r.seat, None)
            else:
                out[r.seat] = int(r.account_id)
    return out


def apply_outcome(conn: Connection, game: Outcome, at: datetime) -> bool:
    """Rate one finished game on ``conn`` (in the caller's transaction).
    Returns whether any rating changed: ``False`` for a game already rated,
    one with a guest, or one with no account."""
    lock(conn)
    done = conn.execute(
        select(rating_history_t.c.id).where(
            rating_history_t.c.table_id == game.table_id, rating_history_t.c.game_no == game.game_no
        ).limit(1)
    ).first()
    if done is not None:
        return False
    persons = [(p.seat, p.name) for p in game.placings if p.bot is None]
    accounts = accounts_of(conn, game.table_id, persons)
    if len(accounts) < len(persons) or not accounts:
        return False
    ids = sorted(set(accounts.values()))
    have = {
        r.account_id: r for r in conn.execute(
            select(ratings_t).where(ratings_t.c.account_id.in_(ids), ratings_t.c.rule_set == game.rule_set)
        )
    }
    people = {
        seat: (Rated(aid, have[aid].mu, have[aid].sigma) if aid in have else Rated(aid))
        for seat, aid in accounts.items()
    }
    new = rate_game(game.placings, people)
    if not new:
        return False
    place_of = {accounts[p.seat]: p.place for p in game.placings if p.seat in accounts}
    for aid, (mu, sigma) in new.items():
        if aid in have:
            conn.execute(
                update(ratings_t).where(ratings_t.c.account_id == aid, ratings_t.c.rule_set == game.rule_set)
                .values(mu=mu, sigma=sigma, games=have[aid].games + 1, updated_at=at)
            )
        else:
            conn.execute(insert(ratings_t).values(
                account_id=aid, rule_set=game.rule_set, mu=mu, sigma=sigma, games=1, updated_at=at))
    conn.execute(insert(rating_history_t), [
        {"account_id": aid, "rule_set": game.rule_set, "table_id": game.table_id, "game_no": game.game_no,
         "place": place_of[aid], "mu": mu, "sigma": sigma, "at": at}
        for aid, (mu, sigma) in new.items()
    ])
    return True


def stored_outcomes(conn: Connection) -> list[tuple[Outcome, datetime]]:
    """Every rated table's finished games, rebuilt from their events, in the
    order of their ``finished`` events (the order they were rated in)."""
    rated_ids = [r[0] for r in conn.execute(select(tables_t.c.id).where(tables_t.c.rated.is_(True)))]
    found: list[tuple[int, Outcome, datetime]] = []
    for table_id in rated_ids:
        rows = conn.execute(
            select(events_t.c.id, events_t.c.kind, events_t.c.payload, events_t.c.created_at)
            .where(events_t.c.table_id == table_id).order_by(events_t.c.seq)
        ).all()
        if not rows or rows[0].kind != EventKind.CREATED:
            continue
        try:
            t = created(rows[0].payload)
            for r in rows[1:]:
                t = apply(t, Event(EventKind(r.kind), r.payload))
                if r.kind == EventKind.FINISHED:
                    got = outcome(t)
                    if got is not None:
                        found.append((int(r.id), got, r.created_at))
        except (LiarsDiceError, ValueError, KeyError):
            continue  # a damaged table: its games up to the damage count
    found.sort(key=lambda f: f[0])
    return [(g, at) for _, g, at in found]


def rebuild(engine: Engine) -> dict[str, int]:
    """``liars-dice ratings rebuild``: every rating recomputed from the stored
    games, in order, in one transaction (the old ratings and history replaced).
    Returns ``{"games": rated games, "ratings": ratings stored}``."""
    with engine.begin() as conn:
        lock(conn)
        conn.execute(delete(rating_history_t))
        conn.execute(delete(ratings_t))
        games = 0
        for game, at in stored_outcomes(conn):
            games += apply_outcome(conn, game, at)
        n = conn.execute(select(func.count()).select_from(ratings_t)).scalar_one()
    return {"games": games, "ratings": int(n)}


def _name(r: Any) -> str:
    return f"deleted player {r.deleted_number}" if r.deleted_at is not None else str(r.name)


def rating_json(mu: float, sigma: float, games: int) -> dict[str, Any]:
    return {"mu": round(mu, 4), "sigma": round(sigma, 4), "conservative": round(conservative(mu, sigma), 4),
            "games": games}


def rule_sets(conn: Connection) -> list[str]:
    """The rule sets that have ratings, by most rated games first."""
    q = (select(ratings_t.c.rule_set, func.sum(ratings_t.c.games).label("n"))
         .group_by(ratings_t.c.rule_set).order_by(func.sum(ratings_t.c.games).desc(), ratings_t.c.rule_set))
    return [r.rule_set for r in conn.execute(q)]


def leaderboard(conn: Connection, rule_set: str, limit: int = LEADERBOARD_MAX) -> list[dict[str, Any]]:
    """The top players of ``rule_set`` by conservative rating (mu - 3 sigma),
    only those with at least :data:`LEADERBOARD_MIN_GAMES` rated games:
    ``[{"rank", "name", "mu", "sigma", "conservative", "games"}]``."""
    score = ratings_t.c.mu - 3.0 * ratings_t.c.sigma
    q = (
        select(ratings_t, accounts_t.c.name, accounts_t.c.deleted_at, accounts_t.c.deleted_number)
        .join(accounts_t, accounts_t.c.id == ratings_t.c.account_id)
        .where(ratings_t.c.rule_set == rule_set, ratings_t.c.games >= LEADERBOARD_MIN_GAMES,
               accounts_t.c.deleted_at.is_(None))
        .order_by(score.desc(), ratings_t.c.games.desc(), accounts_t.c.name)
        .limit(max(1, min(limit, LEADERBOARD_MAX)))
    )
    return [{"rank": i, "name": _name(r), **rating_json(r.mu, r.sigma, r.games)}
            for i, r in enumerate(conn.execute(q), start=1)]


def profile(conn: Connection, name: str) -> dict[str, Any] | None:
    """A registered player's ratings, each with its history (oldest first, at
    most :data:`HISTORY_MAX` points): ``{"name", "ratings": [{"rule_set",
    "mu", "sigma", "conservative", "games", "history": [{"at", "mu",
    "sigma", "conservative", "place", "code", "game"}]}]}``; ``None`` when no
    live account has that name."""
    acc = conn.execute(
        select(accounts_t.c.id, accounts_t.c.name).where(accounts_t.c.name == name, accounts_t.c.deleted_at.is_(None))
    ).first()
    if acc is None:
        return None
    out: list[dict[str, Any]] = []
    for r in conn.execute(select(ratings_t).where(ratings_t.c.account_id == acc.id)
                          .order_by(ratings_t.c.games.desc(), ratings_t.c.rule_set)):
        hist = conn.execute(
            select(rating_history_t, tables_t.c.code, tables_t.c.private)
            .join(tables_t, tables_t.c.id == rating_history_t.c.table_id)
            .where(rating_history_t.c.account_id == acc.id, rating_history_t.c.rule_set == r.rule_set)
            .order_by(rating_history_t.c.id.desc()).limit(HISTORY_MAX)
        ).all()
        out.append({
            "rule_set": r.rule_set, **rating_json(r.mu, r.sigma, r.games),
            "history": [{
                "at": h.at.isoformat() if h.at else None, "mu": round(h.mu, 4), "sigma": round(h.sigma, 4),
                "conservative": round(conservative(h.mu, h.sigma), 4), "place": h.place,
                "code": None if h.private else h.code, "game": h.game_no,
            } for h in reversed(hist)],
        })
    return {"name": acc.name, "ratings": out}


def account_id_of(conn: Connection, name: str) -> int | None:
    """The live account called ``name``, or ``None``."""
    return conn.execute(
        select(accounts_t.c.id).where(accounts_t.c.name == name, accounts_t.c.deleted_at.is_(None))
    ).scalar_one_or_none()


def seat_ratings(conn: Connection, wanted: Sequence[tuple[str, str | None, Sequence[tuple[int, str]]]]) -> dict[str, dict[int, dict[str, Any]]]:
    """For the lobby: per table code, each seat's rating in the table's rule
    set, for seats held under an account that has one. ``wanted`` is
    ``[(code, rule set or None, [(seat, name), ...])]``; answers
    ``{code: {seat: {"mu", "sigma", "conservative", "games"}}}`` (two queries)."""
    codes = [c for c, rs, seats in wanted if rs is not None and seats]
    if not codes:
        return {}
    rows = conn.execute(
        select(tables_t.c.code, seats_t.c.seat, seats_t.c.name, seats_t.c.account_id)
        .join(seats_t, seats_t.c.table_id == tables_t.c.id)
        .where(tables_t.c.code.in_(codes)).order_by(seats_t.c.id)
    ).all()
    want = {c: (rs, dict(seats)) for c, rs, seats in wanted}
    held: dict[tuple[str, int], int] = {}
    for r in rows:
        rs, seats = want[r.code]
        if seats.get(r.seat) == r.name:
            if r.account_id is None:
                held.pop((r.code, r.seat), None)
            else:
                held[(r.code, r.seat)] = int(r.account_id)
    if not held:
        return {}
    pairs = {(aid, want[code][0]) for (code, _), aid in held.items()}
    got: dict[tuple[int, str], Any] = {}
    for row in conn.execute(select(ratings_t).where(ratings_t.c.account_id.in_({a for a, _ in pairs}))):
        got[(row.account_id, row.rule_set)] = row
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for (code, seat), aid in held.items():
        have = got.get((aid, str(want[code][0])))
        if have is not None:
            out.setdefault(code, {})[seat] = rating_json(have.mu, have.sigma, have.games)
    return out


def seat_accounts(conn: Connection, table_id: str, seats: Mapping[int, str]) -> dict[int, int]:
    """The account of each seat ``{seat: name}`` of table ``table_id`` (the
    ``bots_learn`` option: only a person seated under their account is learned from)."""
    return accounts_of(conn, table_id, seats.items())


def games_of_account(conn: Connection, account_id: int, name: str) -> list[str]:
    """Table ids of the public finished (or playing again) games account
    ``account_id`` played under ``name``, newest first (at most 500)."""
    q = (
        select(tables_t.c.id, seats_t.c.seat, tables_t.c.players)
        .join(seats_t, seats_t.c.table_id == tables_t.c.id)
        .where(and_(seats_t.c.account_id == account_id, seats_t.c.name == name,
                    tables_t.c.status.in_(("finished", "playing")), tables_t.c.private.is_(False)))
        .order_by(tables_t.c.created_at.desc()).limit(500)
    )
    out: list[str] = []
    for r in conn.execute(q):
        if r.players is not None and r.seat < len(r.players) and r.players[r.seat] == name and r.id not in out:
            out.append(r.id)
    return out


def reading(engine: Engine, fn: Any, /, *args: Any) -> Any:
    """``fn(conn, *args)`` on a connection of ``engine`` (for :meth:`.store.Store.read`)."""
    with engine.connect() as conn:
        return fn(conn, *args)
