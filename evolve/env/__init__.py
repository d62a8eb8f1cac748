"""The games as standard environments: PettingZoo, Gymnasium and a batched Numba one.

- ``aec_env(game, render_mode=None, **options)``: a PettingZoo AEC environment of four
  seats, every decision (cards, bids, trump calls, the Euchre discard) an action
  (``evolve.env.aec``);
- ``gym_env(game, seat=0, opponents=..., partner=None, **options)``: one seat for the
  caller in a Gymnasium environment, the others registered agents (``evolve.env.gym``);
- ``BatchEnv(game, n, ...)`` / ``BatchVectorEnv``: many tables stepped at once in one Numba
  kernel (``evolve.env.batch``).

All share one action space (``action_space_size``, ``action_index``, ``action_of``) and one
observation, written by one Numba function (``encode_observation``; ``observation_size``,
``observation_layout``, ``observe``), described in ``evolve.env.spaces``. PettingZoo and
Gymnasium are optional: ``pip install "trick-evolve[env]"``.

The names load lazily, so ``import evolve.env`` imports neither PettingZoo nor Gymnasium.
"""

from evolve.core.lazy import lazy_exports as _lazy_exports

_EXPORTS = {
    "aec_env": "evolve.env.aec",
    "TrickTakingAECEnv": "evolve.env.aec",
    "gym_env": "evolve.env.gym",
    "TrickTakingGymEnv": "evolve.env.gym",
    "BatchEnv": "evolve.env.batch",
    "BatchVectorEnv": "evolve.env.batch",
    "DECISIONS": "evolve.env.spaces",
    "SEGMENTS": "evolve.env.spaces",
    "action_space_size": "evolve.env.spaces",
    "action_index": "evolve.env.spaces",
    "action_of": "evolve.env.spaces",
    "action_mask": "evolve.env.spaces",
    "n_calls": "evolve.env.spaces",
    "observation_size": "evolve.env.spaces",
    "observation_layout": "evolve.env.spaces",
    "encode_observation": "evolve.env.spaces",
    "observe": "evolve.env.spaces",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports("evolve.env", _EXPORTS, globals())
