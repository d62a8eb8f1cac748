"""Hearts' rules refereed by OpenSpiel's ``hearts`` (``pyspiel``): the same deal, the same
passes and the same cards must give the same legal sets at every play and the same points.

Each deal is dealt at random and played with random legal actions in both: OpenSpiel's
state gets the pass direction of our rotation (the deal's dealer: left, right, across,
none) as its chance outcome, the deal card by card (the k-th card to player k % 4, so each
seat holds the same 13 cards), the same passes (seat 0 first) and then the same cards. On
our side the cards move as ``evolve.games.hearts.game`` passes them and the play runs
through the shared trick step (``evolve.games.trick.play_step``) with the game's hooks
(``evolve.games.hooks``), from the public state ``reset_pub`` opens. At every play our
legal set must equal OpenSpiel's ``legal_actions()``, and at the end each seat's result
(26 minus its points, ``hooks.seat_result``) OpenSpiel's ``returns()``. The deals cycle
through OpenSpiel's defaults, each option flipped alone, and every option flipped.

OpenSpiel numbers a card rank * 4 + suit (suits C, D, H, S); ours is suit * 13 + rank.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from evolve.games.bits import ONE, cards_of  # noqa: E402
from evolve.games.hearts.game import FLAGS, N_PASSED, OPTIONS, build, pass_offset  # noqa: E402
from evolve.games.hearts.hooks import MUST_BREAK_HEARTS, TWO_OF_CLUBS, penalty  # noqa: E402
from evolve.games.hooks import legal_cards, seat_result  # noqa: E402
from evolve.games.options import resolve_options  # noqa: E402
from evolve.games.rules import P_GAME_OPTIONS  # noqa: E402
from evolve.games.state import BROKEN, PUB_SIZE, reset_pub  # noqa: E402
from evolve.games.trick import open_play, play_step  # noqa: E402

DEFAULTS = {name: OPTIONS[name].default for name in FLAGS}
VARIANTS = ([{}] + [{name: not value} for name, value in DEFAULTS.items()]
            + [{name: not value for name, value in DEFAULTS.items()}])


def to_openspiel(card: int) -> int:
    return (card % 13) * 4 + card // 13


def from_openspiel(action: int) -> int:
    return (action % 4) * 13 + action // 4


def _mask(cards) -> np.uint64:
    m = np.uint64(0)
    for c in cards:
        m |= ONE << np.uint64(c)
    return m


def referee(n_deals: int, seed: int) -> dict:
    """Play ``n_deals`` random deals in both engines; returns counts (raises on a mismatch)."""
    rng = np.random.default_rng(seed)
    games = {}
    counts = {"deals": 0, "plays": 0, "moons": 0, "passes": 0}
    for i in range(n_deals):
        variant = VARIANTS[i % len(VARIANTS)]
        key = tuple(sorted(variant.items()))
        if key not in games:
            rules = build(resolve_options(OPTIONS, variant, "hearts"))
            games[key] = (rules, pyspiel.load_game("hearts", {k: bool(v) for k, v in variant.items()}))
        rules, os_game = games[key]
        dealer = i % 4
        offset = pass_offset(rules, dealer)
        state = os_game.new_initial_state()
        state.apply_action(offset)
        deck = rng.permutation(52)
        hands = [sorted(int(c) for c in deck[13 * s:13 * s + 13]) for s in range(4)]
        for k in range(52):
            state.apply_action(to_openspiel(hands[k % 4][k // 4]))
        if offset:
            passed = []
            for s in range(4):
                chosen = []
                for _ in range(N_PASSED):
                    assert state.current_player() == s
                    left = [c for c in hands[s] if c not in chosen]
                    assert sorted(from_openspiel(a) for a in state.legal_actions()) == left
                    card = left[rng.integers(len(left))]
                    chosen.append(card)
                    state.apply_action(to_openspiel(card))
                passed.append(chosen)
            for s in range(4):
                hands[s] = [c for c in hands[s] if c not in passed[s]]
            for s in range(4):
                hands[(s + offset) % 4] += passed[s]
            counts["passes"] += 1
        masks = [_mask(h) for h in hands]
        pub = np.empty(PUB_SIZE, np.int64)
        reset_pub(pub, dealer)
        if not int(rules[P_GAME_OPTIONS]) & MUST_BREAK_HEARTS:
            pub[BROKEN] = 1
        leader = next(s for s in range(4) if masks[s] >> np.uint64(TWO_OF_CLUBS) & ONE)
        seat = open_play(pub, leader, -1)
        while seat >= 0:
            assert state.current_player() == seat, (i, variant)
            legal = cards_of(legal_cards(rules, np.int64(0), masks[seat], pub))
            theirs = sorted(from_openspiel(a) for a in state.legal_actions())
            assert sorted(legal) == theirs, (i, variant, seat, legal, theirs)
            card = int(legal[rng.integers(len(legal))])
            masks[seat] &= ~(ONE << np.uint64(card))
            state.apply_action(to_openspiel(card))
            seat = play_step(rules, np.int64(0), pub, seat, card)
            counts["plays"] += 1
        assert state.is_terminal()
        returns = state.returns()
        for s in range(4):
            assert seat_result(rules, pub, s) == returns[s], (i, variant, s, returns)
        counts["moons"] += int(any(penalty(rules, pub, s) == 0 for s in range(4))
                               and sorted(penalty(rules, pub, s) for s in range(4))[1:] == [26, 26, 26])
        counts["deals"] += 1
    return counts


def test_hearts_vs_openspiel():
    counts = referee(2000, seed=11)
    assert counts["deals"] == 2000 and counts["plays"] == 2000 * 52
    assert counts["passes"] > 0


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("EVOLVE_SLOW_TESTS") != "1",
                    reason="100,000 deals take minutes: set EVOLVE_SLOW_TESTS=1 to run them")
def test_hearts_vs_openspiel_100k():
    counts = referee(100_000, seed=12)
    assert counts["deals"] == 100_000
    assert counts["moons"] > 0
