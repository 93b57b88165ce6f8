"""Issue 38's faults at the page, each in Chromium (each failed on the page before):

* fault 4: the lobby's Seats and Turn timer radio groups work by keyboard as the
  table's face picker does: one Tab stop each, the arrow keys move the pick;
* fault 6: the table names the move a bot made when the turn ran out, a 60 s
  turn after a reveal never reads more than 60 s, the dice in play and whether
  1s are wild stay said all round, and after a leaver's stand-in bot played
  on and the table plays again the score lists one name per seat;
* fault 7: a mis-tap on "Liar!" (or "Calza!") sends nothing: the move takes a
  second tap, on a phone, by keyboard and with a screen reader's names;
* fault 8: the page checks the dice itself (Web Crypto, fair.js), and agrees with
  ``liars-dice verify`` on real records, fair and tampered; it keeps the
  player's own seeds in localStorage, bounded, and says its seed went in.
"""

from __future__ import annotations

import copy
import re
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from e2e.conftest import cli_path, start_server
from e2e_ui import add_bots_and_start, call, create_table, join_by_code, play_until_over, try_click

from liars_dice.records import FairDiceError, verify_record

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def reveal_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A server whose reveal holds the next turn for 4 s (as ``serve`` does by default)."""
    srv = start_server(tmp_path_factory.mktemp("e2e38") / "t.db", reveal_seconds=4.0)
    yield srv
    srv.proc.terminate()
    srv.proc.wait(timeout=10)

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


_CHECK = """async (rec) => { const m = await import('/static/js/fair.js'); const got = await m.checkRecord(rec);
  return { ok: got.ok, failed: got.failed, why: got.why }; }"""


def _python(rec: dict[str, Any]) -> int | None:
    """The round ``liars-dice verify`` (its library) stops at, or ``None`` when it passes."""
    try:
        verify_record(rec)
    except FairDiceError as e:
        return e.round
    return None


def _records(tmp_path: Path) -> list[dict[str, Any]]:
    """Real records: a served game with the players' own seeds (version 2,
    tests/data/browser-game-v2.json) and a terminal game with rerolls (version 1),
    each as written and edited in each place a cheat would touch."""
    v2 = json.loads((Path(__file__).parents[1] / "data" / "browser-game-v2.json").read_text(encoding="utf-8"))
    path = tmp_path / "v1.json"
    subprocess.run([cli_path(), "play", "--watch", "--rules", "wild-stars", "--players", "3", "--seed", "5",
                    "--record", str(path)], check=True, capture_output=True, timeout=120)
    v1 = json.loads(path.read_text(encoding="utf-8"))
    out = [v2, v1]
    for rec in (v2, v1):
        last = len(rec["rounds"]) - 1
        edits = []
        e = copy.deepcopy(rec)
        hand = next(h for h in e["rounds"][last]["dice"].values() if h)
        hand[0] = hand[0] % 6 + 1
        edits.append(e)
        e = copy.deepcopy(rec)
        e["rounds"][1]["seed"] = "00" * 32
        edits.append(e)
        e = copy.deepcopy(rec)
        e["rounds"][2]["commitment"] = "ff" * 32
        edits.append(e)
        rr = [(r, m) for r, rnd in enumerate(rec["rounds"]) for m, mv in enumerate(rnd["moves"]) if "reroll" in mv]
        if rr:
            e = copy.deepcopy(rec)
            r, m = rr[-1]
            e["rounds"][r]["moves"][m]["reroll"][0] = e["rounds"][r]["moves"][m]["reroll"][0] % 6 + 1
            edits.append(e)
        if any(rnd.get("contributions") for rnd in rec["rounds"]):
            e = copy.deepcopy(rec)
            rnd = next(x for x in e["rounds"] if x.get("contributions"))
            rnd["contributions"][next(iter(rnd["contributions"]))] = "00" * 32
            edits.append(e)
        out += edits
    return out


def test_the_pages_check_of_the_dice_agrees_with_verify(server, new_page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    page.goto(server.url + "/")
    records = _records(tmp_path)
    assert any("reroll" in mv for rec in records for rnd in rec["rounds"] for mv in rnd["moves"])
    for i, rec in enumerate(records):
        js = page.evaluate(_CHECK, rec)
        assert js["failed"] == _python(rec), (i, js)
        assert js["ok"] == (js["failed"] is None) and (js["why"] is None) == js["ok"]
    assert sum(_python(rec) is None for rec in records) == 2  # the two as written pass, every edit fails


def test_the_reveal_is_checked_by_the_page_with_the_players_own_seed(server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    create_table(page, server.url, "ivo", preset="classic", seats=2, dice=2)
    add_bots_and_start(page)
    for _ in range(300):
        if page.is_visible("#reveal-close") or page.is_visible("#game-over"):
            break
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            try_click(page, "#challenge-btn")
            if page.is_visible("#confirm-challenge"):  # fault 7: a second tap confirms
                try_click(page, "#confirm-challenge")
        elif page.is_visible("#bid-btn") and page.is_enabled("#bid-btn"):
            try_click(page, "#bid-btn")
        page.wait_for_timeout(100)
    check = page.locator(".fair-check").first
    try:
        page.wait_for_function("() => /Checked by this page/.test(document.querySelector('.fair-check').textContent)")
    except Exception:
        raise AssertionError(page.evaluate("() => [...document.querySelectorAll('.fair-check, .fair-seed')].map((e) => e.textContent)"))
    said = check.inner_text()
    assert "the seed matches its commitment and gives all" in said and "Your own seed went into them." in said, said
    # the seeds stay in this browser (localStorage), with the commitments they answered
    code = page.inner_text("#table-code").strip()
    kept = page.evaluate("() => JSON.parse(localStorage.getItem('liars-dice:my-seeds'))")
    commitment = page.locator(".fair-seed code").nth(1).get_attribute("title")
    mine = next(e for e in kept if e["commitment"] == commitment)
    assert mine["code"] == code and len(mine["seed"]) == 64 and set(mine["digests"]) == {"ivo"}, mine
    play_until_over([page])
    record = server.api(f"/api/tables/{code}/record")
    first = next(rnd for rnd in record["rounds"] if rnd["commitment"] == commitment)
    assert first["contributions"]["ivo"] == mine["seed"]
    # bounded: the oldest go first
    n = page.evaluate("""async () => { const m = await import('/static/js/fair.js');
      localStorage.setItem('liars-dice:my-seeds', JSON.stringify(Array.from({ length: 700 }, (_, i) =>
        ({ code: 'OLD', commitment: String(i).padStart(64, '0'), seed: 'ab'.repeat(32), at: '' }))));
      m.contribute('NEW', 'cd'.repeat(32), () => {});
      const list = m.mySeeds(); return [list.length, list[0].commitment, list[list.length - 1].code, m.MY_SEEDS_MAX]; }""")
    assert n[0] == n[3] == 500 and n[1] == "201".zfill(64) and n[2] == "NEW", n


def _my_turn_with_a_bid_to_call(page: Any) -> None:
    for _ in range(400):
        if page.is_visible("#challenge-btn") and page.is_enabled("#challenge-btn"):
            return
        if page.is_visible("#reveal-close"):
            try_click(page, "#reveal-close")
        elif page.is_visible("#bid-btn") and page.is_enabled("#bid-btn"):
            try_click(page, "#bid-btn")
        page.wait_for_timeout(100)
    raise AssertionError("no turn with a bid to call")


def test_a_mis_tap_on_liar_sends_nothing_and_a_second_tap_confirms(server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    create_table(page, server.url, "una", preset="perudo", seats=3, dice=3)
    add_bots_and_start(page)
    _my_turn_with_a_bid_to_call(page)
    bids = page.locator("#bid-list li").count()
    liar = page.locator("#challenge-btn").bounding_box()
    assert liar is not None
    # a double tap where "Liar!" is: the first arms, the second lands on the question or Cancel
    page.mouse.dblclick(liar["x"] + liar["width"] / 2, liar["y"] + liar["height"] / 2)
    page.wait_for_timeout(500)
    assert not page.is_visible("#reveal-close") and page.locator("#bid-list li").count() == bids
    if page.is_visible("#challenge-btn"):
        page.tap("#challenge-btn")  # one tap arms
    page.wait_for_selector("#confirm-challenge")
    page.wait_for_timeout(300)
    assert not page.is_visible("#reveal-close") and page.locator("#bid-list li").count() == bids
    assert page.evaluate("() => document.activeElement.id") == "confirm-challenge"
    name = page.evaluate("() => { const b = document.activeElement; return b.textContent + ' | ' +"
                         " document.getElementById(b.getAttribute('aria-describedby')).textContent; }")
    assert name.startswith("Yes, call liar on ") and "? The dice are shown" in name, name
    for sel in ("#confirm-challenge", "#cancel-call"):  # both inside a phone's width, big enough to tap
        box = page.locator(sel).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 40, (sel, box)
    # Cancel takes it back, and the turn goes on; Escape does too
    page.click("#cancel-call")
    page.wait_for_selector("#challenge-btn")
    assert page.evaluate("() => document.activeElement.id") == "challenge-btn"
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm-challenge")
    page.keyboard.press("Escape")
    page.wait_for_selector("#challenge-btn")
    assert not page.is_visible("#reveal-close") and page.locator("#bid-list li").count() == bids
    # the keyboard confirms with a second Enter
    page.focus("#challenge-btn")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.wait_for_selector("#reveal-close")


def test_the_dice_in_play_and_the_wild_rule_stay_said_all_round(server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page(phone=True)
    create_table(page, server.url, "wes", preset="classic", seats=3, dice=2)
    add_bots_and_start(page)
    facts = page.locator("#round-facts")
    facts.wait_for()
    said = facts.inner_text()
    assert "6 dice in play." in said and re.search(r"1s are (not )?wild", said), said
    _my_turn_with_a_bid_to_call(page)  # a bid stands (perhaps in a later round, with a die fewer)
    said = facts.inner_text()
    assert page.locator("#current-bid .bid-words").count() == 1  # the round has its opening bid
    # after the opening: wild, or not this round when it opened on 1s (RULES.md classic)
    assert re.match(r"[3-6] dice in play\.", said) and re.search(r"1s are wild\.|1s are not wild this round \(it opened on 1s\)\.", said), said


def test_the_toast_names_the_move_a_bot_made_when_time_ran_out(server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    create_table(page, server.url, "tia", preset="classic", seats=2, dice=2, timer="15")
    add_bots_and_start(page)
    page.wait_for_selector(".toast:has-text('Your time ran out')", timeout=60_000)
    said = page.inner_text(".toast:has-text('Your time ran out')")
    assert "a bot played for you: it " in said and ("it bid " in said or "it called liar on " in said), said


def test_right_after_a_reveal_a_60_second_turn_reads_60_at_most(reveal_server, new_page) -> None:  # type: ignore[no-untyped-def]
    page = new_page()
    create_table(page, reveal_server.url, "rex", preset="classic", seats=2, dice=2, timer="60")
    add_bots_and_start(page)
    _my_turn_with_a_bid_to_call(page)
    call(page)
    page.wait_for_selector("#reveal-close")
    seen = []
    for _ in range(30):  # while the reveal holds the turn (4 s) and after
        text = page.evaluate("() => { const c = document.getElementById('turn-countdown'); return c ? c.textContent : null; }")
        if text:
            seen.append(int(text.rstrip("s")))
        page.wait_for_timeout(200)
    assert seen and max(seen) <= 60, seen


def test_after_a_leaver_the_score_lists_one_name_per_seat(server, new_page) -> None:  # type: ignore[no-untyped-def]
    ann, bob = new_page(), new_page(phone=True)
    code = create_table(ann, server.url, "ann", preset="classic", seats=3, dice=1)
    join_by_code(bob, server.url, "bob", code)
    ann.wait_for_selector('.seat[data-name="bob"]')
    add_bots_and_start(ann)
    bob.wait_for_selector("#leave-btn:has-text('Leave the game')")
    bob.on("dialog", lambda d: d.accept())
    bob.click("#leave-btn")
    play_until_over([ann])
    ann.click("#play-again")
    ann.wait_for_selector("#score:has-text('game 2 in play')")
    rows = ann.locator("#score-list li")
    assert rows.count() == 3, [r.inner_text() for r in rows.all()]
    assert "bob" not in [r.locator(".score-name").inner_text() for r in rows.all()]
    assert "before: bob 0 wins" in ann.inner_text("#score-list")
