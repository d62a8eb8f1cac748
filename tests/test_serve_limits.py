"""evolve.serve's limits and safe defaults: every limit refused with a 4xx JSON error that
names it, champions by name only, no server file named by a client, remote bots off unless
allowed (and then only on the named hosts, with no redirect), bad options one line."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest
from test_serve_durable import ROOT, Server, free_port  # tests/ is on sys.path (rootdir-relative imports)

from evolve.server.app import create_app
from evolve.server.policy import Limits
from evolve.server.wsgi import listening_socket, make_server, shutdown

HUMAN_JASS = {"game": "jass", "seats": ["human", "random", "random", "random"], "seed": 1, "deals": 1}


@pytest.fixture(scope="module")
def client():
    app = create_app(limits=Limits(max_body=4096))
    yield app.test_client()
    app.extensions["trick_evolve_tables"].close()


def seat1(seat: str, game: str = "jass", **kw) -> dict:
    return {**HUMAN_JASS, "game": game, "seats": ["human", seat, "random", "random"], **kw}


@pytest.mark.parametrize("body,message", [
    ({**HUMAN_JASS, "deals": 1001}, "deals=1001 is too many: this server's limit is 1000 (--max-deals)"),
    (seat1("ismcts:iterations=5001"), "asks for 5001 playouts per decision: this server's limit is 5000 "
                                      "(--max-iterations)"),
    (seat1("dmcts:determinizations=100,iterations=100"), "asks for 10000 playouts per decision"),
    (seat1("mc:shuffles=1000,playouts=10"), "asks for 10000 playouts per decision"),
    (seat1("maxvalue:samples=6000"), "asks for 6000 playouts"),
    (seat1("random:bidder=search,bid_iterations=9000", "euchre"), "bid_iterations=9000: this server's limit"),
    (seat1("champion:jass_champion@search,bid_iterations=9000"), "bid_iterations=9000: this server's limit"),
    (seat1("mc:rollout=(ismcts:iterations=9000)"), "asks for 9000 playouts"),
    (seat1("pismcts:iterations=1000,candidates=8"), "asks for 8000 candidate deals per decision"),
    (seat1("ismcts:seconds=0.5"), "asks for seconds=0.5 per decision: this server's limit is 0.1 (--max-seconds)"),
])
def test_each_limit_is_a_400_naming_it(client, body, message):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and message in r.json["error"], r.json


def test_budgets_within_the_limits_play(client):
    for seat in ("ismcts:iterations=5000", "dmcts:determinizations=5,iterations=20", "mc:seconds=0.01"):
        assert client.post("/api/tables", json=seat1(seat)).status_code == 201, seat


def test_the_hint_agent_has_the_same_limits(client):
    r = client.post("/api/tables", json={**HUMAN_JASS, "dealer": 3}).json
    path = f"/api/tables/{r['id']}/hint?seat=0&agent="
    token = {"X-Seat-Token": r["tokens"]["0"]}
    bad = client.get(path + "ismcts:iterations=100000", headers=token)
    assert bad.status_code == 400 and "(--max-iterations)" in bad.json["error"]
    for agent in ("champion:/etc/passwd", "http://127.0.0.1:9/", "human", "perfect_mc"):
        assert client.get(path + agent, headers=token).status_code == 400, agent
    assert client.get(path + "champion:jass_markov", headers=token).status_code == 200


def test_a_body_over_the_limit_is_a_413_naming_it(client):
    r = client.post("/api/replay", data=json.dumps({"format": "x" * 5000}), content_type="application/json")
    assert r.status_code == 413 and "limit of 4096 bytes (--max-body)" in r.json["error"]


def test_waitress_answers_json_errors_too():
    """The body limit and malformed HTTP are answered by waitress before the app: still JSON."""
    app = create_app(limits=Limits(max_body=4096))
    sock = listening_socket("127.0.0.1", 0)
    server = make_server(app, sock, threads=2, max_body=4096)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        req = urllib.request.Request(f"{url}/api/replay", data=b"{" + b" " * 9000 + b"}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=30)
        assert err.value.code == 413
        assert "limit of 4096 bytes (--max-body)" in json.loads(err.value.read())["error"]
        with socket.create_connection(("127.0.0.1", sock.getsockname()[1]), timeout=30) as raw:
            raw.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n")
            answer = b""
            while chunk := raw.recv(65536):     # the server closes the connection after an error
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400") and b'{"error": ' in answer, answer
        with urllib.request.urlopen(f"{url}/api/agents", timeout=30) as r:       # and it serves on
            assert r.status == 200
    finally:
        shutdown(server)
        app.extensions["trick_evolve_tables"].close()


@pytest.mark.parametrize("seat", [
    "champion:/etc/passwd",
    "champion:populations/jass_markov/champion.npz",
    "champion:../populations/jass_markov",
    "champion:jass_markov/../jass_strong",
    "champion:",
    "mc:rollout=(champion:/etc/passwd)",
    "champion:jass_markov@(champion:/tmp/x)",
    "dmcts:value=/etc/passwd",
    "maxvalue:net=/tmp/value.npz",
    "random:bidder=linear,bid_genome=/tmp/genome.npz",
    "random:bidder=learnt,bid_net=/tmp/trump.npz",
    "champion:jass_champion@learnt,bid_net=/tmp/trump.npz",
])
def test_no_client_names_a_server_file(client, seat):
    game = "euchre" if "linear" in seat else "jass"
    r = client.post("/api/tables", json=seat1(seat, game))
    assert r.status_code == 400, r.json
    # the answer says what is allowed, and nothing about the file system
    assert "not found" not in r.json["error"] and ".json" not in r.json["error"]


def test_champions_by_name(client):
    r = client.post("/api/tables", json=seat1("champion:jass_markov"))
    assert r.status_code == 201 and r.json["view"]["table"]["seats"][1] == "champion:jass_markov"
    r = client.post("/api/tables", json=seat1("mc:shuffles=5,rollout=(champion:jass_markov)"))
    assert r.status_code == 201, r.json
    r = client.post("/api/tables", json=seat1("champion:spades_markov"))
    assert r.status_code == 400 and "plays spades, not jass" in r.json["error"]
    bad = client.post("/api/tables", json=seat1("champion:nobody")).json["error"]
    assert "valid: " in bad and "jass_markov" in bad and "populations/" not in bad


@pytest.mark.parametrize("name", ["jass_champion_float32", "jass_champion_ismcts500", "spades_seat_scratch"])
def test_a_champion_the_manifest_does_not_mark_playable_is_refused_like_an_unknown_name(client, name):
    """populations/manifest.toml says which champions a table offers: the others (a founder,
    a reproduction's, one from random weights) are neither listed nor seated."""
    listed = {c["name"] for c in client.get("/api/agents").json["champions"]}
    assert name not in listed and {"jass_champion", "jass_markov", "spades_markov"} <= listed
    game = "spades" if name.startswith("spades") else "jass"
    r = client.post("/api/tables", json=seat1(f"champion:{name}", game))
    assert r.status_code == 400 and f"unknown champion {name!r}" in r.json["error"], r.json
    assert "marks playable; valid: " in r.json["error"] and "jass_champion, " in r.json["error"]
    r = client.post("/api/tables", json=seat1(f"mc:shuffles=5,rollout=(champion:{name})", game))
    assert r.status_code == 400 and "unknown champion" in r.json["error"]


def test_the_listing_is_the_manifests_playable_champions(client):
    from evolve.agents.genomes.manifest import load_manifest

    entries = load_manifest(ROOT / "populations")
    listed = client.get("/api/agents").json["champions"]
    assert [c["name"] for c in listed] == [n for n, e in entries.items() if e.playable]
    for c in listed:
        e = entries[c["name"]]
        assert c == {"seat": f"champion:{e.name}", "game": e.game, "kind": e.kind, "name": e.name, "what": e.what}


def test_a_folder_without_a_manifest_offers_all_its_champions_and_a_bad_manifest_stops_the_server(tmp_path):
    """A user's own runs (``--populations runs``) need no manifest: every champion in the
    folder is offered. An invalid manifest is one line when the server starts."""
    import shutil

    from evolve.core.errors import UsageError

    shutil.copytree(ROOT / "populations" / "jass_markov", tmp_path / "mine")
    app = create_app(tmp_path, start=False)
    try:
        client = app.test_client()
        assert client.get("/api/agents").json["champions"] == [
            {"seat": "champion:mine", "game": "jass", "kind": "markov", "name": "mine", "what": ""}]
        assert client.post("/api/tables", json=seat1("champion:mine")).status_code == 201
        error = client.post("/api/tables", json=seat1("champion:jass_markov")).json["error"]
        assert "unknown champion 'jass_markov'" in error and "valid: mine" in error and "manifest" not in error
    finally:
        app.extensions["trick_evolve_tables"].close()
    (tmp_path / "manifest.toml").write_text("[[champion]]\nname = 3\n")
    with pytest.raises(UsageError, match="manifest.toml: key 'champion\\[0\\].name'"):
        create_app(tmp_path, start=False)


def redirecting_bot():
    """A bot server that answers every decision with a redirect to another address."""
    from werkzeug.serving import make_server as werkzeug_server

    def app(environ, start_response):
        start_response("307 Temporary Redirect", [("Location", "http://127.0.0.2:9/")])
        return [b""]

    srv = werkzeug_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def test_remote_bots_are_off_by_default_and_only_on_allowed_hosts(client):
    r = client.post("/api/tables", json=seat1("http://127.0.0.1:8001/"))
    assert r.status_code == 400 and "remote bot seats are off" in r.json["error"] and "--allow-bots" in r.json["error"]
    srv = redirecting_bot()
    url = f"http://127.0.0.1:{srv.server_port}/"
    app = create_app(limits=Limits(allow_bots=(f"127.0.0.1:{srv.server_port}",)))
    c = app.test_client()
    try:
        for seat in (f"http://127.0.0.1:{srv.server_port + 1}/", "http://localhost/", "https://example.org/",
                     f"http://evil@127.0.0.2:{srv.server_port}/", "http://[::1]/"):
            r = c.post("/api/tables", json={**seat1(seat), "dealer": 0})
            assert r.status_code == 400 and "is not allowed on this server" in r.json["error"], (seat, r.json)
        r = c.post("/api/tables", json={**seat1(url), "dealer": 0})     # seat 1 decides first
        assert r.status_code == 201 and "redirect" in r.json["error"] and r.json["view"]["to_act"] == 1, r.json
    finally:
        srv.shutdown()
        app.extensions["trick_evolve_tables"].close()


@pytest.mark.parametrize("args,message", [
    (["--max-deals", "x"], "--max-deals 'x' is invalid; expected a positive integer"),
    (["--max-deals", "0"], "--max-deals '0' is invalid"),
    (["--idle-timeout", "soon"], "--idle-timeout 'soon' is invalid; expected a duration"),
    (["--max-body", "-5"], "--max-body '-5' is invalid; expected a size"),
    (["--max-seconds", "nan"], "--max-seconds 'nan' is invalid"),
    (["--allow-bots", "bots.lan/x"], "--allow-bots 'bots.lan/x' is invalid; expected hosts"),
    (["--threads", "0"], "--threads 0 is invalid"),
    (["--port", "0"], "--port 0 is invalid"),
    (["--populations", "/nonexistent"], "not a directory"),
    (["--port", "x"], "invalid int value"),
])
def test_bad_options_are_one_line(args, message, tmp_path):
    p = subprocess.run([sys.executable, "-m", "evolve.serve", "--db", str(tmp_path / "t.sqlite3"), *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_a_host_beyond_loopback_says_what_it_exposes(tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "evolve.serve", "--host", "0.0.0.0", "--port", str(port), "--db",
                             str(tmp_path / "t.sqlite3"), "--allow-bots", "127.0.0.1:8001"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert "--host 0.0.0.0 exposes the JSON API and the browser table to the network" in first
    assert "remote bot seats are allowed on 127.0.0.1:8001" in first
    server = Server(tmp_path / "u.sqlite3")             # on loopback: no such line
    server.start()
    server.stop()
    assert "the table is at" in server.output() and "exposes" not in server.output()


def test_every_limit_is_documented_with_its_default():
    """docs/how-to/run-the-table-server.md's table of server options names each limit with the default it has."""
    from dataclasses import fields

    text = (ROOT / "docs" / "how-to" / "run-the-table-server.md").read_text()
    defaults = Limits()
    for f in fields(Limits):
        row = re.search(rf"^\| `{re.escape(Limits.option(f.name))}[^`]*` \| ([^|]+) \|", text, re.M)
        assert row, f"{Limits.option(f.name)} is not in docs/how-to/run-the-table-server.md's table of options"
        assert row.group(1).strip() == defaults.shown(f.name), (f.name, row.group(1))
