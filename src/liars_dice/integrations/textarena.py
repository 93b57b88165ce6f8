"""TextArena: our presets as TextArena environments, and any TextArena agent
as a bot-protocol program (issue 10 "TextArena").

**Environments.** :func:`register_presets` registers every preset with
``textarena.envs.registration.register`` as ``LiarsDice-<preset>-v0`` (with
TextArena's usual LLM observation and action-formatting wrappers) and
``LiarsDice-<preset>-v0-raw`` (none)::

    import textarena as ta
    from liars_dice.integrations.textarena import register_presets
    register_presets()
    env = ta.make("LiarsDice-wild-stars-v0")
    env.reset(num_players=3, seed=1)

Moves are the text actions TextArena's own ``LiarsDice-v0`` agents already
use, ``[Bid: 3, 4]`` (three 4s) and ``[Call]``, plus ``[Show: 4, 1]`` after a
bid for the show-and-reroll of ``wild-stars`` (seed 000), and ``[Calza]``
for the calza of ``perudo`` (RULES.md ``perudo``). The rules are the
preset's, settled by our engine: the prompt states them (wilds, the bidding
track, the loss, the perfect bid...). An invalid move is refused with the
engine's one-sentence reason and may be resubmitted once (TextArena's error
allowance); a second invalid move in a row forfeits the game for that player
(``invalid_move="forfeit"``, the default), or, with
``invalid_move="eliminate"`` (TextArena's own rule in its many-player
``LiarsDice-v0``), eliminates the offender only: their dice leave the table, a
new round starts with the next player still in as opener, and play goes on;
the offender ranks below every player knocked out by the dice (an earlier
offender below a later one). The ``...-v0-eliminate`` ids register that rule.

Rewards, at the end, follow TextArena's ``LiarsDice-v0``: by finishing rank,
``1 - 2 * (rank - 1) / (n - 1)``: +1 for the winner, -1 for the first player
out; players knocked out in the same round share a rank. A forfeit ranks the
offender last and the players still in first.

**Agents in our arena.** ``python -m liars_dice.integrations.textarena
--agent MODULE:FACTORY --rules classic`` serves the agent ``FACTORY(**kwargs)``
(any ``textarena.Agent``: a callable from an observation string to an action
string) over the bot protocol, so ``liars-dice arena --bots
"llm=cmd:python -m liars_dice.integrations.textarena --agent
textarena.agents:OpenRouterAgent --agent-kwargs '{\\"model_name\\": \\"...\\"}'
--rules classic",strong --timeout 300`` seats it (an LLM takes seconds per move,
and the program imports textarena, several seconds, before its first reply:
give it a ``--timeout`` to match). Each request becomes one observation
(rules, dice counts, the agent's dice, this round's bids and shows, the last
reveal); an invalid reply is sent back with the reason, up to ``--retries``
times; after that the bot calls the bid (or, with none to call, makes the
lowest legal bid) and says so on standard error.

Needs the ``textarena`` extra: ``pip install 'liars-dice-game[textarena]'``.
Importing textarena downloads nothing; its word-game environments fetch NLTK
data only when made, and ours need none.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import random
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .extras import needs

with needs("textarena", __name__):
    import textarena as ta

from ..arena import finishing_ranks
from ..bots import Decision
from ..engine import (
    CALZA,
    CHALLENGE,
    Calza,
    PRESETS,
    Action,
    Bid,
    Challenge,
    Exact,
    Game,
    Hand,
    IllegalActionError,
    InvalidBidError,
    LiarsDiceError,
    Loss,
    Ordering,
    Phase,
    RoundResult,
    Rules,
    SeatView,
    SecureDice,
    SeededDice,
    State,
    legal_shows,
    raise_message,
)
from ..engine.state import palifico_raise_message
from ..protocol import rules_of, serve

log = logging.getLogger(__name__)

#: Longest reply read for a move, whole (reasoning models put the answer last);
#: a longer reply is refused with a sentence saying so, never cut. TextArena's
#: own ``LiarsDice-v0`` reads a 50,000-character reply; the move patterns scan
#: the most (200,000 characters) in well under a second.
MAX_ACTION_CHARS = 200_000

_CALL = re.compile(r"\[\s*(?:call|liar|challenge|dudo)\s*\]", re.I)
_CALZA = re.compile(r"\[\s*(?:calza|exact|spot on)\s*\]", re.I)
_BID = re.compile(r"\[\s*bid\s*:?\s*(\d{1,6})\s*[,\s]\s*(\d{1,6})\s*\]", re.I)
_SHOW = re.compile(r"\[\s*show\s*:?\s*([0-9,\s]{0,400})\]", re.I)


# -- text ------------------------------------------------------------------------------


def rules_text(rules: Rules) -> str:
    """The rule set in plain words, from its options (never from its name)."""
    w = rules.wild_face
    lines = [f"Every player rolls {rules.faces}-sided dice in secret; bids are about all dice at the table."]
    if w is not None:
        named = rules.face_noun(w)
        wild = f"{named.capitalize()} ({w}s)" if named != f"{w}s" else f"{w}s"
        line = f"{wild} are wild: they count for bids on any other face; a bid on {w}s counts {w}s only."
        if rules.wilds_suspended_on_wild_opening:
            line += f" If the round opens with a bid on {w}s, {w}s count only as themselves for the rest of that round."
        lines.append(line)
    else:
        lines.append("No face is wild.")
    if rules.ordering is Ordering.TRACK:
        lines.append(
            f"A raise is a higher quantity of any face, or the same quantity of a higher face; a bid on {w}s needs "
            f"more than half the quantity of a bid on another face (after four 3s, three {w}s), and after a bid on "
            f"{w}s another face needs at least double the quantity (after three {w}s, six 2s)."
        )
    elif rules.ordering is Ordering.HALF_UP:
        lines.append(
            f"A raise is a higher quantity of any face, or the same quantity of a higher face; a bid on {w}s needs "
            f"at least half the quantity of a bid on another face, rounded up (after five 4s, three {w}s), and after "
            f"a bid on {w}s another face needs at least double the quantity plus one (after three {w}s, seven 2s)."
        )
    else:
        lines.append("A raise is a higher quantity of any face, or the same quantity of a higher face.")
    if not rules.wild_opening:
        lines.append(f"A round may not open with a bid on {w}s.")
    lines.append("Instead of raising you may call the latest bid: every die is revealed and counted.")
    if rules.loss is Loss.ONE:
        lines.append("If the count is below the bid, the bidder loses one die; otherwise the caller loses one die.")
    else:
        lines.append("If the count is below the bid, the bidder loses the difference; if above, the caller loses the difference.")
    if rules.exact is Exact.ALL_BUT_BIDDER:
        line = "If the count equals the bid exactly, every player except the bidder loses one die"
        lines.append(line + (" (a player with one die keeps it, unless they called)." if rules.die_hard else "."))
    if rules.calza:
        lines.append(
            "Instead of raising or calling you may call calza, '[Calza]': you claim the count is exactly the latest "
            f"bid (only while at least {rules.calza_min_players} players are in). If it is, you gain a die (never "
            "beyond your starting count) and nobody loses one; if not, you lose a die. Either way you open the next round."
        )
    if rules.palifico:
        lines.append(
            "The first time a player is left with one die (while more than two players are in), the next round is a "
            f"palifico round that they open: {w}s are not wild, the opening may name any face, and every raise keeps "
            "the face and raises the quantity, except that a player holding one die may change the face."
        )
    if rules.show_and_reroll:
        lines.append(
            "Right after your bid you may set some of your hidden dice out in the open, for everyone to see, "
            "by adding [Show: a, b] to the bid; your other hidden dice are then rerolled. At least one die must stay hidden."
        )
    if rules.single_round:
        lines.append("The game ends after the first call; the winner of the call wins.")
    else:
        lines.append("A player with no dice left is out; the last player with dice wins.")
    moves = "Moves: '[Bid: quantity, face]', e.g. '[Bid: 3, 4]' for three 4s, or '[Call]'"
    moves += ", or '[Calza]'." if rules.calza else "."
    if rules.show_and_reroll:
        moves += " With a show: '[Bid: 3, 4] [Show: 4, 4]'."
    lines.append(moves)
    return "\n".join(lines)


def parse_text_action(text: str, rules: Rules) -> tuple[Action, Hand]:
    """The move in an agent's reply: ``[Call]``, ``[Calza]`` (rules with
    calza), or ``[Bid: q, f]`` with an optional ``[Show: a, b, ...]``. A call
    wins over a bid in the same text (as in TextArena's ``LiarsDice-v0``).

    The whole reply is read, however the move is placed in it, up to
    :data:`MAX_ACTION_CHARS`.

    :returns: the action and the shown faces (sorted; ``()`` for none).
    :raises InvalidBidError: when the text holds no move, is longer than
        :data:`MAX_ACTION_CHARS`, or a show comes with a call or under rules
        without show-and-reroll.
    """
    t = str(text)
    if len(t) > MAX_ACTION_CHARS:
        raise InvalidBidError(
            f"The reply is {len(t):,} characters long and a move is read from replies of at most "
            f"{MAX_ACTION_CHARS:,}: answer again, shorter."
        )
    show_m = _SHOW.search(t)
    if _CALZA.search(t):
        if not rules.calza:
            raise InvalidBidError("These rules have no calza: raise the bid with '[Bid: q, f]' or call it with '[Call]'.")
        if show_m:
            raise InvalidBidError("Dice can only be shown right after a bid, not with a calza.")
        return CALZA, ()
    if _CALL.search(t):
        if show_m:
            raise InvalidBidError("Dice can only be shown right after a bid, not with a call.")
        return CHALLENGE, ()
    m = _BID.search(t)
    if not m:
        raise InvalidBidError("No move found: answer '[Bid: quantity, face]', e.g. '[Bid: 3, 4]', or '[Call]'.")
    q, f = int(m.group(1)), int(m.group(2))
    show: Hand = ()
    if show_m:
        if not rules.show_and_reroll:
            raise InvalidBidError("These rules have no show-and-reroll, so a bid cannot show dice.")
        faces = re.findall(r"\d{1,6}", show_m.group(1))
        show = tuple(sorted(int(x) for x in faces))
    return Bid(q, f), show


def format_text_action(action: Action, show: Sequence[int] = ()) -> str:
    """The text of a move: ``[Bid: 3, 4]``, ``[Bid: 3, 4] [Show: 4, 4]``, ``[Call]`` or ``[Calza]``."""
    if isinstance(action, Challenge):
        return "[Call]"
    if isinstance(action, Calza):
        return "[Calza]"
    text = f"[Bid: {action.quantity}, {action.face}]"
    return text + (f" [Show: {', '.join(map(str, show))}]" if show else "")


def _faces(hand: Sequence[int]) -> str:
    return ", ".join(map(str, sorted(hand))) or "none"


def _describe_bid(rules: Rules, names: Sequence[str], seat: int, bid: Bid, show: Hand) -> str:
    text = f"{names[seat]} bids {rules.describe_bid(bid)} {format_text_action(bid)}"
    if show:
        text += f" and shows {_faces(show)}, rerolling the rest"
    return text + "."


def _describe_result(rules: Rules, names: Sequence[str], r: RoundResult) -> str:
    cups = "; ".join(f"{names[s]}: {_faces(h)}" for s, h in enumerate(r.revealed) if h)
    bid = rules.describe_bid(r.bid)
    what = "calls calza on" if r.calza else "calls"
    lines = [f"{names[r.challenger]} {what} {names[r.bidder]}'s bid of {bid}. Revealed: {cups}. The count is {r.count}."]
    if not r.wilds_active and rules.wild_face is not None:
        lines.append(f"(Wilds did not count this round.)")
    losers = [f"{names[s]} loses {k} {'die' if k == 1 else 'dice'}" for s, k in enumerate(r.lost) if k]
    losers += [f"{names[s]} gains {k} {'die' if k == 1 else 'dice'}" for s, k in enumerate(r.gained) if k]
    lines.append(("; ".join(losers) or "Nobody loses a die") + ".")
    for s in r.out:
        lines.append(f"{names[s]} is out.")
    return " ".join(lines)


def view_text(view: SeatView) -> str:
    """One observation for an agent at its turn: the rules, the table, its dice,
    this round's bids and shows, and the last reveal. Holds only what the seat
    may know (its own hidden dice, never another seat's)."""
    rules, names, me = view.rules, view.players, view.seat
    lines = [
        f"You are {names[me]} in a {len(names)}-player game of Liar's Dice ({rules.name} rules).",
        rules_text(rules),
        "",
    ]
    if view.results:
        lines.append(f"Last round: {_describe_result(rules, names, view.results[-1])}")
    lines.append("Dice held: " + ", ".join(f"{names[s]} {d}" for s, d in enumerate(view.dice)) + f" ({view.dice_in_play} in play).")
    lines.append(f"Your hidden dice: {_faces(view.hand)}.")
    for s, shown in enumerate(view.shown):
        if shown:
            lines.append(f"{names[s]} shows: {_faces(shown)}.")
    for seat, bid, show in view.bids:
        lines.append(_describe_bid(rules, names, seat, bid, show))
    if view.palifico:
        lines.append("This is a palifico round: wilds do not count, and raises keep the face (one die: any face).")
    if view.current_bid is None:
        lines.append("You open the round: make a bid.")
    else:
        lines.append(f"It is your turn: raise the bid of {rules.describe_bid(view.current_bid)} or call it.")
    return "\n".join(lines)


# -- the environment -------------------------------------------------------------------------


def _rewards(state: State, forfeit: int | None = None) -> dict[int, float]:
    """Per seat: ``1 - 2 * (rank - 1) / (n - 1)`` by finishing rank (see the module)."""
    n = len(state.dice)
    if forfeit is None:
        ranks = finishing_ranks(state)
    else:
        score = [len(state.results) + 1 if d else 0 for d in state.dice]
        for i, r in enumerate(state.results):
            for s in r.out:
                score[s] = i + 1
        score[forfeit] = -1
        ranks = tuple(1 + sum(1 for t in score if t > score[s]) for s in range(n))
    return {s: 1.0 - 2.0 * (ranks[s] - 1) / (n - 1) for s in range(n)}


def _ranked_rewards(
    state: State, past: Sequence[RoundResult], eliminated: Sequence[int], alive: Sequence[int] | None = None,
    counted: bool = True,
) -> dict[int, float]:
    """``1 - 2 * (rank - 1) / (n - 1)`` when players were eliminated: the
    players still in first, then by the round they went out (later is better),
    then the offenders (a later one above an earlier one)."""
    n = len(state.dice)
    results = list(past) + (list(state.results) if counted else [])
    still = set(alive) if alive is not None else {s for s, d in enumerate(state.dice) if d}
    score = {s: len(results) + 1 for s in still}
    for i, r in enumerate(results):
        for s in r.out:
            score[s] = i + 1
    for i, s in enumerate(eliminated):
        score[s] = -len(eliminated) + i
    ranks = {s: 1 + sum(1 for t in range(n) if score.get(t, 0) > score.get(s, 0)) for s in range(n)}
    return {s: 1.0 - 2.0 * (ranks[s] - 1) / (n - 1) for s in range(n)}


#: What a second invalid move in a row does (:class:`LiarsDiceTextEnv`).
INVALID_MOVE_RULES = ("forfeit", "eliminate")


class LiarsDiceTextEnv(ta.Env):  # type: ignore[misc]  # textarena ships no type hints
    """A TextArena environment playing one of our rule sets with our engine.

    :param rules: a preset name or a :class:`Rules` value.
    :param dice: starting dice per player (default: the rules').
    :param invalid_move: what a second invalid move in a row does:
        ``"forfeit"`` (the game ends, the offender last) or ``"eliminate"``
        (the offender leaves, play goes on); see the module.
    :raises ValueError: for another ``invalid_move``.
    """

    def __init__(self, rules: str | Rules = "classic", dice: int | None = None, invalid_move: str = "forfeit") -> None:
        if invalid_move not in INVALID_MOVE_RULES:
            raise ValueError(f"invalid_move is one of {', '.join(INVALID_MOVE_RULES)}, not {invalid_move!r}.")
        self.rules = rules if isinstance(rules, Rules) else Rules.preset(rules)
        self.dice = dice
        self.invalid_move = invalid_move

    # TextArena API ------------------------------------------------------------------

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Start a game for ``num_players``; ``seed`` makes the dice and the first opener reproducible.

        :raises RulesError: for a player count the rules do not allow.
        """
        names = [f"Player {i}" for i in range(num_players)]
        game = Game.create(self.rules, names, None if self.dice is None else [self.dice] * num_players)
        self.names = names
        self.game = game
        self.eliminated: list[int] = []  # offenders, in order (invalid_move="eliminate")
        self.past_results: list[RoundResult] = []  # rounds before the last elimination
        self.source = SeededDice(seed) if seed is not None else SecureDice()
        start = random.Random(seed).randrange(num_players) if seed is not None else SecureDice().roll(1, num_players)[0] - 1
        self.state = ta.FFAMultiPlayerState(num_players=num_players, seed=seed)
        self.engine = game.initial_state(start).roll(self.source)
        self.state.reset(game_state={"engine": self.engine}, player_prompt_function=self._prompt)
        self._round_start()

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        seat = self.state.current_player_id
        self.state.add_observation(from_id=seat, message=action, observation_type=ta.ObservationType.PLAYER_ACTION)
        try:
            move, show = parse_text_action(action, self.rules)
            after = self.engine.apply(move, show, seat=seat)
        except LiarsDiceError as e:
            if self.state.set_invalid_move(reason=e.message):
                if self.invalid_move == "eliminate":
                    self._eliminate(seat)
                else:
                    self._forfeit(seat)
            return self._advance()
        public = ta.ObservationType.GAME_ACTION_DESCRIPTION
        if isinstance(move, Bid):
            self.state.add_observation(message=_describe_bid(self.rules, self.names, seat, move, show), observation_type=public)
            if after.phase is Phase.REROLL:
                after = after.roll(self.source)
                self.state.add_observation(
                    to_id=seat, message=f"Your hidden dice after the reroll: {_faces(after.hidden[seat])}.",
                    observation_type=ta.ObservationType.GAME_BOARD,
                )
            self._set(after)
        else:
            result = after.results[-1]
            self.state.add_observation(message=_describe_result(self.rules, self.names, result), observation_type=ta.ObservationType.GAME_MESSAGE)
            if after.is_over:
                self._set(after)
                assert after.winner is not None
                winner = self.names[after.winner]
                self.state.set_game_outcome(reward_dict=self._final_rewards(after), reason=f"{winner} wins.")
            else:
                self._set(after.roll(self.source))
                self._round_start()
        return self._advance()

    def _advance(self) -> tuple[bool, dict[str, Any]]:
        """TextArena's end of a step: the seat to move was set by the engine."""
        done, info = self.state.step(rotate_player=False)
        return bool(done), dict(info)

    def get_board_str(self) -> str:
        s = self.engine
        bid = s.current_bid
        return (
            "Dice held: " + ", ".join(f"{n} {d}" for n, d in zip(self.names, s.dice))
            + (f"; current bid: {self.rules.describe_bid(bid)}" if bid else "; no bid yet")
        )

    # helpers ----------------------------------------------------------------------------

    def _set(self, state: State) -> None:
        self.engine = state
        self.state.game_state["engine"] = state
        if state.to_move is not None:
            self.state.manually_set_current_player_id(state.to_move, force=True)

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        return (
            f"You are Player {player_id} in a {len(self.names)}-player game of Liar's Dice ({self.rules.name} rules).\n"
            + rules_text(self.rules)
        )

    def _round_start(self) -> None:
        s = self.engine
        counts = "; ".join(f"{n}: {d}" for n, d in zip(self.names, s.dice))
        for seat, hand in enumerate(s.hidden):
            if s.dice[seat]:
                self.state.add_observation(
                    to_id=seat, message=f"New round ({len(s.results) + 1}). Dice held: {counts}. Your dice: {_faces(hand)}.",
                    observation_type=ta.ObservationType.GAME_BOARD,
                )
        assert s.to_move is not None
        opens = f"{self.names[s.to_move]} opens."
        if s.palifico:
            opens = f"This is a palifico round: wilds do not count, and raises keep the face. {opens}"
        self.state.add_observation(message=opens, observation_type=ta.ObservationType.GAME_MESSAGE)
        self._set(s)

    def _final_rewards(self, state: State) -> dict[int, float]:
        if not self.eliminated:
            return _rewards(state)
        return _ranked_rewards(state, self.past_results, self.eliminated)

    def _eliminate(self, seat: int) -> None:
        """TextArena's rule for many players: the offender's dice leave the
        table and a new round starts (or the last player standing wins)."""
        s = self.engine
        self.eliminated.append(seat)
        self.past_results.extend(s.results)
        dice = tuple(0 if t == seat else d for t, d in enumerate(s.dice))
        self.state.add_observation(
            message=f"{self.names[seat]} is eliminated by repeated invalid moves.", observation_type=ta.ObservationType.GAME_MESSAGE
        )
        alive = [t for t, d in enumerate(dice) if d]
        if len(alive) == 1:
            self.state.set_game_outcome(
                reward_dict=_ranked_rewards(s, self.past_results, self.eliminated, alive=alive, counted=False),
                reason=f"{self.names[alive[0]]} wins.",
            )
            return
        opener = next(t for k in range(1, len(dice) + 1) if dice[t := (seat + k) % len(dice)])
        used = tuple(t for t in s.palifico_used if dice[t]) if self.rules.palifico else ()
        self.engine = self.game.position(dice, opener, palifico_used=used).roll(self.source)
        self._round_start()

    def _forfeit(self, seat: int) -> None:
        self.state.set_game_outcome(
            reward_dict=_rewards(self.engine, forfeit=seat),
            reason=f"{self.names[seat]} forfeits the game by repeated invalid moves.",
        )


#: TextArena ids of our presets, by preset name.
def env_id(preset: str) -> str:
    """``LiarsDice-<preset>-v0``."""
    return f"LiarsDice-{preset}-v0"


def register_presets() -> list[str]:
    """Register every preset as ``LiarsDice-<preset>-v0`` (TextArena's LLM
    observation and action-formatting wrappers), ``...-v0-raw`` (none),
    ``...-v0-train`` (TextArena's training wrappers, as its own ``-train``
    variants: ``GameMessagesObservationWrapper`` and ``ActionFormattingWrapper``)
    and ``...-v0-eliminate`` (the default wrappers, ``invalid_move="eliminate"``).
    Idempotent. :returns: the ids registered by this call."""
    from textarena.envs.registration import ENV_REGISTRY, register
    from textarena.wrappers import ActionFormattingWrapper, GameMessagesObservationWrapper, LLMObservationWrapper

    default = [LLMObservationWrapper, ActionFormattingWrapper]
    variants: tuple[tuple[str, Any, str], ...] = (
        ("", default, "forfeit"),
        ("-raw", None, "forfeit"),
        ("-train", [GameMessagesObservationWrapper, ActionFormattingWrapper], "forfeit"),
        ("-eliminate", default, "eliminate"),
    )
    done = []
    for name in sorted(PRESETS):
        for suffix, wrappers, invalid in variants:
            eid = env_id(name) + suffix
            if eid not in ENV_REGISTRY:
                register(id=eid, entry_point=LiarsDiceTextEnv, default_wrappers=wrappers, rules=name, invalid_move=invalid)
                done.append(eid)
    return done


# -- a TextArena agent as a bot ------------------------------------------------------------


class TextArenaBot:
    """A :class:`~liars_dice.bots.Bot` that asks a TextArena agent.

    :param agent: any callable from an observation string to an action string
        (a ``textarena.Agent``).
    :param retries: how often an invalid reply is sent back with its reason.
    """

    def __init__(self, agent: Callable[[str], str], name: str = "textarena", retries: int = 1) -> None:
        self.agent, self.name, self.retries = agent, name, max(0, retries)

    def decide(self, view: SeatView) -> Decision:
        text = view_text(view)
        reason = None
        for _ in range(self.retries + 1):
            obs = text if reason is None else f"{text}\n[GAME] Your move was not valid: {reason} Please answer again."
            reply = self.agent(obs)
            try:
                return self._check(view, *parse_text_action(reply, view.rules))
            except LiarsDiceError as e:
                reason = e.message
        legal = view.legal_actions()
        fallback = CHALLENGE if CHALLENGE in legal else legal[0]
        log.warning("The agent gave no valid move (%s); playing %s instead.", reason, format_text_action(fallback))
        print(f"{self.name}: no valid move from the agent ({reason}); playing {format_text_action(fallback)}.", file=sys.stderr)
        return Decision(fallback)

    @staticmethod
    def _check(view: SeatView, action: Action, show: Hand) -> Decision:
        legal = view.legal_actions()
        if isinstance(action, (Challenge, Calza)):
            if action not in legal:
                if view.current_bid is None:
                    raise IllegalActionError("There is no bid to call yet: you open the round, so make a bid.")
                raise IllegalActionError(
                    f"Calza needs at least {view.rules.calza_min_players} players still in: raise the bid or call it."
                )
            return Decision(action)
        rules, n = view.rules, view.dice_in_play
        if not 1 <= action.face <= rules.faces:
            raise IllegalActionError(f"A bid names a face from 1 to {rules.faces}, not {action.face}.")
        if not 1 <= action.quantity <= n:
            raise IllegalActionError(f"A bid's quantity runs from 1 to the {n} dice in play, so {action.quantity} is not allowed.")
        if action not in legal:
            if view.current_bid is None:
                raise IllegalActionError(f"A round may not open on {rules.face_noun(action.face)}; name another face.")
            if view.palifico:
                one_die = view.dice[view.seat] == 1
                message = palifico_raise_message(rules, view.current_bid, action, n, one_die)
                raise IllegalActionError(message or f"{rules.describe_bid(action)} is not a legal raise here.")
            raise IllegalActionError(raise_message(rules, view.current_bid, action, n))
        if show and show not in legal_shows(view.hand):
            raise IllegalActionError(
                f"You can show only your hidden dice ({_faces(view.hand)}), keeping at least one hidden; {_faces(show)} is not such a show."
            )
        return Decision(action, show)


def load_agent(spec: str, kwargs: dict[str, Any] | None = None) -> Callable[[str], str]:
    """``MODULE:ATTR`` -> ``ATTR(**kwargs)`` (a class or factory making the agent).

    :raises ValueError: for a spec that does not name an importable callable.
    """
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ValueError(f"{spec!r} is not MODULE:FACTORY, e.g. textarena.agents:OpenRouterAgent.")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"Cannot load the agent {spec!r}: {e}.") from None
    agent = factory(**(kwargs or {}))
    if not callable(agent):
        raise ValueError(f"{spec!r} made {agent!r}, which is not an agent (a callable from text to text).")
    made: Callable[[str], str] = agent
    return made


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m liars_dice.integrations.textarena --agent MODULE:FACTORY --rules NAME``:
    serve the agent over the bot protocol on standard input and output."""
    parser = argparse.ArgumentParser(
        prog="python -m liars_dice.integrations.textarena",
        description="Serve a TextArena agent as a Liar's Dice bot over the bot protocol (stdin/stdout).",
    )
    parser.add_argument("--agent", required=True, help="MODULE:FACTORY making the agent, e.g. textarena.agents:OpenRouterAgent")
    parser.add_argument("--agent-kwargs", default="{}", help="JSON object of keyword arguments for FACTORY")
    parser.add_argument("--rules", required=True, help="the rule set (a preset name); requests must match")
    parser.add_argument("--retries", type=int, default=1, help="times an invalid reply is sent back with its reason (0-10)")
    parser.add_argument("--name", default="textarena", help="the bot's name in messages")
    args = parser.parse_args(argv)
    try:
        kwargs = json.loads(args.agent_kwargs)
        if not isinstance(kwargs, dict):
            raise ValueError("--agent-kwargs must be a JSON object.")
        rules = rules_of(args.rules)
        if not 0 <= args.retries <= 10:
            raise ValueError("--retries runs from 0 to 10.")
        bot = TextArenaBot(load_agent(args.agent, kwargs), args.name, args.retries)
    except (ValueError, LiarsDiceError) as e:
        print(getattr(e, "message", None) or str(e), file=sys.stderr)
        return 2
    try:
        serve(args.name, rules, sys.stdin.buffer, sys.stdout.buffer, factory=lambda name, seed: bot)
    except (KeyboardInterrupt, BrokenPipeError):  # pragma: no cover - the reader went away
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a program
    sys.exit(main())
