"""Moved to :mod:`assignment_oracle.compare.scenarios.streams_strategies` (a public API); kept for the tests that import it."""

from assignment_oracle.compare.scenarios.streams_strategies import *  # noqa: F401,F403
