"""The optional extras the integrations need, and the error a missing one gives.

Each integration module imports its framework (Gymnasium, PettingZoo, OpenSpiel,
TextArena) inside :func:`needs`, so a user without the extra reads which extra
to install rather than a bare ``No module named ...`` traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def needs(extra: str, importer: str) -> Iterator[None]:
    """Imports made inside the block belong to the extra ``extra`` of the package.

    :param extra: the extra's name in ``pyproject.toml`` (``"gymnasium"``, ``"pettingzoo"``, ...).
    :param importer: the importing module's ``__name__``, named in the message.
    :raises ModuleNotFoundError: when an import in the block finds no module:
        one sentence naming the module, the extra and the install command; its
        ``name`` is the missing module's, as the original error's.
    """
    try:
        yield
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{importer} needs the '{extra}' extra, and the module {e.name or 'it needs'} is not installed: "
            f"pip install 'liars-dice-game[{extra}]' (in a checkout, .venv/bin/pip install -e '.[{extra}]').",
            name=e.name,
        ) from e
