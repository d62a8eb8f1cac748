"""The server's tables: live ``Table`` objects in memory over their durable copy in the store.

The store (``evolve.server.store``) is the truth; memory is a cache of up to
``MEMORY_TABLES`` tables, and a table that is not in it is rebuilt from the store when it is
next used (after a restart, a kill -9, or when the cache let it go). A request holds a
table with ``Tables.use(id)`` (its lock, so one request at a time acts on a table); after
it changed the table it calls ``Tables.save`` before it answers, and if anything fails
before the commit the table is dropped from memory, so the next request sees exactly what
was committed.

Rebuilding (``Tables.rebuild``) makes the seats again from the stored creation request
(with this server's current policy: champions by name, bots on allowed hosts), replays the
stored actions on a fresh ``Table`` (each one checked by the rules as it was the first
time) and sets each agent's random streams back to the stored ones, so the next machine
move is the one the table would have made had it never stopped. A finished table is
replayed from its log, with no agent.

Machine-only tables are jobs (``Jobs``): a thread plays them a slice at a time, committing
after each slice, so no request waits for them and a restart resumes them.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from evolve.core.errors import UsageError
from evolve.games.registry import make_game
from evolve.runtime.session import BotError, Table, replay
from evolve.server.policy import ApiError, Policy
from evolve.server.store import Conflict, Store, token_hash

MEMORY_TABLES = 512       # live tables kept in memory; more are rebuilt from the store on use
TOUCH_EVERY = 60.0        # seconds between two writes of a table's last-use time (reads only)
JOB_SLICE_SECONDS = 0.2   # a job plays this long, commits, and lets the next job have its turn
EXPIRE_EVERY = 60.0       # seconds between two sweeps for idle tables


class Entry:
    """A live table, its human seats' token hashes and the lock its requests take in turn."""

    def __init__(self, table_id: str, table: Table, token_hashes: dict[int, str], machine_only: bool,
                 touched: float):
        self.id = table_id
        self.table = table
        self.token_hashes = token_hashes
        self.machine_only = machine_only
        self.touched = touched
        self.lock = threading.Lock()
        self.users = 0             # requests holding or waiting for it: never let go from memory then
        self.saved = len(table.actions)       # actions and error as committed to the store
        self.saved_error = table.error
        self.dropped = False       # differs from the store: the next request rebuilds it

    def check_token(self, seat: int, token: Any) -> None:
        """ApiError 403 unless ``token`` is the token of human seat ``seat`` (constant time)."""
        if seat not in self.token_hashes:
            raise ApiError(403, f"seat {seat} is not a human seat of this table")
        if not isinstance(token, str) or not secrets.compare_digest(token_hash(token), self.token_hashes[seat]):
            raise ApiError(403, f"seat {seat} is not yours: a missing or wrong token")

    def streams(self) -> list:
        """The machine seats' random streams as JSON (None for humans and remote bots)."""
        return [None if p.streams is None else [int(x) for x in p.streams] for p in self.table.players]


class Tables:
    """The tables of one server (see the module docstring)."""

    def __init__(self, store: Store, policy: Policy):
        self.store = store
        self.policy = policy
        self.memory: OrderedDict[str, Entry] = OrderedDict()
        self.loading: dict[str, threading.Lock] = {}
        self.lock = threading.Lock()
        self.jobs = Jobs(self)

    # ------------------------------------------------------------------ building

    def build(self, spec: dict) -> Table:
        """A fresh table from a creation request (ApiError 400 if this server refuses a seat)."""
        try:
            game = make_game(spec["game"], **spec["options"])
        except UsageError as err:
            raise ApiError(400, str(err)) from None
        players = [self.policy.player(s, game) for s in spec["seats"]]
        try:
            return Table(game, players, spec["seed"], deals=spec["deals"], dealer=spec["dealer"])
        except UsageError as err:
            raise ApiError(400, str(err)) from None

    def create(self, spec: dict) -> tuple[Entry, dict[int, str]]:
        """A new table (stored before it is answered) and its human seats' tokens; the
        machines play until a human must decide, or a job plays a machine-only table.
        ApiError 429 when the server already has its limit of unfinished tables."""
        limits = self.policy.limits
        if self.store.counts()["open"] >= limits.max_open_tables:    # before any work; checked again on insert
            raise self._full()
        try:
            spec = {**spec, "deals": self.policy.deals(spec["deals"], make_game(spec["game"], **spec["options"]))}
        except UsageError as err:
            raise ApiError(400, str(err)) from None
        table = self.build(spec)
        tokens = {s: secrets.token_urlsafe(16) for s, p in enumerate(table.players) if p.human}
        entry = Entry(secrets.token_hex(8), table, {s: token_hash(t) for s, t in tokens.items()}, not tokens,
                      time.time())
        if not self.store.create(entry.id, spec, entry.token_hashes, entry.machine_only, limits.max_open_tables):
            raise self._full()
        self._keep(entry)
        try:
            with entry.lock:
                if entry.machine_only:
                    self.jobs.submit(entry.id)
                else:
                    self.advance_and_save(entry)
        finally:
            self._release(entry)
        return entry, tokens

    def _full(self) -> ApiError:
        return self.policy.refuse(f"the server has {self.store.counts()['open']} unfinished tables, no room for "
                                  f"another; tables idle for {self.policy.limits.shown('idle_timeout')} "
                                  "(--idle-timeout) are deleted", "max_open_tables", status=429)

    def rebuild(self, table_id: str) -> Entry | None:
        """The table ``table_id`` rebuilt from the store (None if it is not there)."""
        row = self.store.load(table_id)
        if row is None:
            return None
        if row.over:
            table = replay(row.log)        # no agent: a finished table only shows what happened
        else:
            try:
                table = self.build(row.spec)
            except ApiError as err:
                raise ApiError(409, f"table {table_id} cannot be rebuilt on this server: {err}") from None
            for k, (seat, action) in enumerate(row.actions):
                try:
                    table.act(seat, action)
                except (ValueError, TypeError) as err:   # a table error: the file does not match the rules
                    raise ApiError(500, f"table {table_id}: stored action {k} does not replay ({err})") from None
            for player, saved in zip(table.players, row.streams or [None] * 4):
                if player.streams is not None and saved is not None:
                    player.streams[:] = np.array([int(x) for x in saved], dtype=np.uint64)
            table.error = row.error
        return Entry(table_id, table, row.token_hashes, row.machine_only, row.touched)

    # ------------------------------------------------------------------ holding a table

    @contextmanager
    def use(self, table_id: str) -> Iterator[Entry]:
        """Hold the table ``table_id`` (rebuilt from the store if it is not in memory) with
        its lock; ApiError 404 if there is none. A table whose machines still owe moves
        (a crash came between its creation and its first commit) plays them first."""
        while True:
            entry = self._acquire(table_id)
            try:
                with entry.lock:
                    if entry.dropped:      # dropped while this request waited: rebuild it from the store
                        continue
                    t = entry.table
                    if not (entry.machine_only or t.over or t.error or t.players[t.to_act].human):
                        self.advance_and_save(entry)
                    yield entry
                    return
            finally:
                self._release(entry)

    def _acquire(self, table_id: str) -> Entry:
        """The entry of ``table_id``, counted as in use (so it stays in memory)."""
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 64:
            raise ApiError(404, "unknown table")
        with self.lock:
            entry = self.memory.get(table_id)
            if entry is not None:
                entry.users += 1
                self.memory.move_to_end(table_id)
                return entry
            loader = self.loading.setdefault(table_id, threading.Lock())
        with loader:                      # one thread rebuilds a table; the others wait for it
            with self.lock:
                entry = self.memory.get(table_id)
                if entry is not None:
                    entry.users += 1
                    return entry
            try:
                entry = self.rebuild(table_id)
            finally:
                with self.lock:
                    self.loading.pop(table_id, None)
            if entry is None:
                raise ApiError(404, f"unknown table {table_id!r}")
            self._keep(entry)
        if entry.machine_only and not entry.table.over and not entry.table.error:
            self.jobs.submit(table_id)
        return entry

    def _keep(self, entry: Entry) -> None:
        """Put a new entry in memory, counted as in use."""
        with self.lock:
            entry.users += 1
            self.memory[entry.id] = entry

    def _release(self, entry: Entry) -> None:
        with self.lock:
            entry.users -= 1
            if len(self.memory) > MEMORY_TABLES:      # let the least recently used idle tables go
                idle = [k for k, e in self.memory.items() if e.users == 0]
                for table_id in idle[:len(self.memory) - MEMORY_TABLES]:
                    del self.memory[table_id]

    def forget(self, entry: Entry) -> None:
        """Drop a table from memory, for good: it differs from the store (a change that
        was not committed), so its next use rebuilds it from the store."""
        with self.lock:
            entry.dropped = True
            if self.memory.get(entry.id) is entry:
                del self.memory[entry.id]

    # ------------------------------------------------------------------ changing a table

    def save(self, entry: Entry) -> None:
        """Commit what ``entry``'s table did since its last save (before the request answers)."""
        t = entry.table
        actions = [(a["seat"], a["action"]) for a in t.actions[entry.saved:]]
        try:
            self.store.save(entry.id, entry.saved, actions, error=t.error,
                            streams=None if t.over else entry.streams(), log=t.log() if t.over else None)
        except Conflict as err:
            self.forget(entry)
            raise ApiError(410, str(err)) from None
        except BaseException:
            self.forget(entry)
            raise
        entry.saved, entry.saved_error, entry.touched = len(t.actions), t.error, time.time()

    @contextmanager
    def changing(self, entry: Entry) -> Iterator[Table]:
        """Change ``entry``'s table, then commit the change; if anything fails before the
        commit, the table is dropped from memory, so the store's copy stands."""
        try:
            yield entry.table
        except BaseException:
            if len(entry.table.actions) != entry.saved or entry.table.error != entry.saved_error:
                self.forget(entry)
            raise
        if len(entry.table.actions) != entry.saved or entry.table.error != entry.saved_error:
            self.save(entry)

    def advance_and_save(self, entry: Entry) -> None:
        """Let the machine seats play until a human must decide, and commit. A remote bot's
        failure is kept as the table's ``error`` (the table waits for ``/advance``)."""
        with self.changing(entry) as table:
            try:
                table.advance()
            except BotError:
                pass               # table.error says which bot failed; what was played before it is kept

    def touch(self, entry: Entry) -> None:
        """Record that a table was used (at most every ``TOUCH_EVERY`` seconds)."""
        now = time.time()
        if now - entry.touched >= TOUCH_EVERY:
            self.store.touch(entry.id, now)
            entry.touched = now

    def expire(self) -> list[str]:
        """Delete the idle tables (``--idle-timeout``, ``--keep-finished``) from the store and memory."""
        limits = self.policy.limits
        gone = self.store.expire(limits.idle_timeout, limits.keep_finished)
        with self.lock:
            for table_id in gone:
                entry = self.memory.get(table_id)
                if entry is not None:
                    entry.dropped = True
                    del self.memory[table_id]
        return gone

    def progress(self, entry: Entry) -> dict:
        """How far a table is: deals finished of how many, actions, over, error, queued as a job."""
        t = entry.table
        return {"over": t.over, "deals_done": len(t.results), "deals": t.max_deals, "n_actions": len(t.actions),
                "error": t.error, "job": entry.machine_only and not t.over and not t.error,
                "winner": t.winner}

    def preload(self) -> int:
        """Rebuild the unfinished tables used last (as many as memory keeps) before the server
        takes requests, so the first ones after a restart need not wait for a rebuild; the
        number rebuilt. A table that cannot be rebuilt is left for its next request to report."""
        done = 0
        for table_id in self.store.recent_open(MEMORY_TABLES):
            try:
                with self.use(table_id):
                    done += 1
            except ApiError:
                pass
        return done

    def start(self) -> None:
        """Resume the stored jobs and start the job thread (the server calls this once)."""
        for table_id in self.store.pending_jobs():
            self.jobs.submit(table_id)
        self.jobs.start()

    def close(self) -> None:
        """Stop the job thread and close the store."""
        self.jobs.stop()
        self.store.close()


def warm_up() -> None:
    """Load the compiled code every table needs (the rules of each game and the random agent)
    before the first request, which would otherwise wait for it (about 0.4 s here)."""
    from evolve.games.registry import GAMES

    for game in GAMES:
        table = Table(game, ["random"] * 4, 0, deals=1)
        table.advance(limit=8)


class Jobs:
    """Machine-only tables played off the request path, a slice of ``JOB_SLICE_SECONDS`` at a
    time each in turn, committed after each slice; it also sweeps idle tables away."""

    def __init__(self, tables: Tables):
        self.tables = tables
        self.queue: deque[str] = deque()
        self.queued: set[str] = set()
        self.wake = threading.Condition()
        self.thread: threading.Thread | None = None
        self.stopping = False

    def submit(self, table_id: str) -> None:
        """Queue a machine-only table (once) to be played to its end."""
        with self.wake:
            if table_id not in self.queued:
                self.queued.add(table_id)
                self.queue.append(table_id)
                self.wake.notify()

    def start(self) -> None:
        """Start the job thread."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="evolve.serve jobs", daemon=True)
            self.thread.start()

    def stop(self) -> None:
        """Stop the job thread after its current slice."""
        with self.wake:
            self.stopping = True
            self.wake.notify()
        if self.thread is not None:
            self.thread.join(timeout=10)

    def _run(self) -> None:
        next_sweep = 0.0
        while True:
            with self.wake:
                while not self.queue and not self.stopping and time.time() < next_sweep:
                    self.wake.wait(timeout=max(0.0, next_sweep - time.time()))
                if self.stopping:
                    return
                table_id = self.queue.popleft() if self.queue else None
            if time.time() >= next_sweep:
                self._sweep()
                next_sweep = time.time() + EXPIRE_EVERY
            if table_id is not None:
                self._slice(table_id)

    def _sweep(self) -> None:
        try:
            self.tables.expire()
        except Exception as err:      # a sweep that fails is tried again at the next one
            print(f"evolve.serve: expiring idle tables failed: {err}", flush=True)

    def _slice(self, table_id: str) -> None:
        done = True
        try:
            with self.tables.use(table_id) as entry, self.tables.changing(entry) as table:
                deadline = time.perf_counter() + JOB_SLICE_SECONDS
                try:
                    while not table.over and time.perf_counter() < deadline:
                        table.advance(limit=16)
                except BotError:
                    pass           # kept as the table's error; POST /advance queues it again
                done = table.over or bool(table.error)
        except ApiError:
            pass                   # gone (expired) or cannot be rebuilt: nothing to play
        except Exception as err:   # an agent failed: keep the server serving; the table waits
            print(f"evolve.serve: job {table_id} stopped: {err.__class__.__name__}: {err}", flush=True)
        with self.wake:
            if done:
                self.queued.discard(table_id)
            else:
                self.queue.append(table_id)
