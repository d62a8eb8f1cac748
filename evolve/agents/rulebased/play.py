"""Rule-based card-play baselines (the Euchre paper's agents, the Sueca thesis's and a rule-based
Jass player; ``docs/reference/agents.md``); kinds 10..29.

Every rule reads only the deciding seat's observation: its seat, own hand, the legal
cards and the public state ``pub`` (cards played and by whom, revealed voids, the trump
mode, the shown card). Nothing here allocates: the engine calls ``rule_card`` from its
Numba loop.

Parameters (``params[lo:hi]``, float64), the same header for every kind:
``[tau, rule, values...]`` where ``tau`` is the Markov threshold, ``rule`` 0 = the correct
"can win" test, 1 = the Euchre study's test (compare fixed strength scores only), and
``values`` (Markov, Markov2, Hybrid and Hybrid2 only) the Markov card values ``[mode, card]`` flattened,
``n_modes * n_cards`` numbers (see ``evolve.agents.rulebased.markov``).

Kinds and rules:

- 10 High / 11 Low: the legal card of highest / lowest ``strength_of`` (trumps above
  non-trumps; Euchre's study scores); ties go to the lowest card id (first in hand order).
- 12 HighLow: leading High; else High if some legal card beats the card now winning the
  trick, otherwise Low.
- 13 CoopHighLow: Low when the partner has played in this trick and is winning it, else
  HighLow. Without a partner (cut-throat Spades, or the partner sits out in Euchre) it is
  HighLow.
- 14 CardCounting: the Euchre paper's (see ``cardcounting_card``). Without a partner it is HighLow.
- 15 Markov(tau): ratio = values of the own hand / values of the unseen cards; High when
  ratio >= tau, else Low. Unseen = every card minus the own hand, the cards played and a
  dead turned card. The turned card: the Euchre upcard is dead (excluded) unless the
  dealer ordered it up in round 1; then, like the Sueca shown trump card (which stays in
  the dealer's hand), it is still to be played by someone: it counts as unseen for the
  other seats until played, and CardCounting knows only the dealer may hold it. (The
  dealer excludes it: it holds it, played it or discarded it.) In Sueca ``setup=study``
  the trump card is a random card of the deck whose holder is unknown: it is unseen for
  everyone but its holder. A dealer's other Euchre discard is not in ``pub`` and so
  counts as unseen even for the dealer.
- 16 Markov2(tau): following, as Markov with value(card) = the number of ordered
  completions of the current trick with unseen cards in which the card, played now, wins;
  leading, exactly as Markov (the Euchre paper, Section 3.3: "When leading a trick,
  Markov2 behaves identically to Markov"), so it carries Markov's card values too.
- 17 Hybrid(tau) / 18 Hybrid2(tau): Markov / Markov2 ratio >= tau: CoopHighLow, else
  CardCounting.
- 19 ObligatedTrump: void in the led suit -> a random legal trump if holding one, else a
  random legal card; leading or following suit: a random legal card.
- 20 AlwaysHigh: the legal card of highest trick rank (``rank_of``) whatever its suit;
  ties at random.
- 21 Rule-based Jass, a card-counting player (``jass_card``). Per other seat it tracks the
  cards that seat may still hold (unseen cards minus revealed voids; a Jass "no trump but
  the Buur" void keeps the Buur). A card is *boss* when no opponent may hold a higher
  card of its suit, and *ruffable* when (in a trump mode) some opponent may hold a trump
  but no card of the card's suit. Leading, in order:
    1. the declaring side pulls trumps: holding the boss trump (Buur, then Nell, ...) while
       the opponents may still hold trumps, lead it;
    2. cash a sure winner: a boss card that is not ruffable (aces in Obe-abe, sixes in
       Une-ufe; trumps only when the opponents have none left); the one with the most
       points;
    3. the partner is void in a side suit and may still trump: lead the cheapest card of it;
    4. otherwise the cheapest card (fewest points, then lowest rank, trumps kept).
  Following:
    1. the partner wins the trick and no opponent still to play can beat it: *schmieren*,
       give the legal card with the most points (trumps kept; a boss card counts 6 less);
    2. a legal card that no opponent still to play can beat (a sure win): the non-trump one
       with the most points; with a trump only if the trick holds >= 8 points, trump was
       led or it is the last trick (then the lowest such trump);
    3. otherwise (the trick cannot be won for sure, or is the partner's already): the
       cheapest card.
- 22 ObligatedTrumpLead: the Sueca thesis's other Obligated Trump variant (its Table 5.1,
  "leading trump card"): as ObligatedTrump, but leading a random trump if holding one
  (else a random card).
- 23 ThirdHandHigh: the Sueca thesis's Always High variant of its Table 5.2 ("as third
  player", Bridge's third hand high): the third card of a trick is AlwaysHigh's card,
  every other card a random legal card.
- 24 Markov2 / 25 Hybrid2 with ``lead=completions``: a Markov2 that also leads by
  completions of the trick (the led card's value = ordered triples of unseen cards below
  it) instead of by Markov's values (the paper's Markov2 leads as Markov); for comparison.
"""

from __future__ import annotations

import numpy as np

from evolve.games.bits import ONE, ZERO, bit, kernel, lowest, random_card
from evolve.games.knowledge import (
    may_beat,
    may_hold,
    partner_of,
    partner_winning,
    trick_winner_pos,
    unseen_mask,
)
from evolve.games.rules import (
    P_N_CARDS,
    P_N_MODES,
    P_N_TRICKS,
    card_key,
    points_of,
    rank_of,
    strength_of,
    suit_mask,
    suit_of,
    trump_of,
)
from evolve.games.state import (
    MAKER,
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    VOIDS,
)
from evolve.games.trick import next_active

KIND_HIGH = 10
KIND_LOW = 11
KIND_HIGHLOW = 12
KIND_COOPHIGHLOW = 13
KIND_CARDCOUNTING = 14
KIND_MARKOV = 15
KIND_MARKOV2 = 16
KIND_HYBRID = 17
KIND_HYBRID2 = 18
KIND_OBLIGATED_TRUMP = 19
KIND_ALWAYS_HIGH = 20
KIND_JASS = 21
KIND_OBLIGATED_TRUMP_LEAD = 22
KIND_THIRD_HAND_HIGH = 23
KIND_MARKOV2_COMPLETIONS = 24
KIND_HYBRID2_COMPLETIONS = 25

# parameter header (offsets from lo)
P_TAU = 0
P_RULE = 1
P_VALUES = 2
RULE_CORRECT = 0
RULE_STUDY = 1



# ----------------------------------------------------------------------------- basics


KEY_STRENGTH = 0
KEY_JASS_COST = 1


@kernel
def lowest_by(rules, mode, mask, key, sign):
    """The card of ``mask`` whose ``sign`` x key is lowest (ties: lowest card id); key
    ``KEY_STRENGTH`` (``strength_of``) or ``KEY_JASS_COST`` (``jass_cost``)."""
    best = -1
    best_v = 1 << 62
    m = mask
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        v = sign * (strength_of(rules, mode, c) if key == KEY_STRENGTH else jass_cost(rules, mode, c))
        if v < best_v:
            best_v = v
            best = c
    return best


@kernel
def high_card(rules, mode, mask):
    """The card of ``mask`` with the highest strength (ties: lowest card id)."""
    return lowest_by(rules, mode, mask, KEY_STRENGTH, -1)


@kernel
def low_card(rules, mode, mask):
    """The card of ``mask`` with the lowest strength (ties: lowest card id)."""
    return lowest_by(rules, mode, mask, KEY_STRENGTH, 1)


@kernel
def beats(rules, mode, pub, card, study):
    """Whether ``card`` would beat the card now winning the (non-empty) trick. ``study``:
    the Euchre study's test, a higher fixed strength score (wrong for off-suit cards)."""
    w = pub[TRICK_CARDS + trick_winner_pos(rules, mode, pub)]
    if study:
        return strength_of(rules, mode, card) > strength_of(rules, mode, w)
    led = suit_of(rules, mode, pub[TRICK_CARDS])
    return card_key(rules, mode, card, led) > card_key(rules, mode, w, led)


@kernel
def highlow_card(rules, mode, legal, pub, study):
    """HighLow: leading High; else High if a legal card beats the winning card, else Low."""
    if pub[NPLAYED] == 0:
        return high_card(rules, mode, legal)
    m = legal
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if beats(rules, mode, pub, c, study):
            return high_card(rules, mode, legal)
    return low_card(rules, mode, legal)


@kernel
def coophighlow_card(rules, mode, seat, legal, pub, study):
    """CoopHighLow: Low when the partner is winning the trick, else HighLow."""
    if partner_winning(rules, mode, seat, pub):
        return low_card(rules, mode, legal)
    return highlow_card(rules, mode, legal, pub, study)


# ----------------------------------------------------------------------------- card counting


@kernel
def suit_strength(rules, mode, mask, suit):
    """Sum of the strength scores of the cards of ``mask`` in ``suit``."""
    total = 0
    m = mask & suit_mask(rules, mode, suit)
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        total += strength_of(rules, mode, c)
    return total


@kernel
def cardcounting_card(rules, mode, seat, hand, legal, pub, study):  # noqa: C901 (one kernel)
    """CardCounting (the Euchre paper; ``docs/reference/agents.md``).

    Leading: if the partner is void in a (non-trump) suit and may still hold trump, lead
    Low in that suit; else if the partner is stronger in a suit than both opponents, lead
    Low in it; else High. Second (the partner plays after me): if the partner may win and is
    stronger in the led suit than the opponents still to play, Low; if the partner is void
    in the led suit: trump led HighLow, otherwise Low when it may trump; else HighLow.
    Third (the partner has played, someone plays after me): if the partner is winning but
    an opponent still to play may beat it, HighLow; else CoopHighLow. Last: CoopHighLow.
    Suit strength = the sum of strength scores of the cards a seat may hold; "Low in a
    suit" is the weakest legal card of it (among several suits: the weakest overall)."""
    partner = partner_of(rules, seat, pub)
    if partner < 0:
        return highlow_card(rules, mode, legal, pub, study)
    tr = trump_of(rules, mode)
    n = pub[NPLAYED]
    pm = may_hold(rules, mode, seat, hand, pub, partner)
    if n == 0:
        best = -1
        best_v = 1 << 40
        if tr >= 0 and pm & suit_mask(rules, mode, tr) != ZERO:
            pv = pub[VOIDS + partner]
            for s in range(4):
                cards = legal & suit_mask(rules, mode, s)
                if s != tr and (pv >> s) & 1 and cards != ZERO:
                    c = low_card(rules, mode, cards)
                    if strength_of(rules, mode, c) < best_v:
                        best_v = strength_of(rules, mode, c)
                        best = c
        if best >= 0:
            return best
        o1 = (seat + 1) % 4
        o2 = (seat + 3) % 4
        m1 = may_hold(rules, mode, seat, hand, pub, o1) if o1 != pub[OUT_SEAT] else ZERO
        m2 = may_hold(rules, mode, seat, hand, pub, o2) if o2 != pub[OUT_SEAT] else ZERO
        for s in range(4):
            cards = legal & suit_mask(rules, mode, s)
            if cards == ZERO:
                continue
            ps = suit_strength(rules, mode, pm, s)
            if ps > suit_strength(rules, mode, m1, s) and ps > suit_strength(rules, mode, m2, s):
                c = low_card(rules, mode, cards)
                if strength_of(rules, mode, c) < best_v:
                    best_v = strength_of(rules, mode, c)
                    best = c
        if best >= 0:
            return best
        return high_card(rules, mode, legal)
    remaining = pub[N_ACTIVE] - n - 1
    if remaining == 0:
        return coophighlow_card(rules, mode, seat, legal, pub, study)
    led = suit_of(rules, mode, pub[TRICK_CARDS])
    wkey = card_key(rules, mode, pub[TRICK_CARDS + trick_winner_pos(rules, mode, pub)], led)
    partner_played = False
    for q in range(n):
        if pub[TRICK_SEATS + q] == partner:
            partner_played = True
    if not partner_played:
        # second hand: the partner is still to play
        stronger = True
        ps = suit_strength(rules, mode, pm, led)
        s = seat
        for _ in range(remaining):
            s = next_active(s, pub[OUT_SEAT])
            if s != partner:
                if ps <= suit_strength(rules, mode, may_hold(rules, mode, seat, hand, pub, s), led):
                    stronger = False
        if stronger and may_beat(rules, mode, pm, led, wkey):
            return low_card(rules, mode, legal)
        if (pub[VOIDS + partner] >> led) & 1:
            if led != tr and tr >= 0 and pm & suit_mask(rules, mode, tr) != ZERO:
                return low_card(rules, mode, legal)
        return highlow_card(rules, mode, legal, pub, study)
    # third hand: the partner has played, an opponent plays after me
    if partner_winning(rules, mode, seat, pub):
        s = seat
        for _ in range(remaining):
            s = next_active(s, pub[OUT_SEAT])
            if may_beat(rules, mode, may_hold(rules, mode, seat, hand, pub, s), led, wkey):
                return highlow_card(rules, mode, legal, pub, study)
    return coophighlow_card(rules, mode, seat, legal, pub, study)


# ----------------------------------------------------------------------------- Markov


@kernel
def markov_ratio(rules, mode, params, lo, seat, hand, pub):
    """Markov: sum of card values of the own hand / sum over the unseen cards."""
    base = lo + P_VALUES + mode * rules[P_N_CARDS]
    own = 0.0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        own += params[base + c]
    other = 0.0
    m = unseen_mask(rules, seat, hand, pub)
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        other += params[base + c]
    if other <= 0.0:
        return np.inf if own > 0.0 else 0.0
    return own / other


@kernel
def falling(n, k):
    """n (n-1) ... (n-k+1) as a float, 0 when n < k."""
    v = 1.0
    for i in range(k):
        if n - i <= 0:
            return 0.0
        v *= n - i
    return v


@kernel
def completion_value(rules, mode, pub, card, pool, wkey, led, remaining):
    """Markov2 value: ordered completions of the current trick (``remaining`` more cards
    drawn from ``pool``) in which ``card``, played now, wins."""
    if pub[NPLAYED] == 0:
        led = suit_of(rules, mode, card)
    k = card_key(rules, mode, card, led)
    if k <= wkey:
        return 0.0
    lower = 0
    m = pool & ~bit(card)
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if card_key(rules, mode, c, led) < k:
            lower += 1
    return falling(lower, remaining)


@kernel
def markov2_ratio(rules, mode, seat, hand, pub):
    """Markov2's completion ratio: completion values of the own hand / those of the unseen
    cards (leading: completions of the lead; ``markov2_lead_ratio`` leads as Markov)."""
    pool = unseen_mask(rules, seat, hand, pub)
    n = pub[NPLAYED]
    remaining = pub[N_ACTIVE] - n - 1
    led = -1
    wkey = -2
    if n > 0:
        led = suit_of(rules, mode, pub[TRICK_CARDS])
        wkey = card_key(rules, mode, pub[TRICK_CARDS + trick_winner_pos(rules, mode, pub)], led)
    own = 0.0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        own += completion_value(rules, mode, pub, c, pool, wkey, led, remaining)
    other = 0.0
    m = pool
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        other += completion_value(rules, mode, pub, c, pool, wkey, led, remaining)
    if other <= 0.0:
        return np.inf if own > 0.0 else 0.0
    return own / other


@kernel
def markov2_lead_ratio(rules, mode, params, lo, seat, hand, pub):
    """Markov2 as the Euchre paper states it: leading, Markov's ratio (card values
    ``params``); following, the completion ratio of the current trick."""
    if pub[NPLAYED] == 0:
        return markov_ratio(rules, mode, params, lo, seat, hand, pub)
    return markov2_ratio(rules, mode, seat, hand, pub)


@kernel
def markov2_kind_ratio(kind, rules, mode, params, lo, seat, hand, pub):
    """The ratio a Markov2 / Hybrid2 kind decides on: the paper's (``markov2_lead_ratio``),
    or with ``lead=completions`` (kinds 22, 23) the completion ratio throughout."""
    if kind == KIND_MARKOV2_COMPLETIONS or kind == KIND_HYBRID2_COMPLETIONS:
        return markov2_ratio(rules, mode, seat, hand, pub)
    return markov2_lead_ratio(rules, mode, params, lo, seat, hand, pub)


# ----------------------------------------------------------------------------- Sueca study


@kernel
def obligated_trump_card(rules, mode, seat, hand, legal, pub, rngs):
    """Void in the led suit: a random legal trump if holding one; otherwise random."""
    n = pub[NPLAYED]
    tr = trump_of(rules, mode)
    if n > 0 and tr >= 0:
        led = suit_of(rules, mode, pub[TRICK_CARDS])
        if hand & suit_mask(rules, mode, led) == ZERO:
            trumps = legal & suit_mask(rules, mode, tr)
            if trumps != ZERO:
                return random_card(rngs, seat, trumps)
    return random_card(rngs, seat, legal)


@kernel
def trump_lead_card(rules, mode, seat, hand, legal, pub, rngs):
    """ObligatedTrump that leads a random trump when it holds one (the thesis's Table 5.1)."""
    tr = trump_of(rules, mode)
    if pub[NPLAYED] == 0 and tr >= 0:
        trumps = legal & suit_mask(rules, mode, tr)
        if trumps != ZERO:
            return random_card(rngs, seat, trumps)
    return obligated_trump_card(rules, mode, seat, hand, legal, pub, rngs)


@kernel
def third_hand_high_card(rules, mode, seat, legal, pub, rngs):
    """AlwaysHigh's card as the third card of a trick, else a random legal card."""
    if pub[NPLAYED] == 2:
        return always_high_card(rules, mode, seat, legal, rngs)
    return random_card(rngs, seat, legal)


@kernel
def always_high_card(rules, mode, seat, legal, rngs):
    """The legal card of highest trick rank whatever its suit; ties at random."""
    best = -1
    top = ZERO
    m = legal
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        r = rank_of(rules, mode, c)
        if r > best:
            best = r
            top = bit(c)
        elif r == best:
            top |= bit(c)
    return random_card(rngs, seat, top)


# ----------------------------------------------------------------------------- Jass


@kernel
def jass_cost(rules, mode, card):
    """How much a card is worth keeping (cheapest is played first): points, then rank;
    trumps are kept."""
    c = points_of(rules, mode, card) * 16 + rank_of(rules, mode, card)
    if suit_of(rules, mode, card) == trump_of(rules, mode):
        c += 1000
    return c


@kernel
def cheapest(rules, mode, mask):
    """The card of ``mask`` least worth keeping (``jass_cost``; ties: lowest card id)."""
    return lowest_by(rules, mode, mask, KEY_JASS_COST, 1)


@kernel
def is_boss(rules, mode, card, opp):
    """No card an opponent may hold is higher in the card's suit."""
    s = suit_of(rules, mode, card)
    r = rank_of(rules, mode, card)
    m = opp & suit_mask(rules, mode, s)
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if rank_of(rules, mode, c) > r:
            return False
    return True


@kernel
def is_ruffable(rules, mode, card, m1, m2):
    """Some opponent may hold a trump and no card of the card's suit."""
    tr = trump_of(rules, mode)
    s = suit_of(rules, mode, card)
    if tr < 0 or s == tr:
        return False
    tm = suit_mask(rules, mode, tr)
    sm = suit_mask(rules, mode, s)
    if m1 & tm != ZERO and m1 & sm == ZERO:
        return True
    return m2 & tm != ZERO and m2 & sm == ZERO


@kernel
def jass_card(rules, mode, seat, hand, legal, pub):  # noqa: C901 (one kernel)
    """The rule-based Jass player (see the module docstring)."""
    tr = trump_of(rules, mode)
    tm = suit_mask(rules, mode, tr) if tr >= 0 else ZERO
    partner = (seat + 2) % 4
    m1 = may_hold(rules, mode, seat, hand, pub, (seat + 1) % 4)
    m2 = may_hold(rules, mode, seat, hand, pub, (seat + 3) % 4)
    opp = m1 | m2
    n = pub[NPLAYED]
    if n == 0:
        # 1. the declaring side pulls trumps with the boss trump
        if tr >= 0 and pub[MAKER] % 2 == seat % 2 and opp & tm != ZERO and legal & tm != ZERO:
            top = high_card(rules, mode, legal & tm)
            if is_boss(rules, mode, top, opp):
                return top
        # 2. cash a sure winner, the one with the most points (trumps only once the
        #    opponents have none: pulling trumps is the declaring side's job)
        best = -1
        best_v = -1
        m = legal if opp & tm == ZERO else legal & ~tm
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            if is_boss(rules, mode, c, opp) and not is_ruffable(rules, mode, c, m1, m2):
                v = points_of(rules, mode, c)
                if v > best_v:
                    best_v = v
                    best = c
        if best >= 0:
            return best
        # 3. the partner is void in a side suit and may trump: lead it
        pm = may_hold(rules, mode, seat, hand, pub, partner)
        if tr >= 0 and pm & tm != ZERO:
            pv = pub[VOIDS + partner]
            for s in range(4):
                cards = legal & suit_mask(rules, mode, s)
                if s != tr and (pv >> s) & 1 and cards != ZERO:
                    return cheapest(rules, mode, cards)
        # 4. the cheapest card
        return cheapest(rules, mode, legal)
    led = suit_of(rules, mode, pub[TRICK_CARDS])
    wpos = trick_winner_pos(rules, mode, pub)
    wkey = card_key(rules, mode, pub[TRICK_CARDS + wpos], led)
    later = ZERO  # cards the opponents still to play may hold
    s = seat
    for _ in range(pub[N_ACTIVE] - n - 1):
        s = (s + 1) % 4
        if s != partner:
            later |= m1 if s == (seat + 1) % 4 else m2
    if pub[TRICK_SEATS + wpos] == partner and not may_beat(rules, mode, later, led, wkey):
        # 1. schmieren
        best = -1
        best_v = -1 << 40
        m = legal & ~tm
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            v = points_of(rules, mode, c) * 16 - rank_of(rules, mode, c)
            if is_boss(rules, mode, c, opp):
                v -= 6 * 16
            if v > best_v:
                best_v = v
                best = c
        if best >= 0:
            return best
        return cheapest(rules, mode, legal)
    # 2. a sure win
    points = 0
    for q in range(n):
        points += points_of(rules, mode, pub[TRICK_CARDS + q])
    last_trick = pub[TRICK] == rules[P_N_TRICKS] - 1
    best = -1
    best_v = -1 << 40
    best_trump = -1
    best_trump_r = 1 << 40
    m = legal
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        k = card_key(rules, mode, c, led)
        if k <= wkey or may_beat(rules, mode, later, led, k):
            continue
        if suit_of(rules, mode, c) == tr:
            if rank_of(rules, mode, c) < best_trump_r:
                best_trump_r = rank_of(rules, mode, c)
                best_trump = c
        else:
            v = points_of(rules, mode, c) * 16 - rank_of(rules, mode, c)
            if v > best_v:
                best_v = v
                best = c
    if best >= 0:
        return best
    if best_trump >= 0 and (points >= 8 or led == tr or last_trick):
        return best_trump
    # 3. the cheapest card
    return cheapest(rules, mode, legal)


# ----------------------------------------------------------------------------- dispatch


@kernel
def rule_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs):
    """The card a rule-based agent of ``kind`` plays from ``legal``."""
    study = hi > lo + P_RULE and params[lo + P_RULE] == RULE_STUDY
    tau = params[lo + P_TAU] if hi > lo + P_TAU else 0.25
    if kind == KIND_HIGH:
        return high_card(rules, mode, legal)
    if kind == KIND_LOW:
        return low_card(rules, mode, legal)
    if kind == KIND_HIGHLOW:
        return highlow_card(rules, mode, legal, pub, study)
    if kind == KIND_COOPHIGHLOW:
        return coophighlow_card(rules, mode, seat, legal, pub, study)
    if kind == KIND_CARDCOUNTING:
        return cardcounting_card(rules, mode, seat, hand, legal, pub, study)
    if (kind == KIND_MARKOV or kind == KIND_HYBRID or kind == KIND_MARKOV2 or kind == KIND_HYBRID2) and \
            hi - lo < P_VALUES + rules[P_N_MODES] * rules[P_N_CARDS]:
        raise ValueError("Markov, Markov2 and Hybrid agents need parameters [tau, rule, values[mode, card]...]")
    if kind == KIND_MARKOV:
        if markov_ratio(rules, mode, params, lo, seat, hand, pub) >= tau:
            return high_card(rules, mode, legal)
        return low_card(rules, mode, legal)
    if kind == KIND_MARKOV2 or kind == KIND_MARKOV2_COMPLETIONS:
        if markov2_kind_ratio(kind, rules, mode, params, lo, seat, hand, pub) >= tau:
            return high_card(rules, mode, legal)
        return low_card(rules, mode, legal)
    if kind == KIND_HYBRID:
        if markov_ratio(rules, mode, params, lo, seat, hand, pub) >= tau:
            return coophighlow_card(rules, mode, seat, legal, pub, study)
        return cardcounting_card(rules, mode, seat, hand, legal, pub, study)
    if kind == KIND_HYBRID2 or kind == KIND_HYBRID2_COMPLETIONS:
        if markov2_kind_ratio(kind, rules, mode, params, lo, seat, hand, pub) >= tau:
            return coophighlow_card(rules, mode, seat, legal, pub, study)
        return cardcounting_card(rules, mode, seat, hand, legal, pub, study)
    if kind == KIND_OBLIGATED_TRUMP:
        return obligated_trump_card(rules, mode, seat, hand, legal, pub, rngs)
    if kind == KIND_ALWAYS_HIGH:
        return always_high_card(rules, mode, seat, legal, rngs)
    if kind == KIND_JASS:
        return jass_card(rules, mode, seat, hand, legal, pub)
    if kind == KIND_OBLIGATED_TRUMP_LEAD:
        return trump_lead_card(rules, mode, seat, hand, legal, pub, rngs)
    if kind == KIND_THIRD_HAND_HIGH:
        return third_hand_high_card(rules, mode, seat, legal, pub, rngs)
    raise ValueError("unknown rule-based agent kind")
