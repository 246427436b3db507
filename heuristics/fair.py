"""The "fair" assignor proposed by KIP-49 (``fair``), never shipped by Kafka.

Guarantee claimed: KIP-49 promises an assignor that "attempts to assign an
equal number of partitions to each consumer regardless of how similar their
subscriptions are"; what it can actually promise is the greedy's: every
partition goes to a least-loaded member among those that can take it, at the
moment it is placed, and with identical subscriptions the loads differ by at
most one.  With differing subscriptions a greedy can still miss the most
balanced assignment (the oracle finds such cases).

Algorithm (KIP-49, "Proposed Changes"): place partitions one at a time, each
to the least-loaded eligible member.  Topics are taken in this order:

1. fewest subscribers first;
2. among those, more partitions first;
3. then by topic name (the KIP leaves this open).

Within a topic, partitions go in partition order; a tie between equally
loaded members goes to the smallest member id.  The KIP does not state
rules 3 and the member tie-break; they are the reading that reproduces its
example table exactly (C1: T2-0, T3-0; C2: T1-0, T3-1; C3: T1-1, T5-0; C4:
T4-0, T5-1), which ``tests/heuristics/test_seed_tables.py`` checks: T2 and
T4 (two subscribers, one partition each) go first, T2 to C1 by id and T4 to
the then-lighter C4; T1, T3, T5 (four subscribers, two partitions each)
follow by name, each partition to the lightest member, smallest id first.
Owned partitions are ignored (the proposal predates stickiness).
"""

from __future__ import annotations

import heapq

from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = ["assign", "topic_order"]


def topic_order(problem: Problem) -> list[str]:
    """The subscribed topics in KIP-49's order: fewest subscribers, most partitions, name."""
    return [
        t.name
        for t in sorted(
            problem.assignable_topics,
            key=lambda t: (len(problem.subscribers[t.name]), -t.partitions, t.name),
        )
    ]


def assign(problem: Problem) -> Assignment:
    """Each partition to the least-loaded eligible member, most constrained topics first.

    Examples
    --------
    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"a": 2, "b": 1}, "members": {
    ...     "x": {"topics": ["a", "b"]}, "y": {"topics": ["a"]}}})
    >>> assign(p).to_mapping()  # b (one subscriber) first, to x; then a evens out
    {'x': {'a': [1], 'b': [0]}, 'y': {'a': [0]}}
    """
    ids = problem.member_ids
    load = [0] * len(ids)
    given: dict[str, list[TopicPartition]] = {}
    counts = problem.partition_counts
    for name in topic_order(problem):
        # The lightest subscriber of this topic, kept in a heap of (load, index);
        # member indices follow member ids, so ties go to the smallest id.
        heap = [(load[m], m) for m in problem.subscribers[name]]
        heapq.heapify(heap)
        for p in range(counts[name]):
            _, m = heapq.heappop(heap)
            given.setdefault(ids[m], []).append(TopicPartition(name, p))
            load[m] += 1
            heapq.heappush(heap, (load[m], m))
    return Assignment.from_partitions(given, ids)
