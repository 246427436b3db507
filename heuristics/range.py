"""Kafka's RangeAssignor (``range``), the default of the classic consumer.

Guarantee claimed: per topic, the subscribers' shares differ by at most one
partition, and topics with the same partition count and the same subscribers
are *co-partitioned*: partition ``p`` of each goes to the same member (what
joins of equally partitioned topics need).  Nothing is promised across
topics: every topic starts over from the first member, so the first members
collect the extras of every topic (KIP-49's table, KIP-54 example 3), and
nothing is promised about keeping previous owners.

Algorithm (``org.apache.kafka.clients.consumer.RangeAssignor``, Kafka 0.9+):
for each topic, sort its subscribers (static members first, by
``group.instance.id``, then by member id: KIP-345, see
:mod:`~assignment_oracle.heuristics.member_info`); with ``n`` partitions and
``k`` subscribers, member ``i`` gets the contiguous range starting at
``i * (n // k) + min(i, n % k)``, of length ``n // k`` plus one for the first
``n % k`` members.  Owned partitions and generations are ignored.  (The
rack-aware refinement of KIP-881 is not ported: replica racks are ignored,
which is Kafka's own behaviour whenever members or partitions carry no rack.)
"""

from __future__ import annotations

import numpy as np

from assignment_oracle.heuristics.member_info import member_order
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["assign"]


def assign(problem: Problem) -> Assignment:
    """Contiguous ranges per topic, the first ``n % k`` subscribers one extra.

    Examples
    --------
    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 5}, "members": {
    ...     "a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t': [0, 1, 2]}, 'b': {'t': [3, 4]}}
    """
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    rank = {m: r for r, m in enumerate(member_order(problem))}
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
