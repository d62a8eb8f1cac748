"""Any agent as a ``pyspiel.Bot`` for OpenSpiel's ``spades`` and ``euchre``.

::

    import pyspiel
    from evolve.interop.openspiel import OpenSpielBot
    game = pyspiel.load_game("spades")
    bots = [OpenSpielBot("highlow:bidder=simple", game, p) if p % 2 == 0 else pyspiel.make_uniform_random_bot(p, 1)
            for p in range(4)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)

At each ``step`` the bot builds an ``evolve.Observation`` from that player's information
only (``observation``): its own hand from the player's private tensor (Spades
``private_observation_tensor``, Euchre the hand block of ``information_state_tensor``)
and the public actions of the history (bids, calls, the turned card, cards played, who
goes alone). Chance outcomes that deal cards and the Euchre dealer's discard are never
read. The agent (``evolve.agent``) then decides exactly as in our engine.

Rules as OpenSpiel plays them (see ``tests/referees/openspiel_*.py`` for the sources):

- Spades: partnership, standard bidding (nil, bags), player 0 bids first and leads, so
  our dealer is 3; OpenSpiel never breaks spades (a spade may be led only from an
  all-spade hand): our option ``never_broken=true``;
- Euchre: the dealer may not discard the turned card (``discard_upcard=False``),
  ``stick_the_dealer`` as the OpenSpiel game says; ``allow_lone_defender`` is not
  supported (our engine has no lone defender).

Card and action mapping (also used by the referee tests): Spades card actions are our
card ids (suit * 13 + rank, C D H S, 2..A) and bids are ``52 + bid``; Euchre cards are
``rank * 4 + suit`` in OpenSpiel and ``suit * 6 + rank`` here (``to_os_card``,
``to_our_card``), 24 is pass, 25..28 name clubs..spades (order up = the turned card's
suit), 29 go alone, 30 with the partner.

``python -m evolve.interop.openspiel compare --game spades --seat highlow:bidder=simple``
plays the same match (the seat at players 0 and 2 against OpenSpiel's uniform random bot)
in OpenSpiel and in our engine, and prints both points per hand with their CIs and the
difference: the cross-engine check of the rules and the agents.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyspiel

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.games.euchre.hooks import CALL_ALONE, CALL_ORDER, CALL_PARTNER, CALL_PASS
from evolve.games.observation import Observation, seat_plays
from evolve.runtime.decide import Agent

# ----------------------------------------------------------------- card and action maps
SPADES_BID_BASE = 52          # OpenSpiel spades: bid b is action 52 + b
EUCHRE_PASS = 24
EUCHRE_TRUMP_BASE = 25        # 25..28: clubs, diamonds, hearts, spades
EUCHRE_ALONE = 29
EUCHRE_PARTNER = 30
_EUCHRE_HAND_AT = 4 + 24 + 8 * 5 + 3     # hand block of Euchre's information_state_tensor
SPADES_DEALER = 3                          # player 0 bids first and leads


def our_to_os_spades(card: int) -> int:
    """Our Spades card id -> OpenSpiel's card action (the same numbering)."""
    return int(card)


def os_to_our_spades(action: int) -> int:
    """OpenSpiel Spades card action -> our card id (the same numbering)."""
    return int(action)


def to_os_card(card: int) -> int:
    """Our Euchre card id (suit*6+rank) -> OpenSpiel card id (rank*4+suit)."""
    card = int(card)
    return (card % 6) * 4 + card // 6


def to_our_card(os_card: int) -> int:
    """OpenSpiel Euchre card id (rank*4+suit) -> our card id (suit*6+rank)."""
    os_card = int(os_card)
    return (os_card % 4) * 6 + os_card // 4


class SpadesAdapter:
    """OpenSpiel's ``spades``: partnership, standard bidding, player 0 bids first and leads
    (our dealer 3), spades never broken; bids are ``52 + bid``, cards our own ids."""

    name = "spades"
    dealer = SPADES_DEALER

    def options(self, params: dict) -> dict:
        return {"partnership": True, "bidding": "standard", "never_broken": True}

    def observation(self, state, player: int, g) -> Observation:
        hand = tuple(int(c) for c in np.flatnonzero(np.asarray(state.private_observation_tensor(player))))
        public = state.history()[52:]                      # the first 52 actions deal the cards
        bids = [a - SPADES_BID_BASE for a in public[:4]]
        calls = tuple((s, b) for s, b in enumerate(bids))    # player 0 bids first
        cards = [os_to_our_spades(a) for a in public[4:]]
        phase = "bid" if len(bids) < 4 else "play"
        tricks, trick = seat_plays(g, 0, 0, -1, cards)
        return Observation(game=g.name, options=dict(g.options), seat=player, dealer=SPADES_DEALER, hand=hand,
                           phase=phase, trump=0, calls=calls, tricks=tricks, trick=trick)

    def to_os(self, obs: Observation, action: int) -> int:
        return SPADES_BID_BASE + action if obs.decision == "bid" else our_to_os_spades(action)

    def hand_points(self, r) -> np.ndarray:
        """Side 0's points per hand as OpenSpiel scores a single hand: the hand score with
        the bag penalty of a hand with ten bags or more."""
        return (r.score[:, 0] - 100 * (r.bags[:, 0] >= 10)).astype(float)


class EuchreAdapter:
    """OpenSpiel's ``euchre``: the dealer may not discard the turned card; cards are
    ``rank * 4 + suit``, 24 pass, 25..28 name clubs..spades (order up = the turned card's
    suit), 29 alone, 30 with the partner. The bidding is walked by our protocol."""

    name = "euchre"
    dealer = 0

    def options(self, params: dict) -> dict:
        if params.get("allow_lone_defender", False):
            raise UsageError("OpenSpiel euchre with allow_lone_defender=true is not supported (our Euchre has no "
                             "lone defender); load it with allow_lone_defender=false")
        return {"stick_the_dealer": bool(params.get("stick_the_dealer", True)), "discard_upcard": False}

    @staticmethod
    def _ours(decision: str, action: int) -> int:
        if decision == "order":
            return CALL_PASS if action == EUCHRE_PASS else CALL_ORDER
        if decision == "call":
            return CALL_PASS if action == EUCHRE_PASS else action - EUCHRE_TRUMP_BASE
        return CALL_ALONE if action == EUCHRE_ALONE else CALL_PARTNER

    def observation(self, state, player: int, g) -> Observation:
        tensor = np.asarray(state.information_state_tensor(player))
        hand = tuple(sorted(to_our_card(c) for c in np.flatnonzero(tensor[_EUCHRE_HAND_AT:_EUCHRE_HAND_AT + 24])))
        hist = state.history()
        dealer = int(hist[0])                               # chance: the dealer (public)
        protocol = g.protocol
        deal = protocol.start(dealer, to_our_card(hist[21]))   # 20 private deal actions, then the upcard
        k = 22
        while k < len(hist) and not deal.playing:          # the bidding
            a = int(hist[k])
            k += 1
            if deal.decision == "discard":
                protocol.skip_private(deal)                 # the dealer's discard: private, never read
            else:
                protocol.apply(deal, deal.to_act, self._ours(deal.decision, a))
        phase = "play" if deal.playing else "bid"
        cards = [to_our_card(a) for a in hist[k:]]
        tricks, trick = seat_plays(g, deal.mode, deal.leader, deal.out_seat, cards) if deal.playing else ((), ())
        return Observation(game=g.name, options=dict(g.options), seat=player, dealer=dealer, hand=hand, phase=phase,
                           trump=deal.mode, upcard=deal.upcard, calls=tuple(deal.calls), maker=deal.maker,
                           out_seat=deal.out_seat, tricks=tricks, trick=trick)

    def to_os(self, obs: Observation, action: int) -> int:
        d = obs.decision
        if d in ("card", "discard"):
            return to_os_card(action)
        if d == "order":
            return EUCHRE_TRUMP_BASE + obs.upcard // 6 if action == CALL_ORDER else EUCHRE_PASS
        if d == "call":
            return EUCHRE_PASS if action == CALL_PASS else EUCHRE_TRUMP_BASE + action
        return EUCHRE_ALONE if action == CALL_ALONE else EUCHRE_PARTNER

    def hand_points(self, r) -> np.ndarray:
        """Side 0's score minus side 1's: OpenSpiel's zero-sum returns."""
        return (r.score[:, 0] - r.score[:, 1]).astype(float)


ADAPTERS = {a.name: a for a in (SpadesAdapter(), EuchreAdapter())}


def _adapter(game: "pyspiel.Game"):
    name = game.get_type().short_name
    if name not in ADAPTERS:
        raise UsageError(f"OpenSpiel game {name!r} is not supported; expected {' or '.join(ADAPTERS)}")
    return ADAPTERS[name]


def game_options(game: "pyspiel.Game") -> tuple[str, dict]:
    """Our game name and options for an OpenSpiel ``spades`` or ``euchre`` game."""
    adapter = _adapter(game)
    return adapter.name, adapter.options(game.get_parameters())


# ----------------------------------------------------------------- observations
def observation(state, player: int, game=None) -> Observation:
    """Player ``player``'s observation of an OpenSpiel ``spades`` / ``euchre`` state at
    its decision, from its own cards and the public actions only."""
    from evolve.games.registry import make_game

    name, options = game_options(state.get_game())
    return ADAPTERS[name].observation(state, player, game or make_game(name, **options))


def to_os_action(obs: Observation, action: int) -> int:
    """Our action at ``obs`` -> OpenSpiel's action."""
    return ADAPTERS[obs.game].to_os(obs, action)


# ----------------------------------------------------------------- the bot
class OpenSpielBot(pyspiel.Bot):
    """``seat`` (a seat string or ``champion:PATH``) playing player ``player_id`` of the
    OpenSpiel ``game``. ``seed`` fixes its random stream; game ``k`` after ``restart``
    uses deal ``k``'s streams (``Agent.new_deal``), so a run of ``evaluate_bots`` is
    reproducible. Stateless between steps: the observation is rebuilt from the state."""

    def __init__(self, seat: str, game: "pyspiel.Game", player_id: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        name, options = game_options(game)
        self.agent = Agent(seat, name, seed=seed, **options)
        self.player_id = int(player_id)
        self.games = 0

    def step(self, state) -> int:
        """The agent's action for ``state`` (this bot's player must be to move)."""
        if state.current_player() != self.player_id:
            raise ValueError(f"player {state.current_player()} is to move, not this bot's player {self.player_id}")
        obs = observation(state, self.player_id, self.agent.game)
        action = to_os_action(obs, self.agent.act(obs))
        if action not in state.legal_actions():     # the rules agree (tests/test_referee_openspiel.py)
            raise ValueError(f"{self.agent.name} chose {action}, which OpenSpiel does not allow at {state.history()}")
        return action

    def restart(self):
        """A new game: move to the next deal's random streams."""
        self.games += 1
        self.agent.new_deal(self.games)

    def restart_at(self, state):
        self.restart()

    def inform_action(self, state, player_id, action):
        """Nothing to track: every step rebuilds the observation from the state."""

    def inform_actions(self, state, actions):
        """Nothing to track (simultaneous moves do not occur in these games)."""

    def provides_force_action(self):
        return False

    def provides_policy(self):
        return False

    def is_clonable(self):
        return False


# ----------------------------------------------------------------- cross-engine check
def openspiel_match(game: str, seat: str, hands: int, seed: int = 0, opponent: str = "random") -> np.ndarray:
    """Points per hand of players 0 and 2 (``seat``) against players 1 and 3 in OpenSpiel
    (``opponent``: "random" = OpenSpiel's uniform random bot, "ismcts" = its C++
    ISMCTSBot with 100 simulations and random rollouts), one value per hand."""
    g = pyspiel.load_game(game)
    rng = np.random.default_rng(seed)
    out = np.empty(hands)
    ours = {p: OpenSpielBot(seat, g, p, seed=seed) for p in (0, 2)}
    for h in range(hands):
        s = int(rng.integers(2 ** 31 - 1))
        if opponent == "ismcts":
            ev = pyspiel.RandomRolloutEvaluator(1, s)
            theirs = {p: pyspiel.ISMCTSBot(s + p, ev, 2.0, 100, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                                           False, False) for p in (1, 3)}
        else:
            theirs = {p: pyspiel.make_uniform_random_bot(p, s + p) for p in (1, 3)}
        bots = [ours.get(p) or theirs[p] for p in range(4)]
        out[h] = pyspiel.evaluate_bots(g.new_initial_state(), bots, s)[0]
    return out


def engine_match(game: str, seat: str, deals: int, seed: int = 0) -> np.ndarray:
    """The same match in our engine: ``seat`` at seats 0 and 2 against random cards and
    random calls (as OpenSpiel's uniform random bot plays), under
    OpenSpiel's rules and scoring, points of side 0 per hand (Spades: the hand score with
    the bag penalty of a hand with ten bags or more, as OpenSpiel scores a single hand;
    Euchre: side 0's score minus side 1's, OpenSpiel's zero-sum returns; passed-out
    deals, which OpenSpiel's stick-the-dealer never has, do not occur either)."""
    from evolve.runtime.play import play

    name, options = game_options(pyspiel.load_game(game))
    adapter = ADAPTERS[name]
    r = play(name, [seat, "random:bidder=random"], deals, seed=seed, dealer=adapter.dealer, **options)
    return adapter.hand_points(r)


def compare(game: str, seat: str, hands: int, deals: int, seed: int = 0) -> dict:
    """Both figures of the cross-engine check with 95% CIs and their difference."""
    from evolve.core.stats import mean_ci, welch_difference

    t = time.perf_counter()
    a = openspiel_match(game, seat, hands, seed)
    seconds = time.perf_counter() - t
    b = engine_match(game, seat, deals, seed)
    return {"openspiel": mean_ci(a).as_dict(), "engine": mean_ci(b).as_dict(), "difference": welch_difference(a, b),
            "hands": hands, "deals": deals, "openspiel_seconds": seconds}


def main(argv=None) -> int:
    """``python -m evolve.interop.openspiel compare --game spades --seat S``."""
    from evolve.interop import cross_engine_report

    ap = Parser(prog="python -m evolve.interop.openspiel",
                                 description="Cross-engine check: one match in OpenSpiel and in our engine.")
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compare", help="the seat at players 0 and 2 against uniform random, in both engines")
    c.add_argument("--game", default="spades", help=" | ".join(ADAPTERS))
    c.add_argument("--seat", default="highlow:bidder=simple", help="seat string of our agent")
    c.add_argument("--hands", type=int, default=2000, help="hands played in OpenSpiel (default 2000)")
    c.add_argument("--deals", type=int, default=200000, help="deals played in our engine (default 200000)")
    c.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    try:
        if args.game not in ADAPTERS:
            raise UsageError(f"--game {args.game!r} is invalid; expected {' or '.join(ADAPTERS)}")
        if args.hands < 2 or args.deals < 2:
            raise UsageError("--hands and --deals must be at least 2")
        res = compare(args.game, args.seat, args.hands, args.deals, args.seed)
    except (UsageError, ValueError) as e:
        raise UsageError(str(e)) from None
    print(cross_engine_report(f"{args.game}: {args.seat} (players 0, 2) vs uniform random, points per hand of side 0",
                              ("OpenSpiel", res["openspiel"], f"{args.hands} hands, {res['openspiel_seconds']:.1f} s"),
                              ("our engine", res["engine"], f"{args.deals} deals"), res["difference"]))
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="python -m evolve.interop.openspiel"))
