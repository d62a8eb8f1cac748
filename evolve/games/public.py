"""One seat's view of a deal rebuilt into the engine's public state ``pub``.

The batch engine keeps ``pub`` (``evolve.games.state``) up to date as a deal is played
and hands each agent ``(seat, own hand, pub)``. ``public_state`` rebuilds exactly that
``pub`` from what one seat has seen (the dealer, the calls, the turned card, the tricks
with who played what), replaying the public events with the same Numba functions and in
the same order as each game's ``deal``, so an agent asked for one decision sees the very
array it would have seen inside ``evolve.play``. It also tells which decision is due
(``DECISIONS``), with the arguments the game passes to it, and its legal actions.

Actions (the integers ``calls`` hold and bids return):

- Spades ``bid``: the bid 0..13 (0 is nil under standard bidding);
- Euchre ``order`` (round 1): ``CALL_ORDER`` 5 or ``CALL_PASS`` 4; ``call`` (round 2): a
  suit 0..3 other than the turned card's, or 4 pass; ``alone``: ``CALL_ALONE`` 6 or
  ``CALL_PARTNER`` 7 (play with the partner); ``discard``: the card id the dealer lays
  away (known only to the dealer, so it is never in ``calls``);
- Jass ``trump``: the mode 0..5, or ``JASS_PUSH`` 6 (the forehand only);
- ``card``: a card id.

Every inconsistency (a card that is not in the game, a card seen twice, a trick played
out of turn, a hand of the wrong size, a call out of turn or not allowed) raises
``ValueError`` with one line naming it. Pure rules: no agents here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from evolve.games.bits import ONE, cards_of, mask_of
from evolve.games.euchre import CALL_ORDER, CALL_PASS, SETUP_FIXED_SPADES
from evolve.games.jass import JASS_PUSH
from evolve.games.registry import Game
from evolve.games.rules import P_BIDDING, P_DISCARD_UPCARD, P_PARTNERSHIP, P_SETUP, P_STICK, legal_cards, suit_of
from evolve.games.spades import BID_NONE, BID_STANDARD
from evolve.games.state import (
    ALONE, BIDS, CALLS, MAKER, MODE, N_ACTIVE, OUT_SEAT, PHASE, PUB_SIZE, PUSHED, SIDE_POINTS, TRICKS_WON, UPCARD,
    reset_pub,
)
from evolve.games.table import finish_trick, note_play, start_trick

CALL_ALONE = 6
CALL_PARTNER = 7
DECISIONS = ("bid", "order", "call", "discard", "alone", "trump", "card")
PHASES = ("bid", "play")

_EUCHRE_CALLS = {0: "clubs", 1: "diamonds", 2: "hearts", 3: "spades", CALL_PASS: "pass", CALL_ORDER: "order",
                 CALL_ALONE: "alone", CALL_PARTNER: "partner"}


def action_name(game: Game, decision: str, action: int) -> str:
    """A short readable name of ``action`` taken at ``decision`` ("order", "push",
    "obe-abe", "nil", "QS", ...)."""
    action = int(action)
    if decision in ("card", "discard"):
        return game.info.card_name(action)
    if game.name == "euchre":
        return _EUCHRE_CALLS.get(action, str(action))
    if game.name == "jass":
        return "push" if action == JASS_PUSH else game.info.mode_names[action]
    if game.name == "spades" and action == 0 and game.rules[P_BIDDING] == BID_STANDARD:
        return "nil"
    return str(action)


@dataclass(frozen=True)
class PublicState:
    """The engine's view of one seat at one decision.

    ``pub`` is the engine's public-state array; ``mode`` the trump mode passed to card
    play (-1 before trump is fixed); ``decision`` one of ``DECISIONS``; ``hand`` the mask
    the game hands the deciding agent (the Euchre dealer's discard choices at
    ``discard``); ``legal`` the legal actions, ascending; ``args`` the extra arguments of
    the decision (``allow_nil``/``max_bid``, ``must_call``, ``trump``, ``may_push``);
    ``score`` the deal so far per side (card points in Sueca and Jass, tricks in Spades
    and Euchre; per seat in cut-throat Spades)."""

    pub: np.ndarray
    mode: int
    decision: str
    hand: np.uint64
    legal: tuple[int, ...]
    args: dict
    score: tuple[int, ...]


@njit(cache=True)
def replay_tricks(rules, mode, pub, leader, out_seat, seats, cards, n_tricks_total):
    """Replay the plays ``(seats[k], cards[k])`` from the first trick led by ``leader``
    into ``pub`` (as ``evolve.games.tricks.play_tricks`` does). Returns ``(k, to_move)``:
    ``k`` the index of the first play out of turn (-1 if none) and ``to_move`` the seat
    whose turn it is after the last play (-1 once the deal is over)."""
    n_active = 3 if out_seat >= 0 else 4
    n = seats.shape[0]
    t = 0
    q = 0
    seat = leader
    led = -1
    start_trick(pub, 0, leader)
    for k in range(n):
        if t >= n_tricks_total or seats[k] != seat:
            return k, seat
        card = cards[k]
        if q == 0:
            led = suit_of(rules, mode, card)
        note_play(rules, mode, pub, seat, card, q, led)
        q += 1
        if q < n_active:
            seat = (seat + 1) % 4
            if seat == out_seat:
                seat = (seat + 1) % 4
        else:
            seat = finish_trick(rules, mode, pub, t, n_active)
            t += 1
            q = 0
            if t < n_tricks_total:
                start_trick(pub, t, seat)
            else:
                seat = -1
    return -1, seat


def _card(game: Game, c, what: str) -> int:
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= int(c) < game.info.n_cards:
        raise ValueError(f"{what}: {c!r} is not a card of {game.name}; expected a card id 0..{game.info.n_cards - 1}")
    return int(c)


def _seat(x, what: str, allow_none: bool = False) -> int:
    ok = isinstance(x, (int, np.integer)) and not isinstance(x, bool) and (-1 if allow_none else 0) <= int(x) < 4
    if not ok:
        raise ValueError(f"{what}={x!r} is invalid; expected a seat 0..3" + (" or -1" if allow_none else ""))
    return int(x)


def _pairs(items, what: str) -> list[tuple[int, int]]:
    out = []
    for x in items:
        if not isinstance(x, (tuple, list)) or len(x) != 2:
            raise ValueError(f"{what}: {x!r} is not a (seat, value) pair")
        out.append((_seat(x[0], f"{what} seat"), x[1]))
    return out


def _int(x, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{what}: {x!r} is not an integer")
    return int(x)


def _bidding(game: Game, pub, seat, dealer, phase, trump, upcard, calls, maker, hand_cards):
    """Replay the calls into ``pub`` as the game's ``deal`` does; return (mode, decision,
    args, first leader, out seat, maker, the seat holding the turned card or -1)."""
    rules = game.rules
    fh = (dealer + 1) % 4
    name = game.name
    calls = _pairs(calls, "calls")

    def turn(k, s, who):
        if s != who:
            raise ValueError(f"calls[{k}]: seat {s} called out of turn; seat {who} was to call")

    if name == "spades":
        bidding = int(rules[P_BIDDING])
        if trump not in (0, -1):
            raise ValueError(f"trump={trump} is invalid for spades; expected 0 (spades)")
        n_calls = 0 if bidding == BID_NONE else 4
        if len(calls) > n_calls:
            raise ValueError(f"spades with bidding={game.options['bidding']} has {n_calls} bids; got {len(calls)} calls")
        for k, (s, b) in enumerate(calls):
            turn(k, s, (fh + k) % 4)
            b = _int(b, f"calls[{k}]")
            partner = pub[BIDS + (s + 2) % 4]
            top = 13 - partner if rules[P_PARTNERSHIP] and partner >= 0 else 13
            if not 0 <= b <= top:
                raise ValueError(f"calls[{k}]: bid {b} is invalid; expected 0..{top}")
            pub[BIDS + s] = b
        if phase == "bid":
            if len(calls) == n_calls:
                raise ValueError("phase 'bid' but the bidding is over" if n_calls else
                                 "phase 'bid' but spades with bidding=none has no bids")
            who = (fh + len(calls)) % 4
            if seat != who:
                raise ValueError(f"seat {seat} is not to bid; seat {who} is")
            partner = pub[BIDS + (seat + 2) % 4]
            top = 13 - int(partner) if rules[P_PARTNERSHIP] and partner >= 0 else 13
            return 0, "bid", {"allow_nil": bidding == BID_STANDARD, "max_bid": top}, fh, -1, -1, -1
        if len(calls) != n_calls:
            raise ValueError(f"phase 'play' but only {len(calls)} of {n_calls} bids were made")
        return 0, "card", {}, fh, -1, -1, -1

    if name == "sueca":
        if calls:
            raise ValueError("sueca has no calls")
        if phase != "play":
            raise ValueError("sueca has no bidding phase; expected phase 'play'")
        up = _card(game, upcard, "upcard")
        if trump not in (-1, up // 10):
            raise ValueError(f"trump={trump} does not match the trump card {game.info.card_name(up)} "
                             f"(expected {up // 10})")
        if rules[P_SETUP] == 0 and seat != dealer and up in hand_cards:
            raise ValueError(f"the trump card {game.info.card_name(up)} belongs to the dealer, not seat {seat}")
        pub[UPCARD] = up
        pub[MODE] = up // 10
        leader = 0 if rules[P_SETUP] == 1 else fh
        return up // 10, "card", {}, leader, -1, -1, dealer if rules[P_SETUP] == 0 else -1

    if name == "jass":
        if len(calls) > 2:
            raise ValueError(f"jass has at most two trump calls (push, then the partner's mode); got {len(calls)}")
        mode = -1
        declarer = fh
        for k, (s, a) in enumerate(calls):
            a = _int(a, f"calls[{k}]")
            if k == 0:
                turn(k, s, fh)
                if not 0 <= a <= JASS_PUSH:
                    raise ValueError(f"calls[0]: {a} is invalid; expected a mode 0..5 or 6 (push)")
                pub[CALLS] = a
                if a == JASS_PUSH:
                    pub[PUSHED] = 1
                    declarer = (fh + 2) % 4
                else:
                    mode = a
            else:
                turn(k, s, declarer)
                if mode >= 0 or not 0 <= a <= 5:
                    raise ValueError(f"calls[1]: {a} is invalid; only after a push, and a mode 0..5")
                pub[CALLS + 1] = a
                mode = a
        if phase == "bid":
            if mode >= 0:
                raise ValueError("phase 'bid' but trump is already declared")
            if seat != declarer:
                raise ValueError(f"seat {seat} is not to declare trump; seat {declarer} is")
            return -1, "trump", {"may_push": not calls}, fh, -1, -1, -1
        if mode < 0:
            raise ValueError("phase 'play' but no trump was declared")
        pub[MODE] = mode
        pub[MAKER] = declarer
        return mode, "card", {}, fh, -1, declarer, -1

    # euchre
    up = _card(game, upcard, "upcard")
    pub[UPCARD] = up
    if rules[P_SETUP] == SETUP_FIXED_SPADES:
        if calls or phase != "play":
            raise ValueError("euchre setup=fixed_spades has no bidding; expected no calls and phase 'play'")
        pub[MODE] = 3
        pub[MAKER] = dealer
        pub[ALONE] = 0
        return 3, "card", {}, fh, -1, dealer, -1
    mode, mk, alone = -1, -1, None
    r1 = r2 = 0
    for k, (s, a) in enumerate(calls):
        a = _int(a, f"calls[{k}]")
        if mode >= 0:
            turn(k, s, mk)
            if alone is not None or a not in (CALL_ALONE, CALL_PARTNER):
                raise ValueError(f"calls[{k}]: after trump is made only the maker's 6 (alone) or 7 (partner) follows")
            alone = a == CALL_ALONE
        elif r1 < 4:
            turn(k, s, (fh + r1) % 4)
            if a not in (CALL_PASS, CALL_ORDER):
                raise ValueError(f"calls[{k}]: {a} is invalid in round 1; expected 4 (pass) or 5 (order up)")
            pub[CALLS + r1] = a
            r1 += 1
            if a == CALL_ORDER:
                mode, mk = up // 6, s
                pub[MODE] = mode
                pub[PHASE] = 1
        else:
            turn(k, s, (fh + r2) % 4)
            must = rules[P_STICK] != 0 and s == dealer
            if a == CALL_PASS and must:
                raise ValueError(f"calls[{k}]: stick the dealer: the dealer may not pass")
            if a != CALL_PASS and (not 0 <= a <= 3 or a == up // 6):
                raise ValueError(f"calls[{k}]: {a} is invalid in round 2; expected a suit 0..3 other than "
                                 f"{up // 6} (the turned card's) or 4 (pass)")
            pub[CALLS + 4 + r2] = a
            r2 += 1
            if a != CALL_PASS:
                mode, mk = a, s
    ordered = r1 > 0 and pub[CALLS + r1 - 1] == CALL_ORDER
    if mode >= 0:
        pub[MODE] = mode
        pub[MAKER] = mk
    if phase == "bid":
        if alone is not None:
            raise ValueError("phase 'bid' but the bidding is over")
        if mode < 0:
            if r2 == 4:
                raise ValueError("every seat passed twice: the deal is passed out, no decision is due")
            who = (fh + (r1 if r1 < 4 else r2)) % 4
            if seat != who:
                raise ValueError(f"seat {seat} is not to call; seat {who} is")
            if r1 < 4:
                return -1, "order", {}, fh, -1, -1, -1
            return -1, "call", {"must_call": bool(rules[P_STICK]) and seat == dealer}, fh, -1, -1, -1
        holder = dealer if ordered else -1
        if ordered and seat == dealer and len(hand_cards) == 6:
            pub[MAKER] = -1     # the engine sets the maker after the discard
            return mode, "discard", {"trump": mode}, fh, -1, mk, holder
        if seat != mk:
            raise ValueError(f"seat {seat} is not to decide; the maker {mk} decides to go alone"
                             + (" (after the dealer's discard)" if ordered else ""))
        # at the maker's going-alone decision ``pub`` holds MAKER (set just before it)
        return mode, "alone", {"trump": mode}, fh, -1, mk, holder
    if alone is None:
        raise ValueError("phase 'play' but the bidding is not over (the maker's 6 alone / 7 partner is missing)")
    pub[ALONE] = 1 if alone else 0
    out = (mk + 2) % 4 if alone else -1
    leader = fh if fh != out else (fh + 1) % 4
    return mode, "card", {}, leader, out, mk, dealer if ordered else -1


def rules_setup(game: Game) -> int:
    """The game's ``setup`` option as its index (0 standard)."""
    return int(game.rules[P_SETUP])


def public_state(game: Game, *, seat, dealer, hand, phase, trump, upcard, calls, maker, out_seat, tricks, trick,
                 score=None) -> PublicState:
    """Rebuild the engine's ``pub`` for ``seat`` from its observation (the fields of
    ``evolve.Observation``) and return the decision due; ``ValueError`` (one line) on any
    inconsistency."""
    info = game.info
    seat = _seat(seat, "seat")
    dealer = _seat(dealer, "dealer")
    if phase not in PHASES:
        raise ValueError(f"phase={phase!r} is invalid; expected 'bid' or 'play'")
    trump = _int(trump, "trump")
    if not -1 <= trump < info.n_modes:
        raise ValueError(f"trump={trump} is invalid for {game.name}; expected -1 or a mode 0..{info.n_modes - 1}")
    hand_cards = [_card(game, c, "hand") for c in hand]
    if len(set(hand_cards)) != len(hand_cards):
        raise ValueError("hand: a card appears twice")
    pub = np.empty(PUB_SIZE, np.int64)
    reset_pub(pub, dealer)
    mode, decision, args, leader, out, mk, holder = _bidding(
        game, pub, seat, dealer, phase, trump, upcard, calls, maker, hand_cards)
    fixed = game.name in ("spades", "sueca") or (game.name == "euchre" and rules_setup(game) == SETUP_FIXED_SPADES)
    if phase == "play" and trump != mode and not (fixed and trump == -1):   # -1: implied by the game
        raise ValueError(f"trump={trump} but the calls make it {mode}")
    if phase == "bid" and trump not in (-1, mode):
        raise ValueError(f"trump={trump} but the calls make it {mode}")
    if _int(maker, "maker") != mk:
        raise ValueError(f"maker={maker} but the calls make it {mk}")
    if _int(out_seat, "out_seat") != out:
        raise ValueError(f"out_seat={out_seat} but the calls make it {out}")
    up = int(pub[UPCARD]) if game.name in ("euchre", "sueca") else -1
    if game.name in ("spades", "jass") and upcard != -1:
        raise ValueError(f"upcard={upcard!r} is invalid for {game.name}; expected -1 (no turned card)")

    # the plays
    done = [list(t) for t in tricks]
    n_active = 3 if out >= 0 else 4
    for k, t in enumerate(done):
        if len(t) != n_active:
            raise ValueError(f"tricks[{k}] has {len(t)} cards; a finished trick has {n_active}")
    plays = _pairs([p for t in done for p in t] + list(trick), "tricks")
    if len(trick) >= n_active:
        raise ValueError(f"trick holds {len(trick)} cards; a trick in progress has at most {n_active - 1}")
    if plays and phase != "play":
        raise ValueError("cards were played but phase is 'bid'")
    seats = np.array([s for s, _ in plays], np.int64)
    cards = np.array([_card(game, c, "tricks") for _, c in plays], np.int64)
    seen = set(cards.tolist())
    if len(seen) != len(cards):
        raise ValueError("tricks: a card was played twice")
    if seen & set(hand_cards):
        c = min(seen & set(hand_cards))
        raise ValueError(f"hand holds {info.card_name(c)}, which was already played")
    if game.name == "euchre" and up in hand_cards and not (holder == seat):
        raise ValueError(f"hand holds the turned card {info.card_name(up)} but seat {seat} did not take it up")
    if game.name == "euchre" and up in seen and holder < 0:
        raise ValueError(f"the turned card {info.card_name(up)} was turned down, so nobody can play it")
    if up in seen and holder >= 0 and int(seats[list(cards).index(up)]) != holder:
        raise ValueError(f"the turned card {info.card_name(up)} was played by a seat other than its holder {holder}")
    rules = game.rules
    if phase == "play":
        pub[N_ACTIVE] = n_active
        pub[OUT_SEAT] = out
        pub[PHASE] = 2
        bad, to_move = replay_tricks(rules, mode, pub, leader, out, seats, cards, info.n_tricks)
        if bad >= 0:
            raise ValueError(f"play {bad} ({info.card_name(int(cards[bad]))} by seat {int(seats[bad])}) is out of "
                             f"turn: seat {to_move} was to play" if to_move >= 0 else
                             f"play {bad}: the deal is over after {info.n_tricks} tricks")
        if to_move < 0:
            raise ValueError("the deal is over: no decision is due")
        if seat != to_move:
            raise ValueError(f"seat {seat} is not to play; seat {to_move} is")
    own = int((cards[seats == seat] if len(plays) else cards[:0]).size)
    expect = info.hand_size - own + (1 if decision == "discard" else 0)
    if len(hand_cards) != expect:
        raise ValueError(f"hand has {len(hand_cards)} cards; seat {seat} should hold {expect} "
                         f"({info.hand_size} dealt, {own} played" + (", plus the turned card)" if decision == "discard" else ")"))
    mask = mask_of(np.array(hand_cards, np.int64)) if hand_cards else np.uint64(0)
    if decision == "card":
        legal = tuple(cards_of(legal_cards(rules, mode, mask, pub)))
    elif decision == "discard":
        if rules[P_DISCARD_UPCARD] == 0:
            mask = mask & ~(ONE << np.uint64(up))
        legal = tuple(cards_of(mask))
    elif decision == "bid":
        legal = tuple(range(args["max_bid"] + 1))
    elif decision == "order":
        legal = (CALL_PASS, CALL_ORDER)
    elif decision == "call":
        legal = tuple(s for s in range(4) if s != up // 6) + (() if args["must_call"] else (CALL_PASS,))
    elif decision == "alone":
        legal = (CALL_ALONE, CALL_PARTNER)
    else:
        legal = tuple(range(6)) + ((JASS_PUSH,) if args["may_push"] else ())
    if game.name in ("spades", "euchre"):
        won = [int(x) for x in pub[TRICKS_WON:TRICKS_WON + 4]]
        sc = tuple(won) if not game.partnership else (won[0] + won[2], won[1] + won[3])
    else:
        sc = (int(pub[SIDE_POINTS]), int(pub[SIDE_POINTS + 1]))
    if score is not None and tuple(int(x) for x in score) != sc:
        raise ValueError(f"score={list(score)} does not match the tricks, which give {list(sc)}")
    return PublicState(pub=pub, mode=int(mode), decision=decision, hand=np.uint64(mask), legal=legal, args=args,
                       score=sc)
