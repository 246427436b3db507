"""Kafka's RangeAssignor (``range``), the default of the classic consumer, rack-aware (KIP-881).

Guarantee claimed: per topic, the subscribers' shares differ by at most one
partition, and topics with the same partition count and the same subscribers
are *co-partitioned*: partition ``p`` of each goes to the same member (what
joins of equally partitioned topics need).  Nothing is promised across
topics: every topic starts over from the first member, so the first members
collect the extras of every topic (KIP-49's table, KIP-54 example 3), and
nothing is promised about keeping previous owners.  With racks, the javadoc
adds: "Rack-aware assignment is used if both consumer and partition replica
racks are available and some partitions have replicas only on a subset of
racks.  We attempt to match consumer racks with partition replica racks on a
best-effort basis, prioritizing balanced assignment over rack alignment.
Topics with equal partition count and same set of subscribers guarantee
co-partitioning by prioritizing co-partitioning over rack alignment."
Best effort only: nothing bounds the cross-rack partitions, not even by
those of the rack-unaware ranges on the same group (the tests hold a
counterexample).

Algorithm (``org.apache.kafka.clients.consumer.RangeAssignor``, Kafka 0.9+;
rack awareness from KIP-881, Kafka 3.5, with KAFKA-14891's fix; read at
apache/kafka 1eb7644, 4.0.0-SNAPSHOT, with ``AbstractPartitionAssignor``'s
``useRackAwareAssignment``): for each topic, sort its subscribers (static
members first, by ``group.instance.id``, then by member id: KIP-345, see
:mod:`~assignment_oracle.heuristics.member_info`); with ``n`` partitions and
``k`` subscribers, member ``i`` gets the contiguous range starting at
``i * (n // k) + min(i, n % k)``, of length ``n // k`` plus one for the first
``n % k`` members.  Owned partitions and generations are ignored.

Rack awareness.  A topic *needs* it when some subscriber has a rack, the
subscribers' racks meet the racks of the topic's replicas, and not every
partition has its replicas on exactly the topic's whole set of racks (a
member's rack is ``Member.rack``, partition ``p``'s racks the set of
``Topic.racks[p]``, empty without rack information).  If no topic needs it,
the contiguous ranges above are the answer.  Otherwise, before the ranges:

1. topics are grouped by their subscribers (in order, with their racks) and,
   within a group, by partition count (0 when no subscriber has a rack);
2. a count shared by two or more topics: for ``p = 0, 1, ...`` partition
   ``p`` of *all* of them goes to the first remaining subscriber whose rack
   (or lack of one) matches partition ``p`` of each and who may still take a
   partition of each (``maxAssignable``: ``n // k``, plus one while members
   with the extra partition remain, minus what it has); a subscriber that
   may take nothing more of any of them leaves the remaining list;
3. a count held by one topic, if that topic needs rack awareness: each
   subscriber in order takes, up to ``maxAssignable``, the unassigned
   partitions in ascending order that have a replica on its rack (a
   subscriber without a rack matches every partition);
4. then, every topic, each subscriber in order takes the first
   ``maxAssignable`` partitions still unassigned, in ascending order.

``variant="pre-KAFKA-14891"`` is the rack-aware range as first merged
(apache/kafka 98d84b1) before KAFKA-14891 (b64ac94, April 2023; both on trunk
before 3.5.0, which shipped the fix): step 2 walked the partitions
of every topic with the same subscribers, not only of those with the shared
count, so topics of other counts were dragged along partition by partition
(even partitions a topic does not have, when a subscriber without a rack
matched them).  ``prefer_rack_aware`` is Kafka's test-only
``preferRackAwareLogic``: rack awareness whenever members' and replicas'
racks meet, even if every partition is on every rack.

Departures (hash orders; none changes an answer of the fixed version):

* Kafka walks topics in a ``HashMap``'s order and the groups of step 1 in
  ``groupingBy``'s ``HashMap`` orders; here topics are in name order.  The
  groups share no topic and each topic's shares are its own, so the order
  does not matter, except in the pre-fix variant, where the order of the
  count groups of one subscriber set does: it follows Java's
  ``HashMap<Integer>`` iteration (bucket of the count, then first
  appearance, topics taken in Java's ``HashMap<String>`` order, name order
  within a bucket);
* members' lists are sorted by topic and partition (Kafka sorts them too
  when rack-aware, and compares sets in its tests otherwise).
"""

from __future__ import annotations

import numpy as np

from assignment_oracle.heuristics.member_info import member_order
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = ["PRE_KAFKA_14891", "VARIANTS", "assign", "use_rack_aware_assignment"]

#: The rack-aware range before KAFKA-14891 (trunk, early 2023): co-partitioned rack matching over every topic.
PRE_KAFKA_14891 = "pre-KAFKA-14891"
VARIANTS = (None, PRE_KAFKA_14891)


def assign(problem: Problem, *, variant: str | None = None, prefer_rack_aware: bool = False) -> Assignment:
    """Contiguous ranges per topic, the first ``n % k`` subscribers one extra; rack-matched first if racks say so.

    Examples
    --------
    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 5}, "members": {
    ...     "a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 1, 2]}, 'b': {'t': [3, 4]}}

    With racks, ``b`` on rack ``y`` gets the partitions with a replica there:

    >>> p = Problem.from_mapping({"topics": {"t": {"partitions": 4, "racks": [["x"], ["y"], ["x"], ["y"]]}},
    ...     "members": {"a": {"topics": ["t"], "rack": "x"}, "b": {"topics": ["t"], "rack": "y"}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 2]}, 'b': {'t': [1, 3]}}
    """
    if variant not in VARIANTS:
        raise ValueError(f"range: unknown variant {variant!r}, expected one of {VARIANTS[1:]}")
    rank = {m: r for r, m in enumerate(member_order(problem))}
    if any(m.rack for m in problem.members) and any(t.racks is not None for t in problem.topics):
        states = [
            _TopicState(problem, i, rank, prefer_rack_aware)
            for i, topic in enumerate(problem.topics)
            if problem.subscribers[topic.name]
        ]
        if any(s.needs_rack_aware for s in states):
            return _rack_aware(problem, states, variant)
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    for i, topic in enumerate(problem.topics):
        # The topic's subscribers in Kafka's MemberInfo order: static members by instance id, then by member id.
        subscribers = sorted(problem.subscribers[topic.name], key=rank.__getitem__)
        if not subscribers:
            continue
        share, extra = divmod(topic.partitions, len(subscribers))
        # Member i's range starts at i * share + min(i, extra) and has share (+1 for the first extra) partitions:
        # consecutive ranges, so the topic's owners are the subscribers each repeated its range's length.
        lengths = np.full(len(subscribers), share, dtype=np.int64)
        lengths[:extra] += 1
        start = problem.partition_offsets[i]
        owner[start : start + topic.partitions] = np.repeat(np.asarray(subscribers, dtype=np.int32), lengths)
    return Assignment.from_owners(problem, owner)


def use_rack_aware_assignment(
    consumer_racks, partition_racks, racks_per_partition, *, prefer_rack_aware: bool = False
) -> bool:
    """``AbstractPartitionAssignor.useRackAwareAssignment``: the members' racks meet the replicas' racks, and
    some partition's racks are not all of them (or ``prefer_rack_aware``, Kafka's test-only switch).

    >>> use_rack_aware_assignment({"a", "b"}, {"a", "b"}, [{"a"}, {"b"}])
    True
    >>> use_rack_aware_assignment({"a", "b"}, {"a", "b"}, [{"a", "b"}, {"b", "a"}])
    False
    """
    if not consumer_racks or set(consumer_racks).isdisjoint(partition_racks):
        return False
    if prefer_rack_aware:
        return True
    return not all(set(racks) == set(partition_racks) for racks in racks_per_partition)


class _TopicState:
    """``RangeAssignor.TopicAssignmentState``: one topic's subscribers, racks, shares and unassigned partitions."""

    def __init__(self, problem: Problem, index: int, rank: dict[int, int], prefer_rack_aware: bool) -> None:
        topic = problem.topics[index]
        self.name = topic.name
        self.partitions = topic.partitions
        self.consumers = sorted(problem.subscribers[topic.name], key=rank.__getitem__)
        self.rack = {m: problem.members[m].rack or None for m in self.consumers}  # Kafka drops an empty rack
        consumer_racks = {r for r in self.rack.values() if r is not None}
        if consumer_racks:
            self.partition_racks = [
                frozenset(topic.racks[p]) if topic.racks is not None else frozenset() for p in range(topic.partitions)
            ]
        else:
            self.partition_racks = []  # Collections.emptyMap(): its size is what step 1 groups by
        all_partition_racks = frozenset().union(*self.partition_racks)
        self.needs_rack_aware = use_rack_aware_assignment(
            consumer_racks, all_partition_racks, self.partition_racks, prefer_rack_aware=prefer_rack_aware
        )
        self.taken = [False] * topic.partitions
        self.unassigned = topic.partitions
        self.assigned = dict.fromkeys(self.consumers, 0)  # numAssignedByConsumer
        self.per_consumer, self.with_extra = divmod(topic.partitions, len(self.consumers))

    def racks_match(self, member: int, partition: int) -> bool:
        rack = self.rack[member]
        if rack is None:
            return True
        # partitionRacks.get(tp): null for a partition the topic does not have (reached only by the pre-fix variant).
        return 0 <= partition < len(self.partition_racks) and rack in self.partition_racks[partition]

    def max_assignable(self, member: int) -> int:
        return max(0, self.per_consumer + (1 if self.with_extra > 0 else 0) - self.assigned[member])

    def on_assigned(self, member: int, partitions: list[int]) -> None:
        self.assigned[member] += len(partitions)
        if self.assigned[member] > self.per_consumer:
            self.with_extra -= 1
        for p in partitions:  # unassignedPartitions.removeAll: nothing for a partition gone or never there
            if 0 <= p < self.partitions and not self.taken[p]:
                self.taken[p] = True
                self.unassigned -= 1


def _rack_aware(problem: Problem, states: list[_TopicState], variant: str | None) -> Assignment:
    given: dict[str, list[TopicPartition]] = {m: [] for m in problem.member_ids}
    names = problem.member_ids

    def hand(member: int, partitions: list[int], state: _TopicState) -> None:
        given[names[member]].extend(TopicPartition(state.name, p) for p in partitions)
        state.on_assigned(member, partitions)

    # assignWithRackMatching: by subscribers, then by partition count.
    by_consumers: dict[tuple[int, ...], list[_TopicState]] = {}
    for state in _java_order(states, lambda s: _java_string_hash(s.name)):
        by_consumers.setdefault(tuple(state.consumers), []).append(state)
    for consumers, group in by_consumers.items():
        by_count: dict[int, list[_TopicState]] = {}
        for state in group:
            by_count.setdefault(len(state.partition_racks), []).append(state)
        for count in _java_order(list(by_count), lambda c: c):
            co_partitioned = by_count[count]
            if len(co_partitioned) > 1:
                # KAFKA-14891: the fix passes this count's topics; before it, every topic of the subscribers.
                together = group if variant == PRE_KAFKA_14891 else co_partitioned
                _co_partitioned_rack_matching(list(consumers), count, together, hand)
            elif co_partitioned[0].needs_rack_aware:
                _rack_matched_ranges(co_partitioned[0], hand)
    for state in states:  # assignRanges(t, (c, tp) -> true): the first unassigned partitions, in order
        remaining = (p for p in range(state.partitions) if not state.taken[p])
        for member in state.consumers:
            if not state.unassigned:
                break
            partitions = [p for _, p in zip(range(state.max_assignable(member)), remaining)]
            if partitions:
                hand(member, partitions, state)
    return Assignment.from_partitions(given, problem.member_ids)


def _rack_matched_ranges(state: _TopicState, hand) -> None:
    """``assignRanges(state, state::racksMatch)``: each subscriber its rack's unassigned partitions, in order."""
    for member in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(member)
        partitions = []
        for p in range(state.partitions):
            if len(partitions) >= limit:
                break
            if not state.taken[p] and state.racks_match(member, p):
                partitions.append(p)
        if partitions:
            hand(member, partitions, state)


def _co_partitioned_rack_matching(consumers: list[int], count: int, states: list[_TopicState], hand) -> None:
    """``assignCoPartitionedWithRackMatching``: partition p of every topic to the first subscriber matching all."""
    remaining = list(consumers)
    for p in range(count):
        match = next(
            (c for c in remaining if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)), None
        )
        if match is None:
            continue
        for state in states:
            hand(match, [p], state)
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def _java_string_hash(text: str) -> int:
    """``String.hashCode``: over UTF-16 code units, 32-bit wrap-around."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def _java_order(keys: list, hash_of) -> list:
    """The iteration order of a ``java.util.HashMap`` holding ``keys`` put in this order (distinct keys).

    Bucket ``(h ^ h >>> 16) & (capacity - 1)``, capacity 16 doubled while the
    keys exceed three quarters of it; within a bucket, the order the keys were
    put in (a resize keeps it).
    """
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key) -> int:
        h = hash_of(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return [key for _, _, key in sorted((bucket(k), i, k) for i, k in enumerate(keys))]
