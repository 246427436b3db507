"""Kafka's share group ``SimpleAssignor`` (KIP-932): Kafka's own tests, translated, Kafka's answers, properties.

Source: apache/kafka d79bd502ec7fa49335afa422f442af80ed0ab8f6 (read in the confluentinc/kafka snapshot, which
keeps upstream commit ids), ``group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/
SimpleAssignorTest.java``: its 16 test methods, each named after it (snake case), with Kafka's inputs and
Kafka's assertions (the partitions covered, ``assertEveryPartitionGetsAssignment``, and two literal maps).

Translation notes.  Kafka's tests build the group in a ``HashMap`` of member ids; the port is run in Java's
order (``iteration_order="java"``, what Kafka's test saw; where members are removed from the map, the order of
the map after the removals, ``member_order``) and in its default sorted order, and Kafka's assertions hold in
both.  Kafka's topic ids are ``Uuid.randomUuid()``; here fixed ids (no assertion depends on them).  A topic
missing from Kafka's allowed map is not assignable (``GroupSpecImpl.isPartitionAssignable``): written here as
``"assignable": []``.  A subscription to a topic the metadata lacks, which Kafka's assignor refuses with
``PartitionAssignorException``, is refused by the scenario's validation, one line naming the field.

Kafka's answers (``KAFKA_ANSWERS``): groups on which the port's answer was compared with Kafka's Java by
``tools/kafka_differential/share.py``, Kafka's answer recorded here.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.heuristics import share_simple
from assignment_oracle.heuristics.java_order import JavaHashMap, string_hash
from assignment_oracle.heuristics.registry import SHARE_ASSIGNORS, get_assignor
from assignment_oracle.heuristics.share_simple import SimpleAssignorException, assign
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, holders, violations

ORDERS = ("java", "sorted")
order = pytest.mark.parametrize("iteration_order", ORDERS)

TOPIC_1, TOPIC_2, TOPIC_3, TOPIC_4 = "topic1", "topic2", "topic3", "topic4"
IDS = {
    TOPIC_1: "5B0cDKhYRGCNoJWrZQXm_g",
    TOPIC_2: "Zr1gq6QeRbWK0YQyKmm3Cw",
    TOPIC_3: "kq3Lz0hTTyyHcsn5VnFXhw",
    TOPIC_4: "tZ4YcNqrQGm7bQ8eK5y8nA",
}
MEMBER_A, MEMBER_B, MEMBER_C = "A", "B", "C"


# -- Kafka's test helpers, as functions -------------------------------------------------------------


def topics(*specs) -> dict:
    """``MetadataImageBuilder().addTopic(id, name, n)...`` and the allowed map: ``(name, n)`` or
    ``(name, n, assignable)``."""
    out = {}
    for spec in specs:
        name, count = spec[0], spec[1]
        out[name] = {"partitions": count, "id": IDS[name]}
        if len(spec) > 2:
            out[name]["assignable"] = list(spec[2])
    return out


def member(subscription, assignment: dict | None = None) -> dict:
    """``new MemberSubscriptionAndAssignmentImpl(empty, empty, subscription, assignment)``."""
    out: dict = {"topics": list(subscription)}
    if assignment:
        out["assigned"] = {t: sorted(ps) for t, ps in assignment.items() if ps}
    return out


def group(topic_specs: dict, members: dict) -> ShareProblem:
    return ShareProblem.from_mapping({"kind": "share", "topics": topic_specs, "members": members})


def assert_every_partition_gets_assignment(expected_partitions: int, computed: ShareAssignment) -> None:
    """``assertEveryPartitionGetsAssignment``: the distinct partitions assigned, counted."""
    assert len({tp for parts in computed.members.values() for tp in parts}) == expected_partitions


def assert_assignment(expected: dict, computed: ShareAssignment) -> None:
    """``assertAssignment``: member by member, the same map (a member with nothing: an empty map)."""
    assert set(computed.members) == set(expected)
    for m, parts in computed.members.items():
        by_topic: dict = {}
        for t, p in parts:
            by_topic.setdefault(t, set()).add(p)
        assert by_topic == expected[m], m


def as_assigned(computed: ShareAssignment, m: str) -> dict:
    """``new Assignment(computed.members().get(m).partitions())``: the answer fed back as the current one."""
    out: dict = {}
    for t, p in computed.of(m):
        out.setdefault(t, []).append(p)
    return out


# -- SimpleAssignorTest, method by method --------------------------------------------------------------


def test_name():
    assert share_simple.KAFKA_NAME == "simple"
    assert get_assignor("share-simple", kind="share").assign is assign
    assert [n for n, a in SHARE_ASSIGNORS.items() if not a.live] == ["share-simple"]  # the one port (and a live peer)


@order
def test_assign_with_empty_members(iteration_order):
    """Kafka asks twice, HOMOGENEOUS and HETEROGENEOUS: with no member ``assign`` answers before looking at
    the type, so one empty group stands for both."""
    p = group(topics(), {})
    assert assign(p, iteration_order=iteration_order).members == {}


@order
def test_assign_with_no_subscribed_topic(iteration_order):
    p = group(topics((TOPIC_1, 3)), {MEMBER_A: member([])})
    computed = assign(p, iteration_order=iteration_order)
    assert computed.members == {MEMBER_A: ()}  # Kafka: Map.of(), i.e. nothing for anyone


def test_assign_with_subscribed_to_non_existent_topic():
    with pytest.raises(InputError) as caught:
        group(topics((TOPIC_1, 3)), {MEMBER_A: member([TOPIC_2])})
    assert caught.value.field == "members.A.topics[0]" and "unknown topic" in caught.value.problem


@order
def test_assign_with_two_members_and_two_topics_homogeneous(iteration_order):
    p = group(
        topics((TOPIC_1, 3), (TOPIC_3, 2)),
        {MEMBER_A: member([TOPIC_1, TOPIC_3]), MEMBER_B: member([TOPIC_1, TOPIC_3])},
    )
    assert_every_partition_gets_assignment(5, assign(p, iteration_order=iteration_order))


@order
def test_assign_with_two_members_and_two_topics_homogeneous_with_allowed_map(iteration_order):
    p = group(
        topics((TOPIC_1, 3, [0, 1, 2]), (TOPIC_3, 3, [0, 1])),  # but not 2
        {MEMBER_A: member([TOPIC_1, TOPIC_3]), MEMBER_B: member([TOPIC_1, TOPIC_3])},
    )
    assert_every_partition_gets_assignment(5, assign(p, iteration_order=iteration_order))


@order
def test_assign_with_two_members_and_two_topics_homogeneous_with_non_assignable_topic(iteration_order):
    p = group(
        topics((TOPIC_1, 3, [0, 1, 2]), (TOPIC_3, 2, [])),  # topic3 not in the allowed map
        {MEMBER_A: member([TOPIC_1, TOPIC_3]), MEMBER_B: member([TOPIC_1, TOPIC_3])},
    )
    assert_every_partition_gets_assignment(3, assign(p, iteration_order=iteration_order))


THREE_MEMBERS = {
    MEMBER_A: member([TOPIC_1, TOPIC_2]),
    MEMBER_B: member([TOPIC_3]),
    MEMBER_C: member([TOPIC_2, TOPIC_3]),
}


@order
def test_assign_with_three_members_three_topics_heterogeneous(iteration_order):
    p = group(topics((TOPIC_1, 3), (TOPIC_2, 3), (TOPIC_3, 2)), THREE_MEMBERS)
    # T1: 3 partitions + T2: 3 partitions + T3: 2 partitions = 8 partitions
    assert_every_partition_gets_assignment(8, assign(p, iteration_order=iteration_order))


@order
def test_assign_with_three_members_three_topics_heterogeneous_with_allowed_map(iteration_order):
    p = group(topics((TOPIC_1, 3, [0, 1]), (TOPIC_2, 3, [0, 2]), (TOPIC_3, 2, [1])), THREE_MEMBERS)
    # T1: 2 partitions + T2: 2 partitions + T3: 1 partition = 5 partitions
    assert_every_partition_gets_assignment(5, assign(p, iteration_order=iteration_order))


@order
def test_assign_with_three_members_three_topics_heterogeneous_with_non_assignable_topic(iteration_order):
    p = group(topics((TOPIC_1, 3, [0, 1, 2]), (TOPIC_2, 3, [0, 1, 2]), (TOPIC_3, 2, [])), THREE_MEMBERS)
    computed = assign(p, iteration_order=iteration_order)
    expected = {
        MEMBER_A: {TOPIC_1: {0, 1, 2}, TOPIC_2: {0, 2}},
        MEMBER_B: {},
        MEMBER_C: {TOPIC_2: {1}},
    }
    # T1: 3 partitions + T2: 3 partitions + T3: 2 partitions(non-assignable) = 6 partitions
    assert_every_partition_gets_assignment(6, computed)
    assert_assignment(expected, computed)


@order
def test_assign_with_one_member_no_assigned_topic_heterogeneous(iteration_order):
    p = group(topics((TOPIC_1, 3), (TOPIC_2, 2)), {MEMBER_A: member([TOPIC_1, TOPIC_2]), MEMBER_B: member([])})
    computed = assign(p, iteration_order=iteration_order)
    expected = {MEMBER_A: {TOPIC_1: {0, 1, 2}, TOPIC_2: {0, 1}}, MEMBER_B: {}}
    # T1: 3 partitions + T2: 2 partitions = 5 partitions
    assert_every_partition_gets_assignment(5, computed)
    assert_assignment(expected, computed)


class JavaMembers:
    """The test's ``Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>()``: puts (a
    known key keeps its place), removes, and ``memberIds()`` in Java's order."""

    def __init__(self) -> None:
        self.order = JavaHashMap(string_hash)
        self.specs: dict[str, dict] = {}

    def put(self, member_id: str, spec: dict) -> None:
        self.order.put(member_id)
        self.specs[member_id] = spec

    def remove(self, member_id: str) -> None:
        self.order.remove(member_id)
        del self.specs[member_id]

    def assign(self, topic_specs: dict, iteration_order: str) -> ShareAssignment:
        """The group as the test's ``HashMap`` holds it (Java's order: as the map iterates)."""
        ids = list(self.order)
        p = group(topic_specs, {m: self.specs[m] for m in ids})
        return assign(p, iteration_order=iteration_order, member_order=ids if iteration_order == "java" else None)


@order
def test_incremental_assignment_increasing_members_homogeneous(iteration_order):
    num_partitions, num_members = 24, 101
    topic_specs = topics((TOPIC_1, num_partitions))
    members = JavaMembers()
    # Increase the number of members one a time, checking that the partitions are assigned as expected
    for m in range(num_members):
        members.put(f"M{m}", member([TOPIC_1]))
        computed = members.assign(topic_specs, iteration_order)
        assert_every_partition_gets_assignment(num_partitions, computed)
        for member_id in computed.members:
            members.put(member_id, member([TOPIC_1], as_assigned(computed, member_id)))


@order
def test_incremental_assignment_decreasing_members_homogeneous(iteration_order):
    num_partitions, num_members = 24, 101
    topic_specs = topics((TOPIC_1, num_partitions))
    members = JavaMembers()
    for m in range(num_members):
        members.put(f"M{m}", member([TOPIC_1]))
    computed = members.assign(topic_specs, iteration_order)
    assert_every_partition_gets_assignment(num_partitions, computed)
    for m in range(num_members):
        members.put(f"M{m}", member([TOPIC_1], as_assigned(computed, f"M{m}")))
    # Decrease the number of members one a time, checking that the partitions are assigned as expected
    for m in range(num_members - 1, 0, -1):
        members.remove(f"M{m}")
        computed = members.assign(topic_specs, iteration_order)
        assert_every_partition_gets_assignment(num_partitions, computed)
        for member_id in computed.members:
            members.put(member_id, member([TOPIC_1], as_assigned(computed, member_id)))


@order
def test_assign_with_current_assignment_heterogeneous(iteration_order):
    # Current assignment setup - 3 members A - {T1, T2}, B - {T3}, C - {T2, T3}.
    p1 = group(topics((TOPIC_1, 3), (TOPIC_2, 3), (TOPIC_3, 2)), THREE_MEMBERS)
    assert_every_partition_gets_assignment(8, assign(p1, iteration_order=iteration_order))
    # New assignment setup - 2 members A - {T1, T2, T3}, B - {T3, T4}.
    p2 = group(
        topics((TOPIC_1, 3), (TOPIC_2, 3), (TOPIC_3, 2), (TOPIC_4, 1)),
        {
            MEMBER_A: member([TOPIC_1, TOPIC_2, TOPIC_3], {TOPIC_1: [0, 1, 2], TOPIC_2: [0, 2]}),
            MEMBER_B: member([TOPIC_3, TOPIC_4], {TOPIC_3: [0, 1]}),
        },
    )
    assert_every_partition_gets_assignment(9, assign(p2, iteration_order=iteration_order))


HETEROGENEOUS_SUBSCRIPTIONS = [[TOPIC_1, TOPIC_2, TOPIC_3], [TOPIC_2], [TOPIC_3], [TOPIC_1, TOPIC_2]]
HETEROGENEOUS_TOPICS = topics((TOPIC_1, 24 // 2), (TOPIC_2, 24 // 3), (TOPIC_3, 24 // 6))


@order
def test_incremental_assignment_increasing_members_heterogeneous(iteration_order):
    num_partitions, num_members = 24, 101
    subscriptions = HETEROGENEOUS_SUBSCRIPTIONS
    members = JavaMembers()
    # Increase the number of members one a time, checking that the partitions are assigned as expected
    for m in range(num_members):
        members.put(f"M{m}", member(subscriptions[m % 4]))
        computed = members.assign(HETEROGENEOUS_TOPICS, iteration_order)
        assert_every_partition_gets_assignment(num_partitions, computed)
        for k in range(m):  # as Kafka's test: the newest member is fed back only at the next round
            members.put(f"M{k}", member(subscriptions[k % 4], as_assigned(computed, f"M{k}")))


@order
def test_incremental_assignment_decreasing_members_heterogeneous(iteration_order):
    num_partitions, num_members = 24, 101
    subscriptions = HETEROGENEOUS_SUBSCRIPTIONS
    members = JavaMembers()
    for m in range(num_members):
        members.put(f"M{m}", member(subscriptions[m % 4]))
    computed = members.assign(HETEROGENEOUS_TOPICS, iteration_order)
    assert_every_partition_gets_assignment(num_partitions, computed)
    for m in range(num_members):
        members.put(f"M{m}", member(subscriptions[m % 4], as_assigned(computed, f"M{m}")))
    # Decrease the number of members one a time, checking that the partitions are assigned as expected
    for m in range(num_members - 1, 0, -1):
        members.remove(f"M{m}")
        computed = members.assign(HETEROGENEOUS_TOPICS, iteration_order)
        assert_every_partition_gets_assignment(num_partitions, computed)
        for k in range(m):
            members.put(f"M{k}", member(subscriptions[k % 4], as_assigned(computed, f"M{k}")))


# -- Kafka's answers, from Kafka's Java (tools/kafka_differential/share.py) ---------------------------------

#: (scenario, Kafka's answer at d79bd50): ``{member: {topic: [partitions]}}``, or the exception Kafka threw.
KAFKA_ANSWERS = [
    # Java's hash order decides which of m0's partitions it keeps (the sorted port keeps the other one).
    (
        {"j9": {"partitions": 2, "id": "V8WPCmE0Rv6ukyaMx_J-hg", "assignable": [0]}},
        {"m0": {"topics": ["j9"], "assigned": {"j9": [0, 1]}}},
        {"m0": {"j9": [0]}},
    ),
    (
        {"c31V": {"partitions": 3, "id": "TA5COxekS2WQuXavAK6lBA", "assignable": [2]}},
        {"m0": {"topics": ["c31V"], "assigned": {"c31V": [1, 2]}}},
        {"m0": {"c31V": [1]}},
    ),
    (
        {"1M": {"partitions": 5, "id": "rrCeBA4jR7Su8iX8eaOs5w", "assignable": [2]}},
        {"m0": {"topics": ["1M"], "assigned": {"1M": [3, 4]}}},
        {"m0": {"1M": [3]}},
    ),
    # Heterogeneous: each topic's extra partition to the first subscriber (share-heterogeneous-skew).
    (
        {
            "t1": {"partitions": 3, "id": "AAAAAAAAAAAAAAAAAAAAAQ"},
            "t2": {"partitions": 3, "id": "AAAAAAAAAAAAAAAAAAAAAg"},
            "u": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAw"},
        },
        {"A": {"topics": ["t1", "t2", "u"]}, "B": {"topics": ["t1", "t2"]}},
        {"A": {"t1": [0, 2], "t2": [0, 2], "u": [0]}, "B": {"t1": [1], "t2": [1]}},
    ),
    (
        {
            "u": {"partitions": 4, "id": "AAAAAAAAAAAAAAAAAAAAAg"},
            "v": {"partitions": 2, "id": "AAAAAAAAAAAAAAAAAAAAAw"},
        },
        {"m0": {"topics": ["u", "v"]}, "m1": {"topics": ["u", "v"]}, "m2": {"topics": ["v"]}, "m3": {"topics": ["u"]}},
        {"m0": {"u": [0, 3], "v": [0, 1]}, "m1": {"u": [1], "v": [0]}, "m2": {"v": [1]}, "m3": {"u": [2]}},
    ),
    # A partition nobody can take stops the pass: t-0 stays at 2 of 3 (share-remaining-partitions-starved).
    (
        {"t": {"partitions": 3, "id": "AAAAAAAAAAAAAAAAAAAAAQ"}},
        {
            "m0": {"topics": ["t"], "assigned": {"t": [1]}},
            "m1": {"topics": ["t"], "assigned": {"t": [2]}},
            "m2": {"topics": ["t"], "assigned": {"t": [2]}},
            "m3": {"topics": ["t"], "assigned": {"t": [1]}},
            "m4": {"topics": ["t"], "assigned": {"t": [2]}},
            "m5": {"topics": ["t"], "assigned": {"t": [0]}},
            "m6": {"topics": ["t"], "assigned": {"t": [0]}},
        },
        {
            "m0": {"t": [1]},
            "m1": {"t": [2]},
            "m2": {"t": [2]},
            "m3": {"t": [1]},
            "m4": {"t": [2]},
            "m5": {"t": [0]},
            "m6": {"t": [0]},
        },
    ),
    # Nobody can add a second member to t-1: it stays at 1 of 2 (the javadoc's tolerated case).
    (
        {"t": {"partitions": 2, "id": "AAAAAAAAAAAAAAAAAAAAAQ"}},
        {
            "a": {"topics": ["t"]},
            "b": {"topics": ["t"], "assigned": {"t": [0]}},
            "c": {"topics": ["t"], "assigned": {"t": [0]}},
        },
        {"a": {"t": [1]}, "b": {"t": [0]}, "c": {"t": [0]}},
    ),
    # Held partitions Kafka does not revoke: not assignable (share-held-unassignable), of a topic nobody
    # subscribes to in a heterogeneous group (share-unsubscribed-topic-kept).
    (
        {"t": {"partitions": 2, "id": "AAAAAAAAAAAAAAAAAAAAAQ", "assignable": [0]}},
        {"A": {"topics": ["t"], "assigned": {"t": [1]}}},
        {"A": {"t": [1]}},
    ),
    (
        {
            "t": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAQ"},
            "u": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAg"},
        },
        {"A": {"topics": ["t"], "assigned": {"u": [0]}}, "B": {"topics": []}},
        {"A": {"t": [0], "u": [0]}, "B": {}},
    ),
    (
        {"t": {"partitions": 2, "id": "AAAAAAAAAAAAAAAAAAAAAQ", "assignable": [1]}},
        {"m0": {"topics": ["t"], "assigned": {"t": [0]}}, "m1": {"topics": ["t"]}},
        "java.util.NoSuchElementException",
    ),
]


@pytest.mark.parametrize(("topic_specs", "members", "kafka"), KAFKA_ANSWERS)
def test_kafka_answers_in_java_order(topic_specs, members, kafka):
    p = group(topic_specs, members)
    if isinstance(kafka, str):
        with pytest.raises(SimpleAssignorException) as caught:
            assign(p, iteration_order="java")
        assert caught.value.java_class == kafka
        return
    assert assign(p, iteration_order="java").to_mapping() == kafka


def test_java_order_needs_topic_ids_in_homogeneous_groups_only():
    no_ids = {"t": 2, "u": 1}
    homogeneous = group(no_ids, {"a": member(["t"]), "b": member(["t"])})
    with pytest.raises(ValueError, match='needs the topic id \\("id", Kafka\'s Uuid\\) .* none for t'):
        assign(homogeneous, iteration_order="java")
    heterogeneous = group(no_ids, {"a": member(["t"]), "b": member(["u"])})
    assert assign(heterogeneous, iteration_order="java").to_mapping() == {"a": {"t": [0, 1]}, "b": {"u": [0]}}


def test_bad_arguments():
    p = group(topics((TOPIC_1, 1)), {MEMBER_A: member([TOPIC_1])})
    with pytest.raises(ValueError, match="iteration_order"):
        assign(p, iteration_order="random")
    with pytest.raises(ValueError, match="member_order"):
        assign(p, member_order=["A", "B"])


def test_docstring_examples():
    assert doctest.testmod(share_simple).failed == 0


# -- properties ------------------------------------------------------------------------------------------------


@st.composite
def share_groups(draw, *, clean: bool) -> ShareProblem:
    """Small share groups: 1-3 topics of 1-5 partitions (ids given), 1-8 members, some partitions not
    assignable, current assignments; ``clean``: members hold only assignable partitions of topics they
    subscribe to (what a group that only ever ran this assignor on unchanged topics holds), else anything."""
    names = ["t", "u", "v"][: draw(st.integers(1, 3))]
    topic_specs: dict = {}
    for i, t in enumerate(names):
        n = draw(st.integers(1, 5))
        topic_specs[t] = {"partitions": n, "id": list(IDS.values())[i]}
        if draw(st.booleans()):
            topic_specs[t]["assignable"] = draw(st.lists(st.integers(0, n - 1), unique=True))
    same = draw(st.booleans())
    common = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    members: dict = {}
    for k in range(draw(st.integers(1, 8))):
        subscribed = common if same else draw(st.lists(st.sampled_from(names), unique=True))
        held: dict = {}
        for t in names if not clean else subscribed:
            allowed = topic_specs[t].get("assignable", range(topic_specs[t]["partitions"]))
            pool = sorted(allowed) if clean else list(range(topic_specs[t]["partitions"]))
            if pool:
                chosen = draw(st.lists(st.sampled_from(pool), unique=True, max_size=3))
                if chosen:
                    held[t] = chosen
        members[f"m{k}"] = member(subscribed, held)
    return group(topic_specs, members)


def desired_sharing(p: ShareProblem, topic: str) -> int:
    """Kafka's target number of members per partition of ``topic`` (docs/formats.md, "Kafka's sharing
    target"), from the formulas, not from the port."""
    if p.is_homogeneous:
        m, n = len(p.members), sum(len(p.assignable_partitions(t)) for t in p.members[0].topics)
    else:
        m, n = len(p.subscribers(topic)), len(p.assignable_partitions(topic))
    return 0 if n == 0 else -(-m // n)


@settings(max_examples=300)
@given(share_groups(clean=True), st.sampled_from(ORDERS))
def test_clean_groups_get_a_valid_answer_covering_every_partition(p, iteration_order):
    """From a clean start Kafka never throws, every assignable partition of a subscribed topic has a member,
    each member holds only assignable partitions it subscribes to, no partition has more members than the
    builder's desiredSharing."""
    answer = assign(p, iteration_order=iteration_order)
    assert violations(p, answer) == ()
    held = holders(p, answer)
    checked = [(t, q) for t in p.topics if p.subscribers(t) for q in p.assignable_partitions(t)]
    counts = [held[p.index_of(t, q)] for t, q in checked]
    limits = [desired_sharing(p, t) for t, _ in checked]
    assert all(1 <= c <= d for c, d in zip(counts, limits)), list(zip(checked, counts, limits))
    # Every holding is of one of these partitions: no other partition is held.
    assert sum(counts) == int(sum(held))


def test_kafkas_member_targets_fill_every_partition_to_its_desired_sharing():
    """Three members, one topic of two partitions: desiredSharing = ceil(3/2) = 2, x = 2*2/3, member
    targets ceil(x(i+1)) - ceil(x*i) = 2, 1, 1 (4 in all, the formula by hand): each partition ends
    with exactly 2 members."""
    three = group(
        {"t": {"partitions": 2, "id": "V8WPCmE0Rv6ukyaMx_J-hg"}}, {m: {"topics": ["t"]} for m in ("a", "b", "c")}
    )
    for order in ORDERS:
        held = holders(three, assign(three, iteration_order=order))
        assert [int(x) for x in held] == [2, 2], order


@settings(max_examples=300)
@given(share_groups(clean=False), st.sampled_from(ORDERS))
def test_what_kafka_gets_wrong_comes_from_what_members_held(p, iteration_order):
    """From any start: Kafka answers or throws NoSuchElementException; a partition a member does not
    subscribe to is one it held; a partition that is not assignable is one someone held."""
    try:
        answer = assign(p, iteration_order=iteration_order)
    except SimpleAssignorException as e:
        assert e.java_class == "java.util.NoSuchElementException"
        return
    held_before = {tp for m in p.members for tp in m.assigned}
    for v in violations(p, answer):
        assert v.kind in ("not-subscribed", "not-assignable"), v
        if v.kind == "not-subscribed":
            assert set(v.partitions) <= set(p.member[v.member_id].assigned)
        else:
            assert set(v.partitions) <= held_before


@settings(max_examples=150)
@given(share_groups(clean=False), st.randoms(use_true_random=False))
def test_deterministic_and_sorted_order_ignores_the_order_presented(p, rng):
    """The same group gives the same answer, in either order; in sorted order the members' order as
    presented does not matter (``memberIds()`` is sorted)."""
    for iteration_order in ORDERS:
        try:
            first = assign(p, iteration_order=iteration_order)
        except SimpleAssignorException:
            with pytest.raises(SimpleAssignorException):
                assign(p, iteration_order=iteration_order)
            continue
        assert assign(p, iteration_order=iteration_order) == first
    mapping = p.to_mapping()
    shuffled = list(mapping["members"].items())
    rng.shuffle(shuffled)
    again = ShareProblem.from_mapping({**mapping, "members": dict(shuffled)})
    try:
        expected = assign(p).to_mapping()
    except SimpleAssignorException:
        with pytest.raises(SimpleAssignorException):
            assign(again)
        return
    assert assign(again).to_mapping() == expected
