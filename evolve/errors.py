"""Errors that CLIs turn into a one-line message and exit code 2."""


class UsageError(ValueError):
    """Bad user input: unknown names, invalid option values, malformed files."""
