"""Kafka's share group assignor, ``SimpleAssignor`` (KIP-932), ported (``share-simple``).

Guarantees claimed, in Kafka's javadoc, in priority order: "Balance: Ensure
partitions are distributed equally among all members.  The difference in
assignments sizes between any two members should not exceed one partition",
then "Stickiness: Minimize partition movements among members by retaining as
much of the existing assignment as possible"; "It is not rack-aware".  The
heterogeneous builder adds: "balance is computed for each topic individually
and then the assignments are combined", and both builders accept that a
partition may end with fewer members than desired ("it's harmless tolerating
a slight imbalance in this case").  Nothing else is promised: not that every
assignable partition gets a member, not a bound on the sharing.  Findings
against these claims are in the bug corpus (``share-*``).

Faithful port of ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/``
``SimpleAssignor.java``, ``SimpleHomogeneousAssignmentBuilder.java`` (KAFKA-19362, 4690527fab) and
``SimpleHeterogeneousAssignmentBuilder.java`` (KAFKA-19363, 860853dba2) at apache/kafka
**d79bd502ec7fa49335afa422f442af80ed0ab8f6** (trunk, 2026-08-23), step for step and named as in Kafka:

* ``assign``: no member, the empty assignment; all members subscribed to the same topics
  (``SubscriptionType.HOMOGENEOUS``: :attr:`ShareProblem.is_homogeneous`), the homogeneous builder,
  else the heterogeneous one;
* the **homogeneous builder** numbers the members in ``memberIds()`` order; its target partitions are
  the assignable partitions of the subscribed topics (``isPartitionAssignable``); with ``M`` members and
  ``P`` target partitions, ``desiredSharing = ceil(M / P)`` and member ``i``'s desired count is
  ``ceil(x·(i+1)) - ceil(x·i)``, ``x = desiredSharing·P / M`` in ``double``.  Then
  ``revokeUnassignablePartitions`` (drop the topics no longer subscribed; count the rest, note the
  unfilled and overfilled members), ``revokeOverfilledMembers``, ``revokeOversharedPartitions``, every
  target partition added to ``finalAssignmentByPartition``, and ``assignRemainingPartitions``: one pass
  over ``finalAssignmentByPartition``, each partition short of ``desiredSharing`` given to the next
  members of a cycling iterator over the unfilled members;
* the **heterogeneous builder** does the same for each subscribed topic on its own, over that topic's
  subscribers (``desiredSharing = ceil(S_t / P_t)``, counts by position in the topic's subscriber list),
  and merges.

What Kafka's code does that its javadoc does not say, kept here because the port is faithful (each is
checked against Kafka's Java by ``tools/kafka_differential``):

* ``assignRemainingPartitions`` does not add the member it just assigned to the partition's member set:
  when the iterator over the unfilled members wraps around within one partition it can pick the same
  member again, which counts as an assignment but adds nothing (the partition ends below
  ``desiredSharing``);
* ``revokeUnassignablePartitions`` revokes only partitions of topics no longer subscribed: a held
  partition that is not assignable stays, counts toward its member's load and can even gain members;
* if the unfilled members run out while a partition still wants members, Java's iterator throws
  ``java.util.NoSuchElementException`` out of the assignor: :class:`SimpleAssignorException` here.

Departures:

* **hash orders** (``iteration_order``).  Kafka iterates ``HashMap``\\ s and ``HashSet``\\ s whose order
  decides which member gives up or receives a partition: ``groupSpec.memberIds()`` (the coordinator's
  ``HashMap`` of member ids, ``modern/TargetAssignmentBuilder.build``, filled in the group's order),
  ``finalAssignmentByPartition`` and ``finalAssignmentByMember`` (keyed by ``TopicIdPartition`` in the
  homogeneous builder, by partition number in the heterogeneous one), the unfilled and overfilled member
  sets, each member's previous assignment (``Assignment.fromRecord``: a ``HashMap<Uuid, Set<Integer>>``
  filled in topic name order, each set ``new HashSet<>(partitions)``) and the subscribed topics
  (``TopicIds`` over ``new HashSet<>(names)``).  ``"sorted"`` (the default) iterates members by id and
  partitions in the scenario's dense order (topics as given, then partition number), the only order a
  reader can predict; ``"java"`` iterates every one of them as Java 17 does
  (:mod:`heuristics.java_order`), ``memberIds()`` filled as the coordinator fills it: from the group's
  members, ``ModernGroup.members`` (a ``TimelineHashMap``), put in the group's order as presented (its
  join order) and iterated as Kafka's ``timeline`` package does, a joining member after them
  (``joining``; :mod:`heuristics.timeline_order`; before issue 43 the ``HashMap`` was taken to be filled
  straight in the group's order).
  In Java's order the homogeneous builder hashes topic ids, so every subscribed or held topic needs its
  ``"id"`` (a ``ValueError`` otherwise); the heterogeneous builder's answer does not depend on them.
  ``member_order`` (tests only) gives ``memberIds()`` explicitly;
* the group coordinator resolves subscribed topic names to ids and drops names it cannot resolve; the
  scenario refuses a subscription to a topic it does not list (Kafka's assignor would throw
  ``PartitionAssignorException`` for an id it has no metadata for).

Examples
--------
>>> from assignment_oracle.problem.share import ShareProblem
>>> p = ShareProblem.from_mapping({"kind": "share", "topics": {"t": 3},
...     "members": {"a": {"topics": ["t"], "assigned": {"t": [0, 1, 2]}}, "b": {"topics": ["t"]}}})
>>> assign(p).to_mapping()
{'a': {'t': [1, 2]}, 'b': {'t': [0]}}
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Hashable, Iterable, Sequence

from assignment_oracle.heuristics.java_order import (
    ITERATION_ORDERS,
    JavaHashMap,
    check_iteration_order,
    java_order,
    string_hash,
    uuid_hash,
)
from assignment_oracle.heuristics.timeline_order import coordinator_member_order, joining_of, listed_member_order
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.scenario_json import uuid_bits
from assignment_oracle.problem.share import ShareAssignment, ShareProblem

__all__ = ["ITERATION_ORDERS", "KAFKA_NAME", "SimpleAssignorException", "assign", "member_iteration_order"]

#: ``SimpleAssignor.name()``: the name ``group.share.assignors`` selects it by.
KAFKA_NAME = "simple"


class SimpleAssignorException(AssignorError):
    """What Kafka's Java throws out of ``SimpleAssignor.assign``: ``java_class`` names it
    (``java.util.NoSuchElementException`` when the unfilled members run out mid-partition)."""

    def __init__(self, java_class: str, message: str) -> None:
        self.java_class = java_class
        super().__init__(f"{java_class}: {message}")


# -- Java's collections, or their sorted stand-ins ------------------------------------------------------


def _float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _new_capacity(n: int) -> int:
    """``AssignorHelpers.newHashMap(n)`` / ``newHashSet(n)``: ``(int) (((n + 1) / 0.75f) + 1)``."""
    return int(_float32(_float32((n + 1) / _float32(0.75)) + 1.0))


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _integer_hash(value: Hashable) -> int:
    """``Integer.hashCode()``: the value."""
    return value  # type: ignore[return-value]


class _Set:
    """A ``HashSet`` iterated as Java does (``hash_of`` given) or in ascending order (``hash_of`` ``None``)."""

    __slots__ = ("_java", "_keys")

    def __init__(self, hash_of: Callable[[Hashable], int] | None, capacity: int | None = None) -> None:
        self._java = JavaHashMap(hash_of, capacity) if hash_of is not None else None
        self._keys: set = set()

    def add(self, key: Hashable) -> None:
        if self._java is not None:
            self._java.put(key)
        self._keys.add(key)

    def remove(self, key: Hashable) -> bool:
        """``Set.remove``: whether it was there."""
        if key not in self._keys:
            return False
        self._keys.discard(key)
        if self._java is not None:
            self._java.remove(key)
        return True

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def order(self) -> list:
        """The keys in iteration order (a snapshot: Kafka only removes through the iterator while iterating)."""
        return list(self._java) if self._java is not None else sorted(self._keys)


class _Map:
    """A ``HashMap`` (keys ordered as :class:`_Set`) with its values."""

    __slots__ = ("_java", "_values")

    def __init__(self, hash_of: Callable[[Hashable], int] | None, capacity: int | None = None) -> None:
        self._java = JavaHashMap(hash_of, capacity) if hash_of is not None else None
        self._values: dict = {}

    def put(self, key: Hashable, value) -> None:
        if self._java is not None:
            self._java.put(key)
        self._values[key] = value

    def compute_if_absent(self, key: Hashable, factory: Callable[[], object]):
        if self._java is not None:
            self._java.compute_if_absent(key)  # grows a full table even when the key is there
        if key not in self._values:
            self._values[key] = factory()
        return self._values[key]

    def get(self, key: Hashable):
        return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)

    def order(self) -> list:
        return list(self._java) if self._java is not None else sorted(self._values)


class _Iterator:
    """``set.iterator()`` with ``remove()``: a snapshot of the order, removals made on the set."""

    __slots__ = ("_of", "_keys", "_at", "_current")

    def __init__(self, of: _Set) -> None:
        self._of, self._keys, self._at, self._current = of, of.order(), 0, None

    def has_next(self) -> bool:
        return self._at < len(self._keys)

    def next(self):
        if self._at >= len(self._keys):
            raise SimpleAssignorException("java.util.NoSuchElementException", "no unfilled member left to iterate")
        self._current = self._keys[self._at]
        self._at += 1
        return self._current

    def remove(self) -> None:
        self._of.remove(self._current)


# -- the group as Kafka hands it over -------------------------------------------------------------------


def member_iteration_order(
    problem: ShareProblem, iteration_order: str = "sorted", joining: str | None = None
) -> list[str]:
    """``groupSpec.memberIds()``: the member ids sorted, or as Java iterates the coordinator's ``HashMap``
    (``modern/TargetAssignmentBuilder.build``, d79bd50 ``:403-407``) filled from the group's
    ``TimelineHashMap`` of members in the group's order, ``joining`` after them (``None``: the problem's own,
    its scenario's ``"joining"``)."""
    if iteration_order == "java":
        return coordinator_member_order(problem.member_ids, joining_of(problem, joining, "share-simple"))
    return sorted(problem.member_ids)


class _Group:
    """What both builders read: ``memberIds()``, each member's subscribed topics and previous assignment, in
    the chosen order, and the hash functions of the keys Kafka's maps and sets use."""

    def __init__(
        self, problem: ShareProblem, members: Sequence[str], java: bool, record_assigned: bool = False
    ) -> None:
        self.problem = problem
        self.java = java
        #: ``assignRemainingPartitions`` adds the member it just assigned to the partition's member set (not
        #: Kafka's code: the change issue 41 suspected was needed; the bug corpus's share-member-not-recorded).
        self.record_assigned = record_assigned
        self.member_ids = list(members)
        self.specs = [problem.member[m] for m in self.member_ids]
        self.topic_ids: dict[str, tuple[int, int]] = {t: uuid_bits(i) for t, i in problem.topic_ids.items()}

    def hashing(self, hash_of: Callable[[Hashable], int]) -> Callable[[Hashable], int] | None:
        """``hash_of`` in Java's order, ``None`` (ascending keys) in sorted order."""
        return hash_of if self.java else None

    def topic_hash(self, topic: Hashable) -> int:
        """``Uuid.hashCode()`` of the topic's id."""
        return uuid_hash(*self.topic_ids[topic])  # type: ignore[index]

    def partition_hash(self, key: Hashable) -> int:
        """``TopicIdPartition.hashCode()`` (a record: ``31 * topicId.hashCode() + partitionId``) of a dense
        partition index."""
        topic, p = self.problem.partitions[key]  # type: ignore[index]
        return _int32(31 * self.topic_hash(topic) + p)

    def subscribed_topics(self, index: int) -> list[str]:
        """``memberSubscription(m).subscribedTopicIds()`` of member ``index``, in iteration order: ``TopicIds``
        over the member's ``new HashSet<>(names)``, or the scenario's topic order."""
        names = self.specs[index].topics
        if self.java:
            return _hash_set_of(names, string_hash)
        rank = {t: i for i, t in enumerate(self.problem.topics)}
        return sorted(names, key=rank.__getitem__)

    def previous(self, index: int, *, topic_order: bool = True) -> list[tuple[str, list[int]]]:
        """``memberAssignment(m).partitions()`` of member ``index``: topic -> partitions, both in iteration
        order (a ``HashMap`` filled in topic name order, each set ``new HashSet<>(ascending partitions)``;
        or the scenario's dense order).  ``topic_order=False``: the topics in the scenario's order even in
        Java's (for a builder that only looks topics up, which needs no topic id)."""
        by_topic: dict[str, list[int]] = {}
        for topic, p in self.specs[index].assigned:  # sorted by topic name, then partition
            by_topic.setdefault(topic, []).append(p)
        rank = {t: i for i, t in enumerate(self.problem.topics)}
        topics = (
            java_order(by_topic, self.topic_hash)
            if self.java and topic_order
            else sorted(by_topic, key=rank.__getitem__)
        )
        if self.java:
            return [(t, _hash_set_of(by_topic[t], _integer_hash)) for t in topics]  # type: ignore[index]
        return [(t, by_topic[t]) for t in topics]  # type: ignore[index]

    def copy_of_previous(self, index: int) -> dict[str, set[int]]:
        """``AssignorHelpers.deepCopyAssignment`` of the member's previous assignment (its order is never read)."""
        out: dict[str, set[int]] = {}
        for topic, p in self.specs[index].assigned:
            out.setdefault(topic, set()).add(p)
        return out


def _hash_set_of(keys: Iterable[Hashable], hash_of: Callable[[Hashable], int]) -> list:
    """``new HashSet<>(collection)`` iterated: capacity ``max((int) (n / .75f) + 1, 16)``, then the adds."""
    keys = list(keys)
    table = JavaHashMap(hash_of, max(int(_float32(len(keys) / _float32(0.75))) + 1, 16))
    for key in keys:
        table.put(key)
    return list(table)


def _desired_counts(desired_sharing: int, targets: int, members: int) -> list[int]:
    """Member ``i``'s desired count, ``ceil(x·(i+1)) - ceil(x·i)``, ``x = desiredSharing·P / M`` in ``double``
    (``desiredSharing * numTargetPartitions`` an ``int`` product, then divided by ``(double) M``)."""
    precise = _int32(desired_sharing * targets) / float(members)
    return [math.ceil(precise * float(i + 1)) - math.ceil(precise * float(i)) for i in range(members)]


def _desired_sharing(members: int, targets: int) -> int:
    """``(members + targets - 1) / targets`` in integers; 0 without target partitions."""
    return 0 if targets == 0 else (members + targets - 1) // targets


# -- SimpleHomogeneousAssignmentBuilder ------------------------------------------------------------------


class _HomogeneousBuilder:
    """``SimpleHomogeneousAssignmentBuilder``: partitions are dense indices, members their ``memberIds()``
    positions."""

    def __init__(self, group: _Group) -> None:
        self.group = group
        problem = group.problem
        self.num_group_members = len(group.member_ids)
        self.subscribed_topic_ids = group.subscribed_topics(0)
        subscribed = set(self.subscribed_topic_ids)
        self.subscribed = subscribed
        # computeTargetPartitions: the subscribed topics in iteration order, partitions ascending, assignable
        self.target_partitions = [
            problem.index_of(t, p)
            for t in self.subscribed_topic_ids
            for p in range(problem.topics[t])
            if problem.is_assignable(t, p)
        ]
        n_targets = len(self.target_partitions)
        self.desired_sharing = _desired_sharing(self.num_group_members, n_targets)
        self.desired_assignment_count = _desired_counts(self.desired_sharing, n_targets, self.num_group_members)
        members = self.num_group_members
        self.int_hash = group.hashing(_integer_hash)
        self.tp_hash = group.hashing(group.partition_hash)
        self.old_group_assignment = _Map(self.int_hash, _new_capacity(members))
        self.new_group_assignment: dict[int, dict[str, set[int]]] = {}
        self.final_assignment_by_partition = _Map(self.tp_hash, _new_capacity(n_targets))
        self.final_assignment_by_member = _Map(self.int_hash, _new_capacity(members))
        self.unfilled_members = _Set(self.int_hash, _new_capacity(members))
        self.overfilled_members = _Set(self.int_hash, _new_capacity(members))
        for i in range(members):
            self.old_group_assignment.put(i, None)  # the assignment itself is read from the group

    def _set_of_members(self) -> _Set:
        return _Set(self.int_hash)  # new HashSet<>()

    def _set_of_partitions(self) -> _Set:
        return _Set(self.tp_hash)  # new HashSet<>()

    def _new_assignment_of(self, i: int) -> dict[str, set[int]]:
        if i not in self.new_group_assignment:
            self.new_group_assignment[i] = self.group.copy_of_previous(i)
        return self.new_group_assignment[i]

    def build(self) -> dict[int, dict[str, set[int]]] | None:
        """The members' new assignments by index (``None``: Kafka's ``Map.of()``, nobody gets anything)."""
        if not self.subscribed_topic_ids:
            return None
        self.revoke_unassignable_partitions()
        self.revoke_overfilled_members()
        self.revoke_overshared_partitions()
        for j in self.target_partitions:
            self.final_assignment_by_partition.compute_if_absent(j, self._set_of_members)
        self.assign_remaining_partitions()
        return {
            i: self.new_group_assignment.get(i, self.group.copy_of_previous(i)) for i in range(self.num_group_members)
        }

    def revoke_unassignable_partitions(self) -> None:
        problem = self.group.problem
        for i in self.old_group_assignment.order():
            copied = False
            removed: list[str] = []
            assigned_count = 0
            desired = self.desired_assignment_count[i]
            for topic, partitions in self.group.previous(i):
                if topic in self.subscribed:
                    for p in partitions:
                        j = problem.index_of(topic, p)
                        assigned_count += 1
                        self.final_assignment_by_partition.compute_if_absent(j, self._set_of_members).add(i)
                        self.final_assignment_by_member.compute_if_absent(i, self._set_of_partitions).add(j)
                        if assigned_count >= desired:
                            copied = True
                else:
                    copied = True
                    removed.append(topic)  # the entire topic
            if copied:
                assignment = self.group.copy_of_previous(i)
                for topic in removed:
                    assignment.pop(topic, None)
                self.new_group_assignment[i] = assignment
            if assigned_count < desired:
                self.unfilled_members.add(i)
            elif assigned_count > desired:
                self.overfilled_members.add(i)

    def revoke_overfilled_members(self) -> None:
        problem = self.group.problem
        for i in self.overfilled_members.order():
            desired = self.desired_assignment_count[i]
            held: _Set = self.final_assignment_by_member.get(i)
            if len(held) > desired:
                for j in held.order():
                    topic, p = problem.partitions[j]
                    self.new_group_assignment[i][topic].remove(p)
                    self.final_assignment_by_partition.get(j).remove(i)
                    held.remove(j)
                    if len(held) == desired:
                        break

    def revoke_overshared_partitions(self) -> None:
        problem = self.group.problem
        for j in self.final_assignment_by_partition.order():
            assigned_members: _Set = self.final_assignment_by_partition.get(j)
            count = len(assigned_members)
            if count > self.desired_sharing:
                topic, p = problem.partitions[j]
                for i in assigned_members.order():
                    partitions = self._new_assignment_of(i).get(topic)
                    if partitions is not None and p in partitions:
                        partitions.remove(p)
                        count -= 1
                        assigned_members.remove(i)
                        self.final_assignment_by_member.get(i).remove(j)
                        self.unfilled_members.add(i)
                    if count <= self.desired_sharing:
                        break

    def assign_remaining_partitions(self) -> None:
        problem = self.group.problem

        def assign(i: int, j: int) -> _Set:
            topic, p = problem.partitions[j]
            self._new_assignment_of(i).setdefault(topic, set()).add(p)
            held = self.final_assignment_by_member.compute_if_absent(i, self._set_of_partitions)
            held.add(j)
            return held

        _assign_remaining_partitions(
            self.final_assignment_by_partition,
            self.unfilled_members,
            self.desired_sharing,
            self.desired_assignment_count,
            self.group.record_assigned,
            assign,
        )


# -- SimpleHeterogeneousAssignmentBuilder -----------------------------------------------------------------


class _HeterogeneousBuilder:
    """``SimpleHeterogeneousAssignmentBuilder``: each subscribed topic assigned by a
    ``TopicAssignmentPartialBuilder`` over its subscribers, into one shared ``newGroupAssignment``."""

    def __init__(self, group: _Group) -> None:
        self.group = group
        problem = group.problem
        self.num_group_members = len(group.member_ids)
        self.int_hash = group.hashing(_integer_hash)
        # subscribedTopicIds: new HashSet<>(), addAll of each member's TopicIds in memberIds() order.  The
        # topics' processing order does not change the answer (each topic's builder touches only that
        # topic's entries): without every id, the scenario's topic order stands in for Java's.
        named = {t for m in group.specs for t in m.topics}
        if group.java and named <= set(group.topic_ids):
            subscribed = _Set(group.topic_hash)
            for i in range(self.num_group_members):
                for topic in group.subscribed_topics(i):
                    subscribed.add(topic)
            self.subscribed_topic_ids: list[str] = subscribed.order()
        else:
            self.subscribed_topic_ids = [t for t in problem.topics if t in named]
        # computeSubscribedMembers: per topic, the subscribers' indices in memberIds() order
        self.subscribed_members_by_topic: dict[str, list[int]] = {}
        for i in range(self.num_group_members):
            for topic in group.subscribed_topics(i):
                self.subscribed_members_by_topic.setdefault(topic, []).append(i)
        self.old_order = _Map(self.int_hash, _new_capacity(self.num_group_members))
        for i in range(self.num_group_members):
            self.old_order.put(i, None)
        self.previous = {i: dict(group.previous(i, topic_order=False)) for i in range(self.num_group_members)}
        self.new_group_assignment: dict[int, dict[str, set[int]]] = {}

    def build(self) -> dict[int, dict[str, set[int]]] | None:
        if not self.subscribed_topic_ids:
            return None
        for topic in self.subscribed_topic_ids:
            _TopicAssignmentPartialBuilder(self, topic).build()
        return {
            i: self.new_group_assignment.get(i, self.group.copy_of_previous(i)) for i in range(self.num_group_members)
        }

    def new_assignment_of(self, i: int) -> dict[str, set[int]]:
        if i not in self.new_group_assignment:
            self.new_group_assignment[i] = self.group.copy_of_previous(i)
        return self.new_group_assignment[i]


class _TopicAssignmentPartialBuilder:
    """``SimpleHeterogeneousAssignmentBuilder.TopicAssignmentPartialBuilder``: one topic, partitions by number."""

    def __init__(self, outer: _HeterogeneousBuilder, topic: str) -> None:
        problem = outer.group.problem
        self.outer = outer
        self.topic_id = topic
        self.target_partitions = [p for p in range(problem.topics[topic]) if problem.is_assignable(topic, p)]
        self.subscribed_members = outer.subscribed_members_by_topic[topic]
        self.int_hash = outer.int_hash
        self.final_assignment_by_partition = _Map(self.int_hash, _new_capacity(len(self.target_partitions)))
        self.final_assignment_by_member = _Map(self.int_hash, _new_capacity(len(self.subscribed_members)))
        n_targets, n_subscribed = len(self.target_partitions), len(self.subscribed_members)
        self.desired_sharing = _desired_sharing(n_subscribed, n_targets)
        self.desired_assignment_counts = [0] * outer.num_group_members
        for position, count in enumerate(_desired_counts(self.desired_sharing, n_targets, n_subscribed)):
            self.desired_assignment_counts[self.subscribed_members[position]] = count

    def _set(self, capacity: int | None = None) -> _Set:
        return _Set(self.int_hash, capacity)

    def build(self) -> None:
        self.revoke_unassignable_partitions()
        self.revoke_overfilled_members()
        self.revoke_overshared_partitions()
        sized = _new_capacity(len(self.subscribed_members))
        for p in self.target_partitions:
            self.final_assignment_by_partition.compute_if_absent(p, lambda: self._set(sized))
        self.assign_remaining_partitions()

    def revoke_unassignable_partitions(self) -> None:
        # Kafka's else branch (a topic not in subscribedTopicIds) cannot run: this builder only sees those.
        for i in self.outer.old_order.order():
            previous = self.outer.previous[i]
            if not previous:
                continue
            partitions = previous.get(self.topic_id)
            if partitions is not None:
                for p in partitions:
                    self.final_assignment_by_partition.compute_if_absent(p, self._set).add(i)
                    self.final_assignment_by_member.compute_if_absent(i, self._set).add(p)

    def revoke_overfilled_members(self) -> None:
        for i in self.final_assignment_by_member.order():
            assigned: _Set = self.final_assignment_by_member.get(i)
            desired = self.desired_assignment_counts[i]
            if len(assigned) > desired:
                for p in assigned.order():
                    if len(assigned) <= desired:
                        break
                    self.final_assignment_by_partition.get(p).remove(i)
                    assigned.remove(p)
                    self.outer.new_assignment_of(i)[self.topic_id].remove(p)

    def revoke_overshared_partitions(self) -> None:
        for p in self.final_assignment_by_partition.order():
            assigned_members: _Set = self.final_assignment_by_partition.get(p)
            count = len(assigned_members)
            if count > self.desired_sharing:
                for i in assigned_members.order():
                    partitions = self.outer.new_assignment_of(i).get(self.topic_id)
                    if partitions is not None and p in partitions:
                        partitions.remove(p)
                        count -= 1
                        assigned_members.remove(i)
                        self.final_assignment_by_member.get(i).remove(p)
                    if count <= self.desired_sharing:
                        break

    def assign_remaining_partitions(self) -> None:
        unfilled = self._set(_new_capacity(self.outer.num_group_members))
        for i in self.subscribed_members:
            held = self.final_assignment_by_member.get(i)
            if (0 if held is None else len(held)) < self.desired_assignment_counts[i]:
                unfilled.add(i)

        def assign(i: int, p: int) -> _Set:
            self.outer.new_assignment_of(i).setdefault(self.topic_id, set()).add(p)
            held = self.final_assignment_by_member.compute_if_absent(i, self._set)
            held.add(p)
            return held

        _assign_remaining_partitions(
            self.final_assignment_by_partition,
            unfilled,
            self.desired_sharing,
            self.desired_assignment_counts,
            self.outer.group.record_assigned,
            assign,
        )


def _assign_remaining_partitions(
    by_partition: _Map,
    unfilled: _Set,
    desired_sharing: int,
    desired_count,
    record_assigned: bool,
    assign: Callable[[int, int], _Set],
) -> None:
    """``assignRemainingPartitions``, as both of Kafka's builders write it.

    Visits the partitions in ``by_partition``'s order; one held by fewer than ``desired_sharing`` members
    gets members dealt from ``unfilled`` in its order, skipping those already on it (whom Kafka does not
    record, unless ``record_assigned``), the deal starting over while a pass gave somebody a partition.
    ``assign(member, partition)`` records one assignment and returns the member's partitions; a member
    leaves ``unfilled`` once it holds ``desired_count[member]``.  Stops when ``unfilled`` is empty.
    """
    if not len(unfilled):
        return
    member_iterator = _Iterator(unfilled)
    assigned_for_this_iterator = False
    for partition in by_partition.order():
        members_assigned: _Set = by_partition.get(partition)
        if len(members_assigned) < desired_sharing:
            to_make = desired_sharing - len(members_assigned)
            while to_make > 0:
                if not member_iterator.has_next():
                    if not assigned_for_this_iterator:
                        break
                    member_iterator = _Iterator(unfilled)
                    assigned_for_this_iterator = False
                i = member_iterator.next()
                if i not in members_assigned:  # Kafka does not add i to members_assigned
                    held = assign(i, partition)
                    to_make -= 1
                    assigned_for_this_iterator = True
                    if record_assigned:
                        members_assigned.add(i)
                    if len(held) >= desired_count[i]:
                        member_iterator.remove()
        if not len(unfilled):
            break


# -- SimpleAssignor.assign ----------------------------------------------------------------------------------


def _topics_without_id(problem: ShareProblem) -> list[str]:
    """Subscribed or held topics with no ``"id"``: what the homogeneous builder cannot order as Java does."""
    named = {t for m in problem.members for t in m.topics} | {t for m in problem.members for t, _ in m.assigned}
    return [t for t in problem.topics if t in named and t not in problem.topic_ids]


def assign(
    problem: ShareProblem,
    *,
    iteration_order: str = "sorted",
    member_order: Sequence[str] | None = None,
    record_assigned: bool = False,
    joining: str | None = None,
) -> ShareAssignment:
    """Kafka's ``SimpleAssignor.assign`` on ``problem``: every member listed with the partitions it gets.

    Guarantee claimed (Kafka's javadoc): member loads differ by at most one, then as few partitions moved
    as possible; a partition may stay below its desired sharing.  Neither is guaranteed in fact (the bug
    corpus's ``share-*`` entries); the answer is always valid except where Kafka itself keeps a held
    partition that is not assignable.

    Parameters
    ----------
    problem
        The share group.
    iteration_order
        ``"sorted"`` or ``"java"``: how Kafka's hash maps and sets are iterated (module docstring,
        "Departures").
    member_order
        The order of ``groupSpec.memberIds()`` when given (every member once), as a Kafka test fixes it.
    record_assigned
        Not Kafka's code: ``assignRemainingPartitions`` records the member it just assigned
        (``membersAssigned.add(memberIndex)``), the change issue 41 suspected was needed (the bug corpus's
        ``share-member-not-recorded`` replays both).
    joining
        In Java's order, the member whose heartbeat computes the assignment as it joins (after the group's
        members, :func:`member_iteration_order`); ``None``: the problem's own (its scenario's ``"joining"``;
        none there: every member is in the group already).

    Raises
    ------
    SimpleAssignorException
        Where Kafka's Java throws (``NoSuchElementException`` when the unfilled members run out).
    ValueError
        An unknown ``iteration_order``; a ``member_order`` that is not the group; a ``joining`` member
        that is not in it; Java's order on a
        homogeneous group with a subscribed or held topic that has no ``"id"``.

    Examples
    --------
    >>> from assignment_oracle.problem.share import ShareProblem
    >>> p = ShareProblem.from_mapping({"kind": "share", "topics": {"t": 2},
    ...     "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}, "c": {"topics": ["t"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 1]}, 'b': {'t': [0]}, 'c': {'t': [1]}}
    """
    check_iteration_order(iteration_order)
    if not problem.members:
        return ShareAssignment({})
    if member_order is None:
        members = member_iteration_order(problem, iteration_order, joining)
    else:
        members = listed_member_order(member_order, problem.member_ids)
    java = iteration_order == "java"
    group = _Group(problem, members, java, record_assigned)
    builder: _HomogeneousBuilder | _HeterogeneousBuilder
    if problem.is_homogeneous:
        missing = _topics_without_id(problem) if java else []
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise ValueError(
                "share-simple in Java's order needs the topic id (\"id\", Kafka's Uuid) of every subscribed "
                f"or held topic of a homogeneous group: none for {shown}"
            )
        builder = _HomogeneousBuilder(group)
    else:
        builder = _HeterogeneousBuilder(group)
    result = builder.build()
    out: dict[str, tuple[tuple[str, int], ...]] = {m: () for m in problem.member_ids}
    if result is not None:
        for i, assignment in result.items():
            out[group.member_ids[i]] = tuple((t, p) for t, ps in assignment.items() for p in ps)
    return ShareAssignment(out)
