"""A network's shape and how a genome becomes the engine's parameter vector (Python side).

``Architecture`` names the layers of a genome, its size and the scratch memory a seat
needs; ``pack`` / ``pack_many`` write the header and the weights in the kernel's layout
(``evolve.agents.network.play``): W1 as int32 fixed point (``quantize_w1``), W2 as float32
or int16 fixed point (``layer2``, ``quantize_w2``), the rest as float32, hidden layers
padded to 16 lanes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evolve.agents.network.direct import DIRECT_FEATURES
from evolve.agents.network.play import (
    ENC_CARD,
    ENC_HAND,
    ENC_SEAT,
    H1_BITS,
    H_BASE,
    H_DIRECT,
    H_SUITS,
    H_W1_ID,
    H_W1_SCALE,
    H_W2_SCALE,
    HEADER,
    KMAX,
    LANES,
    NET_CARD,
    NET_HAND,
    NET_SEAT,
    SEAT_INPUTS,
    SUIT_INPUTS,
    _region_words,
    renumbered_card,
)
from evolve.games.bits import GOLDEN, mix64
from evolve.games.state import (
    PLAYED_BY,
)

PACK_BLOCK = 8  # networks packed per pass (see Architecture.pack_many)
# W1 fixed point: |sum of the active rows x input values| must stay below 2**31, also in
# the middle of an incremental update (``_first_layer`` adds the new rows before it removes
# the old ones, and only while fewer rows changed than are active: at most twice the
# active rows at once). Card inputs are 0/1 with at most n_cards + 1 <= 53 active, 106 in
# an update: 106 x 2**24 < 2**31. Hand inputs add at most 52 slots x (13 + 1) + 1 = 729
# per weight. Seat inputs are 0/1: a card is in the hand, on the table or seen (one row),
# or unseen and in up to three may-hold rows (plus the seen row for the Euchre upcard
# ordered up), so at most 3 n_cards + 2 <= 158 active, 316 in an update, and
# 316 x 2**22 < 2**31 (2**23 would allow only 255; 22 bits still resolve 2.4e-7). The
# scale is 2**-bits, one bit coarser for every doubling of the largest |W1| above 1
# (genomes are clamped to [-1, 1] by default). A start from the base sum (``base_sums``:
# 3 n_cards rows) adds at most n_cards + 2 rows before it removes any: 210 x 2**22 < 2**31.
# (The int32 sums wrap, so even a sum that left the range on the way would end exact.)
W1_BITS = {"card": 24, "hand": 21, "seat": 22}

ENCODINGS = ("card", "hand", "seat")
# encodings that were removed, and the version that removed them (``encoding_refusal``)
REMOVED_ENCODINGS = {"seat_context": "0.2.0"}
LAYER2 = ("float32", "int16")   # number formats of the second layer's weights
SUITS = ("as_dealt", "trump_first")   # how the network numbers the suits (``evolve.agents.network.play``)
CARD_BASED = ("card", "seat")   # one output per card of the deck
KINDS = {"card": NET_CARD, "hand": NET_HAND, "seat": NET_SEAT}  # card-play kinds
HEADER_ENCODINGS = {"card": ENC_CARD, "hand": ENC_HAND, "seat": ENC_SEAT}  # slot 0


def encoding_refusal(encoding) -> str | None:
    """Why ``encoding`` names no network encoding (one line), or None when it does."""
    if encoding in ENCODINGS:
        return None
    expected = f"expected {', '.join(ENCODINGS[:-1])} or {ENCODINGS[-1]}"
    if isinstance(encoding, str) and encoding in REMOVED_ENCODINGS:
        return f"encoding {encoding!r} was removed in version {REMOVED_ENCODINGS[encoding]}; {expected}"
    return f"unknown encoding {encoding!r}; {expected}"


def encoding_sizes(game, encoding: str) -> tuple[int, int]:
    """(inputs, outputs) of an encoding for a game (``GameInfo`` or ``Game``)."""
    info = getattr(game, "info", game)
    trump = info.n_modes if info.n_modes > 1 else 0
    if encoding == "card":
        return 3 * info.n_cards + trump, info.n_cards
    if encoding == "hand":
        per = 1 + SUIT_INPUTS
        h = info.hand_size
        return per * (h + 3 + 4 * (info.n_tricks - 1)) + trump, h
    if encoding == "seat":
        return SEAT_INPUTS * info.n_cards + trump, info.n_cards
    raise ValueError(encoding_refusal(encoding))


def default_hidden(n_in: int, n_out: int) -> int:
    """The Spades thesis's hidden-layer size: round(2/3 x inputs + outputs)."""
    return int(round(2 * n_in / 3 + n_out))


def n_weights(n_in: int, n_h1: int, n_h2: int, n_out: int) -> int:
    """Number of weights and biases of the network."""
    return n_in * n_h1 + n_h1 + n_h1 * n_h2 + n_h2 + n_out * n_h2 + n_out


def padded(n: int) -> int:
    """``n`` rounded up to a multiple of ``LANES``."""
    return -(-int(n) // LANES) * LANES


def column_blocks(width: int) -> list[tuple[int, int]]:
    """(first column, registers) of each column block of a matrix ``width`` wide (padded):
    as few blocks as fit ``KMAX`` registers, as even as possible (``_dense`` walks the
    same blocks)."""
    nv = padded(width) // LANES
    npass = max(1, -(-nv // KMAX))
    base, extra = divmod(nv, npass)
    out, v = [], 0
    for p in range(npass):
        k = base + (1 if p < extra else 0)
        out.append((v * LANES, k))
        v += k
    return out


def _put_blocked(dest: np.ndarray, m: np.ndarray) -> int:
    """Write matrices m [n, rows, cols] padded to ``padded(cols)`` columns, each in block
    order, into ``dest`` [n, >= rows * padded(cols)] (zeroed); returns the words written."""
    n, rows, cols = m.shape
    pos = 0
    for c, k in column_blocks(cols):
        width = k * LANES
        valid = max(0, min(cols, c + width) - c)
        dest[:, pos:pos + rows * width].reshape(n, rows, width)[:, :, :valid] = m[:, :, c:c + valid]
        pos += rows * width
    return pos


def trump_first_refusal(game, encoding: str) -> str | None:
    """Why a network of ``encoding`` in ``game`` (a name, ``GameInfo`` or ``Game``) cannot
    number the suits trump first, or None when it can."""
    from evolve.games.registry import GAMES

    info = GAMES[game] if isinstance(game, str) else getattr(game, "info", game)
    if encoding not in CARD_BASED:
        return (f"trump_first needs a card-based encoding ({', '.join(CARD_BASED)}), not {encoding!r} (its "
                "outputs are positions in the hand)")
    if not info.trump_first:
        return f"trump_first needs a game whose trump varies; {info.name} has one trump mode"
    return None


def suits_code(game: str, suits: str) -> int:
    """Header slot ``H_SUITS`` of a network of ``game`` that numbers the suits as
    ``suits`` says: 0 as dealt; with trump first, byte ``mode`` holds that mode's order
    (suit s at position (byte >> 2 s) & 3, ``GameInfo.trump_first``)."""
    if suits == "as_dealt":
        return 0
    from evolve.games.registry import GAMES

    return sum(sum(pos << (2 * suit) for suit, pos in enumerate(order)) << (8 * mode)
               for mode, order in enumerate(GAMES[game].trump_first))


def output_index(arch: "Architecture", seat: int, hand, pub, card: int, mode: int = 0) -> int:
    """The output that scores ``card`` in trump mode ``mode``: the card itself (card- and
    seat-based; with trump first, the card it is once the suits are renumbered), or its
    position in the seat's hand as dealt, sorted by card id (hand-based)."""
    if arch.encoding in CARD_BASED:
        if arch.suits == "as_dealt":
            return int(card)
        order = (arch.suits_code >> (8 * int(mode))) & 0xFF
        return int(renumbered_card.py_func(int(card), order, arch.n_out // 4))
    dealt = int(hand) | int(np.uint64(pub[PLAYED_BY + seat]))
    return bin(dealt & ((1 << int(card)) - 1)).count("1")


def quantize_w1(w1: np.ndarray, encoding: str) -> tuple[np.ndarray, np.ndarray]:
    """W1 as int32 fixed point and its scale (W1 ~ q * scale); ``w1`` may be a stack of
    matrices [..., n_in, n_h1], each with its own scale."""
    w1 = np.asarray(w1, np.float64)
    # max and min instead of abs().max(): no temporary, and NaN / inf show up in them
    big = np.maximum(w1.max(axis=(-2, -1), initial=0.0), -w1.min(axis=(-2, -1), initial=0.0))
    if not np.isfinite(big).all():
        raise ValueError("network weights must be finite")
    headroom = np.where(big > 1, np.maximum(0, np.ceil(np.log2(np.maximum(big, 1.0)))), 0).astype(np.int64)
    scale = 2.0 ** -(W1_BITS[encoding] - headroom).astype(np.float64)
    q = np.multiply(w1, (1.0 / scale)[..., None, None])     # 1/scale: a power of 2, exact
    return np.rint(q, out=q).astype(np.int32), scale


def base_sums(q1: np.ndarray, n_cards: int) -> np.ndarray:
    """The first-layer sums [..., n_h1] (int32, wrapping) of the seat input with every card
    in the three may-hold inputs and nothing else, from fixed-point W1 ``q1`` [..., n_in,
    n_h1]: early in a deal most unseen cards may be held by every other seat, so starting
    there takes a few rows (the hand, the cards seen, the may-holds ruled out) where
    starting from zero takes one for each may-hold. Integer sums: either start gives the
    same sum, bit for bit."""
    lead = q1.shape[:-2]
    cards = q1[..., :SEAT_INPUTS * n_cards, :].reshape(*lead, n_cards, SEAT_INPUTS, q1.shape[-1])
    may = cards[..., SEAT_INPUTS - 3:, :]
    return may.sum(axis=(-3, -2), dtype=np.int64).astype(np.int32)    # int32 wraps as the kernel's sums do


def without_base(params: np.ndarray) -> np.ndarray:
    """A packed network (``Architecture.pack``) without its base sum: the header's
    ``H_BASE`` slot zeroed and the vector cut where the base sum starts. The base sum is
    computed from W1 (``base_sums``), so what is left still fixes every card the network
    plays, and it is the vector ``pack`` gave before networks carried a base sum: the
    digests of the search-level study (``evolve.evaluate.levels.seat_fingerprints``)
    cover it, so a level played before the base sum was added is still recognised."""
    params = np.asarray(params, np.float64)
    base = int(params[H_BASE]) if params.size > HEADER else 0
    if base <= 0:
        return params
    out = params[:HEADER + (base + 1) // 2].copy()
    out[H_BASE] = 0
    out[HEADER:].view(np.uint32)[base:] = 0      # the half word the base sum shared with the last weight
    return out


def quantize_w2(w2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W2 [..., n_h1, n_h2] as int16 fixed point and its scale (W2 ~ q * scale), one
    power of 2 per matrix: as fine as int16 holds the largest |weight| and as no column's
    sum can leave int32 with the first layer rounded to multiples of 2**-``H1_BITS`` in
    [-1, 1] (so the int32 sums are exact)."""
    w2 = np.asarray(w2, np.float64)
    if not np.isfinite(w2).all():
        raise ValueError("network weights must be finite")
    big = np.abs(w2).max(axis=(-2, -1), initial=0.0)
    column = np.abs(w2).sum(axis=-2).max(axis=-1, initial=0.0)
    # |h1| <= 2**H1_BITS after rounding and each weight rounds by at most half a step:
    # 2**H1_BITS (column / scale + n_h1 / 2) <= 2**31 - 1
    room = (2.0 ** 31 - 1) / 2.0 ** H1_BITS - w2.shape[-2] / 2
    bits = np.minimum(np.floor(np.log2(32767.0 / np.maximum(big, 2.0 ** -60))),
                      np.floor(np.log2(room / np.maximum(column, 2.0 ** -60))))
    scale = 2.0 ** -bits
    q = np.rint(w2 / scale[..., None, None])
    return q.astype(np.int16), scale


_ID_MULTIPLIERS: dict[int, np.ndarray] = {}


def _w1_ids(w1: np.ndarray, scale: np.ndarray, salt: int = 0) -> np.ndarray:
    """A 53-bit id per row of quantised first layers [n, words] (with its scale), for the
    first-layer records: a sum of the 64-bit words times fixed odd multipliers, then the
    SplitMix64 finaliser. One vectorised pass; a hash of bytes per network cost 9 ms per
    60-member generation of the parent's serial time."""
    words = np.ascontiguousarray(w1).view(np.uint64)      # rows hold n_in x padded(n_h1) words: even
    mult = _ID_MULTIPLIERS.get(words.shape[1])
    if mult is None:
        mult = np.random.default_rng(0x1D5).integers(0, 2**63, words.shape[1], dtype=np.uint64) * np.uint64(
            2
        ) + np.uint64(1)
        _ID_MULTIPLIERS[words.shape[1]] = mult
    with np.errstate(over="ignore"):
        h = (words * mult).sum(axis=1, dtype=np.uint64)
        h ^= scale.astype(np.float64).view(np.uint64) * GOLDEN
        if salt:              # the same first layer read with other inputs is another record
            h ^= np.uint64(salt) * np.uint64(0xD6E8FEB86659FD93)
        h = mix64.py_func(h)                   # the engine's finaliser, on the whole array
    return (h >> np.uint64(11)).astype(np.float64)


@dataclass(frozen=True)
class Architecture:
    """A network shape for one game and encoding. Genomes are flat float64 vectors of
    ``genome_size`` values in [-1, 1] (biases included only when ``bias``)."""

    game: str
    encoding: str
    n_in: int
    n_h1: int
    n_h2: int
    n_out: int
    bias: bool = True
    direct: bool = False    # direct per-card feature connections to the outputs (``_direct_features``)
    layer2: str = "float32"  # the second layer's weights: float32, or int16 fixed point (faster)
    suits: str = "as_dealt"  # or "trump_first": the suits renumbered so that trump comes first

    def __post_init__(self):
        refusal = encoding_refusal(self.encoding)
        if refusal:
            raise ValueError(refusal)
        if self.layer2 not in LAYER2:
            raise ValueError(f"unknown layer2 {self.layer2!r}; valid: {', '.join(LAYER2)}")
        if self.suits not in SUITS:
            raise ValueError(f"unknown suits {self.suits!r}; valid: {', '.join(SUITS)}")
        refusal = trump_first_refusal(self.game, self.encoding) if self.suits == "trump_first" else None
        if refusal:
            raise ValueError(refusal)

    @property
    def suits_code(self) -> int:
        """Header slot ``H_SUITS`` (``suits_code``)."""
        return suits_code(self.game, self.suits)

    @classmethod
    def for_game(cls, game, encoding: str = "card", hidden: tuple[int, int] | None = None, bias: bool = True,
                 direct: bool = False, layer2: str = "float32", suits: str = "as_dealt"):
        """The Spades thesis's architecture (hidden sizes default to round(2/3 in + out)), with or
        without direct feature connections."""
        info = getattr(game, "info", game)
        n_in, n_out = encoding_sizes(info, encoding)
        h = default_hidden(n_in, n_out)
        h1, h2 = hidden if hidden else (h, h)
        return cls(info.name, encoding, n_in, int(h1), int(h2), n_out, bool(bias), bool(direct), layer2, suits)

    @property
    def kind(self) -> int:
        return KINDS[self.encoding]

    @property
    def layers(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the weight arrays, in genome order."""
        return [
            ("W1", (self.n_in, self.n_h1)), ("b1", (self.n_h1,)),
            ("W2", (self.n_h1, self.n_h2)), ("b2", (self.n_h2,)),
            ("W3T", (self.n_out, self.n_h2)), ("b3", (self.n_out,)),
        ] + ([("D", (DIRECT_FEATURES,))] if self.direct else [])

    @property
    def genome_size(self) -> int:
        return sum(int(np.prod(shape)) for name, shape in self.layers if self.bias or not name.startswith("b"))

    @property
    def work_size(self) -> int:
        """float64 slots of scratch memory: per seat, the activations and row lists of a
        forward pass and the seat's first-layer record (see "scratch memory" above)."""
        start, need = _region_words(self.n_in, padded(self.n_h1), padded(self.n_h2))
        return 4 * (-(-need // 16) * 8)

    def random_genome(self, rng: np.random.Generator) -> np.ndarray:
        """Weights uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, self.genome_size)

    def unpack(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a genome (views into it; zero biases when ``bias`` is off)."""
        return {name: w[0] for name, w in self._split(self._checked(genome)[None, :]).items()}

    def _checked(self, genome) -> np.ndarray:
        genome = np.asarray(genome, dtype=np.float64)
        if genome.shape != (self.genome_size,):
            raise ValueError(f"genome has {genome.shape} values, architecture expects {self.genome_size}")
        return genome

    def _split(self, genomes: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a stack of genomes [G, genome_size], each [G, *shape]."""
        out, pos = {}, 0
        for name, shape in self.layers:
            size = int(np.prod(shape))
            if name.startswith("b") and not self.bias:
                out[name] = np.zeros((genomes.shape[0], *shape))
                continue
            out[name] = genomes[:, pos:pos + size].reshape(-1, *shape)
            pos += size
        return out

    def pack(self, genome: np.ndarray) -> np.ndarray:
        """The engine's parameter vector: the header, then the weights in the kernel's
        layout (see the module docstring)."""
        return self.pack_many(self._checked(genome)[None, :])[0]

    def pack_many(self, genomes: np.ndarray) -> np.ndarray:
        """Parameter vectors of many genomes, one row each (``pack`` of every row, by array
        operations over blocks of rows)."""
        genomes = np.asarray(genomes, dtype=np.float64)
        if genomes.ndim != 2 or genomes.shape[1] != self.genome_size:
            raise ValueError(f"genomes have shape {genomes.shape}, architecture expects [n, {self.genome_size}]")
        out = np.zeros((genomes.shape[0], self.packed_size), np.float64)
        # blocks of a few networks keep the temporaries in cache: 60 study networks in
        # one pass took ~13 ms, in blocks of 8 ~4.5 ms
        for start in range(0, genomes.shape[0], PACK_BLOCK):
            self._pack_into(genomes[start:start + PACK_BLOCK], out[start:start + PACK_BLOCK])
        return out

    def _pack_into(self, genomes: np.ndarray, out: np.ndarray) -> None:
        n = genomes.shape[0]
        p = self._split(genomes)
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        q1, scale = quantize_w1(p["W1"], self.encoding)
        out[:, :5] = [HEADER_ENCODINGS[self.encoding], self.n_in, self.n_h1, self.n_h2, self.n_out]
        out[:, H_W1_SCALE] = scale
        words = out[:, HEADER:].view(np.uint32)        # the weights, 4-byte words
        i32, f32 = words.view(np.int32), words.view(np.float32)
        pos = _put_blocked(i32, q1)
        out[:, H_SUITS] = self.suits_code
        out[:, H_W1_ID] = _w1_ids(i32[:, :pos], scale, self.suits_code)
        f32[:, pos:pos + self.n_h1] = p["b1"]
        pos += p1
        if self.layer2 == "int16":
            q2, scale2 = quantize_w2(p["W2"])
            pairs = np.zeros((n, self.n_h1 + self.n_h1 % 2, self.n_h2), np.int16)
            pairs[:, :self.n_h1] = q2
            # rows 2i and 2i + 1 of a column side by side: one int32 word, low half first
            pairs = np.ascontiguousarray(np.stack([pairs[:, 0::2], pairs[:, 1::2]], axis=-1)).view(np.int32)[..., 0]
            pos += _put_blocked(i32[:, pos:], pairs)
            out[:, H_W2_SCALE] = scale2 * 2.0 ** -H1_BITS
        else:
            pos += _put_blocked(f32[:, pos:], p["W2"])
        f32[:, pos:pos + self.n_h2] = p["b2"]
        pos += p2
        f32[:, pos:pos + self.n_out * p2].reshape(n, self.n_out, p2)[:, :, :self.n_h2] = p["W3T"]
        pos += self.n_out * p2
        f32[:, pos:pos + self.n_out] = p["b3"]
        pos += self.n_out
        if self.direct:
            out[:, H_DIRECT] = DIRECT_FEATURES
            f32[:, pos:pos + DIRECT_FEATURES] = p["D"]
            pos += DIRECT_FEATURES
        if self.has_base:
            i32[:, pos:pos + self.n_h1] = base_sums(q1, self.n_out)
            out[:, H_BASE] = pos

    @property
    def packed_size(self) -> int:
        """Length of ``pack``'s float64 vector."""
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        rows2 = (self.n_h1 + 1) // 2 if self.layer2 == "int16" else self.n_h1
        n = self.n_in * p1 + p1 + rows2 * p2 + p2 + self.n_out * p2 + self.n_out
        n += DIRECT_FEATURES if self.direct else 0
        n += p1 if self.has_base else 0
        return HEADER + (n + 1) // 2

    @property
    def has_base(self) -> bool:
        """The seat encoding carries a base sum (``base_sums``): a seat's first decision of a deal
        starts from it, adding and removing fewer rows than it would from zero."""
        return self.encoding == "seat"

    def to_json(self) -> dict:
        out = {"game": self.game, "encoding": self.encoding, "n_in": self.n_in, "n_h1": self.n_h1,
               "n_h2": self.n_h2, "n_out": self.n_out, "bias": self.bias}
        if self.direct:
            out["direct"] = True
        if self.layer2 != "float32":
            out["layer2"] = self.layer2
        if self.suits != "as_dealt":
            out["suits"] = self.suits
        return out
