"""A rules file is valid or not for every command (issue 17 fault 5, issue 19
"Table size"): the bounds (at most ``MAX_DICE_PER_PLAYER`` dice each, at most
``MAX_PLAYERS`` players) live in the one ``Rules`` validation, so `rules show`,
`play`, `replay` (a record's rules), the server's rules upload and the
integrations refuse the same file with the same sentence.

Before: `rules show` printed "100000 dice each" and exited 0 while `play` said
"A player may start with at most 100 dice"; `max_players = 100` read "2 to 100
players" and the server quietly clamped seats to 2-6.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from liars_dice.engine import MAX_DICE_PER_PLAYER, MAX_PLAYERS, Rules, RulesError
from liars_dice.records import parse_rules_text

#: (a bad rules file, the sentence every interface gives).
BAD = [
    (
        'preset = "classic"\ndice_per_player = 100000\n',
        "A player may start with at most 100 dice, so dice_per_player cannot be 100000.",
    ),
    (
        'preset = "perudo"\nmax_players = 100\n',
        "A table seats at most 15 players, so max_players cannot be 100.",
    ),
]


def _options(text: str) -> dict[str, object]:
    import tomllib

    return tomllib.loads(text)


def run(cli: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_the_bounds_are_documented_constants() -> None:
    assert (MAX_DICE_PER_PLAYER, MAX_PLAYERS) == (100, 15)
    Rules.preset("classic").with_options(dice_per_player=100, max_players=15)  # the bounds themselves are valid


@pytest.mark.parametrize("text, sentence", BAD)
def test_the_engine_refuses_in_one_sentence(text: str, sentence: str) -> None:
    with pytest.raises(RulesError) as e:
        Rules.from_json(_options(text))
    assert e.value.message == sentence


@pytest.mark.parametrize("text, sentence", BAD)
def test_every_command_refuses_the_same_file(cli: str, tmp_path: Path, text: str, sentence: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text)
    said = f"The rules file {path}: {sentence}"
    show = run(cli, "rules", "show", str(path))
    assert (show.returncode, show.stderr.strip()) == (2, said), show.stdout
    play = run(cli, "play", "--watch", "--rules", str(path), "--seed", "1")
    assert play.returncode == 2 and " ".join(play.stdout.split()) == said, play.stdout
    record = {"rules": _options(text), "players": ["ann", "bob"], "rounds": []}
    rep = run(cli, "replay", "-", stdin=json.dumps(record))
    assert rep.returncode != 0
    assert json.loads(rep.stdout)["error"]["message"] == sentence


@pytest.mark.parametrize("text, sentence", BAD)
def test_the_server_upload_and_the_integrations_refuse_it(text: str, sentence: str, tmp_path: Path) -> None:
    with pytest.raises(RulesError) as e:
        parse_rules_text(text, "The rules file")
    assert e.value.message == f"The rules file: {sentence}"
    pytest.importorskip("fastapi")
    from starlette.testclient import TestClient

    from liars_dice.server import Settings, create_app

    with TestClient(create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite'}", bot_delay=0.0))) as client:
        r = client.post("/api/tables", json={"nickname": "ann", "seats": 3, "rules_text": text})
    assert r.status_code in (400, 422) and r.json()["error"]["message"] == f"The rules file: {sentence}", r.text
    from liars_dice.integrations.pettingzoo import raw_env

    with pytest.raises(RulesError) as e:
        raw_env(rules=_options_without_preset(text))
    assert e.value.message == sentence


def _options_without_preset(text: str) -> dict[str, object]:
    """The integrations' dict form (``Rules.from_dict``: options only)."""
    return {k: v for k, v in _options(text).items() if k != "preset"}
