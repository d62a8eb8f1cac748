"""Pictures of a reproduction: the seed's figure and ours with its 95% CI, cell by cell."""

from __future__ import annotations

from pathlib import Path

from evolve.reproduce.cells import Cell


def dots(cells: list[Cell], path: Path, title: str) -> Path:
    """One panel per figure (column and unit): for each row the seed's value (a black
    cross) and ours with its 95% CI (a blue dot and bar), red where they differ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        if c.ours is not None or c.seed is not None:
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
            if c.seed is not None:
                ax.plot(c.seed, y, "x", color="black", ms=7, mew=1.8, label="seed" if y == 0 else None)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([c.row for c in group], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{column} ({unit})", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle(title, fontsize=10)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08 if handles else 0, 1, 0.93))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


MANY_ROWS = 60      # beyond this many rows in a panel, ``dots`` draws ``scatter`` instead


def scatter(cells: list[Cell], path: Path, title: str) -> Path:
    """One panel per unit: ours (with its 95% CI) against the seed's figure, red where they
    differ, with the diagonal where they agree; for tables of hundreds of cells, drawn in a
    few calls."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    panels: dict[str, list[Cell]] = {}
    for c in cells:
        if c.ours is not None and c.seed is not None:
            panels.setdefault(c.unit, []).append(c)
    n = max(1, len(panels))
    fig, axes = plt.subplots(1, n, figsize=(min(4.6 * n, 16), 4.4), dpi=110, squeeze=False)
    for ax, (unit, group) in zip(axes[0], panels.items()):
        for differs, colour in ((False, "tab:blue"), (True, "tab:red")):
            sel = [c for c in group if (c.verdict == "differs") == differs]
            if not sel:
                continue
            x = np.array([c.seed for c in sel])
            y = np.array([c.ours for c in sel])
            lo = np.array([c.ours - c.low if c.low is not None else 0.0 for c in sel])
            hi = np.array([c.high - c.ours if c.high is not None else 0.0 for c in sel])
            ax.errorbar(x, y, yerr=[lo, hi], fmt="o", ms=3, color=colour, elinewidth=0.8, capsize=0,
                        label=f"{'differs' if differs else 'reproduced'} ({len(sel)})")
        values = [v for c in group for v in (c.seed, c.ours)]
        span = (min(values), max(values))
        ax.plot(span, span, "k-", lw=0.8, alpha=0.6)
        ax.set_xlabel(f"seed ({unit})", fontsize=8)
        ax.set_ylabel(f"ours, 95% CI ({unit})", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
