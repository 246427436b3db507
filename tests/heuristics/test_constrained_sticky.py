"""The constrained algorithm, one example per branch of the seed's pseudocode.

Expected tables are worked by hand from the seed's steps (quotas, keep up to
quota, fill, steal, distribute), in the module docstring's reconstruction.

The cases of ``iteration_order="java"`` (Kafka 3.4.0's ``StickyAssignor``)
expect Kafka 3.4.0's own answers: each scenario was given to Kafka's Java
compiled at tag 3.4.0 by ``tools/kafka_differential/legacy.py`` (its
``LegacyDriver``, ``sticky`` with V1 user data) and the answer copied here.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems, rebalances

from assignment_oracle.heuristics import constrained_sticky, kafka4_sticky, sticky
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


# -- iteration_order="java": Kafka 3.4.0's code --------------------------------------------------------------

#: (why, scenario, Kafka 3.4.0's answer from legacy.py's JVM)
KAFKA_3_4_0 = [
    (
        "fill: one partition per unfilled member per pass, not each member to the floor in turn",
        {"topics": {"t": 4}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}},
        {"a": {"t": [0, 2]}, "b": {"t": [1, 3]}},
    ),
    (
        "claims in user-data order: g6 and r1 share a bucket, and groupPartitionsByTopic's computeIfAbsent "
        "puts r1 ahead of g6, so c1 keeps r1-0 (its first claim) at the quota of 1",
        {
            "topics": {"g6": 1, "r1": 1},
            "members": {
                "c0": {"topics": ["g6", "r1"]},
                "c1": {"topics": ["g6", "r1"], "owned": {"g6": [0], "r1": [0]}, "generation": 1},
            },
        },
        {"c0": {"g6": [0]}, "c1": {"r1": [0]}},
    ),
    (
        "member hash order: the HashMap iterates consumer3, consumer2, consumer1, so consumer2 is the member "
        "kept at maxQuota (the sorted port keeps consumer1's two)",
        {
            "topics": {"t": 4},
            "members": {
                "consumer1": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
                "consumer2": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 1},
                "consumer3": {"topics": ["t"]},
            },
        },
        {"consumer1": {"t": [0]}, "consumer2": {"t": [2, 3]}, "consumer3": {"t": [1]}},
    ),
    (
        "a partition claimed twice at the top generation counts for neither",
        {
            "topics": {"t": 2},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2},
                "b": {"topics": ["t"], "owned": {"t": [1]}, "generation": 2},
            },
        },
        {"a": {"t": [0]}, "b": {"t": [1]}},
    ),
    (
        "every claim of a member below the top generation is dropped (3.4.0's rule, before KAFKA-14639)",
        {
            "topics": {"t": 4},
            "members": {
                "a": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 4},
                "b": {"topics": ["t"], "generation": 5},
            },
        },
        {"a": {"t": [0, 2]}, "b": {"t": [1, 3]}},
    ),
    (
        "claims kept in the order sent, up to maxQuota (Kafka 4 sorts them first)",
        {
            "topics": {"t": 5},
            "members": {"a": {"topics": ["t"], "owned": {"t": [3, 0, 4]}, "generation": 1}, "b": {"topics": ["t"]}},
        },
        {"a": {"t": [0, 3, 4]}, "b": {"t": [1, 2]}},
    ),
    (
        "differing subscriptions: 3.4.0's general path (isBalanced before KAFKA-15106), which also hands Ht5-1 "
        "back to its stale previous owner c1 although c1 no longer subscribes to Ht5 -- Kafka's invalid answer, kept",
        {
            "topics": {"9": 1, "Ht5": 5},
            "members": {
                "c0": {"topics": ["Ht5"]},
                "c1": {"topics": ["9"], "owned": {"Ht5": [1]}},
                "c2": {"topics": ["9", "Ht5"], "owned": {"Ht5": [4]}, "generation": 1},
            },
        },
        {"c0": {"Ht5": [0, 3]}, "c1": {"9": [0], "Ht5": [1]}, "c2": {"Ht5": [2, 4]}},
    ),
    (
        "differing subscriptions where 3.4.0's isBalanced and Kafka 4's (KAFKA-15106, 3.6.0) part ways",
        {
            "topics": {"tLy": 1, "g": 1, "z": 6},
            "members": {
                "c0": {"topics": ["tLy", "z"]},
                "c1": {"topics": ["g"], "owned": {"z": [4]}},
                "c2": {"topics": ["g", "z"], "generation": 2},
            },
        },
        {"c0": {"tLy": [0], "z": [1, 3]}, "c1": {"g": [0], "z": [4]}, "c2": {"z": [0, 2, 5]}},
    ),
]


@pytest.mark.parametrize(
    ("why", "scenario", "kafka"), KAFKA_3_4_0, ids=[f"kafka-3.4.0-{i}" for i in range(len(KAFKA_3_4_0))]
)
def test_java_order_answers_as_kafka_3_4_0(why, scenario, kafka):
    problem = Problem.from_mapping(scenario)
    got = constrained_sticky.assign(problem, iteration_order="java").to_mapping(problem.member_ids)
    assert got == kafka, why


def test_java_order_isbalanced_is_3_4_0s_not_kafka_4s(monkeypatch):
    """The last case above with Kafka 4's isBalanced (KAFKA-15106: unbalanced only if a member could take a
    partition from one with two more) in place of 3.4.0's: another answer, not Kafka 3.4.0's."""
    scenario, kafka = KAFKA_3_4_0[-1][1:]
    problem = Problem.from_mapping(scenario)
    monkeypatch.setattr(
        constrained_sticky._GeneralAssign, "unbalanced_over", kafka4_sticky._GeneralAssignmentBuilder.unbalanced_over
    )
    assert constrained_sticky.assign(problem, iteration_order="java").to_mapping(problem.member_ids) != kafka


#: Kafka 3.4.0 throws NullPointerException (legacy.py's JVM): c1's stale claim makes it t0-1's previous owner,
#: c1 subscribes only to t1 and is set aside as fixed, performReassignments reads its assignment.
NPE = {
    "topics": {"t0": 4, "t1": 1},
    "members": {
        "c0": {"topics": ["t0"], "owned": {"t0": [0, 2, 3]}, "generation": 6},
        "c1": {"topics": ["t1"], "owned": {"t0": [1]}},
        "c2": {"topics": ["t0"]},
    },
}


def test_literal_throws_kafkas_null_pointer_exception():
    problem = Problem.from_mapping(NPE)
    with pytest.raises(constrained_sticky.NullPointerException, match="set aside as fixed"):
        constrained_sticky.assign(problem, iteration_order="java", literal=True)
    # The departure: t0-1 has no previous owner then, and the assignor answers.
    got = constrained_sticky.assign(problem, iteration_order="java").to_mapping(problem.member_ids)
    assert got == {"c0": {"t0": [2, 3]}, "c1": {"t1": [0]}, "c2": {"t0": [0, 1]}}


def test_literal_keeps_kafkas_empty_first_subscription_rule():
    """Kafka 3.4.0 (legacy.py's JVM) gives t0-0 to c0, which subscribes to nothing: c0's empty set left the
    reference "not yet initialised"; the departure takes c0's as the reference and runs the general path."""
    problem = Problem.from_mapping({"topics": {"t0": 1}, "members": {"c0": {"topics": []}, "c1": {"topics": ["t0"]}}})
    literal = constrained_sticky.assign(problem, iteration_order="java", literal=True)
    assert literal.to_mapping(problem.member_ids) == {"c0": {"t0": [0]}, "c1": {}}
    default = constrained_sticky.assign(problem, iteration_order="java")
    assert default.to_mapping(problem.member_ids) == {"c0": {}, "c1": {"t0": [0]}}


def test_iteration_order_and_literal_are_checked():
    problem = Problem.from_mapping({"topics": {"t": 1}, "members": {"a": {"topics": ["t"]}}})
    with pytest.raises(ValueError, match="iteration_order"):
        constrained_sticky.assign(problem, iteration_order="hash")
    with pytest.raises(ValueError, match="literal"):
        constrained_sticky.assign(problem, literal=True)


@settings(max_examples=200)
@given(problem=st.one_of(rebalances(), problems(max_topics=4, max_partitions=5, max_members=5, max_assignments=None)))
def test_sorted_order_is_the_default(problem):
    """``iteration_order="sorted"`` is today's answer, unchanged."""
    assert constrained_sticky.assign(problem) == constrained_sticky.assign(problem, iteration_order="sorted")


@settings(max_examples=200)
@given(problem=rebalances())
def test_java_order_places_every_partition_once(problem):
    """Kafka 3.4.0's paths place each partition of a subscribed topic exactly once."""
    placed = [
        (t, p)
        for ts in constrained_sticky.assign(problem, iteration_order="java").to_mapping(problem.member_ids).values()
        for t, ps in ts.items()
        for p in ps
    ]
    assert sorted(placed) == sorted((t.name, p) for t in problem.assignable_topics for p in range(t.partitions))
