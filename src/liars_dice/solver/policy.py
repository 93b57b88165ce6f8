"""A solved round's policy: lookup by hand and history, and ``.npz`` files.

File layout (``numpy.savez_compressed``): ``rules`` (JSON of
:meth:`Rules.to_dict`), ``dice`` ``(2,)`` int, ``max_depth`` (the tree's cap), and ``depth_<d>`` ``(n_edges_d,
n_hands_actor)`` float64 for every depth ``d``. The tree is rebuilt from the
rules and dice on load, and the shapes must match it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from ..engine import Action, Bid, Hand, Rules
from .hands import Hands, enumerate_hands
from .tree import BidTree, SolverError


class RoundTree(Protocol):
    """What a solved round's tree tells of the round (:class:`BidTree`, :class:`~.shows.ShowTree`)."""

    rules: Rules
    dice: tuple[int, int]


class OfRound:
    """The ``rules`` and ``dice`` of a solved round, read from its ``tree``
    (shared by :class:`Policy` and :class:`~liars_dice.solver.shows.ShowPolicy`)."""

    tree: RoundTree

    @property
    def rules(self) -> Rules:
        return self.tree.rules

    @property
    def dice(self) -> tuple[int, int]:
        return self.tree.dice


@dataclass
class Policy(OfRound):
    """Both players' behaviour in one round: player 0 opens with ``dice[0]`` dice.

    :ivar tree: the public bid tree.
    :ivar hands: each player's hands.
    :ivar strategy: per depth ``d``, ``(n_edges_d, n_hands_actor)`` float64: the
        probability that the acting player (``d % 2``) holding each hand takes
        each edge; each node's edges sum to 1.
    """

    tree: BidTree
    hands: tuple[Hands, Hands]
    strategy: list[np.ndarray]

    def action_probabilities(self, hand: Hand, history: list[Bid] | tuple[Bid, ...]) -> dict[Action, float]:
        """The acting player's probabilities over the legal actions after
        ``history`` (this round's bids, oldest first) when holding ``hand``.

        :raises SolverError: for a history outside the tree or a hand of the wrong size.
        """
        depth, row = self.tree.locate(history)
        player = depth % 2
        if len(hand) != self.dice[player]:
            raise SolverError(f"Player {player} holds {self.dice[player]} dice, not {len(hand)}.")
        col = self.hands[player].index(hand)
        dep = self.tree.depths[depth]
        s, n = int(dep.starts[row]), int(dep.n_actions[row])
        probs = self.strategy[depth][s : s + n, col]
        return dict(zip(self.tree.actions(depth, row), (float(p) for p in probs)))

    def save(self, path: str | Path) -> None:
        """Write the policy as a compressed ``.npz`` file (layout in the module doc)."""
        write_policy_file(path, self.rules, self.dice, self.tree.max_depth, "depth", self.strategy)

    @staticmethod
    def load(path: str | Path) -> "Policy":
        """Read a file written by :meth:`save`.

        :raises SolverError: when the file is missing, not a policy, or its
            shapes do not fit the tree of its rules and dice.
        """
        tree, strategy = read_policy_file(path, "policy", BidTree, "depth", lambda t: len(t.depths))
        rules, dice = tree.rules, tree.dice
        hands = (enumerate_hands(dice[0], rules.faces), enumerate_hands(dice[1], rules.faces))
        for d, (s, dep) in enumerate(zip(strategy, tree.depths)):
            if s.shape != (dep.n_edges, hands[d % 2].n_hands):
                raise SolverError(f"{path} has a policy of the wrong shape at depth {d}.")
        return Policy(tree, hands, strategy)


Tree = TypeVar("Tree")


def write_policy_file(
    path: str | Path, rules: Rules, dice: tuple[int, int], max_depth: int, prefix: str,
    blocks: list[np.ndarray], **extra: np.ndarray,
) -> None:
    """Write a round's policy as a compressed ``.npz``: ``rules`` (JSON of
    :meth:`Rules.to_dict`), ``dice``, ``max_depth``, ``<prefix>_<i>`` per block
    of edges (a depth, or a group of nodes), and ``extra`` arrays."""
    # Any: numpy types **kwargs as its allow_pickle flag too
    arrays: dict[str, Any] = {f"{prefix}_{i}": b for i, b in enumerate(blocks)}
    arrays.update(extra)
    np.savez_compressed(
        path, rules=np.array(json.dumps(rules.to_dict())), dice=np.array(dice), max_depth=np.array(max_depth), **arrays
    )


def read_policy_file(
    path: str | Path, kind: str, tree_of: Callable[[Rules, tuple[int, int], int], Tree], prefix: str,
    n_blocks: Callable[[Tree], int],
) -> tuple[Tree, list[np.ndarray]]:
    """The tree (rebuilt by ``tree_of(rules, dice, max_depth)``) and the float64
    blocks of a file written by :func:`write_policy_file`.

    :raises SolverError: when the file is missing or is not a ``kind`` file.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            rules = Rules.from_dict(json.loads(str(z["rules"])))
            dice = tuple(int(x) for x in z["dice"])
            tree = tree_of(rules, (dice[0], dice[1]), int(z["max_depth"]))
            blocks = [np.array(z[f"{prefix}_{i}"], dtype=np.float64) for i in range(n_blocks(tree))]
    except (OSError, KeyError, ValueError) as e:
        raise SolverError(f"{path} is not a readable {kind} file: {e}.") from None
    return tree, blocks
