"""KIP-848's server-side UniformAssignor (``uniform``), the new consumer protocol's default.

Guarantee claimed (javadoc of both builders): "Balance: ensure partitions are
distributed equally among all members.  The difference in assignments sizes
between any two members should not exceed one partition", then stickiness
("retaining as much of the existing assignment as possible"), balance first.
The heterogeneous builder qualifies it: its final balancing phase stops
after ``MAX_ITERATION_COUNT`` (16) passes, "a reasonable balance"; what is
checked here is Kafka's local condition (``kafka-balance``: no partition can
move to a member with two or more fewer), which both builders aim for.

Port of ``org.apache.kafka.coordinator.group.assignor.UniformAssignor``,
``UniformHomogeneousAssignmentBuilder`` and
``UniformHeterogeneousAssignmentBuilder`` (group-coordinator module) as they
stand at apache/kafka **d79bd50** (trunk, 2026-08-23, 4.5.0-SNAPSHOT; read in
the confluentinc/kafka snapshot, which keeps upstream commit ids): today's
Kafka, registered as ``uniform``.  The assignor picks the homogeneous builder
when every member subscribes to the same topics, the heterogeneous one
otherwise.

What changed since the first port (apache/kafka 1eb7644, October 2024, which
is what Kafka 4.0.0 shipped): one answer-changing commit, KAFKA-18688
(c16c240b, apache/kafka#19677, May 2025; in Kafka 4.0.1 and 4.1.0).  The
homogeneous builder used to give the extra-partition quotas (``total %
members``) to the first members it iterated; now a member keeps an extra slot
only if it fills it from what it held before, unless it is among the last
members that must take one.  So a balanced previous assignment stays as it
is, and a fresh one puts the extras on the *last* members.  Everything else
between the two commits is refactoring with the same answers (lambdas for
the comparators, records, ``Map.of``); the heterogeneous builder, the
subscription type (``ModernGroup.subscriptionType``, now counting by-name
subscribers apart from regex ones, the same for name subscriptions) and what
``TargetAssignmentBuilder`` hands the assignor (a ``HashMap`` of members) are
unchanged.  Kafka 4.0.0's builder stays available as ``uniform-4.0.0``
(``variant=KAFKA_4_0_0``).

What the broker calls the current assignment is the previous *target*
assignment, one owner per partition.  Here it is the members' claims after
claim resolution (:func:`~assignment_oracle.problem.claims.resolve_claims`:
the newest generation wins a partition, a tie at the top drops it, a member
keeps nothing of a topic it no longer subscribes to).

Racks: the class javadoc speaks of a "balanced and potentially rack aware
assignment", but neither builder reads a member's rack or a partition's
replica racks (``grep -i rack`` finds only that sentence, at both commits), so
the port ignores them as well; ``compare`` shows what that costs against the
rack-aware optimum.

Iteration order (``iteration_order``): Kafka's answer depends on hash orders.
In ``"sorted"`` order (the default) members are taken in member id order,
topics in name order with a topic's name breaking the heterogeneous builder's
last tie, a member's previous partitions ascending.  In ``"java"`` order the
port iterates as Java 17 does (:class:`_JavaOrder` lists each map and set and
where Kafka builds it): ``groupSpec.memberIds()`` is a ``HashMap``'s key set
of member ids (in the homogeneous builder this order decides which members get
the extra partitions; in the heterogeneous one it numbers the members, which
breaks its ties); topics are keyed by their ``Uuid`` (the scenario's topic
``"id"``, required then), whose ``hashCode`` orders the homogeneous builder's
topics and a member's previous assignment map and whose ``compareTo`` breaks
the heterogeneous builder's last tie; a member's previous partitions iterate
as a ``HashSet<Integer>``.

A subscription to a topic that does not exist is skipped by the builders (the
broker resolves subscriptions against its metadata first; the Java builders
throw), but counts, as in Kafka, when the group's subscription type is decided
(``ModernGroup.subscriptionType`` counts subscribers per topic *name*):
members whose subscriptions differ only in a missing topic take the
heterogeneous builder.

Variants (``assign(problem, variant=...)``):

* ``"4.0.0"`` (:data:`KAFKA_4_0_0`, registered as ``uniform-4.0.0``): the
  homogeneous builder before KAFKA-18688, as above.
* ``"pre-KAFKA-16930"`` (bug corpus only): before apache/kafka 98f7da9
  (KAFKA-16930, June 2024, an ancestor of 1eb7644) the heterogeneous builder
  created a member's target assignment only inside the loop over its
  subscribed topics, so a member subscribed to nothing had none, and
  ``balance()`` dereferenced it: ``NullPointerException``.  Raised here as
  :class:`NullPointerException` wherever that builder ran with such a member;
  the rest of that older builder (rewritten for 4.0) is not ported, since it
  never got that far.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assignment_oracle.heuristics.java_order import (
    ITERATION_ORDERS,
    check_iteration_order,
    hash_set_copy,
    java_order,
    string_hash,
    uuid_hash,
)
from assignment_oracle.heuristics.timeline_order import coordinator_member_order, joining_of
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import split_by_topic
from assignment_oracle.problem.scenario_json import uuid_bits

__all__ = [
    "ITERATION_ORDERS",
    "KAFKA_4_0_0",
    "MAX_ITERATION_COUNT",
    "PRE_KAFKA_16930",
    "NullPointerException",
    "assign",
    "topics_without_id",
]

#: The heterogeneous builder's cap on final balancing passes (Kafka's constant).
MAX_ITERATION_COUNT = 16

#: The variants (module docstring): Kafka 4.0.0's homogeneous builder (before KAFKA-18688), and the
#: NullPointerException before KAFKA-16930.  ``None`` is today's Kafka.
KAFKA_4_0_0 = "4.0.0"
PRE_KAFKA_16930 = "pre-KAFKA-16930"
_VARIANTS = (None, KAFKA_4_0_0, PRE_KAFKA_16930)


class NullPointerException(RuntimeError):
    """What Kafka's ``NullPointerException`` was, raised by the ``pre-KAFKA-16930`` variant."""


def assign(
    problem: Problem, *, variant: str | None = None, iteration_order: str = "sorted", joining: str | None = None
) -> Assignment:
    """The uniform assignor's target assignment: balanced first, then sticky.

    ``variant``: ``None`` is today's Kafka (d79bd50, KAFKA-18688's homogeneous
    builder), :data:`KAFKA_4_0_0` the builder Kafka 4.0.0 shipped (1eb7644),
    :data:`PRE_KAFKA_16930` the heterogeneous builder's old crash.
    ``iteration_order``: ``"sorted"`` (member ids and topic names sorted) or
    ``"java"`` (members, topic ids and partition sets as Java 17 iterates the
    coordinator's hash maps; every subscribed topic then needs its ``"id"``).
    ``joining``: in Java's order, the member whose heartbeat computes the
    assignment as it joins (the coordinator's overlay adds it after the group's
    members, :mod:`heuristics.timeline_order`); ``None``: the problem's own
    (its scenario's ``"joining"``; none there: every member is in the group's
    map already).

    Examples
    --------
    ``C`` joins two members that split two topics of 3 partitions (homogeneous
    builder: six partitions, quotas 2/2/2; ``A`` keeps ``t1`` and gives up
    ``t2-0``, ``B`` keeps ``t1-2`` and ``t2-1`` and gives up ``t2-2``; ``C`` takes both).

    >>> p = Problem.from_mapping({"topics": {"t1": 3, "t2": 3}, "members": {
    ...     "A": {"topics": ["t1", "t2"], "owned": {"t1": [0, 1], "t2": [0]}, "generation": 1},
    ...     "B": {"topics": ["t1", "t2"], "owned": {"t1": [2], "t2": [1, 2]}, "generation": 1},
    ...     "C": {"topics": ["t1", "t2"]}}})
    >>> assign(p).to_mapping()
    {'A': {'t1': [0, 1]}, 'B': {'t1': [2], 't2': [1]}, 'C': {'t2': [0, 2]}}

    Seven partitions: today's builder leaves the extra partition with ``A``,
    which holds three; Kafka 4.0.0's gave it to the first member in order
    and took one from ``A`` (KAFKA-18688).

    >>> p = Problem.from_mapping({"topics": {"t": 7}, "members": {
    ...     "A": {"topics": ["t"], "owned": {"t": [4, 5, 6]}, "generation": 1},
    ...     "0": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "B": {"topics": ["t"], "owned": {"t": [2, 3]}, "generation": 1}}})
    >>> assign(p).to_mapping(), assign(p, variant=KAFKA_4_0_0).to_mapping()
    ({'0': {'t': [0, 1]}, 'A': {'t': [4, 5, 6]}, 'B': {'t': [2, 3]}}, {'0': {'t': [0, 1, 6]}, 'A': {'t': [4, 5]}, 'B': {'t': [2, 3]}})
    """
    if variant not in _VARIANTS:
        raise ValueError(
            f"uniform: unknown variant {variant!r}, expected one of {', '.join(repr(v) for v in _VARIANTS[1:])}"
        )
    check_iteration_order(iteration_order)
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    members = problem.members
    if not members:
        return Assignment.from_owners(problem, owner)
    previous = resolve_claims(problem).previous_owner
    existing = problem.partition_counts
    subscriptions = [tuple(sorted(t for t in m.topics if t in existing)) for m in members]
    java = _JavaOrder.of(problem, subscriptions, joining) if iteration_order == "java" else None
    # ModernGroup.subscriptionType: homogeneous iff every member subscribes to the same topic *names*,
    # topics that do not exist included; the builders then see only the topics that exist.
    homogeneous = len({m.topics for m in members}) == 1
    fixed_18688 = variant not in (KAFKA_4_0_0, PRE_KAFKA_16930)
    if homogeneous and java is None:
        targets = _homogeneous_arrays(problem, subscriptions[0], previous, fixed_18688=fixed_18688)
    elif homogeneous:
        targets = _homogeneous(problem, subscriptions[0], previous, fixed_18688=fixed_18688, java=java)
    else:
        if variant == PRE_KAFKA_16930 and () in subscriptions and any(subscriptions):  # build() got to balance()
            member = members[subscriptions.index(())].member_id
            raise NullPointerException(
                f'Cannot invoke "MemberAssignment.targetPartitions()" because the return value of '
                f'"java.util.Map.get(Object)" is null (member {member} subscribes to no topic; KAFKA-16930)'
            )
        if java is None:
            targets = _Heterogeneous(problem, subscriptions, previous).build()
        else:
            targets = _heterogeneous_in_java_order(problem, subscriptions, previous, java)
    owners = split_by_topic(problem, owner)
    for topic, by_partition in targets.items():
        owners[topic][:] = by_partition
    return Assignment.from_owners(problem, owner)


def topics_without_id(problem: Problem) -> list[str]:
    """The subscribed topics (that exist) without a topic ``"id"``: what ``iteration_order="java"`` cannot order."""
    subscribed = {t for m in problem.members for t in m.topics}
    return [t.name for t in problem.topics if t.name in subscribed and t.topic_id is None]


@dataclass(frozen=True)
class _JavaOrder:
    """The orders in which Kafka's group coordinator hands the uniform assignor its hash maps and sets.

    Read at d79bd50 (unchanged since 1eb7644 for what the builders see), files under
    ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/``:

    * ``members``: ``groupSpec.memberIds()``, the key set of the ``HashMap<String, ...>``
      ``TargetAssignmentBuilder.build`` fills from the group's members (``modern/TargetAssignmentBuilder.java:403``),
      Java's order of the member ids; the fill order (which only breaks ties within a bucket) is the
      order the group's ``TimelineHashMap`` of members iterates, filled in the group's join order (the
      scenario's), with a joining member after the rest (:mod:`heuristics.timeline_order`; before issue
      43 it was taken to be member id order, and Kafka's answer differed in 966 of 3,000 random groups);
    * ``topic_ids``: each topic's ``Uuid`` (its ``"id"``), whose ``hashCode`` orders the maps and sets
      keyed by topic id and whose ``compareTo`` breaks the heterogeneous builder's last tie;
    * a member's subscribed topic ids iterate as ``TopicIds`` does, over the topic names in
      ``new HashSet<>(names)`` order (``ConsumerGroupMember.Builder.setSubscribedTopicNames``);
    * a member's previous target assignment is a ``HashMap<Uuid, Set<Integer>>`` filled in topic name
      order by ``Assignment.fromRecord`` (``Collectors.toMap``), each value ``new HashSet<>(partitions)``
      of the partitions in ascending order (``Integer.hashCode`` is the partition number, so a set
      iterates ascending unless a partition number reaches the set's table size).
    """

    members: tuple[int, ...]
    topic_ids: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, problem: Problem, subscriptions: list[tuple[str, ...]], joining: str | None = None) -> _JavaOrder:
        subscribed = sorted({t for topics in subscriptions for t in topics})
        topic_ids = {t.name: t.topic_id for t in problem.topics}
        missing = topics_without_id(problem)
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            raise ValueError(
                f"uniform in Java's order needs the topic id (\"id\", Kafka's Uuid) of every subscribed topic: "
                f"none for {shown}"
            )
        index = problem.member_index
        joining = joining_of(problem, joining, "uniform")
        return cls(
            tuple(index[m] for m in coordinator_member_order(problem.join_order, joining)),
            {t: uuid_bits(topic_ids[t]) for t in subscribed},  # type: ignore[arg-type]
        )

    def uuid_hash(self, topic: str) -> int:
        return uuid_hash(*self.topic_ids[topic])

    def subscribed_topic_ids(self, names: frozenset[str], existing: tuple[str, ...]) -> list[str]:
        """``new HashSet<>(subscribedTopicIds())`` of one member (its subscribed topic ``names``, of which
        ``existing`` exist): the homogeneous builder's topic order.  ``TopicIds`` iterates the member's
        ``HashSet`` of names, skipping a name that does not resolve, but its ``size()`` counts every name
        (``modern/TopicIds.java``), so the copy's table is sized for all of them."""
        by_name = [t for t in hash_set_copy(sorted(names), string_hash) if t in existing]
        return hash_set_copy(by_name, self.uuid_hash, size=len(names))

    def previous_topics(self, topics: list[str]) -> list[str]:
        """A member's previous assignment map (topics given in name order), in Java's order."""
        return java_order(topics, self.uuid_hash)

    @staticmethod
    def partitions(partitions: list[int]) -> list[int]:
        """``new HashSet<>(partitions)`` (ascending), in Java's order."""
        return hash_set_copy(partitions, int)


def _homogeneous(
    problem: Problem,
    topics: tuple[str, ...],
    previous,
    *,
    fixed_18688: bool = True,
    java: _JavaOrder | None = None,
) -> dict[str, list[int]]:
    """``UniformHomogeneousAssignmentBuilder.build``: quotas in member order, keep up to the quota, fill.

    Every order is Kafka's iteration order when ``java`` is given, sorted otherwise (members by id,
    topics by name, partitions ascending).
    """
    counts = problem.partition_counts
    owners = {t: [-1] * counts[t] for t in topics}
    if not topics:
        return owners
    num_members = len(problem.members)
    members = java.members if java else range(num_members)
    first = problem.members[java.members[0]] if java else None  # memberIds().iterator().next()
    topic_order = java.subscribed_topic_ids(first.topics, topics) if java and first else list(topics)
    # Partitions nobody owns in the previous target, topic by topic (subscribedTopicIds' order).
    unassigned = [(t, p) for t in topic_order for p in range(counts[t]) if previous[t][p] < 0]
    total = sum(counts[t] for t in topics)
    minimum_quota, extra = divmod(total, num_members)
    mine: dict[int, dict[str, list[int]]] = {m: {} for m in range(num_members)}
    for t in topics:  # name order, partitions ascending: the order Kafka's records list them
        for p in np.flatnonzero(previous[t] >= 0).tolist():
            mine[int(previous[t][p])].setdefault(t, []).append(p)
    unfilled: list[tuple[int, int]] = []
    for position, m in enumerate(members):  # maybeRevokePartitions
        quota = minimum_quota
        has_extra = extra > 0
        if has_extra:
            quota += 1
            if not fixed_18688:
                extra -= 1
        held = mine[m]
        for t in java.previous_topics(list(held)) if java else held:
            partitions = java.partitions(held[t]) if java else held[t]
            if len(partitions) <= quota:
                quota -= len(partitions)
                kept = partitions
            else:
                kept, revoked = partitions[:quota], partitions[quota:]
                quota = 0
                unassigned.extend((t, p) for p in revoked)
            for p in kept:
                owners[t][p] = m
        if fixed_18688 and has_extra:
            # KAFKA-18688: give the extra quota up for a later member, unless this one is among the last
            # `extra` members, which must take it; a member whose kept partitions fill it keeps it.
            if quota > 0 and num_members - position > extra:
                quota -= 1
            else:
                extra -= 1
        if quota > 0:
            unfilled.append((m, quota))
    index = 0
    for m, quota in unfilled:  # assignRemainingPartitions
        for _ in range(quota):
            if index >= len(unassigned):
                break
            t, p = unassigned[index]
            index += 1
            owners[t][p] = m
    if index < len(unassigned):
        raise AssertionError("Partitions were left unassigned")  # Kafka's PartitionAssignorException: a bug
    return owners


def _heterogeneous_in_java_order(
    problem: Problem, subscriptions: list[tuple[str, ...]], previous, java: _JavaOrder
) -> dict[str, list[int]]:
    """``UniformHeterogeneousAssignmentBuilder`` with Kafka's member numbering and topic id tie-break.

    The builder numbers members in ``groupSpec.memberIds()`` order (line 157 at 1eb7644) and breaks
    the last tie between topics by ``Uuid.compareTo`` (signed most significant bits, then least);
    every other order in it is a sort or a list.  So the sorted-order builder runs on members
    renumbered in Java's order, topics ranked by id, and its owners are numbered back.
    """
    order = java.members
    number = np.empty(len(order), dtype=np.int64)
    number[list(order)] = np.arange(len(order))
    renumbered = {t: np.where(owners >= 0, number[np.maximum(owners, 0)], -1) for t, owners in previous.items()}
    builder = _Heterogeneous(problem, [subscriptions[m] for m in order], renumbered, topic_rank=java.topic_ids)
    return {t: [order[o] if o >= 0 else -1 for o in owners] for t, owners in builder.build().items()}


def _homogeneous_arrays(
    problem: Problem, topics: tuple[str, ...], previous, *, fixed_18688: bool = True
) -> dict[str, np.ndarray]:
    """:func:`_homogeneous` (Kafka's builder) in sorted order over one owner array: the same answer, without
    a loop per partition.

    Quotas: before KAFKA-18688 member ``m`` (in order) has ``minimum + 1`` if
    ``m < extra``, else ``minimum``.  Since, the extra slots are handed out in
    member order to a member that fills one from what it held, or that is
    among the last members still needed to take the remaining extras (one
    loop over members).  Then each member keeps the first ``quota`` of its previous partitions in
    (topic, partition) order and the rest are revoked, appended to the
    unassigned list after the partitions nobody owned, member by member;
    then the members under quota take the unassigned list in order, each up
    to its quota.  The tests check it against :func:`_homogeneous` on every
    draw.
    """
    if not topics:
        return {}
    counts = problem.partition_counts
    num_members = len(problem.members)
    before = np.concatenate([np.asarray(previous[t], dtype=np.int64) for t in topics])
    starts = np.concatenate(([0], np.cumsum([counts[t] for t in topics]))).astype(np.int64)
    minimum_quota, extra = divmod(int(before.size), num_members)
    quota = np.full(num_members, minimum_quota, dtype=np.int64)
    owned = np.flatnonzero(before >= 0)
    by_member = owned[np.argsort(before[owned], kind="stable")]  # grouped by member, ascending within
    holder = before[by_member]
    if not fixed_18688:
        quota[:extra] += 1
    else:
        held = np.bincount(holder, minlength=num_members).tolist()
        extra_left = extra
        for m in range(num_members):
            if extra_left == 0:
                break
            if held[m] > minimum_quota or num_members - m <= extra_left:
                quota[m] += 1
                extra_left -= 1
    first = np.searchsorted(holder, np.arange(num_members))
    rank = np.arange(by_member.size) - first[holder]
    kept = rank < quota[holder]
    owner = np.full(before.size, -1, dtype=np.int64)
    owner[by_member[kept]] = holder[kept]
    unassigned = np.concatenate((np.flatnonzero(before < 0), by_member[~kept]))
    room = quota - np.bincount(holder[kept], minlength=num_members)
    takers = np.repeat(np.arange(num_members), room)
    if takers.size < unassigned.size:
        raise AssertionError("Partitions were left unassigned")  # Kafka's PartitionAssignorException: a bug
    owner[unassigned] = takers[: unassigned.size]
    return {t: owner[starts[i] : starts[i + 1]] for i, t in enumerate(topics)}


class _Heterogeneous:
    """``UniformHeterogeneousAssignmentBuilder``: keep, assign to the least loaded, then rebalance topic by topic."""

    def __init__(
        self,
        problem: Problem,
        subscriptions: list[tuple[str, ...]],
        previous,
        topic_rank: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        self.counts = problem.partition_counts
        self.topic_rank = topic_rank  # the topic ids' (most, least) bits: Uuid.compareTo, else the name
        self.subscriptions = subscriptions
        self.previous = previous
        self.sizes = [0] * len(subscriptions)  # memberTargetAssignmentSizes
        self.subscribers: dict[str, list[int]] = {}  # topicSubscribers, ascending member indices
        for m, topics in enumerate(subscriptions):
            for t in topics:
                self.subscribers.setdefault(t, []).append(m)
        self.topics = sorted(self.subscribers)
        self.owners = {t: [-1] * self.counts[t] for t in self.topics}  # targetAssignmentPartitionOwners

    def topic_key(self, topic: str):
        """topicComparator: partitions per subscriber descending (as Java doubles), subscribers ascending, then
        the topic id (the name in sorted order)."""
        subscribers = len(self.subscribers[topic])
        last = self.topic_rank[topic] if self.topic_rank is not None else topic
        return (-(self.counts[topic] / subscribers), subscribers, last)

    def build(self) -> dict[str, list[int]]:
        if not self.topics:
            return {}
        self.maybe_revoke_partitions()
        unassigned = {t: [p for p in range(self.counts[t]) if self.owners[t][p] == -1] for t in self.topics}
        self.assign_remaining_partitions({t: ps for t, ps in unassigned.items() if ps})
        self.balance()
        return self.owners

    def maybe_revoke_partitions(self) -> None:
        for t in self.topics:  # a previous owner subscribes to the topic (claim resolution saw to it)
            for p in np.flatnonzero(self.previous[t] >= 0).tolist():
                m = int(self.previous[t][p])
                self.owners[t][p] = m
                self.sizes[m] += 1

    def assign_partition(self, topic: str, partition: int, member: int) -> None:
        old = self.owners[topic][partition]
        if old != -1:
            self.sizes[old] -= 1
        self.owners[topic][partition] = member
        self.sizes[member] += 1

    def assign_remaining_partitions(self, partitions: dict[str, list[int]]) -> None:
        balancer = _Balancer(self.sizes)
        for topic in sorted(partitions, key=self.topic_key):
            balancer.initialize(self.subscribers[topic])
            for p in partitions[topic]:
                self.assign_partition(topic, p, balancer.next_least_loaded_member())

    def balance(self) -> None:
        topics = [t for t in self.topics if len(self.subscribers[t]) >= 2]  # canTopicParticipateInReassignment
        if not topics:
            return
        topics.sort(key=self.topic_key)  # balanceTopics
        last_rebalanced = -1
        balancer = _Balancer(self.sizes)
        for _ in range(MAX_ITERATION_COUNT):
            for index, topic in enumerate(topics):
                if index == last_rebalanced:  # a whole pass without moving anything
                    return
                moved = self.balance_topic(topic, balancer)
                if moved > 0 or last_rebalanced == -1:
                    last_rebalanced = index

    def balance_topic(self, topic: str, balancer: _Balancer) -> int:
        moved = 0
        owners = self.owners[topic]
        imbalance = balancer.initialize(self.subscribers[topic])
        if imbalance <= 1:
            return moved
        partitions = sorted(range(self.counts[topic]), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}  # exclusive
        for i, p in enumerate(partitions):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        while not balancer.is_balanced():
            while True:
                most = balancer.next_most_loaded_member()
                if most == -1:
                    break
                if most not in end or end[most] - start[most] <= 0:
                    balancer.exclude_most_loaded_member()
                    continue
                break
            if most == -1:
                break
            partition = partitions[end[most] - 1]
            end[most] -= 1
            least = balancer.next_least_loaded_member()
            if balancer.is_balanced():
                break
            self.assign_partition(topic, partition, least)
            moved += 1
        return moved


class _Balancer:
    """``MemberAssignmentBalancer``: a least loaded range growing rightwards, a most loaded one leftwards."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.sorted: list[int] = []
        self.least_end = 0  # exclusive
        self.least_count = -1
        self.next_least = 0
        self.most_start = 0  # inclusive
        self.most_end = 0  # exclusive
        self.most_count = 1
        self.next_most = -1

    def initialize(self, members: list[int]) -> int:
        if not members:
            raise ValueError("Cannot balance an empty subscriber list.")
        sizes = self.sizes
        self.sorted = sorted(members, key=lambda m: (sizes[m], m))  # memberComparator
        self.least_end = 0
        self.least_count = sizes[self.sorted[0]] - 1
        self.next_least = 0
        self.most_start = len(self.sorted)
        self.most_end = len(self.sorted)
        self.most_count = sizes[self.sorted[-1]] + 1
        self.next_most = len(self.sorted) - 1
        return sizes[self.sorted[-1]] - sizes[self.sorted[0]]

    def next_least_loaded_member(self) -> int:
        if self.next_least >= self.least_end:  # the range is full: bump its level, try to expand it
            self.least_count += 1
            while self.least_end < len(self.sorted) and self.sizes[self.sorted[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = self.sorted[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded_member(self) -> int:
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                # Emptied by exclusions: reset the level so that the range does expand below.
                self.most_count = self.sizes[self.sorted[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and self.sizes[self.sorted[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = self.sorted[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded_member(self) -> None:
        member = self.sorted[self.next_most + 1]
        self.sorted[self.next_most + 1] = self.sorted[self.most_end - 1]
        self.sorted[self.most_end - 1] = member
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1
