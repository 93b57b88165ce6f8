"""Every text bound of the protocol fits both stores, and a client's bad value
is never a failure of the database (issue 36, fault 4).

"A rules file named with 25 to 40 characters is a database failure on
PostgreSQL: a custom table's preset is stored as ``custom: NAME`` in a
32-character column. The request gets 503, and ``/healthz`` then answers 503
for about 10 s, so one anonymous request every 10 s keeps every worker out of a
load balancer. On SQLite the same file makes a table: the two stores disagree."

:func:`walk` sends every text the protocol stores, each at its longest
(an account's name and password, a guest's nickname, a rules file's name and
its face names, a chat line, a rated game's rule set, a leaderboard's rule set
and a player's name looked up), through the real app, and reads back what
each store kept; SQLite and PostgreSQL must answer and keep the same, and
``/healthz`` stays green throughout.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from liars_dice.engine.notation import MAX_TEXT
from liars_dice.engine.rules import TEXT_OPTION_MAX
from liars_dice.server import Settings
from liars_dice.server.core.accounts import PASSWORD_MAX
from liars_dice.server.core.config import CUSTOM_PREFIX, NAME_COLUMN, RULE_SET_COLUMN
from liars_dice.server.runtime.db import accounts_t, events_t, metadata, rating_history_t, ratings_t, seats_t, tables_t

from .conftest import POSTGRES_URL, reset_postgres
from .helpers import Player, is_state, running
from .test_ratings import play, register, tie

needs_postgres = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set"),
]


def _long(seed: str, n: int) -> str:
    """``n`` characters (code points after NFC) built from ``seed``, letters of
    several scripts, so that a bound in bytes would show."""
    return (seed * n)[:n]


def _healthy(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json()["ok"] is True, r.text


def walk(settings: Settings) -> dict[str, Any]:
    """Every stored text of the protocol at its longest, through the real app:
    what each request answered and what the store kept (lengths and values)."""
    lim = settings
    out: dict[str, Any] = {}
    with running(settings) as client:
        engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
        # an account: its name at nickname_max (its skeleton too), its password at PASSWORD_MAX
        host = _long("Ærø", lim.nickname_max)
        password = _long("pässwörd-ωµ-", PASSWORD_MAX)
        r = client.post("/api/account/sign-up", json={"name": host, "password": password})
        out["sign-up"] = r.status_code
        assert r.status_code == 201, r.text
        csrf = {"X-CSRF-Token": r.json()["csrf"]}
        _healthy(client)
        # a rated table from a rules file: the file's name and each face's name at text_chars,
        # listed under "custom: NAME" (tables.preset, ratings.rule_set)
        file_name = _long("Ĥøüsé ", min(lim.text_chars, TEXT_OPTION_MAX))  # the engine's own bound too
        words = ["àçé", "ñõü", "ßðþ", "æøå", "ĳŀł", "ŋœŧ"]
        most = min(lim.text_chars, MAX_TEXT - 2)  # "2 NAME" is read back by the notation (engine/notation.py)
        faces = [[f, _long(w, most), _long(w, most - 1) + "s"] for f, w in enumerate(words, start=1)]
        rules = "\n".join([
            'preset = "classic"', f'name = "{file_name}"', "dice_per_player = 1",
            "face_names = [" + ", ".join(f'[{f}, "{a}", "{b}"]' for f, a, b in faces) + "]",
        ]) + "\n"
        r = client.post("/api/tables", headers=csrf, json={
            "nickname": host, "seats": 2, "rules_text": rules, "rated": True, "turn_timer": 600})
        out["create"] = (r.status_code, r.json().get("table", {}).get("preset"))
        assert r.status_code == 201, r.text
        _healthy(client)
        t = r.json()
        code = t["code"]
        # a guest at nickname_max (another account's seat for the rating, tied as test_ratings does)
        guest = _long("Жüñ", lim.nickname_max)
        session = dict(client.cookies)
        client.cookies.clear()  # a guest's request
        r = client.post(f"/api/tables/{code}/join", json={"nickname": guest})
        client.cookies.update(session)
        out["join"] = r.status_code
        assert r.status_code == 200, r.text
        j = r.json()
        tie(client, code, j["seat"], register(client, guest))
        ann, bea = Player(client, code, t["token"]), Player(client, code, j["token"])
        chat = _long("Ça va, ñandú? ", lim.chat_max)
        ann.send({"type": "chat", "text": chat, "id": "chat"})
        out["chat"] = ann.wait(lambda m: m.get("id") == "chat")["type"]
        ann.send({"type": "start", "id": "s"})
        out["start"] = ann.wait(lambda m: m.get("id") == "s")["type"]
        bea.send({"type": "leave", "id": "l"})
        bea.wait(lambda m: m.get("id") == "l")
        over = play(ann, host, random.Random(3))
        assert over.get("winner") in (host, guest)  # the dice decide which (not compared)
        bea.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
        ann.close()
        bea.close()
        _healthy(client)
        # lookups of the longest names and rule set
        listed = CUSTOM_PREFIX + file_name
        r = client.get("/api/leaderboard", params={"rule_set": listed})
        out["leaderboard"] = (r.status_code, r.json().get("rule_set"))
        r = client.get(f"/api/players/{host}/games")
        out["games"] = (r.status_code, len(r.json().get("games", [])))
        _healthy(client)
        with engine.connect() as conn:
            out["stored"] = {
                "preset": conn.execute(select(tables_t.c.preset)).scalars().all(),
                "winner": [w in (host, guest) for w in conn.execute(select(tables_t.c.winner)).scalars()],
                "seats": sorted(conn.execute(select(seats_t.c.name)).scalars().all()),
                "accounts": sorted(conn.execute(select(accounts_t.c.name)).scalars().all()),
                "ratings": sorted(conn.execute(select(ratings_t.c.rule_set)).scalars().all()),
                "history": sorted(conn.execute(select(rating_history_t.c.rule_set)).scalars().all()),
                "chat": [p["text"] for p in conn.execute(
                    select(events_t.c.payload).where(events_t.c.kind == "chat")).scalars().all()],
            }
    assert out["stored"]["preset"] == [listed] and out["stored"]["chat"] == [chat]
    assert out["stored"]["ratings"] == [listed, listed]  # the rule set's name at its longest, rated
    return out


def test_every_text_bound_of_the_protocol_fits_its_column() -> None:
    """The settings' text bounds are within the columns their texts go to, and
    a setting past one is refused before the server starts."""
    st = Settings()
    assert st.nickname_max <= NAME_COLUMN and len(CUSTOM_PREFIX) + st.text_chars <= RULE_SET_COLUMN
    widths = {f"{t.name}.{c.name}": c.type.length for t in metadata.tables.values() for c in t.columns
              if getattr(c.type, "length", None)}
    for column in ("seats.name", "tables.winner", "accounts.name"):
        assert widths[column] == NAME_COLUMN, column
    for column in ("tables.preset", "ratings.rule_set", "rating_history.rule_set"):
        assert widths[column] == RULE_SET_COLUMN, column
    with pytest.raises(ValueError, match="text_chars takes at most 72"):
        st.with_overrides(["text_chars=73"])
    with pytest.raises(ValueError, match="nickname_max takes at most 64"):
        st.with_overrides(["nickname_max=65"])
    assert st.with_overrides(["text_chars=72", "nickname_max=64"]).text_chars == 72


@pytest.mark.parametrize("limits", [(), ("text_chars=72", "nickname_max=64")], ids=["default", "widest"])
@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set")
def test_sqlite_and_postgres_take_every_text_at_its_longest_alike(tmp_path: Path, limits: tuple[str, ...]) -> None:
    assert POSTGRES_URL is not None
    base = Settings(grace=600.0, bot_delay=0.0).with_overrides(list(limits))
    on_sqlite = walk(_with_db(base, f"sqlite:///{tmp_path / 'bounds.db'}"))
    reset_postgres(POSTGRES_URL)
    on_postgres = walk(_with_db(base, POSTGRES_URL))
    assert on_sqlite == on_postgres


def _with_db(settings: Settings, url: str) -> Settings:
    from dataclasses import replace

    return replace(settings, db_url=url)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set")
def test_a_value_the_database_refuses_is_one_request_s_refusal_and_healthz_stays_green() -> None:
    """The net under the bounds: a server whose settings were made past them
    (``Settings`` built directly, not through ``--limit``) stores a nickname
    longer than its column; PostgreSQL refuses the row. That request gets
    one sentence (400), nothing is stored, and ``/healthz`` stays 200: a
    client's value is not a failure of the database (on main: 503, then
    ``/healthz`` 503 ``failing`` for 10 s)."""
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    settings = Settings(db_url=POSTGRES_URL, grace=600.0, bot_delay=0.0, nickname_max=200)
    with running(settings) as client:
        r = client.post("/api/tables", json={"nickname": "n" * (NAME_COLUMN + 1), "seats": 2})
        assert r.status_code == 400 and r.json()["error"]["code"] == "request/unstorable", r.text
        assert r.json()["error"]["message"] == (
            "A value of this request does not fit the server's database: nothing changed.")
        _healthy(client)
        assert client.get("/api/tables").json()["tables"] == []
        # a text PostgreSQL cannot hold at all (NUL), in a read: refused, no database failure
        r = client.get("/api/leaderboard", params={"rule_set": "a\x00b"})
        assert r.status_code in (400, 422), r.text
        _healthy(client)
        r = client.post("/api/tables", json={"nickname": "ann", "seats": 2})
        assert r.status_code == 201, r.text
