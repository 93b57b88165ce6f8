"""One game of ``liars-dice play`` in the terminal: a person (or nobody, with
``--watch``) against bots, printed with the pieces of :mod:`liars_dice.cli.screen`.

The game runs on the one loop of :func:`liars_dice.match.play_game`; the
person is a player like the bots, whose ``decide`` asks at the prompt. Bids
are read with :meth:`Rules.parse_action <liars_dice.engine.Rules.parse_action>`
and checked with :meth:`State.check <liars_dice.engine.State.check>`, so a
refused entry gets the engine's one sentence and changes nothing.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ..bots import Bot, Decision
from ..engine import (
    CALZA,
    CHALLENGE,
    Action,
    Bid,
    DiceSource,
    FairRounds,
    Game,
    Hand,
    IllegalActionError,
    LiarsDiceError,
    Phase,
    Rules,
    SeatView,
    State,
    calza_allowed,
    view_bid_probability,
    view_exact_probability,
)
from ..engine.catalog import rule_set_title
from ..engine.summary import palifico_note as summary_palifico_note
from ..engine.notation import MAX_TEXT
from ..engine.narration import sentence
from ..match import play_game
from . import screen

#: The longest entry read as a move (the engine's bound on bid text).
MAX_ENTRY = MAX_TEXT

#: Seconds after each bot move at a terminal when ``--delay`` is not given: bot
#: moves appear one at a time, at a readable pace.
DEFAULT_DELAY = 0.7


def reveal_pause(delay: float, cups: int) -> float:
    """Seconds to read a reveal of ``cups`` cups while watching (nobody presses
    Enter): two bot moves' worth for the verdict and half a move per cup, so a
    long reveal waits longer than a short one; 0 when ``delay`` is 0.

    >>> reveal_pause(0.7, 4), reveal_pause(0.0, 6)
    (2.8, 0.0)
    """
    return round(delay * (2 + 0.5 * cups), 3)

_QUIT_WORDS = ("q", "quit", "exit")


def help_lines(rules: Rules, dice: Sequence[int] | None = None) -> str:
    """How to type a move, in two lines; the example of a bid on the wild face
    uses the rules' words: "stars" only where the rules show a star, "aces"
    where 1s are aces. ``calza`` is offered only where it can be played with
    ``dice`` held per seat (:func:`~liars_dice.engine.calza_allowed`; RULES.md
    ``perudo``: not with two players left); ``None``: wherever the rules have it."""
    if rules.star_symbol and rules.wild_face is not None:
        wild = " or '3 stars' (3*)"
    elif rules.wild_face is not None:
        wild = f" or '3 {rules.face_noun(rules.wild_face)}'"
    else:
        wild = ""
    playable = rules.calza and (dice is None or calza_allowed(rules, dice))
    calza = "; 'calza' (or 'exact') claims an exact count" if playable else ""
    return (
        f"Bid like 4x5, '4 5s', 'four fives'{wild}; 'liar' challenges{calza}.\n"
        "'?' lists the raises and your odds, 'rules' repeats the rules, 'q' quits."
    )


class Quit(Exception):
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
        if rules.star_symbol and tok in ("*", "★", "s", "star", "stars"):
            faces.append(star)
            continue
        for ch in tok:
            if rules.star_symbol and ch in "*★":
                faces.append(star)
            elif ch.isascii() and ch.isdigit() and 1 <= int(ch) <= rules.faces:
                faces.append(int(ch))
            else:
                raise ValueError(f"{tok!r} is not a die face; type faces such as 5 5 or ★ 5, or Enter for none.")
    return tuple(sorted(faces))


class _Person:
    """The person's seat as a player of :func:`~liars_dice.match.play_game`:
    ``decide`` asks at the prompt until the entry is legal."""

    name = "person"

    def __init__(self, session: PlaySession) -> None:
        self.session = session

    def decide(self, view: SeatView) -> Decision:
        return self.session._human_turn(self.session.state, view.seat)


class PlaySession:
    """One game in the terminal.

    :param bots: one entry per seat: a bot, or ``None`` for the person (at most one).
    :param labels: per seat, a short tag shown after the name (the bot kind).
    :param ask: reads one line after printing a prompt; raises ``EOFError`` at
        the end of input (default: ``console.input``).
    :param pause: a person at a terminal: wait for Enter after each reveal, and
        once the person is out, offer to watch the rest or skip to the result.
    :param delay: seconds to wait after each bot move; while someone only
        watches (``--watch``, or a person who is out and chose to watch), also
        the scale of the pause after a round's deal and after a reveal
        (:func:`reveal_pause`). 0: no pauses.
    """

    def __init__(
        self,
        console: Console,
        game: Game,
        bots: Sequence[Bot | None],
        dice: DiceSource | FairRounds,
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
        #: seconds between bot moves once a person who is out chooses to watch
        #: (``play`` sets it to an explicit ``--delay``; 0 watches without pauses)
        self.watch_delay = DEFAULT_DELAY
        self.state: State = game.initial_state(start)
        self.round_no = 0
        #: ``False`` while the rest of the game is skipped (the person chose to see only the result)
        self.printing = True
        #: called once the game is over, before the closing ``NAME wins`` line
        self.before_winner_line: Callable[[], None] | None = None

    # -- the loop -------------------------------------------------------------

    def run(self) -> State:
        """Play to the end (or until the person stops: ``EOFError``,
        ``KeyboardInterrupt`` or :class:`Quit` propagate; :attr:`state` holds
        the game so far)."""
        players = [b if b is not None else _Person(self) for b in self.bots]
        play_game(self.game, players, self.dice, self.start, on_transition=self._after)
        self._the_end()
        return self.state

    def _after(self, before: State, after: State) -> None:
        """Print what one transition did."""
        self.state = after
        if before.phase is Phase.DEAL:
            self.round_no += 1
            self._round_start()
            self._wait(self.delay if self._watching() else 0.0)
        elif before.phase is Phase.REROLL:
            self._rerolled(before.to_move)
            self._wait(self.delay / 2 if before.to_move != self.human else 0.0)
        elif len(after.results) > len(before.results):  # a challenge, or a calza (RULES.md perudo)
            assert before.to_move is not None
            self._move(before.to_move, CALZA if after.results[-1].calza else CHALLENGE, ())
            self._after_challenge()
            if self._watching() and not after.is_over:  # nobody presses Enter: time to read the reveal
                self._wait(reveal_pause(self.delay, sum(1 for h in after.results[-1].revealed if h)))
        else:
            seat, bid, show = after.bids[-1]
            self._move(seat, bid, show)
            self._wait(self.delay if seat != self.human else 0.0)

    def _wait(self, seconds: float) -> None:
        """Pause ``seconds`` while the game is printed (never while skipping to the result)."""
        if seconds > 0 and self.printing:
            time.sleep(seconds)

    def _print(self, *objects: Any, **kw: Any) -> None:
        if self.printing:
            self.console.print(*objects, **kw)

    def _watching(self) -> bool:
        """Nobody at the table can see a hidden die: print everything."""
        return self.human is None or self.state.dice[self.human] == 0

    def _width(self) -> int:
        return min(self.console.width, 80)

    def _round_start(self) -> None:
        if not self.printing:
            return
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
        opens = "You open" if opener == self.human else f"{self.game.players[opener]} opens"
        if s.palifico:  # RULES.md perudo "Palifico": announced once, with what it changes
            who = "You are" if opener == self.human else f"{self.game.players[opener]} is"
            # the person's turn screen says what it changes; someone only watching reads it here
            what = f": {summary_palifico_note(rules)}" if self._watching() else "."
            self.console.print(Text(sentence(f"{who} down to one die, so this is a palifico round{what}"), style="bold yellow"))
        self.console.print(Text(sentence(f"{opens} the round."), style="cyan"))

    def _move(self, seat: int, action: Action, show: Hand) -> None:
        self._print(screen.move_text(self.rules, self.game.players, seat, action, show, you=self.human))

    def _rerolled(self, seat: int | None) -> None:
        assert seat is not None
        hand = self.state.hidden[seat]
        if seat == self.human:
            t = Text("You rerolled: ")
            t.append_text(screen.dice_text(self.rules, hand))
            self._print(t)
        elif self._watching():
            t = Text(f"  {self.game.players[seat]} rerolled: ", style="dim")
            t.append_text(screen.dice_text(self.rules, hand))
            self._print(t)

    def _after_challenge(self) -> None:
        r = self.state.results[-1]
        self._print()
        self._print(screen.reveal(self.rules, self.game.players, r, you=self.human))
        if self.human is not None and self.human in r.out and not self.state.is_over:
            if self.pause:
                self._out_choice()
            else:
                self._print("You are out; the bots play on to the end.", style="bold")
            return
        if self.pause and not self.state.is_over and not self._watching():
            while True:
                text = self.ask("Press Enter for the next round (q quits). ").strip().lower()
                if text in _QUIT_WORDS:
                    raise Quit
                if not text:
                    return
                if self._reads_as_move(text):
                    # as typed, never as markup: the entry is the person's text
                    self._print(Text(f"The round is over; '{text}' was not played. Enter deals the next."))
                else:
                    self._print("Enter deals the next round; q quits the game.")

    def _reads_as_move(self, text: str) -> bool:
        """Whether ``text`` reads as a bid, a challenge or a calza (typed at the pause).

        The whole entry is parsed (``parse_action`` refuses one longer than
        ``MAX_ENTRY``), so an entry echoed back is at most that long."""
        try:
            self.rules.parse_action(text)
        except (ValueError, LiarsDiceError):
            return False
        return True

    def _out_choice(self) -> None:
        """The person is out: watch the rest at a readable pace, or skip to the result."""
        while True:
            text = self.ask("Watch the rest (w) or skip to the result (s)? ").strip().lower()
            if text in ("w", "watch", ""):
                self.delay = self.watch_delay
                return
            if text in ("s", "skip"):
                self.printing = False
                self.console.print("Skipping to the result…", style="dim")
                return
            if text in _QUIT_WORDS:
                raise Quit
            self._reason("Type w to watch the rest, or s to skip to the result.")

    def _the_end(self) -> None:
        self.printing = True
        s = self.state
        self.console.print()
        self.console.rule(Text("Game over", style="bold"))
        self.console.print(screen.summary(s, you=self.human))
        if self.human is not None and s.winner != self.human:
            self.console.print("Better luck next game.", style="bold")
        if self.before_winner_line is not None:
            self.before_winner_line()
        self.console.print(screen.winner_line(s, self.human), style="bold green", highlight=False)

    # -- the person's turn ----------------------------------------------------

    def _human_turn(self, s: State, seat: int) -> Decision:
        view = s.view(seat)
        self.console.print()
        self.console.print(screen.turn_screen(view, self.round_no, self.labels, self._width()))
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
            if cmd in _QUIT_WORDS:
                raise Quit
            try:
                action = self.rules.parse_action(text)
                s.check(action, seat=seat)
            except LiarsDiceError as e:
                self._reason(e.message)
                continue
            show: Hand = ()
            if isinstance(action, Bid) and self.rules.show_and_reroll and len(view.hand) >= 2:
                show = self._ask_show(s, seat, action)
            return Decision(action, show)

    def _ask_show(self, s: State, seat: int, bid: Bid) -> Hand:
        hand = screen.faces_plain(self.rules, s.hidden[seat])
        while True:
            text = self.ask(f"Show which dice, rerolling the rest? ({hand}; Enter: no show, no reroll): ")
            if text.strip().lower() in _QUIT_WORDS:
                raise Quit
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
        self.console.print(help_lines(self.rules, view.dice), style="dim")


def welcome(console: Console, session: PlaySession, watch: bool) -> None:
    """The opening panel: who plays, the rules in force, how to type a move."""
    game = session.game
    rules = game.rules
    if watch:
        title = f"Liar's Dice · {rule_set_title(rules)} · watching {len(game.players)} bots"
        who = ", ".join(f"{n} ({k})" for n, k in zip(game.players, session.labels, strict=True))
    else:
        title = f"Liar's Dice · {rule_set_title(rules)}"
        others = [f"{n} ({k})" for n, k in zip(game.players[1:], session.labels[1:], strict=True)]
        who = f"{game.players[0]} against {screen.list_words(others)}"
    body = Text()
    body.append(who + "\n", style="bold")
    body.append("\n".join(screen.rules_lines(rules)))
    if not watch:
        body.append("\n\n" + help_lines(rules, game.dice), style="dim")
        body.append("\nOther rule sets and options: liars-dice play --help", style="dim")
    console.print(Panel(body, title=title, title_align="left", width=min(console.width, 80)))


def save_record(console: Console, session: PlaySession, path: Path) -> None:
    """Write the game record (RECORD-FORMAT.md) to ``path``; one sentence if that fails."""
    from ..records import dumps_record
    from ..records.writing import write_text_atomically

    try:
        # With fair dice each round carries its commitment and (once ended) its seed: `liars-dice verify` checks it.
        fair = session.dice.rounds if isinstance(session.dice, FairRounds) else ()
        write_text_atomically(path, dumps_record(session.state, session.start, fair) + "\n")  # whole or not at all
    except OSError as e:
        console.print(Text(f"Could not save the record to {path}: {e.strerror}.", style="red"))
        return
    # soft_wrap: Rich would otherwise break the line at 80 columns inside the
    # command (piped output, a long path), and the command would not paste back.
    command = f"liars-dice replay {shlex.quote(str(path))}"
    console.print(Text(f"Record saved to {path}; replay it with: {command}", style="dim"), soft_wrap=True)
