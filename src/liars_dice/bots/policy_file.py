"""Policies in: a saved policy file plays as a bot (``policy:FILE`` in the arena,
``liars-dice exploitability --bot policy:FILE``).

Two kinds of ``.npz`` file are read, told apart by their arrays:

- **A solved round** (:meth:`liars_dice.solver.Policy.save`, ``liars-dice
  solve --save``): one two-player round, player 0 opening with ``dice[0]``
  dice; the bot plays it in any position of those dice and rules, by its
  hand and this round's bids.
- **A view policy** (this module's format, :data:`FORMAT`; written by
  :func:`write_view_policy`, and by
  :func:`liars_dice.integrations.openspiel.policies.export_tabular_policy` from
  an OpenSpiel ``TabularPolicy``): a table from a seat's whole view
  (:func:`view_key`) to move probabilities, for any game of its rules.

View policy layout (``numpy.savez_compressed``, read with ``allow_pickle=False``):

- ``format``: the text :data:`FORMAT`;
- ``rules``: JSON of :meth:`~liars_dice.engine.Rules.to_dict` (the dice per
  seat are the views', so ``dice_per_player`` and ``name`` are not compared);
- ``keys``: ``(n,)`` text, one :func:`view_key` per information set, unique;
- ``offsets``: ``(n + 1,)`` int64, the moves of key ``i`` are ``offsets[i]:offsets[i + 1]``;
- ``moves``: ``(m,)`` text, a move as :func:`move_text` writes it (``2x3``,
  ``liar``, ``calza``, a bid with a show ``2x3/3,3``);
- ``probs``: ``(m,)`` float64, each move's probability (a key's sum to 1 within 1e-6).

A position outside the file (another dice count, a history the policy never
stored) is refused with :class:`PolicyFileError`, one sentence, never played
by a guess: the arena reports it as the game's failure.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..engine import Action, Bid, LiarsDiceError, Rules, SeatView, parse_action
from .base import Decision, Probabilities, sample

#: The ``format`` text of a view policy file.
FORMAT = "liars-dice/view-policy/1"

#: Largest policy file read (bytes).
MAX_POLICY_BYTES = 512 * 1024 * 1024

#: Most information sets of a view policy file.
MAX_KEYS = 5_000_000


class PolicyFileError(LiarsDiceError):
    """A policy file that cannot be read, or a position it does not cover.
    ``code`` ``"bot/policy"``."""

    code = "bot/policy"


def view_key(view: SeatView) -> str:
    """A seat's information set as text: its view
    (:meth:`~liars_dice.engine.SeatView.to_json`) with seats for names, dice
    in sorted order, without the rules' name, the phase or the seat to move
    (the same for every view where the seat decides).

    >>> from liars_dice.engine import Game, Rules
    >>> state = Game.create(Rules.preset("classic"), ["ann", "bob"], [1, 1]).initial_state().deal([[3], [5]])
    >>> view_key(state.view(0))
    '{"bids":[],"dice":{"0":1,"1":1},"hand":[3],"results":[],"seat":"0","shown":{},"wilds_active":true}'
    """
    names = tuple(str(i) for i in range(len(view.players)))
    j = replace(view, players=names).to_json()
    for k in ("rules", "players", "phase", "to_move", "winner"):
        j.pop(k, None)
    j["hand"] = sorted(j["hand"])
    j["shown"] = {s: sorted(h) for s, h in j["shown"].items()}
    for b in j["bids"]:
        if "show" in b:
            b["show"] = sorted(b["show"])
    for r in j["results"]:
        r["revealed"] = {s: sorted(h) for s, h in r["revealed"].items()}
    return json.dumps(j, sort_keys=True, separators=(",", ":"))


def move_text(decision: Decision) -> str:
    """A decision as the file writes it: ``2x3``, ``liar``, ``calza``, ``2x3/3,3``."""
    text = str(decision.action)
    if decision.show:
        text += "/" + ",".join(str(d) for d in sorted(decision.show))
    return text


def parse_move(text: str) -> Decision:
    """The decision :func:`move_text` wrote.

    :raises PolicyFileError: for text that is not one.
    """
    action_text, _, show_text = text.partition("/")
    try:
        action: Action = parse_action(action_text)
        show = tuple(sorted(int(x) for x in show_text.split(","))) if show_text else ()
    except (LiarsDiceError, ValueError):
        raise PolicyFileError(f"{text[:40]!r} is not a move of a policy file.") from None
    if show and not isinstance(action, Bid):
        raise PolicyFileError(f"{text[:40]!r} shows dice with a move that is not a bid.")
    return Decision(action, show)


def _comparable(rules: Rules) -> dict[str, Any]:
    d = rules.to_dict()
    d.pop("name", None)
    d.pop("dice_per_player", None)
    return d


def write_view_policy(path: str | Path, rules: Rules, table: Mapping[str, Mapping[Decision, float]]) -> None:
    """Write a view policy file (layout in the module doc).

    :param table: :func:`view_key` to move probabilities.
    :raises PolicyFileError: for more than :data:`MAX_KEYS` keys or a key's
        probabilities that do not sum to 1.
    """
    import numpy as np

    if len(table) > MAX_KEYS:
        raise PolicyFileError(f"A view policy holds at most {MAX_KEYS:,} information sets, not {len(table):,}.")
    keys, offsets, moves, probs = [], [0], [], []
    for key, row in table.items():
        total = sum(row.values())
        if abs(total - 1.0) > 1e-6:
            raise PolicyFileError(f"The probabilities of {key[:80]} sum to {total:.6g}, not 1.")
        keys.append(key)
        for d, p in row.items():
            moves.append(move_text(d))
            probs.append(float(p))
        offsets.append(len(moves))
    np.savez_compressed(
        path, format=np.array(FORMAT), rules=np.array(json.dumps(rules.to_dict())), keys=np.array(keys, dtype=str),
        offsets=np.array(offsets, dtype=np.int64), moves=np.array(moves, dtype=str),
        probs=np.array(probs, dtype=np.float64),
    )


class PolicyBot:
    """A policy file as a bot: :meth:`action_probabilities` reads the file,
    :meth:`decide` samples from it (seeded).

    :param path: a solved round (``liars-dice solve --save``) or a view policy
        (module doc).
    :param seed: seeds the sampling (``None`` = unseeded).
    :raises PolicyFileError: for a file that is missing, too large or not a policy.
    """

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        self.path = str(path)
        self.name = f"policy:{Path(path).name}"
        self._rng = random.Random(seed)
        self._round: Any = None  # a solver Policy
        self._table: dict[str, tuple[int, int]] = {}
        self._moves: list[Decision] = []
        self._probs: list[float] = []
        self.rules: Rules
        _load(self, self.path)

    def action_probabilities(self, view: SeatView) -> Probabilities:
        """The file's probabilities at ``view``.

        :raises PolicyFileError: for a view of other rules, or a position the file does not hold.
        """
        if _comparable(view.rules) != _comparable(self.rules):
            raise PolicyFileError(f"{self.path} is a policy of the {self.rules.name} rules, not of {view.rules.name}.")
        if self._round is not None:
            return self._round_probabilities(view)
        key = view_key(view)
        span = self._table.get(key)
        if span is None:
            raise PolicyFileError(f"{self.path} holds no move for this position ({key[:160]}).")
        return {self._moves[i]: self._probs[i] for i in range(*span)}

    def _round_probabilities(self, view: SeatView) -> Probabilities:
        from ..solver import SolverError

        pol = self._round
        alive = [s for s, d in enumerate(view.dice) if d > 0]
        opener = view.bids[0][0] if view.bids else view.seat
        if len(alive) != 2 or opener not in alive:
            raise PolicyFileError(f"{self.path} plays two seats with dice, not {len(alive)}.")
        other = alive[1] if alive[0] == opener else alive[0]
        pair = (view.dice[opener], view.dice[other])
        if pair != tuple(pol.dice):
            raise PolicyFileError(
                f"{self.path} plays the opener with {pol.dice[0]} dice against {pol.dice[1]}, not {pair[0]} against {pair[1]}."
            )
        if any(view.shown):
            raise PolicyFileError(f"{self.path} is a round without shows; dice were shown here.")
        try:
            probs = pol.action_probabilities(tuple(sorted(view.hand)), [b for _, b, _ in view.bids])
        except SolverError as e:
            raise PolicyFileError(f"{self.path} holds no move for this position: {e}") from None
        return {Decision(a): float(p) for a, p in probs.items()}

    def decide(self, view: SeatView) -> Decision:
        return sample(self.action_probabilities(view), self._rng)


def _load(bot: PolicyBot, path: str) -> None:
    import numpy as np

    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise PolicyFileError(f"Cannot read the policy file {path}: {e.strerror}.") from None
    if size > MAX_POLICY_BYTES:
        raise PolicyFileError(f"{path} is {size:,} bytes; a policy file is at most {MAX_POLICY_BYTES:,}.")
    try:
        with np.load(path, allow_pickle=False) as z:
            names = set(z.files)
            if "format" not in names:
                if "depth_0" not in names:
                    raise PolicyFileError(f"{path} is neither a solved round nor a view policy file.")
                from ..solver import Policy, SolverError

                try:
                    bot._round = Policy.load(path)
                except SolverError as e:
                    raise PolicyFileError(str(e)) from None
                bot.rules = bot._round.rules
                return
            if str(z["format"]) != FORMAT:
                raise PolicyFileError(f"{path} is a policy file of format {str(z['format'])[:40]!r}, not {FORMAT!r}.")
            bot.rules = Rules.from_dict(json.loads(str(z["rules"])))
            keys = z["keys"]
            offsets = z["offsets"]
            if len(keys) > MAX_KEYS or offsets.shape != (len(keys) + 1,):
                raise PolicyFileError(f"{path} has a table of the wrong shape.")
            bot._moves = [parse_move(str(m)) for m in z["moves"]]
            bot._probs = [float(p) for p in z["probs"]]
            if len(bot._moves) != len(bot._probs) or int(offsets[-1]) != len(bot._moves):
                raise PolicyFileError(f"{path} has moves and probabilities of different lengths.")
            bot._table = {str(k): (int(offsets[i]), int(offsets[i + 1])) for i, k in enumerate(keys)}
    except (OSError, KeyError, ValueError) as e:
        if isinstance(e, PolicyFileError):
            raise
        raise PolicyFileError(f"{path} is not a readable policy file: {str(e)[:120]}.") from None


_LOADED: dict[tuple[str, int, int], PolicyBot] = {}


def load_policy_bot(path: str | Path, seed: int | None = None) -> PolicyBot:
    """A :class:`PolicyBot` of ``path`` (see it for the errors), the file read
    once per process while it is unchanged (its size and modification time):
    every bot of it shares the table and has its own seeded sampling."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise PolicyFileError(f"Cannot read the policy file {path}: {e.strerror}.") from None
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    template = _LOADED.get(key)
    if template is None:
        template = _LOADED[key] = PolicyBot(path)
    bot = copy.copy(template)
    bot._rng = random.Random(seed)
    return bot
