"""The card-play agents the games ship for themselves (``GameInfo.agents``: Hearts'
``hearts_rules``), registered by name from the game registry (``register``)."""
