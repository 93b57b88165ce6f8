"""Serve a bot over the protocol: one request line in, one reply line out.

:func:`serve` is the loop behind ``liars-dice bot NAME --rules R``. It never
stops on a bad request: the reply is ``{"error": "<one sentence>"}`` and the
next line is read. It stops at the end of its input.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import BinaryIO

from ..bots import Bot, make_bot
from ..engine import Rules
from .convert import models_from_request, view_from_request
from .messages import MAX_LINE_BYTES, MODELS_UNSUPPORTED, ProtocolError, Reply, error_line, parse_request


def _read_line(stream: BinaryIO) -> tuple[bytes | None, bool]:
    """The next line without its newline, and whether it was cut for length.
    ``(None, False)`` at the end of input. An over-long line is read to its end
    and dropped, so the next read starts at the next line."""
    line = stream.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None, False
    if line.endswith(b"\n"):
        return line.rstrip(b"\r\n"), False
    if len(line) <= MAX_LINE_BYTES:  # the last line, with no newline
        return line, False
    while True:
        chunk = stream.readline(1 << 16)
        if not chunk or chunk.endswith(b"\n"):
            return b"", True


def request_seed(seed: int, line: bytes) -> int:
    """A bot seed drawn from ``seed`` and the request's text: the same request
    always gets the same seed, whatever came before it."""
    digest = hashlib.blake2b(line, digest_size=8, key=str(seed).encode()[:64]).digest()
    return int.from_bytes(digest, "big")


def answer(line: bytes, rules: Rules, bot: Bot) -> str:
    """The reply line (no newline) to one request line.

    Never raises for a bad request or a failing bot: those give an error reply.
    """
    try:
        request = parse_request(line)
        view = view_from_request(request, rules)
        set_models = getattr(bot, "set_models", None)
        if request.models is not None and set_models is None:
            return error_line(MODELS_UNSUPPORTED)
        if set_models is not None:
            set_models(models_from_request(request, rules))
    except ProtocolError as e:
        return error_line(e.message)
    try:
        decision = bot.decide(view)
    except Exception as e:  # a bot bug must not stop the server
        return error_line(f"The bot {bot.name} failed on this request: {type(e).__name__}: {e}.")
    return Reply.of(decision.action, decision.show).to_line()


def serve(
    name: str,
    rules: Rules,
    stdin: BinaryIO,
    stdout: BinaryIO,
    seed: int | None = None,
    factory: Callable[[str, int | None], Bot] = make_bot,
) -> int:
    """Answer every request line of ``stdin`` on ``stdout``, flushing each reply.

    Blank lines are skipped without a reply.

    :param name: a registered bot name (:func:`liars_dice.bots.make_bot`).
    :param seed: ``None``: one unseeded bot answers every request. An integer:
        each request gets a fresh bot seeded from ``seed`` and the request's
        text, so a reply depends on the request alone (reproducible whatever
        the order of requests).
    :returns: the number of requests answered.
    :raises ValueError: for an unknown bot name, before anything is read.
    """
    shared = factory(name, None) if seed is None else None
    if shared is None:
        factory(name, 0)  # fail now on an unknown name
    answered = 0
    while True:
        line, too_long = _read_line(stdin)
        if line is None:
            return answered
        if too_long:
            out = error_line(f"The request is longer than the limit of {MAX_LINE_BYTES} bytes.")
        elif not line.strip():
            continue
        else:
            if shared is not None:
                bot = shared
            else:
                assert seed is not None  # without a seed, one bot answers every request
                bot = factory(name, request_seed(seed, line.strip()))
            out = answer(line, rules, bot)
        stdout.write(out.encode() + b"\n")
        stdout.flush()
        answered += 1
