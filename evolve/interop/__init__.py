"""Our agents in other frameworks: OpenSpiel bots (``openspiel``), jass-kit agents (``jasskit``)."""
