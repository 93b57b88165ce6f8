"""Who plays in an arena: bot specs, and the names they report under.

A spec is a registered bot name (``random``), an external program that
speaks the protocol (``cmd:liars-dice bot random --rules classic``), or a
saved policy (``policy:cfr.npz``: a solved round or a view policy, e.g. an
OpenSpiel ``TabularPolicy`` exported; :mod:`liars_dice.bots.policy_file`),
optionally labelled (``ext=cmd:./mybot --fast``). A list of specs is comma-separated;
commas inside quotes belong to a command.

When one name fills several seats, each seat is its own entrant:
``random``, ``random#2``, ``random#3``, ...

Higher layers add kinds of entrant without the arena importing them: a package
declares an entry point in the group ``liars_dice.entrants`` whose name is a spec
prefix (``openspiel`` for ``openspiel:mccfr:1000``) and whose object is a factory
``(spec, seed) -> Bot`` raising ``ValueError`` for a spec it does not know. The
arena loads it when a spec with that prefix is parsed (``importlib.metadata``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points

from ..bots import REGISTRY, Bot, make_bot
from ..engine import LiarsDiceError
from ..protocol import DEFAULT_TIMEOUT, ExternalBot

#: The prefix that marks an external command.
COMMAND_PREFIX = "cmd:"
#: The prefix that marks a policy file.
POLICY_PREFIX = "policy:"

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
    :ivar plugin: the spec of a bot from an entry point (``openspiel:ismcts``), or ``None``.
    :ivar policy: the path of a policy file, or ``None``.
    """

    name: str
    bot: str | None = None
    command: tuple[str, ...] | None = None
    plugin: str | None = None
    policy: str | None = None

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
        if self.policy is not None:
            from ..bots.policy_file import load_policy_bot

            return load_policy_bot(self.policy, seed)
        if self.plugin is not None:
            factory = plugin_factory(self.plugin)
            assert factory is not None
            return factory(self.plugin, seed)
        assert self.bot is not None
        return make_bot(self.bot, seed)


#: The entry-point group through which other packages add kinds of entrant.
ENTRY_POINT_GROUP = "liars_dice.entrants"

_PLUGINS: dict[str, Callable[[str, int | None], Bot] | None] = {}


def plugin_factory(spec: str) -> Callable[[str, int | None], Bot] | None:
    """The factory the entry point named by ``spec``'s prefix (before the first
    ``:``) provides, loaded once per process; ``None`` when no entry point has
    that name.

    :raises EntrantError: when the entry point exists but cannot be loaded
        (e.g. its optional extra is not installed).
    """
    prefix = spec.split(":", 1)[0]
    if ":" not in spec or not prefix:
        return None
    if prefix not in _PLUGINS:
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == prefix]
        try:
            _PLUGINS[prefix] = found[0].load() if found else None
        except ImportError as e:
            raise EntrantError(f"The {prefix!r} bots cannot be loaded ({e}); install the extra that provides them.") from None
    return _PLUGINS[prefix]


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

    :raises EntrantError: for an unknown bot name, an empty command, a policy
        file that cannot be read, or fewer than two entrants; the message is one sentence.
    """
    items: list[str] = []
    for s in [specs] if isinstance(specs, str) else specs:
        items.extend(split_specs(s))
    if len(items) < 2:
        raise EntrantError("An arena needs at least two bots, e.g. --bots random,random.")
    raw: list[tuple[str, str | None, tuple[str, ...] | None, str | None, str | None]] = []
    for spec in items:
        label = None
        m = _LABEL.match(spec)
        if m and (m.group(2).startswith((COMMAND_PREFIX, POLICY_PREFIX)) or m.group(2) in REGISTRY
                  or plugin_factory(m.group(2))):
            label, spec = m.group(1), m.group(2)
        if spec.startswith(POLICY_PREFIX):
            from ..bots.policy_file import load_policy_bot

            path = spec[len(POLICY_PREFIX) :].strip()
            if not path:
                raise EntrantError(f"{spec!r} names no policy file after {POLICY_PREFIX!r}.")
            try:
                load_policy_bot(path)  # a bad file fails here, before any game
            except LiarsDiceError as e:
                raise EntrantError(e.message) from None
            raw.append((label or spec, None, None, None, path))
        elif spec.startswith(COMMAND_PREFIX):
            try:
                argv = tuple(shlex.split(spec[len(COMMAND_PREFIX) :]))
            except ValueError as e:
                raise EntrantError(f"The command {spec!r} cannot be read: {e}.") from None
            if not argv:
                raise EntrantError(f"{spec!r} names no command to run after {COMMAND_PREFIX!r}.")
            raw.append((label or shlex.join(argv), None, argv, None, None))
        elif spec in REGISTRY:
            raw.append((label or spec, spec, None, None, None))
        elif (factory := plugin_factory(spec)) is not None:
            try:
                factory(spec, None)  # a bad spec fails here, with the plugin's sentence
            except ValueError as e:
                raise EntrantError(str(e)) from None
            raw.append((label or spec, None, None, spec, None))
        else:
            known = ", ".join(sorted(REGISTRY))
            raise EntrantError(
                f"There is no bot called {spec!r}; choose from {known}, run a program with {COMMAND_PREFIX}COMMAND, "
                f"or play a policy file with {POLICY_PREFIX}FILE."
            )
    seen: dict[str, int] = {}
    out = []
    for base, bot, command, plugin, policy in raw:
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}#{seen[base]}"
        out.append(Entrant(name, bot, command, plugin, policy))
    return out
