"""Hostile input to the real commands: every bad entry gets one clear sentence,
no traceback, and nothing is lost (found by a new-user pass over the README).

Each test names the input that used to break, and what it did.
"""

from __future__ import annotations

import json
import subprocess


CLASSIC_REQUEST = {
    "rules": "classic", "players": ["ann", "bob"], "seat": "bob",
    "dice": {"ann": 5, "bob": 5}, "hand": [1, 3, 3, 4, 6],
}

# JSON that the standard library cannot read without an exception other than
# JSONDecodeError: nesting past the recursion limit, an integer of more digits
# than Python converts.
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = '{"rules": "classic", "players": ["a", "b"], "dice": {"a": ' + "9" * 5000 + ', "b": 5}}'


def _run(cli: str, *args: str, stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, timeout=timeout)


def _no_traceback(proc: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")[-2000:]


# -- liars-dice bot ------------------------------------------------------------


def test_bot_keeps_serving_after_deep_nesting_and_long_numbers(cli) -> None:
    """`[[[[...]]]]` (100,000 deep) and a 5,000-digit integer used to crash the
    bot server with RecursionError / ValueError; each now gets an error reply,
    and the next request is answered."""
    good = json.dumps(CLASSIC_REQUEST)
    lines = "\n".join([DEEP, LONG_INT, good]) + "\n"
    proc = _run(cli, "bot", "random", "--rules", "classic", "--seed", "1", stdin=lines.encode())
    _no_traceback(proc)
    assert proc.returncode == 0
    replies = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert len(replies) == 3
    assert "too deeply" in replies[0]["error"]
    assert "too long" in replies[1]["error"]
    assert "bid" in replies[2] or "challenge" in replies[2]
