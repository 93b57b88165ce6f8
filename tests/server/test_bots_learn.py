"""The table option "bots learn from this player's past games" (issue 11,
"Online"), through the real app: a bot that takes opponent models gets one per
person seated under their account, fitted on that account's finished public
games; without the option, none; a guest, none (issue 18). Accounts are rows
inserted here, seats tied with ``seats.account_id`` (what a signed-in join makes)."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from .helpers import Player, create, is_state, run_in_thread


def _account(client: TestClient, name: str, *, tables: list[str] | None = None) -> int:
    """``name``'s account (made if need be), tied to every seat taken under that
    name (or only those of join codes ``tables``)."""
    from datetime import datetime, timezone

    from sqlalchemy import insert, select, update

    from liars_dice.server.runtime.db import accounts_t, seats_t, tables_t

    engine = client.app.state.service.store.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        aid = conn.execute(select(accounts_t.c.id).where(accounts_t.c.name == name)).scalar_one_or_none()
        if aid is None:
            aid = conn.execute(insert(accounts_t).values(
                name=name, skeleton=f"row:{name.lower()}", created_at=datetime.now(timezone.utc)).returning(accounts_t.c.id)).scalar_one()
        q = update(seats_t).where(seats_t.c.name == name)
        if tables is not None:
            ids = select(tables_t.c.id).where(tables_t.c.code.in_(tables)).scalar_subquery()
            q = q.where(seats_t.c.table_id.in_(ids))
        conn.execute(q.values(account_id=aid))
    return int(aid)


def _finished_game(client: TestClient, name: str, dice: int = 2) -> str:
    t = create(client, name, seats=2, options={"dice_per_player": dice})
    p = Player(client, t["code"], t["token"])
    p.send({"type": "add_bot", "bot": "random"})
    p.send({"type": "start", "id": "s"})
    assert p.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    p.send({"type": "leave", "id": "l"})  # a bot plays the seat to the end
    p.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
    p.close()
    return str(t["code"])


def _table_with_strong(
    client: TestClient, learn: bool, name: str = "ann", account: bool = True, past: list[str] | None = None,
) -> tuple[str, Player]:
    """A table of ``name`` and a strong bot, ``name`` seated under their account
    (tied to the seats of ``past`` only, if given) unless ``account`` is false."""
    t = create(client, name, seats=2, options={"dice_per_player": 2}, bots_learn=learn)
    assert client.get(f"/api/tables/{t['code']}").json().get("bots_learn", False) is learn
    if account:
        _account(client, name, tables=None if past is None else [*past, t["code"]])
    p = Player(client, t["code"], t["token"])
    p.send({"type": "add_bot", "bot": "strong"})
    p.send({"type": "start", "id": "s"})
    assert p.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    # play until the bot has moved once (whoever opens, ann challenges or the bot bids)
    for _ in range(3):
        m = p.wait(lambda m: is_state(m) and m["view"]["phase"] == "bid")
        if m["view"]["to_move"] == name:
            if m["view"]["bids"]:
                break  # the bot has bid
            p.send({"type": "bid", "quantity": 1, "face": 2, "id": "b"})
            p.wait(lambda m: m.get("id") == "b")
    return str(t["code"]), p


def test_bots_learn_fits_the_seated_persons_past_games(client: TestClient) -> None:
    _finished_game(client, "ann")
    code, p = _table_with_strong(client, True)
    room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
    assert room.models_given == {1}
    assert set(room.learned) == {"ann"}
    model = room.learned["ann"]
    assert model.records == 1 and model.rounds >= 2
    bot = room.bot(1)
    assert bot.model_of("ann") is not None and bot.model_of("ann").records == 1
    # names are not identities: the plans against these models wait for in-game evidence
    assert bot.models_trusted is False
    p.close()


def test_a_guest_gets_no_learned_model(client: TestClient) -> None:
    """Issue 18: "A guest gets no learned model, so nobody can shape someone else's"."""
    _finished_game(client, "ann")
    code, p = _table_with_strong(client, True, account=False)
    room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
    assert room.models_given == {1} and room.learned == {}
    assert room.bot(1).model_of("ann") is None
    p.close()


def test_a_model_learns_only_from_the_accounts_own_games(client: TestClient) -> None:
    """Issue 18: "a bot learns from a registered player's own games only when
    that player is seated under their account": games a guest played under the
    name (here the first) are not the account's."""
    _finished_game(client, "ann")
    mine = _finished_game(client, "ann")
    code, p = _table_with_strong(client, True, past=[mine])
    room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
    assert room.learned["ann"].records == 1
    p.close()


def test_bots_learn_only_from_games_under_the_tables_rules(client: TestClient) -> None:
    """attack3: the fit read the person's last games under any rules (here 3 dice
    each for a table of 2), one model mixing rule sets; a model is of one rule set."""
    _finished_game(client, "ann", dice=3)
    _finished_game(client, "ann", dice=2)
    code, p = _table_with_strong(client, True)
    room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
    assert room.learned["ann"].records == 1
    p.close()


def test_without_the_option_bots_get_no_models(client: TestClient) -> None:
    _finished_game(client, "ann")
    code, p = _table_with_strong(client, False)
    room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
    assert room.learned is None and room.models_given == set()
    p.close()


def test_bots_learn_reads_the_last_games_of_the_tables_preset(client: TestClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """attack6: the last LEARN_GAMES games were taken before the rules were
    checked, so a person's newer games of another preset hid every game of this
    one (here one game kept: the newest is aces-wild, the table classic)."""
    import liars_dice.server.runtime.learning as service_mod

    monkeypatch.setattr(service_mod, "LEARN_GAMES", 1)
    _finished_game(client, "ann")
    t = create(client, "ann", seats=2, preset="aces-wild", options={"dice_per_player": 2})
    p = Player(client, t["code"], t["token"])
    p.send({"type": "add_bot", "bot": "random"})
    p.send({"type": "start", "id": "s"})
    assert p.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    p.send({"type": "leave", "id": "l"})
    p.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
    p.close()
    code, p = _table_with_strong(client, True)
    try:
        room = client.app.state.service.rooms[code]  # type: ignore[attr-defined]
        assert "ann" in room.learned and room.learned["ann"].records == 1
    finally:
        p.close()


def test_bots_learn_keeps_no_past_game_in_memory(client: TestClient) -> None:
    """attack6: each past game was loaded as a room on the event loop (32 ms a
    game of six seats and ten dice; five persons' 250 games stalled every table
    for about 8 s) and kept among the rooms; now they are rebuilt in a worker
    thread and dropped."""
    past = [_finished_game(client, "ann") for _ in range(2)]
    rooms = client.app.state.service.rooms  # type: ignore[attr-defined]
    for c in past:
        rooms.pop(c, None)
    code, p = _table_with_strong(client, True)
    try:
        assert rooms[code].learned["ann"].records == 2
        assert not set(past) & set(rooms)
    finally:
        p.close()


def test_tables_started_again_under_the_same_names_fit_them_once(client: TestClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """attack7: every start of a "bots learn" table read, rebuilt and fitted the
    seated names' last 50 games again (up to 8 s of CPU for five prolific names),
    so anyone creating tables under those names (20 a minute per address) kept
    a core busy. A (name, rule set) model is now fitted once and reused for
    LEARN_CACHE_SECONDS; after that, games finished meanwhile count."""
    import liars_dice.server.runtime.learning as service_mod

    service = client.app.state.service  # type: ignore[attr-defined]
    fits: list[tuple[str, ...]] = []
    real = service.learner.fit

    def counting(names, *args):  # type: ignore[no-untyped-def]
        fits.append(tuple(names))
        return real(names, *args)

    monkeypatch.setattr(service.learner, "fit", counting)
    _finished_game(client, "ann")
    for _ in range(3):
        code, p = _table_with_strong(client, True)
        assert service.rooms[code].learned["ann"].records == 1
        p.close()
    assert fits == [("ann",)], fits
    # past its lifetime (here: made past it) the model is fitted again, with the games finished since
    cache = service.learner.cache
    assert all(expires - time.monotonic() > 0.9 * service_mod.LEARN_CACHE_SECONDS for expires, _ in cache.values())
    for key, (_, model) in list(cache.items()):
        cache[key] = (time.monotonic() - 1.0, model)
    _finished_game(client, "ann")
    code, p = _table_with_strong(client, True)
    try:
        assert service.rooms[code].learned["ann"].records == 2
    finally:
        p.close()
    assert fits == [("ann",), ("ann",)], fits


def test_the_learned_models_kept_are_bounded(client: TestClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """attack7: the models kept for reuse are at most LEARN_CACHE_SIZE, the
    least recently used dropped first."""
    import liars_dice.server.runtime.learning as service_mod

    monkeypatch.setattr(service_mod, "LEARN_CACHE_SIZE", 1)
    service = client.app.state.service  # type: ignore[attr-defined]
    _finished_game(client, "ann")
    code, p = _table_with_strong(client, True)
    p.close()
    assert [k[0] for k in service.learner.cache] == ["ann"]
    code, p = _table_with_strong(client, True, "bea")
    try:
        assert service.rooms[code].learned == {}  # bea has no past game
        assert [k[0] for k in service.learner.cache] == ["bea"]
    finally:
        p.close()


def test_a_cached_model_never_waits_behind_a_queued_fit(client: TestClient) -> None:
    """Issue 16 fault 4: one lock wrapped both the cache look-up and the fit,
    so a cached model waited behind every queued fit (an honest table got no
    bot move in 60 s behind five others' fits)."""
    import asyncio
    import threading

    from liars_dice.engine import PRESETS
    from liars_dice.server.core.views import record_of
    from liars_dice.server.runtime.learning import Learner

    service = client.app.state.service  # type: ignore[attr-defined]
    rules = PRESETS["classic"]
    learner = Learner(service.store, record_of)
    gate = threading.Event()
    real = learner.fit

    def held(names, *args):  # type: ignore[no-untyped-def]
        gate.wait(20)  # a long fit: a prolific name's 50 games
        return real(names, *args)

    learner.fit = held  # type: ignore[method-assign]
    learner.cache[("ann", "classic", rules, None)] = (time.monotonic() + 600, "ann's model")

    async def go() -> dict[str, object]:
        slow = asyncio.ensure_future(learner.models(["zed"], "AAAAAA", "classic", rules))
        await asyncio.sleep(0.2)
        try:
            return await asyncio.wait_for(learner.models(["ann"], "BBBBBB", "classic", rules), 2.0)
        finally:
            gate.set()
            await slow

    assert run_in_thread(go()) == {"ann": "ann's model"}


def test_one_other_option_rebuilds_none_of_the_past_games(client: TestClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 16 fault 4: the cache key holds the full rules (a model is of one
    rule set), so a table with one option changed fitted every seated name
    again: its 50 past games were read and rebuilt, for nothing (the fit
    counts only games under the same rules). Now only the games under the
    table's rules are rebuilt: here none, then both."""
    from liars_dice.engine import PRESETS

    service = client.app.state.service  # type: ignore[attr-defined]
    for _ in range(2):
        _finished_game(client, "ann", dice=2)
    rebuilt: list[str] = []
    real = service.store.events

    def counting(table_id):  # type: ignore[no-untyped-def]
        rebuilt.append(table_id)
        return real(table_id)

    monkeypatch.setattr(service.store, "events", counting)
    other = PRESETS["classic"].with_options(dice_per_player=3)
    assert service.learner.fit(["ann"], "ZZZZZZ", "classic", other) == {}
    assert rebuilt == []
    same = PRESETS["classic"].with_options(dice_per_player=2)
    assert service.learner.fit(["ann"], "ZZZZZZ", "classic", same)["ann"].records == 2
    assert len(rebuilt) == 2
