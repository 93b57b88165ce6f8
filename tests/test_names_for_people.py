"""Names for people, not programmers (issue 17 "What friends expect at a
table"): rule sets by display names with one line each, research presets
marked, one default rule set and one default bot for terminal and browser,
rules text without code notation, bots by level with names that read like
players."""

from __future__ import annotations

import inspect
import re

import pytest

from liars_dice.bots import DEFAULT_BOT, LEVELS, REGISTRY, bot_names, level
from liars_dice.bots.names import NAMES, levels_json
from liars_dice.engine import PRESETS, Rules
from liars_dice.engine.catalog import DEFAULT_PRESET, PRESET_INFO, catalog_json, rule_set_title
from liars_dice.engine.summary import rules_summary


def test_every_preset_has_a_display_name_and_one_line() -> None:
    """The issue's names: "Milton Bradley's Liar's Dice (stars wild, show and
    reroll)", "Perudo", "Classic (ones wild)", "Aces wild"."""
    assert set(PRESET_INFO) == set(PRESETS)
    titles = {k: rule_set_title(Rules.preset(k)) for k in PRESETS}
    assert titles["wild-stars"] == "Milton Bradley's Liar's Dice (stars wild, show and reroll)"
    assert (titles["perudo"], titles["classic"], titles["aces-wild"]) == ("Perudo", "Classic (ones wild)", "Aces wild")
    for info in PRESET_INFO.values():
        assert info.line.endswith(".") and "\n" not in info.line and len(info.line) <= 160
    assert rule_set_title(Rules.preset("perudo").with_options(dice_per_player=3)) == "perudo"  # not the preset


def test_research_presets_are_marked_and_the_default_is_offered() -> None:
    """`openspiel` and `joker` (single-round research presets) are not offered
    in the table form; the default is one the form offers."""
    research = {p["preset"] for p in catalog_json() if p["research"]}
    assert research == {"openspiel", "joker"} == {k for k, r in PRESETS.items() if r.single_round}
    defaults = [p["preset"] for p in catalog_json() if p["default"]]
    assert defaults == [DEFAULT_PRESET] and not PRESET_INFO[DEFAULT_PRESET].research


def test_the_terminal_uses_the_shared_defaults() -> None:
    """One default rule set and one default bot, in the terminal and (through
    these constants) in the browser."""
    from liars_dice.cli.play import play_command

    params = inspect.signature(play_command).parameters
    assert params["rules"].default.default == DEFAULT_PRESET
    assert params["bots"].default.default == DEFAULT_BOT


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_rules_text_has_no_code_notation(preset: str) -> None:
    """The rules text said "q -> q//2 + 1" and "ceil(q/2)"; now words and an example."""
    text = " ".join(s for _, s in rules_summary(Rules.preset(preset)))
    assert not re.search(r"->|//|ceil|\bq\b|\bk\b|\d[a-rt-z]\b", text), text


def test_every_registered_bot_has_a_level_easiest_first() -> None:
    assert set(LEVELS) == set(REGISTRY)
    assert [level(k) for k in ("random", "probabilistic", "strong")] == ["Easy", "Medium", "Hard"]
    assert [b["level"] for b in levels_json()] == ["Easy", "Medium", "Hard"]
    assert level("cmd:./my-bot") is None and LEVELS[DEFAULT_BOT] == "Medium"


def test_bot_names_read_like_players_follow_the_seed_and_never_collide() -> None:
    assert bot_names(5, seed=7) == bot_names(5, seed=7)
    assert bot_names(5, seed=7) != bot_names(5, seed=8)
    for seed in range(50):
        names = bot_names(14, seed, taken=("you", "ada", "ZOE"))
        assert len(set(n.casefold() for n in names)) == 14
        assert not {"ada", "zoe", "you"} & {n.casefold() for n in names}
    assert all(re.fullmatch(r"[A-Z][a-z]+", n) for n in NAMES)
    with pytest.raises(ValueError, match="free bot names"):
        bot_names(len(NAMES) + 1)
