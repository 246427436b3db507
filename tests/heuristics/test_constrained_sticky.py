"""The constrained algorithm, one example per branch of the seed's pseudocode.

Expected tables are worked by hand from the seed's steps (quotas, keep up to
quota, fill, steal, distribute), in the module docstring's reconstruction.
"""

from __future__ import annotations

from hypothesis import given, settings
from strategies import rebalances

from assignment_oracle.heuristics import constrained_sticky, sticky
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.metrics import retained


def solve_table(topics, members):
    problem = Problem.from_mapping({"topics": topics, "members": members})
    return constrained_sticky.assign(problem).to_mapping(problem.member_ids)


def test_steal_from_max_capacity_members():
    """P=4, N=3: floor 1, ceil 2, one member may hold 2.  a and b both kept 2
    (max capacity), c has none and the list is empty, so c steals a's first."""
    got = solve_table(
        {"t": 4},
        {
            "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
            "b": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 1},
            "c": {"topics": ["t"]},
        },
    )
    assert got == {"a": {"t": [1]}, "b": {"t": [2, 3]}, "c": {"t": [0]}}


def test_distribute_the_rest_to_reach_the_ceiling():
    """P=5, N=3: a and b kept their floor (1), c is filled to 1 with t-2, and
    the rest go one each, in member order, to members not at max capacity."""
    got = solve_table(
        {"t": 5},
        {
            "a": {"topics": ["t"], "owned": {"t": [0]}, "generation": 1},
            "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 1},
            "c": {"topics": ["t"]},
        },
    )
    assert got == {"a": {"t": [0, 3]}, "b": {"t": [1, 4]}, "c": {"t": [2]}}


def test_claims_of_an_old_generation_are_all_dropped():
    """a's generation (1) is older than b's (2): a's claim on t-3 does not count,
    so the fill hands out t-2 then t-3 in order (had it counted, a keeps t-3)."""
    got = solve_table(
        {"t": 4},
        {
            "a": {"topics": ["t"], "owned": {"t": [3]}, "generation": 1},
            "b": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 2},
            "c": {"topics": ["t"]},
        },
    )
    assert got == {"a": {"t": [2]}, "b": {"t": [0, 1]}, "c": {"t": [3]}}


def test_unassigned_partitions_go_out_partition_major():
    """ "t0_p0, t1_p0, t0_p1, t1_p1" for data parallelism."""
    got = solve_table({"t0": 2, "t1": 2}, {"a": {"topics": ["t0", "t1"]}, "b": {"topics": ["t0", "t1"]}})
    assert got == {"a": {"t0": [0], "t1": [0]}, "b": {"t0": [1], "t1": [1]}}


def test_a_partition_claimed_twice_at_the_newest_generation_counts_for_neither():
    """Had a's claim (first by member id) won, a would keep t-1 and b get t-0."""
    got = solve_table(
        {"t": 2},
        {
            "a": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2},
            "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2},
        },
    )
    assert got == {"a": {"t": [0]}, "b": {"t": [1]}}


def test_more_members_than_partitions():
    """Floor 0: a member with a claim keeps one (ceil), the others wait."""
    got = solve_table(
        {"t": 2},
        {"a": {"topics": ["t"]}, "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 1}, "c": {"topics": ["t"]}},
    )
    assert got == {"a": {"t": [0]}, "b": {"t": [1]}, "c": {}}


@settings(max_examples=100)
@given(problem=rebalances(identical=False))
def test_differing_subscriptions_fall_back_to_sticky(problem):
    if constrained_sticky.subscriptions_identical(problem):
        return
    assert constrained_sticky.assign(problem) == sticky.assign(problem)


def test_a_member_reporting_a_newer_generation_without_claims_makes_older_claims_stale():
    """b was in generation 5 and owns nothing; a's generation-4 claims are stale.
    Fill in partition-major order: a gets t-0, t-1; had a's claims counted, a keeps t-2, t-3."""
    got = solve_table(
        {"t": 4},
        {"a": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 4}, "b": {"topics": ["t"], "generation": 5}},
    )
    assert got == {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}


def test_todays_per_partition_rule_would_keep_what_the_stale_member_claims():
    """The instance above under KAFKA-14639's rule (Kafka 3.4.1/3.5.0 and later): a claim counts
    unless another member claims the same partition at a higher generation.  Nobody else claims
    t-2 or t-3, so today's rule credits a with both and a keeps them within its quota of 2; the
    port's rule (Kafka 2.8.0-3.4.0: every claim below the top generation is dropped) moves both."""
    problem = Problem.from_mapping(
        {
            "topics": {"t": 4},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 4},
                "b": {"topics": ["t"], "generation": 5},
            },
        }
    )
    assert resolve_claims(problem).previous_owner["t"].tolist() == [-1, -1, 0, 0]  # today's owners: a, a
    got = constrained_sticky.assign(problem)
    assert retained(problem, got) == 0  # measured against today's owners: both of a's partitions moved
    best = solve(problem)  # the oracle resolves claims by today's rule
    assert best.retained == 2
    assert best.assignment.to_mapping(problem.member_ids) == {"a": {"t": [2, 3]}, "b": {"t": [0, 1]}}
