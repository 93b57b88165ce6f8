"""Accounts (issue 18) end to end through the real app, on SQLite and on
PostgreSQL: sign-up, sign-in, sign-out, password change and reset, deletion
with past games renamed "deleted player N" (records still verify), names a
guest may not take, the registered mark at the table, and a seat taken back
from another device by signing in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from accounts_helpers import PASSWORD, csrf, hello_account, own_postgres_database, sign_in, sign_up
from helpers import Player, is_state, running
from sqlalchemy import select
from starlette.testclient import TestClient

from liars_dice.records import replay, verify_record
from liars_dice.server import Settings
from liars_dice.server.core.accounts import check_password, common_passwords, PasswordInvalid
from liars_dice.server.runtime.db import account_sessions_t, accounts_t, make_engine, seats_t

from .conftest import POSTGRES_URL


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.xdist_group("postgres")])])
def app_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    if request.param == "postgres":
        if not POSTGRES_URL:
            pytest.skip("LIARS_DICE_TEST_POSTGRES_URL is not set")
        url, drop = own_postgres_database(POSTGRES_URL)
        try:
            yield Settings(db_url=url, grace=60.0, bot_delay=0.0)
        finally:
            drop()
        return
    yield Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", grace=60.0, bot_delay=0.0)


@pytest.fixture
def app(app_settings: Settings) -> Iterator[TestClient]:
    with running(app_settings) as c:
        yield c


def other(client: TestClient) -> TestClient:
    """A second browser: the same app, its own cookies."""
    return TestClient(client.app)


def test_the_password_rules_are_length_the_common_list_and_zxcvbn() -> None:
    assert len(common_passwords()) >= 9_990  # the 10,000 lines, case-folded (a few merge)
    assert "1234567890" in common_passwords() and "qwertyuiop" in common_passwords()
    for bad, why in [("short", "at least 10"), ("1234567890", "most common"), ("QwertyUiop", "most common"),
                     ("x" * 257, "at most 256"),
                     # issue 38, fault 2: long enough and not on the list, yet guessed at once
                     (" " * 10, "too easy to guess"), ("password123", "too easy to guess"),
                     ("aaaaaaaaaa", "too easy to guess"), ("x" * 256, "too easy to guess")]:
        with pytest.raises(PasswordInvalid, match=why) as e:
            check_password(bad)
        assert bad.strip() not in e.value.message or len(bad.strip()) < 2
    # the account's name counts as a guess: fine for someone else, not for Kimmy155
    assert check_password("kimmy155kimmy") == "kimmy155kimmy"
    with pytest.raises(PasswordInvalid, match="built from your name"):
        check_password("kimmy155kimmy", "Kimmy155")
    assert check_password("plum kettle orbit") == "plum kettle orbit"  # no composition rules
    assert check_password("cafe\u0301 au lait, sans sucre") == "caf\u00e9 au lait, sans sucre"  # NFC first


@pytest.mark.parametrize("password", [" " * 10, "password123", "Passw0rd!!", "1qaz2wsx3edc", "abcdefghijk"])
def test_a_weak_password_is_refused_with_what_would_make_it_better(password: str) -> None:
    with pytest.raises(PasswordInvalid) as e:
        check_password(password)
    message = e.value.message
    assert message.startswith("That password is") and message.endswith(".") and message.count(". ") == 0
    assert "word" in message or "common" in message  # what would make it better


def test_sign_up_refuses_weak_passwords_and_says_why(app: TestClient) -> None:
    for weak in (" " * 10, "password123", "Ann Ann Ann Ann"):
        r = app.post("/api/account/sign-up", json={"name": "Ann", "password": weak})
        assert r.status_code == 400 and "too easy to guess" in r.json()["error"]["message"], weak
    assert app.get("/api/account").json()["account"] is None


def test_sign_up_sign_in_sign_out_and_the_session(app: TestClient) -> None:
    assert app.get("/api/account").json() == {"account": None, "csrf": None, "expires_at": None}
    r = app.post("/api/account/sign-up", json={"name": "Ann", "password": "short"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "password/invalid"
    r = app.post("/api/account/sign-up", json={"name": "Ann", "password": "basketball"})
    assert r.json()["error"]["code"] == "password/invalid" and "common" in r.json()["error"]["message"]
    s = sign_up(app, "Ann")
    assert s["account"] == {"name": "Ann"} and len(s["recovery_code"]) == 24
    cookie = app.cookies.get("ld_session")
    assert cookie and cookie not in str(s)
    me = app.get("/api/account").json()
    assert me["account"] == {"name": "Ann"} and me["csrf"] == s["csrf"]
    # the same name, and a look-alike (Cyrillic А), cannot be registered again
    for name in ("Ann", "ann", "\u0410nn", "\u0410NN"):
        r = other(app).post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/registered", name
    r = other(app).post("/api/account/sign-up", json={"name": "deleted player 7", "password": PASSWORD})
    assert r.status_code == 400 and r.json()["error"]["code"] == "name/invalid"
    # sign out needs the CSRF token, then the session is gone
    assert app.post("/api/account/sign-out").status_code == 403
    assert app.post("/api/account/sign-out", headers=csrf(s)).json() == {"ok": True}
    assert app.get("/api/account").json()["account"] is None
    b = other(app)
    assert sign_in(b, "Ann")["account"] == {"name": "Ann"}


def test_change_password_revokes_the_other_sessions_and_reset_spends_the_code(app: TestClient) -> None:
    s1 = sign_up(app, "bob")
    code = s1["recovery_code"]
    b = other(app)
    s2 = sign_in(b, "bob")
    r = app.post("/api/account/password", json={"old_password": "wrong wrong wrong", "new_password": "another fine secret"},
                 headers=csrf(s1))
    assert r.status_code == 401
    r = app.post("/api/account/password", json={"old_password": PASSWORD, "new_password": "another fine secret"},
                 headers=csrf(s1))
    assert r.json() == {"ok": True}
    assert app.get("/api/account").json()["account"] == {"name": "bob"}  # this session stays
    assert b.get("/api/account").json()["account"] is None  # the other one is revoked
    assert b.post("/api/account/sign-in", json={"name": "bob", "password": PASSWORD}).status_code == 401
    sign_in(b, "bob", "another fine secret")
    # the recovery code resets the password once, and a new code is given
    c = other(app)
    r = c.post("/api/account/reset", json={"name": "bob", "recovery_code": code.lower().replace("-", " "),
                                            "new_password": "third secret here"})
    assert r.status_code == 200, r.text
    new_code = r.json()["recovery_code"]
    assert new_code != code
    assert app.get("/api/account").json()["account"] is None and b.get("/api/account").json()["account"] is None
    r = other(app).post("/api/account/reset", json={"name": "bob", "recovery_code": code, "new_password": "fourth secret here"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "auth/recovery_failed"
    sign_in(other(app), "bob", "third secret here")


def test_a_session_expires(app: TestClient, app_settings: Settings) -> None:
    """Issue 18 "Sessions expire": a session lives SESSION_SECONDS (30 days)
    from sign-in; past its expiry (set back in the database, as 30 days on
    would) the cookie signs nobody in, a change with it is refused, and
    signing in again starts a new one."""
    from datetime import datetime, timedelta, timezone

    from liars_dice.server.core.accounts import SESSION_SECONDS

    s = sign_up(app, "eve")
    expires = datetime.fromisoformat(app.get("/api/account").json()["expires_at"])
    assert abs((expires - datetime.now(timezone.utc)).total_seconds() - SESSION_SECONDS) < 120
    engine = make_engine(app_settings.db_url)
    with engine.begin() as conn:
        conn.execute(account_sessions_t.update().values(expires_at=datetime.now(timezone.utc) - timedelta(seconds=1)))
    engine.dispose()
    assert app.get("/api/account").json()["account"] is None
    r = app.post("/api/account/password", json={"old_password": PASSWORD, "new_password": "another fine secret"},
                 headers=csrf(s))
    assert r.status_code == 401 and r.json()["error"]["code"] == "auth/signed_out", r.text
    sign_in(app, "eve")
    assert app.get("/api/account").json()["account"] == {"name": "eve"}


def test_an_old_hash_is_made_again_at_sign_in(app: TestClient, app_settings: Settings) -> None:
    sign_up(app, "cy")
    engine = make_engine(app_settings.db_url)
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
    with engine.begin() as conn:
        conn.execute(accounts_t.update().where(accounts_t.c.name == "cy").values(password_hash=weak.hash(PASSWORD)))
    sign_in(other(app), "cy")
    with engine.connect() as conn:
        stored = conn.execute(select(accounts_t.c.password_hash).where(accounts_t.c.name == "cy")).scalar_one()
    engine.dispose()
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert not PasswordHasher().check_needs_rehash(stored)


def test_guests_cannot_take_registered_names_and_accounts_are_marked(app: TestClient) -> None:
    s = sign_up(app, "Dora")
    r = app.post("/api/tables", json={"nickname": "whatever", "seats": 3}, headers=csrf(s))
    assert r.status_code == 201
    t = r.json()
    seat0 = t["table"]["seats"][0]
    assert seat0["name"] == "Dora" and seat0["registered"] is True
    code = t["code"]
    guest = other(app)
    for nick in ("Dora", "dora", "D\u043era", "deleted player 3"):  # Cyrillic о
        r = guest.post(f"/api/tables/{code}/join", json={"nickname": nick})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/registered", nick
        r = guest.post("/api/tables", json={"nickname": nick, "seats": 2})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/registered", nick
    r = guest.post(f"/api/tables/{code}/join", json={"nickname": "eve"})
    assert r.status_code == 200
    seats = r.json()["table"]["seats"]
    assert "registered" not in seats[1] and seats[1]["name"] == "eve"
    # a signed-in player cannot take a second seat at one table
    r = app.post(f"/api/tables/{code}/join", json={"nickname": "x"}, headers=csrf(s))
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat/taken"


def test_case_never_makes_a_second_name_and_signing_in_ignores_it(app: TestClient) -> None:
    """Issue 38, fault 1: "KIMMY155" beside "Kimmy155", a guest "MILANA7" beside
    "Milana7", and signing in as "KIMMY155" (refused with the wrong sentence)."""
    sign_up(app, "Kimmy155")
    for name in ("KIMMY155", "kimmy155", "K\u0406MMY155"):  # the last with a Cyrillic capital I
        r = other(app).post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/registered", name
    assert sign_in(other(app), "KIMMY155")["account"] == {"name": "Kimmy155"}
    s = sign_up(other(app), "Milana7")
    code = other(app).post("/api/tables", json={"nickname": "host", "seats": 3}).json()["code"]
    for nick in ("MILANA7", "milana7", "M\u0406LANA7"):  # the last with a Cyrillic capital I
        r = other(app).post(f"/api/tables/{code}/join", json={"nickname": nick})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/registered", nick
    assert s["account"] == {"name": "Milana7"}


def test_a_signed_in_player_takes_their_seat_back_on_another_device(app: TestClient) -> None:
    s = sign_up(app, "Finn")
    t = app.post("/api/tables", json={"nickname": "Finn", "seats": 2}, headers=csrf(s)).json()
    code = t["code"]
    phone = other(app)
    assert phone.get(f"/api/tables/{code}/my-seat").status_code == 401
    # the seat's token alone (a stolen one, or this device signed out) is not enough
    thief = Player(other(app), code, t["token"])
    assert thief.welcome["type"] == "error" and thief.welcome["code"] == "auth/bad_token"
    thief.close()
    sign_in(phone, "Finn")
    assert phone.get(f"/api/tables/{code}/my-seat").json() == {"seat": 0}
    cm, ws, welcome = hello_account(phone, code)
    try:
        assert welcome["type"] == "welcome" and welcome["seat"] == 0 and welcome["host"] is True
        ws.send_text('{"type": "add_bot", "bot": "random", "id": 1}')
        ws.send_text('{"type": "start", "id": 2}')
        got = []
        while not any(m.get("id") == 2 for m in got):
            import json
            got.append(json.loads(ws.receive_text()))
        assert [m for m in got if m.get("id") == 2][0]["type"] == "ack"
    finally:
        cm.__exit__(None, None, None)
    # a signed-in visitor without a seat here watches
    g = other(app)
    sign_up(g, "Gus")
    cm, ws, welcome = hello_account(g, code)
    cm.__exit__(None, None, None)
    assert welcome["type"] == "welcome" and welcome["seat"] is None
    # and a guest asking for an account's seat is told to sign in
    cm, ws, welcome = hello_account(other(app), code)
    cm.__exit__(None, None, None)
    assert welcome["type"] == "error" and welcome["code"] == "auth/signed_out"


def test_deleting_an_account_keeps_its_games_under_deleted_player_n(app: TestClient, app_settings: Settings) -> None:
    s = sign_up(app, "Hal")
    t = app.post("/api/tables", json={"nickname": "Hal", "seats": 2, "options": {"dice_per_player": 2}},
                 headers=csrf(s)).json()
    code = t["code"]
    hal = Player(app, code, t["token"])
    assert hal.welcome["type"] == "welcome"
    hal.send({"type": "chat", "text": "hello all", "id": "c"})
    hal.send({"type": "add_bot", "bot": "random"})
    hal.send({"type": "start", "id": "s"})
    assert hal.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    # not while the game is on
    r = app.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(s))
    assert r.status_code == 409 and r.json()["error"]["code"] == "account/busy"
    hal.send({"type": "leave", "id": "l"})  # a bot plays the seat to the end
    hal.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
    hal.close()
    before = app.get(f"/api/tables/{code}/record").json()
    assert "Hal" in before["players"]
    assert [g["code"] for g in app.get("/api/players/Hal/games").json()["games"]] == [code]

    assert app.post("/api/account/delete", json={"password": "not my password"}, headers=csrf(s)).status_code == 401
    r = app.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(s))
    assert r.json() == {"ok": True, "shown_as": "deleted player 1"}
    assert app.get("/api/account").json()["account"] is None
    rec = app.get(f"/api/tables/{code}/record").json()
    assert "deleted player 1" in rec["players"] and "Hal" not in rec["players"]
    assert "Hal" not in str(rec)
    assert replay(rec).ok
    report = verify_record(app.get(f"/api/tables/{code}/record").content)
    assert report.players == tuple(rec["players"])
    rp = app.get(f"/api/tables/{code}/replay").json()
    assert "Hal" not in str(rp) and "deleted player 1" in str(rp)
    summary = app.get(f"/api/tables/{code}").json()
    assert summary["seats"][0]["name"] == "deleted player 1" and "Hal" not in str(summary)
    assert app.get("/api/players/Hal/games").json()["games"] == []
    listed = app.get("/api/players/deleted player 1/games").json()["games"]
    assert [g["code"] for g in listed] == [code] and "Hal" not in str(listed)
    # the hashes, the sessions and the code are gone; the name is free again
    engine = make_engine(app_settings.db_url)
    with engine.connect() as conn:
        row = conn.execute(select(accounts_t).where(accounts_t.c.deleted_number == 1)).one()
        assert row.password_hash is None and row.recovery_hash is None and row.deleted_at is not None
        assert conn.execute(select(account_sessions_t).where(account_sessions_t.c.account_id == row.id)).all() == []
        assert {r.name for r in conn.execute(select(seats_t.c.name).where(seats_t.c.account_id == row.id))} == {"deleted player 1"}
    engine.dispose()
    assert other(app).post("/api/account/sign-in", json={"name": "Hal", "password": PASSWORD}).status_code == 401
    sign_up(other(app), "Hal")  # a new person may take the name; the old games stay "deleted player 1"
    assert "deleted player 1" in app.get(f"/api/tables/{code}/record").json()["players"]


def test_a_restart_shows_the_deleted_name_too(app_settings: Settings) -> None:
    with running(app_settings) as app:
        s = sign_up(app, "Ida")
        t = app.post("/api/tables", json={"nickname": "Ida", "seats": 2, "options": {"dice_per_player": 1}},
                     headers=csrf(s)).json()
        ida = Player(app, t["code"], t["token"])
        ida.send({"type": "add_bot", "bot": "random"})
        ida.send({"type": "start", "id": "s"})
        ida.send({"type": "leave", "id": "l"})
        ida.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
        ida.close()
        assert app.post("/api/account/delete", json={"password": PASSWORD}, headers=csrf(s)).status_code == 200
    with running(app_settings) as app:
        assert "deleted player 1" in app.get(f"/api/tables/{t['code']}/record").json()["players"]


def test_a_database_failure_is_a_clear_refusal_and_loses_nothing(tmp_path: Path) -> None:
    """The store refuses account writes (a trigger, as a full disk would): sign-up
    and sign-in answer ``server/unavailable`` (503) in one sentence, nothing is
    half-made, and once the database is back both work."""
    import sqlite3

    db = tmp_path / "t.db"
    with running(Settings(db_url=f"sqlite:///{db}", grace=60.0, bot_delay=0.0)) as c:
        sign_up(c, "kai")
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TRIGGER refuse_accounts BEFORE INSERT ON accounts BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
            conn.execute("CREATE TRIGGER refuse_sessions BEFORE INSERT ON account_sessions BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
        for path, body in (("/api/account/sign-up", {"name": "lia", "password": PASSWORD}),
                           ("/api/account/sign-in", {"name": "kai", "password": PASSWORD})):
            r = other(c).post(path, json=body)
            assert r.status_code == 503 and r.json()["error"]["code"] == "server/unavailable", r.text
            assert "disk" not in r.text and PASSWORD not in r.text
        with sqlite3.connect(db) as conn:
            conn.execute("DROP TRIGGER refuse_accounts")
            conn.execute("DROP TRIGGER refuse_sessions")
        sign_up(other(c), "lia")
        sign_in(other(c), "kai")
