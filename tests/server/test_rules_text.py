"""A table from a rules file's text (issue 9 "Rule sets from a file", the browser's
table form): the server reads TOML or JSON; a bad file is one sentence naming the
option and its allowed values; the text is bounded."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from helpers import create
from liars_dice.server.core.messages import RULES_TEXT_MAX


def test_a_table_from_toml_and_from_json(client: TestClient) -> None:
    t = create(client, rules_text='preset = "perudo"\nname = "house"\ndice_per_player = 3\n')
    rules = client.get(f"/api/tables/{t['code']}").json()["rules"]
    assert rules["name"] == "house" and rules["dice_per_player"] == 3 and rules["calza"] is True
    t = create(client, rules_text='{"preset": "classic", "calza": true}')
    assert client.get(f"/api/tables/{t['code']}").json()["rules"]["calza"] is True


@pytest.mark.parametrize(
    "text, words",
    [
        ('preset = "perudo"\ncalzza = true\n', ["'calzza'", "calza"]),
        ('{"preset": "perudo", "palifico": "often"}', ["palifico", "true or false"]),
        ('preset = "wild-stars"\npalifico = true\n', ["palifico", "all_but_bidder"]),
        ("not: a [rules file", ["neither TOML nor JSON"]),
        # attack2: a TOML integer past Python's 4,300-digit limit answered 500 (tomllib's ValueError)
        ("dice_per_player = " + "9" * 5000 + "\n", ["number too long"]),
    ],
)
def test_a_bad_rules_text_is_one_sentence(client: TestClient, text: str, words: list[str]) -> None:
    r = client.post("/api/tables", json={"nickname": "ann", "seats": 3, "rules_text": text})
    assert r.status_code in (400, 422), r.text
    message = r.json()["error"]["message"]
    assert message.endswith(".") and "\n" not in message, message
    for w in words:
        assert w in message, (w, message)


def test_rules_text_is_bounded(client: TestClient) -> None:
    r = client.post("/api/tables", json={"nickname": "ann", "seats": 3, "rules_text": "#" * (RULES_TEXT_MAX + 1)})
    assert r.status_code == 400 and "rules_text" in r.json()["error"]["message"], r.text


def test_the_rules_in_words_are_the_engines(client: TestClient) -> None:
    """Issue 8: the browser words no rule; the create form asks the server for the
    engine's summary of a preset with options, and a table carries its own."""
    from liars_dice.engine import Rules
    from liars_dice.engine.summary import CHOICE_WORDS, OPTION_LABELS, rules_summary_json

    r = client.post("/api/rules/summary", json={"preset": "perudo", "options": {"calza": False, "dice_per_player": 3}})
    assert r.status_code == 200, r.text
    assert r.json()["summary"] == rules_summary_json(Rules.preset("perudo").with_options(calza=False, dice_per_player=3))
    config = client.get("/api/config").json()
    assert config["option_labels"] == OPTION_LABELS and config["choice_words"] == CHOICE_WORDS
    t = create(client, preset="wild-stars")
    served = client.get(f"/api/tables/{t['code']}").json()["rules_summary"]
    assert served == rules_summary_json(Rules.preset("wild-stars"))


@pytest.mark.parametrize(
    "body, words",
    [
        ({"preset": "perudo", "options": {"palifico": "often"}}, ["palifico"]),
        ({"preset": "nope"}, ["'nope'", "classic"]),
        ({"preset": "classic", "options": {"dice_per_player": 10_000}}, ["at most 100 dice"]),  # the engine's bound (issue 17 fault 5)
        ({"preset": "classic", "extra": 1}, ["extra"]),
    ],
)
def test_a_bad_rules_summary_request_is_one_sentence(client: TestClient, body: dict, words: list[str]) -> None:
    r = client.post("/api/rules/summary", json=body)
    assert r.status_code in (400, 422), r.text
    message = r.json()["error"]["message"]
    assert message.endswith(".") and "\n" not in message, message
    for w in words:
        assert w in message, (w, message)


def test_rules_summaries_are_rate_limited(db_url: str) -> None:
    """Every input has a rate: the form's summary requests count against lookup_rate."""
    from liars_dice.server import create_app
    from liars_dice.server.core.config import Settings

    with TestClient(create_app(Settings(db_url=db_url, lookup_rate="3/minute"))) as c:
        codes = [c.post("/api/rules/summary", json={"preset": "classic"}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429], codes


@pytest.mark.parametrize(
    "options, words",
    [
        ({"name": "a" + "\u0301" * 30}, ["combining marks"]),
        ({"name": "x\u200b"}, ["invisible"]),
        ({"name": "x" * 60}, ["at most"]),
    ],
)
def test_the_summary_refuses_what_the_table_refuses(client: TestClient, options: dict, words: list[str]) -> None:
    """attack3: the create form's summary answered 200 for options that ``POST
    /api/tables`` refuses (a zalgo or invisible rule set name): the form showed
    rules that no table could have. Both now clean rule options by the same text rules."""
    summary = client.post("/api/rules/summary", json={"preset": "classic", "options": options})
    table = client.post("/api/tables", json={"nickname": "ann", "seats": 3, "preset": "classic", "options": options})
    assert table.status_code == 400, table.text
    assert summary.status_code == 400, summary.text
    assert summary.json()["error"]["message"] == table.json()["error"]["message"]
    for w in words:
        assert w in summary.json()["error"]["message"]


def test_the_lobby_is_rate_limited(db_url: str) -> None:
    """attack6: GET /api/tables had no rate (200 open tables answered 430 KB,
    8.5 ms each, 122 times a second to one client); it counts against lookup_rate."""
    from liars_dice.server import create_app
    from liars_dice.server.core.config import Settings

    with TestClient(create_app(Settings(db_url=db_url, lookup_rate="3/minute"))) as c:
        codes = [c.get("/api/tables").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429], codes


def test_a_rules_file_that_calls_itself_a_preset_is_listed_and_counted_as_custom(client: TestClient) -> None:
    # Issue 16 fault 6: "A 3-faced, 1-die, single-round rule set named `classic` is listed as
    # `classic` in the lobby, and its games count as `classic` in players' histories and in
    # the `bots_learn` filter" (all three read the table's `preset`).
    t = create(client, rules_text='{"preset": "classic", "dice_per_player": 1}')
    assert t["table"]["preset"] == "custom: classic" and t["table"]["rules"]["name"] == "classic"
    assert [e["preset"] for e in client.get("/api/tables").json()["tables"]] == ["custom: classic"]
    games = client.post("/api/my-games", json={"tokens": [t["token"]]}).json()["games"]
    assert [g["rules"] for g in games] == ["custom: classic"]
    # Its own name, marked; a file that is a preset exactly is that preset.
    assert create(client, rules_text='preset = "perudo"\nname = "house"\n')["table"]["preset"] == "custom: house"
    assert create(client, rules_text='preset = "perudo"\n')["table"]["preset"] == "perudo"


def test_a_pasted_rules_file_is_previewed_in_the_engines_words(client: TestClient) -> None:
    """Issue 17, "Smaller frictions": the create form's summary described the selected
    preset until the table was made. ``POST /api/rules/summary`` with ``rules_text``
    gives the file's rules in words, and refuses a bad file with the sentence the
    table would give (the preview never promises what the table refuses)."""
    from liars_dice.engine import Rules
    from liars_dice.engine.summary import rules_summary_json

    text = 'preset = "perudo"\ncalza = false\ndice_per_player = 3\n'
    r = client.post("/api/rules/summary", json={"preset": "classic", "rules_text": text})
    assert r.status_code == 200, r.text
    assert r.json()["summary"] == rules_summary_json(Rules.preset("perudo").with_options(calza=False, dice_per_player=3))
    for bad in ('preset = "perudo"\ncalzza = true\n', "dice_per_player = 100000\n"):
        preview = client.post("/api/rules/summary", json={"rules_text": bad})
        made = client.post("/api/tables", json={"nickname": "ann", "seats": 3, "rules_text": bad})
        assert preview.status_code == made.status_code == 400, (preview.text, made.text)
        assert preview.json()["error"]["message"] == made.json()["error"]["message"]


def test_an_uploaded_rules_file_is_read_once(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16 ("The server in three rings"): the edge's gate reads and checks an
    upload once; the core takes the parsed rule set from the request, for a new
    table and for the form's preview alike (it was parsed twice)."""
    import liars_dice.server.core.rules_check as rules_check

    reads: list[str] = []
    real = rules_check.parse_rules_text

    def counting(text: str, where: str):  # type: ignore[no-untyped-def]
        reads.append(text)
        return real(text, where)

    import liars_dice.server.edge.guard as gate

    monkeypatch.setattr(rules_check, "parse_rules_text", counting)
    monkeypatch.setattr(gate, "parse_rules_text", counting, raising=False)  # where the gate read it before
    text = 'preset = "perudo"\nname = "once"\ndice_per_player = 3\n'
    t = create(client, rules_text=text)
    assert reads == [text], "one read for a new table"
    assert client.get(f"/api/tables/{t['code']}").json()["rules"]["name"] == "once"
    reads.clear()
    r = client.post("/api/rules/summary", json={"rules_text": text})
    assert r.status_code == 200 and reads == [text], "one read for the preview"
    bad = client.post("/api/tables", json={"nickname": "ann", "seats": 3,
                                           "rules_text": 'preset = "classic"\nname = "bad\\u202e"\n'})
    assert bad.status_code == 400 and bad.json()["error"]["message"].endswith("."), bad.text
