"""Kafka's RoundRobinAssignor (``roundrobin``).

Guarantee claimed: when every member subscribes to the same topics, the loads
differ by at most one partition.  With differing subscriptions nothing is
promised, and the result can be badly skewed (KIP-49's motivation, KIP-54
example 2); owned partitions are ignored, so a rebalance reshuffles.

Algorithm (``org.apache.kafka.clients.consumer.RoundRobinAssignor``): list
every partition of every subscribed topic, topics by name, then by partition
number; walk the members as a circle, in Kafka's ``MemberInfo`` order
(static members first, by ``group.instance.id``, then by member id: KIP-345,
see :mod:`~assignment_oracle.heuristics.member_info`).  For each
partition, advance around the circle to the next member subscribed to its
topic, give it the partition, and step past it (KIP-54's note on KAFKA-2019:
the next partition starts at the next member, not from the top of the list).
"""

from __future__ import annotations

import numpy as np

from assignment_oracle.heuristics.member_info import member_order
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["assign"]


def assign(problem: Problem) -> Assignment:
    """Deal partitions around the circle of members, skipping non-subscribers.

    Examples
    --------
    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t0": 1, "t1": 2}, "members": {
    ...     "a": {"topics": ["t0", "t1"]}, "b": {"topics": ["t1"]}}})
    >>> assign(p).to_mapping()
    {'a': {'t0': [0], 't1': [1]}, 'b': {'t1': [0]}}
    """
    order = member_order(problem)  # the circle: static members by instance id, then dynamic ones by member id
    n = len(order)
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    circle = np.asarray(order, dtype=np.int32)
    position = 0  # the circular iterator, as a position in the circle
    for i, topic in enumerate(problem.topics):  # sorted by name
        subscribers = problem.subscribers[topic.name]
        if not subscribers:
            continue
        start = int(problem.partition_offsets[i])
        if len(subscribers) == n:  # nobody to skip: partition p goes to the member p steps further on
            owner[start : start + topic.partitions] = circle[(position + np.arange(topic.partitions)) % n]
            position = (position + topic.partitions) % n
            continue
        subscribed = set(subscribers)
        for p in range(topic.partitions):
            while order[position] not in subscribed:  # a subscriber exists, so this stops
                position = (position + 1) % n
            owner[start + p] = order[position]
            position = (position + 1) % n
    return Assignment.from_owners(problem, owner)
