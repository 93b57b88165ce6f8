"""Draw an arena report: win rates with their 95% intervals (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def check_plot_path(path: str | Path) -> None:
    """Refuse, before any game is played, an image path :func:`plot_report`
    could not write: a format matplotlib does not draw, or a path
    :func:`~liars_dice.records.writing.output_path_problem` refuses.

    :raises ValueError: with one sentence naming the problem.
    """
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError("--plot needs the 'arena' extra (matplotlib): pip install 'liars-dice-game[arena]', or in a clone .venv/bin/pip install -e '.[arena]'.") from None

    from ..records.writing import output_path_problem

    out = Path(path)
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise ValueError(
            f"--plot {path}: the file name must end in an image format matplotlib draws, such as .png, .svg or .pdf"
            f" ({', '.join('.' + f for f in sorted(formats))})."
        )
    problem = output_path_problem("--plot", out, "arena.png")
    if problem is not None:
        raise ValueError(problem)


#: Bar and text colours.
BAR, DARK = "#4477aa", "#222222"
#: A label's width in axis units (win rate 0..1), generously: "100.0%" at 9 pt on the 7-inch figure.
LABEL_WIDTH = 0.09
#: Labels sit a little above the bar's centre line, clear of the error bar.
LABEL_LIFT = 0.22


def label_place(rate: float, upper: float, fair: float) -> tuple[float, str, str]:
    """Where a bar's percentage goes: ``(x, horizontal alignment, colour)``.

    Right of the interval's upper end in dark text (a bar of 0.0% has no blue
    to print white on); inside the bar's end in white when there is no room on
    the right. Either way the label's extent (:data:`LABEL_WIDTH`) is moved off
    the fair-share line at ``fair``.
    """
    gap = 0.015
    if upper + gap + LABEL_WIDTH <= 1.0:  # right of the interval, dark on the white background
        x, ha, color = upper + gap, "left", DARK
        if x <= fair <= x + LABEL_WIDTH:
            x = fair + gap  # fair <= 1/2, so this still fits
        return x, ha, color
    if rate - gap - LABEL_WIDTH < 0:  # a short bar with a very wide interval: dark, on its white box
        x = 1.0 - LABEL_WIDTH
        return (x if not x <= fair <= x + LABEL_WIDTH else fair + gap), "left", DARK
    x, ha, color = rate - gap, "right", "white"  # inside the bar's end, white on blue
    if x - LABEL_WIDTH <= fair <= x:
        x = fair - gap  # still inside the bar: fair <= 1/2 < rate here
    return x, ha, color


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
        ax.barh(y, rates, xerr=[lo, hi], capsize=4, color=BAR, ecolor=DARK)
        ax.set_yticks(y, names)
        ax.axvline(1 / len(names), linestyle="--", color="#aa3377", label=f"fair share 1/{len(names)}")
        fair = 1 / len(names)
        for yi, r, h in zip(y, rates, hi):
            x, ha, color = label_place(r, r + h, fair)
            ax.text(x, yi + LABEL_LIFT, f"{r:.1%}", va="center", ha=ha, color=color, fontsize=9,
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white" if color == DARK else BAR, "linewidth": 0})
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
