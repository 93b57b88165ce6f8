"""A pydantic validation failure as one bounded sentence.

Both parsers of client input end here: the websocket's
(:func:`~liars_dice.server.core.messages.parse_client_message`) and FastAPI's for
HTTP bodies (the ``RequestValidationError`` handler in ``app.py``). A client
chooses the values and the keys it sends, so nothing of them reaches a sentence
unbounded (:mod:`liars_dice.engine.echo`):

* the field path is readable: ``show[0]``, ``options``, ``tokens[3]``; the
  internal names pydantic adds (a union member such as ``int``, a message
  type) are left out, and an unknown key is shortened;
* a field with a rule of its own (a message ``id``) is explained by that rule,
  not by one member of its union;
* pydantic's words are kept where they hold no client value, else replaced
  (an unknown message type is echoed bounded).

:data:`SENTENCE_MAX` bounds the whole sentence anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...engine.echo import echo, path

#: The longest error sentence the server sends (characters); anything longer is cut.
SENTENCE_MAX = 600


def bounded(sentence: str, limit: int = SENTENCE_MAX) -> str:
    """``sentence`` cut to ``limit`` characters with an ellipsis: the last guard
    on every error sentence the server sends (HTTP and websocket).

    >>> bounded("x" * 700)[-3:], len(bounded("x" * 700))
    ('xx…', 600)
    """
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def explain(
    errors: Sequence[Mapping[str, Any]], fields: Iterable[str], hints: Mapping[str, str] | None = None,
    skip: Iterable[str] = (),
) -> tuple[str, str]:
    """``(where, what)`` for the first failure of a validation: ``where`` a
    bounded field path (``""`` for the whole value), ``what`` a bounded clause
    without its final full stop.

    :param errors: ``ValidationError.errors()`` (pydantic 2).
    :param fields: every field name of the models validated: a part of the
        path that is neither one of them nor a list index is pydantic's own
        (a union member's tag) and is left out, unless it is the unknown key
        of an ``extra_forbidden`` failure.
    :param hints: a clause per field path that explains the field better than
        pydantic's words for one member of a union (e.g. ``{"id": ...}``).
    :param skip: path parts to leave out (``"body"``, the message types).
    """
    if not errors:
        return "", "invalid"
    known, hints, drop = frozenset(fields), hints or {}, frozenset(skip)
    err = errors[0]
    loc = list(err.get("loc", ()))
    kind = str(err.get("type", ""))
    keep: list[Any] = []
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(part, int) and not isinstance(part, bool):
            keep.append(part)
        elif part in drop:
            continue
        elif part in known or (last and kind == "extra_forbidden"):
            keep.append(part)
    where = path(keep)
    if where in hints:
        return where, hints[where]
    ctx = err.get("ctx") or {}
    if kind == "union_tag_invalid":
        field = str(ctx.get("discriminator", "type")).strip("'")
        where = path([*keep, field])
        what = f"unknown {field} {echo(ctx.get('tag'))}; the known ones are {ctx.get('expected_tags')}"
    elif kind == "union_tag_not_found":
        what = f"it has no {ctx.get('discriminator', 'type')}"
    elif kind == "extra_forbidden":
        what = "there is no such field"
    elif kind == "json_invalid":
        where, what = "", "the body is not JSON"
    else:
        what = str(err.get("msg", "invalid")).removeprefix("Value error, ").rstrip(".")
    return where, bounded(what, 200)


__all__ = ["SENTENCE_MAX", "bounded", "explain"]
