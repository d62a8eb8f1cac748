"""What a client may ask of the table server: its limits and the seats it accepts.

``Limits`` holds every per-server limit with its default; ``python -m evolve.serve`` makes
one command-line option of each field (``max_deals`` is ``--max-deals``), and the docs
quote the defaults from here. ``Policy`` applies them to what a request names:

- a seat or hint agent is a registered agent, ``champion:NAME`` (a champion that the
  populations folder's ``manifest.toml`` marks playable, ``evolve.agents.genomes.manifest``,
  or any champion of a folder without one: chosen by name, never by a client's path) or,
  only when the server allows it, a remote bot URL on one of the hosts it names. Agent
  options that name a server file (``bid_genome``, ``bid_net``, ``value``, ``net``) are
  refused; nested seat strings (``rollout=(...)``, ``champion:NAME@seat``) are checked
  the same way;
- a search agent's budget per decision is at most ``max_iterations`` playouts (and as many
  candidate deals drawn by P-DMCTS / P-ISMCTS) and ``max_seconds`` of wall clock. An
  agent's compiled code holds the interpreter while it decides, so these limits also bound
  how long one table's machine move makes the other tables wait (5000 playouts: at most
  about 60 ms per decision on a 2-core machine, model not recorded);
- a table plays at most ``max_deals`` deals (``deals: 0``, to the game target, plays
  ``max_deals`` deals in a game that has no target).

Every refusal is an ``ApiError`` whose message names the limit and its server option.
"""

from __future__ import annotations

import json
import math
import re
import urllib.parse
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from evolve.agents.bidding.bidders import BIDDER_OPTIONS
from evolve.agents.genomes.manifest import MANIFEST, load_manifest, playable_champions
from evolve.agents.registry import AGENTS, split_top
from evolve.core.errors import UsageError
from evolve.games.options import resolve_options
from evolve.games.registry import Game
from evolve.runtime.session import HUMAN, Player, agent_player, is_url, remote_decide

#: agent options whose value is a file on the server: a client may not name one
FILE_OPTIONS = ("bid_genome", "bid_net", "value", "net")
#: agent options that hold a nested seat string
SEAT_OPTIONS = ("rollout",)
#: agent options whose product is a search agent's playouts per decision
COUNT_OPTIONS = ("iterations", "determinizations", "shuffles", "playouts", "samples")


class ApiError(Exception):
    """A request error answered as ``{"error": message}`` with an HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``30m``, ``24h`` or ``7d`` (ValueError otherwise)."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    text = str(text).strip().lower()
    scale = units.get(text[-1:], None)
    value = float(text[:-1] if scale else text)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(text)
    return value * (scale or 1)


def show_duration(seconds: float) -> str:
    """``86400`` as ``24h``, ``604800`` as ``7d``: how the docs and messages say a duration."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= (2 * size if unit == "d" else size) and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def _size(text: str) -> int:
    """Bytes from ``65536``, ``64K`` or ``1M`` (ValueError otherwise)."""
    text = str(text).strip().upper()
    scale = {"K": 1024, "M": 1024 ** 2}.get(text[-1:], None)
    value = int(text[:-1] if scale else text)
    if value <= 0:
        raise ValueError(text)
    return value * (scale or 1)


def _hosts(text: str) -> tuple[str, ...]:
    """``a.example,127.0.0.1:8001`` as lower-case ``host`` or ``host:port`` entries."""
    hosts = tuple(h.strip().lower() for h in str(text).split(",") if h.strip())
    for h in hosts:
        if not re.fullmatch(r"[a-z0-9.\-]+(:\d{1,5})?|\[[0-9a-f:.]+\](:\d{1,5})?", h):
            raise ValueError(h)
    return hosts


def _limit(default: Any, parse: Any, help_text: str, expect: str = "a positive number", metavar: str = "S") -> Any:
    return field(default=default, metadata={"parse": parse, "help": help_text, "expect": expect, "metavar": metavar})


# what a count or a duration option expects, and its placeholder in --help
COUNT_ARG = {"expect": "a positive integer", "metavar": "N"}
DURATION_ARG = {"expect": "a duration such as 3600, 90m, 24h or 7d", "metavar": "T"}


@dataclass(frozen=True)
class Limits:
    """The server's limits and safety switches (each a ``python -m evolve.serve`` option)."""

    max_open_tables: int = _limit(1000, int, "unfinished tables at once; a new one beyond is refused (429)",
                                  **COUNT_ARG)
    idle_timeout: float = _limit(24 * 3600.0, _duration,
                                 "an unfinished table nobody has acted at or looked at for this long is deleted",
                                 **DURATION_ARG)
    keep_finished: float = _limit(7 * 86400.0, _duration,
                                  "a finished table (and its log) is kept this long after its last use", **DURATION_ARG)
    max_deals: int = _limit(1000, int, "deals per table; a table asked to play to the game target plays this many "
                                       "in a game without a target", **COUNT_ARG)
    max_iterations: int = _limit(5000, int, "a search agent's playouts per decision: iterations x "
                                            "determinizations, shuffles x playouts, samples, bid_iterations",
                                 **COUNT_ARG)
    max_seconds: float = _limit(0.1, float, "a search agent's wall-clock budget per decision (seconds=)")
    max_body: int = _limit(1024 ** 2, _size, "bytes of a request body (e.g. a log for /api/replay)",
                           "a size in bytes such as 65536, 64K or 1M", "SIZE")
    bot_timeout: float = _limit(5.0, float, "seconds the server waits for a remote bot's answer")
    allow_bots: tuple[str, ...] = _limit((), _hosts, "comma-separated hosts (host or host:port) that remote "
                                                      "bot seats may name; none by default (bot seats are off)",
                                         "hosts such as 127.0.0.1:8001,bots.lan", "HOSTS")

    @staticmethod
    def option(name: str) -> str:
        """The command-line option of a field: ``max_deals`` -> ``--max-deals``."""
        return "--" + name.replace("_", "-")

    def shown(self, name: str) -> str:
        """A field's value as the docs and messages write it."""
        value = getattr(self, name)
        if name in ("idle_timeout", "keep_finished"):
            return show_duration(value)
        if name == "allow_bots":
            return ",".join(value) or "none"
        return f"{value:g}" if isinstance(value, float) else str(value)

    @classmethod
    def parse(cls, values: dict[str, str]) -> "Limits":
        """Limits from option strings by field name; UsageError naming the option if one is invalid."""
        out = {}
        specs = {f.name: f for f in fields(cls)}
        for name, text in values.items():
            meta = specs[name].metadata
            try:
                out[name] = meta["parse"](text)
                if isinstance(out[name], (int, float)) and not 0 < out[name] < math.inf:
                    raise ValueError(text)
            except ValueError:
                raise UsageError(f"{cls.option(name)} {text!r} is invalid; expected {meta['expect']}") from None
        return replace(cls(), **out)


def champions(root: str | Path) -> dict[str, Path]:
    """The champions a client may name: ``{name: champion.npz}`` for each champion that
    ``root/manifest.toml`` marks playable (without a manifest, every ``root/*/champion.npz``;
    a UsageError naming the manifest when it is invalid or a playable folder has no
    champion)."""
    return playable_champions(root)


def champion_listing(root: str | Path) -> list[dict]:
    """The champions as ``/api/agents`` lists them: seat (``champion:NAME``), game, kind,
    name and what it is (from the manifest; without one, game and kind from each
    ``champion.json`` and no ``what``)."""
    root = Path(root)
    found = champions(root)
    if (root / MANIFEST).is_file():
        entries = load_manifest(root)
        return [{"seat": f"champion:{name}", "game": entries[name].game, "kind": entries[name].kind, "name": name,
                 "what": entries[name].what} for name in found]
    out = []
    for name, path in found.items():
        try:
            meta = json.loads(path.with_suffix(".json").read_text())
        except (OSError, ValueError):
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        out.append({"seat": f"champion:{name}", "game": meta.get("game", ""), "kind": meta.get("kind", "network"),
                    "name": name, "what": ""})
    return out


class Policy:
    """The limits of one server applied to seats, hints and tables (see the module docstring)."""

    def __init__(self, populations: str | Path, limits: Limits):
        self.populations = Path(populations)
        self.limits = limits
        # the manifest is read once: a bad one fails when the server starts, and a champion
        # offered by GET /api/agents is the one a table seats
        self.champions = champions(self.populations)
        self.listing = champion_listing(self.populations)

    def refuse(self, what: str, limit: str, status: int = 400) -> ApiError:
        """The error for ``what`` going past the limit field ``limit`` (named with its option)."""
        return ApiError(status, f"{what}: this server's limit is {self.limits.shown(limit)} "
                                f"({Limits.option(limit)})")

    # ------------------------------------------------------------------ tables

    def deals(self, deals: int, game: Game) -> int:
        """The deals a table plays when a client asks for ``deals``: at most ``max_deals``;
        0 plays to the game target, or ``max_deals`` deals in a game without one."""
        if deals > self.limits.max_deals:
            raise self.refuse(f"deals={deals} is too many", "max_deals")
        return deals or (0 if game.target else self.limits.max_deals)

    # ------------------------------------------------------------------ seats

    def player(self, seat: Any, game: Game) -> Player:
        """The table seat a client named (ApiError 400 when this server does not allow it)."""
        if not isinstance(seat, str):
            raise ApiError(400, f"seat {seat!r} is not a string (human, a bot URL or an agent)")
        text = seat.strip()
        if text.lower() in (HUMAN, "me"):
            return Player(HUMAN, None)
        if is_url(text):
            self.check_bot(text)
            return Player(text, remote_decide(text, self.limits.bot_timeout))
        return self.agent(text, game)

    def agent(self, text: str, game: Game) -> Player:
        """A machine seat from a registered agent or ``champion:NAME``, checked and resolved."""
        if not text:
            raise ApiError(400, "empty seat; expected human, a bot URL (http://...) or an agent seat string")
        try:
            player = agent_player(self._server_seat(text, game), game)
        except (UsageError, ValueError) as err:
            raise ApiError(400, str(err)) from None
        # views and logs show the client's own words, never a server path
        return replace(player, seat_string=text)

    def check_bot(self, url: str) -> None:
        """A remote bot URL is allowed only on the hosts of ``--allow-bots``."""
        allowed = self.limits.allow_bots
        if not allowed:
            raise ApiError(400, f"remote bot seats are off on this server (seat {url[:200]!r}); its operator "
                                "can allow them with --allow-bots HOST[:PORT],...")
        try:
            parts = urllib.parse.urlsplit(url)
            host, port = (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as err:
            raise ApiError(400, f"seat {url[:200]!r} is not a valid URL: {err}") from None
        shown = f"[{host}]" if ":" in host else host
        if shown not in allowed and f"{shown}:{port}" not in allowed:
            raise ApiError(400, f"remote bot host {shown}:{port} is not allowed on this server; allowed: "
                                f"{', '.join(allowed)} (--allow-bots)")

    def _server_seat(self, text: str, game: Game, depth: int = 0) -> str:
        """``text`` with every champion name made its server path, after every check."""
        if depth > 3:
            raise ApiError(400, f"seat {text[:200]!r} nests seat strings too deeply")
        name, _, rest = text.partition(":")
        name = name.strip()
        if is_url(text) or name.lower() in (HUMAN, "me"):
            raise ApiError(400, f"{text[:200]!r} cannot stand inside another seat string")
        if name == "champion":
            return self._champion(rest, game, depth)
        agent = AGENTS.get(name)
        if agent is None:
            return text      # the registry's own error names the valid agents
        given: dict[str, str] = {}
        for item in filter(None, (p.strip() for p in split_top(rest, text))):
            key, eq, value = item.partition("=")
            value = value.strip()
            if value.startswith("(") and value.endswith(")"):
                value = value[1:-1]
            if key in FILE_OPTIONS and value:
                raise ApiError(400, f"seat {text[:200]!r}: option {key} names a file on the server, which a "
                                    "client may not do (leave it out for the shipped default)")
            if key in SEAT_OPTIONS:
                value = self._server_seat(value, game, depth + 1)
            given[key] = value
        try:
            opts = resolve_options(agent.options, given, f"agent {name!r}")
        except UsageError as err:
            raise ApiError(400, str(err)) from None
        self._check_budget(text, opts)
        return name + (":" + ",".join(f"{k}=({v})" if "," in v or ":" in v else f"{k}={v}"
                                      for k, v in given.items()) if given else "")

    def _check_budget(self, text: str, opts: dict) -> None:
        playouts = math.prod(int(opts[k]) for k in COUNT_OPTIONS if k in opts)
        if any(k in opts for k in COUNT_OPTIONS) and playouts > self.limits.max_iterations:
            raise self.refuse(f"seat {text[:200]!r} asks for {playouts} playouts per decision", "max_iterations")
        # P-DMCTS / P-ISMCTS draw `candidates` deals per determinization (one per tree or per iteration)
        draws = int(opts.get("candidates", 0)) * int(opts.get("determinizations", opts.get("iterations", 1)))
        if draws > self.limits.max_iterations:
            raise self.refuse(f"seat {text[:200]!r} asks for {draws} candidate deals per decision", "max_iterations")
        if opts.get("bidder") == "search" and opts.get("bid_iterations", 0) > self.limits.max_iterations:
            raise self.refuse(f"seat {text[:200]!r} asks for bid_iterations={opts['bid_iterations']}",
                              "max_iterations")
        if float(opts.get("seconds", 0) or 0) > self.limits.max_seconds:
            raise self.refuse(f"seat {text[:200]!r} asks for seconds={opts['seconds']:g} per decision",
                              "max_seconds")

    def _champion(self, rest: str, game: Game, depth: int) -> str:
        name, at, pair = rest.partition("@")
        found = self.champions
        if name.strip() not in found:
            valid = ", ".join(found) or "none"
            which = ", among those its manifest marks playable" if (self.populations / MANIFEST).is_file() else ""
            raise ApiError(400, f"unknown champion {name.strip()[:200]!r}: a champion is named by its folder in "
                                f"this server's populations folder{which}; valid: {valid}")
        if at and ":" in pair:     # a card-play seat string for an evolved bidder
            pair = self._server_seat(pair, game, depth + 1)
        elif at:                   # a bidder, perhaps with options (search,bid_iterations=400)
            self._check_bidder(pair, f"champion:{rest}")
        return f"champion:{found[name.strip()]}" + (f"@{pair}" if at else "")

    def _check_bidder(self, pair: str, text: str) -> None:
        """The bidder of ``champion:NAME@bidder,key=value``: no file named, within budget."""
        bidder, *items = pair.split(",")
        given = {"bidder": bidder.strip()}
        for item in filter(None, (i.strip() for i in items)):
            key, _, value = item.partition("=")
            if key.strip() in FILE_OPTIONS and value.strip():
                raise ApiError(400, f"seat {text[:200]!r}: option {key.strip()} names a file on the server, which "
                                    "a client may not do (leave it out for the shipped default)")
            given[key.strip()] = value.strip()
        try:
            opts = resolve_options(BIDDER_OPTIONS, given, f"bidder {pair[:200]!r}")
        except UsageError as err:
            raise ApiError(400, str(err)) from None
        self._check_budget(text, opts)
