"""Three notions of "balanced", and the exact test that needs no solver.

1. **Most balanced** (:func:`is_most_balanced`): the loads sorted descending
   are lexicographically smallest over all valid assignments.  Needs the
   optimum's sorted loads (any exact model gives them); on this problem it is
   the same as minimal sum of squares, and implies minimal maximum, maximal
   minimum and minimal KIP-54 balance score.  Optimal per-member loads are not
   unique, only the sorted vector is, so loads are never compared member by
   member.

2. **Kafka's local balance condition** (:func:`kafka_balance_violations`),
   as the StickyAssignor javadoc states it (the KIP-54 text has it
   backwards): either all loads differ by at most one, or whenever member A
   has 2+ fewer partitions than member B, A cannot take any of B's
   partitions.  It is weaker than most balanced: a chain of moves may be
   needed (the example under :func:`improving_chain`: loads 1/2/0 meet the
   condition although 1/1/1 exists).

3. **No improving chain** (:func:`improving_chain`): no sequence of
   single-partition moves leads from a member to one with 2+ fewer
   partitions.  For a valid assignment this holds exactly when it is most
   balanced (the cost-reducing-path theorem of optimal semi-matchings,
   Harvey, Ladner, Lovasz & Tamir 2003), and it is checked in linear time
   without any solver.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from assignment_oracle.problem.metrics import load_vector, sorted_loads
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition
from assignment_oracle.problem.ownership import owner_arrays

__all__ = [
    "Move",
    "is_most_balanced",
    "kafka_balance_violations",
    "satisfies_kafka_balance_condition",
    "improving_chain",
    "has_no_improving_chain",
]


@dataclass(frozen=True)
class Move:
    """Move one partition from one member to another."""

    partition: TopicPartition
    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.partition}: {self.source} → {self.target}"

    def to_mapping(self) -> dict:
        return {
            "topic": self.partition.topic,
            "partition": self.partition.partition,
            "from": self.source,
            "to": self.target,
        }


def is_most_balanced(loads: Sequence[int], optimal_sorted_loads: Sequence[int]) -> bool:
    """Whether ``loads`` sort to the optimum's sorted load vector."""
    return sorted_loads(loads) == tuple(optimal_sorted_loads)


def _require_valid(problem: Problem, assignment: Assignment) -> dict[str, np.ndarray]:
    owners, broken = owner_arrays(problem, assignment)
    if broken:
        raise ValueError(f"balance is defined for valid assignments only ({broken[0]})")
    return owners


def kafka_balance_violations(problem: Problem, assignment: Assignment) -> list[Move]:
    """Moves that break Kafka's local condition: a partition of member B that a
    member A with 2+ fewer partitions could take (one per (B, topic), to the
    least-loaded such A).  Empty when the condition holds.
    """
    owners = _require_valid(problem, assignment)
    loads = np.array(load_vector(problem, assignment), dtype=np.int64)
    if loads.size == 0 or loads.max() - loads.min() <= 1:
        return []
    ids = problem.member_ids
    found = []
    for topic, owner in owners.items():
        subscribers = np.asarray(problem.subscribers[topic], dtype=np.int64)
        if subscribers.size == 0:
            continue
        lightest = int(subscribers[np.argmin(loads[subscribers])])
        for holder in np.unique(owner):
            if loads[holder] - loads[lightest] >= 2:
                partition = int(np.flatnonzero(owner == holder)[0])
                found.append(Move(TopicPartition(topic, partition), ids[holder], ids[lightest]))
    return found


def satisfies_kafka_balance_condition(problem: Problem, assignment: Assignment) -> bool:
    """Kafka's (javadoc) balance condition; see :func:`kafka_balance_violations`."""
    return not kafka_balance_violations(problem, assignment)


def improving_chain(problem: Problem, assignment: Assignment) -> list[Move] | None:
    """A chain of single-partition moves that makes the assignment more balanced, or None.

    The chain starts at a member ``u`` and ends at a member ``v`` with at
    least 2 fewer partitions; each move hands one partition to a member that
    subscribes to its topic.  Intermediate members give one and take one, so
    the chain lowers ``u`` by one and raises ``v`` by one.  None means the
    (valid) assignment is most balanced.

    Runs in time linear in partitions plus subscriptions: members are taken
    in ascending load, and a reverse breadth-first search from each labels
    every member that can reach it with the lowest reachable load.

    Examples
    --------
    The chain-move example: t0 has 1 partition, t1 has 2; c0 subscribes to
    both, c1 only to t1, c2 only to t0.  Loads 1/2/0 meet Kafka's local
    condition (c2 cannot take anything from c1), but 1/1/1 exists:

    >>> from assignment_oracle.problem import Problem, Assignment
    >>> p = Problem.from_mapping({"topics": {"t0": 1, "t1": 2}, "members": {
    ...     "c0": {"topics": ["t0", "t1"]}, "c1": {"topics": ["t1"]}, "c2": {"topics": ["t0"]}}})
    >>> a = Assignment({"c0": {"t0": (0,)}, "c1": {"t1": (0, 1)}, "c2": {}})
    >>> satisfies_kafka_balance_condition(p, a)
    True
    >>> [str(m) for m in improving_chain(p, a)]
    ['t1-0: c1 → c0', 't0-0: c0 → c2']
    """
    owners = _require_valid(problem, assignment)
    ids = problem.member_ids
    loads = np.array(load_vector(problem, assignment), dtype=np.int64)
    topics = list(owners)
    # holders[t]: members holding a partition of topic t (the reverse edges).
    holders = {t: np.unique(owners[t][owners[t] >= 0]).tolist() for t in topics}
    subscribed = [[t for t in problem.members[m].topics if t in owners] for m in range(len(ids))]
    # For a labelled member: (topic, next member) of its first move toward the target.
    step: dict[int, tuple[str, int] | None] = {}
    reach_load: dict[int, int] = {}
    topic_seen: set[str] = set()
    for target in np.argsort(loads, kind="stable").tolist():
        if target in step:
            continue
        step[target], reach_load[target] = None, int(loads[target])
        queue = deque([target])
        while queue:
            v = queue.popleft()
            for t in sorted(subscribed[v]):
                if t in topic_seen:
                    continue
                topic_seen.add(t)
                for u in holders[t]:
                    if u not in step:
                        step[u], reach_load[u] = (t, v), int(loads[target])
                        if loads[u] - loads[target] >= 2:
                            return _chain(u, step, owners, ids)
                        queue.append(u)
    return None


def _chain(start: int, step, owners, ids) -> list[Move]:
    moves, u = [], start
    while step[u] is not None:
        topic, v = step[u]
        partition = int(np.flatnonzero(owners[topic] == u)[0])
        moves.append(Move(TopicPartition(topic, partition), ids[u], ids[v]))
        u = v
    return moves


def has_no_improving_chain(problem: Problem, assignment: Assignment) -> bool:
    """The solver-free exact test: True iff the valid assignment is most balanced."""
    return improving_chain(problem, assignment) is None
