"""The FastAPI application: HTTP API, the websocket, and the static web UI.

Build one with :func:`create_app`; ``liars-dice serve`` runs it under uvicorn.
The protocol is ``docs/server-protocol.md``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from ..engine import LiarsDiceError
from .config import Settings
from .db import make_engine, migrate
from .errors import AuthRequired, MessageInvalid, RateLimited, http_status
from .conn import Conn
from .hub import Broadcaster
from .messages import CreateTable, Hello, JoinTable, MyGames, parse_client_message
from .security import RateLimiter
from .service import TableService, config_json
from .store import Store
from .timers import Scheduler

STATIC = Path(__file__).resolve().parent / "static"

log = logging.getLogger("liars_dice.server")


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings``. The database is migrated and unfinished games
    are resumed when the app starts (its lifespan)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.db_url, durable=settings.durable)
        await asyncio.to_thread(migrate, engine)
        store = Store(engine)
        service = TableService(settings, store, Scheduler(), Broadcaster(settings.presence_interval, settings.presence_fanout))
        app.state.service = service
        await service.startup()
        try:
            yield
        finally:
            await service.shutdown()
            await asyncio.to_thread(store.close)
            engine.dispose()

    app = FastAPI(title="Liar's Dice", lifespan=lifespan, docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json")

    def svc(request: Request | WebSocket) -> TableService:
        return request.app.state.service  # type: ignore[no-any-return]

    @app.exception_handler(LiarsDiceError)
    async def _refused(_: Request, e: LiarsDiceError) -> JSONResponse:
        return _error(e.code, e.message, http_status(e))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, e: RequestValidationError) -> JSONResponse:
        err = e.errors()[0] if e.errors() else {}
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        return _error(MessageInvalid.code, f"Bad request ({where}): {err.get('msg', 'invalid')}.", 422)

    # -- HTTP API -------------------------------------------------------------

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/api/config")
    async def get_config() -> dict[str, Any]:
        return config_json(settings)

    @app.post("/api/tables", status_code=201)
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        base = settings.public_url or str(request.base_url)
        return await svc(request).create_table(body, base)

    @app.get("/api/tables")
    async def lobby(request: Request) -> dict[str, Any]:
        return {"tables": svc(request).lobby()}

    @app.get("/api/tables/{code}")
    async def get_table(code: str, request: Request) -> dict[str, Any]:
        return (await svc(request).get_room(code)).summary()

    @app.post("/api/tables/{code}/join")
    async def join(code: str, body: JoinTable, request: Request) -> dict[str, Any]:
        return await svc(request).join(code, body)

    @app.get("/api/tables/{code}/record")
    async def record(code: str, request: Request) -> JSONResponse:
        rec = await svc(request).record(code)
        code = code.strip().upper()
        return JSONResponse(
            rec, headers={"Content-Disposition": f'attachment; filename="liars-dice-{code}.json"'}
        )

    @app.get("/api/tables/{code}/replay")
    async def replay(code: str, request: Request) -> dict[str, Any]:
        return await svc(request).replay(code)

    @app.get("/api/players/{nickname}/games")
    async def player_games(nickname: str, request: Request) -> dict[str, Any]:
        return {"games": await svc(request).games_of_name(nickname.strip())}

    @app.post("/api/my-games")
    async def my_games(body: MyGames, request: Request) -> dict[str, Any]:
        return {"games": await svc(request).games_of_tokens(body.tokens)}

    @app.get("/t/{code}", include_in_schema=False)
    async def share_link(code: str) -> RedirectResponse:
        return RedirectResponse(f"/#/table/{code.strip().upper()}")

    # -- websocket ---------------------------------------------------------------

    @app.websocket("/ws/tables/{code}")
    async def table_socket(ws: WebSocket, code: str) -> None:
        service = svc(ws)
        await ws.accept()
        try:
            room = await service.get_room(code)
        except LiarsDiceError as e:
            await ws.send_text(json.dumps({"type": "error", "code": e.code, "message": e.message, "id": None}))
            await ws.close(code=4404)
            return
        conn = Conn(ws, RateLimiter(settings.rate, settings.burst), settings.send_queue_max)
        conn.start()
        say_hello = "Say hello first: {\"type\": \"hello\", \"token\": ...}."
        try:
            while not conn.closed:
                try:
                    timeout = None if conn.hello_done else settings.hello_timeout
                    frame = await asyncio.wait_for(ws.receive(), timeout)
                except asyncio.TimeoutError:
                    conn.error(AuthRequired.code, say_hello)
                    break
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None:
                    conn.error(MessageInvalid.code, "Messages are JSON text frames.")
                    continue
                if not conn.limiter.allow():
                    conn.error(RateLimited.code, "Too many messages: slow down.")
                    continue
                msg_id = None
                try:
                    msg = parse_client_message(text, settings.max_message_bytes)
                    msg_id = msg.id
                    if not conn.hello_done:
                        if not isinstance(msg, Hello):
                            raise AuthRequired(say_hello)
                        await service.hello(room, conn, msg)
                    else:
                        await service.handle(room, conn, msg)
                except LiarsDiceError as e:  # every refusal: nothing changed
                    conn.error(e.code, e.message, getattr(e, "msg_id", None) if msg_id is None else msg_id)
        except WebSocketDisconnect:
            pass
        except Exception:  # noqa: BLE001 - log, then drop this client only
            log.exception("websocket failure at table %s", code)
        finally:
            service.goodbye(room, conn)
            # Let queued messages go out before the sender stops.
            conn.queue.put_nowait(None)
            if conn.sender is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(conn.sender), 2.0)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                    await conn.stop()

    # -- static web UI -------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    return app
