"""``liars-dice play``: a whole game in the terminal, against bots or watching them.

This module holds the command and its set-up and imports only Typer at the
top (start-up stays quick); the game itself is
:class:`~liars_dice.cli.session.PlaySession`. Dice are provably fair
(:class:`~liars_dice.engine.FairRounds`, ``docs/fair-dice.md``): each round's
seed comes from :class:`~liars_dice.engine.SecureDice`, or from ``--seed``,
which makes the whole game (dice, bots, opener) reproducible; a ``--record``
carries every round's commitment and seed, so ``liars-dice verify`` checks it.
At a terminal, ``play`` offers another game with the same settings at the end.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from .app import Command, app

if TYPE_CHECKING:
    from rich.console import Console

def seat_bots(kinds: Sequence[str], n: int) -> list[str]:
    """``n`` bot kinds from the ``--bots`` list, cycled: ``[a, b]`` for 3 seats is ``[a, b, a]``."""
    return [kinds[i % len(kinds)] for i in range(n)]


def _fail(console: Console, message: str) -> typer.Exit:
    from rich.text import Text

    # one sentence, never broken by the terminal's width (a long path was cut mid-name)
    console.print(Text(message, style="red"), soft_wrap=True)
    return typer.Exit(2)


def _line_editing() -> None:
    """Line editing and history for typed bids, where the platform has ``readline``."""
    try:
        import readline  # noqa: F401  (importing it is enough: input() then edits lines)
    except ImportError:  # pragma: no cover - Windows without pyreadline
        pass


def numbered(path: Path, game_no: int) -> Path:
    """The record file of the ``game_no``-th game of a sitting: ``game.json``,
    then ``game-2.json``, ``game-3.json``..."""
    return path if game_no == 1 else path.with_name(f"{path.stem}-{game_no}{path.suffix}")


@app.command("play", cls=Command)
def play_command(
    rules: str = typer.Option(
        "classic", "--rules", "-r",  # engine.catalog.DEFAULT_PRESET (a test keeps them equal; start-up imports Typer only)
        help="Rule set: wild-stars, aces-wild, classic, perudo, or a TOML/JSON rules file (liars-dice rules --schema).",
    ),
    players: int | None = typer.Option(
        None, "--players", "-p", min=2, max=15,
        help="Seats at the table, 2 to the rule set's most (6 in the presets, 15 at most; default 4).",
    ),
    seed: int | None = typer.Option(None, "--seed", help="Seed for dice, bots and opener: a reproducible game."),
    name: str = typer.Option("you", "--name", "-n", help="Your name at the table."),
    bots: str = typer.Option(
        "probabilistic", "--bots", "-b",  # bots.names.DEFAULT_BOT (a test keeps them equal)
        help="Bots for the other seats, comma-separated, cycled: random (Easy), probabilistic (Medium), strong (Hard).",
    ),
    watch: bool = typer.Option(False, "--watch", "-w", help="Bots in every seat; print the whole game."),
    record: Path | None = typer.Option(None, "--record", help="Save the game record (JSON) to this file."),
    start: str | None = typer.Option(
        None, "--start", help="Who opens the first round (a player's name); default: random."
    ),
    delay: float = typer.Option(
        -1.0, "--delay", show_default=False, min=-1.0, max=60.0,
        help="Seconds after each bot move, 0 to 60; the pause after a reveal you only watch scales with it. "
        "Default: 0.7 at a terminal, none when the output is piped; 0 for no pauses.",
    ),
    model: Path | None = typer.Option(
        None, "--model", help="An opponent model of you (liars-dice model fit --player NAME): the bots that take "
        "models (strong) play against it.",
    ),
) -> None:
    """Play Liar's Dice against bots in the terminal, or --watch bots play.

    With no options: classic rules, four players, you against three
    probabilistic bots. Type bids like 4x5 or 'four fives', 'liar' to
    challenge, '?' for the legal raises and your odds. When you are out you
    may watch the rest or skip to the result; at the end, play again.
    """
    import random
    import secrets

    from rich.console import Console

    from ..bots import REGISTRY, Bot, bot_names, level, make_bot
    from ..engine import PRESETS, FairRounds, Game, RulesError, SecureDice, SeededDice
    from .session import DEFAULT_DELAY, PlaySession, Quit, save_record, welcome

    interactive = not watch and sys.stdin is not None and sys.stdin.isatty()
    # Piped output is laid out for 80 columns whatever COLUMNS says; a terminal uses its width.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 80)
    try:
        if rules in PRESETS:  # a preset needs no records package (pydantic): start-up
            rule_set = PRESETS[rules]
        else:
            from ..records import load_rules

            rule_set = load_rules(rules)
    except RulesError as e:
        raise _fail(console, e.message) from None
    if players is None:
        players = max(rule_set.min_players, min(4, rule_set.max_players))
    kinds = [k.strip() for k in bots.split(",") if k.strip()]
    if not kinds:
        raise _fail(console, "--bots needs at least one bot name, such as probabilistic.")
    for k in kinds:
        if k not in REGISTRY:
            from ..bots.names import LEVELS

            # The table labels bots by level (Easy, Medium, Hard); a player may type one.
            named = {lv.lower(): name for name, lv in LEVELS.items()}
            if k.lower() in named:
                wanted = named[k.lower()]
                raise _fail(console, f"{k!r} is a level: the {LEVELS[wanted]} bot is called {wanted!r} (--bots {wanted}).")
            choices = ", ".join(f"{b} ({LEVELS[b]})" if b in LEVELS else b for b in sorted(REGISTRY))
            raise _fail(console, f"There is no bot called {k!r}; choose from {choices}.")
    if record is not None:
        problem = record_path_problem(record)
        if problem:
            raise _fail(console, problem)
    name = name.strip()
    if not watch and not name:
        raise _fail(console, "--name cannot be empty.")
    n_bots = players if watch else players - 1
    names = bot_names(n_bots, seed, taken=() if watch else (name,))
    seat_names = names if watch else [name, *names]
    seat_kinds = seat_bots(kinds, n_bots)
    try:
        game = Game.create(rule_set, seat_names)
    except RulesError as e:
        raise _fail(console, e.message) from None
    rng = random.Random(seed)
    if start is None:
        first = rng.randrange(players) if seed is not None else secrets.randbelow(players)
    else:
        try:
            first = game.seat(start)
        except RulesError:
            players_list = ", ".join(seat_names)
            raise _fail(console, f"--start names nobody at the table; the players are {players_list}.") from None
    if -1 < delay < 0:
        raise _fail(console, "--delay takes seconds from 0 to 60.")
    explicit = delay >= 0  # -1: not given (a float default keeps Typer's parsing free of pydantic)
    pace = delay if explicit else (DEFAULT_DELAY if sys.stdout.isatty() else 0.0)
    models = {}
    if model is not None:
        if watch:
            raise _fail(console, "--model gives the bots a model of you, and with --watch you do not play.")
        problem, fitted = read_model(model, rule_set)
        if problem:
            raise _fail(console, problem)
        models = {name: fitted}
    if interactive:
        _line_editing()
    shown_kinds = [level(k) or k for k in seat_kinds]  # "Medium", or the kind of a bot with no level
    labels = shown_kinds if watch else ["", *shown_kinds]
    game_no = 1
    while True:
        # Provably fair dice (docs/fair-dice.md): a round seed per deal, from `secrets`, or from
        # --seed for a reproducible game; the record carries them and `liars-dice verify` checks it.
        dice = FairRounds(SeededDice(seed) if seed is not None else SecureDice())
        bot_objs: list[Bot | None] = [
            make_bot(k, None if seed is None else seed * 1000 + i) for i, k in enumerate(seat_kinds)
        ]
        if not watch:
            bot_objs = [None, *bot_objs]
        for bot in bot_objs:
            set_models = getattr(bot, "set_models", None)
            if models and set_models is not None:
                set_models(models)  # the person's own fit: trusted (bots/strong.py step 4)
        session = PlaySession(console, game, bot_objs, dice, first, labels, pause=interactive, delay=pace)
        session.watch_delay = pace if explicit else DEFAULT_DELAY
        path = numbered(record, game_no) if record is not None else None
        if path is not None:
            session.before_winner_line = lambda s=session, p=path: save_record(console, s, p)
        if game_no == 1:
            welcome(console, session, watch)
        try:
            session.run()
        except (EOFError, KeyboardInterrupt, Quit):
            console.print()
            console.print("Game stopped before the end; nobody wins this one. Thanks for playing!", style="bold")
            if path is not None:
                save_record(console, session, path)
            return
        if not interactive or not _again(console):
            return
        game_no += 1
        # The same settings; a seeded sitting moves to the next seed, so the next game differs yet replays.
        if seed is not None:
            seed += 1
            rng = random.Random(seed)
        if start is None:
            first = rng.randrange(players) if seed is not None else secrets.randbelow(players)


def _again(console: Console) -> bool:
    """Ask whether to play another game with the same settings; end of input is no."""
    while True:
        try:
            text = console.input("Play again with the same settings? (y/n) ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return False
        if text in ("y", "yes"):
            return True
        if text in ("n", "no", "q", "quit", "exit", ""):
            console.print("Thanks for playing!", style="bold")
            return False
        console.print("Type y for another game, or n to stop.", style="red")


def record_path_problem(path: Path) -> str | None:
    """Why the game record could not be saved to ``path`` (one sentence), or
    ``None``: checked before the game, so a finished game is never lost to a
    bad ``--record`` (:func:`~liars_dice.records.writing.output_path_problem`)."""
    from ..records.writing import output_path_problem

    return output_path_problem("--record", path, "game.json")


def read_model(path: Path, rules: Any) -> tuple[str | None, Any]:
    """The opponent model in ``path`` (``liars-dice model fit``), checked
    against ``rules``: ``(None, model)``, or ``(one sentence, None)`` when it
    cannot be read or was fitted under other rules (as the arena's ``--model``)."""
    from ..bots.opponent_model import MAX_MODEL_BYTES, ModelError, OpponentModel
    from ..records.reading import open_regular, read_bounded

    try:
        with open_regular(str(path)) as f:
            raw = read_bounded(f, MAX_MODEL_BYTES)
        fitted = OpponentModel.loads(raw)
        fitted.check_rules(rules)
    except OSError as e:
        return f"Cannot read the model {path}: {e.strerror}.", None
    except ModelError as e:
        return f"{path}: {e.message}", None
    return None, fitted
