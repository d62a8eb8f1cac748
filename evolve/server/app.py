"""``python -m evolve.serve``: a table server where agents, remote bots and people play.

A Flask app (``create_app``) over ``evolve.server.tables`` (live tables over their SQLite
copy, ``evolve.server.store``) with the limits of ``evolve.server.policy``. ``GET /`` is
the browser table; the JSON API is:

- ``GET  /api/agents``: registered agents, champions (``champion:NAME``, the folders of
  the populations folder that its ``manifest.toml`` marks playable), the games with their
  options and this server's limits;
- ``POST /api/tables`` ``{"game", "seats": [4 seat strings], "seed", "deals", "dealer",
  "options"}``: a seat is ``human``, an agent seat string or (when the server allows
  them) a bot URL. With a human seat it answers 201: the table ``id``, a ``token`` per
  human seat (that seat's password for the calls below) and the first view. Without one
  it answers 202: the table is a job the server plays in the background, and
  ``/progress`` tells how far it is;
- ``GET  /api/tables/<id>?seat=S``: what seat S sees (``view``), its ``legal`` actions
  and their names when it is to act, and the table's ``n_actions``;
- ``POST /api/tables/<id>/action`` ``{"seat", "action", "n_actions"}``: act, then the
  machine seats play until a human must decide; answers the new view. ``n_actions``
  (optional: the view's ``table.n_actions``) makes a retry safe: an action the table
  already took at that point is answered again (``"repeated": true``), never taken twice;
- ``GET  /api/tables/<id>/hint?seat=S&agent=A``: what agent A would do for S now;
- ``POST /api/tables/<id>/advance`` ``{"seat"}``: retry after a remote bot failed;
- ``GET  /api/tables/<id>/progress``: deals done of how many, actions, over, error;
- ``GET  /api/tables/<id>/log``: the game log (finished deals only until the table is
  over, so it never shows a hand still in play);
- ``POST /api/replay`` (a log): replays it and answers the scores and whether they match.

A human seat's token goes in the ``X-Seat-Token`` header (or a ``token`` query parameter or
body field). Every action is committed to the store before it is
answered. Every bad request is a 4xx JSON ``{"error": "..."}`` and leaves the table as it was.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

from evolve.core.errors import UsageError, checked_int, is_int
from evolve.games.registry import GAMES
from evolve.runtime.session import BotError, IllegalAction, TableError, check_log, replay
from evolve.server.policy import ApiError, Limits, Policy
from evolve.server.store import Store
from evolve.server.tables import Entry, Tables

WEB = Path(__file__).with_name("web")
TOKEN_HEADER = "X-Seat-Token"
MAX_SEED = 2 ** 63 - 1
TABLE_KEYS = ("game", "seats", "seed", "deals", "options", "dealer")


def agents_listing(policy: Policy) -> dict:
    """Registered agents (name, games, description), the playable champions, games with
    options, limits."""
    from evolve.agents.bidding.bidders import BIDDERS
    from evolve.agents.registry import AGENTS

    agents = [{"name": a.name, "games": list(a.games), "describe": a.describe} for a in AGENTS.values()]
    games = {name: {"options": {k: {"default": o.default, "choices": list(o.choices) if o.choices else None,
                                    "help": o.help} for k, o in info.options.items()},
                    "cards": [info.card_name(c) for c in range(info.n_cards)],
                    "modes": list(info.mode_names)} for name, info in GAMES.items()}
    limits = policy.limits
    shown = {k: getattr(limits, k) for k in ("max_deals", "max_iterations", "max_seconds", "max_body")}
    return {"agents": agents, "bidders": list(BIDDERS), "champions": policy.listing, "games": games,
            "limits": {**shown, "remote_bots": bool(limits.allow_bots)}}


def _int(value: Any, what: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            pass             # checked_int names the bad value
    try:
        return checked_int(value, what, low, high)
    except UsageError as e:
        raise ApiError(400, str(e)) from None


def _body() -> dict:
    from flask import request

    try:
        data = request.get_json(force=True, silent=True)
    except RecursionError:                   # nested too deeply for the JSON parser
        data = None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def _token(body: dict | None = None) -> Any:
    """A request's seat token: the header, else the body's or the query's ``token``."""
    from flask import request

    token = request.headers.get(TOKEN_HEADER)
    if token is None and body is not None:
        token = body.get("token")
    return request.args.get("token") if token is None else token


def _seat_of(e: Entry, seat: Any, token: Any) -> int:
    """The human seat a request speaks for, checked against its token (constant time)."""
    seat = _int(seat, "seat", 0, 3)
    e.check_token(seat, token)
    return seat


def _view(e: Entry, seat: int) -> dict:
    """What ``seat`` sees, with the table's state, card names and its legal actions."""
    t = e.table
    v = t.view(seat)
    v["table"] = {"seats": [p.seat_string for p in t.players], "deal": t.deal_index, "over": t.over,
                  "winner": t.winner, "error": t.error, "n_sides": t.game.n_sides,
                  "deals": len(t.results), "max_deals": t.max_deals, "target": t.game.target,
                  "n_actions": len(t.actions)}
    v["hand_names"] = [t.info.card_name(c) for c in v["hand"]]
    v["legal"] = []
    if not t.over and t.to_act == seat:
        obs = t.observation(seat)
        v["legal"] = [{"action": a, "name": obs.action_name(a)} for a in obs.legal()]
    v["results"] = t.results[-1:] and [{k: t.results[-1][k] for k in (
        "deal", "dealer", "trump", "maker", "alone", "tricks", "points", "score", "game_score", "game_winner",
        "tricks_per_trick")}]
    return v


def _table_spec(d: dict) -> dict:
    """The creation request of a ``POST /api/tables`` body, checked (ApiError 400), as the
    store keeps it: game, seats, options, seed, deals, dealer."""
    unknown = sorted(set(d) - set(TABLE_KEYS))
    if unknown:
        raise ApiError(400, f"unknown key(s) {', '.join(map(str, unknown))[:200]}; valid: {', '.join(TABLE_KEYS)}")
    game = d.get("game")
    if not isinstance(game, str) or game not in GAMES:
        raise ApiError(400, f"game={str(game)[:40]!r} is invalid; valid games: {', '.join(GAMES)}")
    seats = d.get("seats")
    if not isinstance(seats, list) or len(seats) != 4 or not all(isinstance(s, str) for s in seats):
        raise ApiError(400, "seats must be a list of 4 seat strings (human, an agent or a bot URL)")
    options = d.get("options", {})
    if not isinstance(options, dict):
        raise ApiError(400, "options must be a JSON object of game options")
    unknown = sorted(set(options) - set(GAMES[game].options))
    if unknown:        # checked here: an option named like make_game's own arguments must not reach it
        raise ApiError(400, f"unknown option(s) {', '.join(unknown)[:200]} for {game}; valid options: "
                            f"{', '.join(GAMES[game].options)}")
    return {"game": game, "seats": [s.strip() for s in seats], "options": options,
            "seed": _int(d.get("seed", 0), "seed", 0, MAX_SEED), "deals": _int(d.get("deals", 0), "deals", 0),
            "dealer": _int(d.get("dealer", 0), "dealer", 0, 3)}


def _hint(policy: Policy, t, seat: int, name: Any) -> dict:
    """What the agent ``name`` would do for ``seat`` now (on the engine's random stream)."""
    if not isinstance(name, str) or not name.strip() or name.strip().startswith(("http://", "https://")) \
            or name.strip().lower() in ("human", "me"):
        raise ApiError(400, f"hint agent {str(name)[:200]!r} is invalid; expected a registered agent or "
                            "champion:NAME")
    player = policy.agent(name.strip(), t.game)
    player.new_deal(t.seed, t.deal_index)
    obs = t.observation(seat)
    try:
        action = int(player.decide(obs))
    except (UsageError, ValueError) as err:
        raise ApiError(400, str(err)) from None
    return {"agent": name.strip(), "action": action, "name": obs.action_name(action)}


def _routes():
    """The blueprint of the page and the JSON API (every route one small function)."""
    from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory

    bp = Blueprint("tables", __name__)

    def tables() -> Tables:
        return current_app.extensions["trick_evolve_tables"]

    @bp.get("/")
    def index():
        """The browser table. A page where people create tables and play at them against agents,
        champions and remote bots (``evolve/server/web/index.html``)."""
        return send_from_directory(WEB, "index.html")

    @bp.get("/web/<path:name>")
    def static_file(name: str):
        """A file of the browser table: its script and style sheet (``table.js``, ``table.css``
        in ``evolve/server/web/``); 404 for any other name."""
        return send_from_directory(WEB, name)

    @bp.get("/api/agents")
    def list_agents():
        """What a client may seat and play. The answer lists the registered agents, the bidder
        names, the champions the server's populations folder's manifest marks playable (seated
        as ``champion:NAME``), every game with its options, card names and mode names, and
        this server's limits.

        Answer 200: ``{"agents": [{"name", "games": [...], "describe"}], "bidders": [names],
        "champions": [{"seat": "champion:NAME", "game", "kind", "name", "what"}], "games": {GAME:
        {"options": {KEY: {"default", "choices", "help"}}, "cards": [card names by id],
        "modes": [mode names]}}, "limits": {"max_deals", "max_iterations", "max_seconds",
        "max_body", "remote_bots"}}``."""
        return jsonify(agents_listing(tables().policy))

    @bp.post("/api/tables")
    def create_table():
        """Create a table. Body: ``{"game": GAME, "seats": [4 seats], "seed": 0, "deals": 0,
        "dealer": 0, "options": {KEY: VALUE}}`` (only ``game`` and ``seats`` are required). A seat
        is ``human``, an agent seat string, ``champion:NAME`` or, when the server allows remote
        bots, a bot URL. ``deals`` 0 plays to the game target (or ``--max-deals`` deals in a game
        without one); ``dealer`` is the first deal's dealer, 0..3.

        Answer 201 when a seat is human: ``{"id", "tokens": {"SEAT": TOKEN}, "view": the view of
        the lowest human seat, "error", "over", "log": null}``; each token is that seat's password
        for the calls that act for it. Answer 202 when no seat is human: the table is a job the
        server plays in the background, ``{"id", "tokens": {}, "view": null, "error": "", "over",
        "progress": the progress answer}``. Errors: 400 (a bad key, game, seat, option or value,
        or a limit passed), 429 (the server holds ``--max-open-tables`` unfinished tables)."""
        e, tokens = tables().create(_table_spec(_body()))
        t = e.table
        if e.machine_only:
            return jsonify({"id": e.id, "tokens": {}, "view": None, "error": "", "over": t.over,
                            "progress": tables().progress(e)}), 202
        return jsonify({"id": e.id, "tokens": {str(s): tok for s, tok in tokens.items()},
                        "view": _view(e, min(tokens)), "error": t.error, "over": t.over, "log": None}), 201

    @bp.get("/api/tables/<table_id>")
    def get_view(table_id: str):
        """What a human seat sees at the table. Query ``?seat=S``, the seat's token in the ``X-Seat-Token``
        header. Answer 200, the view: the observation's fields (``game``, ``options``, ``seat``,
        ``dealer``, ``hand``, ``hand_names``, ``phase``, ``trump``, ``upcard``, ``calls``, ``maker``,
        ``out_seat``, ``tricks``, ``trick``, ``score``, ``game_score``), ``decision`` (the decision
        due, ``"over"`` at the end) and ``to_act``; ``legal`` (``[{"action", "name"}]`` when the
        seat is to act, else empty); ``results`` (the last finished deal's result, if any); and
        ``table`` (``{"seats", "deal", "over", "winner", "error", "n_sides", "deals", "max_deals",
        "target", "n_actions"}``). Errors: 403 (not a human seat, or a wrong token), 404 (no such
        table)."""
        with tables().use(table_id) as e:
            seat = _seat_of(e, request.args.get("seat"), _token())
            tables().touch(e)
            return jsonify(_view(e, seat))

    @bp.post("/api/tables/<table_id>/action")
    def post_action(table_id: str):
        """Act for a human seat. Body: ``{"seat": S, "action": A, "n_actions": N}`` (the token in
        the ``X-Seat-Token`` header); ``A`` is one of the view's ``legal`` actions (a card id, a
        bid or a call). The machine seats then play until a human must decide, and the answer
        (200) is the seat's new view. ``n_actions`` (optional: the view's ``table.n_actions``)
        makes a retry safe: an action the table already took at that point is answered again with
        ``"repeated": true``, never taken twice. A remote bot that fails leaves its name in the
        view's ``table.error`` (``/advance`` retries it). Errors: 400 (an illegal or missing
        action), 403, 404, 409 (not the seat's turn, the table is over, or ``n_actions`` is
        stale)."""
        d = _body()
        with tables().use(table_id) as e:
            return jsonify(_act(tables(), e, d))

    @bp.post("/api/tables/<table_id>/advance")
    def post_advance(table_id: str):
        """Retry after a remote bot failed. Body ``{"seat": S}`` (a human seat, its token in the
        ``X-Seat-Token`` header): the machine seats play on until a human must decide, and the
        answer (200) is the progress answer; 502 while the bot still fails. At a table with no
        human seat (a job) no body is needed: the job is queued again and the answer is 202 with
        its progress."""
        with tables().use(table_id) as e:
            if e.machine_only:
                with tables().changing(e) as t:
                    t.error = ""
                tables().jobs.submit(table_id)
                return jsonify(tables().progress(e)), 202
            d = _body() if request.get_data() else {}
            _seat_of(e, d.get("seat", request.args.get("seat")), _token(d))
            tables().advance_and_save(e)
            if e.table.error:
                raise ApiError(502, e.table.error)
            return jsonify(tables().progress(e))

    @bp.get("/api/tables/<table_id>/progress")
    def get_progress(table_id: str):
        """How far a table is, for anyone who knows its id. Answer 200: ``{"over", "deals_done",
        "deals", "n_actions", "error", "job", "winner"}`` (``job``: a machine-only table the
        server is still playing). Error: 404."""
        with tables().use(table_id) as e:
            return jsonify(tables().progress(e))

    @bp.get("/api/tables/<table_id>/hint")
    def get_hint(table_id: str):
        """What an agent would do in a human seat's place. Query ``?seat=S&agent=A``, the seat's
        token in the ``X-Seat-Token`` header; ``A`` is an agent seat string or ``champion:NAME``,
        within the server's search limits. Answer 200: ``{"agent", "action",
        "name"}``. Errors: 400 (a bad agent), 403, 404, 409 (no decision is due for the seat)."""
        with tables().use(table_id) as e:
            seat = _seat_of(e, request.args.get("seat"), _token())
            tables().touch(e)
            if e.table.over or e.table.to_act != seat:
                raise ApiError(409, f"no decision is due for seat {seat}")
            return jsonify(_hint(tables().policy, e.table, seat, request.args.get("agent", "")))

    @bp.get("/api/tables/<table_id>/log")
    def get_log(table_id: str):
        """The table's log, as a JSON attachment. Answer 200: ``{"format": "trick-evolve table log",
        "version", "game", "options", "seed", "dealer", "deals", "seats", "actions": [every
        action with its seat and deal], "results": [each finished deal's hands, calls, tricks and
        scores], "game_score", "winner", "over"}``. Until the table is over only the finished
        deals are in it, so it never shows a hand still in play. Error: 404."""
        log = tables().store.log(table_id)       # a finished table's log needs no rebuild
        if log is None:
            with tables().use(table_id) as e:
                log = e.table.log()
        return Response(json.dumps(log, indent=1), mimetype="application/json",
                        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.json"'})

    @bp.post("/api/replay")
    def post_replay():
        """Replay a table log (the body, as ``/log`` gives it) on a fresh table, asking no agent.
        Answer 200: ``{"results": [each deal's score], "game_score", "matches"}`` (``matches``:
        the replayed results equal the log's). Error: 400 (not a table log, or it does not
        replay)."""
        log = _body()
        try:
            t = replay(check_log(log))
        except (UsageError, ValueError, TypeError, OverflowError) as err:   # OverflowError: "deals": Infinity
            raise ApiError(400, f"the log does not replay: {err}") from None
        mine = t.log()
        return jsonify({"results": [r["score"] for r in mine["results"]], "game_score": mine["game_score"],
                        "matches": mine["results"] == log.get("results")})

    return bp


def _act(tables: Tables, e: Entry, d: dict) -> dict:
    """``POST .../action``: the seat's action, then the machines' moves, committed; the new view."""
    seat = _seat_of(e, d.get("seat"), _token(d))
    if "action" not in d:
        raise ApiError(400, "missing 'action' (a card id, bid or call; see 'legal' in the view)")
    t = e.table
    at = _int(d["n_actions"], "n_actions", 0) if "n_actions" in d else len(t.actions)
    if at != len(t.actions):
        return _retried(e, seat, at, d["action"])
    with tables.changing(e):
        try:
            t.act(seat, d["action"])
        except IllegalAction as err:
            raise ApiError(400, str(err)) from None
        except TableError as err:
            raise ApiError(409, str(err)) from None
        try:
            t.advance()
        except BotError:
            pass           # the view's table.error names the bot; POST /advance retries it
    return _view(e, seat)


def _retried(e: Entry, seat: int, at: int, action: Any) -> dict:
    """The answer to an action sent with ``n_actions`` the table has gone past: the view,
    if that very action is the one the table took there (a retry), else 409."""
    t = e.table
    if at < len(t.actions) and t.actions[at]["seat"] == seat and is_int(action) and t.actions[at]["action"] == action:
        return {**_view(e, seat), "repeated": True}
    raise ApiError(409, f"n_actions={at} is stale: the table has taken {len(t.actions)} actions; get the view "
                        "and act on it")


def _json_error(status: int, message: str):
    from flask import jsonify

    return jsonify({"error": message}), status


def create_app(populations: str | Path = "populations", db: str | Path = ":memory:", limits: Limits | None = None,
               start: bool = True):
    """The Flask app: the browser table and the JSON API (see the module docstring), its
    tables kept in the SQLite file ``db`` (``:memory:``: for this process only). ``start``
    resumes the stored jobs and starts the thread that plays them and expires idle tables;
    ``app.extensions["trick_evolve_tables"].close()`` stops it and closes the file."""
    from flask import Flask, request
    from werkzeug.exceptions import HTTPException

    limits = limits or Limits()
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = limits.max_body
    app.url_map.merge_slashes = False         # "/api/tables//log" is a 404, not a redirect to guess at
    app.json.sort_keys = False                 # a view is encoded as built: sorting its keys costs time
    policy = Policy(populations, limits)      # first: a bad manifest stops the server before its store opens
    tables = Tables(Store(db), policy)
    app.extensions["trick_evolve_tables"] = tables
    app.register_blueprint(_routes())
    app.register_error_handler(ApiError, lambda e: _json_error(e.status, str(e)))

    def http_error(e: HTTPException):
        messages = {
            404: f"no such page or API call: {request.path[:200]}",
            405: f"{request.method} is not allowed on {request.path[:200]}",
            413: f"the request body is larger than this server's limit of {limits.max_body} bytes (--max-body)",
        }
        return _json_error(e.code or 500, messages.get(e.code, e.description or e.name))

    def internal_error(e: Exception):
        # the traceback goes to the server's log; it holds no token (request paths only)
        print(f"evolve.serve: error on {request.method} {request.path}:", file=sys.stderr)
        traceback.print_exception(e, file=sys.stderr)
        return _json_error(500, "internal server error (logged on the server)")

    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, internal_error)
    if start:
        tables.start()
    return app
