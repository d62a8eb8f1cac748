"""The Python API: ``evolve.play(game, seats, n_deals, seed, **options)``.

Plays many deals at once in the Numba engine and returns per-deal numpy arrays. Usable
from a notebook::

    import evolve
    r = evolve.play("spades", "random,random,random,random", n_deals=10_000, seed=1)
    r.tricks.mean(axis=0)          # ATpR per seat
    r = evolve.play("euchre", ["random:bidder=simple"] * 4, 1000, seed=2, stick_the_dealer=True)
    r.game_winner[r.game_winner >= 0]
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from evolve.agents.dispatch import FAMILIES, families_of
from evolve.agents.registry import AgentSpec, pack_seats, parse_seats
from evolve.core.errors import UsageError, checked_int
from evolve.core.pool import cluster_workers, map_ordered
from evolve.games.bits import seed_key
from evolve.games.card_play import DealRecord, new_record, record_shape
from evolve.games.match import accumulate_games
from evolve.games.registry import Game, make_game
from evolve.games.state import CALLS
from evolve.runtime.batch import play_batch
from evolve.runtime.lockstep import play_lockstep

CHUNK = 1 << 14         # deals per task at most
MIN_CHUNK = 256         # deals per task at least, when a batch is spread over processes
TASKS_PER_WORKER = 4    # so that a slow or lost worker's share is small; chunking never changes results


def chunk_size(n_deals: int, workers: int) -> int:
    """Deals per task of a batch of ``n_deals`` on ``workers`` processes (or the cluster's
    workers when a Dask scheduler is connected): about ``TASKS_PER_WORKER`` tasks per
    worker, between ``MIN_CHUNK`` and ``CHUNK`` deals each. Every deal is fixed by its
    index, so any split gives the same arrays."""
    parallel = max(int(workers), cluster_workers())
    if parallel <= 1:
        return CHUNK
    return int(min(CHUNK, max(MIN_CHUNK, -(-int(n_deals) // (TASKS_PER_WORKER * parallel)))))

# families every ``play`` in the block compiles in (``shared_engine``)
_SHARED_FAMILIES: ContextVar[tuple[str, ...]] = ContextVar("shared_engine_families", default=())


@contextmanager
def shared_engine(families: Sequence[str]):
    """Within the block every ``play`` compiles its engine with at least ``families``, so a
    matrix or a study whose pairings seat different agents plays them all on one kernel
    (compiled once, ``evolve.runtime.precompile``). The results do not depend on it."""
    token = _SHARED_FAMILIES.set(tuple(families))
    try:
        yield
    finally:
        _SHARED_FAMILIES.reset(token)


@dataclass
class PlayResult:
    """Per-deal arrays of a batch of deals (row i = deal i).

    ``hands`` [n, 4, hand] as dealt; ``rest`` the undealt cards (Euchre: upcard first);
    ``dealer``; ``trump`` (the mode, -1 if passed out); ``tricks`` [n, 4] per seat;
    ``points`` [n, 2] card points per side (tricks per side in Spades and Euchre);
    ``score`` [n, sides] hand score; ``game_id``, ``game_score`` [n, sides] (cumulative
    within the game, after the deal) and ``game_winner`` (side, or -1 if the game goes
    on). Bidding: ``bids`` (Spades), ``calls`` (Euchre log, Jass calls), ``maker``,
    ``alone``, ``private`` (the cards of the private decisions, [n, GameInfo.n_private]:
    the Euchre discard; ``discard`` reads it). With ``record=True`` also ``plays`` (cards in play order),
    ``leaders`` and ``winners`` per trick.
    """

    game: Game
    seats: list[AgentSpec]
    seed: int
    hands: np.ndarray
    rest: np.ndarray
    dealer: np.ndarray
    trump: np.ndarray
    first_leader: np.ndarray
    tricks: np.ndarray
    points: np.ndarray
    score: np.ndarray
    bags: np.ndarray
    bids: np.ndarray
    calls: np.ndarray
    maker: np.ndarray
    alone: np.ndarray
    private: np.ndarray
    game_id: np.ndarray
    game_score: np.ndarray
    game_winner: np.ndarray
    plays: np.ndarray | None = None
    leaders: np.ndarray | None = None
    winners: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n_deals(self) -> int:
        return int(self.dealer.shape[0])

    @property
    def discard(self) -> np.ndarray:
        """The Euchre dealer's discard per deal (-1: none; always -1 in the other games)."""
        if self.private.shape[1] == 0:
            return np.full(self.private.shape[0], -1, np.int8)
        return self.private[:, 0]

    @property
    def passed_out(self) -> np.ndarray:
        """Deals with no play (Euchre, everyone passed)."""
        return self.trump < 0

    def side_points(self) -> np.ndarray:
        """Card points (or tricks) per side, [n, 2]; for cut-throat Spades tricks per seat."""
        return self.points if self.game.partnership else self.tricks.astype(np.int32)


def _decks_from(game: Game, hands, rest, decks, n_deals):
    info = game.info
    if decks is not None:
        decks = np.asarray(decks, dtype=np.int64)
        if decks.ndim == 1:
            decks = decks[None, :]
        if decks.ndim != 2 or decks.shape[1] != info.n_cards:
            raise UsageError(f"decks must have shape [n, {info.n_cards}] for {info.name}, got {decks.shape}")
    elif hands is not None:
        hands = np.asarray(hands, dtype=np.int64)
        if hands.ndim == 2:
            hands = hands[None]
        if hands.ndim != 3 or hands.shape[1:] != (4, info.hand_size):
            raise UsageError(f"hands must have shape [n, 4, {info.hand_size}] for {info.name}, got {hands.shape}")
        n = hands.shape[0]
        flat = hands.reshape(n, -1)
        if info.n_rest:
            if rest is None:
                # undealt cards in ascending order (Euchre: the lowest becomes the upcard)
                rest = np.array([np.setdiff1d(np.arange(info.n_cards), row) for row in flat])
            rest = np.asarray(rest, dtype=np.int64).reshape(n, -1)
            flat = np.concatenate([flat, rest], axis=1)
        decks = flat
    else:
        return None
    bad = np.sort(decks, axis=1) != np.arange(info.n_cards)
    if bad.any():
        row = int(np.nonzero(bad.any(axis=1))[0][0])
        raise UsageError(f"deal {row} is not a permutation of the {info.n_cards} cards of {info.name}")
    if n_deals is not None and n_deals != decks.shape[0]:
        raise UsageError(f"n_deals={n_deals} but {decks.shape[0]} deals were given")
    return decks


def _run_chunk(rules, seats, key, start, n, decks, dealers, shape, record, work_size, lockstep=False, families=None):
    rec = new_record(n, *shape, record)
    work = np.zeros(max(work_size, 1), np.float64)
    play = play_lockstep if lockstep else play_batch
    play(rules, seats[0][None, :], max(n, 1), seats[1], key, start, n, decks, dealers, rec, work, families=families)
    return rec


def play(
    game: str | Game,
    seats: str | Sequence[str | AgentSpec],
    n_deals: int | None = None,
    seed: int = 0,
    *,
    hands=None,
    rest=None,
    decks=None,
    dealer: int | Sequence[int] = 0,
    start: int = 0,
    record: bool = False,
    workers: int = 1,
    lockstep: bool = False,
    engine_families: Sequence[str] = (),
    **options: Any,
) -> PlayResult:
    """Play ``n_deals`` deals of ``game`` with four seats and return per-deal arrays.

    - ``seats``: four seat strings (``"random"``, ``"random:bidder=simple"``) or one for all.
    - ``seed``: deal ``i`` is reproducible from ``(seed, start + i)`` alone.
    - ``hands`` [n, 4, hand] (with optional ``rest``) or ``decks`` [n, n_cards]: play given
      deals instead of shuffled ones (rotating hands, paired deals).
    - ``dealer``: dealer of the first deal (it then rotates), or one dealer per deal.
    - ``workers``: processes (joblib); results do not depend on it.
    - ``lockstep``: play many deals at once and batch the network seats' decisions
      (``evolve.runtime.lockstep``): faster with network seats, the very same results.
    - ``engine_families``: agent families to compile into the engine beyond the seats'
      own (``evolve.agents.dispatch.FAMILIES``), so that every batch of a run plays on one
      kernel (``evolve.runtime.precompile``); the results do not depend on it.
    - ``options``: game options, e.g. ``partnership=True`` or ``setup="fixed_spades"``.

    A batch that seats an agent decided in Python (``pyschieber:...``,
    ``evolve.agents.external``) is played deal by deal on tables (``_play_on_tables``), with
    the same deals, streams and result arrays; ``lockstep`` and ``engine_families`` do not
    apply to it, and it cannot seat the perfect-information agents.
    """
    g = make_game(game, **options)
    specs = parse_seats(seats, g)
    given = _decks_from(g, hands, rest, decks, n_deals)
    if given is not None:
        n_deals = given.shape[0]
    if n_deals is None or int(n_deals) < 0:
        raise UsageError("n_deals must be a non-negative integer (or give hands/decks)")
    n_deals = int(n_deals)
    if np.ndim(dealer) == 0:
        d0 = int(dealer)
        if not 0 <= d0 < 4:
            raise UsageError(f"dealer={dealer} is invalid; expected a seat 0..3")
        dealers = (d0 + start + np.arange(n_deals)) % 4
    else:
        dealers = np.asarray(dealer, dtype=np.int64)
        if dealers.shape != (n_deals,) or ((dealers < 0) | (dealers > 3)).any():
            raise UsageError(f"dealer must be a seat 0..3 or {n_deals} seats")
    dealers = dealers.astype(np.int64)
    checked_int(seed, "seed", 0)
    if int(start) < 0:
        raise UsageError(f"start={start!r} is invalid; expected a non-negative integer")
    key = seed_key(seed)
    if any(s.python is not None for s in specs):
        return _play_on_tables(g, specs, seed, n_deals, start, given, dealers, record, workers)
    packed = pack_seats(specs)
    families = engine_families_of(specs, engine_families)
    info = g.info
    shape = record_shape(info)
    empty = np.zeros((0, info.n_cards), np.int64)
    size = chunk_size(n_deals, workers)
    bounds = [(a, min(a + size, n_deals)) for a in range(0, n_deals, size)] or [(0, 0)]
    jobs = [
        (
            g.rules,
            packed,
            key,
            start + a,
            b - a,
            given[a:b] if given is not None else empty,
            dealers[a:b],
            shape,
            record,
            max(s.work_size for s in specs),
            bool(lockstep) and "network" in families,
            families,
        )
        for a, b in bounds
    ]
    recs = list(map_ordered(_run_chunk, jobs, workers))
    return _result(g, specs, seed, recs, record)


def _result(g: Game, specs, seed: int, recs: list[DealRecord], record: bool) -> PlayResult:
    """The ``PlayResult`` of the chunks' deal records, game scores summed over all deals."""
    rec = DealRecord(*(np.concatenate([getattr(r, f) for r in recs]) for f in DealRecord._fields))
    n_sides = g.n_sides
    score = rec.score[:, :n_sides]
    game_id, game_score, winner = accumulate_games(score, rec.bags, n_sides, g.target, g.bag_limit,
                                                   g.protocol.target_is_loss)
    return PlayResult(
        game=g, seats=specs, seed=seed, hands=rec.hands, rest=rec.rest, dealer=rec.dealer,
        trump=rec.mode, first_leader=rec.first_leader, tricks=rec.tricks, points=rec.points,
        score=score, bags=rec.bags, bids=rec.bids, calls=rec.calls, maker=rec.maker,
        alone=rec.alone, private=rec.private, game_id=game_id, game_score=game_score,
        game_winner=winner,
        plays=rec.plays if record else None, leaders=rec.leaders if record else None,
        winners=rec.winners if record else None,
    )


def engine_families_of(specs: Sequence[AgentSpec], extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The agent families an engine for ``specs`` compiles in: the seats' own plus ``extra``
    (in ``FAMILIES`` order)."""
    wanted = set(families_of([s.play_kind for s in specs])) | set(extra) | set(_SHARED_FAMILIES.get())
    unknown = wanted - {f.name for f in FAMILIES}
    if unknown:
        raise UsageError(f"engine_families: unknown agent families {sorted(unknown)}; valid: "
                         f"{', '.join(f.name for f in FAMILIES)}")
    return tuple(f.name for f in FAMILIES if f.name in wanted)


def played_options(game: str | Game) -> dict[str, Any]:
    """The option values ``game`` is played with, as reports and champion files record
    them: ``target`` is the effective game target in points (0: no games), not Spades'
    option value -1, which means "500 with standard bidding, else none"."""
    g = make_game(game)
    return {**g.options, "target": g.target}


def options_text(options: dict[str, Any]) -> str:
    """``key=value, ...`` for a report header; a target of 0 reads ``target=none``."""
    return ", ".join(f"{k}={'none' if k == 'target' and v == 0 else v}" for k, v in options.items())


# deals per task when seats decided in Python play on tables (small, so workers share them)
TABLE_CHUNK = 50


def _play_on_tables(g: Game, specs, seed, n_deals, start, given, dealers, record, workers) -> PlayResult:
    """``play`` for a batch that seats an agent decided in Python (``AgentSpec.python``,
    ``evolve.agents.external``): every deal on its own ``evolve.runtime.session.Table``,
    with the engine's deck, dealer and random streams for deal ``start + i``, each engine
    agent deciding through ``evolve.agent`` (the engine's own Numba functions). A table of
    engine agents alone gives the engine's deals exactly (``tests/test_reproduce_jass.py``)."""
    bounds = [(a, min(a + TABLE_CHUNK, n_deals)) for a in range(0, n_deals, TABLE_CHUNK)] or [(0, 0)]
    jobs = [(g.name, dict(g.options), list(specs), seed, start + a, b - a,
             given[a:b] if given is not None else None, dealers[a:b], record) for a, b in bounds]
    return _result(g, specs, seed, list(map_ordered(_tables_chunk, jobs, workers)), record)


def _tables_chunk(game: str, options: dict, specs, seed: int, start: int, n: int, decks, dealers, record: bool
                  ) -> DealRecord:
    from evolve.games.bits import N_STREAMS
    from evolve.games.dealing import deal_cards
    from evolve.runtime.decide import Agent
    from evolve.runtime.session import Player, Table

    g = make_game(game, **options)
    info = g.info
    h = info.hand_size
    rec = new_record(n, *record_shape(info), record)
    agents = [Agent(s, g.name, seed=seed, **g.options) for s in specs]
    players = [Player(s.name, a.act, (lambda a: lambda sd, i: a.new_deal(i, seed=sd))(a), a.rngs)
               for s, a in zip(specs, agents)]
    key = seed_key(seed)
    for i in range(n):
        deck = np.empty(info.n_cards, np.int64)
        if decks is not None:
            deck[:] = decks[i]
        else:
            deal_cards(key, np.int64(start + i), np.empty(N_STREAMS, np.uint64), deck,
                       np.zeros((0, info.n_cards), np.int64), 0)
        # a shuffled deal is dealt by the table itself, so that its random streams are where the
        # engine's are after the shuffle (the Sueca study draws its trump card from them)
        t = Table(g, players, seed, deals=1, dealer=int(dealers[i]), start=start + i,
                  decks=deck[None, :] if decks is not None else None)
        t.advance()
        _record_table(rec, i, t.results[0], deck, h, info.n_rest, t.leader, record, t.deal.pub)
    return rec


def _record_table(rec: DealRecord, i: int, r: dict, deck, h: int, n_rest: int, leader: int, record: bool,
                  pub) -> None:
    """Deal ``i`` of a table (its result ``r`` and the public state ``pub`` its protocol
    left) into the engine's record arrays. The calls row is the public state's call slots,
    which each game's protocol fills as its deal kernel fills the record (the Euchre bidding
    log by round and seat, the Jass calls in order; Spades bids go to ``bids``)."""
    rec.hands[i] = deck[:4 * h].reshape(4, h)
    rec.rest[i] = deck[4 * h:4 * h + n_rest]
    rec.dealer[i] = r["dealer"]
    rec.mode[i] = r["trump"]
    rec.first_leader[i] = leader
    rec.tricks[i] = r["tricks"]
    rec.points[i] = r["points"]
    rec.score[i, :len(r["score"])] = r["score"]
    rec.bags[i] = r["bags"]
    rec.bids[i] = r["bids"]
    rec.calls[i] = pub[CALLS:CALLS + rec.calls.shape[1]]
    rec.maker[i] = r["maker"]
    rec.alone[i] = r["alone"]
    rec.private[i, :len(r["private"])] = r["private"]
    if record:
        k = 0       # the cards in play order, packed as the engine records them (3 a trick when one sits out)
        for t, trick in enumerate(r["tricks_per_trick"]):
            rec.leaders[i, t] = trick["leader"]
            rec.winners[i, t] = trick["winner"]
            rec.plays[i, k:k + len(trick["cards"])] = trick["cards"]
            k += len(trick["cards"])
