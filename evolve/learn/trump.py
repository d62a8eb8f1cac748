"""Training the learnt Jass trump chooser (``bidder=learnt``, ``python -m evolve.trump``):
the Jass paper's Trump Selection Network (its Section 6.3), taught here by our own search
bidder instead of the human games the paper learnt from, which we do not have.

Data. Example ``i`` of a run with seed ``S`` is a pure function of ``(S, i)``: deal ``i``
of the run (the engine's deck and random streams, ``evolve.games.dealing``), dealer
``i % 4``; even examples ask the forehand (7 calls: four suits, Obe-abe, Une-ufe, push),
odd ones the forehand's partner after a push (6 modes). The label is the call the search
bidder (``evolve.agents.bidding.search``, UCB1 over the calls with determinized random
playouts) makes on that seat's hand and public state with ``iterations`` playouts, and the
soft target its root visit shares. The bidder is called directly (``search_bid_impl``, one
Numba loop over a chunk of examples) with the seat's own random stream, so the labels do
not depend on how the examples are split over workers.

Training. Inputs: the 36-card hand and the "second of the team to be asked" flag; one tanh
hidden layer (``evolve.learn.mlp``); seven outputs under a softmax (push masked for the
second seat), cross-entropy against the visit shares (``targets="soft"``) or the search's
call (``"hard"``), Adam (``evolve.core.optim``) on minibatches. Default Jass rules score
the four suits alike, so every minibatch relabels its hands under a random permutation of
the suits (the four suit outputs permuted with them): the data count 24 times over at no
cost. 10% of the examples (by index) are held out; the accuracy there is the share of
held-out hands on which the network makes the search's call, reported beside the
accuracy of always making the most common call of each seat (the trivial baseline).
A seed fixes the data and the network bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.agents.bidding.learnt import N_IN, N_OUT, PUSH, TrumpNet, calls, inputs
from evolve.agents.bidding.search import DEC_JASS, DEFAULT_C, OFF_N, WORK_SIZE, search_bid_impl
from evolve.core.optim import adam_step
from evolve.core.pool import map_ordered
from evolve.games.bits import N_STREAMS, bit, seed_key
from evolve.games.dealing import deal_cards
from evolve.games.state import CALLS, PUB_SIZE, PUSHED, reset_pub
from evolve.learn import mlp

CHUNK = 256         # examples per task; any split gives the same data
# the UCB1 constant as the seat option ``bid_c`` defaults to it (sqrt 2 to six decimals), so
# that the labels are those of ``bidder=search`` itself (the last digits change near-ties)
BID_C = round(DEFAULT_C, 6)
HOLDOUT = 0.1


@njit(cache=True)
def _label_chunk(rules, key, start, n, iterations, c, hands, second, label, visits):
    """Label examples ``start .. start+n-1`` into rows 0..n-1 (module docstring)."""
    params = np.array([np.float64(iterations), c])
    deck = np.empty(36, np.int64)
    no_decks = np.zeros((0, 36), np.int64)
    pub = np.empty(PUB_SIZE, np.int64)
    rngs = np.empty(N_STREAMS, np.uint64)
    work = np.zeros(WORK_SIZE, np.float64)
    for j in range(n):
        i = start + j
        deal_cards(key, i, rngs, deck, no_decks, 0)
        dealer = i % 4
        reset_pub(pub, dealer)
        forehand = (dealer + 1) % 4
        is_second = i % 2 == 1
        seat = (forehand + 2) % 4 if is_second else forehand
        if is_second:                  # what the partner sees: the forehand pushed
            pub[PUSHED] = 1
            pub[CALLS] = PUSH
        hand = np.uint64(0)
        for k in range(9):
            hand |= bit(deck[seat * 9 + k])
        move = search_bid_impl(DEC_JASS, params, 0, 2, seat, rules, hand, pub, rngs,
                               0 if is_second else 1, 0, work)
        if move < 0:
            raise ValueError("search bidder failed")
        hands[j] = hand
        second[j] = is_second
        label[j] = move
        n_arms = 6 if is_second else 7
        total = 0.0
        for a in range(n_arms):
            total += work[OFF_N + a]
        for a in range(N_OUT):
            visits[j, a] = work[OFF_N + a] / total if a < n_arms else 0.0


def _label_task(rules: np.ndarray, seed: int, start: int, n: int, iterations: int, c: float):
    hands = np.zeros(n, np.uint64)
    second = np.zeros(n, np.bool_)
    label = np.zeros(n, np.int64)
    visits = np.zeros((n, N_OUT), np.float64)
    _label_chunk(rules, seed_key(seed), start, n, iterations, c, hands, second, label, visits)
    return hands, second, label, visits


def label_examples(rules: np.ndarray, n: int, seed: int, iterations: int, c: float = BID_C,
                   workers: int = 1, progress=None) -> dict:
    """``n`` examples labelled by the search bidder with ``iterations`` playouts and UCB1
    constant ``c`` (module docstring): ``hands`` (uint64 masks), ``second`` (bool),
    ``label`` (0..6) and ``visits`` [n, 7] (root visit shares). The same for any number of
    ``workers``; ``progress(done, n)`` is called after every chunk when given."""
    tasks = [(rules, seed, s, min(CHUNK, n - s), iterations, c) for s in range(0, n, CHUNK)]
    parts = []
    for k, part in enumerate(map_ordered(_label_task, tasks, workers)):
        parts.append(part)
        if progress is not None:
            progress(min((k + 1) * CHUNK, n), n)
    hands, second, label, visits = (np.concatenate(x) for x in zip(*parts))
    return {"hands": hands, "second": second, "label": label, "visits": visits}


# ----------------------------------------------------------------------------- training

_SUIT_PERMUTATIONS = np.array([[a, b, c, d] for a in range(4) for b in range(4) for c in range(4) for d in range(4)
                               if len({a, b, c, d}) == 4], np.int64)


def permute_suits(x: np.ndarray, y: np.ndarray, perms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``x`` [n, 37] and targets ``y`` [n, 7] with suit s renamed ``perms[row, s]``
    (cards are suit * 9 + rank; the suit outputs 0..3 move with their suits)."""
    n = x.shape[0]
    rows = np.arange(n)[:, None]
    cards = (perms[:, :, None] * 9 + np.arange(9)[None, None, :]).reshape(n, 36)   # new place of card s*9+r
    xp = np.empty_like(x)
    xp[rows, cards] = x[:, :36]
    xp[:, 36] = x[:, 36]
    yp = y.copy()
    yp[rows, perms] = y[:, :4]
    return xp, yp


def _softmax_masked(z: np.ndarray, second: np.ndarray) -> np.ndarray:
    z = z.copy()
    z[second, PUSH] = -np.inf
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def split(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out example indices (10% held out, chosen by the seed)."""
    order = np.random.default_rng([seed, 1]).permutation(n)
    n_test = max(1, int(round(n * HOLDOUT)))
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def baseline_accuracy(train_label, train_second, test_label, test_second) -> float:
    """Accuracy of the trivial rule: each seat's most common call in the training data."""
    hits = 0
    for flag in (False, True):
        common = np.bincount(train_label[train_second == flag], minlength=N_OUT).argmax()
        hits += int((test_label[test_second == flag] == common).sum())
    return hits / max(len(test_label), 1)


def train(data: dict, seed: int, hidden: int = 128, epochs: int = 40, batch: int = 256,
          learning_rate: float = 3e-3, targets: str = "soft", augment: bool = True, progress=None) -> TrumpNet:
    """Fit the network to labelled examples (``label_examples``); returns it with its
    held-out accuracy and the baseline's in ``meta``. Bit for bit the same for one seed.
    ``progress(epoch, epochs)`` is called after every epoch when given."""
    if targets not in ("soft", "hard"):
        raise ValueError(f"targets must be soft or hard, not {targets!r}")
    hands, second, label = data["hands"], np.asarray(data["second"], bool), np.asarray(data["label"], np.int64)
    y_all = data["visits"] if targets == "soft" else np.eye(N_OUT)[label]
    x_all = inputs(hands, second)
    train_idx, test_idx = split(len(label), seed)
    rng = np.random.default_rng([seed, 2])
    # fan-in scaled start: tanh units neither saturated nor dead at the first step
    layers = [(rng.normal(0.0, 1.0 / np.sqrt(10.0), (N_IN, hidden)), np.zeros(hidden)),
              (rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, N_OUT)), np.zeros(N_OUT))]
    moments = [[np.zeros_like(a) for a in layer] for layer in layers]
    moments2 = [[np.zeros_like(a) for a in layer] for layer in layers]
    t = 0
    n = len(train_idx)
    steps = max(1, epochs * ((n + batch - 1) // batch))
    for epoch in range(epochs):
        order = train_idx[rng.permutation(n)]
        for b0 in range(0, n, batch):
            rows = order[b0:b0 + batch]
            x, y = x_all[rows], y_all[rows]
            if augment:
                x, y = permute_suits(x, y, _SUIT_PERMUTATIONS[rng.integers(0, 24, len(rows))])
            acts = mlp.forward(x, layers, linear_output=True)
            p = _softmax_masked(acts[-1], second[rows])
            grads = mlp.backward(acts, layers, (p - y) / len(rows))
            t += 1
            lr = learning_rate * 0.5 * (1.0 + np.cos(np.pi * (t - 1) / steps))    # cosine decay to 0
            for k, (g_w, g_b) in enumerate(grads):
                new = []
                for q, g in enumerate((g_w, g_b)):
                    moments[k][q], moments2[k][q], step = adam_step(moments[k][q], moments2[k][q], t, g, lr)
                    new.append(layers[k][q] - step)
                layers[k] = (new[0], new[1])
        if progress is not None:
            progress(epoch + 1, epochs)
    net = TrumpNet(layers[0][0], layers[0][1], layers[1][0], layers[1][1])
    meta = evaluate(net, data, train_idx, test_idx)
    meta.update({"hidden": hidden, "epochs": epochs, "batch": batch, "learning_rate": learning_rate,
                 "targets": targets, "augment_suits": augment, "train_seed": seed})
    return TrumpNet(net.w1, net.b1, net.w2, net.b2, meta)


def evaluate(net: TrumpNet, data: dict, train_idx: np.ndarray, test_idx: np.ndarray) -> dict:
    """Held-out accuracy (overall, forehand, second seat), the trivial baseline's, and the
    training accuracy."""
    hands, second, label = data["hands"], np.asarray(data["second"], bool), np.asarray(data["label"])
    pred = calls(net, hands, second)
    hit = pred == label
    te_second = second[test_idx]
    return {
        "examples": int(len(label)), "held_out": int(len(test_idx)),
        "accuracy_test": float(hit[test_idx].mean()),
        "accuracy_test_forehand": float(hit[test_idx][~te_second].mean()),
        "accuracy_test_second": float(hit[test_idx][te_second].mean()),
        "accuracy_train": float(hit[train_idx].mean()),
        "accuracy_test_baseline": baseline_accuracy(label[train_idx], second[train_idx], label[test_idx], te_second),
    }
