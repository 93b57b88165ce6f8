"""Issue 38's faults at the page, each in Chromium (each failed on the page before):

* fault 4: the lobby's Seats and Turn timer radio groups work by keyboard as the
  table's face picker does: one Tab stop each, the arrow keys move the pick.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

_CHECKED = "(sel) => document.querySelector(sel + ' [aria-checked=\"true\"]').textContent"
_STOPS = "(sel) => [...document.querySelectorAll(sel + ' [role=radio]')].filter((b) => b.tabIndex >= 0).length"


def test_the_lobby_radio_groups_are_one_tab_stop_and_move_with_the_arrows(server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(server.url + "/")
    page.fill("#nickname", "keys")
    page.wait_for_selector("#create-form")
    for group in ("#seats", "#timer"):
        assert page.evaluate(_STOPS, group) == 1, group
    seats = int(page.evaluate(_CHECKED, "#seats"))
    page.focus("#seats [aria-checked=true]")
    page.keyboard.press("ArrowRight")
    assert int(page.evaluate(_CHECKED, "#seats")) == seats + 1
    assert page.evaluate("() => document.activeElement.getAttribute('aria-checked')") == "true"
    assert page.evaluate("() => document.activeElement.dataset.seats") == str(seats + 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert int(page.evaluate(_CHECKED, "#seats")) == seats - 1
    assert page.evaluate(_STOPS, "#seats") == 1
    # Tab leaves the group for the next one: the timer's checked choice, not the next seat
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('[role=radiogroup]')?.id") == "timer"
    before = page.evaluate(_CHECKED, "#timer")
    page.keyboard.press("ArrowRight")
    after = page.evaluate(_CHECKED, "#timer")
    assert after != before and page.evaluate("() => document.activeElement.textContent") == after
    page.keyboard.press("Home")
    assert page.evaluate(_CHECKED, "#timer") == "none"
    # the keyboard's picks are the table's
    page.keyboard.press("ArrowRight")
    timer = page.evaluate(_CHECKED, "#timer")
    page.click("#create-btn")
    page.wait_for_selector("#table-code")
    code = page.inner_text("#table-code").strip()
    table = server.api(f"/api/tables/{code}")
    assert table["n_seats"] == seats - 1 and f"{table['turn_timer']}s" == timer, table
