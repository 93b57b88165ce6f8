"""Ratings in a real Chromium (issue 18, "Ratings and leaderboard"): a rated
table made from the lobby form, a rated game played through the page, the
lobby's rating badges, the leaderboard and the profile with its plot and replay links.

The accounts are rows inserted in the server's database and the seat is tied
to its account there (``seats.account_id``; the row's skeleton is not its
name's, so the page may take the name as a nickname): the flow through sign-up
and sign-in in the page is the accounts change's.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import create_engine, insert, select, update

from e2e_ui import create_table, play_until_over, shot
from liars_dice.server.runtime.db import accounts_t, ratings_t, seats_t, tables_t


def _db(server: Any) -> Any:
    return create_engine(f"sqlite:///{server.db}")


def _register(engine: Any, name: str) -> int:
    with engine.begin() as conn:
        return int(conn.execute(insert(accounts_t).values(
            name=name, skeleton=f"row:{name.lower()}", created_at=datetime.now(timezone.utc)).returning(accounts_t.c.id)).scalar_one())


def _tie(engine: Any, code: str, seat: int, account: int) -> None:
    with engine.begin() as conn:
        tid = conn.execute(select(tables_t.c.id).where(tables_t.c.code == code)).scalar_one()
        conn.execute(update(seats_t).where(seats_t.c.table_id == tid, seats_t.c.seat == seat).values(account_id=account))


def test_a_rated_game_then_the_leaderboard_and_the_profile(server, new_page) -> None:  # type: ignore[no-untyped-def]
    """Issue 18: "A table can be created as rated"; "Leaderboard page: per rule
    set, the top players by a conservative rating ... Only players with at least
    10 rated games"; "Profile page: ... its history as a small plot drawn in the
    page, and the list of their public games with links to each replay"; "The
    lobby shows each open table's players' ratings"."""
    engine = _db(server)
    ann = _register(engine, "ann")
    page = new_page()
    page.goto(server.url + "/")
    page.fill("#nickname", "ann")
    page.wait_for_selector("#create-form")
    page.select_option("#preset", "classic")
    page.click('#seats [data-seats="2"]')
    page.check("#rated")
    page.click('#timer [data-timer="none"]')
    page.click("#create-btn")  # refused: a rated table has a turn timer
    page.wait_for_selector(".toast-error")
    assert "A rated table has a turn timer" in page.inner_text(".toast-error")
    page.click('#timer [data-timer="60"]')
    page.click("#create-btn")
    page.wait_for_selector(".seat-mine")
    code = page.inner_text("#table-code").strip()
    assert server.api(f"/api/tables/{code}")["rated"] is True
    _tie(engine, code, 0, ann)
    page.select_option('.bot-select[data-seat="1"]', "random")
    page.click('[data-add-bot="1"]')
    page.wait_for_selector('.seat[data-seat="1"] .badge-bot')
    page.click("#start-game:not([disabled])")
    page.wait_for_selector("#turn")
    play_until_over([page], limit_s=240)
    with engine.connect() as conn:
        (mine,) = conn.execute(select(ratings_t).where(ratings_t.c.account_id == ann)).all()
    assert mine.rule_set == "classic" and mine.games == 1

    # bea has 12 rated games (rows as a long history leaves them); ann's one game lists her nowhere yet
    bea = _register(engine, "bea")
    with engine.begin() as conn:
        conn.execute(insert(ratings_t).values(account_id=bea, rule_set="classic", mu=31.0, sigma=2.0, games=12,
                                              updated_at=datetime.now(timezone.utc)))
    page.goto(server.url + "/#/leaderboard")
    page.wait_for_selector(".leaderboard-table")
    rows = page.locator(".leaderboard-table tbody tr")
    assert rows.count() == 1
    assert rows.nth(0).get_attribute("data-name") == "bea"
    assert rows.nth(0).locator(".rating").inner_text() == "25.0"  # 31 - 3 * 2
    assert "at least 10 rated games" in page.inner_text("#leaderboard-note")
    shot(page, "ratings-leaderboard")

    # the profile: one rating, its plot with one point, the game with its replay link
    page.goto(server.url + "/#/player/ann")
    page.wait_for_selector('.profile-rating[data-rule-set="classic"] svg.rating-plot')
    assert page.locator("svg.rating-plot circle.plot-dot").count() == 1
    assert "1 rated games" in page.inner_text(".profile-rating")
    link = page.locator(f'#profile-games [data-code="{code}"] a')
    assert link.get_attribute("href") == f"#/replay/{code}/1"
    shot(page, "ratings-profile")
    link.click()
    page.wait_for_selector("#step-slider", timeout=20_000)
    assert page.url.endswith(f"#/replay/{code}/1")

    # the lobby: an open table shows its seated player's rating
    other = new_page()
    code2 = create_table(other, server.url, "ann", preset="classic", seats=2, timer="60", rated=True)
    _tie(engine, code2, 0, ann)
    (entry,) = [t for t in server.api("/api/tables")["tables"] if t["code"] == code2]
    assert entry["seats"][0].get("rating", {}).get("games") == 1
    watcher = new_page()
    watcher.goto(server.url + "/")
    badge = watcher.locator(f'#open-tables [data-code="{code2}"] .rating-badge')
    badge.wait_for()
    assert badge.inner_text() == f"{mine.mu - 3 * mine.sigma:.1f}"
    shot(watcher, "ratings-lobby")
    engine.dispose()
