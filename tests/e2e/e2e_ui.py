"""Page helpers for the end-to-end tests: drive the web UI as a player would."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout


#: Browser context options: a laptop window and a phone (390 x 844 CSS pixels, touch).
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}


def shot(page: Any, name: str) -> None:
    """Save a full-page screenshot when LIARS_DICE_E2E_SHOTS names a folder."""
    folder = os.environ.get("LIARS_DICE_E2E_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(400)  # let the reveal's pop-in animation finish
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def create_table(page: Any, base: str, nickname: str, *, preset: str, seats: int, dice: int | None = None,
                 timer: str = "none", private: bool = False, rated: bool = False) -> str:
    """Create a table from the lobby form; returns its join code (the page is then on the table).
    ``dice``: dice per player (``None``: the preset's, the options left closed)."""
    page.goto(base + "/")
    page.fill("#nickname", nickname)
    page.wait_for_selector("#create-form")
    page.select_option("#preset", preset)
    if dice is not None:
        page.click("#create-card summary")  # "Change the options": every option of the preset
        page.fill("#opt-dice_per_player", str(dice))
        page.press("#opt-dice_per_player", "Tab")
    page.click(f'#seats [data-seats="{seats}"]')
    page.click(f'#timer [data-timer="{timer}"]')
    if private:
        page.check("#private")
    if rated:
        page.check("#rated")
    page.click("#create-btn")
    page.wait_for_selector("#table-code")
    page.wait_for_selector(".seat-mine")
    return page.inner_text("#table-code").strip()


def join_by_code(page: Any, base: str, nickname: str, code: str) -> None:
    """Join from the lobby with a nickname and the code."""
    page.goto(base + "/")
    page.fill("#nickname", nickname)
    page.fill("#join-code", code)
    page.click("#join-btn")
    page.wait_for_selector(".seat-mine")


def add_bots_and_start(host: Any, bot: str = "random") -> None:
    """As the host: put a bot in every empty seat, then start."""
    for select in host.query_selector_all(".bot-select"):
        seat = select.get_attribute("data-seat")
        host.select_option(f'.bot-select[data-seat="{seat}"]', bot)
        host.click(f'[data-add-bot="{seat}"]')
        host.wait_for_selector(f'.seat[data-seat="{seat}"] .badge-bot')
    host.click("#start-game:not([disabled])")
    host.wait_for_selector("#turn")


def try_click(page: Any, selector: str, *, timeout_ms: float = 2000) -> bool:
    """Click ``selector``; return False when the click did not land within ``timeout_ms``.

    The table changes under a test between a look and a click: a bot's challenge opens
    the reveal over the buttons, or a new state re-draws them. A loop that looks again
    then stays right instead of waiting out Playwright's 20 s on an intercepted click."""
    try:
        page.click(selector, timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def call(page: Any, what: str = "challenge", *, timeout_ms: float = 2000) -> bool:
    """Call liar (``what="challenge"``) or calza as a player does: the button,
    then the confirming one (issue 38, fault 7: a round-ending move takes a
    second tap). Returns whether both clicks landed."""
    return try_click(page, f"#{what}-btn", timeout_ms=timeout_ms) and try_click(page, f"#confirm-{what}", timeout_ms=timeout_ms)


def wait_for_bid_turn(page: Any, *, min_dice: int = 1, limit_s: float = 60) -> None:
    """Wait until it is this page's turn with a raise to make (``#bid-btn``) and at
    least ``min_dice`` in the cup. A bot may open with the highest bid, which leaves
    only the challenge: then challenge, close the reveal, and wait for the next turn."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if page.is_visible("#reveal-close"):
            try_click(page, "#reveal-close")
        if page.is_visible("#game-over"):
            raise AssertionError("the game ended before the player had a raise to make")
        if page.is_visible("#bid-btn") and page.locator("#hand .die").count() >= min_dice:
            return
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            call(page)
        page.wait_for_timeout(100)
    raise AssertionError(f"no turn with a raise within {limit_s} s")


def play_until_over(pages: list[Any], *, limit_s: float = 150, show_once: bool = False) -> dict[str, int]:
    """Play every page's seat to the end of the game through the UI.

    Policy: close any reveal; on your turn challenge when you may, else bid the
    cheapest raise (the picker's default). With ``show_once`` the first bid made
    with two or more dice in the cup sets one die out (show-and-reroll).
    Returns counts: ``moves``, ``challenges``, ``reveals``, ``shows``.
    """
    stats = {"moves": 0, "challenges": 0, "reveals": 0, "shows": 0, "retries": 0}
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if all(p.is_visible("#game-over") for p in pages):
            # the final reveal may still be open on top of the banner
            for p in pages:
                if p.is_visible("#reveal-close") and try_click(p, "#reveal-close"):
                    stats["reveals"] += 1
            return stats
        acted = False
        for p in pages:
            try:
                if p.is_visible("#reveal-close"):
                    p.click("#reveal-close", timeout=2000)
                    stats["reveals"] += 1
                if p.is_visible("#challenge-btn") and p.is_enabled("#challenge-btn"):
                    p.click("#challenge-btn", timeout=2000)
                    p.click("#confirm-challenge", timeout=2000)
                    stats["challenges"] += 1
                elif p.is_visible("#bid-btn") and p.is_enabled("#bid-btn"):
                    if show_once and not stats["shows"] and p.locator("#hand button.die").count() >= 2:
                        p.click("#hand button.die >> nth=0", timeout=2000)
                        stats["shows"] += 1
                    p.click("#bid-btn", timeout=2000)
                else:
                    continue
            except PlaywrightTimeout:
                # The table changed under the click (a new state re-drew the buttons); look again.
                stats["retries"] += 1
                if stats["retries"] == 1:
                    shot(p, "retry")
                continue
            stats["moves"] += 1
            acted = True
        if not acted:
            pages[0].wait_for_timeout(100)
    raise AssertionError(f"the game did not end within {limit_s} s ({stats})")


def assert_no_horizontal_scroll(page: Any, where: str) -> None:
    """The page is no wider than the viewport (nothing to scroll sideways)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, f"{where}: the page is {width}px wide in a {inner}px viewport"


def view_shot(page: Any, name: str) -> None:
    """Save a screenshot of what the viewport shows (no scrolling) when LIARS_DICE_E2E_SHOTS names a folder."""
    folder = os.environ.get("LIARS_DICE_E2E_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(400)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))
