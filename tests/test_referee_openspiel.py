"""Our Numba engine refereed by OpenSpiel (``pyspiel`` 2.0.2): Spades and Euchre.

Deals are played in our engine (``evolve.play(..., record=True)``) with random card
play and random or rule-based ("simple") bidding, then replayed action by action in
OpenSpiel through the adapters in ``tests/referees`` (``openspiel_spades.py``,
``openspiel_euchre.py``; their docstrings cite the OpenSpiel source).  For every deal we
compare every trick leader, trick winner, the tricks per seat, the contract/trump
details and the hand score, and before every card play our legal set (from
``evolve.games.stepper.TrickState``, which drives the engine's own Numba legality) with
OpenSpiel's ``legal_actions()``.  0 mismatches are required.

Known OpenSpiel departures (and how the tests bridge them)
----------------------------------------------------------
* **Single hand.**  Both OpenSpiel games score one hand on its own (no game to 500 / to
  10); we compare our per-deal ``score`` only (``game_score`` is not refereed).
* **Spades: North always bids first and leads.**  OpenSpiel has no dealer; player 0 bids
  first and leads trick 1.  Our forehand is ``dealer + 1``, so every Spades deal here is
  played with ``dealer=3``.
* **Spades: spades are never broken.**  OpenSpiel's ``is_spades_broken_`` is never set, so
  a spade may be led only from an all-spade hand.  Ours (``break_spades=True``) lets a
  spade be led once any spade has been played.  The legal sets therefore differ exactly
  at the leads where a spade was already played in this deal and the leader holds both
  spades and non-spades: ours = the whole hand, OpenSpiel's = the non-spades.  The test
  asserts that this is the *only* difference, counts those positions, and replays the
  deals where we actually led a spade there with ``strict=False`` (OpenSpiel's C++ does
  not check legality); winners and scores must still match.
* **Spades: the bag penalty within one hand.**  OpenSpiel's ``Score()`` (fresh state,
  prior score S_P = 0) for side P with contract C (nil counts 0), tricks T (a nil
  bidder's tricks included) and nil bonus NIL is ``-10*C + NIL`` if set, else
  ``10*C + (T-C) + NIL - 100*((0 + (T-C)) // 10)``; T-C <= 13, so the last term is
  ``-100 * [T-C >= 10]``.  Our hand score is the same without that term (the bag penalty
  is applied in the game score), and our ``bags`` is T-C when made, 0 when set; hence,
  exactly, ``OpenSpiel R_P = score_P - 100 * [bags_P >= 10]``, and the returns are
  ``[R_0, R_1, R_0, R_1]`` (the adapter loads ``win_or_loss_bonus=0``; the bonus can
  never fire on one hand with the default thresholds anyway).
* **Euchre: scores are zero-sum returns.**  Our ``score`` gives the scoring side its
  points and 0 to the other; OpenSpiel returns ``+x`` to the makers and ``-x`` to the
  defenders, i.e. ``returns[p] = score[p % 2] - score[1 - p % 2]``.
* **Euchre: -2 (not -4) against a lone defender.**  Only with
  ``allow_lone_defender=True`` can a defender go alone in OpenSpiel, and then a euchre
  costs the makers 4; we never let a defender go alone, so the adapter runs with the
  default ``allow_lone_defender=False`` and every euchre is 2 (also for a lone maker).
  OpenSpiel has no "super-euchre" either.
* **Euchre: the dealer may not discard the upcard** in OpenSpiel; our option
  ``discard_upcard=False`` matches.  With ``stick_the_dealer=False`` a deal where all
  eight calls pass ends at once in OpenSpiel with zero returns; ours records trump -1,
  no tricks and a zero score.
"""

from __future__ import annotations

import os
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("pyspiel")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "referees"))

import openspiel_euchre as ose  # noqa: E402
import openspiel_spades as oss  # noqa: E402

import evolve  # noqa: E402
from evolve.games.registry import make_game  # noqa: E402
from evolve.games.stepper import TrickState  # noqa: E402

# ----------------------------------------------------------------- constants ---
SPADES_OPTIONS = dict(partnership=True, bidding="standard", break_spades=True)
SPADES_DEALER = 3  # OpenSpiel: North (seat 0) bids first and leads
# (seats, n_deals, seed)
RANDOM = "random:bidder=random"     # random cards and random bids, as OpenSpiel's random bot
SPADES_RUNS = [
    (RANDOM, 10_000, 7101),
    ("random:bidder=simple", 2_000, 7102),
]

SIMPLE = "random:bidder=simple"
# (seats, n_deals, seed, first dealer); dealers rotate from there
EUCHRE_STICK_RUNS = [
    (RANDOM, 4_000, 7201, 0),
    (SIMPLE, 2_500, 7202, 1),
    ([SIMPLE, RANDOM, SIMPLE, RANDOM], 1_000, 7203, 2),
]
EUCHRE_NO_STICK_RUNS = [
    (RANDOM, 1_500, 7301, 3),
    (SIMPLE, 2_500, 7302, 0),
    ([RANDOM, SIMPLE, RANDOM, SIMPLE], 1_000, 7303, 1),
]

EU_PASS, EU_ORDER = 4, 5  # our Euchre calls log codes


# ------------------------------------------------------------------- helpers ---
class Mismatches:
    """Collects mismatches; the report shows the counts and the first deal in full."""

    def __init__(self, title: str):
        self.title = title
        self.kinds: Counter = Counter()
        self.first: str | None = None

    def add(self, kind: str, message: str, deal_dump) -> None:
        self.kinds[kind] += 1
        if self.first is None:
            self.first = f"[{kind}] {message}\n{deal_dump()}"

    def check(self) -> None:
        if self.kinds:
            total = sum(self.kinds.values())
            pytest.fail(
                f"{self.title}: {total} mismatch(es) vs OpenSpiel, by kind {dict(self.kinds)}\n"
                f"first mismatch: {self.first}",
                pytrace=False,
            )


def _ints(a) -> list[int]:
    return [int(x) for x in a]


# ==================================================================== Spades ===
def _spades_dump(seats, seed, r, i, extra=""):
    def dump():
        return (
            f"  spades deal {i} of evolve.play('spades', {seats!r}, {r.n_deals}, seed={seed}, "
            f"dealer=[{SPADES_DEALER}]*n, record=True, **{SPADES_OPTIONS})\n"
            f"  hands={r.hands[i].tolist()}\n  bids={r.bids[i].tolist()}\n"
            f"  plays={r.plays[i].tolist()}\n  leaders={r.leaders[i].tolist()}\n"
            f"  winners={r.winners[i].tolist()}\n  tricks={r.tricks[i].tolist()} "
            f"score={r.score[i].tolist()} bags={r.bags[i].tolist()}\n{extra}"
        )
    return dump


def test_spades_vs_openspiel():
    game = make_game("spades", **SPADES_OPTIONS)
    mm = Mismatches("Spades")
    stats = Counter()
    for seats, n, seed in SPADES_RUNS:
        r = evolve.play("spades", seats, n, seed=seed, record=True,
                        dealer=np.full(n, SPADES_DEALER), **SPADES_OPTIONS)
        assert (r.dealer == SPADES_DEALER).all() and (r.first_leader == 0).all()
        for i in range(n):
            hands, bids, plays = r.hands[i], r.bids[i], _ints(r.plays[i])
            dump = _spades_dump(seats, seed, r, i)
            stats["deals"] += 1

            # --- our view, step by step: seat to move, legal set, hand
            st = TrickState(game, hands, 0, 0, dealer=SPADES_DEALER)
            movers, our_legal, diff_at, illegal_for_os = [], [], {}, []
            spade_played = False
            for k, card in enumerate(plays):
                seat = st.to_move
                hand = st.hand(seat)
                legal = st.legal()
                movers.append(seat)
                our_legal.append(legal)
                n_sp = sum(1 for c in hand if c // 13 == 3)
                if k % 4 == 0 and spade_played and 0 < n_sp < len(hand):
                    # the one allowed difference: OpenSpiel never breaks spades
                    diff_at[k] = (hand, [c for c in hand if c // 13 != 3])
                    if card // 13 == 3:
                        illegal_for_os.append(k)
                try:
                    st.play(card)
                except ValueError as e:
                    mm.add("engine play illegal", f"deal {i} play {k}: {e}", dump)
                    break
                spade_played = spade_played or card // 13 == 3
            if not st.done:
                continue
            if st.trick_winners != _ints(r.winners[i]):
                mm.add("stepper winners", f"TrickState winners {st.trick_winners} != engine "
                       f"{_ints(r.winners[i])}", dump)

            # --- OpenSpiel's view
            strict = not illegal_for_os
            try:
                o = oss.replay_spades(hands, bids, plays, strict=strict)
            except oss.OpenSpielRejection as e:
                mm.add("rejected", f"deal {i}: OpenSpiel rejected the replay (strict={strict}): {e}", dump)
                continue
            stats["strict=False replays"] += not strict

            if _ints(o["players"]) != movers:
                mm.add("turn order", f"deal {i}: seats to move ours {movers} vs OpenSpiel "
                       f"{_ints(o['players'])}", dump)
            for k in range(52):
                ours, theirs = our_legal[k], list(o["legal"][k])
                stats["legal sets compared"] += 1
                if k in diff_at:
                    stats["spades-broken legal differences"] += 1
                    hand, non_spades = diff_at[k]
                    if ours != hand or theirs != non_spades:
                        mm.add("legal (spades broken)",
                               f"deal {i} play {k}: expected ours = the whole hand {hand}, "
                               f"OpenSpiel = its non-spades {non_spades}; got ours {ours}, "
                               f"OpenSpiel {theirs}", dump)
                elif ours != theirs:
                    mm.add("legal", f"deal {i} play {k} (seat {movers[k]}): ours {ours} vs "
                           f"OpenSpiel {theirs}", dump)
            if list(o["illegal_steps"]) != illegal_for_os:
                mm.add("illegal steps", f"deal {i}: OpenSpiel flagged plays {o['illegal_steps']}, "
                       f"expected exactly the spade leads after spades broke {illegal_for_os}", dump)
            stats["spade leads illegal for OpenSpiel"] += len(illegal_for_os)

            if _ints(o["trick_leaders"]) != _ints(r.leaders[i]):
                mm.add("leaders", f"deal {i}: ours {_ints(r.leaders[i])} vs OpenSpiel "
                       f"{_ints(o['trick_leaders'])}", dump)
            if _ints(o["trick_winners"]) != _ints(r.winners[i]):
                mm.add("winners", f"deal {i}: ours {_ints(r.winners[i])} vs OpenSpiel "
                       f"{_ints(o['trick_winners'])}", dump)
            if _ints(o["tricks_per_seat"]) != _ints(r.tricks[i]):
                mm.add("tricks", f"deal {i}: ours {_ints(r.tricks[i])} vs OpenSpiel "
                       f"{_ints(o['tricks_per_seat'])}", dump)

            # --- score: OpenSpiel R_P = our score_P - 100 * [bags_P >= 10]
            pen = [-100 if r.bags[i, p] >= 10 else 0 for p in range(2)]
            expect = [int(r.score[i, p]) + pen[p] for p in range(2)]
            stats["within-hand bag penalties"] += sum(1 for x in pen if x)
            stats["nil bids"] += int((bids == 0).sum())
            if _ints(o["partnership_scores"]) != expect or \
                    [float(x) for x in o["returns"]] != [expect[0], expect[1], expect[0], expect[1]] \
                    or o["is_game_over"]:
                mm.add("score", f"deal {i}: ours score {_ints(r.score[i])} bags {_ints(r.bags[i])} "
                       f"-> expected OpenSpiel {expect}; OpenSpiel partnership scores "
                       f"{_ints(o['partnership_scores'])}, returns {list(o['returns'])}, "
                       f"breakdown { {k: v.tolist() for k, v in o['score_breakdown'].items()} }",
                       dump)
            if _ints(o["score_breakdown"]["bags"]) != _ints(r.bags[i]):
                mm.add("bags", f"deal {i}: ours {_ints(r.bags[i])} vs OpenSpiel "
                       f"{_ints(o['score_breakdown']['bags'])}", dump)

    print(f"\nSpades vs OpenSpiel: {dict(stats)}")
    mm.check()
    # the interesting cases were actually exercised
    assert stats["deals"] >= 10_000
    assert stats["spades-broken legal differences"] > 0
    assert stats["strict=False replays"] > 0
    assert stats["within-hand bag penalties"] > 0
    assert stats["nil bids"] > 0


# ==================================================================== Euchre ===
def euchre_neutral(r, i):
    """(dealer, deck, actions) of deal ``i`` in the adapter's neutral form."""
    deck = _ints(r.hands[i].reshape(-1)) + _ints(r.rest[i])
    calls = _ints(r.calls[i])
    actions = []
    for c in calls[0:4]:
        if c < 0:
            break
        actions.append(("order",) if c == EU_ORDER else ("pass",) if c == EU_PASS else ("bad", c))
    for c in calls[4:8]:
        if c < 0:
            break
        actions.append(("pass",) if c == EU_PASS else ("call", c) if 0 <= c < 4 else ("bad", c))
    if r.discard[i] >= 0:
        actions.append(("discard", int(r.discard[i])))
    if r.trump[i] >= 0:
        actions.append(("alone", bool(r.alone[i])))
    actions += [("play", int(c)) for c in r.plays[i] if c >= 0]
    return int(r.dealer[i]), deck, actions


def _expected_bidding_legal(step_kind_round, dealer, seat, upsuit, stick):
    """Bidding legal sets per our rules (``docs/reference/games.md`` / evolve.games.euchre.game docstring)."""
    if step_kind_round == 1:
        return [("order",), ("pass",)]
    out = [("call", s) for s in range(4) if s != upsuit]
    if not (stick and seat == dealer):
        out.append(("pass",))
    return sorted(out, key=lambda t: (t[0],) + t[1:])


def _euchre_run(runs, stick: bool):
    game = make_game("euchre", stick_the_dealer=stick, discard_upcard=False)
    mm = Mismatches(f"Euchre (stick_the_dealer={stick})")
    stats = Counter()
    for seats, n, seed, dealer0 in runs:
        r = evolve.play("euchre", seats, n, seed=seed, record=True, dealer=dealer0,
                        stick_the_dealer=stick, discard_upcard=False)
        for i in range(n):
            dealer, deck, actions = euchre_neutral(r, i)
            up = deck[20]
            trump, maker, alone = int(r.trump[i]), int(r.maker[i]), bool(r.alone[i])

            def dump(i=i, r=r, seats=seats, seed=seed, dealer0=dealer0, actions=actions, deck=deck):
                return (
                    f"  euchre deal {i} of evolve.play('euchre', {seats!r}, {n}, seed={seed}, "
                    f"dealer={dealer0}, record=True, stick_the_dealer={stick}, discard_upcard=False)\n"
                    f"  dealer={int(r.dealer[i])} deck={deck} (upcard {ose.card_name(deck[20])})\n"
                    f"  hands={[[ose.card_name(c) for c in h] for h in r.hands[i]]}\n"
                    f"  calls={_ints(r.calls[i])} trump={int(r.trump[i])} maker={int(r.maker[i])} "
                    f"alone={int(r.alone[i])} discard={int(r.discard[i])}\n"
                    f"  plays={_ints(r.plays[i])}\n  leaders={_ints(r.leaders[i])} "
                    f"winners={_ints(r.winners[i])} tricks={_ints(r.tricks[i])} "
                    f"score={_ints(r.score[i])}\n  neutral actions={actions}"
                )

            stats["deals"] += 1
            try:
                o = ose.replay_euchre(dealer, deck, actions, stick_the_dealer=stick)
            except ose.RefereeIllegalAction as e:
                mm.add("rejected", f"deal {i}: OpenSpiel rejected the replay: {e}", dump)
                continue

            # --- bidding, discard and go-alone decisions
            os_trump = -1 if o["trump"] is None else o["trump"]
            os_maker = -1 if o["declarer"] is None else o["declarer"]
            os_discard = -1 if o["discard"] is None else o["discard"]
            if (os_trump, os_maker, o["alone"], os_discard) != (trump, maker, alone, int(r.discard[i])):
                mm.add("contract", f"deal {i}: ours trump/maker/alone/discard "
                       f"{(trump, maker, alone, int(r.discard[i]))} vs OpenSpiel "
                       f"{(os_trump, os_maker, o['alone'], os_discard)}", dump)
            if not o["terminal"]:
                mm.add("terminal", f"deal {i}: OpenSpiel hand not over", dump)
            n_calls = 0
            for step, act in enumerate(actions):
                seat = o["actors"][step]
                if act[0] in ("pass", "order", "call"):
                    rnd = 1 if n_calls < 4 else 2
                    if seat != (dealer + 1 + n_calls) % 4:
                        mm.add("bidding order", f"deal {i} call {n_calls}: OpenSpiel seat {seat}", dump)
                    exp = _expected_bidding_legal(rnd, dealer, seat, up // 6, stick)
                    if o["legal_by_step"][step] != exp:
                        mm.add("bidding legal", f"deal {i} call {n_calls} (round {rnd}, seat {seat}): "
                               f"ours {exp} vs OpenSpiel {o['legal_by_step'][step]}", dump)
                    n_calls += 1
                    stats["bidding legal sets compared"] += 1
                elif act[0] == "discard":
                    exp = [("discard", c) for c in sorted(deck[5 * dealer:5 * dealer + 5])]
                    if seat != dealer or o["legal_by_step"][step] != exp:
                        mm.add("discard legal", f"deal {i}: seat {seat}, ours {exp} vs OpenSpiel "
                               f"{o['legal_by_step'][step]}", dump)
                elif act[0] == "alone":
                    if seat != maker or o["legal_by_step"][step] != [("alone", False), ("alone", True)]:
                        mm.add("alone legal", f"deal {i}: seat {seat} (maker {maker}), OpenSpiel "
                               f"{o['legal_by_step'][step]}", dump)

            if trump < 0:  # passed out
                stats["passed out"] += 1
                if stick:
                    mm.add("passed out", f"deal {i}: passed out under stick_the_dealer", dump)
                if (o["returns"] != [0.0] * 4 or o["trick_winners"] or _ints(r.score[i]) != [0, 0]
                        or _ints(r.tricks[i]) != [0] * 4 or (r.winners[i] >= 0).any()
                        or (r.plays[i] >= 0).any() or maker != -1):
                    mm.add("passed-out score", f"deal {i}: ours score {_ints(r.score[i])} tricks "
                           f"{_ints(r.tricks[i])}; OpenSpiel returns {o['returns']} winners "
                           f"{o['trick_winners']}", dump)
                continue

            # --- play: our legal sets via the stepper vs OpenSpiel's before every card
            hands = [set(_ints(h)) for h in r.hands[i]]
            if r.discard[i] >= 0:
                hands[dealer] = (hands[dealer] | {up}) - {int(r.discard[i])}
            out = (maker + 2) % 4 if alone else -1
            n_active = 3 if alone else 4
            st = TrickState(game, [sorted(h) for h in hands], trump, int(r.first_leader[i]),
                            out_seat=out, dealer=dealer)
            plays = [c for c in _ints(r.plays[i]) if c >= 0]
            if len(plays) != 5 * n_active or len(o["legal"]) != len(plays):
                mm.add("plays", f"deal {i}: {len(plays)} plays, OpenSpiel legal sets "
                       f"{len(o['legal'])}", dump)
                continue
            play_actors = [a for a, act in zip(o["actors"], actions) if act[0] == "play"]
            for k, card in enumerate(plays):
                ours = st.legal()
                stats["legal sets compared"] += 1
                if st.to_move != play_actors[k] or ours != list(o["legal"][k]):
                    mm.add("legal", f"deal {i} play {k}: ours seat {st.to_move} {ours} vs "
                           f"OpenSpiel seat {play_actors[k]} {list(o['legal'][k])}", dump)
                    break
                try:
                    st.play(card)
                except ValueError as e:
                    mm.add("engine play illegal", f"deal {i} play {k}: {e}", dump)
                    break

            # --- tricks
            our_cards = [plays[t * n_active:(t + 1) * n_active] for t in range(5)]
            if (_ints(o["trick_leaders"]) != _ints(r.leaders[i])
                    or o["trick_cards"] != our_cards):
                mm.add("leaders/cards", f"deal {i}: ours leaders {_ints(r.leaders[i])} cards "
                       f"{our_cards} vs OpenSpiel {o['trick_leaders']} {o['trick_cards']}", dump)
            if _ints(o["trick_winners"]) != _ints(r.winners[i]) or st.trick_winners != _ints(r.winners[i]):
                mm.add("winners", f"deal {i}: ours {_ints(r.winners[i])} (stepper "
                       f"{st.trick_winners}) vs OpenSpiel {o['trick_winners']}", dump)
            if _ints(o["tricks_per_seat"]) != _ints(r.tricks[i]):
                mm.add("tricks", f"deal {i}: ours {_ints(r.tricks[i])} vs OpenSpiel "
                       f"{o['tricks_per_seat']}", dump)

            # --- score: returns[p] = score[p % 2] - score[1 - p % 2]
            sc = _ints(r.score[i])
            expect = [float(sc[p % 2] - sc[1 - p % 2]) for p in range(4)]
            if o["returns"] != expect or min(sc) != 0:
                mm.add("score", f"deal {i}: ours {sc} -> returns {expect} vs OpenSpiel "
                       f"{o['returns']}", dump)
            makers = r.tricks[i, maker] + r.tricks[i, (maker + 2) % 4]
            stats["alone"] += alone
            stats["alone, forehand sits out"] += alone and out == (dealer + 1) % 4
            stats["alone, dealer sits out after discarding"] += bool(alone and out == dealer and r.discard[i] >= 0)
            stats["round-2 calls"] += bool(r.calls[i, 4] >= 0)
            stats["dealer calls in round 2"] += int(r.calls[i, 7]) in (0, 1, 2, 3)
            stats["euchres"] += bool(makers <= 2)
            stats["euchred lone makers"] += bool(makers <= 2 and alone)
            stats["marches"] += bool(makers == 5)
            stats["lone marches"] += bool(makers == 5 and alone)
    print(f"\nEuchre vs OpenSpiel (stick_the_dealer={stick}): {dict(stats)}")
    mm.check()
    return stats


def test_euchre_vs_openspiel_stick_the_dealer():
    stats = _euchre_run(EUCHRE_STICK_RUNS, stick=True)
    assert stats["passed out"] == 0
    for key in ("alone", "alone, forehand sits out", "alone, dealer sits out after discarding",
                "dealer calls in round 2", "euchres", "euchred lone makers", "lone marches"):
        assert stats[key] > 0, key


def test_euchre_vs_openspiel_no_stick():
    stats = _euchre_run(EUCHRE_NO_STICK_RUNS, stick=False)
    assert stats["passed out"] > 0
    assert stats["round-2 calls"] > 0


def test_euchre_deal_counts():
    assert sum(n for _, n, _, _ in EUCHRE_STICK_RUNS + EUCHRE_NO_STICK_RUNS) >= 10_000
