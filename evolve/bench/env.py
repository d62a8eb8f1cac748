"""Environment benchmark: ``python -m evolve.bench env [--games ...] [--tables N] [--json]``.

Decisions per second on one core, with an observation and a legal-action mask built for
every decision, for each game through:

- **AEC**: ``evolve.env.aec_env`` in PettingZoo's own loop (``agent_iter``, ``last``,
  ``step``), every decision of every seat (calls included) a uniformly random legal action;
- **Gym**: ``evolve.env.gym_env`` with seat 0 the caller and the three other seats the
  engine's random agent (caller decisions per second; the others are played inside);
- **batched**: ``evolve.env.BatchEnv`` with ``--tables`` tables (default 1024), actions
  drawn by ``env.sample()`` (one vectorised call per step), timed step and sample together:
  ``self-play`` (the caller chooses every card) and ``vs random`` (the caller plays seat 0,
  the other seats the engine's random agent inside the kernel; the caller's decisions
  only). The calls (bids, trump) are made inside the kernel by the rule bidder and are not
  counted, so the batched figures count fewer decisions per deal than the AEC and peer
  ones;
- **peers** (Euchre and Spades, when installed): the same game (OpenSpiel's rules, our
  ``evolve.interop.openspiel`` options: partnership Spades with standard bidding, spades
  never broken; Euchre without discarding the turned card) through Shimmy's
  ``OpenSpielCompatibilityV0`` in the same PettingZoo loop, and through OpenSpiel's own
  Python loop (the acting player's tensor, the one Shimmy observes: ``observation_tensor``,
  or ``information_state_tensor`` where the game has no observation tensor, as Spades and
  Euchre; ``legal_actions_mask``; chance outcomes drawn uniformly), every decision counted.
  Shimmy builds every player's tensor and mask at every step, OpenSpiel's loop only the
  acting player's.

Ratios: batched self-play / Shimmy, batched self-play / OpenSpiel's loop, AEC / Shimmy.
Thresholds: the batched self-play figure >= 2,000,000 decisions/s and >= 100x Shimmy on
the same game. Every figure is the best of ``--repeats`` timings of about ``--seconds``
each, after a warm-up (compiling or loading the Numba cache is not timed).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import numpy as np

from evolve.bench.engine import _busy_seconds, _loadavg, _own_seconds, _progress

BATCH_RATE_THRESHOLD = 2_000_000
SHIMMY_RATIO_THRESHOLD = 100.0
DEFAULT_TABLES = 1024


def _best_rate(run: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> dict:
    """``run(seconds)`` returns (decisions, elapsed); the best of ``repeats`` after one short warm-up."""
    run(min(seconds, 0.2))
    rates = []
    for _ in range(repeats):
        n, dt = run(seconds)
        rates.append(n / dt)
    return {"decisions_per_s": max(rates), "rates": rates}


def _pettingzoo_loop(make_env: Callable[[], Any], seed: int) -> Callable[[float], tuple[int, float]]:
    """PettingZoo's AEC loop with uniformly random legal actions from the mask (the one in
    ``info["action_mask"]`` for Shimmy, in the observation dict for ours)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run(seconds: float) -> tuple[int, float]:
        n = 0
        t0 = time.perf_counter()
        while True:
            env.reset()         # the next deal (ours) / the next draw of the environment's random stream
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
                    action = int(rng.choice(np.flatnonzero(mask)))
                    n += 1
                env.step(action)
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return n, dt

    return run


def _gym_loop(game: str, options: dict, seed: int) -> Callable[[float], tuple[int, float]]:
    from evolve.env.gym import gym_env

    env = gym_env(game, seat=0, opponents="random", **options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run(seconds: float) -> tuple[int, float]:
        n = 0
        t0 = time.perf_counter()
        _obs, info = env.reset()
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, _reward, terminated, truncated, info = env.step(action)
            n += 1
            if terminated or truncated:
                _obs, info = env.reset()
                dt = time.perf_counter() - t0
                if dt >= seconds:
                    return n, dt

    return run


def _batch_loop(game: str, options: dict, tables: int, opponents, seed: int) -> Callable[[float], tuple[int, float]]:
    from evolve.env.batch import BatchEnv

    env = BatchEnv(game, tables, opponents=opponents, seed=seed, **options)
    env.reset()
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[int, float]:
        n = steps = 0
        t0 = time.perf_counter()
        while True:
            for _ in range(16):
                n += int(np.count_nonzero(env.waiting))
                env.step(env.sample(rng))
            steps += 16
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return n, dt

    return run


def _openspiel_loop(name: str, seed: int) -> Callable[[float], tuple[int, float]]:
    import pyspiel

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(seed)
    # the tensor Shimmy observes: the observation tensor, or (Spades, Euchre) the information state
    provides = game.get_type().provides_observation_tensor

    def run(seconds: float) -> tuple[int, float]:
        n = 0
        t0 = time.perf_counter()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                    continue
                p = state.current_player()
                _obs = np.asarray(state.observation_tensor(p) if provides else state.information_state_tensor(p),
                                  np.float32)
                _mask = np.asarray(state.legal_actions_mask(p), np.int8)
                legal = state.legal_actions(p)
                state.apply_action(legal[int(rng.integers(len(legal)))])
                n += 1
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return n, dt

    return run


def _peer_options(name: str) -> dict:
    """Our options for OpenSpiel's game ``name`` with its default parameters."""
    import pyspiel

    from evolve.interop.openspiel import ADAPTERS

    return ADAPTERS[name].options(pyspiel.load_game(name).get_parameters())


def _peer_games() -> tuple[str, ...]:
    from evolve.interop.openspiel import ADAPTERS

    return tuple(ADAPTERS)


def bench_game(game: str, tables: int, seconds: float, repeats: int, seed: int, peers: bool) -> dict:
    """Every figure of one game (see the module docstring)."""
    from evolve.env.aec import aec_env

    row: dict[str, Any] = {"peer_rules": False}
    options: dict = {}
    if peers and game in _peer_games():
        try:
            options = _peer_options(game)
            row["peer_rules"] = True
        except ImportError as e:
            row["peer_error"] = str(e)
    row["options"] = options
    _progress(f"{game}: AEC ...")
    row["aec"] = _best_rate(_pettingzoo_loop(lambda: aec_env(game, **options), seed), seconds, repeats)
    _progress(f"{game}: Gym ...")
    row["gym"] = _best_rate(_gym_loop(game, options, seed), seconds, repeats)
    _progress(f"{game}: batched, {tables} tables ...")
    row["batch_self_play"] = _best_rate(_batch_loop(game, options, tables, None, seed), seconds, repeats)
    row["batch_vs_random"] = _best_rate(_batch_loop(game, options, tables, "random", seed), seconds, repeats)
    if row["peer_rules"]:
        try:
            import pyspiel
            from shimmy.openspiel_compatibility import OpenSpielCompatibilityV0
        except ImportError as e:
            row["peer_error"] = str(e)
        else:
            _progress(f"{game}: Shimmy OpenSpiel ...")
            row["shimmy"] = _best_rate(
                _pettingzoo_loop(lambda: OpenSpielCompatibilityV0(env=pyspiel.load_game(game)), seed), seconds, repeats)
            _progress(f"{game}: OpenSpiel Python loop ...")
            row["openspiel"] = _best_rate(_openspiel_loop(game, seed), seconds, repeats)
    batch = row["batch_self_play"]["decisions_per_s"]
    shimmy = row.get("shimmy", {}).get("decisions_per_s")
    ospiel = row.get("openspiel", {}).get("decisions_per_s")
    row["ratios"] = {
        "batch_over_shimmy": batch / shimmy if shimmy else None,
        "batch_over_openspiel": batch / ospiel if ospiel else None,
        "aec_over_shimmy": row["aec"]["decisions_per_s"] / shimmy if shimmy else None,
    }
    row["thresholds"] = [
        _threshold(f"batched self-play >= {BATCH_RATE_THRESHOLD:,} decisions/s", batch, BATCH_RATE_THRESHOLD)]
    if shimmy:
        row["thresholds"].append(_threshold(f"batched / Shimmy >= {SHIMMY_RATIO_THRESHOLD:.0f}x",
                                            row["ratios"]["batch_over_shimmy"], SHIMMY_RATIO_THRESHOLD))
    return row


def _threshold(name: str, value: float, threshold: float) -> dict:
    return {"name": name, "value": value, "threshold": threshold, "pass": bool(value >= threshold)}


def bench_env(games: Sequence[str], tables: int = DEFAULT_TABLES, seconds: float = 1.0, repeats: int = 3,
              seed: int = 1, peers: bool = True) -> dict:
    """The environment benchmark's result (a JSON-able dict): per game its figures, ratios
    and thresholds, the machine and how busy it was."""
    import os
    import platform

    load_start = _loadavg()
    busy0, own0, wall0 = _busy_seconds(), _own_seconds(), time.perf_counter()
    result: dict[str, Any] = {
        "bench": "env",
        "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(),
                    **{name: _installed(name) for name in ("numpy", "numba", "pettingzoo", "gymnasium", "shimmy",
                                                            "open-spiel")}},
        "settings": {"tables": tables, "seconds": seconds, "repeats": repeats, "seed": seed, "peers": peers},
        "games": {g: bench_game(g, tables, seconds, repeats, seed, peers) for g in games},
    }
    busy1, own1, wall = _busy_seconds(), _own_seconds(), time.perf_counter() - wall0
    other = None
    if busy0 is not None and busy1 is not None:
        other = max(0.0, ((busy1 - busy0) - (own1 - own0)) / wall)
    result["load_average"] = {"start": load_start, "end": _loadavg(), "other_cpus": other, "wall_s": wall}
    return result


def _installed(package: str) -> str | None:
    """The installed version of ``package`` (a distribution name), or None."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _rate(row: dict, key: str) -> str:
    return f"{row[key]['decisions_per_s']:,.0f}" if key in row else "-"


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}x"


def format_env(res: dict) -> str:
    """The result as a table, the games' rules and the thresholds, one line each."""
    s, m = res["settings"], res["machine"]
    lines = [f"evolve.bench env  (decisions/s on one core, each with an observation and a mask; best of "
             f"{s['repeats']} timings of {s['seconds']:g} s; {s['tables']} batched tables; numba {m['numba']}, "
             f"pettingzoo {m['pettingzoo']}, shimmy {m['shimmy']}, open-spiel {m['open-spiel']})", ""]
    head = ["game", "AEC", "Gym", "batched", "batched vs random", "Shimmy", "OpenSpiel loop",
            "batched/Shimmy", "batched/OpenSpiel", "AEC/Shimmy"]
    rows = []
    for name, g in res["games"].items():
        r = g["ratios"]
        rows.append([name, _rate(g, "aec"), _rate(g, "gym"), _rate(g, "batch_self_play"), _rate(g, "batch_vs_random"),
                     _rate(g, "shimmy"), _rate(g, "openspiel"), _ratio(r["batch_over_shimmy"]),
                     _ratio(r["batch_over_openspiel"]), _ratio(r["aec_over_shimmy"])])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(head)))
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
                 for r in rows)
    lines.append("")
    for name, g in res["games"].items():
        rules = ", ".join(f"{k}={v}" for k, v in g["options"].items()) or "the defaults"
        peer = " (OpenSpiel's rules)" if g["peer_rules"] else ""
        lines.append(f"{name}: {rules}{peer}" + (f"; peers not run: {g['peer_error']}" if "peer_error" in g else ""))
    lines.append("batched: the caller's card decisions (the calls are made inside the kernel by the rule bidder); "
                 "AEC, Shimmy, OpenSpiel: every decision, calls included")
    for name, g in res["games"].items():
        for t in g["thresholds"]:
            lines.append(f"{name}: {t['name']}: {'PASS' if t['pass'] else 'MISS'}")
    load = res["load_average"]
    other = load.get("other_cpus")
    if other is not None:
        lines.append(f"other processes used {other:.2f} CPUs on average during the {load['wall_s']:.0f} s run")
        if other > 0.1:
            lines.append("WARNING: the machine was busy; figures are unreliable (rerun on an idle machine)")
    return "\n".join(lines)
