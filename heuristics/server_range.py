"""KIP-848's server-side RangeAssignor (``server-range``), as the group coordinator runs it.

Guarantee claimed (its javadoc): contiguous partition ranges such that each
subscribed member receives at least one partition of a topic and each member
receives the same partition numbers from every subscribed topic when
co-partitioning is possible (all members subscribe to the same topics and
all the topics have the same partition count); with static membership the
assignment stays the same across member id changes.  The "at least one
partition" clause only holds when a topic has at least as many partitions
as subscribers (Kafka's own ``testFirstAssignmentNumMembersGreaterThanNumPartitions``
expects a member with nothing); what is checked here is the range
assignors' per-topic balance and co-partitioning (``per-topic-balance``).

Port of ``org.apache.kafka.coordinator.group.assignor.RangeAssignor`` at
apache/kafka 1eb7644 (4.0.0-SNAPSHOT, October 2024), group-coordinator
module.  The broker sorts the members once (static members first, by
``group.instance.id``, then by member id: ``sortMemberIds``, the same order
as the client's ``MemberInfo``), then gives each member, for each topic it
subscribes to, the topic's next range: ``minQuota = partitions // members``
plus one while the topic's ``extraPartitions`` last (``TopicMetadata`` and
``addPartitionsToAssignment``).  The homogeneous and heterogeneous paths of
the Java code differ only in how they count each topic's subscribers, so
one loop serves both here.  Current assignments and claims are not read at
this version (nor racks).

Departures: topics that do not exist are skipped (the broker resolves a
subscription to topic ids from its metadata, so a member never subscribes
to a missing topic there; the Java code throws if it did); strings compare
by code point, not UTF-16 unit.  At this version the result is, partition
for partition, the client ``RangeAssignor``'s without racks (tested).
"""

from __future__ import annotations

import numpy as np

from assignment_oracle.heuristics.member_info import member_order
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["assign"]


def assign(problem: Problem) -> Assignment:
    """Each member in sorted order takes, from each topic it subscribes to, that topic's next range.

    Examples
    --------
    Kafka's ``testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions``:

    >>> p = Problem.from_mapping({"topics": {"t1": 3, "t2": 3, "t3": 2}, "members": {
    ...     "A": {"topics": ["t1", "t2"]}, "B": {"topics": ["t3"]}, "C": {"topics": ["t2", "t3"]}}})
    >>> assign(p).to_mapping()
    {'A': {'t1': [0, 1, 2], 't2': [0, 1]}, 'B': {'t3': [0]}, 'C': {'t2': [2], 't3': [1]}}
    """
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    # TopicMetadata: per topic, its subscribers, the quota and the extra partitions still to hand out, the next range.
    subscribers = np.array([len(problem.subscribers[t.name]) for t in problem.topics], dtype=np.int64)
    sizes = np.diff(offsets)
    quota = sizes // np.maximum(subscribers, 1)  # minQuota (topics nobody subscribes to are never visited)
    extra = sizes - quota * np.maximum(subscribers, 1)  # extraPartitions
    next_range = np.zeros(len(problem.topics), dtype=np.int64)
    owner = np.full(int(offsets[-1]), -1, dtype=np.int32)
    for m in member_order(problem):
        for name in sorted(problem.members[m].topics):
            t = index.get(name)
            if t is None:
                continue
            start = next_range[t]
            take = quota[t] + (1 if extra[t] > 0 else 0)
            extra[t] -= 1 if extra[t] > 0 else 0
            end = min(start + take, sizes[t])
            next_range[t] = end
            owner[offsets[t] + start : offsets[t] + end] = m
    return Assignment.from_owners(problem, owner)
