"""Policies in (issue 37, item 3): a saved ``.npz`` policy and an OpenSpiel
``TabularPolicy`` (exported to a view policy file) play as arena bots,
``policy:FILE``, here an OpenSpiel CFR policy against ``strong``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from liars_dice.arena import ArenaConfig, EntrantError, parse_entrants, run_arena
from liars_dice.bots.base import Decision, action_probabilities, policy_fn
from liars_dice.bots.policy_file import PolicyFileError, load_policy_bot, view_key, write_view_policy
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeededDice
from liars_dice.solver import policy_exploitability, solve

#: The openspiel rules on three faces (the third wild), one die each: one round a game.
SMALL = Rules.preset("openspiel").with_options(name="openspiel-3-faces", faces=3, wild_face=3)
ONE_DIE = SMALL.with_options(dice_per_player=1)


@pytest.fixture(scope="module")
def openspiel_cfr(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    """20 iterations of OpenSpiel's CFR on our game, exported; and OpenSpiel's
    own exploitability of that average policy."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from liars_dice.integrations.openspiel import SHORT_NAME
    from liars_dice.integrations.openspiel.policies import export_tabular_policy

    game = pyspiel.load_game(SHORT_NAME, {"rules": json.dumps(SMALL.to_dict()), "players": 2, "dice": 1})
    solver = cfr.CFRSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    path = tmp_path_factory.mktemp("cfr") / "cfr.npz"
    assert export_tabular_policy(solver.average_policy(), game, str(path)) == 192
    return path, float(os_exploitability.exploitability(game, solver.average_policy()))


def test_an_exported_openspiel_policy_is_read_exactly(openspiel_cfr: tuple[Path, float]) -> None:
    """The file read back as a bot has OpenSpiel's exploitability of the policy."""
    path, os_value = openspiel_cfr
    ours = policy_exploitability(SMALL, policy_fn(load_policy_bot(path)), (1, 1))
    assert ours.value == pytest.approx(os_value, abs=1e-9)


def test_an_exported_openspiel_policy_plays_in_the_arena_against_strong(openspiel_cfr: tuple[Path, float]) -> None:
    path, _ = openspiel_cfr
    entrants = tuple(parse_entrants([f"cfr=policy:{path}", "strong"]))
    assert entrants[0].name == "cfr" and entrants[0].policy == str(path)
    result = run_arena(ArenaConfig(ONE_DIE, entrants, 40, 7), jobs=1)
    wins = result.wins()
    assert sum(wins) == 40 and all(w > 0 for w in wins)


def test_a_solved_round_plays_as_a_bot(tmp_path: Path) -> None:
    result = solve(SMALL, (1, 1), target_exploitability=1e-3)
    path = tmp_path / "eq.npz"
    result.policy.save(path)
    bot = load_policy_bot(path, seed=1)
    state = Game.create(ONE_DIE, ["a", "b"]).initial_state().roll(SeededDice(4))
    view = state.view(0)
    want = result.policy.action_probabilities(view.hand, [])
    assert action_probabilities(bot, view) == {Decision(a): pytest.approx(p) for a, p in want.items()}
    assert policy_exploitability(SMALL, policy_fn(bot), (1, 1)).value == pytest.approx(result.exploitability, abs=1e-12)
    arena = run_arena(ArenaConfig(ONE_DIE, tuple(parse_entrants([f"policy:{path}", "probabilistic"])), 10, 1), jobs=1)
    assert sum(arena.wins()) == 10


def test_a_view_policy_round_trips_and_refuses_what_it_does_not_hold(tmp_path: Path) -> None:
    state = Game.create(ONE_DIE, ["a", "b"]).initial_state().roll(SeededDice(4))
    view = state.view(0)
    path = tmp_path / "one.npz"
    write_view_policy(path, ONE_DIE, {view_key(view): {Decision(Bid(1, 2)): 0.5, Decision(Bid(1, 3)): 0.5}})
    bot = load_policy_bot(path, seed=3)
    assert action_probabilities(bot, view) == {Decision(Bid(1, 2)): 0.5, Decision(Bid(1, 3)): 0.5}
    assert bot.decide(view) in (Decision(Bid(1, 2)), Decision(Bid(1, 3)))
    other = state.apply(Bid(1, 1)).view(1)
    with pytest.raises(PolicyFileError, match="holds no move for this position"):
        bot.decide(other)
    classic = Game.create(Rules.preset("classic"), ["a", "b"], [1, 1]).initial_state().roll(SeededDice(4))
    with pytest.raises(PolicyFileError, match="is a policy of the openspiel-3-faces rules, not of classic"):
        bot.decide(classic.view(0))
    with pytest.raises(PolicyFileError, match="sum to 0.5"):
        write_view_policy(tmp_path / "bad.npz", ONE_DIE, {"k": {Decision(CHALLENGE): 0.5}})


@pytest.mark.parametrize(
    "content,words",
    [
        (None, "Cannot read the policy file"),
        (b"not a zip", "is not a readable policy file"),
        ({"x": np.zeros(2)}, "neither a solved round nor a view policy"),
        ({"format": np.array("other/9")}, "of format 'other/9'"),
    ],
)
def test_bad_policy_files_are_refused_in_one_sentence(tmp_path: Path, content: object, words: str) -> None:
    path = tmp_path / "p.npz"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, dict):
        np.savez(path, **content)
    with pytest.raises(PolicyFileError, match=words):
        load_policy_bot(path)
    with pytest.raises(EntrantError, match=words):
        parse_entrants([f"policy:{path}", "random"])
