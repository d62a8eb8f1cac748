"""Training the learnt trump chooser (``bidder=learnt``, ``python -m evolve.trump``) for
Jass and Euchre: the Jass paper's Trump Selection Network (its Section 6.3), taught here
by our own search bidder instead of the human games the paper learnt from, which we do
not have. The Euchre data and training are described after the Jass ones (``label_euchre``).

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

from evolve.agents.bidding.euchre_tables import simple_discard
from evolve.agents.bidding.learnt import (
    D_ALONE_CALLED,
    D_ALONE_ORDERED,
    D_CALL,
    D_ORDER,
    EU_ALONE,
    EU_NOT_ALONE,
    EU_OUT,
    EU_PASS,
    N_OUT,
    PUSH,
    TrumpNet,
    calls,
    euchre_calls,
    euchre_inputs,
    euchre_legal,
    inputs,
)
from evolve.agents.bidding.search import (
    DEC_ALONE,
    DEC_CALL,
    DEC_JASS,
    DEC_ORDER,
    DEFAULT_C,
    OFF_MOVE,
    OFF_N,
    WORK_SIZE,
    _eu_simple_call,
    _eu_simple_order,
    search_bid_impl,
)
from evolve.core.optim import adam_step
from evolve.core.pool import map_ordered
from evolve.games.bits import N_STREAMS, bit, seed_key
from evolve.games.dealing import deal_cards
from evolve.games.euchre.hooks import CALL_ORDER, CALL_PASS
from evolve.games.rules import P_DISCARD_UPCARD, P_STICK
from evolve.games.state import CALLS, MAKER, MODE, PHASE, PUB_SIZE, PUSHED, UPCARD, reset_pub
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


# ----------------------------------------------------------------------------- Euchre data
# Example ``i`` of a run with seed ``S`` is a pure function of ``(S, i)``: dealer ``i % 4``,
# the seat at position ``k = (i // 4) % 4`` from the dealer's left, round 1 when
# ``(i // 16) % 2 == 0`` else round 2. Positions are only those that occur: the seats asked
# before it passed, and in round 2 all four passed round 1, each by the simple rule (the
# rule the search itself plays for the other seats). Deal ``i`` of the seed is used when
# it fits, else the first fitting one of the extra deals ``i * ATTEMPTS + a`` of a second
# key (so a forehand's round-1 label is the call bidder=search makes on deal i in the
# engine). Each label is the search's call with its root visit shares; when the seat makes
# trump, its alone decision is labelled too (a second row), after the game's own steps
# (ordered up: the dealer takes the turned card and sheds the simple rule's discard).
# Rows: ``index`` (the example), ``hands``, ``up``, ``pos``, ``decision`` (D_*), ``trump``
# (-1 unless alone), ``must``, ``label`` (output 0..6) and ``visits`` [rows, 7].

ATTEMPTS = 4096
_KEY2 = 0x9E3779B97F4A7C15


@njit(cache=True)
def _euchre_fits(hs, dealer, up, k, round2, stick):
    forehand = (dealer + 1) % 4
    for kk in range(4 if round2 else k):
        s = (forehand + kk) % 4
        if _eu_simple_order(hs[s], s, dealer, up):
            return False
    if round2:
        for kk in range(k):
            s = (forehand + kk) % 4
            if _eu_simple_call(hs[s], up // 6, stick and s == dealer) >= 0:
                return False
    return True


@njit(cache=True)
def _euchre_row(work, decision, n_arms, up_suit, visits, r):
    iw = work.view(np.int64)
    total = 0.0
    for a in range(n_arms):
        total += work[OFF_N + a]
    for a in range(EU_OUT):
        visits[r, a] = 0.0
    for a in range(n_arms):
        m = iw[OFF_MOVE + a]
        if decision == DEC_ORDER:
            o = up_suit if m == 1 else EU_PASS
        elif decision == DEC_CALL:
            o = EU_PASS if m < 0 else m
        else:
            o = EU_ALONE if m == 1 else EU_NOT_ALONE
        visits[r, o] = work[OFF_N + a] / total


@njit(cache=True)
def _label_euchre_chunk(rules, key, key2, start, n, iterations, c, index, hands, up, pos, decision, trump, must,
                        label, visits, valid):
    """Label examples ``start .. start+n-1`` into rows 2j (the bid) and 2j+1 (alone, when
    the seat made trump; ``valid``)."""
    params = np.array([np.float64(iterations), c])
    deck = np.empty(24, np.int64)
    no_decks = np.zeros((0, 24), np.int64)
    pub = np.empty(PUB_SIZE, np.int64)
    rngs = np.empty(N_STREAMS, np.uint64)
    work = np.zeros(WORK_SIZE, np.float64)
    hs = np.zeros(4, np.uint64)
    stick = rules[P_STICK] != 0
    for j in range(n):
        i = start + j
        dealer = i % 4
        k = (i // 4) % 4
        round2 = (i // 16) % 2 == 1
        forehand = (dealer + 1) % 4
        seat = (forehand + k) % 4
        for a in range(ATTEMPTS + 1):
            if a == ATTEMPTS:
                raise ValueError("no fitting Euchre deal found")
            if a == 0:
                deal_cards(key, i, rngs, deck, no_decks, 0)
            else:
                deal_cards(key2, i * ATTEMPTS + a, rngs, deck, no_decks, 0)
            for s in range(4):
                hs[s] = np.uint64(0)
                for q in range(5):
                    hs[s] |= bit(deck[5 * s + q])
            if _euchre_fits(hs, dealer, deck[20], k, round2, stick):
                break
        u = deck[20]
        us = u // 6
        reset_pub(pub, dealer)
        pub[UPCARD] = u
        if round2:
            for kk in range(4):
                pub[CALLS + kk] = CALL_PASS
        for kk in range(k):
            pub[CALLS + (4 if round2 else 0) + kk] = CALL_PASS
        r = 2 * j
        index[r] = i
        index[r + 1] = i
        hands[r] = hs[seat]
        up[r] = u
        up[r + 1] = u
        pos[r] = k
        pos[r + 1] = k
        trump[r] = -1
        valid[r] = True
        valid[r + 1] = False
        if round2:
            mc = stick and seat == dealer
            move = search_bid_impl(DEC_CALL, params, 0, 2, seat, rules, hs[seat], pub, rngs, 1 if mc else 0, 0,
                                   work)
            decision[r] = D_CALL
            must[r] = mc
            _euchre_row(work, DEC_CALL, 3 if mc else 4, us, visits, r)
            made = move
            label[r] = EU_PASS if move < 0 else move
        else:
            move = search_bid_impl(DEC_ORDER, params, 0, 2, seat, rules, hs[seat], pub, rngs, 0, 0, work)
            decision[r] = D_ORDER
            must[r] = False
            _euchre_row(work, DEC_ORDER, 2, us, visits, r)
            made = us if move == 1 else -1
            label[r] = EU_PASS if made < 0 else made
        if made < 0:
            continue
        # the maker's alone decision, after the game's own steps
        if round2:
            pub[CALLS + 4 + k] = made
        else:
            pub[CALLS + k] = CALL_ORDER
            pub[MODE] = made
            pub[PHASE] = 1
            h = hs[dealer]
            choices = h | bit(u) if rules[P_DISCARD_UPCARD] != 0 else h
            d = simple_discard(choices, made)
            hs[dealer] = (h | bit(u)) & ~bit(d)
        pub[MODE] = made
        pub[MAKER] = seat
        move = search_bid_impl(DEC_ALONE, params, 0, 2, seat, rules, hs[seat], pub, rngs, made, 0, work)
        hands[r + 1] = hs[seat]
        decision[r + 1] = D_ALONE_CALLED if round2 else D_ALONE_ORDERED
        trump[r + 1] = made
        must[r + 1] = False
        label[r + 1] = EU_ALONE if move == 1 else EU_NOT_ALONE
        _euchre_row(work, DEC_ALONE, 2, us, visits, r + 1)
        valid[r + 1] = True


EUCHRE_KEYS = ("index", "hands", "up", "pos", "decision", "trump", "must", "label", "visits")


def _label_euchre_task(rules: np.ndarray, seed: int, start: int, n: int, iterations: int, c: float):
    m = 2 * n
    out = {"index": np.zeros(m, np.int64), "hands": np.zeros(m, np.uint64), "up": np.zeros(m, np.int64),
           "pos": np.zeros(m, np.int64), "decision": np.zeros(m, np.int64), "trump": np.zeros(m, np.int64),
           "must": np.zeros(m, np.bool_), "label": np.zeros(m, np.int64), "visits": np.zeros((m, EU_OUT))}
    valid = np.zeros(m, np.bool_)
    key = seed_key(seed)
    _label_euchre_chunk(rules, key, key ^ np.uint64(_KEY2), start, n, iterations, c,
                        *(out[k] for k in EUCHRE_KEYS), valid)
    return {k: v[valid] for k, v in out.items()}


def label_euchre(rules: np.ndarray, n: int, seed: int, iterations: int, c: float = BID_C,
                 workers: int = 1, progress=None) -> dict:
    """``n`` Euchre bidding examples (and the alone decisions of those that make trump)
    labelled by the search bidder (see above); the same for any number of ``workers``."""
    tasks = [(rules, seed, s, min(CHUNK, n - s), iterations, c) for s in range(0, n, CHUNK)]
    parts = []
    for k, part in enumerate(map_ordered(_label_euchre_task, tasks, workers)):
        parts.append(part)
        if progress is not None:
            progress(min((k + 1) * CHUNK, n), n)
    return {k: np.concatenate([p[k] for p in parts]) for k in EUCHRE_KEYS}


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


_EUCHRE_PERMUTATIONS = np.array([p for p in _SUIT_PERMUTATIONS if {p[0], p[3]} in ({0, 3}, {1, 2})], np.int64)


def permute_euchre_suits(x: np.ndarray, y: np.ndarray, legal: np.ndarray,
                         perms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Euchre rows ``x`` [n, 60], targets ``y`` [n, 7] and legal masks with suit s renamed
    ``perms[row, s]``, a renaming that keeps the colours paired (clubs-spades,
    diamonds-hearts), so the bowers stay bowers: hand, turned card, trump and the four
    suit outputs move together."""
    n = x.shape[0]
    rows = np.arange(n)[:, None]
    cards = (perms[:, :, None] * 6 + np.arange(6)[None, None, :]).reshape(n, 24)   # new place of card s*6+r
    xp = np.empty_like(x)
    xp[rows, cards] = x[:, :24]
    xp[rows, 24 + cards] = x[:, 24:48]
    xp[:, 48:56] = x[:, 48:56]
    xp[rows, 56 + perms] = x[:, 56:60]
    yp, lp = y.copy(), legal.copy()
    yp[rows, perms] = y[:, :4]
    lp[rows, perms] = legal[:, :4]
    return xp, yp, lp


def _softmax_masked(z: np.ndarray, legal: np.ndarray) -> np.ndarray:
    z = np.where(legal, z, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def game_of(data: dict) -> str:
    """The game of labelled examples (``label_examples``: jass, ``label_euchre``: euchre)."""
    return "euchre" if "decision" in data else "jass"


def _prepared(data: dict):
    """(game, inputs, legal masks, hard labels, example index of each row, baseline groups)."""
    label = np.asarray(data["label"], np.int64)
    if game_of(data) == "euchre":
        x = euchre_inputs(data["hands"], data["up"], data["pos"], data["decision"], data["trump"])
        legal = euchre_legal(data["up"], data["decision"], data["must"])
        groups = np.asarray(data["decision"]) * 4 + np.asarray(data["pos"])
        return "euchre", x, legal, label, np.asarray(data["index"], np.int64), groups
    second = np.asarray(data["second"], bool)
    legal = np.ones((len(label), N_OUT), bool)
    legal[second, PUSH] = False
    return "jass", inputs(data["hands"], second), legal, label, np.arange(len(label)), second.astype(np.int64)


def split(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out example indices (10% held out, chosen by the seed)."""
    order = np.random.default_rng([seed, 1]).permutation(n)
    n_test = max(1, int(round(n * HOLDOUT)))
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def _split_rows(index: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out rows: a Euchre example's rows (its bid and its alone decision)
    fall on the same side."""
    n = int(index.max()) + 1 if len(index) else 0
    _, test = split(n, seed)
    held = np.isin(index, test)
    return np.flatnonzero(~held), np.flatnonzero(held)


def baseline_accuracy(train_label, train_group, test_label, test_group, n_out: int = N_OUT) -> float:
    """Accuracy of the trivial rule: each seat's most common call in the training data (a
    seat: Jass first or second to be asked; Euchre the decision and the position)."""
    hits = 0
    for g in np.unique(test_group):
        common = np.bincount(train_label[train_group == g], minlength=n_out).argmax()
        hits += int((test_label[test_group == g] == common).sum())
    return hits / max(len(test_label), 1)


def train(data: dict, seed: int, hidden: int = 128, epochs: int = 40, batch: int = 256,
          learning_rate: float = 3e-3, targets: str = "soft", augment: bool = True, progress=None) -> TrumpNet:
    """Fit the network to labelled examples (``label_examples`` or ``label_euchre``);
    returns it with its held-out accuracy and the baseline's in ``meta``. Bit for bit the
    same for one seed. ``progress(epoch, epochs)`` is called after every epoch when given."""
    if targets not in ("soft", "hard"):
        raise ValueError(f"targets must be soft or hard, not {targets!r}")
    game, x_all, legal_all, label, index, _ = _prepared(data)
    n_in, n_out = x_all.shape[1], legal_all.shape[1]
    y_all = data["visits"] if targets == "soft" else np.eye(n_out)[label]
    train_idx, test_idx = _split_rows(index, seed)
    rng = np.random.default_rng([seed, 2])
    # fan-in scaled start: tanh units neither saturated nor dead at the first step
    layers = [(rng.normal(0.0, 1.0 / np.sqrt(10.0), (n_in, hidden)), np.zeros(hidden)),
              (rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, n_out)), np.zeros(n_out))]
    moments = [[np.zeros_like(a) for a in layer] for layer in layers]
    moments2 = [[np.zeros_like(a) for a in layer] for layer in layers]
    t = 0
    n = len(train_idx)
    steps = max(1, epochs * ((n + batch - 1) // batch))
    for epoch in range(epochs):
        order = train_idx[rng.permutation(n)]
        for b0 in range(0, n, batch):
            rows = order[b0:b0 + batch]
            x, y, legal = x_all[rows], y_all[rows], legal_all[rows]
            if augment and game == "jass":
                x, y = permute_suits(x, y, _SUIT_PERMUTATIONS[rng.integers(0, 24, len(rows))])
            elif augment:
                x, y, legal = permute_euchre_suits(x, y, legal, _EUCHRE_PERMUTATIONS[rng.integers(0, 8, len(rows))])
            acts = mlp.forward(x, layers, linear_output=True)
            p = _softmax_masked(acts[-1], legal)
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
    net = TrumpNet(layers[0][0], layers[0][1], layers[1][0], layers[1][1], game=game)
    meta = evaluate(net, data, train_idx, test_idx)
    meta.update({"hidden": hidden, "epochs": epochs, "batch": batch, "learning_rate": learning_rate,
                 "targets": targets, "augment_suits": augment, "train_seed": seed})
    return TrumpNet(net.w1, net.b1, net.w2, net.b2, meta, game)


def predict(net: TrumpNet, data: dict) -> np.ndarray:
    """The network's call on every row of labelled examples (the trainer's output numbers)."""
    if game_of(data) == "euchre":
        return euchre_calls(net, data["hands"], data["up"], data["pos"], data["decision"], data["trump"],
                            data["must"])
    return calls(net, data["hands"], np.asarray(data["second"], bool))


def evaluate(net: TrumpNet, data: dict, train_idx: np.ndarray, test_idx: np.ndarray) -> dict:
    """Held-out accuracy (overall and by seat or decision), the trivial baseline's, and the
    training accuracy (rows ``train_idx`` and ``test_idx``)."""
    game, _, legal, label, index, groups = _prepared(data)
    hit = predict(net, data) == label
    out = {"examples": int(index.max()) + 1 if len(index) else 0, "rows": int(len(label)),
           "held_out": int(len(np.unique(index[test_idx]))), "held_out_rows": int(len(test_idx)),
           "accuracy_test": float(hit[test_idx].mean()), "accuracy_train": float(hit[train_idx].mean()),
           "accuracy_test_baseline": baseline_accuracy(label[train_idx], groups[train_idx], label[test_idx],
                                                       groups[test_idx], legal.shape[1])}
    if game == "jass":
        te_second = np.asarray(data["second"], bool)[test_idx]
        out["accuracy_test_forehand"] = float(hit[test_idx][~te_second].mean())
        out["accuracy_test_second"] = float(hit[test_idx][te_second].mean())
        del out["rows"], out["held_out_rows"]
        return out
    dec = np.asarray(data["decision"])[test_idx]
    for name, sel in (("order", dec == D_ORDER), ("call", dec == D_CALL), ("alone", dec >= D_ALONE_ORDERED)):
        out[f"accuracy_test_{name}"] = float(hit[test_idx][sel].mean()) if sel.any() else float("nan")
        out[f"held_out_{name}"] = int(sel.sum())
    return out
