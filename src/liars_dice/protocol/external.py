"""An external program as a :class:`~liars_dice.bots.Bot`: a subprocess that
speaks the protocol (``docs/bot-protocol.md``) on its standard input and output.

:class:`ExternalBot` sends one request line per decision and reads one reply
line, with a time limit. A process that dies, times out, or answers with
anything but a legal move raises a :class:`BotError` subclass whose message is
one sentence; nothing is applied to any game state, since ``decide`` returns
nothing. After such a failure the process is stopped and every later
``decide`` raises again.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from ..bots import Decision
from ..engine import LiarsDiceError, SeatView
from .convert import request_from_view
from .messages import MAX_LINE_BYTES, ProtocolError, parse_reply

def _seconds(t: float) -> str:
    """``1 second``, ``2.5 seconds``."""
    return f"{t:g} second" if t == 1 else f"{t:g} seconds"


#: Default time limit for one reply, in seconds.
DEFAULT_TIMEOUT = 10.0


class BotError(LiarsDiceError):
    """An external bot failed to give a move. ``code`` ``"bot/failed"``."""

    code = "bot/failed"


class BotTimeoutError(BotError):
    """No reply line within the time limit. ``code`` ``"bot/timeout"``."""

    code = "bot/timeout"


class BotCrashedError(BotError):
    """The process could not start, or ended (or closed its output) mid-game.
    ``code`` ``"bot/crashed"``."""

    code = "bot/crashed"


class BotReplyError(BotError):
    """A reply that is not JSON, not a reply's shape, an error reply, or an
    illegal move. ``code`` ``"bot/bad_reply"``."""

    code = "bot/bad_reply"


#: Requests shorter than this are written directly (a pipe holds at least 64 KiB on Linux).
_PIPE_SAFE = 32 * 1024

_EOF = object()
_TOO_LONG = object()


#: Reply lines read ahead of the requests, at most. The protocol has one reply
#: per request and one request out at a time, so a second line waiting is
#: already a fault; a bot that wrote lines without end filled an unbounded
#: queue at 55 MB a second while it waited for its next request (attack7).
#: When this many wait, the reader stops reading and the bot's output pipe fills.
MAX_LINES_AHEAD = 4


def _put(out: "queue.Queue[object]", item: object, stopped: threading.Event) -> bool:
    """Put ``item`` on the bounded ``out``, waiting while it is full, until
    ``stopped`` is set (then ``False``: the item is dropped)."""
    while not stopped.is_set():
        try:
            out.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _pump_lines(stream: IO[bytes], out: "queue.Queue[object]", stopped: threading.Event) -> None:
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                if not _put(out, _TOO_LONG, stopped):
                    return
                while line and not line.endswith(b"\n"):
                    line = stream.readline(1 << 16)
                continue
            if not _put(out, line, stopped):
                return
    except (OSError, ValueError):  # the bot was stopped: its output closed under the read
        return
    _put(out, _EOF, stopped)


def _pump_tail(stream: IO[bytes], tail: "collections.deque[str]") -> None:
    try:
        for raw in iter(lambda: stream.readline(1 << 14), b""):
            tail.append(raw.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):  # the bot was stopped: its error output closed under the read
        return


class ExternalBot:
    """A bot program run as a subprocess, speaking the protocol.

    Usually the command is a program on the ``PATH``, e.g.
    ``ExternalBot("liars-dice bot random --rules classic")``; here the same
    command runs through this Python:

    >>> import sys
    >>> from liars_dice.engine import Game, Rules, SeededDice
    >>> bot = ExternalBot([sys.executable, "-c", "from liars_dice.cli import main; main()",
    ...                    "bot", "random", "--rules", "classic"])
    >>> state = Game.create(Rules.preset("classic"), ["me", "bot"]).initial_state(1).roll(SeededDice(1))
    >>> decision = bot.decide(state.view(1))
    >>> decision.action in state.legal_actions()
    True
    >>> bot.close()

    :param command: the program and its arguments, as a list or as one
        string split like a POSIX shell (:func:`shlex.split`); no shell runs it.
    :param name: what :attr:`name` reports; defaults to the command text.
    :param timeout: seconds allowed for each reply.
    :raises BotCrashedError: when the program cannot be started.

    Use it as a context manager, or call :meth:`close`, to end the process;
    the process also sees the end of its input when this one exits.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        name: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        models: Mapping[str, Any] | None = None,
    ) -> None:
        #: Opponent models (JSON objects) by player name, sent in each request's
        #: ``models`` for the players of the view other than its seat.
        self.models: dict[str, Any] = dict(models or {})
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise BotCrashedError("An external bot needs a command to run.")
        self.argv = argv
        self.name = name or shlex.join(argv)
        self.timeout = timeout
        self._failure: BotError | None = None
        try:
            # a session of its own: stopping the bot ends every process it started
            # (a child left holding its output kept the pipe open and the reader blocked)
            self._proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",
            )
        except OSError as e:
            raise BotCrashedError(f"The bot command {self.name!r} cannot be started: {e.strerror or e}.") from None
        self._lines: queue.Queue[object] = queue.Queue(maxsize=MAX_LINES_AHEAD)
        self._stopped = threading.Event()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(
            target=_pump_lines, args=(self._proc.stdout, self._lines, self._stopped), daemon=True
        ).start()
        self._tail_thread = threading.Thread(target=_pump_tail, args=(self._proc.stderr, self._stderr), daemon=True)
        self._tail_thread.start()

    # -- the Bot interface ----------------------------------------------------

    def decide(self, view: SeatView) -> Decision:
        """Ask the program for ``view``'s move.

        :raises BotTimeoutError: no reply within :attr:`timeout` seconds.
        :raises BotCrashedError: the process is gone or closed its output.
        :raises BotReplyError: garbage, an error reply, or an illegal move.
        :raises BotError: on any call after one of those failures.
        """
        if self._failure is not None:
            raise BotError(f"The bot {self.name!r} was stopped after an earlier failure: {self._failure.message}")
        try:
            return self._decide(view)
        except BotError as e:
            self._failure = e
            self._stop()
            raise

    def _decide(self, view: SeatView) -> Decision:
        try:
            req = request_from_view(view)
            mine = view.players[view.seat]
            models = {k: v for k, v in self.models.items() if k in view.players and k != mine}
            if models:
                req["models"] = models
            request = json.dumps(req, separators=(",", ":")).encode() + b"\n"
        except ProtocolError as e:
            raise BotError(e.message) from None
        deadline = time.monotonic() + self.timeout
        self._send(request)
        try:
            item = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise BotTimeoutError(f"The bot {self.name!r} did not reply within {_seconds(self.timeout)}.") from None
        if item is _EOF:
            raise self._crashed()
        if item is _TOO_LONG:
            raise BotReplyError(f"The bot {self.name!r} replied with a line longer than {MAX_LINE_BYTES} bytes.")
        assert isinstance(item, bytes)
        try:
            reply = parse_reply(item.strip())
        except ProtocolError as e:
            raise BotReplyError(f"The bot {self.name!r} sent a bad reply: {e.message}") from None
        if reply.error is not None:
            raise BotReplyError(f"The bot {self.name!r} refused the request: {reply.error}")
        action = reply.action
        show = tuple(sorted(reply.show or ()))
        if action not in view.legal_actions():
            raise BotReplyError(f"The bot {self.name!r} chose {action}, which is not a legal move here.")
        if show and show not in view.legal_shows():
            raise BotReplyError(f"The bot {self.name!r} showed {list(show)}, which it may not show here.")
        return Decision(action, show)

    # -- the process ----------------------------------------------------------

    def _send(self, data: bytes) -> None:
        """Write one request. A request larger than a pipe's buffer may block on
        a program that stopped reading, so it is written from a helper thread
        and given the time limit."""
        stdin = self._proc.stdin
        assert stdin is not None
        failed: list[BaseException] = []

        def write() -> None:
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError) as e:  # BrokenPipeError, or closed
                failed.append(e)

        if len(data) < _PIPE_SAFE:
            write()
        else:
            t = threading.Thread(target=write, daemon=True)
            t.start()
            t.join(self.timeout)
            if t.is_alive():
                raise BotTimeoutError(f"The bot {self.name!r} did not read its request within {_seconds(self.timeout)}.")
        if failed:
            raise self._crashed()

    def _crashed(self) -> BotCrashedError:
        try:
            code = self._proc.wait(timeout=1.0)
            how = f"exited with status {code}"
            self._tail_thread.join(timeout=1.0)
        except subprocess.TimeoutExpired:
            how = "closed its output"
        tail = " | ".join(line for line in self._stderr if line)
        detail = f" (its last error output: {tail[-300:]})" if tail else ""
        return BotCrashedError(f"The bot {self.name!r} {how} before replying{detail}.")

    def _stop(self) -> None:
        """Kill the program and every process of its session, and close the
        pipes. Bounded in time: a pipe held open by a process that escaped the
        session is closed aside (a reader blocked on it holds its lock)."""
        self._stopped.set()  # a reader waiting on a full queue lets go
        if os.name == "posix":
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except OSError:  # the whole group is gone already
                pass
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()

        def close_pipes() -> None:
            for f in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
                try:
                    if f is not None:
                        f.close()
                except (OSError, ValueError):  # pragma: no cover
                    pass

        closer = threading.Thread(target=close_pipes, daemon=True)
        closer.start()
        closer.join(1.0)

    def close(self, grace: float = 2.0) -> None:
        """End the process: close its input, wait up to ``grace`` seconds, then kill it."""
        proc = self._proc
        if proc.poll() is None and self._failure is None:
            # Closing the input waits for a write in progress; do it aside so a
            # program that stopped reading cannot hold us past the grace time.
            closer = threading.Thread(target=self._close_input, daemon=True)
            closer.start()
            closer.join(grace)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self._stop()

    def _close_input(self) -> None:
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        except OSError:  # pragma: no cover
            pass

    def __enter__(self) -> "ExternalBot":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExternalBot({self.argv!r}, timeout={self.timeout!r})"
