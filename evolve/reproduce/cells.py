"""One figure of a paper set beside ours: a *cell*, its kind, its verdict and how it reads.

A cell holds the paper's figure (as its table prints it, in the unit of the cell), our
figure with its 95% confidence interval and sample size, the tolerance the reproduction
states, and a one-line reason. Its verdict:

- ``reproduced``: |ours - paper| <= 1.96 sqrt(se_ours^2 + se_paper^2) + tolerance, where
  se_ours comes from our CI and se_paper from the paper's own sample size where it gives
  one (a rate over 10,001 games has a standard error of its own); the tolerance covers what
  the reproduction states it cannot match (its rounding, a rule it could not pin down);
  where the paper states only a bound ("more than 70%", ``at_least``), ours reproduces it
  when it is not below the bound by more than that margin;
- ``differs``: outside that bound; the reason says why, or that nothing explains it;
- ``not compared``: one side has no figure (the paper's timings on its own machine, a
  figure the paper does not give).

Its kind says what our figure is (``KINDS``):

- ``measured``: our play (games, deals, evolution runs) measured it;
- ``arithmetic``: computed from other figures, not played: a formula of the paper redone,
  our code's own sizes, or sums, differences and ratios of our own cells or of the paper's;
- ``fitted``: a closed form or table fitted to the paper's own figures, set beside them;
- ``certain``: our play shows it, but the rules fix it whatever the play (the right bower
  wins every trick it is played in), so it measures nothing.

Only a measured cell that is reproduced says that our play found what the paper found;
the summaries count the measured cells apart from the others.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields

Z95 = 1.959963984540054
VERDICTS = ("reproduced", "differs", "not compared")
KINDS = ("measured", "arithmetic", "fitted", "certain")
# the JSON keys of the first format of cells.json, read for compatibility
_OLD_KEYS = {"seed": "paper", "seed_se": "paper_se", "seed_sd": "paper_sd"}


@dataclass
class Cell:
    """A paper's figure beside ours (see the module docstring)."""

    table: str                  # the reproduction's key, e.g. "table1"
    row: str                    # e.g. "Random"
    column: str                 # e.g. "games won"
    unit: str                   # e.g. "% of games"
    paper: float | None         # the paper's figure, in ``unit``
    ours: float | None = None
    low: float | None = None    # our 95% CI
    high: float | None = None
    n: int = 0                  # our sample size (games, deals, runs)
    paper_se: float = 0.0       # the paper's standard error, where its sample size gives one
    tolerance: float = 0.0      # what the reproduction states it cannot match
    reason: str = ""            # why it differs (or what is compared), one line
    kind: str = "measured"      # KINDS: what our figure is
    at_least: bool = False      # the paper states only a lower bound ("more than 70%")
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"cell kind {self.kind!r}: expected one of {', '.join(KINDS)}")

    @property
    def difference(self) -> float | None:
        return None if self.paper is None or self.ours is None else self.ours - self.paper

    @property
    def bound(self) -> float | None:
        """The largest difference that still counts as reproduced."""
        if self.ours is None or self.low is None or self.high is None:
            return None
        se = (self.high - self.low) / (2 * Z95)
        return Z95 * math.hypot(se, self.paper_se) + self.tolerance

    @property
    def verdict(self) -> str:
        if self.difference is None or self.bound is None:
            return "not compared"
        if self.at_least:
            return "reproduced" if self.difference >= -self.bound else "differs"
        return "reproduced" if abs(self.difference) <= self.bound else "differs"

    def as_row(self, document: str) -> dict:
        """The JSON row of ``python -m evolve.reproduce --json`` (``at_least`` only where set)."""
        skip = ("low", "high", "extra") + (() if self.at_least else ("at_least",))
        out = {"document": document, **{k: v for k, v in asdict(self).items() if k not in skip}}
        out.update(ci=None if self.low is None else [self.low, self.high], difference=self.difference,
                   bound=self.bound, verdict=self.verdict, **self.extra)
        return out


# keys of a JSON row that are not the cell's own: the reproduction's, and what the cell derives
ROW_KEYS = ("reproduction", "title", "source", "budget", "document", "ci", "difference", "bound", "verdict")


def from_row(row: dict) -> Cell:
    """The cell of a JSON row (``Cell.as_row``); the first format's keys (``seed``,
    ``seed_se``, ``seed_sd``) are read as ``paper``, ``paper_se``, ``paper_sd``."""
    row = {_OLD_KEYS.get(k, k): v for k, v in row.items()}
    names = [f.name for f in fields(Cell) if f.name not in ("low", "high", "extra")]
    ci = row.get("ci")
    extra = {k: v for k, v in row.items() if k not in names and k not in ROW_KEYS}
    return Cell(**{k: row[k] for k in names if k in row}, low=None if ci is None else ci[0],
                high=None if ci is None else ci[1], extra=extra)


def tally(rows: list[dict]) -> dict[str, int]:
    """JSON rows counted by verdict and kind: measured cells reproduced / differing,
    the other kinds' (arithmetic, fitted, certain) reproduced / differing, and every cell
    not compared."""
    out = {"measured reproduced": 0, "measured differs": 0, "computed reproduced": 0, "computed differs": 0,
           "not compared": 0}
    for r in rows:
        verdict = r.get("verdict")
        if verdict == "not compared":
            out["not compared"] += 1
        elif verdict in ("reproduced", "differs"):
            kind = "measured" if r.get("kind", "measured") == "measured" else "computed"
            out[f"{kind} {verdict}"] += 1
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


def paper_text(c: Cell, digits: int = 2) -> str:
    """The paper's figure as the table shows it ("> 70.0" where it states a lower bound)."""
    text = fmt(c.paper, digits)
    return f"> {text}" if c.at_least and text else text


def verdict_text(c: Cell) -> str:
    """The verdict, with the kind of a cell that is not measured ("reproduced (fitted)")."""
    return c.verdict if c.kind == "measured" else f"{c.verdict} ({c.kind})"


def markdown(cells: list[Cell], digits: int = 2) -> str:
    """The cells as a markdown table: row, column, the paper's figure, ours with its CI, the
    difference, the verdict (and kind) and the reason."""
    lines = ["| row | figure | paper | ours [95% CI] | difference | verdict | reason |",
             "|---|---|---|---|---|---|---|"]
    for c in cells:
        diff = "" if c.difference is None else f"{c.difference:+.{digits}f}"
        lines.append(f"| {c.row} | {c.column} ({c.unit}) | {paper_text(c, digits)} | {ours_text(c, digits)} | {diff} | "
                     f"{verdict_text(c)} | {c.reason} |")
    return "\n".join(lines)


def text(cells: list[Cell], digits: int = 2) -> str:
    """The cells as aligned plain text (the terminal's table)."""
    rows = [("row", "figure", "paper", "ours [95% CI]", "difference", "verdict", "reason")]
    for c in cells:
        rows.append((c.row, f"{c.column} ({c.unit})", paper_text(c, digits), ours_text(c, digits),
                     "" if c.difference is None else f"{c.difference:+.{digits}f}", verdict_text(c), c.reason))
    widths = [max(len(r[k]) for r in rows) for k in range(6)]
    return "\n".join("  ".join(r[k].ljust(widths[k]) for k in range(6)) + "  " + r[6] for r in rows).rstrip()
