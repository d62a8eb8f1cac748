"""The package version (read by ``pyproject.toml`` and by the Numba cache key)."""

__version__ = "0.3.0"
