"""evolve.serve keeps its tables: a restart or a kill -9 loses no answered action and the
table goes on exactly where it was (same deal, same random streams, same tokens); no live
table is evicted; idle tables expire only after the stated time; jobs resume."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from evolve.bench.serve import ServerProcess, free_port
from evolve.runtime.session import Table
from evolve.server import tables as tables_module
from evolve.server.app import create_app
from evolve.server.policy import Limits

ROOT = Path(__file__).resolve().parent.parent
# search agents (ISMCTS, the search bidder), random play and a champion: every machine seat
# draws from its random stream, so a table rebuilt with its streams reset would play on differently
SEATS = ["human", "ismcts:iterations=30,bidder=search,bid_iterations=20", "random", "champion:spades_markov"]
SPEC = {"game": "spades", "seats": SEATS, "seed": 12, "deals": 2,
        "options": {"bidding": "standard", "partnership": True}}


def tables_of(app):
    return app.extensions["trick_evolve_tables"]


def act(client, table_id, token, view, rng):
    """One random legal action of seat 0 with the view's n_actions; the new view."""
    action = rng.choice(view["legal"])["action"]
    r = client.post(f"/api/tables/{table_id}/action", json={"seat": 0, "action": action,
                                                             "n_actions": view["table"]["n_actions"]},
                    headers={"X-Seat-Token": token})
    assert r.status_code == 200, r.json
    return r.json


def test_a_restart_rebuilds_the_table_exactly(tmp_path):
    """Two servers play the same table with the same human moves; one restarts mid-deal (a
    new app on the same file, nothing kept in memory). Every view and the final log agree."""
    steady = create_app(db=tmp_path / "steady.sqlite3")
    restarted = create_app(db=tmp_path / "restarted.sqlite3")
    a, b = steady.test_client(), restarted.test_client()
    ra, rb = a.post("/api/tables", json=SPEC).json, b.post("/api/tables", json=SPEC).json
    ida, tok_a, va = ra["id"], ra["tokens"]["0"], ra["view"]
    idb, tok_b, vb = rb["id"], rb["tokens"]["0"], rb["view"]
    assert va == vb
    rng_a, rng_b = random.Random(4), random.Random(4)
    steps = 0
    while va["decision"] != "over":
        va, vb = act(a, ida, tok_a, va, rng_a), act(b, idb, tok_b, vb, rng_b)
        steps += 1
        if steps in (3, 9, 17):       # mid-deal: machine seats have drawn from their streams since the deal began
            assert va["decision"] == "card" and va["tricks"]
            tables_of(restarted).close()
            restarted = create_app(db=tmp_path / "restarted.sqlite3")
            b = restarted.test_client()
            assert b.get(f"/api/tables/{idb}?seat=0", headers={"X-Seat-Token": tok_b}).json == vb
        assert va == vb, f"step {steps}"
    assert steps > 17
    log_a, log_b = a.get(f"/api/tables/{ida}/log").json, b.get(f"/api/tables/{idb}/log").json
    assert log_a == log_b and log_a["over"] and len(log_a["results"]) == 2
    # and both are what a plain Table does with these seats and moves (the server adds nothing)
    seats = [s.replace("champion:spades_markov", "champion:populations/spades_markov") for s in SEATS]
    t = Table("spades", seats, 12, deals=2, bidding="standard", partnership=True)
    for k, x in enumerate(log_a["actions"]):
        t.advance()
        if x["seat"] == 0:
            t.act(0, x["action"])
        assert t.actions[k]["action"] == x["action"], k
    for app in (steady, restarted):
        tables_of(app).close()


class Server(ServerProcess):
    """``python -m evolve.serve`` in a child process (``evolve.bench.serve``), with JSON calls."""

    def __init__(self, db: Path, *args: str):
        super().__init__(db, *args, cwd=ROOT)

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.url}{path}", data=data, method=method,
                                     headers={"X-Seat-Token": token} if token else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def test_kill_9_loses_nothing_and_the_job_resumes(tmp_path):
    server = Server(tmp_path / "tables.sqlite3")
    server.start()
    try:
        job_spec = {"game": "jass", "seats": ["random", "jass_rule_based", "random", "random"], "seed": 5,
                    "deals": 300}
        status, job = server.call("POST", "/api/tables", job_spec)
        assert status == 202
        status, r = server.call("POST", "/api/tables", SPEC)
        assert status == 201
        tid, tok, view = r["id"], r["tokens"]["0"], r["view"]
        rng = random.Random(8)
        for _ in range(7):
            action = rng.choice(view["legal"])["action"]
            status, view = server.call("POST", f"/api/tables/{tid}/action",
                                       {"seat": 0, "action": action, "n_actions": view["table"]["n_actions"]}, tok)
            assert status == 200
        while server.call("GET", f"/api/tables/{job['id']}/progress")[1]["deals_done"] < 2:
            time.sleep(0.05)
        server.kill()                      # right after an answered action, with the job running
        server.start()
        status, again = server.call("GET", f"/api/tables/{tid}?seat=0", token=tok)
        assert status == 200 and again == view
        while view["decision"] != "over":
            action = rng.choice(view["legal"])["action"]
            status, view = server.call("POST", f"/api/tables/{tid}/action",
                                       {"seat": 0, "action": action, "n_actions": view["table"]["n_actions"]}, tok)
            assert status == 200
        deadline = time.time() + 120
        while not (p := server.call("GET", f"/api/tables/{job['id']}/progress")[1])["over"]:
            assert time.time() < deadline and not p["error"], p
            time.sleep(0.1)
        status, job_log = server.call("GET", f"/api/tables/{job['id']}/log")
        status, log = server.call("GET", f"/api/tables/{tid}/log")
    finally:
        server.stop()
    # the job, killed mid-run, ends exactly as an uninterrupted run of its seats
    t = Table("jass", job_spec["seats"], 5, deals=300)
    t.advance()
    assert job_log["results"] == t.log()["results"] and len(job_log["results"]) == 300
    # the human table: the moves before and after the kill replay to the same scores
    assert log["over"] and len(log["results"]) == 2
    seats = [s.replace("champion:spades_markov", "champion:populations/spades_markov") for s in SEATS]
    t = Table("spades", seats, 12, deals=2, bidding="standard", partnership=True)
    for x in log["actions"]:
        t.advance()
        if x["seat"] == 0:
            t.act(0, x["action"])
    assert t.log()["results"] == log["results"]


def test_no_live_table_is_evicted_and_a_full_server_refuses(tmp_path, monkeypatch):
    # keep one table in memory: the others are rebuilt from the file whenever they are used
    monkeypatch.setattr(tables_module, "MEMORY_TABLES", 1)
    app = create_app(db=tmp_path / "t.sqlite3", limits=Limits(max_open_tables=3))
    c = app.test_client()
    body = {"game": "euchre", "seats": ["human", "random", "random", "random"], "deals": 1, "dealer": 3}
    made = [c.post("/api/tables", json={**body, "seed": k}).json for k in range(3)]
    r = c.post("/api/tables", json=body)
    assert r.status_code == 429, r.json
    assert "3 unfinished tables" in r.json["error"] and "limit is 3 (--max-open-tables)" in r.json["error"]
    # every table still answers, in any order, and plays on
    rng = random.Random(1)
    for m in reversed(made):
        v = c.get(f"/api/tables/{m['id']}?seat=0", headers={"X-Seat-Token": m["tokens"]["0"]}).json
        assert v == m["view"]
    first = made[0]
    v = first["view"]
    while v["decision"] != "over":
        v = act(c, first["id"], first["tokens"]["0"], v, rng)
    # a finished table makes room (it keeps its log)
    assert c.post("/api/tables", json=body).status_code == 201
    assert c.get(f"/api/tables/{first['id']}/log").json["over"]
    tables_of(app).close()


def test_idle_tables_expire_after_the_stated_time_only(tmp_path):
    app = create_app(db=tmp_path / "t.sqlite3", limits=Limits(idle_timeout=3600, keep_finished=7200))
    c = app.test_client()
    body = {"game": "sueca", "seats": ["human", "random", "random", "random"], "deals": 1}
    idle, busy, done = (c.post("/api/tables", json={**body, "seed": k}).json for k in range(3))
    rng = random.Random(2)
    v = done["view"]
    while v["decision"] != "over":
        v = act(c, done["id"], done["tokens"]["0"], v, rng)
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    now = time.time()
    # idle: untouched for just over an hour; busy: 59 minutes; done: finished 90 minutes ago
    for table_id, age in ((idle["id"], 3601), (busy["id"], 3540), (done["id"], 5400)):
        db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now - age, table_id))
    db.commit()
    assert tables_of(app).expire() == [idle["id"]]
    assert c.get(f"/api/tables/{idle['id']}?seat=0", headers={"X-Seat-Token": idle["tokens"]["0"]}).status_code == 404
    r = c.get(f"/api/tables/{busy['id']}?seat=0", headers={"X-Seat-Token": busy["tokens"]["0"]})
    assert r.status_code == 200 and r.json == busy["view"]
    assert c.get(f"/api/tables/{done['id']}/log").json["over"]
    db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now - 7201, done["id"]))
    db.commit()
    assert tables_of(app).expire() == [done["id"]]
    assert c.get(f"/api/tables/{done['id']}/log").status_code == 404
    tables_of(app).close()


def test_tokens_are_not_stored_or_logged(tmp_path):
    server = Server(tmp_path / "tables.sqlite3")
    server.start()
    try:
        status, r = server.call("POST", "/api/tables", {"game": "jass", "seats": ["human", "random", "random",
                                                                                  "random"], "seed": 1})
        tok = r["tokens"]["0"]
        # the query parameter still works beside the header; neither is written anywhere
        assert server.call("GET", f"/api/tables/{r['id']}?seat=0&token={tok}")[0] == 200
        assert server.call("GET", f"/api/tables/{r['id']}?seat=0&token=wrong")[0] == 403
        assert server.call("GET", f"/api/tables/{r['id']}/hint?seat=0&agent=random", token=tok)[0] == 200
    finally:
        server.stop()
    printed = server.output()
    assert "the table is at" in printed and tok not in printed and "GET /api" not in printed
    for path in tmp_path.iterdir():
        assert tok.encode() not in path.read_bytes(), path


def test_one_server_per_file_and_bad_files_are_one_line(tmp_path):
    server = Server(tmp_path / "tables.sqlite3")
    server.start()
    try:
        p = subprocess.run([sys.executable, "-m", "evolve.serve", "--port", str(free_port()), "--db",
                            str(tmp_path / "tables.sqlite3")], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "in use by another evolve.serve" in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
    finally:
        server.stop()
    p = subprocess.run([sys.executable, "-m", "evolve.serve", "--port", str(free_port()), "--db",
                        "/proc/no/such/tables.sqlite3"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "cannot use /proc/no/such/tables.sqlite3" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    (tmp_path / "notes.txt").write_text("not a database " * 100)
    p = subprocess.run([sys.executable, "-m", "evolve.serve", "--port", str(free_port()), "--db",
                        str(tmp_path / "notes.txt")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "is not a tables database" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_a_game_without_target_plays_max_deals():
    app = create_app(limits=Limits(max_deals=3))
    c = app.test_client()
    r = c.post("/api/tables", json={"game": "jass", "seats": ["random"] * 4, "deals": 0})
    assert r.status_code == 202 and r.json["progress"]["deals"] == 3
    r = c.post("/api/tables", json={"game": "euchre", "seats": ["human"] + ["random"] * 3, "deals": 0})
    assert r.status_code == 201 and r.json["view"]["table"]["max_deals"] == 0      # to the target (10 points)
    r = c.post("/api/tables", json={"game": "euchre", "seats": ["human"] + ["random"] * 3, "deals": 4})
    assert r.status_code == 400 and "deals=4 is too many: this server's limit is 3 (--max-deals)" in r.json["error"]
    tables_of(app).close()
