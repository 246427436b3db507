"""Numbers about one assignment: loads, balance scores, stickiness.

Library code, no printing; every judge, test, sweep and notebook takes its
numbers from here.  Functions take plain loads where they can, so they apply
to any assignor's output, valid or not.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "load_vector",
    "sorted_loads",
    "sum_of_squares",
    "spread",
    "kip54_balance_score",
    "sorted_load_distance",
    "retained",
    "per_topic_spread",
]


def load_vector(problem: Problem, assignment: Assignment) -> tuple[int, ...]:
    """Partitions per member, in ``problem.members`` order (members not in the
    group are not counted; duplicates are)."""
    return tuple(assignment.load(m) for m in problem.member_ids)


def sorted_loads(loads: Iterable[int]) -> tuple[int, ...]:
    """Loads sorted descending: the vector "most balanced" compares."""
    return tuple(sorted((int(x) for x in loads), reverse=True))


def sum_of_squares(loads: Iterable[int]) -> int:
    return sum(int(x) ** 2 for x in loads)


def spread(loads: Sequence[int]) -> int:
    """Maximum load minus minimum load (0 for an empty group)."""
    return (max(loads) - min(loads)) if len(loads) else 0


def kip54_balance_score(loads: Iterable[int]) -> int:
    """KIP-54's balance score: the sum over member pairs of the difference in
    their partition counts (0 is perfectly balanced).

    Computed in O(n log n): in ascending order the i-th of n loads is larger
    than i others and smaller than n - 1 - i.
    """
    ascending = sorted(int(x) for x in loads)
    n = len(ascending)
    return sum((2 * i - n + 1) * x for i, x in enumerate(ascending))


def sorted_load_distance(loads: Iterable[int], target: Iterable[int]) -> int:
    """How many single-partition moves turn one sorted load vector into the other.

    Both vectors are sorted descending and must have the same length and
    total; the answer is ``sum(max(0, a_i - b_i))``, the least number of unit
    moves between the two multisets of loads.
    """
    a, b = sorted_loads(loads), sorted_loads(target)
    if len(a) != len(b) or sum(a) != sum(b):
        raise ValueError("load vectors of different sizes or totals cannot be compared")
    return sum(max(0, x - y) for x, y in zip(a, b))


def retained(problem: Problem, assignment: Assignment, claims: ResolvedClaims | None = None) -> int:
    """Distinct partitions that ``assignment`` gives to their resolved previous owner."""
    claims = resolve_claims(problem) if claims is None else claims
    index = problem.member_index
    kept = 0
    for member_id, topics in assignment.members.items():
        if member_id not in index:
            continue
        for topic, partitions in topics.items():
            before = claims.previous_owner.get(topic)
            if before is None:
                continue
            mine = np.unique(np.asarray(partitions, dtype=np.int64))
            mine = mine[(mine >= 0) & (mine < before.size)]
            kept += int((before[mine] == index[member_id]).sum())
    return kept


def per_topic_spread(problem: Problem, assignment: Assignment) -> dict[str, int]:
    """Topic -> max minus min of the topic's partitions held per subscriber.

    Users ask for it (KAFKA-16277: after a member joins, the cooperative
    sticky assignor could give it every partition of one topic, balanced in
    total but skewed per topic).  Only subscribed topics, only subscribers
    counted; a partition given twice counts twice.
    """
    ids = problem.member_ids
    out: dict[str, int] = {}
    for topic in problem.assignable_topics:
        counts = [len(assignment.members.get(ids[m], {}).get(topic.name, ())) for m in problem.subscribers[topic.name]]
        out[topic.name] = max(counts) - min(counts)
    return out
