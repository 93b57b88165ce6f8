"""Help text that reads like a command's, not like Python types.

Typer 0.29 writes every parameter's Python type into ``--help``: ``<bool>``
after a plain flag, ``<list[str]>`` after a repeatable option, and ``{file}``
for a required argument in the usage line. :class:`Command` and :class:`Group`
(passed as ``cls`` to Typer) write what a person types instead: nothing after
a flag, ``TEXT``/``INTEGER``/``NUMBER``/``PATH`` after an option, ``FILE`` for
an argument (``[FILE]`` when optional). Imports Typer only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from .coercion import install

_WORDS = {str: "TEXT", int: "INTEGER", float: "NUMBER", Path: "PATH", bool: ""}


def _word(param: Any) -> str | None:
    """The metavar a person reads for ``param``'s type, or ``None`` to keep Typer's."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None:
        return None
    annotation = desc.annotation
    if desc.is_list:
        args = getattr(annotation, "__args__", ())
        annotation = args[0] if args else str
    if desc.is_tuple:
        return " ".join(_WORDS.get(a, "TEXT") for a in getattr(annotation, "__args__", ()))
    if desc.is_choice:
        return None
    return _WORDS.get(annotation, None)


def _plain(param: Any) -> None:
    """Give ``param`` a metavar a person reads (once; an explicit metavar is kept)."""
    if getattr(param, "_plain_done", False):
        return
    param._plain_done = True
    install(param)  # option values without pydantic where Typer's answer is plain (start-up)
    if isinstance(param, TyperOption):
        if param.is_flag:
            param.metavar = ""
        elif param.metavar is None:
            word = _word(param)
            if word is not None:
                param.metavar = word
    elif isinstance(param, TyperArgument):
        if param.metavar is None:
            param.metavar = param.name.upper()
        # the argument's name says it; no "<str>" after it (an instance attribute shadows the method)
        setattr(param, "display_type_rich", lambda ctx: None)


def _usage(pieces: list[str]) -> list[str]:
    return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


class Command(TyperCommand):
    """A sub-command whose help shows what to type, not Python types."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for p in params:
            _plain(p)
        return params

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage(super().collect_usage_pieces(ctx))


class Group(TyperGroup):
    """The root command: plain help, and the sub-commands listed in the order
    they are registered (``play`` first)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for p in params:
            _plain(p)
        return params

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command with its first sentence whole, wrapped rather than cut
        off with "..." (plain help, without Rich: see ``app``)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
