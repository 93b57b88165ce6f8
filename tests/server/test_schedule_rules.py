"""The fault-schedule harness's own rules (``tests/server/schedules.py``),
without a cluster: a seed makes one schedule, the page backs off as api.js
does, and the seat invariant tells a seat lost with a socket open from one
lost after a whole grace without one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .schedules import FAMILIES, FAULTS, GRACE, FINAL_CLOSE_CODES, Page, check, make_schedule, reconnect_delay

API_JS = Path(__file__).resolve().parents[2] / "src" / "liars_dice" / "server" / "static" / "js" / "api.js"


def test_a_seed_makes_one_schedule_and_the_seeds_cover_every_family_and_fault() -> None:
    assert make_schedule(17) == make_schedule(17)
    assert make_schedule(17) != make_schedule(18)
    schedules = [make_schedule(seed) for seed in range(1, 201)]
    assert {s.family for s in schedules} == set(FAMILIES)
    assert {f.kind for s in schedules for f in s.faults} == set(FAULTS)
    assert all(s.family == FAMILIES[s.seed % len(FAMILIES)] for s in schedules)


def test_the_page_backs_off_as_api_js_does() -> None:
    text = API_JS.read_text()
    final = re.search(r"FINAL_CLOSE_CODES = new Set\(\[([^\]]*)\]\)", text)
    assert final is not None and {int(x) for x in final.group(1).split(",")} == FINAL_CLOSE_CODES
    assert "[10000, 60000] : [500, 5000]" in text and "(0.5 + random() / 2)" in text
    assert reconnect_delay(1006, 0, 0.0) == 0.25 and reconnect_delay(1006, 0, 1.0) == 0.5
    assert reconnect_delay(1011, 10, 1.0) == 5.0  # capped
    assert reconnect_delay(4429, 0, 0.0) == 5.0 and reconnect_delay(4429, 9, 1.0) == 60.0
    assert all(reconnect_delay(code, 0, 0.5) is None for code in FINAL_CLOSE_CODES)


def _page(index: int, name: str, opened: list[list[Any]]) -> Page:
    page = Page.__new__(Page)  # no socket: only what the invariants read
    page.index, page.name, page.opened, page.seen, page.acked = index, name, opened, [], {}
    page.ws, page.state, page.stopped, page.worker = None, None, False, None
    return page


def _events(loss_at: float) -> list[tuple[int, str, dict[str, Any], float]]:
    return [(1, "created", {}, 0.0), (2, "joined", {"seat": 0}, 0.0), (3, "joined", {"seat": 1}, 0.0),
            (4, "seat_freed", {"seat": 1}, loss_at)]


def test_a_seat_lost_with_a_socket_open_is_a_violation_and_one_lost_after_a_grace_away_is_not() -> None:
    def lost(opened: list[list[Any]], paused: dict[str, list[tuple[float, float]]]) -> list[str]:
        pages = [_page(0, "a", [[0.1, None, "w0"]]), _page(1, "b", opened)]
        # events that do not rebuild (no payloads): only the seat sentences are looked at here
        return [v for v in check(make_schedule(1), "open", _events(10.0), pages, paused, 0.0, started=False)
                if "lost its seat" in v]

    # fault 1: the first socket on the replica (0.2-1.0), the page on the owner from 1.1 on
    assert len(lost([[0.2, 1.0, "w1"], [1.1, None, "w0"]], {})) == 1
    # away from 2.0 to 2.0 + GRACE + 1: the seat may go
    assert lost([[0.2, 2.0, "w0"], [3.0 + GRACE, None, "w0"]], {}) == []
    # open all along, but on a worker paused past the grace: that worker could not say so
    assert lost([[0.2, None, "w1"]], {"w1": [(5.0, 5.0 + GRACE + 1)]}) == []
    assert len(lost([[0.2, None, "w1"]], {"w1": [(5.0, 5.0 + GRACE / 2)]})) == 1


def test_the_longest_time_without_a_socket() -> None:
    page = _page(0, "a", [[0.0, 5.0, "w0"], [7.0, None, "w1"]])
    assert page.longest_gap(0.0, 10.0, {}) == 2.0
    assert page.longest_gap(0.0, 10.0, {"w0": [(2.0, 6.0)]}) == 5.0
    assert page.longest_gap(-3.0, 10.0, {}) == 3.0  # before the first socket


def test_a_move_acknowledged_twice_is_one_move_and_a_move_acknowledged_but_not_stored_is_a_violation() -> None:
    # a page whose first reply was lost with its socket sends the same move again; the
    # stored truth acknowledges it again (runtime/cluster.py, _stored_truth): one move
    bid = {"type": "bid", "quantity": 1, "face": 1}
    events = [*_events(99.0)[:3], (4, "move", {"seat": 0, "bid": {"quantity": 1, "face": 1}, "challenge": False,
                                                "by_bot": False}, 1.0)]

    def unstored(acked: dict[int, tuple[int, dict[str, Any]]]) -> list[str]:
        page = _page(0, "a", [[0.1, None, "w0"]])
        page.acked = acked
        return [v for v in check(make_schedule(1), "open", events, [page, _page(1, "b", [[0.1, None, "w0"]])], {}, 0.0,
                                 started=False) if "acknowledged" in v]

    assert unstored({100: (0, bid), 101: (0, bid)}) == []
    assert len(unstored({100: (0, bid), 101: (0, {**bid, "face": 2})})) == 1
