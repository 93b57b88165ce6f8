"""The checks every request and websocket goes through before the service:
client text cleaned (:mod:`.text`), rates and caps counted per client address
(:mod:`.limits`). The routes of :mod:`.app` call these; the table service
never sees unchecked client text.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection

from ..core.config import Settings
from ..core.errors import ChatInvalid, NameInvalid, RateLimited, TableInvalid
from .limits import Guard, TableSlot
from .proxies import UNIX_PEER, address_key
from ..core.messages import ChatMsg, CreateTable, JoinTable, RulesQuery
from ..core.rules_check import rules_file
from ..core.text import check_json_strings, clean_text

if TYPE_CHECKING:
    from ..runtime.service import TableService


def guessing() -> RateLimited:
    """The refusal of a request by code from an address over the miss limit,
    the same whether the code exists or not."""
    return RateLimited("Too many requests for tables that do not exist: try again later.")


class RequestGuard:
    """The guard of one app: its :class:`~.limits.Guard` and the text checks.

    :param service: the table service, whose open tables the caps count.
    """

    def __init__(self, settings: Settings, service: "TableService") -> None:
        self.settings = settings
        self.limits = settings
        self.service = service
        self.guard = Guard(settings, self._open_codes)

    def _open_codes(self) -> dict[str, str | None]:
        """The open or playing tables this worker runs (``Table.is_live``; stop 32: a
        started table left the count, so one address ran 20 tables of 6 strong bots
        past its cap of 8), each with the address that created it (``Room.creator``,
        kept in the store, so a restart or a takeover keeps it): with several
        workers, a replica of another worker's table is that worker's to count
        (:meth:`.limits.Guard.share`)."""
        owners = self.service.owners
        return {code: room.creator for code, room in self.service.rooms.items() if room.table.is_live and owners.owns(room)}

    @staticmethod
    def address(conn: HTTPConnection) -> str:
        """The client address: the peer, or the ``X-Forwarded-For`` address when
        the peer is a proxy the operator trusts (``--trusted-proxy``; set by
        :class:`.proxies.ProxyHeaders`); an IPv6 one by its /64 network
        (:func:`.proxies.address_key`); :data:`.proxies.UNIX_PEER` for a peer
        on a unix socket with no address of its own (so all such count as one)."""
        return address_key(conn.client.host) if conn.client is not None else UNIX_PEER

    # -- HTTP --------------------------------------------------------------------

    async def before_create(self, request: HTTPConnection) -> None:
        """:raises RateLimited: over :attr:`Settings.create_rate`."""
        await self.guard.hit("create_rate", self.address(request), what="new tables")

    def new_table(self, request: HTTPConnection) -> AbstractAsyncContextManager[TableSlot]:
        """A place under the open-table caps for the request's table, held while
        it is created (:meth:`.limits.Guard.new_table`).

        :raises ServerError: over an open-tables cap (``server/unavailable``:
            several workers, and Redis failed).
        """
        return self.guard.new_table(self.address(request))

    async def before_join(self, request: HTTPConnection) -> None:
        """:raises RateLimited: over :attr:`Settings.join_rate`."""
        await self.guard.hit("join_rate", self.address(request), what="joins")

    async def before_lookup(self, request: HTTPConnection, *, by_code: bool = True) -> None:
        """Before a request that names a table (``by_code``) or a player.

        :raises RateLimited: a request by code, from an address that named too
            many tables that do not exist (:attr:`Settings.miss_rate`: guessing
            codes); or too many lookups. A lookup of players, ratings or one's
            own seats (``by_code=False``) guesses no code, and is never held by
            the misses (issue 36, fault 7: twenty wrong codes locked an address
            out of every table and listing for a minute).
        """
        addr = self.address(request)
        if by_code and await self.guessing(request):
            raise guessing()
        await self.guard.hit("lookup_rate", addr)

    async def guessing(self, conn: HTTPConnection) -> bool:
        """Whether the address named too many tables that do not exist
        (:attr:`Settings.miss_rate`): its requests by a code alone are refused
        (:func:`guessing`) whether the code exists or not, so a guesser learns
        nothing past the limit; a request that proves a right to the table (a
        websocket whose ``hello`` holds a seat there, ``edge/session.py``) is not."""
        return not await self.guard.fits("miss_rate", self.address(conn))

    async def before_summary(self, request: HTTPConnection) -> None:
        """Before ``POST /api/rules/summary`` (the create form asks on every change).

        :raises RateLimited: over :attr:`Settings.lookup_rate`.
        """
        await self.guard.hit("lookup_rate", self.address(request))

    async def before_lobby(self, request: HTTPConnection) -> None:
        """Before ``GET /api/tables`` (a page polls it every 5 s; 200 tables make
        430 KB and 8.5 ms of the event loop, so unbounded, one client had it
        answer 122 times a second).

        :raises RateLimited: over :attr:`Settings.lookup_rate`.
        """
        await self.guard.hit("lookup_rate", self.address(request))

    async def missed(self, conn: HTTPConnection) -> None:
        """Count one request for a table code that does not exist."""
        await self.guard.allows("miss_rate", self.address(conn))

    async def before_socket(self, ws: HTTPConnection) -> bool:
        """Before a websocket looks up its table: counted as a lookup; returns
        whether it must prove a right to the table first (:meth:`guessing`).

        :raises RateLimited: too many lookups."""
        proving = await self.guessing(ws)
        await self.guard.hit("lookup_rate", self.address(ws))
        return proving

    # -- text --------------------------------------------------------------------

    def clean_name(self, raw: str) -> str:
        """A nickname cleaned. :raises NameInvalid: it breaks the text rules."""
        lim = self.limits
        return clean_text(raw, "A nickname", lim.nickname_max, error=NameInvalid, combining_run=lim.combining_run)

    def clean_create(self, body: CreateTable) -> CreateTable:
        """The request with its nickname and every rule option string cleaned.

        :raises NameInvalid: :raises TableInvalid: a string breaks the text rules.
        """
        options = self.clean_options(body.options)
        cleaned = body.model_copy(update={"nickname": self.clean_name(body.nickname), "options": options})
        if cleaned.rules_text is not None:
            self.check_rules_text(cleaned)
        return cleaned

    def check_rules_text(self, body: CreateTable | RulesQuery) -> None:
        """Read ``body.rules_text`` once (:func:`~..core.rules_check.rules_file`)
        and check its strings (face names...) by the same text rules as options,
        for a new table and for its form's preview alike; the parsed rule set
        goes on with the body, so the core does not read the file again.

        :raises TableInvalid: the file does not read, does not fit this server,
            or a string breaks the text rules.
        """
        assert body.rules_text is not None
        lim = self.limits
        rules = rules_file(lim, body.rules_text)
        check_json_strings(
            rules.to_dict(), "A rule option", lim.text_chars, lim.option_items,
            error=TableInvalid, combining_run=lim.combining_run,
        )
        body._parsed_rules = rules

    def clean_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Rule options with every string cleaned, as for a new table (``POST
        /api/tables``) and its form's summary (``POST /api/rules/summary``), so
        the form never summarises rules that the table refuses.

        :raises TableInvalid: a string breaks the text rules.
        """
        lim = self.limits
        cleaned: dict[str, Any] = check_json_strings(
            options, "A rule option", lim.text_chars, lim.option_items,
            error=TableInvalid, combining_run=lim.combining_run,
        )
        return cleaned

    def clean_join(self, body: JoinTable) -> JoinTable:
        return body.model_copy(update={"nickname": self.clean_name(body.nickname)})

    # -- websocket ---------------------------------------------------------------

    async def check_chat(self, msg: ChatMsg, address: str, seat_hash: str | None) -> ChatMsg:
        """A chat line cleaned and counted against the seat's and the address's rates.

        :raises ChatInvalid: the line breaks the text rules.
        :raises RateLimited: over the seat's or the address's chat rate.
        """
        lim = self.limits
        text = clean_text(msg.text, "A chat line", lim.chat_max, error=ChatInvalid, combining_run=lim.combining_run)
        if seat_hash is not None:
            await self.guard.hit("chat_rate_seat", seat_hash, what="chat lines from this seat")
        await self.guard.hit("chat_rate_address", address, what="chat lines from this address")
        return msg.model_copy(update={"text": text})


__all__ = ["RequestGuard"]
