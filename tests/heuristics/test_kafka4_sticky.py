"""Kafka 4's client sticky family: Kafka's own tests, translated, and the guarantee as a property.

Source: apache/kafka 1eb7644 (4.0.0-SNAPSHOT), ``AbstractStickyAssignorTest``
(run by Kafka for both assignors), ``StickyAssignorTest`` and
``CooperativeStickyAssignorTest``.  Each test names its Kafka method.

How Kafka's fixtures map to a :class:`Problem` (``initializeRacks``): three
replicas per partition; with broker racks, 9 brokers on racks a, b, c, so
every partition has a replica on each of a, b, c; the member built with
consumer index ``i`` has rack ``ALL_RACKS[i % 3]`` (``i % 6`` without broker
racks) -- except that ``StickyAssignorTest.buildSubscriptionV2Above`` sends
no rack -- and ``preferRackAwareLogic`` is on (``prefer_rack_aware_logic``).
``subscription(topics, i)`` is a member with no claims and no generation.
For the cooperative assignor Kafka's ``verifyValidityAndBalance`` runs the
follow-up rebalances and *replaces* the assignment with the final one, so
assertions after it are on :attr:`CooperativeRebalance.final`; assertions
before it, and ``partitionsTransferringOwnership``, on the first rebalance.

Where Kafka's expected answer depends on the iteration order of its
``subscriptions`` ``HashMap`` (the port takes members in id order), the case
asserts Kafka's properties instead and says so (``HASH_ORDER``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies import problems

from assignment_oracle.heuristics import kafka4_sticky
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.metrics import load_vector, sorted_loads
from assignment_oracle.problem.ownership import violations

ALL_RACKS = ("a", "b", "c", "d", "e", "f")
CONFIGS = ("NO_BROKER_RACK", "NO_CONSUMER_RACK", "BROKER_AND_CONSUMER_RACK")
BOTH = ("sticky", "cooperative")
CASES = [(a, c) for a in BOTH for c in CONFIGS]


def tp(s: str) -> tuple[str, int]:
    topic, _, p = s.rpartition("-")
    return topic, int(p)


def tps(text: str) -> set[tuple[str, int]]:
    return {tp(s) for s in text.split(", ") if s}


def sub(topics, index, owned="", generation=None, v2=True):
    """A subscription: ``subscription(topics, i)`` (``v2=False``) or ``buildSubscriptionV2Above``."""
    return {"topics": list(topics), "owned": owned, "generation": generation, "index": index, "v2": v2}


def kafka_problem(
    topics: dict[str, int], members: dict, *, config: str = "NO_CONSUMER_RACK", assignor: str = "sticky"
) -> Problem:
    broker_racks = config != "NO_BROKER_RACK"
    out = {}
    for member_id, m in members.items():
        owned: dict[str, list[int]] = {}
        for t, p in sorted(tps(m["owned"]), key=lambda x: (x[0], x[1])) if isinstance(m["owned"], str) else m["owned"]:
            owned.setdefault(t, []).append(p)
        entry = {"topics": m["topics"]}
        if owned:
            entry["owned"] = owned
        if m["generation"] is not None:
            entry["generation"] = m["generation"]
        if config != "NO_CONSUMER_RACK" and not (assignor == "sticky" and m["v2"]):
            entry["rack"] = ALL_RACKS[m["index"] % (3 if broker_racks else 6)]
        out[member_id] = entry
    spec = {t: ({"partitions": n, "racks": [["a", "b", "c"]] * n} if broker_racks else n) for t, n in topics.items()}
    return Problem.from_mapping({"topics": spec, "members": out})


def sets(problem: Problem, assignment) -> dict[str, set]:
    return {
        m: {(t, p) for t, ps in ts.items() for p in ps} for m, ts in assignment.to_mapping(problem.member_ids).items()
    }


def run(problem: Problem, assignor: str, iteration_order: str = "sorted"):
    """(first assignment, final assignment, partitionsTransferringOwnership of the first call)."""
    eager = kafka4_sticky.run_assignor(problem, prefer_rack_aware_logic=True, iteration_order=iteration_order)
    if assignor == "sticky":
        got = {m: set(v) for m, v in eager.assignment.items()}
        return got, got, eager.partitions_transferring_ownership
    r = kafka4_sticky.rebalance_cooperative(problem, prefer_rack_aware_logic=True, iteration_order=iteration_order)
    return sets(problem, r.first), sets(problem, r.final), eager.partitions_transferring_ownership


def is_fully_balanced(assignment: dict[str, set]) -> bool:
    sizes = [len(v) for v in assignment.values()]
    return max(sizes) - min(sizes) <= 1


def verify_validity_and_balance(problem: Problem, assignment: dict[str, set]) -> None:
    """``verifyValidityAndBalance``: subscribed, disjoint, and members 2+ apart share no topic."""
    subscribed = {m.member_id: m.topics for m in problem.members}
    consumers = sorted(assignment)
    for i, c in enumerate(consumers):
        assert all(t in subscribed[c] for t, _ in assignment[c])
        for other in consumers[i + 1 :]:
            assert not assignment[c] & assignment[other]
            if abs(len(assignment[c]) - len(assignment[other])) > 1:
                assert not {t for t, _ in assignment[c]} & {t for t, _ in assignment[other]}


def check(problem, assignor):
    first, final, transferring = run(problem, assignor)
    verify_validity_and_balance(problem, final)
    return first, final, transferring


# -- AbstractStickyAssignorTest ---------------------------------------------------------------------------------


@pytest.mark.parametrize("assignor", BOTH)
@pytest.mark.parametrize("config", ["NO_CONSUMER_RACK", "BROKER_AND_CONSUMER_RACK"])
def test_testOneConsumerNoTopic(assignor, config):
    p = kafka_problem({}, {"consumer": sub([], 0, v2=False)}, config=config, assignor=assignor)
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer": set()} and transferring == {}


@pytest.mark.parametrize("assignor", BOTH)
@pytest.mark.parametrize("config", ["NO_CONSUMER_RACK", "BROKER_AND_CONSUMER_RACK"])
def test_testOneConsumerNonexistentTopic(assignor, config):
    # Kafka passes the topic with no partitions; a topic here has at least one, so it does not exist.
    p = kafka_problem({}, {"consumer": sub(["topic"], 0, v2=False)}, config=config, assignor=assignor)
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer": set()} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOneConsumerOneTopic(assignor, config):
    p = kafka_problem({"topic": 3}, {"consumer": sub(["topic"], 0, v2=False)}, config=config, assignor=assignor)
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer": tps("topic-0, topic-1, topic-2")} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOnlyAssignsPartitionsFromSubscribedTopics(assignor, config):
    p = kafka_problem(
        {"topic": 2},
        {"consumer": sub(["topic"], 0, "topic-0, topic-1, other-0, other-1", 1)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer": tps("topic-0, topic-1")} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOneConsumerMultipleTopics(assignor, config):
    p = kafka_problem(
        {"topic1": 1, "topic2": 2},
        {"consumer": sub(["topic1", "topic2"], 0, v2=False)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer": tps("topic1-0, topic2-0, topic2-1")} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testTwoConsumersOneTopicOnePartition(assignor, config):
    p = kafka_problem(
        {"topic": 1},
        {"consumer1": sub(["topic"], 0, v2=False), "consumer2": sub(["topic"], 1, v2=False)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert transferring == {} and is_fully_balanced(final)


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testTwoConsumersOneTopicTwoPartitions(assignor, config):
    p = kafka_problem(
        {"topic": 2},
        {"consumer1": sub(["topic"], 0, v2=False), "consumer2": sub(["topic"], 1, v2=False)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer1": tps("topic-0"), "consumer2": tps("topic-1")} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testMultipleConsumersMixedTopicSubscriptions(assignor, config):
    p = kafka_problem(
        {"topic1": 3, "topic2": 2},
        {
            "consumer1": sub(["topic1"], 0, v2=False),
            "consumer2": sub(["topic1", "topic2"], 1, v2=False),
            "consumer3": sub(["topic1"], 2, v2=False),
        },
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {
        "consumer1": tps("topic1-0, topic1-2"),
        "consumer2": tps("topic2-0, topic2-1"),
        "consumer3": tps("topic1-1"),
    }
    assert transferring is None  # the general builder ran


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testTwoConsumersTwoTopicsSixPartitions(assignor, config):
    both = ["topic1", "topic2"]
    p = kafka_problem(
        {"topic1": 3, "topic2": 3},
        {"consumer1": sub(both, 0, v2=False), "consumer2": sub(both, 1, v2=False)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer1": tps("topic1-0, topic1-2, topic2-1"), "consumer2": tps("topic1-1, topic2-0, topic2-2")}
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testConsumerOwningMinQuotaExpectedMaxQuota(assignor, config):
    both = ["topic1", "topic2"]
    p = kafka_problem(
        {"topic1": 2, "topic2": 3},
        {"consumer1": sub(both, 0, "topic1-0, topic2-1", 1), "consumer2": sub(both, 1, "topic1-1, topic2-2", 1)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert final == {"consumer1": tps("topic1-0, topic2-1, topic2-0"), "consumer2": tps("topic1-1, topic2-2")}
    assert transferring == {}


def max_quota_problem(assignor: str, config: str) -> Problem:
    """testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers' group: two members own maxQuota = 2."""
    both = ["topic1", "topic2"]
    return kafka_problem(
        {"topic1": 2, "topic2": 2},
        {
            "consumer1": sub(both, 0, "topic1-0, topic2-0", 1),
            "consumer2": sub(both, 1, "topic1-1, topic2-1", 1),
            "consumer3": sub(both, 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers(assignor, config):
    # HASH_ORDER: consumer1 and consumer2 both own maxQuota = 2; the first in iteration order keeps
    # both.  Kafka's 16-bucket HashMap iterates consumer3, consumer2, consumer1 (String.hashCode
    # buckets 12, 11, 10), so Kafka expects consumer2 to keep topic1-1, topic2-1 and consumer3 to
    # get topic2-0 from consumer1.  Asserted: Kafka's shape, whichever of the two comes first --
    # one keeps both claims, the other keeps its topic1 partition, consumer3 gets the partition
    # given up, and it is the one partition transferring ownership.
    p = max_quota_problem(assignor, config)
    _first, final, transferring = check(p, assignor)
    claims = {"consumer1": tps("topic1-0, topic2-0"), "consumer2": tps("topic1-1, topic2-1")}
    keeper = next(m for m in claims if final[m] == claims[m])
    other = "consumer2" if keeper == "consumer1" else "consumer1"
    given_up = claims[other] - final[other]
    assert final[other] == {("topic1", int(other[-1]) - 1)} and final["consumer3"] == given_up
    assert transferring == {next(iter(given_up)): "consumer3"}
    assert is_fully_balanced(final)


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers_literally_in_javas_order(assignor, config):
    """Kafka's expected answer, literally, with members iterated as Java's HashMap does (consumer3,
    consumer2, consumer1: heuristics/java_order.py, checked against a JVM)."""
    p = max_quota_problem(assignor, config)
    _first, final, transferring = run(p, assignor, iteration_order="java")
    verify_validity_and_balance(p, final)
    assert transferring == {("topic2", 0): "consumer3"}
    assert final == {
        "consumer1": tps("topic1-0"),
        "consumer2": tps("topic1-1, topic2-1"),
        "consumer3": tps("topic2-0"),
    }
    assert is_fully_balanced(final)


def test_an_unknown_iteration_order_is_refused():
    p = kafka_problem({"topic1": 2}, {"c1": sub(["topic1"], 0)})
    with pytest.raises(ValueError, match="iteration_order"):
        kafka4_sticky.run_assignor(p, iteration_order="random")


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAllConsumersAreUnderMinQuota(assignor, config):
    both = ["topic1", "topic2"]
    p = kafka_problem(
        {"topic1": 2, "topic2": 3},
        {
            "consumer1": sub(both, 0, "topic1-0", 1),
            "consumer2": sub(both, 1, "topic1-1", 1),
            "consumer3": sub(both, 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert transferring == {}
    assert final == {
        "consumer1": tps("topic1-0, topic2-1"),
        "consumer2": tps("topic1-1, topic2-2"),
        "consumer3": tps("topic2-0"),
    }


def _owned(assignment: set) -> str:
    return ", ".join(f"{t}-{p}" for t, p in sorted(assignment))


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAddRemoveConsumerOneTopic(assignor, config):
    p = kafka_problem({"topic": 3}, {"consumer1": sub(["topic"], 0, v2=False)}, config=config, assignor=assignor)
    _, a, _ = check(p, assignor)
    assert a == {"consumer1": tps("topic-0, topic-1, topic-2")}
    p = kafka_problem(
        {"topic": 3},
        {"consumer1": sub(["topic"], 0, _owned(a["consumer1"]), 1), "consumer2": sub(["topic"], 1, "", 1)},
        config=config,
        assignor=assignor,
    )
    _, a, transferring = check(p, assignor)
    assert transferring == {("topic", 2): "consumer2"}
    assert a == {"consumer1": tps("topic-0, topic-1"), "consumer2": tps("topic-2")}
    p = kafka_problem(
        {"topic": 3}, {"consumer2": sub(["topic"], 1, _owned(a["consumer2"]), 1)}, config=config, assignor=assignor
    )
    _, a, transferring = check(p, assignor)
    assert a == {"consumer2": tps("topic-0, topic-1, topic-2")} and transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAddRemoveTwoConsumersTwoTopics(assignor, config):
    both = ["topic1", "topic2"]
    counts = {"topic1": 3, "topic2": 4}
    p = kafka_problem(
        counts,
        {"consumer1": sub(both, 0, v2=False), "consumer2": sub(both, 1, v2=False)},
        config=config,
        assignor=assignor,
    )
    _, a, transferring = check(p, assignor)
    assert a == {
        "consumer1": tps("topic1-0, topic1-2, topic2-1, topic2-3"),
        "consumer2": tps("topic1-1, topic2-0, topic2-2"),
    }
    assert transferring == {}
    p = kafka_problem(
        counts,
        {
            "consumer1": sub(both, 0, _owned(a["consumer1"]), 1),
            "consumer2": sub(both, 1, _owned(a["consumer2"]), 1),
            "consumer3": sub(both, 2, "", 1),
            "consumer4": sub(both, 3, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    _, a, transferring = check(p, assignor)
    assert transferring == {("topic1", 2): "consumer3", ("topic2", 3): "consumer3", ("topic2", 2): "consumer4"}
    assert a == {
        "consumer1": tps("topic1-0, topic2-1"),
        "consumer2": tps("topic2-0, topic1-1"),
        "consumer3": tps("topic1-2, topic2-3"),
        "consumer4": tps("topic2-2"),
    }
    p = kafka_problem(
        counts,
        {"consumer3": sub(both, 2, _owned(a["consumer3"]), 1), "consumer4": sub(both, 3, _owned(a["consumer4"]), 1)},
        config=config,
        assignor=assignor,
    )
    _, a, transferring = check(p, assignor)
    assert a == {
        "consumer3": tps("topic1-2, topic2-3, topic1-0, topic2-1"),
        "consumer4": tps("topic2-2, topic1-1, topic2-0"),
    }
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testPoorRoundRobinAssignmentScenario(assignor, config):
    topics = {f"topic{i}": i % 2 + 1 for i in range(1, 6)}
    all5, odd = list(topics), ["topic1", "topic3", "topic5"]
    p = kafka_problem(
        topics,
        {
            "consumer1": sub(all5, 0, v2=False),
            "consumer2": sub(odd, 1, v2=False),
            "consumer3": sub(odd, 2, v2=False),
            "consumer4": sub(all5, 3, v2=False),
        },
        config=config,
        assignor=assignor,
    )
    check(p, assignor)


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAddRemoveTopicTwoConsumers(assignor, config):
    p = kafka_problem(
        {"topic": 3},
        {"consumer1": sub(["topic"], 0, v2=False), "consumer2": sub(["topic"], 1, v2=False)},
        config=config,
        assignor=assignor,
    )
    _, a1, transferring = check(p, assignor)
    assert transferring == {} and sorted(len(v) for v in a1.values()) == [1, 2]
    two = ["topic", "topic2"]
    p = kafka_problem(
        {"topic": 3, "topic2": 3},
        {"consumer1": sub(two, 0, _owned(a1["consumer1"]), 1), "consumer2": sub(two, 1, _owned(a1["consumer2"]), 1)},
        config=config,
        assignor=assignor,
    )
    _, a2, transferring = check(p, assignor)
    assert transferring == {} and [len(a2["consumer1"]), len(a2["consumer2"])] == [3, 3]
    assert a1["consumer1"] <= a2["consumer1"] and a1["consumer2"] <= a2["consumer2"]
    p = kafka_problem(
        {"topic2": 3},
        {
            "consumer1": sub(["topic2"], 0, _owned(a2["consumer1"]), 1),
            "consumer2": sub(["topic2"], 1, _owned(a2["consumer2"]), 1),
        },
        config=config,
        assignor=assignor,
    )
    _, a3, transferring = check(p, assignor)
    assert transferring == {} and sorted(len(v) for v in a3.values()) == [1, 2]
    assert a3["consumer1"] <= a2["consumer1"] and a3["consumer2"] <= a2["consumer2"]


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testReassignmentAfterOneConsumerLeaves(assignor, config):
    topics = {f"t{i:02d}": i for i in range(1, 20)}
    members = {f"c{i:02d}": sub([f"t{j:02d}" for j in range(1, i + 1)], i, v2=False) for i in range(1, 20)}
    p = kafka_problem(topics, members, config=config, assignor=assignor)
    _, a, _ = check(p, assignor)
    members = {m: sub(s["topics"], s["index"], _owned(a[m]), 1) for m, s in members.items() if m != "c10"}
    p = kafka_problem(topics, members, config=config, assignor=assignor)
    check(p, assignor)
    assert kafka4_sticky.run_assignor(p, prefer_rack_aware_logic=True).sticky  # assignor.isSticky()


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testReassignmentAfterOneConsumerAdded(assignor, config):
    members = {f"c{i:02d}": sub(["topic"], i, v2=False) for i in range(1, 10)}
    p = kafka_problem({"topic": 20}, members, config=config, assignor=assignor)
    _, _, transferring = check(p, assignor)
    assert transferring == {}
    members["c10"] = sub(["topic"], 10, v2=False)  # Kafka keeps the others' subscriptions as they were: no claims
    _, _, transferring = check(kafka_problem({"topic": 20}, members, config=config, assignor=assignor), assignor)
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testSameSubscriptions(assignor, config):
    topics = {f"t{i:02d}": i for i in range(1, 15)}
    members = {f"c{i}": sub(list(topics), i, v2=False) for i in range(1, 9)}
    _, a, transferring = check(kafka_problem(topics, members, config=config, assignor=assignor), assignor)
    assert transferring == {}
    members = {m: sub(s["topics"], s["index"], _owned(a[m]), 1) for m, s in members.items() if m != "c5"}
    _, _, transferring = check(kafka_problem(topics, members, config=config, assignor=assignor), assignor)
    assert transferring == {}


def test_testSubscriptionNotEqualAndAssignSamePartitionWith3Generation():
    for g1, g2, g3 in [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)]:
        for assignor in BOTH:
            p = kafka_problem(
                {"topic": 6, "topic1": 1},
                {
                    "consumer1": sub(["topic"], 0, "topic-0, topic-2", g1),
                    "consumer2": sub(["topic"], 1, "topic-1, topic-2, topic-3", g2),
                    "consumer3": sub(["topic"], 2, "topic-2, topic-4, topic-5", g3),
                    "consumer4": sub(["topic1"], 3, "topic1-0", 2),
                },
                assignor=assignor,
            )
            first, _, _ = run(p, assignor)
            assert sum(map(len, first.values())) == len(set().union(*first.values()))
            if assignor == "sticky":
                assert all(1 <= len(v) <= 2 for v in first.values())


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testMoveExistingAssignments(assignor, config):
    topics = {f"topic{i}": 1 for i in range(1, 7)}
    p = kafka_problem(
        topics,
        {
            "consumer1": sub(["topic1", "topic2"], 0, "topic1-0", 1),
            "consumer2": sub(["topic1", "topic2", "topic3", "topic4"], 1, "topic2-0, topic3-0", 1),
            "consumer3": sub(["topic2", "topic3", "topic4", "topic5", "topic6"], 2, "topic4-0, topic5-0, topic6-0", 1),
        },
        config=config,
        assignor=assignor,
    )
    _, _, transferring = check(p, assignor)
    assert transferring is None


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testStickiness(assignor, config):
    members = {f"consumer{i}": sub(["topic1"], i - 1, v2=False) for i in range(1, 5)}
    _, a, transferring = check(kafka_problem({"topic1": 3}, members, config=config, assignor=assignor), assignor)
    assert transferring == {} and all(len(v) <= 1 for v in a.values())
    members = {m: sub(["topic1"], s["index"], _owned(a[m]), 1) for m, s in members.items() if m != "consumer1"}
    _, b, transferring = check(kafka_problem({"topic1": 3}, members, config=config, assignor=assignor), assignor)
    assert transferring == {}
    assert all(len(v) == 1 and (not a[m] or a[m] <= v) for m, v in b.items())


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAssignmentUpdatedForDeletedTopic(assignor, config):
    p = kafka_problem(
        {"topic1": 1, "topic3": 100},
        {"consumer": sub(["topic1", "topic2", "topic3"], 0, v2=False)},
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = run(p, assignor)
    assert transferring == {} and list(final) == ["consumer"] and len(final["consumer"]) == 101


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testNoExceptionThrownWhenOnlySubscribedTopicDeleted(assignor, config):
    p = kafka_problem({"topic": 3}, {"consumer": sub(["topic"], 0, v2=False)}, config=config, assignor=assignor)
    _, a, transferring = run(p, assignor)
    assert transferring == {}
    p = kafka_problem({}, {"consumer": sub(["topic"], 0, _owned(a["consumer"]), 1)}, config=config, assignor=assignor)
    _, a, transferring = run(p, assignor)
    assert transferring == {} and a == {"consumer": set()}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAllConsumersReachExpectedQuotaAndAreConsideredFilled(assignor, config):
    p = kafka_problem(
        {"topic": 4},
        {
            "consumer1": sub(["topic"], 0, "topic-0, topic-1", 1),
            "consumer2": sub(["topic"], 1, "topic-2", 1),
            "consumer3": sub(["topic"], 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    first, _final, transferring = check(p, assignor)
    assert first == {"consumer1": tps("topic-0, topic-1"), "consumer2": tps("topic-2"), "consumer3": tps("topic-3")}
    assert transferring == {}


def _two_topic_claims(assignor, config, owned2: str, generation2):
    both = ["topic", "topic2"]
    return kafka_problem(
        {"topic": 3, "topic2": 3},
        {"consumer1": sub(both, 0, "topic-0, topic-2, topic2-1", 10), "consumer2": sub(both, 1, owned2, generation2)},
        config=config,
        assignor=assignor,
    )


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration(assignor, config):
    p = _two_topic_claims(assignor, config, "topic-0, topic-2, topic2-1", 9)
    first, _final, transferring = check(p, assignor)
    assert first == {"consumer1": tps("topic-0, topic-2, topic2-1"), "consumer2": tps("topic-1, topic2-0, topic2-2")}
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration(assignor, config):
    p = _two_topic_claims(assignor, config, "topic-0, topic-2, topic2-1", -1)
    first, _final, transferring = check(p, assignor)
    assert first == {"consumer1": tps("topic-0, topic-2, topic2-1"), "consumer2": tps("topic-1, topic2-0, topic2-2")}
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration(assignor, config):
    both = ["topic", "topic2"]
    p = kafka_problem(
        {"topic": 3, "topic2": 3},
        {
            "consumer1": sub(both, 0, "topic-0, topic2-1, topic-1", 10),
            "consumer2": sub(both, 1, "topic-0, topic2-1, topic2-2", 8),
        },
        config=config,
        assignor=assignor,
    )
    first, _final, transferring = check(p, assignor)
    assert first == {"consumer1": tps("topic-0, topic2-1, topic-1"), "consumer2": tps("topic-2, topic2-2, topic2-0")}
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration(
    assignor, config
):
    p = kafka_problem(
        {"topic": 3},
        {
            "consumer1": sub(["topic"], 0, "topic-0, topic-1", 1),
            "consumer2": sub(["topic"], 1, "topic-0, topic-2", 1),
            "consumer3": sub(["topic"], 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    _first, final, transferring = check(p, assignor)
    assert transferring == {("topic", 0): "consumer3"}
    assert final == {"consumer1": tps("topic-1"), "consumer2": tps("topic-2"), "consumer3": tps("topic-0")}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testEnsurePartitionsAssignedToHighestGeneration(assignor, config):
    three = ["topic", "topic2", "topic3"]
    p = kafka_problem(
        {"topic": 3, "topic2": 3, "topic3": 3},
        {
            "consumer1": sub(three, 0, "topic-0, topic2-0, topic3-0", 10),
            "consumer2": sub(three, 1, "topic-1, topic2-1, topic3-1", 9),
            "consumer3": sub(three, 1, "topic2-1, topic3-0, topic3-2", 8),
        },
        config=config,
        assignor=assignor,
    )
    first, _final, transferring = check(p, assignor)
    assert first == {
        "consumer1": tps("topic-0, topic2-0, topic3-0"),
        "consumer2": tps("topic-1, topic2-1, topic3-1"),
        "consumer3": tps("topic-2, topic2-2, topic3-2"),
    }
    assert transferring == {}


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testNoReassignmentOnCurrentMembers(assignor, config):
    four = ["topic", "topic2", "topic3", "topic1"]
    p = kafka_problem(
        {"topic": 3, "topic1": 3, "topic2": 3, "topic3": 3},
        {
            "consumer1": sub(four, 0, "", -1),
            "consumer2": sub(four, 1, "topic-0, topic2-0, topic1-0", 9),
            "consumer3": sub(four, 2, "topic3-2, topic2-2, topic1-1", 8),
            "consumer4": sub(four, 3, "topic3-1, topic-1, topic-2", 7),
        },
        config=config,
        assignor=assignor,
    )
    first, _final, transferring = check(p, assignor)
    assert first["consumer1"] == tps("topic1-2, topic2-1, topic3-0") and transferring == {}


# -- testRackAwareAssignmentWith{Uniform,NonEqual}Subscription (verifyRackAssignment) ----------------------------


def rack_problem(replication_factor, broker_racks, consumer_racks, consumer_topics, owned, assignor):
    """``AbstractPartitionAssignorTest.verifyRackAssignment``'s input: t1: 6, t2: 7, t3: 2, replicas round robin
    over the brokers from a running index; ``consumer<i>`` with rack ``consumer_racks[i]``; claims in
    ``ownedPartitions`` at DEFAULT_GENERATION (the StickyAssignor reads user data, which is empty there)."""
    topics, start = {}, 0
    for name, n in (("t1", 6), ("t2", 7), ("t3", 2)):
        racks = [
            [broker_racks[(i + j + start) % len(broker_racks)] for j in range(replication_factor)] for i in range(n)
        ]
        racks = [[r for r in rs if r is not None] for rs in racks]
        topics[name] = {"partitions": n, "racks": racks} if any(racks) else n
        start += n
    members = {}
    for i, (rack, subscribed) in enumerate(zip(consumer_racks, consumer_topics)):
        entry = {"topics": subscribed}
        if rack is not None:
            entry["rack"] = rack
        if owned and assignor == "cooperative":
            claims: dict[str, list[int]] = {}
            for t, p in sorted(tps(owned[i])):
                claims.setdefault(t, []).append(p)
            entry.update(owned=claims, generation=-1)
        members[f"consumer{i}"] = entry
    return Problem.from_mapping({"topics": topics, "members": members})


def verify_rack_assignment(assignor, prefer, rf, brokers, consumers, consumer_topics, owned, expected, mismatches):
    p = rack_problem(rf, brokers, consumers, consumer_topics, owned, assignor)
    run_ = kafka4_sticky.run_assignor(p, prefer_rack_aware_logic=prefer)
    if assignor == "sticky":
        got = {m: set(v) for m, v in run_.assignment.items()}
    else:  # the cooperative assignor's answer to this one call: its first rebalance
        got = sets(p, kafka4_sticky.rebalance_cooperative(p, prefer_rack_aware_logic=prefer).first)
    assert got == {f"consumer{i}": tps(e) for i, e in enumerate(expected)}
    if mismatches >= 0:
        racks = {(t.name, q): set(t.racks[q]) if t.racks else set() for t in p.topics for q in range(t.partitions)}
        rack_of = {m.member_id: m.rack for m in p.members}
        bad = [x for m, v in got.items() if rack_of[m] is not None for x in v if rack_of[m] not in racks[x]]
        assert len(bad) == mismatches


NULL3, R2, R3, R4 = [None] * 3, ["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]
ALL3 = ["t1", "t2", "t3"]
UNIFORM_EXPECTED = ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"]
MISALIGNED_OWNED = ["t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"]


@pytest.mark.parametrize("assignor", BOTH)
def test_testRackAwareAssignmentWithUniformSubscription(assignor):
    topics = [ALL3] * 3
    # (preferRackAwareLogic, replication factor, broker racks, consumer racks, mismatches), verifyUniformSubscription:
    # once without claims, once claiming the expected assignment.
    for prefer, rf, brokers, consumers, mismatches in [
        (False, 3, NULL3, R3, -1),
        (False, 3, R3, NULL3, -1),
        (True, 3, R3, R3, 0),
        (True, 4, R4, R3, 0),
        (False, 3, R3, R3, 0),
        (False, 3, R3, ["d", "e", "f"], -1),
        (False, 3, R3, [None, "e", "f"], -1),
        (False, 1, R3, R3, 0),
        (False, 2, R3, R3, 0),
        (False, 3, R2, R3, 5),
    ]:
        for owned in (None, UNIFORM_EXPECTED):
            verify_rack_assignment(
                assignor, prefer, rf, brokers, consumers, topics, owned, UNIFORM_EXPECTED, mismatches
            )
    if assignor == "cooperative":
        verify_rack_assignment(
            assignor, False, 1, R3, R3, topics, MISALIGNED_OWNED, ["t1-0, t1-3", "t2-1", "t2-5, t3-1"], 0
        )
        verify_rack_assignment(assignor, True, 3, R3, R3, topics, UNIFORM_EXPECTED, UNIFORM_EXPECTED, 0)
    else:
        verify_rack_assignment(assignor, False, 1, R3, R3, topics, MISALIGNED_OWNED, UNIFORM_EXPECTED, 0)
        verify_rack_assignment(assignor, True, 3, R3, R3, topics, UNIFORM_EXPECTED, UNIFORM_EXPECTED, 0)


@pytest.mark.parametrize("assignor", BOTH)
def test_testRackAwareAssignmentWithNonEqualSubscription(assignor):
    topics = [ALL3, ALL3, ["t1", "t3"]]
    non_rack_aware = ["t1-5, t2-0, t2-2, t2-4, t2-6", "t1-3, t2-1, t2-3, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-4, t3-1"]
    rf1 = ["t1-3, t2-0, t2-2, t2-3, t2-6", "t1-4, t2-1, t2-4, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-5, t3-1"]
    rf2 = ["t1-3, t2-0, t2-2, t2-5, t2-6", "t1-0, t2-1, t2-3, t2-4, t3-0", "t1-1, t1-2, t1-4, t1-5, t3-1"]
    for prefer, rf, brokers, consumers, expected, mismatches in [
        (False, 3, NULL3, R3, non_rack_aware, -1),
        (False, 3, R3, NULL3, non_rack_aware, -1),
        (True, 3, R3, R3, non_rack_aware, 0),
        (True, 4, R4, R3, non_rack_aware, 0),
        (False, 3, R3, R3, non_rack_aware, 0),
        (False, 3, R3, ["d", "e", "f"], non_rack_aware, -1),
        (False, 3, R3, [None, "e", "f"], non_rack_aware, -1),
        (False, 1, R3, R3, rf1, 4),
        (False, 2, R3, R3, rf2, 0),
        (False, 3, R2, R3, non_rack_aware, 5),
    ]:
        for owned in (None, expected):
            verify_rack_assignment(assignor, prefer, rf, brokers, consumers, topics, owned, expected, mismatches)
    if assignor == "sticky":
        verify_rack_assignment(assignor, False, 1, R3, R3, topics, MISALIGNED_OWNED, rf1, 4)
        for prefer in (False, True):
            verify_rack_assignment(assignor, prefer, 3, R3, R3, topics, MISALIGNED_OWNED, non_rack_aware, 0)
    else:
        intermediate = ["t1-3", "t2-1", "t3-1"]
        verify_rack_assignment(assignor, False, 1, R3, R3, topics, MISALIGNED_OWNED, intermediate, 0)
        verify_rack_assignment(assignor, False, 1, R3, R3, topics, intermediate, rf1, 4)
        final = ["t1-2, t1-3, t1-4, t2-4, t2-5", "t2-0, t2-1, t2-2, t2-3, t2-6", "t1-0, t1-1, t1-5, t3-0, t3-1"]
        intermediate = ["t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"]
        for prefer in (False, True):
            verify_rack_assignment(assignor, prefer, 3, R3, R3, topics, MISALIGNED_OWNED, intermediate, 0)
            verify_rack_assignment(assignor, prefer, 3, R3, R3, topics, intermediate, final, 0)


# -- StickyAssignorTest and CooperativeStickyAssignorTest -----------------------------------------------------


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer(
    assignor, config
):
    p = kafka_problem(
        {"topic": 3},
        {
            "consumer1": sub(["topic"], 0, "topic-0, topic-1", 1),
            "consumer2": sub(["topic"], 1, "topic-0, topic-2", 1),
            "consumer3": sub(["topic"], 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    first, final, _ = check(p, assignor)
    # cooperative: topic-0 is "owned" by both, so it cannot be assigned until both have revoked it
    third = set() if assignor == "cooperative" else tps("topic-0")
    assert first == {"consumer1": tps("topic-1"), "consumer2": tps("topic-2"), "consumer3": third}
    assert is_fully_balanced(final)


@pytest.mark.parametrize(("assignor", "config"), CASES)
def test_testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer(
    assignor, config
):
    p = kafka_problem(
        {"topic": 4},
        {
            "consumer1": sub(["topic"], 0, "topic-0, topic-1", 1),
            "consumer2": sub(["topic"], 1, "topic-0, topic-2", 1),
            "consumer3": sub(["topic"], 2, "", 1),
        },
        config=config,
        assignor=assignor,
    )
    first, final, _ = check(p, assignor)
    third = set() if assignor == "cooperative" else tps("topic-0")
    assert first == {"consumer1": tps("topic-1, topic-3"), "consumer2": tps("topic-2"), "consumer3": third}
    assert is_fully_balanced(final)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("equal", [True, False])
def test_testAssignmentWithMultipleGenerations1(config, equal):
    a = "sticky"
    all2 = ["topic", "topic2"]
    c2 = all2 if equal else ["topic"]
    counts = {"topic": 6, "topic2": 6}
    _, r1, _ = check(
        kafka_problem(
            counts,
            {
                "consumer1": sub(all2, 0, v2=False),
                "consumer2": sub(c2, 1, v2=False),
                "consumer3": sub(all2, 2, v2=False),
            },
            config=config,
            assignor=a,
        ),
        a,
    )
    assert [len(r1[c]) for c in ("consumer1", "consumer2", "consumer3")] == [4, 4, 4]
    _, r2, _ = check(
        kafka_problem(
            counts,
            {
                "consumer1": sub(all2, 0, _owned(r1["consumer1"]), 1),
                "consumer2": sub(c2, 1, _owned(r1["consumer2"]), 1),
            },
            config=config,
            assignor=a,
        ),
        a,
    )
    assert len(r2["consumer1"]) == len(r2["consumer2"]) == 6
    if equal:
        assert r1["consumer1"] <= r2["consumer1"]
    assert r1["consumer2"] <= r2["consumer2"] and r2["consumer2"] & r1["consumer3"]
    _, r3, _ = check(
        kafka_problem(
            counts,
            {
                "consumer2": sub(c2, 1, _owned(r2["consumer2"]), 2),
                "consumer3": sub(all2, 2, _owned(r1["consumer3"]), 1),
            },
            config=config,
            assignor=a,
        ),
        a,
    )
    assert len(r3["consumer2"]) == len(r3["consumer3"]) == 6 and not r3["consumer2"] & r3["consumer3"]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("equal", [True, False])
def test_testAssignmentWithMultipleGenerations2(config, equal):
    a = "sticky"
    all3 = ["topic", "topic2", "topic3"]
    c1, c3 = (all3, all3) if equal else (["topic"], ["topic", "topic2"])
    counts = {"topic": 4, "topic2": 4, "topic3": 4}
    _, r1, _ = check(
        kafka_problem(
            counts,
            {"consumer1": sub(c1, 0, v2=False), "consumer2": sub(all3, 1, v2=False), "consumer3": sub(c3, 2, v2=False)},
            config=config,
            assignor=a,
        ),
        a,
    )
    assert [len(r1[c]) for c in ("consumer1", "consumer2", "consumer3")] == [4, 4, 4]
    _, r2, _ = check(
        kafka_problem(counts, {"consumer2": sub(all3, 1, _owned(r1["consumer2"]), 1)}, config=config, assignor=a), a
    )
    assert len(r2["consumer2"]) == 12 and r1["consumer2"] <= r2["consumer2"]
    _, r3, _ = check(
        kafka_problem(
            counts,
            {
                "consumer1": sub(c1, 0, _owned(r1["consumer1"]), 1),
                "consumer2": sub(all3, 1, _owned(r2["consumer2"]), 2),
                "consumer3": sub(c3, 2, _owned(r1["consumer3"]), 1),
            },
            config=config,
            assignor=a,
        ),
        a,
    )
    assert [len(r3[c]) for c in ("consumer1", "consumer2", "consumer3")] == [4, 4, 4]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("equal", [True, False])
def test_testAssignmentWithConflictingPreviousGenerations(config, equal):
    a = "sticky"
    all3 = ["topic", "topic2", "topic3"]
    c1, c2 = (all3, all3) if equal else (["topic"], ["topic", "topic2"])
    c1_owned = (
        "topic-0, topic-1, topic-2, topic2-2, topic2-3, topic3-0" if equal else "topic-0, topic-1, topic-2, topic-3"
    )
    c2_owned = "topic-0, topic-1, topic2-0, topic2-1, topic2-2, topic2-3"
    c3_owned = "topic-2, topic-3, topic3-0, topic3-1, topic3-2, topic3-3"
    p = kafka_problem(
        {"topic": 4, "topic2": 4, "topic3": 4},
        {
            "consumer1": sub(c1, 0, c1_owned, 1),
            "consumer2": sub(c2, 1, c2_owned, 2),
            "consumer3": sub(all3, 2, c3_owned, 2),
        },
        config=config,
        assignor=a,
    )
    _, got, _ = check(p, a)
    assert [len(got[c]) for c in ("consumer1", "consumer2", "consumer3")] == [4, 4, 4]
    assert got["consumer2"] <= tps(c2_owned) and got["consumer3"] <= tps(c3_owned)


@pytest.mark.parametrize("config", CONFIGS)
def test_testSchemaBackwardCompatibility(config):
    # consumer2 sends user data V0: its claims carry no generation.
    p = kafka_problem(
        {"topic": 3},
        {
            "consumer1": sub(["topic"], 0, "topic-0, topic-2", 1),
            "consumer2": sub(["topic"], 1, "topic-1", None, v2=False),
            "consumer3": sub(["topic"], 2, v2=False),
        },
        config=config,
    )
    _, got, _ = check(p, "sticky")
    assert [len(got[c]) for c in ("consumer1", "consumer2", "consumer3")] == [1, 1, 1]
    assert got["consumer1"] <= tps("topic-0, topic-2") and got["consumer2"] <= tps("topic-1")


@pytest.mark.parametrize("assignor", BOTH)
def test_testAssignorWithOldVersionSubscriptions(assignor):
    p = kafka_problem(
        {"topic1": 3},
        {
            "consumer1": sub(["topic1"], 0, "topic1-0", 1),
            "consumer2": sub(["topic1"], 1, "topic1-1", 1),
            "consumer3": sub(["topic1"], 2, "", 1),
        },
        assignor=assignor,
    )
    first, _final, _ = check(p, assignor)
    assert first == {"consumer1": tps("topic1-0"), "consumer2": tps("topic1-1"), "consumer3": tps("topic1-2")}


def test_testUniformSubscriptionTransferOwnershipListIsRight():
    # replicationFactor 1, two broker racks: topic1-p has one replica, on rack a, b, a, b; c0 on a, c1 on b.
    p = Problem.from_mapping(
        {
            "topics": {"topic1": {"partitions": 4, "racks": [["a"], ["b"], ["a"], ["b"]]}},
            "members": {
                "c0": {"topics": ["topic1"], "owned": {"topic1": [0, 1]}, "generation": 1, "rack": "a"},
                "c1": {"topics": ["topic1"], "owned": {"topic1": [2, 3]}, "generation": 1, "rack": "b"},
            },
        }
    )
    assert len(kafka4_sticky.run_assignor(p).partitions_transferring_ownership) == 2


# -- KAFKA-15170: the rack-aware constrained path before the fix -------------------------------------------------


def kafka_15170_scenario() -> Problem:
    """Four members on racks a, a, b, b; five partitions of t, all on rack a but t-4 on b; nobody owns anything.
    Quotas 1..2, one member at 2.  The rack round robin puts t-0..t-3 on the rack-a members (each to 2)."""
    return Problem.from_mapping(
        {
            "topics": {"t": {"partitions": 5, "racks": [["a"], ["a"], ["a"], ["a"], ["b"]]}},
            "members": {
                "m0": {"topics": ["t"], "rack": "a"},
                "m1": {"topics": ["t"], "rack": "a"},
                "m2": {"topics": ["t"], "rack": "b"},
                "m3": {"topics": ["t"], "rack": "b"},
            },
        }
    )


def test_pre_KAFKA_15170_throws_where_the_fix_assigns():
    problem = kafka_15170_scenario()
    fixed = kafka4_sticky.assign(problem)
    assert violations(problem, fixed) == ()
    assert sorted(load_vector(problem, fixed)) == [1, 1, 1, 2]
    with pytest.raises(kafka4_sticky.IllegalStateException):
        kafka4_sticky.assign(problem, variant="pre-KAFKA-15170")


# -- the guarantee, as a property --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(problem=problems(max_topics=3, max_partitions=5, max_members=4))
def test_valid_and_balanced_as_kafka_promises(problem):
    assignment = kafka4_sticky.assign(problem)
    assert violations(problem, assignment) == ()
    subscriptions = {m.topics for m in problem.members}
    if len(subscriptions) == 1 and problem.members:
        loads = load_vector(problem, assignment)
        if all(t.racks is None for t in problem.topics) and all(m.rack is None for m in problem.members):
            assert max(loads) - min(loads) <= 1
        assert tuple(sorted_loads(loads)) == tuple(solve(problem).sorted_loads)


@settings(max_examples=60, deadline=None)
@given(problem=problems(max_topics=3, max_partitions=5, max_members=6))
def test_in_javas_order_too_valid_and_most_balanced(problem):
    """Iterating members as Java does changes who keeps a maxQuota slot or which member a partition moves
    to, never validity or the balance Kafka promises: on equal subscriptions the sorted loads are the
    sorted order's (and the optimum's without racks); on any subscriptions the answer is valid."""
    java = kafka4_sticky.assign(problem, iteration_order="java")
    assert violations(problem, java) == ()
    if len({m.topics for m in problem.members}) != 1:
        return
    ordered = kafka4_sticky.assign(problem)
    assert sorted_loads(load_vector(problem, java)) == sorted_loads(load_vector(problem, ordered))
    if all(t.racks is None for t in problem.topics) and all(m.rack is None for m in problem.members):
        assert tuple(sorted_loads(load_vector(problem, java))) == tuple(solve(problem).sorted_loads)
