"""KIP-848's UniformAssignor: Kafka's own builder tests, translated, and its guarantee as a property.

Source: apache/kafka 1eb7644 (4.0.0-SNAPSHOT), group-coordinator tests
``OptimizedUniformAssignmentBuilderTest`` (the homogeneous builder) and
``UniformHeterogeneousAssignmentBuilderTest``.  Members are A, B, C in a
TreeMap there, so in member id order as here.  The previous target
assignment of a member becomes its claim at generation 1.

Topic names: the port takes topics in name order where Kafka iterates a
``HashSet`` of topic ids.  Kafka's tests use fixed ids, whose HashSet order
(Java's ``Uuid.hashCode`` in a 16-bucket table, computed) is T2, T4, T3,
T1; where a test's answer depends on that order the topics are named so
that name order is that order (``HASH_ORDER``).  Where it depends instead on
the order of a member's ordered assignment map (``mkOrderedAssignment``) or
on the heterogeneous builder's tie-break by topic id (T1 < T2 < T3 < T4),
plain names keep that order.
"""

from __future__ import annotations

from hypothesis import given, settings

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.compare.scenarios.strategies import problems, rebalances
from assignment_oracle.heuristics import uniform
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations

HASH_ORDER = {"topic2": "a-topic2", "topic4": "b-topic4", "topic3": "c-topic3", "topic1": "d-topic1"}
PLAIN = {t: t for t in HASH_ORDER}


def run(names, topics: dict[str, int], members: dict[str, tuple[list[str], dict[str, list[int]]]]) -> dict:
    problem = Problem.from_mapping(
        {
            "topics": {names[t]: n for t, n in topics.items()},
            "members": {
                m: {
                    "topics": [names[t] for t in subscribed],
                    **({"owned": {names[t]: ps for t, ps in owned.items()}, "generation": 1} if owned else {}),
                }
                for m, (subscribed, owned) in members.items()
            },
        }
    )
    back = {v: k for k, v in names.items()}
    return {
        m: {back[t]: ps for t, ps in ts.items()}
        for m, ts in uniform.assign(problem).to_mapping(problem.member_ids).items()
    }


T12, T13 = ["topic1", "topic2"], ["topic1", "topic3"]


# -- OptimizedUniformAssignmentBuilderTest (homogeneous) ---------------------------------------------------------


def test_testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks():
    got = run(HASH_ORDER, {"topic1": 3, "topic3": 2}, {"A": (T13, {}), "B": (T13, {})})
    assert got == {"A": {"topic1": [0], "topic3": [0, 1]}, "B": {"topic1": [1, 2]}}


def test_homogeneous_testFirstAssignmentNumMembersGreaterThanTotalNumPartitions():
    got = run(HASH_ORDER, {"topic3": 2}, {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic3"], {})})
    assert got == {"A": {"topic3": [0]}, "B": {"topic3": [1]}, "C": {}}


def test_testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment():
    got = run(
        PLAIN,
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0, 1], "topic2": [0, 1]}), "B": (T12, {"topic1": [2], "topic2": [2]})},
    )
    assert got == {"A": {"topic1": [0, 1], "topic2": [0]}, "B": {"topic1": [2], "topic2": [1, 2]}}


def test_testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics():
    got = run(
        HASH_ORDER,
        {"topic1": 6, "topic2": 5},
        {"A": (T12, {"topic1": [0, 2], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1, 2]})},
    )
    assert got == {"A": {"topic1": [0, 2, 3], "topic2": [0, 3, 4]}, "B": {"topic1": [1, 4, 5], "topic2": [1, 2]}}


def test_testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics():
    got = run(
        PLAIN,
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0, 2], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1, 2]}), "C": (T12, {})},
    )
    assert got == {"A": {"topic1": [0, 2]}, "B": {"topic1": [1], "topic2": [1]}, "C": {"topic2": [0, 2]}}


def test_testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics():
    got = run(
        HASH_ORDER,
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1]})},
    )
    assert got == {"A": {"topic1": [0], "topic2": [0, 2]}, "B": {"topic1": [1, 2], "topic2": [1]}}


# -- UniformHeterogeneousAssignmentBuilderTest -------------------------------------------------------------------


def test_testFirstAssignmentTwoMembersTwoTopics():
    got = run(PLAIN, {"topic1": 3, "topic3": 6}, {"A": (T13, {}), "B": (["topic3"], {})})
    assert got == {"A": {"topic1": [0, 1, 2], "topic3": [4]}, "B": {"topic3": [0, 1, 2, 3, 5]}}


def test_heterogeneous_testFirstAssignmentNumMembersGreaterThanTotalNumPartitions():
    got = run(PLAIN, {"topic3": 1, "topic1": 2}, {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic1"], {})})
    assert got == {"A": {"topic3": [0]}, "B": {}, "C": {"topic1": [0, 1]}}


def test_testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment():
    got = run(
        PLAIN,
        {"topic1": 6, "topic2": 4, "topic3": 4},
        {
            "A": (["topic1"], {"topic1": [0, 1, 2]}),
            "B": (T12, {"topic1": [3], "topic2": [0]}),
            "C": (["topic1", "topic2", "topic3"], {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]}),
        },
    )
    assert got == {
        "A": {"topic1": [0, 1, 2, 5]},
        "B": {"topic1": [3], "topic2": [0, 1, 2, 3]},
        "C": {"topic1": [4], "topic3": [0, 1, 2, 3]},
    }


def test_testReassignmentWhenPartitionsAreAddedForTwoMembers():
    got = run(
        PLAIN,
        {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
        {
            "A": (T13, {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}),
            "B": (["topic1", "topic2", "topic3", "topic4"], {"topic2": [0, 1, 2], "topic4": [0, 1, 2]}),
        },
    )
    assert got == {
        "A": {"topic1": [0, 1, 2, 3, 4, 5], "topic3": [0, 1, 2]},
        "B": {"topic2": [0, 1, 2, 3, 4], "topic4": [0, 1, 2]},
    }


# -- the guarantee, as a property ---------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(problems())
def test_valid_and_keeps_the_local_balance_condition(problem):
    assignment = uniform.assign(problem)
    assert not violations(problem, assignment)
    assert check_guarantee("kafka-balance", problem, assignment).kept


@settings(max_examples=300, deadline=None)
@given(problem=rebalances(identical=True))
def test_the_array_homogeneous_builder_is_kafkas_loop(problem):
    # The default path runs the homogeneous builder over one owner array; the literal port of
    # UniformHomogeneousAssignmentBuilder (one step per partition) must give the same owners.
    from assignment_oracle.heuristics.uniform import _homogeneous, _homogeneous_arrays
    from assignment_oracle.problem.claims import resolve_claims

    previous = resolve_claims(problem).previous_owner
    existing = problem.partition_counts
    topics = tuple(sorted(t for t in problem.members[0].topics if t in existing))
    fast = _homogeneous_arrays(problem, topics, previous)
    literal = _homogeneous(problem, topics, previous)
    assert {t: list(map(int, fast[t])) for t in fast} == {t: list(literal[t]) for t in topics}


def test_a_missing_topic_in_one_subscription_makes_the_group_heterogeneous_as_in_kafka():
    """ModernGroup.subscriptionType counts subscribers per topic *name*, a topic that does not exist
    included: a takes the heterogeneous builder, which keeps b's two partitions (2/1 is balanced), where
    the homogeneous one, with the same topics that exist, gives the extra quota to a (first in order) and
    revokes t0-1 from b.  Both expected answers are Kafka's own: its UniformAssignor at 1eb7644, compiled
    and asked through tools/kafka_differential's driver, returns exactly these two (and reports the
    subscription types heterogeneous and homogeneous)."""
    base = {"topics": {"t0": 3}, "members": {"b": {"topics": ["t0"], "owned": {"t0": [0, 1]}, "generation": 1}}}
    missing = Problem.from_mapping({**base, "members": {**base["members"], "a": {"topics": ["t0", "missing"]}}})
    same = Problem.from_mapping({**base, "members": {**base["members"], "a": {"topics": ["t0"]}}})
    assert uniform.assign(missing).to_mapping() == {"a": {"t0": [2]}, "b": {"t0": [0, 1]}}
    assert uniform.assign(same).to_mapping() == {"a": {"t0": [1, 2]}, "b": {"t0": [0]}}
