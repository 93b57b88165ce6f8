"""End-to-end: play again, and the reveal that holds the next turn (issue 17, "Game night").

Two people (two browser contexts) and a bot play a game to its end, the host
clicks "Play again", the same table plays a second game with the same seats,
and the page shows the running score. Each game has its own record, which
passes ``liars-dice verify``. The server shows each reveal for
``--reveal-seconds``: a person to open after a challenge sees "your turn
begins when the reveal is over" and gets the picker only after it.
"""

from __future__ import annotations

import re
import subprocess
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from e2e.conftest import cli_path, start_server
from e2e_ui import add_bots_and_start, create_table, join_by_code, shot, try_click

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

REVEAL = 1.5


def play_to_the_end(pages: list[Any], seen: dict[str, int], limit_s: float = 150) -> None:
    """Every page plays its seat until the game is over: close the reveal,
    challenge when it may, else bid the picker's default. Counts in ``seen``
    the turns that waited for a reveal (``#reveal-wait``) and then got the picker."""
    waiting: set[int] = set()
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if all(p.is_visible("#game-over") for p in pages):
            for p in pages:  # the final reveal may still be open on top of the banner
                if p.is_visible("#reveal-close"):
                    try_click(p, "#reveal-close")
            return
        for i, p in enumerate(pages):
            try:
                if p.is_visible("#reveal-close"):
                    p.click("#reveal-close", timeout=2000)
                if p.is_visible("#reveal-wait"):
                    # (read at once: the picker may replace the line between two reads)
                    both = p.evaluate("!!document.querySelector('#reveal-wait') && !!document.querySelector('#bid-btn, #challenge-btn')")
                    assert not both, "the picker is offered while the reveal still holds the turn"
                    waiting.add(i)
                    continue
                if p.is_visible("#challenge-btn") and p.is_enabled("#challenge-btn"):
                    if i in waiting:
                        seen["waited"] += 1
                        waiting.discard(i)
                    p.click("#challenge-btn", timeout=2000)
                    p.click("#confirm-challenge", timeout=2000)
                elif p.is_visible("#bid-btn") and p.is_enabled("#bid-btn"):
                    if i in waiting:
                        seen["waited"] += 1
                        waiting.discard(i)
                    p.click("#bid-btn", timeout=2000)
            except PlaywrightTimeout:
                continue  # the table changed under the click: look again
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"the game did not end within {limit_s} s")


def score_of(page: Any) -> dict[str, int]:
    """The score card's wins by name."""
    out = {}
    for row in page.locator("#score-list li").all():
        wins = re.match(r"(\d+) wins?", row.locator(".score-wins").inner_text().strip())
        assert wins, row.inner_text()
        out[row.locator(".score-name").inner_text().strip()] = int(wins.group(1))
    return out


def test_two_people_and_a_bot_play_again_with_a_running_score(new_page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    srv = start_server(tmp_path / "again.db", bot_delay=0.05, reveal_seconds=REVEAL)
    try:
        assert httpx.get(srv.url + "/api/config", timeout=10).json()["reveal_seconds"] == REVEAL
        ann, bob = new_page(), new_page(phone=True)
        code = create_table(ann, srv.url, "ann", preset="classic", seats=3, dice=2)
        join_by_code(bob, srv.url, "bob", code)
        ann.wait_for_selector('.seat[data-name="bob"]')
        add_bots_and_start(ann)
        bob.wait_for_selector("#turn")
        seen = {"waited": 0}
        play_to_the_end([ann, bob], seen)
        first = httpx.get(f"{srv.url}/api/tables/{code}", timeout=10).json()
        assert first["status"] == "finished" and first["game"] == 1
        for p in (ann, bob):
            p.wait_for_selector("#score-list")
            assert "Score after 1 game" in p.inner_text("#score")
            assert score_of(p) == {e["name"]: e["wins"] for e in first["score"]}
            assert sum(score_of(p).values()) == 1
        shot(ann, "play-again-over-desktop")
        # Only the host is offered the next game; the same people and bot sit down again.
        assert bob.locator("#play-again").count() == 0
        players = [s["name"] for s in first["seats"]]
        ann.click("#play-again")
        for p in (ann, bob):
            p.wait_for_selector("#game-over", state="detached")
            p.wait_for_selector("#turn")
            p.wait_for_selector("#score:has-text('game 2 in play')")
        second_table = httpx.get(f"{srv.url}/api/tables/{code}", timeout=10).json()
        assert second_table["game"] == 2 and [s["name"] for s in second_table["seats"]] == players
        play_to_the_end([ann, bob], seen)
        final = httpx.get(f"{srv.url}/api/tables/{code}", timeout=10).json()
        for p in (ann, bob):
            p.wait_for_selector("#score:has-text('Score after 2 games')")
            assert score_of(p) == {e["name"]: e["wins"] for e in final["score"]}
            assert sum(score_of(p).values()) == 2
        shot(bob, "play-again-score-phone")
        # A person opened after a reveal: the page held the picker until the reveal was over.
        assert seen["waited"] >= 1, seen
        # Each game has its own record, and `liars-dice verify` passes on each.
        assert ann.get_attribute("#download-record", "href").endswith("?game=2")
        for n in (1, 2):
            rec = httpx.get(f"{srv.url}/api/tables/{code}/record?game={n}", timeout=10)
            assert rec.status_code == 200
            out = subprocess.run([cli_path(), "verify", "-"], input=rec.text, capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=10)
