"""The seeds' worked examples, as named tests.  Expected values come from the KIP texts."""

import pytest

from assignment_oracle.optimal import METHODS, solve
from assignment_oracle.problem import Problem

ALL_FOUR = ["t0", "t1", "t2", "t3"]


def kip54_example_1_rebalance():
    # C0: t0p0, t1p1, t3p0 and C2: t1p0, t2p1 before; C1 leaves.
    return Problem.from_mapping(
        {
            "topics": {t: 2 for t in ALL_FOUR},
            "members": {
                "C0": {"topics": ALL_FOUR, "owned": {"t0": [0], "t1": [1], "t3": [0]}, "generation": 1},
                "C2": {"topics": ALL_FOUR, "owned": {"t1": [0], "t2": [1]}, "generation": 1},
            },
        }
    )


@pytest.mark.parametrize("method", [m for m in METHODS if m != "flow-spread"])  # flow-spread: spread only
def test_kip54_example_1(method):
    fresh = Problem.from_mapping(
        {"topics": {t: 2 for t in ALL_FOUR}, "members": {c: {"topics": ALL_FOUR} for c in ["C0", "C1", "C2"]}}
    )
    assert solve(fresh, method=method).sorted_loads == (3, 3, 2)
    after = solve(kip54_example_1_rebalance(), method=method)
    # "preserving 5 of the previous assignments"; 4 partitions each.
    assert after.sorted_loads == (4, 4)
    assert after.retained == 5


@pytest.mark.parametrize("method", [m for m in METHODS if m != "flow-spread"])  # flow-spread: spread only
def test_kip54_example_2(method):
    topics = {"t0": 1, "t1": 2, "t2": 3}
    fresh = Problem.from_mapping(
        {
            "topics": topics,
            "members": {"C0": {"topics": ["t0"]}, "C1": {"topics": ["t0", "t1"]}, "C2": {"topics": ["t0", "t1", "t2"]}},
        }
    )
    # Sticky gives C0: t0p0; C1: t1p0, t1p1; C2: t2p0-2, "more balanced" than round robin's 1/1/4.
    assert solve(fresh, method=method).sorted_loads == (3, 2, 1)
    after = Problem.from_mapping(
        {
            "topics": topics,
            "members": {
                "C1": {"topics": ["t0", "t1"], "owned": {"t1": [0, 1]}, "generation": 1},
                "C2": {"topics": ["t0", "t1", "t2"], "owned": {"t2": [0, 1, 2]}, "generation": 1},
            },
        }
    )
    solution = solve(after, method=method)
    # C0 removed: sticky "preserves 5 partition assignments", 3 and 3.
    assert solution.sorted_loads == (3, 3)
    assert solution.retained == 5
    assert solution.moved == 0


@pytest.mark.parametrize("method", [m for m in METHODS if m != "flow-spread"])  # flow-spread: spread only
def test_kip54_example_3(method):
    both = ["t0", "t1"]
    after = Problem.from_mapping(
        {
            "topics": {"t0": 2, "t1": 2},
            "members": {
                "C0": {"topics": both, "owned": {"t0": [0], "t1": [0]}, "generation": 1},
                "C1": {"topics": both, "owned": {"t0": [1], "t1": [1]}, "generation": 1},
                "C2": {"topics": both},
            },
        }
    )
    solution = solve(after, method=method)
    # C2 joins: "move one of the partitions to the new consumer ... preserving 3".
    assert solution.sorted_loads == (2, 1, 1)
    assert solution.retained == 3
    assert solution.moved == 1


@pytest.mark.parametrize("method", [m for m in METHODS if m != "flow-spread"])  # flow-spread: spread only
def test_kip49_example(method):
    every = ["T1", "T2", "T3", "T4", "T5"]
    odd = ["T1", "T3", "T5"]
    problem = Problem.from_mapping(
        {
            "topics": {"T1": 2, "T2": 1, "T3": 2, "T4": 1, "T5": 2},
            "members": {"C1": {"topics": every}, "C2": {"topics": odd}, "C3": {"topics": odd}, "C4": {"topics": every}},
        }
    )
    # The fair table gives every consumer two partitions.
    assert solve(problem, method=method).sorted_loads == (2, 2, 2, 2)


@pytest.mark.parametrize("method", [m for m in METHODS if m != "flow-spread"])  # flow-spread: spread only
def test_sticky_yet_fair_keeps_every_claim(method):
    # KIP-54's alternative: stickiness first.  Example 3 with C2 joining keeps all 4.
    both = ["t0", "t1"]
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 2, "t1": 2, "t2": 2},
            "members": {
                "C0": {"topics": both, "owned": {"t0": [0], "t1": [0]}, "generation": 1},
                "C1": {"topics": both, "owned": {"t0": [1], "t1": [1]}, "generation": 1},
                "C2": {"topics": both + ["t2"]},
            },
            "objective": ["stickiness", "balance"],
        }
    )
    solution = solve(problem, method=method)
    assert solution.retained == 4
    assert solution.sorted_loads == (2, 2, 2)
