"""Training the three-head network (``python -m evolve.dnn``): the card play network of the
Jass paper (Niklaus et al. 2020, Section 6.3: a policy, a value and a card-distribution
head on one trunk), trained here on the deals a named agent plays (a search agent, for P-DMCTS / P-ISMCTS),
not on human games, which this project cannot have.

One tanh hidden layer reads the value network's inputs and what else the seat knows
(``evolve.agents.search.value_net``); three linear heads share it:

- value: the seat's side's final result over the deal's maximum, squared error;
- card distribution: for every card the seat has not seen, which of the four places
  (the next seat, the partner, the previous seat, elsewhere) holds it, a softmax cross
  entropy per card, averaged over those cards;
- policy: the card the agent played, a softmax cross entropy over the legal cards.

The loss is their sum. Adam, plain numpy, BLAS held to one thread: a seed fixes the
deals, the initial weights and the batch order, so the result is bit for bit the same.
"""

from __future__ import annotations

import numpy as np

from evolve.agents.search.value_net import N_HOLDERS, ValueNet, n_known_features
from evolve.core.errors import UsageError
from evolve.core.optim import adam_step
from evolve.core.progress import progress_line
from evolve.learn import mlp
from evolve.learn.value import recorded_positions


def _legal_matrix(legals: np.ndarray, n_cards: int) -> np.ndarray:
    """Rows of legal-card masks as booleans [rows, n_cards]."""
    return ((legals[:, None] >> np.arange(n_cards, dtype=np.uint64)) & np.uint64(1)).astype(bool)


def _heads_loss(out: np.ndarray, y, holders, actions, legal, n_cards: int):
    """The summed loss of the three heads on one batch (``out`` = [value, 4N card logits,
    N policy logits] per row), each head's share, and its gradient with respect to ``out``."""
    n = out.shape[0]
    grad = np.zeros_like(out)
    v = out[:, 0]
    grad[:, 0] = 2.0 * (v - y) / n
    mse = float(np.mean((v - y) ** 2))
    logits = out[:, 1:1 + N_HOLDERS * n_cards].reshape(n, n_cards, N_HOLDERS)
    z = logits - logits.max(axis=2, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=2, keepdims=True)
    mask = holders >= 0
    n_masked = max(int(mask.sum()), 1)
    target = np.where(mask, holders, 0).astype(np.int64)
    picked = np.take_along_axis(p, target[..., None], axis=2)[..., 0]
    card_ce = float(-np.log(np.maximum(picked[mask], 1e-300)).sum() / n_masked)
    g = p.copy()
    np.put_along_axis(g, target[..., None], np.take_along_axis(g, target[..., None], axis=2) - 1.0, axis=2)
    g *= mask[..., None] / n_masked
    grad[:, 1:1 + N_HOLDERS * n_cards] = g.reshape(n, -1)
    pol = out[:, 1 + N_HOLDERS * n_cards:]
    zp = np.where(legal, pol, -np.inf)
    zp -= zp.max(axis=1, keepdims=True)
    pp = np.exp(zp)
    pp /= pp.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    policy_ce = float(-np.log(np.maximum(pp[rows, actions], 1e-300)).mean())
    gp = pp.copy()
    gp[rows, actions] -= 1.0
    grad[:, 1 + N_HOLDERS * n_cards:] = gp / n
    return mse + card_ce + policy_ce, (mse, card_ce, policy_ce), grad


def _scores(net_layers, X, y, holders, actions, legal, n_cards: int) -> dict:
    """Held-out measures: value squared error, card-distribution cross entropy and
    accuracy (the most probable place of each unseen card), policy accuracy."""
    out = mlp.forward(X.astype(np.float64), net_layers, linear_output=True)[-1]
    _, (mse, card_ce, _), _ = _heads_loss(out, y, holders, actions, legal, n_cards)
    n = out.shape[0]
    guess = out[:, 1:1 + N_HOLDERS * n_cards].reshape(n, n_cards, N_HOLDERS).argmax(axis=2)
    mask = holders >= 0
    pol = np.where(legal, out[:, 1 + N_HOLDERS * n_cards:], -np.inf)
    return {"value_mse": mse, "card_cross_entropy": card_ce,
            "card_accuracy": float((guess[mask] == holders[mask]).mean()),
            "policy_accuracy": float((pol.argmax(axis=1) == actions).mean())}


def _uniform_card_scores(holders: np.ndarray) -> float:
    """Accuracy of guessing each unseen card's place uniformly among the places that hold
    unseen cards in that row (the baseline a card head must beat)."""
    mask = holders >= 0
    places = np.stack([(holders == r).any(axis=1) for r in range(N_HOLDERS)], axis=1).sum(axis=1)
    per_row = np.where(mask.any(axis=1), 1.0 / np.maximum(places, 1), 0.0)
    return float((per_row[:, None] * mask).sum() / mask.sum())


def train_dnn(game, agent: str, deals: int = 4000, seed: int = 0, hidden: int = 128, epochs: int = 10,
              batch: int = 256, lr: float = 1e-3, holdout: float = 0.1, workers: int = 1,
              progress: bool = False) -> ValueNet:
    """Train the three-head network on ``deals`` deals that ``agent`` plays in all four
    seats (a held-out fraction of whole deals measures it); ``progress`` shows progress
    lines for the deals and the epochs. The result does not depend on ``workers``."""
    from threadpoolctl import threadpool_limits

    if deals < 10 or hidden < 1 or epochs < 1 or batch < 1 or not (0 < holdout < 1) or lr <= 0:
        raise UsageError("dnn training: deals >= 10, hidden, epochs and batch >= 1, 0 < holdout < 1 and lr > 0")
    n_cards = game.info.n_cards
    d = recorded_positions(game, agent, deals, seed, int(n_known_features(game.rules)), targets=True,
                           workers=workers, progress="dnn: deals" if progress else None)
    rng = np.random.default_rng([seed, 0xD22])
    test = (rng.random(deals) < holdout)[d["deal"]]
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    X, y, holders, actions = d["X"], d["y"], d["holders"], d["actions"]
    legal = _legal_matrix(d["legals"], n_cards)
    n_in, n_out = X.shape[1], 1 + (N_HOLDERS + 1) * n_cards
    with threadpool_limits(1), progress_line("dnn: training", epochs, "epoch", enabled=progress) as bar:
        params = [rng.uniform(-1, 1, (n_in, hidden)) * np.sqrt(3.0 / 16.0), np.zeros(hidden),
                  rng.uniform(-1, 1, (hidden, n_out)) * np.sqrt(3.0 / hidden), np.zeros(n_out)]
        params[3][0] = float(y[train_rows].mean())
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        step = 0
        history = []
        for epoch in range(epochs):
            order = train_rows[rng.permutation(len(train_rows))]
            total = np.zeros(3)
            for k in range(0, len(order), batch):
                idx = np.sort(order[k:k + batch])
                layers = [(params[0], params[1]), (params[2], params[3])]
                acts = mlp.forward(X[idx].astype(np.float64), layers, linear_output=True)
                _, parts, g_out = _heads_loss(acts[-1], y[idx], holders[idx], actions[idx], legal[idx], n_cards)
                total += np.array(parts) * len(idx)
                (g1, gb1), (g2, gb2) = mlp.backward(acts, layers, g_out)
                step += 1
                for j, (p, g) in enumerate(zip(params, (g1, gb1, g2, gb2))):
                    m[j], v[j], delta = adam_step(m[j], v[j], step, g, lr, gains=(0.1, 0.001))
                    p -= delta
            history.append([round(float(x), 5) for x in total / max(len(order), 1)])
            bar.update(1)
        layers = [(params[0], params[1]), (params[2], params[3])]
        scores = _scores(layers, X[test_rows], y[test_rows], holders[test_rows], actions[test_rows],
                         legal[test_rows], n_cards)
    w2, b2 = params[2], params[3]
    c0, c1 = 1, 1 + N_HOLDERS * n_cards
    meta = {"trained_by": agent, "deals": deals, "positions": int(len(y)), "seed": seed, "epochs": epochs,
            "batch": batch, "lr": lr, "holdout": holdout, "held_out": scores,
            "card_accuracy_uniform": _uniform_card_scores(holders[test_rows]),
            "value_mse_constant": float(np.mean((y[test_rows] - y[train_rows].mean()) ** 2)),
            "train_loss_per_epoch": history}
    return ValueNet(game.name, dict(game.options), params[0], params[1], w2[:, 0].copy(), float(b2[0]), meta,
                    wc=w2[:, c0:c1].copy(), bc=b2[c0:c1].copy(), wp=w2[:, c1:].copy(), bp=b2[c1:].copy())
