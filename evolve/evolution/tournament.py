"""One generation's tournament (the Spades thesis's, and its extensions): tables of four seats, rotating hands.

Seating: ``games_per_generation`` tables. Population tables seat four distinct members,
drawn so that every member plays equally often (balanced random permutations); with
``opponents``, a share of the tables seats one member against three opponents drawn from
that list. The config requires enough tables for every member to play each generation
(``member_seats``); when the member seats are not a multiple of the population (say a
population of 7 at four-seat tables), some members play one table more than others, which
changes only how precisely their mean fitness per round is measured. Deals: every block of four rounds uses one deal;
over the block the hands (and
the dealer) rotate one seat per round, so every seat plays every hand. All tables of the
generation play the same deals.

Two procedures (``[evolution] tournament``): ``"tables"`` (above: ``games_per_generation``
tables in all, each member at about ``4 x games / population`` of them) and ``"thesis"``,
the Spades thesis's (its Section 2.5): every member plays every one of the
``games_per_generation`` games; for each game the population is split into fresh random
groups of four, and every group plays that game's deal (four starting hands, rotated one
seat per round). So a member of the thesis's study is scored on 15 x 4 = 60 rounds a
generation (``thesis_tables``, ``game_deals``).

Everything is derived from ``(seed, generation)`` and every deal's random streams from its
index, so however the tables are split into chunks (one ``play_batch`` call each) and
whichever process plays them, the result is the same for any number of workers or
backend. Workers receive only plain arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evolve.agents.registry import AgentSpec, pack_tables, parse_seat
from evolve.evolution.fitness import seat_fitness
from evolve.games.card_play import DealRecord, new_record, record_shape
from evolve.games.match import accumulate_games
from evolve.games.registry import Game
from evolve.runtime.batch import play_batch
from evolve.runtime.lockstep import play_lockstep
from evolve.runtime.play import PlayResult, engine_families_of


@dataclass(frozen=True)
class Seating:
    """Who sits where: ``tables[t, s]`` is a member index (>= 0) or ``-1 - k`` for
    opponent k."""

    tables: np.ndarray

    @property
    def n_tables(self) -> int:
        return self.tables.shape[0]


def opponent_tables(n_games: int, n_opponents: int, opponent_share: float) -> int:
    """How many of a generation's ``n_games`` tables seat one member against opponents."""
    return int(round(opponent_share * n_games)) if n_opponents else 0


def member_seats(n_games: int, n_opponents: int, opponent_share: float) -> int:
    """Seats for members in one generation: four per population table, one per opponent
    table. ``seat_tables`` fills them from consecutive random permutations of the
    population, so ``min(member_seats, population)`` distinct members play; when every
    member plays, play counts differ by at most one table (equal when the seats are a
    multiple of the population)."""
    vs = opponent_tables(n_games, n_opponents, opponent_share)
    return 4 * (n_games - vs) + vs


def seat_tables(n_members: int, n_games: int, n_opponents: int, opponent_share: float,
                rng: np.random.Generator, partner_self: bool = False) -> Seating:
    """Balanced random seating for one generation. With ``partner_self`` an opponent table
    seats the member in both seats of its side (a bidder or card player is then measured
    with itself as partner)."""
    n_vs = opponent_tables(n_games, n_opponents, opponent_share)
    n_pop = n_games - n_vs
    tables = np.zeros((n_games, 4), np.int64)
    queue: list[int] = []

    def draw(k: int) -> list[int]:
        """The next k distinct members of an endless sequence of random permutations."""
        if len(queue) >= k and len(set(queue[:k])) == k:
            # the loop below would take exactly these (a fast path: the parent's serial
            # time per generation limits the speed-up of 2 workers)
            picked = queue[:k]
            del queue[:k]
            return picked
        picked: list[int] = []
        while len(picked) < k:
            if not queue:
                queue.extend(rng.permutation(n_members).tolist())
            for i, m in enumerate(queue):
                if m not in picked:
                    picked.append(queue.pop(i))
                    break
            else:
                queue.extend(rng.permutation(n_members).tolist())
        return picked

    for t in range(n_pop):
        tables[t] = draw(4)
    for t in range(n_pop, n_games):
        member = draw(1)[0]
        seat = int(rng.integers(4))
        row = [-1 - int(k) for k in rng.integers(n_opponents, size=4)]
        row[seat] = member
        if partner_self:
            row[(seat + 2) % 4] = member
        tables[t] = row
    return Seating(tables)


def common_tables(n_members: int, n_opponents: int, partner_self: bool = False) -> Seating:
    """Common random numbers: member i sits in seat 0 of one table per opponent k (all other
    seats opponent k; with ``partner_self`` also seat 2), table ``i * n_opponents + k``."""
    tables = np.empty((n_members * n_opponents, 4), np.int64)
    for i in range(n_members):
        for k in range(n_opponents):
            tables[i * n_opponents + k] = [i, -1 - k, i if partner_self else -1 - k, -1 - k]
    return Seating(tables)


def draw_deals(game: Game, n_tables: int, rounds: int, shared: bool, rng: np.random.Generator):
    """The deals of a generation: ``base[set, block]`` one shuffled deck per block of four
    rounds and ``base_dealer[set, block]`` (one set, or one per table without sharing)."""
    n_blocks = -(-rounds // 4)
    n_sets = 1 if shared else n_tables
    base = np.array([[rng.permutation(game.info.n_cards) for _ in range(n_blocks)] for _ in range(n_sets)])
    return base, rng.integers(4, size=(n_sets, n_blocks))


def expand_deals(base: np.ndarray, base_dealer: np.ndarray, hand_size: int, rounds: int, first: int, last: int):
    """Decks and dealers of every (table, round) of tables ``first .. last-1``: round r
    plays block r // 4 with hands and dealer rotated by ``r % 4`` seats. Workers expand
    their own tables, so only the compact ``base`` travels."""
    n_cards = base.shape[-1]
    h = hand_size
    r = np.arange(rounds)
    block, shift = r // 4, r % 4
    # seat s of round r gets the hand dealt to seat s - shift (np.roll by ``shift``)
    source = (np.arange(4)[None, :] - shift[:, None]) % 4                     # [rounds, 4]
    cols = (source[:, :, None] * h + np.arange(h)).reshape(rounds, 4 * h)       # [rounds, 4h]
    cols = np.concatenate([cols, np.broadcast_to(np.arange(4 * h, n_cards), (rounds, n_cards - 4 * h))], axis=1)
    n_sets = base.shape[0]
    per_set = np.take_along_axis(base[:, block, :], np.broadcast_to(cols, (n_sets, rounds, n_cards)), axis=2)
    set_of = np.zeros(last - first, np.int64) if n_sets == 1 else np.arange(first, last)
    decks = per_set[set_of].reshape(-1, n_cards).astype(np.int64)
    dealers = ((base_dealer[:, block] + shift) % 4)[set_of].reshape(-1).astype(np.int64)
    return decks, dealers


def thesis_tables(n_members: int, n_games: int, rng: np.random.Generator) -> Seating:
    """The Spades thesis's seating: for each of ``n_games`` games a fresh random permutation
    of the population split into groups of four (table ``game * n_members // 4 + group``;
    ``n_members`` a multiple of four), so every member plays every game."""
    order = np.stack([rng.permutation(n_members) for _ in range(n_games)])
    return Seating(order.reshape(-1, 4).astype(np.int64))


def game_deals(game: Game, n_games: int, groups: int, rounds: int, rng: np.random.Generator):
    """The deals of a thesis tournament as ``draw_deals`` gives them per table: one set of
    blocks per game (one deal per block of four rounds), repeated for each of its
    ``groups`` tables, so all groups of a game play the same hands."""
    base, base_dealer = draw_deals(game, n_games, rounds, False, rng)
    return np.repeat(base, groups, axis=0), np.repeat(base_dealer, groups, axis=0)


def rotated_decks(game: Game, n_tables: int, rounds: int, shared: bool, rng: np.random.Generator):
    """Decks and dealers of every (table, round) of a generation (``draw_deals`` expanded)."""
    base, base_dealer = draw_deals(game, n_tables, rounds, shared, rng)
    return expand_deals(base, base_dealer, game.info.hand_size, rounds, 0, n_tables)


def play_chunk(rules, ints, params, per_table, key, base, base_dealer, shape, work_size, record, families,
               common, lockstep, first, last) -> DealRecord:
    """Play tables ``first .. last-1`` of a generation (plain arrays in, plain arrays out;
    everything before ``first`` is the generation's job, the same for every chunk).
    ``families``: the card-play agent families of every spec the tournament may seat, so
    that every chunk and generation (and the warm-up) plays with the same engine kernel.
    ``common``: every table draws the agents' random streams of deals 0 .. per_table-1
    (common random numbers), instead of those of its own deal indices. ``lockstep``: play
    by ``evolve.runtime.lockstep`` when networks are seated (the same results)."""
    decks, dealers = expand_deals(base, base_dealer, shape[0], per_table, first, last)
    n = decks.shape[0]
    rec = new_record(n, *shape, record)
    work = np.zeros(max(work_size, 1))
    play = play_lockstep if lockstep and "network" in families else play_batch
    play(rules, ints[first:last], per_table, params, key, 0 if common else first * per_table, n, decks, dealers, rec,
         work, families=families, period=per_table if common else 0)
    return rec


@dataclass
class Tournament:
    """Evaluates a population of seats (networks or parametric agents) for one generation."""

    game: Game
    fitness: str
    games: int
    rounds: int
    opponents: tuple[str, ...] = ()
    opponent_share: float = 0.0
    partner_self: bool = False
    common: bool = False
    lockstep: bool = False      # [evolution] evaluation = "lockstep": same results, faster with networks
    engine_families: tuple[str, ...] = ()   # compiled in beyond the seats' own: the run's one engine
    procedure: str = "tables"   # [evolution] tournament: "tables" or "thesis" (every member plays every game)

    def __post_init__(self):
        self.opponent_specs = [parse_seat(s, self.game) for s in self.opponents]

    def plan(self, n_members: int, seed: int, generation: int):
        """Seating, decks, dealers and the agents' stream key of a generation."""
        rng = np.random.default_rng([seed, generation, 0])
        partner_self = self.partner_self and self.game.partnership
        if self.procedure == "thesis":
            seating = thesis_tables(n_members, self.games, rng)
            base, base_dealer = game_deals(self.game, self.games, n_members // 4, self.rounds, rng)
        elif self.common:
            seating = common_tables(n_members, len(self.opponent_specs), partner_self)
        else:
            seating = seat_tables(n_members, self.games, len(self.opponent_specs), self.opponent_share, rng,
                                  partner_self)
        if self.procedure != "thesis":
            base, base_dealer = draw_deals(self.game, seating.n_tables, self.rounds, True, rng)
        key = np.random.SeedSequence([seed, generation, 1]).generate_state(1, np.uint64)[0]
        return seating, base, base_dealer, key

    def evaluate(self, members: list[AgentSpec], seed: int, generation: int, runner=None,
                 chunks: int = 1, with_tricks: bool = False) -> tuple[np.ndarray, ...]:
        """Mean fitness per round of every member, and how many rounds each played.
        ``runner(job, n_tables, chunks)`` plays the tables on ``chunks`` processes
        (default: in process). ``with_tricks``: also every member's mean tricks per round
        (the thesis's Table 1 gives them beside the advanced fitness)."""
        seating, base, base_dealer, key = self.plan(len(members), seed, generation)
        specs = list(members) + self.opponent_specs
        idx = np.where(seating.tables >= 0, seating.tables, len(members) + (-1 - seating.tables))
        # packed straight into the runner's shared memory, if it has some: no copy to hand
        # over, and the parent plays from the pages the workers map (one copy in the cache)
        ints, params = pack_tables(idx, specs, getattr(runner, "params_buffer", None))
        info = self.game.info
        shape = record_shape(info)
        work = max(s.work_size for s in specs)
        record = self.fitness == "advanced"
        families = engine_families_of(specs, self.engine_families)
        job = (self.game.rules, ints, params, self.rounds, key, base, base_dealer, shape, work, record, families,
               self.common, self.lockstep)
        recs = runner(job, seating.n_tables, chunks) if runner else [play_chunk(*job, 0, seating.n_tables)]
        rec = DealRecord(*(np.concatenate([getattr(r, f) for r in recs]) for f in DealRecord._fields))
        fit = seat_fitness(_as_result(self.game, rec), self.fitness)
        # seat by seat, deal by deal: the order of the sums of ``np.add.at`` per seat, in
        # one ``bincount`` (5x faster; the parent's serial time limits the workers' speed-up)
        table_of_deal = np.repeat(np.arange(seating.n_tables), self.rounds)
        who = seating.tables[table_of_deal].T.ravel()
        mine = who >= 0
        totals = np.bincount(who[mine], weights=fit.T.ravel()[mine], minlength=len(members)).astype(np.float64)
        counts = np.bincount(who[mine], minlength=len(members)).astype(np.float64)
        mean = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
        if with_tricks:
            tricks = np.bincount(who[mine], weights=rec.tricks.T.ravel()[mine].astype(np.float64),
                                 minlength=len(members))
            return mean, counts, np.where(counts > 0, tricks / np.maximum(counts, 1), np.nan)
        return mean, counts


def _as_result(game: Game, rec: DealRecord) -> PlayResult:
    n_sides = game.n_sides
    score = rec.score[:, :n_sides]
    gid, gscore, winner = accumulate_games(score, rec.bags, n_sides, 0, 0)
    return PlayResult(
        game=game, seats=[], seed=0, hands=rec.hands, rest=rec.rest, dealer=rec.dealer, trump=rec.mode,
        first_leader=rec.first_leader, tricks=rec.tricks, points=rec.points, score=score, bags=rec.bags,
        bids=rec.bids, calls=rec.calls, maker=rec.maker, alone=rec.alone, private=rec.private,
        game_id=gid, game_score=gscore, game_winner=winner, plays=rec.plays, leaders=rec.leaders, winners=rec.winners,
    )
