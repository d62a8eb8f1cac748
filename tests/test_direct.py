"""Direct per-card feature connections of networks (``network.direct``): the features mean
what they say (a network made only of them plays exactly HighLow), they read only what the
seat sees, they survive the champion files, and networks without them are unchanged."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import evolve
from evolve.agents.genomes.evolvable import NetworkAgent
from evolve.agents.network.architecture import Architecture, padded
from evolve.agents.network.direct import DIRECT_FEATURES
from evolve.agents.network.play import HEADER
from evolve.games.registry import make_game

# would win now +1, strength -0.25, strength if it would win +0.5: the highest winning card, else the lowest
HIGHLOW = [1.0, 0.0, -0.25, 0.0, 0.0, 0.5]


def _direct_spec(game, weights, seed=None, encoding="card"):
    arch = Architecture.for_game(game, encoding, (16, 16), True, direct=True)
    genome = (
        np.zeros(arch.genome_size) if seed is None else np.random.default_rng(seed).uniform(-1, 1, arch.genome_size)
    )
    genome[-DIRECT_FEATURES:] = weights
    return NetworkAgent(arch, "simple").specs(genome[None])[0]


def test_a_network_of_direct_connections_alone_plays_highlow():
    g = make_game("spades")
    mine = evolve.play(g, [_direct_spec(g, HIGHLOW), "random", "random", "random"], 1500, seed=4, record=True)
    theirs = evolve.play(g, ["highlow", "random", "random", "random"], 1500, seed=4, record=True)
    assert np.array_equal(mine.plays, theirs.plays)
    other = evolve.play(g, [_direct_spec(g, [0, 0, 0.25, 0, 0, 0]), "random", "random", "random"], 1500, seed=4,
                        record=True)
    assert not np.array_equal(other.plays, theirs.plays)    # the weights matter


@pytest.mark.parametrize("game_name,options,swap", [
    ("spades", {}, (1, 2, 3)),
    ("euchre", {"setup": "fixed_spades"}, (1, 2, 3)),
    ("sueca", {}, (1, 2)),        # the dealer (3) keeps the shown trump card
    ("jass", {}, (1, 2, 3)),
])
@pytest.mark.parametrize("encoding", ["card", "seat"])
def test_direct_features_read_no_hidden_card(game_name, options, swap, encoding):
    """Seat 0 leads trick 1: permuting the other seats' hands changes nothing it may see,
    so its first card (which depends on the 'wins for certain' feature and, with the seat
    encoding, on what the others may hold) must not change."""
    g = make_game(game_name, **options)
    info = g.info
    spec = _direct_spec(g, [0.2, 1.0, 0.3, -0.4, 0.5, 0.1], seed=1, encoding=encoding)
    seats = [spec, "random:bidder=random", "random:bidder=random", "random:bidder=random"]
    rng = np.random.default_rng(3)
    hs = info.hand_size
    for _ in range(8):
        deck = rng.permutation(info.n_cards)
        hands = [deck[k * hs:(k + 1) * hs] for k in range(4)]
        firsts = set()
        for perm in itertools.permutations(swap):
            new = list(hands)
            for a, b in zip(swap, perm):
                new[a] = hands[b]
            d = np.concatenate(new + [deck[4 * hs:]])
            r = evolve.play(g, seats, decks=d[None, :], dealer=3, seed=9, record=True)
            firsts.add((int(r.trump[0]), int(r.plays[0, 0])))
        assert len(firsts) == 1


def test_direct_architecture_round_trips_and_plain_networks_pack_as_before(tmp_path):
    from evolve.agents.genomes.champion import Champion, load_champion, save_champion

    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (16, 16), True, direct=True)
    plain = Architecture.for_game(g, "card", (16, 16), True)
    assert arch.genome_size == plain.genome_size + DIRECT_FEATURES
    genome = np.random.default_rng(2).uniform(-1, 1, arch.genome_size)
    a, b = arch.pack(genome), plain.pack(genome[:-DIRECT_FEATURES])
    assert a[7] == DIRECT_FEATURES and b[7] == 0 and np.array_equal(a[:7], b[:7])
    assert np.array_equal(a[8:HEADER], b[8:HEADER])
    p1, p2 = padded(16), padded(16)
    words = 156 * p1 + p1 + 16 * p2 + p2 + 52 * p2 + 52     # every 4-byte weight of the plain network
    assert np.array_equal(a[HEADER:].view(np.uint32)[:words], b[HEADER:].view(np.uint32)[:words])
    assert np.array_equal(
        a[HEADER:].view(np.float32)[words : words + DIRECT_FEATURES], genome[-DIRECT_FEATURES:].astype(np.float32)
    )
    save_champion(tmp_path, Champion(NetworkAgent(arch), genome, {"game": "spades"}))
    back = load_champion(tmp_path / "champion.npz")
    assert back.agent.arch.direct and np.array_equal(back.genome, genome)
