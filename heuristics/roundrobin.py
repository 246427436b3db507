"""Kafka's RoundRobinAssignor (``roundrobin``).

Guarantee claimed: when every member subscribes to the same topics, the loads
differ by at most one partition.  With differing subscriptions nothing is
promised, and the result can be badly skewed (KIP-49's motivation, KIP-54
example 2); owned partitions are ignored, so a rebalance reshuffles.

Algorithm (``org.apache.kafka.clients.consumer.RoundRobinAssignor``): list
every partition of every subscribed topic, topics by name, then by partition
number; walk the members, sorted by member id, as a circle.  For each
partition, advance around the circle to the next member subscribed to its
topic, give it the partition, and step past it (KIP-54's note on KAFKA-2019:
the next partition starts at the next member, not from the top of the list).
"""

from __future__ import annotations

import numpy as np

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
    n = len(problem.members)
    owner = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
    position = 0  # the circular iterator over members
    for i, topic in enumerate(problem.topics):  # sorted by name
        subscribers = problem.subscribers[topic.name]
        if not subscribers:
            continue
        start = int(problem.partition_offsets[i])
        if len(subscribers) == n:  # nobody to skip: partition p goes to the member p steps further on
            owner[start : start + topic.partitions] = (position + np.arange(topic.partitions)) % n
            position = (position + topic.partitions) % n
            continue
        subscribed = set(subscribers)
        for p in range(topic.partitions):
            while position not in subscribed:  # a subscriber exists, so this stops
                position = (position + 1) % n
            owner[start + p] = position
            position = (position + 1) % n
    return Assignment.from_owners(problem, owner)
