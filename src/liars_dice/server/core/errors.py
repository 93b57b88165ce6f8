"""The server's errors: one tree with the engine's.

Every error the server answers with is a :class:`~liars_dice.engine.LiarsDiceError`
(engine errors such as ``action/illegal`` pass through as they are), so one
handler serves them all: over HTTP ``{"error": {"code", "message"}}`` with
:attr:`ServerError.status` (400 for an engine error), over a websocket an
``error`` message. The codes are stable (boardgame.io's ``src/core/errors.ts``);
``docs/server-protocol.md`` lists them all.
"""

from __future__ import annotations

from ...engine import LiarsDiceError


class ServerError(LiarsDiceError):
    """Base of the server's refusals. :ivar status: the HTTP status."""

    code = "server/error"
    status = 400


# -- messages and connections ------------------------------------------------------


class MessageInvalid(ServerError):
    """A frame or body that is not one well-formed message of the protocol."""

    code = "message/invalid"
    status = 422


class AuthRequired(ServerError):
    """A websocket message before ``hello``."""

    code = "auth/required"


class BadToken(ServerError):
    """A ``hello`` token that never held a seat at this table."""

    code = "auth/bad_token"


class TokenRevoked(ServerError):
    """A ``hello`` token whose seat was given up: its owner left, the host
    removed them, or they never connected within the grace period."""

    code = "auth/revoked"


# -- names -------------------------------------------------------------------------------


class NameInvalid(ServerError):
    code = "name/invalid"


class NameTaken(ServerError):
    code = "name/taken"
    status = 409


# -- tables ----------------------------------------------------------------------------


class TableInvalid(ServerError):
    """A create request whose rules or settings do not make a game."""

    code = "table/invalid"


class TableNotFound(ServerError):
    code = "table/not_found"
    status = 404


class PlayerNotFound(ServerError):
    """No registered player has that name (a profile, issue 18)."""

    code = "player/not_found"
    status = 404


class TableDamaged(ServerError):
    """A table whose stored events do not rebuild (a gap in their numbers, or
    an event the table cannot apply): set aside (status ``damaged``), never
    played or shown again; the other tables go on."""

    code = "table/damaged"
    status = 410


class TableFull(ServerError):
    code = "table/full"
    status = 409


class TableStarted(ServerError):
    """A join, or a host's action, once the game has started."""

    code = "table/started"
    status = 409


class TableNotStarted(ServerError):
    code = "table/not_started"
    status = 409


class NotHost(ServerError):
    code = "table/not_host"
    status = 403


class SeatsEmpty(ServerError):
    code = "table/seats_empty"
    status = 409


class ServerBusy(ServerError):
    """No free join code was found (31^6 codes: practically never)."""

    code = "server/busy"
    status = 503


class LeaseLost(ServerError):
    """A write for a table this worker no longer owns (its lease expired, or
    another worker took it): nothing was stored (``server/runtime/ownership.py``)."""

    code = "server/moved"
    status = 503


class ServerUnavailable(ServerError):
    """The server cannot store or read the game now (its database failed or
    cannot be reached): nothing changed, and the client may try again. A
    websocket stays open (an ``error`` message); HTTP answers 503."""

    code = "server/unavailable"
    status = 503


# -- seats -------------------------------------------------------------------------------


class SeatTaken(ServerError):
    code = "seat/taken"
    status = 409


class SeatEmpty(ServerError):
    """The host asked to remove a seat nobody holds."""

    code = "seat/empty"
    status = 409


class SeatIsHost(ServerError):
    """The host asked to remove their own seat (``leave`` does that)."""

    code = "seat/host"
    status = 409


class SeatVisitor(ServerError):
    """A visitor (no seat) asked to play or chat."""

    code = "seat/visitor"
    status = 403


class SeatReplaced(ServerError):
    """A person's client moved for a seat a bot has taken over."""

    code = "seat/replaced"
    status = 409


class BotUnknown(ServerError):
    code = "bot/unknown"


class SeedRefused(ServerError):
    """A contributed seed (``docs/fair-dice.md``, version 2) that cannot go into
    the next deal: no commitment waits for one, it answers another commitment,
    the seat is no person's, or the seat's seed for that round is already in."""

    code = "seed/refused"
    status = 409


# -- games -------------------------------------------------------------------------------


class GameNotFinished(ServerError):
    """A record or replay asked for before the game is over, or a "play again"
    while it is on."""

    code = "game/not_finished"
    status = 409


# -- bounds and abuse limits (server/text.py, server/limits.py, server/headers.py) ----------


class RevealShowing(ServerError):
    """A move while the reveal of the last challenge is still showing
    (``Settings.reveal_seconds``): the next round's turn has not begun."""

    code = "turn/reveal"
    status = 409


class GameMissing(ServerError):
    """A record or replay of a game number the table has not played."""

    code = "game/not_found"
    status = 404


class StoreRefused(ServerError):
    """A write the database refused for the request's own values (a
    ``DataError``): nothing changed; the database is well (``/healthz`` stays
    ok). The edge's bounds keep every text within its column, so this is a net."""

    code = "request/unstorable"
    status = 400


class RateLimited(ServerError):
    """Over a rate limit: messages per connection, chat per seat or address,
    tables created, joins, lookups, codes that do not exist."""

    code = "rate/limited"
    status = 429


class MessageTooDeep(MessageInvalid):
    """JSON nested deeper than ``Settings.json_depth`` (a frame or an HTTP body)."""

    code = "message/too_deep"
    status = 400


class RequestTooLarge(ServerError):
    """An HTTP body over ``Settings.body_bytes``, refused before it is read."""

    code = "request/too_large"
    status = 413


class ChatInvalid(ServerError):
    """A chat line that breaks the text rules (docs/server-protocol.md, "Text")."""

    code = "chat/invalid"


class ChatFull(ServerError):
    """The table has stored ``Settings.chat_table_max`` chat lines, its last."""

    code = "chat/full"
    status = 409


class TooManyTables(ServerError):
    """The address already has ``Settings.open_tables_per_address`` tables open or in play."""

    code = "table/too_many"
    status = 429


class TooManySockets(ServerError):
    """Too many websockets from one address, to one table, or holding one seat token."""

    code = "socket/too_many"
    status = 429


def http_status(e: LiarsDiceError) -> int:
    """The HTTP status for ``e``: its own for a server error, 400 for an engine error."""
    return e.status if isinstance(e, ServerError) else 400


# -- accounts (issue 18; server/core/accounts.py) ------------------------------------


class PasswordInvalid(ServerError):
    """A new password that breaks the password rules (too short, too long, too common)."""

    code = "password/invalid"


class SignInFailed(ServerError):
    """A sign-in refused: no such name, or the wrong password (one answer for both)."""

    code = "auth/sign_in_failed"
    status = 401


class SignedOut(ServerError):
    """A request that needs a signed-in session, without one (none, expired or revoked)."""

    code = "auth/signed_out"
    status = 401


class CsrfRefused(ServerError):
    """A request carrying the session cookie without its CSRF token (or with another one)."""

    code = "auth/csrf"
    status = 403


class NameRegistered(ServerError):
    """A name that is, or looks like, a registered player's name."""

    code = "name/registered"
    status = 409


class RecoveryFailed(ServerError):
    """A password reset with a name and recovery code that do not go together."""

    code = "auth/recovery_failed"
    status = 401


class AccountBusy(ServerError):
    """An account that cannot be deleted now (it holds a seat at a table in play)."""

    code = "account/busy"
    status = 409
