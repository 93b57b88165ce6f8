"""Publishable (issue 8 "Publishable"): a distribution name PyPI accepts, the
version from one place, metadata, and a wheel and sdist that pass
``twine check --strict``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from trove_classifiers import classifiers as KNOWN_CLASSIFIERS

import liars_dice

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
DIST = PROJECT["name"]

_spec = importlib.util.spec_from_file_location("check_pypi_name", ROOT / "scripts" / "check_pypi_name.py")
assert _spec is not None and _spec.loader is not None
check_pypi_name = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_pypi_name)
ultranormalize = check_pypi_name.ultranormalize

#: Existing PyPI projects whose folded names ours must not share (checked live with
#: ``python scripts/check_pypi_name.py liars-dice-game``: none of its 108 spellings is taken).
EXISTING = ["LiarsDice"]


def test_the_folding_rule() -> None:
    """PyPI's rule (warehouse ``ultranormalize_name``): drop ``. _ -``, fold
    ``l L i I`` to ``1`` and ``o O`` to ``0``, lower-case; a new name that folds like
    an existing project's is "too similar" and refused."""
    assert ultranormalize("liars-dice") == ultranormalize("LiarsDice") == "11arsd1ce"
    assert ultranormalize("l10n") == ultranormalize("lion")  # warehouse issue 11139
    assert ultranormalize("Liars_Dice.Game") == ultranormalize("1iarsdicegame")
    assert ultranormalize("liars-dice") != ultranormalize("liars-dice-game")


def test_the_distribution_name_does_not_fold_like_an_existing_project() -> None:
    assert DIST == "liars-dice-game"
    assert all(ultranormalize(DIST) != ultranormalize(name) for name in EXISTING)


def test_every_spelling_checked_folds_like_the_name() -> None:
    """The live check asks PyPI for each joined/hyphenated, look-alike spelling."""
    spellings = check_pypi_name.spellings(DIST)
    assert {"liars-dice-game", "liarsdicegame", "1iars-d1ce-game", "liarsdice-game"} <= set(spellings)
    assert len(spellings) == len(set(spellings)) == 4 * 3**3  # 2 word joins, 3 look-alike letters
    assert {ultranormalize(s) for s in spellings} == {ultranormalize(DIST)}


def test_import_name_and_command_stay() -> None:
    assert PROJECT["scripts"] == {"liars-dice": "liars_dice.cli:main"}
    assert importlib.metadata.distribution(DIST).read_text("top_level.txt") in (None, "liars_dice\n")
    assert liars_dice.__name__ == "liars_dice"


def test_the_version_comes_from_one_place() -> None:
    """``liars_dice.__version__`` is written once; the metadata reads it."""
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "liars_dice.__version__"}
    assert importlib.metadata.version(DIST) == liars_dice.__version__


def test_metadata() -> None:
    assert PROJECT["keywords"] and PROJECT["urls"]
    unknown = [c for c in PROJECT["classifiers"] if c not in KNOWN_CLASSIFIERS]
    assert not unknown, f"not PyPI classifiers: {unknown}"
    assert "Typing :: Typed" in PROJECT["classifiers"] and (ROOT / "src" / "liars_dice" / "py.typed").exists()


@pytest.mark.slow
def test_wheel_and_sdist_build_and_pass_twine_check(tmp_path: Path) -> None:
    """``python -m build`` then ``twine check --strict`` (what PyPI's upload would check)."""
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    version = liars_dice.__version__
    wheel = tmp_path / f"liars_dice_game-{version}-py3-none-any.whl"
    sdist = tmp_path / f"liars_dice_game-{version}.tar.gz"
    assert wheel.exists() and sdist.exists(), sorted(p.name for p in tmp_path.iterdir())
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True, text=True, timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(f"liars_dice_game-{version}.dist-info/METADATA").decode()
        entry_points = z.read(f"liars_dice_game-{version}.dist-info/entry_points.txt").decode()
    assert f"Name: {DIST}\n" in meta and f"Version: {version}\n" in meta
    assert "liars-dice = liars_dice.cli:main" in entry_points
    for needed in ("liars_dice/py.typed", "liars_dice/data/likelihood.json", "liars_dice/server/static/index.html"):
        assert needed in names


def test_the_version_is_written_nowhere_else() -> None:
    """No second copy to fall out of step: the version's text appears in
    ``liars_dice/__init__.py`` only (``liars-dice --version`` reads ``__version__``)."""
    version = liars_dice.__version__
    holders = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "src").rglob("*"))
        if p.suffix in {".py", ".toml", ".json", ".cfg", ".txt", ".js", ".html"} and f'"{version}"' in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert holders == ["src/liars_dice/__init__.py"]
    assert f'"{version}"' not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


_INSTALL_HINT = re.compile(r"pip install (?:-e )?'([^'\[]*)\[([a-z,]+)\]'")


def test_every_install_hint_names_this_distribution_and_its_extras() -> None:
    """Each ``pip install '...[extra]'`` in src/, docs/ and the README installs
    this distribution (or ``.`` in a clone) with extras that pyproject.toml
    defines: a hint naming ``liars-dice[ray]`` installed nothing (that is
    another project's name)."""
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "src").rglob("*.py"))]
    hints = [(f.relative_to(ROOT), m.groups()) for f in files for m in _INSTALL_HINT.finditer(f.read_text(encoding="utf-8"))]
    assert len(hints) >= 6, hints  # the arena, plot, Ray, server and TextArena hints at least
    for where, (name, wanted) in hints:
        assert name in {DIST, "."}, f"{where}: pip install {name!r} is not this distribution ({DIST})"
        for extra in wanted.split(","):
            assert extra in extras, f"{where}: the extra {extra!r} is not in pyproject.toml"
