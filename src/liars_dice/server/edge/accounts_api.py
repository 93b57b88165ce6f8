"""The accounts' HTTP routes (issue 18): sign up, sign in, sign out, change
the password, reset it with the recovery code, delete the account, and the
seat a signed-in account holds at a table.

Sessions are an ``HttpOnly``, ``SameSite=Lax`` cookie (:data:`SESSION_COOKIE`)
with a CSRF token (``X-CSRF-Token``, :func:`~..core.accounts.csrf_token`);
``docs/server-protocol.md`` ("Accounts") says why, and gives every route.
Sign-in, sign-up and resets are rate-limited per address
(:attr:`~..core.config.Settings.signin_rate_address`) and per name
(:attr:`~..core.config.Settings.signin_rate_name`, keyed by the name's
confusable skeleton) through the one :class:`~.limits.Guard`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from ..core.accounts import (
    CSRF_HEADER,
    SESSION_COOKIE,
    SESSION_SECONDS,
    CsrfRefused,
    csrf_matches,
    csrf_token,
)
from ..core.errors import NameInvalid, RecoveryFailed, SignInFailed, TableNotFound
from .guard import guessing
from ..core.text import skeleton
from ..runtime.hashing import HASHING_FOR
from ..runtime.accounts import Account, Accounts, NewSession
from .headers import origin_allowed

#: Longest password accepted in a body (the rules allow 256 characters; more is refused unread).
_PW = Annotated[StrictStr, Field(max_length=1024)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(_Body):
    """``POST /api/account/sign-up`` and ``/sign-in``."""

    name: Annotated[StrictStr, Field(max_length=200)]
    password: _PW


class PasswordChange(_Body):
    """``POST /api/account/password``."""

    old_password: _PW
    new_password: _PW


class PasswordReset(_Body):
    """``POST /api/account/reset``: the name, its recovery code and a new password."""

    name: Annotated[StrictStr, Field(max_length=200)]
    recovery_code: Annotated[StrictStr, Field(max_length=64)]
    new_password: _PW


class Deletion(_Body):
    """``POST /api/account/delete``: the password, once more."""

    password: _PW


class AccountInfo(BaseModel):
    name: str


class SessionOut(BaseModel):
    """A signed-in answer: the account, the CSRF token to send back, the session's end."""

    account: AccountInfo
    csrf: str
    expires_at: str


class SignedUp(SessionOut):
    """``sign-up`` and ``reset``: with the one-time recovery code, shown once."""

    recovery_code: str


class Whoami(BaseModel):
    """``GET /api/account``: ``account`` is ``null`` for a guest."""

    account: AccountInfo | None
    csrf: str | None = None
    expires_at: str | None = None


class Done(BaseModel):
    ok: bool


class Deleted(BaseModel):
    ok: bool
    #: what the account's past games show for it now
    shown_as: str


class MySeat(BaseModel):
    """``GET /api/tables/{code}/my-seat``: the seat the account holds there, or ``null``."""

    seat: int | None


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def _secure(request: Request) -> bool:
    settings = request.app.state.settings
    return request.url.scheme == "https" or bool(settings.public_url and settings.public_url.startswith("https:"))


def _set_session(request: Request, response: Response, s: NewSession) -> dict[str, Any]:
    response.set_cookie(
        SESSION_COOKIE, s.token, max_age=SESSION_SECONDS, path="/", httponly=True, samesite="lax",
        secure=_secure(request),
    )
    return {"account": {"name": s.account.name}, "csrf": csrf_token(s.token),
            "expires_at": s.account.expires_at.isoformat()}


def _clear_session(request: Request, response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(request))


def _same_origin(request: Request) -> None:
    """A page of another site may not post here (login CSRF; the cookie's own
    routes are guarded by the CSRF token too). :raises CsrfRefused: a foreign ``Origin``."""
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host"), request.app.state.settings):
        raise CsrfRefused("This request came from a page of another site: refused.")


async def signed_in(request: Request, *, csrf: bool) -> Account | None:
    """The account of the request's session cookie, or ``None`` (no cookie, or
    a session that ended). With ``csrf``, a request carrying a live session
    must carry its CSRF token too.

    :raises CsrfRefused: the token is missing or wrong. :raises StoreFailed: the database failed.
    """
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    acct = await accounts_of(request).session(token)
    if acct is not None and csrf and not csrf_matches(token, request.headers.get(CSRF_HEADER)):
        raise CsrfRefused("This request needs the page's CSRF token (X-CSRF-Token): reload the page and try again.")
    return acct


async def require(request: Request) -> tuple[Account, str]:
    """The live session of a request that changes the account (CSRF checked) and its token.

    :raises SignedOut: no live session. :raises CsrfRefused: the token is missing or wrong.
    """
    accounts = accounts_of(request)
    token = request.cookies.get(SESSION_COOKIE)
    acct = await accounts.require(token)
    assert token is not None
    if not csrf_matches(token, request.headers.get(CSRF_HEADER)):
        raise CsrfRefused("This request needs the page's CSRF token (X-CSRF-Token): reload the page and try again.")
    return acct, token


async def _limit(request: Request, name: str | None) -> None:
    """One sign-in attempt (or sign-up, or reset) against the address's rate,
    counted, and the name's, checked: the name's counts only a failed attempt
    (:func:`_attempt`).

    A good sign-in no longer counts against its name: the stop-27 attacker
    found an account's own 20 sign-ins in an hour locked it out as surely as
    20 wrong passwords from 3 addresses.

    :raises RateLimited: over either.
    """
    g = request.app.state.guard
    HASHING_FOR.set(g.address(request))  # its hashes wait in this address's fair turn (runtime/hashing.py)
    await g.guard.hit("signin_rate_address", g.address(request), what="sign-in attempts from your address")
    if name is not None:
        await g.guard.check("signin_rate_name", skeleton(name), what="failed sign-in attempts for this name")


@asynccontextmanager
async def _attempt(request: Request, name: str) -> AsyncIterator[None]:
    """One attempt with ``name``'s password or recovery code: the rates checked
    (:func:`_limit`) before the block, and a failure in it (``SignInFailed``,
    ``RecoveryFailed``) counted against the name's rate.

    :raises RateLimited: over either rate, before the block runs.
    """
    await _limit(request, name)
    try:
        yield
        request.app.state.accounts.hashing.succeeded(request.app.state.guard.address(request))
    except (SignInFailed, RecoveryFailed):
        # the address's next hashes wait behind the good-standing addresses' (issue 36, fault 5)
        request.app.state.accounts.hashing.failed(request.app.state.guard.address(request))
        await request.app.state.guard.guard.allows("signin_rate_name", skeleton(name))
        raise


def _clean_name(request: Request, raw: str) -> str:
    name: str = request.app.state.guard.clean_name(raw)
    return name


router = APIRouter(prefix="/api")


@router.get("/account", response_model=Whoami)
async def whoami(request: Request) -> dict[str, Any]:
    """Who the session cookie belongs to (``account: null`` for a guest), with the CSRF token."""
    await request.app.state.guard.before_lookup(request, by_code=False)
    token = request.cookies.get(SESSION_COOKIE)
    acct = await accounts_of(request).session(token)
    if acct is None or token is None:
        return {"account": None}
    return {"account": {"name": acct.name}, "csrf": csrf_token(token), "expires_at": acct.expires_at.isoformat()}


@router.post("/account/sign-up", status_code=201, response_model=SignedUp)
async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """A new account, signed in: the answer holds the one-time recovery code (shown once)."""
    _same_origin(request)
    await _limit(request, None)
    # accounts made are counted (a taken name or a weak password is not one; the sign-in rate bounds those)
    g, address = request.app.state.guard, request.app.state.guard.address(request)
    await g.guard.check("signup_rate_address", address, what="accounts created from your address")
    name = _clean_name(request, body.name)
    session, code = await accounts_of(request).sign_up(name, body.password)
    await g.guard.hit("signup_rate_address", address)
    return {**_set_session(request, response, session), "recovery_code": code}


@router.post("/account/sign-in", response_model=SessionOut)
async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """A new session (a cookie sent before is never adopted: session fixation)."""
    _same_origin(request)
    try:
        name = _clean_name(request, body.name)
    except NameInvalid:
        name = body.name[:200]
    async with _attempt(request, name):
        session = await accounts_of(request).sign_in(name, body.password)
    return _set_session(request, response, session)


@router.post("/account/sign-out", response_model=Done)
async def sign_out(request: Request, response: Response) -> dict[str, Any]:
    """Revoke this session; its websockets close (on every worker)."""
    acct, _ = await require(request)
    await accounts_of(request).sign_out(acct)
    _clear_session(request, response)
    return {"ok": True}


@router.post("/account/password", response_model=Done)
async def change_password(body: PasswordChange, request: Request) -> dict[str, Any]:
    """A new password (the old one checked); every other session is revoked."""
    acct, _ = await require(request)
    async with _attempt(request, acct.name):
        await accounts_of(request).change_password(acct, body.old_password, body.new_password)
    return {"ok": True}


@router.post("/account/reset", response_model=SignedUp)
async def reset(body: PasswordReset, request: Request, response: Response) -> dict[str, Any]:
    """The password reset with the recovery code: all sessions revoked, a new
    one opened, and a new recovery code (the old one is spent)."""
    _same_origin(request)
    try:
        name = _clean_name(request, body.name)
    except NameInvalid:
        name = body.name[:200]
    async with _attempt(request, name):
        session, code = await accounts_of(request).reset(name, body.recovery_code, body.new_password)
    return {**_set_session(request, response, session), "recovery_code": code}


@router.post("/account/delete", response_model=Deleted)
async def delete_account(body: Deletion, request: Request, response: Response) -> dict[str, Any]:
    """Delete the account (password checked): past games show "deleted player N"."""
    acct, _ = await require(request)
    async with _attempt(request, acct.name):
        shown = await accounts_of(request).delete(acct, body.password)
    _clear_session(request, response)
    return {"ok": True, "shown_as": shown}


@router.get("/tables/{code}/my-seat", response_model=MySeat)
async def my_seat(code: str, request: Request) -> dict[str, Any]:
    """The seat the signed-in account holds at table ``code`` (``null``: none).
    A page on another device then says ``{"type": "hello", "account": true}``
    over the table's websocket to take it (docs/server-protocol.md).

    :raises SignedOut: not signed in. :raises TableNotFound: no such table.
    :raises RateLimited: the address is over the miss limit and the account
        holds no seat there (the same whether the table exists or not: issue 36, fault 7)."""
    g = request.app.state.guard
    proving = await g.guessing(request)  # a seat of the account's proves its right to the table
    await g.before_lookup(request, by_code=False)
    acct = await accounts_of(request).require(request.cookies.get(SESSION_COOKIE))
    try:
        room = await request.app.state.service.get_room(code)
    except TableNotFound:
        if proving:
            raise guessing() from None
        raise
    seat = room.table.seat_of_account(acct.id)
    if proving and seat is None:
        raise guessing()
    return {"seat": seat}


__all__ = ["router", "signed_in"]
