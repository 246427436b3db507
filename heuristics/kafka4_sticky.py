"""Kafka 4's client sticky family: ``StickyAssignor`` and ``CooperativeStickyAssignor`` (``kafka4-sticky``).

Guarantee claimed (``StickyAssignor`` javadoc): "the partition assignment
is as balanced as possible" -- the numbers of partitions assigned to
consumers differ by at most one, or each consumer with 2+ fewer partitions
than another cannot get any of that consumer's partitions -- and "it
preserves as many existing assignments as possible when a reassignment
occurs", balance first.  Rack-aware (KIP-881, ``AbstractStickyAssignor``
javadoc): "If racks are specified for consumers, we attempt to match
consumer racks with partition replica racks on a best-effort basis,
prioritizing balanced assignment over rack alignment.  Previously owned
partitions may be reassigned to improve rack locality."

Faithful port of ``org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor``
with ``StickyAssignor`` and ``CooperativeStickyAssignor`` at apache/kafka
1eb7644 (4.0.0-SNAPSHOT, October 2024), names as in Kafka:

* **claims** (``allSubscriptionsEqual``): members in turn; a member's claim
  on a partition another member claimed first is settled by generation:
  the higher one takes it, equal generations remove it from both and put it
  in ``partitionsWithMultiplePreviousOwners`` (KAFKA-12984/KAFKA-14639);
* **rack info** (``RackInfo``): rack-aware iff some member has a (non-empty)
  rack, some replica rack equals a member rack, and some partition's replica
  racks are not all the racks of all partitions (``useRackAwareAssignment``;
  ``prefer_rack_aware_logic`` is the test-only ``preferRackAwareLogic`` that
  drops the last condition);
* **constrained builder** (all subscriptions equal): floor/ceil quotas; owned
  partitions whose racks match are kept up to the quota, then unassigned
  partitions go round-robin within racks, then round-robin;
* **general builder**: keep valid owned partitions (racks matching), give
  each unassigned one to the least loaded eligible member (same rack first),
  then move partitions while a member has 2+ more than another that could
  take them, reverting if the balance score did not improve;
* **cooperative** (``CooperativeStickyAssignor.adjustAssignment``): the same
  target minus ``partitionsTransferringOwnership``, assigned in a follow-up
  rebalance (:func:`rebalance_cooperative`, on :mod:`heuristics.cooperative_sticky`).

Departures (each where Kafka iterates a hash order or Java differs from Python):

* members are taken in member id order (``iteration_order="sorted"``, the
  default; ``"java"`` iterates them as Java's ``HashMap`` does, see
  :func:`run_assignor`) wherever Kafka iterates the ``subscriptions`` ``HashMap`` (claims, ``consumerToOwnedPartitions`` in
  ``assignOwnedPartitions``, ``prepopulateCurrentAssignments``,
  ``topic2AllPotentialConsumers``): the only stable order a port can give.
  It decides which members keep ``maxQuota`` partitions in the constrained
  builder, which claimant at the same lower generation is the previous
  owner in the general builder, and, for three claimants of one partition,
  whether a higher generation arriving after a tie keeps it (Kafka's claim
  pass is order dependent there: A=1, B=1, C=2 in that order leaves C the
  owner but the partition in ``partitionsWithMultiplePreviousOwners``, which
  the constrained builder then takes from C; C first and C keeps it);
* ``PartitionMovements.getTheActualPartitionToBeMoved`` takes "any" partition
  of a reverse movement (a ``HashSet``'s first): in the sorted order, the
  first recorded that is still there (insertion order; ``"java"``: Java's);
* ``isSticky`` (a test hook) is computed directly as "no topic has partitions
  moved both ways between two members", which is what Kafka's cycle search
  reports whatever its ``HashSet`` order (it only fails on 2-cycles);
* the ``TreeSet``/``TreeMap`` comparators are ported exactly (size, then
  member id; partition, then topic; potential consumers, then topic), but
  strings compare by code point (Java: UTF-16 units; they differ only
  between characters above U+FFFF and U+E000-U+FFFF);
* a claim on a partition number beyond its topic's count is ignored (Kafka
  would keep it as owned, count it to the quota and then mis-merge the
  unassigned list; a broker never reports such a partition);
* the first member's subscription is the reference even when it is empty
  (Kafka's ``allSubscriptionsEqual`` re-initialises an empty reference from
  the next member, so {c0: nothing, c1: [t0]}, c0 iterated first, counts as
  "all equal" and the constrained builder gives t0-0 to c0, which does not
  subscribe to it: an invalid assignment);
* a previous owner (a stale claim below the top generation) whose own
  assignment is fixed -- it can take part in no reassignment, e.g. it now
  subscribes to nothing another member shares -- makes Kafka's
  ``performReassignments`` throw ``NullPointerException``
  (``currentAssignment.get(prev)`` is null once fixed assignments are set
  aside); the port treats the partition as having no previous owner, so
  the assignor always answers;
* every call is a fresh assignor (Kafka's ``maxGeneration`` field is never
  reset between calls on one instance);
* the model has one generation per member, used both as the member data's
  generation and the subscription's ``generationId`` (Kafka reads the first
  for the claiming member and the second for the member it conflicts with;
  they differ only for an eager member whose coordinator generation was
  reset while its user data kept the old one).

Variant ``"pre-KAFKA-15170"`` (:func:`assign`): the constrained builder
before apache/kafka f0291ac (May 2024): the rack-aware round-robin does not
count members it fills to ``maxQuota`` nor stop offering ``minQuota`` members
once enough are at ``maxQuota``, so the final check throws
``IllegalStateException`` (:class:`IllegalStateException` here) and the group
rebalances forever; and rack-mismatched owned partitions are not recorded as
revoked (the cooperative assignor hands them over without a revocation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sortedcontainers import SortedList

from assignment_oracle.heuristics import cooperative_sticky
from assignment_oracle.heuristics.abstract_sticky import DEFAULT_GENERATION
from assignment_oracle.heuristics.java_order import (
    ITERATION_ORDERS,
    JavaHashMap,
    check_iteration_order,
    java_order,
    topic_partition_hash,
)
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import held_partitions

__all__ = [
    "DEFAULT_GENERATION",
    "ITERATION_ORDERS",
    "SEVERAL_OWNERS",
    "VARIANTS",
    "IllegalStateException",
    "NullPointerException",
    "StickyRun",
    "assign",
    "assign_cooperative",
    "believed_holdings",
    "rebalance_cooperative",
    "run_assignor",
]

#: ``None``: Kafka at 1eb7644; ``"pre-KAFKA-15170"``: the constrained builder before f0291ac.
VARIANTS = (None, "pre-KAFKA-15170")
#: The holder :func:`believed_holdings` names for partitions claimed by several members in one generation.
SEVERAL_OWNERS = "<claimed by several members in one generation>"


class NullPointerException(AssignorError):
    """Kafka's ``performReassignments`` dereferencing the assignment of a previous owner that was set aside
    (``literal=True`` only; the port's default treats the partition as having no previous owner)."""


class IllegalStateException(AssignorError):
    """The constrained builder's own consistency check failed (Kafka throws ``IllegalStateException``)."""


@dataclass(frozen=True)
class StickyRun:
    """One ``assignPartitions`` call: the assignment and what the assignor exposes to its tests.

    ``partitions_transferring_ownership`` is ``None`` when the general builder
    ran (Kafka sets the field to null so the cooperative assignor computes it).
    """

    assignment: dict[str, list[tuple[str, int]]]
    builder: str  #: "constrained" or "general"
    rack_aware: bool
    partitions_transferring_ownership: dict[tuple[str, int], str] | None
    sticky: bool  #: ``isSticky()`` (always true for the constrained builder, which records no movements)


# -- claims ----------------------------------------------------------------------------------------------------


@dataclass
class _Subscription:
    """A member as the assignor reads it: ``Subscription`` plus its ``MemberData``."""

    topics: frozenset[str]
    partitions: list[tuple[str, int]]  # MemberData.partitions, as sent
    generation: int | None  # MemberData.generation (Optional)
    rack: str | None  # Subscription.rackId(), empty filtered


# How the port iterates the ``subscriptions`` map (and the maps built from it in its order), one of
# ITERATION_ORDERS: ``"sorted"``, by member id (the default, documented departure); ``"java"``, as Java
# 17's ``HashMap`` iterates the member ids (:mod:`heuristics.java_order`), filled in the group's join order
# (``Problem.join_order``: the scenario's member order; it decides only between ids in one bucket).


def _subscriptions(problem: Problem, iteration_order: str = "sorted") -> dict[str, _Subscription]:
    members = {m.member_id: m for m in problem.members}
    order = java_order(problem.join_order) if iteration_order == "java" else list(members)
    return {
        m.member_id: _Subscription(
            m.topics, [(t, p) for t, ps in m.owned for p in ps], m.generation, m.rack if m.rack else None
        )
        for m in (members[member_id] for member_id in order)
    }


def _all_subscriptions_equal(
    partitions_per_topic: Mapping[str, int], subscriptions: Mapping[str, _Subscription], literal: bool = False
):
    """``allSubscriptionsEqual``: (equal?, consumerToOwnedPartitions, partitionsWithMultiplePreviousOwners, maxGeneration).

    ``literal``: as Kafka, an empty reference set is "not yet initialised", so the next member's
    topics become the reference (a member subscribed to nothing, iterated first, makes a group
    "all equal").
    """
    is_all_subscriptions_equal = True
    subscribed_topics: frozenset[str] | None = None
    consumer_to_owned_partitions: dict[str, list[tuple[str, int]]] = {}
    partitions_with_multiple_previous_owners: set[tuple[str, int]] = set()
    all_previous_partitions_to_owner: dict[tuple[str, int], str] = {}
    max_generation = DEFAULT_GENERATION
    for consumer, subscription in subscriptions.items():
        # Kafka compares raw subscriptions (topics that do not exist included).  Departure: Kafka
        # takes an empty reference set as "not yet initialised" (subscribedTopics.isEmpty()), so
        # after an empty first subscription the next one becomes the reference; here the first is.
        if subscribed_topics is None or (literal and not subscribed_topics):
            subscribed_topics = subscription.topics
        elif is_all_subscriptions_equal and subscription.topics != subscribed_topics:
            is_all_subscriptions_equal = False
        member_generation = DEFAULT_GENERATION if subscription.generation is None else subscription.generation
        max_generation = max(max_generation, member_generation)
        owned_partitions: list[tuple[str, int]] = []
        consumer_to_owned_partitions[consumer] = owned_partitions
        for tp in subscription.partitions:
            topic, partition = tp
            if topic not in partitions_per_topic or not 0 <= partition < partitions_per_topic[topic]:
                continue  # (beyond the partition count: departure, see the module docstring)
            other_consumer = all_previous_partitions_to_owner.get(tp)
            if other_consumer is None:
                owned_partitions.append(tp)
                all_previous_partitions_to_owner[tp] = consumer
                continue
            other = subscriptions[other_consumer].generation
            other_member_generation = DEFAULT_GENERATION if other is None else other
            if member_generation == other_member_generation:
                # Two members of one generation claim it: revoke it from both (the later
                # claimant never added it; a member listing it twice conflicts with itself).
                partitions_with_multiple_previous_owners.add(tp)
                _remove_first(consumer_to_owned_partitions[other_consumer], tp)
                all_previous_partitions_to_owner[tp] = consumer
            elif member_generation > other_member_generation:
                owned_partitions.append(tp)
                _remove_first(consumer_to_owned_partitions[other_consumer], tp)
                all_previous_partitions_to_owner[tp] = consumer
            # else: the other member, of a newer generation, keeps it
    return (
        is_all_subscriptions_equal,
        consumer_to_owned_partitions,
        partitions_with_multiple_previous_owners,
        max_generation,
    )


def _topic_partition_hash(tp: tuple[str, int]) -> int:
    return topic_partition_hash(*tp)


def _remove_first(items: list, item) -> None:
    """Java's ``List.remove(Object)``: the first occurrence, if any."""
    try:
        items.remove(item)
    except ValueError:
        pass


# -- racks -----------------------------------------------------------------------------------------------------


class _RackInfo:
    """``RackInfo``: member racks and replica racks, kept only when rack-aware assignment is used."""

    def __init__(
        self,
        problem: Problem,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, _Subscription],
        prefer_rack_aware_logic: bool,
    ) -> None:
        consumers_by_rack: dict[str, list[str]] = {}
        for member_id, subscription in subscriptions.items():
            if subscription.rack:
                consumers_by_rack.setdefault(subscription.rack, []).append(member_id)
        partition_racks: dict[tuple[str, int], frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumers_by_rack:
            for topic in problem.topics:
                if topic.name not in partitions_per_topic:
                    continue
                for p in range(topic.partitions):
                    # Node.rack() null is filtered; no rack information at all is no replica rack.
                    racks = frozenset(topic.racks[p]) if topic.racks is not None else frozenset()
                    partition_racks[(topic.name, p)] = racks
                    all_partition_racks |= racks
        self.rack_aware = _use_rack_aware_assignment(
            set(consumers_by_rack), all_partition_racks, partition_racks, prefer_rack_aware_logic
        )
        if self.rack_aware:
            self.consumer_racks = {c: rack for rack, cs in consumers_by_rack.items() for c in cs}
            self.partition_racks = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        # Computed from all racks even when rack-aware assignment is off (as in Kafka).
        self.num_consumers_by_partition = {
            tp: sum(len(consumers_by_rack.get(r, ())) for r in racks) for tp, racks in partition_racks.items()
        }

    def racks_mismatch(self, consumer: str, tp: tuple[str, int]) -> bool:
        consumer_rack = self.consumer_racks.get(consumer)
        if consumer_rack is None:
            return False
        replica_racks = self.partition_racks.get(tp)
        return replica_racks is None or consumer_rack not in replica_racks

    def sort_partitions_by_rack_consumers(self, partitions: list) -> list:
        if not self.num_consumers_by_partition:
            return partitions
        counts = self.num_consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))  # stable, as List.sort

    def next_rack_consumer(self, tp, consumer_list: list[str], first_index: int) -> int:
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumer_list)
        for i in range(n):
            index = (first_index + i) % n
            consumer_rack = self.consumer_racks.get(consumer_list[index])
            if consumer_rack is not None and consumer_rack in racks:
                return index
        return -1


def _use_rack_aware_assignment(
    consumer_racks: set[str], partition_racks: set[str], racks_per_partition: Mapping, prefer_rack_aware_logic: bool
) -> bool:
    """``AbstractPartitionAssignor.useRackAwareAssignment``, exactly."""
    if not consumer_racks or consumer_racks.isdisjoint(partition_racks):
        return False
    if prefer_rack_aware_logic:
        return True
    return not all(racks == partition_racks for racks in racks_per_partition.values())


# -- the constrained builder -----------------------------------------------------------------------------------


class _ListIterator:
    """Java's ``Iterator`` over a list: ``next``, ``has_next`` and ``remove`` of the last returned."""

    def __init__(self, items: list) -> None:
        self.items, self.cursor, self.last = items, 0, -1

    def has_next(self) -> bool:
        return self.cursor < len(self.items)

    def next(self):
        self.last = self.cursor
        self.cursor += 1
        return self.items[self.last]

    def remove(self) -> None:
        if self.last < 0:
            raise IllegalStateException("Iterator.remove() without next()")
        del self.items[self.last]
        self.cursor, self.last = self.last, -1


class _ConstrainedAssignmentBuilder:
    """``ConstrainedAssignmentBuilder``: all members subscribe to the same topics."""

    def __init__(
        self,
        partitions_per_topic: Mapping[str, int],
        rack_info: _RackInfo,
        consumer_to_owned_partitions: dict[str, list],
        partitions_with_multiple_previous_owners: set,
        *,
        pre_kafka_15170: bool,
    ) -> None:
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current_assignment = consumer_to_owned_partitions
        self.partitions_with_multiple_previous_owners = partitions_with_multiple_previous_owners
        self.pre_kafka_15170 = pre_kafka_15170
        self.maybe_revoked_partitions: dict[tuple[str, int], str] = {}
        self.all_revoked_partitions: set[tuple[str, int]] = set()  # pre-KAFKA-15170's record instead
        self.unfilled_members_with_under_min_quota_partitions: list[str] = []
        self.unfilled_members_with_exactly_min_quota_partitions: list[str] = []
        total_partitions_count = sum(partitions_per_topic.values())
        number_of_consumers = len(consumer_to_owned_partitions)
        self.min_quota = total_partitions_count // number_of_consumers
        self.max_quota = -(-total_partitions_count // number_of_consumers)
        self.expected_num_members_with_over_min_quota_partitions = total_partitions_count % number_of_consumers
        self.current_num_members_with_over_min_quota_partitions = 0
        self.assignment: dict[str, list] = {c: [] for c in consumer_to_owned_partitions}
        self.assigned_partitions: list = []
        self.partitions_transferring_ownership: dict[tuple[str, int], str] = {}

    def build(self) -> dict[str, list]:
        self.assign_owned_partitions()
        unassigned_partitions = self.get_unassigned_partitions()
        self.unfilled_members_with_under_min_quota_partitions.sort()
        self.unfilled_members_with_exactly_min_quota_partitions.sort()
        unassigned_partitions = self.rack_info.sort_partitions_by_rack_consumers(unassigned_partitions)
        unassigned_partitions = self.assign_rack_aware_round_robin(unassigned_partitions)
        self.assign_round_robin(unassigned_partitions)
        self.verify_unfilled_members()
        return self.assignment

    def _revoke(self, tp, consumer: str) -> None:
        if self.pre_kafka_15170:
            self.all_revoked_partitions.add(tp)
        else:
            self.maybe_revoked_partitions[tp] = consumer

    def assign_owned_partitions(self) -> None:
        """Keep owned partitions (racks matching) up to the quota: under minQuota all, else maxQuota while
        fewer than expected members have it, else minQuota."""
        rack_info = self.rack_info
        for consumer, owned in self.current_assignment.items():
            owned_partitions = []
            for tp in owned:
                if rack_info.racks_mismatch(consumer, tp):
                    # KAFKA-15170: a rack-mismatched owned partition may be revoked (pre-fix: not recorded).
                    if not self.pre_kafka_15170:
                        self.maybe_revoked_partitions[tp] = consumer
                else:
                    owned_partitions.append(tp)
            owned_partitions.sort(key=lambda tp: (tp[1], tp[0]))  # partition, then topic
            if self.partitions_with_multiple_previous_owners:
                owned_partitions = [
                    tp for tp in owned_partitions if tp not in self.partitions_with_multiple_previous_owners
                ]
            self.keep_owned_up_to_quota(consumer, owned_partitions)

    def keep_owned_up_to_quota(self, consumer: str, owned_partitions: list) -> None:
        """One member's owned partitions: under minQuota all kept, else maxQuota while fewer than the
        expected members have it, else minQuota; the rest revoked (:meth:`_revoke`)."""
        consumer_assignment = self.assignment[consumer]
        if len(owned_partitions) < self.min_quota:
            consumer_assignment.extend(owned_partitions)
            self.assigned_partitions.extend(owned_partitions)
            self.unfilled_members_with_under_min_quota_partitions.append(consumer)
        elif (
            len(owned_partitions) >= self.max_quota
            and self.current_num_members_with_over_min_quota_partitions
            < self.expected_num_members_with_over_min_quota_partitions
        ):
            self.current_num_members_with_over_min_quota_partitions += 1
            if (
                self.current_num_members_with_over_min_quota_partitions
                == self.expected_num_members_with_over_min_quota_partitions
            ):
                self.unfilled_members_with_exactly_min_quota_partitions.clear()
            consumer_assignment.extend(owned_partitions[: self.max_quota])
            self.assigned_partitions.extend(owned_partitions[: self.max_quota])
            for tp in owned_partitions[self.max_quota :]:
                self._revoke(tp, consumer)
        else:
            consumer_assignment.extend(owned_partitions[: self.min_quota])
            self.assigned_partitions.extend(owned_partitions[: self.min_quota])
            for tp in owned_partitions[self.min_quota :]:
                self._revoke(tp, consumer)
            if (
                self.current_num_members_with_over_min_quota_partitions
                < self.expected_num_members_with_over_min_quota_partitions
            ):
                self.unfilled_members_with_exactly_min_quota_partitions.append(consumer)

    def assign_rack_aware_round_robin(self, unassigned_partitions: list) -> list:
        """Round-robin within racks up to the quotas; returns the partitions left (Kafka removes in place)."""
        rack_info = self.rack_info
        if not rack_info.consumer_racks:
            return unassigned_partitions
        under = self.unfilled_members_with_under_min_quota_partitions
        exactly = self.unfilled_members_with_exactly_min_quota_partitions
        left = []
        next_unfilled_consumer_index = 0
        for unassigned_partition in unassigned_partitions:
            consumer = None
            next_index = rack_info.next_rack_consumer(unassigned_partition, under, next_unfilled_consumer_index)
            if next_index >= 0:
                consumer = under[next_index]
                assignment_count = len(self.assignment[consumer]) + 1
                if assignment_count >= self.min_quota:
                    under.remove(consumer)
                    if assignment_count < self.max_quota and (
                        self.pre_kafka_15170  # the fix added the second condition
                        or self.current_num_members_with_over_min_quota_partitions
                        < self.expected_num_members_with_over_min_quota_partitions
                    ):
                        exactly.append(consumer)
                else:
                    next_index += 1
                next_unfilled_consumer_index = 0 if not under else next_index % len(under)
            elif exactly:
                first_index = rack_info.next_rack_consumer(unassigned_partition, exactly, 0)
                if first_index >= 0:
                    consumer = exactly[first_index]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del exactly[first_index]
                        if not self.pre_kafka_15170:  # the fix: count it, and stop at the expected number
                            self.current_num_members_with_over_min_quota_partitions += 1
                            if (
                                self.current_num_members_with_over_min_quota_partitions
                                == self.expected_num_members_with_over_min_quota_partitions
                            ):
                                exactly.clear()
            if consumer is not None:
                self.assign_new_partition(unassigned_partition, consumer)
            else:
                left.append(unassigned_partition)
        return left

    def assign_round_robin(self, unassigned_partitions: list) -> None:
        under = self.unfilled_members_with_under_min_quota_partitions
        exactly = self.unfilled_members_with_exactly_min_quota_partitions
        unfilled_consumer_iter = _ListIterator(under)
        for unassigned_partition in unassigned_partitions:
            if unfilled_consumer_iter.has_next():
                consumer = unfilled_consumer_iter.next()
            elif not under and not exactly:
                raise IllegalStateException("No more unfilled consumers to be assigned.")
            elif not under:
                consumer = exactly.pop(0)  # poll()
            else:
                unfilled_consumer_iter = _ListIterator(under)
                consumer = unfilled_consumer_iter.next()
            current_assigned_count = self.assign_new_partition(unassigned_partition, consumer)
            if current_assigned_count == self.min_quota:
                unfilled_consumer_iter.remove()
                exactly.append(consumer)
            elif current_assigned_count == self.max_quota:
                self.current_num_members_with_over_min_quota_partitions += 1
                # (Kafka logs an error if partitions remain once the last member reached maxQuota.)

    def assign_new_partition(self, unassigned_partition, consumer: str) -> int:
        consumer_assignment = self.assignment[consumer]
        consumer_assignment.append(unassigned_partition)
        if self.pre_kafka_15170:
            transferring = unassigned_partition in self.all_revoked_partitions
        else:
            previous = self.maybe_revoked_partitions.get(unassigned_partition)
            transferring = previous is not None and previous != consumer
        if transferring or unassigned_partition in self.partitions_with_multiple_previous_owners:
            self.partitions_transferring_ownership[unassigned_partition] = consumer
        return len(consumer_assignment)

    def verify_unfilled_members(self) -> None:
        under = self.unfilled_members_with_under_min_quota_partitions
        if not under:
            return
        if (
            self.current_num_members_with_over_min_quota_partitions
            != self.expected_num_members_with_over_min_quota_partitions
        ):
            raise IllegalStateException(
                "We haven't reached the expected number of members with more than the minQuota partitions, but no "
                f"more partitions to be assigned ({self.current_num_members_with_over_min_quota_partitions} of "
                f"{self.expected_num_members_with_over_min_quota_partitions}; unfilled: {', '.join(under)})"
            )
        for unfilled_member in under:
            if len(self.assignment[unfilled_member]) != self.min_quota:
                raise IllegalStateException(
                    f"Consumer: [{unfilled_member}] doesn't reach minQuota partitions, "
                    "and no more partitions to be assigned"
                )

    def get_unassigned_partitions(self) -> list:
        """All partitions, topics by name then partition number, minus those kept (Kafka's two-pointer merge)."""
        assigned = set(self.assigned_partitions)
        return [
            (topic, p)
            for topic in sorted(self.partitions_per_topic)
            for p in range(self.partitions_per_topic[topic])
            if (topic, p) not in assigned
        ]


# -- the general builder ---------------------------------------------------------------------------------------


class _PartitionMovements:
    """``PartitionMovements``: where each partition moved from, per topic and member pair."""

    def __init__(self, iteration_order: str = "sorted") -> None:
        self.partition_movements_by_topic: dict[str, dict[tuple[str, str], dict | JavaHashMap]] = {}
        self.partition_movements: dict[tuple[str, int], tuple[str, str]] = {}
        self.java = iteration_order == "java"

    def _remove_movement_record_of_partition(self, partition) -> tuple[str, str]:
        pair = self.partition_movements.pop(partition)
        by_pair = self.partition_movements_by_topic[partition[0]]
        moved = by_pair[pair]
        if isinstance(moved, JavaHashMap):
            moved.remove(partition)
        else:
            del moved[partition]
        if not by_pair[pair]:
            del by_pair[pair]
        if not by_pair:
            del self.partition_movements_by_topic[partition[0]]
        return pair

    def _add_partition_movement_record(self, partition, pair: tuple[str, str]) -> None:
        self.partition_movements[partition] = pair
        by_pair = self.partition_movements_by_topic.setdefault(partition[0], {})
        if self.java:  # a new HashSet<TopicPartition> per pair, as Kafka's
            moved = by_pair.setdefault(pair, JavaHashMap(_topic_partition_hash))
            assert isinstance(moved, JavaHashMap)
            moved.put(partition)
        else:
            by_pair.setdefault(pair, {})[partition] = None

    def move_partition(self, partition, old_consumer: str, new_consumer: str) -> None:
        if partition in self.partition_movements:
            existing_src, _ = self._remove_movement_record_of_partition(partition)
            if existing_src != new_consumer:  # not moving back to where it came from
                self._add_partition_movement_record(partition, (existing_src, new_consumer))
        else:
            self._add_partition_movement_record(partition, (old_consumer, new_consumer))

    def get_the_actual_partition_to_be_moved(self, partition, old_consumer: str, new_consumer: str):
        by_pair = self.partition_movements_by_topic.get(partition[0])
        if by_pair is None:
            return partition
        if partition in self.partition_movements:
            old_consumer = self.partition_movements[partition][0]
        reverse = by_pair.get((new_consumer, old_consumer))
        if not reverse:
            return partition
        return next(iter(reverse))  # the HashSet's first in Java's order; sorted order: the first recorded

    def is_sticky(self) -> bool:
        return not any(
            (dst, src) in by_pair for by_pair in self.partition_movements_by_topic.values() for src, dst in by_pair
        )


class _GeneralAssignmentBuilder:
    """``GeneralAssignmentBuilder``: subscriptions differ."""

    def __init__(
        self,
        partitions_per_topic: Mapping[str, int],
        rack_info: _RackInfo,
        current_assignment: dict[str, list],
        subscriptions: Mapping[str, _Subscription],
        max_generation: int,
        iteration_order: str = "sorted",
        literal: bool = False,
    ) -> None:
        self.literal = literal
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current_assignment = current_assignment
        self.subscriptions = subscriptions
        self.max_generation = max_generation
        self.total_partitions_count = sum(partitions_per_topic.values())
        self.topic2_all_potential_consumers: dict[str, list[str]] = {t: [] for t in partitions_per_topic}
        self.consumer2_all_potential_topics: dict[str, list[str]] = {}
        self.potential_topic_set: dict[str, frozenset[str]] = {}  # the same, for List.contains
        for consumer_id, subscription in subscriptions.items():
            subscribed = [t for t in sorted(subscription.topics) if t in partitions_per_topic]
            self.consumer2_all_potential_topics[consumer_id] = subscribed
            self.potential_topic_set[consumer_id] = frozenset(subscribed)
            for topic in subscribed:
                self.topic2_all_potential_consumers[topic].append(consumer_id)
            current_assignment.setdefault(consumer_id, [])
        self.current_partition_consumer = {tp: c for c, tps in current_assignment.items() for tp in tps}
        sorted_all_topics = sorted(
            self.topic2_all_potential_consumers, key=lambda t: (len(self.topic2_all_potential_consumers[t]), t)
        )  # TopicComparator
        self.sorted_all_partitions = [(t, p) for t in sorted_all_topics for p in range(partitions_per_topic[t])]
        # TreeSet<String>(SubscriptionComparator): (assignment size, member id), kept by hand.
        self.sorted_current_subscriptions = SortedList()
        self.revocation_required = False
        self.partition_movements = _PartitionMovements(iteration_order)

    # TreeSet operations: entries are (size, consumer), removed before a size changes and added after.
    def _ts_remove(self, consumer: str) -> None:
        self.sorted_current_subscriptions.discard((len(self.current_assignment[consumer]), consumer))

    def _ts_add(self, consumer: str) -> None:
        self.sorted_current_subscriptions.add((len(self.current_assignment[consumer]), consumer))

    def build(self) -> dict[str, list]:
        prev_assignment: dict[tuple[str, int], tuple[str, int]] = {}
        self.prepopulate_current_assignments(prev_assignment)
        assigned_partitions = self.assign_owned_partitions()
        unassigned_partitions = self.get_unassigned_partitions(assigned_partitions)
        for consumer in self.current_assignment:
            self._ts_add(consumer)
        self.balance(prev_assignment, unassigned_partitions)
        return self.current_assignment

    def assign_owned_partitions(self) -> list:
        assigned_partitions = []
        for consumer, partitions in self.current_assignment.items():
            subscription = self.subscriptions[consumer]
            kept = []
            for partition in partitions:
                if partition[0] not in subscription.topics or self.rack_info.racks_mismatch(consumer, partition):
                    self.revocation_required = True  # (currentPartitionConsumer keeps its stale entry, as in Kafka)
                else:
                    kept.append(partition)
                    assigned_partitions.append(partition)
            partitions[:] = kept
        return assigned_partitions

    def get_unassigned_partitions(self, sorted_assigned_partitions: list) -> list:
        if not sorted_assigned_partitions:
            return self.sorted_all_partitions  # the same list, as in Kafka
        assigned = set(sorted_assigned_partitions)
        return [tp for tp in self.sorted_all_partitions if tp not in assigned]

    def prepopulate_current_assignments(self, prev_assignment: dict) -> None:
        """The previous owner of a partition: the best claim below the top generation."""
        for consumer, subscription in self.subscriptions.items():
            if subscription.generation is not None and subscription.generation < self.max_generation:
                generation = subscription.generation
            elif subscription.generation is None and self.max_generation > DEFAULT_GENERATION:
                generation = DEFAULT_GENERATION
            else:
                continue
            for partition in subscription.partitions:  # updatePrevAssignment
                previous = prev_assignment.get(partition)
                if previous is None or generation > previous[1]:
                    prev_assignment[partition] = (consumer, generation)

    #: isBalanced: unbalanced when a member could take a partition from one holding more than this many
    #: partitions more than it (Kafka 4: 1, so two more; Kafka 3.4.0's subclass: 0).
    unbalanced_over = 1

    def is_balanced(self) -> bool:
        ts = self.sorted_current_subscriptions
        if ts[0][0] >= ts[-1][0] - 1:
            return True
        all_partitions = {tp: c for c, tps in self.current_assignment.items() for tp in tps}
        for _, consumer in ts:
            consumer_partitions = self.current_assignment[consumer]
            consumer_partition_count = len(consumer_partitions)
            all_subscribed_topics = self.consumer2_all_potential_topics[consumer]
            if consumer_partition_count == self.get_max_assignment_size(all_subscribed_topics):
                continue
            mine = set(consumer_partitions)
            for topic in all_subscribed_topics:
                for i in range(self.partitions_per_topic[topic]):
                    tp = (topic, i)
                    if tp not in mine:
                        other_consumer = all_partitions[tp]
                        if consumer_partition_count + self.unbalanced_over < len(
                            self.current_assignment[other_consumer]
                        ):
                            return False
        return True

    def get_max_assignment_size(self, all_subscribed_topics: list[str]) -> int:
        if len(all_subscribed_topics) == len(self.partitions_per_topic):
            return self.total_partitions_count
        return sum(self.partitions_per_topic[t] for t in all_subscribed_topics)

    @staticmethod
    def get_balance_score(assignment: Mapping[str, list]) -> int:
        sizes = sorted(len(tps) for tps in assignment.values())
        # sum over pairs of |a - b|, from the sorted sizes
        return sum(size * (2 * i - len(sizes) + 1) for i, size in enumerate(sizes))

    def maybe_assign_partition(self, partition, rack_info: _RackInfo | None) -> bool:
        topic = partition[0]
        for _, consumer in self.sorted_current_subscriptions:
            if topic in self.potential_topic_set[consumer] and (
                rack_info is None or not rack_info.racks_mismatch(consumer, partition)
            ):
                self._ts_remove(consumer)
                self.current_assignment[consumer].append(partition)
                self.current_partition_consumer[partition] = consumer
                self._ts_add(consumer)
                return True
        return False

    def maybe_assign(self, unassigned_partitions: list, rack_info: _RackInfo | None, remove_assigned: bool) -> list:
        left = []
        for partition in unassigned_partitions:
            if not self.topic2_all_potential_consumers[partition[0]]:
                left.append(partition)
                continue
            if not (self.maybe_assign_partition(partition, rack_info) and remove_assigned):
                left.append(partition)
        return left

    def can_topic_participate_in_reassignment(self, topic: str) -> bool:
        return len(self.topic2_all_potential_consumers[topic]) >= 2

    def can_consumer_participate_in_reassignment(self, consumer: str) -> bool:
        current_partitions = self.current_assignment[consumer]
        if len(current_partitions) < self.get_max_assignment_size(self.consumer2_all_potential_topics[consumer]):
            return True
        return any(self.can_topic_participate_in_reassignment(tp[0]) for tp in current_partitions)

    def balance(self, prev_assignment: dict, unassigned_partitions: list) -> None:
        ts = self.sorted_current_subscriptions
        initializing = not self.current_assignment[ts[-1][1]]
        # First assign with rack matching, then anything left without.
        partitions_to_assign = unassigned_partitions
        if self.rack_info.consumer_racks:
            partitions_to_assign = self.maybe_assign(list(unassigned_partitions), self.rack_info, True)
        self.maybe_assign(partitions_to_assign, None, False)

        fixed_topics = {
            t for t in self.topic2_all_potential_consumers if not self.can_topic_participate_in_reassignment(t)
        }
        if fixed_topics:
            self.sorted_all_partitions = [tp for tp in self.sorted_all_partitions if tp[0] not in fixed_topics]
            unassigned_partitions = [tp for tp in unassigned_partitions if tp[0] not in fixed_topics]

        fixed_assignments: dict[str, list] = {}
        for consumer in self.consumer2_all_potential_topics:
            if not self.can_consumer_participate_in_reassignment(consumer):
                self._ts_remove(consumer)
                fixed_assignments[consumer] = self.current_assignment.pop(consumer)

        pre_balance_assignment = {c: list(tps) for c, tps in self.current_assignment.items()}
        pre_balance_partition_consumers = dict(self.current_partition_consumer)

        if not self.revocation_required:
            self.perform_reassignments(unassigned_partitions, prev_assignment)
        reassignment_performed = self.perform_reassignments(self.sorted_all_partitions, prev_assignment)

        if (
            not initializing
            and reassignment_performed
            and self.get_balance_score(self.current_assignment) >= self.get_balance_score(pre_balance_assignment)
        ):
            self.current_assignment.clear()
            self.current_assignment.update(pre_balance_assignment)
            self.current_partition_consumer = pre_balance_partition_consumers
            # (Kafka's TreeSet now holds stale sizes; nothing reads it but the re-adds below.)
            self.sorted_current_subscriptions = SortedList((len(tps), c) for c, tps in self.current_assignment.items())

        for consumer, partitions in fixed_assignments.items():
            self.current_assignment[consumer] = partitions
            self._ts_add(consumer)

    def perform_reassignments(self, reassignable_partitions: list, prev_assignment: dict) -> bool:
        reassignment_performed = False
        rack_info = self.rack_info
        current = self.current_assignment
        modified = True
        while modified:
            modified = False
            for partition in reassignable_partitions:
                if self.is_balanced():
                    break
                consumer = self.current_partition_consumer[partition]
                previous = prev_assignment.get(partition)
                if previous is not None and previous[0] not in current:
                    # Kafka: currentAssignment.get(prev).size() -> NullPointerException.  The previous
                    # owner's assignment was set aside as fixed (it can take no part in reassignment,
                    # e.g. it now subscribes to nothing shared); departure: no previous owner then.
                    if self.literal:
                        raise NullPointerException(
                            f"AbstractStickyAssignor.performReassignments: currentAssignment.get("
                            f"{previous[0]!r}) is null (the previous owner of {partition[0]}-{partition[1]} "
                            "was set aside as fixed)"
                        )
                    previous = None
                if previous is not None and len(current[consumer]) > len(current[previous[0]]) + 1:
                    self.reassign_partition(partition, previous[0])
                    reassignment_performed = modified = True
                    continue
                # A better-suited member for the partition?  Within the rack first -- but the rack only
                # decides *whether* to move; reassignPartition picks the least loaded member, any rack.
                consumer_rack = rack_info.consumer_racks.get(consumer)
                partition_racks = rack_info.partition_racks.get(partition)
                found_rack_consumer = False
                potential = self.topic2_all_potential_consumers[partition[0]]
                if consumer_rack is not None and partition_racks and consumer_rack in partition_racks:
                    for other_consumer in potential:
                        other_rack = rack_info.consumer_racks.get(other_consumer)
                        if other_rack is None or other_rack not in partition_racks:
                            continue
                        if len(current[consumer]) > len(current[other_consumer]) + 1:
                            self.reassign_partition(partition)
                            reassignment_performed = modified = found_rack_consumer = True
                            break
                if not found_rack_consumer:
                    for other_consumer in potential:
                        if len(current[consumer]) > len(current[other_consumer]) + 1:
                            self.reassign_partition(partition)
                            reassignment_performed = modified = True
                            break
        return reassignment_performed

    def reassign_partition(self, partition, new_consumer: str | None = None) -> None:
        if new_consumer is None:  # the least loaded member subscribed to the topic
            topic = partition[0]
            new_consumer = next(c for _, c in self.sorted_current_subscriptions if topic in self.potential_topic_set[c])
        consumer = self.current_partition_consumer[partition]
        partition_to_be_moved = self.partition_movements.get_the_actual_partition_to_be_moved(
            partition, consumer, new_consumer
        )
        self.process_partition_movement(partition_to_be_moved, new_consumer)

    def process_partition_movement(self, partition, new_consumer: str) -> None:
        old_consumer = self.current_partition_consumer[partition]
        self._ts_remove(old_consumer)
        self._ts_remove(new_consumer)
        self.partition_movements.move_partition(partition, old_consumer, new_consumer)
        self.current_assignment[old_consumer].remove(partition)
        self.current_assignment[new_consumer].append(partition)
        self.current_partition_consumer[partition] = new_consumer
        self._ts_add(new_consumer)
        self._ts_add(old_consumer)


# -- the assignors ---------------------------------------------------------------------------------------------


def _partitions_per_topic(problem: Problem) -> dict[str, int]:
    """Topics some member subscribes to that exist (``AbstractPartitionAssignor.assign``)."""
    return {t.name: t.partitions for t in problem.assignable_topics}


def run_assignor(
    problem: Problem,
    *,
    variant: str | None = None,
    prefer_rack_aware_logic: bool = False,
    iteration_order: str = "sorted",
    literal: bool = False,
) -> StickyRun:
    """``AbstractStickyAssignor.assignPartitions``: the assignment and the builder's side results.

    ``iteration_order="java"`` iterates members as Java 17's ``HashMap`` does (:data:`ITERATION_ORDERS`).
    Every map whose order decides something is ``subscriptions`` or a map filled in its order with the
    default constructor (``consumerToOwnedPartitions``, ``currentAssignment``, the lists of
    ``topic2AllPotentialConsumers``, ``prepopulateCurrentAssignments``' pass), which iterate alike; the
    one other order that decides an answer, ``getTheActualPartitionToBeMoved``'s first partition of a
    ``HashSet<TopicPartition>``, is emulated with Kafka's ``TopicPartition.hashCode``.  Maps read only
    by key, sorted before use, or summed over do not matter.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(map(str, VARIANTS[1:]))})")
    check_iteration_order(iteration_order)
    subscriptions = _subscriptions(problem, iteration_order)
    if not subscriptions:
        return StickyRun({}, "constrained", False, {}, True)
    partitions_per_topic = _partitions_per_topic(problem)
    rack_info = _RackInfo(problem, partitions_per_topic, subscriptions, prefer_rack_aware_logic)
    equal, consumer_to_owned, multiple_owners, max_generation = _all_subscriptions_equal(
        partitions_per_topic, subscriptions, literal
    )
    if equal:
        builder = _ConstrainedAssignmentBuilder(
            partitions_per_topic,
            rack_info,
            consumer_to_owned,
            multiple_owners,
            pre_kafka_15170=variant == "pre-KAFKA-15170",
        )
        assignment = builder.build()
        return StickyRun(
            assignment, "constrained", rack_info.rack_aware, builder.partitions_transferring_ownership, True
        )
    general = _GeneralAssignmentBuilder(
        partitions_per_topic, rack_info, consumer_to_owned, subscriptions, max_generation, iteration_order, literal
    )
    assignment = general.build()
    return StickyRun(assignment, "general", rack_info.rack_aware, None, general.partition_movements.is_sticky())


def _to_assignment(problem: Problem, assignment: Mapping[str, list]) -> Assignment:
    return Assignment.from_partitions(assignment, problem.member_ids)  # its (topic, partition) pairs as they are


def assign(
    problem: Problem,
    *,
    variant: str | None = None,
    prefer_rack_aware_logic: bool = False,
    iteration_order: str = "sorted",
    literal: bool = False,
) -> Assignment:
    """``StickyAssignor`` (eager): balanced first, then sticky, rack-aware when Kafka's condition holds.

    ``variant="pre-KAFKA-15170"`` runs the constrained builder as it was before
    the fix (it can raise :class:`IllegalStateException`).

    Examples
    --------
    A third member joins two that own everything (constrained builder:
    quotas 1..2, ``a`` keeps ``minQuota`` = 1 of its partitions by
    partition number, ``b`` takes ``maxQuota``, ``c`` gets the rest):

    >>> p = Problem.from_mapping({"topics": {"t": 4}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 1},
    ...     "c": {"topics": ["t"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 1]}, 'b': {'t': [2]}, 'c': {'t': [3]}}
    """
    run = run_assignor(
        problem,
        variant=variant,
        prefer_rack_aware_logic=prefer_rack_aware_logic,
        iteration_order=iteration_order,
        literal=literal,
    )
    return _to_assignment(problem, run.assignment)


def believed_holdings(
    problem: Problem, iteration_order: str = "sorted", literal: bool = False
) -> dict[str, frozenset[tuple[str, int]]]:
    """What Kafka 4's cooperative assignor takes each member to hold when it withholds partitions.

    General builder (``computePartitionsTransferringOwnership``): every
    member's ``ownedPartitions`` as sent, i.e. every claim.  Constrained
    builder (``partitionsTransferringOwnership`` of ``assignNewPartition``):
    only the claims that survived generation resolution -- a member whose
    claim lost to a newer generation is not waited for -- and a partition in
    ``partitionsWithMultiplePreviousOwners`` is held by "several members"
    (:data:`SEVERAL_OWNERS`), so it is withheld from whoever gets it, former
    claimants included.  ``iteration_order``: the order the claims are read in, as :func:`run_assignor`.
    """
    subscriptions = _subscriptions(problem, iteration_order)
    partitions_per_topic = _partitions_per_topic(problem)
    equal, consumer_to_owned, multiple_owners, _ = _all_subscriptions_equal(
        partitions_per_topic, subscriptions, literal
    )
    if not equal:
        return held_partitions(problem)
    # (topic, partition) pairs as Kafka's lists hold them: equal to TopicPartition, cheaper to build.
    believed = {m: frozenset(tps).difference(multiple_owners) for m, tps in consumer_to_owned.items()}
    believed[SEVERAL_OWNERS] = frozenset(multiple_owners)
    return believed


def rebalance_cooperative(
    problem: Problem,
    *,
    max_rebalances: int = cooperative_sticky.MAX_REBALANCES,
    variant: str | None = None,
    prefer_rack_aware_logic: bool = False,
    iteration_order: str = "sorted",
    literal: bool = False,
) -> cooperative_sticky.CooperativeRebalance:
    """``CooperativeStickyAssignor``: Kafka 4's target, partitions transferring ownership withheld
    until a follow-up rebalance (every phase returned).

    Each rebalance computes the eager target (:func:`assign`; the member
    data differ between the two assignors -- user data vs ``ownedPartitions``
    -- but the model's claims are the same) and withholds what
    :func:`believed_holdings` says another member holds: exactly Kafka's
    ``partitionsTransferringOwnership`` (the constrained builder's record, or
    ``computePartitionsTransferringOwnership`` after the general one).

    >>> p = Problem.from_mapping({"topics": {"t": 3}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [0, 2]}, "generation": 1},
    ...     "c": {"topics": ["t"]}}})
    >>> r = rebalance_cooperative(p)  # t-0, claimed by a and b alike, waits for both to revoke it
    >>> r.first.to_mapping(), r.final.to_mapping()["c"]
    ({'a': {'t': [1]}, 'b': {'t': [2]}, 'c': {}}, {'t': [0]})
    """

    def target(p: Problem) -> Assignment:
        return assign(
            p,
            variant=variant,
            prefer_rack_aware_logic=prefer_rack_aware_logic,
            iteration_order=iteration_order,
            literal=literal,
        )

    def holdings(p: Problem) -> dict[str, frozenset[tuple[str, int]]]:
        return believed_holdings(p, iteration_order, literal)

    return cooperative_sticky.rebalance(problem, max_rebalances=max_rebalances, target=target, holdings=holdings)


def assign_cooperative(problem: Problem, **options) -> Assignment:
    """The assignment the cooperative group settles on after its follow-up rebalance(s)."""
    return rebalance_cooperative(problem, **options).final
