"""Evolution: the experiment config, the tournament that scores a population, fitness,
parallel evaluation, checkpoints, the run loop and its reporters, and the strategies
(GA, CMA-ES, ES) in ``strategies``."""
