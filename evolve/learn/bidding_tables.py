"""``python -m evolve.tables euchre``: measure the Euchre bidding tables by bulk play.

    python -m evolve.tables euchre --play cardcounting --deals 4000000 --seed 1 \\
        --out evolve/agents/data/euchre_tables.npz

Plays ``--deals`` deals in the engine with ``record=True``: every seat plays cards with the
``--play`` agent and bids with ``--bidder`` (default ``explore``: each bid decision is
uniformly random with probability ``--epsilon``, else the linear bidder's on the Euchre bidding article's table, so
every
bid is tried on every kind of hand while the other seats bid sensibly; the dealer's
discard is always the linear bidder's). From the recorded plays it measures:

- ``group_all`` / ``group_maker`` [3, 8]: per-card trick-win rate by trump-relative group
  and slot (see ``evolve.agents.bidding.euchre_tables``), over the cards of every active seat /
  of the maker only (``*_n`` the card counts). ``x 32512`` compares with the article's table.
- ``context`` [2, 2, 2, 6, 4, 24]: the maker's per-card trick-win rate by [alone][maker
  leads the first trick][the maker's partner took the upcard][trumps][voids][card], with
  ``context_n`` / ``context_w`` the raw counts; smoothed as (wins + m x prior) / (n + m)
  where the prior is the maker's rate of that card with the same ``alone`` and m =
  ``--pseudo``.
- ``profiles`` [K, 3] / ``outcome`` [K, 8, 3] / ``outcome_n``: every bid decision's hand
  as its group totals (other, shadow, trump; values = the maker table without going
  alone) is assigned to the nearest point of a 4 x 3 x 8 grid of quantiles; per grid point,
  context (round * 4 + pos) and action (pass, make, make alone) the mean hand score of the
  deciding seat's side, shrunk toward the context's mean with the same pseudo-count.
- ``start_linear`` / ``start_group`` / ``start_profile`` / ``start_context``: the bidders'
  "bulk" start vectors; thresholds fitted on the recorded decisions (the cut on the
  bidder's value that maximises the mean score of order / call against pass, by position;
  alone against not alone).
- ``start_logic`` / ``start_logic_profile`` (the article's systems 1 and 2): system 1's
  thresholds fitted the same way on its own values, and the profile table
  (``profiles_logic`` / ``outcome_logic``) built on system 1's group totals.

Writes the ``.npz`` (no pickle) and a ``.json`` beside it with how it was made.
Post-processing runs in Numba over the recorded arrays (no Python loop per card).
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from numba import njit

from evolve.agents.bidding import euchre_tables as eb
from evolve.core.errors import UsageError
from evolve.core.files import atomic_write
from evolve.core.progress import Progress
from evolve.games.trick import next_active

CHUNK = 1 << 15   # deals per engine call (the progress bar moves per chunk)
GRID = (4, 3, 8)     # profile grid levels: other, shadow, trump totals
BANDWIDTH = 0.25
BIN = 0.05           # threshold fit: width of the value bins (tricks)
MIN_BIN = 20         # threshold fit: decisions per action needed in a bin


@njit(cache=True)
def tally(plays, leaders, winners, trump, maker, alone, first_leader, dealer, calls,
          all_n, all_w, mk_n, mk_w, ctx_n, ctx_w):
    """Add one chunk's per-card trick wins to the counters (see the module doc)."""
    n = plays.shape[0]
    cards = np.zeros((4, 5), np.int64)
    won = np.zeros((4, 5), np.int64)
    cnt = np.zeros(4, np.int64)
    for i in range(n):
        t = trump[i]
        if t < 0:
            continue
        m = maker[i]
        al = 1 if alone[i] != 0 else 0
        out = (m + 2) % 4 if al else -1
        na = 3 if al else 4
        cnt[:] = 0
        for tr in range(5):
            seat = leaders[i, tr]
            for q in range(na):
                if q > 0:
                    seat = next_active(seat, out)
                k = cnt[seat]
                cards[seat, k] = plays[i, tr * na + q]
                won[seat, k] = 1 if seat == winners[i, tr] else 0
                cnt[seat] = k + 1
        for s in range(4):
            if s == out:
                continue
            for k in range(5):
                r = eb.rel_index(cards[s, k], t)
                all_n[r] += 1
                all_w[r] += won[s, k]
        mask = np.uint64(0)
        for k in range(5):
            mask |= np.uint64(1) << np.uint64(cards[m, k])
        round1 = False
        for k in range(4):
            if calls[i, k] == eb.CALL_ORDER:
                round1 = True
        took = 1 if (round1 and (m + 2) % 4 == dealer[i]) else 0
        lead = 1 if first_leader[i] == m else 0
        base = eb.context_index(al, lead, took, mask, t)
        for k in range(5):
            r = eb.rel_index(cards[m, k], t)
            mk_n[r] += 1
            mk_w[r] += won[m, k]
            ctx_n[base + r] += 1
            ctx_w[base + r] += won[m, k]


@njit(cache=True)
def decisions(hands, rest, dealer, calls, maker, alone, score, out_hand, out_up, out_suit, out_ctx, out_act, out_score):
    """Every bid decision of a chunk: the seat's dealt hand, upcard, suit named (-1: none),
    context round * 4 + pos, action (0 pass, 1 make, 2 make alone) and its side's score.
    Returns the number written."""
    j = 0
    for i in range(hands.shape[0]):
        d = dealer[i]
        up = rest[i, 0]
        for rnd in range(2):
            for k in range(4):
                v = calls[i, rnd * 4 + k]
                if v < 0:
                    break
                seat = (d + 1 + k) % 4
                mask = np.int64(0)
                for c in range(5):
                    mask |= np.int64(1) << np.int64(hands[i, seat, c])
                side = seat % 2
                out_hand[j] = mask
                out_up[j] = up
                out_ctx[j] = rnd * 4 + (k + 1) % 4
                out_suit[j] = v if (rnd == 1 and v < 4) else -1
                if v == 4:
                    out_act[j] = 0
                else:
                    out_act[j] = 2 if (alone[i] != 0 and maker[i] == seat) else 1
                out_score[j] = score[i, side] - score[i, 1 - side]
                j += 1
    return j


@njit(cache=True)
def decision_values(hand, up, suit, ctx, lin, ctxp, v_lin, v_lin_alone, v_ctx, v_ctx_alone, totals):
    """Per decision: the linear and context bidders' values (for the order / call
    decision and for going alone with the play hand) and the play hand's group totals
    under ``lin``'s values. Round-2 passes use each bidder's best suit."""
    for j in range(hand.shape[0]):
        h = np.uint64(hand[j])
        u = up[j]
        pos = ctx[j] % 4
        rnd = ctx[j] // 4
        banned = u // 6
        if rnd == 0:
            t = banned
            v_lin[j] = eb.table_round1_value(eb.BID_LINEAR, lin, 0, h, u, pos)
            ph = h
            if pos == 0:
                h6 = h | (np.uint64(1) << np.uint64(u))
                ph = h6 & ~(np.uint64(1) << np.uint64(eb.worst_card(lin, 0, h6, t)))
                v_ctx[j] = eb.context_best_discard(ctxp, 0, h6, t)[1]
            else:
                v_ctx[j] = eb.context_value(ctxp, 0, h, t, 0, 1 if pos == 1 else 0, 1 if pos == 2 else 0)
            tc = t
        else:
            ph = h
            t = suit[j]
            tc = t
            if t >= 0:
                v_lin[j] = eb.hand_value(lin, 0, h, t)
                v_ctx[j] = eb.context_value(ctxp, 0, h, t, 0, 1 if pos == 1 else 0, 0)
            else:
                bl = -1e9
                bc = -1e9
                for s in range(4):
                    if s == banned:
                        continue
                    a = eb.hand_value(lin, 0, h, s)
                    b = eb.context_value(ctxp, 0, h, s, 0, 1 if pos == 1 else 0, 0)
                    if a > bl:
                        bl = a
                        t = s
                    if b > bc:
                        bc = b
                        tc = s
                v_lin[j] = bl
                v_ctx[j] = bc
        lead = (
            1 if pos == 1 else 0
        )  # alone or not, only the forehand maker leads (pos 3's partner sits out: pos 2 leads)
        took = 1 if (rnd == 0 and pos == 2) else 0
        v_lin_alone[j] = eb.hand_value(lin, 0, ph, t)
        v_ctx_alone[j] = eb.context_value(ctxp, 0, ph, tc, 1, lead, took)
        g0, g1, g2 = eb.group_totals(lin, 0, ph, t)
        totals[j, 0] = g0
        totals[j, 1] = g1
        totals[j, 2] = g2


@njit(cache=True)
def logic_decision_values(hand, up, suit, ctx, lp, v_logic, v_logic_alone, totals):
    """Per decision, system 1's values (``eb.logic_*`` with parameters ``lp``): for the order
    / call decision, for going alone with the play hand, and the play hand's group totals.
    Round-2 passes use system 1's best suit."""
    for j in range(hand.shape[0]):
        h = np.uint64(hand[j])
        u = up[j]
        pos = ctx[j] % 4
        banned = u // 6
        if ctx[j] // 4 == 0:
            t = banned
            v_logic[j] = eb.logic_round1_value(lp, 0, h, u, pos)
            ph, known = eb.logic_play_hand(lp, 0, h, u, pos)
        else:
            ph = h
            known = np.uint64(1) << np.uint64(u)
            t = suit[j]
            if t >= 0:
                v_logic[j] = eb.logic_hand_value(lp, 0, h, t, known)
            else:
                best = -1e9
                for s in range(4):
                    if s != banned:
                        a = eb.logic_hand_value(lp, 0, h, s, known)
                        if a > best:
                            best = a
                            t = s
                v_logic[j] = best
        v_logic_alone[j] = eb.logic_hand_value(lp, 0, ph, t, known & ~ph)
        g0, g1, g2 = eb.logic_group_totals(lp, 0, ph, t, known)
        totals[j, 0] = g0
        totals[j, 1] = g1
        totals[j, 2] = g2


def fit_threshold(value: np.ndarray, act: np.ndarray, score: np.ndarray, yes: int, no: int) -> float:
    """The cut x maximising the mean score when choosing ``yes`` for value >= x and ``no``
    below, from per-bin mean scores of the two actions (bins of ``BIN`` tricks; bins with
    fewer than ``MIN_BIN`` decisions of either action count as indifferent)."""
    keep = (act == yes) | (act == no)
    if not keep.any():
        return float("nan")
    b = np.floor(value / BIN).astype(np.int64)
    lo = int(b.min())
    b = b - lo
    nb = int(b.max()) + 1
    n_all = np.bincount(b, minlength=nb).astype(np.float64)
    means = []
    for a in (yes, no):
        sel = act == a
        n = np.bincount(b[sel], minlength=nb).astype(np.float64)
        s = np.bincount(b[sel], weights=score[sel].astype(np.float64), minlength=nb)
        means.append(np.where(n >= MIN_BIN, s / np.maximum(n, 1), np.nan))
    diff = means[0] - means[1]
    diff = np.where(np.isfinite(diff), diff, 0.0) * n_all
    gain = np.cumsum(diff[::-1])[::-1]        # gain[x] = sum over bins >= x
    gain = np.append(gain, 0.0)               # choosing "never" gains 0
    x = int(np.argmax(gain))
    return (lo + x) * BIN


def _rates(w, n):
    return np.where(n > 0, w / np.maximum(n, 1), 0.0)


def build_tables(acc: dict, dec: dict, pseudo: float) -> dict:
    """The tables and start vectors from the accumulated counts and decisions."""
    out = {}
    for key in ("all", "maker"):
        n, w = acc[f"{key}_n"], acc[f"{key}_w"]
        out[f"group_{key}"] = _rates(w, n).reshape(3, 8)
        out[f"group_{key}_n"] = n.reshape(3, 8)
    ctx_n = acc["ctx_n"].reshape(eb.CONTEXT_SHAPE)
    ctx_w = acc["ctx_w"].reshape(eb.CONTEXT_SHAPE)
    marg_n = ctx_n.sum(axis=(1, 2, 3, 4))                 # [alone][rel]
    marg_w = ctx_w.sum(axis=(1, 2, 3, 4))
    prior = _rates(marg_w, marg_n)
    out["maker_by_alone"] = prior.reshape(2, 3, 8)
    pr = prior[:, None, None, None, None, :]
    context = (ctx_w + pseudo * pr) / (ctx_n + pseudo) if pseudo > 0 else _rates(ctx_w, ctx_n)
    context = np.where(eb.USED.ravel(), context, 0.0)
    out["context"], out["context_n"], out["context_w"] = context, ctx_n, ctx_w

    values = np.where(eb.USED, prior[0].reshape(3, 8), 0.0)   # the maker's rate, not alone
    lin = eb.LAYOUTS["linear"].join({"values": values, "order_threshold": np.zeros(4),
                                     "call_threshold": np.zeros(4), "alone_threshold": [0.0]})
    ctxp = np.concatenate([context.ravel(), np.zeros(9)])
    m = dec["hand"].shape[0]
    v_lin, v_lin_a, v_ctx, v_ctx_a = (np.zeros(m) for _ in range(4))
    totals = np.zeros((m, 3))
    decision_values(dec["hand"], dec["up"], dec["suit"], dec["ctx"], lin, ctxp, v_lin, v_lin_a, v_ctx, v_ctx_a, totals)
    act, score, ctx = dec["act"], dec["score"], dec["ctx"]

    def thresholds(v, va):
        order = [fit_threshold(v[ctx == p], act[ctx == p], score[ctx == p], 1, 0) for p in range(4)]
        call = [fit_threshold(v[ctx == 4 + p], act[ctx == 4 + p], score[ctx == 4 + p], 1, 0) for p in range(4)]
        made = act >= 1
        al = fit_threshold(va[made], act[made], score[made], 2, 1)
        return {"order_threshold": np.clip(order, 0, 5), "call_threshold": np.clip(call, 0, 5),
                "alone_threshold": np.clip([al], 0, 6)}

    thr_lin = thresholds(v_lin, v_lin_a)
    thr_ctx = thresholds(v_ctx, v_ctx_a)
    out["start_linear"] = eb.LAYOUTS["linear"].join({"values": values, **thr_lin})
    out["start_group"] = eb.LAYOUTS["group"].join({"values": values, "upcard_weight": eb.SIMPLE_UPCARD, **thr_lin})
    out["start_context"] = eb.LAYOUTS["context"].join({"table": context, **thr_ctx})

    profiles, outcome, n = profile_table(totals, ctx, act, score, pseudo)
    out["profiles"], out["outcome"], out["outcome_n"] = profiles, outcome, n
    out["start_profile"] = eb.LAYOUTS["profile"].join({"values": values, "bandwidth": [BANDWIDTH],
                                                       "profiles": profiles, "outcome": outcome})
    out["thresholds_linear"] = np.concatenate(
        [thr_lin[b] for b in ("order_threshold", "call_threshold", "alone_threshold")]
    )
    out["thresholds_context"] = np.concatenate(
        [thr_ctx[b] for b in ("order_threshold", "call_threshold", "alone_threshold")]
    )
    # the article's systems 1 and 2: thresholds and profile table on system 1's probabilities
    lp = eb.logic_default_vector()
    v_logic, v_logic_a = np.zeros(m), np.zeros(m)
    totals_logic = np.zeros((m, 3))
    logic_decision_values(dec["hand"], dec["up"], dec["suit"], dec["ctx"], lp, v_logic, v_logic_a, totals_logic)
    boosts = {"void_boost": lp[:1], "near_void": lp[1:2]}
    thr_logic = thresholds(v_logic, v_logic_a)
    out["start_logic"] = eb.LAYOUTS["logic"].join({**boosts, **thr_logic})
    out["thresholds_logic"] = np.concatenate(
        [thr_logic[b] for b in ("order_threshold", "call_threshold", "alone_threshold")]
    )
    profiles_l, outcome_l, n_l = profile_table(totals_logic, ctx, act, score, pseudo)
    out["profiles_logic"], out["outcome_logic"], out["outcome_logic_n"] = profiles_l, outcome_l, n_l
    out["start_logic_profile"] = eb.LAYOUTS["logic_profile"].join(
        {**boosts, "bandwidth": [BANDWIDTH], "profiles": profiles_l, "outcome": outcome_l})
    for name in ("linear", "group", "profile", "context", "logic", "logic_profile"):
        eb.LAYOUTS[name].check(out[f"start_{name}"], f"measured {name} start vector")
    return out


def profile_table(totals: np.ndarray, ctx: np.ndarray, act: np.ndarray, score: np.ndarray,
                  pseudo: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(profiles [K, 3], outcome [K, 8, 3], counts): a grid of per-dimension quantiles of the
    decisions' group totals, each decision assigned to its nearest grid point, the mean side
    score per point, context and action shrunk toward the context's mean (pseudo-count)."""
    levels = [np.quantile(totals[:, d], (np.arange(L) + 0.5) / L) for d, L in enumerate(GRID)]
    idx = [np.abs(totals[:, d, None] - levels[d][None, :]).argmin(axis=1) for d in range(3)]
    k = (idx[0] * GRID[1] + idx[1]) * GRID[2] + idx[2]
    K = int(np.prod(GRID))
    profiles = np.stack(np.meshgrid(*levels, indexing="ij"), axis=-1).reshape(K, 3)
    cell = (k * eb.N_CTX + ctx) * eb.N_OUT + act
    size = K * eb.N_CTX * eb.N_OUT
    n = np.bincount(cell, minlength=size).astype(np.float64).reshape(K, eb.N_CTX, eb.N_OUT)
    s = np.bincount(cell, weights=score.astype(np.float64), minlength=size).reshape(K, eb.N_CTX, eb.N_OUT)
    base_n, base_s = n.sum(axis=0), s.sum(axis=0)
    base = _rates(base_s, base_n)[None]
    outcome = (s + pseudo * base) / (n + pseudo) if pseudo > 0 else _rates(s, n)
    return profiles, np.clip(outcome, -4, 4), n


def measure(play: str = "cardcounting", deals: int = 100_000, seed: int = 0, *, bidder: str = "explore",
            epsilon: float = 0.5, pseudo: float = 20.0, chunk: int = CHUNK, progress: bool = False) -> dict:
    """Play ``deals`` Euchre deals and return the tables (see the module doc)."""
    from evolve.agents.registry import parse_seat
    from evolve.games.registry import make_game
    from evolve.runtime.play import play as play_deals

    g = make_game("euchre")
    if deals <= 0:
        raise UsageError(f"--deals {deals} is invalid; expected a positive integer")
    if seed < 0:
        raise UsageError(f"--seed {seed} is invalid; expected a non-negative integer")
    if not 0.0 <= epsilon <= 1.0:
        raise UsageError(f"--epsilon {epsilon} is invalid; expected a number in [0, 1]")
    if not pseudo >= 0:
        raise UsageError(f"--pseudo {pseudo} is invalid; expected a number >= 0")
    spec = parse_seat(play, g)
    bid = parse_seat(f"random:bidder={bidder}", g)
    params = bid.bid_params.copy()
    if bidder == "explore":
        params[0] = epsilon
    spec = replace(spec, bid_kind=bid.bid_kind, bid_params=params)
    acc = {k: np.zeros(24, np.int64) for k in ("all_n", "all_w", "maker_n", "maker_w")}
    acc["ctx_n"] = np.zeros(eb.CONTEXT_SIZE, np.int64)
    acc["ctx_w"] = np.zeros(eb.CONTEXT_SIZE, np.int64)
    parts = {k: [] for k in ("hand", "up", "suit", "ctx", "act", "score")}
    bar = Progress(deals, "euchre tables", "deal", enabled=progress, unit_scale=True)
    t0 = time.time()
    for a in range(0, deals, chunk):
        n = min(chunk, deals - a)
        r = play_deals(g, [spec] * 4, n, seed, start=a, record=True)   # dealer of deal i: i % 4
        i64 = lambda x: np.asarray(x, np.int64)
        tally(i64(r.plays), i64(r.leaders), i64(r.winners), i64(r.trump), i64(r.maker), i64(r.alone),
              i64(r.first_leader), i64(r.dealer), i64(r.calls), acc["all_n"], acc["all_w"], acc["maker_n"],
              acc["maker_w"], acc["ctx_n"], acc["ctx_w"])
        cap = 8 * n
        buf = {"hand": np.zeros(cap, np.int64), "up": np.zeros(cap, np.int8), "suit": np.zeros(cap, np.int8),
               "ctx": np.zeros(cap, np.int8), "act": np.zeros(cap, np.int8), "score": np.zeros(cap, np.int8)}
        j = decisions(i64(r.hands), i64(r.rest), i64(r.dealer), i64(r.calls), i64(r.maker), i64(r.alone),
                      i64(r.score), buf["hand"], buf["up"], buf["suit"], buf["ctx"], buf["act"], buf["score"])
        for key in parts:
            parts[key].append(buf[key][:j].copy())
        bar.update(n)
    bar.close()
    dec = {k: np.concatenate(v) for k, v in parts.items()}
    dec = {k: (v.astype(np.int64) if k != "hand" else v) for k, v in dec.items()}
    out = build_tables(acc, dec, pseudo)
    out["decisions"] = np.array(dec["hand"].shape[0])
    out["seconds"] = np.array(time.time() - t0)
    return out


def write_tables(path: str | Path, tables: dict, meta: dict) -> tuple[Path, Path]:
    """Write ``path`` (.npz, no pickle) and the ``.json`` beside it atomically."""
    path = Path(path)
    if path.suffix != ".npz":
        raise UsageError(f"--out {str(path)!r} must end in .npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.asarray(v) for k, v in tables.items()}
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))
    meta_path = path.with_suffix(".json")
    atomic_write(meta_path, lambda f: f.write((json.dumps(meta, indent=2) + "\n").encode()))
    return path, meta_path
