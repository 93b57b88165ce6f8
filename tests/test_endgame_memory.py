"""The built endgame positions are a bounded cache (issue 16, "bounded memory";
the standards: every resource a limit). A built position holds 17-30 MiB of
bid tree; kept for good, the packaged tables took a worker that hosted strong
bots under every preset from 34 to 478 MiB, and it never came back."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from liars_dice.solver import endgame


@pytest.fixture
def empty_cache():
    endgame._POSITIONS.clear()
    endgame._USED.clear()
    yield
    endgame._POSITIONS.clear()
    endgame._USED.clear()


def _every_position() -> list[tuple[endgame.EndgameTables, tuple[int, int]]]:
    return [(t, d) for t in endgame._all_tables() for d in t.values]


def test_at_most_positions_max_are_kept_least_recently_used_out_first(empty_cache) -> None:
    every = _every_position()
    assert len(every) > endgame.POSITIONS_MAX  # the packaged tables hold more than the cap
    for t, d in every:
        assert t.position(d) is not None
        assert len(endgame._POSITIONS) <= endgame.POSITIONS_MAX
    kept = [(str(t._file), d) for t, d in every[-endgame.POSITIONS_MAX:]]
    assert list(endgame._POSITIONS) == kept
    t, d = every[-1]
    assert t.position(d) is endgame._POSITIONS[(str(t._file), d)]  # a hit: the same object, not a rebuild


def test_an_unused_position_leaves_after_the_idle_time(empty_cache, monkeypatch) -> None:
    (t1, d1), (t2, d2) = _every_position()[:2]
    t1.position(d1)
    monkeypatch.setattr(endgame, "POSITION_IDLE_SECONDS", -1.0)  # every other position is idle past it
    t2.position(d2)
    assert list(endgame._POSITIONS) == [(str(t2._file), d2)]


def test_a_position_built_again_holds_the_same_policy(empty_cache) -> None:
    t = endgame.tables_for(endgame.Rules.preset("classic"))
    assert t is not None
    d = max(t.values, key=sum)
    first = t.position(d)
    endgame._POSITIONS.clear()
    again = t.position(d)
    assert first is not None and again is not None and again is not first
    assert again.value == first.value
    for a, b in zip(first.policy, again.policy):
        assert np.array_equal(a, b)
    for a, b in zip(first.nodes, again.nodes):
        assert np.array_equal(a, b)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RSS from /proc")
def test_the_memory_of_positions_comes_back_to_the_system() -> None:
    """Every packaged position built once (the cache keeps 12), then the
    cache expires and the server's trim runs: RSS comes back near its start.
    Measured: 75 MiB at the start, 438-443 with the cache full, 382-400 after
    the positions left without a trim (glibc keeps the pages), 80 after it."""
    code = textwrap.dedent("""
        from liars_dice.solver import endgame
        from liars_dice.server.runtime.memory import trim
        def rss():
            return int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20
        tables = endgame._all_tables()
        start = rss()
        for t in tables:
            for d in t.values:
                t.position(d)
        peak = rss()
        endgame.POSITION_IDLE_SECONDS = -1.0
        t = tables[0]
        t.position(min(t.values, key=sum))  # the smallest position: every other one leaves
        trim()
        print(start, peak, rss())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    start, peak, after = (float(x) for x in out.stdout.split())
    assert peak - start > 100, out.stdout
    assert after - start < 30, out.stdout


def test_idle_positions_leave_with_no_further_lookup(empty_cache) -> None:
    """Stop 31's attacker: positions left only when another was asked for, so
    once endgames stopped a bot process kept 374-408 MiB of them for good. A
    served worker's trims (and its bot processes') now drop the idle ones."""
    from liars_dice.server.runtime import memory

    (t1, d1), (t2, d2) = _every_position()[:2]
    t1.position(d1)
    t2.position(d2)
    assert endgame.evict_idle() == 0, "none idle yet"
    now = endgame._USED[(str(t1._file), d1)]
    endgame._USED[(str(t1._file), d1)] = now - endgame.POSITION_IDLE_SECONDS - 1
    assert endgame.evict_idle() == 1 and list(endgame._POSITIONS) == [(str(t2._file), d2)]
    endgame._USED[(str(t2._file), d2)] = now - endgame.POSITION_IDLE_SECONDS - 1
    memory.trim()
    assert endgame._POSITIONS == {}, "a trim dropped the idle position"
