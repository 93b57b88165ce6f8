"""Scripted TextArena agents for the offline tests: no model, no network.

``ScriptedAgent`` reads its dice and this round's bids from the observation
text and answers in TextArena's action format. With ``stumble`` its first reply
of a game holds no move (so the tests see the re-prompt); after being told a
move was not valid it calls, or opens low when there is nothing to call.
"""

from __future__ import annotations

import re

import textarena as ta


class ScriptedAgent(ta.Agent):
    """Raises by one on the face it holds most; calls from a quantity of 3."""

    def __init__(self, shows: bool = False, stumble: bool = False) -> None:
        self.shows, self.stumble = shows, stumble
        self.seen: list[str] = []

    def __call__(self, observation: str) -> str:
        self.seen.append(observation)
        if self.stumble:
            self.stumble = False
            return "Let me think about the odds first."
        this_round = re.split(r"New round|Last round:", observation)[-1]
        dice = re.findall(r"Your (?:hidden )?dice(?: after the reroll)?: ([0-9, ]+)\.", observation)
        mine = [int(x) for x in dice[-1].split(",")] if dice else [2]
        bids = re.findall(r"bids [^\[\n]*\[Bid: (\d+), (\d+)\]", this_round)  # the game's account, not our own text
        faces = sorted(set(mine) - ({1} if "may not open with a bid on 1s" in observation else set())) or [2]
        face = max(faces, key=mine.count)
        told = "not valid" in this_round[-300:] or "invalid move" in this_round[-300:]
        if bids and (told or int(bids[-1][0]) >= 3):
            return "I call. [Call]"
        q = int(bids[-1][0]) + 1 if bids else 1
        move = f"I bid [Bid: {q}, {face}]"
        if self.shows and "[Show:" in observation and mine.count(face) >= 2 and len(mine) > 2:
            move += f" [Show: {face}, {face}]"
        return move


def make(**kwargs: object) -> ScriptedAgent:
    """The factory named on the command line: ``textarena_agents:make``."""
    return ScriptedAgent(**kwargs)  # type: ignore[arg-type]
