"""One figure of a source document set beside ours: a *cell*, its verdict and how it reads.

A cell holds the seed's figure (as its table prints it, in the unit of the cell), our
figure with its 95% confidence interval and sample size, the tolerance the reproduction
states, and a one-line reason. Its verdict:

- ``reproduced``: |ours - seed| <= 1.96 sqrt(se_ours^2 + se_seed^2) + tolerance, where
  se_ours comes from our CI and se_seed from the seed's own sample size where it gives one
  (a rate over 10,001 games has a standard error of its own); the tolerance covers what the
  reproduction states it cannot match (its rounding, a rule it could not pin down);
- ``differs``: outside that bound; the reason says why, or that nothing explains it;
- ``not compared``: one side has no figure (the seed's timings on its own machine, a figure
  the seed does not give).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

Z95 = 1.959963984540054
VERDICTS = ("reproduced", "differs", "not compared")


@dataclass
class Cell:
    """A seed's figure beside ours (see the module docstring)."""

    table: str                  # the reproduction's key, e.g. "table1"
    row: str                    # e.g. "Random"
    column: str                 # e.g. "games won"
    unit: str                   # e.g. "% of games"
    seed: float | None          # the seed's figure, in ``unit``
    ours: float | None = None
    low: float | None = None    # our 95% CI
    high: float | None = None
    n: int = 0                  # our sample size (games, deals, runs)
    seed_se: float = 0.0        # the seed's standard error, where its sample size gives one
    tolerance: float = 0.0      # what the reproduction states it cannot match
    reason: str = ""            # why it differs (or what is compared), one line
    extra: dict = field(default_factory=dict)

    @property
    def difference(self) -> float | None:
        return None if self.seed is None or self.ours is None else self.ours - self.seed

    @property
    def bound(self) -> float | None:
        """The largest difference that still counts as reproduced."""
        if self.ours is None or self.low is None or self.high is None:
            return None
        se = (self.high - self.low) / (2 * Z95)
        return Z95 * math.hypot(se, self.seed_se) + self.tolerance

    @property
    def verdict(self) -> str:
        if self.difference is None or self.bound is None:
            return "not compared"
        return "reproduced" if abs(self.difference) <= self.bound else "differs"

    def as_row(self, document: str) -> dict:
        """The JSON row of ``python -m evolve.reproduce --json``."""
        out = {"document": document, **{k: v for k, v in asdict(self).items() if k not in ("low", "high", "extra")}}
        out.update(ci=None if self.low is None else [self.low, self.high], difference=self.difference,
                   bound=self.bound, verdict=self.verdict, **self.extra)
        return out


def proportion(successes: int, n: int) -> tuple[float, float, float]:
    """A rate in percent with its Wilson 95% interval."""
    from evolve.core.stats import wilson

    rate, low, high = wilson(int(successes), int(n))
    # at 0 or n successes the interval's end can miss the rate by a rounding error
    return 100 * rate, 100 * min(low, rate), 100 * max(high, rate)


def proportion_se(percent: float, n: int) -> float:
    """The standard error, in percentage points, of a rate of ``percent`` over ``n`` trials."""
    p = percent / 100
    return 100 * math.sqrt(max(p * (1 - p), 0.0) / n) if n else 0.0


def fmt(x: float | None, digits: int = 2) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def ours_text(c: Cell, digits: int = 2) -> str:
    if c.ours is None:
        return ""
    return f"{fmt(c.ours, digits)} [{fmt(c.low, digits)}, {fmt(c.high, digits)}]" if c.low is not None else \
        fmt(c.ours, digits)


def markdown(cells: list[Cell], digits: int = 2) -> str:
    """The cells as a markdown table: row, column, the seed's figure, ours with its CI, the
    difference, the verdict and the reason."""
    lines = ["| row | figure | seed | ours [95% CI] | difference | verdict | reason |", "|---|---|---|---|---|---|---|"]
    for c in cells:
        diff = "" if c.difference is None else f"{c.difference:+.{digits}f}"
        lines.append(f"| {c.row} | {c.column} ({c.unit}) | {fmt(c.seed, digits)} | {ours_text(c, digits)} | {diff} | "
                     f"{c.verdict} | {c.reason} |")
    return "\n".join(lines)


def text(cells: list[Cell], digits: int = 2) -> str:
    """The cells as aligned plain text (the terminal's table)."""
    rows = [("row", "figure", "seed", "ours [95% CI]", "difference", "verdict", "reason")]
    for c in cells:
        rows.append((c.row, f"{c.column} ({c.unit})", fmt(c.seed, digits), ours_text(c, digits),
                     "" if c.difference is None else f"{c.difference:+.{digits}f}", c.verdict, c.reason))
    widths = [max(len(r[k]) for r in rows) for k in range(6)]
    return "\n".join("  ".join(r[k].ljust(widths[k]) for k in range(6)) + "  " + r[6] for r in rows).rstrip()
