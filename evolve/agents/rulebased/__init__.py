"""Rule-based card play: High, Low, HighLow, CoopHighLow, CardCounting, Markov and Hybrid,
the Sueca variants and the Jass rule-based player (``play``), Markov card values
(``markov``) and their registry entries (``register``)."""
