"""The same server on PostgreSQL (psycopg 3): a whole game, its record, the
player listing, and a second app on the same database resuming a game.

Runs when ``LIARS_DICE_TEST_POSTGRES_URL`` is set (``.ci/run`` starts a cluster).
"""

from __future__ import annotations

import random

import pytest
from helpers import Player, create, is_state, join, running

from liars_dice.records import replay
from liars_dice.server import Settings
from liars_dice.server.core.config import normalize_db_url

from .conftest import POSTGRES_URL, reset_postgres
from .test_secrecy import play_scripted

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set"),
]


def test_url_maps_to_psycopg3() -> None:
    assert normalize_db_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalize_db_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_db_url("sqlite:///x.db") == "sqlite:///x.db"


def test_a_url_s_own_libpq_options_are_kept() -> None:
    """``?options=-csearch_path%3D...`` in ``--db`` reaches PostgreSQL beside
    the store's ``synchronous_commit=on`` (the store's options replaced it, so
    tables went to ``public`` silently), and the URL's own
    ``synchronous_commit=off`` never wins over the store's."""
    from sqlalchemy import text

    from liars_dice.server.runtime.db import make_engine

    assert POSTGRES_URL is not None and "search_path" in POSTGRES_URL  # tests/server/conftest.py
    for url in (POSTGRES_URL, POSTGRES_URL + "%20-csynchronous_commit%3Doff"):
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                assert conn.execute(text("SELECT current_schema()")).scalar_one().startswith("test_")
                assert conn.execute(text("SHOW synchronous_commit")).scalar_one() == "on"
        finally:
            engine.dispose()


def test_whole_game_and_resume_on_postgres() -> None:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    settings = Settings(db_url=POSTGRES_URL, bot_delay=0.0, grace=600)
    rng = random.Random(5)
    with running(settings) as client:
        t = create(client, "ann", preset="wild-stars", seats=3, options={"dice_per_player": 3})
        code = t["code"]
        j = join(client, code, "bob")
        ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
        # no random bot and no challenge by the people before the restart, so the game
        # cannot end first (difference loss: test_restart.py)
        ann.send({"type": "add_bot", "bot": "probabilistic", "id": "b"})
        ann.send({"type": "start", "id": "s"})
        assert ann.wait(lambda m: m.get("id") == "s")["type"] == "ack"
        play_scripted([ann, bob], rng, show_rate=0.3, stop_after=4, challenge_rate=0.0)
        last = ann.last_state()
        assert last is not None and last["view"]["phase"] != "over", "the game ended before the restart"
        mn = last["view"]["move_number"]
        held = bob.wait(lambda m: is_state(m) and m["view"]["move_number"] == mn)["view"]
    # A new app on the same database (a restart) resumes the game at the same move.
    with running(settings) as client:
        ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
        again = bob.wait(is_state)["view"]
        assert again["move_number"] == held["move_number"] and again["hand"] == held["hand"]
        play_scripted([ann, bob], rng, show_rate=0.3)
        rec = client.get(f"/api/tables/{code}/record").json()
        assert replay(rec).ok
        assert code in [g["code"] for g in client.get("/api/players/ann/games").json()["games"]]
