"""The batch driver: many deals in one Numba call.

``play_batch_kernel`` is a template (``evolve.games.template``) over the game rules; it knows
no agent. The runtime layer (``evolve.runtime.batch``) binds it to the agents a batch seats
and compiles one kernel per game and set of agent families."""
