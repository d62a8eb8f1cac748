"""The contract every registered game passes (``api_test``, in pgx's sense).

``api_test("jass", match_bonus=True)`` plays the game with its options through every path
the package has and checks, with one ``GameConformanceError`` naming the game, the check
and the deal when something is wrong:

- ``cards``: the static description holds together (``n_cards`` is four hands and the rest,
  every card name round-trips, one name per trump mode, the options' defaults build);
- ``deal``: each recorded deal's hands and rest partition the deck, a hand holds
  ``hand_size`` distinct cards, the dealer rotates;
- ``determinism``: a seed fixes every array of a batch, on one worker or two; another seed
  deals other cards;
- ``scores``: tricks add up to the tricks of a deal, and the card points of the sides add up
  to the same total in every deal of a trump mode (nothing is created or lost);
- ``records``: replayed through the game's protocol and rules layer in Python
  (``evolve.games.observation.observations``), every recorded call and card is legal for
  the seat that made it;
- ``stepper``: the batch kernel (Numba) and the Python stepper (``evolve.runtime.session``,
  the game's protocol and ``TrickState``) play the same deals with the same agents to the
  same arrays, field by field;
- ``playthrough``: random legal actions at tables of four people: at every decision the
  legal set is non-empty, the observation's hand holds only the seat's own cards (none
  played), its tricks are exactly the cards played so far in order, its calls are the calls
  made in order; an illegal action and an action by the wrong seat are refused and leave the
  table as it was.

``tests/test_game_api.py`` runs it over every registered game with each of its option values
(``option_variants``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evolve.agents.registry import parse_seats
from evolve.core.errors import UsageError
from evolve.games.protocol import ProtocolError
from evolve.games.registry import Game, make_game
from evolve.runtime.play import _play_on_tables, play

# the agents the checks play with: random calls and cards (every decision reachable), and a
# rule-based card play with the game's rule-based bidder (the deals people see)
SEATS = (("random:bidder=random",) * 4, ("highlow:bidder=simple", "random:bidder=random") * 2)
STEPPED = 60        # deals through the Python stepper (about 1,000 times slower than the kernel)
RECORD_FIELDS = ("hands", "rest", "dealer", "trump", "first_leader", "tricks", "points", "score", "bags", "bids",
                 "calls", "maker", "alone", "private", "plays", "leaders", "winners", "game_score")


class GameConformanceError(AssertionError):
    """A game broke the contract: the message names the game, the check and the deal."""


def _fail(g: Game, check: str, what: str) -> None:
    options = ", ".join(f"{k}={v}" for k, v in sorted(g.options.items()))
    raise GameConformanceError(f"{g.name} ({options}): {check}: {what}")


def check_cards(g: Game) -> int:
    """The game's static description holds together; returns the cards checked."""
    info = g.info
    if info.n_cards != 4 * info.hand_size + info.n_rest or info.n_rest < 0:
        _fail(g, "cards", f"{info.n_cards} cards do not make four hands of {info.hand_size} and a rest")
    if info.n_cards > 64:
        _fail(g, "cards", f"{info.n_cards} cards do not fit the engine's 64-bit hands")
    for c in range(info.n_cards):
        name = info.card_name(c)
        if info.card_id(name) != c:
            _fail(g, "cards", f"card {c} is named {name!r}, which reads back as {info.card_id(name)}")
    if len(info.mode_names) != info.n_modes:
        _fail(g, "cards", f"{len(info.mode_names)} mode names for {info.n_modes} trump modes")
    for name, option in info.options.items():
        try:
            make_game(info.name, **{name: option.default})
        except UsageError as e:
            _fail(g, "cards", f"option {name}'s default {option.default!r} is refused: {e}")
    return info.n_cards


def check_deals(g: Game, r) -> int:
    """Each recorded deal's hands and rest partition the deck; the dealer rotates."""
    info = g.info
    n = r.hands.shape[0]
    if r.hands.shape != (n, 4, info.hand_size) or r.rest.shape != (n, info.n_rest):
        _fail(g, "deal", f"hands {r.hands.shape} / rest {r.rest.shape}; expected ({n}, 4, {info.hand_size}) / "
                         f"({n}, {info.n_rest})")
    every = np.arange(info.n_cards)
    for i in range(n):
        cards = np.concatenate([r.hands[i].ravel(), r.rest[i]])
        if not np.array_equal(np.sort(cards), every):
            _fail(g, "deal", f"deal {i}: the hands and the rest are not the deck once each")
        if int(r.dealer[i]) != (int(r.dealer[0]) + i) % 4:
            _fail(g, "deal", f"deal {i}: dealer {int(r.dealer[i])}; the dealer rotates from {int(r.dealer[0])}")
    return n


def _differing_field(a, b) -> str | None:
    for f in RECORD_FIELDS:
        x, y = np.asarray(getattr(a, f)), np.asarray(getattr(b, f))
        if x.shape != y.shape or not np.array_equal(x, y):
            rows = [i for i in range(min(len(x), len(y))) if not np.array_equal(x[i], y[i])] if x.shape == y.shape \
                else []
            return f"{f}" + (f" (first at deal {rows[0]})" if rows else f" (shapes {x.shape} and {y.shape})")
    return None


def check_determinism(g: Game, seats, n: int, seed: int, first) -> int:
    """A seed fixes every array, whatever the number of workers; another seed deals others."""
    for workers in (1, 2):
        again = play(g, list(seats), n, seed, record=True, workers=workers)
        diff = _differing_field(first, again)
        if diff:
            _fail(g, "determinism", f"seed {seed} on {workers} worker(s) gave another {diff}")
    other = play(g, list(seats), n, seed + 1, record=True)
    if np.array_equal(other.hands, first.hands):
        _fail(g, "determinism", f"seeds {seed} and {seed + 1} dealt the same {n} deals")
    return 3 * n


def check_scores(g: Game, r) -> int:
    """Tricks add up; the sides' card points add up to one total per trump mode (and per
    whether one side took every trick, which some games reward with a bonus)."""
    played = np.flatnonzero(np.asarray(r.trump) >= 0)
    tricks = r.tricks[played].sum(axis=1)
    bad = played[tricks != g.info.n_tricks]
    if bad.size:
        i = int(bad[0])
        _fail(g, "scores", f"deal {i}: {int(r.tricks[i].sum())} tricks won of {g.info.n_tricks}")
    totals: dict[tuple[int, bool], tuple[int, int]] = {}
    for i in played:
        mode, total = int(r.trump[i]), int(r.points[i].sum())
        by_side = [int(r.tricks[i, s::g.n_sides].sum()) for s in range(g.n_sides)]
        sweep = max(by_side) == g.info.n_tricks
        first = totals.setdefault((mode, sweep), (total, int(i)))
        if first[0] != total:
            _fail(g, "scores", f"deal {int(i)}: the sides' points add up to {total} in mode {mode}; deal {first[1]} "
                               f"of the same mode{' (a side took every trick)' if sweep else ''} to {first[0]}")
    return int(played.size)


def check_records(g: Game, r) -> int:
    """Every recorded call and card is legal in the Python rules layer for its seat."""
    from evolve.games.observation import observations

    try:
        g.protocol.recorded_shown_card(r, 0)
    except ProtocolError as e:       # the record cannot be replayed (Sueca study: the shown card is not in it)
        return f"not replayable: {e}"
    n = 0
    for i in range(r.hands.shape[0]):
        for obs, action in observations(r, i):
            if int(action) not in obs.legal():
                _fail(g, "records", f"deal {i}: seat {obs.seat}'s {obs.decision} {int(action)} is not legal "
                                    f"({obs.legal()})")
            n += 1
    return n


def check_stepper(g: Game, seats, n: int, seed: int) -> int:
    """The batch kernel and the Python stepper play the same deals to the same arrays."""
    first = play(g, list(seats), n, seed, record=True)
    specs = parse_seats(list(seats), g)
    dealers = np.arange(n, dtype=np.int64) % 4
    stepped = _play_on_tables(g, specs, seed, n, 0, None, dealers, True, 1)
    diff = _differing_field(first, stepped)
    if diff:
        _fail(g, "stepper", f"the batch kernel and the Python stepper differ in {diff}")
    return n


def _unchanged(table, before: tuple) -> bool:
    return (len(table.actions), table.to_act, table.step, table.view(table.to_act)) == before


def check_playthrough(g: Game, n_deals: int, seed: int) -> int:
    """Random legal actions at tables of four people, checking every observation."""
    from evolve.runtime.session import IllegalAction, Player, Table, TableError

    rng = np.random.default_rng(seed)
    people = [Player("human", None) for _ in range(4)]
    decisions = 0
    for d in range(n_deals):
        table = Table(g, people, seed, deals=1, start=d, dealer=d % 4)
        dealt = [set(h) for h in table.dealt]
        shown = set(table.rest)
        played: list[tuple[int, int]] = []
        calls: list[tuple[int, int]] = []
        given: list[tuple[int, int]] = []       # the cards of private card decisions, by seat
        while not table.over:
            seat, step = table.to_act, table.step
            where = f"deal {d}, decision {decisions} (seat {seat}, {step})"
            try:
                obs = table.observation()
                legal = table.legal()
            except ValueError as e:         # the observation's own validation refused the table's view
                _fail(g, "playthrough", f"{where}: the table's view is not a valid observation: {e}")
            if not legal:
                _fail(g, "playthrough", f"{where}: no legal action")
            hand = set(obs.hand)
            gone = {c for _, c in played} | {c for s, c in given if s == seat}
            # a card another seat gave away face down (the Hearts pass) may be this seat's now
            received = {c for s, c in given if s != seat}
            if not hand <= (dealt[seat] | shown | received) or hand & gone:
                _fail(g, "playthrough", f"{where}: the observation's hand {sorted(hand)} holds a card the seat does "
                                        f"not hold (dealt {sorted(dealt[seat])}, played {sorted(gone & hand)})")
            seen = [p for t in obs.tricks for p in t] + list(obs.trick)
            if seen != played:
                _fail(g, "playthrough", f"{where}: the observation's tricks {seen} are not the cards played {played}")
            if list(obs.calls) != calls[:len(obs.calls)] or any(a not in calls for a in obs.calls):
                _fail(g, "playthrough", f"{where}: the observation's calls {list(obs.calls)} are not the calls made "
                                        f"{calls}")
            if step == "card" and not set(legal) <= hand:
                _fail(g, "playthrough", f"{where}: legal cards {legal} not in the hand {sorted(hand)}")
            before = (len(table.actions), table.to_act, table.step, table.view(seat))
            illegal = next((a for a in range(-1, 70) if a not in legal), None)
            for wrong_seat, action in ((seat, illegal), ((seat + 1) % 4, legal[0])):
                try:
                    table.act(wrong_seat, action)
                except (IllegalAction, TableError):
                    pass
                else:
                    _fail(g, "playthrough", f"{where}: seat {wrong_seat}'s action {action} was taken")
                if not _unchanged(table, before):
                    _fail(g, "playthrough", f"{where}: a refused action changed the table")
            action = int(legal[rng.integers(len(legal))])
            table.act(seat, action)
            decisions += 1
            if step == "card":
                played.append((seat, action))
            elif step in g.protocol.private_decisions and step in g.protocol.card_decisions:
                given.append((seat, action))
            elif any(a == [seat, action] for a in table.view(seat)["calls"][len(calls):]):
                calls.append((seat, action))
        result = table.results[0]
        if result["trump"] >= 0 and sum(result["tricks"]) != g.info.n_tricks:
            _fail(g, "playthrough", f"deal {d}: {sum(result['tricks'])} tricks of {g.info.n_tricks}")
    return decisions


def option_variants(game: str) -> list[dict[str, Any]]:
    """The option sets ``api_test`` is run with for ``game``: the defaults, then every other
    value of each option with choices (and each boolean flipped), one at a time; a value the
    game refuses alone comes with the first other change that makes it valid (Spades'
    standard bidding with partnerships). Integer options (targets) keep their defaults."""
    info = make_game(game).info
    changes = []
    for name, option in info.options.items():
        values = option.choices if option.choices else ((not option.default,) if option.kind is bool else ())
        changes += [{name: v} for v in values if v != option.default]
    out: list[dict[str, Any]] = [{}]
    for change in changes:
        for extra in [{}, *[c for c in changes if not set(c) & set(change)]]:
            try:
                make_game(game, **change, **extra)
            except UsageError:
                continue
            out.append({**change, **extra})
            break
        else:
            raise GameConformanceError(f"{game}: cards: option {change} is refused with every other option")
    return out


def api_test(game: str | Game, *, n_deals: int = 200, tables: int = 12, seed: int = 0, **options: Any) -> dict:
    """Run every check on ``game`` with ``options`` (see the module docstring); returns how
    much each check covered, or raises ``GameConformanceError``."""
    g = make_game(game, **options)
    out = {"cards": check_cards(g)}
    for k, seats in enumerate(SEATS):
        first = play(g, list(seats), n_deals, seed + k, record=True)
        out["deal"] = out.get("deal", 0) + check_deals(g, first)
        out["determinism"] = out.get("determinism", 0) + check_determinism(g, seats, n_deals, seed + k, first)
        out["scores"] = out.get("scores", 0) + check_scores(g, first)
        replayed = check_records(g, first)
        out["records"] = replayed if isinstance(replayed, str) else out.get("records", 0) + replayed
        out["stepper"] = out.get("stepper", 0) + check_stepper(g, seats, min(n_deals, STEPPED), seed + k)
    out["playthrough"] = check_playthrough(g, tables, seed)
    return out


__all__ = ["GameConformanceError", "api_test", "option_variants"]
