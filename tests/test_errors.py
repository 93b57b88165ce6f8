"""Typed errors with stable codes (STYLE.md "The error tree"; issue 2 section 3:
"Applying an illegal action raises a typed error whose message names the rule.
The state stays unchanged")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from liars_dice.engine import (
    CHALLENGE,
    Bid,
    ChanceError,
    Game,
    GameOverError,
    IllegalActionError,
    InvalidBidError,
    LiarsDiceError,
    NotYourTurnError,
    Rules,
    RulesError,
    State,
)
from liars_dice.records import RecordError
from rule_helpers import new_round, play


def test_error_codes_are_stable() -> None:
    """The codes the network relies on never change (boardgame.io src/core/errors.ts style)."""
    assert LiarsDiceError.code == "error"
    assert InvalidBidError.code == "action/invalid_syntax"
    assert IllegalActionError.code == "action/illegal"
    assert NotYourTurnError.code == "action/inactive_player"
    assert GameOverError.code == "game/over"
    assert ChanceError.code == "chance/invalid"
    assert RulesError.code == "rules/invalid"
    assert RecordError.code == "record/invalid"


def test_error_tree() -> None:
    """STYLE.md: a base error, then bad syntax, illegal action, not your turn, game over; all ValueError."""
    for cls in (InvalidBidError, IllegalActionError, ChanceError, RulesError, RecordError):
        assert issubclass(cls, LiarsDiceError)
    assert issubclass(NotYourTurnError, IllegalActionError)
    assert issubclass(GameOverError, IllegalActionError)
    assert issubclass(LiarsDiceError, ValueError)


def _ws_round() -> State:
    """wild-stars, ann bid four 3s; bob to move with [1, 1, 4]."""
    s = new_round("wild-stars", {"ann": [3, 3, 1, 2], "bob": [1, 1, 4], "cy": [5, 6]})
    return play(s, "4x3")


def _opening() -> State:
    return new_round("classic", {"ann": [3, 3, 1], "bob": [1, 4, 4]})


def _over() -> State:
    return play(new_round("classic", {"ann": [3], "bob": [4]}), "2x6", "liar")


def _dealing() -> State:
    return Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state()


def _rerolling() -> State:
    return _ws_round().apply(Bid(4, 4), (1,))


REFUSED: list[tuple[str, Callable[[], State], Callable[[State], object], type[LiarsDiceError], str]] = [
    ("bid that does not raise", _ws_round, lambda s: s.apply(Bid(2, 1)), IllegalActionError, "does not raise"),
    ("same bid again", _ws_round, lambda s: s.apply(Bid(4, 3)), IllegalActionError, "does not raise"),
    ("quantity zero", _ws_round, lambda s: s.apply(Bid(0, 5)), IllegalActionError, "quantity"),
    ("quantity above dice in play", _ws_round, lambda s: s.apply(Bid(10, 5)), IllegalActionError, "9 dice in play"),
    ("face zero", _ws_round, lambda s: s.apply(Bid(5, 0)), IllegalActionError, "face"),
    ("face seven", _ws_round, lambda s: s.apply(Bid(5, 7)), IllegalActionError, "face"),
    ("not an action", _ws_round, lambda s: s.apply("4x5"), IllegalActionError, "neither a bid nor a challenge"),
    ("challenge with no bid", _opening, lambda s: s.apply(CHALLENGE), IllegalActionError, "no bid to challenge"),
    ("out of turn", _ws_round, lambda s: s.apply(Bid(5, 3), seat=2), NotYourTurnError, "bob's turn, not cy's"),
    ("no such seat", _ws_round, lambda s: s.apply(Bid(5, 3), seat=7), NotYourTurnError, "no seat"),
    ("show not in hand", _ws_round, lambda s: s.apply(Bid(5, 3), (6,)), IllegalActionError, "hidden dice"),
    ("show leaving no die", _ws_round, lambda s: s.apply(Bid(5, 3), (1, 1, 4)), IllegalActionError, "at least one hidden die"),
    ("show with a challenge", _ws_round, lambda s: s.apply(CHALLENGE, (1,)), IllegalActionError, "right after a bid"),
    ("show without show-and-reroll", _opening, lambda s: s.apply(Bid(2, 3), (3,)), IllegalActionError, "no show-and-reroll"),
    ("bid after game over", _over, lambda s: s.apply(Bid(1, 2)), GameOverError, "over"),
    ("deal after game over", _over, lambda s: s.deal([[4], []]), GameOverError, "over"),
    ("roll after game over", _over, lambda s: s.roll(_NoDice()), GameOverError, "over"),
    ("bid before the deal", _dealing, lambda s: s.apply(Bid(1, 2)), IllegalActionError, "rolled"),
    ("deal with a wrong count", _dealing, lambda s: s.deal([[1, 2], [3, 4, 5, 6, 1]]), ChanceError, "holds 5 dice"),
    ("deal with a face out of range", _dealing, lambda s: s.deal([[1, 2, 3, 4, 7], [1] * 5]), ChanceError, "7 is not a face"),
    ("deal with a bool face", _dealing, lambda s: s.deal([[1, 2, 3, 4, True], [1] * 5]), ChanceError, "not a face"),
    ("deal twice", _opening, lambda s: s.deal([[1, 2, 3], [1, 2, 3]]), ChanceError, "already rolled"),
    ("roll when a bid is due", _opening, lambda s: s.roll(_NoDice()), ChanceError, "No dice are due"),
    ("reroll with none due", _ws_round, lambda s: s.reroll((1, 2)), ChanceError, "No reroll is due"),
    ("reroll of the wrong length", _rerolling, lambda s: s.reroll((1,)), ChanceError, "exactly 2 hidden dice"),
    ("reroll face out of range", _rerolling, lambda s: s.reroll((1, 9)), ChanceError, "9 is not a face"),
    ("bid while a reroll is due", _rerolling, lambda s: s.apply(Bid(5, 5)), IllegalActionError, "must reroll"),
]


class _NoDice:
    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:  # pragma: no cover - never reached
        raise AssertionError("no roll was due")


@pytest.mark.parametrize("name, make, act, error, fragment", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_action_raises_typed_error_and_leaves_state_unchanged(name, make, act, error, fragment) -> None:
    """Each refused action raises its typed error, with one sentence naming the
    rule, and the state equals an independently built copy afterwards."""
    state, twin = make(), make()
    assert state == twin and state is not twin
    snapshot = (repr(state), state.legal_actions(), state.legal_shows())
    with pytest.raises(error) as e:
        act(state)
    assert type(e.value) is error, f"{name}: {type(e.value).__name__}"
    assert fragment.lower() in e.value.message.lower(), e.value.message
    assert e.value.message.endswith(".") and e.value.message.count(". ") == 0, e.value.message
    assert e.value.code == error.code
    assert state == twin, f"{name} changed the state"
    assert (repr(state), state.legal_actions(), state.legal_shows()) == snapshot


def test_is_legal_agrees_with_apply() -> None:
    """State.is_legal(action) is True exactly when apply accepts it."""
    s = _ws_round()
    for q in range(0, 12):
        for f in range(0, 8):
            ok = True
            try:
                s.apply(Bid(q, f))
            except IllegalActionError:
                ok = False
            assert s.is_legal(Bid(q, f)) == ok


def test_states_are_immutable() -> None:
    """States are values: no attribute can be set (STYLE.md "pure state and transitions")."""
    s = _ws_round()
    with pytest.raises(AttributeError):
        s.dice = (1, 1, 1)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.extra = 1  # type: ignore[attr-defined]
    assert s != tuple(s), "a state never equals a plain tuple"


def test_solver_arena_and_bot_errors_join_the_tree() -> None:
    """Issue 8 "One error tree": SolverError, EntrantError and the unknown-bot error
    derive from LiarsDiceError and carry stable codes."""
    from liars_dice.arena import EntrantError
    from liars_dice.bots import UnknownBotError
    from liars_dice.solver.tree import SolverError

    assert SolverError.code == "solver/invalid"
    assert EntrantError.code == "arena/entrant"
    assert UnknownBotError.code == "bot/unknown"
    for cls in (SolverError, EntrantError, UnknownBotError):
        assert issubclass(cls, LiarsDiceError)


def test_unknown_bot_names_the_known_ones() -> None:
    from liars_dice.arena import parse_entrants
    from liars_dice.bots import UnknownBotError, make_bot

    with pytest.raises(UnknownBotError, match=r"There is no bot called 'grandmaster'; choose from .*random") as e:
        make_bot("grandmaster")
    assert e.value.code == "bot/unknown"
    from liars_dice.arena import EntrantError

    with pytest.raises(EntrantError) as e2:
        parse_entrants("random,grandmaster")
    assert e2.value.code == "arena/entrant"


def test_solver_refusals_are_liars_dice_errors() -> None:
    from liars_dice.solver import solve

    with pytest.raises(LiarsDiceError) as e:
        solve("classic", (6, 6))
    assert e.value.code == "solver/invalid"


def test_every_error_class_below_the_server_is_in_the_tree() -> None:
    """Every exception class of the library layers (engine to arena) derives from
    LiarsDiceError and has its own code; private control-flow classes excepted."""
    import importlib
    import inspect
    import pkgutil

    import liars_dice

    codes: dict[str, type] = {}
    for info in pkgutil.walk_packages(liars_dice.__path__, "liars_dice."):
        if info.name.split(".")[1] in {"server", "cli", "integrations"}:
            continue
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if not (inspect.isclass(cls) and issubclass(cls, BaseException)) or cls.__module__ != info.name:
                continue
            if name.startswith("_"):
                continue
            assert issubclass(cls, LiarsDiceError), f"{info.name}.{name} is not a LiarsDiceError"
            assert "code" in vars(cls), f"{info.name}.{name} has no code of its own"
            assert cls.code not in codes, f"{info.name}.{name} reuses {cls.code!r} of {codes[cls.code].__name__}"
            codes[cls.code] = cls
    assert len(codes) >= 15
