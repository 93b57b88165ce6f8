"""Read-only queries of one worker: a player's games, the games a set of seat
tokens played, and a finished game's record and replay. Nothing here changes
a table; the answers are the same from every worker, since they come from
the store of record (and the live room where one is held).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..core.errors import GameNotFinished
from ..core.security import hash_token
from ..core.tables import TableStatus
from ..core.views import record_of, replay_steps
from .room import Room
from .store import Store


async def _as_is(work: Awaitable[Any]) -> Any:
    return await work


class Queries:
    """The read-only answers, over ``rooms`` (the live rooms by code) and ``store``.

    :param get_room: a room by join code, loaded if need be
        (:meth:`~liars_dice.server.runtime.service.TableService.get_room`).
    """

    def __init__(
        self, rooms: dict[str, Room], store: Store, get_room: Callable[[str], Awaitable[Room]],
        stored: Callable[[Awaitable[Any]], Awaitable[Any]] | None = None,
    ) -> None:
        self.rooms = rooms
        self.store = store
        self.get_room = get_room
        #: a read's failure as ``server/unavailable`` (:meth:`~liars_dice.server.runtime.service.TableService.stored`)
        self.stored = stored or _as_is


    async def games_of_name(self, name: str) -> list[dict[str, Any]]:
        """``GET /api/players/{name}/games``: the public games ``name`` played, newest first."""
        out: list[dict[str, Any]] = await self.stored(self.store.read(self.store.games_of, name=name))
        return out

    async def games_of_tokens(self, tokens: Sequence[str]) -> list[dict[str, Any]]:
        """``POST /api/my-games``: the tables these tokens took a seat at, newest
        first, one entry per table, as a player expects them:

        * a game they played is listed, also when they left it: a token
          revoked during the game (``leave``) keeps the game on the list, with
          ``"left": true`` while it is in play (the seat is a bot's for good:
          the client offers to watch, and a ``hello`` with the token gets
          ``auth/revoked``, never the seat);
        * a seat given up before the start (``leave``, removed by the host, not
          claimed within the grace period) is no game played: not listed, nor
          is a table that closed before its start.
        """
        hashes = [hash_token(t) for t in tokens]
        if not hashes:
            return []
        rows = await self.stored(self.store.read(self.store.games_of, token_hashes=hashes))
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for g in rows:
            th = g.pop("token_hash")
            if g["code"] in seen or g["status"] == TableStatus.CLOSED.value:
                continue
            room = self.rooms.get(g["code"])
            if g["status"] == TableStatus.OPEN.value:
                if room is None or room.table.seat_of_token(th) is None:
                    continue  # the seat was given up before the start
            elif g["status"] == TableStatus.PLAYING.value and room is not None:
                if room.table.revoked_by(th) is not None:
                    g["left"] = True
            seen.add(g["code"])
            out.append(g)
        return out

    async def _finished(self, code: str, what: str) -> Room:
        room = await self.get_room(code)
        if room.table.status is not TableStatus.FINISHED or room.table.state is None:
            raise GameNotFinished(f"The {what} is available once the game is over.")
        return room

    async def record(self, code: str) -> dict[str, Any]:
        """The finished game's record (RECORD-FORMAT.md). :raises GameNotFinished: before the end."""
        return record_of((await self._finished(code, "record")).table)

    async def replay(self, code: str) -> dict[str, Any]:
        """The replay page's data. :raises GameNotFinished: before the end."""
        t = (await self._finished(code, "replay")).table
        st = t.state
        assert st is not None
        return {
            "record": record_of(t),
            "rules": t.rules_dict,
            "players": list(st.game.players),
            "steps": replay_steps(st.game, t.start, st),
            "winner": t.winner,
        }
