"""Referee adapter: replay one Spades hand in OpenSpiel's ``spades`` game.

This module replays a hand (deal + bids + card plays) in OpenSpiel (pyspiel,
open_spiel 2.0.2) and reports what OpenSpiel says (trick winners, tricks per
seat, returns, legal card sets), so our Numba engine can be checked against it.

Sources read (the C++ that is compiled into the installed wheel ships with it):
  /tmp/venv/lib/python3.11/site-packages/open_spiel/games/spades/spades.cc
  /tmp/venv/lib/python3.11/site-packages/open_spiel/games/spades/spades.h
  /tmp/venv/lib/python3.11/site-packages/open_spiel/games/spades/spades_scoring.cc
  /tmp/venv/lib/python3.11/site-packages/open_spiel/games/spades/spades_scoring.h
  /tmp/venv/lib/python3.11/site-packages/open_spiel/python/pybind11/games_spades.cc
and, for comparison, github.com/google-deepmind/open_spiel at commit
3cb3d06a32b4e8ce5ac6feaa3f2ad47bc8c64d99, same paths.  That older commit has the
same rules and the same ``Score()``, but its ``ScoreUp()`` has no win/mercy bonus
at all (returns_ = Score(...) only).  Line numbers below are for the installed
2.0.2 files.

Encoding (spades.cc:79-92, spades.h:43-46)
------------------------------------------
* Card action = suit*13 + rank; suits 0..3 = C, D, H, S ("CDHS"); ranks 0..12 =
  2..A ("23456789TJQKA").  That is **exactly our encoding**, so the card
  conversion is the identity (``our_to_os`` / ``os_to_our`` exist only to make
  that explicit and are checked via ``action_to_string`` in the self-test).
* Seats: player 0..3 = North, East, South, West.  Partnership = player & 1
  (spades.cc:101), so {0,2} = N/S and {1,3} = E/W, same as ours.
* Deal (chance): the i-th chance action (i = 0..51) gives card ``action`` to
  player ``i % 4`` (``ApplyDealAction``: ``holder_[card] = history_.size() % 4``,
  spades.cc:477-483).  Verified: the adapter checks every replay's holdings
  with ``private_observation_tensor``.
* Bids: action = 52 + b, b = 0..13, b = 0 is "Nil" (spades.h:67, spades.cc:94).
  One bid per seat, in order 0,1,2,3 (kFirstPlayer = 0); no pass, no blind nil,
  no double nil restriction.  Only constraint (spades.cc:402-419, 488-489):
  a partnership's combined bid may not exceed 13, i.e. the *second* partner to
  bid may only bid 0..13-partner_bid.  (If our engine allows e.g. 7+7 the
  replay is rejected.)
* Play: North (player 0) leads trick 1 (no "2 of clubs" rule); each trick's
  winner leads the next.  ``PlayLegalActions`` (spades.cc:421-451):
    - following: must follow the led suit if able, else any card;
    - leading: if the leader holds any non-spade he must lead a non-spade,
      otherwise (only spades left) any card.
  ``is_spades_broken_`` is initialised false (spades.h:197) and is never set
  anywhere, so **spades are never "broken"**: a spade can be led only when the
  leader holds nothing but spades, no matter how many spades were played
  earlier by discarding/trumping.  Note: the C++ ``ApplyAction`` does NOT check
  legality (only ``holder_[card] == current_player_``, spades.cc:518); the
  adapter does its own check against ``legal_actions()`` (``strict=True``).
* Trick winner (``Trick::Play``, spades.cc:575-593): the highest spade if any
  spade was played, else the highest card of the led suit.
* Single hand: the state is terminal after the 52nd card (spades.cc:533-536).
  Rewards are terminal only; ``returns()`` is all zeros before that.

Scoring (spades_scoring.cc:22-72 ``Score``; spades.cc:549-573 ``ScoreUp``)
-------------------------------------------------------------------------
For partnership P in {0: seats 0&2, 1: seats 1&3}, with bids b_i (0 = nil),
tricks t_i and prior cumulative score S_P (``current_scores_``; always 0 in a
fresh state -- it is only non-zero if someone calls ``set_current_scores``):

    C     = b_p + b_{p+2}                 # nil contributes 0 to the contract
    T     = t_p + t_{p+2}                 # nil bidder's tricks DO count
    NIL   = sum over i in P with b_i == 0 of (+100 if t_i == 0 else -100)
    if T < C:                             # set
        R_P = -10*C + NIL                 # no bags counted when set
    else:                                 # made (always true when C == 0)
        bags = T - C                      # nil bidder's tricks ARE bags too
        R_P  = 10*C + bags + NIL - 100 * ((S_P % 10 + bags) // 10)

The bag penalty uses C++ truncating ``/`` and ``%`` (matters only for a
negative S_P).  With S_P = 0 (single hand) the penalty is exactly
``-100 if bags >= 10 else 0`` and **can trigger within a single hand**
(e.g. bids 1+1 taking 12 tricks, nil+1 taking 11+, or nil+nil taking 10+).
bags <= 13 so at most one -100 per hand.  Note the penalty term uses
``S_P % 10``, i.e. it treats the units digit of the cumulative score as the
bag count.  Examples from spades_test.cc: Score({4,5,5,0},{5,3,5,0},{0,0})[0]
= 91; Score({13,5,0,1},{4,6,1,2},{0,0})[0] = -230.

``ScoreUp`` (2.0.2) then, for P = 0 then P = 1 (sequentially, using the
already-modified score of P=0 when P=1 compares):
    current_scores_[P] += R_P
    if R_P >= win_threshold and R_P > R_other:      R_P += win_or_loss_bonus
    elif mercy_threshold != 0 and R_P <= mercy_threshold and R_P < R_other:
                                                     R_P -= win_or_loss_bonus
    returns()[i] = R_{i % 2}            # i.e. [R_0, R_1, R_0, R_1]
Quirks: the win/mercy test uses the *round* score R_P, not the cumulative
``current_scores_``; the ``use_mercy_rule`` parameter is read but never used
(only ``mercy_threshold != 0`` matters).  A single-hand round score always
lies in [-290, 230] (max: nil + 13, all made = 130 + 100; min: nil + nil, both
nils fail, partnership takes exactly 10 tricks = -100 - 100 + 10 - 100), so with the defaults (win_threshold
500, mercy_threshold -350, win_or_loss_bonus 200) neither bonus can ever fire
and ``returns()`` == R_P.  (Game.min_utility() = -230 understates this; -290
is reachable.)  To make this unconditional we load
``pyspiel.load_game("spades", {"win_or_loss_bonus": 0})`` by default
(``DEFAULT_PARAMS``); the self-test checks this gives identical returns to
the all-defaults game.  ``state.get_current_scores()`` after the hand is
[R_0, R_1] without any bonus; it is reported as ``partnership_scores``.

Trick winners: OpenSpiel exposes no tricks API to Python, so the adapter reads
``state.current_player()`` right after the 4th card of tricks 1..12 (it is set
to the trick winner, spades.cc:527-529) and takes trick 13's winner as the seat
whose "Tricks taken" count (parsed from ``str(state)`` at terminal, which
prints ``num_player_tricks_``) exceeds the count of the first 12 winners.
The parsed counts are cross-checked against the winners.
"""

from __future__ import annotations

import re
from typing import Dict, Optional, Sequence

import numpy as np
import pyspiel

NUM_CARDS = 52
NUM_SEATS = 4
NUM_TRICKS = 13
from evolve.interop.openspiel import SPADES_BID_BASE as BID_ACTION_BASE  # noqa: E402  (kBiddingActionBase)

DEFAULT_PARAMS = {"win_or_loss_bonus": 0}

_SUIT_CHARS = "CDHS"
_RANK_CHARS = "23456789TJQKA"
_GAME_CACHE: Dict[tuple, "pyspiel.Game"] = {}
_TRICKS_RE = re.compile(
    r"Tricks taken:\s*\n\s*North East\s+South\s+West\s*\n\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
)
_SCORE_RE = re.compile(r"Score: N/S (-?[\d.]+) E/W (-?[\d.]+)")


class OpenSpielRejection(ValueError):
    """OpenSpiel rejected (or would reject) an action of the replayed hand."""


def load_spades(params: Optional[dict] = None) -> "pyspiel.Game":
    """Load (cached) OpenSpiel spades. ``params=None`` -> DEFAULT_PARAMS."""
    p = dict(DEFAULT_PARAMS if params is None else params)
    key = tuple(sorted(p.items()))
    g = _GAME_CACHE.get(key)
    if g is None:
        g = pyspiel.load_game("spades", p)
        _GAME_CACHE[key] = g
    return g


# the card mapping of the bots (evolve.interop.openspiel; identical: suit*13+rank, CDHS,
# 2..A), checked here against OpenSpiel
from evolve.interop.openspiel import os_to_our_spades as os_to_our  # noqa: E402
from evolve.interop.openspiel import our_to_os_spades as our_to_os  # noqa: E402


def card_str(card: int) -> str:
    """Same format as OpenSpiel's CardString: suit char then rank char, e.g. 'SA'."""
    return _SUIT_CHARS[card // 13] + _RANK_CHARS[card % 13]


def openspiel_score_breakdown(bids, tricks_per_seat, current_scores=(0, 0)) -> dict:
    """Pure-Python transcription of OpenSpiel's ``spades::Score`` (no win/mercy bonus).

    Returns per-partnership arrays: contract, tricks, made, contract_score,
    bags, bag_penalty, nil_bonus, total (= Score()[P]).
    """
    bids = [int(b) for b in bids]
    t = [int(x) for x in tricks_per_seat]
    out = {k: np.zeros(2, dtype=np.int64) for k in
           ("contract", "tricks", "made", "contract_score", "bags",
            "bag_penalty", "nil_bonus", "total")}
    for p in range(2):
        c = bids[p] + bids[p + 2]
        tt = t[p] + t[p + 2]
        nil = 0
        for i in (p, p + 2):
            if bids[i] == 0:
                nil += -100 if t[i] > 0 else 100
        if tt < c:
            cs, bags, pen = -10 * c, 0, 0
        else:
            cs, bags = 10 * c, tt - c
            s = int(current_scores[p])
            cur = int(np.fmod(s, 10))  # C++ truncating %
            pen = -100 * int((cur + bags) / 10)  # C++ truncating /
        out["contract"][p] = c
        out["tricks"][p] = tt
        out["made"][p] = int(tt >= c)
        out["contract_score"][p] = cs
        out["bags"][p] = bags
        out["bag_penalty"][p] = pen
        out["nil_bonus"][p] = nil
        out["total"][p] = cs + bags + pen + nil
    return out


def _validate(hands, bids, plays):
    hands = np.asarray(hands, dtype=np.int64)
    bids = np.asarray(bids, dtype=np.int64)
    plays = np.asarray(plays, dtype=np.int64)
    if hands.shape != (4, 13):
        raise ValueError(f"hands must have shape (4, 13), got {hands.shape}")
    if bids.shape != (4,):
        raise ValueError(f"bids must have shape (4,), got {bids.shape}")
    if plays.shape != (52,):
        raise ValueError(f"plays must have shape (52,), got {plays.shape}")
    if sorted(hands.ravel().tolist()) != list(range(52)):
        raise ValueError("hands must contain each card id 0..51 exactly once")
    if sorted(plays.tolist()) != list(range(52)):
        raise ValueError("plays must contain each card id 0..51 exactly once")
    if bids.min() < 0 or bids.max() > 13:
        raise ValueError(f"bids must be in 0..13, got {bids.tolist()}")
    return hands, bids, plays


def replay_spades(hands, bids, plays, *, params: Optional[dict] = None,
                  strict: bool = True) -> dict:
    """Replay one hand in OpenSpiel and report OpenSpiel's view of it.

    hands: int[4,13] our card ids per seat; bids: int[4] (0 = nil) for seats
    0..3; plays: int[52] our card ids in play order.
    params: pyspiel.load_game parameters (None -> DEFAULT_PARAMS).
    strict: if True (default) raise OpenSpielRejection as soon as a bid or a
      card is not in OpenSpiel's ``legal_actions()``.  If False, off-rule plays
      are still applied (the C++ only refuses cards the player does not hold)
      and their indices are reported in ``illegal_steps``.

    Returns dict:
      trick_winners   int[13]  seat winning each trick (from OpenSpiel state)
      trick_leaders   int[13]  seat leading each trick
      tricks_per_seat int[4]   OpenSpiel's num_player_tricks_ (parsed)
      players         int[52]  seat that OpenSpiel had to move at each play
      returns         float[4] state.returns() at terminal
      partnership_scores int[2] state.get_current_scores() (no win/mercy bonus)
      is_game_over    bool     state.is_game_over() (win/mercy bonus fired)
      legal           list[52] sorted legal card ids (ours) before each play
      illegal_steps   list[int] plays not in legal set (only if strict=False)
      score_breakdown dict     openspiel_score_breakdown(bids, tricks_per_seat)
                               (our transcription of Score(); self-test checks
                               total == partnership_scores)
    """
    hands, bids, plays = _validate(hands, bids, plays)
    game = load_spades(params)
    state = game.new_initial_state()

    # --- deal: chance action i goes to seat i % 4 -------------------------
    hs = np.sort(hands, axis=1)
    for j in range(13):
        for s in range(4):
            if not state.is_chance_node():
                raise OpenSpielRejection("expected a chance (deal) node")
            state.apply_action(our_to_os(hs[s, j]))
    for s in range(4):
        held = np.flatnonzero(np.asarray(state.private_observation_tensor(s)))
        if held.tolist() != hs[s].tolist():
            raise OpenSpielRejection(
                f"deal mismatch for seat {s}: OpenSpiel holds {held.tolist()}, "
                f"expected {hs[s].tolist()}")

    # --- bidding ------------------------------------------------------------
    for s in range(4):
        cp = state.current_player()
        if cp != s:
            raise OpenSpielRejection(f"bidding: expected seat {s} to bid, OpenSpiel says {cp}")
        action = BID_ACTION_BASE + int(bids[s])
        legal = state.legal_actions()
        if action not in legal:
            raise OpenSpielRejection(
                f"bid {int(bids[s])} by seat {s} rejected by OpenSpiel (legal bids "
                f"{[a - BID_ACTION_BASE for a in legal]}; partnership total must be <= 13); "
                f"bids={bids.tolist()}")
        state.apply_action(action)

    # --- play ---------------------------------------------------------------
    legal_sets = []
    players = np.empty(52, dtype=np.int64)
    winners = np.full(13, -1, dtype=np.int64)
    leaders = np.empty(13, dtype=np.int64)
    illegal_steps = []
    for k in range(52):
        cp = state.current_player()
        if cp < 0:
            raise OpenSpielRejection(f"play {k}: OpenSpiel not expecting a move (player {cp})")
        players[k] = cp
        if k % 4 == 0:
            leaders[k // 4] = cp
        legal = sorted(os_to_our(a) for a in state.legal_actions())
        legal_sets.append(legal)
        card = int(plays[k])
        if card not in legal:
            msg = (f"play {k} (trick {k // 4}, position {k % 4}): seat {cp} plays "
                   f"{card_str(card)} ({card}) but OpenSpiel's legal set is "
                   f"{[card_str(c) for c in legal]}")
            if strict:
                raise OpenSpielRejection(msg)
            illegal_steps.append(k)
        try:
            state.apply_action(our_to_os(card))
        except pyspiel.SpielError as e:  # e.g. card not held by player to move
            raise OpenSpielRejection(f"OpenSpiel refused play {k} "
                                     f"({card_str(card)} by seat {cp}): {e}") from e
        if k % 4 == 3 and k < 51:
            winners[k // 4] = state.current_player()  # set to trick winner

    if not state.is_terminal():
        raise OpenSpielRejection("state not terminal after 52 plays")

    text = str(state)
    m = _TRICKS_RE.search(text)
    if m is None:
        raise RuntimeError("could not parse 'Tricks taken' from OpenSpiel state string")
    tricks_per_seat = np.array([int(x) for x in m.groups()], dtype=np.int64)
    partial = np.bincount(winners[:12], minlength=4)
    diff = tricks_per_seat - partial
    if diff.min() < 0 or diff.sum() != 1:
        raise RuntimeError(f"inconsistent trick counts: parsed {tricks_per_seat}, "
                           f"first 12 winners {winners[:12]}")
    winners[12] = int(np.argmax(diff))

    returns = np.asarray(state.returns(), dtype=np.float64)
    ms = _SCORE_RE.search(text)
    if ms is not None and (float(ms.group(1)) != returns[0] or float(ms.group(2)) != returns[1]):
        raise RuntimeError("OpenSpiel score string disagrees with returns()")

    return {
        "trick_winners": winners,
        "trick_leaders": leaders,
        "tricks_per_seat": tricks_per_seat,
        "players": players,
        "returns": returns,
        "partnership_scores": np.asarray(state.get_current_scores(), dtype=np.int64),
        "is_game_over": bool(state.is_game_over()),
        "legal": legal_sets,
        "illegal_steps": illegal_steps,
        "score_breakdown": openspiel_score_breakdown(bids, tricks_per_seat),
    }


def hand_from_openspiel_history(history: Sequence[int]):
    """Split a terminal OpenSpiel spades history into (hands, bids, plays) in our encoding."""
    h = list(history)
    if len(h) != 52 + 4 + 52:
        raise ValueError(f"expected a full history of 108 actions, got {len(h)}")
    deal = np.array([os_to_our(a) for a in h[:52]], dtype=np.int64)
    hands = np.stack([np.sort(deal[s::4]) for s in range(4)])
    bids = np.array([a - BID_ACTION_BASE for a in h[52:56]], dtype=np.int64)
    plays = np.array([os_to_our(a) for a in h[56:]], dtype=np.int64)
    return hands, bids, plays
