"""Option values without pydantic, where Typer would get the same answer.

Typer 0.29 coerces every option value through a pydantic ``TypeAdapter``, built
the first time a command parses its options: importing pydantic for that costs
more than importing Typer itself (``benchmarks/RESULTS.md``, "Start-up"), on
every run of ``play`` even with no options. For the plain types our commands
use (``str``, ``bool``, ``int``, ``float``, ``Path``, ``list[str]``,
``tuple[int, int]``)
the value of a well-formed option is known without it: ``"4"`` is ``4``.

:func:`install` gives such a parameter a runtime coercion that answers the
plain, valid cases itself (the same value Typer's adapter returns) and hands
everything else, every error included, to the coercion Typer would have built,
so messages and edge cases stay Typer's. It relies on one Typer internal (the
lazily built ``_runtime_param`` of a ``TyperOption``/``TyperArgument``);
``tests/test_startup_imports.py`` checks both that ``play`` no longer imports
pydantic and that every answer equals Typer's own. Imports Typer only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # Typer's runtime coercion (0.29); without it, Typer's own path is used unchanged
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # pragma: no cover - another Typer: nothing to install
    RuntimeParam = None  # type: ignore[assignment,misc]  # the optional base is absent in that Typer

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")
_NO = object()  #: "not a plain case: ask Typer"


def _number(kind: type, value: Any, info: Any) -> Any:
    """``value`` as ``kind`` when it is plainly one and in range, else ``_NO``."""
    if type(value) is kind:
        v = value
    elif type(value) is str and (_INT if kind is int else _FLOAT).fullmatch(value):
        v = kind(value)
    else:
        return _NO
    if (info.min is not None and v < info.min) or (info.max is not None and v > info.max):
        return _NO  # out of range: Typer words the refusal
    return v


def _plain_value(kind: str, value: Any, info: Any, param: Any, ctx: Any) -> Any:
    if kind == "str":
        return value if type(value) is str else _NO
    if kind == "bool":
        return value if type(value) is bool else _NO
    if kind == "int":
        return _number(int, value, info)
    if kind == "float":
        return _number(float, value, info)
    if kind == "path":
        if type(value) is not str:
            return _NO
        path_type = info.path_type or Path
        return coerce_cli_path(path_type(value), info, path_type=path_type, param=param, ctx=ctx)
    if kind == "list_str":
        return list(value) if isinstance(value, (list, tuple)) and all(type(v) is str for v in value) else _NO
    if kind == "tuple_int":
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            return _NO
        out = tuple(_number(int, v, info) for v in value)
        return _NO if _NO in out else out
    return _NO  # pragma: no cover - kinds are the ones of _kind


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        """Typer's coercion for one parameter, answered without pydantic where plain."""

        kind: str
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            out = _plain_value(self.kind, value, self.parameter_info, param, ctx)
            if out is _NO:
                return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return out


def _kind(desc: Any) -> str | None:
    """Which plain case a parameter is, or ``None`` to leave it to Typer."""
    info = desc.parameter_info
    if info.parser is not None or info.clamp or desc.file_annotation is not None:
        return None
    a = desc.annotation
    if a is str:
        return "str"
    if a is bool:
        return "bool"
    if a is int or a is float:
        return a.__name__
    if a is Path:
        return "path"
    if desc.is_list and getattr(a, "__args__", None) == (str,):
        return "list_str"
    if desc.is_tuple and getattr(a, "__args__", None) == (int, int):
        return "tuple_int"
    return None


def install(param: Any) -> None:
    """Give ``param`` (a Typer option or argument) the plain coercion, once,
    when its type is a plain case and Typer has not built its own yet."""
    if RuntimeParam is None or getattr(param, "_runtime_param", False) is not None:
        return
    desc = getattr(param, "type_descriptor", None)
    if desc is None:
        return
    kind = _kind(desc)
    if kind is not None:
        param._runtime_param = PlainRuntimeParam(
            parameter_info=desc.parameter_info, annotation=desc.annotation, kind=kind, descriptor=desc
        )
