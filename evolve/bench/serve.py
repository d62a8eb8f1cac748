"""``python -m evolve.bench serve``: the table server under load, killed and restarted.

It starts ``python -m evolve.serve`` on a free loopback port with a fresh tables file (and
``--allow-bots`` for a bot server it starts beside it, ``python -m evolve.bench.serve
--bot PORT``, which answers a random legal action). Then ``clients`` threads play as
people, each at its own table: it creates a table (seat 0 human, the others ``random``;
for ``bot_clients`` of them seat 2 is the remote bot), plays a random legal action of the
view it was answered, and starts a new table when one is over (whole
games: Euchre to 10 points, Sueca to 4, Jass to 1000, Spades 4 deals, since random bids
rarely reach a Spades target). Together the clients offer ``rate`` actions per second:
each acts every ``clients / rate`` seconds (or as soon as its answer comes, when the server
is slower than that; ``rate`` 0: each acts as soon as it is answered). Every action carries
the view's ``n_actions``, so a retry after a lost connection is never taken twice.

At ``kill_at`` of the run the server is killed with SIGKILL and started again on the same
file; the clients retry until it answers. After the run the tables file is read directly:

- lost actions: actions the server answered that the file does not hold where it answered
  them; repeated: human actions in the file the clients did not send (or sent once);
- recovered tables: tables that were open at the kill and answered again after it;
- errors: any answer that is not a success, and any failure to connect outside the kill
  (sent or failed from half a second before the kill to half a second after the restart).

Latency is each answered action's round trip (the time spent waiting for a restarted
server is not in it: that is ``kill.recovery_seconds``).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.core.errors import UsageError
from evolve.games.registry import GAMES

# (game options, deals) where a game's defaults do not make a whole game that random play ends
# soon (see the module docstring); every other game plays its default whole game
TABLES = {"spades": ({"partnership": True, "bidding": "standard"}, 4), "jass": ({"target": 1000}, 0)}
TARGETS = {"actions_per_second": 300.0, "p99_ms": 100.0, "clients": 50}
RECOVERY_SECONDS = 5.0      # after a restart, the clients catch up with their backlog: not the steady state
RETRY_SECONDS = 120.0      # how long a client keeps retrying a request while the server is away
CONNECTION_ERRORS = (ConnectionError, http.client.HTTPException, socket.timeout, OSError)


def free_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m evolve.serve`` in a child process on a free loopback port; its output goes
    to ``log`` (a file, so a server that prints much never blocks on a full pipe)."""

    def __init__(self, db: str | Path, *args: str, log: str | Path | None = None, cwd: str | Path | None = None):
        self.db, self.args, self.port, self.proc = Path(db), list(args), free_port(), None
        self.log = Path(log) if log else self.db.with_suffix(".log")
        self.cwd = cwd

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> float:
        """Start it and wait until it answers; the seconds that took."""
        t0 = time.perf_counter()
        with open(self.log, "a") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "evolve.serve", "--port", str(self.port), "--db",
                                          str(self.db), *self.args], stdout=out, stderr=subprocess.STDOUT,
                                         cwd=self.cwd)
        while time.perf_counter() - t0 < timeout:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return time.perf_counter() - t0
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"evolve.serve exited with {self.proc.returncode}: {self.output()[-2000:]}")
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"evolve.serve did not answer within {timeout:.0f} s")

    def kill(self) -> None:
        """kill -9."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)

    def stop(self) -> None:
        """Stop it as Ctrl-C or a service manager would (SIGTERM)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def cpu_seconds(self) -> float | None:
        """The server process's CPU time so far (Linux ``/proc``; None elsewhere)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def output(self) -> str:
        """What the server printed so far."""
        return self.log.read_text() if self.log.is_file() else ""


# ----------------------------------------------------------------------------- the remote bot


def bot_app(environ, start_response):
    """A remote bot as a plain WSGI app: a random legal action of the decision it is sent."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        legal = json.loads(environ["wsgi.input"].read(length))["legal"]
        body, status = json.dumps({"action": random.choice(legal)}).encode(), "200 OK"
    except (ValueError, KeyError, TypeError, IndexError):
        body, status = b'{"error": "expected {\\"legal\\": [...]}"}', "400 Bad Request"
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def serve_bot(port: int) -> None:
    """Serve ``bot_app`` on loopback ``port`` with waitress until killed."""
    from waitress import serve

    serve(bot_app, host="127.0.0.1", port=port, threads=4, ident="evolve.bench bot")


# ----------------------------------------------------------------------------- the clients


@dataclass
class TableRecord:
    """What a client knows of one of its tables: its acknowledged actions by index."""

    id: str
    game: str
    bot: bool
    acked: dict[int, int] = field(default_factory=dict)
    acked_times: list[float] = field(default_factory=list)
    over: bool = False
    failed: str = ""


class Client(threading.Thread):
    """One person at one table after another (see the module docstring)."""

    def __init__(self, run: "LoadRun", index: int, game: str, bot_url: str | None):
        super().__init__(name=f"client {index}", daemon=True)
        self.run_, self.game, self.bot_url = run, game, bot_url
        self.rng = random.Random(run.seed * 1000 + index)
        self.conn: http.client.HTTPConnection | None = None
        self.latencies: list[float] = []
        self.started: list[float] = []
        self.tables: list[TableRecord] = []
        self.errors: list[str] = []
        # the clients' turns are spread evenly over one interval
        self.next_action = time.perf_counter() + run.interval * self.rng.random()

    def request(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
        """One request, retried on a lost connection until the server answers; its latency
        (of the attempt that was answered) is kept for actions."""
        headers = {"Content-Type": "application/json", **({"X-Seat-Token": token} if token else {})}
        payload = None if body is None else json.dumps(body)
        deadline = time.perf_counter() + RETRY_SECONDS
        while True:
            t0 = time.perf_counter()
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.run_.server.port, timeout=60)
                self.conn.request(method, path, payload, headers)
                r = self.conn.getresponse()
                data = json.loads(r.read() or b"null")
                if path.endswith("/action"):
                    self.latencies.append(time.perf_counter() - t0)
                    self.started.append(t0)
                return r.status, data
            except CONNECTION_ERRORS as err:
                if self.conn is not None:
                    self.conn.close()
                    self.conn = None
                # a request in flight when the server is killed fails after the kill, however
                # long before it was sent (a loaded machine answers slowly): the outage's, retried
                if not (self.run_.in_kill_window(t0) or self.run_.in_kill_window(time.perf_counter())):
                    self.errors.append(f"{method} {path}: {err.__class__.__name__}: {err}")
                if time.perf_counter() > deadline:
                    raise
                time.sleep(0.02)

    def run(self) -> None:
        try:
            while not self.run_.stopping.is_set():
                self.play_table()
        except Exception as err:      # counted, never silent: the report's errors
            self.errors.append(f"{err.__class__.__name__}: {err}")

    def play_table(self) -> None:
        options, deals = TABLES.get(self.game, ({}, 0))
        seats = ["human", "random", self.bot_url or "random", "random"]
        status, r = self.request("POST", "/api/tables", {"game": self.game, "seats": seats, "options": options,
                                                         "deals": deals, "seed": self.rng.randrange(2 ** 31)})
        if status != 201:
            self.errors.append(f"POST /api/tables: {status} {r}")
            time.sleep(max(self.run_.interval, 0.1))
            return
        record = TableRecord(r["id"], self.game, self.bot_url is not None)
        self.tables.append(record)
        token, view = r["tokens"]["0"], r["view"]
        while not self.run_.stopping.is_set():
            self.next_action = max(self.next_action + self.run_.interval, time.perf_counter())
            time.sleep(max(0.0, self.next_action - time.perf_counter()))
            if view["decision"] == "over":
                record.over = True
                return
            if not view["legal"]:
                record.failed = f"no legal action for the human: {view['table']['error']}"
                self.errors.append(record.failed)
                return
            action, at = self.rng.choice(view["legal"])["action"], view["table"]["n_actions"]
            status, answer = self.request("POST", f"/api/tables/{record.id}/action",
                                          {"seat": 0, "action": action, "n_actions": at}, token)
            if status != 200:
                record.failed = f"action at {at}: {status} {answer}"
                self.errors.append(record.failed)
                return
            record.acked[at] = action
            record.acked_times.append(time.perf_counter())
            view = answer


# ----------------------------------------------------------------------------- the run


class LoadRun:
    """One run: the processes, the clients, the kill and the check of the file."""

    def __init__(self, clients: int, bot_clients: int, seconds: float, rate: float, kill_at: float | None,
                 games: tuple[str, ...], threads: int, seed: int, folder: Path):
        self.n_clients, self.bot_clients, self.seconds, self.rate = clients, bot_clients, seconds, rate
        self.interval = clients / rate if rate else 0.0   # seconds between two actions of one client
        self.kill_at, self.games, self.threads, self.seed, self.folder = kill_at, games, threads, seed, folder
        self.stopping = threading.Event()
        self.kill_started: float | None = None
        self.kill_ended: float | None = None
        self.t0 = self.cpu_since = 0.0
        self.server_cpu: float | None = None
        self.db = folder / "tables.sqlite3"
        self.bot_port = free_port()
        populations = folder / "populations"      # no champions needed: an empty folder
        populations.mkdir(exist_ok=True)
        self.server = ServerProcess(self.db, "--populations", str(populations), "--threads", str(threads),
                                    "--allow-bots", f"127.0.0.1:{self.bot_port}", log=folder / "serve.log")
        self.bot: subprocess.Popen | None = None

    def in_kill_window(self, t: float) -> bool:
        """Whether ``t`` falls between the kill and the restarted server's answer."""
        return self.kill_started is not None and t >= self.kill_started - 0.5 and (
            self.kill_ended is None or t <= self.kill_ended + 0.5)

    def warm_up(self) -> None:
        """One table per game before the clock starts (the server loads each game's compiled code once)."""
        warm = Client(self, -1, self.games[0], None)
        for game in self.games:
            warm.game = game
            options, _ = TABLES.get(game, ({}, 0))
            warm.request("POST", "/api/tables", {"game": game, "seats": ["human", "random", "random", "random"],
                                                 "options": options, "deals": 1})

    def execute(self) -> dict:
        """Run it and return the report (see ``bench_serve``)."""
        if self.bot_clients:
            self.bot = subprocess.Popen([sys.executable, "-m", "evolve.bench.serve", "--bot", str(self.bot_port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            first_start = self.server.start()
            self.warm_up()
            bot_url = f"http://127.0.0.1:{self.bot_port}/"
            clients = [Client(self, i, self.games[i % len(self.games)], bot_url if i < self.bot_clients else None)
                       for i in range(self.n_clients)]
            t0 = self.t0 = time.perf_counter()
            cpu_from, self.cpu_since = self.server.cpu_seconds(), t0
            for c in clients:
                c.start()
            restart_seconds = None
            if self.kill_at is not None:
                time.sleep(max(0.0, t0 + self.seconds * self.kill_at - time.perf_counter()))
                self.kill_started = time.perf_counter()
                self.server.kill()
                restart_seconds = self.server.start()
                self.kill_ended = time.perf_counter()
                cpu_from, self.cpu_since = self.server.cpu_seconds(), self.kill_ended
            time.sleep(max(0.0, t0 + self.seconds - time.perf_counter()))
            self.stopping.set()
            for c in clients:
                c.join(timeout=RETRY_SECONDS + 60)
            elapsed = time.perf_counter() - t0
            cpu_to = self.server.cpu_seconds()
            self.server_cpu = None if cpu_from is None or cpu_to is None else cpu_to - cpu_from
        finally:
            self.server.stop()
            if self.bot is not None:
                self.bot.send_signal(signal.SIGTERM)
                self.bot.wait(timeout=30)
        return self.report(clients, elapsed, first_start, restart_seconds)

    def stored(self, tables: list[TableRecord]) -> dict[str, list[tuple[int, int]]]:
        """Every client table's actions as the file holds them (the server is stopped)."""
        from evolve.server.store import Store

        store = Store(self.db)
        try:
            return {t.id: store.all_actions(t.id) for t in tables}
        finally:
            store.close()

    def report(self, clients: list[Client], elapsed: float, first_start: float, restart_seconds: float | None) -> dict:
        tables = [t for c in clients for t in c.tables]
        stored = self.stored(tables)
        lost = repeated = bot_decisions = machine = 0
        for t in tables:
            human = {k: a for k, (s, a) in enumerate(stored[t.id]) if s == 0}
            lost += sum(1 for k, a in t.acked.items() if human.get(k) != a)
            repeated += sum(1 for k in human if k not in t.acked)
            bot_decisions += sum(1 for s, _ in stored[t.id] if s == 2) if t.bot else 0
            machine += sum(1 for s, _ in stored[t.id] if s != 0)
        lat = np.array([x for c in clients for x in c.latencies]) * 1000
        started = np.array([x for c in clients for x in c.started])
        acked = sum(len(t.acked) for t in tables)
        # the server's CPU per answered action, over the part of the run its last process served
        served = sum(1 for t in tables for x in t.acked_times if x > self.cpu_since)
        cpu_ms = round(self.server_cpu / served * 1000, 3) if self.server_cpu is not None and served else None
        kill = None
        if self.kill_started is not None:
            open_at_kill = [t for t in tables if t.acked_times and t.acked_times[0] < self.kill_started
                            and not (t.over and t.acked_times[-1] < self.kill_started)]
            recovered = [t for t in open_at_kill if t.acked_times[-1] > self.kill_ended and not t.failed]
            after = [min((x for x in t.acked_times if x > self.kill_ended), default=None) for t in open_at_kill]
            answered = [x for x in after if x is not None]
            kill = {"at_seconds": round(self.kill_started - self.t0, 2), "restart_seconds": round(restart_seconds, 3),
                "tables_open": len(open_at_kill), "tables_recovered": len(recovered),
                "recovery_seconds": round(max(answered) - self.kill_started, 3) if answered else None}
        # the steady state: the run but for the kill window, from the kill until 5 s after the
        # restart (the outage itself and the clients' catching up with their backlog)
        window = (0.0, 0.0) if kill is None else (self.kill_started, self.kill_ended + RECOVERY_SECONDS)
        steady = (started < window[0]) | (started > window[1])
        outside = lat[steady]
        steady_seconds = elapsed - (min(window[1], self.t0 + elapsed) - window[0])
        res = {
            "bench": "serve", "clients": self.n_clients, "bot_clients": self.bot_clients, "games": list(self.games),
            "seconds": round(elapsed, 2), "offered_rate": self.rate, "threads": self.threads,
            "actions": acked, "actions_per_second": round(acked / elapsed, 1),
            "steady_actions_per_second": round(int(steady.sum()) / steady_seconds, 1),
            "table_actions_per_second": round((acked + machine) / elapsed, 1), "bot_decisions": bot_decisions,
            "server_cpu_ms_per_action": cpu_ms,
            "latency_ms": _percentiles(lat), "latency_ms_outside_restart": _percentiles(outside),
            "errors": sum(len(c.errors) for c in clients), "error_samples": [e for c in clients for e in c.errors][:5],
            "lost_actions": lost, "repeated_actions": repeated,
            "tables": {"created": len(tables), "finished": sum(t.over for t in tables)},
            "server_start_seconds": round(first_start, 3), "kill": kill, "load_average": list(os.getloadavg()),
        }
        res["targets"] = _targets(res)
        return res


def _percentiles(ms: np.ndarray) -> dict:
    if not len(ms):
        return {"p50": None, "p99": None, "max": None}
    return {"p50": round(float(np.percentile(ms, 50)), 2), "p99": round(float(np.percentile(ms, 99)), 2),
            "max": round(float(ms.max()), 2)}


def _targets(res: dict) -> dict:
    """The issue's targets (they apply to a run of at least 50 clients) and whether each holds:
    throughput and p99 in the steady state (outside the kill window, which the recovery
    figures cover), errors, lost or repeated actions and recovery over the whole run."""
    kill = res["kill"]
    steady = res["latency_ms_outside_restart"]["p99"]
    checks = {
        "actions_per_second >= 300": res["steady_actions_per_second"] >= TARGETS["actions_per_second"],
        "p99 <= 100 ms": steady is not None and steady <= TARGETS["p99_ms"],
        "0 errors": res["errors"] == 0,
        "0 lost or repeated actions": res["lost_actions"] == 0 and res["repeated_actions"] == 0,
        "every table recovered after the kill": kill is None or kill["tables_recovered"] == kill["tables_open"],
    }
    return {"applies": res["clients"] >= TARGETS["clients"], "checks": checks, "pass": all(checks.values())}


def bench_serve(clients: int = 50, bot_clients: int = 10, seconds: float = 30.0, rate: float = 330.0,
                kill_at: float | None = 0.5, games: tuple[str, ...] = GAMES, threads: int = 8, seed: int = 0,
                folder: str | Path | None = None) -> dict:
    """Run the load test (see the module docstring) and return its report: actions per
    second, latency percentiles, errors, lost and repeated actions, the kill's recovery."""
    if bot_clients > clients:
        raise UsageError(f"--bots {bot_clients} is more than --clients {clients}")
    if kill_at is not None and not 0 < kill_at < 1:
        raise UsageError(f"--kill-at {kill_at} is invalid; expected a fraction of the run between 0 and 1")
    with tempfile.TemporaryDirectory(prefix="evolve-bench-serve-") as tmp:
        run = LoadRun(clients, bot_clients, seconds, rate, kill_at, tuple(games), threads, seed,
                      Path(folder) if folder else Path(tmp))
        return run.execute()


def format_serve(res: dict) -> str:
    """The report printed by ``python -m evolve.bench serve``."""
    lat, out = res["latency_ms"], res["latency_ms_outside_restart"]
    lines = [
        f"evolve.bench serve  ({res['clients']} people at their own tables, {res['bot_clients']} of them with a "
        f"remote bot; offered {res['offered_rate'] or 'as many'} actions/s; {res['seconds']:.1f} s; "
        f"server threads {res['threads']})",
        f"  actions answered   {res['actions']:,} = {res['actions_per_second']:,.1f} actions/s over the run, "
        f"{res['steady_actions_per_second']:,.1f}/s in the steady state "
        f"({res['table_actions_per_second']:,.1f}/s with the machine seats' moves; {res['bot_decisions']:,} remote "
        "bot decisions)",
        f"  latency            steady state p50 {out['p50']} ms, p99 {out['p99']} ms, max {out['max']} ms; "
        f"over the run p99 {lat['p99']} ms, max {lat['max']} ms",
        f"  errors             {res['errors']}" + (f"  e.g. {res['error_samples'][0]}" if res["errors"] else ""),
        f"  lost / repeated    {res['lost_actions']} / {res['repeated_actions']}",
        f"  server CPU         {res['server_cpu_ms_per_action']} ms per answered action (its moves and the "
        "machines' included)",
        f"  tables             {res['tables']['created']} created, {res['tables']['finished']} finished",
    ]
    kill = res["kill"]
    if kill:
        lines.append(f"  kill -9 at {kill['at_seconds']} s  restarted in {kill['restart_seconds']} s; "
                     f"{kill['tables_recovered']} of {kill['tables_open']} open tables answered again, the last "
                     f"{kill['recovery_seconds']} s after the kill")
    t = res["targets"]
    verdict = ("PASS" if t["pass"] else "MISS") if t["applies"] else f"(targets apply to >= {TARGETS['clients']} "\
                                                                       "clients)"
    lines.append(f"  targets            {verdict}: " + ", ".join(f"{k} {'yes' if v else 'no'}"
                                                              for k, v in t["checks"].items()))
    lines.append(f"  load average       {', '.join(f'{x:.2f}' for x in res['load_average'])} (this machine, "
                 "other work included)")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bot"] and len(sys.argv) == 3:
        serve_bot(int(sys.argv[2]))
    else:
        sys.exit("usage: python -m evolve.bench.serve --bot PORT (the load bench's remote bot)")
