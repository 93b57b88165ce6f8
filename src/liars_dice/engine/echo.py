"""Values a player or a client sent, repeated in an error sentence: bounded by kind.

An error sentence names the value it refuses ("..., not 7."), but the value
comes from outside: a number of a hundred digits, a string of 8 KiB, a list of
sixty items. :func:`echo` is the one way the engine, the records and the server
put such a value into a sentence, so every refusal stays one readable sentence
of bounded length whatever it was sent:

* a whole number of more than :data:`DIGITS` digits: its first digits, an
  ellipsis and its length (``1111111111… (101 digits)``);
* a string over ``limit`` characters: its start, an ellipsis and its length,
  quoted with :func:`repr` so control and invisible characters show as escapes;
* a list or an object: its items when they are few and short, else their count
  (``a list of 100 items``);
* anything else: its type (``a float``, ``true``).

:func:`path` formats a location inside a JSON value (pydantic's ``loc``):
``show[0]``, ``options.face_names[2]``, with every key bounded the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

#: Whole numbers with more digits than this are shortened.
DIGITS = 12
#: Strings longer than this (characters) are shortened, unless a caller says otherwise.
TEXT = 40
#: Lists and objects with more items than this are given by their count.
ITEMS = 6


def echo(value: Any, limit: int = TEXT) -> str:
    """``value`` for an error sentence, at most about ``limit + 30`` characters.

    >>> echo(10**100)
    '1000000000… (101 digits)'
    >>> echo("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (1000 characters)"
    >>> echo([7] * 100), echo([1, 2]), echo({"a": 1})
    ('a list of 100 items', '[1, 2]', 'an object with 1 key')
    >>> echo(None), echo(True), echo(2.5)
    ('null', 'true', '2.5')
    """
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return _number(value)
    if isinstance(value, float):
        text = repr(value)
        return text if len(text) <= limit else f"a number of {len(text)} characters"
    if isinstance(value, str):
        # bounded by the quoted text's length, not the value's: a character may
        # quote as ten (``\U0001e95a``), and 29 of them made 121 characters
        if len(value) <= limit and len(quoted := repr(value)) <= limit + 2:
            return quoted
        lo, hi = 0, min(len(value), limit)  # the longest prefix that quotes within the limit
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(repr(value[:mid])) <= limit + 2:
                lo = mid
            else:
                hi = mid - 1
        quoted = repr(value[:lo])
        return f"{quoted[:-1]}…{quoted[-1]} ({len(value)} characters)"
    if isinstance(value, (list, tuple)):
        return _items(value, limit)
    if isinstance(value, dict):
        n = len(value)
        return f"an object with {n} key{'' if n == 1 else 's'}"
    return f"a {type(value).__name__}"


def path(loc: Iterable[Any], limit: int = TEXT) -> str:
    """A location in a JSON value, readable and bounded: keys joined by ``.``,
    list indices in brackets.

    >>> path(["show", 0]), path(["options", "face_names", 2, 1]), path([])
    ('show[0]', 'options.face_names[2][1]', '')
    >>> path(["k" * 100])
    'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…'
    """
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
            continue
        key = str(part)
        key = key if len(key) <= limit else key[:limit] + "…"
        if not (key.isascii() and key.isprintable()):
            key = repr(key)[1:-1]  # escapes: no control, invisible or bidi character in a sentence
        out += ("." if out else "") + key
    return out


def _number(value: int) -> str:
    # str() of a very long int is slow and may refuse (sys.int_info.str_digits_check_threshold):
    # past a few hundred bits, its length comes from the bit length instead.
    sign = "-" if value < 0 else ""
    if abs(value).bit_length() > 3000:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        return f"a {'negative ' if sign else ''}number of about {digits} digits"
    text = str(abs(value))
    if len(text) <= DIGITS:
        return sign + text
    return f"{sign}{text[:10]}… ({len(text)} digits)"


def _items(value: list[Any] | tuple[Any, ...], limit: int) -> str:
    n = len(value)
    if n <= ITEMS:
        inner = ", ".join(echo(v, max(8, limit // 4)) for v in value)
        if len(inner) <= limit + 20:
            return f"[{inner}]"
    return f"a list of {n} item{'' if n == 1 else 's'}"


__all__ = ["echo", "path", "DIGITS", "TEXT", "ITEMS"]
