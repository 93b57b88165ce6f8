"""Tokens, codes and dice of the server (issue 4, "Safety")."""

from __future__ import annotations

from liars_dice.server.core.security import CODE_ALPHABET, hash_token, new_code, new_token


def test_tokens_carry_256_random_bits_and_are_stored_hashed() -> None:
    tokens = {new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    assert all(len(t) == 43 for t in tokens)  # 32 bytes in URL-safe base64
    t = new_token()
    assert hash_token(t) != t and len(hash_token(t)) == 64


def test_codes_are_short_and_unambiguous() -> None:
    for _ in range(200):
        c = new_code()
        assert len(c) == 6 and set(c) <= set(CODE_ALPHABET)
    assert not set("01OIL") & set(CODE_ALPHABET)


def test_online_games_roll_with_the_os_secure_source() -> None:
    from liars_dice.engine import SecureDice
    from liars_dice.server.core.config import Settings
    from liars_dice.server.runtime.service import TableService

    assert isinstance(TableService(Settings(), store=None).dice, SecureDice)  # type: ignore[arg-type]


def test_message_limiter_allows_its_rate_then_refuses() -> None:
    from liars_dice.server.core.config import Settings
    from liars_dice.server.edge.limits import Guard

    guard = Guard(Settings(message_rate="3 per hour"))
    lim, other = guard.message_limiter(), guard.message_limiter()
    assert [lim.allow() for _ in range(5)] == [True, True, True, False, False]
    assert other.allow()  # counted per connection


def test_rate_limit_storage_frees_expired_keys_and_sweeps_rarely() -> None:
    """Each connection has a rate-limit key of its own: once expired, the key
    leaves memory (the library's own sweep keeps an empty list per key)."""
    import threading
    import time

    from limits import parse
    from limits.strategies import MovingWindowRateLimiter

    from liars_dice.server.edge.limits import SweptMemoryStorage

    storage = SweptMemoryStorage()
    limiter = MovingWindowRateLimiter(storage)
    item = parse("1/second")
    threads = threading.active_count()
    for k in range(500):
        assert limiter.hit(item, "conn", str(k))
    assert threading.active_count() <= threads + 1  # one sweep scheduled, not one per hit
    time.sleep(2.5)
    limiter.hit(item, "conn", "last")
    time.sleep(1.5)
    assert len(storage.events) <= 1, len(storage.events)


def test_a_sweep_that_meets_a_change_of_keys_tries_again() -> None:
    """The sweep runs on a timer thread while the event loop adds keys; copying
    the keys then raised "dictionary changed size during iteration" in the
    sweep's thread (a traceback in the log of the attack benchmark, and no
    sweep). Now the sweep tries again and frees the expired keys."""
    import time

    from limits import parse
    from limits.strategies import MovingWindowRateLimiter

    from liars_dice.server.edge.limits import SweptMemoryStorage

    class Changing(dict):  # type: ignore[type-arg]
        """A dict whose first copies fail as when another thread adds a key meanwhile."""

        fails = 2

        def items(self):  # type: ignore[no-untyped-def]
            if Changing.fails:
                Changing.fails -= 1
                raise RuntimeError("dictionary changed size during iteration")
            return super().items()

        def keys(self):  # type: ignore[no-untyped-def]
            return self.items() and super().keys()

    storage = SweptMemoryStorage()
    limiter = MovingWindowRateLimiter(storage)
    item = parse("1/second")
    for k in range(20):
        limiter.hit(item, "conn", str(k))
    storage.timer.cancel()
    storage.events = Changing(storage.events)
    time.sleep(1.1)  # every window has expired
    storage._MemoryStorage__expire_events()  # raised RuntimeError before
    assert Changing.fails == 0
    assert len(storage.events) == 0
