"""Every registered game passes the game contract (``evolve.runtime.conformance.api_test``)
with each of its option values, and the contract catches a game that breaks it."""
from __future__ import annotations

import pytest

from evolve.games.registry import GAMES, make_game
from evolve.runtime import conformance, session
from evolve.runtime.conformance import GameConformanceError, api_test, option_variants

CASES = [pytest.param(game, options, id=f"{game}-" + ("-".join(f"{k}={v}" for k, v in options.items()) or "defaults"))
         for game in GAMES for options in option_variants(game)]


@pytest.mark.parametrize("game, options", CASES)
def test_every_game_passes_the_contract(game, options):
    covered = api_test(game, n_deals=120, tables=6, **options)
    assert set(covered) == {"cards", "deal", "determinism", "scores", "records", "stepper", "playthrough"}
    assert covered["deal"] == 240 and covered["stepper"] == 120 and covered["playthrough"] >= 6 * GAMES[game].n_tricks
    assert isinstance(covered["records"], str) or covered["records"] >= covered["scores"] * GAMES[game].n_tricks


def test_option_variants_cover_every_choice_and_flag():
    for game, info in GAMES.items():
        variants = option_variants(game)
        assert variants[0] == {}
        for name, option in info.options.items():
            values = option.choices or ((True, False) if option.kind is bool else (option.default,))
            for v in values:
                assert any(o.get(name, option.default) == v for o in variants), (game, name, v)


def _first_game_with_calls():
    return next(name for name, info in GAMES.items() if info.may_call)


def test_a_score_the_stepper_computes_differently_is_caught(monkeypatch):
    game = next(iter(GAMES))
    protocol = type(make_game(game).protocol)
    real = protocol.hand_score

    def off_by_one(self, state, tricks, points, pub=None):
        score, bags = real(self, state, tricks, points, pub)
        score = score.copy()
        score[0] += 1
        return score, bags

    monkeypatch.setattr(protocol, "hand_score", off_by_one)
    with pytest.raises(GameConformanceError, match=f"{game} .*stepper: .* differ in score"):
        api_test(game, n_deals=20, tables=1)


def test_an_observation_that_shows_a_card_of_another_seat_is_caught(monkeypatch):
    real = session.Table.view

    def leaky(self, seat):
        v = real(self, seat)
        other = self.dealt[(seat + 1) % 4]
        v["hand"] = sorted(set(v["hand"]) | {other[0]})
        return v

    monkeypatch.setattr(session.Table, "view", leaky)
    with pytest.raises(GameConformanceError, match="playthrough: .*(holds a card the seat does not hold|not a valid)"):
        conformance.check_playthrough(make_game(next(iter(GAMES))), 1, 0)


def test_a_table_that_takes_an_illegal_action_is_caught(monkeypatch):
    game = _first_game_with_calls()
    real = session.Table.act

    def lax(self, seat, action):
        try:
            real(self, seat, action)
        except session.IllegalAction:
            self.actions.append({"deal": self.deal_index, "seat": seat, "decision": self.step, "action": action})

    monkeypatch.setattr(session.Table, "act", lax)
    with pytest.raises(GameConformanceError, match="playthrough: .*was taken"):
        conformance.check_playthrough(make_game(game), 1, 0)
