"""The server's tables on disk: one SQLite file (the standard library's ``sqlite3``).

SQLite because a table server on one machine needs transactions that survive a crash, not
a database server to run beside it: WAL mode with ``synchronous=FULL`` makes every commit
durable before the request that made it is answered (a kill -9 or a power cut loses no
answered action), and a commit costs about 0.2 ms here.

A table is stored as what rebuilds it deterministically, never as a pickle:

- ``tables``: the creation request (game, options, seats as the client wrote them, seed,
  deals, dealer) as JSON, the SHA-256 of each human seat's token (a stolen file holds no
  token), the number of actions taken, the last remote bot error, the machine seats'
  random streams as they are after the last action (an agent draws from them, so with
  the actions they are its whole state), the times it was created and last used, and
  once it is over its log (JSON), which then stands for its actions;
- ``actions``: each action of an unfinished table, ``(table, index, seat, action)``.

Rebuilding a table replays its actions on a fresh ``Table`` and sets the streams back
(``evolve.server.tables``). One process owns a file at a time (``flock`` on
``FILE.lock``), so two servers never interleave their writes.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    token_hashes TEXT NOT NULL,
    machine_only INTEGER NOT NULL,
    created REAL NOT NULL,
    touched REAL NOT NULL,
    n_actions INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    error TEXT NOT NULL DEFAULT '',
    streams TEXT,
    log TEXT
);
CREATE INDEX IF NOT EXISTS tables_by_state ON tables (over, touched);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (table_id, idx)
) WITHOUT ROWID;
"""


class StoreError(RuntimeError):
    """The file cannot be used (another server owns it, another schema, not SQLite)."""


class Conflict(RuntimeError):
    """A save found the table's row changed or gone (expired or saved by another holder)."""


def token_hash(token: str) -> str:
    """What the store keeps of a seat token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Row:
    """A stored table: its creation spec, token hashes and state (see the module docstring)."""

    id: str
    spec: dict
    token_hashes: dict[int, str]
    machine_only: bool
    created: float
    touched: float
    n_actions: int
    over: bool
    error: str
    streams: list | None
    log: dict | None
    actions: list[tuple[int, int]]


class _Write:
    """A write waiting for a group commit, then its result or error."""

    def __init__(self, work):
        self.work, self.result, self.error, self.done = work, None, None, False


class Store:
    """One SQLite file of tables; every method is one transaction (thread-safe: one
    connection behind a lock, since SQLite writes one transaction at a time anyway)."""

    def __init__(self, path: str | Path = ":memory:"):
        self.path = str(path)
        self._lock = threading.Lock()          # the connection: one transaction at a time
        self._queue_lock = threading.Lock()
        self._queue: list[_Write] = []          # writes waiting for the next group commit
        self._lock_file = None
        if self.path != ":memory:":
            self._own(Path(self.path))
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreError(f"{self.path} holds tables of schema {version}; this server reads schema "
                                 f"{SCHEMA_VERSION}")
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as err:
            self.close()
            raise StoreError(f"{self.path} is not a tables database: {err}") from None

    def _own(self, path: Path) -> None:
        """Hold ``FILE.lock`` for this process's life (the OS drops it on any exit, kill -9 too)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._lock_file = open(f"{path}.lock", "a")
        except OSError as err:
            raise StoreError(f"cannot use {path}: {err.strerror or err}") from None
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            self._lock_file = None
            raise StoreError(f"{path} is in use by another evolve.serve (it holds {path}.lock)") from None

    def close(self) -> None:
        """Close the file and let another process own it."""
        db = getattr(self, "db", None)
        if db is not None:
            with self._lock:
                db.close()
            self.db = None
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def _transaction(self, work) -> Any:
        """``work(db)`` in a transaction of its own."""
        with self._lock:
            if self.db is None:
                raise StoreError("the tables database is closed")
            self.db.execute("BEGIN IMMEDIATE")
            try:
                out = work(self.db)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            return out

    def _grouped(self, work) -> Any:
        """``work(db)`` committed (durably: an fsync) before this returns, in one transaction
        with the writes of the other requests that wait meanwhile: group commit, so that
        many tables' actions share an fsync. Each write runs in a savepoint of its own, so
        one that fails (a Conflict) leaves the others' standing."""
        item = _Write(work)
        with self._queue_lock:
            self._queue.append(item)
        with self._lock:           # whoever holds the lock commits every write queued so far
            if not item.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit(batch)
        if item.error is not None:
            raise item.error
        return item.result

    def _commit(self, batch: list["_Write"]) -> None:
        try:
            if self.db is None:
                raise StoreError("the tables database is closed")
            self.db.execute("BEGIN IMMEDIATE")
            for item in batch:
                self.db.execute("SAVEPOINT one_write")
                try:
                    item.result = item.work(self.db)
                    self.db.execute("RELEASE one_write")
                except Exception as err:
                    self.db.execute("ROLLBACK TO one_write")
                    self.db.execute("RELEASE one_write")
                    item.error = err
            self.db.execute("COMMIT")
        except Exception as err:            # the commit failed (disk full, I/O error): none of it stands
            if self.db is not None and self.db.in_transaction:
                self.db.execute("ROLLBACK")
            for item in batch:
                item.error = err
        finally:
            for item in batch:
                item.done = True

    # ------------------------------------------------------------------ writes

    def create(self, table_id: str, spec: dict, token_hashes: dict[int, str], machine_only: bool,
               max_open: int, now: float | None = None) -> bool:
        """Insert a new table unless ``max_open`` unfinished tables exist (then False)."""
        now = time.time() if now is None else now

        def work(db):
            (open_tables,) = db.execute("SELECT count(*) FROM tables WHERE over = 0").fetchone()
            if open_tables >= max_open:
                return False
            db.execute("INSERT INTO tables (id, spec, token_hashes, machine_only, created, touched) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (table_id, json.dumps(spec), json.dumps(token_hashes), int(machine_only), now, now))
            return True

        return self._grouped(work)

    def save(self, table_id: str, since: int, actions: list[tuple[int, int]], *, error: str, streams: list | None,
             log: dict | None, now: float | None = None) -> None:
        """Append ``actions`` (taken after the first ``since``) and the table's new state in
        one transaction; ``log`` (a finished table's) replaces its action rows. Conflict if
        the stored table does not have exactly ``since`` actions."""
        now = time.time() if now is None else now
        n_actions = since + len(actions)

        def work(db):
            cur = db.execute("UPDATE tables SET n_actions = ?, over = ?, error = ?, streams = ?, log = ?, touched = ? "
                             "WHERE id = ? AND n_actions = ? AND over = 0",
                             (n_actions, int(log is not None), error, None if streams is None else json.dumps(streams),
                              None if log is None else json.dumps(log), now, table_id, since))
            if cur.rowcount != 1:
                raise Conflict(f"table {table_id} changed or expired while it was played")
            if log is not None:
                db.execute("DELETE FROM actions WHERE table_id = ?", (table_id,))
            else:
                db.executemany("INSERT INTO actions (table_id, idx, seat, action) VALUES (?, ?, ?, ?)",
                               [(table_id, since + k, seat, action) for k, (seat, action) in enumerate(actions)])

        self._grouped(work)

    def touch(self, table_id: str, now: float | None = None) -> None:
        """Mark a table as used now (it is not idle)."""
        now = time.time() if now is None else now
        self._grouped(lambda db: db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now, table_id)))

    def expire(self, idle_timeout: float, keep_finished: float, now: float | None = None) -> list[str]:
        """Delete the unfinished tables idle for ``idle_timeout`` seconds and the finished
        ones unused for ``keep_finished``; return their ids."""
        now = time.time() if now is None else now

        def work(db):
            ids = [r[0] for r in db.execute(
                "SELECT id FROM tables WHERE (over = 0 AND touched < ?) OR (over = 1 AND touched < ?)",
                (now - idle_timeout, now - keep_finished))]
            for chunk in range(0, len(ids), 500):
                part = ids[chunk:chunk + 500]
                marks = ",".join("?" * len(part))
                db.execute(f"DELETE FROM actions WHERE table_id IN ({marks})", part)
                db.execute(f"DELETE FROM tables WHERE id IN ({marks})", part)
            return ids

        return self._transaction(work)

    # ------------------------------------------------------------------ reads

    def load(self, table_id: str) -> Row | None:
        """The stored table ``table_id`` with its actions (None if there is none)."""

        def work(db):
            r = db.execute("SELECT id, spec, token_hashes, machine_only, created, touched, n_actions, over, error, "
                           "streams, log FROM tables WHERE id = ?", (table_id,)).fetchone()
            if r is None:
                return None
            actions = db.execute("SELECT seat, action FROM actions WHERE table_id = ? ORDER BY idx",
                                 (table_id,)).fetchall()
            return Row(r[0], json.loads(r[1]), {int(k): v for k, v in json.loads(r[2]).items()}, bool(r[3]), r[4],
                       r[5], r[6], bool(r[7]), r[8], None if r[9] is None else json.loads(r[9]),
                       None if r[10] is None else json.loads(r[10]), [(int(s), int(a)) for s, a in actions])

        return self._transaction(work)

    def log(self, table_id: str) -> dict | None:
        """A finished table's log (None if the table is unknown or not over)."""
        r = self._transaction(lambda db: db.execute("SELECT log FROM tables WHERE id = ?", (table_id,)).fetchone())
        return None if r is None or r[0] is None else json.loads(r[0])

    def pending_jobs(self) -> list[str]:
        """Unfinished machine-only tables with no bot error: the jobs to run (again) after a start."""
        rows = self._transaction(lambda db: db.execute(
            "SELECT id FROM tables WHERE machine_only = 1 AND over = 0 AND error = '' ORDER BY created").fetchall())
        return [r[0] for r in rows]

    def recent_open(self, limit: int) -> list[str]:
        """The ``limit`` unfinished tables used last, most recent first."""
        rows = self._transaction(lambda db: db.execute(
            "SELECT id FROM tables WHERE over = 0 ORDER BY touched DESC LIMIT ?", (limit,)).fetchall())
        return [r[0] for r in rows]

    def counts(self) -> dict[str, int]:
        """How many tables are stored: open (unfinished) and finished."""
        rows = self._transaction(lambda db: db.execute("SELECT over, count(*) FROM tables GROUP BY over").fetchall())
        by = dict(rows)
        return {"open": by.get(0, 0), "finished": by.get(1, 0)}

    def all_actions(self, table_id: str) -> list[tuple[int, int]]:
        """Every action of a table, stored rows or its final log's (for checks such as the load bench)."""
        row = self.load(table_id)
        if row is None:
            return []
        if row.log is not None:
            return [(int(a["seat"]), int(a["action"])) for a in row.log["actions"]]
        return row.actions

    def ids(self) -> list[str]:
        """Every stored table's id."""
        return [r[0] for r in self._transaction(lambda db: db.execute("SELECT id FROM tables").fetchall())]

