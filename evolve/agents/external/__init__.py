"""Agents of other packages seated as ours: their decisions are made in Python, one at a
time, through an adapter (``pyschieber``: the Zühlke Jass Challenge's ChallengePlayer and
pyschieber's GreedyPlayer). Such a seat (``AgentSpec.python``) cannot run inside the Numba
engine; ``evolve.play`` plays any batch that seats one on ``evolve.runtime.session.Table``s,
deal for deal as the engine would (``evolve.runtime.play``), so the arena, matrices and
studies seat it like any other agent."""
