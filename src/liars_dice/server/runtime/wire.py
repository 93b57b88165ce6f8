"""Commands as JSON, for a worker to forward them to a table's owner
(:mod:`.cluster`, :mod:`.broker`).

The codec is **derived** from the core's command union
(:data:`~liars_dice.server.core.commands.Command`) and from each command's
field types, never listed by hand: a command added to the union is forwarded
as it is, and a field of a new type that the codec cannot carry fails the
round-trip test (``tests/server/test_wire.py``) rather than a client's move
on a second worker (issue 36, fault 3: the hand-written list missed
``Rematch`` and ``Contribute``, and "Play again" failed from a replica).

A command is ``{"type": class name, ...its fields}``; an engine action is
``"challenge"``, ``"calza"`` or ``{"quantity", "face"}``; an enum is its
value; a tuple is a list. A refusal is ``{"code", "message", "status"}`` and
becomes a :class:`Refused` again on the sending worker, so its client gets
the owner's sentence and code.
"""

from __future__ import annotations

import enum
import types
from dataclasses import fields, is_dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints

from ...engine import CALZA, CHALLENGE, Action, Bid, Calza, Challenge, LiarsDiceError
from ..core import commands as _commands
from ..core.commands import Command
from ..core.errors import ServerError

#: Every command class of the core's union, by name: the codec's registry.
KINDS: dict[str, type[Any]] = {c.__name__: c for c in get_args(Command)}

_ACTION_TYPES = frozenset(get_args(Action))


class Refused(ServerError):
    """The owner refused a forwarded command; :attr:`code` and :attr:`status`
    are the owner's."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


#: The resolved field types of each command class, by class name.
_HINTS: dict[str, dict[str, Any]] = {name: get_type_hints(cls, vars(_commands)) for name, cls in KINDS.items()}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The resolved field types of command class ``cls``."""
    return _HINTS[cls.__name__]


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _encode(hint: Any, v: Any) -> Any:
    if v is None:
        return None
    if _is_union(hint):
        members = set(get_args(hint)) - {type(None)}
        if members <= _ACTION_TYPES | {type(None)} and members:
            return _encode_action(v)
        for m in members:
            if _accepts(m, v):
                return _encode(m, v)
        raise TypeError(f"{v!r} fits none of {hint!r}.")
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, (Bid, Challenge, Calza)):
        return _encode_action(v)
    if isinstance(v, tuple):
        inner = get_args(hint)[0] if get_args(hint) else Any
        return [_encode(inner, x) for x in v]
    if isinstance(v, (str, int, float, bool, dict, list)):
        return v
    raise TypeError(f"The wire cannot carry a {type(v).__name__}.")


def _accepts(hint: Any, v: Any) -> bool:
    origin = get_origin(hint) or hint
    return isinstance(origin, type) and isinstance(v, origin)


def _decode(hint: Any, v: Any) -> Any:
    if v is None:
        return None
    if _is_union(hint):
        members = [m for m in get_args(hint) if m is not type(None)]
        if members and set(members) <= _ACTION_TYPES:
            return _decode_action(v)
        if len(members) == 1:
            return _decode(members[0], v)
        for m in members:  # the first member the value decodes as
            try:
                return _decode(m, v)
            except (TypeError, ValueError, KeyError):
                continue
        raise ValueError(f"{v!r} fits none of {hint!r}.")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(v)
        except ValueError:
            raise ValueError(f"{v!r} is not a {hint.__name__}.") from None
    if get_origin(hint) is tuple:
        inner = get_args(hint)[0]
        if not isinstance(v, list):
            raise ValueError(f"Expected a list, not {type(v).__name__}.")
        return tuple(_decode(inner, x) for x in v)
    if hint is Any:
        return v
    base = get_origin(hint) or hint
    if isinstance(base, type) and base in (str, int, float, bool, dict, list):
        if base is float and isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        if not isinstance(v, base) or (base is int and isinstance(v, bool)):
            raise ValueError(f"Expected {base.__name__}, not {type(v).__name__}.")
        return v
    raise TypeError(f"The wire cannot carry a {hint!r}.")


def _encode_action(a: Action) -> Any:
    if a is CHALLENGE or isinstance(a, Challenge):
        return "challenge"
    if a is CALZA or isinstance(a, Calza):
        return "calza"
    assert isinstance(a, Bid)
    return {"quantity": a.quantity, "face": a.face}


def _decode_action(v: Any) -> Action:
    if v == "challenge":
        return CHALLENGE
    if v == "calza":
        return CALZA
    if not isinstance(v, dict):
        raise ValueError(f"Not an action: {v!r}.")
    return Bid(int(v["quantity"]), int(v["face"]))


def encode(c: Command) -> dict[str, Any]:
    """``c`` as JSON-able data.

    :raises TypeError: ``c`` is not a command of the union, or holds a value
        the wire cannot carry (a test round-trips every command)."""
    cls = type(c)
    if KINDS.get(cls.__name__) is not cls or not is_dataclass(c):
        raise TypeError(f"{cls.__name__} is not a command of the core's union.")
    hints = _hints(cls)
    out: dict[str, Any] = {"type": cls.__name__}
    for f in fields(c):
        out[f.name] = _encode(hints[f.name], getattr(c, f.name))
    return out


def decode(d: dict[str, Any]) -> Command:
    """The command :func:`encode` made.

    :raises ValueError: an unknown command type, an unknown or missing field,
        or a value of the wrong type (one sentence naming it)."""
    cls = KINDS.get(str(d.get("type")))
    if cls is None:
        raise ValueError(f"Unknown command type {d.get('type')!r}.")
    hints = _hints(cls)
    names = {f.name for f in fields(cls)}
    extra = set(d) - names - {"type"}
    if extra:
        raise ValueError(f"{cls.__name__} has no field {sorted(extra)[0]!r}.")
    kw = {k: _decode(hints[k], v) for k, v in d.items() if k != "type"}
    try:
        c: Command = cls(**kw)
    except TypeError as e:
        raise ValueError(f"{cls.__name__} is missing a field: {e}.") from e
    return c


def refusal(e: LiarsDiceError) -> dict[str, Any]:
    """A refusal as JSON-able data."""
    return {"code": getattr(e, "code", "server/error"), "message": e.message, "status": getattr(e, "status", 400)}


__all__ = ["KINDS", "Refused", "decode", "encode", "refusal"]
