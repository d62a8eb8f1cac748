"""Measuring agents: the figures of a batch, head-to-head matrices on paired deals, the
end-of-run benchmark and the studies that reproduce the source documents."""
