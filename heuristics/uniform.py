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
``UniformHeterogeneousAssignmentBuilder`` at apache/kafka 1eb7644
(4.0.0-SNAPSHOT, October 2024, group-coordinator module; the heterogeneous
builder as rewritten for 4.0, with its ``MemberAssignmentBalancer``).  The
assignor picks the homogeneous builder when every member subscribes to the
same topics, the heterogeneous one otherwise.

What the broker calls the current assignment is the previous *target*
assignment, one owner per partition.  Here it is the members' claims after
claim resolution (:func:`~assignment_oracle.problem.claims.resolve_claims`:
the newest generation wins a partition, a tie at the top drops it, a member
keeps nothing of a topic it no longer subscribes to).

Racks: the class javadoc speaks of a "balanced and potentially rack aware
assignment", but at 1eb7644 neither builder reads a member's rack or a
partition's replica racks (``grep -i rack`` finds only that sentence), so the
port ignores them as well; ``compare`` shows what that costs against the
rack-aware optimum.

Departures, each where Kafka's order is a hash order:

* members are taken in member id order (Kafka: the group's member map's
  iteration order, ``groupSpec.memberIds()``); in the homogeneous builder
  this order decides which members get the extra partitions;
* topics in name order, and a topic's name breaks the heterogeneous
  builder's last tie (Kafka: topic ids, random UUIDs); a member's previous
  partitions in ascending order (Kafka: a ``HashSet``'s, ascending for small
  partition numbers);
* a subscription to a topic that does not exist is skipped by the builders
  (the broker resolves subscriptions against its metadata first; the Java
  builders throw), but counts, as in Kafka, when the group's subscription
  type is decided (``ModernGroup.subscriptionType`` counts subscribers per
  topic *name*): members whose subscriptions differ only in a missing topic
  take the heterogeneous builder.

Variants (``assign(problem, variant=...)``, not registered; the default is the
1eb7644 port above), for the bug corpus:

* ``"pre-KAFKA-16930"``: before apache/kafka 98f7da9 (KAFKA-16930, June 2024,
  an ancestor of 1eb7644) the heterogeneous builder created a member's target
  assignment only inside the loop over its subscribed topics, so a member
  subscribed to nothing had none, and ``balance()`` dereferenced it:
  ``NullPointerException``.  Raised here as :class:`NullPointerException`
  wherever that builder ran with such a member; the rest of that older
  builder (rewritten for 4.0) is not ported, since it never got that far.
* ``"KAFKA-18688-fix"``: the homogeneous builder as fixed for Kafka 4.1
  (KAFKA-18688, apache/kafka#19677, May 2025, after the snapshot; read in
  confluentinc/kafka 9c71db1, which carries it): a member whose kept
  partitions leave room under an extra-partition quota gives the extra up,
  unless it is one of the last members that must take one; so members that
  already hold the extras keep them, wherever they are in the order.
"""

from __future__ import annotations

import numpy as np

from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import split_by_topic

__all__ = ["KAFKA_18688_FIX", "MAX_ITERATION_COUNT", "PRE_KAFKA_16930", "NullPointerException", "assign"]

#: The heterogeneous builder's cap on final balancing passes (Kafka's constant).
MAX_ITERATION_COUNT = 16

#: The variants (module docstring): the NullPointerException before KAFKA-16930, the homogeneous fix of KAFKA-18688.
PRE_KAFKA_16930 = "pre-KAFKA-16930"
KAFKA_18688_FIX = "KAFKA-18688-fix"


class NullPointerException(RuntimeError):
    """What Kafka's ``NullPointerException`` was, raised by the ``pre-KAFKA-16930`` variant."""


def assign(problem: Problem, *, variant: str | None = None) -> Assignment:
    """The uniform assignor's target assignment: balanced first, then sticky.

    Examples
    --------
    ``C`` joins two members that split two topics of 3 partitions (homogeneous
    builder: quotas 2/2/2 in member order; ``A`` keeps ``t1`` and gives up
    ``t2-0``, ``B`` keeps ``t1-2`` and ``t2-1`` and gives up ``t2-2``; ``C`` takes both).

    >>> p = Problem.from_mapping({"topics": {"t1": 3, "t2": 3}, "members": {
    ...     "A": {"topics": ["t1", "t2"], "owned": {"t1": [0, 1], "t2": [0]}, "generation": 1},
    ...     "B": {"topics": ["t1", "t2"], "owned": {"t1": [2], "t2": [1, 2]}, "generation": 1},
    ...     "C": {"topics": ["t1", "t2"]}}})
    >>> assign(p).to_mapping()
    {'A': {'t1': [0, 1]}, 'B': {'t1': [2], 't2': [1]}, 'C': {'t2': [0, 2]}}
    """
    if variant not in (None, PRE_KAFKA_16930, KAFKA_18688_FIX):
        raise ValueError(f"uniform: unknown variant {variant!r}, expected {PRE_KAFKA_16930!r} or {KAFKA_18688_FIX!r}")
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    members = problem.members
    if not members:
        return Assignment.from_owners(problem, owner)
    previous = resolve_claims(problem).previous_owner
    existing = problem.partition_counts
    subscriptions = [tuple(sorted(t for t in m.topics if t in existing)) for m in members]
    # ModernGroup.subscriptionType: homogeneous iff every member subscribes to the same topic *names*,
    # topics that do not exist included; the builders then see only the topics that exist.
    homogeneous = len({m.topics for m in members}) == 1
    if homogeneous and variant != KAFKA_18688_FIX:
        targets = _homogeneous_arrays(problem, subscriptions[0], previous)
    elif homogeneous:
        targets = _homogeneous(problem, subscriptions[0], previous, fixed_18688=True)
    else:
        if variant == PRE_KAFKA_16930 and () in subscriptions:  # some topic is subscribed: build() got to balance()
            member = members[subscriptions.index(())].member_id
            raise NullPointerException(
                f'Cannot invoke "MemberAssignment.targetPartitions()" because the return value of '
                f'"java.util.Map.get(Object)" is null (member {member} subscribes to no topic; KAFKA-16930)'
            )
        targets = _Heterogeneous(problem, subscriptions, previous).build()
    owners = split_by_topic(problem, owner)
    for topic, by_partition in targets.items():
        owners[topic][:] = by_partition
    return Assignment.from_owners(problem, owner)


def _homogeneous(
    problem: Problem, topics: tuple[str, ...], previous, *, fixed_18688: bool = False
) -> dict[str, list[int]]:
    """``UniformHomogeneousAssignmentBuilder.build``: quotas in member order, keep up to the quota, fill."""
    counts = problem.partition_counts
    members = range(len(problem.members))
    owners = {t: [-1] * counts[t] for t in topics}
    if not topics:
        return owners
    # Partitions nobody owns in the previous target, topic by topic.
    unassigned = [(t, p) for t in topics for p in range(counts[t]) if previous[t][p] < 0]
    total = sum(counts[t] for t in topics)
    minimum_quota, extra = divmod(total, len(problem.members))
    mine = {m: [] for m in members}
    for t in topics:
        for p in np.flatnonzero(previous[t] >= 0).tolist():
            mine[int(previous[t][p])].append((t, p))
    unfilled: list[tuple[int, int]] = []
    for m in members:  # maybeRevokePartitions
        quota = minimum_quota
        has_extra = extra > 0
        if has_extra:
            quota += 1
            if not fixed_18688:
                extra -= 1
        by_topic: dict[str, list[int]] = {}
        for t, p in mine[m]:
            by_topic.setdefault(t, []).append(p)
        for t in topics:
            partitions = by_topic.get(t, [])
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
            if quota > 0 and len(problem.members) - m > extra:
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


def _homogeneous_arrays(problem: Problem, topics: tuple[str, ...], previous) -> dict[str, np.ndarray]:
    """:func:`_homogeneous` (Kafka's builder) over one owner array: the same answer, without a loop per partition.

    Member ``m`` (in order) has quota ``minimum + 1`` if ``m < extra``, else
    ``minimum``; it keeps the first ``quota`` of its previous partitions in
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
    quota[:extra] += 1
    owned = np.flatnonzero(before >= 0)
    by_member = owned[np.argsort(before[owned], kind="stable")]  # grouped by member, ascending within
    holder = before[by_member]
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

    def __init__(self, problem: Problem, subscriptions: list[tuple[str, ...]], previous) -> None:
        self.counts = problem.partition_counts
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
        """topicComparator: partitions per subscriber descending (as Java doubles), subscribers ascending, then name."""
        subscribers = len(self.subscribers[topic])
        return (-(self.counts[topic] / subscribers), subscribers, topic)

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
