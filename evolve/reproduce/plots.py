"""Pictures of a reproduction: the paper's figure and ours with its 95% CI, cell by cell."""

from __future__ import annotations

import math
from pathlib import Path

from evolve.reproduce.cells import Cell


def finish(fig, path: Path, title: str, top: float = 0.93, legend_from=None, bottom: float = 0.08) -> Path:
    """Title the figure, gather the legend of axes ``legend_from`` under the panels (when it
    has entries), lay it out, write it to ``path`` and close it."""
    import matplotlib.pyplot as plt

    handles, labels = legend_from.get_legend_handles_labels() if legend_from is not None else ([], [])
    fig.suptitle(title, fontsize=10)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, bottom if handles else 0, 1, top))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def dots(cells: list[Cell], path: Path, title: str) -> Path:
    """One panel per figure (column and unit): for each row the paper's value (a black
    cross) and ours with its 95% CI (a blue dot and bar), red where they differ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        if c.ours is not None or c.paper is not None:
            panels.setdefault((c.column, c.unit), []).append(c)
    if max((len(v) for v in panels.values()), default=0) > MANY_ROWS:
        return scatter(cells, path, title)      # a dot per row would not fit on a page
    n = max(1, len(panels))
    height = max(2.2, 0.32 * max((len(v) for v in panels.values()), default=1) + 1.3)
    fig, axes = plt.subplots(1, n, figsize=(min(4.2 * n, 16), height), dpi=110, squeeze=False)
    for ax, ((column, unit), group) in zip(axes[0], panels.items()):
        ys = range(len(group))
        for y, c in zip(ys, group):
            colour = "tab:red" if c.verdict == "differs" else "tab:blue"
            if c.ours is not None:
                lo = c.ours - c.low if c.low is not None else 0
                hi = c.high - c.ours if c.high is not None else 0
                ax.errorbar(c.ours, y, xerr=[[lo], [hi]], fmt="o", color=colour, ms=4, capsize=3,
                            label="ours (95% CI)" if y == 0 else None)
            if c.paper is not None:
                ax.plot(c.paper, y, "x", color="black", ms=7, mew=1.8, label="paper" if y == 0 else None)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([c.row for c in group], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{column} ({unit})", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    return finish(fig, path, title, legend_from=axes[0][0])


MANY_ROWS = 60      # beyond this many rows in a panel, ``dots`` draws ``scatter`` instead


def scatter(cells: list[Cell], path: Path, title: str) -> Path:
    """One panel per unit: ours (with its 95% CI) against the paper's figure, red where they
    differ, with the diagonal where they agree; for tables of hundreds of cells, drawn in a
    few calls."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    panels: dict[str, list[Cell]] = {}
    for c in cells:
        if c.ours is not None and c.paper is not None:
            panels.setdefault(c.unit, []).append(c)
    n = max(1, len(panels))
    fig, axes = plt.subplots(1, n, figsize=(min(4.6 * n, 16), 4.4), dpi=110, squeeze=False)
    for ax, (unit, group) in zip(axes[0], panels.items()):
        for differs, colour in ((False, "tab:blue"), (True, "tab:red")):
            sel = [c for c in group if (c.verdict == "differs") == differs]
            if not sel:
                continue
            x = np.array([c.paper for c in sel])
            y = np.array([c.ours for c in sel])
            lo = np.array([c.ours - c.low if c.low is not None else 0.0 for c in sel])
            hi = np.array([c.high - c.ours if c.high is not None else 0.0 for c in sel])
            ax.errorbar(x, y, yerr=[lo, hi], fmt="o", ms=3, color=colour, elinewidth=0.8, capsize=0,
                        label=f"{'differs' if differs else 'reproduced'} ({len(sel)})")
        values = [v for c in group for v in (c.paper, c.ours)]
        span = (min(values), max(values))
        ax.plot(span, span, "k-", lw=0.8, alpha=0.6)
        ax.set_xlabel(f"paper ({unit})", fontsize=8)
        ax.set_ylabel(f"ours, 95% CI ({unit})", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
        ax.grid(alpha=0.3)
    return finish(fig, path, title)


def _scaled(difference: float, bound: float, limit: float) -> float:
    """The difference in units of the bound; an exact cell (bound 0) is 0 or off the scale."""
    if bound > 0:
        return difference / bound
    return 0.0 if difference == 0 else math.copysign(limit, difference)


def verdicts(rows: list[dict], path: Path, title: str, limit: float = 4.0) -> Path:
    """Every compared cell of a document on one axis: one line per table, each cell at its
    difference divided by the largest difference that still counts as reproduced (inside
    the band of +-1: reproduced; outside, in red: differs; clipped at +-``limit``), with
    the table's counts on the right."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tables = list(dict.fromkeys(r["reproduction"] for r in rows if "reproduction" in r))
    height = max(2.5, 0.28 * len(tables) + 1.4)
    fig, ax = plt.subplots(figsize=(9, height), dpi=110)
    ax.axvspan(-1, 1, color="tab:green", alpha=0.12)
    rng = np.random.default_rng(0)          # a fixed jitter, so the picture is the same every run
    for y, key in enumerate(tables):
        mine = [r for r in rows if r.get("reproduction") == key]
        compared = [r for r in mine if r.get("difference") is not None and r.get("bound") is not None]
        scaled = [max(-limit, min(limit, _scaled(r["difference"], r["bound"], limit))) for r in compared]
        colours = ["tab:red" if r["verdict"] == "differs" else "tab:blue" for r in compared]
        ax.scatter(scaled, y + rng.uniform(-0.25, 0.25, len(scaled)), s=9, c=colours, alpha=0.7, linewidths=0)
        tally = {v: sum(1 for r in mine if r["verdict"] == v) for v in ("reproduced", "differs", "not compared")}
        label = "cannot be reproduced" if any(r["verdict"] == "cannot be reproduced" for r in mine) else \
            f"{tally['reproduced']} / {tally['differs']} / {tally['not compared']}"
        ax.text(limit + 0.3, y, label, va="center", fontsize=7)
    ax.set_yticks(range(len(tables)), tables, fontsize=7)
    ax.set_ylim(len(tables) - 0.5, -0.5)
    ax.set_xlim(-limit - 0.2, limit + 2.2)
    ax.set_xticks(range(-int(limit), int(limit) + 1))
    ax.axvline(0, color="k", lw=0.6)
    ax.set_xlabel(f"(ours - paper) / the bound of a reproduction (green band: reproduced; red: differs; clipped at "
                  f"+-{limit:g});\nright: the table's cells reproduced / differing / not compared", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return finish(fig, path, title, top=1 - 0.45 / height)
