"""Training without evolution (plain numpy): imitation of a teacher, value networks and the
Euchre bulk bidding tables measured from play."""
