"""The project's Hypothesis strategies, re-exported for the tests' ``from strategies import ...``.

They live in :mod:`compare.scenarios.strategies` (a public API: other projects test
their own assignors with them); draws and defaults are unchanged, so every
test keeps its examples.
"""

from assignment_oracle.compare.scenarios.strategies import problems, rebalances, requests, scenarios

__all__ = ["problems", "rebalances", "requests", "scenarios"]
