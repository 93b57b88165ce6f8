"""End-to-end: people play through the web UI in headless Chromium (issue 4, "Tests").

Each test drives a real ``liars-dice serve`` (see conftest.py) with real
browser contexts, one per player, each with its own localStorage.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from e2e_ui import (
    DESKTOP,
    call,
    add_bots_and_start,
    assert_no_horizontal_scroll,
    create_table,
    join_by_code,
    play_until_over,
    shot,
    try_click,
    wait_for_bid_turn,
)
from liars_dice.engine.actions import Bid
from liars_dice.engine.odds import bid_probability
from liars_dice.engine.rules import Rules
from liars_dice.records import replay

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def test_two_browser_players_and_a_bot_play_a_whole_game(server, new_page, tmp_path: Path) -> None:
    """Issue 4 "Done when": two browsers and a bot play a whole game to the end; the
    record downloaded from the UI replays through the engine to the same winner.
    Issue 7: the page is served with its Content-Security-Policy all along, and
    no violation reaches the console (the ``new_page`` fixture fails on one)."""
    import httpx

    csp = httpx.get(server.url + "/", timeout=10).headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    ann, bob = new_page(), new_page(phone=True)
    code = create_table(ann, server.url, "ann", preset="wild-stars", seats=3, dice=2)
    assert re.fullmatch(r"[A-Z2-9]{6}", code)
    shot(ann, "table-open-desktop")

    # A refused request is shown as one sentence and changes nothing: "ann" is taken.
    bob.goto(server.url + "/")
    bob.fill("#nickname", "ann")
    bob.fill("#join-code", code)
    bob.click("#join-btn")
    toast = bob.wait_for_selector(".toast-error").inner_text().strip()
    assert "ann" in toast and toast.endswith(".") and "\n" not in toast, toast
    assert "#/table" not in bob.url

    # bob takes a seat from the lobby's list of open public tables.
    bob.fill("#nickname", "bob")
    bob.click(f'#open-tables [data-code="{code}"] button:has-text("Join")')
    bob.wait_for_selector(".seat-mine")
    ann.wait_for_selector('.seat[data-name="bob"]')
    add_bots_and_start(ann)
    bob.wait_for_selector("#turn")
    shot(ann, "playing-desktop")
    shot(bob, "playing-phone")

    # Each player sees their own dice face up and the others' as hidden dice.
    assert ann.locator("#hand .die").count() == 2
    assert ann.locator('.seat[data-name="bob"] .die-hidden').count() == 2
    assert bob.locator('.seat[data-name="ann"] .die-hidden').count() == 2

    # Chat reaches the other player.
    ann.fill("#chat-input", "good luck everyone")
    ann.press("#chat-input", "Enter")
    bob.wait_for_selector("#chat-log li:has-text('good luck everyone')")

    stats = play_until_over([ann, bob], show_once=True)
    assert stats["challenges"] >= 1 and stats["reveals"] >= 1, stats
    shot(ann, "over-desktop")
    shot(bob, "over-phone")

    banner_ann = ann.inner_text("#game-over")
    banner_bob = bob.inner_text("#game-over")
    table = server.api(f"/api/tables/{code}")
    assert table["status"] == "finished"
    winner = table["winner"]
    for banner, me in ((banner_ann, "ann"), (banner_bob, "bob")):
        assert ("You win" in banner) if winner == me else (f"{winner} wins" in banner)

    # Download the record from the banner; it replays through the engine.
    with ann.expect_download() as dl:
        ann.click("#download-record")
    path = tmp_path / "record.json"
    dl.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["players"][:2] == ["ann", "bob"]
    result = replay(record)
    assert result.ok and result.result()["winner"] == winner


def test_a_reload_mid_game_keeps_the_seat(server, new_page) -> None:
    """Issue 4: a player who reloads or closes the tab gets the same seat back
    (the token is kept in localStorage), with the same hidden dice."""
    ann = new_page()
    code = create_table(ann, server.url, "ann", preset="classic", seats=2, dice=5)
    add_bots_and_start(ann)
    wait_for_bid_turn(ann)  # ann to move: nothing changes until she acts (no timer)
    hand = ann.locator("#hand .die").evaluate_all("els => els.map(e => e.dataset.face)")
    dice_in_play = sum(int(t.split()[0]) for t in ann.locator(".seat-count").all_inner_texts() if t.strip())
    assert 2 <= len(hand) <= 5

    # The hint: the chance that the bid picked is true from ann's dice, as the engine computes it.
    ann.check("#hint-toggle")
    if ann.is_enabled("#qty-up"):
        ann.click("#qty-up")
    quantity = int(ann.inner_text("#qty"))
    face = int(ann.get_attribute(".face-btn.on", "data-face"))
    opening = ann.locator("#bid-list li >> nth=0").locator(".die").get_attribute("data-face") if ann.locator("#bid-list li").count() else None
    wilds = None if opening is None else int(opening) != 1  # classic: a round opened on 1s has no wilds (seed 004)
    p = bid_probability(Rules.preset("classic"), Bid(quantity, face), tuple(int(f) for f in hand), dice_in_play - len(hand), wilds)
    expected = "<1%" if 0 < p < 0.01 else ">99%" if 0.99 < p < 1 else f"{round(p * 100)}%"
    assert ann.inner_text("#actions .hint strong") == expected

    ann.reload()
    ann.wait_for_selector("#hand .die")
    assert ann.locator(".seat-mine .seat-name").inner_text().strip() == "ann"
    # Nobody can move while ann's browser is away (no timer, bots wait for her), so the round is the same.
    assert ann.locator("#hand .die").evaluate_all("els => els.map(e => e.dataset.face)") == hand

    # Close the tab; a new tab of the same browser gets the seat back too.
    context = ann.context
    ann.close()
    again = context.new_page()
    again.goto(f"{server.url}/#/table/{code}")
    again.wait_for_selector(".seat-mine")
    assert again.locator(".seat-mine .seat-name").inner_text().strip() == "ann"
    assert again.locator("#hand .die").evaluate_all("els => els.map(e => e.dataset.face)") == hand

    # Another browser without the token only watches: no cup, no moves.
    visitor = new_page()
    visitor.goto(f"{server.url}/#/table/{code}")
    visitor.wait_for_selector("#visitor-banner")
    assert visitor.locator(".seat-mine").count() == 0
    assert visitor.locator("#hand").count() == 0 or not visitor.is_visible("#hand")
    assert visitor.locator('.seat[data-name="ann"] .die-hidden').count() >= 1


@pytest.fixture(scope="module")
def finished_game(server, browser) -> str:  # type: ignore[no-untyped-def]
    """A finished game of ann against a bot (classic, one die each: one round)."""
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    code = create_table(page, server.url, "cy", preset="classic", seats=2, dice=1)
    add_bots_and_start(page)
    play_until_over([page])
    ctx.close()
    return code


def test_the_replay_page_steps_through_the_finished_game(server, new_page, finished_game: str) -> None:
    """Issue 4 "After the game": a replay page that steps through a finished game."""
    code = finished_game
    steps = server.api(f"/api/tables/{code}/replay")["steps"]
    assert len(steps) >= 3
    page = new_page()
    page.goto(f"{server.url}/#/replay/{code}")
    page.wait_for_selector("#step-text")
    n = len(steps)
    assert page.inner_text("#step-counter") == f"1 / {n}"
    assert page.inner_text("#step-text") == steps[0]["text"]
    assert page.is_disabled("#prev")

    page.click("#next")
    assert page.inner_text("#step-counter") == f"2 / {n}"
    assert page.inner_text("#step-text") == steps[1]["text"]
    page.click("#prev")
    assert page.inner_text("#step-text") == steps[0]["text"]
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#step-counter") == f"2 / {n}"

    page.click("#last")
    assert page.inner_text("#step-counter") == f"{n} / {n}"
    assert page.inner_text("#step-text") == steps[-1]["text"]
    assert page.is_disabled("#next")
    # The challenge step shows every cup face up with the count.
    challenge = max(i for i, s in enumerate(steps) if s.get("result"))
    page.fill("#step-slider", str(challenge))
    page.dispatch_event("#step-slider", "input")
    reveal = page.wait_for_selector("#replay-reveal")
    # The total is drawn large in its own element, so its text may break
    # across lines: compare with white space folded, against the summary
    # "N counted, Q bid." (each seat's "k counted" must not stand in for it).
    result = steps[challenge]["result"]
    folded = " ".join(reveal.inner_text().split())
    assert f"{result['count']} counted, {result['bid']['quantity']} bid" in folded, folded
    assert page.locator(".replay-board .die-hidden").count() == 0
    shot(page, "replay-desktop")


def test_the_lobby_lists_a_players_finished_games(server, new_page, finished_game: str) -> None:
    """Issue 4 "Persistence": finished games stay listed for their players."""
    page = new_page()
    page.goto(server.url + "/")
    page.fill("#lookup-nick", "cy")
    page.click('#games-card button:has-text("Finished games")')
    row = page.wait_for_selector(f'#lookup-games [data-code="{finished_game}"]')
    assert "winner" in row.inner_text()
    row.query_selector('a:has-text("Replay")').click()
    page.wait_for_selector("#step-text")
    assert f"#/replay/{finished_game}" in page.url


def test_phone_viewport_renders_without_horizontal_scroll(server, new_page, finished_game: str) -> None:
    """Issue 4 "Readable on a phone": lobby, a table in play, the reveal, the game-over
    table and the replay fit a 390 px wide phone."""
    page = new_page(phone=True)
    page.goto(server.url + "/")
    page.wait_for_selector("#create-form")
    page.click("#create-card summary")
    assert_no_horizontal_scroll(page, "lobby")
    shot(page, "lobby-phone")

    code = create_table(page, server.url, "dee-with-a-rather-long-name", preset="wild-stars", seats=6, dice=5, timer="30")
    assert_no_horizontal_scroll(page, "table before the start")
    add_bots_and_start(page)
    wait_for_bid_turn(page)
    # The 30 s turn timer: a countdown and a bar on the seat to move.
    countdown = page.inner_text("#center .countdown")
    assert re.fullmatch(r"\d+s", countdown) and 0 < int(countdown[:-1]) <= 30, countdown
    assert page.locator(".seat-mine .timer-fill").count() == 1
    assert_no_horizontal_scroll(page, "table in play")
    shot(page, "table-phone-6-seats")
    for _ in range(200):  # play on until a reveal shows
        if page.is_visible("#reveal-close"):
            break
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            call(page)
        elif page.is_visible("#bid-btn") and page.is_enabled("#bid-btn"):
            try_click(page, "#bid-btn")
        page.wait_for_timeout(100)
    page.wait_for_selector("#reveal-close")
    # The reveal: a cup per player still in (bots may have ended a second round by now),
    # and the dice it marks as counted are exactly the count the server reports (stars wild).
    cups = page.locator("#reveal .cup").count()
    assert 2 <= cups <= 6
    assert page.locator("#reveal .cup .die").count() >= cups
    assert page.locator("#reveal .cup .die-match").count() == int(page.inner_text("#reveal-count .count-num"))
    assert_no_horizontal_scroll(page, "the reveal")
    shot(page, "reveal-phone")

    page.goto(f"{server.url}/#/table/{finished_game}")
    page.wait_for_selector("#game-over")
    assert_no_horizontal_scroll(page, "finished table")
    page.goto(f"{server.url}/#/replay/{finished_game}")
    page.wait_for_selector("#step-text")
    page.click("#last")
    assert_no_horizontal_scroll(page, "replay")
    shot(page, "replay-phone")
    assert code


def test_the_page_reconnects_after_a_server_kill_and_finishes_the_game(tmp_path: Path, new_page) -> None:
    """Issue 4 "Persistence": SIGKILL the server mid-game and start it again on the same
    database; the open page reconnects by itself, keeps its seat and dice, and plays on."""
    from e2e.conftest import start_server

    db = tmp_path / "restart.db"
    srv = start_server(db)
    try:
        page = new_page()
        code = create_table(page, srv.url, "eve", preset="classic", seats=2, dice=2)
        add_bots_and_start(page)
        wait_for_bid_turn(page)  # eve to move: nothing changes until she acts
        hand = page.locator("#hand .die").evaluate_all("els => els.map(e => e.dataset.face)")
        bids = page.locator("#bid-list li").count()

        port = int(srv.url.rsplit(":", 1)[1])
        srv.proc.kill()
        srv.proc.wait(timeout=10)
        page.wait_for_selector(".conn-closed, .conn-connecting")

        srv = start_server(db, port=port)
        page.wait_for_selector(".conn-open", timeout=30_000)
        page.wait_for_selector("#bid-btn")  # the same turn as before the kill
        assert page.locator("#hand .die").evaluate_all("els => els.map(e => e.dataset.face)") == hand
        assert page.locator("#bid-list li").count() == bids
        assert page.inner_text("#table-code").strip() == code

        play_until_over([page])
        assert srv.api(f"/api/tables/{code}")["status"] == "finished"
    finally:
        srv.proc.kill()
        srv.proc.wait(timeout=10)


def test_show_and_reroll_in_wild_stars(tmp_path: Path, new_page) -> None:
    """Seed 000 "The Show and Reroll Rule" through the UI: after choosing dice to show,
    the bid sets them out face up for everyone and the rest of the cup is rerolled."""
    from e2e.conftest import start_server

    srv = start_server(tmp_path / "show.db", bot_delay=3.0)  # slow bot: time to look
    try:
        page = new_page()
        create_table(page, srv.url, "fay", preset="wild-stars", seats=2, dice=3)
        add_bots_and_start(page)
        wait_for_bid_turn(page, min_dice=2)
        assert page.is_visible("#show-help")
        faces = page.locator("#hand .die").evaluate_all("els => els.map(e => Number(e.dataset.face))")
        n = len(faces)
        page.click("#hand button.die >> nth=0")
        assert "show 1" in page.inner_text("#bid-btn")
        for i in range(1, n):  # every die: nothing left to reroll
            page.click(f"#hand button.die >> nth={i}")
        assert page.is_disabled("#bid-btn") and page.is_visible("#actions .warn")
        for i in range(1, n):
            page.click(f"#hand button.die >> nth={i}")
        page.click("#bid-btn")

        page.wait_for_selector("#my-cup .shown-line")
        assert page.locator("#my-cup .shown-line .die").evaluate_all("els => els.map(e => Number(e.dataset.face))") == [faces[0]]
        assert page.locator("#hand .die").count() == n - 1
        assert "showing 1" in page.inner_text('.seat[data-name="fay"]')
        assert page.locator("#bid-list li.latest .die").count() == 2  # the bid's face and the shown die
    finally:
        srv.proc.kill()
        srv.proc.wait(timeout=10)


def test_an_unknown_table_code_is_one_sentence_and_no_retry_loop(server, new_page) -> None:
    """Bad input gets one clear sentence (developers' guide): a link to a table that does
    not exist says so once, offers the lobby, and stops reconnecting."""
    page = new_page()
    page.goto(f"{server.url}/#/table/ZZZZZZ")
    banner = page.wait_for_selector("#not-found")
    assert "ZZZZZZ" in banner.inner_text() and banner.query_selector('a[href="#/"]')
    page.wait_for_timeout(2500)  # longer than the first reconnect delays
    assert page.locator(".toast-error").count() == 0
    assert page.inner_text("#conn") == "not connected"


def test_the_host_leaves_before_the_start_and_the_next_player_hosts(server, new_page) -> None:
    """docs/server-protocol.md "Grace period": before the start a leaving host frees the seat
    and the host's role passes on; the UI gives the new host the controls at once."""
    ann, bob = new_page(), new_page()
    code = create_table(ann, server.url, "ann", preset="classic", seats=3, dice=1)
    join_by_code(bob, server.url, "bob", code)
    assert bob.locator("#start-game").count() == 0  # not the host yet
    ann.once("dialog", lambda d: d.accept())  # "Leave this table?"
    ann.click("#leave-btn")
    ann.wait_for_selector("#create-form")  # back in the lobby
    bob.wait_for_selector("#start-game")
    assert bob.locator('.seat[data-name="ann"]').count() == 0
    add_bots_and_start(bob)
    bob.wait_for_selector("#turn")
