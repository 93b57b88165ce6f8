"""A database made by today's main (alembic revision 0002) with a finished
game migrates to the head (0003: accounts, sessions, ratings) with nothing
lost, on SQLite and on PostgreSQL: every row of ``tables``, ``events`` and
``seats`` is the same after, and the migrated server serves the game's
record (which still verifies), its replay and the player's listing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from helpers import Player, is_state, running
from sqlalchemy import Engine, inspect, select, text

from liars_dice.records import verify_record
from liars_dice.server import Settings
from liars_dice.server.runtime.db import MIGRATIONS, events_t, make_engine, migrate, seats_t, tables_t

from accounts_helpers import own_postgres_database

from .conftest import POSTGRES_URL

_OLD = {
    "tables": ["id", "code", "created_at", "status", "private", "preset", "n_seats", "turn_timer", "players", "winner", "finished_at"],
    "events": ["id", "table_id", "seq", "kind", "payload", "created_at"],
    "seats": ["id", "table_id", "seat", "name", "token_hash", "created_at"],
}


def _to(engine: Engine, revision: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def _rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    with engine.connect() as conn:
        for table, cols in _OLD.items():
            q = f"SELECT {', '.join(cols)} FROM {table} ORDER BY id"
            out[table] = [tuple(r) for r in conn.execute(text(q))]
    return out


def _finished_game(settings: Settings) -> str:
    """A finished game between a guest and a bot, played by today's server; its code."""
    with running(settings) as c:
        t = c.post("/api/tables", json={"nickname": "ann", "seats": 2, "options": {"dice_per_player": 2}}).json()
        ann = Player(c, t["code"], t["token"])
        ann.send({"type": "chat", "text": "good luck", "id": "c"})
        ann.send({"type": "add_bot", "bot": "random"})
        ann.send({"type": "start", "id": "s"})
        ann.send({"type": "leave", "id": "l"})
        ann.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
        ann.close()
    return str(t["code"])


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.xdist_group("postgres")])])
def urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(where the game is played, the 0002 database to migrate)."""
    if request.param == "postgres":
        if not POSTGRES_URL:
            pytest.skip("LIARS_DICE_TEST_POSTGRES_URL is not set")
        url, drop = own_postgres_database(POSTGRES_URL)
        try:
            yield f"sqlite:///{tmp_path / 'source.db'}", url
        finally:
            drop()
        return
    yield f"sqlite:///{tmp_path / 'source.db'}", f"sqlite:///{tmp_path / 'old.db'}"


def test_a_0002_database_with_a_finished_game_migrates_with_nothing_lost(urls: tuple[str, str]) -> None:
    source_url, old_url = urls
    code = _finished_game(Settings(db_url=source_url, bot_delay=0.0, grace=60.0))
    source = make_engine(source_url)
    rows = _rows(source)
    source.dispose()
    assert rows["events"] and rows["seats"] and rows["tables"][0][3] == "finished"

    old = make_engine(old_url)
    _to(old, "0002")
    names = set(inspect(old).get_table_names())
    assert "accounts" not in names and "account_id" not in {c["name"] for c in inspect(old).get_columns("seats")}
    with old.begin() as conn:  # the rows as main's server wrote them (0002's columns only)
        for table, cols in _OLD.items():
            typed = {"tables": tables_t, "events": events_t, "seats": seats_t}[table]
            src = make_engine(source_url)
            with src.connect() as s:
                data = [dict(r._mapping) for r in s.execute(select(*[typed.c[c] for c in cols]).order_by(typed.c.id))]
            src.dispose()
            from sqlalchemy import MetaData, Table

            t = Table(table, MetaData(), autoload_with=conn)
            conn.execute(t.insert(), data)
        if old.dialect.name == "postgresql":
            for table in ("events", "seats"):
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"))
    before = _rows(old)
    migrate(old)  # to the head
    after = _rows(old)
    with old.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0007"  # the head
        assert conn.execute(text("SELECT count(*) FROM tables WHERE creator IS NOT NULL")).scalar() == 0  # 0005: none known
        assert conn.execute(text("SELECT count(*) FROM seats WHERE account_id IS NOT NULL")).scalar() == 0
        assert conn.execute(text("SELECT count(*) FROM tables WHERE rated")).scalar() == 0
    old.dispose()
    assert before == after

    with running(Settings(db_url=old_url, bot_delay=0.0, grace=60.0)) as c:
        rec = c.get(f"/api/tables/{code}/record")
        assert rec.status_code == 200
        report = verify_record(rec.content)
        assert set(report.players) == set(rec.json()["players"]) and "ann" in rec.json()["players"]
        assert c.get(f"/api/tables/{code}/replay").status_code == 200
        assert [g["code"] for g in c.get("/api/players/ann/games").json()["games"]] == [code]
        # and the migrated database takes accounts
        r = c.post("/api/account/sign-up", json={"name": "zed", "password": "a long enough secret"})
        assert r.status_code == 201


def test_0006_recomputes_skeletons_and_both_look_alikes_it_let_in_still_sign_in(tmp_path: Path) -> None:
    """Issue 38, fault 1: accounts stored with the skeleton taken before case
    folding get the new one (sign-in finds a name by it); two accounts the old
    skeleton let in beside each other ("Kimmy155", "KIMMY155") both stay and
    both sign in with their exact names; a case variant reaches the older."""
    from accounts_helpers import PASSWORD, sign_in
    from argon2 import PasswordHasher
    from datetime import datetime, timezone

    from liars_dice.server.core.text import _spoof_checker, skeleton
    from liars_dice.server.runtime.db import accounts_t

    def old_skeleton(name: str) -> str:  # main before issue 38
        c = _spoof_checker()
        return str(c.getSkeleton(0, str(c.getSkeleton(0, name)).casefold()))

    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = make_engine(url)
    _to(old, "0005")
    now = datetime.now(timezone.utc)
    pw = PasswordHasher().hash(PASSWORD)
    with old.begin() as conn:
        for name in ("Kimmy155", "KIMMY155", "Mila"):
            conn.execute(accounts_t.insert().values(name=name, skeleton=old_skeleton(name), password_hash=pw,
                                                    created_at=now, password_changed_at=now))
    assert old_skeleton("Kimmy155") != old_skeleton("KIMMY155")
    migrate(old)
    with old.connect() as conn:
        stored = dict(conn.execute(select(accounts_t.c.name, accounts_t.c.skeleton)).all())
    old.dispose()
    assert stored["Kimmy155"] == skeleton("Kimmy155") == skeleton("KIMMY155") and stored["Mila"] == skeleton("Mila")
    assert stored["KIMMY155"] != stored["Kimmy155"]
    with running(Settings(db_url=url, bot_delay=0.0, grace=60.0)) as c:
        assert sign_in(c, "KIMMY155")["account"] == {"name": "KIMMY155"}
        assert sign_in(c, "Kimmy155")["account"] == {"name": "Kimmy155"}
        assert sign_in(c, "kimmy155")["account"] == {"name": "Kimmy155"}
        assert sign_in(c, "MILA")["account"] == {"name": "Mila"}
