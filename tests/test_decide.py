"""One decision from Python: ``evolve.agent(...).play/bid`` against the batch engine.

Recorded deals (``evolve.play(..., record=True)``) are replayed decision by decision
(``evolve.games.observation.observations``): every bid, trump call, Euchre order / call / alone
/ discard and card that the engine's agent made must be what ``evolve.agent`` returns
for the observation of that seat, with the seat's random stream aligned by
``agent.new_deal(i)``. Random players and random bidders make the check sensitive to the
random stream too. Seats are grouped one card-play family per table (with random seats)
so that the engine kernels are the ones the conformance test compiles.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import evolve
from evolve.games.observation import Observation, observations

CASES = [
    # game, options, seats (one card-play family per table besides random)
    ("jass", {}, ["jass_rule_based:bidder=graf", "random", "champion:populations/jass_trump", "random:bidder=simple"]),
    (
        "jass",
        {"multipliers": True},
        ["champion:populations/jass_markov", "random:bidder=search,bid_iterations=16", "highlow", "random"],
    ),
    (
        "euchre",
        {"stick_the_dealer": True, "discard_upcard": False},
        [
            "highlow:bidder=simple",
            "random:bidder=linear",
            "champion:populations/euchre_markov",
            "champion:populations/euchre_bidding",
        ],
    ),
    (
        "euchre",
        {},
        [
            "ismcts:iterations=20,bidder=search,bid_iterations=16",
            "random",
            "mc:shuffles=3,playouts=1",
            "random:bidder=simple,order=150,alone=300",
        ],
    ),
    (
        "spades",
        {"partnership": True, "bidding": "standard"},
        [
            "cardcounting:bidder=simple",
            "champion:populations/spades_bidding",
            "random:bidder=search,bid_iterations=16",
            "markov:bidder=simple",
        ],
    ),
    (
        "spades",
        {},
        [
            "champion:populations/spades_cardbased_strong",
            "random",
            "champion:populations/spades_cardbased_strong",
            "random",
        ],
    ),
    ("sueca", {}, ["obligated_trump", "champion:populations/sueca_markov", "always_high", "random"]),
    ("sueca", {"trump_card": "first"}, ["dmcts:iterations=20", "random"]),
    ("euchre", {"setup": "fixed_spades"}, ["random", "highlow"]),
    ("spades", {"bidding": "exact", "break_spades": True}, ["random:bidder=simple", "random"]),
    (
        "spades",
        {"partnership": True, "bidding": "standard", "never_broken": True},
        ["random", "cardcounting:bidder=simple"],
    ),
    ("hearts", {}, ["hearts_rules", "random:bidder=random", "hearts_rules", "random"]),
    ("hearts", {"pass_cards": False, "jd_bonus": True}, ["mc:shuffles=3,playouts=1", "random"]),
]


@pytest.mark.parametrize("game,options,seats", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_replay_matches_engine(game, options, seats):
    _replay_matches_engine(game, options, seats)


@pytest.mark.parametrize("game,options", [("euchre", {}), ("spades", {"partnership": True, "bidding": "standard"}),
                                          ("jass", {})])
def test_seat_encoding_network_replay_matches_engine(tmp_path, game, options):
    """A network of the seat encoding (voids, who played what, the ordered-up Euchre card
    in the dealer's hand) decides in ``evolve.agent`` as in the engine (the second with an
    int16 second layer, saved and loaded as a champion)."""
    from evolve.agents.genomes.champion import Champion, load_champion, save_champion
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.agents.network.architecture import Architecture

    g = evolve.make_game(game, **options)
    seats = []
    for k in range(2):
        arch = Architecture.for_game(g, "seat", (16, 16), layer2="int16" if k else "float32")
        genome = arch.random_genome(np.random.default_rng(k))
        save_champion(tmp_path / f"net{k}", Champion(NetworkAgent(arch, "simple"), genome, {"game": game}))
        assert load_champion(tmp_path / f"net{k}").agent.arch == arch
        seats.append(f"champion:{tmp_path / f'net{k}'}")
    _replay_matches_engine(game, options, [seats[0], "random", seats[1], "random:bidder=simple"], n=12)


def _replay_matches_engine(game, options, seats, n=6):
    start, seed = 5, 21
    r = evolve.play(game, seats, n, seed=seed, start=start, dealer=2, record=True, **options)
    seats4 = seats * (4 // len(seats))
    agents = [evolve.agent(s, game, seed=seed, **options) for s in seats4]
    decisions = set()
    count = 0
    for i in range(n):
        for a in agents:
            a.new_deal(start + i)
        for obs, action in observations(r, i):
            assert action in obs.legal(), f"deal {i}: the engine's {action} is not legal at {obs}"
            got = agents[obs.seat].act(obs)
            assert got == action, f"deal {i} seat {obs.seat} {obs.decision}: evolve.agent {got}, engine {action}"
            decisions.add(obs.decision)
            count += 1
            if count % 7 == 0:      # the JSON round trip gives the same observation
                assert Observation.from_dict(json.loads(json.dumps(obs.to_dict()))) == obs
    expected = {
        "jass": {"trump", "card"},
        "euchre": {"order", "alone", "card"} if not options.get("setup") else {"card"},
        "spades": {"bid", "card"} if options else {"card"},
        "sueca": {"card"},
        "hearts": {"pass", "card"} if options.get("pass_cards", True) else {"card"},
    }[game]
    assert expected <= decisions
    if game == "euchre" and not options:
        assert "discard" in decisions


def _jass_obs(**kw):
    base = dict(game="jass", seat=1, dealer=0, hand=(0, 1, 2, 3, 4, 5, 6, 7, 8), phase="bid")
    return Observation(**{**base, **kw})


def test_observation_by_hand_and_legal():
    obs = _jass_obs()
    assert obs.decision == "trump" and obs.legal() == [0, 1, 2, 3, 4, 5, 6]
    pushed = _jass_obs(seat=3, calls=((1, 6),))
    assert pushed.legal() == [0, 1, 2, 3, 4, 5]
    play = Observation(game="jass", seat=2, dealer=0, hand=(9, 10, 11, 12, 13, 14, 15, 16, 17), phase="play",
                       trump=0, calls=((1, 0),), maker=1, trick=((1, 27),))
    assert play.legal() == list(range(9, 18))   # void in the led clubs: anything
    assert play.score == (0, 0)
    a = evolve.agent("jass_rule_based", "jass")
    assert a.play(play) in play.legal() and a.play(play.to_dict()) in play.legal()
    assert a.bid(obs) in obs.legal()
    e = Observation(game="euchre", seat=1, dealer=0, hand=(0, 1, 2, 3, 4), phase="bid", upcard=23,
                    options={"stick_the_dealer": True})
    assert e.decision == "order" and e.legal() == [4, 5] and e.action_name(5) == "order"


@pytest.mark.parametrize("change,message", [
    (dict(hand=(0, 1, 2, 3, 4, 5, 6, 7, 99)), "not a card of jass"),
    (dict(hand=(0, 1, 2, 3, 4, 5, 6, 7, 7)), "appears twice"),
    (dict(hand=(0, 1, 2)), "should hold 9"),
    (dict(phase="deal"), "phase='deal' is invalid"),
    (dict(seat=2), "seat 2 is not to declare trump; seat 1 is"),
    (dict(calls=((2, 3),)), "out of turn"),
    (dict(phase="play", trump=0, calls=((1, 0),), maker=1, trick=((1, 4),)), "already played"),
    (dict(phase="play", trump=0, calls=((1, 0),), maker=1, seat=2, trick=((2, 30),), hand=tuple(range(9, 18))),
     "out of turn"),
    (dict(phase="play", trump=0, calls=((1, 0),), maker=1), "score"),
])
def test_bad_observations_are_one_line(change, message):
    base = dict(game="jass", seat=1, dealer=0, hand=(0, 1, 2, 3, 4, 5, 6, 7, 8), phase="bid")
    if message == "score":
        change = {**change, "score": (5, 0)}
        message = "does not match the tricks"
    with pytest.raises(ValueError, match=message) as e:
        Observation(**{**base, **change})
    assert "\n" not in str(e.value)


def test_bad_requests():
    a = evolve.agent("random", "jass", seed=3)
    bid = _jass_obs()
    with pytest.raises(ValueError, match="use bid"):
        a.play(bid)
    play = Observation(game="jass", seat=1, dealer=0, hand=tuple(range(9)), phase="play", trump=0, calls=((1, 0),),
                       maker=1)
    with pytest.raises(ValueError, match="use play"):
        a.bid(play)
    with pytest.raises(ValueError, match="unknown observation key"):
        Observation.from_dict({**play.to_dict(), "hands": []})
    with pytest.raises(ValueError, match="unknown game"):
        Observation.from_dict({**play.to_dict(), "game": "bridge"})
    with pytest.raises(ValueError, match="but this agent plays"):
        a.play(Observation(**{**play.to_dict(), "options": {"multipliers": True}}))
    with pytest.raises(evolve.core.errors.UsageError, match="unknown agent"):
        evolve.agent("nobody", "jass")
    with pytest.raises(evolve.core.errors.UsageError, match="seed"):
        evolve.agent("random", "jass", seed=-1)


def test_seed_fixes_the_stream():
    obs = Observation(game="spades", seat=1, dealer=3, hand=tuple(range(13)), phase="play", trick=((0, 51),))
    a, b = evolve.agent("random", "spades", seed=4), evolve.agent("random", "spades", seed=4)
    x = [a.play(obs) for _ in range(20)]
    assert x == [b.play(obs) for _ in range(20)] and len(set(x)) > 1
    a.new_deal(0)
    assert [a.play(obs) for _ in range(20)] == x


def _first_positions(game, options):
    """The first observation of each decision kind of a few recorded random deals."""
    r = evolve.play(game, "random", 8, seed=3, record=True, **options)
    first = {}
    for i in range(8):
        for obs, _ in observations(r, i):
            if obs.decision not in first and len(obs.legal()) > 1:
                first[obs.decision] = obs
    return first


def _registered_cases():
    from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDERS
    from evolve.agents.registry import AGENTS

    options = {"spades": {"partnership": True, "bidding": "standard"}, "euchre": {}, "sueca": {}, "jass": {}}
    cases = [(g, name, options.get(g, {})) for name, a in AGENTS.items() for g in a.games]
    cases += [
        (g, f"random:bidder={b}", options.get(g, {}))
        for b in BIDDERS
        for g in BIDDER_GAMES.get(b, ("spades", "euchre", "jass"))
        if b not in ("random", "simple")
    ]
    return cases


@pytest.mark.parametrize("game,seat,options", _registered_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_registered_agent_and_bidder_decides(game, seat, options):
    """Every registered agent (card play) and bidder takes a legal decision at every kind
    of decision of its game (search budgets cut to keep it quick)."""
    small = {"mc": "mc:shuffles=3,playouts=1", "dmcts": "dmcts:iterations=10", "ismcts": "ismcts:iterations=10",
             "maxvalue": "maxvalue:samples=3", "tdmcts": "tdmcts:factor=1,iterations=10"}
    if seat.startswith("perfect_"):
        # an observation holds one seat's view: the upper bounds that need every hand are refused
        with pytest.raises(evolve.core.errors.UsageError, match="perfect-information upper bound") as e:
            evolve.agent(seat, game, seed=1, **options)
        assert "\n" not in str(e.value)
        return
    seat = small.get(seat, seat)
    if "bidder=search" in seat:
        seat += ",bid_iterations=8"
    a = evolve.agent(seat + ("" if ":" in seat else ":bidder=simple"), game, seed=1, **options)
    positions = _first_positions(game, options)
    assert set(positions) >= {"card"}
    for decision, obs in positions.items():
        assert a.act(obs) in obs.legal(), (seat, decision)


@pytest.mark.parametrize("change,message", [
    (dict(hand=(0, 1, 2, 3, 23)), "did not take it up"),
    (dict(seat=2, hand=(6, 7, 8, 9, 10)), "seat 2 is not to call; seat 1 is"),
    (dict(calls=((1, 5),), seat=2, hand=(6, 7, 8, 9, 10)), "the maker 1 decides to go alone"),
    (dict(calls=((1, 4), (2, 4), (3, 4), (0, 4), (1, 3))), "round 2"),
    (dict(phase="play", calls=((1, 5), (1, 6)), trump=3, maker=1), "out_seat=-1 but the calls make it 3"),
    (dict(phase="play", calls=((1, 4), (2, 4), (3, 4), (0, 4), (1, 0), (1, 7)), trump=0, maker=1,
          trick=((1, 23),)), "turned down"),
])
def test_bad_euchre_observations(change, message):
    base = dict(game="euchre", seat=1, dealer=0, hand=(0, 1, 2, 3, 4), phase="bid", upcard=23)
    with pytest.raises(ValueError, match=message) as e:
        Observation(**{**base, **change})
    assert "\n" not in str(e.value)
