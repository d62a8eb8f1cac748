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
2. ``train``: the network's weights (not its direct connections, which stay 0) minimise
   the cross-entropy of a softmax over the legal outputs (logits ``TEMPERATURE *
   tanh(output)``, or with ``logits = "linear"`` the output sums themselves; the agent
   plays the argmax) with Adam on minibatches, clamped to [-1, 1] after every step (as
   the Spades thesis's weights are), from a start drawn as ``init`` says (``INITS``).
   BLAS runs on one thread, so the result is bit for bit the same for a given seed on a
   given machine. ``schedule = "cosine"`` decays the step size over the epochs;
   ``holdout`` keeps the teacher's last decisions out of training and reports their
   accuracy per epoch.

3. ``relabel`` (DAgger, ``dagger_rounds`` > 0): the clone plays ``dagger_deals`` deals
   in the teacher's seats against the same opponents; every decision *it* makes with two
   or more legal cards is put to the teacher (``evolve.runtime.decide``: the teacher's own
   Numba decision on the seat's observation, its hand only), and the teacher's card is
   the label. The examples join the data and the clone trains on for ``dagger_epochs``.
   Behavioural cloning alone learns only the states the teacher reaches; the clone's
   mistakes lead it elsewhere, where it has no example (Ross, Gordon and Bagnell 2011).
   The share of its own decisions the teacher agrees with is reported per round.

``imitate`` does all three and reports the accuracy on the demonstrations. Examples are
made in chunks of deals on every worker, each chunk from ``(seed, round, first deal)``
alone, so the data do not depend on the number of workers; with a ``cache`` folder
(the run folder's ``imitation/``) every finished chunk and every trained round is
stored there (plain ``.npz``, no pickles), and a training in progress every 30 s, so an
interrupted start loses at most one chunk per worker or 30 s of training and comes back
to the same data and genome.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolve.agents.network.architecture import Architecture, output_index
from evolve.agents.network.direct import DIRECT_FEATURES
from evolve.agents.network.play import network_inputs
from evolve.core.errors import UsageError
from evolve.core.files import atomic_write, read_npz
from evolve.core.optim import adam_step
from evolve.core.pool import map_ordered
from evolve.core.progress import progress_line
from evolve.games.bits import cards_of, count
from evolve.games.observation import observations
from evolve.games.registry import Game
from evolve.games.stepper import replay_decisions
from evolve.learn import mlp

TEMPERATURE = 5.0


@dataclass(frozen=True)
class Demonstrations:
    """Decisions of a teacher: input vectors, legal outputs and the output chosen."""

    inputs: np.ndarray      # uint8 [n, n_in] (every encoding's inputs are small whole numbers)
    legal: np.ndarray       # bool [n, n_out]
    target: np.ndarray      # int64 [n]
    soft: np.ndarray | None = None  # float32 [n, n_out]: the teacher's visit shares (targets = "visits")

    def __len__(self) -> int:
        return self.target.shape[0]

    def rows(self, part: slice) -> "Demonstrations":
        """The examples in ``part`` (views, not copies)."""
        return Demonstrations(self.inputs[part], self.legal[part], self.target[part],
                              None if self.soft is None else self.soft[part])

    @staticmethod
    def joined(parts: list["Demonstrations"]) -> "Demonstrations":
        """The examples of ``parts`` one after another."""
        soft = np.concatenate([p.soft for p in parts]) if all(p.soft is not None for p in parts) else None
        return Demonstrations(np.concatenate([p.inputs for p in parts]), np.concatenate([p.legal for p in parts]),
                              np.concatenate([p.target for p in parts]), soft)


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
            progress: bool = False, workers: int = 1, engine_families=(), cache: Path | None = None,
            targets: str = "choice") -> Demonstrations:
    """Play ``deals`` deals with the teacher and record its decisions as network examples.
    The deals are played and replayed in chunks on ``workers`` processes; deal i is
    played from ``(seed, i)`` alone, so the examples are the same for any number of
    workers. ``engine_families``: see ``evolve.play``; ``cache``: see the module docstring.
    ``targets = "visits"``: the teacher (ISMCTS) is asked again at each of its decisions
    and its root visit shares are the target (``Demonstrations.soft``)."""
    from evolve.agents.registry import parse_seats

    seats, mine = teacher_seats(game, teacher, opponents)
    specs = parse_seats(seats, game)
    # the examples depend on the encoding, not on the hidden layers: a wider student reuses them
    tag = _tag("teacher" if targets == "choice" else f"teacher-{targets}", game, _examples_view(arch), seats, seed, 0)
    if targets == "choice":
        task = (lambda a, b: (game, arch, specs, tuple(mine), seed, a, b, tuple(engine_families)))
        demos = _chunked(_collect_chunk, task, deals, workers, cache, tag, "imitation: teacher deals", progress)
    else:
        task = (lambda a, b: (game, arch, specs, tuple(mine), teacher, seed, -1, a, b, tuple(engine_families),
                              targets))
        demos, _ = _chunked(_relabel_chunk, task, deals, workers, cache, tag, "imitation: teacher deals", progress,
                            extra=("agree",))
    if not len(demos):
        raise ValueError("the teacher made no decision with two or more legal cards")
    return demos


def relabel(game: Game, student, genome: np.ndarray, teacher: str, opponents: list, deals: int, seed: int,
            round_: int, progress: bool = False, workers: int = 1, engine_families=(), cache: Path | None = None,
            targets: str = "choice") -> tuple[Demonstrations, float]:
    """DAgger: the network ``genome`` (played as ``student``, a ``NetworkAgent``) plays
    ``deals`` deals in the teacher's seats; its decisions, labelled with the teacher's
    choice at the same observation. Returns the examples and the share of them where
    the student already played the teacher's card."""
    from evolve.agents.registry import parse_seats

    arch = student.arch
    spec = student.specs(genome[None, :], ["student"])[0]
    seats, mine = teacher_seats(game, spec, opponents)
    specs = [spec if i in mine else s for i, s in enumerate(parse_seats(seats, game))]
    tag = _tag(f"dagger{round_}" + ("" if targets == "choice" else f"-{targets}"), game, arch.to_json(),
               [teacher, *map(str, opponents), _digest_array(genome)], seed, round_)
    labelled = _chunked(_relabel_chunk,
                        lambda a, b: (game, arch, specs, tuple(mine), teacher, seed, round_, a, b,
                                      tuple(engine_families), targets),
                        deals, workers, cache, tag, f"imitation: DAgger round {round_ + 1}, teacher relabels",
                        progress, extra=("agree",))
    demos, agree = labelled
    return demos, float(agree.mean()) if len(agree) else float("nan")


def dagger_seed(seed: int, round_: int) -> int:
    """The seed of the deals the student plays in DAgger round ``round_`` (0-based): new
    deals every round, none of them the teacher's."""
    return int.from_bytes(hashlib.sha256(f"{seed}/dagger/{round_}".encode()).digest()[:7], "little")


def _tag(phase: str, game: Game, network: dict, seats, seed: int, round_: int) -> str:
    """A name for the cached chunks of one phase: what determines their content."""
    text = json.dumps([phase, game.name, game.options, network, [str(s) for s in seats], seed, round_,
                       COLLECT_CHUNK], sort_keys=True, default=str)
    return f"{phase}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _examples_view(arch: Architecture) -> dict:
    """What of the network a teacher's examples depend on: its inputs and outputs."""
    return {k: v for k, v in arch.to_json().items() if k in ("game", "encoding", "n_in", "n_out", "suits")}


def _digest_array(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, np.float64).tobytes()).hexdigest()[:16]


def _chunked(fn, task_of, deals: int, workers: int, cache: Path | None, tag: str, label: str, progress: bool,
             extra: tuple[str, ...] = ()):
    """Run ``fn(*task_of(first, last))`` over chunks of ``COLLECT_CHUNK`` deals on the
    workers, skipping the chunks stored in ``cache``; returns the joined examples (and
    the ``extra`` arrays, joined, when asked)."""
    bounds = [(a, min(a + COLLECT_CHUNK, deals)) for a in range(0, deals, COLLECT_CHUNK)]
    path = (lambda a, b: Path(cache) / f"{tag}-{a:08d}-{b:08d}.npz") if cache is not None else None
    stored = {a: _load_chunk(path(a, b)) for a, b in bounds if path is not None and path(a, b).is_file()}
    todo = [(a, b) for a, b in bounds if a not in stored]
    # chunks read back count as done, not in the rate
    with progress_line(label, deals, "deal", enabled=progress,
                       initial=sum(b - a for a, b in bounds if a in stored)) as bar:
        for (a, b), part in zip(todo, map_ordered(fn, [task_of(a, b) for a, b in todo], workers)):
            stored[a] = part
            if path is not None:
                _store_chunk(path(a, b), part)
            bar.update(b - a)
    parts = [stored[a] for a, _ in bounds]
    demos = Demonstrations.joined([Demonstrations(p["inputs"], p["legal"], p["target"], p.get("soft"))
                                   for p in parts])
    if extra:
        return demos, *[np.concatenate([p[k] for p in parts]) for k in extra]
    return demos


def _store_chunk(path: Path, part: dict) -> None:
    atomic_write(path, lambda f: np.savez(f, **part))


def _load_chunk(path: Path) -> dict:
    return read_npz(path, "a stored chunk of imitation examples (delete it to make it again)")


def _collect_chunk(game: Game, arch: Architecture, specs, mine: tuple, seed: int, first: int, last: int,
                   engine_families=()) -> dict:
    """The teacher's decisions in deals ``first .. last-1`` as arrays ``inputs``,
    ``legal`` (outputs) and ``target`` (the output chosen)."""
    from evolve.runtime.play import play

    result = play(game, specs, last - first, seed=seed, start=first, record=True, engine_families=engine_families)
    example = _Example(game, arch)
    rows = []
    for i in range(last - first):
        for seat, hand, lg, mode, pub, card in replay_decisions(game, result, i):
            if seat in mine and count(lg) >= 2:
                rows.append(example(seat, hand, lg, mode, pub, card))
    return _arrays(arch, rows)


def _relabel_chunk(game: Game, arch: Architecture, specs, mine: tuple, teacher: str, seed: int, round_: int,
                   first: int, last: int, engine_families=(), targets: str = "choice") -> dict:
    """The decisions of seats ``mine`` in deals ``first .. last-1`` of DAgger round
    ``round_`` (-1: the teacher's own deals), each labelled with the teacher's card at
    that seat's observation (``agree``: the seat played it); with ``targets = "visits"``
    also the teacher's root visit shares (``soft``)."""
    from evolve.agents.search.card_search import KIND_ISMCTS, root_visits
    from evolve.runtime.decide import Agent
    from evolve.runtime.play import play

    deal_seed = seed if round_ < 0 else dagger_seed(seed, round_)
    result = play(game, specs, last - first, seed=deal_seed, start=first, record=True,
                  engine_families=engine_families)
    judge = Agent(teacher, game.name, seed=deal_seed ^ 0x7EAC, **game.options)
    visits = targets == "visits"
    if visits and judge.spec.play_kind != KIND_ISMCTS:
        raise ValueError(f"imitation.targets = \"visits\" needs an ISMCTS teacher, not {teacher!r}")
    example = _Example(game, arch)
    rows, agree, soft = [], [], []
    for i in range(last - first):
        judge.new_deal(first + i)
        for obs, card in observations(result, i):
            if obs.seat not in mine or obs.decision != "card" or len(obs.legal()) < 2:
                continue
            st = obs.state
            label = judge.play(obs)
            rows.append(example(obs.seat, st.hand, np.uint64(sum(1 << c for c in st.legal)), st.mode, st.pub, label))
            agree.append(label == card)
            if visits:
                n = root_visits(judge.work, game.info.n_cards)
                share = np.zeros(arch.n_out, np.float32)
                for c in st.legal:
                    share[output_index(arch, obs.seat, st.hand, st.pub, c, st.mode)] = n[c]
                soft.append(share / share.sum())
    out = {**_arrays(arch, rows), "agree": np.array(agree, bool)}
    if visits:
        out["soft"] = np.array(soft, np.float32).reshape(-1, arch.n_out)
    return out


def _arrays(arch: Architecture, rows: list) -> dict:
    return {"inputs": np.array([r[0] for r in rows], np.uint8).reshape(-1, arch.n_in),
            "legal": np.array([r[1] for r in rows], bool).reshape(-1, arch.n_out),
            "target": np.array([r[2] for r in rows], np.int64)}


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
        network_inputs(arch.kind, self.params, 0, seat, self.game.rules, np.int64(mode), np.uint64(hand), pub,
                       self.work, self.x)
        row = np.zeros(arch.n_out, bool)
        for c in cards_of(np.uint64(legal)):
            row[output_index(arch, seat, hand, pub, c, mode)] = True
        return self.x.astype(np.uint8), row, output_index(arch, seat, hand, pub, card, mode)


def warm_replay(game: Game, arch: Architecture) -> None:
    """Compile (or load from Numba's cache) what turns a teacher's deals into examples, by
    replaying one random deal as ``collect`` replays the teacher's, so that the workers
    that collect find it compiled (``evolve.runtime.precompile`` runs it beside the
    engine's compile)."""
    from evolve.games.stepper import TrickState

    deck = np.random.default_rng(0).permutation(game.info.n_cards)
    h = game.info.hand_size
    hands = [deck[s * h:(s + 1) * h].tolist() for s in range(4)]
    # the first seat that may lead this deal (Hearts: only the holder of the two of clubs)
    state = next(st for st in (TrickState(game, hands, 0, (1 + k) % 4) for k in range(4)) if st.legal())
    example = _Example(game, arch)
    while not state.done:
        seat = state.to_move
        card = state.legal()[0]
        example(seat, np.uint64(state.hands[seat]), np.uint64(state.legal_mask()), state.mode, state.pub.copy(), card)
        state.play(card)


def _layers(weights: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network as ``evolve.learn.mlp`` layers (the output weights are stored transposed)."""
    return [(weights["W1"], weights["b1"]), (weights["W2"], weights["b2"]), (weights["W3T"].T, weights["b3"])]


def _forward_backward(arch: Architecture, weights: dict, demos: Demonstrations, rows: np.ndarray, grad: bool = True,
                      logits_of: str = "tanh"):
    """Mean cross-entropy and accuracy on ``rows``; with ``grad`` also the gradient as a
    flat vector in genome order. ``logits_of``: see ``LOGITS``."""
    x = demos.inputs[rows].astype(np.float64)
    legal = demos.legal[rows]
    y = demos.target[rows]
    layers = _layers(weights)
    linear = logits_of == "linear"
    acts = mlp.forward(x, layers, linear_output=linear)
    out = acts[-1]
    logits = np.where(legal, out if linear else TEMPERATURE * out, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = np.arange(len(y))
    if demos.soft is None:
        loss = float(-np.log(p[n, y] + 1e-12).mean())
    else:                                   # cross-entropy to the teacher's visit shares
        q = demos.soft[rows].astype(np.float64)
        loss = float(-(q * np.log(p + 1e-12)).sum(axis=1).mean())
    accuracy = float((logits.argmax(axis=1) == y).mean())
    if not grad:
        return loss, accuracy, None
    d = p
    if demos.soft is None:
        d[n, y] -= 1.0
    else:
        d -= q
    d *= (1.0 / len(y)) if linear else TEMPERATURE * (1.0 - out ** 2) / len(y)
    (g1, gb1), (g2, gb2), (g3, gb3) = mlp.backward(acts, layers, d)
    g = {"W1": g1, "b1": gb1, "W2": g2, "b2": gb2, "W3T": g3.T, "b3": gb3}
    g["D"] = np.zeros(DIRECT_FEATURES)      # direct connections are not trained here: they stay 0
    parts = [g[name].ravel() for name, _ in arch.layers if arch.bias or not name.startswith("b")]
    return loss, accuracy, np.concatenate(parts)


# An interrupted training loses at most this much work (``train``'s ``partial``).
PARTIAL_SECONDS = 30.0


def train(arch: Architecture, demos: Demonstrations, epochs: int, learning_rate: float, batch: int, seed: int,
          progress: bool = False, start: np.ndarray | None = None, round_: int = -1, label: str = "imitation: training",
          schedule: str = "constant", held_out: Demonstrations | None = None, init: str = "small",
          logits_of: str = "tanh", partial: Path | None = None,
          every_seconds: float = PARTIAL_SECONDS) -> tuple[np.ndarray, list[dict]]:
    """A genome (weights in [-1, 1]) trained to pick the demonstrated outputs, and the
    loss/accuracy after each epoch (and on ``held_out``, examples it never trains on);
    from ``start`` when given (DAgger round ``round_``), else from random weights drawn as
    ``init`` says (``INITS``). ``schedule = "cosine"`` decays the step size from
    ``learning_rate`` to 0 along a half cosine over the epochs (a noisy teacher's labels
    otherwise keep the weights moving at the full step size to the end). ``logits_of``:
    see ``LOGITS``.

    With ``partial`` (a file path) the training state (weights, Adam's moments, the
    step, the epoch and minibatch reached, the shuffling generator as it was at the
    epoch's start, the history so far) is stored there every ``every_seconds``, and a
    training that finds the file goes on from it: an interrupted training loses at most
    that much work and ends with the same genome, bit for bit."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng([seed, 0x1417] if round_ < 0 else [seed, 0x1417, round_])
    genome = initial_genome(arch, rng, init) if start is None else np.array(start, np.float64)
    m = np.zeros_like(genome)
    v = np.zeros_like(genome)
    step, first_epoch, first_row = 0, 0, 0
    history = []
    shuffler = rng.bit_generator.state
    if partial is not None and Path(partial).is_file():
        genome, m, v, step, first_epoch, first_row, shuffler, history = _read_partial(partial, genome.size)
    weights = arch.unpack(genome)            # views into ``genome`` (biases: zeros when off)
    probe = np.arange(min(len(demos), 20000))
    saved = time.monotonic()
    with threadpool_limits(limits=1, user_api="blas"), \
            progress_line(label, epochs, "epoch", enabled=progress, initial=first_epoch) as bar:
        for epoch in range(first_epoch, epochs):
            # the generator's state before the shuffle is what a resumed training needs
            if epoch > first_epoch:
                shuffler = rng.bit_generator.state
            rng.bit_generator.state = shuffler
            order = rng.permutation(len(demos))
            rate = step_size(learning_rate, schedule, epoch, epochs)
            for row in range(first_row if epoch == first_epoch else 0, len(demos), batch):
                if partial is not None and time.monotonic() - saved >= every_seconds:
                    _write_partial(partial, genome, m, v, step, epoch, row, shuffler, history)
                    saved = time.monotonic()
                _, _, grad = _forward_backward(arch, weights, demos, order[row:row + batch], logits_of=logits_of)
                step += 1
                m, v, delta = adam_step(m, v, step, grad, rate, square_first=True)
                genome -= delta
                np.clip(genome, -1.0, 1.0, out=genome)
            loss, accuracy, _ = _forward_backward(arch, weights, demos, probe, grad=False, logits_of=logits_of)
            record = {"epoch": epoch, "loss": round(loss, 5), "accuracy": round(accuracy, 5)}
            shown = {"loss": f"{loss:.4f}", "accuracy": f"{accuracy:.3f}"}
            if held_out is not None and len(held_out):
                h_loss, h_accuracy, _ = _forward_backward(arch, weights, held_out, np.arange(len(held_out)),
                                                          grad=False, logits_of=logits_of)
                record.update(held_out_loss=round(h_loss, 5), held_out_accuracy=round(h_accuracy, 5))
                shown["held_out"] = f"{h_accuracy:.3f}"
            history.append(record)
            bar.update(1, **shown)
    return genome, history


def _write_partial(path: Path, genome, m, v, step: int, epoch: int, row: int, shuffler: dict, history) -> None:
    """The training state, as plain arrays and JSON (no pickles)."""
    position = {"step": step, "epoch": epoch, "row": row, "shuffler": shuffler, "history": history}
    _store_chunk(Path(path), {"genome": genome, "m": m, "v": v, "position": np.array(json.dumps(position))})


def _read_partial(path: Path, size: int) -> tuple:
    """What ``_write_partial`` stored, checked against the genome's size."""
    stored = read_npz(path, "a stored part-finished imitation training (delete it to train from the start)")
    try:
        position = json.loads(str(stored["position"]))
        arrays = [np.array(stored[k], np.float64) for k in ("genome", "m", "v")]
        fields = (int(position["step"]), int(position["epoch"]), int(position["row"]), position["shuffler"],
                  list(position["history"]))
        np.random.default_rng().bit_generator.state = position["shuffler"]     # a generator's state, or refused
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(f"{path}: not a part-finished imitation training ({e}); delete it to train from the "
                         "start") from None
    if any(a.shape != (size,) for a in arrays):
        raise UsageError(f"{path}: a part-finished training of another network ({arrays[0].size} weights, this "
                         f"one has {size}); delete it to train from the start")
    return (*arrays, *fields)


# How the trainer starts a network (``imitation.init``):
INITS = {
    "small": "every weight 0.3 x U(-1, 1) (the first recipe; wide layers start saturated and stall)",
    "fan_in": "weights U(-1, 1) x sqrt(3 / fan-in) (variance 1 / fan-in, LeCun's), biases 0",
}
# What the softmax over the legal cards is taken of (``imitation.logits``); the agent plays
# the argmax of the output sums either way (its output tanh is monotonic and skipped):
LOGITS = {
    "tanh": f"{TEMPERATURE:g} x tanh(output) (the first recipe: bounded, and its gradient vanishes where the "
            "output saturates)",
    "linear": "the output sums themselves, the values the agent's argmax compares",
}


def initial_genome(arch: Architecture, rng: np.random.Generator, init: str = "small") -> np.ndarray:
    """A random genome to train from, drawn as ``INITS[init]`` says; direct connections
    are 0 (the clone starts without them)."""
    genome = arch.random_genome(rng)
    weights = arch.unpack(genome)
    if init == "small":
        genome *= 0.3
    elif init == "fan_in":
        for name, shape in arch.layers:
            if name.startswith("W"):
                fan_in = shape[1] if name == "W3T" else shape[0]     # W3T is stored [outputs, inputs]
                weights[name] *= np.sqrt(3.0 / fan_in)
            elif name.startswith("b") and arch.bias:
                weights[name][:] = 0.0
    else:
        raise ValueError(f"unknown imitation init {init!r}; expected one of {', '.join(INITS)}")
    if arch.direct:
        weights["D"][:] = 0.0
    return genome


class HeldOutError(ValueError):
    """More decisions held out than the teacher made."""


def step_size(learning_rate: float, schedule: str, epoch: int, epochs: int) -> float:
    """Adam's step size in ``epoch`` (0-based) of ``epochs``: constant, or a half cosine
    from ``learning_rate`` at the first epoch towards 0 after the last."""
    if schedule == "cosine":
        return learning_rate * 0.5 * (1.0 + np.cos(np.pi * epoch / epochs))
    return learning_rate


def split_held_out(demos: Demonstrations, n: int) -> tuple[Demonstrations, Demonstrations | None]:
    """The first examples for training and the last ``n`` kept out (None when ``n`` is 0).
    The examples come in deal order, so the held-out ones are the last deals'
    decisions (the first of those deals perhaps in part), never seen in training."""
    if n <= 0:
        return demos, None
    if n >= len(demos):
        raise HeldOutError(f"imitation.holdout: {n} decisions held out, but the teacher made only {len(demos)}; "
                         "hold out fewer or play more deals")
    cut = len(demos) - n
    return demos.rows(slice(None, cut)), demos.rows(slice(cut, None))


def imitate(game: Game, arch: Architecture, settings: dict, seed: int, progress: bool = False,
            workers: int = 1, engine_families=(), student=None, cache: Path | None = None,
            checkpoint_seconds: float = PARTIAL_SECONDS) -> tuple[np.ndarray, dict]:
    """Collect the teacher's decisions and train a genome on them (``settings`` is the
    config's ``[imitation]`` table), then run its DAgger rounds with ``student`` (the
    run's ``NetworkAgent``); returns the genome and a summary for the run folder. A
    training in progress is stored in ``cache`` every ``checkpoint_seconds`` (``train``'s
    ``partial``)."""
    targets = settings.get("targets", "choice")
    demos = collect(game, arch, settings["teacher"], settings["opponents"], settings["deals"], seed, progress, workers,
                    engine_families, cache, targets)
    demos, held_out = split_held_out(demos, settings.get("holdout", 0))
    genome, history = _trained(cache, "clone", arch, demos, settings["epochs"], settings, seed, progress, None, -1,
                               held_out, checkpoint_seconds)
    summary = {"teacher": settings["teacher"], "opponents": settings["opponents"], "deals": settings["deals"],
               "targets": targets, "decisions": len(demos), "held_out": 0 if held_out is None else len(held_out),
               "epochs": settings["epochs"], "schedule": settings.get("schedule", "constant"),
               "init": settings.get("init", "small"), "logits": settings.get("logits", "tanh"), "history": history}
    rounds = settings.get("dagger_rounds", 0)
    if rounds and student is None:
        raise ValueError("DAgger rounds need the student network agent")
    summary["dagger"] = []
    labeller = settings.get("dagger_teacher") or settings["teacher"]
    # the DAgger trainings go on from the clone, perhaps at a smaller step
    dagger_settings = {**settings, "learning_rate": settings.get("dagger_learning_rate") or settings["learning_rate"]}
    # "relabelled": the first teacher's labels stay out of the DAgger trainings
    parts = [] if settings.get("dagger_data", "joined") == "relabelled" else [demos]
    for r in range(rounds):
        extra, agree = relabel(game, student, genome, labeller, settings["opponents"],
                               settings.get("dagger_deals") or settings["deals"], seed, r, progress, workers,
                               engine_families, cache, targets)
        parts.append(extra)
        demos = Demonstrations.joined(parts)
        genome, hist = _trained(cache, f"dagger{r}", arch, demos, settings.get("dagger_epochs") or settings["epochs"],
                                dagger_settings, seed, progress, genome, r, held_out, checkpoint_seconds)
        summary["dagger"].append({"round": r + 1, "teacher": labeller, "student_decisions": len(extra),
                                  "teacher_agrees": round(agree, 5), "decisions": len(demos), "history": hist})
    if not rounds:
        del summary["dagger"]
    return genome, summary


def _trained(cache: Path | None, name: str, arch: Architecture, demos: Demonstrations, epochs: int, settings: dict,
             seed: int, progress: bool, start: np.ndarray | None, round_: int,
             held_out: Demonstrations | None = None,
             checkpoint_seconds: float = PARTIAL_SECONDS) -> tuple[np.ndarray, list[dict]]:
    """``train``, or its stored result when ``cache`` holds the same training (same data,
    start, settings); a training in progress is stored every ``checkpoint_seconds``."""
    schedule = settings.get("schedule", "constant")
    init, logits_of = settings.get("init", "small"), settings.get("logits", "tanh")
    # the key of a training made before ``schedule``, ``holdout``, ``init`` and ``logits``
    # existed is unchanged
    n_held = 0 if held_out is None else len(held_out)
    later = [] if schedule == "constant" and held_out is None else [schedule, n_held]
    later += [] if (init, logits_of) == ("small", "tanh") else [init, logits_of]
    # the training is float64 whatever number format the second layer plays in
    trained_arch = {k: v for k, v in arch.to_json().items() if k != "layer2"}
    key = hashlib.sha256(json.dumps([name, trained_arch, epochs, settings["learning_rate"], settings["batch"], seed,
                                     settings.get("targets", "choice"),
                                     round_, len(demos), _digest_array(demos.target),
                                     None if start is None else _digest_array(start), *later],
                                    sort_keys=True, default=str).encode()).hexdigest()[:12]
    path = Path(cache) / f"trained-{name}-{key}.npz" if cache is not None else None
    if path is not None and path.is_file():
        stored = _load_chunk(path)
        return stored["genome"], json.loads(str(stored["history"]))
    label = "imitation: training" if round_ < 0 else f"imitation: DAgger round {round_ + 1}, training"
    partial = path.with_name(f"partial-{path.name}") if path is not None else None
    genome, history = train(arch, demos, epochs, settings["learning_rate"], settings["batch"], seed, progress, start,
                            round_, label, schedule, held_out, init, logits_of, partial, checkpoint_seconds)
    if path is not None:
        _store_chunk(path, {"genome": genome, "history": np.array(json.dumps(history))})
        partial.unlink(missing_ok=True)
    return genome, history
