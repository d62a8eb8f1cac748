"""Imitation warm start: train a network to play like a registered agent, then evolve it.

Random networks start far from good play, and the evolutionary search alone stalls
(in cut-throat Spades the card-based GA plateaus near 3.7 tricks per round against three
Random seats, where HighLow takes 4.24). A network trained first to copy a strong agent
(its *teacher*, e.g. ISMCTS) starts the population near that agent's play; evolution
then tunes it on the real objective. This is behavioural cloning:

1. ``collect``: the teacher plays ``deals`` deals against ``opponents`` in the engine
   (``record=True``); every decision of a teacher seat with at least two legal cards is
   replayed and stored as (network input vector, legal outputs, chosen output). The
   teacher sees only its own observation, so does the network.
2. ``train``: the network's weights (not its direct connections, which stay 0) minimise the cross-entropy of a softmax
over the legal
   outputs (logits ``TEMPERATURE * tanh(output)``, the agent plays the argmax) with Adam
   on minibatches, clamped to [-1, 1] after every step (as the Spades thesis's weights are). BLAS runs on one
   thread, so the result is bit for bit the same for a given seed on a given machine.

``imitate`` does both and reports the accuracy on the demonstrations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evolve.agents.network.architecture import Architecture, output_index
from evolve.agents.network.direct import DIRECT_FEATURES
from evolve.agents.network.play import network_inputs
from evolve.core.optim import adam_step
from evolve.core.pool import map_ordered
from evolve.core.progress import progress_line
from evolve.games.bits import cards_of, count
from evolve.games.registry import Game
from evolve.games.stepper import replay_decisions
from evolve.learn import mlp

TEMPERATURE = 5.0


@dataclass(frozen=True)
class Demonstrations:
    """Decisions of a teacher: input vectors, legal outputs and the output chosen."""

    inputs: np.ndarray      # float32 [n, n_in]
    legal: np.ndarray       # bool [n, n_out]
    target: np.ndarray      # int64 [n]

    def __len__(self) -> int:
        return self.target.shape[0]


def teacher_seats(game: Game, teacher, opponents: list) -> tuple[list, list[int]]:
    """The table (teacher at seat 0, and at seat 2 as its own partner in partnership
    games; opponents cycling through the others) and the teacher's seats."""
    opp = list(opponents) or ["random"]
    if game.partnership:
        return [teacher, opp[0], teacher, opp[1 % len(opp)]], [0, 2]
    return [teacher, opp[0], opp[1 % len(opp)], opp[2 % len(opp)]], [0]


# deals per task of ``collect``: small enough for an even split and a moving progress bar
COLLECT_CHUNK = 250


def collect(game: Game, arch: Architecture, teacher, opponents: list, deals: int, seed: int,
            progress: bool = False, workers: int = 1, engine_families=()) -> Demonstrations:
    """Play ``deals`` deals with the teacher and record its decisions as network examples.
    The deals are played and replayed in chunks on ``workers`` processes; deal i is
    played from ``(seed, i)`` alone, so the examples are the same for any number of
    workers. ``engine_families``: see ``evolve.play``."""
    from evolve.agents.registry import parse_seats

    seats, mine = teacher_seats(game, teacher, opponents)
    specs = parse_seats(seats, game)
    bounds = [(a, min(a + COLLECT_CHUNK, deals)) for a in range(0, deals, COLLECT_CHUNK)]
    tasks = [(game, arch, specs, tuple(mine), seed, a, b, tuple(engine_families)) for a, b in bounds]
    parts = []
    with progress_line("imitation: teacher deals", deals, "deal", enabled=progress) as bar:
        for part in map_ordered(_collect_chunk, tasks, workers):
            parts.append(part)
            bar.update(part[3])
    target = np.concatenate([p[2] for p in parts])
    if not len(target):
        raise ValueError("the teacher made no decision with two or more legal cards")
    return Demonstrations(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), target)


def _collect_chunk(game: Game, arch: Architecture, specs, mine: tuple, seed: int, first: int, last: int,
                   engine_families=()) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The teacher's decisions in deals ``first .. last-1``: (inputs, legal outputs, chosen
    output, number of deals)."""
    from evolve.runtime.play import play

    result = play(game, specs, last - first, seed=seed, start=first, record=True, engine_families=engine_families)
    example = _Example(game, arch)
    inputs, legal, target = [], [], []
    for i in range(last - first):
        for seat, hand, lg, mode, pub, card in replay_decisions(game, result, i):
            if seat not in mine or count(lg) < 2:
                continue
            x, row, chosen = example(seat, hand, lg, mode, pub, card)
            inputs.append(x)
            legal.append(row)
            target.append(chosen)
    return (np.array(inputs, np.float32).reshape(-1, arch.n_in), np.array(legal, bool).reshape(-1, arch.n_out),
            np.array(target, np.int64), last - first)


class _Example:
    """One decision as a training example: the network's input vector, its legal outputs
    and the output of the card played."""

    def __init__(self, game: Game, arch: Architecture):
        self.game = game
        self.arch = arch
        self.params = arch.pack(np.zeros(arch.genome_size))
        self.work = np.zeros(arch.work_size)
        self.x = np.zeros(arch.n_in)

    def __call__(self, seat, hand, legal, mode, pub, card) -> tuple[np.ndarray, np.ndarray, int]:
        arch = self.arch
        network_inputs(arch.kind, self.params, 0, seat, self.game.rules, mode, hand, pub, self.work, self.x)
        row = np.zeros(arch.n_out, bool)
        for c in cards_of(legal):
            row[output_index(arch, seat, hand, pub, c)] = True
        return self.x.astype(np.float32), row, output_index(arch, seat, hand, pub, card)


def warm_replay(game: Game, arch: Architecture) -> None:
    """Compile (or load from Numba's cache) what turns a teacher's deals into examples, by
    replaying one random deal as ``collect`` replays the teacher's, so that the workers
    that collect find it compiled (``evolve.runtime.precompile`` runs it beside the
    engine's compile)."""
    from evolve.games.stepper import TrickState

    deck = np.random.default_rng(0).permutation(game.info.n_cards)
    h = game.info.hand_size
    state = TrickState(game, [deck[s * h:(s + 1) * h].tolist() for s in range(4)], 0, 1)
    example = _Example(game, arch)
    while not state.done:
        seat = state.to_move
        card = state.legal()[0]
        example(seat, np.uint64(state.hands[seat]), np.uint64(state.legal_mask()), state.mode, state.pub.copy(), card)
        state.play(card)


def _layers(weights: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network as ``evolve.learn.mlp`` layers (the output weights are stored transposed)."""
    return [(weights["W1"], weights["b1"]), (weights["W2"], weights["b2"]), (weights["W3T"].T, weights["b3"])]


def _forward_backward(arch: Architecture, weights: dict, demos: Demonstrations, rows: np.ndarray, grad: bool = True):
    """Mean cross-entropy and accuracy on ``rows``; with ``grad`` also the gradient as a
    flat vector in genome order."""
    x = demos.inputs[rows].astype(np.float64)
    legal = demos.legal[rows]
    y = demos.target[rows]
    layers = _layers(weights)
    acts = mlp.forward(x, layers)
    out = acts[-1]
    logits = np.where(legal, TEMPERATURE * out, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = np.arange(len(y))
    loss = float(-np.log(p[n, y] + 1e-12).mean())
    accuracy = float((logits.argmax(axis=1) == y).mean())
    if not grad:
        return loss, accuracy, None
    d = p
    d[n, y] -= 1.0
    d *= TEMPERATURE * (1.0 - out ** 2) / len(y)
    (g1, gb1), (g2, gb2), (g3, gb3) = mlp.backward(acts, layers, d)
    g = {"W1": g1, "b1": gb1, "W2": g2, "b2": gb2, "W3T": g3.T, "b3": gb3}
    g["D"] = np.zeros(DIRECT_FEATURES)      # direct connections are not trained here: they stay 0
    parts = [g[name].ravel() for name, _ in arch.layers if arch.bias or not name.startswith("b")]
    return loss, accuracy, np.concatenate(parts)


def train(arch: Architecture, demos: Demonstrations, epochs: int, learning_rate: float, batch: int, seed: int,
          progress: bool = False) -> tuple[np.ndarray, list[dict]]:
    """A genome (weights in [-1, 1]) trained to pick the demonstrated outputs, and the
    loss/accuracy after each epoch."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng([seed, 0x1417])
    genome = 0.3 * arch.random_genome(rng)
    weights = arch.unpack(genome)            # views into ``genome`` (biases: zeros when off)
    if arch.direct:
        weights["D"][:] = 0.0                # the clone starts without direct connections
    m = np.zeros_like(genome)
    v = np.zeros_like(genome)
    step = 0
    history = []
    probe = np.arange(min(len(demos), 20000))
    with threadpool_limits(limits=1, user_api="blas"), \
            progress_line("imitation: training", epochs, "epoch", enabled=progress) as bar:
        for epoch in range(epochs):
            order = rng.permutation(len(demos))
            for start in range(0, len(demos), batch):
                _, _, grad = _forward_backward(arch, weights, demos, order[start:start + batch])
                step += 1
                m, v, delta = adam_step(m, v, step, grad, learning_rate, square_first=True)
                genome -= delta
                np.clip(genome, -1.0, 1.0, out=genome)
            loss, accuracy, _ = _forward_backward(arch, weights, demos, probe, grad=False)
            history.append({"epoch": epoch, "loss": round(loss, 5), "accuracy": round(accuracy, 5)})
            bar.update(1, loss=f"{loss:.4f}", accuracy=f"{accuracy:.3f}")
    return genome, history


def imitate(game: Game, arch: Architecture, settings: dict, seed: int, progress: bool = False,
            workers: int = 1, engine_families=()) -> tuple[np.ndarray, dict]:
    """Collect the teacher's decisions and train a genome on them (``settings`` is the
    config's ``[imitation]`` table); returns the genome and a summary for the run folder."""
    demos = collect(game, arch, settings["teacher"], settings["opponents"], settings["deals"], seed, progress, workers,
                    engine_families)
    genome, history = train(
        arch, demos, settings["epochs"], settings["learning_rate"], settings["batch"], seed, progress
    )
    summary = {"teacher": settings["teacher"], "opponents": settings["opponents"], "deals": settings["deals"],
               "decisions": len(demos), "epochs": settings["epochs"], "history": history}
    return genome, summary
