"""The bot protocol (docs/bot-protocol.md): requests to views and back, the
serving loop, and ExternalBot, through the real `liars-dice bot` subprocess."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest

from liars_dice.bots import Decision, make_bot
from liars_dice.engine import CHALLENGE, PRESETS, Bid, Game, Phase, Rules, SeededDice
from liars_dice.match import play_game
from liars_dice.protocol import (
    MAX_LINE_BYTES,
    BotCrashedError,
    BotError,
    BotReplyError,
    BotTimeoutError,
    ExternalBot,
    ProtocolError,
    parse_reply,
    parse_request,
    request_from_view,
    serve,
    view_from_request,
)

CLASSIC = Rules.preset("classic")


class ShowingRandom:
    """Random legal moves that also show dice at random (to exercise shows)."""

    name = "showing-random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, view):
        action = self.rng.choice(view.legal_actions())
        show = self.rng.choice(view.legal_shows()) if isinstance(action, Bid) else ()
        return Decision(action, show)


def one_sentence(msg: str) -> bool:
    return msg.endswith(".") and ". " not in msg and len(msg) > 15


def request(**over):
    base = {
        "rules": "classic",
        "players": ["a", "b", "c"],
        "seat": "c",
        "dice": {"a": 5, "b": 4, "c": 3},
        "hand": [2, 2, 6],
        "moves": [{"player": "a", "bid": {"quantity": 2, "face": 3}}, {"player": "b", "bid": {"quantity": 3, "face": 3}}],
    }
    base.update(over)
    return base


def view_of(req, rules: Rules | None = CLASSIC) -> object:
    return view_from_request(parse_request(json.dumps(req)), rules)


# -- request <-> view ---------------------------------------------------------


CUSTOM = PRESETS["wild-stars"].with_options(name="stars-on-8", faces=8, max_players=5)


@pytest.mark.parametrize("rules", [*PRESETS.values(), CUSTOM], ids=[*PRESETS, "custom"])
def test_request_round_trip_over_whole_games(rules) -> None:
    """Every view met in whole games (with shows, rerolls and past rounds)
    survives view -> request -> JSON -> view unchanged; rules that are not a
    preset travel as an object of options."""
    n = min(4, rules.max_players)
    names = [f"p{i}" for i in range(n)]
    checked = 0
    for seed in range(6):
        bots = [ShowingRandom(seed * 10 + i) for i in range(n)]
        seen = []

        def on_state(s):
            if s.phase is Phase.BID:
                seen.append(s.view(s.to_move))

        play_game(Game.create(rules, names, [3] * n if not rules.single_round else None), bots, SeededDice(seed), on_state=on_state)
        for v in seen:
            text = json.dumps(request_from_view(v))
            assert view_from_request(parse_request(text), rules) == v
            checked += 1
    assert checked > 10


def test_view_from_request_fields() -> None:
    v = view_of(request(history=[]))
    assert v.players == ("a", "b", "c") and v.seat == 2 and v.to_move == 2 and v.my_turn
    assert v.dice == (5, 4, 3) and v.hand == (2, 2, 6)
    assert v.current_bid == Bid(3, 3) and v.wilds_active
    assert CHALLENGE in v.legal_actions() and Bid(3, 2) not in v.legal_actions()


def test_classic_wilds_suspended_when_opened_on_ones() -> None:
    """Seed 004 "One's Are Wild!": a round opened on ones has no wilds; the view
    the protocol builds knows it from the moves alone."""
    v = view_of(request(moves=[{"player": "a", "bid": {"quantity": 2, "face": 1}}, {"player": "b", "bid": {"quantity": 2, "face": 4}}]))
    assert not v.wilds_active


def test_history_gives_past_results() -> None:
    history = [
        {
            "moves": [{"player": "a", "bid": {"quantity": 4, "face": 5}}, {"player": "b", "challenge": True}],
            "revealed": {"a": [5, 5, 1, 2, 3], "b": [2, 3, 4, 6, 6], "c": [5, 2, 2]},
        }
    ]
    # 5s with ones wild: 5,5,1 + 5 = 4 >= 4, so the challenger b loses a die and opens (seed 004).
    req = request(history=history, dice={"a": 5, "b": 4, "c": 3}, moves=[{"player": "b", "bid": {"quantity": 2, "face": 3}}], seat="c")
    v = view_of(req)
    (r,) = v.results
    assert r.count == 4 and r.lost == (0, 1, 0) and r.next_opener == 1
    assert r.revealed[2] == (5, 2, 2)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"seat": "b", "hand": [2, 2, 6, 6]}, "turn"),
        ({"hand": [2, 2]}, "holds 3 dice"),
        ({"dice": {"a": 5, "b": 4}}, "no dice count for c"),
        ({"dice": {"a": 5, "b": 4, "c": 3, "d": 1}}, "not a player"),
        ({"seat": "z"}, "not one of its players"),
        ({"rules": "wild-stars"}, "plays classic"),
        ({"rules": "no-such-rules"}, "no rule set"),
        ({"shown": {"a": [6]}}, "shown dice of a"),
        ({"hand": [2, 2, 9]}, "face"),
        ({"dice": {"a": 5, "b": 4, "c": 10**6}}, "less than or equal to 100"),
        ({"moves": [{"player": "a", "bid": {"quantity": 2, "face": 3}}, {"player": "b", "bid": {"quantity": 2, "face": 2}}]}, "does not raise"),
        ({"moves": [{"player": "a", "bid": {"quantity": 2, "face": 3}}, {"player": "b", "challenge": True}]}, "ended"),
        ({"moves": [{"player": "a", "bid": {"quantity": 2, "face": 3}, "show": [3]}, {"player": "b", "bid": {"quantity": 3, "face": 3}}]}, "no show-and-reroll"),
        ({"moves": [{"player": "x", "bid": {"quantity": 2, "face": 3}}]}, "not a player"),
        ({"dice": {"a": 0, "b": 0, "c": 3}}, "game is over"),
        ({"dice": {"a": 5, "b": 4, "c": 0}, "hand": []}, "out of the game"),
        ({"history": [{"moves": [{"player": "a", "bid": {"quantity": 1, "face": 5}}, {"player": "b", "bid": {"quantity": 2, "face": 5}}], "revealed": {"a": [1]}}]}, "does not end with a challenge"),
    ],
)
def test_impossible_positions_get_one_sentence(change, words) -> None:
    with pytest.raises(ProtocolError) as exc:
        view_of(request(**change))
    assert words in exc.value.message
    assert one_sentence(exc.value.message), exc.value.message
    assert exc.value.code == "protocol/invalid"


def test_history_must_lead_to_the_position() -> None:
    history = [
        {
            "moves": [{"player": "a", "bid": {"quantity": 4, "face": 5}}, {"player": "b", "challenge": True}],
            "revealed": {"a": [5, 5, 1, 2, 3], "b": [2, 3, 4, 6, 6], "c": [5, 2, 2]},
        }
    ]
    with pytest.raises(ProtocolError, match="last past round leaves"):
        view_of(request(history=history, dice={"a": 5, "b": 5, "c": 3}, moves=[{"player": "b", "bid": {"quantity": 2, "face": 3}}]))
    with pytest.raises(ProtocolError, match="should open"):
        view_of(request(history=history, moves=[{"player": "a", "bid": {"quantity": 2, "face": 3}}, {"player": "b", "bid": {"quantity": 3, "face": 3}}]))


@pytest.mark.parametrize(
    "line, words",
    [
        ("{", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"rules": "classic"}', "malformed"),
        (json.dumps({**request(), "extra": 1}), "malformed"),
        (json.dumps(request(hand="226")), "malformed"),
        ("x" * (MAX_LINE_BYTES + 1), "limit"),
    ],
)
def test_bad_request_lines(line, words) -> None:
    with pytest.raises(ProtocolError) as exc:
        parse_request(line)
    assert words in exc.value.message and one_sentence(exc.value.message)


@pytest.mark.parametrize(
    "line, ok",
    [
        ('{"bid": {"quantity": 3, "face": 4}}', True),
        ('{"bid": {"quantity": 3, "face": 4}, "show": [4, 4]}', True),
        ('{"challenge": true}', True),
        ('{"error": "no"}', True),
        ('{"challenge": false}', False),
        ('{"bid": {"quantity": 3, "face": 4}, "challenge": true}', False),
        ('{"challenge": true, "show": [1]}', False),
        ('{"bid": {"quantity": "3", "face": 4}}', False),
        ("{}", False),
    ],
)
def test_reply_shapes(line, ok) -> None:
    if ok:
        parse_reply(line)
    else:
        with pytest.raises(ProtocolError):
            parse_reply(line)


def test_serve_loop_in_process_keeps_serving() -> None:
    good = json.dumps(request()).encode()
    stdin = io.BytesIO(good + b"\n" + b"not json\n\n" + b"x" * (MAX_LINE_BYTES + 10) + b"\n" + good + b"\n")
    stdout = io.BytesIO()
    assert serve("random", CLASSIC, stdin, stdout, seed=7) == 4
    lines = [json.loads(x) for x in stdout.getvalue().decode().splitlines()]
    assert "bid" in lines[0] or "challenge" in lines[0]
    assert "error" in lines[1] and "error" in lines[2] and "limit" in lines[2]["error"]
    assert lines[3] == lines[0]  # --seed: the reply depends on the request alone


# -- the real `liars-dice bot` subprocess ---------------------------------------


def test_bot_subprocess_round_trip(cli) -> None:
    """Several requests through the real command; a malformed one in the
    middle gets an error and serving continues."""
    rng = random.Random(3)
    game = Game.create(CLASSIC, ["a", "b", "c"])
    state = game.initial_state().roll(SeededDice(1))
    views, lines = [], []
    while len(views) < 6:
        v = state.view(state.to_move)
        views.append(v)
        lines.append(json.dumps(request_from_view(v)))
        legal = [a for a in state.legal_actions() if a != CHALLENGE]
        state = state.apply(rng.choice(legal[:5]))
    lines.insert(3, '{"rules": "classic", "players": ["a"]}')
    lines.insert(5, json.dumps({**request_from_view(views[3]), "seat": "a" if views[3].seat != 0 else "b"}))
    proc = subprocess.run(
        [cli, "bot", "random", "--rules", "classic"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(replies) == len(lines)
    errors = [replies.pop(5), replies.pop(3)]
    assert all(set(e) == {"error"} and one_sentence(e["error"]) for e in errors), errors
    assert "turn" in errors[0]["error"]
    for v, rep in zip(views, replies):
        action = parse_reply(json.dumps(rep)).action
        assert action in v.legal_actions()


def test_bot_command_rejects_unknown_bot(cli) -> None:
    proc = subprocess.run([cli, "bot", "nobody", "--rules", "classic"], input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no bot called 'nobody'" in proc.stderr


def test_bot_command_seed_makes_replies_depend_on_the_request_alone(cli) -> None:
    a, b = json.dumps(request()), json.dumps(request(seat="a", moves=[]))
    run = lambda text: subprocess.run(  # noqa: E731
        [cli, "bot", "random", "--rules", "classic", "--seed", "11"], input=text, capture_output=True, text=True, timeout=60
    ).stdout.splitlines()
    one, two = run(f"{a}\n{b}\n"), run(f"{b}\n{a}\n{a}\n")
    assert one[0] == two[1] == two[2] and one[1] == two[0]


# -- ExternalBot ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ["classic", "wild-stars"])
def test_external_bot_plays_whole_games(cli, preset) -> None:
    rules = Rules.preset(preset)
    with ExternalBot([cli, "bot", "random", "--rules", preset], name="ext") as ext:
        for seed in range(2):
            bots = [ext, make_bot("random", seed), ShowingRandom(seed)]
            final = play_game(Game.create(rules, ["x", "y", "z"], [3, 3, 3]), bots, SeededDice(seed))
            assert final.is_over and final.winner is not None


def _python_bot(code: str, timeout: float = 10.0) -> ExternalBot:
    return ExternalBot([sys.executable, "-c", code], name="stub", timeout=timeout)


def _state():
    return Game.create(CLASSIC, ["a", "b"]).initial_state().roll(SeededDice(2)).apply(Bid(1, 4))


@pytest.mark.parametrize(
    "code, error, words",
    [
        ("import sys; sys.stdin.readline(); sys.stderr.write('boom\\n'); sys.exit(3)", BotCrashedError, "exited with status 3"),
        ("import sys; sys.stdin.readline(); print('hello', flush=True); sys.stdin.readline()", BotReplyError, "not valid JSON"),
        ("import sys; sys.stdin.readline(); print('{\"bid\": {\"quantity\": 99, \"face\": 4}}', flush=True); sys.stdin.readline()", BotReplyError, "not a legal move"),
        ("import sys; sys.stdin.readline(); print('{\"bid\": {\"quantity\": 1, \"face\": 3}}', flush=True); sys.stdin.readline()", BotReplyError, "not a legal move"),
        ("import sys; sys.stdin.readline(); print('{\"error\": \"I am confused.\"}', flush=True); sys.stdin.readline()", BotReplyError, "refused"),
        ("import sys, time; sys.stdin.readline(); time.sleep(60)", BotTimeoutError, "did not reply within"),
    ],
)
def test_external_bot_failures_are_clear_and_change_nothing(code, error, words) -> None:
    state = _state()
    before = state
    bot = _python_bot(code, timeout=1.0 if error is BotTimeoutError else 20.0)
    try:
        with pytest.raises(error) as exc:
            bot.decide(state.view(state.to_move))
        assert words in exc.value.message, exc.value.message
        assert "stub" in exc.value.message
        if error is BotCrashedError:
            assert "boom" in exc.value.message
        assert state is before and state.to_move == 1 and state.current_bid == Bid(1, 4)
        with pytest.raises(BotError, match="earlier failure"):
            bot.decide(state.view(state.to_move))
    finally:
        bot.close()


def test_external_bot_that_cannot_start() -> None:
    with pytest.raises(BotCrashedError, match="cannot be started"):
        ExternalBot(["/nonexistent/bot-program"])


def test_external_bot_that_stops_reading_times_out_on_a_large_request() -> None:
    """A request larger than a pipe's buffer to a program that never reads
    must not block forever: it times out like a missing reply."""
    bot = _python_bot("import time; time.sleep(60)", timeout=1.0)
    try:
        with pytest.raises(BotTimeoutError, match="did not read its request"):
            bot._send(b"x" * 300_000 + b"\n")
    finally:
        bot.close(grace=0.2)  # must not wait for the blocked write


FLOODER = (
    "import os, sys\n"
    "sys.stdin.readline()\n"
    "out = os.fdopen(1, 'wb', closefd=False)\n"
    "out.write(b'{\"challenge\": true}\\n'); out.flush()\n"
    "while True:\n"
    "    out.write(b'x\\n' * 65536)\n"
)


def test_an_external_bot_flooding_its_output_holds_no_more_than_a_few_lines() -> None:
    """attack7: a bot that answered, then wrote short lines without end, filled
    an unbounded queue (7.9 million lines, 458 MB of memory after 8 s) while it
    waited for its next request. The reader now keeps at most MAX_LINES_AHEAD
    lines and then stops reading, so the bot's pipe fills and it waits; its
    next reply is the first extra line, refused in one sentence."""
    import time

    from liars_dice.protocol.external import MAX_LINES_AHEAD

    state = _state()
    bot = _python_bot(FLOODER, timeout=20.0)
    try:
        assert bot.decide(state.view(state.to_move)).action == CHALLENGE
        time.sleep(1.0)
        assert bot._lines.qsize() <= MAX_LINES_AHEAD
        with pytest.raises(BotReplyError, match="not valid JSON"):
            bot.decide(state.view(state.to_move))
    finally:
        bot.close()


def test_stopping_an_external_bot_prints_no_traceback() -> None:
    """attack7: stopping a bot closed its output under the reader threads, which
    died with "ValueError: readline of closed file" printed on the arena's
    standard error; they now end quietly."""
    code = (
        "import os, sys, threading\n"
        "from liars_dice.protocol.external import ExternalBot\n"
        "from liars_dice.engine import Bid, Game, Rules, SeededDice\n"
        f"bot = ExternalBot([sys.executable, '-c', {FLOODER!r}], timeout=20.0)\n"
        "s = Game.create(Rules.preset('classic'), ['a', 'b']).initial_state().roll(SeededDice(2)).apply(Bid(1, 4))\n"
        "bot.decide(s.view(s.to_move))\n"
        "for _ in range(5):\n"
        "    try:\n"
        "        bot.decide(s.view(s.to_move))\n"
        "    except Exception:\n"
        "        pass\n"
        "bot.close()\n"
        "import time; time.sleep(0.5)\n"
        "print('threads', threading.active_count())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.strip() == "threads 1", proc.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="process sessions are POSIX")
def test_an_external_bot_whose_child_holds_its_output_is_stopped_in_time(tmp_path) -> None:
    """attack7: a bot program that started a child (``sleep 60 &``) and then
    stopped answering timed out after 1 s, but stopping it waited for the
    child: closing the output pipe the child still held blocked until the
    child ended (30 s for ``sleep 30``, for ever for a server). The bot now
    runs in a session of its own, stopped whole, and the pipes are closed
    aside, so the time limit holds and the child is gone."""
    import os
    import time

    pidfile = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pidfile}; exec {sys.executable} -c 'import sys, time; sys.stdin.readline(); time.sleep(60)'"
    bot = ExternalBot(["sh", "-c", script], name="stub", timeout=1.0)
    state = _state()
    start = time.monotonic()
    try:
        with pytest.raises(BotTimeoutError):
            bot.decide(state.view(state.to_move))
        assert time.monotonic() - start < 10.0
    finally:
        bot.close()
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{child}/stat") as f:
                if f.read().split(") ")[1].startswith("Z"):
                    break  # killed, not yet reaped by its new parent
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the bot's child {child} still runs")
