"""Run a ``{record, expected}`` case through the real ``liars-dice replay``
command and compare, as ``shared/scenarios/README.md`` says: every field of
``expected`` must match, except ``error.message``, which must be one clear
sentence naming the rule broken."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _find_shared() -> Path:
    """The spec folder ``shared/``: ``$LIARS_DICE_SHARED_DIR``, else the nearest
    ``shared/`` beside the checkout or beside any folder above it (a git
    worktree lives deeper than the main checkout), else ``../shared``."""
    env = os.environ.get("LIARS_DICE_SHARED_DIR")
    if env:
        return Path(env)
    for parent in ROOT.parents:
        if (parent / "shared" / "scenarios").is_dir():
            return parent / "shared"
    return ROOT.parent / "shared"


SHARED = _find_shared()
SCENARIOS = SHARED / "scenarios"


def cli_path() -> str:
    """The installed ``liars-dice`` console script (next to this Python)."""
    exe = Path(sys.executable).parent / "liars-dice"
    if exe.exists():
        return str(exe)
    found = shutil.which("liars-dice")
    if found is None:  # pragma: no cover
        pytest.fail("The liars-dice command is not installed; run `make test`.")
    return found


def run_replay(cli: str, record: Any, raw: str | None = None) -> tuple[int, dict[str, Any], str]:
    """Feed ``record`` (or the raw text ``raw``) to ``liars-dice replay -``.

    :returns: (exit status, the printed result JSON, stderr).
    """
    text = raw if raw is not None else json.dumps(record)
    proc = subprocess.run([cli, "replay", "-"], input=text, capture_output=True, text=True, timeout=60)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def assert_one_clear_sentence(message: str) -> None:
    """One sentence a player would understand (RECORD-FORMAT.md "Errors")."""
    assert isinstance(message, str) and len(message) > 20, message
    assert not message[0].isspace(), message
    assert message.endswith("."), message
    assert message.count(". ") == 0 and "\n" not in message, message
    assert "Traceback" not in message and "ValidationError" not in message, message


def check_case(cli: str, case: dict[str, Any]) -> dict[str, Any]:
    """Replay ``case["record"]`` and check ``case["expected"]``. A record given
    as a JSON string is sent as that raw text (for malformed-JSON cases).

    ``expected.error.message``, when given, is a fragment the message must
    contain (case-insensitive); the text is otherwise free.
    :returns: the printed result.
    """
    expected = case["expected"]
    record = case["record"]
    status, got, stderr = run_replay(cli, record, record if isinstance(record, str) else None)
    assert status == (2 if "error" in expected else 0), (status, got, stderr)
    for key, value in expected.items():
        if key == "error":
            assert "error" in got, got
            assert got["error"]["round"] == value["round"], got["error"]
            assert got["error"]["move"] == value["move"], got["error"]
            assert_one_clear_sentence(got["error"]["message"])
            if "message" in value:
                assert value["message"].lower() in got["error"]["message"].lower(), got["error"]["message"]
        else:
            assert got[key] == value, (key, got[key], value)
    return got
