"""Network agents (the Spades thesis's encodings): the Numba kernel against a plain numpy reference.

The reference encodes an observation from the encodings' description
(``docs/explanation/encodings.md``) and runs the network in
float64 with ``np.tanh``; the kernel (float32, fixed-point first layer, incremental
first-layer records in ``work``) must give the same inputs, nearly the same outputs, and
choose the legal card with the highest reference output (up to float32 near-ties).
"""

from __future__ import annotations

import numpy as np
import pytest

import evolve
from evolve.agents.genomes.champion import Champion
from evolve.agents.network.architecture import Architecture, column_blocks, output_index, padded, quantize_w2
from evolve.agents.network.play import (
    ENC_CARD,
    ENC_HAND,
    ENC_SEAT,
    H1_BITS,
    H_BASE,
    H_SUITS,
    H_W1_ID,
    H_W1_SCALE,
    H_W2_SCALE,
    HEADER,
    LANES,
    SEAT_INPUTS,
    network_card,
    network_inputs,
    network_outputs,
)
from evolve.games.bits import cards_of
from evolve.games.knowledge import may_hold
from evolve.games.registry import make_game
from evolve.games.state import (
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    NPLAYED,
    PLAYED_BY,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    UPCARD,
    VOIDS,
)
from evolve.games.stepper import TrickState, replay_decisions

GAMES = ("spades", "euchre", "sueca", "jass")
ENCODINGS = ("card", "hand", "seat")
# the same, and the card-based ones with the suits renumbered trump first ("encoding+trump_first")
WITH_SUITS = ENCODINGS + ("card+trump_first", "seat+trump_first")
OUT_TOL = 2e-3      # |kernel output - float64 reference output|
TIE_TOL = 2e-3      # a choice within this of the best reference output is a near-tie
RNGS = np.ones(5, np.uint64)


# ----------------------------------------------------------------------------- reference


def reference_inputs(arch: Architecture, game, seat: int, mode: int, hand, pub) -> np.ndarray:
    """The input vector of an observation, built directly from its description."""
    info = game.info
    x = np.zeros(arch.n_in)
    hand = int(hand)
    held = cards_of(hand)
    trick = [int(pub[TRICK_CARDS + q]) for q in range(int(pub[NPLAYED]))]
    played = set()
    for s in range(4):
        played |= set(cards_of(np.uint64(pub[PLAYED_BY + s])))
    seen = played - set(trick)
    up = int(pub[UPCARD])
    if info.name == "euchre" and up >= 0 and up not in held and up not in trick:
        seen.add(up)
    if arch.encoding == "card":
        for c in held:
            x[3 * c] = 1
        for c in trick:
            x[3 * c + 1] = 1
        for c in seen:
            x[3 * c + 2] = 1
    elif arch.encoding == "seat":
        for c in held:
            x[8 * c] = 1
        for q, c in enumerate(trick):
            x[8 * c + (int(pub[TRICK_SEATS + q]) - seat) % 4] = 1     # by offset 1, 2, 3
        for c in seen:
            x[8 * c + 4] = 1
        for o in (1, 2, 3):
            for c in cards_of(may_hold(game.rules, mode, seat, np.uint64(hand), pub, (seat + o) % 4)):
                assert c not in held and c not in trick and c not in played
                x[8 * c + 4 + o] = 1
    else:
        n_ranks = info.n_cards // 4

        def put(slot, c):
            x[5 * slot] = c % n_ranks + 1
            x[5 * slot + 1 + c // n_ranks] = 1

        dealt = sorted(held + cards_of(np.uint64(pub[PLAYED_BY + seat])))
        for pos, c in enumerate(dealt):
            if c in held:
                put(pos, c)
        for q, c in enumerate(trick):
            put(info.hand_size + q, c)
        k = info.hand_size + 3
        for t in range(int(pub[TRICK])):
            for q in range(int(pub[N_ACTIVE])):
                put(k, int(pub[HISTORY + t * HISTORY_STRIDE + 1 + q]))
                k += 1
    if info.n_modes > 1:
        x[arch.n_in - info.n_modes + mode] = 1
    if arch.suits == "trump_first":
        x = trump_first_reference(arch, info, mode, x)
    return x


def trump_first_sequence(game_name: str, trump: int) -> list[int]:
    """The suits in the order a trump-first network reads them."""
    first = [trump] + ([3 - trump] if game_name == "euchre" else [])
    return first + [s for s in range(4) if s not in first]


def trump_first_reference(arch: Architecture, info, mode: int, x: np.ndarray) -> np.ndarray:
    """The as-dealt input vector ``x`` as a trump-first network reads it: trump's cards in
    the first suit's rows, in Euchre the left bower's suit second, the other suits in their
    order; every trump suit the first suit's mode input (modes without trump as dealt)."""
    per = 3 if arch.encoding == "card" else 8
    n_ranks = info.n_cards // 4
    if mode >= 4:
        return x
    sequence = trump_first_sequence(info.name, mode)
    out = x.copy()
    for pos, suit in enumerate(sequence):
        out[per * n_ranks * pos:per * n_ranks * (pos + 1)] = x[per * n_ranks * suit:per * n_ranks * (suit + 1)]
    out[arch.n_in - info.n_modes:arch.n_in - info.n_modes + 4] = 0
    out[arch.n_in - info.n_modes] = 1
    return out


def reference_outputs(arch: Architecture, genome: np.ndarray, x: np.ndarray, int16: bool = False) -> np.ndarray:
    """Outputs before the (monotonic) output tanh, in float64; ``int16``: with the second
    layer as the int16 option computes it (h1 and W2 rounded to their fixed points)."""
    p = arch.unpack(genome)
    h1 = np.tanh(x @ p["W1"] + p["b1"])
    w2 = p["W2"]
    if int16:
        h1 = np.rint(h1 * 2.0 ** H1_BITS) / 2.0 ** H1_BITS
        q, scale = quantize_w2(w2)
        w2 = q * scale
    h2 = np.tanh(h1 @ w2 + p["b2"])
    return p["W3T"] @ h2 + p["b3"]


# ----------------------------------------------------------------------------- positions


def random_positions(game_name: str, n_deals: int, seed: int):
    g = make_game(game_name)
    r = evolve.play(g, "random", n_deals, seed=seed, record=True)
    return g, [p for i in range(n_deals) for p in replay_decisions(g, r, i)]


@pytest.fixture(scope="module", params=GAMES)
def positions(request):
    return random_positions(request.param, 12, seed=11)


def network_of(g, encoding: str, **kw) -> Architecture:
    """``Architecture.for_game`` of an ``encoding[+suits]`` name; skips a trump-first
    network in a game with one trump mode (refused, as its own test checks)."""
    encoding, _, suits = encoding.partition("+")
    if suits and not g.info.trump_first:
        pytest.skip(f"{g.info.name} has one trump mode: nothing to renumber")
    return Architecture.for_game(g, encoding, suits=suits or "as_dealt", **kw)


def packed_at(arch, genome, lo=3):
    """``pack`` placed at offset ``lo`` of a longer vector (as the engine concatenates seats)."""
    return np.concatenate([np.full(lo, np.nan), arch.pack(genome), np.full(2, np.nan)])


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize("game_name", GAMES)
def test_pack_many_equals_pack_of_each_row(game_name):
    game = make_game(game_name)
    for encoding in ENCODINGS:
        arch = Architecture.for_game(game, encoding, hidden=(20, 17))
        rng = np.random.default_rng(4)
        genomes = np.stack([arch.random_genome(rng) * rng.uniform(0.01, 1) for _ in range(19)])  # 19: blocks 8, 8, 3
        many = arch.pack_many(genomes)
        assert many.shape == (19, arch.packed_size)
        for row, genome in zip(many, genomes):
            assert np.array_equal(row.view(np.uint64), arch.pack(genome).view(np.uint64))
        assert len(set(many[:, H_W1_ID].tolist())) == 19


@pytest.mark.parametrize("shape", [None, (300, 20), (17, 5), (16, 33)])
@pytest.mark.parametrize("bias", [True, False])
def test_pack_layout_round_trip(shape, bias):
    game = make_game("spades")
    for encoding in ENCODINGS:
        arch = Architecture.for_game(game, encoding, hidden=shape, bias=bias)
        genome = arch.random_genome(np.random.default_rng(3))
        parts = arch.unpack(genome)
        stored = [parts[name].ravel() for name, _ in arch.layers if bias or not name.startswith("b")]
        np.testing.assert_array_equal(np.concatenate(stored), genome)
        if not bias:
            assert all(not parts[b].any() for b in ("b1", "b2", "b3"))
        params = arch.pack(genome)
        assert params.shape == (arch.packed_size,)
        assert list(params[:5]) == [
            {"card": ENC_CARD, "hand": ENC_HAND, "seat": ENC_SEAT}[encoding],
            arch.n_in,
            arch.n_h1,
            arch.n_h2,
            arch.n_out,
        ]
        # decode the documented layout
        p1, p2 = padded(arch.n_h1), padded(arch.n_h2)
        words = params[HEADER:].view(np.uint32)
        pos = 0

        def take(n, dtype):
            nonlocal pos
            out = words[pos:pos + n].view(dtype)
            pos += n
            return out

        def unblock(flat, rows, width):
            full = np.zeros((rows, width), flat.dtype)
            at = 0
            for c, k in column_blocks(width):
                full[:, c:c + k * LANES] = flat[at:at + rows * k * LANES].reshape(rows, k * LANES)
                at += rows * k * LANES
            return full

        scale = params[H_W1_SCALE]
        w1 = unblock(take(arch.n_in * p1, np.int32), arch.n_in, p1) * scale
        b1 = take(p1, np.float32)
        w2 = unblock(take(arch.n_h1 * p2, np.float32), arch.n_h1, p2)
        b2 = take(p2, np.float32)
        w3 = take(arch.n_out * p2, np.float32).reshape(arch.n_out, p2)
        b3 = take(arch.n_out, np.float32)
        if arch.has_base:      # seat encodings: the sum of every card's three may-hold rows
            assert params[H_BASE] == pos
            base = take(p1, np.int32)
            q1 = np.rint(w1 / scale).astype(np.int64).reshape(arch.n_in, p1)
            may = [SEAT_INPUTS * c + k for c in range(arch.n_out) for k in (5, 6, 7)]
            np.testing.assert_array_equal(base, q1[may].sum(axis=0).astype(np.int32))
        else:
            assert params[H_BASE] == 0
        assert pos + (pos % 2) == words.size
        np.testing.assert_allclose(w1[:, :arch.n_h1], parts["W1"], rtol=0, atol=scale / 2)
        np.testing.assert_array_equal(b1[:arch.n_h1], parts["b1"].astype(np.float32))
        np.testing.assert_array_equal(w2[:, :arch.n_h2], parts["W2"].astype(np.float32))
        np.testing.assert_array_equal(b2[:arch.n_h2], parts["b2"].astype(np.float32))
        np.testing.assert_array_equal(w3[:, :arch.n_h2], parts["W3T"].astype(np.float32))
        np.testing.assert_array_equal(b3, parts["b3"].astype(np.float32))
        for pad in (w1[:, arch.n_h1:], b1[arch.n_h1:], w2[:, arch.n_h2:], b2[arch.n_h2:], w3[:, arch.n_h2:]):
            assert not pad.any()
        # the first-layer id follows W1 only
        other = genome.copy()
        other[-1] = -other[-1]
        assert arch.pack(other)[H_W1_ID] == params[H_W1_ID]
        other[0] = 0.5 if genome[0] != 0.5 else -0.5
        assert arch.pack(other)[H_W1_ID] != params[H_W1_ID]
        assert Architecture(**arch.to_json()) == arch


def test_large_weights_keep_fixed_point_in_range():
    arch = Architecture.for_game(make_game("spades"), "hand")
    genome = arch.random_genome(np.random.default_rng(0)) * 5.0
    params = arch.pack(genome)
    assert params[H_W1_SCALE] == 2.0 ** -18
    g, pos = random_positions("spades", 2, seed=4)
    work = np.zeros(arch.work_size)
    out = np.zeros(arch.n_out, np.float32)
    for seat, hand, legal, mode, pub, _ in pos:
        network_outputs(arch.kind, params, 0, seat, g.rules, mode, hand, pub, work, out)
        ref = reference_outputs(arch, genome, reference_inputs(arch, g, seat, mode, hand, pub))
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=5 * OUT_TOL)


@pytest.mark.parametrize("encoding", WITH_SUITS)
def test_inputs_match_reference(positions, encoding):
    g, pos = positions
    arch = network_of(g, encoding)
    params = packed_at(arch, arch.random_genome(np.random.default_rng(1)))
    work = np.zeros(arch.work_size)
    x = np.zeros(arch.n_in)
    for seat, hand, legal, mode, pub, _ in pos:
        n = network_inputs(arch.kind, params, 3, seat, g.rules, mode, hand, pub, work, x)
        ref = reference_inputs(arch, g, seat, mode, hand, pub)
        np.testing.assert_array_equal(x, ref)
        assert n == np.count_nonzero(ref)


def test_a_removed_encoding_is_refused_in_one_line():
    """``seat_context`` (removed in 0.2.0: it measured no different from ``seat``) and
    unknown encodings are refused with one line naming the encodings there are."""
    g = make_game("euchre")
    with pytest.raises(ValueError, match=r"^encoding 'seat_context' was removed in version 0\.2\.0; "
                                         r"expected card, hand or seat$"):
        Architecture.for_game(g, "seat_context")
    with pytest.raises(ValueError, match=r"^encoding 'seat_context' was removed"):
        Architecture("euchre", "seat_context", 469, 16, 16, 24)
    with pytest.raises(ValueError, match=r"^unknown encoding 'pixels'; expected card, hand or seat$"):
        Architecture("euchre", "pixels", 196, 16, 16, 24)


@pytest.mark.parametrize("layer2", ["float32", "int16"])
@pytest.mark.parametrize("encoding", WITH_SUITS)
def test_outputs_and_choices_match_reference(positions, encoding, layer2):
    """Outputs near the float64 reference; the incremental path (one ``work`` for the
    whole sequence) bit-identical to a fresh evaluation; the choice is the best legal card."""
    g, pos = positions
    arch = network_of(g, encoding, layer2=layer2)
    rng = np.random.default_rng(2)
    genome = arch.random_genome(rng)
    params = packed_at(arch, genome)
    shared = np.zeros(arch.work_size + 5)
    out = np.zeros(arch.n_out, np.float32)
    fresh = np.zeros(arch.n_out, np.float32)
    incremental = 0
    for seat, hand, legal, mode, pub, _ in pos:
        n = network_outputs(arch.kind, params, 3, seat, g.rules, mode, hand, pub, shared, out)
        incremental += n > 0
        network_outputs(arch.kind, params, 3, seat, g.rules, mode, hand, pub, np.zeros(arch.work_size), fresh)
        np.testing.assert_array_equal(out, fresh)
        x = reference_inputs(arch, g, seat, mode, hand, pub)
        ref = reference_outputs(arch, genome, x, int16=layer2 == "int16")
        np.testing.assert_allclose(out, ref, rtol=0, atol=OUT_TOL)
        card = network_card(
            arch.kind, params, 3, 3 + arch.packed_size, seat, g.rules, mode, hand, legal, pub, RNGS, shared
        )
        cards = cards_of(legal)
        assert card in cards
        values = {c: ref[output_index(arch, seat, hand, pub, c, mode)] for c in cards}
        assert values[card] >= max(values.values()) - TIE_TOL
    assert incremental > len(pos) // 2


@pytest.mark.parametrize("encoding", ["seat", "seat+trump_first"])
def test_a_start_from_the_base_sum_is_a_start_from_zero_bit_for_bit(positions, encoding):
    """A seat's first-layer sum started from the network's base sum (every card in the
    three may-hold inputs) is the sum started from zero, bit for bit, on the whole path of
    a deal (records kept in ``work``) and on fresh ``work``; and the base start sums fewer
    rows early in a deal, which is what it is for."""
    g, pos = positions
    arch = network_of(g, encoding, layer2="int16")
    params = packed_at(arch, arch.random_genome(np.random.default_rng(8)))
    no_base = params.copy()
    no_base[3 + H_BASE] = 0
    shared, shared_no_base = np.zeros(arch.work_size), np.zeros(arch.work_size)
    out, ref = np.zeros(arch.n_out, np.float32), np.zeros(arch.n_out, np.float32)
    fewer = 0
    for seat, hand, legal, mode, pub, _ in pos:
        network_outputs(arch.kind, params, 3, seat, g.rules, mode, hand, pub, shared, out)
        network_outputs(arch.kind, no_base, 3, seat, g.rules, mode, hand, pub, shared_no_base, ref)
        np.testing.assert_array_equal(out, ref)
        n = network_outputs(arch.kind, params, 3, seat, g.rules, mode, hand, pub, np.zeros(arch.work_size), out)
        n_zero = network_outputs(arch.kind, no_base, 3, seat, g.rules, mode, hand, pub, np.zeros(arch.work_size),
                                 ref)
        np.testing.assert_array_equal(out, ref)
        assert n < 0 and n_zero < 0 and -n <= -n_zero
        fewer += -n < -n_zero
    assert fewer > len(pos) // 4


@pytest.mark.parametrize("shape", [(300, 20), (17, 5)])
def test_other_shapes_match_reference(shape):
    g, pos = random_positions("jass", 3, seed=5)
    for encoding in ENCODINGS:
        arch = Architecture.for_game(g, encoding, hidden=shape, bias=False)
        genome = arch.random_genome(np.random.default_rng(4))
        params = arch.pack(genome)
        work = np.zeros(arch.work_size)
        out = np.zeros(arch.n_out, np.float32)
        for seat, hand, legal, mode, pub, _ in pos:
            network_outputs(arch.kind, params, 0, seat, g.rules, mode, hand, pub, work, out)
            ref = reference_outputs(arch, genome, reference_inputs(arch, g, seat, mode, hand, pub))
            np.testing.assert_allclose(out, ref, rtol=0, atol=OUT_TOL)


def test_records_survive_foreign_writes_and_other_networks():
    """Garbage in ``work`` between decisions, another network at the seat, or networks of
    another shape at other seats never change a result (records are checked, rebuilt)."""
    g, pos = random_positions("spades", 3, seed=6)
    rng = np.random.default_rng(7)
    arch = Architecture.for_game(g, "card")
    other = Architecture.for_game(g, "hand", hidden=(40, 40))
    seat_arch = Architecture.for_game(g, "seat", hidden=(20, 24))
    pseat = seat_arch.pack(seat_arch.random_genome(rng))
    seat_out = np.zeros(seat_arch.n_out, np.float32)
    seat_fresh = np.zeros(seat_arch.n_out, np.float32)
    genomes = [arch.random_genome(rng) for _ in range(2)]
    params = [arch.pack(gn) for gn in genomes]
    pother = other.pack(other.random_genome(rng))
    work = np.zeros(max(arch.work_size, other.work_size, seat_arch.work_size))
    out = np.zeros(arch.n_out, np.float32)
    fresh = np.zeros(arch.n_out, np.float32)
    junk = np.zeros(other.n_out, np.float32)
    for k, (seat, hand, legal, mode, pub, _) in enumerate(pos):
        if k % 7 == 3:
            work[rng.integers(0, work.size, 40)] = rng.standard_normal(40)
        if k % 5 == 1:
            work.view(np.uint64)[rng.integers(0, work.size, 40)] = rng.integers(0, 2**63, 40, dtype=np.uint64)
        j = (k // 9) % 2
        network_outputs(arch.kind, params[j], 0, seat, g.rules, mode, hand, pub, work, out)
        network_outputs(other.kind, pother, 0, (seat + 1) % 4, g.rules, mode, hand, pub, work, junk)
        network_outputs(arch.kind, params[j], 0, seat, g.rules, mode, hand, pub, np.zeros(arch.work_size), fresh)
        np.testing.assert_array_equal(out, fresh)
        # a seat-encoding network at the same seat now and then: card and seat records never mix
        if k % 4 == 2:
            network_outputs(seat_arch.kind, pseat, 0, seat, g.rules, mode, hand, pub, work, seat_out)
            network_outputs(seat_arch.kind, pseat, 0, seat, g.rules, mode, hand, pub,
                            np.zeros(seat_arch.work_size), seat_fresh)
            np.testing.assert_array_equal(seat_out, seat_fresh)
    with pytest.raises(ValueError, match="work array smaller"):
        network_outputs(
            arch.kind, params[0], 0, 0, g.rules, 0, pos[0][1], pos[0][4], np.zeros(arch.work_size // 2), out
        )


def test_lone_legal_card_is_played():
    g, pos = random_positions("sueca", 2, seed=8)
    arch = Architecture.for_game(g, "card")
    params = arch.pack(arch.random_genome(np.random.default_rng(0)))
    work = np.zeros(arch.work_size)
    forced = [p for p in pos if len(cards_of(p[2])) == 1]
    assert forced
    for seat, hand, legal, mode, pub, _ in forced:
        assert (
            network_card(arch.kind, params, 0, params.size, seat, g.rules, mode, hand, legal, pub, RNGS, work)
            == cards_of(legal)[0]
        )


# ----------------------------------------------------------------------------- encodings


def inputs_of(arch, g, st: TrickState, seat: int | None = None):
    seat = st.to_move if seat is None else seat
    params = arch.pack(np.zeros(arch.genome_size))
    x = np.zeros(arch.n_in)
    network_inputs(
        arch.kind, params, 0, seat, g.rules, st.mode, np.uint64(st.hands[seat]), st.pub, np.zeros(arch.work_size), x
    )
    return x


def play_first_legal(st: TrickState, n: int) -> list[int]:
    played = []
    for _ in range(n):
        c = st.legal()[0]
        st.play(c)
        played.append(c)
    return played


def test_card_encoding_locations():
    g = make_game("spades")
    arch = Architecture.for_game(g, "card")
    hands = [list(range(s, 52, 4)) for s in range(4)]
    st = TrickState(g, hands, 0, 0)
    played = play_first_legal(st, 6)               # trick 1 complete, trick 2 begun
    seat = st.to_move
    x = inputs_of(arch, g, st).reshape(52, 3)
    for c in range(52):
        if c in st.hand(seat):
            assert list(x[c]) == [1, 0, 0]
        elif c in played[4:]:
            assert list(x[c]) == [0, 1, 0]            # on the table in this trick
        elif c in played[:4]:
            assert list(x[c]) == [0, 0, 1]            # played in an earlier trick
        else:
            assert list(x[c]) == [0, 0, 0]            # unseen
    assert x.sum() == len(st.hand(seat)) + 6


def test_card_encoding_euchre_upcard_and_trump():
    g = make_game("euchre")
    arch = Architecture.for_game(g, "card")
    hands = [[0, 4, 8, 12, 16], [1, 5, 9, 13, 17], [2, 6, 10, 14, 18], [3, 7, 11, 15, 19]]
    st = TrickState(g, hands, 2, 1, dealer=0)      # hearts trump, seat 1 leads
    st.pub[UPCARD] = 20                            # turned down: seen by everybody
    x = inputs_of(arch, g, st)
    assert list(x[60:63]) == [0, 0, 1]
    assert list(x[72:76]) == [0, 0, 1, 0]          # trump one-hot
    st.pub[UPCARD] = 16                            # the dealer (seat 0) picked it up
    assert list(inputs_of(arch, g, st, seat=0)[48:51]) == [1, 0, 0]
    assert list(inputs_of(arch, g, st, seat=1)[48:51]) == [0, 0, 1]
    st = TrickState(g, hands, 2, 0, dealer=3)
    st.pub[UPCARD] = 16
    st.play(16)                                    # its holder leads it
    assert list(inputs_of(arch, g, st)[48:51]) == [0, 1, 0]           # only "on the table"
    play_first_legal(st, 3)
    assert list(inputs_of(arch, g, st)[48:51]) == [0, 0, 1]


def test_seat_encoding_relative_seats_and_voids():
    """Seat 1 shows a void in clubs in trick 1; seat 3 leads a club to trick 2. Seat 0 (to
    move) sees that card as played by offset 3, and the unseen clubs as possibly held by
    offsets 2 and 3 but not 1; seat 2 sees the same facts from its chair (seat 3 is its
    offset 1, seat 1 its offset 3)."""
    g = make_game("spades")
    arch = Architecture.for_game(g, "seat")
    assert (arch.n_in, arch.n_out) == (416, 52)
    hands = [[*range(0, 6), *range(13, 20)],                 # clubs 0-5, diamonds 13-19
             [*range(20, 26), *range(26, 33)],               # no club
             [*range(6, 11), *range(33, 39), 39, 40],
             [11, 12, *range(41, 52)]]
    st = TrickState(g, hands, 0, 0)
    for c in (0, 20, 6, 12, 11):                             # seat 3 wins trick 1 with the club ace, leads 11
        st.play(c)
    assert st.to_move == 0 and st.trick() == [(3, 11)] and st.pub[VOIDS + 1] & 1
    unseen_clubs = [7, 8, 9, 10]                             # seat 2's, but seat 0 cannot know whose
    x = inputs_of(arch, g, st).reshape(52, 8)
    assert list(x[11]) == [0, 0, 0, 1, 0, 0, 0, 0]           # on the table, by the seat before me
    for c in (0, 20, 6, 12):
        assert list(x[c]) == [0, 0, 0, 0, 1, 0, 0, 0]        # an earlier trick
    for c in st.hand(0):
        assert list(x[c]) == [1, 0, 0, 0, 0, 0, 0, 0]
    for c in unseen_clubs:
        assert list(x[c]) == [0, 0, 0, 0, 0, 0, 1, 1]        # offset 1 (seat 1) is void in clubs
    for c in [*range(21, 26), *range(26, 52)]:
        assert list(x[c]) == [0, 0, 0, 0, 0, 1, 1, 1]
    assert x.sum() == 12 + 1 + 4 + 2 * 4 + 3 * 31
    y = inputs_of(arch, g, st, seat=2).reshape(52, 8)
    assert list(y[11]) == [0, 1, 0, 0, 0, 0, 0, 0]           # seat 3 is seat 2's next seat
    for c in range(1, 6):                                    # seat 0's clubs, unseen by seat 2
        assert list(y[c]) == [0, 0, 0, 0, 0, 1, 1, 0]        # seat 1 = offset 3 is void
    for c in st.hand(2):
        assert list(y[c]) == [1, 0, 0, 0, 0, 0, 0, 0]
    st.play(1)                                               # seat 0 follows: offset 1 of seat 3, 2 of seat 2
    assert list(inputs_of(arch, g, st, seat=3).reshape(52, 8)[1]) == [0, 1, 0, 0, 0, 0, 0, 0]
    assert list(inputs_of(arch, g, st, seat=2).reshape(52, 8)[1]) == [0, 0, 1, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("game_name", GAMES)
def test_seat_encoding_reads_no_hidden_card(game_name):
    """Mid-deal, swapping unplayed cards of one suit between two other seats replays the same
    public history: the seat's input vector must not change (and it does read voids)."""
    g = make_game(game_name)
    info = g.info
    arch = Architecture.for_game(g, "seat")
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(400):
        if checked >= 12:
            break
        deck = rng.permutation(info.n_cards)
        h = info.hand_size
        hands = [sorted(deck[k * h:(k + 1) * h].tolist()) for k in range(4)]
        mode = int(rng.integers(info.n_modes))
        s = TrickState(g, hands, mode=mode, leader=0)
        plays = []
        for _ in range(int(rng.integers(3, info.n_cards // 2))):
            c = int(rng.choice(s.legal()))
            plays.append(c)
            s.play(c)
        seat = s.to_move
        a, b = [x for x in range(4) if x != seat][:2]
        pairs = [(x, y) for x in s.hand(a) for y in s.hand(b) if x // (info.n_cards // 4) == y // (info.n_cards // 4)]
        if not pairs:
            continue
        x, y = pairs[0]
        swapped = [set(hd) for hd in hands]
        swapped[a] = (swapped[a] - {x}) | {y}
        swapped[b] = (swapped[b] - {y}) | {x}
        t = TrickState(g, [sorted(hd) for hd in swapped], mode=mode, leader=0)
        try:
            for c in plays:
                t.play(c)
        except ValueError:               # a trump-suit rule (Euchre bowers, Jass Buur) made a play illegal
            continue
        if not (t.pub == s.pub).all():
            continue
        assert t.hands[seat] == s.hands[seat] and t.hands[a] != s.hands[a]
        np.testing.assert_array_equal(inputs_of(arch, g, s), inputs_of(arch, g, t))
        checked += 1
    assert checked >= 12


def test_hand_encoding_slots():
    g = make_game("spades")
    arch = Architecture.for_game(g, "hand")
    assert arch.n_in == 320
    hands = [list(range(s, 52, 4)) for s in range(4)]

    def enc(c):
        return [c % 13 + 1] + [1 if s == c // 13 else 0 for s in range(4)]

    st = TrickState(g, hands, 0, 0)
    played = play_first_legal(st, 10)              # two tricks, two cards of the third
    seat = st.to_move
    x = inputs_of(arch, g, st).reshape(64, 5)
    for pos, c in enumerate(sorted(hands[seat])):
        assert list(x[pos]) == (enc(c) if c in st.hand(seat) else [0] * 5)   # zeroed once played
    assert list(x[13]) == enc(played[8]) and list(x[14]) == enc(played[9])
    assert not x[15].any()
    for k, c in enumerate(played[:8]):             # earlier tricks in the order played
        assert list(x[16 + k]) == enc(c)
    assert not x[24:].any()


def test_hand_encoding_trump_one_hot():
    g = make_game("jass")
    arch = Architecture.for_game(g, "hand")
    hands = [list(range(9 * s, 9 * s + 9)) for s in range(4)]
    for mode in range(6):
        x = inputs_of(arch, g, TrickState(g, hands, mode, 0))
        assert list(x[-6:]) == [1 if m == mode else 0 for m in range(6)]


# ----------------------------------------------------------------------------- engine


@pytest.mark.parametrize("game_name", GAMES)
def test_engine_plays_the_reference_choice(game_name):
    """Four different networks (and a mixed table) through ``evolve.play``: every card a
    network seat played is its best legal card by the float64 reference."""
    g = make_game(game_name)
    rng = np.random.default_rng(9)
    tables = []
    for encoding in ENCODINGS + (("seat+trump_first", "card+trump_first") if g.info.trump_first else ()):
        arch = network_of(g, encoding)
        tables.append([Champion(arch, arch.random_genome(rng)) for _ in range(4)])
    mixed_hand = Architecture.for_game(g, "hand", hidden=(24, 40))
    tables.append([tables[0][0], Champion(mixed_hand, mixed_hand.random_genome(rng)), None, tables[1][1]])
    for champs in tables:
        specs = [c.spec(f"net{s}") if c else "random" for s, c in enumerate(champs)]
        r = evolve.play(g, specs, 25, seed=3, record=True)
        checked = 0
        for i in range(25):
            if r.trump[i] < 0:
                continue
            for seat, hand, legal, mode, pub, card in replay_decisions(g, r, i):
                champ = champs[seat]
                cards = cards_of(legal)
                if champ is None or len(cards) == 1:
                    continue
                ref = reference_outputs(
                    champ.arch, champ.genome, reference_inputs(champ.arch, g, seat, mode, hand, pub)
                )
                values = {c: ref[output_index(champ.arch, seat, hand, pub, c, mode)] for c in cards}
                assert values[card] >= max(values.values()) - TIE_TOL, (i, seat, card, values)
                checked += 1
        assert checked > 0


@pytest.mark.parametrize("game_name", GAMES)
def test_int16_second_layer_is_its_fixed_point_reference_and_its_sums_stay_exact(game_name):
    """The int16 second layer computes what its fixed-point reference says (h1 and W2
    rounded, float64 after that) to float32 accuracy, for any weight scale: even with
    weights so large that every column's sum comes near the int32 limit, nothing wraps."""
    g, pos = random_positions(game_name, 3, seed=6)
    for hidden, weight in (((256, 128), 1.0), ((33, 17), 0.01), ((40, 24), 300.0)):
        arch = Architecture.for_game(g, "seat", hidden=hidden, layer2="int16")
        genome = arch.random_genome(np.random.default_rng(7)) * weight
        params = arch.pack(genome)
        q, scale = quantize_w2(arch.unpack(genome)["W2"])
        assert params[H_W2_SCALE] == scale * 2.0 ** -H1_BITS
        column = np.abs(q.astype(np.int64)).sum(axis=0).max() * 2 ** H1_BITS
        assert 2**30 <= column < 2**31 or np.abs(q).max() > 16383      # the tighter of the two limits is reached
        work = np.zeros(arch.work_size)
        out = np.zeros(arch.n_out, np.float32)
        for seat, hand, legal, mode, pub, _ in pos:
            network_outputs(arch.kind, params, 0, seat, g.rules, mode, hand, pub, work, out)
            ref = reference_outputs(arch, genome, reference_inputs(arch, g, seat, mode, hand, pub), int16=True)
            np.testing.assert_allclose(out, ref, rtol=1e-4, atol=OUT_TOL * max(1.0, weight))


def test_int16_packs_two_rows_to_a_word_and_is_smaller():
    g = make_game("euchre")
    for hidden in ((256, 128), (33, 17)):
        f = Architecture.for_game(g, "seat", hidden=hidden)
        i = Architecture.for_game(g, "seat", hidden=hidden, layer2="int16")
        genome = f.random_genome(np.random.default_rng(1))
        a, b = f.pack(genome), i.pack(genome)
        assert a[H_W2_SCALE] == 0 and b[H_W2_SCALE] > 0
        assert i.packed_size == f.packed_size - (hidden[0] - (hidden[0] + 1) // 2) * padded(hidden[1]) // 2
        words = b[HEADER:].view(np.int32)
        p1, p2 = padded(hidden[0]), padded(hidden[1])
        start = f.n_in * p1 + p1
        q, _ = quantize_w2(f.unpack(genome)["W2"])
        pairs = words[start:start + (hidden[0] + 1) // 2 * p2].view(np.int16)
        if len(column_blocks(hidden[1])) == 1:
            pairs = pairs.reshape(-1, p2, 2)
            np.testing.assert_array_equal(pairs[:, :hidden[1], 0], q[0::2])
            np.testing.assert_array_equal(pairs[:hidden[0] // 2, :hidden[1], 1], q[1::2])
            assert not pairs[:, hidden[1]:].any()
        assert Architecture(**i.to_json()) == i and "layer2" not in f.to_json()
    with pytest.raises(ValueError, match="unknown layer2 'int8'; valid: float32, int16"):
        Architecture.for_game(g, "seat", layer2="int8")


def relabelled_suits(game_name: str, trump: int, new_trump: int) -> list[int]:
    """The renumbering of the suits that makes ``new_trump`` of ``trump`` and keeps the
    others in their order (in Euchre: the left bower's suit goes with trump), as
    ``perm[suit]``: the twin deal a trump-first network must play alike."""
    old, new = trump_first_sequence(game_name, trump), trump_first_sequence(game_name, new_trump)
    return [new[old.index(s)] for s in range(4)]


@pytest.mark.parametrize("suits", ["trump_first", "as_dealt"])
@pytest.mark.parametrize("game_name", ["sueca", "euchre", "jass"])
def test_trump_first_plays_every_trump_suit_alike(game_name, suits):
    """A deal and its twin with another trump suit (the suits renumbered, the non-trump
    ones keeping their order): a trump-first network sees the same inputs at every
    decision and plays the renumbered card, for random weights; a network that sees the
    suits as dealt does not (the check fails without the renumbering)."""
    g = make_game(game_name)
    n_ranks = g.info.n_cards // 4
    arch = Architecture.for_game(g, "seat", hidden=(48, 24), suits=suits)
    rng = np.random.default_rng(12)
    params = arch.pack(arch.random_genome(rng))
    h = g.info.hand_size
    same, decisions = 0, 0
    for _ in range(12):
        deck = [int(c) for c in rng.permutation(g.info.n_cards)]
        trump = int(rng.integers(0, 4))
        perm = relabelled_suits(game_name, trump, int(rng.integers(0, 4)))
        moved = [perm[c // n_ranks] * n_ranks + c % n_ranks for c in range(g.info.n_cards)]
        leader = int(rng.integers(0, 4))
        states = [TrickState(g, [deck[s * h:(s + 1) * h] for s in range(4)], trump, leader),
                  TrickState(g, [[moved[c] for c in deck[s * h:(s + 1) * h]] for s in range(4)], perm[trump], leader)]
        works = [np.zeros(arch.work_size), np.zeros(arch.work_size)]
        while not states[0].done:
            seat = states[0].to_move
            assert states[1].to_move == seat
            inputs, cards = [], []
            for st, work in zip(states, works):
                x = np.zeros(arch.n_in)
                network_inputs(arch.kind, params, 0, seat, g.rules, st.mode, np.uint64(st.hands[seat]), st.pub,
                               work, x)
                inputs.append(x)
                cards.append(network_card(arch.kind, params, 0, arch.packed_size, seat, g.rules, st.mode,
                                          np.uint64(st.hands[seat]), st.legal_mask(), st.pub, RNGS, work))
            if suits == "trump_first":
                np.testing.assert_array_equal(inputs[0], inputs[1])
                assert cards[1] == moved[cards[0]]
            decisions += 1
            same += cards[1] == moved[cards[0]]
            states[0].play(cards[0])
            states[1].play(moved[cards[0]])
    if suits == "as_dealt":
        assert same < decisions


@pytest.mark.parametrize("game_name,encoding", [("spades", "seat"), ("sueca", "hand")])
def test_trump_first_is_refused_where_it_cannot_apply(game_name, encoding, tmp_path):
    """Spades has one trump; hand-based outputs are positions in the hand, not cards: one
    line naming the file and the key."""
    from evolve.core.errors import UsageError
    from evolve.evolution.config import load_config

    with pytest.raises(ValueError, match="trump_first"):
        Architecture.for_game(make_game(game_name), encoding, suits="trump_first")
    path = tmp_path / "bad.toml"
    path.write_text(f'[experiment]\ngame = "{game_name}"\n[network]\nencoding = "{encoding}"\n'
                    'suits = "trump_first"\n')
    with pytest.raises(UsageError) as e:
        load_config(path)
    assert "network.suits" in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)



def test_a_trump_first_champion_reads_back_as_it_was_saved(tmp_path):
    """The renumbering is part of the champion: saved, read back and played the same; a
    champion file without ``suits`` reads as dealt."""
    from evolve.agents.genomes.champion import load_champion, save_champion

    g = make_game("sueca")
    arch = Architecture.for_game(g, "seat", hidden=(24, 16), suits="trump_first")
    champ = Champion(arch, arch.random_genome(np.random.default_rng(4)))
    save_champion(tmp_path / "c", champ)
    back = load_champion(tmp_path / "c")
    assert back.arch == arch and back.arch.to_json()["suits"] == "trump_first"
    seats = [back.spec("a"), "random", champ.spec("b"), "random"]
    r = evolve.play(g, seats, 40, seed=2, record=True)
    assert all(c in cards_of(legal) for i in range(40) for _, _, legal, _, _, c in replay_decisions(g, r, i))
    assert back.arch.pack(back.genome)[H_SUITS] == arch.pack(champ.genome)[H_SUITS] == arch.suits_code != 0
    plain = Architecture.for_game(g, "seat", hidden=(24, 16))
    assert "suits" not in plain.to_json() and plain.pack(champ.genome)[6] != arch.pack(champ.genome)[6]


def test_a_champion_of_a_removed_encoding_is_refused_in_one_line(tmp_path):
    """A champion whose ``champion.json`` names ``seat_context`` (removed in 0.2.0) is one
    line naming the file and the encodings there are, in Python and in the arena."""
    import json
    import subprocess
    import sys

    from evolve.agents.genomes.champion import load_champion, save_champion
    from evolve.core.errors import UsageError

    arch = Architecture.for_game(make_game("euchre"), "seat", hidden=(8, 8))
    save_champion(tmp_path / "c", Champion(arch, arch.random_genome(np.random.default_rng(1)), {"game": "euchre"}))
    meta_path = tmp_path / "c" / "champion.json"
    meta = json.loads(meta_path.read_text())
    meta["architecture"].update(encoding="seat_context", n_in=arch.n_in + 53)
    meta_path.write_text(json.dumps(meta))
    line = f"{meta_path}: encoding 'seat_context' was removed in version 0.2.0; expected card, hand or seat"
    with pytest.raises(UsageError) as e:
        load_champion(tmp_path / "c")
    assert str(e.value) == line
    p = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "euchre", "--deals", "10", "--seats",
                        f"champion:{tmp_path / 'c'},random"], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines() == [f"evolve.arena: error: {line}"], p.stderr
