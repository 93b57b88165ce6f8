"""docs/server-architecture.md names every module of the server (issue 36,
"Done when": a newcomer finds each module's place from the doc)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_architecture_doc_names_every_server_module() -> None:
    doc = (ROOT / "docs" / "server-architecture.md").read_text(encoding="utf-8")
    server = ROOT / "src" / "liars_dice" / "server"
    missing = [
        f"{ring}/{p.name}" for ring in ("core", "runtime", "edge")
        for p in sorted((server / ring).glob("*.py"))
        if p.name != "__init__.py" and f"`{p.name}`" not in doc
    ]
    assert not missing, f"docs/server-architecture.md does not name {missing}"
