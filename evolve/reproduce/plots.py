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
