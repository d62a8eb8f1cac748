"""What evolution works on: genomes that become seats (``evolvable``), the registered
parametric kinds (``parametric``) and champions on disk (``champion``)."""
