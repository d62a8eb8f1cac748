"""Bad input, tried systematically: hypothesis sends random and malformed requests to every
endpoint of evolve.serve. Each answer must be a success or a 4xx JSON ``{"error": ...}``
(never a 5xx), the server must keep serving, and a refused request must leave every
table as it was, in memory and in the store."""

from __future__ import annotations

import json
import math
import urllib.parse

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from evolve.server.app import TABLE_KEYS, create_app
from evolve.server.policy import Limits


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # no job thread (start=False): a machine-only table created here must not change while
    # the test compares tables before and after a request
    app = create_app(db=tmp_path_factory.mktemp("fuzz") / "tables.sqlite3", start=False,
                     limits=Limits(max_open_tables=20, max_body=64 * 1024, max_deals=50, bot_timeout=0.5,
                                   allow_bots=("127.0.0.1:9",)))
    client = app.test_client()
    # one human seat (the others play at once), so a right action is always seat 0's
    r = client.post("/api/tables", json={"game": "jass", "seats": ["human", "random", "jass_rule_based", "random"],
                                         "seed": 3, "deals": 3, "dealer": 3})
    assert r.status_code == 201
    done = client.post("/api/tables", json={"game": "euchre", "seats": ["human"] + ["random"] * 3, "deals": 1}).json
    v = done["view"]
    while v["decision"] != "over":
        v = client.post(f"/api/tables/{done['id']}/action", json={"seat": 0, "action": v["legal"][0]["action"]},
                        headers={"X-Seat-Token": done["tokens"]["0"]}).json
    log = client.get(f"/api/tables/{done['id']}/log").json
    yield {"app": app, "client": client, "id": r.json["id"], "tokens": r.json["tokens"], "log": log,
           "done": done["id"]}
    app.extensions["trick_evolve_tables"].close()


def snapshot(app) -> dict:
    """Every table's state: what the store holds and what memory holds."""
    tables = app.extensions["trick_evolve_tables"]
    out = {}
    for table_id in tables.store.ids():
        row = tables.store.load(table_id)
        out[table_id] = (row.n_actions, row.over, row.error, json.dumps(row.streams), json.dumps(row.log),
                         row.actions)
    for table_id, entry in list(tables.memory.items()):
        out[f"memory {table_id}"] = (len(entry.table.actions), entry.table.over, entry.table.error,
                                     json.dumps(entry.streams()))
    return out


NUMBERS = st.sampled_from([-1, 0, 1, 2, 3, 4, 6, 35, 2 ** 31, 2 ** 63, 10 ** 30, 1.5, math.inf, -0.0, True, False])
TEXTS = st.sampled_from(["", "0", " 2 ", "²", "٣", "-1", "1e3", "null", "human", "random", "x" * 300,
                         "champion:/etc/passwd", "champion:jass_markov", "ismcts:iterations=99999",
                         "http://127.0.0.1:9/", "http://10.0.0.1/", "mc:rollout=(champion:/x)", "dmcts:value=/x",
                         "random:bidder=search", "jass_rule_based", "perfect_mc", "((", "a:b=c,=,", "\x00\ud800"])
SCALARS = st.none() | NUMBERS | TEXTS | st.integers() | st.floats() | st.text(max_size=12)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=8) | st.sampled_from(TABLE_KEYS), inner, max_size=5), max_leaves=10)
SEATS = st.lists(TEXTS | st.text(max_size=10), min_size=0, max_size=5)


VALID_TABLE = {"game": "jass", "seats": ["human", "random", "random", "random"], "seed": 1, "deals": 1}


@st.composite
def table_bodies(draw):
    """A valid ``POST /api/tables`` body with up to three keys changed, dropped or added."""
    body = dict(VALID_TABLE)
    for _ in range(draw(st.integers(0, 3))):
        key = draw(st.sampled_from([*TABLE_KEYS, "colour"]))
        change = draw(st.sampled_from(["value", "drop", "seats", "options"]))
        if change == "drop":
            body.pop(key, None)
        elif change == "seats":
            seats = body.get("seats")
            seats = list(seats) if isinstance(seats, list) and len(seats) == 4 else list(VALID_TABLE["seats"])
            seats[draw(st.integers(0, 3))] = draw(TEXTS | st.text(max_size=10))
            body["seats"] = draw(st.just(seats) | SEATS)
        elif change == "options":
            body["options"] = draw(st.dictionaries(st.sampled_from(["target", "bidding", "partnership", "setup",
                                                                    "match_bonus", "x", "name"]), JSON, max_size=3))
        else:
            body[key] = draw(JSON | st.sampled_from(["jass", "euchre", "spades", "sueca", "poker"]))
    return body


KINDS = ("agents", "create", "view", "action", "advance", "hint", "progress", "log", "replay", "page", "static")


@st.composite
def requests(draw, state, kind):
    """(method, path, query, headers, body) for the endpoint ``kind``, often almost right.
    An action may be ``LEGAL``: the test fills in a legal action of the table's seat to act."""
    # half the time a right request (the real table, a human seat and its token), often with
    # one thing changed, so that requests get past the first checks and tables move on
    table_id = draw(st.sampled_from([state["done"], "nope", "0" * 16, "", "x" * 100, "../../etc"]))
    token = draw(st.sampled_from(["wrong", ""]) | st.text(max_size=24))
    seat = draw(st.sampled_from([1, "0", "x", None, -1, 7]) | SCALARS)
    if draw(st.booleans()):
        seat, table_id, token = 0, state["id"], state["tokens"]["0"]
        wrong = draw(st.sampled_from(["nothing", "table", "token", "seat"]) | st.just("nothing"))
        table_id = draw(st.sampled_from(["nope", state["done"]])) if wrong == "table" else table_id
        token = draw(st.sampled_from([*state["tokens"].values(), ""]) | st.text()) if wrong == "token" else token
        seat = draw(SCALARS) if wrong == "seat" else seat
    path = {"agents": "/api/agents", "create": "/api/tables", "view": f"/api/tables/{table_id}",
            "action": f"/api/tables/{table_id}/action", "advance": f"/api/tables/{table_id}/advance",
            "hint": f"/api/tables/{table_id}/hint", "progress": f"/api/tables/{table_id}/progress",
            "log": f"/api/tables/{table_id}/log", "replay": "/api/replay", "page": "/",
            "static": f"/web/{draw(st.sampled_from(['table.js', 'nope.js', '../app.py', '%2e%2e/app.py']))}"}[kind]
    method = "POST" if kind in ("create", "action", "advance", "replay") else "GET"
    if draw(st.integers(0, 9)) == 0:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
    query = {}
    if draw(st.integers(0, 3)):
        query = {"seat": json.dumps(seat) if not isinstance(seat, str) else seat}
        query["agent"] = draw(st.sampled_from(["random", "jass_rule_based"]) | TEXTS | st.text(max_size=20))
    # the token in the header, the query or the body; a header holds printable ASCII only
    where = draw(st.sampled_from(["header", "query", "body"]))
    headers = {"X-Seat-Token": "".join(c for c in token if " " <= c <= "~")} if where == "header" else {}
    if where == "query":
        query["token"] = token
    if kind == "create":
        body = draw(table_bodies())
    elif kind == "action":
        body = {"seat": seat, **({"token": token} if where == "body" else {}),
                "action": draw(st.just(LEGAL) | SCALARS | st.integers(0, 40)),
                **({"n_actions": draw(SCALARS | st.integers(0, 80))} if draw(st.integers(0, 3)) == 0 else {})}
    elif kind == "replay":
        log = json.loads(json.dumps(state["log"]))
        key = draw(st.sampled_from(sorted(log)))
        log[key] = draw(JSON)
        body = log
    else:
        body = draw(st.none() | JSON)
    if draw(st.integers(0, 7)) == 0:
        body = draw(st.binary(max_size=200) | st.just(b"[" * 5000) | st.just(b'{"a": ' * 3000))
    return method, path, query, headers, body


LEGAL = "<a legal action>"


def legal_action(client, state) -> int:
    """The last legal action of seat 0 at the fuzzed table (0 when it has none)."""
    v = client.get(f"/api/tables/{state['id']}?seat=0", headers={"X-Seat-Token": state["tokens"]["0"]}).json
    return v["legal"][-1]["action"] if v.get("legal") else 0


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_and_malformed_requests(server, kind, data):
    app, client = server["app"], server["client"]
    method, path, query, headers, body = data.draw(requests(server, kind))
    if isinstance(body, dict) and body.get("action") == LEGAL:
        body["action"] = legal_action(client, server)
    before = snapshot(app)
    # percent-encoded as a client would send it, invalid UTF-8 (from lone surrogates) included
    kw = {"query_string": urllib.parse.urlencode(query, errors="surrogatepass"), "headers": headers}
    if isinstance(body, bytes):
        kw.update(data=body, content_type="application/json")
    elif body is not None:
        kw.update(data=json.dumps(body), content_type="application/json")
    r = client.open(path, method=method, **kw)
    why = r.json.get('error', '')[:50] if r.is_json and r.status_code >= 400 else ''
    event(f"{kind} {method}: {r.status_code} {why}")
    assert r.status_code < 500, (method, path, r.get_data(as_text=True)[:500])
    if r.status_code >= 400:
        assert r.is_json and isinstance(r.json.get("error"), str) and r.json["error"], r.get_data(as_text=True)
        assert snapshot(app) == before, (method, path, query, body, r.json)
    elif path.startswith("/api/"):
        assert r.is_json
    assert client.get("/api/agents").status_code == 200
