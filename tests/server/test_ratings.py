"""Ratings per rule set, the leaderboard and profiles (issue 18, "Ratings and
leaderboard"), through the real app on SQLite and PostgreSQL.

Accounts are made here by inserting ``accounts`` rows and tying seats with
``seats.account_id``; each row's skeleton is not its name's, so the test can
seat the name itself and tie the seat (a signed-in join does both at once).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, insert, select, update
from starlette.testclient import TestClient
from typer.testing import CliRunner

from liars_dice.server import Settings
from liars_dice.server.runtime.db import accounts_t, rating_history_t, ratings_t, seats_t, tables_t

from .conftest import POSTGRES_URL, reset_postgres
from .helpers import Player, create, is_state, join, running

DBS = [
    "sqlite",
    pytest.param("postgres", marks=[
        pytest.mark.postgres,
        pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set"),
    ]),
]


@pytest.fixture(params=DBS)
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        assert POSTGRES_URL is not None
        reset_postgres(POSTGRES_URL)
        return POSTGRES_URL
    return f"sqlite:///{tmp_path / 'ratings.db'}"


@pytest.fixture
def app(any_db: str) -> Iterator[TestClient]:
    with running(Settings(db_url=any_db, grace=60.0, bot_delay=0.0)) as c:
        yield c


def engine_of(client: TestClient) -> Engine:
    engine: Engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
    return engine


def register(client: TestClient, name: str) -> int:
    """An account row for ``name`` (what sign-up makes)."""
    with engine_of(client).begin() as conn:
        return int(conn.execute(insert(accounts_t).values(
            name=name, skeleton=f"row:{name.lower()}", created_at=datetime.now(timezone.utc),
        ).returning(accounts_t.c.id)).scalar_one())


def tie(client: TestClient, code: str, seat: int, account_id: int) -> None:
    """Seat ``seat`` of table ``code`` is held under ``account_id`` (what a signed-in join makes)."""
    with engine_of(client).begin() as conn:
        table_id = conn.execute(select(tables_t.c.id).where(tables_t.c.code == code)).scalar_one()
        conn.execute(update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
                     .values(account_id=account_id))


def ratings_of(client: TestClient) -> dict[tuple[int, str], tuple[float, float, int]]:
    with engine_of(client).connect() as conn:
        return {(r.account_id, r.rule_set): (r.mu, r.sigma, r.games) for r in conn.execute(select(ratings_t))}


def history_of(client: TestClient) -> list[tuple[Any, ...]]:
    with engine_of(client).connect() as conn:
        q = select(rating_history_t).order_by(rating_history_t.c.id)
        return [(r.account_id, r.rule_set, r.table_id, r.game_no, r.place, r.mu, r.sigma) for r in conn.execute(q)]


def play(p: Player, name: str, rng: random.Random, leave_after: int | None = None) -> dict[str, Any]:
    """``name`` plays until the game is over: a raise of the quantity or a
    challenge, at random; with ``leave_after``, it leaves once that many rounds are over."""
    seen: set[tuple[int, int]] = set()
    while True:
        m = p.wait(lambda m: is_state(m) and (m["view"]["phase"] in ("bid", "over")))
        v = m["view"]
        if v["phase"] == "over":
            return v
        if leave_after is not None and len(v["results"]) >= leave_after:
            p.send({"type": "leave", "id": "l"})
            return p.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")["view"]
        key = (len(v["results"]), len(v["bids"]))
        if v["to_move"] != name or key in seen or v.get("winner"):
            continue
        cur = v["current"]
        n = len(seen) + 1000 * len(v["results"])
        if cur is None:
            msg = {"type": "bid", "quantity": 1, "face": rng.randint(2, 6)}
        elif rng.random() < 0.6:
            msg = {"type": "challenge"}
        else:
            msg = {"type": "bid", "quantity": cur["bid"]["quantity"] + 1, "face": cur["bid"]["face"]}
        p.send({**msg, "id": f"m{n}"})
        answer = p.wait(lambda m: m.get("id") == f"m{n}")
        if answer["type"] == "ack":
            seen.add(key)
        elif cur is not None and answer.get("code") != "turn/not_yours":
            # a raise past the dice in play is refused and no new state comes: challenge instead
            p.send({"type": "challenge", "id": f"c{n}"})
            if p.wait(lambda m: m.get("id") == f"c{n}")["type"] == "ack":
                seen.add(key)
        # (a stale state's move is refused: the state after it comes)


def rated_game(client: TestClient, accounts: dict[str, int], bots: list[str], rng: random.Random,
               leave: dict[str, int] | None = None, **kw: Any) -> str:
    """One rated game at a new table: the persons of ``accounts`` (the first
    plays, and leaves after the rounds ``leave`` gives it, if any; the others
    leave at once, in order), then ``bots``."""
    names = list(accounts)
    leave = leave or {}
    body = {"seats": len(names) + len(bots), "rated": True, "turn_timer": 60, **kw}
    t = create(client, names[0], **body)
    code = t["code"]
    players = {names[0]: Player(client, code, t["token"])}
    tie(client, code, 0, accounts[names[0]])
    for i, name in enumerate(names[1:], start=1):
        j = join(client, code, name)
        players[name] = Player(client, code, j["token"])
        tie(client, code, j["seat"], accounts[name])
    host = players[names[0]]
    for b in bots:
        host.send({"type": "add_bot", "bot": b})
    host.send({"type": "start", "id": "s"})
    assert host.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    for name in names[1:]:
        players[name].send({"type": "leave", "id": "l"})
        players[name].wait(lambda m: m.get("id") == "l")
    play(host, names[0], rng, leave.get(names[0]))
    for p in players.values():
        p.close()
    return str(code)


def test_a_rated_table_needs_a_turn_timer_and_a_standard_rule_set(app: TestClient) -> None:
    """Issue 18: "A rated table has a turn timer"; only standard rule sets count."""
    r = app.post("/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 2, "rated": True})
    assert r.status_code == 400 and r.json()["error"]["message"] == (
        "A rated table has a turn timer: choose 5 to 600 seconds a turn.")
    r = app.post("/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 2, "rated": True,
                                      "turn_timer": 30, "options": {"dice_per_player": 2}})
    assert r.status_code == 400 and "standard rule set" in r.json()["error"]["message"]
    t = create(app, "ann", seats=2, rated=True, turn_timer=30)
    assert t["table"]["rated"] is True
    assert "rated" not in create(app, "bea", seats=2)["table"]  # unrated, as before


def test_a_rated_game_updates_each_accounts_rating_from_the_finishing_order(app: TestClient) -> None:
    """Issue 18: "Every finished game between registered players, bots counted
    at fixed levels, updates an openskill rating for each registered player in
    that rule set"; "A player who leaves a rated game loses it"."""
    ann, bea = register(app, "ann"), register(app, "bea")
    code = rated_game(app, {"ann": ann, "bea": bea}, ["random"], random.Random(1))
    got = ratings_of(app)
    assert set(got) == {(ann, "classic"), (bea, "classic")}
    hist = history_of(app)
    place = {h[0]: h[4] for h in hist}
    assert place[bea] == 3  # bea left at once: last of three, below the bot
    assert place[ann] in (1, 2)
    assert got[(bea, "classic")][0] < 25.0 and got[(bea, "classic")][2] == 1
    assert [h[3] for h in hist] == [1, 1]
    summary = app.get(f"/api/tables/{code}").json()
    assert summary["rated"] is True


def test_a_game_with_a_guest_counts_for_nobody(app: TestClient) -> None:
    """The rule this server takes for guests at a rated table (issue 18: games
    "between registered players"): a guest's seat makes the game unrated."""
    ann = register(app, "ann")
    t = create(app, "ann", seats=3, rated=True, turn_timer=60)
    tie(app, t["code"], 0, ann)
    host = Player(app, t["code"], t["token"])
    g = join(app, t["code"], "guest")
    guest = Player(app, t["code"], g["token"])
    host.send({"type": "add_bot", "bot": "random"})
    host.send({"type": "start", "id": "s"})
    host.wait(lambda m: m.get("id") == "s")
    guest.send({"type": "leave"})
    play(host, "ann", random.Random(2), 0)
    assert ratings_of(app) == {} and history_of(app) == []


def test_an_unrated_table_rates_nothing(app: TestClient) -> None:
    ann = register(app, "ann")
    t = create(app, "ann", seats=2)
    tie(app, t["code"], 0, ann)
    p = Player(app, t["code"], t["token"])
    p.send({"type": "add_bot", "bot": "random"})
    p.send({"type": "start", "id": "s"})
    p.wait(lambda m: m.get("id") == "s")
    play(p, "ann", random.Random(3), 0)
    assert ratings_of(app) == {}


def test_a_rules_files_game_counts_under_its_own_name_never_a_presets(app: TestClient) -> None:
    """Issue 18: "a rules file's games count under its own rule set, and never under a preset's name"."""
    ann = register(app, "ann")
    text = 'preset = "classic"\nname = "classic"\ndice_per_player = 2\n'  # it calls itself classic
    rated_game(app, {"ann": ann}, ["random"], random.Random(4), leave={"ann": 0}, rules_text=text)
    assert set(ratings_of(app)) == {(ann, "custom: classic")}


def test_play_again_rates_each_game_and_a_repeat_is_a_no_op(app: TestClient) -> None:
    """Issue 18 and 17 ("Play again"): each game of a table is rated once."""
    from liars_dice.server.runtime.ratings_store import apply_outcome, stored_outcomes

    ann = register(app, "ann")
    t = create(app, "ann", seats=2, rated=True, turn_timer=5)  # the second game's stalls are short
    tie(app, t["code"], 0, ann)
    p = Player(app, t["code"], t["token"])
    p.send({"type": "add_bot", "bot": "random"})
    p.send({"type": "start", "id": "s"})
    p.wait(lambda m: m.get("id") == "s")
    rng = random.Random(5)
    play(p, "ann", rng)
    p.send({"type": "rematch", "id": "r"})
    assert p.wait(lambda m: m.get("id") == "r")["type"] == "ack"
    p.inbox.clear()  # the first game's messages
    play(p, "ann", rng, 1)
    p.close()
    hist = history_of(app)
    assert [h[3] for h in hist] == [1, 2]
    assert ratings_of(app)[(ann, "classic")][2] == 2
    before = ratings_of(app)
    with engine_of(app).begin() as conn:  # the finish stored twice (a retried write): nothing more
        for game, at in stored_outcomes(conn):
            assert apply_outcome(conn, game, at) is False
    assert ratings_of(app) == before and len(history_of(app)) == 2


def test_rebuild_gives_exactly_the_running_numbers(app: TestClient, any_db: str) -> None:
    """Issue 18: "Ratings are recomputed from the stored games by `liars-dice
    ratings rebuild`, giving the same numbers as the running updates (tested)"."""
    from liars_dice.cli import app as cli

    ann, bea, cem = register(app, "ann"), register(app, "bea"), register(app, "cem")
    rng = random.Random(6)
    for i in range(6):
        people = [("ann", ann), ("bea", bea), ("cem", cem)]
        rng.shuffle(people)
        chosen = dict(people[: rng.randint(1, 3)])
        leave = {n: rng.randint(0, 3) for n in chosen}
        rated_game(app, chosen, rng.sample(["random", "probabilistic"], rng.randint(1, 2)), rng, leave)
    running_ratings, running_history = ratings_of(app), history_of(app)
    assert len(running_history) >= 6
    result = CliRunner().invoke(cli, ["ratings", "rebuild", "--db", any_db])
    assert result.exit_code == 0, result.output
    assert "from 6 rated games" in result.output
    assert ratings_of(app) == running_ratings  # exactly: the same floats
    assert [h[:5] + h[5:] for h in history_of(app)] == running_history


def test_leaderboard_lists_players_with_ten_games_by_conservative_rating(app: TestClient) -> None:
    """Issue 18: "per rule set, the top players by a conservative rating (mean
    − 3σ), with games played. Only players with at least 10 rated games are listed"."""
    ids = {n: register(app, n) for n in ("ann", "bea", "cem", "dan")}
    now = datetime.now(timezone.utc)
    rows = [  # (name, mu, sigma, games): bea's mean is higher, ann's conservative rating is
        ("ann", 30.0, 1.0, 10), ("bea", 34.0, 3.0, 40), ("cem", 50.0, 1.0, 9), ("dan", 20.0, 2.0, 12),
    ]
    with engine_of(app).begin() as conn:
        conn.execute(insert(ratings_t), [
            {"account_id": ids[n], "rule_set": "classic", "mu": mu, "sigma": s, "games": g, "updated_at": now}
            for n, mu, s, g in rows
        ] + [{"account_id": ids["cem"], "rule_set": "perudo", "mu": 25.0, "sigma": 1.0, "games": 10, "updated_at": now}])
    board = app.get("/api/leaderboard").json()
    assert board["rule_set"] == "classic" and board["rule_sets"] == ["classic", "perudo"] and board["min_games"] == 10
    assert [(p["rank"], p["name"], p["conservative"], p["games"]) for p in board["players"]] == [
        (1, "ann", 27.0, 10), (2, "bea", 25.0, 40), (3, "dan", 14.0, 12),
    ]
    assert [p["name"] for p in app.get("/api/leaderboard", params={"rule_set": "perudo"}).json()["players"]] == ["cem"]
    assert app.get("/api/leaderboard", params={"rule_set": "x" * 81}).status_code == 422


def test_profile_has_each_rating_its_history_and_the_public_games(app: TestClient) -> None:
    """Issue 18: "per player, the rating per rule set with its history ..., and
    the list of their public games with links to each replay"."""
    ann = register(app, "ann")
    rng = random.Random(7)
    codes = [rated_game(app, {"ann": ann}, ["random"], rng) for _ in range(2)]
    prof = app.get("/api/players/ann/profile").json()
    assert prof["name"] == "ann"
    (classic,) = prof["ratings"]
    assert classic["rule_set"] == "classic" and classic["games"] == 2 and len(classic["history"]) == 2
    assert classic["history"][-1]["mu"] == round(classic["mu"], 4)
    assert {h["code"] for h in classic["history"]} == set(codes)
    assert {g["code"] for g in prof["games"]} == set(codes)
    # a guest's game under the name is not the account's
    create(app, "zed", seats=2)
    r = app.get("/api/players/nobody/profile")
    assert r.status_code == 404 and r.json()["error"]["code"] == "player/not_found"


def test_the_lobby_shows_each_open_tables_players_ratings(app: TestClient) -> None:
    """Issue 18: "The lobby shows each open table's players' ratings"."""
    ann = register(app, "ann")
    rated_game(app, {"ann": ann}, ["random"], random.Random(8))
    t = create(app, "ann", seats=3, rated=True, turn_timer=60)
    tie(app, t["code"], 0, ann)
    join(app, t["code"], "guest")
    (entry,) = [e for e in app.get("/api/tables").json()["tables"] if e["code"] == t["code"]]
    mu, sigma, games = ratings_of(app)[(ann, "classic")]
    assert entry["seats"][0]["rating"] == {
        "mu": round(mu, 4), "sigma": round(sigma, 4), "conservative": round(mu - 3 * sigma, 4), "games": 1,
    }
    assert "rating" not in entry["seats"][1]
