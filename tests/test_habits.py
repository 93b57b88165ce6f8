"""Habits enforced where they cannot be skipped (issue 8): checks over the
source text of src/liars_dice that no review should have to repeat."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "liars_dice"
FILES = sorted(SRC.rglob("*.py"))

_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def _ignores_without_reason(text: str) -> list[int]:
    """Lines with a ``# type: ignore`` that names no error code or gives no reason after it."""
    bad = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _IGNORE.search(line)
        if m and (not m.group("codes") or not re.match(r"\s*#\s*\S", m.group("rest"))):
            bad.append(n)
    return bad


def test_the_ignore_check_can_fail() -> None:
    assert _ignores_without_reason("x = f()  # type: ignore\ny = g()  # type: ignore[misc]\n") == [1, 2]
    assert _ignores_without_reason("x = f()  # type: ignore[misc]  # numpy's stub is wrong here\n") == []


def _ratchet() -> list[str]:
    """Modules ``pyproject.toml`` still lets off ``mypy --strict`` (``ignore_errors``)."""
    import tomllib

    mypy = tomllib.loads((SRC.parent.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    return [m for o in mypy.get("overrides", []) if o.get("ignore_errors") for m in o["module"]]


def test_the_mypy_ratchet_only_shrinks() -> None:
    """The list of modules not yet clean under ``mypy --strict`` never grows past
    the 8 it holds after the merge of 2026-11-30, and names only modules that exist."""
    names = _ratchet()
    assert len(names) <= 8
    for name in names:
        rel = Path(*name.split("."))
        assert (SRC.parent / rel).with_suffix(".py").exists() or (SRC.parent / rel / "__init__.py").exists(), name


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_every_type_ignore_says_why(path: Path) -> None:
    """``mypy --strict`` runs in ``make test``; an ignore names its code and a reason
    (modules on the ratchet list are checked once they leave it)."""
    if _module(path) in _ratchet():
        return
    bad = _ignores_without_reason(path.read_text(encoding="utf-8"))
    assert not bad, f"{path.name}: '# type: ignore' without '[code]  # reason' on lines {bad}"


def _loggers(tree: ast.AST) -> list[tuple[int, str]]:
    """``getLogger`` calls whose argument is not ``__name__``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "getLogger":
            if not (len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == "__name__"):
                out.append((node.lineno, ast.unparse(node)))
    return out


def test_the_logger_check_can_fail() -> None:
    bad = _loggers(ast.parse('import logging\nlog = logging.getLogger("liars_dice.server")\nok = logging.getLogger(__name__)'))
    assert [n for n, _ in bad] == [2]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_loggers_are_named_for_their_module(path: Path) -> None:
    """``logging.getLogger(__name__)`` everywhere: a logger per module, configurable by package."""
    assert not _loggers(ast.parse(path.read_text(encoding="utf-8")))


def _module(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _private_imports_across_packages(name: str, path: Path) -> list[str]:
    """``from <another package> import _private`` in module ``name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        if not source.startswith("liars_dice"):
            continue
        own = package.split(".")[:2]
        if source.split(".")[:2] == own:
            continue
        out += [f"line {node.lineno}: {a.name} from {source}" for a in node.names if a.name.startswith("_")]
    return out


def test_the_private_import_check_can_fail(tmp_path: Path) -> None:
    fake = tmp_path / "liars_dice" / "protocol" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..records.schema import BidModel, _Strict\nfrom .messages import _Name\n")
    assert _private_imports_across_packages("liars_dice.protocol.bad", fake) == ["line 1: _Strict from liars_dice.records.schema"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_private_name_is_imported_from_another_package(path: Path) -> None:
    assert not _private_imports_across_packages(_module(path), path)


ROOT = SRC.parent.parent


def test_readme_opens_with_the_two_commands_then_a_python_example() -> None:
    """The README opens with exactly ``make play`` and ``make test``; under them a
    Python example that the doctests run (as python-chess's README opens)."""
    import doctest

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first.splitlines()] == ["make play", "make test"]
    assert text.index("```sh") < text.index("```python") < text.index("## Commands")
    examples = doctest.DocTestParser().get_examples(text)
    assert len(examples) >= 5


def test_doctests_run_in_the_test_suite() -> None:
    """``pytest`` (and so ``make test``) collects the docstring examples of src/ and the README's."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert {"tests", "src", "README.md"} <= set(options["testpaths"])
    assert "--doctest-modules" in options["addopts"] and "--doctest-glob=README.md" in options["addopts"]


def test_make_test_runs_mypy_strict() -> None:
    import tomllib

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "-m mypy" in recipe and "-m pytest" in recipe
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy["strict"] is True and mypy["files"] == ["src/liars_dice"]


def test_ci_runs_make_test_the_whole_suite_with_the_rl_extra() -> None:
    """``make test`` (the README's command, which ``.ci/run`` calls) runs the whole
    suite, the tests marked slow included (the two selections cover every test:
    the unit and server tests in parallel, then the browser and slow ones one at
    a time); ``make test-fast`` leaves the slow ones out for
    quick rounds. ``.ci/run`` installs the ``rl`` extra first, with PyTorch's CPU
    build pinned before it, and makes a missing sb3-contrib fail the example's
    tests (issue 19: CI runs them for real)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    test = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    fast = makefile.split("\ntest-fast:", 1)[1].split("\n\n", 1)[0]
    assert "-m 'not slow and not browser' $(ARGS)" in test and "-n 0 -m 'slow or browser' $(ARGS)" in test, test
    assert "-m 'not slow'" in fast
    rl = makefile.split("\n$(VENV)/.installed-rl:", 1)[1].split("\n\n", 1)[0]
    assert rl.index("$(TORCH)") < rl.index(".[dev,rl]") and "TORCH ?= torch==" in makefile
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert ci.index("make install-rl") < ci.index("export LIARS_DICE_TEST_RL=1") < ci.index("make test")
    assert ci[-1] == "make test"
