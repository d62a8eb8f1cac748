"""Bids and trump calls: the bidders a seat can name (``bidders``), the Euchre table
bidders of the bidding article (``euchre_tables``), the Jass trump-choice table and the
Spades bid predictor (``tables``), the search bidder (``search``) and the learnt Jass trump
chooser trained on it (``learnt``). Their Numba dispatch
is in ``evolve.agents.dispatch``."""
