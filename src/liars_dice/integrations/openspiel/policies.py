"""Policies across the border: a solved policy of ours as an OpenSpiel
``TabularPolicy``, and any bot of ours as an OpenSpiel policy or bot.

- :func:`tabular_policy`: a :class:`~liars_dice.solver.Policy` (``liars-dice
  solve``, :func:`liars_dice.solve`) as ``open_spiel.python.policy.TabularPolicy``
  of our game ``python_liars_dice_ld`` (its rules, two seats, its dice) or of
  OpenSpiel's built-in ``liars_dice`` (rules ``openspiel``), so OpenSpiel's
  ``exploitability``, ``policy_value`` and friends read it;
- :class:`BotPolicy`: a bot of ours as ``open_spiel.python.policy.Policy`` of
  our game: the bot's own move probabilities
  (:func:`liars_dice.bots.base.action_probabilities`), so OpenSpiel's
  ``exploitability`` reads a mixed bot's policy exactly;
- :func:`openspiel_bot`: a bot of ours as a ``pyspiel.Bot`` (``step(state)``),
  for ``pyspiel.evaluate_bots`` and OpenSpiel's Python bot loops;
- :func:`export_tabular_policy`: an OpenSpiel ``TabularPolicy`` (or any
  OpenSpiel policy) of our game written as a view policy file
  (:mod:`liars_dice.bots.policy_file`), which plays in the arena as
  ``policy:FILE`` against our bots, with no OpenSpiel needed to play it.

Needs the ``openspiel`` extra.
"""

from __future__ import annotations

from typing import Any

from ..extras import needs

with needs("openspiel", __name__):
    import pyspiel
    from open_spiel.python import policy as os_policy

from ...bots import Bot, Decision
from ...bots.base import action_probabilities as bot_probabilities
from ...engine import CHALLENGE, PRESETS, Bid
from ...engine.encoding import Show
from ...solver import Policy, SolverError
from .game import LiarsDiceGame, LiarsDiceState

#: Short name of OpenSpiel's built-in C++ game, and our preset of its rules.
BUILTIN, BUILTIN_PRESET = "liars_dice", "openspiel"


def _builtin_round(state: Any, dice: tuple[int, int], faces: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], list[Bid]]:
    """Both hands and this round's bids of a state of the built-in ``liars_dice``,
    from its history: ``dice[0]`` then ``dice[1]`` chance outcomes (``face - 1``),
    then bid ids ``(q - 1) * F + f - 1``."""
    history = state.history()
    n0, n1 = dice
    hands = (
        tuple(sorted(x + 1 for x in history[:n0])),
        tuple(sorted(x + 1 for x in history[n0 : n0 + n1])),
    )
    bids = [Bid(a // faces + 1, a % faces + 1) for a in history[n0 + n1 :]]
    return hands, bids


def tabular_policy(policy: Policy, game: Any) -> Any:
    """``policy`` as an OpenSpiel ``TabularPolicy`` of ``game``.

    :param game: ``pyspiel.load_game("liars_dice", {"numdice": d})`` (the
        policy's rules must be ``openspiel``, dice ``(d, d)``), or our
        ``python_liars_dice_ld`` with the policy's rules, two seats and dice.
        The policy is of one round (the solver's games), player 0 opening.
    :returns: a ``TabularPolicy`` whose every information state holds the
        policy's probabilities (0 elsewhere).
    :raises SolverError: when the game is not the policy's (rules, seats or
        dice), one sentence naming what differs.
    """
    builtin = game.get_type().short_name == BUILTIN
    rules = policy.rules
    if builtin:
        d = int(game.get_parameters().get("numdice", 1))
        if rules != PRESETS[BUILTIN_PRESET] or policy.dice != (d, d):
            raise SolverError(
                f"OpenSpiel's liars_dice is the openspiel rules with {d} dice each; the policy is {rules.name} with dice {policy.dice}."
            )
    else:
        if not isinstance(game, LiarsDiceGame):
            raise SolverError(f"{game} is neither OpenSpiel's liars_dice nor our python_liars_dice_ld.")
        enc = game.setup.encoding
        if game.setup.game.rules != rules or tuple(enc.dice) != tuple(policy.dice):
            raise SolverError(
                f"The game is {game.setup.game.rules.name} with dice {tuple(enc.dice)}; the policy is {rules.name} with dice {policy.dice}."
            )
    tabular = os_policy.TabularPolicy(game)
    faces = rules.faces
    for state in tabular.states:
        player = state.current_player()
        if builtin:
            hands, bids = _builtin_round(state, policy.dice, faces)
            liar = sum(policy.dice) * faces

            def encode(a: Any) -> int:
                return liar if a is CHALLENGE else (a.quantity - 1) * faces + a.face - 1
        else:
            st = state.pos.state
            hands = (tuple(sorted(st.hidden[0])), tuple(sorted(st.hidden[1])))
            bids = [b for _, b, _ in st.bids]
            encode = game.setup.encoding.encode
        row = tabular.policy_for_key(state.information_state_string())
        row[:] = 0.0
        for action, p in policy.action_probabilities(hands[player], bids).items():
            row[encode(action)] = p
    return tabular


class BotPolicy(os_policy.Policy):  # open_spiel ships no type hints (pyproject: disallow_subclassing_any off here)
    """A bot of ours as an OpenSpiel policy of our game: at each decision the
    bot's move probabilities from its seat's view
    (:func:`~liars_dice.bots.base.action_probabilities`: the tables' mixed
    policy of ``strong``, ``random``'s uniform one), 0 on every other legal
    id. A bid's probability sums its shows; under show-and-reroll the show
    node (the bid is not applied yet) gives each show its probability given
    the pending bid (no show when the bot would not make that bid). A bot
    without probabilities (a program over the bot protocol) is asked for one
    move, probability 1, afresh at every call.

    :param game: a ``python_liars_dice_ld`` game.
    :param bot: any :class:`~liars_dice.bots.Bot` (``make_bot("strong", seed)``).
    :param players: the seats it plays (default: every seat).
    """

    def __init__(self, game: LiarsDiceGame, bot: Bot, players: list[int] | None = None) -> None:
        super().__init__(game, players if players is not None else list(range(game.num_players())))
        self.bot = bot

    def action_probabilities(self, state: LiarsDiceState, player_id: int | None = None) -> dict[int, float]:
        pos = state.pos
        enc = pos.setup.encoding
        seat = state.current_player()
        probs = bot_probabilities(self.bot, pos.state.view(seat))
        out = {a: 0.0 for a in state.legal_actions()}
        if pos.pending is not None:
            shows = {tuple(sorted(d.show)): p for d, p in probs.items() if d.action == pos.pending and p > 0}
            total = sum(shows.values())
            if total <= 0:
                shows, total = {(): 1.0}, 1.0
            for faces, p in shows.items():
                out[enc.encode(Show(faces))] += p / total
            return out
        for d, p in probs.items():
            out[enc.encode(d.action)] += p
        return out


def choose(bot: Bot, state: LiarsDiceState) -> int:
    """The action id ``bot`` plays in ``state`` (a decision node of our game).
    At a bid's show node (its own node, after the bid id) the bot is asked
    again from the same view; the show it pairs with the pending bid, else none."""
    pos = state.pos
    enc = pos.setup.encoding
    seat = state.current_player()
    decision: Decision = bot.decide(pos.state.view(seat))
    if pos.pending is not None:
        faces = tuple(sorted(decision.show)) if decision.action == pos.pending else ()
        return enc.encode(Show(faces))
    return enc.encode(decision.action)


class _Bot(pyspiel.Bot):
    def __init__(self, bot: Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def step(self, state: LiarsDiceState) -> int:
        return choose(self.bot, state)


def openspiel_bot(bot: Bot) -> Any:
    """``bot`` as a ``pyspiel.Bot`` for our game: ``step(state)`` returns its
    action id (``pyspiel.evaluate_bots`` plays it against OpenSpiel's bots)."""
    return _Bot(bot)


def export_tabular_policy(policy: Any, game: LiarsDiceGame, path: str, states: Any = None) -> int:
    """Write an OpenSpiel policy of our game ``python_liars_dice_ld`` as a view
    policy file (:mod:`liars_dice.bots.policy_file`), so it plays as
    ``policy:FILE`` in the arena and in ``liars-dice exploitability``.

    Every decision state of the game (a ``TabularPolicy``'s ``states``, or
    ``states`` given) is read through ``policy.action_probabilities(state)``;
    under show-and-reroll a bid and the show after it (OpenSpiel's two
    decisions) become one move of probability ``P(bid) * P(show | bid)``.
    Information states are keyed by the seat's view
    (:func:`~liars_dice.bots.policy_file.view_key`).

    :param policy: an ``open_spiel.python.policy.Policy`` of ``game``
        (``TabularPolicy``, ``cfr.CFRSolver(game).average_policy()``, ...).
    :param states: the decision states to read; default ``policy.states``
        (a ``TabularPolicy``'s).
    :returns: the information sets written.
    :raises PolicyFileError: when two information states of OpenSpiel that
        one view does not tell apart (dice rerolled away after a show) have
        different probabilities, or for too many of them.
    """
    from ...bots.policy_file import PolicyFileError, view_key, write_view_policy

    enc = game.setup.encoding
    table: dict[str, dict[Decision, float]] = {}
    for state in (policy.states if states is None else states):
        pos = state.pos
        if state.is_chance_node() or state.is_terminal() or pos.pending is not None:
            continue
        seat = state.current_player()
        row: dict[Decision, float] = {}
        for a, p in policy.action_probabilities(state).items():
            if p <= 0:
                continue
            action = enc.decode(int(a))
            if isinstance(action, Show):  # a show node is read with its bid, below
                continue
            child = state.child(int(a))
            if child.pos.pending is not None and child.current_player() == seat:
                for s, q in policy.action_probabilities(child).items():
                    show = enc.decode(int(s))
                    if q > 0 and isinstance(show, Show):
                        d = Decision(action, tuple(sorted(show.faces)))
                        row[d] = row.get(d, 0.0) + float(p) * float(q)
            else:
                row[Decision(action)] = row.get(Decision(action), 0.0) + float(p)
        key = view_key(pos.state.view(seat))
        old = table.get(key)
        if old is not None and (old.keys() != row.keys() or any(abs(old[d] - row[d]) > 1e-9 for d in row)):
            raise PolicyFileError(
                "The policy plays two information states one view does not tell apart (dice rerolled away) "
                "differently, so a view policy cannot hold it."
            )
        table[key] = row
    write_view_policy(path, game.setup.game.rules, table)
    return len(table)
