"""Pictures of a run: fitness curves (best, mean and spread per generation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def run_title(config: dict) -> str:
    """The title of a run's fitness plot, from its config as a dict (``Config.as_dict()``,
    or the run folder's ``config.json``): the run and ``python -m evolve.plot`` draw the same."""
    kind = (config.get("agent") or {}).get("kind", "network")
    what = f"{config['network']['encoding']}-based," if kind == "network" else f"{kind} genome,"
    algorithm = ", CMA-ES" if config["evolution"].get("algorithm", "ga") == "cma" else ""
    return (f"{config['experiment']['name']}: {config['experiment']['game']} {what} "
            f"fitness {config['evolution']['fitness']}{algorithm}")


def plot_fitness(logbook: list[dict], path: str | Path, title: str = "") -> Path:
    """Draw best / mean / spread (mean ± sd band, min-max band) per generation to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = np.array([r["gen"] for r in logbook])
    get = lambda k: np.array([r[k] for r in logbook], dtype=float)  # noqa: E731
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    if len(gen):
        ax.fill_between(gen, get("min"), get("max"), color="tab:blue", alpha=0.12, label="min-max")
        ax.fill_between(gen, get("mean") - get("std"), get("mean") + get("std"), color="tab:blue", alpha=0.25, label="mean ± sd")
        ax.plot(gen, get("mean"), color="tab:blue", lw=1.2, label="mean")
        ax.plot(gen, get("max"), color="tab:red", lw=1.2, label="best of generation")
        ax.plot(gen, np.maximum.accumulate(get("max")), color="black", lw=1, ls="--", label="best so far")
        ax2 = ax.twinx()
        ax2.plot(gen, get("mutation"), color="tab:green", lw=0.8, alpha=0.7)
        ax2.set_ylabel("mutation rate m", color="tab:green")
        ax2.set_ylim(0, 1)
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness per round")
    ax.set_title(title or "fitness")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
