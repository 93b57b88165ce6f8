"""OpenSpiel's ISMCTS and MCCFR as arena entrants (issue 10 "OpenSpiel bots in
the arena"): found through the ``liars_dice.entrants`` entry point, bad specs
refused with one sentence, legal moves in whole games (a show-and-reroll and a
calza rule set included), and the same report for a given seed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from liars_dice.arena.entrants import EntrantError, parse_entrants, plugin_factory  # noqa: E402
from liars_dice.arena.run import ArenaConfig, run_arena  # noqa: E402
from liars_dice.bots import make_bot  # noqa: E402
from liars_dice.engine import Game, Rules, SeededDice  # noqa: E402
from liars_dice.match import play_game  # noqa: E402


def test_entry_point_gives_the_openspiel_bots() -> None:
    assert plugin_factory("openspiel:ismcts") is not None
    assert plugin_factory("nothing:here") is None and plugin_factory("strong") is None
    names = [e.name for e in parse_entrants("strong,openspiel:ismcts:7,mc=openspiel:mccfr:20")]
    assert names == ["strong", "openspiel:ismcts:7", "mc"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel:mccfr:x", "number of iterations"),
        ("openspiel:mccfr:0", "number of iterations"),
        ("openspiel:mccfr", "is not an OpenSpiel bot"),
        ("openspiel:ismcts:999999999", "number of simulations"),
        ("openspiel:alphazero", "is not an OpenSpiel bot"),
    ],
)
def test_bad_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(EntrantError, match=message):
        parse_entrants(f"strong,{spec}")


@pytest.mark.parametrize(
    ("rules", "dice", "specs"),
    [
        ("classic", 2, ["openspiel:ismcts:5", "openspiel:mccfr:30", "random"]),
        ("wild-stars", 2, ["openspiel:ismcts:5", "openspiel:mccfr:30"]),
        ("perudo", 2, ["openspiel:mccfr:30", "openspiel:ismcts:5", "random"]),
    ],
)
def test_openspiel_bots_play_whole_games_legally(rules: str, dice: int, specs: list[str]) -> None:
    """Every move goes through the checked State.apply (play_game), so an
    illegal bid, show or calza would raise."""
    factory = plugin_factory(specs[0])
    assert factory is not None
    bots = [factory(s, 1) if s.startswith("openspiel") else make_bot(s, 1) for s in specs]
    game = Game.create(Rules.preset(rules), [f"p{i}" for i in range(len(specs))], [dice] * len(specs))
    for seed in range(2):
        final = play_game(game, bots, SeededDice(seed))
        assert final.winner is not None


def test_arena_report_is_reproducible_with_openspiel_bots() -> None:
    config = ArenaConfig(Rules.preset("classic"), tuple(parse_entrants("random,openspiel:mccfr:20")), 4, seed=3)
    assert run_arena(config, 1).outcomes == run_arena(config, 1).outcomes


def test_mccfr_gives_its_average_policy_s_probabilities() -> None:
    """openspiel:mccfr:N is a MixedBot: its probabilities are the average
    policy's at the seat's information state, and sum to 1."""
    from liars_dice.bots.base import MixedBot, action_probabilities
    from liars_dice.engine import Game, Rules, SeededDice
    from liars_dice.integrations.openspiel.bots import game_for, make_entrant_bot, mccfr_policy, state_for

    import random as _random

    bot = make_entrant_bot("openspiel:mccfr:200", 1)
    assert isinstance(bot, MixedBot)
    state = Game.create(Rules.preset("classic"), ["a", "b"], [1, 1]).initial_state().roll(SeededDice(3))
    view = state.view(0)
    probs = action_probabilities(bot, view)
    assert sum(probs.values()) == pytest.approx(1.0)
    pol = mccfr_policy(game_for(view), 200, 0)
    st = state_for(view, _random.Random(0))
    enc = st.pos.setup.encoding
    want = {enc.decode(a): p for a, p in pol.action_probabilities(st).items() if p > 0}
    assert {d.action: p for d, p in probs.items()} == pytest.approx(want)
