"""Benchmarks: ``python -m evolve.bench engine [--json] [--deals N] [--games spades,jass]``.

``decisions`` times one decision through ``evolve.agent`` (``evolve.bench.decisions``).

``engine`` measures random-play rounds (deals) per second for each game:

- **1 core**: the Numba batch kernel ``play_batch`` timed alone (records preallocated, so
  no Python allocation noise), and the end-to-end ``evolve.play`` call;
- **W workers** (default 2): joblib/loky processes, each running ``play_batch`` on its share
  of the deals (workers warmed first, so compiling / loading the Numba cache is not
  timed); speed-up against the 1-core kernel figure;
- **peers**, when installed: OpenSpiel's C++ random game loop (``pyspiel.evaluate_bots``
  with uniform random bots) for the games OpenSpiel has (``GameInfo.openspiel``: Spades,
  Euchre, Hearts), and jass-kit's ``GameSim`` loop for
  Jass; the ratio ours (1-core kernel) / peer, with the targets
  Spades >= 1,000,000 rounds/s and >= 25x OpenSpiel, Jass >= 300x jass-kit;
- **first-call latency**: time to the first result in a fresh process, twice (the second
  start must load the Numba cache rather than compile again).

Every timing is the best of ``--repeats`` (default 3) after a warm-up; the number of deals
is chosen so one timing lasts about ``--seconds`` (default 1.5) unless ``--deals`` is given.

BLAS threads: numpy's OpenBLAS worker threads can spin and steal CPU on a small machine,
so the bench wants ``OPENBLAS_NUM_THREADS=1`` (and OMP/MKL) set *before* numpy is loaded.
``python -m evolve.bench`` imports the ``evolve`` package (hence numpy) before this module
runs, so when the variables are missing the ``__main__`` entry re-executes the interpreter
once with them set. loky workers get them from joblib (it passes ``cpu_count // n_jobs``,
or the parent's value, to its workers) and from the inherited environment.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any, Callable, Sequence

import numpy as np  # noqa: E402

from evolve.games.registry import GAMES

THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_REEXEC_FLAG = "EVOLVE_BENCH_REEXEC"

# as the process was started (the re-exec below needs to know what was missing)
_ORIGINAL_ENV = {var: os.environ[var] for var in THREAD_VARS if var in os.environ}

# Loky workers and latency subprocesses inherit these (no effect on an already loaded BLAS).
for _var in THREAD_VARS:
    os.environ.setdefault(_var, "1")

ENGINE_GAMES = tuple(GAMES)        # every registered game
SPADES_TARGET_RATE = 1_000_000
SPADES_TARGET_RATIO = 25.0
JASS_TARGET_RATIO = 300.0
# per game: (figure, label, threshold); "rate" = 1-core rounds/s, "peer" = ours / the peer engine
TARGETS = {
    "spades": (("rate", "spades 1-core rounds/s", SPADES_TARGET_RATE),
               ("peer", "spades ours/OpenSpiel", SPADES_TARGET_RATIO)),
    "jass": (("peer", "jass ours/jass-kit", JASS_TARGET_RATIO),),
}


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _best(times: Sequence[float]) -> float:
    return min(times)


class _Kernel:
    """A game's packed inputs and a preallocated record for ``n`` deals."""

    def __init__(self, game_name: str, n: int):
        from evolve.agents.registry import pack_seats, parse_seats
        from evolve.games.card_play import new_record, record_shape
        from evolve.games.registry import make_game

        self.game = make_game(game_name)
        self.kinds, self.params = pack_seats(parse_seats("random", self.game))
        info = self.game.info
        self.n = n
        self.rec = new_record(n, *record_shape(info), False)
        self.work = np.zeros(1, np.float64)
        self.dealers = (np.arange(n) % 4).astype(np.int64)
        self.empty = np.zeros((0, info.n_cards), np.int64)

    def run(self, seed: int, start: int, n: int | None = None) -> float:
        """Play ``n`` (default all) deals; return the elapsed seconds."""
        from evolve.games.bits import seed_key
        from evolve.runtime.batch import play_batch

        n = self.n if n is None else n
        key = seed_key(seed)
        g = self.game
        t = time.perf_counter()
        play_batch(
            g.rules,
            self.kinds[None, :],
            max(n, 1),
            self.params,
            key,
            start,
            n,
            self.empty,
            self.dealers,
            self.rec,
            self.work,
        )
        return time.perf_counter() - t


def _calibrate(time_fn: Callable[[int], float], pilot: int, seconds: float, lo: int, hi: int) -> int:
    """Number of items so that one timing lasts about ``seconds``: time ``pilot`` items,
    doubling until the pilot lasts at least 0.1 s (or reaches ``hi``), and scale."""
    k = pilot
    while True:
        dt = time_fn(k)
        if dt >= 0.1 or k >= hi:
            break
        k = min(hi, k * 2)
    if dt <= 0:
        return hi
    return max(lo, min(hi, int(k / dt * seconds)))


def bench_one_core(game_name: str, n: int | None, seconds: float, repeats: int, seed: int) -> dict:
    _Kernel(game_name, 100).run(seed, 0)  # compile or load the cache
    if n is None:
        n = _calibrate(lambda k: _Kernel(game_name, k).run(seed, 0), 10_000, seconds, 1_000, 50_000_000)
    k = _Kernel(game_name, n)
    k.run(seed, 0)  # touch the record's pages
    times = [k.run(seed, 0) for _ in range(repeats)]
    best = _best(times)
    return {"deals": n, "rounds_per_s": n / best, "seconds": best, "times": times}


def bench_end_to_end(game_name: str, n: int, repeats: int, seed: int) -> dict:
    from evolve.runtime.play import play

    play(game_name, "random", 100, seed)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        play(game_name, "random", n, seed)
        times.append(time.perf_counter() - t)
    best = _best(times)
    return {"deals": n, "rounds_per_s": n / best, "seconds": best, "times": times}


_WORKER_KERNELS: dict[tuple[str, int], _Kernel] = {}


def _worker_warm(game_name: str, hold: float) -> int:
    """Load the engine in a worker; hold it a moment so the next task goes elsewhere."""
    k = _Kernel(game_name, 100)
    k.run(0, 0)
    time.sleep(hold)
    return os.getpid()


def _worker_run(game_name: str, seed: int, start: int, n: int) -> tuple[int, float]:
    k = _WORKER_KERNELS.get((game_name, n))
    if k is None:
        _WORKER_KERNELS.clear()
        k = _WORKER_KERNELS[(game_name, n)] = _Kernel(game_name, n)
    return os.getpid(), k.run(seed, start)


def bench_workers(game_name: str, n: int, workers: int, repeats: int, seed: int) -> dict:
    from joblib import Parallel, delayed

    shares = [n // workers + (1 if w < n % workers else 0) for w in range(workers)]
    starts = np.concatenate([[0], np.cumsum(shares)[:-1]]).astype(int).tolist()
    with Parallel(n_jobs=workers, backend="loky", batch_size=1) as par:
        pids: set[int] = set()
        for _ in range(10):
            pids |= set(par(delayed(_worker_warm)(game_name, 0.3) for _ in range(workers)))
            if len(pids) >= workers:
                break
        times, kernel_times = [], []
        # one untimed pass allocates and touches each worker's record
        for rep in range(repeats + 1):
            t = time.perf_counter()
            out = par(delayed(_worker_run)(game_name, seed, s, m) for s, m in zip(starts, shares))
            dt = time.perf_counter() - t
            if rep:
                times.append(dt)
                kernel_times.append(max(sec for _, sec in out))
        used = len({pid for pid, _ in out})
    best = _best(times)
    return {
        "workers": workers,
        "deals": n,
        "rounds_per_s": n / best,
        "seconds": best,
        "times": times,
        "kernel_rounds_per_s": n / _best(kernel_times),
        "processes_used": used,
    }


def _shutdown_workers() -> None:
    try:
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    except Exception:  # pragma: no cover - best effort
        pass


def _openspiel_runner(game_name: str, seed: int):
    import pyspiel

    game = pyspiel.load_game(game_name)
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(game.num_players())]

    def run(n: int, offset: int = 0) -> float:
        t = time.perf_counter()
        for i in range(n):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + offset + i)
        return time.perf_counter() - t

    return run


def _jasskit_runner(seed: int):
    from jass.game.game_sim import GameSim
    from jass.game.game_util import deal_random_hand
    from jass.game.rule_schieber import RuleSchieber

    rule = RuleSchieber()
    sim = GameSim(rule=rule)
    rng = np.random.default_rng(seed)

    def run(n: int) -> float:
        t = time.perf_counter()
        for i in range(n):
            sim.init_from_cards(deal_random_hand(), dealer=i % 4)
            sim.action_trump(int(rng.integers(6)))
            while not sim.is_done():
                sim.action_play_card(int(rng.choice(np.flatnonzero(rule.get_valid_cards_from_state(sim.state)))))
        return time.perf_counter() - t

    return run


# the games OpenSpiel has: our name -> OpenSpiel's (``GameInfo.openspiel``)
OPENSPIEL_GAMES = {name: info.openspiel for name, info in GAMES.items() if info.openspiel}
PEERS: dict[str, tuple[str, Callable[[int], Any], int]] = {
    # game: (label, runner factory(seed), pilot size)
    **{name: (f"OpenSpiel {spiel} (C++ evaluate_bots, uniform random)",
              lambda s, spiel=spiel: _openspiel_runner(spiel, s), 500) for name, spiel in OPENSPIEL_GAMES.items()},
    "jass": ("jass-kit GameSim (RuleSchieber, random)", _jasskit_runner, 100),
}


def bench_peer(game_name: str, n_cap: int | None, seconds: float, repeats: int, seed: int) -> dict | None:
    spec = PEERS.get(game_name)
    if spec is None:
        return None
    label, factory, pilot = spec
    try:
        run = factory(seed)
    except ImportError as e:
        return {"name": label, "installed": False, "error": str(e)}
    run(min(pilot, 20))  # warm up
    n = _calibrate(run, pilot, seconds, 50, 10_000_000)
    if n_cap is not None:
        n = max(1, min(n, n_cap))
    times = [run(n) for _ in range(repeats)]
    best = _best(times)
    return {"name": label, "installed": True, "rounds": n, "rounds_per_s": n / best, "seconds": best, "times": times}

_LATENCY_CODE = r"""
import json, sys, time
t0 = time.perf_counter()
from numba.core import event
with event.install_recorder("numba:compile") as compiles:  # fires on real compiles only
    import evolve
    play = evolve.play        # the lazy façade imports the engine and the agents here
    t1 = time.perf_counter()
    play(sys.argv[1], "random", 1000, 0)
    t2 = time.perf_counter()
n = sum(1 for _, ev in compiles.buffer if ev.is_start)
print(json.dumps({"import_s": t1 - t0, "first_play_s": t2 - t1, "compiled": n}))
"""


def bench_latency(game_name: str, runs: int = 2) -> list[dict]:
    out = []
    env = dict(os.environ)
    for var in THREAD_VARS:
        env.setdefault(var, "1")
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", _LATENCY_CODE, game_name], capture_output=True, text=True, env=env)
        total = time.perf_counter() - t
        if p.returncode != 0:
            err = (p.stderr.strip().splitlines() or ["?"])[-1]
            out.append({"total_s": total, "error": err})
            continue
        row = json.loads(p.stdout.strip().splitlines()[-1])
        row["total_s"] = total
        out.append(row)
    return out


def _target(name: str, value: float | None, threshold: float) -> dict:
    ok = None if value is None else bool(value >= threshold)
    return {"name": name, "value": value, "threshold": threshold, "pass": ok}


def run_engine(args: argparse.Namespace) -> dict:
    games = args.games
    load_start = _loadavg()
    busy0, own0, wall0 = _busy_seconds(), _own_seconds(), time.perf_counter()
    result: dict[str, Any] = {
        "bench": "engine",
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "numpy": np.__version__,
            "numba": _version("numba"),
        },
        "env": {var: os.environ.get(var) for var in THREAD_VARS},
        "settings": {
            "deals": args.deals,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "workers": args.workers,
            "seed": args.seed,
            "peers": not args.no_peers,
        },
        "games": {},
    }
    if not args.no_latency:
        _progress(f"first-call latency ({games[0]}, fresh process x2) ...")
        result["first_call_latency"] = bench_latency(games[0])
    for name in games:
        _progress(f"{name}: 1 core ...")
        one = bench_one_core(name, args.deals, args.seconds, args.repeats, args.seed)
        n = one["deals"]
        _progress(f"{name}: end to end ({n:,} deals) ...")
        e2e = bench_end_to_end(name, n, args.repeats, args.seed)
        row: dict[str, Any] = {"deals": n, "one_core": one, "end_to_end": e2e}
        if args.workers > 1:
            _progress(f"{name}: {args.workers} workers ...")
            par = bench_workers(name, n, args.workers, args.repeats, args.seed)
            par["speedup"] = par["rounds_per_s"] / one["rounds_per_s"]
            row["parallel"] = par
        else:
            row["parallel"] = None
        peer = None
        if not args.no_peers and name in PEERS:
            _progress(f"{name}: peer ...")
            peer = bench_peer(name, args.deals, args.seconds, args.repeats, args.seed)
            if peer and peer.get("installed"):
                peer["ratio"] = one["rounds_per_s"] / peer["rounds_per_s"]
                peer["ratio_end_to_end"] = e2e["rounds_per_s"] / peer["rounds_per_s"]
        row["peer"] = peer
        ratio = peer.get("ratio") if peer else None
        figures = {"rate": one["rounds_per_s"], "peer": ratio}
        row["targets"] = [_target(label, figures[what], threshold) for what, label, threshold in TARGETS.get(name, ())
                          if what != "peer" or not args.no_peers]
        result["games"][name] = row
    if args.workers > 1:
        _shutdown_workers()
    all_targets = [t for g in result["games"].values() for t in g["targets"]]
    busy1, own1, wall = _busy_seconds(), _own_seconds(), time.perf_counter() - wall0
    other = None
    if busy0 is not None and busy1 is not None:
        other = max(0.0, ((busy1 - busy0) - (own1 - own0)) / wall)
    # CPUs' worth of time used by other processes while the bench ran (should be ~0)
    result["load_average"] = {"start": load_start, "end": _loadavg(), "other_cpus": other, "wall_s": wall}
    result["targets_pass"] = all(t["pass"] is True for t in all_targets) if all_targets else None
    result["targets_met"] = [sum(t["pass"] is True for t in all_targets), len(all_targets)]
    return result


def _busy_seconds() -> float | None:
    """CPU seconds all processes of the machine have used (from /proc/stat)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        hz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / hz


def _own_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _loadavg() -> float | None:
    """1-minute load average (other busy processes make every figure unreliable)."""
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover
        return None


def _version(mod: str) -> str | None:
    try:
        return __import__(mod).__version__
    except Exception:
        return None


def _fmt_rate(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _fmt_x(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:,.{digits}f}x"


def format_engine(res: dict) -> str:
    s = res["settings"]
    w = s["workers"]
    lines = [
        f"evolve.bench engine  (random play; best of {s['repeats']}; "
        f"{res['machine']['cpu_count']} CPUs; numba {res['machine']['numba']}; "
        f"OPENBLAS_NUM_THREADS={res['env']['OPENBLAS_NUM_THREADS']})",
        "",
    ]
    head = ["game", "deals", "1-core kernel/s", "1-core play()/s", f"{w}-worker/s", "speed-up",
            "peer/s", "ratio", "targets"]
    rows = []
    notes = []
    for name, g in res["games"].items():
        par = g["parallel"]
        peer = g["peer"]
        peer_rate = peer.get("rounds_per_s") if peer else None
        ratio = peer.get("ratio") if peer else None
        if peer and not peer.get("installed", True):
            notes.append(f"{name}: peer not installed ({peer['error']})")
        if peer and peer.get("installed"):
            notes.append(f"{name} peer: {peer['name']}, {peer['rounds']:,} rounds per timing")
        tg = "; ".join(
            f"{t['name'].split(' ', 1)[1]} >= {t['threshold']:,.0f}: "
            + ("n/a" if t["pass"] is None else ("PASS" if t["pass"] else "MISS"))
            for t in g["targets"]
        )
        rows.append([
            name, f"{g['deals']:,}", _fmt_rate(g["one_core"]["rounds_per_s"]),
            _fmt_rate(g["end_to_end"]["rounds_per_s"]),
            _fmt_rate(par["rounds_per_s"]) if par else "-",
            _fmt_x(par["speedup"], 2) if par else "-",
            _fmt_rate(peer_rate), _fmt_x(ratio), tg or "-",
        ])
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  ".join(  # noqa: E731
        (str(c).ljust(widths[i]) if i in (0, len(head) - 1) else str(c).rjust(widths[i])) for i, c in enumerate(r)
    ).rstrip()
    lines.append(fmt(head))
    lines.append("  ".join("-" * x for x in widths[:-1]) + "  " + "-" * len(head[-1]))
    lines.extend(fmt(r) for r in rows)
    lines.append("")
    lines.extend(notes)
    if w > 1:
        lines.append(
            f"{w}-worker/s: wall clock incl. dispatch (joblib loky, warmed workers); kernel-only: "
            + ", ".join(f"{n} {_fmt_rate(g['parallel']['kernel_rounds_per_s'])}" for n, g in res["games"].items())
        )
    lat = res.get("first_call_latency")
    if lat:
        parts = []
        for i, r in enumerate(lat, 1):
            if "error" in r:
                parts.append(f"run {i}: error {r['error']}")
            else:
                parts.append(
                    f"run {i}: {r['total_s']:.2f} s (import {r['import_s']:.2f} s, first play {r['first_play_s']:.2f} "
                    f"s, "
                    f"{r['compiled']} compiled)"
                )
        lines.append("first-call latency (fresh process): " + "; ".join(parts))
    load = res.get("load_average") or {}
    if load.get("start") is not None:
        lines.append(f"load average (1 min): {load['start']:.2f} at start, {load['end']:.2f} at end")
        other = load.get("other_cpus")
        if other is not None:
            lines.append(f"other processes used {other:.2f} CPUs on average during the {load['wall_s']:.0f} s run")
        if (other is not None and other > 0.1) or (other is None and load["start"] > 0.5):
            lines.append("WARNING: the machine was busy; figures are unreliable (rerun on an idle machine)")
    if res["targets_pass"] is not None:
        met, total = res["targets_met"]
        lines.append(f"targets met: {met} of {total}" + (" (all)" if res["targets_pass"] else ""))
    return "\n".join(lines)
