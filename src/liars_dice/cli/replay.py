"""``liars-dice replay FILE``: play a record through the engine, print the result
JSON; with ``--text``, the game told round by round in the engine's words
(:func:`liars_dice.engine.narration.narrate`), as a PGN viewer shows a chess game."""

from __future__ import annotations

import json
from typing import Any

import typer

from .app import Command, app


def _fault(message: str, indent: int, text: bool = False) -> typer.Exit:
    """Print the result with its error object (RECORD-FORMAT.md) for a fault before any round:
    the same shape as :meth:`Replay.result` gives; with ``text`` (``--text``), the one sentence."""
    from ..records import RecordError

    if text:
        print(message)
        return typer.Exit(2)
    out: dict[str, Any] = {"rounds": [], "dice": {}, "to_move": None, "winner": None, "error": RecordError(message).to_json()}
    print(json.dumps(out, indent=indent, ensure_ascii=False))
    return typer.Exit(2)


def _load(raw: bytes) -> str | dict[str, Any]:
    """The record's JSON object; or its text when that is not a JSON object
    (the replay then names the fault: bad JSON with its line and column, or
    not an object).

    :raises RecordError: for bytes that are not UTF-8, JSON nested too deeply,
        or a number too long to read.
    """
    from ..records import RecordError

    try:
        text = raw.decode("utf-8-sig")  # a leading byte-order mark, as some editors write, is skipped
    except UnicodeDecodeError as e:
        raise RecordError(f"The record is not UTF-8 text: byte {raw[e.start]:#04x} at offset {e.start}.") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    except RecursionError:
        raise RecordError("The record nests its JSON too deeply to read.") from None
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise RecordError("The record holds a number too long to read.") from None
    return data if isinstance(data, dict) else text


@app.command("replay", cls=Command)
def replay_command(
    file: str = typer.Argument(..., help="A game record (RECORD-FORMAT.md); '-' reads standard input."),
    indent: int = typer.Option(1, min=0, help="JSON indentation of the result."),
    text: bool = typer.Option(
        False, "--text", "-t", help="Tell the game round by round in words instead: every bid, each reveal, the dice lost."
    ),
) -> None:
    """Replay a game record and print its result as JSON, or --text to read it.

    Exits 0 on success, 2 on the first fault with the error object
    ({"error": {"round", "move", "message"}, ...}); with --text, the game as far
    as it went, then the fault in one sentence.
    """
    from ..records import RecordError, read_record_bytes, replay

    try:
        raw = read_record_bytes(file)
    except RecordError as e:
        raise _fault(e.message, indent, text) from None
    try:
        data = _load(raw)
    except RecordError as e:
        raise _fault(e.message, indent, text) from None
    try:
        result = replay(data)
    except TypeError:
        # A rule option of the wrong type ({"faces": "six"}) reaches Rules unchecked; the records
        # layer should name it (reported to its owner). Until then: one sentence, no traceback.
        raise _fault("The record's rules hold an option of the wrong type; see RECORD-FORMAT.md.", indent, text) from None
    if text:
        _print_text(result)
    else:
        print(json.dumps(result.result(), indent=indent, ensure_ascii=False))
    if not result.ok:
        raise typer.Exit(2)


def _print_text(result: Any) -> None:
    """The narration of a replayed record, then its fault if it has one."""
    from ..engine.narration import list_words, narrate

    state = result.state
    if state is not None:
        rules = state.rules
        print(f"{rules.name} · {list_words(list(state.game.players))}")
        print()
        for line in narrate(state):
            print(line)
    if result.error is not None:
        e = result.error
        where = "".join(
            part for part in (
                f"round {e.round + 1}" if e.round is not None else "",
                f", move {e.move + 1}" if e.move is not None else "",
            )
        )
        if state is None:  # nothing was played: the sentence alone (not valid JSON, no rules, ...)
            print(e.message)
        else:
            print(f"The record stops being a legal game{' at ' + where if where else ''}: {e.message}")
