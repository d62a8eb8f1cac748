"""The batched environment: N tables stepped at once in one Numba kernel (``BatchEnv``), and
its Gymnasium vector-environment wrapper (``BatchVectorEnv``).

Deals. Every table plays the engine's deals: table t's k-th deal is deal ``t + n * k`` of
``evolve.play(game, seats, seed=seed)``, with that deal's deck, random streams and dealer
(deal i is dealt by seat ``i % 4``, the engine's rotation from dealer 0), so the same seats
play the very same deals and score the same as in the engine. (With ``n`` a multiple of 4
a table therefore keeps its dealer, ``t % 4``; across the tables every seat deals equally
often.)

What the caller decides: the card plays of its seats (``seat``; with ``opponents=None``
every seat's, with ``partner="self"`` also the partner's). Everything else happens inside
the kernel:

- the calls (Spades bids, the Euchre order up, round-2 trump, going alone and the dealer's
  discard, the Jass trump and push) are made by each seat's bidder: the caller's seats by
  ``bidder`` (default: the game's rule-based bidder), the other seats by their seat
  strings' bidders. The caller is never asked for a call (in the AEC environment,
  ``evolve.env.aec_env``, every call is an action);
- the other seats' cards are chosen by their agents through the engine's dispatch
  (``evolve.agents.dispatch.choose_card``), so any registered agent plays there: the
  rule-based ones, networks (``champion:PATH``), the searches (through their callback slot);
- with ``auto_forced=True`` a card play with one legal card is played without asking.

Episodes, as in ``evolve.env.gym_env``: one deal, or with the game's ``target`` option given
(> 0) a match to the target, the table's deals in order. A deal in which the caller has no
card to choose (a Euchre deal passed out, or one the caller's seat sits out while its
partner plays alone) is played through and, outside a match, not reported. Rewards: every
seat's hand score of each deal (its side's; in cut-throat Spades its own) when the deal
ends, 0 otherwise.

The kernel (``batch_env_kernel``) keeps each table's state in arrays across calls (hands,
``pub``, random streams, trump mode, seat to act, deal index, game score...), applies the
caller's actions to the tables waiting for them, runs every table until a seat of the
caller must choose a card or the episode ends, writes the observation rows
(``evolve.env.spaces.encode_observation``), the masks and the rewards, and starts the ended
tables' next deals: one call per step, no Python loop per table. It is compiled like the
engine (``evolve.runtime.batch.batch_kernel``), with the card-play families of the seats.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numba import njit

from evolve.agents.dispatch import FAMILIES, families_of
from evolve.agents.kinds import PLAY_KIND
from evolve.agents.registry import AgentSpec, pack_seats, parse_seat
from evolve.core.errors import UsageError, checked_int
from evolve.env.spaces import (
    action_space_size,
    encode_observation,
    observation_size,
    plays_a_match,
    three_opponents,
)
from evolve.games.bits import N_STREAMS, ONE, ZERO, count, has, lowest, nth_card, seed_key
from evolve.games.card_play import (  # noqa: F401 (hooks)
    choose_card,
    deal_cards,
    game_finish,
    game_setup,
    new_record,
    record_shape,
)
from evolve.games.hooks import legal_cards
from evolve.games.registry import Game, make_game
from evolve.games.rules import P_GAME, P_N_CARDS, P_PARTNERSHIP
from evolve.games.state import PUB_SIZE, reset_pub
from evolve.games.template import template
from evolve.games.trick import open_play, play_card_step
from evolve.runtime.batch import batch_kernel

# the hooks (game_setup, game_finish, choose_card, deal_cards) are evolve.games.card_play's,
# bound by evolve.runtime.batch: the game's phases, the deal and the seats' card choices

# the kernel's command
CMD_STEP = 0        # the waiting tables play their actions (the held ones as ``conf[C_HOLD]`` says)
CMD_TABLES = 1      # the tables t with ``acts[t] != 0`` start their next episode
CMD_RESET = 2       # every table starts its next episode

# conf[C_HOLD]: what an ended episode does (the autoreset modes)
SAME_STEP, NEXT_STEP, DISABLED = 0, 1, 2
AUTORESET = {"same_step": SAME_STEP, "next_step": NEXT_STEP, "disabled": DISABLED}

# the int64 configuration ``conf``
C_HOLD, C_FORCED, C_TARGET, C_BAG_LIMIT, C_SIDES, C_MATCH = range(6)
C_CTRL = 8          # 4 slots: 1 = the caller chooses that seat's cards
N_CONF = 12

# the int64 state of a table ``ints[t]``
I_MODE, I_SEAT, I_STATUS, I_DEAL, I_NEXT, I_ASKED = range(6)
I_SCORE = 8         # 4 slots: the game score per side (per seat in cut-throat Spades) before the deal
I_BAGS = 12         # 2 slots: the Spades bags per side
I_PENDING = 16      # 4 slots: deal scores of a match's next episode, earned in the step that ended the last
N_INTS = 24

# ints[t, I_STATUS]
WAITING = 0         # a seat of the caller is to choose a card (``ints[t, I_SEAT]``, legal ``legal[t]``)
HELD = 1            # the episode has ended and the table waits (next-step and disabled autoreset)

CARD = 0            # the "card" decision (``evolve.env.spaces.DECISIONS``)


# no reference counting (``_nrt=False``): with it, the atomic increments and decrements of the
# array views taken per table and card were ~70% of the kernel's time (measured with perf)
@template(nogil=True, _nrt=False)
def batch_env_kernel(rules, kinds, params, conf, key, cmd, acts, ints, hands, pubs, rngs, legal, rec, work,
                     deck, decks, gs, obs, mask, rewards, terminated, final_deal, to_act, deal, bad):
    """One step of every table (see the module docstring); returns ``(bad actions, ended
    episodes)``. Nothing changes when an action is bad (its table is flagged in ``bad``).

    ``cmd`` ``CMD_STEP``: at each waiting table the caller's seat ``ints[t, I_SEAT]`` plays
    ``acts[t]`` (a card of ``legal[t]``); a held table starts its next episode
    (``NEXT_STEP``) or stays (``DISABLED``). ``CMD_TABLES``: the tables with ``acts[t] != 0``
    start their next episode; ``CMD_RESET``: every table does. A table then runs: the seats
    with ``conf[C_CTRL + s] == 0`` by their agents (``choose_card``), the lone legal cards
    of the caller's seats with ``conf[C_FORCED]``, the calls in ``game_setup``, until a
    caller's seat must choose a card: its observation into ``obs[t]``, its legal cards into
    ``mask[t]``, the seat into ``to_act[t]``, the deal's engine index into ``deal[t]``.
    A deal ending on the way is scored (``game_finish``) into ``rewards[t]`` (per seat);
    an episode ending sets ``terminated[t]`` and ``final_deal[t]`` (the last deal's index)
    and, in the same-step mode, runs on into the next episode; otherwise the table holds
    with a zero observation and mask and ``to_act`` -1. Table t's k-th deal is engine deal
    ``t + n * k``, dealt by its index mod 4. ``deck``, ``decks`` (no rows: shuffled decks)
    and ``gs`` are scratch memory."""
    n = ints.shape[0]
    n_cards = rules[P_N_CARDS]
    if cmd == CMD_STEP:     # check every action before any table moves
        n_bad = _bad_actions(n_cards, ints, acts, legal, bad)
        if n_bad > 0:
            return n_bad, 0
    hold = conf[C_HOLD]
    n_ended = 0
    for t in range(n):
        st = ints[t]
        if terminated[t]:           # the previous step's report is over
            terminated[t] = False
            final_deal[t] = -1
        for q in range(4):
            rewards[t, q] = st[I_PENDING + q]
            st[I_PENDING + q] = 0
        if cmd == CMD_STEP:
            go = st[I_STATUS] == WAITING or hold == NEXT_STEP
        else:
            go = cmd == CMD_RESET or acts[t] != 0
        if not go:
            continue
        hand4 = hands[t]
        pub = pubs[t]
        r = rngs[t]
        if cmd == CMD_STEP and st[I_STATUS] == WAITING:
            s = st[I_SEAT]
            st[I_SEAT] = play_card_step(rules, st[I_MODE], hand4, pub, s, acts[t], legal[t])
            st[I_ASKED] = 1
        else:                       # a new episode: what is in play is abandoned
            st[I_SEAT] = -1
            st[I_DEAL] = -1
            for k in range(I_SCORE, I_BAGS + 2):
                st[k] = 0
        st[I_STATUS] = WAITING
        ended = False
        while True:
            s = st[I_SEAT]
            if s < 0:
                if st[I_DEAL] >= 0:             # a deal is over
                    if _deal_over(rules, conf, st, pub, rec, t, rewards[t], ended):
                        ended = True
                        n_ended += 1
                        terminated[t] = True
                        final_deal[t] = st[I_DEAL]
                    st[I_DEAL] = -1
                    if ended and hold != SAME_STEP:
                        st[I_STATUS] = HELD
                        to_act[t] = -1
                        obs[t, :] = 0
                        mask[t, :] = 0
                        break
                _start_deal(rules, kinds, params, key, n, t, st, hand4, pub, r, rec, deck, decks)
                continue
            lg = legal_cards(rules, st[I_MODE], hand4[s], pub)
            if conf[C_CTRL + s] != 0:
                if conf[C_FORCED] != 0 and count(lg) == 1:
                    st[I_SEAT] = play_card_step(rules, st[I_MODE], hand4, pub, s, lowest(lg), lg)
                    continue
                legal[t] = lg
                to_act[t] = s
                deal[t] = st[I_DEAL]
                _game_score_of(st, s, conf, gs)
                encode_observation(rules, s, CARD, hand4[s], pub, gs, conf[C_TARGET], obs[t])
                _write_mask(mask[t], lg)
                break
            card = choose_card(kinds, params, s, rules, st[I_MODE], hand4, lg, pub, r, work[t])
            st[I_SEAT] = play_card_step(rules, st[I_MODE], hand4, pub, s, card, lg)
    return 0, n_ended


@njit(cache=True, _nrt=False)
def _sample(ints, legal, bits, out):
    """A uniformly random legal card at every waiting table from the random ``bits`` (one
    uint64 per table; Lemire's multiply-shift on the upper half), 0 at the others."""
    for t in range(ints.shape[0]):
        if ints[t, I_STATUS] != WAITING:
            out[t] = 0
            continue
        k = ((bits[t] >> np.uint64(32)) * np.uint64(count(legal[t]))) >> np.uint64(32)
        out[t] = nth_card(legal[t], np.int64(k))


@njit(cache=True, inline="always")
def _bad_actions(n_cards, ints, acts, legal, bad):
    """The number of waiting tables whose action is not a legal card (flagged in ``bad``
    when there are any)."""
    n_bad = 0
    for t in range(ints.shape[0]):
        a = acts[t]
        if ints[t, I_STATUS] == WAITING and (a < 0 or a >= n_cards or not has(legal[t], a)):
            n_bad += 1
    if n_bad > 0:
        for t in range(ints.shape[0]):
            a = acts[t]
            bad[t] = ints[t, I_STATUS] == WAITING and (a < 0 or a >= n_cards or not has(legal[t], a))
    return n_bad


@template(inline="always")
def _deal_over(rules, conf, st, pub, rec, t, reward, ended):
    """Score table ``t``'s finished deal (``game_finish``) into the seats' ``reward`` (or,
    once the step has ``ended`` an episode, into the next episode's pending reward) and the
    game score; True when it ends the episode: outside a match a deal the caller played, in
    a match the deal that wins the game."""
    game_finish(rules, pub, rec, t)
    match = conf[C_MATCH] != 0
    won = _add_game_score(rec.score[t], rec.bags[t], st, conf)
    if not match and st[I_ASKED] == 0:
        return False                    # outside a match only the deals the caller played count
    partnership = rules[P_PARTNERSHIP] != 0
    for q in range(4):
        v = rec.score[t, q % 2] if partnership else rec.score[t, q]
        if ended:
            st[I_PENDING + q] += v
        else:
            reward[q] += v
    return not ended and (won or not match)


@template(inline="always")
def _start_deal(rules, kinds, params, key, n, t, st, hand4, pub, r, rec, deck, decks):
    """Table ``t``'s next deal, started as ``play_batch_kernel`` starts a deal: its streams,
    deck and dealer, the calls; a passed-out deal leaves the table without a deal."""
    j = t + n * st[I_NEXT]
    st[I_NEXT] += 1
    st[I_ASKED] = 0
    _clear_record(rec, t)
    deal_cards(key, j, r, deck, decks, 0)
    dealer = j % 4
    reset_pub(pub, dealer)
    rec.dealer[t] = dealer
    m, leader, out = game_setup(rules, deck, dealer, kinds, params, r, hand4, pub, rec, t)
    if m >= 0:
        st[I_DEAL] = j
        st[I_MODE] = m
        st[I_SEAT] = open_play(pub, leader, out)


@njit(cache=True, inline="always")
def _write_mask(row, lg):
    """The int8 action mask of the legal cards ``lg`` (no call is ever legal here)."""
    row[:] = 0
    m = lg
    while m != ZERO:
        row[lowest(m)] = 1
        m &= m - ONE


@njit(cache=True, inline="always")
def _clear_record(rec, t):
    """Row ``t`` of the deal record as ``new_record`` makes it: every deal of table t reuses
    it, the games' kernels write only some fields, and Spades adds to the score."""
    for s in range(4):
        rec.bids[t, s] = -1
        rec.score[t, s] = 0
    for k in range(rec.calls.shape[1]):
        rec.calls[t, k] = -1
    rec.bags[t, 0] = 0
    rec.bags[t, 1] = 0
    rec.maker[t] = -1
    rec.alone[t] = 0
    for k in range(rec.private.shape[1]):
        rec.private[t, k] = -1


@njit(cache=True, inline="always")
def _add_game_score(score, bags, st, conf):
    """Add a deal's hand ``score`` (and Spades ``bags``) to the table's game score as
    ``evolve.games.match.accumulate_games`` sums consecutive deals; True when a side has
    won the game (reached the target with a strictly highest score; the score starts over).
    Outside a match nothing is summed."""
    if conf[C_MATCH] == 0:
        return False
    n_sides = conf[C_SIDES]
    bag_limit = conf[C_BAG_LIMIT]
    for s in range(n_sides):
        st[I_SCORE + s] += score[s]
        if bag_limit > 0:
            st[I_BAGS + s] += bags[s]
            while st[I_BAGS + s] >= bag_limit:
                st[I_BAGS + s] -= bag_limit
                st[I_SCORE + s] -= 100
    best = 0
    for s in range(1, n_sides):
        if st[I_SCORE + s] > st[I_SCORE + best]:
            best = s
    for s in range(n_sides):
        if s != best and st[I_SCORE + s] == st[I_SCORE + best]:
            return False
    if st[I_SCORE + best] < conf[C_TARGET]:
        return False
    for k in range(I_SCORE, I_BAGS + 2):
        st[k] = 0
    return True


@njit(cache=True, inline="always")
def _game_score_of(st, seat, conf, gs):
    """The game score before the deal as ``encode_observation`` takes it
    (``evolve.env.spaces.two_sides``): the seat's side's, then the other side's (in
    cut-throat Spades the best of the other seats')."""
    if conf[C_SIDES] == 2:
        gs[0] = st[I_SCORE + seat % 2]
        gs[1] = st[I_SCORE + 1 - seat % 2]
    else:
        gs[0] = st[I_SCORE + seat]
        best = st[I_SCORE + (seat + 1) % 4]
        for q in range(4):
            if q != seat and st[I_SCORE + q] > best:
                best = st[I_SCORE + q]
        gs[1] = best


class BatchEnv:
    """``n`` tables of ``game`` stepped at once in one Numba kernel (see the module docstring).

    - ``opponents``: None (the caller chooses every seat's cards: self-play), or seat strings
      of the agents played inside the kernel, as ``evolve.env.gym_env`` takes them: 1 (all
      three other seats), 2 (the next seat and the seat before the caller's; the partner
      plays the first) or 3 (the next seats in play order, the partner across second).
    - ``seat``: the caller's seat when there are opponents; ``partner``: the seat string of
      the partner across, or ``"self"``: the caller chooses its cards too.
    - ``bidder``: the bidder of the caller's seats, as a seat string's ``bidder=`` option
      (``default``: the game's rule-based bidder; ``simple``, ``random``, ``search``...).
    - ``seed``: the engine seed of the deals (``reset(seed=...)`` changes it).
    - ``auto_forced``: card plays with one legal card are played without asking.
    - ``obs_dtype``: ``np.uint8`` (default) or ``np.float32``.
    - ``copy``: return copies of the arrays (default: the environment's own buffers, which
      the next ``step`` rewrites: copy what you keep).
    - ``autoreset``: ``"same_step"`` (default: a table whose episode ends starts the next
      in the same step, its row of ``obs`` the new episode's first decision),
      ``"next_step"`` (the row is all zero, the next episode starts at the following step,
      which ignores that table's action) or ``"disabled"`` (it waits for ``reset(tables=)``).
    - ``engine_families``: agent families to compile in beyond the seats' (as
      ``evolve.play``'s), so that environments of different seats share one kernel.
    - ``options``: game options (``partnership=True``, ``bidding="standard"``, ``target``...).

    ``reset()`` returns ``(obs [n, D], info)``; ``step(actions [n])`` returns ``(obs, rewards
    [n, 4] float32, terminated [n], truncated [n], info)``. ``info``: ``action_mask`` int8
    [n, A] (the legal cards of the seat to act), ``to_act`` [n] (the seat to choose, -1 at a
    held table), ``deal`` [n] (the engine index of the deal each table plays) and, after a
    step that ended episodes, ``final_deal`` [n] (the last deal of the episode that ended,
    else -1) with ``_final_deal`` (= terminated). The observation after an episode's end is
    all zero (as ``gym_env``'s), so none is reported beside it. ``truncated`` is always
    False. Actions are indices of the action space (``evolve.env.spaces``): card ids, since
    no call is ever asked; ``sample()`` draws random legal ones.

    An action that is not a legal card at its table raises one ``ValueError`` naming the
    tables and actions, and no table moves."""

    def __init__(self, game: str | Game, n: int, opponents: str | Sequence[str] | None = None, seat: int = 0,
                 partner: str | None = None, seed: int = 0, auto_forced: bool = False, obs_dtype=np.uint8,
                 bidder: str = "default", copy: bool = False, autoreset: str = "same_step",
                 engine_families: Sequence[str] = (), **options: Any):
        self.game = g = make_game(game, **options)
        self.n = checked_int(n, "n", 1)
        self.seat = checked_int(seat, "seat", 0, 3, expect="a seat 0..3")
        self.auto_forced = bool(auto_forced)
        self.copy = bool(copy)
        if autoreset not in AUTORESET:
            raise UsageError(f"autoreset={autoreset!r} is invalid; expected one of {', '.join(AUTORESET)}")
        self.autoreset = autoreset
        self.obs_dtype = np.dtype(obs_dtype)
        if self.obs_dtype not in (np.dtype(np.uint8), np.dtype(np.float32)):
            raise UsageError(f"obs_dtype={obs_dtype!r} is invalid; expected numpy.uint8 or numpy.float32")
        self.match = plays_a_match(g, options)
        mine = parse_seat(f"random:bidder={bidder}", g)
        specs, ctrl = _seats(g, self.seat, mine, opponents, partner)
        python = [s.name for s in specs if s.python is not None]
        if python:
            raise UsageError(f"{python[0]} is decided in Python and cannot play inside the batched kernel; "
                             "seat it with evolve.env.gym_env")
        self.specs = specs
        self.mine = [s for s in range(4) if ctrl[s]]
        self.kinds, self.params = pack_seats(specs)
        wanted = set(families_of(self.kinds[PLAY_KIND:PLAY_KIND + 4])) | set(engine_families)
        unknown = wanted - {f.name for f in FAMILIES}
        if unknown:
            raise UsageError(f"engine_families: unknown agent families {sorted(unknown)}; valid: "
                             f"{', '.join(f.name for f in FAMILIES)}")
        self.families = tuple(f.name for f in FAMILIES if f.name in wanted)
        self._kernel = batch_kernel(int(g.rules[P_GAME]), self.families, batch_env_kernel)
        self.n_actions = action_space_size(g)
        self.obs_size = observation_size(g)
        self.conf = np.zeros(N_CONF, np.int64)
        self.conf[[C_HOLD, C_FORCED, C_TARGET, C_BAG_LIMIT, C_SIDES, C_MATCH]] = (
            AUTORESET[autoreset], self.auto_forced, max(g.target, 0), g.bag_limit, g.n_sides, self.match)
        self.conf[C_CTRL:C_CTRL + 4] = ctrl
        self.seed = checked_int(seed, "seed", 0)
        self._alloc(max(s.work_size for s in specs))
        self._ready = False
        self._entry = None

    def __repr__(self) -> str:
        seats = ", ".join("you" if s in self.mine else self.specs[s].name for s in range(4))
        return f"<evolve.env.BatchEnv {self.game.name} {self.game.options} n={self.n}: {seats}>"

    def _alloc(self, work_size: int) -> None:
        n, g = self.n, self.game
        info = g.info
        self._ints = np.zeros((n, N_INTS), np.int64)
        self._hands = np.zeros((n, 4), np.uint64)
        self._pubs = np.zeros((n, PUB_SIZE), np.int64)
        self._rngs = np.zeros((n, N_STREAMS), np.uint64)
        self._legal = np.zeros(n, np.uint64)
        self._rec = new_record(n, *record_shape(info), False)
        self._work = np.zeros((n, (max(work_size, 1) + 7) // 8 * 8))    # 64-byte rows
        self._obs = np.zeros((n, self.obs_size), self.obs_dtype)
        self._mask = np.zeros((n, self.n_actions), np.int8)
        self._rewards = np.zeros((n, 4), np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._final_deal = np.full(n, -1, np.int64)
        self._to_act = np.full(n, -1, np.int64)
        self._deal = np.full(n, -1, np.int64)
        self._bad = np.zeros(n, np.bool_)
        self._flags = np.zeros(n, np.int64)
        n_cards = int(g.rules[P_N_CARDS])
        scratch = (np.zeros(n_cards, np.int64), np.zeros((0, n_cards), np.int64), np.zeros(2, np.int64))
        self._state = (self._ints, self._hands, self._pubs, self._rngs, self._legal, self._rec, self._work,
                       *scratch, self._obs, self._mask, self._rewards, self._terminated, self._final_deal, self._to_act,
                       self._deal, self._bad)

    def _run(self, cmd: int, acts: np.ndarray) -> tuple[int, int]:
        args = (self.game.rules, self.kinds, self.params, self.conf, self._key, cmd, acts, *self._state)
        if self._entry is None:
            out = self._kernel(*args)
            self._entry = _entry_point(self._kernel, args)
            return out
        return self._entry(*args)

    # ------------------------------------------------------------------ the environment

    def reset(self, seed: int | None = None, tables=None):
        """Start every table's first deal (``seed``: the engine seed from now on), or with
        ``tables`` (a boolean mask [n] or table indices) start those tables' next episode
        (their next deal). Returns ``(obs, info)``."""
        if tables is not None:
            if not self._ready:
                raise UsageError("reset(tables=...) needs a reset() first")
            self._flags[:] = 0
            try:
                self._flags[np.asarray(tables)] = 1
            except (IndexError, ValueError):
                raise UsageError(f"tables must be a boolean mask of {self.n} tables or table indices "
                                 f"0..{self.n - 1}") from None
            self._run(CMD_TABLES, self._flags)
            return self._out(None)
        if seed is not None:
            self.seed = checked_int(seed, "seed", 0)
        self._key = seed_key(self.seed)
        self._ints[:] = 0
        self._terminated[:] = False
        self._final_deal[:] = -1
        self._run(CMD_RESET, self._flags)
        self._ready = True
        return self._out(None)

    def step(self, actions):
        """The seat to act at every waiting table plays its action (a card id, i.e. an
        action index below n_cards); returns ``(obs, rewards, terminated, truncated, info)``."""
        if not self._ready:
            raise UsageError("call reset() before step()")
        a = actions
        if (type(a) is not np.ndarray or a.dtype != np.int64 or a.shape != (self.n,) or not a.flags.c_contiguous
                or not a.flags.writeable):      # the kernel's own argument type, as _entry_point requires
            a = np.asarray(actions)
            if a.shape != (self.n,) or not np.issubdtype(a.dtype, np.integer):
                raise ValueError(f"actions must be {self.n} integers (one per table), got shape {a.shape} "
                                 f"of {a.dtype}")
            a = np.array(a, np.int64)
        n_bad, n_ended = self._run(CMD_STEP, a)
        if n_bad:
            bad = np.flatnonzero(self._bad)
            shown = ", ".join(f"table {t}: action {int(a[t])}" for t in bad[:5]) + (", ..." if bad.size > 5 else "")
            raise ValueError(f"{n_bad} illegal action(s) ({shown}); the legal ones are info['action_mask']'s; "
                             "no table moved")
        return self._out(n_ended)

    def _out(self, ended: int | None):
        c = np.copy if self.copy else (lambda x: x)
        info = {"action_mask": c(self._mask), "to_act": c(self._to_act), "deal": c(self._deal)}
        if ended:
            info["final_deal"] = c(self._final_deal)
            info["_final_deal"] = self._terminated.copy()
        if ended is None:
            return c(self._obs), info
        return c(self._obs), c(self._rewards), c(self._terminated), c(self._truncated), info

    def sample(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action at every waiting table (0 at the others), int64
        [n], drawn from ``rng`` (a ``numpy.random.Generator``; default: a new one) in one
        vectorised call: what ``action_space.sample(mask)`` would give per table."""
        rng = np.random.default_rng() if rng is None else rng
        out = np.empty(self.n, np.int64)
        _sample(self._ints, self._legal, rng.integers(0, 1 << 64, self.n, np.uint64, endpoint=False), out)
        return out

    # ------------------------------------------------------------------ inspection

    @property
    def waiting(self) -> np.ndarray:
        """bool [n]: the tables waiting for an action (the others hold an ended episode)."""
        return self._ints[:, I_STATUS] == WAITING

    def hands(self) -> np.ndarray:
        """uint64 [n, 4]: every seat's hand at every table as a card mask (a copy; the
        observations show each seat only its own)."""
        return self._hands.copy()

    def pub(self) -> np.ndarray:
        """int64 [n, PUB_SIZE]: every table's public state (``evolve.games.state``; a copy)."""
        return self._pubs.copy()

    def close(self) -> None:
        """Nothing to release: the state is plain arrays."""


def _entry_point(dispatcher, args):
    """The compiled kernel's own entry point for ``args``' types, which skips the
    dispatcher's typing of ~30 arguments on every call (2.2 of 2.7 us, measured: 3-10% of a
    step of 256 tables); the dispatcher itself where Numba does not expose it. The arguments
    must then keep their types: ``step`` makes the actions a writable C-contiguous int64 array."""
    try:
        from numba import typeof

        return dispatcher.overloads[tuple(typeof(a) for a in args)].entry_point
    except Exception:   # another Numba: the dispatcher is always right, only slower
        return dispatcher


def _seats(g: Game, seat: int, mine: AgentSpec, opponents, partner) -> tuple[list[AgentSpec], list[int]]:
    """The four seats' specs (seat 0..3) and which of them the caller decides (1), from
    ``opponents`` (None, or 1, 2 or 3 seat strings, as ``evolve.env.gym.relative_seats``
    reads them) and ``partner`` (None, a seat string or "self")."""
    if opponents is None:
        if partner is not None:
            raise UsageError("partner= needs opponents=; without opponents the caller decides every seat")
        return [mine] * 4, [1] * 4
    opponents = three_opponents(opponents, (str, AgentSpec))
    rel = [mine, *(parse_seat(o, g) for o in opponents)]     # offsets 0..3 from the caller
    ctrl = [1, 0, 0, 0]
    if partner == "self":
        rel[2], ctrl[2] = mine, 1
    elif partner is not None:
        if not isinstance(partner, (str, AgentSpec)):
            raise UsageError(f"partner must be a seat string or 'self', got {partner!r}")
        rel[2] = parse_seat(partner, g)
    return [rel[(s - seat) % 4] for s in range(4)], [ctrl[(s - seat) % 4] for s in range(4)]


# ----------------------------------------------------------------------------- Gymnasium

_VECTOR_CLASS: list = []


def __getattr__(name: str):
    # the Gymnasium wrapper is made on first use, so that BatchEnv needs no Gymnasium
    if name == "BatchVectorEnv":
        return _vector_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _vector_class():
    if _VECTOR_CLASS:
        return _VECTOR_CLASS[0]
    try:
        from gymnasium import spaces
        from gymnasium.vector import AutoresetMode, VectorEnv
        from gymnasium.vector.utils import batch_space
    except ImportError:
        raise UsageError('evolve.env.BatchVectorEnv needs Gymnasium: pip install "trick-evolve[env]"') from None

    class BatchVectorEnv(VectorEnv):
        """``BatchEnv`` as a ``gymnasium.vector.VectorEnv`` of ``n`` sub-environments: the
        same tables, kernel and arguments (``opponents``, ``seat``, ``partner``, ``bidder``,
        ``auto_forced``, game ``options``...).

        - Spaces: ``single_observation_space`` ``Box(0, 1, (D,), obs_dtype)`` (float32 by
          default, as the AEC and Gym environments' observation), ``single_action_space``
          ``Discrete(A)``; ``observation_space`` and ``action_space`` their batches.
        - ``autoreset_mode`` (``metadata["autoreset_mode"]``): ``NEXT_STEP`` (Gymnasium's
          default: after an episode ends, the sub-environment's observation is all zero and
          the next ``step`` starts its next episode, ignoring its action, with reward 0),
          ``SAME_STEP`` (the next episode's first observation at once; ``info["final_obs"]``
          holds the all-zero final observation, ``info["final_info"]`` the final deal) or
          ``DISABLED`` (``reset(options={"reset_mask": mask})`` starts them).
        - Rewards: the deal score of the seat that acted in the step (its side's; with
          opponents the caller's seat's side), ``info["rewards"]`` every seat's [n, 4].
        - ``info``: ``action_mask`` [n, A] int8, ``to_act`` [n], ``deal`` [n], ``rewards``.
        - Seeds: ``reset(seed=s)`` deals the engine's deals of seed ``s`` from each table's
          first deal; ``reset()`` without a seed goes on with each table's next deals (the
          first seed, when none is ever given, is drawn from ``np_random``).
        - ``copy``: return copies of the arrays (default True, as Gymnasium's vector
          environments); False returns the environment's buffers, rewritten by each step."""

        metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

        def __init__(self, game: str | Game, n: int, opponents: str | Sequence[str] | None = None, seat: int = 0,
                     partner: str | None = None, autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
                     obs_dtype=np.float32, copy: bool = True, **kwargs: Any):
            try:
                mode = AutoresetMode(autoreset_mode)
            except ValueError:
                raise UsageError(f"autoreset_mode={autoreset_mode!r} is invalid; expected one of "
                                 f"{', '.join(m.value for m in AutoresetMode)}") from None
            names = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step",
                     AutoresetMode.DISABLED: "disabled"}
            self.env = BatchEnv(game, n, opponents=opponents, seat=seat, partner=partner, obs_dtype=obs_dtype,
                                copy=False, autoreset=names[mode], **kwargs)
            self.copy = bool(copy)
            self.num_envs = self.env.n
            self.metadata = {**type(self).metadata, "autoreset_mode": mode}
            self.autoreset_mode = mode
            self.single_observation_space = spaces.Box(0, 1, (self.env.obs_size,), self.env.obs_dtype)
            self.single_action_space = spaces.Discrete(self.env.n_actions)
            self.observation_space = batch_space(self.single_observation_space, self.num_envs)
            self.action_space = batch_space(self.single_action_space, self.num_envs)
            self._deal_seed: int | None = None
            self._acted = np.zeros(self.num_envs, np.int64)
            self._rows = np.arange(self.num_envs)

        def __repr__(self) -> str:
            return f"BatchVectorEnv({self.env!r}, autoreset_mode={self.autoreset_mode.value})"

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
            """Start every table's first deal (``seed``), the next episodes of every table
            (no seed), or of the tables in ``options["reset_mask"]`` (bool [n])."""
            mask = (options or {}).get("reset_mask")
            if mask is not None:
                mask = np.asarray(mask)
                if mask.shape != (self.num_envs,) or mask.dtype != np.bool_ or not mask.any():
                    raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},) with "
                                     "at least one True value")
                obs, info = self.env.reset(tables=mask)
                return self._obs(obs), self._info(info)
            super().reset(seed=seed)
            if seed is not None:
                self._deal_seed = checked_int(seed, "seed", 0)
            elif self._deal_seed is None:
                self._deal_seed = int(self.np_random.integers(1 << 62))
            else:
                obs, info = self.env.reset(tables=np.ones(self.num_envs, np.bool_))
                return self._obs(obs), self._info(info)
            obs, info = self.env.reset(seed=self._deal_seed)
            return self._obs(obs), self._info(info)

        def step(self, actions):
            """Every sub-environment's action (an action index); see the class docstring."""
            self._acted[:] = self.env._to_act
            held = self._acted < 0
            obs, rewards, terminated, truncated, info = self.env.step(actions)
            own = np.where(held, 0, self._acted)
            reward = rewards[self._rows, own].astype(np.float64)
            out = self._info(info)
            if self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
                final = np.full(self.num_envs, None, dtype=object)
                for t in np.flatnonzero(terminated):
                    final[t] = np.zeros(self.env.obs_size, self.env.obs_dtype)
                out["final_obs"], out["_final_obs"] = final, terminated.copy()
                out["final_info"] = {"deal": info["final_deal"].copy(), "_deal": terminated.copy()}
                out["_final_info"] = terminated.copy()
            return self._obs(obs), reward, terminated.copy(), truncated.copy(), out

        def _obs(self, obs):
            return obs.copy() if self.copy else obs

        def _info(self, info: dict) -> dict:
            out = {"action_mask": info["action_mask"], "to_act": info["to_act"], "deal": info["deal"],
                   "rewards": self.env._rewards}
            return {k: v.copy() for k, v in out.items()} if self.copy else out

        def action_masks(self) -> np.ndarray:
            """The int8 masks [n, A] of the legal actions (for maskable algorithms)."""
            return self.env._mask.copy()

        def sample(self, rng: np.random.Generator | None = None) -> np.ndarray:
            """Uniformly random legal actions (``BatchEnv.sample``), from ``np_random`` by default."""
            return self.env.sample(self.np_random if rng is None else rng)

        def close_extras(self, **kwargs: Any) -> None:
            self.env.close()

    BatchVectorEnv.__module__ = __name__
    BatchVectorEnv.__qualname__ = "BatchVectorEnv"
    _VECTOR_CLASS.append(BatchVectorEnv)
    return BatchVectorEnv
