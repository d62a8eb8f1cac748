"""Search agents: exact determinization, honesty, strength and legality.

1. Determinization: on decision points replayed from real random deals of every game
   (Euchre with bidding, order-ups, discards and lone hands; Sueca's shown trump card;
   Jass Buur-only voids; Spades with ``break_spades``), every sampled deal respects hand
   sizes, revealed voids and known cards, and the true deal is always consistent. On
   small late-deal positions an independent brute-force enumerator (written here from
   the rules, sharing no code with ``evolve.agents.search.determinize``) gives the same number of
   consistent deals, and a chi-square test accepts the sampler as uniform over them
   (Euchre: uniform over world states, the discard and the kitty told apart).
2. Swap test: permuting the hidden hands of the other seats, with the deciding seat's
   observation unchanged, never changes the decision (same random stream state).
3. MC beats Random in every game on paired deals with the seats exchanged (CI > 0).
4. ISMCTS and DMCTS play only legal cards in every game (the engine checks every card)
   and beat Random in every game.
5. The register-based playout used by all three agents plays and scores exactly like the
   engine's ``legal_cards``/``note_play``/``finish_trick`` on the same random stream.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import evolve
import evolve.agents.search.register  # noqa: F401  (registers mc, dmcts, ismcts)
from evolve.agents.registry import AGENTS, parse_seat
from evolve.agents.search.card_search import search_card
from evolve.agents.search.determinize import count_deals, sample_deals
from evolve.bench.agents import decide_many, sample_positions
from evolve.core.errors import UsageError
from evolve.core.stats import paired_difference
from evolve.games.bits import has
from evolve.games.hooks import legal_cards
from evolve.games.registry import GAMES as REGISTERED
from evolve.games.registry import make_game
from evolve.games.rules import P_BUUR_RANK, P_N_RANKS, suit_of, trump_of
from evolve.games.state import ALONE, CALLS, HISTORY, MAKER, N_ACTIVE, NPLAYED, PLAYED_BY, TRICK, UPCARD, VOIDS
from evolve.games.stepper import TrickState


def bits(mask) -> set[int]:
    mask = int(mask)
    return {c for c in range(64) if mask >> c & 1}


def mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


# ------------------------------------------------------------------ replayed positions


def positions(game_name: str, n_deals: int, seed: int, seats="random:bidder=simple", **options):
    """Every decision point of recorded deals: (game, seat, hand mask, pub copy, true
    hands as 4 card sets, extra) where extra has the Euchre kitty / discard."""
    r = evolve.play(game_name, seats, n_deals, seed=seed, record=True, **options)
    g = r.game
    hs = g.info.hand_size
    for i in range(r.n_deals):
        mode = int(r.trump[i])
        if mode < 0:
            continue
        hands = [set(int(c) for c in r.hands[i, s]) for s in range(4)]
        if g.name != "euchre":      # the cards held for the play (after the Hearts pass)
            hands = [set(h) for h in g.protocol.recorded_held(r, i)]
        dealer = int(r.dealer[i])
        out = -1
        extra = {"kitty": set(int(c) for c in r.rest[i])}
        ordered = False
        if g.name == "euchre":
            up = int(r.rest[i, 0])
            ordered = 5 in [int(x) for x in r.calls[i, :4]]
            if ordered:
                d = int(r.discard[i])
                hands[dealer] = (hands[dealer] | {up}) - {d}
                extra["kitty"] = (extra["kitty"] - {up}) | {d}
                extra["discard"] = d
            if r.alone[i]:
                out = (int(r.maker[i]) + 2) % 4
        s = TrickState(g, [sorted(h) for h in hands], mode=mode, leader=int(r.first_leader[i]), out_seat=out,
                       dealer=dealer)
        if g.name == "euchre":
            s.pub[UPCARD] = int(r.rest[i, 0])
            s.pub[CALLS:CALLS + 8] = r.calls[i]
            s.pub[MAKER] = r.maker[i]
            s.pub[ALONE] = r.alone[i]
        if g.name == "sueca" and g.options["setup"] == "standard":
            s.pub[UPCARD] = int(r.hands[i, dealer, hs - 1 if g.options["trump_card"] == "last" else 0])
        plays = [int(c) for c in r.plays[i] if c >= 0]
        for card in plays:
            seat = s.to_move
            true = [set(s.hand(k)) for k in range(4)]
            yield g, seat, np.uint64(s.hands[seat]), s.pub.copy(), true, dict(extra, ordered=ordered, mode=mode)
            s.play(card)


# ------------------------------------------------------------------ independent oracle


def oracle_places(g, seat, hand, pub):
    """From the rules and the observation alone: hidden places as (name, size, allowed
    cards); names are seats 0..3, 'discard' or 'pool'. Written independently of
    evolve.agents.search.determinize."""
    rules = g.rules
    mode = int(pub[0])
    n_cards = g.info.n_cards
    hs = g.info.hand_size
    played = set()
    for s in range(4):
        played |= bits(pub[PLAYED_BY + s])
    own = bits(hand)
    unseen = set(range(n_cards)) - own - played
    out = int(pub[10])
    known = {s: set() for s in range(4)}
    up = int(pub[UPCARD])
    dealer = int(pub[1])
    turned_special = None
    if g.name == "euchre" and up >= 0 and up in unseen:
        ordered = 5 in [int(x) for x in pub[CALLS:CALLS + 4]]
        if not ordered or seat == dealer or dealer == out:
            unseen.discard(up)
        elif not g.options["discard_upcard"]:
            unseen.discard(up)
            known[dealer].add(up)
        else:
            turned_special = up
    if g.name == "sueca" and g.options["setup"] == "standard" and up in unseen and seat != dealer:
        unseen.discard(up)
        known[dealer].add(up)

    def eff_suit_cards(su):
        return {c for c in range(n_cards) if suit_of(rules, mode, c) == su}

    # voids, plus the Spades break_spades lead inference recomputed from the history
    voids = {s: set() for s in range(4)}
    for s in range(4):
        v = int(pub[VOIDS + s])
        for su in range(4):
            if v >> su & 1:
                voids[s] |= eff_suit_cards(su)
            elif v >> (4 + su) & 1:
                buur = su * int(rules[P_N_RANKS]) + int(rules[P_BUUR_RANK])
                voids[s] |= eff_suit_cards(su) - {buur}
    if g.name == "spades" and g.options["break_spades"]:
        tr = trump_of(rules, mode)
        broken = False
        for t in range(int(pub[TRICK]) + 1):
            n_in = int(pub[N_ACTIVE]) if t < int(pub[TRICK]) else int(pub[NPLAYED])
            row = [int(x) for x in pub[HISTORY + 6 * t:HISTORY + 6 * t + 6]]
            if n_in == 0:
                break
            if not broken and suit_of(rules, mode, row[1]) == tr:
                voids[row[0]] |= set(range(n_cards)) - eff_suit_cards(tr)
            broken = broken or any(suit_of(rules, mode, c) == tr for c in row[1:1 + n_in])
    places = []
    for s in range(4):
        if s == seat or s == out:
            continue
        size = hs - len(bits(pub[PLAYED_BY + s])) - len(known[s])
        allowed = unseen - voids[s]
        if turned_special is not None and s != dealer:
            allowed = allowed - {turned_special}
        places.append((s, size, allowed))
    if turned_special is not None:
        places.append(("discard", 1, set(unseen)))
    rest = len(unseen) - sum(p[1] for p in places)
    assert rest >= 0
    if rest:
        places.append(("pool", rest, unseen - ({turned_special} if turned_special is not None else set())))
    return places, known, unseen


def oracle_enumerate(places, unseen) -> Counter:
    """All consistent assignments (brute force), counted per tuple of seat hands."""
    cards = sorted(unseen)
    out: Counter = Counter()
    caps = [p[1] for p in places]
    where = [0] * len(cards)

    def rec(k):
        if k == len(cards):
            key = tuple(
                (p[0], frozenset(c for c, w in zip(cards, where) if w == j))
                for j, p in enumerate(places) if isinstance(p[0], int)
            )
            out[key] += 1
            return
        for j, p in enumerate(places):
            if caps[j] > 0 and cards[k] in p[2]:
                caps[j] -= 1
                where[k] = j
                rec(k + 1)
                caps[j] += 1

    rec(0)
    return out


def check_sample(places, known, seat, hand, sampled, true):
    """A sampled deal respects sizes, allowed cards, known cards and disjointness."""
    assert int(sampled[seat]) == int(hand)
    seen = bits(hand)
    for name, size, allowed in places:
        if not isinstance(name, int):
            continue
        h = bits(sampled[name])
        assert len(h) == size + len(known[name]) == len(true[name]), (name, h, true[name])
        assert known[name] <= h
        assert h - known[name] <= allowed
        assert not (h & seen)
        seen |= h


GAMES = [
    ("spades", {}),
    ("spades", {"break_spades": True, "partnership": True}),
    ("euchre", {}),
    ("euchre", {"discard_upcard": False, "stick_the_dealer": True}),
    ("euchre", {"setup": "fixed_spades"}),
    ("sueca", {}),
    ("sueca", {"setup": "study"}),
    ("jass", {}),
    ("hearts", {}),
]


@pytest.mark.parametrize("game_name,options", GAMES)
def test_sampled_deals_respect_everything_the_seat_knows(game_name, options):
    n_checked = 0
    seats = "random:bidder=random" if game_name == "euchre" else "random:bidder=simple"
    for k, (g, seat, hand, pub, true, extra) in enumerate(positions(game_name, 25, 7, seats=seats, **options)):
        if k % 3:
            continue
        places, known, unseen = oracle_places(g, seat, hand, pub)
        # the true deal is one of the consistent deals
        for name, size, allowed in places:
            if isinstance(name, int):
                assert true[name] - known[name] <= allowed and known[name] <= true[name]
                assert len(true[name]) == size + len(known[name])
        total, deals = sample_deals(g.rules, extra["mode"], seat, hand, pub, 20, seed=k)
        assert total >= 1
        for d in deals:
            check_sample(places, known, seat, hand, d, true)
        n_checked += 1
    assert n_checked > 100


def _small_positions(game_name, options, want, seats, n=3, hi=600):
    """Up to ``n`` late-deal positions with at most 11 unseen cards whose hidden places
    satisfy ``want(places, known, pub)``, with their brute-force enumeration."""
    found = []
    for g, seat, hand, pub, true, extra in positions(game_name, 150, 11, seats=seats, **options):
        places, known, unseen = oracle_places(g, seat, hand, pub)
        if len(unseen) > 11 or not want(places, known, pub, unseen):
            continue
        counts = oracle_enumerate(places, unseen)
        if 4 <= len(counts) <= hi:
            found.append((g, seat, hand, pub, extra, places, known, counts))
            if len(found) == n:
                break
    return found


def _restricted(places, known, pub, unseen):
    return any(p[2] != unseen for p in places)


def _buur_only(places, known, pub, unseen):
    return any(int(pub[VOIDS + s]) >> 4 for s in range(4)) and _restricted(places, known, pub, unseen)


def _discard_place(places, known, pub, unseen):
    return any(p[0] == "discard" for p in places) and _restricted(places, known, pub, unseen)


def _known_card(places, known, pub, unseen):
    return any(known.values())


@pytest.mark.parametrize("game_name,options,seats,want", [
    ("spades", {"break_spades": True}, "random", _restricted),
    ("euchre", {}, "random:bidder=random", _restricted),
    ("euchre", {}, "random:bidder=random", _discard_place),
    ("euchre", {"discard_upcard": False}, "random:bidder=random", _known_card),
    ("sueca", {}, "random", _restricted),
    ("sueca", {}, "random", _known_card),
    ("jass", {}, "random:bidder=simple", _buur_only),
], ids=["spades", "euchre", "euchre-discard", "euchre-upcard-known", "sueca", "sueca-shown-card", "jass-buur"])
def test_sampler_counts_and_is_uniform_on_enumerable_positions(game_name, options, seats, want):
    from scipy.stats import chisquare

    cases = _small_positions(game_name, options, want, seats)
    assert cases, "no small position of the wanted kind found"
    for g, seat, hand, pub, extra, places, known, counts in cases:
        total = sum(counts.values())
        assert count_deals(g.rules, extra["mode"], seat, hand, pub) == total
        n = 60 * len(counts)
        _, deals = sample_deals(g.rules, extra["mode"], seat, hand, pub, n, seed=5)
        names = [p[0] for p in places if isinstance(p[0], int)]
        keys = list(counts)
        index = {k: j for j, k in enumerate(keys)}
        observed = np.zeros(len(keys))
        for d in deals:
            key = tuple((s, frozenset(bits(int(d[s])) - known[s])) for s in names)
            observed[index[key]] += 1          # KeyError = an inconsistent deal
        expected = np.array([counts[k] for k in keys], float) / total * n
        assert chisquare(observed, expected).pvalue > 1e-4


def test_euchre_turned_card_is_in_the_dealers_hand_or_discarded():
    """Ordered up, discard_upcard=true: for a non-dealer the turned card is the dealer's
    with probability n_dealer / (n_dealer + 1) (world states: kitty vs discard)."""
    for g, seat, hand, pub, true, extra in positions("euchre", 80, 3, seats="random:bidder=random"):
        if not extra["ordered"] or seat == int(pub[1]) or int(pub[10]) >= 0 or int(pub[NPLAYED]) or int(pub[TRICK]):
            continue
        up = int(pub[UPCARD])
        dealer = int(pub[1])
        if up in bits(hand):
            continue
        _, deals = sample_deals(g.rules, extra["mode"], seat, hand, pub, 12000, seed=1)
        p = np.mean([(int(d[dealer]) >> up) & 1 for d in deals])
        assert abs(p - 5 / 6) < 0.02
        assert not any((int(d[s]) >> up) & 1 for d in deals for s in range(4) if s != dealer)
        return
    pytest.fail("no ordered-up position found")


# ------------------------------------------------------------------ honesty: swap test

SEARCH_SEATS = ["mc:shuffles=8,playouts=1", "ismcts:iterations=60", "dmcts:determinizations=3,iterations=30",
                "mc:variant=normal,shuffles=4,playouts=2,shuffle=per_card,ties=random",
                "tdmcts:factor=1,iterations=30", "tdmcts:determinizations=3,iterations=30",
                "pdmcts:determinizations=3,iterations=30", "pismcts:iterations=60", "dnn"]
# agents of other packages (evolve.agents.external), played on tables: Jass only
EXTERNAL_SEATS = {"jass": ["pyschieber:player=challenge,trump=own", "pyschieber:player=greedy"]}
PERFECT_SEATS = ["perfect_mc:shuffles=8,playouts=1", "perfect_dmcts:determinizations=1,iterations=60",
                 "perfect_mc:variant=normal,shuffles=4,playouts=2,shuffle=per_card,ties=random"]
SWAPS = [
    ("spades", {}, (1, 2, 3)),
    ("euchre", {"setup": "fixed_spades"}, (1, 2, 3)),
    ("sueca", {}, (1, 2)),        # the dealer (3) keeps the shown trump card
    ("jass", {}, (1, 2, 3)),
]


@pytest.mark.parametrize("game_name,options,swap", SWAPS)
def test_swapping_hidden_hands_never_changes_the_decision(game_name, options, swap):
    """Seat 0 leads trick 1 (dealer 3). Every permutation of the other seats' hands gives
    the same observation, the same random streams and so the same first card."""
    for agent in SEARCH_SEATS + EXTERNAL_SEATS.get(game_name, []):
        for group in _first_cards_under_swaps(game_name, options, swap, agent):
            assert len(set(group)) == 1, (agent, group)


@pytest.mark.parametrize("game_name,options,swap", SWAPS)
def test_swap_test_detects_the_perfect_information_agents(game_name, options, swap):
    """The same test catches an agent that reads the hidden hands: the upper bounds
    ``perfect_mc`` / ``perfect_dmcts`` change their first card when only the other seats'
    hands are permuted."""
    for agent in PERFECT_SEATS:
        groups = _first_cards_under_swaps(game_name, options, swap, agent)
        assert any(len(set(group)) > 1 for group in groups), (agent, groups)


def _first_cards_under_swaps(game_name, options, swap, agent):
    """Per random deal, seat 0's (trump, first card) for every permutation of the hands
    of the seats ``swap`` (same streams: deal index 0 each time)."""
    g = make_game(game_name, **options)
    info = g.info
    rng = np.random.default_rng(3)
    decks = []
    for _ in range(6):
        deck = rng.permutation(info.n_cards)
        hs = info.hand_size
        hands = [deck[k * hs:(k + 1) * hs] for k in range(4)]
        for perm in itertools.permutations(swap):
            new = list(hands)
            for a, b in zip(swap, perm):
                new[a] = hands[b]
            decks.append(np.concatenate(new + [deck[4 * hs:]]))
    n_perm = len(list(itertools.permutations(swap)))
    seats = [agent, "random:bidder=random", "random:bidder=random", "random:bidder=random"]
    # every deal uses the streams of deal index 0 (start=0, one deal per call)
    first = []
    for d in decks:
        r = evolve.play(g, seats, decks=d[None, :], dealer=3, seed=9, record=True)
        assert int(r.first_leader[0]) == 0
        first.append((int(r.trump[0]), int(r.plays[0, 0])))
    return [first[k:k + n_perm] for k in range(0, len(first), n_perm)]


def test_mid_deal_decision_ignores_hidden_cards():
    """Swap same-suit unplayed cards between two other seats: the public history replays
    identically, so the observation and the decision are identical."""
    g = make_game("sueca")
    rng = np.random.default_rng(5)
    spec = parse_seat("ismcts:iterations=80", g)
    work = np.zeros(spec.work_size)
    n = 0
    while n < 20:
        deck = rng.permutation(40)
        hands = [sorted(deck[k * 10:(k + 1) * 10]) for k in range(4)]
        s = TrickState(g, hands, mode=int(rng.integers(4)), leader=0)
        plays = []
        for _ in range(int(rng.integers(5, 25))):
            c = int(rng.choice(s.legal()))
            plays.append(c)
            s.play(c)
        seat = s.to_move
        a, b = [x for x in range(4) if x != seat][:2]
        rest_a, rest_b = set(s.hand(a)), set(s.hand(b))
        pairs = [(x, y) for x in rest_a for y in rest_b if x // 10 == y // 10]
        if not pairs or len(s.legal()) < 2:
            continue
        x, y = pairs[0]
        swapped = [set(h) for h in hands]
        swapped[a] = (swapped[a] - {x}) | {y}
        swapped[b] = (swapped[b] - {y}) | {x}
        t = TrickState(g, [sorted(h) for h in swapped], mode=s.mode, leader=0)
        for c in plays:
            t.play(c)
        assert (t.pub == s.pub).all() and t.hands[seat] == s.hands[seat] and t.hands[a] != s.hands[a]
        cards = []
        for st in (s, t):
            rngs = np.array([11, 12, 13, 14, 15], np.uint64) + np.uint64(n)
            legal = legal_cards(g.rules, st.mode, st.hands[seat], st.pub)
            cards.append(search_card(spec.play_kind, spec.play_params, 0, len(spec.play_params), seat, g.rules,
                                     st.mode, st.hands[seat], legal, st.pub, rngs, work))
        assert cards[0] == cards[1]
        n += 1


# ------------------------------------------------------------------ strength


def paired_gain(game_name, agent, n, seed, **options):
    """Per deal, the agent's side minus Random's, averaged over the two seatings of the
    same deal (sides exchanged); cut-throat Spades: the agent in seat 0 against Random in
    seat 0 on the same deal. Returns the mean with its 95% CI over the n deals."""
    if game_name == "euchre":
        options.setdefault("stick_the_dealer", True)    # simple bidders pass out most deals
    g = make_game(game_name, **options)
    if g.partnership:
        a = evolve.play(g, [agent, "random:bidder=simple"], n, seed=seed)
        b = evolve.play(g, ["random:bidder=simple", agent], n, seed=seed)
        ours = (a.points[:, 0] + b.points[:, 1]) / 2.0
        theirs = (a.points[:, 1] + b.points[:, 0]) / 2.0
    else:
        a = evolve.play(g, [agent] + ["random"] * 3, n, seed=seed)
        b = evolve.play(g, ["random"] * 4, n, seed=seed)
        ours, theirs = a.tricks[:, 0].astype(float), b.tricks[:, 0].astype(float)
    ci, _ = paired_difference(ours, theirs)
    return ci


@pytest.mark.parametrize("game_name", ["spades", "euchre", "sueca", "jass"])
def test_mc_beats_random(game_name):
    ci = paired_gain(game_name, "mc:variant=extra,shuffles=10,playouts=2", 200, 1)
    assert ci.low > 0, ci


@pytest.mark.parametrize("game_name", ["spades", "euchre", "sueca", "jass"])
@pytest.mark.parametrize("agent", ["ismcts:iterations=100", "dmcts:determinizations=4,iterations=50"])
def test_tree_searchers_play_legally_and_beat_random(game_name, agent):
    # the engine raises on any illegal card; all four seats search here
    r = evolve.play(game_name, agent, 10, seed=2)
    assert r.n_deals == 10
    ci = paired_gain(game_name, agent, 80, 4)
    assert ci.low > 0, ci


def test_mc_variants_and_options():
    g = make_game("sueca")
    for agent in ("mc:variant=normal,shuffles=5,playouts=3", "mc:variant=average,shuffles=5"):
        r = evolve.play(g, [agent, "random"], 5, seed=1)
        assert r.n_deals == 5
    assert parse_seat("mc:variant=average,playouts=5", g).play_params.tolist() == [1, 50, 5, 0, 0, 0]
    assert parse_seat("ismcts", g).play_params[0] == 100
    for bad in ("mc:variant=best", "mc:shuffles=0", "ismcts:c=-1", "dmcts:c=x", "ismcts:iterations=0",
                "mc:seconds=-1", "dmcts:seconds=soon", "mc:shuffle=each", "mc:ties=first"):
        with pytest.raises(UsageError):
            parse_seat(bad, g)
    for name in ("mc", "dmcts", "ismcts"):
        assert AGENTS[name].games == tuple(REGISTERED)
        assert AGENTS[name].options["bidder"].default == "default"      # the game's rule-based bidder


@pytest.mark.parametrize("agent", ["mc:seconds=0.01", "dmcts:determinizations=4,seconds=0.01", "ismcts:seconds=0.01"])
def test_time_budget_spends_the_seconds_and_scales_the_search(agent):
    g, positions = sample_positions("euchre", 12, seed=5)
    spec = parse_seat(agent, g)
    assert spec.play_params[-1] > 1e6 * 0.01      # ticks: the counter runs at MHz rates or more
    cards, seconds = decide_many(g, spec, positions)
    for (seat, mode, hand, pub), card in zip(positions, cards):
        assert has(legal_cards(g.rules, mode, hand, pub), card)
    # never stops before the budget (clock checks between passes), and not far after it
    assert 0.95 * 0.01 * len(positions) <= seconds < 0.01 * len(positions) + 1.0, seconds
    r = evolve.play(g, [agent, "random"], 2, seed=1)      # and inside the engine
    assert r.n_deals == 2


def test_same_stream_same_decision_and_work_size_checked():
    g = make_game("jass")
    for agent in SEARCH_SEATS:
        a = evolve.play(g, [agent, "random"], 4, seed=3, record=True)
        b = evolve.play(g, [agent, "random"], 4, seed=3, record=True)
        assert (a.plays == b.plays).all()
    spec = parse_seat("ismcts:iterations=50", g)
    s = TrickState(g, [list(range(k * 9, k * 9 + 9)) for k in range(4)], mode=0, leader=0)
    with pytest.raises(ValueError):
        search_card(spec.play_kind, spec.play_params, 0, 2, 0, g.rules, 0, s.hands[0], s.legal_mask(), s.pub,
                    np.ones(5, np.uint64), np.zeros(100))


@pytest.mark.parametrize("game_name,options", GAMES)
def test_fast_rollout_matches_the_engine_updates(game_name, options):
    """``rollout`` (registers, inlined follow-suit rule) plays and scores exactly like
    ``legal_cards``/``note_play``/``finish_trick`` on the same random stream."""
    from evolve.agents.search import card_search as S
    from evolve.agents.search.determinize import det_prepare, det_sample
    from evolve.games.state import PUB_SIZE, SIDE_POINTS, TRICKS_WON

    work = np.zeros(S.OFF_TREE)
    iw = work.view(np.int64)
    p = iw[S.OFF_PUB:S.OFF_PUB + PUB_SIZE]
    n = 0
    for k, (g, seat, hand, pub, true, extra) in enumerate(positions(game_name, 8, 21, **options)):
        mode = extra["mode"]
        det_prepare(g.rules, mode, seat, hand, pub, iw, 0)
        rngs = np.array([1, 2, 3, 4, 5], np.uint64) * np.uint64(k + 1)
        det_sample(iw, 0, rngs, seat, iw, S.OFF_DEAL)
        legal = bits(legal_cards(g.rules, mode, hand, pub))
        out = int(pub[10])
        for first in (-1, min(legal)):
            results = []
            for fn in (S.rollout, S.rollout_reference):
                S.load_state(pub, p, iw, S.OFF_HANDS, S.OFF_DEAL)
                r = rngs.copy()
                fn(g.rules, mode, p, iw, S.OFF_HANDS, seat, out, r, seat, first)
                results.append((list(p[TRICKS_WON:TRICKS_WON + 4]), list(p[SIDE_POINTS:SIDE_POINTS + 2]),
                                list(iw[S.OFF_HANDS:S.OFF_HANDS + 4]), list(r)))
            assert results[0] == results[1]
            assert results[0][2] == [0, 0, 0, 0]
            n += 1
    assert n > 50
