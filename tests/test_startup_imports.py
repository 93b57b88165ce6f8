"""Start-up stays light (issue 8, "Start-up"): the command imports only Typer
at start; numpy, pydantic, the server and the bots load when a command needs
them. Import sets, not timings (the figures live in benchmarks/RESULTS.md)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "pydantic", "fastapi", "sqlalchemy", "uvicorn", "matplotlib", "openskill")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_package() -> None:
    mods = _modules_after("import liars_dice.cli")
    assert not [m for m in HEAVY if m in mods]
    assert not [m for m in mods if m.startswith(("liars_dice.engine", "liars_dice.bots", "liars_dice.records",
                                                 "liars_dice.server", "liars_dice.solver", "rich"))]


def test_a_game_in_the_terminal_loads_no_numpy_or_pydantic() -> None:
    """`play` with the default (probabilistic) bots needs the engine, the bots and
    Rich; numpy (the strong bot, the solver) and pydantic (records) wait until used."""
    mods = _modules_after("import liars_dice.cli.session; from liars_dice.bots import make_bot; make_bot('probabilistic', 1)")
    assert not [m for m in HEAVY if m in mods]
    mods = _modules_after("from liars_dice.bots import make_bot; make_bot('strong', 1)")
    assert "numpy" in mods, "the strong bot still works, loading numpy when made"


def test_help_and_version_run_without_heavy_imports(cli) -> None:
    """The root --help and --version import nothing heavy, nor does `play --help`
    (Typer 0.29 would coerce its option values through pydantic; cli/coercion.py
    answers the plain cases without it)."""
    for args in (["--help"], ["--version"]):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c",
             f"import sys; sys.argv = ['liars-dice', *{args!r}]\nfrom liars_dice.cli import main\ntry:\n main()\nexcept SystemExit:\n pass"],
            capture_output=True, text=True,
        )
        imported = {ln.split("|")[-1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")}
        assert not [m for m in HEAVY if m in imported], (args, [m for m in HEAVY if m in imported])
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; sys.argv = ['liars-dice', 'play', '--help']\nfrom liars_dice.cli import main\n"
         "try:\n main()\nexcept SystemExit:\n pass"],
        capture_output=True, text=True,
    )
    imported = {ln.split("|")[-1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")}
    assert not [m for m in HEAVY if m in imported]
    assert not [m for m in imported if m.startswith(("liars_dice.records", "liars_dice.server", "liars_dice.solver"))]


def _imported_by(args: list[str], stdin: str = "") -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         f"import sys; sys.argv = ['liars-dice', *{args!r}]\nfrom liars_dice.cli import main\n"
         "try:\n main()\nexcept SystemExit:\n pass"],
        capture_output=True, text=True, input=stdin,
    )
    return {ln.split("|")[-1].strip() for ln in proc.stderr.splitlines() if ln.startswith("import time:")}


def test_help_is_plain_text_without_rich() -> None:
    """Rich's help renderer (rich.markdown, rich.traceback...) cost more to import
    than all of Typer; the help is Click's plain text (issue 8, "Start-up")."""
    for args in (["--help"], ["-h"], ["play", "--help"]):
        imported = _imported_by(args)
        assert "typer" in imported
        assert not [m for m in imported if m == "rich" or m.startswith("rich.")], args


def test_play_with_a_preset_does_not_load_the_records_package() -> None:
    """`play --rules PRESET` up to its first prompt needs no record schema; only a
    rules file (or --record, at the end) loads liars_dice.records."""
    imported = _imported_by(["play", "--seed", "1", "--start", "you", "--rules", "perudo"], stdin="q\n")
    assert "liars_dice.engine" in imported and "liars_dice.cli.session" in imported
    assert not [m for m in imported if m.startswith("liars_dice.records")]


def test_play_parses_its_options_without_pydantic() -> None:
    """Typer 0.29 builds a pydantic adapter per option; cli/coercion.py answers the
    plain cases itself, so `play` (and `play --help`) never import pydantic."""
    for args, stdin in ((["play", "--seed", "1", "--start", "you", "--players", "3", "--delay", "0.5"], "q\n"),
                        (["play", "--help"], "")):
        imported = _imported_by(args, stdin)
        assert "liars_dice.cli.play" in imported
        assert not [m for m in imported if m.startswith("pydantic")], args


_INPUTS: dict[str, list[object]] = {
    "str": ["x", "", "  a b ", "-", "ünï"],
    "bool": [True, False],
    "int": ["4", "-3", "007", "+5", " 5", "1_000", "5.0", "x", "", "9" * 25, 4, 0, 1, 2, 6, 7, "1", "2", "6", "7", True],
    "float": ["0", "0.5", "60", "60.1", "-1", "1e3", "inf", "nan", ".5", "5.", "x", "", 0.0, 1.5, 61.0, 3, "0.001"],
    "path": ["game.json", "-", "/tmp", "a/b/c.json", ""],
    "list_str": [("a", "b"), (), ["x"]],
    "tuple_int": [("1", "2"), ("x", "1"), ("1",), (1, 2), ("-1", "3")],
}


def test_plain_coercion_answers_exactly_as_typer_does() -> None:
    """Every option of every command, on plain and odd inputs: the same value, or
    the same refusal (Typer's own words), as Typer's pydantic coercion."""
    from typer._click import Context
    from typer._click.exceptions import BadParameter
    from typer._coercion import build_runtime_param
    from typer.main import get_command

    from liars_dice.cli import app
    from liars_dice.cli.coercion import PlainRuntimeParam, install

    def outcome(runtime, value, param, ctx):  # type: ignore[no-untyped-def]
        try:
            out = runtime._coerce_value(value, param=param, ctx=ctx)
            return ("ok", type(out), repr(out))  # repr: nan equals nan
        except BadParameter as e:
            return ("refused", e.format_message())

    root = get_command(app)
    kinds: set[str] = set()
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        ctx = Context(cmd, info_name=name)
        for param in cmd.params:
            desc = getattr(param, "type_descriptor", None)
            if desc is None:
                continue
            param._runtime_param = None
            install(param)
            plain = param._runtime_param
            if not isinstance(plain, PlainRuntimeParam):
                continue
            kinds.add(plain.kind)
            typer_own = build_runtime_param(desc)
            for value in _INPUTS[plain.kind]:
                assert outcome(plain, value, param, ctx) == outcome(typer_own, value, param, ctx), (name, param.name, value)
    assert kinds == set(_INPUTS), kinds


def test_no_module_imports_click() -> None:
    """The package depends on Typer, not Click: Typer 0.29 carries its own copy
    (``typer._click``) and installs no ``click``, so ``import click`` anywhere in
    ``liars_dice`` broke ``make play`` in a fresh clone (cli/serve.py imported it
    at start-up: ModuleNotFoundError before the first move)."""
    import ast
    from pathlib import Path

    import liars_dice

    offenders = []
    for path in Path(liars_dice.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            offenders += [f"{path.name}:{node.lineno}" for n in names if n == "click" or n.startswith("click.")]
    assert not offenders, f"'click' is imported (not a dependency; use typer.Context): {offenders}"
