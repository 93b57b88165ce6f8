"""The presets as people meet them: a display name and one line each, which
are research presets, and the default rule set.

This is the one source of these words for the terminal and the browser (the
server sends :func:`catalog_json`; the table form hides the presets with
``research`` set, which stay available to rules files and the API). Sources:
the presets of :mod:`liars_dice.engine.rules` and their seeds and rulings.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import PRESETS, Rules


@dataclass(frozen=True, slots=True)
class PresetInfo:
    """How one preset is offered to people. Immutable.

    :ivar preset: the preset's name (a key of :data:`~liars_dice.engine.rules.PRESETS`).
    :ivar title: its display name, with what sets it apart in brackets
        (``"Classic (ones wild)"``).
    :ivar short: a shorter name for tight places such as a round's header.
    :ivar line: one sentence saying what is special about it.
    :ivar research: a single-round comparison preset (OpenSpiel's, dudo.ai's),
        not offered in the table form.
    """

    preset: str
    title: str
    short: str
    line: str
    research: bool = False


#: Every preset, in the order a form offers them (the default first).
PRESET_INFO: dict[str, PresetInfo] = {
    info.preset: info
    for info in (
        PresetInfo(
            "classic", "Classic (ones wild)", "Classic",
            "Ones are wild unless a round opens on ones; the loser of a challenge gives up one die.",
        ),
        PresetInfo(
            "perudo", "Perudo", "Perudo",
            "The South American game: pacos (ones) are wild, calza wins a die back, and a player down to "
            "one die opens a palifico round.",
        ),
        PresetInfo(
            "wild-stars", "Milton Bradley's Liar's Dice (stars wild, show and reroll)", "Milton Bradley",
            "The 1987 board game: stars are wild, bids move along a track, you may show dice and reroll "
            "the rest, and a wrong call costs the difference.",
        ),
        PresetInfo(
            "aces-wild", "Aces wild", "Aces wild",
            "Aces (ones) are wild; a bid on aces needs about half the quantity, and back again about double.",
        ),
        PresetInfo(
            "openspiel", "OpenSpiel's Liar's Dice (research)", "OpenSpiel",
            "A research preset: two players, one round, one die each and sixes wild, as OpenSpiel's liars_dice.",
            research=True,
        ),
        PresetInfo(
            "joker", "dudo.ai's Joker (research)", "Joker",
            "A research preset: two players, one round, ones wild, as the dudo.ai networks play.",
            research=True,
        ),
    )
}

#: The rule set a new game starts with, in the terminal and in the browser.
DEFAULT_PRESET = "classic"

def preset_info(rules: Rules) -> PresetInfo | None:
    """The preset ``rules`` are, unchanged, or ``None`` for any other rule set
    (a rules file's, even one that starts from a preset)."""
    info = PRESET_INFO.get(rules.name)
    return info if info is not None and PRESETS[info.preset] == rules else None


def rule_set_title(rules: Rules) -> str:
    """The display name of ``rules``: the preset's title, else its own ``name``.

    >>> rule_set_title(Rules.preset("classic")), rule_set_title(Rules.preset("perudo").with_options(name="house"))
    ('Classic (ones wild)', 'house')
    """
    info = preset_info(rules)
    return info.title if info is not None else rules.name


def rule_set_short(rules: Rules) -> str:
    """The short display name of ``rules``: the preset's, else its own ``name``."""
    info = preset_info(rules)
    return info.short if info is not None else rules.name


def catalog_json() -> list[dict[str, str | bool]]:
    """Every preset for a form, in :data:`PRESET_INFO`'s order:
    ``[{"preset", "title", "short", "line", "research", "default"}, ...]``.

    >>> [p["preset"] for p in catalog_json() if not p["research"]]
    ['classic', 'perudo', 'wild-stars', 'aces-wild']
    """
    return [
        {"preset": i.preset, "title": i.title, "short": i.short, "line": i.line, "research": i.research,
         "default": i.preset == DEFAULT_PRESET}
        for i in PRESET_INFO.values()
    ]
