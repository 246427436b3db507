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
from assignment_oracle.problem.ownership import Placement, place

__all__ = [
    "load_array",
    "load_vector",
    "sorted_loads",
    "sum_of_squares",
    "spread",
    "kip54_balance_score",
    "sorted_load_distance",
    "retained",
    "cross_rack",
    "per_topic_spread",
]


def load_array(problem: Problem, assignment: Assignment, placement: Placement | None = None) -> np.ndarray:
    """Partitions per member, in ``problem.members`` order, as an array (members
    not in the group are not counted; duplicates, unknown topics and
    partitions are)."""
    placement = place(problem, assignment) if placement is None else placement
    member = placement.member
    return np.bincount(member[member >= 0], minlength=len(problem.members)).astype(np.int64)


def load_vector(problem: Problem, assignment: Assignment) -> tuple[int, ...]:
    """:func:`load_array` as a tuple."""
    return tuple(load_array(problem, assignment).tolist())


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


def retained(
    problem: Problem, assignment: Assignment, claims: ResolvedClaims | None = None, placement: Placement | None = None
) -> int:
    """Distinct partitions that ``assignment`` gives to their resolved previous owner."""
    claims = resolve_claims(problem) if claims is None else claims
    placement = place(problem, assignment) if placement is None else placement
    placed = placement.placed
    partition = placement.partition[placed]
    kept = np.zeros(claims.previous_owner_array.size, dtype=bool)
    kept[partition[claims.previous_owner_array[partition] == placement.member[placed]]] = True
    return int(kept.sum())


def cross_rack(problem: Problem, assignment: Assignment, placement: Placement | None = None) -> int:
    """Partitions ``assignment`` gives to a member outside their replicas' racks (KIP-881).

    A partition is local to a member when the member's rack is among the
    racks of the partition's replicas; no rack information on either side
    means local (:class:`~assignment_oracle.problem.model.RackLocality`).
    Every placed row counts (a partition given twice to non-local members
    counts twice; an invalid assignment is reported as such elsewhere).
    """
    locality = problem.rack_locality
    if not locality.active:
        return 0
    placement = place(problem, assignment) if placement is None else placement
    placed = placement.placed
    return int((~locality.is_local(placement.partition[placed], placement.member[placed])).sum())


def per_topic_spread(problem: Problem, assignment: Assignment) -> dict[str, int]:
    """Topic -> max minus min of the topic's partitions held per subscriber.

    Users ask for it (KAFKA-16277: after a member joins, the cooperative
    sticky assignor could give it every partition of one topic, balanced in
    total but skewed per topic).  Only subscribed topics, only subscribers
    counted; a partition given twice counts twice.
    """
    placement = place(problem, assignment)
    rows = (placement.member >= 0) & (placement.topic >= 0)
    width = max(1, len(problem.members))
    held = np.bincount(
        placement.topic[rows].astype(np.int64) * width + placement.member[rows], minlength=len(problem.topics) * width
    ).reshape(len(problem.topics), width)
    out: dict[str, int] = {}
    for i, topic in enumerate(problem.topics):
        subscribers = problem.subscribers[topic.name]
        if subscribers:
            counts = held[i, list(subscribers)]
            out[topic.name] = int(counts.max() - counts.min())
    return out
