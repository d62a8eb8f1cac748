"""Statistics for honest benchmarking (``docs/explanation/statistics.md``): confidence intervals, t
tests, Wilson intervals, normal tails, and the signed differences with verdicts that every
comparison prints. Pure numpy and the standard library, no SciPy."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

_NORMAL = NormalDist()


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t (Cornish-Fisher expansion around the normal; relative error
    below 1e-3 for df >= 3, exact in the limit)."""
    z = _NORMAL.inv_cdf(p)
    if not math.isfinite(df) or df > 1e7:
        return z
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def t_sf(t: float, df: float) -> float:
    """Upper tail P(T > t), by the normal approximation of Student's t after the
    variance-stabilising transform of Bailey (accurate to ~1e-3 for df >= 5)."""
    if not math.isfinite(df) or df > 1e7:
        return 1 - _NORMAL.cdf(t)
    z = t * (1 - 1 / (4 * df)) / math.sqrt(1 + t * t / (2 * df))
    return 1 - _NORMAL.cdf(z)


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its confidence interval from the observed spread."""

    mean: float
    low: float
    high: float
    sd: float
    n: int
    level: float = 0.95

    def __str__(self) -> str:
        return f"{self.mean:.4g} [{self.low:.4g}, {self.high:.4g}]"

    def as_dict(self) -> dict:
        return asdict(self)


def mean_ci(values, level: float = 0.95) -> MeanCI:
    """Mean of ``values`` with a two-sided t confidence interval."""
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        return MeanCI(float("nan"), float("nan"), float("nan"), float("nan"), 0, level)
    m = float(x.mean())
    if n == 1:
        return MeanCI(m, float("nan"), float("nan"), float("nan"), 1, level)
    sd = float(x.std(ddof=1))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return MeanCI(m, m - half, m + half, sd, n, level)


def ratio_ci(part, total, level: float = 0.95) -> MeanCI:
    """sum(part) / sum(total) over paired values (a side's share of all the points of many
    deals) with a confidence interval by the delta method; ``sd`` is that of the per-pair
    residuals part - ratio x total, over the mean total (the spread of one pair's share)."""
    part = np.asarray(part, np.float64).ravel()
    total = np.asarray(total, np.float64).ravel()
    n = part.size
    if n == 0 or total.sum() == 0:
        return MeanCI(float("nan"), float("nan"), float("nan"), float("nan"), n, level)
    r = float(part.sum() / total.sum())
    if n == 1:
        return MeanCI(r, float("nan"), float("nan"), float("nan"), 1, level)
    sd = float((part - r * total).std(ddof=1) / total.mean())
    half = _NORMAL.inv_cdf(0.5 + level / 2) * sd / math.sqrt(n)
    return MeanCI(r, r - half, r + half, sd, n, level)


@dataclass(frozen=True)
class TestResult:
    """A one-sample (or paired) t test against ``mu0``."""

    __test__ = False  # not a pytest class

    statistic: float
    p_value: float
    mu0: float
    n: int


def one_sample_t(values, mu0: float) -> TestResult:
    """Two-sided one-sample t test of mean(values) = mu0."""
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    sd = x.std(ddof=1) if n > 1 else float("nan")
    if n < 2 or sd == 0:
        same = n > 0 and float(x.mean()) == mu0
        return TestResult(0.0 if same else float("inf"), 1.0 if same else 0.0, mu0, n)
    t = (x.mean() - mu0) / (sd / math.sqrt(n))
    return TestResult(float(t), float(min(1.0, 2 * t_sf(abs(t), n - 1))), mu0, n)


def paired_difference(a, b, level: float = 0.95) -> tuple[MeanCI, TestResult]:
    """Mean paired difference a - b (same deals, seats exchanged) with its CI and t test."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return mean_ci(d, level), one_sample_t(d, 0.0)


def welch_difference(a, b, level: float = 0.95) -> dict:
    """Mean difference mean(a) - mean(b) of two independent samples with its Welch t
    confidence interval and two-sided p-value: ``{"mean", "low", "high", "p"}``."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    d = float(x.mean() - y.mean())
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = math.sqrt(vx + vy)
    if se == 0:
        return {"mean": d, "low": d, "high": d, "p": 1.0 if d == 0 else 0.0}
    df = (vx + vy) ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
    half = t_quantile(0.5 + level / 2, df) * se
    return {"mean": d, "low": d - half, "high": d + half, "p": float(min(1.0, 2 * t_sf(abs(d) / se, df)))}


def wilson(successes: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """Proportion with its Wilson score interval: (p, low, high)."""
    if n == 0:
        return float("nan"), 0.0, 1.0
    z = _NORMAL.inv_cdf(0.5 + level / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def normal_tail(x: float, mean: float, sd: float) -> float:
    """1 - Phi((x - mean) / sd): the upper tail of a normal distribution."""
    return 1 - _NORMAL.cdf((x - mean) / sd)


def format_ci(ci: dict, digits: int = 3) -> str:
    """``mean [low, high]`` of a confidence-interval dict, ``digits`` decimals."""
    return f"{ci['mean']:.{digits}f} [{ci['low']:.{digits}f}, {ci['high']:.{digits}f}]"


#: significance level of every printed verdict (the intervals are 95%)
ALPHA = 0.05
#: smallest p-value worth printing: the tail 1 - Phi(z) is computed in double precision,
#: so anything smaller (including an exact 0) is only known to be below it
P_FLOOR = 1e-16


def format_p(p: float | None) -> str:
    """A p-value for print: three significant digits (``0.03``, ``0.000123``), ``< 1e-16``
    below the resolution of the computation (never ``0``), ``n/a`` when undefined."""
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < P_FLOOR:
        return f"< {P_FLOOR:g}"
    return f"{p:.3g}"


def p_clause(p: float | None) -> str:
    """``p = 0.03`` or ``p < 1e-16``: a p-value as a phrase."""
    text = format_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def verdict(difference: dict) -> str:
    """``better``, ``no different`` or ``worse``: whether the 95% confidence interval of a
    signed difference (higher is better, unless ``difference["lower_is_better"]``: points
    taken in Hearts) lies above zero, contains it, or lies below it, which is the
    two-sided t test at ``ALPHA``. An undefined interval (fewer than two observations)
    cannot show a difference: ``no different``."""
    low, high = difference["low"], difference["high"]
    if difference.get("lower_is_better"):
        low, high = -high, -low
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return "no different"
    if low > 0:
        return "better"
    if high < 0:
        return "worse"
    return "no different"


def signed_ci(ci: dict, digits: int = 3) -> str:
    """``+0.123 [+0.050, +0.196]``: a signed difference with its confidence interval."""
    return f"{ci['mean']:+.{digits}f} [{ci['low']:+.{digits}f}, {ci['high']:+.{digits}f}]"


def format_comparison(difference: dict, p: float | None, digits: int = 3) -> str:
    """One comparison as printed everywhere: the signed difference (higher is better) with
    its 95% CI, the t test's p-value and the verdict, e.g.
    ``+0.210 [+0.020, +0.400], p = 0.03: better``."""
    return f"{signed_ci(difference, digits)}, {p_clause(p)}: {verdict(difference)}"


def negated(ci: dict) -> dict:
    """The interval of minus the figure, with lower now better (a Hearts hand score, which
    is minus the points taken, shown as points)."""
    return {**ci, "mean": -ci["mean"], "low": -ci["high"], "high": -ci["low"],
            "lower_is_better": not ci.get("lower_is_better", False)}


def shifted(ci: dict, reference: float) -> dict:
    """The confidence interval of ``mean - reference`` (a one-sample comparison)."""
    return {"mean": ci["mean"] - reference, "low": ci["low"] - reference, "high": ci["high"] - reference}
