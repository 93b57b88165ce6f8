"""Client values in error sentences are bounded by kind (issue 7, "bounded echoes").

A refusal names the value it refuses, but a client chooses that value: a number
of a hundred digits, a string of kilobytes, a list of a hundred items, a key of
its own. Every kind reaches the sentence bounded (``liars_dice.engine.echo``,
``liars_dice.server.core.explain``), over HTTP and over the websocket, and the field
path reads as the protocol names fields (``show[0]``, ``id``), never pydantic's
internals (``id.int``). Each test failed on main before the fix (the sentence
echoed the whole value, or named ``id.int``); nothing is stored on a refusal.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import Player, create, is_state, join
from starlette.testclient import TestClient

from liars_dice.engine.echo import echo, path
from liars_dice.server.core.explain import SENTENCE_MAX

from hypothesis import given, settings as hsettings, strategies as st

#: No refusal in these tests needs more than this (the longest is a list of the rule options).
SHORT = 260


def post(client: TestClient, body: str) -> tuple[int, dict[str, Any]]:
    r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    return r.status_code, r.json()["error"]


def lobby_is_empty(client: TestClient) -> bool:
    return client.get("/api/tables").json()["tables"] == []


# -- the sentence parts, as functions -----------------------------------------------------


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=200) | st.dictionaries(st.text(), inner, max_size=50),
    max_leaves=300,
))
@hsettings(max_examples=300, deadline=None)
def test_echo_of_any_json_value_is_short(value: Any) -> None:
    assert len(echo(value)) <= 120


@given(st.lists(st.integers(min_value=0, max_value=10**6) | st.text(max_size=5000), max_size=30))
@hsettings(max_examples=200, deadline=None)
def test_path_of_any_location_is_short_and_printable(loc: list[Any]) -> None:
    out = path(loc)
    assert out.isprintable()
    assert len(out) <= 30 * 50


def test_echo_by_kind() -> None:
    assert echo(10**100) == "1000000000… (101 digits)"
    assert echo(-(10**100)) == "-1000000000… (101 digits)"
    assert echo(10**5000) == "a number of about 5001 digits"  # no str() of a 5000-digit int
    assert echo(123456) == "123456"
    assert echo("x" * 3000) == "'" + "x" * 40 + "…' (3000 characters)"
    assert echo("\u202eevil") == "'\\u202eevil'"  # an invisible or bidi character shows as its escape
    assert echo([7] * 100) == "a list of 100 items"
    assert echo([1, 2]) == "[1, 2]"
    assert echo({"k" * 100: 1}) == "an object with 1 key"
    assert path(["options", "face_names", 2, 1]) == "options.face_names[2][1]"


# -- long numbers ---------------------------------------------------------------------------------


def test_a_huge_number_of_seats_is_echoed_short_over_http(client: TestClient) -> None:
    status, err = post(client, '{"nickname": "ann", "seats": 1' + "0" * 100 + "}")
    assert (status, err["code"]) == (400, "table/invalid")
    assert err["message"] == "classic is played here by 2 to 6 players, not 1000000000… (101 digits)."
    status, err = post(client, '{"nickname": "ann", "turn_timer": ' + "9" * 40 + "}")
    assert err["message"] == "A turn timer runs 5 to 600 seconds, not 9999999999… (40 digits)."
    status, err = post(client, '{"nickname": "ann", "options": {"faces": 1' + "0" * 60 + "}}")
    assert err["message"] == "A die must have between 2 and 9 faces, not 1000000000… (61 digits)."
    assert lobby_is_empty(client)


def test_a_huge_message_id_is_refused_not_echoed_over_the_websocket(client: TestClient) -> None:
    # Before: a 40-digit id was sent back whole in the pong (no client's JSON reads it exactly).
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send_raw('{"type": "ping", "id": ' + "1" * 40 + "}")
    err = ann.wait(lambda m: m["type"] in ("error", "pong"))
    assert err["type"] == "error" and err["code"] == "message/invalid" and err["id"] is None
    assert err["message"].startswith("Bad message (id): an id is a whole number from -9007199254740991 to")
    ann.send({"type": "ping", "id": 2**53 - 1})
    assert ann.wait(lambda m: m["type"] == "pong")["id"] == 2**53 - 1


# -- the field path: an id that is not an id ------------------------------------------------------


@pytest.mark.parametrize("raw_id", ["1e40", "1.5", '"' + "x" * 500 + '"', "[1, 2]", '{"a": 1}', "true", '"\\u0007"'])
def test_a_bad_id_is_explained_by_its_rule_not_by_a_union_member(client: TestClient, raw_id: str) -> None:
    # Before: "Bad message (id.int): Input should be a valid integer." for every one of them.
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send_raw('{"type": "ping", "id": ' + raw_id + "}")
    err = ann.wait(lambda m: m["type"] == "error")
    assert err["message"] == (
        "Bad message (id): an id is a whole number from -9007199254740991 to 9007199254740991, "
        "or a string of at most 64 printable ASCII characters."
    )
    assert err["id"] is None


# -- long strings -----------------------------------------------------------------------------------


def test_a_long_unknown_key_is_shortened_over_http(client: TestClient) -> None:
    status, err = post(client, json.dumps({"nickname": "ann", "k" * 3000: 1}))
    assert (status, err["code"]) == (422, "message/invalid")
    assert err["message"] == "Bad request (" + "k" * 40 + "…): there is no such field."
    status, err = post(client, json.dumps({"nickname": "ann", "rules_text": "preset = 'classic'\n" + "x" * 4000 + " = 1"}))
    assert (status, err["code"]) == (400, "table/invalid")
    assert err["message"].startswith("The rules file: unknown rule option '" + "x" * 40 + "…' (4000 characters); ")
    assert len(err["message"]) <= SENTENCE_MAX
    assert lobby_is_empty(client)


def test_a_long_string_is_shortened_over_the_websocket(client: TestClient) -> None:
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send_raw(json.dumps({"type": "t" * 2000}))
    err = ann.wait(lambda m: m["type"] == "error")
    assert err["message"].startswith("Bad message (type): unknown type '" + "t" * 40 + "…' (2000 characters); ")
    assert len(err["message"]) <= SHORT
    ann.send_raw(json.dumps({"type": "ping", "k\u202e" * 500: 1}))
    err = ann.wait(lambda m: m["type"] == "error")
    assert err["message"] == "Bad message (" + "k\\u202e" * 20 + "…): there is no such field."


# -- lists ----------------------------------------------------------------------------------------------


def test_a_list_is_summarised_over_http(client: TestClient) -> None:
    status, err = post(client, json.dumps({"nickname": "ann", "options": {"die_hard": list(range(20))}}))
    assert (status, err["code"]) == (400, "table/invalid")
    assert err["message"] == "The rule option die_hard must be true or false, not a list of 20 items."
    status, err = post(client, json.dumps({"nickname": "ann", "seats": [4] * 3000}))
    assert err["message"] == "Bad table (seats): Input should be a valid integer."
    assert lobby_is_empty(client)


def test_a_bad_show_list_is_summarised_over_the_websocket(client: TestClient) -> None:
    t = create(client, "ann", preset="wild-stars", seats=2)
    j = join(client, t["code"], "bob")
    ann, bob = Player(client, t["code"], t["token"]), Player(client, t["code"], j["token"])
    ann.send({"type": "start", "id": "s"})
    view = ann.wait(lambda m: is_state(m) and m.get("event", {}).get("kind") == "start")["view"]
    mover = ann if view["to_move"] == "ann" else bob
    mover.send({"type": "bid", "quantity": 1, "face": 2, "show": [2] * 100, "id": 1})
    err = mover.wait(lambda m: m["type"] == "error")
    assert err["message"] == "Bad message (show): List should have at most 60 items after validation, not 100."
    mover.send({"type": "bid", "quantity": 1, "face": 2, "show": [2] * 40, "id": 2})
    err = mover.wait(lambda m: m["type"] == "error")
    # Before: every one of the 40 faces, then the hand.
    assert err["message"] == "A show sets out some of your 5 hidden dice, not 40 dice."
    mover.send({"type": "bid", "quantity": 1, "face": 2, "show": [2, 10], "id": 3})
    err = mover.wait(lambda m: m["type"] == "error")
    assert err["message"] == "Bad message (show[1]): Input should be less than or equal to 9."


def test_a_short_text_of_long_escapes_is_cut_by_its_quoted_length() -> None:
    """Hypothesis's find: 29 characters that quote as up to 10 each
    (``\\U0001e95a``) made an echo of 121 characters."""
    value = "0" * 15 + "\x1f" * 4 + "\x08" * 2 + "\U000101fe\U0001342f\U00018cd6\U00018d09\U00018d09\U00018d09\U0001e14a\U0001e95a"
    out = echo(value)
    assert len(out) <= 120 and out.endswith("(29 characters)"), out
    assert echo("plain") == "'plain'"
