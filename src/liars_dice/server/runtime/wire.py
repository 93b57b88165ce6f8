"""Commands as JSON, for a worker to forward them to a table's owner
(:mod:`.cluster`, :mod:`.broker`).

A command is ``{"type": class name, ...its fields}``; a move's action is
``"challenge"``, ``"calza"`` or ``{"quantity", "face"}``; a refusal is
``{"code", "message", "status"}`` and becomes a :class:`Refused` again on the
sending worker, so its client gets the owner's sentence and code.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ...engine import CALZA, CHALLENGE, Action, Bid, LiarsDiceError
from ..core.commands import AddBot, Chat, Command, Create, Join, Leave, Move, RemoveSeat, Return, Settle, Start
from ..core.errors import ServerError
from ..core.tables import Departure

_KINDS: dict[str, type[Any]] = {
    c.__name__: c for c in (Create, Join, AddBot, RemoveSeat, Start, Leave, Return, Chat, Move, Settle)
}


class Refused(ServerError):
    """The owner refused a forwarded command; :attr:`code` and :attr:`status`
    are the owner's."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def _action(a: Action) -> Any:
    if a is CHALLENGE:
        return "challenge"
    if a is CALZA:
        return "calza"
    assert isinstance(a, Bid)
    return {"quantity": a.quantity, "face": a.face}


def _unaction(v: Any) -> Action:
    if v == "challenge":
        return CHALLENGE
    if v == "calza":
        return CALZA
    return Bid(int(v["quantity"]), int(v["face"]))


def encode(c: Command) -> dict[str, Any]:
    """``c`` as JSON-able data."""
    out: dict[str, Any] = {"type": type(c).__name__}
    for f in fields(c):
        v = getattr(c, f.name)
        if f.name == "action":
            v = _action(v)
        elif isinstance(v, tuple):
            v = list(v)
        out[f.name] = v
    return out


def decode(d: dict[str, Any]) -> Command:
    """The command :func:`encode` made.

    :raises ValueError: an unknown command type."""
    cls = _KINDS.get(str(d.get("type")))
    if cls is None:
        raise ValueError(f"Unknown command type {d.get('type')!r}.")
    kw = {k: v for k, v in d.items() if k != "type"}
    if "action" in kw:
        kw["action"] = _unaction(kw["action"])
    if "show" in kw:
        kw["show"] = tuple(kw["show"])
    if cls is Leave:
        kw["reason"] = Departure(kw["reason"])
    c: Command = cls(**kw)
    return c


def refusal(e: LiarsDiceError) -> dict[str, Any]:
    """A refusal as JSON-able data."""
    return {"code": getattr(e, "code", "server/error"), "message": e.message, "status": getattr(e, "status", 400)}
