"""Search agents: flat Monte Carlo, DMCTS, ISMCTS, maxvalue and the perfect-information upper
bounds (``card_search``), the exact uniform determinization they sample from
(``determinize``), guided playouts (``rollout_policy``), value networks (``value_net``) and
their registry entries (``register``)."""
