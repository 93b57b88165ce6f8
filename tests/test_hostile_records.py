"""Hostile game records (attack review of issue 7): every number and name of
a record is bounded, so a fault stays one short sentence."""

from __future__ import annotations

import pytest

from liars_dice.records import replay

HUGE = 10**4000  # 4,001 digits: under Python's int_max_str_digits, so json reads it


def record(**bid: int) -> dict:
    return {
        "format": "liars-dice-record/1", "rules": "classic", "players": ["ann", "bob"],
        "rounds": [{"dice": {"ann": [1, 2, 3, 4, 5], "bob": [2, 3, 4, 5, 6]},
                    "moves": [{"player": "ann", "bid": {"quantity": 3, "face": 4, **bid}}]}],
    }


@pytest.mark.parametrize("bid", [{"quantity": HUGE}, {"face": HUGE}, {"quantity": -HUGE}])
def test_a_huge_number_in_a_record_is_not_repeated(bid: dict) -> None:
    """A 4,000-digit quantity came back whole in replay's and verify's one
    sentence; now the schema bounds it first."""
    result = replay(record(**bid))
    assert not result.ok
    message = result.error.message
    assert len(message) < 200, message



@pytest.mark.parametrize("name", ["ann\x1b]0;pwned\x07", "\u202eann", "a\u200bnn", "ann\n"])
def test_a_player_name_that_would_drive_a_terminal_is_refused(name: str) -> None:
    """A record's (or a bot request's) player names are printed by replay
    --text and play: an ESC sequence rewrote the terminal's title."""
    rec = record()
    rec["players"] = [name, "bob"]
    rec["rounds"][0]["dice"] = {name: [1, 2, 3, 4, 5], "bob": [2, 3, 4, 5, 6]}
    rec["rounds"][0]["moves"][0]["player"] = name
    result = replay(rec)
    assert not result.ok and "printable" in result.error.message


def test_a_record_without_rules_says_what_is_missing() -> None:
    """A shared scenario file ({"record", "expected"}) given to replay answered
    "malformed at 'rules': rules is a preset name or ...": now it names the
    missing field (README walk-through, attack review)."""
    result = replay({"record": record(), "expected": {}})
    assert not result.ok and "scenario file" in result.error.message, result.error.message
    assert 'the object under "record"' in result.error.message  # attack2: say where the record is
    rec = record()
    del rec["rules"]
    result = replay(rec)
    assert not result.ok and "has no 'rules'" in result.error.message, result.error.message


def test_sentences_count_rounds_and_moves_as_the_text_does(cli) -> None:
    """attack2: ``replay --text`` read "... at round 1: Round 0 is malformed": the
    sentence counted rounds from 0, the line around it from 1. Every sentence now
    counts from 1 and gives the record's index (the error object's stay 0-based)."""
    import json
    import subprocess

    rec = record()
    rec["rounds"][0]["moves"].append({"player": "bob", "challenge": True})
    rec["rounds"].append({"dice": {"ann": [1, 2, 3, 4, 5], "bob": [2, 3, 4, 5]}, "moves": [{"player": "ann", "bid": "x"}]})
    result = replay(rec)
    assert (result.error.round, result.error.move) == (1, 0)
    assert result.error.message.startswith("Move 1 of round 2 (rounds[1].moves[0]) is malformed"), result.error.message
    rec["rounds"][1] = {"dice": {"ann": ["x"]}}
    result = replay(rec)
    assert result.error.message.startswith("Round 2 (rounds[1]) is malformed"), result.error.message
    proc = subprocess.run([cli, "replay", "--text", "-"], input=json.dumps(rec), capture_output=True, text=True, timeout=60)
    assert "at round 2: Round 2 (rounds[1]) is malformed" in proc.stdout, proc.stdout


@pytest.mark.parametrize("command", [["replay"], ["replay", "--text"], ["verify"]])
def test_every_command_that_reads_a_record_bounds_its_size(cli, tmp_path, command: list[str]) -> None:
    """attack2: ``replay`` read a 100 MB file whole (330 MB of memory) where ``verify``
    stopped at 32 MB; both now read through ``records.read_record_bytes``. A sparse
    file past the bound costs no disk."""
    import json
    import subprocess

    from liars_dice.records import MAX_RECORD_BYTES

    path = tmp_path / "huge.json"
    with path.open("wb") as f:
        f.write(b'{"rules": "classic", "pad": "')
        f.truncate(MAX_RECORD_BYTES + 10)
    proc = subprocess.run([cli, *command, str(path)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc
    said = proc.stdout + proc.stderr
    assert "over 32 MB" in said and "Traceback" not in said, said
    if command == ["replay"]:
        assert json.loads(proc.stdout)["error"]["message"].startswith("The record is over 32 MB")


def test_reading_a_small_record_allocates_what_it_holds(tmp_path) -> None:
    """A 2-byte record took 32 MiB of memory while read (``read(limit + 1)``
    allocates the whole bound); chunked reading allocates what the file holds,
    and a file past the bound is still cut one byte past it."""
    import io
    import tracemalloc

    from liars_dice.records.reading import MAX_RECORD_BYTES, read_bounded, read_record_bytes

    small = tmp_path / "small.json"
    small.write_bytes(b"{}")
    tracemalloc.start()
    try:
        assert read_record_bytes(str(small)) == b"{}"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak
    assert len(read_bounded(io.BytesIO(b"x" * 5000), 3000)) == 3001
    assert read_bounded(io.BytesIO(b"x" * 3000), 3000) == b"x" * 3000
    assert MAX_RECORD_BYTES == 32 * 1024 * 1024


FILE_COMMANDS = [
    ["replay"], ["replay", "--text"], ["verify"], ["model", "show"],
    ["model", "fit", "--player", "ann", "-o", "{out}"], ["rules", "show"],
]


@pytest.mark.parametrize("kind", ["fifo", "device", "directory", "symlink to a fifo"])
@pytest.mark.parametrize("command", FILE_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_that_reads_a_file_refuses_a_pipe_or_device_at_once(cli, tmp_path, command, kind) -> None:
    """attack7: ``replay``, ``verify``, ``model fit`` and ``model show`` given a
    fifo nobody writes to waited for ever (killed by a 10 s timeout), and
    ``/dev/zero`` was read to the 32 MB bound first; ``rules show`` called a
    fifo or a directory "no rule set called 'fifo'". Each now refuses anything
    but a regular file at once, in one sentence naming the path, and writes
    nothing."""
    import os
    import subprocess

    if kind == "fifo":
        path = str(tmp_path / "game.json")
        os.mkfifo(path)
    elif kind == "symlink to a fifo":
        os.mkfifo(tmp_path / "real")
        path = str(tmp_path / "game.json")
        os.symlink(tmp_path / "real", path)
    elif kind == "device":
        path = "/dev/zero"
    else:
        path = str(tmp_path / "games")
        os.mkdir(path)
    out = tmp_path / "out.model.json"
    argv = [cli, *(a.format(out=out) for a in command), path]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    said = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 2, proc
    assert "Traceback" not in said and os.path.basename(path) in said, said
    assert ("regular file" in said) or ("Is a directory" in said), said
    assert said.count("\n") == 0 or command == ["replay"], said  # one sentence (replay: its error object)
    assert not out.exists()


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_model_fit_refuses_an_output_that_is_not_a_file_before_reading(cli, tmp_path, kind) -> None:
    """attack7: ``model fit ... -o FIFO`` fitted, then waited for ever for a
    reader; a folder or device is refused as well, in one sentence, before any
    record is read."""
    import os
    import subprocess

    if kind == "fifo":
        out = str(tmp_path / "ann.model.json")
        os.mkfifo(out)
    elif kind == "directory":
        out = str(tmp_path)
    else:
        out = "/dev/full"
    proc = subprocess.run([cli, "model", "fit", str(tmp_path / "missing.json"), "--player", "ann", "-o", out],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    said = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 2 and said.startswith(f"-o {out} is ") and "not a file" in said, said
    assert "\n" not in said and "missing.json" not in said, said


def test_open_regular_refuses_a_fifo_without_waiting_for_a_writer(tmp_path) -> None:
    """The check is made on the opened file (``fstat``), opened without
    blocking: no writer is needed, and a regular file reads as before."""
    import os

    from liars_dice.records.reading import open_regular

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError) as exc:
        open_regular(str(tmp_path / "fifo"))
    assert exc.value.strerror.startswith("Not a regular file")
    (tmp_path / "ok.json").write_bytes(b"{}")
    with open_regular(str(tmp_path / "ok.json")) as f:
        assert f.read() == b"{}"
