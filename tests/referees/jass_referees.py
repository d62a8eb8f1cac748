"""Referee adapters for Jass (Schieber): jass-kit (primary) and pyschieber (second opinion).

Our encoding (engine ``evolve``)
--------------------------------
* card id = suit * 9 + rank
  suits 0..3 = diamonds, hearts, spades, clubs
  rank 0..8 = 6, 7, 8, 9, 10, J, Q, K, A
* mode 0..3 = that suit is trump, 4 = Obe-abe, 5 = Une-ufe
* seats 0..3 in play order (next seat = s + 1), teams {0, 2} and {1, 3};
  ``forehand`` leads trick 1, afterwards the trick winner leads.

jass-kit 2.0.5 (``jass`` package) -- verified in the installed source
-------------------------------------------------------------------
* cards (jass/game/const.py:84-126): id = suit * 9 + offset, suits D, H, S, C (same order
  as ours), offset 0..8 = A, K, Q, J, 10, 9, 8, 7, 6  ->  jk = suit * 9 + (8 - rank).
  The map is an involution (applying it twice gives back the id).
* trump codes (const.py:34-49): 0..3 = D, H, S, C, 4 = OBE_ABE, 5 = UNE_UFE, 10 = PUSH
  -> identical to our mode numbers.
* players (const.py:23-28, 305): N=0, E=1, S=2, W=3; ``next_player = [3, 0, 1, 2]``, i.e. play
  goes p -> p - 1 (mod 4).  Teams (const.py:320, game_sim.py:155) are {0, 2} and {1, 3}.
  Seat map used here: jk_player = (-seat) % 4 (0->0, 1->3, 2->2, 3->1).  It preserves
  parity, so team 0 = {0, 2} in both numberings, and seat + 1 maps to jk_player - 1.
* forehand = next_player[dealer] (game_sim.py:35), so dealer = (jk_forehand + 1) % 4.

pyschieber 1.3.2 -- verified in the installed source
----------------------------------------------------
* Card(suit, value) with Suit enum ROSE, BELL, ACORN, SHIELD (suit.py) and value 6..14
  (6,7,8,9,10=Banner,11=Under,12=Ober,13=Koenig,14=Ass; card.py:5).  Mapping of our suits
  (rules are suit-symmetric, we use the traditional correspondence also used in jass-kit's
  comments, const.py:34-41): D -> BELL (Schellen), H -> ROSE, S -> SHIELD (Schilten),
  C -> ACORN (Eichel).  value = rank + 6.
* Trumpf enum (trumpf.py): OBE_ABE, UNDE_UFE, ROSE, BELL, ACORN, SHIELD, SCHIEBEN.
* seats: Game.players = [t0p0, t1p0, t0p1, t1p1] (game.py:17), play order
  (start + i) % 4 (game.py:61, 108-110), team = index % 2 (game.py:94)
  -> identical to ours, seat map is the identity.
* Game.add_points multiplies by a counting factor (game.py:98); we call
  ``count_stich`` directly (factor 1).

KNOWN QUIRKS (deviations from the standard rule we implement)
-------------------------------------------------------------
1. jass-kit, jass/game/rule_schieber.py:83-103 (used at 135-147): for a side-suit trick
   containing trumps, the undertrump threshold ``lowest_trump_played`` is the trump with
   the *largest card index* (line 98: ``if lowest_trump_played < current_trick[2]``),
   i.e. the trump that is lowest in plain A..6 order, instead of the highest trump
   (by trump order) in the trick.  Effect: with two trumps in the trick where the one
   lower in plain order is not the winning trump (e.g. T10 then TA, or TJ then T6 from an
   all-trump hand), the 4th player may play trumps that rank between the two, i.e. it
   ALLOWS some undertrumps.  It never forbids a standard-legal card.
2. pyschieber, pyschieber/rules/stich_rules.py:76-87 (``does_under_trumpf``, called from
   ``card_allowed`` at line 65-67): when the hand holds only trumps (line 81 fails) it
   still forbids every trump that would not beat the table (lines 84-86) as long as some
   trump in hand could beat it, i.e. an all-trump hand is FORCED TO OVERTRUMP, whereas the
   standard rule allows any trump then.  It never allows a standard-illegal card.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

# ---------------------------------------------------------------------------------------
# our encoding + clean plain-Python reference rules
# ---------------------------------------------------------------------------------------
SUIT_NAMES = "DHSC"
RANK_NAMES = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
R6, R7, R8, R9, R10, RJ, RQ, RK, RA = range(9)
OBE, UNE = 4, 5

# trump strength indexed by rank: J > 9 > A > K > Q > 10 > 8 > 7 > 6
TRUMP_STRENGTH = (0, 1, 2, 7, 3, 8, 4, 5, 6)
#                 6  7  8  9 10  J  Q  K  A
TRUMP_POINTS = (0, 0, 0, 14, 10, 20, 3, 4, 11)
SIDE_POINTS = (0, 0, 0, 0, 10, 2, 3, 4, 11)
OBE_POINTS = (0, 0, 8, 0, 10, 2, 3, 4, 11)
UNE_POINTS = (11, 0, 8, 0, 10, 2, 3, 4, 0)


def suit_of(c: int) -> int:
    return int(c) // 9


def rank_of(c: int) -> int:
    return int(c) % 9


def card_str(c: int) -> str:
    return SUIT_NAMES[suit_of(c)] + RANK_NAMES[rank_of(c)]


def card_points(c: int, mode: int) -> int:
    s, r = suit_of(c), rank_of(c)
    if mode == OBE:
        return OBE_POINTS[r]
    if mode == UNE:
        return UNE_POINTS[r]
    return TRUMP_POINTS[r] if s == mode else SIDE_POINTS[r]


def _is_trump(c: int, mode: int) -> bool:
    return mode < 4 and suit_of(c) == mode


def _trick_strength(c: int, led: int, mode: int) -> int:
    """Strength of card c in a trick whose led suit is ``led``; -1 = cannot win."""
    s, r = suit_of(c), rank_of(c)
    if _is_trump(c, mode):
        return 100 + TRUMP_STRENGTH[r]
    if s != led:
        return -1
    return 8 - r if mode == UNE else r


def standard_trick_winner_pos(trick: Sequence[int], mode: int) -> int:
    """Position (0..3) in the trick of the winning card."""
    led = suit_of(trick[0])
    st = [_trick_strength(c, led, mode) for c in trick]
    return int(np.argmax(st))


def standard_legal(hand: Iterable[int], trick_cards: Sequence[int], mode: int) -> list[int]:
    """Clean reference of the rules as we implement them (see module/engine docs)."""
    hand = sorted(int(c) for c in hand)
    trick_cards = [int(c) for c in trick_cards]
    if not trick_cards:
        return hand
    led = suit_of(trick_cards[0])
    follow = [c for c in hand if suit_of(c) == led]
    if mode >= 4:
        return follow or hand
    trumps = [c for c in hand if suit_of(c) == mode]
    if led == mode:
        # must follow trump, except that the Buur never has to be played
        if any(rank_of(c) != RJ for c in trumps):
            return trumps
        return hand
    cand = sorted(follow + trumps) if follow else hand
    trick_trumps = [c for c in trick_cards if suit_of(c) == mode]
    if trick_trumps and len(trumps) != len(hand):
        best = max(TRUMP_STRENGTH[rank_of(c)] for c in trick_trumps)
        cand = [c for c in cand if not (suit_of(c) == mode and TRUMP_STRENGTH[rank_of(c)] < best)]
    return cand


# ---------------------------------------------------------------------------------------
# reference implementations of each referee's documented (buggy) rule
# ---------------------------------------------------------------------------------------
def jasskit_documented_legal(hand, trick_cards, mode) -> list[int]:
    """standard_legal, but the undertrump threshold is the trick trump that is lowest in
    plain order (largest jass-kit card index == smallest our rank), rule_schieber.py:83-103."""
    hand = sorted(int(c) for c in hand)
    trick_cards = [int(c) for c in trick_cards]
    if not trick_cards or mode >= 4 or suit_of(trick_cards[0]) == mode:
        return standard_legal(hand, trick_cards, mode)
    led = suit_of(trick_cards[0])
    follow = [c for c in hand if suit_of(c) == led]
    trumps = [c for c in hand if suit_of(c) == mode]
    cand = sorted(follow + trumps) if follow else hand
    trick_trumps = [c for c in trick_cards if suit_of(c) == mode]
    if trick_trumps and len(trumps) != len(hand):
        ref = min(trick_trumps, key=rank_of)  # quirk: "lowest" by card number
        thr = TRUMP_STRENGTH[rank_of(ref)]
        cand = [c for c in cand if not (suit_of(c) == mode and TRUMP_STRENGTH[rank_of(c)] < thr)]
    return cand


def pyschieber_documented_legal(hand, trick_cards, mode) -> list[int]:
    """standard_legal, but a hand holding only trumps must overtrump if it can,
    stich_rules.py:76-87."""
    hand = sorted(int(c) for c in hand)
    trick_cards = [int(c) for c in trick_cards]
    std = standard_legal(hand, trick_cards, mode)
    if not trick_cards or mode >= 4 or suit_of(trick_cards[0]) == mode or len(hand) == 1:
        return std
    trumps = [c for c in hand if suit_of(c) == mode]
    trick_trumps = [c for c in trick_cards if suit_of(c) == mode]
    if trick_trumps and len(trumps) == len(hand):
        best = max(TRUMP_STRENGTH[rank_of(c)] for c in trick_trumps)
        over = [c for c in hand if TRUMP_STRENGTH[rank_of(c)] > best]
        if over:
            return over
    return std


# Closed-form predictions of the deviation (extra, missing) = (referee - standard,
# standard - referee); written independently of the *_documented_legal functions.
def expected_legal_deviation_jasskit(hand, trick_cards, mode) -> tuple[list[int], list[int]]:
    hand = [int(c) for c in hand]
    trick_cards = [int(c) for c in trick_cards]
    if not trick_cards or mode >= 4 or suit_of(trick_cards[0]) == mode:
        return [], []
    tt = [c for c in trick_cards if suit_of(c) == mode]
    trumps = [c for c in hand if suit_of(c) == mode]
    if len(tt) < 2 or len(trumps) == len(hand):
        return [], []
    s_ref = TRUMP_STRENGTH[min(rank_of(c) for c in tt)]
    s_best = max(TRUMP_STRENGTH[rank_of(c)] for c in tt)
    extra = sorted(c for c in trumps if s_ref < TRUMP_STRENGTH[rank_of(c)] < s_best)
    return extra, []


def expected_legal_deviation_pyschieber(hand, trick_cards, mode) -> tuple[list[int], list[int]]:
    hand = [int(c) for c in hand]
    trick_cards = [int(c) for c in trick_cards]
    if not trick_cards or mode >= 4 or suit_of(trick_cards[0]) == mode or len(hand) == 1:
        return [], []
    tt = [c for c in trick_cards if suit_of(c) == mode]
    if not tt or any(suit_of(c) != mode for c in hand):
        return [], []
    best = max(TRUMP_STRENGTH[rank_of(c)] for c in tt)
    over = [c for c in hand if TRUMP_STRENGTH[rank_of(c)] > best]
    if not over:
        return [], []
    return [], sorted(c for c in hand if TRUMP_STRENGTH[rank_of(c)] < best)


# ---------------------------------------------------------------------------------------
# plain-Python replay + random game generator
# ---------------------------------------------------------------------------------------
def _check_inputs(hands, mode, forehand, plays):
    hands = np.asarray(hands, dtype=np.int64)
    plays = np.asarray(plays, dtype=np.int64)
    if hands.shape != (4, 9) or plays.shape != (36,):
        raise ValueError("hands must be int[4,9] and plays int[36]")
    if sorted(hands.ravel().tolist()) != list(range(36)):
        raise ValueError("hands must be a partition of the 36 cards")
    if not (0 <= int(mode) <= 5 and 0 <= int(forehand) <= 3):
        raise ValueError("bad mode/forehand")
    return hands, int(mode), int(forehand), plays


def standard_replay(hands, mode, forehand, plays, legal_fn=standard_legal) -> dict:
    """Plain-Python replay with our rules; same output format as the referee adapters, plus
    ``states``: list of 36 (sorted hand of the player to move, cards already in the trick)."""
    hands, mode, forehand, plays = _check_inputs(hands, mode, forehand, plays)
    hand_sets = [set(h.tolist()) for h in hands]
    winners, tpoints, legal, seats, illegal, states = [], [], [], [], [], []
    leader = forehand
    for t in range(9):
        trick = []
        for k in range(4):
            seat = (leader + k) % 4
            c = int(plays[4 * t + k])
            if c not in hand_sets[seat]:
                raise ValueError(f"play {4 * t + k}: card {c} not in hand of seat {seat}")
            states.append((sorted(hand_sets[seat]), list(trick)))
            lg = legal_fn(hand_sets[seat], trick, mode)
            legal.append(list(lg))
            if c not in lg:
                illegal.append(4 * t + k)
            seats.append(seat)
            hand_sets[seat].remove(c)
            trick.append(c)
        w = (leader + standard_trick_winner_pos(trick, mode)) % 4
        p = sum(card_points(c, mode) for c in trick) + (5 if t == 8 else 0)
        winners.append(w)
        tpoints.append(p)
        leader = w
    team = [0, 0]
    for w, p in zip(winners, tpoints):
        team[w % 2] += p
    return dict(trick_winners=np.array(winners), trick_points=np.array(tpoints),
                team_points=np.array(team), legal=legal, seats=np.array(seats), illegal=illegal,
                states=states)


def random_game(rng: np.random.Generator, mode: int | None = None, forehand: int | None = None,
                legal_fn=standard_legal, heavy_trumps: int | None = None):
    """Random deal + random legal play (by ``legal_fn``). Returns (hands, mode, forehand, plays).

    heavy_trumps=k (trump modes only): one random seat is dealt k trumps (stress-tests the
    undertrump rules, where both referee quirks live)."""
    mode = int(rng.integers(6)) if mode is None else int(mode)
    forehand = int(rng.integers(4)) if forehand is None else int(forehand)
    perm = rng.permutation(36)
    if heavy_trumps is not None and mode < 4:
        trumps = [c for c in perm if suit_of(c) == mode]
        others = [c for c in perm if suit_of(c) != mode]
        k = int(heavy_trumps)
        first = trumps[:k] + others[:9 - k]
        rest = np.array(trumps[k:] + others[9 - k:])
        rest = rest[rng.permutation(len(rest))]
        seat = int(rng.integers(4))
        order = [list(rest[9 * j:9 * j + 9]) for j in range(3)]
        order.insert(seat, first)
        perm = np.array(order).ravel()
    hands = np.sort(np.asarray(perm).reshape(4, 9), axis=1)
    hand_sets = [set(h.tolist()) for h in hands]
    plays = []
    leader = forehand
    for _ in range(9):
        trick = []
        for k in range(4):
            seat = (leader + k) % 4
            lg = legal_fn(hand_sets[seat], trick, mode)
            c = int(lg[int(rng.integers(len(lg)))])
            hand_sets[seat].remove(c)
            trick.append(c)
            plays.append(c)
        leader = (leader + standard_trick_winner_pos(trick, mode)) % 4
    return hands, mode, forehand, np.array(plays)


# ---------------------------------------------------------------------------------------
# jass-kit adapter
# ---------------------------------------------------------------------------------------
def to_jk_card(c):
    """our id <-> jass-kit id (involution): suit*9 + (8 - rank)."""
    c = np.asarray(c)
    return (c // 9) * 9 + 8 - (c % 9)


from_jk_card = to_jk_card


def to_jk_player(seat):
    """our seat <-> jass-kit player (involution): (-seat) % 4."""
    return (-np.asarray(seat)) % 4


from_jk_player = to_jk_player

_JK = {}


def _jk():
    if not _JK:
        from jass.game.const import PUSH, partner_player
        from jass.game.game_sim import GameSim
        from jass.game.rule_schieber import RuleSchieber
        _JK.update(GameSim=GameSim, rule=RuleSchieber(), PUSH=PUSH, partner_player=partner_player)
    return _JK


def jasskit_legal(hand, trick_cards, mode) -> list[int]:
    """jass-kit's RuleSchieber.get_valid_cards for one position, in our encoding."""
    rule = _jk()["rule"]
    onehot = np.zeros(36, np.int32)
    onehot[to_jk_card(np.asarray(list(hand), dtype=np.int64))] = 1
    trick = [int(x) for x in to_jk_card(np.asarray(list(trick_cards), dtype=np.int64))]
    jk_trick = np.array(trick + [-1] * (4 - len(trick)), dtype=np.int32)
    valid = rule.get_valid_cards(onehot, jk_trick, len(trick), int(mode))
    return sorted(int(x) for x in from_jk_card(np.flatnonzero(valid)))


def jasskit_replay(hands, mode, forehand, plays, pushed: bool = False) -> dict:
    """Replay a deal through jass-kit's GameSim + RuleSchieber.

    pushed=True: the forehand pushes (trump code 10) and the partner declares ``mode``
    (the forehand still leads trick 1, game_sim.py:79-84).
    Illegal plays (by jass-kit's rule) are still applied (GameSim does not check) and their
    indices are reported in ``illegal``.
    """
    hands, mode, forehand, plays = _check_inputs(hands, mode, forehand, plays)
    jk = _jk()
    rule = jk["rule"]
    sim = jk["GameSim"](rule=rule)
    jk_hands = np.zeros((4, 36), dtype=np.int32)
    for s in range(4):
        jk_hands[int(to_jk_player(s)), to_jk_card(hands[s])] = 1
    fh = int(to_jk_player(forehand))
    dealer = (fh + 1) % 4  # next_player[dealer] == dealer - 1 == fh
    sim.init_from_cards(jk_hands, dealer)
    assert sim.state.player == fh
    if pushed:
        sim.action_trump(jk["PUSH"])
        assert sim.state.player == jk["partner_player"][fh]
    sim.action_trump(mode)
    assert sim.state.player == fh and sim.state.trump == mode
    legal, seats, illegal = [], [], []
    for i in range(36):
        st = sim.state
        p = int(st.player)
        c = int(to_jk_card(int(plays[i])))
        if not st.hands[p, c]:
            raise ValueError(f"play {i}: card {int(plays[i])} not in hand of seat {int(from_jk_player(p))}")
        valid = rule.get_valid_cards(st.hands[p, :], st.current_trick, st.nr_cards_in_trick, st.trump)
        lg = sorted(int(x) for x in from_jk_card(np.flatnonzero(valid)))
        legal.append(lg)
        seats.append(int(from_jk_player(p)))
        if not valid[c]:
            illegal.append(i)
        sim.action_play_card(c)
    st = sim.state
    assert sim.is_done()
    return dict(trick_winners=from_jk_player(st.trick_winner.astype(np.int64)),
                trick_points=st.trick_points.astype(np.int64).copy(),
                team_points=st.points.astype(np.int64).copy(),  # jk team 0 = N,S = our {0,2}
                legal=legal, seats=np.array(seats), illegal=illegal)


# ---------------------------------------------------------------------------------------
# pyschieber adapter
# ---------------------------------------------------------------------------------------
_PS = {}


def _ps():
    if not _PS:
        from pyschieber.card import Card
        from pyschieber.rules.count_rules import count_stich
        from pyschieber.rules.stich_rules import allowed_cards, card_allowed, stich_rules
        from pyschieber.stich import PlayedCard
        from pyschieber.suit import Suit
        from pyschieber.trumpf import Trumpf
        suits = [Suit.BELL, Suit.ROSE, Suit.SHIELD, Suit.ACORN]  # D, H, S, C
        trumpfs = [Trumpf.BELL, Trumpf.ROSE, Trumpf.SHIELD, Trumpf.ACORN, Trumpf.OBE_ABE, Trumpf.UNDE_UFE]
        cards = [Card(suit=suits[c // 9], value=c % 9 + 6) for c in range(36)]
        back = {(cd.suit, cd.value): i for i, cd in enumerate(cards)}
        _PS.update(cards=cards, back=back, trumpfs=trumpfs, PlayedCard=PlayedCard, stich_rules=stich_rules,
                   allowed_cards=allowed_cards, card_allowed=card_allowed, count_stich=count_stich)
    return _PS


def to_ps_card(c: int):
    return _ps()["cards"][int(c)]


def from_ps_card(card) -> int:
    return _ps()["back"][(card.suit, card.value)]


def pyschieber_legal(hand, trick_cards, mode) -> list[int]:
    """pyschieber's stich_rules.allowed_cards for one position, in our encoding."""
    ps = _ps()
    cards = ps["cards"]
    got = ps["allowed_cards"](hand_cards=[cards[int(c)] for c in hand],
                              table_cards=[cards[int(c)] for c in trick_cards], trumpf=ps["trumpfs"][int(mode)])
    return sorted(from_ps_card(x) for x in got)


def pyschieber_replay(hands, mode, forehand, plays) -> dict:
    """Replay a deal with pyschieber's rule functions (stich_rules, allowed_cards,
    card_allowed, count_stich), in the seat order of pyschieber.game.Game.play_stich."""
    hands, mode, forehand, plays = _check_inputs(hands, mode, forehand, plays)
    ps = _ps()
    cards, back, trumpf = ps["cards"], ps["back"], ps["trumpfs"][mode]
    PlayedCard, allowed_cards, card_allowed = ps["PlayedCard"], ps["allowed_cards"], ps["card_allowed"]
    stich_rule, count_stich = ps["stich_rules"][trumpf], ps["count_stich"]
    # fresh Card objects per hand (list order as a dealt pyschieber hand)
    ps_hands = [[cards[int(c)] for c in hands[s]] for s in range(4)]
    winners, tpoints, legal, seats, illegal = [], [], [], [], []
    leader = forehand
    for t in range(9):
        table = []
        for k in range(4):
            seat = (leader + k) % 4
            i = 4 * t + k
            card = cards[int(plays[i])]
            hand = ps_hands[seat]
            if card not in hand:
                raise ValueError(f"play {i}: card {int(plays[i])} not in hand of seat {seat}")
            table_cards = [pc.card for pc in table]
            lg = sorted(back[(cd.suit, cd.value)] for cd in allowed_cards(hand_cards=hand, table_cards=table_cards,
                                                                          trumpf=trumpf))
            ok = card_allowed(table_cards=table_cards, chosen_card=card, hand_cards=hand, trumpf=trumpf)
            assert ok == (int(plays[i]) in lg)
            legal.append(lg)
            seats.append(seat)
            if not ok:
                illegal.append(i)
            hand.remove(card)
            table.append(PlayedCard(player=seat, card=card))
        stich = stich_rule(played_cards=table)
        w = int(stich.player)
        winners.append(w)
        tpoints.append(count_stich([pc.card for pc in table], trumpf, last=(t == 8)))
        leader = w
    team = [0, 0]
    for w, p in zip(winners, tpoints):
        team[w % 2] += p  # Game.count_points: team_index = player_index % 2
    return dict(trick_winners=np.array(winners), trick_points=np.array(tpoints),
                team_points=np.array(team), legal=legal, seats=np.array(seats), illegal=illegal)


# ---------------------------------------------------------------------------------------
# jass-kit's own random game loop (benchmark baseline)
# ---------------------------------------------------------------------------------------
def jasskit_random_rounds(n: int, seed: int | None = None) -> np.ndarray:
    """Play n complete random rounds with jass-kit's Arena + AgentRandomSchieber
    (random trump incl. push, random valid cards, validity checked each move).
    Returns int[n, 2] team points."""
    from jass.agents.agent_random_schieber import AgentRandomSchieber
    from jass.arena.arena import Arena
    if seed is not None:
        np.random.seed(seed)  # DealingCardRandomStrategy uses the global np.random
    arena = Arena(nr_games_to_play=n, print_every_x_games=n + 1)
    arena.set_players(*(AgentRandomSchieber() for _ in range(4)))
    if seed is not None:
        for k, a in enumerate(arena.players):
            a._rng = np.random.default_rng(seed + 1 + k)
    arena.play_all_games()
    return np.stack([arena.points_team_0, arena.points_team_1], axis=1).astype(np.int64)
