"""Draw an arena report: win rates with their 95% intervals (matplotlib, Agg)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def check_plot_path(path: str | Path) -> None:
    """Refuse, before any game is played, an image path :func:`plot_report`
    could not write: a format matplotlib does not draw, or a folder that is
    missing or not writable.

    :raises ValueError: with one sentence naming the problem.
    """
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError("--plot needs the matplotlib package: pip install 'liars-dice-game[arena]'.") from None

    out = Path(path)
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise ValueError(
            f"--plot {path}: the file name must end in an image format matplotlib draws, such as .png, .svg or .pdf"
            f" ({', '.join('.' + f for f in sorted(formats))})."
        )
    folder = out.parent
    if out.is_dir():
        raise ValueError(f"--plot {path} is a folder; give an image file name such as {out / 'arena.png'}.")
    if not folder.is_dir():
        raise ValueError(f"--plot {path}: there is no folder {folder}.")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--plot {path}: the folder {folder} is not writable.")


def plot_report(report: dict[str, Any], path: str | Path, title: str | None = None) -> Path:
    """Write a horizontal bar chart of each bot's win rate with its Wilson 95%
    interval as error bars, and the fair share 1/n as a dashed line.

    :param report: :meth:`ArenaResult.report`'s shape.
    :param path: the image file; its suffix picks the format (``.png``, ``.svg``, ``.pdf``).
    :returns: the path written.
    :raises OSError: when the file cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["bots"])
    rates = [report["bots"][n]["win_rate"] for n in names]
    lo = [r - report["bots"][n]["ci95"][0] for n, r in zip(names, rates)]
    hi = [report["bots"][n]["ci95"][1] - r for n, r in zip(names, rates)]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.6))
    try:
        y = list(range(len(names)))[::-1]
        ax.barh(y, rates, xerr=[lo, hi], capsize=4, color="#4477aa", ecolor="#222222")
        ax.set_yticks(y, names)
        ax.axvline(1 / len(names), linestyle="--", color="#aa3377", label=f"fair share 1/{len(names)}")
        for yi, r in zip(y, rates):
            ax.text(r / 2, yi, f"{r:.1%}", va="center", ha="center", color="white", fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (bars: 95% Wilson interval)")
        ax.set_title(title or f"Arena: {report['games']} games")
        ax.legend(loc="lower right")
        fig.tight_layout()
        out = Path(path)
        fig.savefig(out, dpi=120)
    finally:
        plt.close(fig)
    return out
