"""The ``liars-dice`` command (Typer). Each sub-command lives in its own module.

Layer: cli, above server: the entry point to every part below it.
"""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
