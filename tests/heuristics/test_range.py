"""The client RangeAssignor, rack-aware (KIP-881): Kafka's own test cases, translated, and its guarantee as a property.

Source: apache/kafka 1eb7644 (4.0.0-SNAPSHOT),
clients/src/test/java/org/apache/kafka/clients/consumer/RangeAssignorTest.java
(all 20 test methods, every ``RackConfig`` and ``hasConsumerRack`` value of the
parameterized ones, every ``verifyRackAssignment`` call of the others) and
``AbstractPartitionAssignorTest.testUseRackAwareAssignment``; the pre-fix
variant against the expectations of ``testRackAwareAssignmentWithCoPartitioning``
as they stood before KAFKA-14891 (apache/kafka b64ac94^).  Inputs are built
the way Kafka's helpers build them (``initializeRacks``, ``subscription``,
``partitionInfos``, ``verifyRackAssignment``: replica ``j`` of partition ``i``
on broker ``(i + j + offset) % brokers``); expectations are copied from the
test file, as Kafka's sorted strings.  ``preferRackAwareLogic`` is
``prefer_rack_aware``, on where the Java test turns it on.  The rack-free
forms of three static-member cases are in ``test_static_members.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.heuristics import range as range_assignor
from assignment_oracle.problem import Problem
from assignment_oracle.problem.ownership import violations

ALL_RACKS = ("a", "b", "c", "d", "e", "f")  # AbstractPartitionAssignorTest.ALL_RACKS
NO_BROKER_RACK, NO_CONSUMER_RACK, BROKER_AND_CONSUMER_RACK = (
    "NO_BROKER_RACK",
    "NO_CONSUMER_RACK",
    "BROKER_AND_CONSUMER_RACK",
)
RACK_CONFIGS = (NO_BROKER_RACK, NO_CONSUMER_RACK, BROKER_AND_CONSUMER_RACK)


def racks(n: int) -> list[str | None]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(n)]


def null_racks(n: int) -> list[str | None]:
    return [None] * n


def replica_racks(partitions: int, replication: int, broker_racks: list[str | None], offset: int):
    """``partitionInfos(topic, n, rf, brokerRacks, nextNodeIndex)``: each partition's replicas' racks (nulls dropped)."""
    brokers = len(broker_racks)
    per_partition = [[broker_racks[(i + j + offset) % brokers] for j in range(replication)] for i in range(partitions)]
    if all(r is None for rs in per_partition for r in rs):
        return None
    return [[r for r in rs if r is not None] for rs in per_partition]


def topic_entry(partitions: int, replicas) -> dict:
    return {"partitions": partitions, "racks": replicas} if replicas is not None else {"partitions": partitions}


def sorted_strings(problem: Problem, assignment) -> dict[str, str]:
    """Kafka's ``toSortedString``: a member's partitions as ``t-p`` strings, sorted as strings."""
    got = assignment.to_mapping(problem.member_ids)
    return {m: ", ".join(sorted(f"{t}-{p}" for t, ps in ts.items() for p in ps)) for m, ts in got.items()}


def mismatched(problem: Problem, assignment) -> int:
    """``verifyRackAssignment``'s count: partitions of a member with a rack that have no replica on it."""
    replicas = {t.name: t.racks for t in problem.topics}
    count = 0
    for member in problem.members:
        if member.rack is None:
            continue
        for topic, partitions in assignment.to_mapping(problem.member_ids)[member.member_id].items():
            count += sum(1 for p in partitions if replicas[topic] is None or member.rack not in replicas[topic][p])
    return count


# -- the RackConfig-parameterized tests (RangeAssignorTest's own helpers) -------------------------------------------


def rack_config_group(
    config: str,
    topics: dict[str, int],
    consumers: list[tuple],
    *,
    max_consumers: int = 3,
    replication: int | None = None,
    broker_racks: int | None = None,
) -> Problem:
    """``initializeRacks(config, maxConsumers)``, then ``partitionInfos(topic, n)`` and ``subscription(topics, index)``.

    ``consumers``: (member id, topics, group.instance.id or None, consumer index).  ``replication`` and
    ``broker_racks`` override what ``partitionInfos`` is given (testRackAwareStaticMember... passes its own).
    """
    num_broker_racks = max_consumers if config != NO_BROKER_RACK else 0
    has_consumer_rack = config != NO_CONSUMER_RACK
    rf = replication if replication is not None else max_consumers
    partition_racks = broker_racks if broker_racks is not None else num_broker_racks
    brokers = rf if partition_racks <= 0 else partition_racks * rf
    broker_rack_list = [None if partition_racks <= 0 else ALL_RACKS[i % partition_racks] for i in range(brokers)]
    num_racks = num_broker_racks if num_broker_racks > 0 else len(ALL_RACKS)
    return Problem.from_mapping(
        {
            "topics": {t: topic_entry(n, replica_racks(n, rf, broker_rack_list, 0)) for t, n in topics.items()},
            "members": {
                m: {
                    "topics": ts,
                    **({"instance_id": i} if i else {}),
                    **({"rack": ALL_RACKS[index % num_racks]} if has_consumer_rack else {}),
                }
                for m, ts, i, index in consumers
            },
        }
    )


T1, T2 = "topic1", "topic2"
BOTH = [T1, T2]


@dataclass(frozen=True)
class Simple:
    """One parameterized test: its configs, topics, consumers and the assignment Kafka asserts."""

    test: str
    configs: tuple[str, ...]
    topics: dict
    consumers: list
    expected: dict
    max_consumers: int = 3


STATIC = [("consumer1", BOTH, "instance1", 0), ("consumer2", BOTH, "instance2", 1), ("consumer3", BOTH, "instance3", 2)]

SIMPLE = [
    # hasConsumerRack = true / false: BROKER_AND_CONSUMER_RACK / NO_CONSUMER_RACK
    Simple(
        "testOneConsumerNoTopic",
        (BROKER_AND_CONSUMER_RACK, NO_CONSUMER_RACK),
        {},
        [("consumer1", [], None, 0)],
        {"consumer1": ""},
    ),
    Simple(
        "testOneConsumerNonexistentTopic",
        (BROKER_AND_CONSUMER_RACK, NO_CONSUMER_RACK),
        {},
        [("consumer1", [T1], None, 0)],
        {"consumer1": ""},
    ),
    Simple(
        "testOneConsumerOneTopic",
        RACK_CONFIGS,
        {T1: 3},
        [("consumer1", [T1], None, 0)],
        {"consumer1": "topic1-0, topic1-1, topic1-2"},
    ),
    Simple(
        "testOnlyAssignsPartitionsFromSubscribedTopics",
        RACK_CONFIGS,
        {T1: 3, "other": 3},
        [("consumer1", [T1], None, 0)],
        {"consumer1": "topic1-0, topic1-1, topic1-2"},
    ),
    Simple(
        "testOneConsumerMultipleTopics",
        RACK_CONFIGS,
        {T1: 1, T2: 2},
        [("consumer1", BOTH, None, 0)],
        {"consumer1": "topic1-0, topic2-0, topic2-1"},
    ),
    Simple(
        "testTwoConsumersOneTopicOnePartition",
        RACK_CONFIGS,
        {T1: 1},
        [("consumer1", [T1], None, 0), ("consumer2", [T1], None, 1)],
        {"consumer1": "topic1-0", "consumer2": ""},
    ),
    Simple(
        "testTwoConsumersOneTopicTwoPartitions",
        RACK_CONFIGS,
        {T1: 2},
        [("consumer1", [T1], None, 0), ("consumer2", [T1], None, 1)],
        {"consumer1": "topic1-0", "consumer2": "topic1-1"},
    ),
    Simple(
        "testMultipleConsumersMixedTopics",
        RACK_CONFIGS,
        {T1: 3, T2: 2},
        [("consumer1", [T1], None, 0), ("consumer2", BOTH, None, 1), ("consumer3", [T1], None, 2)],
        {"consumer1": "topic1-0", "consumer2": "topic1-1, topic2-0, topic2-1", "consumer3": "topic1-2"},
    ),
    Simple(
        "testTwoConsumersTwoTopicsSixPartitions",
        RACK_CONFIGS,
        {T1: 3, T2: 3},
        [("consumer1", BOTH, None, 0), ("consumer2", BOTH, None, 1)],
        {"consumer1": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer2": "topic1-2, topic2-2"},
    ),
    Simple(
        "testTwoStaticConsumersTwoTopicsSixPartitions",
        RACK_CONFIGS,
        {T1: 3, T2: 3},
        [("consumer-b", BOTH, "instance1", 0), ("consumer-a", BOTH, "instance2", 1)],
        {"consumer-b": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer-a": "topic1-2, topic2-2"},
    ),
    Simple(
        "testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
        RACK_CONFIGS,
        {T1: 3, T2: 3},
        [("consumer-b", BOTH, "instance1", 0), ("consumer-a", BOTH, None, 1)],
        {"consumer-b": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer-a": "topic1-2, topic2-2"},
    ),
    Simple(
        "testStaticMemberRangeAssignmentPersistent",
        RACK_CONFIGS,
        {T1: 5, T2: 4},
        [*STATIC, ("consumer4", BOTH, None, 3)],
        {
            "consumer1": "topic1-0, topic1-1, topic2-0",
            "consumer2": "topic1-2, topic2-1",
            "consumer3": "topic1-3, topic2-2",
            "consumer4": "topic1-4, topic2-3",
        },
        max_consumers=5,
    ),
    # ... then dynamic member 4 replaced by a new dynamic member 5 (the next subscription index).
    Simple(
        "testStaticMemberRangeAssignmentPersistent",
        RACK_CONFIGS,
        {T1: 5, T2: 4},
        [*STATIC, ("consumer5", BOTH, None, 4)],
        {
            "consumer1": "topic1-0, topic1-1, topic2-0",
            "consumer2": "topic1-2, topic2-1",
            "consumer3": "topic1-3, topic2-2",
            "consumer5": "topic1-4, topic2-3",
        },
        max_consumers=5,
    ),
]


@pytest.mark.parametrize(
    "case, config",
    [(c, config) for c in SIMPLE for config in c.configs],
    ids=lambda v: v.test if isinstance(v, Simple) else v,
)
def test_rack_config_cases(case: Simple, config: str):
    problem = rack_config_group(config, case.topics, case.consumers, max_consumers=case.max_consumers)
    got = range_assignor.assign(problem, prefer_rack_aware=True)  # initializeRacks turns preferRackAwareLogic on
    assert not violations(problem, got)
    assert sorted_strings(problem, got) == case.expected


def by_instance(problem: Problem, assignment) -> dict[str, str]:
    """``checkStaticAssignment``: the assignment keyed by group.instance.id."""
    strings = sorted_strings(problem, assignment)
    return {m.instance_id: strings[m.member_id] for m in problem.members if m.instance_id}


# After the first assignment, consumer3's subscription moves to consumer4 and consumer2's to consumer5.
RENAMED = [
    ("consumer1", BOTH, "instance1", 0),
    ("consumer5", BOTH, "instance2", 1),
    ("consumer4", BOTH, "instance3", 2),
]


@pytest.mark.parametrize("config", RACK_CONFIGS)
def test_testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges(config):
    expected = {
        "instance1": "topic1-0, topic1-1, topic2-0, topic2-1",
        "instance2": "topic1-2, topic1-3, topic2-2, topic2-3",
        "instance3": "topic1-4, topic2-4",
    }
    for consumers in (STATIC, RENAMED):
        problem = rack_config_group(config, {T1: 5, T2: 5}, consumers)
        assert by_instance(problem, range_assignor.assign(problem, prefer_rack_aware=True)) == expected


def test_testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges():
    # initializeRacks(BROKER_AND_CONSUMER_RACK); partitions with replicationFactor 2 over 3 broker racks.
    expected = {
        "instance1": "topic1-0, topic1-2, topic2-0, topic2-2",
        "instance2": "topic1-1, topic1-3, topic2-1, topic2-3",
        "instance3": "topic1-4, topic2-4",
    }
    for consumers in (STATIC, RENAMED):
        problem = rack_config_group(BROKER_AND_CONSUMER_RACK, {T1: 5, T2: 5}, consumers, replication=2, broker_racks=3)
        assert by_instance(problem, range_assignor.assign(problem, prefer_rack_aware=True)) == expected


# -- the verifyRackAssignment tests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One ``verifyRackAssignment(assignor, topics, rf, brokerRacks, consumerRacks, consumerTopics, expected, n)``."""

    test: str
    topics: dict  # insertion order: the order partitionsPerTopic lays replicas out in (mkMap is a LinkedHashMap)
    replication: int
    broker_racks: list
    consumer_racks: list
    consumer_topics: list
    expected: list
    mismatches: int  # -1: not checked
    prefer: bool = False
    variant: str | None = None


def non_rack_aware(test: str, topics: dict, consumer_topics: list, expected: list) -> list[Call]:
    """``verifyNonRackAwareAssignment``: six combinations where rack awareness is not used, and the forced one."""
    return [
        Call(test, topics, rf, brokers, consumers, consumer_topics, expected, n, prefer)
        for rf, brokers, consumers, n, prefer in (
            (3, null_racks(3), racks(3), -1, False),
            (3, racks(3), null_racks(3), -1, False),
            (3, racks(3), racks(3), 0, False),
            (4, racks(4), racks(3), 0, False),
            (3, racks(3), ["d", "e", "f"], -1, False),
            (3, racks(3), [None, "e", "f"], -1, False),
            (3, racks(3), racks(3), 0, True),
        )
    ]


ALL3 = ["t1", "t2", "t3"]
ALL4 = ["t1", "t2", "t3", "t4"]
NINE = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]
UNIFORM = {"t1": 6, "t2": 7, "t3": 2}
FIVES = {"t1": 5, "t2": 5, "t3": 5}
COPART = {"t1": 6, "t2": 6, "t3": 2, "t4": 2}
COPART_RACKS = [ALL_RACKS[0], ALL_RACKS[1], ALL_RACKS[1], ALL_RACKS[0]]
SIX = {"t1": 6, "t2": 6, "t3": 2, "t4": 2, "t5": 4, "t6": 4}
FIVES_PLAIN = ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"]
COPART_PLAIN = ["t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"]
COPART_ALL_PLAIN = [
    "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0",
    "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1",
    "t1-4, t2-4",
    "t1-5, t2-5",
]
SIX_PLAIN = [
    "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1",
    "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2",
    "t1-4, t1-5, t2-4, t2-5, t5-3, t6-3",
]

name = "testRackAwareAssignmentWithUniformSubscription"
CALLS = [
    *non_rack_aware(
        name,
        UNIFORM,
        [ALL3] * 3,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"],
    ),
    Call(
        name,
        UNIFORM,
        1,
        racks(3),
        racks(3),
        [ALL3] * 3,
        ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"],
        0,
    ),
    Call(
        name,
        UNIFORM,
        2,
        racks(3),
        racks(3),
        [ALL3] * 3,
        ["t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"],
        1,
    ),
    Call(
        name,
        UNIFORM,
        3,
        racks(2),
        racks(3),
        [ALL3] * 3,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"],
        4,
    ),
]
name = "testRackAwareAssignmentWithNonEqualSubscription"
NON_EQUAL = [ALL3, ALL3, ["t1", "t3"]]
CALLS += [
    *non_rack_aware(
        name,
        UNIFORM,
        NON_EQUAL,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"],
    ),
    Call(
        name,
        UNIFORM,
        1,
        racks(3),
        racks(3),
        NON_EQUAL,
        ["t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"],
        2,
    ),
    Call(
        name,
        UNIFORM,
        2,
        racks(3),
        racks(3),
        NON_EQUAL,
        ["t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"],
        0,
    ),
    Call(
        name,
        UNIFORM,
        3,
        racks(2),
        racks(3),
        NON_EQUAL,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"],
        2,
    ),
]
name = "testRackAwareAssignmentWithUniformPartitions"
CALLS += [
    *non_rack_aware(name, FIVES, [ALL3] * 3, FIVES_PLAIN),
    # "Verify that co-partitioning is prioritized over rack-alignment"
    Call(name, FIVES, 1, racks(3), racks(3), [ALL3] * 3, FIVES_PLAIN, 10),
    Call(name, FIVES, 2, racks(3), racks(3), [ALL3] * 3, FIVES_PLAIN, 5),
    Call(name, FIVES, 3, racks(2), racks(3), [ALL3] * 3, FIVES_PLAIN, 3),
]
name = "testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription"
CALLS += [
    *non_rack_aware(
        name,
        FIVES,
        NON_EQUAL,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"],
    ),
    Call(
        name,
        FIVES,
        1,
        racks(3),
        racks(3),
        NON_EQUAL,
        ["t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"],
        9,
    ),
    Call(
        name,
        FIVES,
        2,
        racks(3),
        racks(3),
        NON_EQUAL,
        ["t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"],
        0,
    ),
    Call(
        name,
        FIVES,
        3,
        racks(2),
        racks(3),
        NON_EQUAL,
        ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"],
        2,
    ),
]
name = "testRackAwareAssignmentWithCoPartitioning"
PAIRS = [["t1", "t2"], ["t1", "t2"], ["t3", "t4"], ["t3", "t4"]]
CALLS += [
    Call(name, COPART, 3, racks(2), COPART_RACKS, PAIRS, COPART_PLAIN, -1),
    Call(name, COPART, 3, racks(2), COPART_RACKS, PAIRS, COPART_PLAIN, -1),
    Call(name, COPART, 2, racks(2), COPART_RACKS, PAIRS, COPART_PLAIN, 0),
    Call(
        name,
        COPART,
        1,
        racks(2),
        COPART_RACKS,
        PAIRS,
        ["t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1", "t3-0, t4-0"],
        0,
    ),
    Call(name, COPART, 3, racks(2), COPART_RACKS, [ALL4] * 4, COPART_ALL_PLAIN, -1),
    Call(name, COPART, 3, racks(2), COPART_RACKS, [ALL4] * 4, COPART_ALL_PLAIN, -1),
    Call(name, COPART, 2, racks(2), COPART_RACKS, [ALL4] * 4, COPART_ALL_PLAIN, 0),
    Call(
        name,
        COPART,
        1,
        racks(2),
        COPART_RACKS,
        [ALL4] * 4,
        ["t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-5, t2-5", "t1-4, t2-4"],
        0,
    ),
    Call(
        name,
        COPART,
        1,
        racks(3),
        COPART_RACKS,
        [ALL4] * 4,
        ["t1-0, t1-3, t2-0, t2-3, t3-0, t4-0", "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1", "t1-2, t2-2", "t1-5, t2-5"],
        6,
    ),
]
name = "testCoPartitionedAssignmentWithSameSubscription"
CALLS += [
    Call(name, SIX, 3, null_racks(3), racks(3), [NINE] * 3, SIX_PLAIN, -1),
    Call(name, SIX, 3, racks(3), racks(3), [NINE] * 3, SIX_PLAIN, 0, prefer=True),
    Call(
        name,
        SIX,
        2,
        racks(3),
        racks(3),
        [NINE] * 3,
        [
            "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1",
            "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2",
            "t1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3",
        ],
        0,
        prefer=True,
    ),
]
# The same test method before KAFKA-14891 (b64ac94^): its last two calls expected the co-partitioned pass
# over every topic -- 4 and 10 partitions off their consumer's rack where the fix has 0 and 6.
name = "testRackAwareAssignmentWithCoPartitioning (before KAFKA-14891)"
PRE = range_assignor.PRE_KAFKA_14891
CALLS += [
    *[
        Call(
            name,
            c.topics,
            c.replication,
            c.broker_racks,
            c.consumer_racks,
            c.consumer_topics,
            c.expected,
            c.mismatches,
            variant=PRE,
        )
        for c in CALLS
        if c.test == "testRackAwareAssignmentWithCoPartitioning"
    ][:7],
    Call(
        name,
        COPART,
        1,
        racks(2),
        COPART_RACKS,
        [ALL4] * 4,
        ["t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"],
        4,
        variant=PRE,
    ),
    Call(name, COPART, 1, racks(3), COPART_RACKS, [ALL4] * 4, COPART_ALL_PLAIN, 10, variant=PRE),
]


def verify_problem(call: Call) -> Problem:
    """``verifyRackAssignment``'s inputs: consumer0..; topics laid out one after the other on the brokers."""
    topics, offset = {}, 0
    for topic, n in call.topics.items():
        topics[topic] = topic_entry(n, replica_racks(n, call.replication, call.broker_racks, offset))
        offset += n
    return Problem.from_mapping(
        {
            "topics": topics,
            "members": {
                f"consumer{i}": {"topics": ts, **({"rack": rack} if rack is not None else {})}
                for i, (ts, rack) in enumerate(zip(call.consumer_topics, call.consumer_racks))
            },
        }
    )


def _call_id(call: Call) -> str:
    return call.test


@pytest.mark.parametrize("call", CALLS, ids=_call_id)
def test_verify_rack_assignment_cases(call: Call):
    problem = verify_problem(call)
    got = range_assignor.assign(problem, variant=call.variant, prefer_rack_aware=call.prefer)
    assert not violations(problem, got)
    assert sorted_strings(problem, got) == {f"consumer{i}": e for i, e in enumerate(call.expected)}
    if call.mismatches >= 0:
        assert mismatched(problem, got) == call.mismatches


def test_every_kafka_test_method_is_translated():
    methods = (
        {c.test for c in SIMPLE}
        | {c.test for c in CALLS if "before" not in c.test}
        | {
            "testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
            "testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
        }
    )
    assert len(methods) == 20  # RangeAssignorTest at 1eb7644 has 20 test methods
    assert len([c for c in CALLS if c.variant is None]) == 52  # verifyRackAssignment calls, helpers expanded


# -- AbstractPartitionAssignorTest.testUseRackAwareAssignment ------------------------------------------------------


def test_testUseRackAwareAssignment():
    use = range_assignor.use_rack_aware_assignment
    all_racks, two = {"a", "b", "c"}, {"a", "b"}
    on_all = [all_racks] * 10
    on_subset = [{"abc"[i % 3]} for i in range(10)]
    for prefer in (False, True):
        assert not use(set(), set(), on_all, prefer_rack_aware=prefer)
        assert not use(set(), all_racks, on_all, prefer_rack_aware=prefer)
        assert not use(all_racks, set(), [], prefer_rack_aware=prefer)
        assert not use({"d"}, all_racks, on_all, prefer_rack_aware=prefer)
        assert use(all_racks, all_racks, on_subset, prefer_rack_aware=prefer)
        assert use(two, all_racks, on_subset, prefer_rack_aware=prefer)
    assert not use(all_racks, all_racks, on_all)
    assert not use(two, all_racks, on_all)
    assert not use({"a", "d"}, all_racks, on_all)
    assert use({"a", "d"}, all_racks, on_subset)
    assert use(all_racks, all_racks, on_all, prefer_rack_aware=True)
    assert use(two, all_racks, on_all, prefer_rack_aware=True)


# -- what the algorithm guarantees, and what it does not ----------------------------------------------------------


def test_rack_awareness_can_cost_locality():
    """No bound against the rack-unaware ranges: a member without a rack matches every partition.

    t0 and t1 are co-partitioned (3 partitions, same subscribers).  Partition 0 matches only m2 (no rack),
    which takes it and is full; partitions 1 and 2 match nobody on all topics (t1-1, t1-2 are on rack c
    only), so the ranges hand t*-1 to m0 and t*-2 to m1: three partitions off their member's rack.  The
    rack-unaware ranges (m0: 0, m1: 1, m2: 2) leave two: t0-0 (rack c) on m0, t1-1 (rack c) on m1.
    """
    problem = Problem.from_mapping(
        {
            "topics": {
                "t0": {"partitions": 3, "racks": [["c"], ["a", "b", "c"], ["a"]]},
                "t1": {"partitions": 3, "racks": [["a", "c"], ["c"], ["c"]]},
            },
            "members": {
                "m0": {"topics": ["t0", "t1"], "rack": "a"},
                "m1": {"topics": ["t0", "t1"], "rack": "b"},
                "m2": {"topics": ["t0", "t1"]},
            },
        }
    )
    aware = range_assignor.assign(problem)
    assert aware.to_mapping() == {
        "m0": {"t0": [1], "t1": [1]},
        "m1": {"t0": [2], "t1": [2]},
        "m2": {"t0": [0], "t1": [0]},
    }
    unaware = range_assignor.assign(without_replica_racks(problem))
    assert unaware.to_mapping() == {
        "m0": {"t0": [0], "t1": [0]},
        "m1": {"t0": [1], "t1": [1]},
        "m2": {"t0": [2], "t1": [2]},
    }
    assert (mismatched(problem, aware), mismatched(problem, unaware)) == (3, 2)


def without_replica_racks(problem: Problem) -> Problem:
    data = problem.to_mapping()
    data["topics"] = {t: v if isinstance(v, int) else v["partitions"] for t, v in data["topics"].items()}
    return Problem.from_mapping(data)


@st.composite
def rack_groups(draw) -> Problem:
    """Small groups with replica racks and member racks (some members without), topics of few distinct counts."""
    rack_names = "abc"[: draw(st.integers(1, 3))]
    some_racks = st.lists(st.sampled_from(rack_names), min_size=1, max_size=len(rack_names), unique=True)
    topics = {}
    for i in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 5))
        topics[f"t{i}"] = {"partitions": n, "racks": draw(st.lists(some_racks, min_size=n, max_size=n))}
    names = sorted(topics)
    members = {}
    for j in range(draw(st.integers(1, 5))):
        subscribed = draw(st.one_of(st.just(names), st.lists(st.sampled_from(names), min_size=1, unique=True)))
        rack = draw(st.one_of(st.none(), st.sampled_from(rack_names)))
        members[f"m{j}"] = {"topics": subscribed, **({"rack": rack} if rack else {})}
    return Problem.from_mapping({"topics": topics, "members": members})


@settings(max_examples=300, deadline=None)
@given(rack_groups(), st.booleans())
def test_rack_aware_keeps_per_topic_balance_and_co_partitioning(problem, prefer):
    """What Kafka claims and its algorithm keeps: valid, each topic's subscribers' shares within one,
    equal topics co-partitioned (the ``per-topic-balance`` guarantee, checked against the oracle's reading)."""
    assignment = range_assignor.assign(problem, prefer_rack_aware=prefer)
    assert not violations(problem, assignment)
    check = check_guarantee("per-topic-balance", problem, assignment)
    assert check.kept, check.reason


@settings(max_examples=300, deadline=None)
@given(rack_groups())
def test_without_a_topic_that_needs_racks_the_ranges_are_rack_unaware(problem):
    """Kafka's condition: unless some topic needs rack awareness, the answer is the plain ranges'."""
    topics = {t.name: t for t in problem.topics}
    needs = False
    for topic in problem.assignable_topics:
        member_racks = {problem.members[m].rack for m in problem.subscribers[topic.name]} - {None}
        replica_racks = [set(r) for r in topics[topic.name].racks]
        all_racks = set().union(*replica_racks)
        needs |= bool(member_racks & all_racks) and any(r != all_racks for r in replica_racks)
    if not needs:
        assert range_assignor.assign(problem) == range_assignor.assign(without_replica_racks(problem))
