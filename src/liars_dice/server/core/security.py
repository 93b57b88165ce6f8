"""Seat tokens and join codes. (Rate limits: :mod:`liars_dice.server.edge.limits`.)"""

from __future__ import annotations

import hashlib
import secrets

#: Join-code alphabet: no 0/O, 1/I/L, so codes read aloud and typed survive.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def new_token() -> str:
    """A seat token: 32 bytes (256 bits) from :mod:`secrets`, URL-safe text of 43 characters."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """SHA-256 hex digest of a token; the server stores only this."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_code() -> str:
    """A short join code: 6 characters from :data:`CODE_ALPHABET` (about 29.7 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    """Join codes are case-insensitive: upper-case and strip."""
    return code.strip().upper()


def is_code(code: str) -> bool:
    """Whether ``code`` (normalised) can be a join code: :data:`CODE_LENGTH`
    characters of :data:`CODE_ALPHABET`. Anything else names no table, and is
    never repeated back to the client (it is the client's text: bidi or
    invisible characters would reach the page)."""
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)
