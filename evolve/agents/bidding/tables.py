"""Table bidders whose numbers are genomes: the Jass trump choice and the Spades bid
predictor.

Jass trump choice (bidder kind ``BID_JASS_TABLE``). A mode's score from the hand:

- a trump suit t with n cards of t: 0 if n < ``min_trumps``; otherwise
  (sum of ``trump_rank[r]`` + ``trump_holding[r]`` over the trumps held, + ``long_bonus``
  if n >= 6) x ``length_base`` ** n, plus ``side_rank[r]`` for every other card;
- Obe-abe / Une-ufe: ``safe_value[k]`` x the safe tricks from the top (bottom) of each
  suit, plus ``obe_rank[r]`` / ``une_rank[r]`` for every card;
- push (forehand only): ``push_score``.
The highest score wins (ties to the lower mode, push last). After a push the partner adds
``partner_offset[mode]`` to each mode's score. With the "ranked" numbers (start ``default``;
the Jass paper's Ranked RB rule as ``docs/explanation/search-and-learnt-agents.md`` gives it) it plays exactly as the
``simple`` bidder; with Graf's table (start ``graf``,
and the registered baseline ``bidder=graf``) it is the Graf heuristic: per-card scores,
push when the best mode scores at most 68.

Spades bid predictor (bidder kind ``BID_SPADES_TABLE``). Predicted tricks = ``bias`` +
per side suit of length n: ``side_honour[A/K/Q][min(n, 6) - 1]`` for the honours held and
``short_suit[n]`` for a void or singleton when holding two spades or more; spades:
``spade_honour[A/K/Q][min(n, 6) - 1]`` and ``spade_length[n]``. The bid is
floor(prediction + ``round_offset``), at least 1, or nil (under standard bidding) when it
would be below 1, the prediction is below ``nil_below`` and the highest spade held is at
most ``nil_top_spade`` (a rank 0..12). With the start ``default`` it bids exactly as the
``simple`` rule of thumb.
"""

from __future__ import annotations

import math

import numpy as np

from evolve.core.layout import Block, Layout
from evolve.games.bits import has, kernel

BID_JASS_TABLE = 20
BID_SPADES_TABLE = 30

_RANKS = 9                 # Jass ranks 6, 7, 8, 9, 10, J, Q, K, A (card = suit * 9 + rank)
_PUSH = 6

# --------------------------------------------------------------------------- Jass

JASS_LAYOUT = Layout((
    Block("trump_rank", (_RANKS,), 0.0, 60.0, "score of each trump held, ranks 6..A"),
    Block("trump_holding", (_RANKS,), 0.0, 40.0, "extra score for holding that trump (ranked: J 10, 9 7, A 3)"),
    Block("side_rank", (_RANKS,), 0.0, 40.0, "score of each non-trump card in a trump mode, ranks 6..A"),
    Block("min_trumps", (1,), 0.0, 4.0, "a trump suit with fewer cards scores 0 (ranked: 2)"),
    Block("long_bonus", (1,), 0.0, 300.0, "bonus for 6 trumps or more (ranked: 120)"),
    Block("length_base", (1,), 1.0, 1.5, "the trump score is multiplied by this to the number of trumps"),
    Block("safe_value", (2,), 0.0, 60.0, "Obe-abe / Une-ufe: score per safe trick (ranked: 20)"),
    Block("obe_rank", (_RANKS,), 0.0, 40.0, "Obe-abe: score of each card, ranks 6..A"),
    Block("une_rank", (_RANKS,), 0.0, 40.0, "Une-ufe: score of each card, ranks 6..A"),
    Block("push_score", (1,), 0.0, 400.0, "the forehand pushes when no mode scores more"),
    Block("partner_offset", (6,), -100.0, 100.0, "after a push: added to each mode's score (D, H, S, C, Obe, Une)"),
))

# "ranked" (docs/explanation/search-and-learnt-agents.md): 2 x trump rank
# (6 1, 7 2, 8 3, 9 12, 10 5, J 13, Q 7, K 8, A 9)
_RANKED = {
    "trump_rank": 2.0 * np.array([1, 2, 3, 12, 5, 13, 7, 8, 9], np.float64),
    "trump_holding": np.array([0, 0, 0, 7, 0, 10, 0, 0, 3], np.float64),
    "side_rank": np.zeros(_RANKS), "min_trumps": [2.0], "long_bonus": [120.0], "length_base": [1.15],
    "safe_value": [20.0, 20.0], "obe_rank": np.zeros(_RANKS), "une_rank": np.zeros(_RANKS),
    "push_score": [125.0], "partner_offset": np.zeros(6),
}
# Graf's table (D. Graf 2009), here in rank order 6..A
# (docs/explanation/search-and-learnt-agents.md lists it A..6)
_GRAF = {
    **_RANKED,
    "trump_rank": np.array([5, 5, 5, 19, 6, 25, 7, 10, 15], np.float64),
    "trump_holding": np.zeros(_RANKS),
    "side_rank": np.array([0, 0, 0, 0, 1, 2, 5, 7, 9], np.float64),
    "min_trumps": [0.0], "long_bonus": [0.0], "length_base": [1.0], "safe_value": [0.0, 0.0],
    "obe_rank": np.array([0, 0, 5, 0, 5, 7, 8, 10, 14], np.float64),
    "une_rank": np.array([11, 9, 7, 5, 5, 1, 1, 2, 0], np.float64),
    "push_score": [68.5],         # Graf pushes when the best mode scores at most 68 (scores are integers)
}
JASS_RANKED = JASS_LAYOUT.join(_RANKED)
JASS_GRAF = JASS_LAYOUT.join(_GRAF)
_J = JASS_LAYOUT.offsets
_TRUMP, _HOLD, _SIDE = _J["trump_rank"][0], _J["trump_holding"][0], _J["side_rank"][0]
_MIN, _LONG, _BASE, _SAFE = _J["min_trumps"][0], _J["long_bonus"][0], _J["length_base"][0], _J["safe_value"][0]
_OBE, _UNE, _PUSH_AT, _PARTNER = _J["obe_rank"][0], _J["une_rank"][0], _J["push_score"][0], _J["partner_offset"][0]


@kernel
def _safe_tricks(hand, top_down):
    safe = 0
    for s in range(4):
        for k in range(_RANKS):
            r = _RANKS - 1 - k if top_down else k
            if has(hand, s * _RANKS + r):
                safe += 1
            else:
                break
    return safe


@kernel
def jass_table_score(params, lo, hand, mode, may_push):
    """The score of ``mode`` (0..5, or 6 = push) for ``hand`` under the genome at ``lo``."""
    if mode == _PUSH:
        return params[lo + _PUSH_AT] if may_push else -1.0
    score = 0.0
    if mode >= 4:
        top_down = mode == 4
        score = params[lo + _SAFE + (0 if top_down else 1)] * _safe_tricks(hand, top_down)
        at = lo + (_OBE if top_down else _UNE)
        for c in range(4 * _RANKS):
            if has(hand, c):
                score += params[at + c % _RANKS]
    else:
        n = 0
        for r in range(_RANKS):
            if has(hand, mode * _RANKS + r):
                n += 1
                score += params[lo + _TRUMP + r]
        if n < params[lo + _MIN]:
            score = 0.0
        else:
            if n >= 6:
                score += params[lo + _LONG]
            for r in range(_RANKS):
                if has(hand, mode * _RANKS + r):
                    score += params[lo + _HOLD + r]
            score = score * params[lo + _BASE] ** n
        for c in range(4 * _RANKS):
            if c // _RANKS != mode and has(hand, c):
                score += params[lo + _SIDE + c % _RANKS]
    if not may_push:
        score += params[lo + _PARTNER + mode]
    return score


@kernel
def jass_table_mode(params, lo, hand, may_push):
    """The best mode 0..5, or 6 (push, forehand only)."""
    best = 0
    best_score = jass_table_score(params, lo, hand, 0, may_push)
    for m in range(1, 7):
        v = jass_table_score(params, lo, hand, m, may_push)
        if v > best_score:
            best_score = v
            best = m
    return best


# The Jass paper's "Simple RB" trump choice (bidder kind ``BID_JASS_SURE``, ``bidder=simple_rb``).
# Section 8.2 says only that it "tries to estimate the number of certain tricks that can be
# won"; our reading (docs/reproductions/jass.md): a mode's certain tricks are the cards that
# win whatever the other hands hold as long as they are led from the top: in a trump mode
# the unbroken run of the highest trumps (J, 9, A, K, ...) plus, in every side suit, the
# unbroken run from its ace (A, K, Q, ...; they win once the trumps are drawn); in Obe-abe the
# runs from the ace of every suit, in Une-ufe from the six. Ties go to the mode with more
# cards of its trump suit (Obe and Une: none), then to the lower mode. The forehand pushes
# when no mode has more than ``params[lo]`` - 1 certain tricks (default 3: a third of the
# nine tricks); the partner after a push takes the best mode.
BID_JASS_SURE = 21
JASS_SURE_PUSH_BELOW = 3.0
_TRUMP_ORDER = (5, 3, 8, 7, 6, 4, 2, 1, 0)     # J, 9, A, K, Q, 10, 8, 7, 6 (rank indices 6..A)


@kernel
def _run_from(hand, suit, top_down):
    """The unbroken run of ``suit`` held from its ace down (``top_down``) or its six up."""
    n = 0
    for k in range(_RANKS):
        if has(hand, suit * _RANKS + (_RANKS - 1 - k if top_down else k)):
            n += 1
        else:
            break
    return n


@kernel
def jass_sure_tricks(hand, mode):
    """The Simple RB rule's certain tricks of ``hand`` in ``mode`` 0..5 (see above)."""
    if mode >= 4:
        n = 0
        for s in range(4):
            n += _run_from(hand, s, mode == 4)
        return n
    n = 0
    for r in _TRUMP_ORDER:
        if has(hand, mode * _RANKS + r):
            n += 1
        else:
            break
    for s in range(4):
        if s != mode:
            n += _run_from(hand, s, True)
    return n


@kernel
def jass_sure_mode(params, lo, hi, hand, may_push):
    """The Simple RB rule's mode 0..5, or 6 (push, forehand only); ``params[lo]`` (when
    given) is the number of certain tricks below which the forehand pushes."""
    below = params[lo] if hi > lo else JASS_SURE_PUSH_BELOW
    best = 0
    best_key = -1.0
    for m in range(6):
        length = 0
        if m < 4:
            for r in range(_RANKS):
                if has(hand, m * _RANKS + r):
                    length += 1
        key = jass_sure_tricks(hand, m) + 0.01 * length
        if key > best_key:
            best_key = key
            best = m
    if may_push and best_key < below:
        return _PUSH
    return best


# --------------------------------------------------------------------------- Spades

SPADES_LAYOUT = Layout((
    Block("side_honour", (3, 6), 0.0, 2.0, "tricks for A/K/Q of a side suit by its length 1..6+"),
    Block("short_suit", (2,), 0.0, 2.0, "tricks for a void / singleton side suit when holding two spades or more"),
    Block("spade_honour", (3, 6), 0.0, 2.0, "tricks for the A/K/Q of spades by spade length 1..6+"),
    Block("spade_length", (14,), 0.0, 10.0, "tricks for holding 0..13 spades"),
    Block("bias", (1,), -3.0, 3.0, "added to the prediction"),
    Block("round_offset", (1,), 0.0, 1.0, "bid = floor(prediction + this)"),
    Block("nil_below", (1,), 0.0, 13.0, "standard bidding: nil only when the prediction is below this"),
    Block("nil_top_spade", (1,), 0.0, 12.0, "... and no spade above this rank (0 = 2 .. 12 = A)"),
))
_RULE_OF_THUMB = {
    "side_honour": np.array([[1, 1, 1, 1, 1, 0.5], [0, 0.75, 0.75, 0.75, 0.75, 0], [0, 0, 0.25, 0.25, 0, 0]]),
    "short_suit": [0.5, 0.5],
    "spade_honour": np.array([[1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]], np.float64),
    "spade_length": np.maximum(np.arange(14) - 3, 0).astype(np.float64),
    "bias": [0.0], "round_offset": [0.5], "nil_below": [13.0], "nil_top_spade": [12.0],
}
SPADES_RULE_OF_THUMB = SPADES_LAYOUT.join(_RULE_OF_THUMB)
_S = SPADES_LAYOUT.offsets
_SIDE_H, _SHORT, _SPADE_H, _SPADE_N = (
    _S["side_honour"][0],
    _S["short_suit"][0],
    _S["spade_honour"][0],
    _S["spade_length"][0],
)
_BIAS, _ROUND, _NIL_BELOW, _NIL_TOP = _S["bias"][0], _S["round_offset"][0], _S["nil_below"][0], _S["nil_top_spade"][0]


@kernel
def spades_prediction(params, lo, hand):
    """Predicted tricks of a Spades hand (cards = suit * 13 + rank, spades = suit 3)."""
    est = params[lo + _BIAS]
    n_spades = 0
    for r in range(13):
        if has(hand, 39 + r):
            n_spades += 1
    for s in range(4):
        n = 0
        for r in range(13):
            if has(hand, s * 13 + r):
                n += 1
        bucket = min(n, 6) - 1
        base = lo + (_SPADE_H if s == 3 else _SIDE_H)
        for h in range(3):             # A, K, Q
            if n > 0 and has(hand, s * 13 + 12 - h):
                est += params[base + h * 6 + bucket]
        if s == 3:
            est += params[lo + _SPADE_N + n]
        elif n <= 1 and n_spades >= 2:
            est += params[lo + _SHORT + n]
    return est


@kernel
def spades_table_bid(params, lo, hand, allow_nil, max_bid):
    """The predictor's bid 0..max_bid (0 = nil, only when ``allow_nil``)."""
    est = spades_prediction(params, lo, hand)
    b = np.int64(math.floor(est + params[lo + _ROUND]))
    if b < 1:
        top = -1
        for r in range(13):
            if has(hand, 39 + r):
                top = r
        b = 0 if allow_nil and est < params[lo + _NIL_BELOW] and top <= params[lo + _NIL_TOP] else 1
    if b > max_bid:
        b = max_bid
    return b
