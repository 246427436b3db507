"""The examples in the assignors' docstrings run (each module has at least one)."""

import doctest
import importlib

import pytest

MODULES = [
    "member_info",
    "range",
    "server_range",
    "uniform",
    "roundrobin",
    "fair",
    "sticky",
    "cooperative_sticky",
    "constrained_sticky",
    "stream_join_sticky",
    "streams_sticky",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"assignment_oracle.heuristics.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
