"""Static members (KIP-345) in Range and RoundRobin: Kafka's own test cases, translated.

Source: apache/kafka 1eb7644 (4.0.0-SNAPSHOT), ``RoundRobinAssignorTest`` and
``RangeAssignorTest`` in clients/src/test/java/org/apache/kafka/clients/consumer.
The Range cases run there for every ``RackConfig``; the variants without
consumer racks are the ones this (rack-unaware) port is held to.  Kafka
lists each member's partitions in assignment order; an assignment here is
a set, so each expectation is compared as one.
"""

from __future__ import annotations

import pytest

from assignment_oracle.heuristics import range as range_assignor
from assignment_oracle.heuristics import roundrobin
from assignment_oracle.problem import Problem

BOTH = ["topic1", "topic2"]


def group(partitions: tuple[int, int], members: dict[str, str | None]) -> Problem:
    """Two topics; member id -> instance id (None: dynamic), everyone subscribed to both."""
    return Problem.from_mapping(
        {
            "topics": {"topic1": partitions[0], "topic2": partitions[1]},
            "members": {m: {"topics": BOTH, **({"instance_id": i} if i else {})} for m, i in members.items()},
        }
    )


def given(assign, problem: Problem) -> dict[str, set[tuple[str, int]]]:
    return {
        m: {(t, p) for t, ps in topics.items() for p in ps}
        for m, topics in assign(problem).to_mapping(problem.member_ids).items()
    }


def tps(*pairs: tuple[str, int]) -> set[tuple[str, int]]:
    return set(pairs)


T1, T2 = "topic1", "topic2"


# -- RoundRobinAssignorTest --------------------------------------------------------------------------------------


def test_roundrobin_testTwoStaticConsumersTwoTopicsSixPartitions():
    # "although consumer 2 has a higher rank than 1, the comparison happens on instance id level"
    got = given(roundrobin.assign, group((3, 3), {"consumer-b": "instance1", "consumer-a": "instance2"}))
    assert got["consumer-b"] == tps((T1, 0), (T1, 2), (T2, 1))
    assert got["consumer-a"] == tps((T1, 1), (T2, 0), (T2, 2))


def test_roundrobin_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions():
    got = given(roundrobin.assign, group((3, 3), {"consumer-b": "instance1", "consumer-a": None}))
    assert got["consumer-b"] == tps((T1, 0), (T1, 2), (T2, 1))
    assert got["consumer-a"] == tps((T1, 1), (T2, 0), (T2, 2))


def test_roundrobin_testStaticMemberRoundRobinAssignmentPersistent():
    static = {"consumer1": "instance1", "consumer2": "instance2", "consumer3": "instance3"}
    expected = {"consumer1": tps((T1, 0), (T2, 1)), "consumer2": tps((T1, 1), (T2, 2)), "consumer3": tps((T1, 2))}
    got = given(roundrobin.assign, group((3, 3), {**static, "consumer4": None}))
    assert got == {**expected, "consumer4": tps((T2, 0))}
    # Replace dynamic member 4 with a new dynamic member 5.
    got = given(roundrobin.assign, group((3, 3), {**static, "consumer5": None}))
    assert got == {**expected, "consumer5": tps((T2, 0))}


def by_instance(assign, problem: Problem) -> dict[str, set[tuple[str, int]]]:
    got = given(assign, problem)
    return {m.instance_id: got[m.member_id] for m in problem.members if m.instance_id}


@pytest.mark.parametrize(
    "assign, expected",
    [
        (
            roundrobin.assign,
            {
                "instance1": tps((T1, 0), (T1, 3), (T2, 1), (T2, 4)),
                "instance2": tps((T1, 1), (T1, 4), (T2, 2)),
                "instance3": tps((T1, 2), (T2, 0), (T2, 3)),
            },
        ),
        (
            range_assignor.assign,
            {
                "instance1": tps((T1, 0), (T1, 1), (T2, 0), (T2, 1)),
                "instance2": tps((T1, 2), (T1, 3), (T2, 2), (T2, 3)),
                "instance3": tps((T1, 4), (T2, 4)),
            },
        ),
    ],
    ids=["roundrobin", "range"],
)
def test_testStaticMemberAssignmentPersistentAfterMemberIdChanges(assign, expected):
    before = group((5, 5), {"consumer1": "instance1", "consumer2": "instance2", "consumer3": "instance3"})
    assert by_instance(assign, before) == expected
    # Switch the member ids: consumer3 becomes consumer4, consumer2 becomes consumer5; nothing moves.
    after = group((5, 5), {"consumer1": "instance1", "consumer5": "instance2", "consumer4": "instance3"})
    assert by_instance(assign, after) == expected


# -- RangeAssignorTest (the variants without consumer racks) ------------------------------------------------------


def test_range_testTwoStaticConsumersTwoTopicsSixPartitions():
    got = given(range_assignor.assign, group((3, 3), {"consumer-b": "instance1", "consumer-a": "instance2"}))
    assert got["consumer-b"] == tps((T1, 0), (T1, 1), (T2, 0), (T2, 1))
    assert got["consumer-a"] == tps((T1, 2), (T2, 2))


def test_range_testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions():
    got = given(range_assignor.assign, group((3, 3), {"consumer-b": "instance1", "consumer-a": None}))
    assert got["consumer-b"] == tps((T1, 0), (T1, 1), (T2, 0), (T2, 1))
    assert got["consumer-a"] == tps((T1, 2), (T2, 2))


def test_range_testStaticMemberRangeAssignmentPersistent():
    static = {"consumer1": "instance1", "consumer2": "instance2", "consumer3": "instance3"}
    expected = {
        "consumer1": tps((T1, 0), (T1, 1), (T2, 0)),
        "consumer2": tps((T1, 2), (T2, 1)),
        "consumer3": tps((T1, 3), (T2, 2)),
    }
    got = given(range_assignor.assign, group((5, 4), {**static, "consumer4": None}))
    assert got == {**expected, "consumer4": tps((T1, 4), (T2, 3))}
    got = given(range_assignor.assign, group((5, 4), {**static, "consumer5": None}))
    assert got == {**expected, "consumer5": tps((T1, 4), (T2, 3))}


def test_without_instance_ids_the_order_is_by_member_id_as_before():
    dynamic = group((3, 3), {"consumer1": None, "consumer2": None})  # testTwoDynamicConsumersTwoTopicsSixPartitions
    got = given(roundrobin.assign, dynamic)
    assert got["consumer1"] == tps((T1, 0), (T1, 2), (T2, 1))
    assert got["consumer2"] == tps((T1, 1), (T2, 0), (T2, 2))
