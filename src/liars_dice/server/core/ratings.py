"""Ratings per rule set (issue 18): pure computation, no database.

What a rated game is, and what it does to the ratings:

* **Which games count.** A finished game at a table created ``rated`` (a rated
  table has a turn timer). It counts under its rule set's name
  (:func:`rule_set_of`): a preset's name only when the table plays that preset
  unchanged, a rules file's game under ``"custom: NAME"``
  (:func:`~liars_dice.server.core.rules_check.listed_name`), never under a
  preset's name. A preset with changed options is not a standard rule set:
  a rated table refuses it at creation.
* **Who is rated.** Each seat held by an account (``seats.account_id``) gets
  an openskill rating (Plackett-Luce, openskill's defaults: mu 25, sigma 25/3).
  A bot is an opponent of a fixed rating per level (:data:`BOT_RATINGS`) that
  never changes. A guest (a person's seat with no account) makes the game
  unrated for everyone (:func:`rate_game` returns nothing): a rated game is
  between registered players and bots only, so nobody can feed a rating with
  games against throwaway guest names.
* **The order.** From the game's finishing order (:func:`standings`): the
  winner is first, the first eliminated last. A person who leaves a rated
  game (the Leave command, or the seat taken by a stand-in bot after the grace
  period; coming back does not undo it) loses it: they are placed last among
  the seats still in at that moment, and what their stand-in bot does next
  counts for nobody.
* **Rebuild.** ``liars-dice ratings rebuild`` folds :func:`rate_game` over the
  stored games in the order of their ``finished`` events, as the running
  updates did (:mod:`~liars_dice.server.runtime.ratings_store`), so both give
  the same numbers.

Source: openskill.py (Plackett-Luce model, Weng and Lin 2011, "A Bayesian
approximation method for online ranking", JMLR 12).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from ...engine import PRESETS, Rules, State
from .rules_check import CUSTOM_PREFIX

#: The model every rating uses (openskill's defaults: mu 25, sigma 25/3, beta 25/6).
MODEL = PlackettLuce()
MU0: float = float(MODEL.mu)
SIGMA0: float = float(MODEL.sigma)

#: The fixed rating ``(mu, sigma)`` of each bot level (``bots.names.LEVELS``):
#: Easy (``random``) well below a new player, Medium (``probabilistic``) at a
#: new player's mean, Hard (``strong``) above it. A small sigma: a bot's
#: strength is known, so a game against one moves a rating about as much as
#: its result says. Never updated.
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (15.0, 1.0),
    "probabilistic": (25.0, 1.0),
    "strong": (32.0, 1.0),
}
#: A bot with no level (a program over the bot protocol): rated as Medium.
BOT_DEFAULT: tuple[float, float] = BOT_RATINGS["probabilistic"]


def conservative(mu: float, sigma: float) -> float:
    """The conservative rating the leaderboard ranks by: ``mu - 3 sigma``."""
    return mu - 3.0 * sigma


def rule_set_name(preset: str, rules: Rules) -> str | None:
    """The rule set a game of a table listed as ``preset`` with ``rules``
    counts under, or ``None`` when it counts under none (a preset with changed
    options).

    >>> rule_set_name("classic", PRESETS["classic"])
    'classic'
    >>> rule_set_name("custom: house", PRESETS["classic"].with_options(name="house", dice_per_player=3))
    'custom: house'
    >>> rule_set_name("classic", PRESETS["classic"].with_options(dice_per_player=3)) is None
    True
    """
    if preset.startswith(CUSTOM_PREFIX):
        return preset
    if PRESETS.get(preset) == rules:
        return preset
    return None


@dataclass(frozen=True, slots=True)
class Placing:
    """One seat's place in a finished game.

    :ivar seat: the seat (0-based).
    :ivar name: the name it played under.
    :ivar bot: the bot's registry name for a seat a bot held from the game's
        start, ``None`` for a person's seat (even one a stand-in bot finished).
    :ivar place: 1 for the winner, ``n`` for the first out.
    :ivar left: the person left the game (placed last among those still in then).
    """

    seat: int
    name: str
    bot: str | None
    place: int
    left: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "bot": self.bot, "place": self.place, "left": self.left}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "Placing":
        return Placing(int(d["seat"]), str(d["name"]), d.get("bot"), int(d["place"]), bool(d.get("left", False)))


def standings(state: State, departed: Sequence[tuple[int, int]], bots: Mapping[int, str]) -> list[Placing]:
    """The finishing order of an over game, best first.

    :param state: the game's final state (``state.is_over``).
    :param departed: ``(seat, rounds finished then)`` of each person who left
        the game, in the order they left.
    :param bots: the bot of each seat a bot held from the start.
    :returns: one :class:`Placing` per seat, place 1 first.
    :raises ValueError: the game is not over.

    A seat leaves the game at one moment: eliminated after round ``j``'s
    result (time ``j + 1``), or departed with ``k`` rounds finished (time
    ``k``, after any elimination of the round just finished). The last to
    leave is first; the winner, unless they had departed, is first of all.
    """
    if not state.is_over or state.winner is None:
        raise ValueError("Only a finished game has a finishing order.")
    players = state.game.players
    gone: dict[int, tuple[int, int, int]] = {}  # seat -> (time, 0 out / 1 left, order)
    left = set()
    for order, (seat, rounds) in enumerate(departed):
        if seat not in gone:
            gone[seat] = (rounds, 1, order)
            left.add(seat)
    for j, result in enumerate(state.results):
        for seat in result.out:
            if seat not in gone:
                gone[seat] = (j + 1, 0, seat)
    remaining = [s for s in range(len(players)) if s not in gone]
    # the winner first (only one seat is never out), then the latest to leave
    ranked = remaining + sorted(gone, key=lambda s: gone[s], reverse=True)
    return [
        Placing(seat, players[seat], bots.get(seat), place, seat in left)
        for place, seat in enumerate(ranked, start=1)
    ]


@dataclass(frozen=True, slots=True)
class Rated:
    """One rated seat before a game: its ``account_id`` and current rating."""

    account_id: int
    mu: float = MU0
    sigma: float = SIGMA0


def rate_game(placings: Sequence[Placing], people: Mapping[int, Rated]) -> dict[int, tuple[float, float]] | None:
    """The new ``(mu, sigma)`` of each account after one game.

    :param placings: the game's :func:`standings`.
    :param people: per person's seat, its account and rating before the game.
    :returns: ``{account_id: (mu, sigma)}``; ``None`` when the game counts for
        nobody: a person's seat has no account (a guest), or no seat has one.
    """
    persons = [p for p in placings if p.bot is None]
    if not persons or any(p.seat not in people for p in persons):
        return None
    teams = []
    ranks = []
    for p in placings:
        if p.bot is None:
            r = people[p.seat]
            mu, sigma = r.mu, r.sigma
        else:
            mu, sigma = BOT_RATINGS.get(p.bot, BOT_DEFAULT)
        teams.append([MODEL.rating(mu=mu, sigma=sigma)])
        ranks.append(float(p.place))
    new = MODEL.rate(teams, ranks=ranks)
    out: dict[int, tuple[float, float]] = {}
    for p, team in zip(placings, new):
        if p.bot is None:
            out[people[p.seat].account_id] = (float(team[0].mu), float(team[0].sigma))
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """A rated table's game, once finished: what the store rates.

    :ivar table_id: the table.
    :ivar game_no: the game's number at the table (1, 2, ...: "Play again").
    :ivar rule_set: what it counts under (:func:`rule_set_name`).
    :ivar placings: its :func:`standings`.
    """

    table_id: str
    game_no: int
    rule_set: str
    placings: tuple[Placing, ...]

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "game_no": self.game_no, "rule_set": self.rule_set,
                "placings": [p.to_json() for p in self.placings]}

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> "Outcome":
        return Outcome(str(d["table_id"]), int(d["game_no"]), str(d["rule_set"]),
                       tuple(Placing.from_json(p) for p in d["placings"]))


def outcome(table: Any) -> Outcome | None:
    """The :class:`Outcome` of ``table``'s game just finished (a
    :class:`~liars_dice.server.core.tables.Table` whose status is
    ``finished``), or ``None``: the table is not rated, its game is not over,
    or its rule set counts under no name."""
    from .tables import SeatKind, TableStatus  # tables imports nothing of this module

    if not table.rated or table.status is not TableStatus.FINISHED or table.state is None:
        return None
    rule_set = rule_set_name(table.preset, table.rules)
    if rule_set is None:
        return None
    bots = {s.index: s.bot for s in table.seats if s.kind is SeatKind.BOT and not s.replaced and s.bot is not None}
    placings = standings(table.state, table.departed, bots)
    return Outcome(table.id, table.game_number, rule_set, tuple(placings))
