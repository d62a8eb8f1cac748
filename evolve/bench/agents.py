"""``python -m evolve.bench agents``: decisions per second of the search agents (ISMCTS against
OpenSpiel's ISMCTSBot, guided rollouts, the value cutoff, maxvalue, the perfect-information
upper bounds beside their honest versions, MC extra in Sueca)."""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from evolve.agents.registry import AgentSpec, parse_seat, sees_hidden_hands
from evolve.agents.search.card_search import (
    KIND_PERFECT_DMCTS,
    KIND_PERFECT_MC,
    perfect_card,
    search_card,
)
from evolve.agents.search.register import SHIPPED_VALUE
from evolve.games.bits import N_STREAMS, mix64
from evolve.games.hooks import legal_cards


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
    from evolve.runtime.play import play

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
                      ("dmcts_4x50_rollout_cardcounting",
                       "dmcts:determinizations=4,iterations=50,rollout=cardcounting"),
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
    play("sueca", seats, 2, seed=seed, setup="study")
    wall, cpu = _best_time(lambda: play("sueca", seats, deals, seed=seed, setup="study"), repeats)
    res["sueca_mc_extra_deals_per_s"] = deals / wall
    res["sueca_mc_extra_deals_per_cpu_s"] = deals / cpu
    res["sueca_1M_deals_minutes_2cores"] = 1_000_000 / (2 * deals / wall) / 60
    res["sueca_1M_deals_minutes_2cores_cpu"] = 1_000_000 / (2 * deals / cpu) / 60
    return res
