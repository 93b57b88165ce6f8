"""A PettingZoo AEC environment, in the style of PettingZoo's classic
environments (``pettingzoo/classic/chess/chess.py``), and a Gymnasium
single-agent environment, ``LiarsDice-v0``, that plays one seat against bots.

>>> from liars_dice.integrations.pettingzoo import env
>>> e = env(rules="classic", players=3, dice=2)
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs), int(obs["action_mask"].sum())
(['action_mask', 'observation'], 36)

Agents are ``player_0 .. player_{n-1}`` (seat order). The opener of the first
round is drawn at random from the environment's seeded generator (RULES.md:
the first opener is chosen at random), so no seat always opens; chance (the
deal, rerolls after a show) is drawn from the same generator. Actions are the ids of
:mod:`liars_dice.engine.encoding`; observations are
``{"observation": float32 (size,), "action_mask": int8 (num_actions,)}`` with the
observation layout of :mod:`liars_dice.integrations.observation` (no history of
past rounds), the mask all zeros for an agent not to move. Rewards come at the
end of the whole game: +1 for the winner, ``-1/(n-1)`` for every other agent.
An eliminated player stays among the agents, never selected, until the game ends.
``max_cycles`` (optional) truncates the game after that many decisions; under
calza a game is also truncated (a draw) after
:data:`~liars_dice.integrations.position.CALZA_ROUNDS_PER_DIE` rounds per die.

PettingZoo's naming: :mod:`liars_dice.integrations.liars_dice_v0` holds
``env``, ``raw_env`` and ``parallel_env`` as ``pettingzoo.classic.chess_v6``
does. Render modes: ``"ansi"`` (text), ``"human"`` (printed) and
``"rgb_array"`` (a small matplotlib drawing, uint8 ``(240, 320, 3)``).

Needs the ``pettingzoo`` extra (pettingzoo, gymnasium and matplotlib).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .extras import needs

with needs("pettingzoo", __name__):
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import EzPickle, seeding
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

from ..bots import make_bot
from ..engine import Bid, Rules, RulesError
from ..engine.encoding import Show
from .observation import Layout
from .position import CHANCE, Position, Setup

#: Most decisions ``max_cycles`` may allow (bounds a run).
MAX_CYCLES = 1_000_000


#: Render modes of the AEC environment.
RENDER_MODES = ("ansi", "human", "rgb_array")


def _rules(rules: str | Rules | dict[str, Any]) -> Rules:
    """A :class:`Rules` value, a preset name, or a rules file's dict form
    (``{"preset": NAME, ...}`` or every option)."""
    if isinstance(rules, Rules):
        return rules
    return Rules.from_json(rules)


def env(**kwargs: Any) -> AECEnv:
    """The wrapped AEC environment (out-of-bounds and order checks, and an
    illegal move ends the game for the mover with reward -1), as PettingZoo's
    classic ``env()`` functions build it. Arguments as :class:`raw_env`."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's name)
    """Liar's Dice for ``players`` agents.

    :param rules: a preset name, a :class:`Rules` value, or its dict form.
    :param players: seats (2 to 6, within the rules' bounds).
    :param dice: starting dice per seat (default: the rules').
    :param render_mode: ``None``, ``"ansi"`` (``render()`` returns the table as text),
        ``"human"`` (the table printed after every step) or ``"rgb_array"``
        (``render()`` returns a uint8 image ``(240, 320, 3)``, :func:`table_image`).
    :param max_cycles: truncate after this many decisions (default: the game's
        own bound, never reached).
    :raises RulesError: for a bad rule set, seat count or dice.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "liars_dice_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules | dict[str, Any] = "classic",
        players: int = 2,
        dice: int | None = None,
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ) -> None:
        EzPickle.__init__(self, rules, players, dice, render_mode, max_cycles)
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise RulesError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not {render_mode!r}.")
        self.setup = Setup.create(_rules(rules), players, dice)
        self.max_cycles = self.setup.max_game_length if max_cycles is None else int(max_cycles)
        if not 1 <= self.max_cycles <= max(MAX_CYCLES, self.setup.max_game_length):
            raise RulesError(f"max_cycles must be from 1 to {MAX_CYCLES}, not {max_cycles!r}.")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        self._layout = Layout(self.setup, perfect_recall=False)
        n_obs = self._layout.tensor.size
        n_act = self.setup.encoding.num_actions
        top = float(max(self.setup.encoding.dice))
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, top, (n_obs,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_act) for a in self.possible_agents}
        self._np_random, _ = seeding.np_random(None)
        self.pos = Position(self.setup)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        obs = self._layout.set_from(self.pos, seat).copy()
        mask = np.zeros(self.setup.encoding.num_actions, np.int8)
        if self.pos.current_player() == seat:
            mask[self.pos.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.pos = Position(self.setup, int(self._np_random.integers(self.setup.n_players)))
        self.decisions = 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._roll()
        self.agent_selection = self.possible_agents[self.pos.current_player()]

    def _roll(self) -> None:
        f = self.setup.game.rules.faces
        while self.pos.current_player() == CHANCE:
            self.pos.apply(int(self._np_random.integers(f)))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError("A live agent's step needs an action id; None is for a terminated or truncated agent only.")
        action = int(action)
        self.pos.check(action)
        self.pos.apply(action)
        self._roll()
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        if self.pos.is_terminal() and not self.pos.truncated:
            returns = self.pos.returns()
            self.rewards = {a: returns[i] for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.pos.truncated or self.decisions >= self.max_cycles:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
        if not self.pos.is_terminal() and not any(self.truncations.values()):
            self.agent_selection = self.possible_agents[self.pos.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the table as text (:func:`table_text`); ``"human"``: the
        same printed to stdout (also after every step), returning ``None``;
        ``"rgb_array"``: the table drawn (:func:`table_image`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'.")
            return None
        if self.render_mode == "human":
            print(table_text(self.pos) + "\n", flush=True)
            return None
        if self.render_mode == "rgb_array":
            return table_image(self.pos)
        return table_text(self.pos)

    def close(self) -> None:
        pass


def table_text(pos: Position) -> str:
    """The table as text, as a person at the table would see it from above
    (every cup shown): dice per seat, this round's bids, the last result."""
    st = pos.state
    rules = st.rules
    lines = [f"Liar's Dice ({rules.name}), round {pos.rounds}"]
    for s in range(len(st.dice)):
        mark = ">" if st.to_move == s and not st.is_over else " "
        hidden = " ".join(rules.face_label(f) for f in st.hidden[s])
        shown = " ".join(rules.face_label(f) for f in st.shown[s])
        out = " (out)" if st.dice[s] == 0 else ""
        lines.append(f"{mark} player_{s}: {st.dice[s]} dice [{hidden}]" + (f" shown [{shown}]" if shown else "") + out)
    if st.bids:
        lines.append("bids: " + ", ".join(f"player_{s} {rules.format_bid(b)}" for s, b, _ in st.bids))
    if pos.pending is not None:
        lines.append(f"player_{st.to_move} bid {rules.format_bid(pos.pending)} and chooses what to show")
    if st.results:
        r = st.results[-1]
        lines.append(
            f"last round: player_{r.challenger} challenged player_{r.bidder}'s "
            f"{rules.format_bid(r.bid)}; the count was {r.count}"
        )
    if st.is_over:
        lines.append(f"player_{st.winner} wins")
    return "\n".join(lines)


def table_image(pos: Position, width: int = 320, height: int = 240) -> np.ndarray:
    """The table drawn with matplotlib (Agg, no window): one row per seat with
    its dice as squares (hidden dark, shown light), the bids of this round and
    the last result below. :returns: uint8 ``(height, width, 3)``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    st = pos.state
    rules = st.rules
    dpi = 80
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    fig.patch.set_facecolor("#1f5f3a")  # the felt
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.text(8, 16, f"{rules.name}, round {pos.rounds}", color="white", fontsize=9, weight="bold")
    n = len(st.dice)
    row = min(28.0, (height - 90) / max(n, 1))
    size = min(18.0, row - 6)
    for s in range(n):
        y = 30 + s * row
        color = "#ffd54f" if st.to_move == s and not st.is_over else "white"
        ax.text(8, y + size * 0.75, f"player_{s}", color=color, fontsize=7)
        x = 70.0
        for face, shown in [(f, False) for f in st.hidden[s]] + [(f, True) for f in st.shown[s]]:
            ax.add_patch(Rectangle((x, y), size, size, facecolor="#f5f5f5" if shown else "#263238", edgecolor="white"))
            ax.text(x + size / 2, y + size * 0.72, rules.face_label(face), color="black" if shown else "white",
                    fontsize=6, ha="center")
            x += size + 3
            if x > width - size:
                break
    lines = []
    if st.bids:
        lines.append("bids: " + ", ".join(f"{s}:{rules.format_bid(b)}" for s, b, _ in st.bids[-6:]))
    if pos.pending is not None:
        lines.append(f"player_{st.to_move} bid {rules.format_bid(pos.pending)}, choosing a show")
    if st.results:
        r = st.results[-1]
        lines.append(f"last: player_{r.challenger} called {rules.format_bid(r.bid)}, count {r.count}")
    if st.is_over:
        lines.append(f"player_{st.winner} wins")
    for i, line in enumerate(lines):
        ax.text(8, height - 44 + i * 14, line, color="white", fontsize=7)
    canvas.draw()  # type: ignore[no-untyped-call, unused-ignore]  # matplotlib leaves it untyped (a later one may not)
    image = np.asarray(canvas.buffer_rgba())[:, :, :3]  # type: ignore[no-untyped-call, unused-ignore]  # matplotlib leaves it untyped (a later one may not)
    return np.ascontiguousarray(image, dtype=np.uint8)


class SingleSeatEnv(gymnasium.Env[Any, Any]):
    """``LiarsDice-v0``: one seat (``seat``, default 0) against bots of ours in
    the other seats; the bots play inside :meth:`step`.

    Observation: ``{"observation": float32 (size,), "action_mask": int8 (num_actions,)}``
    as in the AEC environment; :meth:`action_masks` gives the same mask as
    booleans, the method sb3-contrib's ``MaskablePPO`` calls (no wrapper
    needed). The opener of each game is drawn from the environment's seeded
    generator (RULES.md: the first opener is chosen at random). Action: an id of :mod:`liars_dice.engine.encoding`
    (mask with ``action_mask``); an illegal id ends the episode with reward -1 and
    ``info["illegal_action"]`` saying why, the position unchanged (as PettingZoo's
    ``TerminateIllegalWrapper``). Reward at the end: +1 when the seat wins,
    ``-1/(n-1)`` when another seat does.

    :param opponents: bot names (``random``, ``probabilistic``, ``strong``), one per
        other seat, or one name cycled over them (default ``["random"]``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules | dict[str, Any] = "classic",
        opponents: list[str] | tuple[str, ...] | None = None,
        players: int | None = None,
        dice: int | None = None,
        seat: int = 0,
        render_mode: str | None = None,
    ) -> None:
        opponents = list(opponents or ["random"])
        n = players if players is not None else max(2, len(opponents) + 1)
        if render_mode not in (None, "ansi"):
            raise RulesError(f"render_mode must be None or 'ansi', not {render_mode!r}.")
        self.setup = Setup.create(_rules(rules), n, dice)
        if not 0 <= seat < n:
            raise RulesError(f"There is no seat {seat} at a table of {n}.")
        self.seat = seat
        self.render_mode = render_mode
        others = [s for s in range(n) if s != seat]
        self._names = {s: opponents[i % len(opponents)] for i, s in enumerate(others)}
        for name in set(self._names.values()):
            make_bot(name)  # an unknown name fails here, listing the known ones
        self._layout = Layout(self.setup, perfect_recall=False)
        n_act = self.setup.encoding.num_actions
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, float(max(self.setup.encoding.dice)), (self._layout.tensor.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
        })
        self.action_space = spaces.Discrete(n_act)
        self.pos = Position(self.setup)
        self._bots: dict[int, Any] = {}

    def _obs(self) -> dict[str, np.ndarray]:
        obs = self._layout.set_from(self.pos, self.seat).copy()
        mask = np.zeros(self.setup.encoding.num_actions, np.int8)
        if self.pos.current_player() == self.seat:
            mask[self.pos.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat now: bool ``(num_actions,)`` (all
        ``False`` once the episode is over), the ``action_mask`` of the
        observation. sb3-contrib's ``MaskablePPO`` reads it through
        ``get_action_masks``."""
        return self._obs()["action_mask"].astype(bool)

    def _advance(self) -> None:
        """Roll dice and let the bots move until it is the seat's turn or the end."""
        pos = self.pos
        enc = self.setup.encoding
        f = self.setup.game.rules.faces
        while not pos.is_terminal():
            p = pos.current_player()
            if p == CHANCE:
                pos.apply(int(self.np_random.integers(f)))
                continue
            if p == self.seat:
                return
            d = self._bots[p].decide(pos.state.view(p))
            pos.apply(enc.encode(d.action))
            if pos.pending is not None:
                pos.apply(enc.encode(Show(tuple(sorted(d.show)))))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        bot_seed = int(self.np_random.integers(2**31))
        self._bots = {s: make_bot(name, bot_seed + s) for s, name in self._names.items()}
        self.pos = Position(self.setup, int(self.np_random.integers(self.setup.n_players)))
        self._advance()
        return self._obs(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        try:
            self.pos.check(int(action))
        except ValueError as e:
            # as PettingZoo's TerminateIllegalWrapper: the episode ends, the position is unchanged
            return self._obs(), -1.0, True, False, {"illegal_action": str(e)}
        self.pos.apply(int(action))
        self._advance()
        done = self.pos.is_terminal()
        reward = self.pos.returns()[self.seat] if done else 0.0
        cut = self.pos.truncated
        return self._obs(), float(reward), done and not cut, cut, {}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return table_text(self.pos)


def _register() -> None:
    if "LiarsDice-v0" not in gymnasium.registry:
        gymnasium.register(id="LiarsDice-v0", entry_point="liars_dice.integrations.pettingzoo:SingleSeatEnv")


_register()

__all__ = ["Bid", "SingleSeatEnv", "env", "raw_env", "table_image", "table_text"]
