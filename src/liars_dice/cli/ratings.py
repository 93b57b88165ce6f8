"""``liars-dice ratings``: the ratings per rule set of a server's database (issue 18).

    liars-dice ratings rebuild --db sqlite:///liars-dice.db

``rebuild`` recomputes every rating from the stored games, in the order they
finished, exactly as the running server rated them
(:mod:`liars_dice.server.runtime.ratings_store`).
"""

from __future__ import annotations

import sys

import typer

from .app import Command, Group, app

ratings_app = typer.Typer(help="Ratings per rule set: recompute them from the stored games.", no_args_is_help=True, cls=Group)
app.add_typer(ratings_app, name="ratings")


@ratings_app.command("rebuild", cls=Command)
def rebuild_command(
    db: str = typer.Option(
        "sqlite:///liars-dice.db", help="Database URL: sqlite:///FILE or postgresql://USER:PASS@HOST/DB."
    ),
) -> None:
    """Recompute every rating from the stored games, in the order they finished.

    Replaces the ratings and their history in one transaction (the database is
    migrated first). Exits 2 with one sentence when the database cannot be opened.
    """
    try:
        from sqlalchemy.exc import SQLAlchemyError

        from ..server.runtime.db import make_engine, migrate
        from ..server.runtime.ratings_store import rebuild
    except ImportError:  # pragma: no cover - the server extra
        sys.stderr.write("liars-dice ratings needs the server extra: pip install 'liars-dice-game[server]'.\n")
        raise typer.Exit(2) from None
    try:
        engine = make_engine(db)
        migrate(engine)
        done = rebuild(engine)
    except (SQLAlchemyError, ValueError) as e:
        first = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        sys.stderr.write(f"Cannot rebuild the ratings of {db.split('@')[-1]}: {first}.\n")
        raise typer.Exit(2) from None
    engine.dispose()
    sys.stdout.write(f"Rebuilt {done['ratings']} ratings from {done['games']} rated games.\n")
