"""``liars-dice play``: a whole game in the terminal, against bots or watching them.

The loop (:class:`PlaySession`) drives the engine through its checked
transitions, asks the person for bids in the notation of
:meth:`~liars_dice.engine.Rules.parse_action`, and prints the screen pieces of
:mod:`liars_dice.cli.screen`. Dice are :class:`~liars_dice.engine.SecureDice`
for a person's game unless ``--seed`` is given; a seed makes the whole game
(dice, bots, opener) reproducible.
"""

from __future__ import annotations

import os
import random
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import typer
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ..bots import REGISTRY, Bot, make_bot
from ..engine import (
    CALZA,
    Action,
    Bid,
    DiceSource,
    Game,
    Hand,
    IllegalActionError,
    LiarsDiceError,
    Phase,
    Rules,
    RulesError,
    SecureDice,
    SeededDice,
    State,
    view_bid_probability,
    view_exact_probability,
)
from ..engine.notation import MAX_TEXT
from ..records import dumps_record, load_rules
from . import screen
from .app import app

#: Names for bot seats, in seating order (the person's name is skipped).
BOT_NAMES = ("ann", "bob", "cy", "dee", "eve", "flo", "gus")

def help_lines(rules: Rules) -> str:
    """How to type a move, in two lines; the example of a bid on the wild face
    says "stars" only where the rules show a star."""
    if rules.star_symbol and rules.wild_face is not None:
        wild = " or '3 stars' (3*)"
    elif rules.wild_face is not None:
        wild = f" or '3 {rules.face_noun(rules.wild_face)}'"
    else:
        wild = ""
    calza = "; 'calza' (or 'exact') claims an exact count" if rules.calza else ""
    return (
        f"Bid like 4x5, '4 5s', 'four fives'{wild}; 'liar' challenges{calza}.\n"
        "'?' lists the raises and your odds, 'rules' repeats the rules, 'q' quits."
    )


class _Quit(Exception):
    """The person asked to stop."""


def parse_show(text: str, rules: Rules) -> Hand:
    """Faces a person wants to show: ``5 5``, ``5,5``, ``55``, ``★ 5``, ``* 5``;
    empty text shows nothing.

    :raises ValueError: with one sentence, for a token that is not a face.
    """
    star = rules.wild_face if rules.wild_face is not None else 1
    if len(text.strip()) > MAX_ENTRY:
        raise ValueError(f"That entry is {len(text.strip())} characters long; type faces such as 5 5 or ★ 5, or Enter for none.")
    faces: list[int] = []
    for tok in text.replace(",", " ").lower().split():
        if tok in ("none", "no", "-"):
            continue
        if tok in ("*", "★", "s", "star", "stars"):
            faces.append(star)
            continue
        for ch in tok:
            if ch in "*★":
                faces.append(star)
            elif ch.isdigit() and 1 <= int(ch) <= rules.faces:
                faces.append(int(ch))
            else:
                raise ValueError(f"{tok!r} is not a die face; type faces such as 5 5 or ★ 5, or Enter for none.")
    return tuple(sorted(faces))


class PlaySession:
    """One game in the terminal.

    :param bots: one entry per seat: a bot, or ``None`` for the person (at most one).
    :param labels: per seat, a short tag shown after the name (the bot kind).
    :param ask: reads one line after printing a prompt; raises ``EOFError`` at
        the end of input (default: ``console.input``).
    :param pause: wait for Enter after each reveal (a person at a terminal).
    :param delay: seconds to wait after each bot move.
    """

    def __init__(
        self,
        console: Console,
        game: Game,
        bots: Sequence[Bot | None],
        dice: DiceSource,
        start: int,
        labels: Sequence[str] = (),
        ask: Callable[[str], str] | None = None,
        pause: bool = False,
        delay: float = 0.0,
    ) -> None:
        self.console = console
        self.game = game
        self.rules = game.rules
        self.bots = list(bots)
        self.dice = dice
        self.start = start
        self.labels = list(labels)
        self.human = next((s for s, b in enumerate(self.bots) if b is None), None)
        self.ask = ask or (lambda prompt: console.input(prompt))
        self.pause = pause
        self.delay = delay
        self.state: State = game.initial_state(start)
        self.round_no = 0
        #: called once the game is over, before the closing ``NAME wins`` line
        self.before_winner_line: Callable[[], None] | None = None

    # -- the loop -------------------------------------------------------------

    def run(self) -> State:
        """Play to the end (or until the person stops: ``EOFError``,
        ``KeyboardInterrupt`` or :class:`_Quit` propagate; :attr:`state` holds
        the game so far)."""
        while not self.state.is_over:
            s = self.state
            if s.phase is Phase.DEAL:
                self.state = s.roll(self.dice)
                self.round_no += 1
                self._round_start()
            elif s.phase is Phase.REROLL:
                self.state = s.roll(self.dice)
                self._rerolled(s.to_move)
            else:
                seat = s.to_move
                assert seat is not None
                n_results = len(s.results)
                if seat == self.human:
                    self.state = self._human_turn(s, seat)
                else:
                    self.state = self._bot_turn(s, seat)
                if len(self.state.results) > n_results:
                    self._after_challenge()
        self._the_end()
        return self.state

    def _watching(self) -> bool:
        """Nobody at the table can see a hidden die: print everything."""
        return self.human is None or self.state.dice[self.human] == 0

    def _round_start(self) -> None:
        s, rules = self.state, self.rules
        self.console.print()
        self.console.rule(Text(screen.header(rules, self.round_no, s.dice_in_play), style="bold"))
        opener = s.to_move
        assert opener is not None
        if self._watching():
            for seat, hand in enumerate(s.hidden):
                if hand:
                    line = Text(f"{self.game.players[seat]:>8} ")
                    line.append_text(screen.dice_text(rules, hand))
                    self.console.print(line)
        elif opener != self.human:  # the opener's turn screen shows the dice anyway
            assert self.human is not None
            mine = Text("Your dice: ", style="bold")
            mine.append_text(screen.dice_text(rules, s.hidden[self.human]))
            self.console.print(mine)
        who = "You open" if opener == self.human else f"{self.game.players[opener]} opens"
        if s.palifico:  # RULES.md perudo "Palifico": announced with what it changes
            self.console.print(Text(
                f"{'You are' if opener == self.human else self.game.players[opener] + ' is'} down to one die: "
                + screen.palifico_note(rules), style="bold yellow",
            ))
        self.console.print(Text(f"{who} the round.", style="cyan"))

    def _bot_turn(self, s: State, seat: int) -> State:
        bot = self.bots[seat]
        assert bot is not None
        d = bot.decide(s.view(seat))
        new = s.apply(d.action, d.show, seat=seat)
        self.console.print(screen.move_text(self.rules, self.game.players, seat, d.action, d.show, you=self.human))
        if self.delay:
            time.sleep(self.delay)
        return new

    def _rerolled(self, seat: int | None) -> None:
        assert seat is not None
        hand = self.state.hidden[seat]
        if seat == self.human:
            t = Text("You rerolled: ")
            t.append_text(screen.dice_text(self.rules, hand))
            self.console.print(t)
        elif self._watching():
            t = Text(f"  {self.game.players[seat]} rerolled: ", style="dim")
            t.append_text(screen.dice_text(self.rules, hand))
            self.console.print(t)

    def _after_challenge(self) -> None:
        r = self.state.results[-1]
        self.console.print()
        self.console.print(screen.reveal(self.rules, self.game.players, r, you=self.human))
        if self.human is not None and self.human in r.out and not self.state.is_over:
            self.console.print("You are out; the bots play on to the end.", style="bold")
        if self.pause and not self.state.is_over and not self._watching():
            if self.ask("Press Enter for the next round (q quits). ").strip().lower() in ("q", "quit", "exit"):
                raise _Quit

    def _the_end(self) -> None:
        s = self.state
        self.console.print()
        self.console.rule(Text("Game over", style="bold"))
        self.console.print(screen.summary(s, you=self.human))
        if self.human is not None:
            msg = "You won! Well played." if s.winner == self.human else "Better luck next game."
            self.console.print(msg, style="bold")
        if self.before_winner_line is not None:
            self.before_winner_line()
        self.console.print(screen.winner_line(s, self.human), style="bold green", highlight=False)

    # -- the person's turn ----------------------------------------------------

    def _human_turn(self, s: State, seat: int) -> State:
        view = s.view(seat)
        self.console.print()
        self.console.print(screen.turn_screen(view, self.round_no, self.labels))
        while True:
            text = self.ask("Your bid (? for help): ")
            cmd = text.strip().lower()
            if cmd in ("?", "help", "h"):
                self._help(s, seat)
                continue
            if cmd == "rules":
                for line in screen.rules_lines(self.rules):
                    self.console.print(line)
                continue
            if cmd in ("q", "quit", "exit"):
                raise _Quit
            try:
                action = self.rules.parse_action(text)
                s.check(action, seat=seat)
            except LiarsDiceError as e:
                self._reason(e.message)
                continue
            show: Hand = ()
            if isinstance(action, Bid) and self.rules.show_and_reroll and len(view.hand) >= 2:
                show = self._ask_show(s, seat, action)
            new = s.apply_unchecked(action, show)  # checked above, with the show
            self.console.print(screen.move_text(self.rules, self.game.players, seat, action, show, you=self.human))
            return new

    def _ask_show(self, s: State, seat: int, bid: Bid) -> Hand:
        hand = screen.faces_plain(self.rules, s.hidden[seat])
        while True:
            text = self.ask(f"Show which dice, rerolling the rest? ({hand}; Enter for none): ")
            if text.strip().lower() in ("q", "quit", "exit"):
                raise _Quit
            try:
                show = parse_show(text, self.rules)
                s.check(bid, show, seat=seat)
            except (ValueError, IllegalActionError) as e:
                self._reason(getattr(e, "message", str(e)))
                continue
            return show

    def _reason(self, message: str) -> None:
        self.console.print(Text("✗ " + message, style="red"))

    def _help(self, s: State, seat: int) -> None:
        view = s.view(seat)

        def chance(bid: Bid) -> float:
            return view_bid_probability(view, bid)

        self.console.print(screen.raises_text(self.rules, view, chance))
        cur = view.current_bid
        if cur is not None:
            p = view_bid_probability(view, cur)
            label = screen.bid_label(self.rules, cur)
            self.console.print(Text(f"Chance that {label} is true, from your dice: {p:.0%}.", style="bold"))
            if CALZA in view.legal_actions():  # RULES.md perudo "Calza"
                e = view_exact_probability(view, cur)
                self.console.print(Text(
                    f"Chance that the count is exactly {cur.quantity} (a right calza), from your dice: {e:.0%}.",
                    style="bold",
                ))
        self.console.print(help_lines(self.rules), style="dim")


#: The longest entry read as a move (the engine's bound on bid text).
MAX_ENTRY = MAX_TEXT


# -- set-up -----------------------------------------------------------------------


def seat_bots(kinds: Sequence[str], n: int) -> list[str]:
    """``n`` bot kinds from the ``--bots`` list, cycled: ``[a, b]`` for 3 seats is ``[a, b, a]``."""
    return [kinds[i % len(kinds)] for i in range(n)]


def bot_names(n: int, taken: str | None) -> list[str]:
    """``n`` seat names from :data:`BOT_NAMES`, skipping the person's name."""
    free = [b for b in BOT_NAMES if taken is None or b.lower() != taken.lower()]
    return free[:n]


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(Text(message, style="red"))
    return typer.Exit(2)


@app.command("play")
def play_command(
    rules: str = typer.Option(
        "classic", "--rules", "-r",
        help="Rule set: wild-stars, aces-wild, classic, perudo, or a TOML/JSON rules file (liars-dice rules --schema).",
    ),
    players: int | None = typer.Option(
        None, "--players", "-p", min=2, max=6, help="Seats at the table, 2 to 6 (default 4, or as the rules allow)."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Seed for dice, bots and opener: a reproducible game."),
    name: str = typer.Option("you", "--name", "-n", help="Your name at the table."),
    bots: str = typer.Option(
        "probabilistic", "--bots", "-b",
        help="Bots for the other seats, comma-separated, cycled (e.g. probabilistic,random).",
    ),
    watch: bool = typer.Option(False, "--watch", "-w", help="Bots in every seat; print the whole game."),
    record: Path | None = typer.Option(None, "--record", help="Save the game record (JSON) to this file."),
    start: str | None = typer.Option(
        None, "--start", help="Who opens the first round (a player's name); default: random."
    ),
    delay: float = typer.Option(
        0.0, "--delay", help="Seconds to wait after each bot move, to follow along (0 to 60).", min=0.0, max=60.0
    ),
) -> None:
    """Play Liar's Dice against bots in the terminal, or --watch bots play.

    With no options: classic rules, four players, you against three
    probabilistic bots. Type bids like 4x5 or 'four fives', 'liar' to
    challenge, '?' for the legal raises and your odds.
    """
    console = Console(highlight=False)
    try:
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
            raise _fail(console, f"There is no bot called {k!r}; choose from {', '.join(sorted(REGISTRY))}.")
    if record is not None:
        problem = record_path_problem(record)
        if problem:
            raise _fail(console, problem)
    name = name.strip()
    if not watch and not name:
        raise _fail(console, "--name cannot be empty.")
    n_bots = players if watch else players - 1
    names = bot_names(n_bots, None if watch else name)
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
    dice: DiceSource = SeededDice(seed) if seed is not None else SecureDice()
    bot_objs: list[Bot | None] = [
        make_bot(k, None if seed is None else seed * 1000 + i) for i, k in enumerate(seat_kinds)
    ]
    if not watch:
        bot_objs = [None, *bot_objs]
    labels = seat_kinds if watch else ["", *seat_kinds]

    session = PlaySession(
        console, game, bot_objs, dice, first, labels,
        pause=not watch and sys.stdin is not None and sys.stdin.isatty(), delay=delay,
    )
    if record is not None:
        session.before_winner_line = lambda: _save(console, session, record)
    _welcome(console, session, watch)
    try:
        session.run()
    except (EOFError, KeyboardInterrupt, _Quit):
        console.print()
        console.print("Game stopped before the end; nobody wins this one. Thanks for playing!", style="bold")
        if record is not None:
            _save(console, session, record)


def record_path_problem(path: Path) -> str | None:
    """Why the game record could not be saved to ``path`` (one sentence), or
    ``None``: checked before the game, so a finished game is never lost to a
    bad ``--record``."""
    if path.is_dir():
        return f"--record {path} is a folder; give a file name such as {path / 'game.json'}."
    folder = path.parent
    if not folder.is_dir():
        return f"--record {path}: there is no folder {folder}."
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"--record {path}: that file cannot be written here."
    return None


def _welcome(console: Console, session: PlaySession, watch: bool) -> None:
    game = session.game
    rules = game.rules
    if watch:
        title = f"Liar's Dice · {rules.name} · watching {len(game.players)} bots"
        who = ", ".join(f"{n} ({k})" for n, k in zip(game.players, session.labels, strict=True))
    else:
        title = f"Liar's Dice · {rules.name}"
        others = [f"{n} ({k})" for n, k in zip(game.players[1:], session.labels[1:], strict=True)]
        listed = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
        who = f"{game.players[0]} against {listed}"
    body = Text()
    body.append(who + "\n", style="bold")
    body.append("\n".join(screen.rules_lines(rules)))
    if not watch:
        body.append("\n\n" + help_lines(rules), style="dim")
        body.append("\nOther rule sets and options: liars-dice play --help", style="dim")
    console.print(Panel(body, title=title, title_align="left", width=min(console.width, 80)))


def _save(console: Console, session: PlaySession, path: Path) -> None:
    try:
        path.write_text(dumps_record(session.state, session.start) + "\n", encoding="utf-8")
    except OSError as e:
        console.print(Text(f"Could not save the record to {path}: {e.strerror}.", style="red"))
        return
    console.print(Text(f"Record saved to {path}; replay it with: liars-dice replay {path}", style="dim"))
