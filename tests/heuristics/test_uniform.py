"""KIP-848's UniformAssignor: Kafka's own builder tests, translated, and its guarantee as a property.

Sources, group-coordinator tests: apache/kafka 1eb7644 (Kafka 4.0.0's uniform,
``uniform.KAFKA_4_0_0``) ``OptimizedUniformAssignmentBuilderTest`` and
``UniformHeterogeneousAssignmentBuilderTest``; apache/kafka d79bd50 (today's,
read in the confluentinc/kafka snapshot, which keeps upstream commit ids) the
same tests, the homogeneous one renamed ``UniformHomogeneousAssignmentBuilderTest``,
three of whose expectations KAFKA-18688 changed (c16c240b): each such test is
checked against both releases, each with its own expected answer.

Literal where Kafka's order can be told: topics carry Kafka's test ids
(``T1-A4s3VTwiI5CTbEp6POw``, ...) and the port iterates as Java does
(``iteration_order="java"``); members A, B, C sit in a TreeMap in Kafka's
tests, which is also their HashMap order.  Three homogeneous tests build a
member's previous assignment with ``mkOrderedAssignment`` (a LinkedHashMap in
the order written, not the HashMap Kafka's coordinator builds), which the
port cannot be told: they run in sorted order with topics named so that name
order is the order that decides the answer (``HASH_ORDER``: T2, T4, T3, T1,
the fixed ids' order in a 16-bucket HashSet; ``PLAIN``: the written order).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from assignment_oracle.compare.judge.guarantees import check_guarantee
from assignment_oracle.compare.scenarios.strategies import problems, rebalances
from assignment_oracle.heuristics import uniform
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Assignment
from assignment_oracle.problem.ownership import violations

HASH_ORDER = {"topic2": "a-topic2", "topic4": "b-topic4", "topic3": "c-topic3", "topic1": "d-topic1"}
PLAIN = {t: t for t in HASH_ORDER}
#: Kafka's test topic ids (both test classes, both commits).
KAFKA_IDS = {
    "topic1": "T1-A4s3VTwiI5CTbEp6POw",
    "topic2": "T2-B4s3VTwiI5YHbPp6YUe",
    "topic3": "T3-CU8fVTLCz5YMkLoDQsa",
    "topic4": "T4-Tw9fVTLCz5HbPp6YQsa",
}
TODAY, KAFKA_4_0_0 = None, uniform.KAFKA_4_0_0


def run(
    names,
    topics: dict[str, int],
    members: dict[str, tuple[list[str], dict[str, list[int]]]],
    *,
    variant: str | None = TODAY,
    java: bool = False,
) -> dict:
    problem = Problem.from_mapping(
        {
            "topics": {names[t]: {"partitions": n, "id": KAFKA_IDS[t]} if java else n for t, n in topics.items()},
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
    got = uniform.assign(problem, variant=variant, iteration_order="java" if java else "sorted")
    return {m: {back[t]: ps for t, ps in ts.items()} for m, ts in got.to_mapping(problem.member_ids).items()}


def literal(topics, members, **options) -> dict:
    """Kafka's test as written: its topic names and ids, Java's iteration order."""
    return run(PLAIN, topics, members, java=True, **options)


T12, T13 = ["topic1", "topic2"], ["topic1", "topic3"]
BOTH = pytest.mark.parametrize("variant", [TODAY, KAFKA_4_0_0], ids=["d79bd50", "1eb7644"])


# -- UniformHomogeneousAssignmentBuilderTest (d79bd50) / OptimizedUniformAssignmentBuilderTest (1eb7644) ------------


@BOTH
def test_testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks(variant):
    got = literal({"topic1": 3, "topic3": 2}, {"A": (T13, {}), "B": (T13, {})}, variant=variant)
    if variant is TODAY:  # KAFKA-18688: the extra partition goes to the last member in order
        assert got == {"A": {"topic3": [0, 1]}, "B": {"topic1": [0, 1, 2]}}
    else:
        assert got == {"A": {"topic1": [0], "topic3": [0, 1]}, "B": {"topic1": [1, 2]}}


@BOTH
def test_homogeneous_testFirstAssignmentNumMembersGreaterThanTotalNumPartitions(variant):
    three = {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic3"], {})}
    got = literal({"topic3": 2}, three, variant=variant)
    if variant is TODAY:
        assert got == {"A": {}, "B": {"topic3": [0]}, "C": {"topic3": [1]}}
    else:
        assert got == {"A": {"topic3": [0]}, "B": {"topic3": [1]}, "C": {}}


@BOTH
def test_testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment(variant):
    got = run(
        PLAIN,
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0, 1], "topic2": [0, 1]}), "B": (T12, {"topic1": [2], "topic2": [2]})},
        variant=variant,
    )
    assert got == {"A": {"topic1": [0, 1], "topic2": [0]}, "B": {"topic1": [2], "topic2": [1, 2]}}


@BOTH
def test_testReassignmentWhenPartitionsAreAddedForTwoMembersTwoTopics(variant):
    got = run(
        HASH_ORDER,
        {"topic1": 6, "topic2": 5},
        {"A": (T12, {"topic1": [0, 2], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1, 2]})},
        variant=variant,
    )
    if variant is TODAY:
        assert got == {"A": {"topic1": [0, 2], "topic2": [0, 3, 4]}, "B": {"topic1": [1, 3, 4, 5], "topic2": [1, 2]}}
    else:
        assert got == {"A": {"topic1": [0, 2, 3], "topic2": [0, 3, 4]}, "B": {"topic1": [1, 4, 5], "topic2": [1, 2]}}


@BOTH
def test_testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics(variant):
    got = run(
        PLAIN,
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0, 2], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1, 2]}), "C": (T12, {})},
        variant=variant,
    )
    assert got == {"A": {"topic1": [0, 2]}, "B": {"topic1": [1], "topic2": [1]}, "C": {"topic2": [0, 2]}}


@BOTH
def test_testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersTwoTopics(variant):
    got = literal(
        {"topic1": 3, "topic2": 3},
        {"A": (T12, {"topic1": [0], "topic2": [0]}), "B": (T12, {"topic1": [1], "topic2": [1]})},
        variant=variant,
    )
    assert got == {"A": {"topic1": [0], "topic2": [0, 2]}, "B": {"topic1": [1, 2], "topic2": [1]}}


@BOTH
def test_testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics(variant):
    got = literal(
        {"topic1": 2, "topic2": 2},
        {"A": (["topic2"], {"topic1": [0], "topic2": [0]}), "B": (["topic2"], {"topic1": [1], "topic2": [1]})},
        variant=variant,
    )
    assert got == {"A": {"topic2": [0]}, "B": {"topic2": [1]}}


def test_the_sorted_order_needs_the_renaming_that_java_order_does_not():
    """Without Kafka's ids and order, the first test's answer is the mirror image: the sorted port takes
    topic1 first where Kafka's HashSet iterates topic3 (T3) before topic1 (T1)."""
    got = run(PLAIN, {"topic1": 3, "topic3": 2}, {"A": (T13, {}), "B": (T13, {})}, variant=KAFKA_4_0_0)
    assert got != literal({"topic1": 3, "topic3": 2}, {"A": (T13, {}), "B": (T13, {})}, variant=KAFKA_4_0_0)


def test_java_order_needs_every_subscribed_topic_id():
    problem = Problem.from_mapping(
        {
            "topics": {"t": 2, "u": {"partitions": 1, "id": KAFKA_IDS["topic1"]}},
            "members": {"a": {"topics": ["t", "u"]}},
        }
    )
    with pytest.raises(ValueError, match=r"topic id .* none for t$"):
        uniform.assign(problem, iteration_order="java")


# -- UniformHeterogeneousAssignmentBuilderTest (no answer changed between 1eb7644 and d79bd50) -----------------------


@pytest.mark.parametrize("java", [True, False], ids=["java", "sorted"])
def test_testFirstAssignmentTwoMembersTwoTopics(java):
    got = run(PLAIN, {"topic1": 3, "topic3": 6}, {"A": (T13, {}), "B": (["topic3"], {})}, java=java)
    assert got == {"A": {"topic1": [0, 1, 2], "topic3": [4]}, "B": {"topic3": [0, 1, 2, 3, 5]}}


@pytest.mark.parametrize("java", [True, False], ids=["java", "sorted"])
def test_heterogeneous_testFirstAssignmentNumMembersGreaterThanTotalNumPartitions(java):
    three = {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic1"], {})}
    got = run(PLAIN, {"topic3": 1, "topic1": 2}, three, java=java)
    assert got == {"A": {"topic3": [0]}, "B": {}, "C": {"topic1": [0, 1]}}


@pytest.mark.parametrize("java", [True, False], ids=["java", "sorted"])
def test_testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment(java):
    got = run(
        PLAIN,
        {"topic1": 6, "topic2": 4, "topic3": 4},
        {
            "A": (["topic1"], {"topic1": [0, 1, 2]}),
            "B": (T12, {"topic1": [3], "topic2": [0]}),
            "C": (["topic1", "topic2", "topic3"], {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]}),
        },
        java=java,
    )
    assert got == {
        "A": {"topic1": [0, 1, 2, 5]},
        "B": {"topic1": [3], "topic2": [0, 1, 2, 3]},
        "C": {"topic1": [4], "topic3": [0, 1, 2, 3]},
    }


@pytest.mark.parametrize("java", [True, False], ids=["java", "sorted"])
def test_testReassignmentWhenPartitionsAreAddedForTwoMembers(java):
    got = run(
        PLAIN,
        {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
        {
            "A": (T13, {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}),
            "B": (["topic1", "topic2", "topic3", "topic4"], {"topic2": [0, 1, 2], "topic4": [0, 1, 2]}),
        },
        java=java,
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
    for fixed in (True, False):  # today's (KAFKA-18688) and Kafka 4.0.0's
        fast = _homogeneous_arrays(problem, topics, previous, fixed_18688=fixed)
        loop = _homogeneous(problem, topics, previous, fixed_18688=fixed)
        assert {t: list(map(int, fast[t])) for t in fast} == {t: list(loop[t]) for t in topics}


def test_a_missing_topic_in_one_subscription_makes_the_group_heterogeneous_as_in_kafka():
    """ModernGroup.subscriptionType counts subscribers per topic *name*, a topic that does not exist
    included: a takes the heterogeneous builder, which keeps b's two partitions (2/1 is balanced), where
    the homogeneous one, with the same topics that exist, gives the extra quota to a (first in order) and
    revokes t0-1 from b (Kafka 4.0.0; today's keeps b's extra).  The expected answers are Kafka's own: its
    UniformAssignor at 1eb7644, compiled and asked through tools/kafka_differential's driver, returns exactly
    the 1eb7644 ones (and reports the subscription types heterogeneous and homogeneous)."""
    base = {"topics": {"t0": 3}, "members": {"b": {"topics": ["t0"], "owned": {"t0": [0, 1]}, "generation": 1}}}
    missing = Problem.from_mapping({**base, "members": {**base["members"], "a": {"topics": ["t0", "missing"]}}})
    same = Problem.from_mapping({**base, "members": {**base["members"], "a": {"topics": ["t0"]}}})
    for variant in (TODAY, KAFKA_4_0_0):
        assert uniform.assign(missing, variant=variant).to_mapping() == {"a": {"t0": [2]}, "b": {"t0": [0, 1]}}
    assert uniform.assign(same, variant=KAFKA_4_0_0).to_mapping() == {"a": {"t0": [1, 2]}, "b": {"t0": [0]}}
    # Today's homogeneous builder lets b keep the extra partition it holds (KAFKA-18688): the same answer.
    assert uniform.assign(same).to_mapping() == {"a": {"t0": [2]}, "b": {"t0": [0, 1]}}


# -- CommonAssignorTests (new at d79bd50, #21069): a fed-back assignment does not depend on member order ---------


def _fed_back(problem: Problem, assignment, order: list[str]) -> tuple[Problem, dict[str, str]]:
    """The group claiming ``assignment`` (generation 1), members renamed so that they sort in ``order``:
    the port's member order is Kafka's iteration order of ``groupSpec.memberIds()``."""
    names = {member: f"{k}-{member}" for k, member in enumerate(order)}
    data = problem.to_mapping()
    given_out = assignment.to_mapping(problem.member_ids)
    members = {}
    for member, entry in data["members"].items():
        entry = {**entry, "owned": given_out[member], "generation": 1}
        members[names[member]] = entry
    return Problem.from_mapping({**data, "members": members}), {v: k for k, v in names.items()}


MEMBER_ORDERS = [list(order) for order in itertools.permutations("ABC")]


@pytest.mark.parametrize("subscription_type", ["HOMOGENEOUS", "HETEROGENEOUS"])
def test_CommonAssignorTests_testReassignmentStickiness(subscription_type):
    """Kafka's test: three members subscribed to topics of 2, 5 and 7 partitions; the first assignment fed
    back under each of the six member orders comes back unchanged (today's uniform, both builders; Kafka
    passes the subscription type explicitly, so the heterogeneous builder is called directly here).  The
    rack-aware parameter is left out: neither builder reads racks.  Kafka 4.0.0's homogeneous builder fails
    it, as KAFKA-18688 reported: the extra partitions follow the member order."""
    from assignment_oracle.heuristics.uniform import _Heterogeneous
    from assignment_oracle.problem.claims import resolve_claims

    topics = {"topic1": 2, "topic2": 5, "topic3": 7}
    group = Problem.from_mapping({"topics": topics, "members": {m: {"topics": sorted(topics)} for m in "ABC"}})

    def assign(problem: Problem, variant=None):
        if subscription_type == "HOMOGENEOUS":
            return uniform.assign(problem, variant=variant)
        subscriptions = [tuple(sorted(topics))] * len(problem.members)
        owners = _Heterogeneous(problem, subscriptions, resolve_claims(problem).previous_owner).build()
        return {t: list(map(int, o)) for t, o in owners.items()}, problem

    def by_member(result, problem, back) -> dict:
        if subscription_type == "HOMOGENEOUS":
            return {back[m]: ts for m, ts in result.to_mapping(problem.member_ids).items()}
        owners, _ = result
        out: dict = {back[m]: {} for m in problem.member_ids}
        for t, row in owners.items():
            for p, o in enumerate(row):
                out[back[problem.member_ids[o]]].setdefault(t, []).append(p)
        return out

    expected = by_member(assign(group), group, {m: m for m in group.member_ids})  # the builder's first answer
    first_assignment = Assignment(expected)
    for order in MEMBER_ORDERS:
        again, back = _fed_back(group, first_assignment, order)
        assert by_member(assign(again), again, back) == expected, order
    if subscription_type == "HOMOGENEOUS":
        old_first = uniform.assign(group, variant=KAFKA_4_0_0)
        moved = []
        for order in MEMBER_ORDERS:
            again, back = _fed_back(group, old_first, order)
            got = by_member(uniform.assign(again, variant=KAFKA_4_0_0), again, back)
            moved.append(got != old_first.to_mapping(group.member_ids))
        assert any(moved) and not all(moved)


@settings(max_examples=150, deadline=None)
@given(problem=rebalances(identical=True))
def test_todays_homogeneous_builder_keeps_its_own_assignment_under_any_member_order(problem):
    """The property CommonAssignorTests samples, on any group with identical subscriptions: today's uniform,
    fed its own assignment back, returns it under the reversed member order too (KAFKA-18688's point)."""
    first = uniform.assign(problem)
    expected = first.to_mapping(problem.member_ids)
    for order in (list(problem.member_ids), list(reversed(problem.member_ids))):
        again, back = _fed_back(problem, first, order)
        got = {back[m]: ts for m, ts in uniform.assign(again).to_mapping(again.member_ids).items()}
        assert got == expected


def test_a_missing_topic_counts_in_the_size_of_the_homogeneous_builders_topic_set():
    """``TopicIds.size()`` counts every subscribed name, a topic that does not exist included, so Kafka sizes
    the homogeneous builder's ``new HashSet<>(subscribedTopicIds())`` for 12 names (32 buckets) where the 11
    topics that exist alone would give 16: another topic order, another answer.  The expected answer is Kafka's
    own: its UniformAssignor at d79bd50, asked through tools/kafka_differential's driver with a subscription
    set that answers ``size()`` as ``TopicIds`` does."""
    ids = [
        "JGyEotK-TKiWTOTghk9ecw", "vuNNN-3jT9altWt-bq_Olg", "7uGXnTTnQX2Wbk6T2MhiAQ", "0Gj298heSDqa7e-lUHn9iQ",
        "uUCUtL4LS0yGXYA2GbRKCw", "dPr_h6G1QFSyVAs3iBc8jw", "ARCpJbVDS3KwINe5WXN9Nw", "GFZp3QdDQzGKHSDo9GBoOA",
        "d8RK7pfLSkuPbOiuipz8lg", "rDR2LePjSwaw6Jhok4jMsA", "j4sikbqvTRyExPacTjDWhQ",
    ]  # fmt: skip
    names = [f"t{j:02d}" for j in range(11)]
    problem = Problem.from_mapping(
        {
            "topics": {t: {"partitions": 1, "id": i} for t, i in zip(names, ids)},
            "members": {m: {"topics": [*names, "gone"]} for m in "ABC"},
        }
    )
    assert uniform.assign(problem, iteration_order="java").to_mapping() == {
        "A": {"t03": [0], "t08": [0], "t10": [0]},
        "B": {"t00": [0], "t04": [0], "t05": [0], "t09": [0]},
        "C": {"t01": [0], "t02": [0], "t06": [0], "t07": [0]},
    }
