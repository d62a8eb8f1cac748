"""Training value networks (``python -m evolve.value``): the positions of deals a named agent
plays in the engine, and least squares with Adam (plain numpy, a seed fixing it bit for bit).
The network itself, its files and its Numba forward pass are in
``evolve.agents.search.value_net``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import njit

from evolve.agents.search.value_net import ValueNet, features_into, n_features
from evolve.core.errors import UsageError
from evolve.core.optim import adam_step
from evolve.core.progress import progress_line
from evolve.games.bits import bit, has
from evolve.games.hooks import legal_cards, result_scale, seat_result
from evolve.games.rules import P_N_CARDS, P_N_TRICKS
from evolve.games.state import ALONE, BIDS, MAKER, MODE, PLAYED_BY, PUB_SIZE, PUSHED, reset_pub
from evolve.games.trick import next_active, open_play, play_step
from evolve.learn import mlp


@njit(cache=True)
def _replay_features(rules, modes, dealers, leaders, plays, out_seats, known, keep, X, y, seats, holders, actions,
                     legals):
    """Replay recorded deals (``plays`` in play order, ``leaders`` per trick) and write,
    before every card, the features of the seat to play into ``X`` and that seat's side's
    final result over the deal's maximum into ``y``. ``known`` [deals, 7] is what the
    bidding made public (maker, Jass push, Euchre alone, four Spades bids). With
    ``holders`` of one row per position (else empty) also: for every card the seat has
    not seen, its holder (0, 1, 2: the seat that many places after the next, 3: out of
    play), -1 for the others; the card played (``actions``) and the legal cards
    (``legals``). Rows of deals with ``keep`` False are skipped. Returns the number of rows
    written."""
    pub = np.empty(PUB_SIZE, np.int64)
    hands = np.zeros(4, np.uint64)
    n_tricks = rules[P_N_TRICKS]
    n_cards = rules[P_N_CARDS]
    targets = holders.shape[0] > 0
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
                s = next_active(s, out)
        start = hands.copy()
        scale = result_scale(rules, mode)
        reset_pub(pub, dealers[i])
        pub[MODE] = mode
        pub[MAKER] = known[i, 0]
        pub[PUSHED] = known[i, 1]
        pub[ALONE] = known[i, 2]
        for s in range(4):
            pub[BIDS + s] = known[i, 3 + s]
        s = open_play(pub, leaders[i, 0], out)
        first = row
        for k in range(n_tricks * n_active):
            card = plays[i, k]
            features_into(rules, mode, s, hands[s], pub, scale, X[row])
            seats[row] = s
            if targets:
                seen = hands[s]
                for r in range(4):
                    seen |= np.uint64(pub[PLAYED_BY + r])
                for c in range(n_cards):
                    holders[row, c] = -1
                    if not has(seen, c):
                        holders[row, c] = 3
                        for r in range(1, 4):
                            if has(start[(s + r) % 4], c):
                                holders[row, c] = r - 1
                actions[row] = card
                legals[row] = legal_cards(rules, mode, hands[s], pub)
            row += 1
            hands[s] &= ~bit(card)
            s = play_step(rules, mode, pub, s, card)
        for r in range(first, row):
            y[r] = seat_result(rules, pub, seats[r]) / scale
    return row


RECORD_FIELDS = ("trump", "alone", "maker", "dealer", "bids", "leaders", "plays")


def _recorded(game, agent: str, deals: int, seed: int, workers: int, progress) -> SimpleNamespace:
    """Play and record ``deals`` deals of ``agent`` in all four seats, in chunks (a progress
    line per chunk); deal i is the same whatever the chunks or ``workers``."""
    from evolve.runtime.play import play

    chunk = deals if progress is None else max(4 * workers, min(deals, 500))
    parts = []
    with progress_line(progress or "", deals, "deal", enabled=progress is not None) as bar:
        for start in range(0, deals, chunk):
            n = min(chunk, deals - start)
            r = play(game, [agent] * 4, n, seed=seed, start=start, record=True, workers=workers)
            parts.append({f: getattr(r, f) for f in RECORD_FIELDS})
            bar.update(n)
    return SimpleNamespace(**{f: np.concatenate([p[f] for p in parts]) for f in RECORD_FIELDS})


def recorded_positions(game, agent: str, deals: int, seed: int, n_in: int, targets: bool = False,
                       workers: int = 1, progress: str | None = None) -> dict:
    """The positions of ``deals`` deals that ``agent`` plays in all four seats (passed-out
    deals skipped): features ``X`` [rows, n_in] (float32), targets ``y`` (the seat's side's
    result over the deal's maximum) and ``deal`` (its index); with ``targets`` also
    ``holders`` [rows, N] (int8), ``actions`` and ``legals`` (``_replay_features``).
    ``progress``: the label of a progress line over the deals played."""
    r = _recorded(game, agent, deals, seed, workers, progress)
    info = game.info
    keep = r.trump >= 0
    out = np.where(r.alone.astype(bool), (r.maker.astype(np.int64) + 2) % 4, -1)
    n_active = np.where(out >= 0, 3, 4)
    rows = int((n_active * info.n_tricks)[keep].sum())
    dealer = r.dealer.astype(np.int64)
    maker = r.maker.astype(np.int64)
    pushed = ((game.name == "jass") & (maker == (dealer + 3) % 4)).astype(np.int64)
    known = np.column_stack([maker, pushed, r.alone.astype(np.int64), r.bids.astype(np.int64)])
    X = np.zeros((rows, n_in), np.float32)
    y = np.zeros(rows, np.float64)
    seats = np.zeros(rows, np.int64)
    n_rows = rows if targets else 0
    holders = np.zeros((n_rows, info.n_cards), np.int8)
    actions = np.zeros(n_rows, np.int64)
    legals = np.zeros(n_rows, np.uint64)
    n = _replay_features(game.rules, r.trump.astype(np.int64), dealer, r.leaders.astype(np.int64),
                         r.plays.astype(np.int64), out.astype(np.int64), known, keep, X, y, seats, holders, actions,
                         legals)
    assert n == rows
    deal = np.repeat(np.flatnonzero(keep), (n_active * info.n_tricks)[keep])
    data = {"X": X, "y": y, "deal": deal}
    if targets:
        data.update(holders=holders, actions=actions, legals=legals)
    return data


def value_dataset(game, agent: str, deals: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features ``X`` (float32), targets ``y`` and deal index of every position of
    ``deals`` deals that ``agent`` plays in all four seats (passed-out deals skipped)."""
    d = recorded_positions(game, agent, deals, seed, int(n_features(game.rules)))
    return d["X"], d["y"], d["deal"]


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
                layers = [(params[0], params[1]), (params[2], params[3][0])]
                acts = mlp.forward(Xtr[idx].astype(np.float64), layers, linear_output=True)
                g_out = 2.0 * (acts[-1] - ytr[idx]) / len(idx)
                (g1, gb1), (g2, gb2) = mlp.backward(acts, layers, g_out)
                grads = [g1, gb1, g2, np.array([gb2])]
                step += 1
                for j, (p, g) in enumerate(zip(params, grads)):
                    m[j], v[j], delta = adam_step(m[j], v[j], step, g, lr, gains=(0.1, 0.001))
                    p -= delta
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
