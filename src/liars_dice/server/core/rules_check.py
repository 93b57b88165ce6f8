"""The rules of a new table, within a server's limits: a preset with options,
or an uploaded rules file, and the table's seats and turn timer.

Pure: the runtime calls these before any change is made (the client's text
was cleaned once at the edge, :mod:`liars_dice.server.edge.guard`).
"""

from __future__ import annotations

from typing import Any

from ...engine import PRESETS, LiarsDiceError, Rules, RulesError
from ...engine.echo import echo
from ...records import parse_rules_text
from .config import CUSTOM_PREFIX as CUSTOM_PREFIX, Settings
from .errors import TableInvalid
from .explain import bounded
from .messages import CreateTable, RulesQuery
from .tables import rules_summary


def rules_for(settings: Settings, req: CreateTable) -> Rules:
    """The rules of a create request, within ``settings``' limits.

    :raises TableInvalid: naming what does not fit (the rules file's own
        sentence, the preset or option, the seats or the turn timer; a rated
        table without a turn timer, or with a preset's options changed).
    """
    st = settings
    if req.rules_text is not None:  # an uploaded or pasted rules file (issue 9)
        rules = parsed_file(st, req)
    else:
        rules = preset_with(st, req.preset, req.options)
    lo, hi = max(rules.min_players, st.seats_min), min(rules.max_players, st.seats_max)
    if not lo <= req.seats <= hi:
        raise TableInvalid(f"{rules.name} is played here by {lo} to {hi} players, not {echo(req.seats)}.")
    if req.turn_timer is not None and not st.turn_timer_min <= req.turn_timer <= st.turn_timer_max:
        raise TableInvalid(
            f"A turn timer runs {st.turn_timer_min} to {st.turn_timer_max} seconds, not {echo(req.turn_timer)}."
        )
    if req.rated:
        if req.turn_timer is None:
            raise TableInvalid(
                f"A rated table has a turn timer: choose {st.turn_timer_min} to {st.turn_timer_max} seconds a turn."
            )
        if req.rules_text is None and PRESETS[req.preset] != rules:
            raise TableInvalid(
                f"A rated table plays a standard rule set: {req.preset} unchanged, or a rules file of its own name."
            )
    return rules



def listed_name(rules: Rules) -> str:
    """The name a table from a rules file is listed and counted under (its
    ``preset``): the preset's name when the file's rules are exactly that
    preset, else ``"custom: "`` and the file's own name (issue 16, fault 6: a
    3-faced, 1-die rule set called itself ``classic``, and was listed as
    ``classic`` in the lobby and counted as ``classic`` in players' histories
    and in the ``bots_learn`` filter). No preset's name starts with ``custom:``,
    so a file's games never mix with a preset's."""
    if PRESETS.get(rules.name) == rules:
        return rules.name
    return CUSTOM_PREFIX + rules.name


def rules_file(settings: Settings, text: str) -> Rules:
    """The rule set of a rules file's text, as a table here takes it (the same
    for a new table and for its form's preview).

    :raises TableInvalid: the file does not read, or its dice do not fit this server.
    """
    try:
        rules = parse_rules_text(text, "The rules file")
    except RulesError as e:
        raise TableInvalid(e.message) from None
    top = settings.dice_per_player_max
    if not 1 <= rules.dice_per_player <= top:
        raise TableInvalid(f"Each player starts with 1 to {top} dice here.")
    return rules


def parsed_file(settings: Settings, req: CreateTable | RulesQuery) -> Rules:
    """The rule set of ``req.rules_text``: the one the edge's gate parsed and
    checked (it sets ``_parsed_rules``), so an upload is read once; parsed here
    only for a request that did not pass the gate (a test, a direct call).

    :raises TableInvalid: as :func:`rules_file`.
    """
    parsed = req._parsed_rules
    if isinstance(parsed, Rules):
        return parsed
    assert req.rules_text is not None
    return rules_file(settings, req.rules_text)


def summary_of_file(settings: Settings, req: RulesQuery) -> dict[str, Any]:
    """``POST /api/rules/summary`` with ``rules_text``: the rules file's rules in
    the engine's words, the preview of issue 17's create form.

    :raises TableInvalid: as :func:`rules_file`.
    """
    return {"summary": rules_summary(parsed_file(settings, req))}


def preset_with(settings: Settings, preset: str, options: dict[str, Any]) -> Rules:
    """A preset with some options changed, within ``settings``' limits.

    :raises TableInvalid: naming the unknown preset or the bad option.
    """
    if preset not in PRESETS:
        raise TableInvalid(f"There is no rule set called {echo(preset)}; choose from {', '.join(PRESETS)}.")
    rules = PRESETS[preset]
    if options:
        opts = {k: v for k, v in options.items() if k != "name"}
        try:
            rules = rules.with_options(**opts)
        except (LiarsDiceError, TypeError, ValueError) as e:
            msg = e.message if isinstance(e, LiarsDiceError) else f"Bad rule option: {bounded(str(e), 120)}."
            raise TableInvalid(msg) from None
        dpp = rules.dice_per_player
        if not isinstance(dpp, int) or not 1 <= dpp <= settings.dice_per_player_max:
            raise TableInvalid(f"Each player starts with 1 to {settings.dice_per_player_max} dice here.")
    return rules


def summary_of(settings: Settings, preset: str, options: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/rules/summary``: a preset with options, in the engine's
    words (``{"summary": [{"topic", "sentence"}, ...]}``), for the create form.

    :raises TableInvalid: naming the unknown preset or the bad option.
    """
    return {"summary": rules_summary(preset_with(settings, preset, options))}
