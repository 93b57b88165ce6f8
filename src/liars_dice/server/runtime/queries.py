"""Read-only queries of one worker: a player's games, the games a set of seat
tokens played, and a finished game's record and replay. Nothing here changes
a table; the answers are the same from every worker, since they come from
the store of record (and the live room where one is held).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..core.errors import GameMissing, GameNotFinished
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
        """``GET /api/players/{name}/games``: the public games ``name`` played and
        finished, newest first, one entry per game (a table that played again
        lists each of its games, with its number ``game``)."""
        rows = await self.stored(self.store.read(self.store.games_of, name=name))
        return [g for g in await self._each_game(rows) if g["status"] == TableStatus.FINISHED.value]

    async def _each_game(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``rows`` (one per table and seat) as one entry per game the seat's
        name played there, newest first: each gets ``game`` (1, 2, ...), and a
        game before the table's last is ``finished``, with its own players and winner."""
        played = await self.stored(self.store.read(self.store.games_played, sorted({g["code"] for g in rows})))
        out: list[dict[str, Any]] = []
        for g in rows:
            games = played.get(g["code"], [])
            elsewhere = g.pop("not_in_last_game", False)
            if len(games) <= 1:
                if not elsewhere:  # else the seat was left before the start: no game played
                    out.append({**g, "game": 1})
                continue
            for entry in reversed(games):
                if g["name"] not in entry["players"]:
                    continue  # not this seat's game (left before it)
                last = entry["game"] == len(games)
                one = {**g, **entry, "games": len(games), "status": g["status"] if last else TableStatus.FINISHED.value}
                # the table row's stand-in mark speaks of one game: each game says its own
                if entry.get("winner_stand_in"):
                    one["winner_stand_in"] = True
                else:
                    one.pop("winner_stand_in", None)
                if not last:
                    one.pop("left", None)  # "left" speaks of the game in play
                out.append(one)
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
        return await self._each_game(out)

    async def _finished(self, code: str, what: str, game: int | None) -> tuple[Room, int]:
        """The room and the number of its game ``game`` (``None``: the last), once that game is over.

        :raises GameMissing: the table has played no game of that number.
        :raises GameNotFinished: that game is still on (or the table has not started).
        """
        room = await self.get_room(code)
        t = room.table
        n = t.game_number if game is None else game
        if not 1 <= n <= t.game_number:
            raise GameMissing(f"This table has played games 1 to {t.game_number}, not game {n}.")
        if n == t.game_number and (t.status is not TableStatus.FINISHED or t.state is None):
            raise GameNotFinished(f"The {what} is available once the game is over.")
        return room, n

    async def record(self, code: str, game: int | None = None) -> dict[str, Any]:
        """Game ``game``'s record (RECORD-FORMAT.md; ``None``: the table's last game).

        :raises GameNotFinished: before that game's end. :raises GameMissing: no such game.
        """
        room, n = await self._finished(code, "record", game)
        return record_of(room.table, n)

    async def replay(self, code: str, game: int | None = None) -> dict[str, Any]:
        """The replay page's data for game ``game`` (``None``: the last).

        :raises GameNotFinished: before that game's end. :raises GameMissing: no such game.
        """
        room, n = await self._finished(code, "replay", game)
        t = room.table
        if n <= len(t.past_games):
            past = t.past_games[n - 1]
            st, start, winner = past.state, past.start, past.winner
        else:
            assert t.state is not None
            st, start, winner = t.state, t.start, t.winner
        return {
            "record": record_of(t, n),
            "rules": t.rules_dict,
            "players": list(st.game.players),
            "steps": replay_steps(st.game, start, st),
            "winner": winner,
            "game": n,
        }

    # -- ratings (issue 18) -------------------------------------------------------

    async def leaderboard(self, rule_set: str | None) -> dict[str, Any]:
        """``GET /api/leaderboard``: the rule sets with ratings, and the top
        players of ``rule_set`` (default: the one with the most rated games) by
        conservative rating, with at least :data:`~.ratings_store.LEADERBOARD_MIN_GAMES`
        rated games: ``{"rule_sets", "rule_set", "min_games", "players": [{"rank",
        "name", "mu", "sigma", "conservative", "games"}]}``."""
        from . import ratings_store as rs

        sets = await self.stored(self.store.read(rs.reading, self.store.engine, rs.rule_sets))
        chosen = rule_set if rule_set is not None else (sets[0] if sets else None)
        players = [] if chosen is None else await self.stored(
            self.store.read(rs.reading, self.store.engine, rs.leaderboard, chosen))
        return {"rule_sets": sets, "rule_set": chosen, "min_games": rs.LEADERBOARD_MIN_GAMES, "players": players}

    async def profile(self, name: str) -> dict[str, Any]:
        """``GET /api/players/{name}/profile``: a registered player's rating per
        rule set with its history, and their public finished games played under
        their account (newest first, as ``/api/players/{name}/games``).

        :raises PlayerNotFound: no live account has that name.
        """
        from ..core.errors import PlayerNotFound
        from . import ratings_store as rs

        got = await self.stored(self.store.read(rs.reading, self.store.engine, rs.profile, name))
        if got is None:
            raise PlayerNotFound("No registered player has that name.")
        account = await self.stored(self.store.read(rs.reading, self.store.engine, rs.account_id_of, name))
        ids = set(await self.stored(self.store.read(rs.reading, self.store.engine, rs.games_of_account, account, name)))
        codes = set((await self.stored(self.store.read(rs.reading, self.store.engine, _codes_of, sorted(ids)))))
        games = [g for g in await self.games_of_name(name) if g["code"] in codes]
        return {**got, "games": games}

    async def with_ratings(self, tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The lobby's table summaries, each person's seat held under an
        account with a rating in the table's rule set given ``"rating":
        {"mu", "sigma", "conservative", "games"}`` (one read for the page)."""
        from ..core.ratings import rule_set_name
        from ..core.tables import shared_rules
        from . import ratings_store as rs

        wanted = []
        for t in tables:
            try:
                rules = shared_rules(t["rules"])[0]
            except Exception:  # noqa: BLE001 - a summary the engine cannot read gets no ratings
                continue
            seats = [(s["seat"], s["name"]) for s in t["seats"] if s.get("kind") == "human" and s.get("name")]
            wanted.append((t["code"], rule_set_name(t["preset"], rules), seats))
        found = await self.stored(self.store.read(rs.reading, self.store.engine, rs.seat_ratings, wanted))
        if not found:
            return tables
        out = []
        for t in tables:
            have = found.get(t["code"])
            if have:
                t = {**t, "seats": [{**s, "rating": have[s["seat"]]} if s["seat"] in have else s for s in t["seats"]]}
            out.append(t)
        return out


def _codes_of(conn: Any, ids: Sequence[str]) -> list[str]:
    from sqlalchemy import select

    from .db import tables_t

    if not ids:
        return []
    return [r[0] for r in conn.execute(select(tables_t.c.code).where(tables_t.c.id.in_(list(ids))))]
