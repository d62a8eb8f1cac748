"""Registry entries of the search agents (``mc``, ``dmcts``, ``ismcts``) and their bench.

Seat strings::

    mc                                   # variant=extra, shuffles=50, playouts=2
    mc:variant=normal,shuffles=20,playouts=1
    dmcts:determinizations=10,iterations=100,c=1.414
    ismcts:iterations=100,c=0.7

    ismcts:seconds=0.05                  # a wall-clock budget per decision

Every agent also takes the shared bidder options (``bidder`` defaults to ``simple`` here).
Budgets are iteration counts by default, so results are reproducible. ``seconds`` > 0
gives each decision a wall-clock budget instead: MC draws shuffles, ISMCTS iterates and
DMCTS grows its D trees (an equal share each) until the time is spent (the iteration
count is then ignored; trees hold at most ``TIMED_NODES`` nodes); such runs are not
reproducible.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from dataclasses import replace

import numpy as np
from numba import njit

from evolve.agents.registry import (AGENTS, BIDDER_OPTIONS, AgentDef, AgentSpec, bidder_from, parse_seat, register,
                                   sees_hidden_hands)
from evolve.agents.search import (
    KIND_DMCTS,
    KIND_ISMCTS,
    KIND_MAXVALUE,
    KIND_MC,
    KIND_PERFECT_DMCTS,
    KIND_PERFECT_MC,
    MC_VARIANTS,
    ensure_compiled,
    perfect_card,
    search_card,
    ticks_per_second,
    work_size,
)
from evolve.errors import UsageError
from evolve.agents import rollout_policy
from evolve.games.bits import N_STREAMS, mix64
from evolve.games.common import Option
from evolve.games.rules import legal_cards

SEARCH_BIDDER_OPTIONS = dict(BIDDER_OPTIONS)
SEARCH_BIDDER_OPTIONS["bidder"] = replace(BIDDER_OPTIONS["bidder"], default="simple")
SHIPPED_VALUE = Path(__file__).parent / "data"
SECONDS = Option(0.0, "wall-clock budget per decision in seconds; replaces the iteration count (0: off)",
                 kind=float, minimum=0.0)


def _positive(opts: dict, key: str, owner: str) -> int:
    v = int(opts[key])
    if v < 1:
        raise UsageError(f"agent {owner!r}: option {key}={v} is invalid; expected an integer >= 1")
    return v


def _exploration(opts: dict, owner: str) -> float:
    return float(opts["c"])


def _ticks(opts: dict, owner: str) -> float:
    """The ``seconds`` budget in cycle-counter ticks (0: iteration budget)."""
    seconds = float(opts.get("seconds", 0.0))      # maxvalue has no time budget
    if seconds <= 0.0:
        return 0.0
    rate = ticks_per_second()
    if rate <= 0.0:
        raise UsageError(f"agent {owner!r}: option seconds={seconds} needs a CPU cycle counter, which this machine "
                         "does not expose; use the iteration options instead")
    return max(1.0, round(seconds * rate))


def _rollout_spec(opts: dict, game, owner: str) -> AgentSpec | None:
    """The card-play agent of ``rollout=`` (None: the built-in uniformly random playout)."""
    text = str(opts.get("rollout", "random")).strip()
    if text in ("", "random"):
        return None
    expect = "a card-play agent that does not search (random, a rule-based agent, champion:PATH)"
    try:
        spec = parse_seat(text, game)
    except UsageError as e:
        raise UsageError(f"agent {owner!r}: option rollout={text} is invalid ({e}); expected {expect}") from None
    if not rollout_policy.ROLLOUT_KINDS[0] <= spec.play_kind < rollout_policy.ROLLOUT_KINDS[1]:
        raise UsageError(f"agent {owner!r}: option rollout={text} is invalid; expected {expect}")
    rollout_policy.ensure_compiled()    # compile / load the policy callback here rather than mid-engine
    return spec


def _value_net(opts: dict, game, owner: str, required: bool):
    """The value network of ``net=`` / ``value=`` (None when not given and not required)."""
    key = "net" if "net" in opts else "value"
    path = str(opts.get(key, "")).strip()
    if not path and key == "net":
        path = str(SHIPPED_VALUE / f"value_{game.name}.npz")
    if not path:
        if required:
            raise UsageError(f"agent {owner!r}: option {key}=PATH is required (a value.npz written by "
                             "python -m evolve.value)")
        return None
    from evolve.agents.value import load_value

    try:
        return load_value(path, game)
    except UsageError as e:
        raise UsageError(f"agent {owner!r}: option {key}={path} is invalid: {e}") from None


def _tail(opts: dict, game, owner: str, net=None, depth: int = 0) -> list[float]:
    """The optional tail of the search parameters (``evolve.agents.search.T_RKIND``):
    rollout agent and value network; empty for plain random playouts."""
    spec = _rollout_spec(opts, game, owner)
    if spec is None and net is None:
        return []
    rparams = list(np.asarray(spec.play_params, np.float64)) if spec else []
    vparams = list(net.params()) if net is not None else []
    scratch = N_STREAMS + (net.n_hidden + 10 if net is not None else 0) + (spec.work_size if spec else 0)
    return [spec.play_kind if spec else -1, len(rparams), scratch, *rparams, depth if net is not None else 0,
            len(vparams), *vparams]


def _spec(name: str, kind: int, params: list[float], opts: dict, tail=()) -> AgentSpec:
    ensure_compiled()   # compile / load the search callback here rather than mid-engine
    bid_kind, bid_params = bidder_from(opts)
    play = np.array(params + [_ticks(opts, name)] + list(tail), np.float64)
    scratch = int(tail[2]) if len(tail) else 0
    return AgentSpec(name, kind, play, bid_kind, bid_params, work_size(kind, play) + scratch)


def _make_mc(opts: dict, game, name: str = "mc", kind: int = KIND_MC) -> AgentSpec:
    variant = MC_VARIANTS.index(opts["variant"])
    shuffles = _positive(opts, "shuffles", name)
    playouts = _positive(opts, "playouts", name)
    return _spec(name, kind, [variant, shuffles, playouts], opts, _tail(opts, game, name))


def _make_dmcts(opts: dict, game, name: str = "dmcts", kind: int = KIND_DMCTS) -> AgentSpec:
    d = _positive(opts, "determinizations", name)
    i = _positive(opts, "iterations", name)
    net = _value_net(opts, game, name, False)
    depth = _positive(opts, "depth", name)
    return _spec(name, kind, [d, i, _exploration(opts, name)], opts, _tail(opts, game, name, net, depth))


def _make_perfect_mc(opts: dict, game) -> AgentSpec:
    return _make_mc(opts, game, "perfect_mc", KIND_PERFECT_MC)


def _make_perfect_dmcts(opts: dict, game) -> AgentSpec:
    return _make_dmcts(opts, game, "perfect_dmcts", KIND_PERFECT_DMCTS)


def _make_ismcts(opts: dict, game) -> AgentSpec:
    i = _positive(opts, "iterations", "ismcts")
    return _spec("ismcts", KIND_ISMCTS, [i, _exploration(opts, "ismcts")], opts, _tail(opts, game, "ismcts"))


def _make_maxvalue(opts: dict, game) -> AgentSpec:
    n = _positive(opts, "samples", "maxvalue")
    net = _value_net(opts, game, "maxvalue", True)
    return _spec("maxvalue", KIND_MAXVALUE, [n], opts, _tail(opts, game, "maxvalue", net, 1))


ROLLOUT = Option("random", "card-play agent of every seat in the playouts: random (the fast built-in playout), a "
                 "rule-based agent or champion:PATH; a seat string with options goes in parentheses, e.g. "
                 "rollout=(markov:tau=0.3)", kind=str)
MC_OPTIONS = {
    "variant": Option("extra", "normal: best single playout | average: best mean, 1 playout | extra: best mean of K playouts", MC_VARIANTS),
    "shuffles": Option(50, "determinizations S per decision (shared by all legal cards)", kind=int, minimum=1),
    "playouts": Option(2, "random playouts K per card and determinization (average: 1)", kind=int, minimum=1),
    "rollout": ROLLOUT,
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
}
DMCTS_OPTIONS = {
    "determinizations": Option(10, "determinizations D, one UCT tree each", kind=int, minimum=1),
    "iterations": Option(100, "UCT iterations I per tree", kind=int, minimum=1),
    "c": Option(math.sqrt(2.0), "UCB exploration constant on returns in [0, 1] (default sqrt 2)", kind=float, minimum=0.0),
    "rollout": ROLLOUT,
    "value": Option("", "value network (value.npz of python -m evolve.value): playouts stop after depth cards and "
                    "the network scores the position for every seat (empty: play to the end)", kind=str),
    "depth": Option(8, "with value=: cards played (tree and playout) before the network scores", kind=int, minimum=1),
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
}
ISMCTS_OPTIONS = {
    "iterations": Option(100, "iterations (one determinization each)", kind=int, minimum=1),
    "c": Option(math.sqrt(2.0), "UCB exploration constant on returns in [0, 1] (default sqrt 2)", kind=float, minimum=0.0),
    "rollout": ROLLOUT,
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
}


MAXVALUE_OPTIONS = {
    "net": Option("", "value network: a value.npz written by python -m evolve.value (empty: the shipped "
                  "evolve/agents/data/value_<game>.npz, 3,000 deals of cardcounting / jass_rule_based)", kind=str),
    "samples": Option(20, "determinizations N per decision (shared by all legal cards)", kind=int, minimum=1),
    "rollout": ROLLOUT,
    **SEARCH_BIDDER_OPTIONS,
}


def _register_all() -> None:
    entries = (
        AgentDef("mc", "flat Monte Carlo over exact determinizations (SPEC §2)", _make_mc, MC_OPTIONS),
        AgentDef("dmcts", "determinized UCT, trees combined by visit-weighted scores (SPEC §2)", _make_dmcts, DMCTS_OPTIONS),
        AgentDef("ismcts", "single-observer information-set MCTS (SPEC §2)", _make_ismcts, ISMCTS_OPTIONS),
        AgentDef("maxvalue", "the card whose position after the trick has the best mean value-network score over N "
                 "determinizations", _make_maxvalue, MAXVALUE_OPTIONS),
        AgentDef("perfect_mc", "PERFECT INFORMATION (an upper bound, sees every hand): mc whose playouts all start "
                 "from the true deal", _make_perfect_mc, MC_OPTIONS),
        AgentDef("perfect_dmcts", "PERFECT INFORMATION (an upper bound, sees every hand): dmcts whose trees all "
                 "search the true deal (determinizations=1: one UCT tree)", _make_perfect_dmcts, DMCTS_OPTIONS),
    )
    for agent in entries:
        if agent.name not in AGENTS:
            register(agent)


_register_all()


# ----------------------------------------------------------------------------- bench


def sample_positions(game_name: str, n: int, seed: int, with_hands: bool = False, **options):
    """Mid-deal decision points (seat, mode, hand, pub) of random play with >= 2 legal
    cards, one per deal at a uniformly random decision; ``with_hands``: each point also
    carries the true deal (the four hands' masks), which only the perfect-information
    agents may be given."""
    from evolve.games.registry import make_game
    from evolve.games.stepper import TrickState

    g = make_game(game_name, **options)
    info = g.info
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        deck = rng.permutation(info.n_cards)
        hands = [deck[k * info.hand_size:(k + 1) * info.hand_size] for k in range(4)]
        mode = int(rng.integers(info.n_modes))
        s = TrickState(g, hands, mode=mode, leader=int(rng.integers(4)))
        stop = int(rng.integers(4 * info.n_tricks - 4))
        for _ in range(stop):
            s.play(int(rng.choice(s.legal())))
        if len(s.legal()) < 2:
            continue
        seat = s.to_move
        point = (seat, mode, np.uint64(s.hands[seat]), s.pub.copy())
        out.append(point + (s.hands.copy(),) if with_hands else point)
    return g, out


def decide_many(g, spec: AgentSpec, positions, seed: int = 0) -> tuple[list[int], float]:
    """Run a search agent on every position ``(seat, mode, hand, pub)`` in one Numba loop
    (fresh random streams per position from ``seed``); return the cards and the seconds
    taken (a one-position warm-up is not timed). A perfect-information agent needs the
    positions of ``sample_positions(..., with_hands=True)`` and searches their true deals."""
    n = len(positions)
    seats = np.array([p[0] for p in positions], np.int64)
    modes = np.array([p[1] for p in positions], np.int64)
    # the four hands of each position: the true deal for a perfect-information agent, only
    # the seat's own hand (the others empty) for an honest one
    deals = np.zeros((n, 4), np.uint64)
    perfect = sees_hidden_hands(spec)
    for i, p in enumerate(positions):
        if perfect:
            deals[i] = p[4]
        deals[i, p[0]] = p[2]
    pubs = np.stack([p[3] for p in positions])
    work = np.zeros(spec.work_size, np.float64)
    params = np.asarray(spec.play_params, np.float64)
    cards = np.zeros(n, np.int64)
    args = (spec.play_kind, params, g.rules, seats, modes, deals, pubs, work, cards, np.uint64(seed))
    _decide_loop(*args, 1)
    t = time.perf_counter()
    _decide_loop(*args, n)
    return [int(c) for c in cards], time.perf_counter() - t


def _best_time(fn, repeats: int) -> tuple[float, float]:
    """Best wall-clock and best CPU (process) seconds of ``fn()`` over ``repeats`` runs; CPU
    time is what a dedicated core would take when the machine is shared."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu


@njit(cache=True)
def _decide_loop(kind, params, rules, seats, modes, deals, pubs, work, cards, seed, n):
    rngs = np.zeros(N_STREAMS, np.uint64)
    for i in range(n):
        for k in range(N_STREAMS):
            rngs[k] = mix64(seed + np.uint64(i * N_STREAMS + k + 1))
        pub = pubs[i]
        seat = seats[i]
        hand = deals[i, seat]
        legal = legal_cards(rules, modes[i], hand, pub)
        if kind == KIND_PERFECT_MC or kind == KIND_PERFECT_DMCTS:
            cards[i] = perfect_card(kind, params, 0, params.shape[0], seat, rules, modes[i], deals[i], legal, pub,
                                    rngs, work)
        else:
            cards[i] = search_card(kind, params, 0, params.shape[0], seat, rules, modes[i], hand, legal, pub,
                                   rngs, work)


def _openspiel_euchre_positions(n: int, seed: int):
    """Play-phase states of OpenSpiel's ``euchre`` (random bidding and play) with >= 2
    legal cards, one per deal after a uniformly random number (0..15) of cards played,
    like ``sample_positions`` for ours."""
    import pyspiel

    game = pyspiel.load_game("euchre")
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        stop = int(rng.integers(0, 16))
        while not s.is_terminal():
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes())
                s.apply_action(int(rng.choice(actions, p=np.array(probs) / sum(probs))))
                continue
            legal = s.legal_actions()
            if str(s.current_phase()).endswith("PLAY") and s.num_cards_played() >= stop:
                if len(legal) >= 2:
                    out.append(s.clone())
                break
            s.apply_action(int(rng.choice(legal)))
    return game, out


def bench_openspiel_ismcts(n: int = 100, iterations: int = 100, seed: int = 0, repeats: int = 3) -> dict:
    """OpenSpiel's C++ ``ISMCTSBot`` (``RandomRolloutEvaluator(1, seed)``, uct_c sqrt 2,
    ``max_simulations`` = iterations, a new world sample per simulation
    (``max_world_samples`` -1), max-visit final policy) timed on ``.step(state)`` over
    mid-deal Euchre play states; best of ``repeats`` (wall and CPU)."""
    import pyspiel

    game, states = _openspiel_euchre_positions(n, seed)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.ISMCTSBot(seed, evaluator, math.sqrt(2.0), iterations, -1,
                            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    bot.step(states[0])

    def run():
        for s in states:
            bot.step(s)

    wall, cpu = _best_time(run, repeats)
    return {"decisions": len(states), "decisions_per_s": len(states) / wall, "decisions_per_cpu_s": len(states) / cpu}


def _rates(g, seat: str, positions, repeats: int) -> tuple[float, float]:
    spec = parse_seat(seat, g)
    decide_many(g, spec, positions[:2])
    wall, cpu = _best_time(lambda: decide_many(g, spec, positions), repeats)
    return len(positions) / wall, len(positions) / cpu


def bench_agents(n: int = 400, seed: int = 0, deals: int = 200, repeats: int = 3, openspiel: bool = True) -> dict:
    """Decision rates of the search agents on one core (mid-deal positions of random play
    with >= 2 legal cards, best of ``repeats``; ``*_per_s`` wall clock, ``*_per_cpu_s``
    process CPU time, which is what counts on a shared machine), OpenSpiel's C++ ISMCTS on
    the same budget, and the Sueca study's pairing (one MC "extra" S=50 K=2 seat, three
    Random seats, ``setup=study``) played whole in the engine, extrapolated to 1,000,000
    deals on 2 cores (two independent workers, as ``evolve.play(workers=2)``)."""
    import evolve

    res: dict = {}
    g, pos = sample_positions("euchre", n, seed, with_hands=True)
    ours = _rates(g, "ismcts:iterations=100", pos, repeats)
    res["ismcts100_euchre_decisions_per_s"], res["ismcts100_euchre_decisions_per_cpu_s"] = ours
    if openspiel:
        try:
            peer = bench_openspiel_ismcts(max(50, n // 4), 100, seed, repeats)
        except ImportError:
            peer = None
        if peer:
            res["openspiel_ismcts100_euchre_decisions_per_s"] = peer["decisions_per_s"]
            res["openspiel_ismcts100_euchre_decisions_per_cpu_s"] = peer["decisions_per_cpu_s"]
            res["ismcts_ratio_vs_openspiel"] = ours[0] / peer["decisions_per_s"]
            res["ismcts_ratio_vs_openspiel_cpu"] = ours[1] / peer["decisions_per_cpu_s"]
    wall, cpu = _rates(g, "dmcts:determinizations=10,iterations=100", pos[:max(20, n // 4)], repeats)
    res["dmcts_10x100_euchre_decisions_per_s"], res["dmcts_10x100_euchre_decisions_per_cpu_s"] = wall, cpu
    few = pos[:max(20, n // 8)]
    for key, seat in (("dmcts_4x50", "dmcts:determinizations=4,iterations=50"),
                      ("dmcts_4x50_rollout_cardcounting", "dmcts:determinizations=4,iterations=50,rollout=cardcounting"),
                      ("ismcts100_rollout_cardcounting", "ismcts:iterations=100,rollout=cardcounting"),
                      ("dmcts_4x50_value_depth8", "dmcts:determinizations=4,iterations=50,value=" +
                       str(SHIPPED_VALUE / "value_euchre.npz") + ",depth=8"),
                      ("maxvalue_20", "maxvalue:samples=20")):
        wall, cpu = _rates(g, seat, few, repeats)
        res[f"{key}_euchre_decisions_per_s"], res[f"{key}_euchre_decisions_per_cpu_s"] = wall, cpu
    # the perfect-information agents search the positions' true deals; their honest
    # versions on the same positions and budgets, for comparison
    for key, seat in (("mc_extra_50x2", "mc:variant=extra,shuffles=50,playouts=2"),
                      ("perfect_mc_extra_50x2", "perfect_mc:variant=extra,shuffles=50,playouts=2"),
                      ("dmcts_1x400", "dmcts:determinizations=1,iterations=400"),
                      ("perfect_dmcts_1x400", "perfect_dmcts:determinizations=1,iterations=400")):
        wall, cpu = _rates(g, seat, few, repeats)
        res[f"{key}_euchre_decisions_per_s"], res[f"{key}_euchre_decisions_per_cpu_s"] = wall, cpu
    g, pos = sample_positions("sueca", max(50, n // 2), seed)
    wall, cpu = _rates(g, "mc:variant=extra,shuffles=50,playouts=2", pos, repeats)
    res["mc_extra_50x2_sueca_decisions_per_s"], res["mc_extra_50x2_sueca_decisions_per_cpu_s"] = wall, cpu
    seats = ["mc:variant=extra,shuffles=50,playouts=2", "random", "random", "random"]
    evolve.play("sueca", seats, 2, seed=seed, setup="study")
    wall, cpu = _best_time(lambda: evolve.play("sueca", seats, deals, seed=seed, setup="study"), repeats)
    res["sueca_mc_extra_deals_per_s"] = deals / wall
    res["sueca_mc_extra_deals_per_cpu_s"] = deals / cpu
    res["sueca_1M_deals_minutes_2cores"] = 1_000_000 / (2 * deals / wall) / 60
    res["sueca_1M_deals_minutes_2cores_cpu"] = 1_000_000 / (2 * deals / cpu) / 60
    return res
