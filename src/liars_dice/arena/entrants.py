"""Who plays in an arena: bot specs, and the names they report under.

A spec is a registered bot name (``random``) or an external program that
speaks the protocol (``cmd:liars-dice bot random --rules classic``), optionally
labelled (``ext=cmd:./mybot --fast``). A list of specs is comma-separated;
commas inside quotes belong to a command.

When one name fills several seats, each seat is its own entrant:
``random``, ``random#2``, ``random#3``, ...
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ..bots import REGISTRY, Bot, make_bot
from ..engine import LiarsDiceError
from ..protocol import DEFAULT_TIMEOUT, ExternalBot

#: The prefix that marks an external command.
COMMAND_PREFIX = "cmd:"

_LABEL = re.compile(r"^([A-Za-z0-9_.\-]+)=(.+)$", re.S)


class EntrantError(LiarsDiceError):
    """A bot spec that names no registered bot and no command. ``code`` ``"arena/entrant"``."""

    code = "arena/entrant"


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat's bot in an arena.

    :ivar name: the name it reports under (unique in the arena).
    :ivar bot: the registered bot's name, or ``None`` for a command.
    :ivar command: the command's arguments, or ``None`` for a registered bot.
    """

    name: str
    bot: str | None = None
    command: tuple[str, ...] | None = None

    @property
    def external(self) -> bool:
        return self.command is not None

    def make(self, seed: int | None, timeout: float = DEFAULT_TIMEOUT) -> Bot:
        """A new bot for this entrant. A registered bot takes ``seed``; a command
        starts a process (its own seeding is up to the program).

        :raises BotCrashedError: when the command cannot be started.
        """
        if self.command is not None:
            return ExternalBot(self.command, name=self.name, timeout=timeout)
        assert self.bot is not None
        return make_bot(self.bot, seed)


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping quoted commas.

    >>> split_specs('random, cmd:prog --x "a,b"')
    ['random', 'cmd:prog --x "a,b"']
    """
    out: list[str] = []
    cur: list[str] = []
    quote: str | None = None
    for ch in text:
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return [s for s in out if s]


def parse_entrants(specs: list[str] | str) -> list[Entrant]:
    """Entrants from specs (a list, or one comma-separated string), named uniquely.

    :raises EntrantError: for an unknown bot name, an empty command, or fewer
        than two entrants; the message is one sentence.
    """
    items: list[str] = []
    for s in [specs] if isinstance(specs, str) else specs:
        items.extend(split_specs(s))
    if len(items) < 2:
        raise EntrantError("An arena needs at least two bots, e.g. --bots random,random.")
    raw: list[tuple[str, str | None, tuple[str, ...] | None]] = []
    for spec in items:
        label = None
        m = _LABEL.match(spec)
        if m and (m.group(2).startswith(COMMAND_PREFIX) or m.group(2) in REGISTRY):
            label, spec = m.group(1), m.group(2)
        if spec.startswith(COMMAND_PREFIX):
            try:
                argv = tuple(shlex.split(spec[len(COMMAND_PREFIX) :]))
            except ValueError as e:
                raise EntrantError(f"The command {spec!r} cannot be read: {e}.") from None
            if not argv:
                raise EntrantError(f"{spec!r} names no command to run after {COMMAND_PREFIX!r}.")
            raw.append((label or shlex.join(argv), None, argv))
        elif spec in REGISTRY:
            raw.append((label or spec, spec, None))
        else:
            known = ", ".join(sorted(REGISTRY))
            raise EntrantError(
                f"There is no bot called {spec!r}; choose from {known}, or run a program with {COMMAND_PREFIX}COMMAND."
            )
    seen: dict[str, int] = {}
    out = []
    for base, bot, command in raw:
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}#{seen[base]}"
        out.append(Entrant(name, bot, command))
    return out
