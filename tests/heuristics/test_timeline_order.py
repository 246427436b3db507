"""heuristics/timeline_order.py: the order Kafka's group coordinator iterates a group's members.

Expected orders are Kafka's own: each list below is what ``org.apache.kafka.timeline.TimelineHashMap``
(compiled from apache/kafka d79bd50, ``new TimelineHashMap<>(new SnapshotRegistry(new LogContext()), 0)``,
``put`` in the order given, ``keySet()`` printed) returned; ``tools/kafka_differential`` checks the whole
coordinator order against Kafka's classes on random groups (its README has the counts).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assignment_oracle.heuristics import uniform
from assignment_oracle.heuristics.java_order import java_order, string_hash
from assignment_oracle.heuristics.timeline_order import (
    coordinator_member_order,
    find_slot,
    joining_member,
    timeline_order,
)
from assignment_oracle.problem.model import Problem

#: (keys put in this order, the order Kafka's TimelineHashMap iterated them).
KAFKAS_OWN = [
    (["G4", "ZpR"], ["ZpR", "G4"]),  # one slot of two: the last put comes first
    (list("abcdefghij"), ["f", "c", "h", "e", "j", "b", "g", "d", "i", "a"]),
    (
        [f"consumer-{i}" for i in range(1, 13)],
        [
            "consumer-2",
            "consumer-11",
            "consumer-7",
            "consumer-4",
            "consumer-9",
            "consumer-1",
            "consumer-10",
            "consumer-6",
            "consumer-3",
            "consumer-12",
            "consumer-8",
            "consumer-5",
        ],
    ),
    (
        ["J3CMRz-3SQqcaZY9Famafw", "HCCaphW2Sciy7OPoFqQtaQ", "m0", "m1", "m2", "m3"],
        ["m0", "J3CMRz-3SQqcaZY9Famafw", "m2", "m1", "HCCaphW2Sciy7OPoFqQtaQ", "m3"],
    ),
]


def test_the_timeline_hash_map_iterates_as_kafkas():
    for keys, kafka in KAFKAS_OWN:
        assert timeline_order(keys) == kafka


def test_find_slot_takes_the_top_bits_of_knuths_product():
    """``(int) ((h * -7046029254386353131L) >>> (65 - log2size))``: one bit for 2 slots, the product's sign."""
    for h in (0, 1, -1, 2253, 90044, 2**31 - 1, -(2**31)):
        product = (h * -7046029254386353131) % 2**64
        assert find_slot(h, 2) == product >> 63
        assert find_slot(h, 16) == product >> 60


@given(st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=60))
def test_every_key_once_and_the_slots_in_order(keys):
    """A permutation of the keys; iterating walks the slots in order (each slot's keys last put first)."""
    order = timeline_order(keys)
    assert sorted(order) == sorted(keys)
    size = 2
    while len(keys) * 0.75 > size:  # the table the puts grew to
        size *= 2
    slots = [find_slot(string_hash(k), size) for k in order]
    assert slots == sorted(slots)
    for slot in set(slots):
        inside = [k for k in order if find_slot(string_hash(k), size) == slot]
        assert inside == sorted(inside, key=keys.index, reverse=True)


def test_a_joining_member_comes_after_the_group_and_the_hash_map_decides_the_rest():
    """The issue's smallest case: two ids in one ``HashMap`` bucket.  In the group's map the coordinator
    iterates J3C... first, so the ``HashMap`` it fills lists it first; joining, H... is added after it."""
    h, j = "HCCaphW2Sciy7OPoFqQtaQ", "J3CMRz-3SQqcaZY9Famafw"
    assert java_order([h, j], string_hash) == [h, j]  # one bucket: the order they were put in
    assert coordinator_member_order([h, j]) == [j, h]
    assert coordinator_member_order([j, h]) == [j, h]
    assert coordinator_member_order([h, j], joining=h) == [j, h]
    assert coordinator_member_order([h, j], joining=j) == [h, j]
    assert joining_member([h, j], lambda m: False) == j and joining_member([h, j], lambda m: m == j) is None


def test_uniform_in_javas_order_iterates_the_coordinators_members():
    """Kafka 4.0.0's homogeneous builder gives the one partition to the first member of ``memberIds()``:
    J3C... in the coordinator's order (before issue 43 the port filled the map in id order: H...)."""
    h, j = "HCCaphW2Sciy7OPoFqQtaQ", "J3CMRz-3SQqcaZY9Famafw"
    problem = Problem.from_mapping(
        {
            "topics": {"t27": {"partitions": 1, "id": "zgUQMWUZQiWcFosANd_Szw"}},
            "members": {j: {"topics": ["t27"]}, h: {"topics": ["t27"]}},
        }
    )
    answer = uniform.assign(problem, variant=uniform.KAFKA_4_0_0, iteration_order="java").to_mapping()
    assert answer == {h: {}, j: {"t27": [0]}}
    joining = uniform.assign(problem, variant=uniform.KAFKA_4_0_0, iteration_order="java", joining=j).to_mapping()
    assert joining == {h: {"t27": [0]}, j: {}}
