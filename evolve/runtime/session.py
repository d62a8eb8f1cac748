"""A table where agents, remote bots and people play whole games, one decision at a time.

``Table(game, seats, seed)`` deals exactly the deals ``evolve.play(game, ..., seed=seed)``
deals (deal ``i`` from ``(seed, i)``, the dealer rotating from ``dealer``), then walks
through each deal's bidding or trump choice, the play and the scoring with the rules layer:
the bidding follows the game's protocol (``evolve.games.protocol``, which mirrors the deal
kernel step by step), the play runs on ``evolve.games.stepper.TrickState`` (the engine's
legality and the one trick step) and each hand is scored by the protocol with the game's
own ``score_deal``; games to the target are summed with the
engine's ``accumulate_games``. So a table of deterministic agents reproduces
``evolve.play`` deal for deal.

Seats (``make_player``): a registered agent's seat string (``champion:PATH`` included), a
remote bot's URL (``http://...``: the table POSTs the observation as JSON and expects
``{"action": ...}``), or ``human`` (the table waits for ``Table.act``)::

    t = Table("jass", ["human", "jass_rule_based", "random", "jass_rule_based"], seed=1, deals=1)
    t.advance()                       # the machines play until a human must decide
    obs = t.observation(0)            # what seat 0 sees, with obs["legal"]
    t.act(0, obs["legal"][0])         # IllegalAction (table unchanged) if it is not legal
    t.advance()
    t.log()                           # JSON: seed, seats, every action with its seat, scores

Every action goes into the log; ``replay(log)`` plays the logged actions again on a fresh
table and returns it, so its scores can be compared with the log's.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from evolve.agents.registry import split_seats
from evolve.core.errors import UsageError, checked_int, is_int
from evolve.games.bits import N_STREAMS, seed_key
from evolve.games.dealing import deal_cards
from evolve.games.match import accumulate_games
from evolve.games.observation import Observation
from evolve.games.registry import Game, make_game
from evolve.games.stepper import TrickState, trick_pairs  # noqa: F401  (trick_pairs: for the table's users)

LOG_FORMAT = "trick-evolve table log"
LOG_VERSION = 1
OBS_FIELDS = ("game", "options", "seat", "dealer", "hand", "phase", "trump", "upcard", "calls", "maker",
              "out_seat", "tricks", "trick", "score", "game_score")
HUMAN = "human"
BOT_TIMEOUT = 10.0


class TableError(ValueError):
    """A request the table refuses (not your turn, an illegal action); the table is unchanged."""


class IllegalAction(TableError):
    """An action that is not legal for the seat to act."""


class BotError(TableError):
    """A remote bot did not answer with a legal action."""


# ----------------------------------------------------------------------------- players


@dataclass
class Player:
    """One seat: ``decide(obs) -> action`` for machines (``obs`` an ``evolve.Observation``),
    ``None`` for a human; ``new_deal(seed, i)`` is called as deal ``i`` starts. ``streams``
    is an agent's random streams (the array it draws from, updated in place): with the
    actions taken, they are all a saved table needs to go on mid-deal as it would have."""

    seat_string: str
    decide: Callable[[Observation], Any] | None
    new_deal: Callable[[int, int], Any] | None = None
    streams: np.ndarray | None = None

    @property
    def human(self) -> bool:
        return self.decide is None


def is_url(text: str) -> bool:
    """True for a remote bot's seat (``http://...`` or ``https://...``)."""
    return text.startswith(("http://", "https://"))


def bot_request(obs: Observation) -> dict:
    """The JSON a remote bot receives: the observation, the decision due and its legal actions."""
    return {"observation": obs.to_dict(), "decision": obs.decision, "legal": obs.legal()}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: a bot answers at the URL its seat names, never at one it points to."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {newurl} refused", headers, fp)


_BOT_OPENER = urllib.request.build_opener(_NoRedirect)
BOT_ANSWER_BYTES = 65536      # an answer is {"action": n}; anything longer is not a bot's answer


def remote_decide(url: str, timeout: float = BOT_TIMEOUT) -> Callable[[Observation], Any]:
    """A decision function that POSTs ``bot_request(obs)`` to ``url`` and returns the
    ``action`` of its JSON answer (BotError if there is none, if the bot redirects or if it
    answers more than ``BOT_ANSWER_BYTES``)."""

    def decide(obs: Observation) -> Any:
        body = json.dumps(bot_request(obs)).encode()
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
        try:
            with _BOT_OPENER.open(req, timeout=timeout) as resp:
                text = resp.read(BOT_ANSWER_BYTES + 1)
                if len(text) > BOT_ANSWER_BYTES:
                    raise ValueError(f"an answer of more than {BOT_ANSWER_BYTES} bytes")
                answer = json.loads(text.decode() or "null")
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise BotError(f"remote bot {url} failed: {e}") from None
        if not isinstance(answer, dict) or "action" not in answer:
            raise BotError(f'remote bot {url} must answer a JSON object {{"action": ...}}, got {str(answer)[:80]}')
        return answer["action"]

    return decide


def agent_player(seat_string: str, game: Game) -> Player:
    """A registered agent's seat (``evolve.agent``). Its random stream is the engine's for
    each deal (``Agent.new_deal``), so it decides as it would inside ``evolve.play``."""
    from evolve.runtime.decide import agent

    a = agent(seat_string, game.name, **game.options)
    return Player(seat_string, a.act, lambda seed, i: a.new_deal(i, seed=seed), a.rngs)


def make_player(seat_string: str, game: Game) -> Player:
    """A seat from its string: ``human`` (or ``me``), a bot URL, or an agent seat string
    (UsageError, one line, if it is none of these)."""
    text = str(seat_string).strip()
    if text.lower() in (HUMAN, "me"):
        return Player(HUMAN, None)
    if is_url(text):
        return Player(text, remote_decide(text))
    if not text:
        raise UsageError("empty seat; expected human, a bot URL (http://...) or an agent seat string")
    return agent_player(text, game)


# ----------------------------------------------------------------------------- table


class Table:
    """A table of four seats playing ``game`` from ``seed`` (see the module docstring).

    ``deals``: stop after this many deals (0: play to the game target; with no target the
    table goes on until it is dropped). ``dealer``: the first deal's dealer. ``start``: the
    first deal is deal ``start`` of the run (its deck and random streams); ``decks``: play
    these decks (one row per deal) instead of shuffled ones, as ``evolve.play(decks=...)``."""

    def __init__(self, game: str | Game, seats: Sequence[str | Player], seed: int = 0, *, deals: int = 0,
                 dealer: int = 0, start: int = 0, decks=None, **options: Any):
        self.game = make_game(game, **options)
        if isinstance(seats, str):
            seats = split_seats(seats)
        seats = list(seats)
        if len(seats) == 2:
            seats = seats * 2
        if len(seats) != 4:
            raise UsageError(f"a table needs 4 seats (or 2, repeated as a,b,a,b), got {len(seats)}")
        self.players = [s if isinstance(s, Player) else make_player(s, self.game) for s in seats]
        self.seed = checked_int(seed, "seed", 0)
        self.max_deals = checked_int(deals, "deals", 0, expect="a non-negative integer (0: to the game target)")
        self.first_dealer = checked_int(dealer, "dealer", 0, 3, expect="a seat 0..3")
        self._key = seed_key(self.seed)
        self.start = checked_int(start, "start", 0)
        self._decks = np.empty((0, self.game.info.n_cards), np.int64) if decks is None else \
            np.asarray(decks, np.int64).reshape(-1, self.game.info.n_cards)
        self.actions: list[dict] = []
        self.results: list[dict] = []     # one per finished deal
        self.over = False
        self.winner = -1
        self.error = ""                   # the last remote bot failure, if any
        self._observation = None          # (actions so far, the observation of the seat to act)
        self._start_deal(0)

    # ------------------------------------------------------------------ dealing

    @property
    def info(self):
        return self.game.info

    def _start_deal(self, index: int) -> None:
        info = self.info
        self.deal_index = index
        self.dealer = (self.first_dealer + index) % 4
        rngs = np.empty(N_STREAMS, np.uint64)
        deck = np.empty(info.n_cards, np.int64)
        given = self._decks[index:index + 1] if index < self._decks.shape[0] else self._decks[:0]
        deal_cards(self._key, np.int64(self.start + index), rngs, deck, given, 0)
        h = info.hand_size
        self.dealt = [sorted(int(c) for c in deck[s * h:(s + 1) * h]) for s in range(4)]
        self.rest = [int(c) for c in deck[4 * h:]]
        self.hands = [list(x) for x in self.dealt]
        self.state: TrickState | None = None
        for p in getattr(self, "players", []):
            if p.new_deal is not None:
                p.new_deal(self.seed, self.start + index)
        # the deal's course through the game's protocol (it keeps ``hands`` up to date)
        self.deal = self.protocol.start(
            self.dealer, self.protocol.shown_card(deck, self.dealer, rngs), hands=self.hands
        )
        self._next()

    def _next(self) -> None:
        """Ask for the decision the protocol says is due, start the play, or end a deal
        that is passed out (no play, no score)."""
        d = self.deal
        if d.playing:
            self.state = TrickState(self.game, self.hands, d.mode, d.leader, out_seat=d.out_seat, dealer=self.dealer)
            self.step, self.to_act = "card", self.state.to_move
        elif d.passed_out:
            self._finish_deal()
        else:
            self.step, self.to_act = d.decision, d.to_act

    @property
    def protocol(self):
        return self.game.protocol

    # the deal's public course, as the protocol keeps it
    upcard = property(lambda self: self.deal.upcard, doc="The turned or shown card (-1: none).")
    trump = property(lambda self: self.deal.mode, doc="The trump mode (-1 while open).")
    maker = property(lambda self: self.deal.maker, doc="The seat that fixed trump (-1: none).")
    alone = property(lambda self: self.deal.alone, doc="The maker plays alone.")
    calls = property(lambda self: self.deal.calls, doc="The public calls, (seat, action) in order.")
    bids = property(lambda self: self.deal.bids, doc="Spades bids per seat (-1: none).")
    discard = property(lambda self: self.deal.discard, doc="The Euchre dealer's discard (-1: none).")
    leader = property(lambda self: self.deal.leader, doc="The leader of the first trick once the play starts.")

    # ------------------------------------------------------------------ observations

    def game_score(self) -> list[int]:
        """Game score per side before the current deal (0 after a game is won)."""
        if not self.results:
            return [0] * self.game.n_sides
        last = self.results[-1]
        return [0] * self.game.n_sides if last["game_winner"] >= 0 else list(last["game_score"])

    def view(self, seat: int) -> dict:
        """What ``seat`` sees now, whether or not it is to act, as JSON-ready fields of
        ``evolve.Observation`` (``hand``, ``calls``, ``tricks``, ``trick``, ...) plus
        ``decision`` (due now, "over" at the end) and ``to_act`` (the seat to decide)."""
        seat = int(seat)
        st = self.state
        if st is not None:
            hand = st.hand(seat)
            tricks = [[[s, c] for s, c in pairs] for pairs in st.trick_pairs()]
            trick = [] if st.done else [[s, c] for s, c in st.trick()]   # done: the last trick is in tricks
            score = list(self.protocol.running_score(st.pub))
        else:
            hand, tricks, trick, score = self.protocol.decision_hand(self.deal, seat), [], [], [0] * self.game.n_sides
        return {
            "game": self.game.name, "options": dict(self.game.options), "seat": seat, "dealer": self.dealer,
            "hand": hand, "phase": "play" if st is not None else "bid", "trump": self.trump, "upcard": self.upcard,
            "calls": [[s, a] for s, a in self.calls], "maker": self.maker,
            "out_seat": (self.maker + 2) % 4 if self.alone else -1, "tricks": tricks, "trick": trick,
            "score": score, "game_score": self.game_score(),
            "decision": "over" if self.over else self.step, "to_act": self.to_act,
        }

    def observation(self, seat: int | None = None) -> Observation:
        """The ``evolve.Observation`` of the seat to act (``seat``, if given, must be it)."""
        if self.over:
            raise TableError("the table is over: no decision is due")
        if seat is not None and seat != self.to_act:
            raise TableError(f"it is seat {self.to_act}'s turn ({self.step}), not seat {seat}'s")
        # built once per position: the machine seats' decision and ``act``'s check share it
        # (only an action moves the table on)
        if self._observation is None or self._observation[0] != len(self.actions):
            v = self.view(self.to_act)
            self._observation = (len(self.actions), Observation.from_dict({k: v[k] for k in OBS_FIELDS}))
        return self._observation[1]

    def legal(self) -> list[int]:
        """The legal actions of the seat to act (cards, bids or calls), from the rules layer."""
        return [] if self.over else self.observation().legal()

    # ------------------------------------------------------------------ acting

    def act(self, seat: int, action: Any) -> None:
        """Apply ``action`` for ``seat``; TableError / IllegalAction (table unchanged) when it
        is not that seat's turn or the action is not legal."""
        if self.over:
            raise TableError("the table is over")
        seat = checked_int(seat, "seat", 0, 3, expect="a seat 0..3", error=TableError)
        obs = self.observation(int(seat))
        if obs.decision != self.step:      # the table and the rules layer must agree on what is due
            raise AssertionError(f"table expects {self.step}, observation {obs.decision}")
        legal = obs.legal()
        if not is_int(action) or int(action) not in legal:
            names = ", ".join(f"{a} ({obs.action_name(a)})" for a in legal)
            raise IllegalAction(f"action {action!r} is not legal for seat {seat} ({self.step}); legal: {names}")
        action = int(action)
        self.actions.append({"deal": self.deal_index, "seat": int(seat), "decision": self.step, "action": action,
                             "name": obs.action_name(action)})
        self._apply(int(seat), action)

    def _apply(self, seat: int, a: int) -> None:
        if self.step == "card":
            self.state.play(a)
            if self.state.done:
                self._finish_deal()
            else:
                self.to_act = self.state.to_move
            return
        self.protocol.apply(self.deal, seat, a)
        self._next()

    def _finish_deal(self) -> None:
        g = self.game
        n_sides = g.n_sides
        tricks = np.zeros(4, np.int64)
        points = np.zeros(2, np.int64)
        score = np.zeros(4, np.int64)
        bags = np.zeros(2, np.int64)
        st = self.state
        history = []
        if st is not None:
            tricks[:] = st.tricks_won
            points = self.protocol.side_points(tricks, st.pub)
            score, bags = self.protocol.hand_score(self.deal, tricks, points, st.pub)
            history = [{"leader": int(ld), "cards": [int(c) for c in cards], "winner": int(w)}
                       for ld, cards, w in st.history()]
        self.results.append({
            "deal": self.deal_index, "dealer": self.dealer, "hands": self.dealt, "rest": self.rest,
            "upcard": self.upcard, "trump": self.trump if st is not None else -1, "maker": self.maker,
            "alone": bool(self.alone), "discard": self.discard,
            "private": list(self.deal.private), "bids": list(self.bids),
            "calls": [[s, a] for s, a in self.calls], "tricks_per_trick": history,
            "tricks": [int(x) for x in tricks], "points": [int(x) for x in points],
            "score": [int(x) for x in score[:n_sides]], "bags": [int(x) for x in bags],
        })
        # game scores exactly as evolve.play sums them
        sc = np.array([r["score"] for r in self.results], np.int64).reshape(-1, n_sides)
        bg = np.array([r["bags"] for r in self.results], np.int64).reshape(-1, 2)
        game_id, game_score, winner = accumulate_games(sc, bg, n_sides, g.target, g.bag_limit,
                                                       g.protocol.target_is_loss)
        self.results[-1]["game_id"] = int(game_id[-1])
        self.results[-1]["game_score"] = [int(x) for x in game_score[-1]]
        self.results[-1]["game_winner"] = int(winner[-1])
        if winner[-1] >= 0:
            self.winner = int(winner[-1])
        if winner[-1] >= 0 or (self.max_deals and len(self.results) >= self.max_deals):
            self.over = True
            self.step, self.to_act = "over", -1
            return
        self._start_deal(self.deal_index + 1)

    def advance(self, limit: int = 100_000) -> None:
        """Let the machine seats act until a human must decide or the table is over. A remote
        bot's failure stops here with ``error`` set (the table is unchanged; call again to retry)."""
        self.error = ""
        for _ in range(limit):
            if self.over:
                return
            player = self.players[self.to_act]
            if player.human:
                return
            seat = self.to_act
            try:
                action = player.decide(self.observation(seat))
                if isinstance(action, (np.integer,)):
                    action = int(action)
                self.act(seat, action)
            except TableError as e:
                self.error = f"seat {seat} ({player.seat_string}): {e}"
                raise BotError(self.error) from None

    # ------------------------------------------------------------------ log

    def log(self) -> dict:
        """The table as JSON: game, options, seed, seats, every action with its seat and each
        finished deal's result (hands, calls, tricks, scores, game scores). Until the table
        is over only the finished deals' actions are in it: the deal in play stays hidden."""
        done = [a for a in self.actions if self.over or a["deal"] < self.deal_index]
        return {
            "format": LOG_FORMAT, "version": LOG_VERSION,
            "game": self.game.name, "options": dict(self.game.options), "seed": self.seed,
            "dealer": self.first_dealer, "deals": self.max_deals,
            "seats": [p.seat_string for p in self.players],
            "actions": done, "results": list(self.results),
            "game_score": self.results[-1]["game_score"] if self.results else [0] * self.game.n_sides,
            "winner": self.winner, "over": self.over,
        }


def check_log(log: Any) -> dict:
    """``log`` if it looks like a table log, else UsageError naming what is wrong."""
    if not isinstance(log, dict) or log.get("format") != LOG_FORMAT:
        raise UsageError(f"not a table log: expected a JSON object with format {LOG_FORMAT!r}")
    for key, kind in (("game", str), ("options", dict), ("seed", int), ("actions", list), ("seats", list)):
        if not isinstance(log.get(key), kind):
            raise UsageError(f"table log: {key!r} is missing or not a {kind.__name__}")
    return log


def replay(log: dict) -> Table:
    """Play the logged actions again on a fresh table (no agent is asked) and return it;
    its ``log()`` results equal the original's. UsageError if the log does not replay."""
    log = check_log(log)
    scripted = [Player(s, None) for s in log["seats"]]
    t = Table(log["game"], scripted, int(log["seed"]), deals=int(log.get("deals", 0)),
              dealer=int(log.get("dealer", 0)), **log["options"])
    for k, a in enumerate(log["actions"]):
        try:
            t.act(a["seat"], a["action"])
        except (TableError, KeyError, TypeError) as e:
            raise UsageError(f"table log: action {k} does not replay: {e}") from None
    return t
