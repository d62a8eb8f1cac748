"""What evolution works on: genomes that become seats (``evolvable``), the registered
parametric kinds (``parametric``), champions on disk (``champion``) and the manifest of
a populations folder (``manifest``)."""
