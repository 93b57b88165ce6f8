"""Rule options and the presets.

One immutable :class:`Rules` value holds every option. A preset is nothing but a
named ``Rules`` value; the engine reads options and never a preset's name.

Sources: the seeds ``000_9899601612668d06.txt`` (``wild-stars``),
``003_c4013feaf8943fbd.txt`` (``aces-wild``), ``004_16cc4cb7912f53f9.txt``
(``classic``), and the rulings in ``shared/RULES.md``. The comparison presets
``openspiel`` and ``joker`` follow OpenSpiel's ``liars_dice`` and the dudo.ai
networks (``shared/peers/dudo-ai/README.md``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace
from typing import Any

from .actions import Action, Bid
from .echo import echo
from .errors import InvalidBidError, RulesError


#: The most dice one player may hold (:attr:`Rules.dice_per_player`, and any
#: starting count of :meth:`Game.create <liars_dice.engine.Game.create>`): far
#: beyond any table, small enough that a bid enumeration stays cheap.
MAX_DICE_PER_PLAYER = 100

#: The most seats a rule set may allow (:attr:`Rules.max_players`): TextArena's
#: Liar's Dice plays up to 15, the largest table of the programs we meet. Every
#: interface honours a rule set's ``max_players`` up to this bound.
MAX_PLAYERS = 15


class Ordering(str, enum.Enum):
    """How bids are ordered.

    ``PLAIN``: a raise is a higher quantity of any face, or the same quantity of
    a higher face; faces rank 1 (lowest) to ``faces``. (Seed 004, RULES.md
    "Ruling, raising"; OpenSpiel ``liars_dice``.)

    ``TRACK``: the bidding track of the Milton Bradley board game. Wild space k
    lies between number spaces 2k-1 and 2k, so number q -> wild k needs
    k >= q//2 + 1, wild k -> number q needs q >= 2k. The aces-wild
    half/double conversions are the same order. (Seed 000 "bidding track",
    seed 003 "Bidding on 1s", RULES.md.)


    ``HALF_UP``: the Perudo/Dudo conversions (RULES.md ``perudo``): a bid of
    q on another face -> wilds needs at least ceil(q/2) wilds; wilds k -> another
    face needs at least 2k+1. Wild space k lies between number spaces 2k and
    2k+1 (one number space later than on the track).
    """

    PLAIN = "plain"
    TRACK = "track"
    HALF_UP = "half_up"


class Loss(str, enum.Enum):
    """How many dice the loser of a challenge gives up.

    ``ONE``: one die (seeds 003, 004). ``DIFFERENCE``: the difference between
    the count and the bid quantity (seed 000 "Losing Dice").
    """

    ONE = "one"
    DIFFERENCE = "difference"


class Exact(str, enum.Enum):
    """What an exact count (count == quantity) does.

    ``CHALLENGER_LOSES``: the bid stands; the challenger loses (seed 004
    "Exact Quantity Bid", seed 003, OpenSpiel). ``ALL_BUT_BIDDER``: the perfect
    bid; every player except the bidder loses one die (seed 000 "A Perfect Bid").
    """

    CHALLENGER_LOSES = "challenger_loses"
    ALL_BUT_BIDDER = "all_but_bidder"


class Opener(str, enum.Enum):
    """Who opens the next round.

    ``LOSER``: the loser of the challenge, or the next player still in after
    them if they are out (seeds 003, 004; RULES.md). ``WINNER``: the winner of
    the challenge: the bidder when count >= quantity, else the challenger
    (seed 000 "Starting a New Round"; RULES.md).
    """

    LOSER = "loser"
    WINNER = "winner"


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a Liar's Dice rule set. Immutable and hashable.

    :ivar name: label for display and records; the engine never branches on it.
    :ivar faces: faces on a die, numbered 1..faces.
    :ivar wild_face: the face that counts for every other face in a count, or
        ``None`` for no wilds. A bid on the wild face always counts that face only.
    :ivar wilds_suspended_on_wild_opening: when the round's opening bid is on the
        wild face, the wild face counts only as itself for the rest of that round
        (seed 004 "One's Are Wild!").
    :ivar ordering: the bid order, see :class:`Ordering`.
    :ivar loss: see :class:`Loss`.
    :ivar exact: see :class:`Exact`.
    :ivar die_hard: on a perfect bid, a player with exactly one die who is not
        the challenger keeps it (seed 000 "Die Hard"). Only meaningful with
        ``Exact.ALL_BUT_BIDDER``.
    :ivar show_and_reroll: right after a bid, the bidder may show some hidden
        dice and must reroll the rest, keeping at least one hidden (seed 000
        "The Show and Reroll Rule").
    :ivar next_opener: see :class:`Opener`.
    :ivar dice_per_player: starting dice per player, 1 to
        :data:`MAX_DICE_PER_PLAYER` (100).
    :ivar min_players: fewest seats a game may have, at least 2.
    :ivar max_players: most seats a game may have, at most
        :data:`MAX_PLAYERS` (15, the most TextArena seats).
    :ivar star_symbol: display the wild face as a star (★) in the compact
        notation (``3★``); display only.
    :ivar face_names: display only: names for some faces as
        ``((face, singular, plural), ...)``, e.g. ``((1, "ace", "aces"),)`` so a
        message says "three aces" rather than "three 1s". Faces not named here
        are written as digits ("four 3s"). JSON lists are accepted.
    :ivar single_round: the game ends after the first challenge, won by the
        challenge winner (OpenSpiel ``liars_dice``, dudo.ai ``joker``).
    :ivar wild_opening: a normal round may open on the wild face. ``False`` in
        ``perudo`` ("Opening: any face but pacos"); a palifico round may open on
        any face regardless.
    :ivar calza: the player to move may, instead of raising or challenging,
        claim that the count is exactly the latest bid (RULES.md ``perudo``
        "Calza"). Exact: the caller gains one die, never beyond their starting
        count, and nobody loses; not exact: the caller loses one die. Either
        way the caller opens the next round.
    :ivar calza_min_players: calza is allowed only while at least this many
        players are still in (RULES.md: "not allowed when only two players are
        left", so 3 in ``perudo``).
    :ivar palifico: the first time a player is left with exactly one die while
        more than two players are still in, the next round is a palifico round
        that they open: wilds do not count, the opening may name any face, and a
        raise keeps the face (a player holding one die may change it, in plain
        order). Each player triggers at most one per game (RULES.md ``perudo``
        "Palifico").
    :raises RulesError: when options contradict each other (a track ordering
        with no wild face, a wild face outside the die, bad player bounds,
        calza or palifico in a single-round game, palifico with a perfect bid),
        or pass a bound: more than :data:`MAX_DICE_PER_PLAYER` dice each, more
        than :data:`MAX_PLAYERS` players. These checks are the only ones: every
        command, the server's rules upload and the integrations build their
        rules here, so a rules file is valid for all of them or for none.
    """

    name: str = "custom"
    faces: int = 6
    wild_face: int | None = 1
    wilds_suspended_on_wild_opening: bool = False
    ordering: Ordering = Ordering.PLAIN
    loss: Loss = Loss.ONE
    exact: Exact = Exact.CHALLENGER_LOSES
    die_hard: bool = False
    show_and_reroll: bool = False
    next_opener: Opener = Opener.LOSER
    dice_per_player: int = 5
    min_players: int = 2
    max_players: int = 6
    star_symbol: bool = False
    single_round: bool = False
    face_names: tuple[tuple[int, str, str], ...] = ()
    wild_opening: bool = True
    calza: bool = False
    calza_min_players: int = 3
    palifico: bool = False

    def __post_init__(self) -> None:
        # Coerce strings (from JSON) to the enums, before anything reads them.
        for f, enum_type in (("ordering", Ordering), ("loss", Loss), ("exact", Exact), ("next_opener", Opener)):
            value = getattr(self, f)
            if not isinstance(value, enum_type):
                try:
                    object.__setattr__(self, f, enum_type(value))
                except ValueError:
                    choices = ", ".join(repr(e.value) for e in enum_type)
                    raise RulesError(f"{echo(value)} is not a valid {f} option; choose from {choices}.") from None
        if not isinstance(self.name, str) or not self.name:
            raise RulesError(f"The rule option name must be a non-empty string, not {echo(self.name)}.")
        _check_text(self.name, "The rule option name")
        for f in ("faces", "dice_per_player", "min_players", "max_players", "calza_min_players"):
            value = getattr(self, f)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"The rule option {f} must be a whole number, not {echo(value)}.")
        for f in (
            "wilds_suspended_on_wild_opening", "die_hard", "show_and_reroll", "star_symbol", "single_round",
            "wild_opening", "calza", "palifico",
        ):
            if not isinstance(getattr(self, f), bool):
                raise RulesError(f"The rule option {f} must be true or false, not {echo(getattr(self, f))}.")
        if self.wild_face is not None and (not isinstance(self.wild_face, int) or isinstance(self.wild_face, bool)):
            raise RulesError(f"The rule option wild_face (the wild face) must be a face number or null, not {echo(self.wild_face)}.")
        if not 2 <= self.faces <= 9:
            raise RulesError(f"A die must have between 2 and 9 faces, not {echo(self.faces)}.")
        if self.wild_face is not None and not 1 <= self.wild_face <= self.faces:
            raise RulesError(f"The wild face {echo(self.wild_face)} is not a face of a {self.faces}-sided die.")
        if self.ordering is not Ordering.PLAIN and self.wild_face is None:
            raise RulesError(
                f"The {self.ordering.value} ordering needs a wild face for its wild spaces; "
                "set wild_face to a face, or ordering to 'plain'."
            )
        if self.dice_per_player < 1:
            raise RulesError("Each player needs at least one die.")
        if self.dice_per_player > MAX_DICE_PER_PLAYER:
            raise RulesError(
                f"A player may start with at most {MAX_DICE_PER_PLAYER} dice, "
                f"so dice_per_player cannot be {self.dice_per_player}."
            )
        if self.max_players > MAX_PLAYERS:
            raise RulesError(
                f"A table seats at most {MAX_PLAYERS} players, so max_players cannot be {self.max_players}."
            )
        if not 2 <= self.min_players <= self.max_players:
            raise RulesError("Player bounds must satisfy 2 <= min_players <= max_players.")
        if self.wilds_suspended_on_wild_opening and self.wild_face is None:
            raise RulesError("Wilds can only be suspended on a wild opening when there is a wild face.")
        if self.die_hard and self.exact is not Exact.ALL_BUT_BIDDER:
            raise RulesError("Die Hard protects a last die on a perfect bid, so it needs exact=all_but_bidder.")
        if self.star_symbol and self.wild_face is None:
            raise RulesError("The star symbol marks the wild face, so it needs a wild face.")
        if not self.wild_opening and self.wild_face is None:
            raise RulesError("wild_opening=false forbids opening on the wild face, so it needs a wild face.")
        if not self.wild_opening and self.wilds_suspended_on_wild_opening:
            raise RulesError(
                "wilds_suspended_on_wild_opening needs a round that opens on the wild face, "
                "so it cannot combine with wild_opening=false."
            )
        if self.calza and self.single_round:
            raise RulesError("calza gains or loses a die for later rounds, so it cannot combine with single_round=true.")
        if self.palifico and self.single_round:
            raise RulesError("palifico changes a later round, so it cannot combine with single_round=true.")
        if self.palifico and self.exact is Exact.ALL_BUT_BIDDER:
            raise RulesError(
                "palifico needs one loser per round (one player to open the palifico round), "
                "so it cannot combine with exact='all_but_bidder'."
            )
        if self.calza_min_players < 2:
            raise RulesError(f"calza_min_players must be at least 2, not {echo(self.calza_min_players)}.")
        object.__setattr__(self, "face_names", _face_names(self.face_names, self.faces))
        self._check_face_names_read_back()

    def _check_face_names_read_back(self) -> None:
        """Every name of :attr:`face_names` must read back as its own face
        (``parse_bid(describe_bid(b)) == b``): a name that the notation reads as
        another face ("sixes" for face 2, "5s", another face's name) or as a
        move ("liar") would make the words shown for a bid say another bid.

        :raises RulesError: naming the face and the name that reads otherwise.
        """
        from .notation import parse

        unnamed = replace(self, face_names=()) if self.face_names else self

        def read(text: str, rules: Rules) -> Action | None:
            try:
                return parse(text, rules)
            except InvalidBidError:
                return None

        for f, one, many in self.face_names:
            for quantity, word in ((1, one), (2, many)):
                bid = Bid(quantity, f)
                if (
                    read(f"{quantity} {word}", self) != bid
                    or read(f"{quantity} {word}", unnamed) not in (None, bid)
                    or read(word, unnamed) is not None
                ):
                    raise RulesError(
                        f"face_names: the name {echo(word)} of face {f} reads as another face or a move; "
                        "each face needs names of its own."
                    )

    # -- construction -------------------------------------------------------

    @staticmethod
    def preset(name: str) -> "Rules":
        """The preset called ``name`` (see :data:`PRESETS`).

        :raises RulesError: for an unknown name.
        """
        try:
            return PRESETS[name]
        except KeyError:
            known = ", ".join(sorted(PRESETS))
            raise RulesError(f"There is no rule set called {echo(name)}; the presets are {known}.") from None

    def with_options(self, **options: Any) -> "Rules":
        """A copy with some options changed. :raises RulesError: on a bad option."""
        known = [f.name for f in fields(self)]
        unknown = sorted(set(options) - set(known), key=str)
        if unknown:
            raise RulesError(f"Unknown rule option {echo(unknown[0])}; the options are {', '.join(known)}.")
        return replace(self, **options)

    def to_dict(self) -> dict[str, Any]:
        """Every option as JSON-ready data."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.value if isinstance(v, enum.Enum) else v
        out["face_names"] = [list(entry) for entry in self.face_names]
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Rules":
        """Inverse of :meth:`to_dict`; missing options take their defaults.

        :raises RulesError: on an unknown option or a bad value.
        """
        return Rules().with_options(**data)

    def to_json(self) -> str | dict[str, Any]:
        """The rules as a record or a rules file holds them (RECORD-FORMAT.md
        "rules"): the preset's name when these are a preset;
        ``{"preset": NAME, ...}`` with the options that differ when they carry
        a preset's name; else every option."""
        base = PRESETS.get(self.name)
        if base is None:
            return self.to_dict()
        if base == self:
            return self.name
        mine, theirs = self.to_dict(), base.to_dict()
        return {"preset": self.name, **{k: v for k, v in mine.items() if v != theirs[k]}}

    @staticmethod
    def from_json(data: Any) -> "Rules":
        """Inverse of :meth:`to_json`: a preset name, ``{"preset": NAME,
        ...options}`` (the options override the preset's), or an object of
        options (missing ones take their defaults).

        :raises RulesError: one sentence for an unknown preset or option, a
            value of the wrong type, or options that contradict each other.
        """
        if isinstance(data, str):
            return Rules.preset(data)
        if not isinstance(data, dict):
            raise RulesError(
                "Rules are a preset name or an object of rule options such as "
                '{"preset": "perudo", "calza": false}.'
            )
        opts = dict(data)
        if "preset" in opts:
            name = opts.pop("preset")
            if not isinstance(name, str):
                raise RulesError(f"preset names a preset, one of {', '.join(sorted(PRESETS))}; not {echo(name)}.")
            base = Rules.preset(name)
        else:
            base = Rules()
        bad = [k for k in opts if not isinstance(k, str)]
        if bad:
            raise RulesError(f"{echo(bad[0])} is not a rule option.")
        return base.with_options(**opts)

    # -- bid order ----------------------------------------------------------

    @property
    def plain_faces(self) -> tuple[int, ...]:
        """The faces that are not wild, ascending."""
        return tuple(f for f in range(1, self.faces + 1) if f != self.wild_face)

    def rank(self, quantity: int, face: int) -> int:
        """Position of the bid (quantity, face) in the bid order: a raise is a
        bid of strictly higher rank. Ranks are non-negative and dense from 0 in
        quantity 1 for :attr:`Ordering.PLAIN`.

        For the track: number space q with face index i (0-based among the
        non-wild faces, W of them) has rank (q-1)*W + q//2 + i; wild space k
        has rank (2k-1)*W + k - 1, which lies between number spaces 2k-1 and 2k.
        For :attr:`Ordering.HALF_UP`: number space q has rank
        (q-1)*W + (q-1)//2 + i and wild space k has rank 2k*W + k - 1, between
        number spaces 2k and 2k+1.
        """
        if self.ordering is Ordering.PLAIN:
            return (quantity - 1) * self.faces + (face - 1)
        w = self.faces - 1
        late = self.ordering is Ordering.HALF_UP
        if face == self.wild_face:
            if late:
                return 2 * quantity * w + quantity - 1
            return (2 * quantity - 1) * w + quantity - 1
        assert self.wild_face is not None  # a track has a wild face (checked in __post_init__)
        i = face - 1 if face < self.wild_face else face - 2
        if late:
            return (quantity - 1) * w + (quantity - 1) // 2 + i
        return (quantity - 1) * w + quantity // 2 + i

    def min_raise_quantity(self, prev_quantity: int, prev_face: int, face: int) -> int:
        """Smallest quantity of ``face`` that raises (prev_quantity, prev_face)."""
        if self.ordering is Ordering.PLAIN:
            return prev_quantity if face > prev_face else prev_quantity + 1
        wild = self.wild_face
        late = self.ordering is Ordering.HALF_UP
        if face == wild:
            if prev_face == wild:
                return prev_quantity + 1
            return (prev_quantity + 1) // 2 if late else prev_quantity // 2 + 1
        if prev_face == wild:
            return 2 * prev_quantity + 1 if late else 2 * prev_quantity
        i, j = self.plain_faces.index(face), self.plain_faces.index(prev_face)
        return prev_quantity if i > j else prev_quantity + 1

    def matches(self, die: int, face: int, wilds_active: bool) -> bool:
        """Whether one die counts toward a bid on ``face``."""
        return die == face or (wilds_active and die == self.wild_face and face != self.wild_face)

    # -- words --------------------------------------------------------------

    def face_label(self, face: int) -> str:
        """``"★"`` for the star face when :attr:`star_symbol`, else the digit."""
        return "★" if self.star_symbol and face == self.wild_face else str(face)

    def format_bid(self, bid: Bid) -> str:
        """Compact notation: ``4x5``, or ``3★`` for a star bid (python-chess's ``san``).

        >>> Rules.preset("wild-stars").format_bid(Bid(3, 1))
        '3★'
        """
        if self.star_symbol and bid.face == self.wild_face:
            return f"{bid.quantity}★"
        return f"{bid.quantity}x{bid.face}"

    def face_noun(self, face: int, plural: bool = True) -> str:
        """The face in words: its name from :attr:`face_names` (``"aces"``,
        ``"star"``), else the digit (``"3s"``, ``"3"``)."""
        for f, singular, many in self.face_names:
            if f == face:
                return many if plural else singular
        return f"{face}s" if plural else f"{face}"

    def describe_bid(self, bid: Bid) -> str:
        """Words for messages: ``four 3s``, ``one 5``, ``three stars``, ``two aces``
        (face names from :attr:`face_names`).

        >>> Rules.preset("aces-wild").describe_bid(Bid(3, 1))
        'three aces'
        """
        return f"{number_word(bid.quantity)} {self.face_noun(bid.face, bid.quantity != 1)}"

    def parse_action(self, text: str) -> Action:
        """Read a bid or a challenge as a person types it, in this rule set's
        words only: ``4x5``, ``4 5s``, ``four fives``, ``twenty one 5s``,
        ``liar``; ``3 stars``/``3★`` only where :attr:`star_symbol` is set;
        face names from :attr:`face_names` (``3 aces``). See
        :mod:`liars_dice.engine.notation`. Round trip:
        ``parse_bid(format_bid(b)) == parse_bid(describe_bid(b)) == b``.

        :raises InvalidBidError: for text that is not a bid or a challenge in
            these words, with one sentence naming the problem.

        >>> Rules.preset("classic").parse_action("liar")
        Challenge()
        """
        from .notation import parse

        return parse(text, self)

    def parse_bid(self, text: str) -> Bid:
        """:meth:`parse_action` for a bid only.

        :raises InvalidBidError: for text that is not a bid (a challenge word included).

        >>> Rules.preset("aces-wild").parse_bid("three aces")
        Bid(quantity=3, face=1)
        >>> Rules.preset("classic").parse_bid("9 stars")
        Traceback (most recent call last):
        ...
        liars_dice.engine.errors.InvalidBidError: classic has no 'stars': write the face as a number, such as '9 1s'.
        """
        action = self.parse_action(text)
        if not isinstance(action, Bid):
            raise InvalidBidError(f"{text.strip()!r} is a challenge, not a bid.")
        return action

    # -- wilds --------------------------------------------------------------

    def wilds_active_after_opening(self, face: int) -> bool:
        """Whether the wild face counts for other faces in a round opened on
        ``face``: never without a wild face; not when the opening names the wild
        face and :attr:`wilds_suspended_on_wild_opening` (seed 004 "One's Are
        Wild!"); otherwise yes."""
        wild = self.wild_face
        if wild is None:
            return False
        return not (self.wilds_suspended_on_wild_opening and face == wild)


#: The longest text option (a rule set's or a face's name).
TEXT_OPTION_MAX = 64


def _check_text(text: str, what: str) -> None:
    """Text options are printed to terminals and pages: printable characters
    only (no control, format, bidi or separator characters other than the
    space: an ESC in a rule set's name rewrote the terminal's title), at most
    :data:`TEXT_OPTION_MAX` of them.

    :raises RulesError: naming the option, never repeating the text.
    """
    if not text.isprintable():
        raise RulesError(f"{what} may hold only printable characters (no control, invisible or bidi characters).")
    if len(text) > TEXT_OPTION_MAX:
        raise RulesError(f"{what} may have at most {TEXT_OPTION_MAX} characters.")


def _face_names(value: Any, faces: int) -> tuple[tuple[int, str, str], ...]:
    """Validate and freeze :attr:`Rules.face_names` (lists from JSON become tuples)."""
    try:
        out = tuple((f, one, many) for f, one, many in value)
    except (TypeError, ValueError):
        raise RulesError("face_names is a list of [face, singular, plural] entries.") from None
    seen: set[int] = set()
    for f, one, many in out:
        if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= faces or f in seen:
            raise RulesError(f"face_names names {echo(f)}, which is not a distinct face of a {faces}-sided die.")
        if not isinstance(one, str) or not isinstance(many, str) or not one or not many:
            raise RulesError(f"face_names gives face {f} an empty or non-text name.")
        _check_text(one, f"A name of face {f}")
        _check_text(many, f"A name of face {f}")
        seen.add(f)
    return out


_NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
).split()


def number_word(n: int) -> str:
    """``4`` -> ``"four"``; numbers above twenty stay digits."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


#: The Milton Bradley board game (seed 000, RULES.md ``wild-stars``).
WILD_STARS = Rules(
    name="wild-stars",
    wild_face=1,
    ordering=Ordering.TRACK,
    loss=Loss.DIFFERENCE,
    exact=Exact.ALL_BUT_BIDDER,
    die_hard=True,
    show_and_reroll=True,
    next_opener=Opener.WINNER,
    star_symbol=True,
    face_names=((1, "star", "stars"),),
)

#: Aces wild with half/double conversions (seed 003, RULES.md ``aces-wild``).
ACES_WILD = Rules(
    name="aces-wild",
    wild_face=1,
    ordering=Ordering.TRACK,
    next_opener=Opener.LOSER,
    face_names=((1, "ace", "aces"),),
)

#: Ones wild unless the round opens on ones (seed 004, RULES.md ``classic``).
CLASSIC = Rules(
    name="classic",
    wild_face=1,
    wilds_suspended_on_wild_opening=True,
    ordering=Ordering.PLAIN,
    next_opener=Opener.LOSER,
)

#: OpenSpiel's ``liars_dice``: two players, one round, the highest face (6) wild,
#: plain ordering, count >= quantity means the challenger loses.
OPENSPIEL = Rules(
    name="openspiel",
    wild_face=6,
    ordering=Ordering.PLAIN,
    dice_per_player=1,
    min_players=2,
    max_players=2,
    single_round=True,
)

#: The dudo.ai networks' game (shared/peers/dudo-ai/README.md): two players,
#: one round, 1s wild and a bid on 1s counts 1s only, plain ordering.
JOKER = Rules(
    name="joker",
    wild_face=1,
    ordering=Ordering.PLAIN,
    min_players=2,
    max_players=2,
    single_round=True,
)

#: Perudo / Dudo as Board Game Arena plays it (RULES.md ``perudo``): pacos
#: wild, ceil(q/2) and 2q+1 conversions, no opening on pacos, calza, palifico.
PERUDO = Rules(
    name="perudo",
    wild_face=1,
    ordering=Ordering.HALF_UP,
    next_opener=Opener.LOSER,
    wild_opening=False,
    calza=True,
    calza_min_players=3,
    palifico=True,
    face_names=((1, "paco", "pacos"),),
)

#: Every preset by name.
PRESETS: dict[str, Rules] = {
    r.name: r for r in (WILD_STARS, ACES_WILD, CLASSIC, OPENSPIEL, JOKER, PERUDO)
}

#: The three rule sets of the seeds.
SEED_PRESETS: tuple[str, ...] = ("wild-stars", "aces-wild", "classic")
