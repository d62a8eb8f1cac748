"""One conformance test that every registered game must pass, with every registered agent
that plays it and every bidder kind (all registered bidders with the random player).

For each game, agent and bidder (and a few option sets of the game) it plays random deals
and checks: the per-deal arrays have the documented shapes and dtypes; hands + rest
partition the deck; every held card is played exactly once (Euchre: the dealer's pick-up
and discard, the kitty and a sitting-out partner accounted for); tricks sum to the number
of tricks; replaying the recorded cards through ``TrickState`` accepts every card as legal
and gives the recorded trick winners, tricks and card points; the results are
deterministic per seed; ``card_name`` / ``card_id`` round-trip for every card.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import evolve
from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDERS
from evolve.agents.genomes.evolvable import ParametricAgent
from evolve.agents.genomes.parametric import PARAMETRIC
from evolve.agents.registry import AGENTS
from evolve.games.registry import GAMES, make_game
from evolve.games.stepper import TrickState

N_DEALS = int(os.environ.get("CONFORMANCE_DEALS", "30"))

# a few option sets per game (the first one is the default); unknown games use defaults
OPTION_SETS = {
    "spades": [{}, {"bidding": "standard", "partnership": True, "break_spades": True}, {"bidding": "exact"}],
    "euchre": [{}, {"stick_the_dealer": True, "discard_upcard": False}, {"setup": "fixed_spades"}],
    "sueca": [{}, {"setup": "study", "trump_card": "first"}],
    "jass": [{}, {"match_bonus": True, "multipliers": True}],
}
EUCHRE_ORDER = 5  # round-1 "order up" in the Euchre bidding log
# Small search budgets for the guided and value-network searches: what is checked here (legal
# play, bookkeeping, determinism) does not depend on the budget, and their defaults search
# hundreds of playouts per card. The paths stay those of the defaults (random playouts,
# the shipped value network, several determinizations or trees).
BUDGETS = {
    "maxvalue": "samples=3",
    "perfect_mc": "shuffles=3,playouts=2",
    "perfect_dmcts": "determinizations=2,iterations=12",
    "tdmcts": "factor=1,iterations=12",
    "pdmcts": "determinizations=2,iterations=12",
    "pismcts": "iterations=20",
}


def _agent_cases():
    cases = []
    for game in GAMES:
        for name, agent in AGENTS.items():
            if game not in agent.games:
                continue
            # every bidder of the game with the random player, random and simple with the others
            if "bidder" not in agent.options:
                bidders = [None]
            elif name == "random":
                bidders = [b for b in BIDDERS if game in BIDDER_GAMES.get(b, (game,))]
            else:
                bidders = ["random", "simple"]
            budget = BUDGETS.get(name)
            for b in bidders:
                options = [o for o in (budget, None if b is None else f"bidder={b}") if o]
                seat = f"{name}:{','.join(options)}" if options else name
                cases.append(pytest.param(game, seat, id=f"{game}-{seat}"))
        # every evolvable parametric kind, from each of its starts (perturbed, as evolution makes them)
        for name, kind in PARAMETRIC.items():
            if game in kind.games:
                for init in [*kind.starts, "uniform"]:
                    cases.append(pytest.param(game, ("parametric", name, init), id=f"{game}-{name}:{init}"))
    return cases


def _parametric_seat(game: str, name: str, init: str):
    """A seat of parametric kind ``name`` from start ``init``, perturbed in unit coordinates."""
    kind = PARAMETRIC[name]
    agent = ParametricAgent(kind, make_game(game), "cardcounting" if kind.role == "bid" else "random:bidder=simple")
    return agent.specs(agent.initial(np.random.default_rng(3), 2, init, 0.1)[1:], [f"{name}:{init}"])[0]


def _expected_shapes(info, n, n_sides, record):
    T = info.n_tricks
    shapes = {
        "hands": ((n, 4, info.hand_size), np.int8),
        "rest": ((n, info.n_rest), np.int8),
        "dealer": ((n,), np.int8),
        "trump": ((n,), np.int8),
        "first_leader": ((n,), np.int8),
        "tricks": ((n, 4), np.int8),
        "points": ((n, 2), np.int32),
        "score": ((n, n_sides), np.int32),
        "bags": ((n, 2), np.int32),
        "bids": ((n, 4), np.int8),
        "calls": ((n, 8), np.int8),
        "maker": ((n,), np.int8),
        "alone": ((n,), np.int8),
        "discard": ((n,), np.int8),
        "game_id": ((n,), np.int64),
        "game_score": ((n, n_sides), np.int64),
        "game_winner": ((n,), np.int64),
    }
    if record:
        shapes.update(plays=((n, 4 * T), np.int8), leaders=((n, T), np.int8), winners=((n, T), np.int8))
    return shapes


def _held_hands(r, i, game):
    """The cards each seat holds for the play (the protocol's replay of the recorded calls:
    the Euchre dealer's pick-up and discard, the Hearts pass), and the seat sitting out (-1
    if none)."""
    held = r.game.protocol.recorded_held(r, i)
    if game == "euchre" and r.trump[i] >= 0 and int(r.discard[i]) >= 0:
        assert int(r.discard[i]) not in held[int(r.dealer[i])], f"deal {i}: the dealer still holds its discard"
    out = (int(r.maker[i]) + 2) % 4 if r.alone[i] else -1
    return held, out


@pytest.mark.parametrize("game,seat", _agent_cases())
def test_conformance(game, seat):
    if isinstance(seat, tuple):
        seat = _parametric_seat(game, *seat[1:])
    info = GAMES[game]
    T = info.n_tricks
    # ---- card_name / card_id round-trip --------------------------------------------
    names = [info.card_name(c) for c in range(info.n_cards)]
    assert len(set(names)) == info.n_cards, "card names must be distinct"
    for c, nm in enumerate(names):
        assert info.card_id(nm) == c and info.card_id(nm.lower()) == c, f"{game}: round-trip of {c} ({nm})"
        assert nm[-1] in info.suits and nm[:-1] in info.faces
    with pytest.raises(ValueError):
        info.card_id("ZZ")
    assert len(info.faces) * len(info.suits) == info.n_cards
    assert info.n_rest == info.n_cards - 4 * info.hand_size >= 0

    for options in OPTION_SETS.get(game, [{}]):
        g = make_game(game, **options)
        seats = [seat, "random", seat, "random"]
        r = evolve.play(game, seats, N_DEALS, seed=12345, record=True, **options)
        where = f"{game} {options} {seat}"
        # ---- shapes and dtypes --------------------------------------------------
        for f, (shape, dtype) in _expected_shapes(info, N_DEALS, g.n_sides, True).items():
            a = getattr(r, f)
            assert isinstance(a, np.ndarray), f"{where}: {f} is not an array"
            assert a.shape == shape and a.dtype == dtype, f"{where}: {f} {a.shape} {a.dtype}, expected {shape} {dtype}"
        assert r.n_deals == N_DEALS and r.game.name == game
        # ---- determinism per seed -----------------------------------------------
        again = evolve.play(game, seats, N_DEALS, seed=12345, record=True, **options)
        for f in _expected_shapes(info, N_DEALS, g.n_sides, True):
            assert np.array_equal(getattr(r, f), getattr(again, f)), f"{where}: {f} is not deterministic"
        other = evolve.play(game, seats, N_DEALS, seed=54321, record=True, **options)
        assert not np.array_equal(r.hands, other.hands), f"{where}: another seed gives the same deals"
        quiet = evolve.play(game, seats, N_DEALS, seed=12345, **options)
        assert quiet.plays is None and quiet.leaders is None and quiet.winners is None
        assert np.array_equal(quiet.score, r.score) and np.array_equal(quiet.tricks, r.tricks), \
            f"{where}: record=True changes the results"

        for i in range(N_DEALS):
            # ---- every card of the deck accounted for ---------------------------
            dealt = np.concatenate([r.hands[i].ravel(), r.rest[i]])
            assert sorted(dealt.tolist()) == list(range(info.n_cards)), f"{where} deal {i}: not a partition"
            assert r.dealer[i] == i % 4
            if r.trump[i] < 0:  # passed out (Euchre): nothing played
                assert (r.plays[i] == -1).all() and (r.tricks[i] == 0).all() and (r.score[i] == 0).all()
                continue
            held, out = _held_hands(r, i, game)
            n_active = 3 if out >= 0 else 4
            plays = r.plays[i, :n_active * T].astype(int)
            assert (r.plays[i, n_active * T:] == -1).all()
            # ---- every held card played exactly once ----------------------------
            active = sorted(c for s in range(4) if s != out for c in held[s])
            assert sorted(plays.tolist()) == active, f"{where} deal {i}: held cards and plays differ"
            assert r.tricks[i].sum() == T, f"{where} deal {i}: tricks {r.tricks[i]} do not sum to {T}"
            # ---- replay through TrickState: legal, same winners and points ------
            s = TrickState(g, held, mode=int(r.trump[i]), leader=int(r.first_leader[i]), out_seat=out,
                           dealer=int(r.dealer[i]))
            for k, c in enumerate(plays):
                seat_to_move = s.to_move
                assert c in s.hand(seat_to_move), f"{where} deal {i}: card {k} ({c}) not held by seat {seat_to_move}"
                s.play(int(c))  # ValueError if illegal
            assert s.done
            assert s.trick_winners == r.winners[i].tolist(), f"{where} deal {i}: trick winners differ"
            assert [h[0] for h in s.history()] == r.leaders[i].tolist()
            assert s.tricks_won == r.tricks[i].tolist()
            if game in ("sueca", "jass"):
                pts = list(s.side_points)
                bonus = g.options.get("match_bonus", False)
                for side in (0, 1):
                    if bonus and r.tricks[i, side] + r.tricks[i, side + 2] == T:
                        pts[side] += 100
                assert pts == r.points[i].tolist(), f"{where} deal {i}: points {r.points[i]} vs replay {pts}"
            elif not g.protocol.tricks_are_aim:
                # points per seat (Hearts): the hand score from the replay's public state
                score, _ = g.protocol.hand_score(None, np.array(s.tricks_won), np.zeros(2, np.int64), s.pub)
                assert score.tolist() == r.score[i].tolist(), f"{where} deal {i}: score {r.score[i]} vs {score}"
            else:
                assert r.points[i].tolist() == [s.tricks_won[0] + s.tricks_won[2], s.tricks_won[1] + s.tricks_won[3]]
