"""Value networks: regression of a seat's side's final result on its observation.

A ``ValueNet`` maps the features of ``evolve.agents.value_core`` (SPEC §3's card-based
locations, the cards each seat has played, the trump mode, points and tricks so far) through
one tanh hidden layer to the seat's side's final result over the deal's maximum. It is
trained by ``python -m evolve.value`` on positions of deals that a named agent plays in the
engine (plain numpy, Adam, a seed fixing it bit for bit; BLAS limited to one thread) and
stored like a champion: ``value.npz`` (the arrays, no pickle) and ``value.json`` (game,
options, sizes, how it was trained, its held-out error).

It serves ``maxvalue:net=PATH,samples=N`` and DMCTS's depth cutoff
``dmcts:value=PATH,depth=k``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from evolve.agents.search import result_scale, seat_result
from evolve.agents.value_core import V_HEADER, features_into, n_features
from evolve.atomic import atomic_write, read_npz
from evolve.errors import UsageError
from evolve.games.state import N_ACTIVE, OUT_SEAT, PHASE, PUB_SIZE, reset_pub
from evolve.games.table import finish_trick, note_play, start_trick
from evolve.games.bits import bit
from evolve.games.rules import P_N_TRICKS, suit_of

VALUE_FILE = "a value.npz written by python -m evolve.value"
FORMAT = 1


@dataclass(frozen=True)
class ValueNet:
    """A trained value network for one game (with its options)."""

    game: str
    options: dict
    w1: np.ndarray      # [n_in, n_hidden]
    b1: np.ndarray      # [n_hidden]
    w2: np.ndarray      # [n_hidden]
    b2: float
    meta: dict = field(default_factory=dict)

    @property
    def n_in(self) -> int:
        return int(self.w1.shape[0])

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    def params(self) -> np.ndarray:
        """The float64 parameter vector the Numba code reads (``value_core``)."""
        return np.concatenate([[self.n_in, self.n_hidden], self.w1.ravel(), self.b1, self.w2, [self.b2]]).astype(
            np.float64)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted results (over the deal's maximum) for feature rows ``x``."""
        return np.tanh(np.asarray(x, np.float64) @ self.w1 + self.b1) @ self.w2 + self.b2


def save_value(directory: str | Path, net: ValueNet) -> Path:
    """Write ``value.npz`` and ``value.json`` into ``directory`` atomically."""
    directory = Path(directory)
    arrays = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": np.array([net.b2])}
    atomic_write(directory / "value.npz", lambda f: np.savez(f, **arrays))
    meta = {"format": FORMAT, "game": net.game, "game_options": net.options, "n_in": net.n_in,
            "n_hidden": net.n_hidden, **net.meta}
    atomic_write(directory / "value.json", lambda f: f.write((json.dumps(meta, indent=2) + "\n").encode()))
    return directory / "value.npz"


def load_value(path: str | Path, game=None) -> ValueNet:
    """Load ``value.npz`` (or its folder) with ``value.json`` beside it; with ``game``,
    check that it was trained for that game and its number of inputs. Anything wrong is
    one ``UsageError`` naming the file."""
    path = Path(path)
    if path.is_dir():
        path = path / "value.npz"
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise UsageError(f"value network {str(path)!r} not found (expected {VALUE_FILE})")
    if not meta_path.is_file():
        raise UsageError(f"value network metadata {str(meta_path)!r} not found (expected beside {path.name})")
    try:
        meta = json.loads(meta_path.read_text())
        n_in, n_hidden, name = int(meta["n_in"]), int(meta["n_hidden"]), str(meta["game"])
        options = dict(meta.get("game_options") or {})
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise UsageError(f"{meta_path}: invalid value network metadata ({e.__class__.__name__}: {e})") from None
    data = read_npz(path, VALUE_FILE)
    shapes = {"w1": (n_in, n_hidden), "b1": (n_hidden,), "w2": (n_hidden,), "b2": (1,)}
    for key, shape in shapes.items():
        if key not in data or data[key].shape != shape:
            got = data[key].shape if key in data else "missing"
            raise UsageError(f"{path}: array {key!r} is {got}, expected shape {shape} ({VALUE_FILE})")
    if game is not None:
        if name != game.name:
            raise UsageError(f"value network {str(path)!r} was trained for {name}, not {game.name}")
        want = int(n_features(game.rules))
        if n_in != want:
            raise UsageError(f"value network {str(path)!r} has {n_in} inputs; {game.name} with these options needs {want}")
    rest = {k: v for k, v in meta.items() if k not in ("format", "game", "game_options", "n_in", "n_hidden")}
    return ValueNet(name, options, *(np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2")),
                    float(data["b2"][0]), rest)


# ----------------------------------------------------------------------------- data


@njit(cache=True)
def _replay_features(rules, modes, dealers, leaders, plays, out_seats, keep, X, y, seats):
    """Replay recorded deals (``plays`` in play order, ``leaders`` per trick) and write,
    before every card, the features of the seat to play into ``X`` and that seat's side's
    final result over the deal's maximum into ``y``. Rows of deals with ``keep`` False are
    skipped. Returns the number of rows written."""
    pub = np.empty(PUB_SIZE, np.int64)
    hands = np.zeros(4, np.uint64)
    n_tricks = rules[P_N_TRICKS]
    row = 0
    for i in range(plays.shape[0]):
        if not keep[i]:
            continue
        mode = modes[i]
        out = out_seats[i]
        n_active = 3 if out >= 0 else 4
        for s in range(4):
            hands[s] = 0
        for t in range(n_tricks):
            s = leaders[i, t]
            for q in range(n_active):
                hands[s] |= bit(plays[i, t * n_active + q])
                s = (s + 1) % 4
                if s == out:
                    s = (s + 1) % 4
        scale = result_scale(rules, mode)
        reset_pub(pub, dealers[i])
        pub[0] = mode
        pub[N_ACTIVE] = n_active
        pub[OUT_SEAT] = out
        pub[PHASE] = 2
        first = row
        for t in range(n_tricks):
            start_trick(pub, t, leaders[i, t])
            s = leaders[i, t]
            led = -1
            for q in range(n_active):
                card = plays[i, t * n_active + q]
                features_into(rules, mode, s, hands[s], pub, scale, X[row])
                seats[row] = s
                row += 1
                if q == 0:
                    led = suit_of(rules, mode, card)
                hands[s] &= ~bit(card)
                note_play(rules, mode, pub, s, card, q, led)
                s = (s + 1) % 4
                if s == out:
                    s = (s + 1) % 4
            finish_trick(rules, mode, pub, t, n_active)
        for r in range(first, row):
            y[r] = seat_result(rules, pub, seats[r]) / scale
    return row


def value_dataset(game, agent: str, deals: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features ``X`` (float32), targets ``y`` and deal index of every position of
    ``deals`` deals that ``agent`` plays in all four seats (passed-out deals skipped)."""
    import evolve

    r = evolve.play(game, [agent] * 4, deals, seed=seed, record=True)
    info = game.info
    keep = r.trump >= 0
    out = np.where(r.alone.astype(bool), (r.maker.astype(np.int64) + 2) % 4, -1)
    n_active = np.where(out >= 0, 3, 4)
    rows = int((n_active * info.n_tricks)[keep].sum())
    X = np.zeros((rows, int(n_features(game.rules))), np.float32)
    y = np.zeros(rows, np.float64)
    seats = np.zeros(rows, np.int64)
    n = _replay_features(game.rules, r.trump.astype(np.int64), r.dealer.astype(np.int64), r.leaders.astype(np.int64),
                         r.plays.astype(np.int64), out.astype(np.int64), keep, X, y, seats)
    assert n == rows
    deal = np.repeat(np.flatnonzero(keep), (n_active * info.n_tricks)[keep])
    return X, y, deal


# ----------------------------------------------------------------------------- training


def train_value(game, agent: str = "random", deals: int = 4000, seed: int = 0, hidden: int = 64,
                epochs: int = 20, batch: int = 256, lr: float = 1e-3, holdout: float = 0.1,
                progress=None) -> ValueNet:
    """Train a value network on ``deals`` deals of ``agent`` (all four seats) by least
    squares with Adam; a held-out fraction of the deals (whole deals) measures the error.
    The seed fixes the deals, the initial weights and the batch order, so the result is
    bit for bit the same (BLAS is held to one thread)."""
    from threadpoolctl import threadpool_limits

    if deals < 10 or hidden < 1 or epochs < 1 or batch < 1 or not (0 < holdout < 1) or lr <= 0:
        raise UsageError("value training: deals >= 10, hidden, epochs and batch >= 1, 0 < holdout < 1 and lr > 0")
    X, y, deal = value_dataset(game, agent, deals, seed)
    rng = np.random.default_rng([seed, 0xA1E])
    test_deals = rng.random(deals) < holdout
    test = test_deals[deal]
    Xtr, ytr, Xte, yte = X[~test], y[~test], X[test], y[test]
    n_in = X.shape[1]
    with threadpool_limits(1):
        w1 = rng.uniform(-1, 1, (n_in, hidden)) / np.sqrt(16.0)
        b1 = np.zeros(hidden)
        w2 = rng.uniform(-1, 1, hidden) / np.sqrt(hidden)
        b2 = float(ytr.mean())
        params = [w1, b1, w2, np.array([b2])]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        step = 0
        for epoch in range(epochs):
            order = rng.permutation(len(ytr))
            for k in range(0, len(order), batch):
                idx = order[k:k + batch]
                xb = Xtr[idx].astype(np.float64)
                h = np.tanh(xb @ params[0] + params[1])
                err = h @ params[2] + params[3][0] - ytr[idx]
                g_out = 2.0 * err / len(idx)
                g_h = np.outer(g_out, params[2]) * (1.0 - h * h)
                grads = [xb.T @ g_h, g_h.sum(axis=0), h.T @ g_out, np.array([g_out.sum()])]
                step += 1
                for p, g, mm, vv in zip(params, grads, m, v):
                    mm *= 0.9
                    mm += 0.1 * g
                    vv *= 0.999
                    vv += 0.001 * g * g
                    p -= lr * (mm / (1 - 0.9 ** step)) / (np.sqrt(vv / (1 - 0.999 ** step)) + 1e-8)
            if progress is not None:
                progress(epoch + 1)
        net = ValueNet(game.name, dict(game.options), params[0], params[1], params[2], float(params[3][0]))
        mse_test = float(np.mean((net.predict(Xte) - yte) ** 2))
        mse_train = float(np.mean((net.predict(Xtr[:20000]) - ytr[:20000]) ** 2))
        baseline = float(np.mean((yte - ytr.mean()) ** 2))
    meta = {"trained_by": agent, "deals": deals, "positions": int(len(y)), "seed": seed, "epochs": epochs,
            "batch": batch, "lr": lr, "holdout": holdout, "mse_test": mse_test, "mse_train_first_20000": mse_train,
            "mse_test_constant": baseline}
    return ValueNet(net.game, net.options, net.w1, net.b1, net.w2, net.b2, meta)
