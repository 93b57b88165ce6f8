"""TextArena (issue 10 "TextArena"): our presets as TextArena environments with
TextArena's text actions ([Bid: q, f], [Call]) plus the show of wild-stars, and
a TextArena agent seated in our arena as a bot-protocol program; all offline,
with a scripted agent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ta = pytest.importorskip("textarena", reason="the textarena extra is not installed")

from liars_dice.engine import CHALLENGE, PRESETS, Bid, InvalidBidError, Rules  # noqa: E402
from liars_dice.integrations.textarena import (  # noqa: E402
    MAX_ACTION_CHARS,
    LiarsDiceTextEnv,
    env_id,
    format_text_action,
    parse_text_action,
    register_presets,
)
from textarena_agents import ScriptedAgent  # noqa: E402

HERE = Path(__file__).resolve().parent


def play(env, agents, seed: int, players: int):
    env.reset(num_players=players, seed=seed)
    done, steps = False, 0
    while not done:
        pid, obs = env.get_observation()
        done, _ = env.step(agents[pid](obs))
        steps += 1
        assert steps < 5000
    return env.close()


def test_every_preset_is_registered_with_and_without_wrappers() -> None:
    register_presets()
    assert register_presets() == []  # idempotent
    from textarena.envs.registration import ENV_REGISTRY

    for name in PRESETS:
        assert env_id(name) in ENV_REGISTRY and env_id(name) + "-raw" in ENV_REGISTRY
    assert env_id("wild-stars") == "LiarsDice-wild-stars-v0"


@pytest.mark.parametrize("preset, players", [("classic", 4), ("aces-wild", 3), ("wild-stars", 3), ("openspiel", 2)])
def test_scripted_agents_play_whole_games_through_ta_make(preset: str, players: int) -> None:
    register_presets()
    env = ta.make(env_id(preset))
    agents = [ScriptedAgent(shows=True, stumble=(i == 0)) for i in range(players)]
    rewards, info = play(env, agents, seed=5, players=players)
    engine = env.unwrapped.engine if hasattr(env, "unwrapped") else env.env.env.engine
    assert engine.is_over
    assert rewards[engine.winner] == 1.0 and max(rewards.values()) == 1.0 and min(rewards.values()) == -1.0
    assert "wins" in info[0]["reason"]
    first = agents[0].seen[0]
    assert "[Bid: quantity, face]" in first and "[Call]" in first  # the prompt states the moves
    assert "attempted an invalid move" in agents[0].seen[1]  # the stumble was refused with a reason


def _inner(env):
    while hasattr(env, "env"):
        env = env.env
    return env


def test_the_show_of_wild_stars_sets_dice_out_and_rerolls(monkeypatch) -> None:
    """Seed 000 "The Show and Reroll Rule": the shown dice are public, the rest rerolled."""
    env = LiarsDiceTextEnv("wild-stars")
    env.reset(num_players=2, seed=3)
    seat = env.state.current_player_id
    hand = env.engine.hidden[seat]
    show = (hand[0],)
    done, _ = env.step(f"[Bid: 1, 2] [Show: {hand[0]}]")
    assert not done and env.engine.shown[seat] == show and len(env.engine.hidden[seat]) == len(hand) - 1
    other = 1 - seat
    assert env.state.current_player_id == other
    public = [m for _, m, _ in env.state.observations[other]]
    assert any(f"shows {hand[0]}, rerolling the rest" in m for m in public)
    assert not any("after the reroll" in m for m in public)  # the new faces go to the bidder alone
    assert any("after the reroll" in m for _, m, _ in env.state.observations[seat])


def test_an_invalid_move_gets_one_retry_then_forfeits() -> None:
    env = LiarsDiceTextEnv("classic")
    env.reset(num_players=3, seed=1)
    seat = env.state.current_player_id
    env.step("[Call]")  # nothing to call yet
    assert env.state.current_player_id == seat and not env.state.done
    msgs = [m for _, m, _ in env.state.observations[seat]]
    assert any("no bid to challenge" in m for m in msgs)
    done, _ = env.step("[Bid: 99, 3]")
    assert done
    rewards, info = env.close()
    assert rewards[seat] == -1.0 and all(r == 1.0 for s, r in rewards.items() if s != seat)
    assert "forfeits" in info[seat]["reason"]


def test_text_actions_parse_as_textarena_writes_them() -> None:
    rules = Rules.preset("wild-stars")
    assert parse_text_action("I think [Bid: 3, 4] is safe", rules) == (Bid(3, 4), ())
    assert parse_text_action("[bid 3 4]", rules) == (Bid(3, 4), ())
    assert parse_text_action("[Bid: 3, 4] [Show: 4, 1]", rules) == (Bid(3, 4), (1, 4))
    assert parse_text_action("[Call]", rules) == (CHALLENGE, ())
    assert format_text_action(Bid(3, 4), (1, 4)) == "[Bid: 3, 4] [Show: 1, 4]" and format_text_action(CHALLENGE) == "[Call]"
    with pytest.raises(InvalidBidError, match="No move found"):
        parse_text_action("three fours", rules)
    with pytest.raises(InvalidBidError, match="no show-and-reroll"):
        parse_text_action("[Bid: 3, 4] [Show: 4]", Rules.preset("classic"))
    with pytest.raises(InvalidBidError, match="not with a call"):
        parse_text_action("[Call] [Show: 4]", rules)
    with pytest.raises(InvalidBidError, match="characters long"):
        parse_text_action("x" * (MAX_ACTION_CHARS + 1) + "[Call]", rules)  # refused whole, never cut


def test_the_answer_at_the_end_of_a_long_reasoning_reply_is_read() -> None:
    """Issue 19, fault 2: a 21,038-character reasoning reply that ends in its
    move (reasoning models answer last) is read whole, by the parser and by
    the bot wrapper; TextArena's own LiarsDice-v0 read a 50,000-character one."""
    from liars_dice.engine import Game, SeededDice
    from liars_dice.integrations.textarena import TextArenaBot

    rules = Rules.preset("classic")
    thinking = ("Let me weigh the odds of each face once more. " * 500)[:21_027]
    reply = thinking + "[Bid: 1, 3]"
    assert len(reply) == 21_038 and parse_text_action(reply, rules) == (Bid(1, 3), ())
    assert parse_text_action("x" * 50_000 + "[Call]", rules) == (CHALLENGE, ())
    state = Game.create(rules, ["a", "b"]).initial_state(0).roll(SeededDice(1))
    bot = TextArenaBot(lambda obs: reply, retries=0)
    assert bot.decide(state.view(0)).action == Bid(1, 3)


def _agent_cmd(preset: str, **kwargs: object) -> str:
    return (
        f"cmd:{sys.executable} -m liars_dice.integrations.textarena --agent textarena_agents:make "
        f"--agent-kwargs '{json.dumps(kwargs)}' --rules {preset}"
    )


@pytest.mark.parametrize("preset", ["classic", "wild-stars"])
def test_a_textarena_agent_sits_in_our_arena(cli, preset: str) -> None:
    spec = f"llm={_agent_cmd(preset, shows=True, stumble=True)}"
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    proc = subprocess.run(
        [cli, "arena", "--rules", preset, "--bots", f"{spec},random,probabilistic", "--games", "6", "--seed", "2", "--json",
         "--timeout", "300"],  # the agent program imports textarena before its first reply: slow on a loaded machine
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert list(rep["bots"]) == ["llm", "random", "probabilistic"] and rep["games"] == 6


def test_the_agent_program_refuses_bad_options() -> None:
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "liars_dice.integrations.textarena", *a], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(HERE)},
    )
    p = run("--agent", "nomodule", "--rules", "classic")
    assert p.returncode == 2 and "MODULE:FACTORY" in p.stderr
    p = run("--agent", "textarena_agents:make", "--rules", "nope")
    assert p.returncode == 2 and "no rule set called 'nope'" in p.stderr
    p = run("--agent", "textarena_agents:make", "--rules", "classic", "--agent-kwargs", "[1]")
    assert p.returncode == 2 and "JSON object" in p.stderr


def test_the_calza_of_perudo_is_a_text_action() -> None:
    """RULES.md perudo "Calza": '[Calza]' claims the count is exact; the caller opens next."""
    from liars_dice.engine import CALZA

    rules = Rules.preset("perudo")
    assert parse_text_action("Spot on! [Calza]", rules) == (CALZA, ())
    assert format_text_action(CALZA) == "[Calza]"
    with pytest.raises(InvalidBidError, match="no calza"):
        parse_text_action("[Calza]", Rules.preset("classic"))
    env = LiarsDiceTextEnv("perudo")
    env.reset(num_players=3, seed=4)
    opener = env.state.current_player_id
    assert "[Calza]" in env.state.observations[opener][0][1]  # the prompt offers it
    env.step("[Bid: 2, 3]")
    caller = env.state.current_player_id
    done, _ = env.step("[Calza]")
    assert not done
    r = env.engine.results[-1]
    assert r.calza and r.challenger == caller and env.state.current_player_id == env.engine.to_move
    seen = [m for _, m, _ in env.state.observations[opener]]
    assert any("calls calza on" in m and f"The count is {r.count}" in m for m in seen)


def test_scripted_agents_play_perudo_to_the_end() -> None:
    register_presets()
    env = ta.make(env_id("perudo"))
    rewards, _ = play(env, [ScriptedAgent() for _ in range(4)], seed=8, players=4)
    engine = _inner(env).engine
    assert engine.is_over and rewards[engine.winner] == 1.0


def test_importing_textarena_and_our_integration_needs_no_network() -> None:
    """The textarena extra installs from PyPI and downloads nothing at import:
    any connection attempt during the imports fails this test."""
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise SystemExit('network used at import: %r' % (a,))\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "import textarena\n"
        "from liars_dice.integrations.textarena import register_presets\n"
        "register_presets()\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-800:]


def test_an_invalid_move_can_eliminate_the_offender_and_play_goes_on() -> None:
    """Issue 19, TextArena's rule for many players (invalid_move="eliminate",
    TextArena's LiarsDice-v0 `_handle_invalid_move`): after the one retry the
    offender is out, a new round starts and the others play to the end; the
    offender ranks last (-1), the winner first (+1)."""
    env = LiarsDiceTextEnv("classic", dice=2, invalid_move="eliminate")
    env.reset(num_players=3, seed=1)
    seat = env.state.current_player_id
    env.step("[Call]")  # nothing to call yet: refused, one retry
    done, _ = env.step("no move at all")
    assert not done and env.engine.dice[seat] == 0 and env.eliminated == [seat]
    assert env.state.current_player_id != seat and env.engine.current_bid is None  # a new round, another opener
    assert any("eliminated by repeated invalid moves" in m for _, m, _ in env.state.observations[seat])
    agents = [ScriptedAgent() for _ in range(3)]
    steps = 0
    while not done:
        pid, obs = env.get_observation()
        assert pid != seat
        done, _ = env.step(agents[pid]("\n".join(m for _, m, _ in obs)))  # the raw env's messages as text
        steps += 1
        assert steps < 2000
    rewards, _ = env.close()
    assert rewards[seat] == -1.0 and rewards[env.engine.winner] == 1.0 and sum(rewards.values()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="invalid_move is one of forfeit, eliminate"):
        LiarsDiceTextEnv("classic", invalid_move="skip")


def test_with_two_players_an_elimination_ends_the_game() -> None:
    env = LiarsDiceTextEnv("classic", invalid_move="eliminate")
    env.reset(num_players=2, seed=2)
    seat = env.state.current_player_id
    env.step("?")
    done, _ = env.step("?")
    assert done
    rewards, info = env.close()
    assert rewards == {seat: -1.0, 1 - seat: 1.0} and "wins" in info[1 - seat]["reason"]


def test_train_and_eliminate_variants_are_registered() -> None:
    """TextArena names its training variants "-train" (GameMessagesObservationWrapper
    and ActionFormattingWrapper); ours too, and "-eliminate" for the elimination rule."""
    from textarena.envs.registration import ENV_REGISTRY
    from textarena.wrappers import GameMessagesObservationWrapper

    register_presets()
    spec = ENV_REGISTRY[env_id("classic") + "-train"]
    assert GameMessagesObservationWrapper in spec.default_wrappers
    assert ENV_REGISTRY[env_id("perudo") + "-eliminate"].kwargs["invalid_move"] == "eliminate"
    env = ta.make(env_id("classic") + "-train")
    rewards, _ = play(env, [ScriptedAgent() for _ in range(3)], seed=4, players=3)
    assert max(rewards.values()) == 1.0
