"""Response models of the HTTP API, so the OpenAPI schema (``/api/openapi.json``)
says what each answer holds and the API fuzzer (Schemathesis) can check every
response against it. They allow extra fields: they describe, they do not trim.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class SeatSummary(_Open):
    seat: int
    name: str | None
    kind: str
    bot: str | None
    connected: bool


class TableSummary(_Open):
    """The table summary of ``docs/server-protocol.md``."""

    code: str
    status: str
    rules: dict[str, Any]
    #: the rule set in words, from the engine: ``[{"topic", "sentence"}, ...]``
    rules_summary: list[dict[str, str]]
    preset: str
    n_seats: int
    turn_timer: int | None
    private: bool
    host: int
    seats: list[SeatSummary]
    visitors: int
    created_at: str
    winner: str | None


class Lobby(_Open):
    tables: list[TableSummary]


class Seated(_Open):
    """``POST /api/tables`` (201) and ``POST /api/tables/{code}/join``."""

    code: str
    seat: int
    token: str
    table: TableSummary


class Created(Seated):
    share_url: str


class Games(_Open):
    games: list[dict[str, Any]]


class Leaderboard(_Open):
    """``GET /api/leaderboard`` (issue 18)."""

    rule_sets: list[str]
    rule_set: str | None
    min_games: int
    players: list[dict[str, Any]]


class Profile(_Open):
    """``GET /api/players/{name}/profile`` (issue 18)."""

    name: str
    ratings: list[dict[str, Any]]
    games: list[dict[str, Any]]


class Health(_Open):
    ok: bool
    database: str


class Readiness(_Open):
    """``GET /readyz``: :class:`liars_dice.server.edge.health.Readiness`."""

    ready: bool
    database: str
    redis: str
    heartbeat: str
