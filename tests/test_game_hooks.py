"""Each game's Numba hooks (``evolve/games/<game>/hooks.py``) are what the shared kernels
call for that game (``evolve.games.hooks``): a hook a game defines must be reached for its
game id, with the same answers as the game's own function, on positions of recorded deals
of every option variant; a hook it does not define gives the shared default."""

from __future__ import annotations

import numpy as np
import pytest

import evolve
from evolve.games import hooks
from evolve.games.registry import GAMES, make_game
from evolve.games.state import PUB_SIZE, VOIDS
from evolve.games.stepper import replay_decisions
from evolve.runtime.conformance import option_variants

# per hook: its arguments built from (rules, mode, seat, hand, pub) of a recorded position
ARGS = {
    "legal_cards": lambda r, m, s, h, p: (r, m, h, p),
    "void_cards": lambda r, m, s, h, p: (r, m, p[VOIDS + (s + 1) % 4]),
    "breaks": lambda r, m, s, h, p: (r, m, int(h).bit_length() - 1),
    "upcard_state": lambda r, m, s, h, p: (r, p),
    "upcard_place": lambda r, m, s, h, p: (r, s, p),
    "turned_up_card": lambda r, m, s, h, p: (r, p),
    "seat_result": lambda r, m, s, h, p: (r, p, s),
    "result_scale": lambda r, m, s, h, p: (r, m),
    "n_calls": lambda r, m, s, h, p: (r,),
    "public_maker": lambda r, m, s, h, p: (r, p),
    "latest_call": lambda r, m, s, h, p: (r, p, s),
}
# the hooks that change ``pub`` in place: (arguments, the copy of pub they write)
WRITERS = {
    "note_voids": lambda r, m, s, h, p: (r, m, p, s, int(h).bit_length() - 1, 1, 0),
    "trick_taken": lambda r, m, s, h, p: (r, m, p, s, 4),
}


def test_every_game_has_its_hooks_module_under_its_id():
    assert {info.game_id for info in GAMES.values()} <= set(hooks.GAME_HOOKS)
    for info in GAMES.values():
        assert hooks.GAME_HOOKS[info.game_id].__name__ == f"evolve.games.{info.name}.hooks"
    for module in hooks.GAME_HOOKS.values():
        assert module.__name__.startswith("evolve.games.") and module.__name__.endswith(".hooks")
        assert hasattr(module, "seat_result") and hasattr(module, "result_scale"), module.__name__
    assert set(hooks.HOOKS) == {*ARGS, *WRITERS}


def _positions(game, n_deals=12):
    result = evolve.play(game, "highlow", n_deals, seed=5, record=True)
    for i in range(n_deals):
        for seat, hand, _legal, mode, pub, _card in replay_decisions(game, result, i):
            yield game.rules, np.int64(mode), seat, hand, pub


@pytest.mark.parametrize("name", list(GAMES))
def test_hooks_reach_the_games_own_functions(name):
    for options in option_variants(name):
        game = make_game(name, **options)
        module = hooks.GAME_HOOKS[game.info.game_id]
        defined = [h for h in hooks.HOOKS if hasattr(module, h)]
        n = 0
        for r, m, s, h, p in _positions(game):
            assert p.shape == (PUB_SIZE,)
            for h_name in defined:
                if h_name in ARGS:
                    args = ARGS[h_name](r, m, s, h, p)
                    assert getattr(hooks, h_name)(*args) == getattr(module, h_name)(*args), (name, options, h_name)
                else:
                    args = WRITERS[h_name](r, m, s, h, p)
                    mine, theirs = p.copy(), p.copy()
                    getattr(hooks, h_name)(*((args[0], args[1], mine) + args[3:]))
                    getattr(module, h_name)(*((args[0], args[1], theirs) + args[3:]))
                    assert (mine == theirs).all(), (name, options, h_name)
            n += 1
        assert n > 0


@pytest.mark.parametrize("name", list(GAMES))
def test_hooks_a_game_does_not_define_give_the_shared_defaults(name):
    game = make_game(name)
    module = hooks.GAME_HOOKS[game.info.game_id]
    for r, m, s, h, p in _positions(game, n_deals=3):
        if not hasattr(module, "turned_up_card"):
            assert hooks.turned_up_card(r, p) == -1
        if not hasattr(module, "upcard_place"):
            assert hooks.upcard_place(r, s, p) == 0
        if not hasattr(module, "n_calls"):
            assert hooks.n_calls(r) == 0
        if not hasattr(module, "legal_cards"):
            from evolve.games.rules import follow_legal
            assert hooks.legal_cards(r, m, h, p) == follow_legal(r, m, h, p)
