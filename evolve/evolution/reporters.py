"""Pictures of a run: fitness curves (best, mean and spread per generation)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from evolve.evolution.checkpoint import RunState
from evolve.evolution.config import validation_opponents


def run_title(config: dict) -> str:
    """The title of a run's fitness plot, from its config as a dict (``Config.as_dict()``,
    or the run folder's ``config.json``): the run and ``python -m evolve.plot`` draw the same."""
    kind = (config.get("agent") or {}).get("kind", "network")
    what = f"{config['network']['encoding']}-based," if kind == "network" else f"{kind} genome,"
    algorithm = {"cma": ", CMA-ES", "es": ", ES"}.get(config["evolution"].get("algorithm", "ga"), "")
    return (f"{config['experiment']['name']}: {config['experiment']['game']} {what} "
            f"fitness {config['evolution']['fitness']}{algorithm}")


def validation_label(config: dict) -> str:
    """The legend of the fixed-deal curve, from a run's config (as ``run_title``)."""
    ev = config["evolution"]
    opponent = "+".join(validation_opponents(ev))
    who = "search mean" if ev.get("algorithm", "ga") in ("cma", "es") else "best of generation"
    return f"{who} vs {opponent} on {ev.get('progress_deals', 1000)} fixed deals"


def plot_fitness(logbook: list[dict], path: str | Path, title: str = "", validation_label: str = "") -> Path:
    """Draw best / mean / spread (mean ± sd band, min-max band) per generation to a PNG,
    the generation's best on fixed deals against a fixed opponent with its 95% CI (where
    the logbook has it), the mutation rate or CMA-ES step size on a second axis when it
    changes, and a dotted line where the opponents change (a new stage, a new member of the
    opponent hall). The legend sits below the axes, so it never covers the data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = np.array([r["gen"] for r in logbook])
    get = lambda k: np.array([r[k] for r in logbook], dtype=float)  # noqa: E731
    fig, ax = plt.subplots(figsize=(9, 5.6), dpi=110)
    if len(gen):
        ax.fill_between(gen, get("min"), get("max"), color="tab:blue", alpha=0.12, label="min-max")
        ax.fill_between(
            gen, get("mean") - get("std"), get("mean") + get("std"), color="tab:blue", alpha=0.25, label="mean ± sd"
        )
        ax.plot(gen, get("mean"), color="tab:blue", lw=1.2, label="mean")
        ax.plot(gen, get("max"), color="tab:red", lw=1.2, label="best of generation")
        ax.plot(gen, np.maximum.accumulate(get("max")), color="black", lw=1, ls="--", label="best so far")
        val = [r for r in logbook if "validation" in r]
        if val:
            vg = np.array([r["gen"] for r in val])
            ax.fill_between(vg, [r["validation_low"] for r in val], [r["validation_high"] for r in val],
                            color="tab:purple", alpha=0.25, label="its 95% CI")
            ax.plot(vg, [r["validation"] for r in val], color="tab:purple", lw=1.6, marker="o", ms=2.5,
                    label=validation_label or "best of generation on fixed deals vs a fixed opponent")
        # where a new stage begins (``[[evolution.stages]]``) or the opponent hall grows, the
        # fitness changes meaning: other opponents, another number of tables
        changes = [r for prev, r in zip(logbook, logbook[1:]) if "stage" in r
                   and (r["stage"], r["opponents"]) != (prev.get("stage"), prev.get("opponents"))]
        for k, r in enumerate(changes):
            ax.axvline(r["gen"] - 0.5, color="tab:gray", lw=0.9, ls=":",
                       label="new stage or hall member (other opponents)" if k == 0 else None)
        # the GA's mutation rate or CMA-ES's step size on a right axis, when it moves (ES
        # keeps its sigma fixed, and a flat line there would only take space)
        cma = all("sigma" in r for r in logbook)
        rate = get("sigma") if cma else get("mutation")
        if np.ptp(rate) > 0:
            ax2 = ax.twinx()
            name = "step size sigma" if cma else "mutation rate m"
            ax2.plot(gen, rate, color="tab:green", lw=0.8, alpha=0.7, label=f"{name} (right axis)")
            ax2.set_ylabel(name, color="tab:green")
            ax2.set_ylim(0, max(1.0, float(rate.max())) if not cma else 1.1 * float(rate.max()))
    ax.set_xlabel("generation")
    ax.set_ylabel("fitness per round")
    ax.set_title(title or "fitness")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    for other in fig.axes[1:]:
        h2, l2 = other.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


class Reporter:
    """Hooks called by the run loop (``run`` is the ``evolve.evolution.runner.Evolution``);
    subclasses override what they need."""

    def start(self, run, state: RunState) -> None: ...
    def generation(self, run, state: RunState, record: dict) -> None: ...
    def end(self, run, state: RunState) -> None: ...
    def interrupted(self, run, state: RunState) -> None:
        """The run was interrupted (default: as at the end, without the final work)."""


class ProgressReporter(Reporter):
    """Each generation's best and mean fitness (and the GA's mutation rate or CMA-ES's step
    size): a bar on a terminal, a plain line every few seconds otherwise
    (``evolve.core.progress``)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.bar = None
        self.validation = None      # the last fixed-deal figure of the generation's best

    def start(self, run, state):
        from evolve.core.progress import Progress

        total = max(run.config.evolution["generations"], state.generation)
        self.bar = Progress(total, f"{run.config.name}: evolving", "gen", initial=state.generation,
                            enabled=self.enabled)

    def generation(self, run, state, record):
        if self.bar is None:
            return
        target = max(run.config.evolution["generations"], state.best_generation + run.config.evolution["patience"] + 1)
        self.bar.set_total(min(target, run.config.evolution["max_generations"]))
        if "validation" in record:
            self.validation = record["validation"]
        extra = {} if self.validation is None else {"val": f"{self.validation:.3f}"}
        # the GA's mutation rate, CMA-ES's step size; ES keeps its sigma fixed: nothing to show
        algorithm = run.config.evolution["algorithm"]
        if algorithm == "cma":
            extra["sigma"] = f"{record['sigma']:.3g}"
        elif algorithm == "ga":
            extra["m"] = f"{record['mutation']:.2f}"
        self.bar.update(1, best=f"{record['max']:.3f}", mean=f"{record['mean']:.3f}", hof=f"{state.hof_fitness:.3f}",
                        **extra)

    def end(self, run, state):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def interrupted(self, run, state):
        self.end(run, state)


class CheckpointReporter(Reporter):
    """Atomic checkpoint (plus logbook.json) after generations divisible by ``every``, at
    least ``seconds`` apart, and at the end. An interrupted run saves on its way out (see
    ``Evolution.run``), so a kill -9 loses at most about ``seconds`` of work."""

    def __init__(self, every: int = 1, seconds: float = 30.0):
        self.every = every
        self.seconds = seconds
        self.last = time.monotonic()

    def start(self, run, state):
        self.last = time.monotonic()

    def generation(self, run, state, record):
        if state.generation % self.every == 0 and time.monotonic() - self.last >= self.seconds:
            run.save(state)
            self.last = time.monotonic()

    def end(self, run, state):
        run.save(state)


class PlotReporter(Reporter):
    """Redraws the fitness curves every ``every`` generations and at the end."""

    def __init__(self, every: int = 25):
        self.every = every

    def generation(self, run, state, record):
        if state.generation % self.every == 0:
            run.plot(state)

    def end(self, run, state):
        run.plot(state)
