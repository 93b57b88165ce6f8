"""Rich renderables for ``liars-dice play``: small functions, each one piece of
the screen, all fitting 80 columns. Nothing here reads input or changes state.

Words about the rules come from the :class:`~liars_dice.engine.Rules` options,
never from a preset's name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..engine import (
    Action,
    Bid,
    Calza,
    Exact,
    Hand,
    Loss,
    Opener,
    Ordering,
    RoundResult,
    Rules,
    SeatView,
    State,
    number_word,
)
from ..engine.catalog import rule_set_short
from ..engine.summary import palifico_note as summary_palifico_note
from ..engine.summary import rules_summary
from ..engine.summary import wild_name as wild_name, wild_note as wild_note  # the one wording, also served (issue 38)
from ..engine.narration import sentence

DIE_STYLE = "bold"
STAR_STYLE = "bold yellow"
MATCH_STYLE = "bold green"


def face_text(rules: Rules, face: int, style: str | None = None) -> Text:
    """One die: its face label (``★`` for the star) in a box-like pair of brackets."""
    label = rules.face_label(face)
    st = style or (STAR_STYLE if face == rules.wild_face and rules.star_symbol else DIE_STYLE)
    return Text.assemble(("[", "dim"), (label, st), ("]", "dim"))


def dice_text(rules: Rules, faces: Sequence[int], match: Bid | None = None, wilds: bool = True) -> Text:
    """Dice side by side; with ``match``, the dice counting toward that bid are green."""
    out = Text()
    for i, f in enumerate(faces):
        if i:
            out.append(" ")
        style = MATCH_STYLE if match is not None and rules.matches(f, match.face, wilds) else None
        out.append_text(face_text(rules, f, style))
    return out


def faces_plain(rules: Rules, faces: Sequence[int]) -> str:
    """Dice as plain text, e.g. ``★ 5 5``."""
    return " ".join(rules.face_label(f) for f in faces)


def bid_label(rules: Rules, bid: Bid) -> str:
    """``4x5`` or ``3★``."""
    return rules.format_bid(bid)


def face_noun(rules: Rules, face: int, plural: bool = True) -> str:
    """``5s``, ``stars``, ``aces``: the engine's :meth:`Rules.face_noun`."""
    return rules.face_noun(face, plural)


def list_words(items: Sequence[str]) -> str:
    """``ann``, ``ann and bob``, ``ann, bob and cy``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def rules_lines(rules: Rules) -> list[str]:
    """The rules in force as the terminal introduces them: the sentences of
    ``liars-dice rules show`` (:func:`~liars_dice.engine.summary.rules_summary`,
    the one wording), each after its topic; topics with nothing to say and the
    player count (the table is already set) are left out."""
    return [
        f"{topic}: {sentence}" for topic, sentence in rules_summary(rules)
        if topic != "Players" and sentence != "None."
    ]


def palifico_note(rules: Rules) -> str:
    """The turn screen's line in a palifico round: ``Palifico round: `` and
    :func:`~liars_dice.engine.summary.palifico_note`."""
    return "Palifico round: " + summary_palifico_note(rules)


def header(rules: Rules, round_no: int, dice_in_play: int) -> str:
    """``Round 3 · Classic · 17 dice in play`` (the rule set's short display name)."""
    return f"Round {round_no} · {rule_set_short(rules)} · {dice_in_play} dice in play"


def players_table(
    rules: Rules,
    players: Sequence[str],
    dice: Sequence[int],
    shown: Sequence[Hand],
    to_move: int | None,
    labels: Sequence[str] = (),
    me: int | None = None,
) -> Table:
    """One row per seat: turn marker, name (and bot level), dice count, and the
    shown dice only in rule sets where dice can be shown (seed 000 "The Show
    and Reroll Rule")."""
    shows = rules.show_and_reroll
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    t.add_column("", width=1)
    t.add_column("player", max_width=32, overflow="ellipsis", no_wrap=True)
    t.add_column("dice", justify="right")
    if shows:
        t.add_column("shown", max_width=30)
    for s, name in enumerate(players):
        out = dice[s] == 0
        marker = Text("▶", style="bold cyan") if s == to_move else Text("")
        who = Text(name, style="dim strike" if out else ("bold" if s == me else ""))
        if s < len(labels) and labels[s]:
            who.append(f" ({labels[s]})", style="dim")
        count = Text("out", style="dim") if out else Text(str(dice[s]))
        cells = [marker, who, count]
        if shows:
            cells.append(dice_text(rules, shown[s]) if shown[s] else Text(""))
        t.add_row(*cells)
    return t


def bids_text(rules: Rules, players: Sequence[str], bids: Sequence[tuple[int, Bid, Hand]], width: int = 80) -> Text:
    """This round's bids, oldest first: ``Bids: ann 3x5 → bob 4x5 (showed 5 5)``.

    Lines break between entries, never inside one, so each line fits ``width``
    columns (an entry longer than a whole line is the only one on its line)."""
    head = "Bids: "
    out = Text(head, style="bold")
    if not bids:
        out.append("none yet", style="dim")
        return out
    used = len(head)
    for i, (s, b, sh) in enumerate(bids):
        entry = Text(f"{players[s]} ")
        entry.append(bid_label(rules, b), style="bold magenta" if i == len(bids) - 1 else "")
        if sh:
            entry.append(f" (showed {faces_plain(rules, sh)})", style="dim")
        if i:
            arrow = " →"
            if used + len(arrow) + 1 + entry.cell_len > width:
                out.append(arrow + "\n" + " " * len(head), style="dim")
                used = len(head)
            else:
                out.append(arrow + " ", style="dim")
                used += len(arrow) + 1
        out.append_text(entry)
        used += entry.cell_len
    return out


def turn_screen(view: SeatView, round_no: int, labels: Sequence[str] = (), width: int = 80) -> Group:
    """What a person sees on their turn (or while waiting): the table, the bids,
    the wild rule of the round, their own dice, whose turn it is."""
    rules, names = view.rules, view.players
    parts: list[RenderableType] = [
        players_table(rules, names, view.dice, view.shown, view.to_move, labels, me=view.seat),
        bids_text(rules, names, view.bids, width),
    ]
    if view.palifico:
        parts.append(Text(palifico_note(rules), style="bold yellow"))
    else:
        note = wild_note(rules, view.wilds_active, bool(view.bids))
        if note:
            parts.append(Text(note, style="dim"))
    mine = Text("Your dice: ", style="bold")
    mine.append_text(dice_text(rules, view.hand))
    if view.shown[view.seat]:
        mine.append("   shown: ", style="dim")
        mine.append_text(dice_text(rules, view.shown[view.seat]))
    parts.append(mine)
    if view.to_move is not None and view.to_move != view.seat:
        parts.append(Text(sentence(f"{names[view.to_move]} to play."), style="cyan"))
    return Group(*parts)


def move_text(rules: Rules, players: Sequence[str], seat: int, action: Action | None, show: Hand = (),
              you: int | None = None) -> Text:
    """One move as a line: ``ann bids 4x5``, ``ann bids 3★, shows ★ 5``, ``bob calls liar!``,
    ``cy calls calza!`` (``None`` is the challenge)."""
    who = "You" if seat == you else sentence(players[seat])
    if isinstance(action, Calza):
        return Text.assemble((who, "bold"), " call calza: exactly!" if seat == you else " calls calza: exactly!")
    if not isinstance(action, Bid):
        return Text.assemble((who, "bold"), " call liar!" if seat == you else " calls liar!")
    t = Text.assemble((who, "bold"), " bid " if seat == you else " bids ", (bid_label(rules, action), "bold magenta"),
                      f"  ({rules.describe_bid(action)})")
    if show:
        verbs = ("show", "reroll") if seat == you else ("shows", "rerolls")
        t.append(f", {verbs[0]} {faces_plain(rules, show)} and {verbs[1]} the rest")
    return t


def count_breakdown(rules: Rules, r: RoundResult) -> str:
    """How the count was made, always its number first (compared with the
    bid's quantity after it): ``6 (four 5s and two stars)``, ``3 (three 5s)``,
    ``0 (no 1s)``. A new user (stop 27) read ``one 4`` in one round and
    ``1 (no 6s and one 1)`` in the next."""
    face = r.bid.face
    natural = sum(1 for h in r.revealed for d in h if d == face)
    wild = r.count - natural
    if wild and rules.wild_face is not None:
        wname = face_noun(rules, rules.wild_face, plural=wild != 1)
        plain = f"{number_word(natural) if natural else 'no'} {face_noun(rules, face, natural != 1)}"
        return f"{r.count} ({plain} and {number_word(wild)} {wname})"
    return f"{r.count} ({number_word(r.count) if r.count else 'no'} {face_noun(rules, face, r.count != 1)})"


def reveal(rules: Rules, players: Sequence[str], r: RoundResult, you: int | None = None) -> Group:
    """After a challenge: every cup (matches in green), the count, the losses, the next opener."""

    def name(s: int) -> str:
        return "you" if s == you else players[s]

    def row(s: int) -> str:
        """A cup's label: the seat's name (``--name``), the person's marked."""
        return players[s] if s != you or players[s].lower() == "you" else f"{players[s]} (you)"

    challenger = "You" if r.challenger == you else sentence(players[r.challenger])
    whose = "your" if r.bidder == you else f"{players[r.bidder]}'s"
    verb = " called calza on " if r.calza else " challenged "
    title = Text.assemble((challenger, "bold"), f"{verb}{whose} bid of ",
                          (bid_label(rules, r.bid), "bold magenta"), ".")
    if r.palifico:
        title.append(" (palifico round)", style="yellow")
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
    t.add_column("cup", max_width=24, overflow="ellipsis", no_wrap=True)
    t.add_column("dice", max_width=30)
    t.add_column(f"{face_noun(rules, r.bid.face)}", justify="right")
    t.add_column("dice ±" if r.calza else "lost", justify="right")
    gained = r.gained or (0,) * len(r.revealed)
    for s, hand in enumerate(r.revealed):
        if not hand and not r.lost[s]:
            continue
        n = sum(1 for d in hand if rules.matches(d, r.bid.face, r.wilds_active))
        if r.lost[s]:
            lost = Text(f"-{r.lost[s]}", style="bold red")
        elif gained[s]:
            lost = Text(f"+{gained[s]}", style="bold green")
        else:
            lost = Text("")
        t.add_row(Text(row(s)), dice_text(rules, hand, r.bid, r.wilds_active), str(n), lost)
    q = r.bid.quantity
    count = Text.assemble("Count: ", (count_breakdown(rules, r), "bold"), f" against {q}: ")
    if r.calza:
        count.append("exactly the bid, the calza is right." if r.count == q else "not exact, the calza is wrong.",
                     style="bold")
    elif r.count < q:
        count.append("the bid was a lie.", style="bold")
    elif r.count == q and rules.exact is Exact.ALL_BUT_BIDDER:
        count.append("a perfect bid!", style="bold")
    else:
        count.append("the bid stands.", style="bold")
    if not r.wilds_active and rules.wild_face is not None:
        count.append(f" ({face_noun(rules, rules.wild_face)} were not wild.)", style="dim")
    losses = [f"{name(s)} {'lose' if s == you else 'loses'} {number_word(k)} {'die' if k == 1 else 'dice'}"
              for s, k in enumerate(r.lost) if k]
    gains = [f"{name(s)} {'win' if s == you else 'wins'} back {number_word(k)} {'die' if k == 1 else 'dice'}"
             for s, k in enumerate(gained) if k]
    if r.calza and r.count == q and not gains:
        caller = "you are" if r.challenger == you else f"{players[r.challenger]} is"
        gains = [f"nobody loses a die ({caller} already at the starting count, so no die is won back)"]
    lines = Text(sentence("; ".join(losses + gains) + "." if losses or gains else "nobody loses a die."))
    kept = [s for s, h in enumerate(r.revealed)
            if rules.die_hard and r.count == q and rules.exact is Exact.ALL_BUT_BIDDER
            and len(h) == 1 and s not in (r.bidder, r.challenger) and not r.lost[s]]
    if kept:
        verb = "keeps" if len(kept) == 1 and kept != [you] else "keep"
        lines.append(f" Die Hard: {list_words([name(s) for s in kept])} {verb} a last die.")
    for s in r.out:
        lines.append(" " + sentence(f"{'You are' if s == you else players[s] + ' is'} out."), style="bold red")
    if r.next_opener is not None:
        lines.append(" " + sentence(f"{'You open' if r.next_opener == you else players[r.next_opener] + ' opens'} the next round."))
    return Group(title, t, count, lines)


def summary(state: State, you: int | None = None) -> Group:
    """The end of the game: every round in one row, then the winner."""
    rules, names = state.rules, state.game.players
    t = Table(title="The game, round by round", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
              padding=(0, 1), title_justify="left")
    t.add_column("#", justify="right")
    t.add_column("bid", no_wrap=True)
    t.add_column("by", max_width=14, overflow="ellipsis", no_wrap=True)
    t.add_column("called by", max_width=14, overflow="ellipsis", no_wrap=True)
    t.add_column("count", justify="right")
    t.add_column("lost", max_width=22)
    for i, r in enumerate(state.results, 1):
        lost = ", ".join(f"{names[s]} {k}" for s, k in enumerate(r.lost) if k)
        if any(r.gained):
            lost = ", ".join([lost] * bool(lost) + [f"{names[s]} +{k}" for s, k in enumerate(r.gained) if k])
        caller = names[r.challenger] + (" (calza)" if r.calza else "")
        t.add_row(str(i), bid_label(rules, r.bid), Text(names[r.bidder]), Text(caller), str(r.count), Text(lost))
    order = _finishing_order(state)
    places = Text("Order out: " if order else "", style="dim")
    places.append(", ".join(names[s] for s in order), style="dim")
    return Group(t, places) if order else Group(t)


def _finishing_order(state: State) -> list[int]:
    """Seats in the order they went out, first out first."""
    out: list[int] = []
    for r in state.results:
        out.extend(r.out)
    return out


def winner_line(state: State, you: int | None = None) -> str:
    """The last line of a game, said once: ``cy wins``; for a person who won,
    ``You win! Well played.``"""
    assert state.winner is not None
    if state.winner == you:
        return "You win! Well played."
    return sentence(f"{state.game.players[state.winner]} wins")


def raises_text(rules: Rules, view: SeatView, chance: Callable[[Bid], float]) -> Group:
    """The legal raises, compactly: the smallest bid on each face (anything
    higher on that face is legal too), with its chance from this seat's dice
    (``chance(bid) -> float``). Before the opening bid: for each face, the
    highest bid at least as likely as not."""
    cur, n = view.current_bid, view.dice_in_play
    bids: list[Bid] = []
    legal = [b for b in view.legal_actions() if isinstance(b, Bid)] if view.my_turn else []
    lowest: dict[int, int] = {}
    for b in legal:  # the smallest legal quantity of each face (palifico and opening rules included)
        lowest[b.face] = min(lowest.get(b.face, b.quantity), b.quantity)
    if cur is None:
        head = Text(f"Open with any bid from 1 to {n} of a face. Likely openings, with their chance:", style="bold")
        for f in range(1, rules.faces + 1):
            if view.my_turn and f not in lowest:
                continue  # e.g. no opening on pacos (perudo)
            q = 1
            while q < n and chance(Bid(q + 1, f)) >= 0.5:
                q += 1
            bids.append(Bid(q, f))
        suffix = ""
    else:
        calls = "liar or calza" if any(isinstance(a, Calza) for a in view.legal_actions()) else "liar"
        head = Text(f"The smallest raise on each face, with its chance of being true (any larger count of the face "
                    f"is a raise too; or call {calls}):", style="bold")
        for f in range(1, rules.faces + 1):
            if view.my_turn:
                q = lowest.get(f, n + 1)
            else:
                q = rules.min_raise_quantity(cur.quantity, cur.face, f)
            if q <= n:
                bids.append(Bid(q, f))
        suffix = "+"
    if not bids:
        return Group(head, Text("none: the bid is at the top of the order; call liar."))
    t = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
    t.add_column(style="dim")
    for _ in bids:
        t.add_column(justify="right")
    t.add_row("bid", *(Text(bid_label(rules, b) + suffix, style="bold") for b in bids))
    t.add_row("chance", *(f"{chance(b):.0%}" for b in bids))
    return Group(head, t)
