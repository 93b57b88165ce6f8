"""Seat tokens, join codes and the per-connection rate limit."""

from __future__ import annotations

import hashlib
import secrets
import time

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


class RateLimiter:
    """Token bucket: ``rate`` messages per second on average, bursts of ``burst``.

    :meth:`allow` takes one token and says whether one was there.
    """

    __slots__ = ("rate", "burst", "_tokens", "_last")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = burst
        self._last = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

