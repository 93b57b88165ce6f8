"""Every rule set of ours as an OpenSpiel Python game, ``python_liars_dice_ld``.

Written as OpenSpiel's own ``open_spiel/python/games/*.py`` (``kuhn_poker.py``,
``liars_poker.py``): a :class:`pyspiel.Game` factory, a :class:`pyspiel.State`
and an observer; registered with ``pyspiel.register_game`` on import.

Parameters (``pyspiel.load_game("python_liars_dice_ld", {...})``):

- ``rules``: a preset name (``classic``, ``wild-stars``, ...) or a rule set as
  JSON in any form a rules file takes: ``{"preset": "perudo", "calza": false}``
  (the options that differ from a preset) or every option (``Rules.to_dict``);
  default ``classic``;
- ``players``: seats, default 2;
- ``dice``: starting dice per seat, default 0 = the rules' ``dice_per_player``.

Game type: sequential, imperfect information, explicit chance (every die of
every deal and of every reroll after a show is one chance node with ``F`` equally
likely outcomes ``face - 1``), zero-sum terminal rewards for the whole game to
the last player standing: +1 for the winner, ``-1/(n-1)`` for each other seat.
Seat 0 opens the first round. Actions are :mod:`liars_dice.engine.encoding`'s ids.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..extras import needs

with needs("openspiel", __name__):
    import pyspiel

from ...engine import Rules, RulesError
from ...records.rules_file import parse_rules_text
from ...engine.encoding import Show
from ..observation import Layout
from ..position import CHANCE, Position, Setup

SHORT_NAME = "python_liars_dice_ld"
_DEFAULTS: dict[str, Any] = {"rules": "classic", "players": 2, "dice": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Liar's Dice (liars-dice rule sets)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def rules_from_param(text: str) -> Rules:
    """A preset name, or a rule set as JSON in the forms a rules file takes
    (:func:`liars_dice.records.parse_rules_text`): ``{"preset": NAME, ...}``
    with the options that differ from that preset, or every option.

    :raises RulesError: for an unknown name, bad JSON or a bad option (one
        sentence; a :class:`~liars_dice.records.RulesFileError` for JSON).
    """
    text = text.strip()
    if text.startswith("{"):
        return parse_rules_text(text, "The rules parameter")
    return Rules.preset(text)


def setup_from_params(params: dict[str, Any]) -> Setup:
    """The shared :class:`Setup` of a game with these parameters."""
    rules = rules_from_param(str(params.get("rules", _DEFAULTS["rules"])))
    dice = int(params.get("dice", 0)) or None
    return Setup.create(rules, int(params.get("players", 2)), dice)


class LiarsDiceGame(pyspiel.Game):
    """The game factory: declares the facts every algorithm reads up front."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        try:
            setup = setup_from_params(params)
        except RulesError as e:
            raise ValueError(str(e)) from None
        n = setup.n_players
        info = pyspiel.GameInfo(
            num_distinct_actions=setup.encoding.num_actions,
            max_chance_outcomes=setup.game.rules.faces,
            num_players=n,
            min_utility=-1.0 / (n - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=setup.max_game_length,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.setup = setup

    def new_initial_state(self) -> "LiarsDiceState":
        return LiarsDiceState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "LiarsDiceObserver | None":
        """The observer for ``iig_obs_type`` (default: the observation, no
        perfect recall), or ``None`` for a type this game does not provide, as
        OpenSpiel's built-in ``liars_dice`` answers: only the seat's own private
        information with the public information (``private_info`` single
        player, ``public_info`` true) is provided, with or without perfect
        recall, and the public information alone (``private_info`` none:
        no tensor piece ``hand``, no own dice or rerolls in the strings). Any
        other request (all players' private information, or no public
        information) gets ``None``, never an observer that would hand out
        dice it was not asked for.

        :raises ValueError: for observation parameters (none are supported).
        """
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS or not obs_type.public_info:
            return None
        return LiarsDiceObserver(self.setup, obs_type, params)

    def max_chance_nodes_in_history(self) -> int:
        return self.setup.max_chance

    def __deepcopy__(self, memo: dict[int, Any]) -> "LiarsDiceGame":
        return self


class LiarsDiceState(pyspiel.State):
    """A position: an engine state plus the integer interface (:class:`Position`)."""

    def __init__(self, game: LiarsDiceGame, position: Position | None = None) -> None:
        super().__init__(game)
        self.pos = position if position is not None else Position(game.setup)

    def current_player(self) -> int:
        p = self.pos.current_player()
        if p == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if p < 0:
            return int(pyspiel.PlayerId.TERMINAL)
        return p

    def _legal_actions(self, player: int) -> list[int]:
        return self.pos.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.pos.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.pos.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Roll {action + 1}"
        move = self.pos.setup.encoding.decode(action)
        if isinstance(move, Show):
            return "Show " + ("".join(map(str, move.faces)) or "nothing")
        return str(move)

    def is_terminal(self) -> bool:
        return self.pos.is_terminal()

    def returns(self) -> list[float]:
        return self.pos.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> "LiarsDiceState":
        """A state with the same information state for ``player_id``: every
        other seat's dice of the current round redrawn uniformly (ISMCTS).

        :param probability_sampler: OpenSpiel's sampler, a callable giving a
            float in ``[0, 1)`` per call (``pyspiel.UniformProbabilitySampler(seed,
            0, 1)`` for a repeatable run); each redrawn die is
            ``floor(u * F)``. ``None``: numpy's global generator
            (``np.random.seed`` repeats it), as OpenSpiel's Python MCCFR samples.
        """
        if probability_sampler is None:
            return self._replay(self.pos.resample_history(player_id, lambda k: int(np.random.randint(k))))
        sampler = probability_sampler

        def draw(k: int) -> int:
            return min(k - 1, int(float(sampler()) * k))

        return self._replay(self.pos.resample_history(player_id, draw))

    def resample(self, player_id: int, rng: Any) -> "LiarsDiceState":
        """:meth:`resample_from_infostate` drawing from ``rng`` (a numpy
        ``Generator`` or ``RandomState``). Replays the history through pyspiel
        (so ``history()`` is the new world's), redrawing every chance outcome of
        the current round that is another seat's die."""
        draw = rng.integers if hasattr(rng, "integers") else rng.randint
        return self._replay(self.pos.resample_history(player_id, lambda f: int(draw(f))))

    def _replay(self, history: list[int]) -> "LiarsDiceState":
        new: LiarsDiceState = self.get_game().new_initial_state()
        for a in history:
            new.apply_action(a)
        return new

    def __str__(self) -> str:
        return str(self.pos)


class LiarsDiceObserver:
    """Observer in the PyObserver interface (open_spiel/python/observation.py):
    ``tensor``, ``dict``, ``set_from(state, player)``, ``string_from(state, player)``.
    Layouts: :mod:`liars_dice.integrations.observation`."""

    def __init__(self, setup: Setup, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"Observation parameters are not supported; passed {params}.")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._layout = Layout(setup, self.perfect_recall, self.private)
        self.tensor = self._layout.tensor
        self.dict = self._layout.dict

    def set_from(self, state: LiarsDiceState, player: int) -> None:
        self._layout.set_from(state.pos, player)

    def string_from(self, state: LiarsDiceState, player: int) -> str:
        if self.perfect_recall:
            text = state.pos.info[player]
            return text if self.private else public_info_string(text)
        return state.pos.observation_string(player, self.private)


def public_info_string(info: str) -> str:
    """A seat's information-state string without its private tokens: its
    dice of each deal (``h..``) and of each reroll (``rr..``)."""
    return _PRIVATE_TOKEN.sub("", info)


_PRIVATE_TOKEN = re.compile(r" (?:h|rr)\d*(?= |$)")


pyspiel.register_game(_GAME_TYPE, LiarsDiceGame)
