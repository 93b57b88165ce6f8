"""The browser renders what the server sends (issue 8, "One source of truth"):
under aces-wild the table and the replay say "aces", the engine's words
(seed 003 names the wild 1s aces), never "1s" of the browser's own making."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from e2e_ui import add_bots_and_start, call, create_table, play_until_over, shot, try_click

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def _bid_aces(page, limit: int = 40) -> str:  # type: ignore[no-untyped-def]
    """On this page's turn, bid the lowest raise on aces with a quantity of two or
    more; challenge and wait for another turn while no such raise is legal.
    Returns the bid button's words."""
    for _ in range(limit):
        if page.is_visible("#reveal-close"):
            try_click(page, "#reveal-close")
        if page.is_visible("#bid-btn") and page.is_enabled('.face-btn[data-face="1"]'):
            page.click('.face-btn[data-face="1"]')
            while int(page.inner_text("#qty")) < 2 and page.is_enabled("#qty-up"):
                page.click("#qty-up")
            words = page.inner_text("#bid-btn")
            # A state arriving between the clicks redraws the picker; then try again.
            if int(page.inner_text("#qty")) >= 2 and "aces" in words:
                page.click("#bid-btn")
                return words
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            call(page)
        if page.is_visible("#game-over"):
            break
        page.wait_for_timeout(250)
    raise AssertionError("no turn with a raise on aces")


def test_aces_wild_table_and_replay_say_aces(tmp_path: Path, new_page) -> None:  # type: ignore[no-untyped-def]
    from e2e.conftest import start_server

    srv = start_server(tmp_path / "aces.db", bot_delay=2.5)  # a slow bot: time to read the table
    try:
        page = new_page()
        code = create_table(page, srv.url, "ida", preset="aces-wild", seats=2, dice=3)
        add_bots_and_start(page)
        words = _bid_aces(page)
        assert re.fullmatch(r"Bid (two|three|four|five|six) aces", words.strip()), words
        said = words.strip().removeprefix("Bid ")
        # The bot waits 2.5 s before it answers: the list shows the bid well before that.
        page.wait_for_function("s => (document.querySelector('#bid-list')?.innerText ?? '').includes(s)", arg=said, timeout=2000)
        assert said in page.inner_text("#bid-list"), "the bid list says aces"
        assert said in page.inner_text("#current-bid") or page.is_visible("#reveal-close"), "the table says aces"
        assert not re.search(r"\b\d+ 1s\b|\bone 1\b|\b(two|three|four|five|six) 1s\b", page.inner_text("body"))
        shot(page, "aces-wild-table")
        play_until_over([page])
        steps = srv.api(f"/api/tables/{code}/replay")["steps"]
        mine = next(i for i, s in enumerate(steps) if s["text"] == f"Ida bids {said}.")

        page.goto(f"{srv.url}/#/replay/{code}")
        page.wait_for_selector("#step-text")
        page.fill("#step-slider", str(mine))
        page.dispatch_event("#step-slider", "input")
        page.wait_for_function(f"document.querySelector('#step-counter').textContent.startsWith('{mine + 1} /')")
        assert page.inner_text("#step-text") == f"Ida bids {said}."
        assert said in page.inner_text("#replay-bids"), "the replay's bid list says aces"
        body = page.inner_text("body")
        assert not re.search(r"\b(one|two|three|four|five|six) 1s?\b", body), body
        shot(page, "aces-wild-replay")
    finally:
        srv.proc.kill()
        srv.proc.wait(timeout=10)


def test_the_rules_in_words_come_from_the_engine(server, new_page) -> None:  # type: ignore[no-untyped-def]
    """The create form and the table show the engine's summary (engine/summary.py),
    served by the server; changing an option asks the server again, and a bad
    combination reads as the server's one sentence."""
    from liars_dice.engine import Rules
    from liars_dice.engine.summary import OPTION_LABELS, rules_summary

    page = new_page()
    page.goto(server.url + "/")
    page.fill("#nickname", "una")
    page.wait_for_selector("#create-form")
    page.select_option("#preset", "perudo")
    calza = dict(rules_summary(Rules.preset("perudo")))["Special rounds and moves"]
    page.wait_for_function("(s) => document.querySelector('#rules-summary').innerText.includes(s)", arg=calza[:60])
    page.click("#create-card summary")
    assert OPTION_LABELS["calza"] in page.inner_text("#rule-options")
    page.uncheck("#opt-calza")
    no_calza = dict(rules_summary(Rules.preset("perudo").with_options(calza=False)))["Special rounds and moves"]
    assert no_calza in calza  # so waiting for it alone would not wait for the server's answer
    # wait for the server's new summary: the palifico sentence stays, the calza one goes
    page.wait_for_function(
        "(s) => { const t = document.querySelector('#rules-summary').innerText;"
        " return t.includes(s) && !t.includes('Calza:'); }", arg=no_calza)
    assert "Calza:" not in page.inner_text("#rules-summary")
    page.select_option("#preset", "wild-stars")
    page.check("#opt-palifico")  # wild-stars' perfect bid and palifico do not go together: the server says why
    page.wait_for_selector("#rules-summary li.warn")
    refusal = page.inner_text("#rules-summary li.warn")
    assert "palifico" in refusal and refusal.strip().endswith(".") and "\n" not in refusal.strip(), refusal
    page.uncheck("#opt-palifico")
    page.wait_for_function("() => !document.querySelector('#rules-summary li.warn')")
    page.click("#create-btn")
    page.wait_for_selector("#table-code")
    page.click(".rules-details summary")
    lines = [f"{topic}: {sentence}" for topic, sentence in rules_summary(Rules.preset("wild-stars"))]
    # the table's updates redraw its head; the open panel stays open and shows every line
    page.wait_for_function(
        "(lines) => { const d = document.querySelector('.rules-details');"
        " return d && d.open && lines.every((l) => d.innerText.includes(l)); }", arg=lines)
    shot(page, "rules-summary-from-engine")
