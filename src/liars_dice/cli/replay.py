"""``liars-dice replay FILE``: play a record through the engine, print the result JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from ..records import RecordError, replay
from .app import app


@app.command("replay")
def replay_command(
    file: str = typer.Argument(..., help="A game record (RECORD-FORMAT.md); '-' reads standard input."),
    indent: int = typer.Option(1, help="JSON indentation of the result."),
) -> None:
    """Replay a game record and print its result as JSON.

    Exits 0 on success, 2 on the first fault with the error object
    ({"error": {"round", "move", "message"}, ...}).
    """
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as e:
        out = {"error": RecordError(f"Cannot read {file}: {e.strerror}.").to_json(), "rounds": [], "dice": {}}
        print(json.dumps(out, indent=indent))
        raise typer.Exit(2)
    result = replay(text)
    print(json.dumps(result.result(), indent=indent, ensure_ascii=False))
    if not result.ok:
        raise typer.Exit(2)
