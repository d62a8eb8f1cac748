"""Registry entries of the search agents (``mc``, ``dmcts``, ``ismcts``) and their bench.

Seat strings::

    mc                                   # variant=extra, shuffles=50, playouts=2
    mc:variant=normal,shuffles=20,playouts=1
    dmcts:determinizations=10,iterations=100,c=1.414
    ismcts:iterations=100,c=0.7
    tdmcts:factor=15,iterations=100      # the Jass paper's T-DMCTS: 15 x tricks to come trees, voted
    tdmcts:determinizations=25,iterations=100   # its I-DMCTS: 25 trees at every decision, voted
    pdmcts:net=PATH,candidates=16        # the Jass paper's P-DMCTS: determinizations drawn through the
    pismcts:net=PATH,candidates=4        #   card-distribution head of a three-head network (dnn.npz)
    dnn:net=PATH                         # that network's policy head alone, no search ("DNN max policy")

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
from pathlib import Path

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_OPTIONS, bidder_from
from evolve.agents.registry import AGENTS, AgentDef, AgentSpec, parse_seat, register
from evolve.agents.search import rollout_policy
from evolve.agents.search.card_search import (
    BELIEF_SIZE,
    KIND_DMCTS,
    KIND_DNN,
    KIND_ISMCTS,
    KIND_MAXVALUE,
    KIND_MC,
    KIND_PERFECT_DMCTS,
    KIND_PERFECT_MC,
    KIND_TDMCTS,
    MC_SHUFFLES,
    MC_TIE_RULES,
    MC_VARIANTS,
    ensure_compiled,
    ticks_per_second,
    work_size,
)
from evolve.agents.search.value_net import V_SCRATCH
from evolve.core.errors import UsageError
from evolve.games.bits import N_STREAMS
from evolve.games.options import Option
from evolve.games.registry import GAMES

SEARCH_BIDDER_OPTIONS = dict(BIDDER_OPTIONS)
SHIPPED_VALUE = Path(__file__).resolve().parent.parent / "data"     # evolve/agents/data
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


def _value_net(opts: dict, game, owner: str, required: bool, heads: bool = False):
    """The network of ``net=`` / ``value=`` (None when not given and not required); with
    ``heads`` the three-head network (default: the shipped ``dnn_<game>.npz``)."""
    key = "net" if "net" in opts else "value"
    path = str(opts.get(key, "")).strip()
    if not path and key == "net":
        path = str(SHIPPED_VALUE / f"{'dnn' if heads else 'value'}_{game.name}.npz")
    elif path == "dnn":         # the shipped three-head network (maxvalue: its value head)
        path = str(SHIPPED_VALUE / f"dnn_{game.name}.npz")
    if not path:
        if required:
            raise UsageError(f"agent {owner!r}: option {key}=PATH is required (a value.npz written by "
                             "python -m evolve.value)")
        return None
    from evolve.agents.search.value_net import load_value

    try:
        return load_value(path, game, heads)
    except UsageError as e:
        raise UsageError(f"agent {owner!r}: option {key}={path} is invalid: {e}") from None


def _tail(opts: dict, game, owner: str, net=None, depth: int = 0, candidates: int = 0) -> list[float]:
    """The optional tail of the search parameters (``evolve.agents.search.card_search.T_RKIND``):
    rollout agent, network (a value cutoff at ``depth`` > 0) and the candidates of each
    determinization drawn through its card-distribution head; empty for plain random playouts."""
    spec = _rollout_spec(opts, game, owner)
    if spec is None and net is None:
        return []
    rparams = list(np.asarray(spec.play_params, np.float64)) if spec else []
    vparams = list(net.params()) if net is not None else []
    scratch = (N_STREAMS + (net.n_hidden + V_SCRATCH if net is not None else 0) + (BELIEF_SIZE if candidates else 0)
               + (spec.work_size if spec else 0))
    return [spec.play_kind if spec else -1, len(rparams), scratch, *rparams, depth if net is not None else 0,
            len(vparams), *vparams, *([candidates] if candidates else [])]


def _spec(name: str, kind: int, params: list[float], opts: dict, game, tail=()) -> AgentSpec:
    ensure_compiled()   # compile / load the search callback here rather than mid-engine
    bid_kind, bid_params = bidder_from(opts, game)
    play = np.array(params + [_ticks(opts, name)] + list(tail), np.float64)
    scratch = int(tail[2]) if len(tail) else 0
    return AgentSpec(name, kind, play, bid_kind, bid_params, work_size(kind, play) + scratch)


def _make_mc(opts: dict, game, name: str = "mc", kind: int = KIND_MC) -> AgentSpec:
    variant = MC_VARIANTS.index(opts["variant"])
    shuffles = _positive(opts, "shuffles", name)
    playouts = _positive(opts, "playouts", name)
    shuffle = MC_SHUFFLES.index(opts["shuffle"])
    ties = MC_TIE_RULES.index(opts["ties"])
    return _spec(name, kind, [variant, shuffles, playouts, shuffle, ties], opts, game, _tail(opts, game, name))


def _make_dmcts(opts: dict, game, name: str = "dmcts", kind: int = KIND_DMCTS) -> AgentSpec:
    d = _positive(opts, "determinizations", name)
    i = _positive(opts, "iterations", name)
    net = _value_net(opts, game, name, False)
    depth = _positive(opts, "depth", name)
    return _spec(name, kind, [d, i, _exploration(opts, name)], opts, game, _tail(opts, game, name, net, depth))


def _make_tdmcts(opts: dict, game) -> AgentSpec:
    f = _positive(opts, "factor", "tdmcts")
    fixed = int(opts["determinizations"])
    i = _positive(opts, "iterations", "tdmcts")
    net = _value_net(opts, game, "tdmcts", False)
    depth = _positive(opts, "depth", "tdmcts")
    return _spec("tdmcts", KIND_TDMCTS, [-fixed if fixed > 0 else f, i, _exploration(opts, "tdmcts")], opts, game,
                 _tail(opts, game, "tdmcts", net, depth))


def _make_perfect_mc(opts: dict, game) -> AgentSpec:
    return _make_mc(opts, game, "perfect_mc", KIND_PERFECT_MC)


def _make_perfect_dmcts(opts: dict, game) -> AgentSpec:
    return _make_dmcts(opts, game, "perfect_dmcts", KIND_PERFECT_DMCTS)


def _make_ismcts(opts: dict, game) -> AgentSpec:
    i = _positive(opts, "iterations", "ismcts")
    return _spec("ismcts", KIND_ISMCTS, [i, _exploration(opts, "ismcts")], opts, game, _tail(opts, game, "ismcts"))


def _belief_tail(opts: dict, game, name: str) -> list[float]:
    """The tail of P-DMCTS / P-ISMCTS: the three-head network and its candidates per draw."""
    net = _value_net(opts, game, name, True, heads=True)
    return _tail(opts, game, name, net, 0, _positive(opts, "candidates", name))


def _make_pdmcts(opts: dict, game) -> AgentSpec:
    d = _positive(opts, "determinizations", "pdmcts")
    i = _positive(opts, "iterations", "pdmcts")
    # vote: the trees combined by T-DMCTS's vote, a fixed D of them (the paper's I-DMCTS)
    kind, first = (KIND_TDMCTS, -d) if opts["vote"] else (KIND_DMCTS, d)
    return _spec("pdmcts", kind, [first, i, _exploration(opts, "pdmcts")], opts, game,
                 _belief_tail(opts, game, "pdmcts"))


def _make_pismcts(opts: dict, game) -> AgentSpec:
    i = _positive(opts, "iterations", "pismcts")
    return _spec("pismcts", KIND_ISMCTS, [i, _exploration(opts, "pismcts")], opts, game,
                 _belief_tail(opts, game, "pismcts"))


def _make_dnn(opts: dict, game) -> AgentSpec:
    net = _value_net(opts, game, "dnn", True, heads=True)
    return _spec("dnn", KIND_DNN, [], opts, game, _tail({}, game, "dnn", net, 0))


def _make_maxvalue(opts: dict, game) -> AgentSpec:
    n = _positive(opts, "samples", "maxvalue")
    net = _value_net(opts, game, "maxvalue", True)
    return _spec("maxvalue", KIND_MAXVALUE, [n], opts, game, _tail(opts, game, "maxvalue", net, 1))


ROLLOUT = Option("random", "card-play agent of every seat in the playouts: random (the fast built-in playout), a "
                 "rule-based agent or champion:PATH; a seat string with options goes in parentheses, e.g. "
                 "rollout=(markov:tau=0.3)", kind=str)
MC_OPTIONS = {
    "variant": Option(
        "extra",
        "normal: best single playout | average: best mean, 1 playout | extra: best mean of K playouts",
        MC_VARIANTS,
    ),
    "shuffles": Option(50, "determinizations S per decision (shared by all legal cards; shuffle=per_card: S per card)",
                       kind=int, minimum=1),
    "playouts": Option(2, "random playouts K per card and determinization (average: 1)", kind=int, minimum=1),
    "rollout": ROLLOUT,
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
    "shuffle": Option("shared", "shared: the S determinizations serve every legal card | per_card: each legal card "
                      "draws its own S (the Sueca thesis)", MC_SHUFFLES),
    "ties": Option("mean", "variant=normal: equal best playouts go to the higher mean | random: to any of them "
                   "(the Sueca thesis)", MC_TIE_RULES),
}
DMCTS_OPTIONS = {
    "determinizations": Option(10, "determinizations D, one UCT tree each", kind=int, minimum=1),
    "iterations": Option(100, "UCT iterations I per tree", kind=int, minimum=1),
    "c": Option(
        math.sqrt(2.0), "UCB exploration constant on returns in [0, 1] (default sqrt 2)", kind=float, minimum=0.0
    ),
    "rollout": ROLLOUT,
    "value": Option(
        "",
        "value network (value.npz of python -m evolve.value): playouts stop after depth cards and "
        "the network scores the position for every seat (empty: play to the end)",
        kind=str,
    ),
    "depth": Option(8, "with value=: cards played (tree and playout) before the network scores", kind=int, minimum=1),
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
}
ISMCTS_OPTIONS = {
    "iterations": Option(100, "iterations (one determinization each)", kind=int, minimum=1),
    "c": Option(
        math.sqrt(2.0), "UCB exploration constant on returns in [0, 1] (default sqrt 2)", kind=float, minimum=0.0
    ),
    "rollout": ROLLOUT,
    "seconds": SECONDS,
    **SEARCH_BIDDER_OPTIONS,
}


MAXVALUE_OPTIONS = {
    "net": Option("", "value network: a value.npz written by python -m evolve.value, or the value head of a dnn.npz "
                  "written by python -m evolve.dnn (empty: the shipped evolve/agents/data/value_<game>.npz, 3,000 "
                  "deals of cardcounting / jass_rule_based; dnn: the shipped three-head dnn_<game>.npz)", kind=str),
    "samples": Option(20, "determinizations N per decision (shared by all legal cards)", kind=int, minimum=1),
    "rollout": ROLLOUT,
    **SEARCH_BIDDER_OPTIONS,
}


TDMCTS_OPTIONS = {
    "factor": Option(15, "determinization factor F: F x the tricks after the current one trees per decision "
                     "(the Jass paper's 15)", kind=int, minimum=1),
    "determinizations": Option(0, "D > 0: D trees at every decision instead of the schedule (the paper's I-DMCTS, "
                               "Section 6.2), combined by the same vote", kind=int, minimum=0),
    **{k: v for k, v in DMCTS_OPTIONS.items() if k != "determinizations"},
}


DNN_NET = Option("", "three-head network: a dnn.npz written by python -m evolve.dnn (empty: the shipped "
                 "evolve/agents/data/dnn_<game>.npz)", kind=str)
CANDIDATES = Option(16, "uniform consistent deals drawn per determinization; one is kept with probability "
                    "proportional to the card-distribution head's product over the unseen cards (1: uniform)",
                    kind=int, minimum=1)
PDMCTS_OPTIONS = {"net": DNN_NET, "candidates": CANDIDATES,
                  "vote": Option(False, "combine the trees by T-DMCTS's vote instead of summed N x Q: with the same "
                                 "determinizations and iterations, the Jass paper's I-DMCTS with the head's draws",
                                 kind=bool),
                  **{k: v for k, v in DMCTS_OPTIONS.items() if k not in ("value", "depth")}}
PISMCTS_OPTIONS = {"net": DNN_NET, "candidates": Option(4, CANDIDATES.help, kind=int, minimum=1),
                   **ISMCTS_OPTIONS}
DNN_OPTIONS = {"net": DNN_NET, **SEARCH_BIDDER_OPTIONS}


def _shipped(prefix: str) -> tuple[str, ...]:
    """The games with a shipped ``<prefix>_<game>.npz`` network (the default ``net`` of the
    agents that need one: a game without it cannot seat them)."""
    return tuple(name for name in GAMES if (SHIPPED_VALUE / f"{prefix}_{name}.npz").exists())


def _register_all() -> None:
    entries = (
        AgentDef("mc", "flat Monte Carlo over exact determinizations (the Sueca thesis)", _make_mc, MC_OPTIONS),
        AgentDef(
            "dmcts",
            "determinized UCT, trees combined by visit-weighted scores (the Jass paper)",
            _make_dmcts,
            DMCTS_OPTIONS,
        ),
        AgentDef("ismcts", "single-observer information-set MCTS (the Jass paper)", _make_ismcts, ISMCTS_OPTIONS),
        AgentDef(
            "maxvalue",
            "the card whose position after the trick has the best mean value-network score over N determinizations",
            _make_maxvalue,
            MAXVALUE_OPTIONS,
            _shipped("value"),
        ),
        AgentDef(
            "pdmcts",
            "the Jass paper's P-DMCTS: dmcts whose determinizations are drawn through the card-distribution head "
            "of a three-head network (python -m evolve.dnn)",
            _make_pdmcts,
            PDMCTS_OPTIONS,
            _shipped("dnn"),
        ),
        AgentDef(
            "pismcts",
            "the Jass paper's P-ISMCTS: ismcts whose determinizations are drawn through the card-distribution head "
            "of a three-head network (python -m evolve.dnn)",
            _make_pismcts,
            PISMCTS_OPTIONS,
            _shipped("dnn"),
        ),
        AgentDef(
            "dnn",
            "the policy head of a three-head network (python -m evolve.dnn), no search: the Jass paper's DNN max "
            "policy",
            _make_dnn,
            DNN_OPTIONS,
            _shipped("dnn"),
        ),
        AgentDef(
            "perfect_mc",
            "PERFECT INFORMATION (an upper bound, sees every hand): mc whose playouts all start from the true deal",
            _make_perfect_mc,
            MC_OPTIONS,
        ),
        AgentDef(
            "perfect_dmcts",
            "PERFECT INFORMATION (an upper bound, sees every hand): dmcts whose trees all "
            "search the true deal (determinizations=1: one UCT tree)",
            _make_perfect_dmcts,
            DMCTS_OPTIONS,
        ),
        AgentDef(
            "tdmcts",
            "the Jass paper's T-DMCTS: factor x tricks to come UCT trees, each votes its most visited move with "
            "its mean; the best mean x votes is played",
            _make_tdmcts,
            TDMCTS_OPTIONS,
        ),
    )
    for agent in entries:
        if agent.name not in AGENTS:
            register(agent)


_register_all()
