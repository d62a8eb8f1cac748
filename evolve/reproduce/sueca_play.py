"""The Sueca thesis's units of work: lineups played on the study setup, deals built as its
Chapter 4 builds them, and each unit's statistics (``evolve.reproduce.sueca`` sets them
beside the thesis's tables).

Every deal is played with ``setup = "study"`` (trump the suit of a uniformly random card of
the deck, seat 0 leads; the thesis's Chapter 4 and Section 8.2). Seats in play order are
N, W, S, E (the thesis plays counter-clockwise: its Table 7.20 has N lead and S play third).

A unit plays ``n`` deals of seed ``SEED`` in blocks on the worker processes; deal ``i`` is a
pure function of ``(SEED, i)`` (and of the deck block ``i // DECK_BLOCK`` when the decks are
built here), so a unit's result does not depend on the workers. It returns sufficient
statistics, additive over blocks: the histogram of N-S's card points and, for the
control-variate mean (``summary``), the sums of six covariates whose expectations are
known exactly, their cross products and their products with the points.

Covariates. Trump is the suit of a uniformly random card, independent of the hands, so for
any hands the expected number of N-S trumps is 5, N's 2.5, and the expected trump points
of a hand are a quarter of its points: ``NS trumps - 5``, ``NS trump points - NS points / 4``,
``N trumps - 2.5``, ``N trump points - N points / 4`` have mean 0 whatever the decks. On
uniformly random deals ``NS points - 60`` and ``N points - 30`` also have mean 0. The mean
adjusted by a regression on them (``summary``) is the plain mean's expectation with about
half its variance (R^2 about 0.55 on these deals); the decks that fix the trump suit by
rejection (``trumps:``, ``nine:``) use the plain mean.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

SEED = 0
SETUP = "study"
FAMILIES = ("rules", "search", "perfect")      # one engine for every lineup
DECK_BLOCK = 4096
N_COV = 6
CONDITIONAL_COV = 4                            # the covariates valid on any decks
SCORES = 121                                   # N-S card points 0..120
_FACE_POINTS = np.array([0, 0, 0, 0, 0, 10, 3, 2, 4, 11])
CARD_POINTS = _FACE_POINTS[np.arange(40) % 10]
FACES = {"Two": 0, "Ace": 9}                   # face indices of the Table 4.5 cards


# ----------------------------------------------------------------------------- decks


def _shuffled(rng, m: int, cards: np.ndarray) -> np.ndarray:
    """``m`` rows, each a random permutation of ``cards``."""
    return cards[np.argsort(rng.random((m, len(cards))), axis=1)]


def _assemble(m: int, by_seat: dict[int, np.ndarray]) -> np.ndarray:
    """Decks [m, 40] from each seat's ten cards (seat s at positions 10 s .. 10 s + 9)."""
    deck = np.zeros((m, 40), np.int64)
    for seat, cards in by_seat.items():
        deck[:, 10 * seat:10 * seat + 10] = cards
    return deck


def _split(rng, m: int, cards: np.ndarray, seats: tuple[int, ...], deck: dict[int, np.ndarray]) -> None:
    """Deal the cards of each row (10 per seat) to ``seats`` at random."""
    mixed = cards[np.arange(m)[:, None], np.argsort(rng.random(cards.shape), axis=1)]
    for k, seat in enumerate(seats):
        deck[seat] = mixed[:, 10 * k:10 * k + 10]


def _trump_decks(rng, m: int, holders: tuple[int, ...], k: int) -> np.ndarray:
    """Uniform deals in which the seats ``holders`` hold exactly ``k`` clubs together."""
    clubs, others = _shuffled(rng, m, np.arange(10)), _shuffled(rng, m, np.arange(10, 40))
    mine = 10 * len(holders) - k
    deck: dict[int, np.ndarray] = {}
    _split(rng, m, np.concatenate([clubs[:, :k], others[:, :mine]], axis=1), holders, deck)
    rest = tuple(s for s in range(4) if s not in holders)
    _split(rng, m, np.concatenate([clubs[:, k:], others[:, mine:]], axis=1), rest, deck)
    return _assemble(m, deck)


def _nine_decks(rng, m: int, face: int) -> np.ndarray:
    """N holds the nine clubs other than ``face`` and one random non-club; the rest uniform."""
    clubs = np.array([c for c in range(10) if c != face])
    others = _shuffled(rng, m, np.arange(10, 40))
    deck: dict[int, np.ndarray] = {0: np.concatenate([np.tile(clubs, (m, 1)), others[:, :1]], axis=1)}
    rest = np.concatenate([np.full((m, 1), face), others[:, 1:]], axis=1)
    _split(rng, m, rest, (1, 2, 3), deck)
    return _assemble(m, deck)


def _subset_counts(values: np.ndarray) -> np.ndarray:
    """f[i, c, s]: subsets of ``values[i:]`` with c elements summing to s."""
    n, top = len(values), int(values.sum())
    f = np.zeros((n + 1, n + 1, top + 1))
    f[n, 0, 0] = 1.0
    for i in range(n - 1, -1, -1):
        f[i] = f[i + 1]
        v = int(values[i])
        f[i, 1:, v:] += f[i + 1, :-1, :top + 1 - v]
    return f


_POINT_CARDS = np.array([c for c in range(40) if CARD_POINTS[c] > 0])
_ZERO_CARDS = np.array([c for c in range(40) if CARD_POINTS[c] == 0])
_SUBSETS = _subset_counts(CARD_POINTS[_POINT_CARDS])


def _points_decks(rng, m: int, lo: int, hi: int) -> np.ndarray:
    """Uniform deals in which N-S hold between ``lo`` and ``hi`` card points (both
    included, as the thesis's bins): N-S's twenty cards are c of the twenty point cards
    with a sum in range (drawn with the exact count of such subsets) and 20 - c of the
    twenty zero cards, split at random between N and S; the rest go to W and E."""
    f = _SUBSETS
    n_point = len(_POINT_CARDS)
    ways = np.array([[f[0, c, s] * math.comb(n_point, 20 - c) if lo <= s <= hi else 0.0
                      for s in range(f.shape[2])] for c in range(21)])
    flat = ways.ravel() / ways.sum()
    pick = rng.choice(flat.size, size=m, p=flat)
    c_left, s_left = pick // f.shape[2], pick % f.shape[2]
    take = np.zeros((m, n_point), bool)
    for i in range(n_point):            # walk the point cards, taking each with its exact odds
        v = int(CARD_POINTS[_POINT_CARDS[i]])
        total = f[i, c_left, s_left]
        can = (c_left > 0) & (s_left >= v)
        with_it = np.where(can, f[i + 1, np.maximum(c_left - 1, 0), np.maximum(s_left - v, 0)], 0.0)
        yes = rng.random(m) * total < with_it
        take[:, i] = yes
        c_left = c_left - yes
        s_left = s_left - v * yes
    cards = np.concatenate([np.tile(_POINT_CARDS, (m, 1)), _shuffled(rng, m, _ZERO_CARDS)], axis=1)
    mine = np.concatenate([take, np.arange(20)[None, :] < 20 - take.sum(axis=1)[:, None]], axis=1)
    ns, ew = cards[mine].reshape(m, 20), cards[~mine].reshape(m, 20)
    deck: dict[int, np.ndarray] = {}
    _split(rng, m, ns, (0, 2), deck)
    _split(rng, m, ew, (1, 3), deck)
    return _assemble(m, deck)


def build_decks(spec: str, start: int, stop: int) -> np.ndarray | None:
    """The decks of deals ``start .. stop - 1`` for a deck ``spec`` (None: the engine's own
    uniformly shuffled deals): ``points:LO:HI`` (N-S hold LO..HI points), ``trumps:N:K`` /
    ``trumps:NS:K`` (N, or N and S together, hold K clubs), ``nine:Two`` / ``nine:Ace`` (N
    holds the nine clubs but that one). Built per block of ``DECK_BLOCK`` deals from a
    stream of ``(SEED, spec, block)``."""
    if not spec:
        return None
    kind, *args = spec.split(":")
    blocks = []
    for b in range(start // DECK_BLOCK, (stop - 1) // DECK_BLOCK + 1):
        rng = np.random.default_rng([SEED, zlib.crc32(spec.encode()), b])
        if kind == "points":
            blocks.append(_points_decks(rng, DECK_BLOCK, int(args[0]), int(args[1])))
        elif kind == "trumps":
            blocks.append(_trump_decks(rng, DECK_BLOCK, (0,) if args[0] == "N" else (0, 2), int(args[1])))
        elif kind == "nine":
            blocks.append(_nine_decks(rng, DECK_BLOCK, FACES[args[0]]))
        else:
            raise ValueError(f"unknown deck spec {spec!r}")
    decks = np.concatenate(blocks)
    first = (start // DECK_BLOCK) * DECK_BLOCK
    return decks[start - first:stop - first]


def fixes_trump(spec: str) -> bool:
    """Decks built around clubs: only the deals the engine gives clubs trump count (the
    random trump card is a club a quarter of the time, whatever the deck, so keeping them
    does not bias the hands)."""
    return spec.startswith(("trumps:", "nine:"))


# ----------------------------------------------------------------------------- playing


def play_lineup(seats: list[str], start: int, stop: int, decks: str = "", record: bool = False):
    """Deals ``start .. stop - 1`` of seed ``SEED`` with ``seats`` (play order N, W, S, E)."""
    from evolve.runtime.play import play

    return play("sueca", seats, stop - start, seed=SEED, start=start, decks=build_decks(decks, start, stop),
                record=record, engine_families=FAMILIES, setup=SETUP)


def covariates(hands: np.ndarray, trump: np.ndarray) -> np.ndarray:
    """The six covariates of each deal (see the module docstring), [n, N_COV]."""
    is_trump = (hands // 10) == trump[:, None, None]
    pts = CARD_POINTS[hands]
    ns = [0, 2]
    return np.column_stack([
        is_trump[:, ns].sum(axis=(1, 2)) - 5.0,
        (pts * is_trump)[:, ns].sum(axis=(1, 2)) - pts[:, ns].sum(axis=(1, 2)) / 4.0,
        is_trump[:, 0].sum(axis=1) - 2.5,
        (pts * is_trump)[:, 0].sum(axis=1) - pts[:, 0].sum(axis=1) / 4.0,
        pts[:, ns].sum(axis=(1, 2)) - 60.0,
        pts[:, 0].sum(axis=1) - 30.0,
    ]).astype(np.float64)


def sums(y: np.ndarray, x: np.ndarray, keep: bool = False) -> dict:
    """Additive statistics of N-S's points ``y`` with covariates ``x`` (``keep``: the deals too)."""
    y = np.asarray(y, np.float64)
    out = {"n": int(len(y)), "hist": np.bincount(y.astype(np.int64), minlength=SCORES).tolist(),
           "sx": x.sum(axis=0).tolist(), "sxx": (x.T @ x).tolist(), "sxy": (x.T @ y).tolist()}
    if keep:
        out.update(y=y.astype(int).tolist(), x=x.tolist())
    return out


def merge(parts: list[dict]) -> dict:
    """The statistics of several blocks added up (kept deals concatenated in order)."""
    out = {"n": sum(p["n"] for p in parts)}
    for key in ("hist", "sx", "sxx", "sxy"):
        out[key] = np.sum([np.asarray(p[key], np.float64) for p in parts], axis=0).tolist()
    if parts and "y" in parts[0]:
        out["y"] = [v for p in parts for v in p["y"]]
        out["x"] = [v for p in parts for v in p["x"]]
    return out


def lineup_block(seats: list[str], start: int, stop: int, decks: str, keep: bool) -> dict:
    """One block of a lineup unit: its statistics (only deals with clubs trump for the
    decks that fix it)."""
    r = play_lineup(seats, start, stop, decks)
    y, x = r.points[:, 0], covariates(r.hands, r.trump)
    if fixes_trump(decks):
        ok = r.trump == 0
        y, x = y[ok], x[ok]
    return sums(y, x, keep)


def summary(stats: dict, n_cov: int) -> dict:
    """Mean of N-S's points (adjusted by the first ``n_cov`` covariates; 0: the plain mean)
    with its standard error, the sd with its standard error, and the extremes."""
    n = int(stats["n"])
    hist = np.asarray(stats["hist"], np.float64)
    v = np.arange(len(hist), dtype=np.float64)
    if n == 0:
        return {"n": 0, "mean": math.nan, "se": math.nan, "sd": math.nan, "sd_se": math.nan, "raw": math.nan,
                "min": None, "max": None}
    raw = float(hist @ v) / n
    m2 = float(hist @ (v - raw) ** 2) / n
    m4 = float(hist @ (v - raw) ** 4) / n
    sd = math.sqrt(m2 * n / max(n - 1, 1))
    out = {"n": n, "raw": raw, "sd": sd, "min": int(np.nonzero(hist)[0][0]), "max": int(np.nonzero(hist)[0][-1]),
           "sd_se": math.sqrt(max(m4 - m2 * m2, 0.0) / n) / (2 * sd) if sd > 0 else 0.0}
    k = n_cov
    if k == 0 or n < 20 * (k + 1):
        out.update(mean=raw, se=sd / math.sqrt(n))
        return out
    sx = np.asarray(stats["sx"])[:k]
    cxx = np.asarray(stats["sxx"])[:k, :k] - np.outer(sx, sx) / n
    cxy = np.asarray(stats["sxy"])[:k] - sx * raw
    b = np.linalg.lstsq(cxx, cxy, rcond=None)[0]
    rss = max(n * m2 - float(b @ cxy), 0.0)
    out.update(mean=raw - float(b @ sx) / n, se=math.sqrt(rss / (n - k - 1) / n))
    return out


def prefix(stats: dict, n: int) -> dict:
    """The statistics of the first ``n`` kept deals of a unit."""
    y = np.asarray(stats["y"][:n], np.float64)
    return sums(y, np.asarray(stats["x"][:n], np.float64).reshape(len(y), N_COV))


def share(stats: dict, lo: int, hi: int) -> tuple[int, int]:
    """Deals with N-S's points in ``lo .. hi`` and all deals."""
    hist = np.asarray(stats["hist"])
    return int(hist[lo:hi + 1].sum()), int(stats["n"])


# ----------------------------------------------------------------------------- Table 4.3


def dealer_block(start: int, stop: int) -> dict:
    """Random play on uniform deals, reweighted for trump from the dealer's first card.

    The thesis's trump is the suit of the dealer's first card: suit s with probability
    (the dealer's cards of s) / 10; ours is a uniformly random card's suit, s with
    probability 1/4 whatever the hands. Weighting each deal by 0.4 x (the dealer's trumps)
    gives the thesis's expectations exactly (leader N, random play); per dealer seat the
    weighted sums of the dealer's side's points."""
    r = play_lineup(["random"] * 4, start, stop)
    ns = r.points[:, 0].astype(np.float64)
    out = {}
    for dealer in range(4):
        w = 0.4 * ((r.hands[:, dealer] // 10) == r.trump[:, None]).sum(axis=1)
        y = ns if dealer % 2 == 0 else 120.0 - ns
        out[str(dealer)] = [float(w.sum()), float((w * y).sum()), float((w * w).sum()), float((w * w * y).sum()),
                            float((w * w * y * y).sum())]
    out["n"] = int(len(ns))
    return out


def ratio(sw: float, swy: float, sww: float, swwy: float, swwyy: float) -> tuple[float, float]:
    """The weighted mean sum(w y) / sum(w) and its delta-method standard error."""
    r = swy / sw
    var = (swwyy - 2 * r * swwy + r * r * sww) / sw ** 2
    return r, math.sqrt(max(var, 0.0))


# ----------------------------------------------------------------------------- Tables 6.4, 6.5


MAX_SHUFFLES = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 250, 500)
FIGURE_MAX = 100            # Figures 6.6 and 6.7: the rate by round and by prohibited suits


def _multinomial(total: int, parts: list[int]) -> int:
    out, left = 1, total
    for k in parts:
        out *= math.comb(left, k)
        left -= k
    return out


def accept_rates(rules, mode, seat, hand, pub) -> tuple[float, float, int]:
    """The chance that one shuffle of the thesis's MC gives a deal consistent with what
    ``seat`` knows (its Section 6.2: the unseen cards dealt at random to the other three
    seats, rejected if a seat gets a suit it has shown it lacks), the same for its "new
    way" (cards of a suit two seats lack go straight to the third), and how many suits the
    other seats have shown they lack."""
    from evolve.agents.search.determinize import count_deals
    from evolve.games.state import PLAYED_BY, VOIDS

    played = [int(pub[PLAYED_BY + s]) for s in range(4)]
    known = int(hand)
    for m in played:
        known |= m
    others = [s for s in range(4) if s != seat]
    sizes = [10 - bin(played[s]).count("1") for s in others]
    unseen = [c for c in range(40) if not (known >> c) & 1]
    consistent = count_deals(rules, mode, seat, hand, pub)
    voids = [int(pub[VOIDS + s]) & 15 for s in others]
    left = sizes[:]
    for suit in range(4):
        lacking = [k for k in range(3) if (voids[k] >> suit) & 1]
        if len(lacking) == 2:
            left[3 - sum(lacking)] -= sum(1 for c in unseen if c // 10 == suit)
    regular = consistent / _multinomial(len(unseen), sizes)
    new = consistent / _multinomial(sum(left), left)
    return regular, new, sum(bin(v).count("1") for v in voids)


def truth_block(seats: list[str], start: int, stop: int, mc_seat: int = 0) -> dict:
    """Per deal, the thesis's expected share of MC playouts that take the true hands
    ("the truth"), for each maximal number of shuffles N, regular and new way: a playout
    falls back after N rejected shuffles, with chance (1 - p)^N; a decision with L legal
    cards runs L times as many playouts (one legal card: no shuffle, Section 6.1.1)."""
    from evolve.games.registry import make_game
    from evolve.games.state import TRICK
    from evolve.games.stepper import replay_decisions

    g = make_game("sueca", setup=SETUP)
    r = play_lineup(seats, start, stop, record=True)
    n_max = np.array(MAX_SHUFFLES, np.float64)
    weight = np.zeros(r.n_deals)
    regular = np.zeros((r.n_deals, len(n_max)))
    new = np.zeros((r.n_deals, len(n_max)))
    by_round = np.zeros(10)
    by_missing = np.zeros(13)
    truth = np.zeros(r.n_deals)             # per deal: the truth at FIGURE_MAX, and the part with 2 or 3 missing suits
    truth23 = np.zeros(r.n_deals)
    for i in range(r.n_deals):
        for seat, hand, legal, mode, pub, _card in replay_decisions(g, r, i):
            n_legal = bin(int(legal)).count("1")
            if seat == mc_seat and n_legal > 1:
                p_reg, p_new, missing = accept_rates(g.rules, mode, seat, hand, pub)
                weight[i] += n_legal
                regular[i] += n_legal * (1.0 - p_reg) ** n_max
                new[i] += n_legal * (1.0 - p_new) ** n_max
                q = n_legal * (1.0 - p_reg) ** FIGURE_MAX
                by_round[int(pub[TRICK])] += q
                by_missing[missing] += q
                truth[i] += q
                truth23[i] += q if missing in (2, 3) else 0.0
    return {"n": int(r.n_deals), "weight": weight.tolist(), "regular": regular.tolist(), "new": new.tolist(),
            "by_round": by_round.tolist(), "by_missing": by_missing.tolist(), "truth": truth.tolist(),
            "truth23": truth23.tolist()}


def truth_rates(parts: list[dict]) -> dict:
    """Pooled over deals: the truth rates in % with standard errors (a ratio of sums over
    deals, delta method), the shares of the truth by round and by prohibited suits, and
    the share with two or three prohibited suits with its standard error (the same ratio)."""
    w = np.concatenate([np.asarray(p["weight"]) for p in parts])
    out = {"n": int(len(w))}
    for way in ("regular", "new"):
        a = np.concatenate([np.asarray(p[way]).reshape(len(p["weight"]), len(MAX_SHUFFLES)) for p in parts])
        rate = a.sum(axis=0) / w.sum()
        resid = a - rate[None, :] * w[:, None]
        se = np.sqrt((resid ** 2).sum(axis=0)) / w.sum()
        out[way] = (100 * rate).tolist()
        out[way + "_se"] = (100 * se).tolist()
    for key in ("by_round", "by_missing"):
        total = np.sum([np.asarray(p[key]) for p in parts], axis=0)
        out[key] = (100 * total / max(total.sum(), 1e-300)).tolist()
    t = np.concatenate([np.asarray(p["truth"]) for p in parts])
    t23 = np.concatenate([np.asarray(p["truth23"]) for p in parts])
    share = t23.sum() / max(t.sum(), 1e-300)
    out["two_or_three"] = 100 * share
    out["two_or_three_se"] = 100 * math.sqrt(((t23 - share * t) ** 2).sum()) / max(t.sum(), 1e-300)
    return out


# ----------------------------------------------------------------------------- running units


def blocks(n: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges of at most ``size`` deals covering ``0 .. n - 1``."""
    return [(a, min(a + size, n)) for a in range(0, n, size)]


def run_blocks(fn, tasks: list[tuple], workers: int) -> list:
    """``fn(*task)`` for every task, on ``workers`` processes (0: every core) when there is
    more than one task."""
    from evolve.core.cores import resolve_workers
    from evolve.core.pool import map_ordered

    return list(map_ordered(fn, tasks, resolve_workers(workers) if len(tasks) > 1 else 1))
