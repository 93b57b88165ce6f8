"""Fair dice in the browser (issue 7, "Fair dice anyone can check"): the table shows
the round's commitment (short, whole on click) before the first bid, the reveal
shows the seed, whose SHA-256 is that commitment, and the downloaded record
passes ``liars-dice verify``.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from e2e.conftest import cli_path
from e2e_ui import add_bots_and_start, assert_no_horizontal_scroll, call, create_table, play_until_over, shot, try_click

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def test_commitment_before_the_first_bid_and_seed_at_the_reveal(server, new_page, tmp_path: Path) -> None:
    page = new_page(phone=True)
    create_table(page, server.url, "fay", preset="classic", seats=2, dice=2)
    add_bots_and_start(page)
    # The table re-draws at every message (a bot's bid, presence): locators, not element handles.
    chip = page.locator("#commitment")
    chip.wait_for()
    full = chip.get_attribute("title")
    assert full is not None and re.fullmatch(r"[0-9a-f]{64}", full)
    assert chip.inner_text().strip() == full[:12] + "…"
    chip.click()  # the whole hash on click (kept through re-draws), still inside a phone's width
    page.wait_for_function("(full) => document.querySelector('#commitment').textContent === full", arg=full)
    assert_no_horizontal_scroll(page, "the whole commitment")
    page.click("#fair-commitment summary")
    assert "liars-dice verify" in page.inner_text("#fair-commitment")
    shot(page, "fair-commitment-phone")

    # Challenge at once (or after the bot's opening): the reveal publishes the round's seed.
    commitments = {full}
    for _ in range(300):
        if page.is_visible("#reveal-close") or page.is_visible("#game-over"):
            break
        if page.is_visible("#commitment"):
            commitments.add(page.get_attribute("#commitment", "title") or "")
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            call(page)
        elif page.is_visible("#bid-btn") and page.is_enabled("#bid-btn"):
            try_click(page, "#bid-btn")
        page.wait_for_timeout(100)
    seed_chip = page.wait_for_selector(".fair-seed .seed")
    seed = seed_chip.get_attribute("title")
    assert seed is not None and re.fullmatch(r"[0-9a-f]{64}", seed)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in commitments
    assert_no_horizontal_scroll(page, "the reveal with its seed")
    shot(page, "fair-seed-phone")

    play_until_over([page])
    code = page.inner_text("#table-code").strip()
    record = server.api(f"/api/tables/{code}/record")
    assert record["rounds"][0]["commitment"] == full
    # Dice not even the server could choose (issue 17, fair dice version 2): the
    # page answered the commitment to the first deal with its own seed before
    # the start, and every round names fay's seed or fay as missing.
    assert set(record["rounds"][0]["contributions"]) == {"fay"}, record["rounds"][0]
    for rnd in record["rounds"]:
        assert set(rnd["contributions"]) | set(rnd["missing"]) == {"fay"}, rnd
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = subprocess.run([cli_path(), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "(fay)" in " ".join(out.stdout.split())
    # An edited contributed seed is refused by name.
    record["rounds"][0]["contributions"]["fay"] = "0" * 64
    path.write_text(json.dumps(record), encoding="utf-8")
    out = subprocess.run([cli_path(), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "fay's contributed seed" in out.stderr, out.stderr


def test_the_page_shows_its_own_seed_went_into_the_deal(server, new_page) -> None:
    """Issue 17: "The page can show a player that its own seed went into the deal"."""
    page = new_page()
    create_table(page, server.url, "gus", preset="classic", seats=2, dice=2)
    add_bots_and_start(page)
    line = page.locator("#my-seed")
    line.wait_for()
    page.wait_for_function("() => /Your seed: [0-9a-f]{12}…, used/.test(document.querySelector('#my-seed').textContent)")
