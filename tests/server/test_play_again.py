"""Play again (issue 17, "Game night": "At the end, 'Play again' starts a new
game at the same table with the same people, bots and settings, and the table
keeps a running score over its games").

* the core: ``rematch`` makes a ``new_game`` event that keeps the seats and
  rules, opens with the next seat and deals from a seed never used (fair
  dice version 2); a person who left is not seated again (their seat stays
  with the bot, under a bot's name); the score counts each game's winner;
* refused before the end, and to anyone but the host: one sentence, nothing changes;
* every game has its own record (``?game=N``), each passing ``liars-dice verify``,
  and the players' game lists show each game;
* a restart (the service's ``startup``: the table rebuilt from its events) keeps
  the games and the score.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from helpers import Player, create, is_state, join, running
from starlette.testclient import TestClient

from liars_dice.engine import CHALLENGE, PRESETS, SeededDice
from liars_dice.records import replay
from liars_dice.records.fairness import verify_record
from liars_dice.server import Settings
from liars_dice.server.core.commands import AddBot, Create, Join, Leave, Move, Rematch, Start, step
from liars_dice.server.core.errors import GameNotFinished, NotHost
from liars_dice.server.core.tables import Departure, EventKind, SeatKind, Table, TableStatus, rebuild, unopened

from test_secrecy import play_scripted


def _payload(dice: int = 1, seats: int = 3) -> dict[str, Any]:
    rules = PRESETS["classic"].with_options(dice_per_player=dice)
    return {
        "id": "t1", "code": "ABCDEF", "preset": "classic", "rules": rules.to_dict(), "n_seats": seats,
        "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00",
    }


class Log:
    """The table and its events as the store keeps them."""

    def __init__(self, seed: int = 3) -> None:
        self.dice = SeededDice(seed)
        payload = _payload()
        self.events: list[tuple[int, str, dict[str, Any]]] = []
        self.t: Table = unopened(payload)
        self.run(Create(payload, "ann", "h-ann"))

    def run(self, c: Any) -> list[Any]:
        new, events = step(self.t, c, self.dice)
        self.events += [(self.t.seq + 1 + i, e.kind.value, e.payload) for i, e in enumerate(events)]
        self.t = new
        return events

    def finish(self) -> None:
        """Challenge (or open with the smallest bid) until the game is over."""
        while self.t.status is TableStatus.PLAYING:
            st = self.t.state
            assert st is not None and st.to_move is not None
            action = CHALLENGE if st.bids else st.legal_actions()[0]
            self.run(Move(st.to_move, action))


def three_seats() -> Log:
    log = Log()
    log.run(Join("bob", "h-bob"))
    log.run(AddBot(0, "random"))
    log.run(Start(0, 1))
    return log


def test_rematch_starts_the_next_game_with_the_same_seats_and_keeps_the_score() -> None:
    log = three_seats()
    log.finish()
    first = log.t
    assert first.status is TableStatus.FINISHED and first.game_number == 1
    pending = first.next_seed  # committed at the last deal, never used nor published
    assert pending is not None
    events = log.run(Rematch(0))
    kinds = [e.kind for e in events]
    assert kinds == [EventKind.NEW_GAME, EventKind.DEALT]  # dealt at once: the seed was committed before
    t = log.t
    assert t.status is TableStatus.PLAYING and t.game_number == 2 and len(t.past_games) == 1
    assert [s.name for s in t.seats] == [s.name for s in first.seats]  # same people and bot
    assert t.rules == first.rules and t.n_seats == first.n_seats
    assert t.start == (first.start + 1) % 3  # a new opener: the next seat
    assert t.seeds[0] is not None and t.seeds[0].commitment == pending[0]  # the first deal's seed is the pending one
    assert t.state is not None and len(t.state.results) == 0 and t.state.dice == (1, 1, 1)
    # the score: one win so far, for the first game's winner; every player listed
    score = {e["name"]: e["wins"] for e in t.score()}
    assert score == {name: int(name == first.winner) for name in t.names}
    log.finish()
    wins = {e["name"]: e["wins"] for e in log.t.score()}
    assert sum(wins.values()) == 2 and wins[log.t.winner or ""] >= 1
    assert log.t.summary(set(), 0)["score"] == log.t.score() and log.t.summary(set(), 0)["game"] == 2


def test_a_restart_rebuilds_the_games_and_the_score() -> None:
    log = three_seats()
    log.finish()
    log.run(Rematch(0))
    log.run(Move(log.t.state.to_move, log.t.state.legal_actions()[0]))  # type: ignore[union-attr]
    again = rebuild(log.events)
    assert again.game_number == 2 and again.score() == log.t.score()
    assert again.state == log.t.state and again.past_games[0].state == log.t.past_games[0].state
    assert again.seeds == log.t.seeds and again.start == log.t.start


def test_rematch_is_refused_before_the_end_and_to_others_than_the_host() -> None:
    log = three_seats()
    before = log.t
    with pytest.raises(GameNotFinished, match="The game is still on: play again once it is over."):
        log.run(Rematch(0))
    assert log.t is before
    log.finish()
    done = log.t
    with pytest.raises(NotHost, match="Only the host can start the next game."):
        log.run(Rematch(1))
    with pytest.raises(NotHost):
        log.run(Rematch(2))  # the bot's seat
    assert log.t is done


def test_a_person_who_left_is_not_seated_again() -> None:
    """Issue 17 fault 2 ("someone who left is named the winner"), for the next
    game: the seat stays with the bot that took it over, under a bot's name."""
    log = three_seats()
    log.run(Leave(1, Departure.LEAVE, "probabilistic"))
    log.finish()
    log.run(Rematch(0))
    t = log.t
    seat = t.seats[1]
    assert seat.kind is SeatKind.BOT and seat.bot == "probabilistic" and not seat.replaced
    # a bot's own player-like name (issue 17 "Names for people"), not bob's
    assert seat.name not in (None, "bob") and t.state is not None and "bob" not in t.state.game.players
    assert seat.name in t.state.game.players
    assert "bob" in {b["name"] for e in t.score() for b in e.get("before", ())}  # the game bob played still counts, under his seat
    assert rebuild(log.events).seats == t.seats


def _earlier(score: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The tally of ``name``, an earlier player of a seat, in a score (``before``)."""
    return next(b for e in score for b in e.get("before", ()) if b["name"] == name)


def test_a_game_won_by_a_stand_in_bot_is_not_the_leavers_win_on_the_score() -> None:
    """Issue 17 fault 2 by kind, for the running score: bob left, the bot playing
    in his seat under his name won (seed 0). The score card credits no win to
    bob, now nor after Play again nor after a restart; the bot's win is
    counted apart, as a stand-in's."""
    log = Log(seed=0)
    log.run(Join("bob", "h-bob"))
    log.run(AddBot(0, "random"))
    log.run(Start(0, 1))
    log.run(Leave(1, Departure.LEAVE, "probabilistic"))
    log.finish()
    assert log.t.winner == "bob" and log.t.winner_stand_in  # the seed makes bob's stand-in win
    bob = {e["name"]: e for e in log.t.score()}["bob"]
    assert (bob["wins"], bob["stand_in_wins"]) == (0, 1)
    assert sum(e["wins"] for e in log.t.score()) == 0
    log.run(Rematch(0))
    assert log.t.past_games[0].winner_stand_in
    for t in (log.t, rebuild(log.events)):
        # issue 38: one name per seat (the seat's bot now), bob among the seat's earlier players
        assert sorted(e["seat"] for e in t.score()) == list(range(len(t.seats))), t.score()
        bob = _earlier(t.score(), "bob")
        assert (bob["wins"], bob["stand_in_wins"]) == (0, 1), t.score()
    log.finish()
    assert not log.t.winner_stand_in  # game 2: the seat is a bot's own, under a bot's name
    score = {e["name"]: e for e in log.t.score()}
    assert len(score) == len(log.t.seats) and "bob" not in score
    assert _earlier(log.t.score(), "bob")["wins"] == 0 and score[log.t.winner or ""]["wins"] == 1
    assert log.t.summary(set(), 0)["score"] == log.t.score()


def test_when_the_host_has_left_another_person_may_play_again() -> None:
    log = three_seats()
    log.run(Leave(0, Departure.LEAVE, "random"))
    log.finish()
    assert [e.kind for e in log.run(Rematch(1))][0] is EventKind.NEW_GAME


# -- through the server ---------------------------------------------------------------


def _to_the_end(ann: Player, bob: Player, rng: random.Random) -> dict[str, Any]:
    play_scripted([ann, bob], rng, challenge_rate=1.0)
    last = ann.last_state()
    assert last is not None and last["view"]["phase"] == "over"
    return last["view"]


def _ann_bob_and_a_bot_started(client: TestClient) -> tuple[dict[str, Any], dict[str, Any], Player, Player]:
    """A table of ann (the host), bob and a random bot, one die each, started:
    the create's and the join's answers and the two people's sockets."""
    t = create(client, "ann", seats=3, options={"dice_per_player": 1})
    j = join(client, t["code"], "bob")
    ann, bob = Player(client, t["code"], t["token"]), Player(client, t["code"], j["token"])
    ann.send({"type": "add_bot", "bot": "random", "id": "b"})
    ann.send({"type": "start", "id": "s"})
    ann.wait(lambda m: m.get("id") == "s")
    return t, j, ann, bob


def test_play_again_over_the_websocket_with_records_lists_and_a_restart(db_url: str) -> None:
    settings = Settings(db_url=db_url, grace=600.0, bot_delay=0.0)
    rng = random.Random(4)
    with running(settings) as client:
        t, j, ann, bob = _ann_bob_and_a_bot_started(client)
        code = t["code"]
        over = _to_the_end(ann, bob, rng)
        bob.send({"type": "rematch", "id": "r0"})
        refused = bob.wait(lambda m: m.get("id") == "r0")
        assert refused["code"] == "table/not_host" and refused["message"] == "Only the host can start the next game."
        ann.send({"type": "rematch", "id": "r1"})
        assert ann.wait(lambda m: m.get("id") == "r1")["type"] == "ack"
        summary = ann.wait(lambda m: m["type"] == "table" and m["table"]["game"] == 2)["table"]
        assert summary["status"] == "playing"
        assert {e["name"]: e["wins"] for e in summary["score"]} == {
            n: int(n == over["winner"]) for n in over["players"]
        }
        st = bob.wait(lambda m: is_state(m) and m["view"]["game"] == 2)
        assert st["event"]["kind"] == "start" and st["view"]["results"] == []
        assert client.get(f"/api/tables/{code}/record?game=2").json()["error"]["code"] == "game/not_finished"
        second = _to_the_end(ann, bob, rng)
        ann.close(), bob.close()
        recs = [client.get(f"/api/tables/{code}/record?game={n}") for n in (1, 2)]
        for r, view in zip(recs, (over, second)):
            assert r.status_code == 200
            rec = r.json()
            assert replay(rec).ok and rec["players"] == view["players"]
            report = verify_record(rec)  # what `liars-dice verify` checks: every round's dice from its seeds
            assert len(report.rounds) == len(rec["rounds"]) and report.winner == view["winner"]
        assert recs[0].json() != recs[1].json()
        assert client.get(f"/api/tables/{code}/record").json() == recs[1].json()  # the last game by default
        missing = client.get(f"/api/tables/{code}/record?game=3").json()["error"]
        assert missing == {"code": "game/not_found", "message": "This table has played games 1 to 2, not game 3."}
        assert client.get(f"/api/tables/{code}/replay?game=1").json()["game"] == 1
        games = client.post("/api/my-games", json={"tokens": [j["token"]]}).json()["games"]
        assert [(g["code"], g["game"], g["winner"]) for g in games] == [
            (code, 2, second["winner"]), (code, 1, over["winner"]),
        ]
        public = client.get("/api/players/bob/games").json()["games"]
        assert [g["game"] for g in public if g["code"] == code] == [2, 1]
        ann = Player(client, code, t["token"])
        ann.send({"type": "rematch", "id": "r2"})  # a third game, left in play for the restart
        assert ann.wait(lambda m: m.get("id") == "r2")["type"] == "ack"
        ann.wait(lambda m: is_state(m) and m["view"]["game"] == 3)
        score = client.get(f"/api/tables/{code}").json()["score"]
        ann.close()
    with running(settings) as client:  # the restart path: every unfinished table rebuilt from its events
        after = client.get(f"/api/tables/{code}").json()
        assert after["game"] == 3 and after["status"] == "playing" and after["score"] == score
        for n, view in ((1, over), (2, second)):
            assert client.get(f"/api/tables/{code}/record?game={n}").json() == recs[n - 1].json()


def test_each_listed_game_says_its_own_stand_in_mark(db_url: str) -> None:
    """Issue 17 fault 2 in the players' game lists of a table that played again:
    game 1 was won by bob's stand-in bot (bob left), game 2 by a player of its
    own. Each listed game carries its own ``winner_stand_in`` (the table row held
    one mark for every game). The dice are the server's, so tables are tried until
    bob's stand-in wins one (a two-seat game: one chance in two each)."""
    settings = Settings(db_url=db_url, grace=600.0, bot_delay=0.0)
    rng = random.Random(7)
    with running(settings) as client:
        for _ in range(25):
            t = create(client, "ann", seats=2, options={"dice_per_player": 1})
            code = t["code"]
            j = join(client, code, "bob")
            ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
            ann.send({"type": "start", "id": "s"})
            ann.wait(lambda m: m.get("id") == "s")
            bob.send({"type": "leave", "id": "l"})
            assert bob.wait(lambda m: m.get("id") == "l")["type"] == "ack"
            bob.close()
            play_scripted([ann], rng, challenge_rate=1.0)
            over = client.get(f"/api/tables/{code}").json()
            if over["winner"] == "bob":
                break
            ann.close()
        else:
            raise AssertionError("bob's stand-in won none of 25 games")
        assert over["winner_stand_in"] is True
        ann.send({"type": "rematch", "id": "r"})
        assert ann.wait(lambda m: m.get("id") == "r")["type"] == "ack"
        ann.wait(lambda m: is_state(m) and m["view"]["game"] == 2)
        play_scripted([ann], rng, challenge_rate=1.0)
        ann.close()
        second = client.get(f"/api/tables/{code}").json()
        assert second["game"] == 2 and second["status"] == "finished" and "winner_stand_in" not in second
        bob = _earlier(second["score"], "bob")
        assert (bob["wins"], bob["stand_in_wins"]) == (0, 1) and len(second["score"]) == 2
        games = client.post("/api/my-games", json={"tokens": [t["token"]]}).json()["games"]
        mine = [(g["game"], g["winner"], g.get("winner_stand_in", False)) for g in games if g["code"] == code]
        assert mine == [(2, second["winner"], False), (1, "bob", True)], mine
        public = client.get("/api/players/ann/games").json()["games"]
        assert [(g["game"], g.get("winner_stand_in", False)) for g in public if g["code"] == code] == [(2, False), (1, True)]
        left = client.post("/api/my-games", json={"tokens": [j["token"]]}).json()["games"]
        assert [(g["game"], g["winner"], g.get("winner_stand_in", False)) for g in left if g["code"] == code] == [(1, "bob", True)]


def test_play_again_counts_under_the_askers_open_table_cap(db_url: str) -> None:
    """Stop 33's attacker: "play again" on finished tables checked no cap, so one
    address with a cap of 8 ran 32 tables (8 open and 24 replayed), and a
    table replayed after a restart counted under no address. A rematch is a
    live table again: it is refused over the asker's cap, with the create's
    sentence and nothing changed, and once made it counts under the asker's
    address (``tables.creator``), after a restart too."""
    import sqlalchemy as sa

    settings = Settings(db_url=db_url, grace=600.0, bot_delay=0.0, open_tables_per_address=1,
                        create_rate="1000/minute")
    rng = random.Random(5)
    with running(settings) as client:
        t, j, ann, bob = _ann_bob_and_a_bot_started(client)
        code = t["code"]
        _to_the_end(ann, bob, rng)
        other = create(client, "cy", seats=2)  # the address's one live table
        ann.send({"type": "rematch", "id": "r0"})
        refused = ann.wait(lambda m: m.get("id") == "r0")
        assert refused["type"] == "error" and refused["code"] == "table/too_many", refused
        assert refused["message"] == "You already have 1 table open or in play (the most is 1): finish one first."
        assert client.get(f"/api/tables/{code}").json()["status"] == "finished"  # nothing changed
        Player(client, other["code"], other["token"]).send({"type": "leave", "id": "l"})  # the open table closes
        for _ in range(200):
            if client.get(f"/api/tables/{other['code']}").json()["status"] == "closed":
                break
            time.sleep(0.02)
        ann.send({"type": "rematch", "id": "r1"})
        assert ann.wait(lambda m: m.get("id") == "r1")["type"] == "ack"
        assert client.post("/api/tables", json={"nickname": "cy", "seats": 2}).status_code == 429
        ann.close(), bob.close()
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("select creator from tables where code = :c"), {"c": code}).scalar() == "testclient"
    engine.dispose()
    with running(settings) as client:  # the replayed table still counts after a restart
        assert client.post("/api/tables", json={"nickname": "cy", "seats": 2}).status_code == 429
