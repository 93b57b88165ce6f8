"""The ``liars-dice`` command (Typer). Each sub-command lives in its own module."""

from __future__ import annotations

from .app import app, main

__all__ = ["app", "main"]
