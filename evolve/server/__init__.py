"""The table server behind ``python -m evolve.serve``: the JSON API and the browser page."""
