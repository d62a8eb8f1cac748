"""Our agents in other frameworks: OpenSpiel bots (``openspiel``), jass-kit agents (``jasskit``)."""


def cross_engine_report(title: str, theirs: tuple[str, dict, str], ours: tuple[str, dict, str],
                        difference: dict, digits: int = 3) -> str:
    """The text of a cross-engine comparison: a title, the other engine's figure and ours
    (each ``(label, figure with its CI, what was played)``), and the signed difference with
    its CI, p and verdict."""
    from evolve.core.stats import format_ci, format_comparison

    width = max(len(theirs[0]), len(ours[0]))
    lines = [title] + [f"  {label:<{width}} {format_ci(fig, digits)}  ({what})" for label, fig, what in (theirs, ours)]
    lines.append(f"  {theirs[0]} - ours: {format_comparison(difference, difference['p'], digits)}")
    return "\n".join(lines)
