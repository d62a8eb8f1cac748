"""``python -m evolve.serve``: a local HTTP server where agents, remote bots and people play.

A Flask app (``create_app``) over ``evolve.runtime.session.Table``. It listens on 127.0.0.1:8000
by default (``--host``/``--port``). ``GET /`` is the browser table; the JSON API is:

- ``GET  /api/agents``: registered agents, champions under ``populations/*/champion.npz``
  and the games with their options;
- ``POST /api/tables`` ``{"game", "seats": [4 seat strings], "seed", "deals", "options"}``:
  a seat is ``human``, a bot URL or an agent seat string; answers the table ``id`` and a
  ``token`` per human seat (the seat's password for the calls below) and the first view;
- ``GET  /api/tables/<id>?seat=S&token=T``: what seat S sees (``view``), with its
  ``legal`` actions and their names when it is to act;
- ``POST /api/tables/<id>/action`` ``{"seat", "token", "action"}``: act, then the machine
  seats play until a human must decide; answers the new view;
- ``GET  /api/tables/<id>/hint?seat=S&token=T&agent=A``: what agent A would do for S now;
- ``POST /api/tables/<id>/advance``: retry after a remote bot failed;
- ``GET  /api/tables/<id>/log``: the game log (JSON; finished deals only until the table
  is over, so it never shows a hand still in play);
- ``POST /api/replay`` (a log): replays it and answers the scores and whether they match.

A remote bot seat receives ``POST`` JSON ``{"observation": Observation.to_dict(),
"decision", "legal"}`` and answers ``{"action": ...}``. Every bad request is a 4xx JSON
``{"error": "..."}`` and leaves the table as it was.
"""

from __future__ import annotations

import glob
import json
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from evolve.core.errors import UsageError, checked_int
from evolve.games.registry import GAMES
from evolve.runtime.session import (
    BotError,
    IllegalAction,
    Table,
    TableError,
    check_log,
    make_player,
    replay,
)

WEB = Path(__file__).with_name("web")
MAX_TABLES = 200


class ApiError(Exception):
    """A request error answered as ``{"error": message}`` with an HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Entry:
    """A table with its humans' tokens and a lock (requests of one table run one at a time)."""

    def __init__(self, table: Table, tokens: dict[int, str]):
        self.table = table
        self.tokens = tokens
        self.lock = threading.Lock()


def champions(root: str | Path = "populations") -> list[dict]:
    """The champions under ``root/*/champion.npz``: seat string, game and kind."""
    out = []
    for path in sorted(glob.glob(str(Path(root) / "*" / "champion.npz"))):
        meta_path = Path(path).with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            meta = {}
        out.append({"seat": f"champion:{path}", "game": meta.get("game", ""), "kind": meta.get("kind", "network"),
                    "name": Path(path).parent.name})
    return out


def agents_listing(root: str | Path = "populations") -> dict:
    """Registered agents (name, games, description), champions and games with options."""
    from evolve.agents.bidding.bidders import BIDDERS
    from evolve.agents.registry import AGENTS

    agents = [{"name": a.name, "games": list(a.games), "describe": a.describe} for a in AGENTS.values()]
    games = {name: {"options": {k: {"default": o.default, "choices": list(o.choices) if o.choices else None,
                                    "help": o.help} for k, o in info.options.items()},
                    "cards": [info.card_name(c) for c in range(info.n_cards)],
                    "modes": list(info.mode_names)} for name, info in GAMES.items()}
    return {"agents": agents, "bidders": list(BIDDERS), "champions": champions(root), "games": games}


def _int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    try:
        return checked_int(value, what, low, high)
    except UsageError as e:
        raise ApiError(400, str(e)) from None


class Tables:
    """The open tables of one app, by id (the oldest dropped beyond ``MAX_TABLES``)."""

    def __init__(self, populations: Path):
        self.populations = populations
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, entry: Entry) -> str:
        table_id = secrets.token_hex(6)
        with self.lock:
            self.entries[table_id] = entry
            while len(self.entries) > MAX_TABLES:
                self.entries.popitem(last=False)
        return table_id

    def get(self, table_id: str) -> Entry:
        e = self.entries.get(table_id)
        if e is None:
            raise ApiError(404, f"unknown table {table_id!r}")
        return e


def _tables() -> Tables:
    from flask import current_app

    return current_app.extensions["trick_evolve_tables"]


def _body() -> dict:
    from flask import request

    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def _seat_of(e: Entry, seat: Any, token: Any) -> int:
    """The human seat a request speaks for, checked against its token (constant time)."""
    seat = _int(seat, "seat", 0, 3)
    if seat not in e.tokens:
        raise ApiError(403, f"seat {seat} is not a human seat of this table")
    if not isinstance(token, str) or not secrets.compare_digest(token, e.tokens[seat]):
        raise ApiError(403, f"seat {seat} is not yours: a missing or wrong token")
    return seat


def _view(e: Entry, seat: int) -> dict:
    """What ``seat`` sees, with the table's state, card names and its legal actions."""
    t = e.table
    v = t.view(seat)
    v["table"] = {"seats": [p.seat_string for p in t.players], "deal": t.deal_index, "over": t.over,
                  "winner": t.winner, "error": t.error, "n_sides": t.game.n_sides,
                  "deals": len(t.results), "max_deals": t.max_deals, "target": t.game.target}
    v["hand_names"] = [t.info.card_name(c) for c in v["hand"]]
    v["legal"] = []
    if not t.over and t.to_act == seat:
        obs = t.observation(seat)
        v["legal"] = [{"action": a, "name": obs.action_name(a)} for a in obs.legal()]
    v["results"] = t.results[-1:] and [{k: t.results[-1][k] for k in (
        "deal", "dealer", "trump", "maker", "alone", "tricks", "points", "score", "game_score", "game_winner",
        "tricks_per_trick")}]
    return v


def _advance(e: Entry) -> None:
    try:
        e.table.advance()
    except BotError as err:
        raise ApiError(502, str(err)) from None


def _new_table(d: dict) -> Table:
    """The table a ``POST /api/tables`` body asks for (ApiError 400 on anything wrong)."""
    unknown = sorted(set(d) - {"game", "seats", "seed", "deals", "options", "dealer"})
    if unknown:
        raise ApiError(400, f"unknown key(s) {', '.join(unknown)}; valid: game, seats, seed, deals, options, dealer")
    game = d.get("game")
    if game not in GAMES:
        raise ApiError(400, f"game={game!r} is invalid; valid games: {', '.join(GAMES)}")
    seats = d.get("seats")
    if not isinstance(seats, list) or len(seats) != 4 or not all(isinstance(s, str) for s in seats):
        raise ApiError(400, "seats must be a list of 4 seat strings (human, a bot URL or an agent)")
    options = d.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, "options must be a JSON object of game options")
    seed = _int(d.get("seed", 0), "seed", 0)
    deals = _int(d.get("deals", 0), "deals", 0)
    dealer = _int(d.get("dealer", 0), "dealer", 0, 3)
    try:
        return Table(game, seats, seed, deals=deals, dealer=dealer, **options)
    except UsageError as err:
        raise ApiError(400, str(err)) from None


def _hint(t: Table, seat: int, name: str) -> dict:
    """What the agent ``name`` would do for ``seat`` now (on the engine's random stream)."""
    try:
        player = make_player(name, t.game)
        if player.human or player.decide is None or name.startswith(("http://", "https://")):
            raise UsageError(f"hint agent {name!r} is invalid; expected a registered agent or champion:PATH")
        player.new_deal(t.seed, t.deal_index)
        obs = t.observation(seat)
        action = int(player.decide(obs))
    except (UsageError, ValueError) as err:
        raise ApiError(400, str(err)) from None
    return {"agent": name, "action": action, "name": obs.action_name(action)}


def _routes():
    """The blueprint of the page and the JSON API (every route one small function)."""
    from flask import Blueprint, Response, jsonify, request, send_from_directory

    bp = Blueprint("tables", __name__)

    @bp.get("/")
    def index():
        return send_from_directory(WEB, "index.html")

    @bp.get("/web/<path:name>")
    def static_file(name: str):
        return send_from_directory(WEB, name)

    @bp.get("/api/agents")
    def list_agents():
        return jsonify(agents_listing(_tables().populations))

    @bp.post("/api/tables")
    def create_table():
        table = _new_table(_body())
        tokens = {s: secrets.token_urlsafe(12) for s, p in enumerate(table.players) if p.human}
        e = Entry(table, tokens)
        table_id = _tables().add(e)
        with e.lock:
            error = ""
            try:
                _advance(e)
            except ApiError as err:
                error = str(err)
            return jsonify({"id": table_id, "tokens": {str(s): tok for s, tok in tokens.items()},
                            "view": _view(e, min(tokens)) if tokens else None, "error": error,
                            "over": table.over, "log": None if tokens else table.log()}), 201

    @bp.get("/api/tables/<table_id>")
    def get_view(table_id: str):
        e = _tables().get(table_id)
        with e.lock:
            return jsonify(_view(e, _seat_of(e, request.args.get("seat"), request.args.get("token"))))

    @bp.post("/api/tables/<table_id>/action")
    def post_action(table_id: str):
        e = _tables().get(table_id)
        d = _body()
        with e.lock:
            seat = _seat_of(e, d.get("seat"), d.get("token"))
            if "action" not in d:
                raise ApiError(400, "missing 'action' (a card id, bid or call; see 'legal' in the view)")
            try:
                e.table.act(seat, d["action"])
            except IllegalAction as err:
                raise ApiError(400, str(err)) from None
            except TableError as err:
                raise ApiError(409, str(err)) from None
            _advance(e)
            return jsonify(_view(e, seat))

    @bp.post("/api/tables/<table_id>/advance")
    def post_advance(table_id: str):
        e = _tables().get(table_id)
        with e.lock:
            _advance(e)
            return jsonify({"over": e.table.over, "to_act": e.table.to_act, "decision": e.table.step})

    @bp.get("/api/tables/<table_id>/hint")
    def get_hint(table_id: str):
        e = _tables().get(table_id)
        with e.lock:
            seat = _seat_of(e, request.args.get("seat"), request.args.get("token"))
            if e.table.over or e.table.to_act != seat:
                raise ApiError(409, f"no decision is due for seat {seat}")
            return jsonify(_hint(e.table, seat, request.args.get("agent", "")))

    @bp.get("/api/tables/<table_id>/log")
    def get_log(table_id: str):
        e = _tables().get(table_id)
        with e.lock:
            log = e.table.log()
        return Response(json.dumps(log, indent=1), mimetype="application/json",
                        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.json"'})

    @bp.post("/api/replay")
    def post_replay():
        log = request.get_json(silent=True)
        try:
            t = replay(check_log(log))
        except UsageError as err:
            raise ApiError(400, str(err)) from None
        mine = t.log()
        return jsonify({"results": [r["score"] for r in mine["results"]], "game_score": mine["game_score"],
                        "matches": mine["results"] == log.get("results")})

    return bp


def create_app(populations: str | Path = "populations"):
    """The Flask app: the browser table and the JSON API (see the module docstring)."""
    from flask import Flask, jsonify, request

    app = Flask(__name__, static_folder=None)
    app.extensions["trick_evolve_tables"] = Tables(Path(populations))
    app.register_blueprint(_routes())
    app.register_error_handler(ApiError, lambda e: (jsonify({"error": str(e)}), e.status))
    app.register_error_handler(404, lambda e: (jsonify({"error": f"no such page or API call: {request.path}"}), 404))
    app.register_error_handler(
        405, lambda e: (jsonify({"error": f"{request.method} is not allowed on {request.path}"}), 405))
    return app
