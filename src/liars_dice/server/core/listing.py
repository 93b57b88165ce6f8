"""Shared listings that one bad entry cannot break.

A listing many visitors share (the lobby, a player's games) is built entry by
entry: an entry whose building or JSON encoding fails is logged and left out,
and the rest of the listing is served. (Issue 7, fault 1: one table holding a
lone surrogate made ``GET /api/tables`` answer 500 to everyone.)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


def safe_entries(items: Iterable[T], build: Callable[[T], dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """``[build(item) for item in items]``, leaving out (and logging) every entry
    whose building raises or whose result does not encode as UTF-8 JSON.

    :param build: makes one entry; ``None`` takes the items as they are.
    """
    out: list[dict[str, Any]] = []
    for item in items:
        try:
            entry = build(item) if build is not None else item
            json.dumps(entry, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except Exception:  # noqa: BLE001 - one bad entry never breaks the listing
            log.exception("left a broken entry out of a listing")
            continue
        out.append(entry)  # type: ignore[arg-type]  # without `build` the items are the entries (T is a dict)
    return out
