"""Text a client sends: one check for every string, before anything is stored.

Every string that comes from a client (a nickname, a chat line, a rule
option such as a face name, a message id) goes through :func:`clean_text`:

* valid Unicode: no lone surrogates (they cannot be encoded, and a stored one
  made every later response that carried it fail);
* NFC (one spelling per text: "é" precomposed, never "e" + combining acute);
* no control, format, surrogate, private-use or unassigned characters
  (Unicode general categories Cc, Cf, Cs, Co, Cn): this covers the bidi
  controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), zero-width
  characters (U+200B-U+200D, U+2060, U+FEFF) and NUL;
* at most :attr:`~liars_dice.server.core.config.Settings.combining_run` combining
  marks in a row;
* runs of white space collapsed to one space, trimmed;
* a bounded length, counted in characters after NFC.

Names at one table must also differ by their confusable skeleton (Unicode
Technical Standard #39, section 4), so "José", "Jose" + U+0301 and "Jоsé"
with a Cyrillic о count as the same name: :func:`skeleton` is ICU's
``SpoofChecker.getSkeleton`` (PyICU).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from typing import Any

from .errors import MessageInvalid, ServerError

#: General categories refused anywhere in client text.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
#: The bidi controls, named for the error message (all are also category Cf).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")




def clean_text(
    raw: str, field: str, max_chars: int, *, error: type[ServerError] = MessageInvalid, combining_run: int = 4,
    empty_ok: bool = False,
) -> str:
    """``raw`` checked and normalised (see the module docstring).

    :param field: what the text is, for the error ("A nickname", "A chat line").
    :param max_chars: the longest allowed, in characters after NFC and trimming.
    :param error: the error to raise (the field's: ``NameInvalid``, ``ChatInvalid``,
        ``TableInvalid``); its message is one sentence naming the field and the
        problem, never repeating the text.
    :returns: the NFC text with white space collapsed.
    :raises ServerError: ``error``, for lone surrogates, a refused character, too long, or empty.
    """
    if not isinstance(raw, str):
        raise error(f"{field} must be text.")
    if len(raw) > 8 * max_chars + 64:  # far too long: refuse before normalising it
        raise error(f"{field} may have at most {max_chars} characters.")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise error(f"{field} is not valid Unicode (it holds a lone surrogate).") from None
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    run = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in REFUSED_CATEGORIES:
            if ch in BIDI_CONTROLS:
                raise error(f"{field} may not hold bidirectional control characters (U+{ord(ch):04X}).")
            raise error(f"{field} may not hold invisible, control or unassigned characters (U+{ord(ch):04X}).")
        run = run + 1 if cat in ("Mn", "Me") else 0
        if run > combining_run:
            raise error(f"{field} may stack at most {combining_run} combining marks on one letter.")
    if not text and not empty_ok:
        raise error(f"{field} needs some visible text.")
    if len(text) > max_chars:
        raise error(f"{field} may have at most {max_chars} characters.")
    return text


@functools.lru_cache(maxsize=1)
def _spoof_checker() -> Any:
    import icu

    return icu.SpoofChecker()


def _icu_skeleton(text: str) -> str:
    return str(_spoof_checker().getSkeleton(0, text))


def load_confusables() -> None:
    """Load ICU's confusables data now: about 2.4 MiB, which the first nickname
    checked would otherwise load mid-game (``liars-dice serve`` calls this at
    start-up, so a server's memory is its own from the start)."""
    _spoof_checker()


@functools.lru_cache(maxsize=4096)
def _capital_look(ch: str) -> str:
    """``ch``, or the capital it is drawn as when its UTS #39 prototype is one
    (Cyrillic "М" is drawn as "M", the digit "0" as "O"); a capital "I" stays
    "I" (its prototype is a small "l")."""
    look = _icu_skeleton(ch)
    return look if look != ch and look.casefold() != look else ch


@functools.lru_cache(maxsize=4096)
def skeleton(text: str) -> str:
    """The UTS #39 confusable skeleton of ``text`` with case ignored: two names
    with the same skeleton look alike ("rn" and "m", Latin "o" and Cyrillic "о")
    or differ only by case ("KIMMY155" and "Kimmy155").

    UTS #39 section 4 takes the skeleton of the case-folded string. Folding
    alone would part the capitals of other scripts that are drawn as Latin
    capitals (Cyrillic "М" folds to "м", whose skeleton is "ʍ", while "M"
    folds to "m", "rn"), so each character whose prototype is a capital is
    first replaced by that capital ("Маrta" clashes with "Marta"). Taking the
    skeleton before folding, as before issue 38, made a capital "I" a small
    "l", so "MILA" and "KIMMY155" passed beside "mila" and "Kimmy155".

    :returns: a string, the same for every case variant of a Latin-script name
        (tests/server/test_text.py checks it as a property over names).
    """
    nfd = unicodedata.normalize("NFD", text)
    return _icu_skeleton("".join(_capital_look(ch) for ch in nfd).casefold())


def confusable_with(name: str, others: Iterable[str | None]) -> str | None:
    """The first of ``others`` that looks like ``name`` (same :func:`skeleton`), or ``None``."""
    mine = skeleton(name)
    for other in others:
        if other is not None and skeleton(other) == mine:
            return other
    return None


def check_json_strings(
    value: Any, field: str, max_chars: int, max_items: int, *, error: type[ServerError] = MessageInvalid,
    combining_run: int = 4,
) -> Any:
    """``value`` (parsed JSON) with every string in it, keys too, passed through
    :func:`clean_text`; lists and objects hold at most ``max_items`` entries.

    :raises ServerError: ``error``, for the first string or container that breaks a bound.
    """
    if isinstance(value, str):
        return clean_text(value, field, max_chars, error=error, combining_run=combining_run)
    if isinstance(value, list):
        if len(value) > max_items:
            raise error(f"{field} may hold at most {max_items} entries in a list.")
        return [check_json_strings(v, field, max_chars, max_items, error=error, combining_run=combining_run) for v in value]
    if isinstance(value, dict):
        if len(value) > max_items:
            raise error(f"{field} may hold at most {max_items} entries.")
        return {
            clean_text(k, f"{field} (a key)", max_chars, error=error, combining_run=combining_run):
            check_json_strings(v, field, max_chars, max_items, error=error, combining_run=combining_run)
            for k, v in value.items()
        }
    return value


def json_depth_exceeds(text: str | bytes, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays/objects deeper than ``limit``.

    A linear scan that skips string contents, run BEFORE the parser so that
    ``"[" * 100000`` costs nothing and never reaches a recursive decoder. It
    does not check that the text is JSON (the parser does that next).
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False
