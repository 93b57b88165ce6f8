"""The FastAPI application: HTTP API, the websocket, and the static web UI.

Build one with :func:`create_app`; ``liars-dice serve`` runs it under uvicorn.
The protocol is ``docs/server-protocol.md``.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, AsyncIterator

from argon2 import PasswordHasher
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from ...engine import DiceSource, LiarsDiceError
from ..core.config import Settings
from ..runtime import metrics
from ..runtime.closing import within
from ..runtime.db import make_engine, migrate
from ..core.errors import MessageInvalid, NameInvalid, ServerUnavailable, TableInvalid, TableNotFound, http_status
from .guard import RequestGuard
from .health import Health as HealthCheck, Readiness
from .headers import Guarded
from .proxies import UNIX_PEER, ProxyHeaders, TrustedProxies
from ..runtime.hub import Broadcaster
from ..runtime.memory import Trimmer
from ..core.listing import safe_entries
from ..core.explain import bounded, explain
from ..core.messages import BODY_FIELDS, RULE_FIELDS, CreateTable, JoinTable, MyGames, RulesQuery
from .schemas import Created, Games, Health, Leaderboard, Lobby, Profile, Readiness as Readiness_, Seated, TableSummary
from ..core.security import is_code, normalize_code
from ..core.text import load_confusables
from ..runtime.service import TableService
from ..core.rules_check import summary_of, summary_of_file
from .client_config import config_json
from .session import TableSockets
from .accounts_api import router as accounts_router, signed_in
from ..runtime.accounts import Account, Accounts, Revocations
from ..runtime.store import Store
from ..runtime.clock import Clock
from ..runtime.timers import Scheduler

STATIC = Path(__file__).resolve().parent.parent / "static"

log = logging.getLogger(__name__)


class ErrorBody(BaseModel):
    """Every refusal over HTTP: ``{"error": {"code", "message"}}``."""

    class Detail(BaseModel):
        code: str
        message: str

    error: Detail


#: The refusals any API request may get (documented in the OpenAPI schema).
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "A refused request (bad text, a rule broken, too deep)."},
    401: {"model": ErrorBody, "description": "Not signed in, or a sign-in refused (accounts)."},
    403: {"model": ErrorBody, "description": "Not allowed to this client (or a missing CSRF token)."},
    404: {"model": ErrorBody, "description": "No such table."},
    409: {"model": ErrorBody, "description": "Refused in the table's state (full, started, name taken)."},
    413: {"model": ErrorBody, "description": "The request body is too large."},
    422: {"model": ErrorBody, "description": "The request does not fit its schema."},
    429: {"model": ErrorBody, "description": "Too many requests, or too many open tables."},
    503: {"model": ErrorBody, "description": "The server holds as many open tables as it takes, or cannot reach its database."},
}


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": bounded(message)}}, status_code=status)


#: Seconds between two samples of the gauges of ``/metrics`` (tables, sockets, bots waiting).
SAMPLE_SECONDS = 2.0


def _sample(app: FastAPI) -> None:
    """This worker's gauges now (:mod:`..runtime.metrics`)."""
    service: TableService | None = getattr(app.state, "service", None)
    if service is None:
        return
    metrics.TABLES_OPEN.set(len(service.rooms))
    guard: RequestGuard | None = getattr(app.state, "guard", None)
    if guard is not None:
        metrics.SOCKETS_OPEN.set(sum(guard.guard.sockets_of_address.values()))
    metrics.BOT_QUEUE_DEPTH.set(service.turns.queue.waiting())


async def _sample_metrics(app: FastAPI) -> None:
    """Sample the gauges every :data:`SAMPLE_SECONDS`, so that a scrape of any
    worker sums every worker's recent values (the multiprocess mode)."""
    while True:
        try:
            _sample(app)
        except Exception:  # noqa: BLE001 - a sample is never worth a worker
            log.debug("metrics sample failed", exc_info=True)
        await asyncio.sleep(SAMPLE_SECONDS)


def _local_peer(request: Request) -> bool:
    """Whether the client is this machine: a loopback address, or a unix-socket
    peer (after :class:`.proxies.ProxyHeaders`: a proxied request is its client's)."""
    import ipaddress

    host = request.client.host if request.client is not None else UNIX_PEER
    if host == UNIX_PEER or not host:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def create_app(settings: Settings | None = None, clock: Clock | None = None, *,
               dice: DiceSource | None = None) -> FastAPI:
    """The app for ``settings``. The database is migrated and unfinished games
    are resumed when the app starts (its lifespan).

    :param clock: the time of the timers and the heartbeat (the system's if
        ``None``; tests pass a :class:`~..runtime.clock.ManualClock` and move
        it instead of sleeping).
    :param dice: where the round seeds and each game's first opener come from
        (:class:`~liars_dice.engine.SecureDice` if ``None``). Only a caller in
        the same process can pass another: no setting, option or request
        reaches it, so a served game's dice are always secure. The browser
        tests pass scripted dice here (``tests/e2e/scripted_serve.py``) to get
        a turn with a standing bid by construction (issue 36, fault 10).
    """
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.db_url, durable=settings.durable)
        await asyncio.to_thread(migrate, engine)
        await asyncio.to_thread(load_confusables)
        store = Store(engine, wal_bytes=settings.wal_bytes, wal_truncate_seconds=settings.wal_truncate_seconds)
        # Who runs which table (runtime/owners.py): this process, or, with Redis,
        # the lease holder among the workers sharing PostgreSQL and Redis.
        cluster = None
        if settings.redis_url:
            from ..runtime.cluster import make_cluster  # redis-py, imported only for several workers

            cluster = make_cluster(engine, settings.redis_url, route=settings.route, clock=clock)
        service = TableService(settings, store, Scheduler(clock), Broadcaster(settings.presence_interval, settings.presence_fanout),
                               owners=cluster, dice=dice)
        app.state.service = service
        app.state.guard = RequestGuard(settings, service)
        revocations = Revocations(settings.redis_url)
        await revocations.start()
        hasher = PasswordHasher(time_cost=settings.argon2_time_cost, memory_cost=settings.argon2_memory_kib,
                                parallelism=settings.argon2_parallelism)
        app.state.accounts = Accounts(service, hasher, revocations, hash_waiting_max=settings.hash_waiting_max)
        app.state.accounts.start_sweeps(settings.session_check_seconds)
        app.state.health = HealthCheck(service, engine)
        app.state.readiness = Readiness(app.state.health)
        sampler = asyncio.create_task(_sample_metrics(app))  # the gauges of /metrics, every 2 s
        trimmer = Trimmer(settings.trim_seconds)  # freed memory goes back to the system (runtime/memory.py)
        trimmer.start()
        app.state.trimmer = trimmer
        # Several workers (Redis given): this one takes only the tables nobody runs.
        if cluster is not None:
            await cluster.start(service)
            counted = cluster
            # /readyz: Redis answers, and the last heartbeat renewed the leases within a lease
            app.state.readiness = Readiness(app.state.health, cluster.broker.redis.ping, cluster.leases.seconds)
            cluster.beat_hooks.insert(0, app.state.readiness.beaten)  # first: runs once the leases are renewed
            # the socket caps hold across the workers (counts shared at each heartbeat)
            cluster.beat_hooks.append(lambda: app.state.guard.guard.share(counted.share_counts))
            app.state.guard.guard.counts = cluster  # and each socket's place is claimed across them at once
            # once before serving: until its first heartbeat a new worker knew no
            # other's counts, and its claims passed the caps (8 more tables of one
            # address on a worker restarted by the supervisor, the stop-25 attacker)
            await app.state.guard.guard.share(counted.share_counts)
        else:
            await service.startup()
        try:
            yield
        finally:
            # Each step bounded: a stuck one is logged with the pending tasks and
            # left behind, never a hung exit (issue 16; runtime/closing.py).
            if cluster is not None:
                await within("the cluster", cluster.close(), steps=6)
            sampler.cancel()
            await within("the revocations", revocations.close(), steps=3)
            await within("the memory trims", trimmer.close())
            app.state.accounts.close()
            await within("the timers", service.shutdown())
            await asyncio.to_thread(store.close)  # bounded by its own joins (after the queued writes)
            engine.dispose()

    app = FastAPI(
        title="Liar's Dice", lifespan=lifespan, docs_url="/api/docs", redoc_url=None,
        openapi_url="/api/openapi.json", responses=ERROR_RESPONSES,
    )
    app.state.settings = settings
    # A table's websocket goes straight to its session (innermost: every middleware below sees it first).
    app.add_middleware(TableSockets, settings=settings)
    # Bounded bodies, JSON depth and the security headers, before anything else.
    app.add_middleware(Guarded, settings=settings)
    if "*" not in settings.allowed_hosts:
        # A page elsewhere that points its own name at this server (DNS rebinding) gets 400.
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    if settings.trusted_proxies:
        # The client behind a named proxy (issue 16, fault 2); outermost, so every part sees it.
        app.add_middleware(ProxyHeaders, proxies=TrustedProxies(settings.trusted_proxies))

    def svc(request: Request) -> TableService:
        service: TableService = request.app.state.service
        return service

    def guard(request: Request) -> RequestGuard:
        guarded: RequestGuard = request.app.state.guard
        return guarded

    @app.exception_handler(LiarsDiceError)
    async def _refused(request: Request, e: LiarsDiceError) -> JSONResponse:
        if isinstance(e, TableNotFound):
            await guard(request).missed(request)
        return _error(e.code, e.message, http_status(e))

    @app.exception_handler(SQLAlchemyError)
    async def _database_error(_: Request, e: SQLAlchemyError) -> JSONResponse:
        # A read of the database that failed (issue 16, fault 9: 500 text/plain).
        log.warning("database failure: %s", str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
        return _error(ServerUnavailable.code, "The server cannot read its database just now: try again in a moment.", 503)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        # Starlette's own refusals (an unreadable body, an unknown path or
        # method) in the same shape as every other error.
        code = {400: MessageInvalid.code, 404: "path/not_found", 405: "method/not_allowed"}.get(e.status_code, "http/error")
        return _error(code, str(e.detail).rstrip(".") + ".", e.status_code)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, e: RequestValidationError) -> JSONResponse:
        # Client values and keys reach the sentence bounded (server/explain.py).
        where, msg = explain(e.errors(), BODY_FIELDS, skip=("body",))
        top = where.split(".")[0].split("[")[0]
        if request.method == "POST" and request.url.path == "/api/tables" and top in RULE_FIELDS:
            # A create request that breaks a rule of the table (docs/server-protocol.md).
            return _error(TableInvalid.code, f"Bad table ({where}): {msg}.", TableInvalid.status)
        if where == "nickname":
            return _error(NameInvalid.code, f"Bad nickname: {msg}.", NameInvalid.status)
        return _error(MessageInvalid.code, f"Bad request ({where or 'body'}): {msg}.", 422)

    async def seat_name(request: Request, nickname: str, acct: Account | None) -> str:
        """The name a seat is taken under: a signed-in player's account name, or
        a guest's nickname, refused if it is or looks like a registered name.

        :raises NameRegistered: a guest's nickname like a registered name."""
        if acct is not None:
            return acct.name
        await request.app.state.accounts.check_guest_name(nickname)
        return nickname

    # -- HTTP API -------------------------------------------------------------

    @app.get("/healthz", response_model=Health, responses={503: {"model": Health, "description": "The database fails."}})
    async def healthz(request: Request) -> JSONResponse:
        """Whether this worker serves games, its database included (:mod:`.health`)."""
        status, body = await request.app.state.health.check()
        return JSONResponse(body, status_code=status)

    @app.get("/readyz", response_model=Readiness_, responses={503: {"model": Readiness_, "description": "Not ready."}})
    async def readyz(request: Request) -> JSONResponse:
        """Whether a load balancer should send this worker requests: its database,
        Redis (several workers) and its lease heartbeat (:class:`.health.Readiness`)."""
        status, body = await request.app.state.readiness.check()
        return JSONResponse(body, status_code=status)

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics(request: Request) -> Response:
        """Prometheus metrics (:mod:`..runtime.metrics`), for a loopback or
        unix-socket peer only: the shipped nginx refuses the path to the
        public too (``deploy/nginx/liars-dice.conf``), and a request it passes
        on names its public client, refused here.

        :raises NotAllowed: another peer (403)."""
        if not _local_peer(request):
            return _error("metrics/refused", "The metrics are served to this machine only.", 403)
        _sample(request.app)
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    @app.get("/api/config")
    async def get_config() -> dict[str, Any]:
        return config_json(settings)

    @app.post("/api/rules/summary")
    async def summarize_rules(body: RulesQuery, request: Request) -> dict[str, Any]:
        """A preset with options, or a rules file's text, in the engine's words, for the create form."""
        g = guard(request)
        await g.before_summary(request)
        body = body.model_copy(update={"options": g.clean_options(body.options)})
        if body.rules_text is not None:
            g.check_rules_text(body)
            return summary_of_file(settings, body)
        return summary_of(settings, body.preset, body.options)

    @app.post("/api/tables", status_code=201, response_model=Created)
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        g = guard(request)
        await g.before_create(request)
        body = g.clean_create(body)
        base = settings.public_url or str(request.base_url)
        acct = await signed_in(request, csrf=True)
        name = await seat_name(request, body.nickname, acct)
        async with g.new_table(request) as slot:  # the caps checked and held in one step (fault 5)
            out = await svc(request).create_table(body, name, base, acct.id if acct else None, g.address(request))
            slot.created(out["code"])
        return out

    @app.get("/api/tables", response_model=Lobby)
    async def lobby(request: Request) -> dict[str, Any]:
        await guard(request).before_lobby(request)
        # each open table's players' ratings in its rule set (issue 18)
        return {"tables": await svc(request).queries.with_ratings(svc(request).lobby())}

    @app.get("/api/tables/{code}", response_model=TableSummary)
    async def get_table(code: str, request: Request) -> dict[str, Any]:
        await guard(request).before_lookup(request)
        return (await svc(request).get_room(code)).summary()

    @app.post("/api/tables/{code}/join", response_model=Seated)
    async def join(code: str, body: JoinTable, request: Request) -> dict[str, Any]:
        g = guard(request)
        await g.before_lookup(request)
        await g.before_join(request)
        body = g.clean_join(body)
        acct = await signed_in(request, csrf=True)
        name = await seat_name(request, body.nickname, acct)
        return await svc(request).join(code, body, name, acct.id if acct else None)

    @app.get("/api/tables/{code}/record")
    async def record(code: str, request: Request, game: Annotated[int, Query(ge=1, le=100_000)] | None = None) -> JSONResponse:
        """The record of game ``game`` of the table (1, 2, ...: "Play again"; default the last)."""
        await guard(request).before_lookup(request)
        rec = await svc(request).queries.record(code, game)
        code = code.strip().upper()
        name = f"liars-dice-{code}" + (f"-game{game}" if game is not None else "")
        return JSONResponse(
            rec, headers={"Content-Disposition": f'attachment; filename="{name}.json"'}
        )

    @app.get("/api/tables/{code}/replay")
    async def replay(code: str, request: Request, game: Annotated[int, Query(ge=1, le=100_000)] | None = None) -> dict[str, Any]:
        await guard(request).before_lookup(request)
        return await svc(request).queries.replay(code, game)

    @app.get("/api/players/{nickname}/games", response_model=Games)
    async def player_games(nickname: str, request: Request) -> dict[str, Any]:
        await guard(request).before_lookup(request, by_code=False)
        name = guard(request).clean_name(nickname)
        return {"games": safe_entries(await svc(request).queries.games_of_name(name))}

    @app.get("/api/leaderboard", response_model=Leaderboard)
    async def leaderboard(
        request: Request, rule_set: Annotated[str, Query(min_length=1, max_length=80)] | None = None,
    ) -> dict[str, Any]:
        """The top players of a rule set by conservative rating, mu - 3 sigma (issue 18)."""
        await guard(request).before_lookup(request, by_code=False)
        return await svc(request).queries.leaderboard(rule_set)

    @app.get("/api/players/{nickname}/profile", response_model=Profile)
    async def player_profile(nickname: str, request: Request) -> dict[str, Any]:
        """A registered player's ratings with their history, and their public games (issue 18)."""
        await guard(request).before_lookup(request, by_code=False)
        name = guard(request).clean_name(nickname)
        return await svc(request).queries.profile(name)

    @app.post("/api/my-games", response_model=Games)
    async def my_games(body: MyGames, request: Request) -> dict[str, Any]:
        await guard(request).before_lookup(request, by_code=False)
        return {"games": safe_entries(await svc(request).queries.games_of_tokens(body.tokens))}

    @app.get("/t/{code}", include_in_schema=False)
    async def share_link(code: str) -> RedirectResponse:
        code = normalize_code(code)
        return RedirectResponse(f"/#/table/{code}" if is_code(code) else "/#/")

    app.include_router(accounts_router)

    # -- websocket: /ws/tables/{code} is served by TableSockets (edge/session.py) --

    # -- static web UI -------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    return app
