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

from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

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
    ids = problem.member_ids
    given: dict[str, list[TopicPartition]] = {}
    position = 0  # the circular iterator over members
    for topic in problem.assignable_topics:  # sorted by name
        subscribed = set(problem.subscribers[topic.name])
        for p in range(topic.partitions):
            while position not in subscribed:  # a subscriber exists, so this stops
                position = (position + 1) % len(ids)
            given.setdefault(ids[position], []).append(TopicPartition(topic.name, p))
            position = (position + 1) % len(ids)
    return Assignment.from_partitions(given, ids)
