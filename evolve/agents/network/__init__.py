"""Evolved fixed-topology tanh networks as card-play agents: the shape and packing of a
genome (``architecture``), the Numba decision (``play``), its vector kernels (``simd``) and
the direct per-card feature connections (``direct``)."""
