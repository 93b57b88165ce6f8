"""Check a distribution name against PyPI's "too similar" rule, on the live index.

PyPI refuses a new project whose name folds to the same string as an existing
project's. Warehouse folds with ``ultranormalize_name`` (the SQL function of
``warehouse/migrations``): drop ``.``, ``_`` and ``-``; map ``l``, ``L``,
``i``, ``I`` to ``1`` and ``o``, ``O`` to ``0``; lower-case. So ``liars-dice``
folds like the existing ``liarsdice``, and is refused.

PyPI does not publish a lookup by folded name, so this script asks the simple
index (``https://pypi.org/simple/<name>/``, which applies PEP 503
normalization itself) for every spelling that folds like the candidate: each
word boundary joined or hyphenated (PEP 503 makes ``-``, ``_``, ``.`` and runs
of them equivalent), and each confusable letter as any of its look-alikes.
Separators inside a word (``li-ars``) are not tried. Exit status 0 when no
spelling is taken.

Usage::

    python scripts/check_pypi_name.py liars-dice-game
"""

from __future__ import annotations

import itertools
import re
import sys
import time
import urllib.error
import urllib.request

#: Look-alike classes of warehouse's ``ultranormalize_name``.
CONFUSABLE = {"l": "l1i", "i": "il1", "1": "1li", "o": "o0", "0": "0o"}


def ultranormalize(name: str) -> str:
    """Fold *name* the way PyPI's ``ultranormalize_name`` does.

    >>> ultranormalize("liars-dice") == ultranormalize("LiarsDice") == "11arsd1ce"
    True
    """
    name = re.sub(r"[._-]", "", name)
    name = re.sub(r"[lLiI]", "1", name)
    return re.sub(r"[oO]", "0", name).lower()


def spellings(name: str) -> list[str]:
    """Every spelling of *name* that folds like it: word joins x look-alike letters.

    >>> len(spellings("ab-cd")), spellings("ab-cd")[:2]
    (2, ['ab-cd', 'abcd'])
    """
    words = re.split(r"[._-]+", name.lower())
    out: list[str] = []
    for joins in itertools.product(("-", ""), repeat=len(words) - 1):
        joined = words[0] + "".join(j + w for j, w in zip(joins, words[1:]))
        for letters in itertools.product(*(CONFUSABLE.get(c, c) for c in joined)):
            spelling = "".join(letters)
            if spelling not in out:
                out.append(spelling)
    return out


def taken(name: str) -> bool:
    """Whether PyPI's simple index lists a project under *name* (PEP 503-normalized)."""
    try:
        with urllib.request.urlopen(f"https://pypi.org/simple/{name}/", timeout=20) as reply:
            return bool(reply.status == 200)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return False
        raise


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    (candidate,) = argv
    variants = spellings(candidate)
    print(f"{candidate!r} folds to {ultranormalize(candidate)!r}; asking PyPI for {len(variants)} spellings")
    clashes = []
    for spelling in variants:
        assert ultranormalize(spelling) == ultranormalize(candidate)
        if taken(spelling):
            clashes.append(spelling)
            print(f"  taken: {spelling}")
        time.sleep(0.2)  # gentle on the index
    if clashes:
        print(f"{candidate!r} would be refused: too similar to {', '.join(clashes)}.")
        return 1
    print(f"{candidate!r}: none of the {len(variants)} spellings is taken on PyPI.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
