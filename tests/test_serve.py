"""evolve.serve: the JSON API with Flask's test client, a remote bot over real HTTP, and
4xx JSON errors that never break a table."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from evolve.games.registry import GAMES
from evolve.server.app import create_app
from evolve.server.policy import Limits


@pytest.fixture(scope="module")
def client():
    app = create_app()
    yield app.test_client()
    app.extensions["trick_evolve_tables"].close()


def wait_over(client, table_id, seconds=60):
    """Poll a machine-only table (a job) until it is over; its last progress."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        p = client.get(f"/api/tables/{table_id}/progress").json
        if p["over"] or p["error"]:
            return p
        time.sleep(0.05)
    raise AssertionError(f"table {table_id} did not finish in {seconds} s: {p}")


def new_table(client, game="jass", seats=("human", "random", "random", "random"), **kw):
    r = client.post("/api/tables", json={"game": game, "seats": list(seats), "seed": 5, "deals": 1, **kw})
    assert r.status_code == 201, r.json
    return r.json


def test_agents_lists_registered_agents_and_champions(client):
    d = client.get("/api/agents").json
    names = {a["name"] for a in d["agents"]}
    assert {"random", "highlow", "jass_rule_based", "ismcts"} <= names
    # champions by name: a client never sees (or names) a server path
    assert any(c["seat"] == "champion:jass_markov" and c["game"] == "jass" for c in d["champions"])
    assert not any("/" in c["seat"] for c in d["champions"])
    assert d["limits"]["max_deals"] == 1000 and d["limits"]["remote_bots"] is False
    assert d["games"]["jass"]["cards"][0] == "6D" and set(d["games"]) == set(GAMES)


def test_play_a_deal_hint_and_log(client):
    t = new_table(client, dealer=3)
    tid, tok = t["id"], t["tokens"]["0"]
    v = t["view"]
    assert v["decision"] == "trump" and v["to_act"] == 0 and {"action": 6, "name": "push"} in v["legal"]
    h = client.get(f"/api/tables/{tid}/hint?seat=0&agent=jass_rule_based:bidder=graf",
                   headers={"X-Seat-Token": tok}).json
    assert h["action"] in [x["action"] for x in v["legal"]]
    # before the deal is over the log shows no action of it
    assert client.get(f"/api/tables/{tid}/log").json["actions"] == []
    while v["decision"] != "over":
        r = client.post(f"/api/tables/{tid}/action", json={"seat": 0, "token": tok, "action": v["legal"][-1]["action"]})
        assert r.status_code == 200, r.json
        v = r.json
    log = client.get(f"/api/tables/{tid}/log").json
    assert log["over"] and v["results"][0]["score"] == log["results"][0]["score"]
    assert sum(log["results"][0]["points"]) == 157
    assert all(a["seat"] in range(4) for a in log["actions"]) and log["seats"][0] == "human"
    r = client.post("/api/replay", json=log).json
    assert r["matches"] and r["game_score"] == log["game_score"]


@pytest.mark.parametrize("method,path,body,status,message", [
    ("post", "/api/tables", {"game": "poker", "seats": ["human"] * 4}, 400, "game='poker' is invalid"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human"] * 3}, 400, "list of 4 seat strings"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human", "nobody", "random", "random"]}, 400, "unknown agent"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human"] * 4, "options": {"target": "x"}}, 400, "target"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human"] * 4, "seed": -2}, 400, "seed=-2"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human"] * 4, "colour": 1}, 400, "unknown key"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human"] * 4, "options": {"name": 1}}, 400,
     "unknown option(s) name for jass; valid options: match_bonus"),
    ("post", "/api/tables", "not json", 400, "JSON object"),
    ("get", "/api/tables/abc?seat=0&token=x", None, 404, "unknown table"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human", "champion:/etc/passwd", "random", "random"]}, 400,
     "unknown champion '/etc/passwd'"),
    ("post", "/api/tables", {"game": "jass", "seats": ["human", "http://127.0.0.1:9/", "random", "random"]}, 400,
     "remote bot seats are off"),
    ("post", "/api/replay", {"format": "x"}, 400, "not a table log"),
    # found by tests/test_serve_fuzz.py: a number that is not an integer where the log has one
    ("post", "/api/replay", {"format": "trick-evolve table log", "game": "jass", "options": {}, "seed": 1,
                             "actions": [], "seats": ["human"] * 4, "deals": float("inf")}, 400, "does not replay"),
    ("get", "/api/nothing", None, 404, "no such page"),
])
def test_bad_requests_are_4xx_json(client, method, path, body, status, message):
    kw = {"data": body, "content_type": "application/json"} if isinstance(body, str) else {"json": body}
    r = getattr(client, method)(path, **kw) if body is not None else getattr(client, method)(path)
    assert r.status_code == status and message in r.json["error"], r.json


def test_bad_actions_never_break_the_table(client):
    t = new_table(client, seats=("human", "random", "human", "random"), dealer=3)
    tid, tok0, tok2 = t["id"], t["tokens"]["0"], t["tokens"]["2"]
    before = client.get(f"/api/tables/{tid}?seat=0&token={tok0}").json
    cases = [
        ({"seat": 0, "token": tok0, "action": 99}, 400, "not legal"),
        ({"seat": 0, "token": tok0, "action": "push"}, 400, "not legal"),
        ({"seat": 0, "token": tok0}, 400, "missing 'action'"),
        ({"seat": 0, "token": tok2, "action": 6}, 403, "not yours"),
        ({"seat": 1, "token": tok0, "action": 6}, 403, "not a human seat"),
        ({"seat": 2, "token": tok2, "action": 0}, 409, "seat 0's turn"),
        ({"seat": "x", "token": tok0, "action": 0}, 400, "seat='x'"),
    ]
    for body, status, message in cases:
        r = client.post(f"/api/tables/{tid}/action", json=body)
        assert r.status_code == status and message in r.json["error"], (body, r.json)
    r = client.post(f"/api/tables/{tid}/action", data="{oops", content_type="application/json")
    assert r.status_code == 400
    assert client.get(f"/api/tables/{tid}/hint?seat=0&token={tok0}&agent=nobody").status_code == 400
    assert client.get(f"/api/tables/{tid}/hint?seat=2&token={tok2}&agent=random").status_code == 409
    assert client.get(f"/api/tables/{tid}?seat=0&token={tok0}").json == before
    # a stale n_actions is refused; the right one acts once, and its retry is answered, not taken again
    n = before["table"]["n_actions"]
    r = client.post(f"/api/tables/{tid}/action", json={"seat": 0, "token": tok0, "action": 6, "n_actions": n + 1})
    assert r.status_code == 409 and "stale" in r.json["error"]
    r = client.post(f"/api/tables/{tid}/action", json={"seat": 0, "token": tok0, "action": 6, "n_actions": n})
    assert r.status_code == 200 and "repeated" not in r.json
    again = client.post(f"/api/tables/{tid}/action", json={"seat": 0, "token": tok0, "action": 6, "n_actions": n})
    assert again.status_code == 200 and again.json["repeated"] and again.json["table"] == r.json["table"]
    other = client.post(f"/api/tables/{tid}/action", json={"seat": 0, "token": tok0, "action": 0, "n_actions": n})
    assert other.status_code == 409
    assert r.json["to_act"] == 2 and r.json["legal"] == [] and r.json["table"]["n_actions"] == n + 1
    r = client.get(f"/api/tables/{tid}?seat=2&token={tok2}").json
    assert r["decision"] == "trump" and 6 not in [x["action"] for x in r["legal"]]


def readme_bot() -> str:
    """The remote bot of docs/how-to/play-against-agents.md (its python block that answers a
    request with ``bot.act``)."""
    from test_readme import readme_blocks  # tests/ is on sys.path (rootdir-relative imports)

    return next(b for b in readme_blocks({"python"}) if "bot.act(request" in b)


def test_a_remote_bot_plays_over_http(tmp_path):
    """The README's tiny bot server in a real HTTP server; a table with a bot seat."""
    from werkzeug.serving import make_server

    namespace: dict = {"__name__": "readme_bot"}
    exec(compile(readme_bot(), "bot.py", "exec"), namespace)
    srv = make_server("127.0.0.1", 0, namespace["app"], threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_port}/"
    app = create_app(limits=Limits(allow_bots=("127.0.0.1",)))
    client = app.test_client()
    try:
        # four machine seats: a job the server plays off the request path
        r = client.post("/api/tables", json={"game": "euchre", "seats": [url, "random", url, "random"], "seed": 3,
                                             "deals": 4})
        assert r.status_code == 202 and r.json["progress"]["job"], r.json
        p = wait_over(client, r.json["id"])
        assert p["error"] == "" and p["deals_done"] == 4
        log = client.get(f"/api/tables/{r.json['id']}/log").json
        assert len(log["results"]) == 4 and log["seats"][0] == url
        # the bot's decisions are the agent's own: the same table with the agent in its seats
        from evolve.runtime.session import Table

        t = Table("euchre", ["highlow:bidder=simple", "random"] * 2, seed=3, deals=4)
        t.advance()
        assert t.log()["results"] == log["results"]
    finally:
        srv.shutdown()
    # a bot that is not there: 201 with the error, the table waits for it
    r = client.post("/api/tables", json={"game": "euchre", "seats": ["http://127.0.0.1:9/", "human", "random",
                                                                     "random"], "dealer": 3})
    assert r.status_code == 201 and "remote bot" in r.json["error"]
    tid, tok = r.json["id"], r.json["tokens"]["1"]
    assert client.post(f"/api/tables/{tid}/advance").status_code == 400           # whose seat?
    r = client.post(f"/api/tables/{tid}/advance", json={"seat": 1}, headers={"X-Seat-Token": tok})
    assert r.status_code == 502 and "remote bot http://127.0.0.1:9/ failed" in r.json["error"]
    # a host the server was not started with is refused before any request is sent
    r = client.post("/api/tables", json={"game": "euchre", "seats": ["http://localhost:9/", "human", "random",
                                                                     "random"]})
    assert r.status_code == 400 and "not allowed on this server; allowed: 127.0.0.1" in r.json["error"]
    app.extensions["trick_evolve_tables"].close()


def test_cli_bad_arguments_are_one_line():
    for args, message in ((["--port", "0"], "--port 0 is "
                                            "invalid"), (["--populations", "/nonexistent"], "not a directory"),
                          (["--port", "x"], "invalid int value")):
        p = subprocess.run([sys.executable, "-m", "evolve.serve", *args], capture_output=True, text=True)
        assert p.returncode == 2 and message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
