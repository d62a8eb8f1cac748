"""Foundations that every layer may use and that import no other evolve module: one-line
errors and argument checks, command-line plumbing, atomic files, the Numba cache, statistics
and genome layouts."""
