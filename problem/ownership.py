"""Assignments as per-topic owner arrays, and what makes an assignment valid.

A valid assignment gives every partition of every topic that has at least one
subscriber to exactly one member subscribed to that topic, and nothing else.
:func:`violations` names each way an assignment breaks that:

``missing``
    a partition of a subscribed topic that nobody got;
``duplicated``
    a partition given more than once (to two members, or twice to one);
``not-subscribed``
    a partition given to a member that does not subscribe to its topic;
``unknown``
    an unknown member, an unknown topic, or a partition number the topic does
    not have.

Inside the exact models an assignment is an int32 array per topic: entry
``p`` is the index (in ``problem.members``) of the member that owns partition
``p``, or -1.  :func:`owner_arrays` and :func:`assignment_from_owners`
convert between the two forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from problem.model import Assignment, Problem

__all__ = ["Violation", "VIOLATION_KINDS", "owner_arrays", "violations", "assignment_from_owners"]

VIOLATION_KINDS = ("missing", "duplicated", "not-subscribed", "unknown")


@dataclass(frozen=True)
class Violation:
    """One way an assignment is invalid, for one member (if any) and topic."""

    kind: str
    topic: str
    partitions: tuple[int, ...]
    member_id: str | None = None
    detail: str = ""

    def __str__(self) -> str:
        parts = ", ".join(f"{self.topic}-{p}" for p in self.partitions[:8])
        if len(self.partitions) > 8:
            parts += f", … ({len(self.partitions)} in all)"
        who = f" (member {self.member_id})" if self.member_id is not None else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.kind}{who}: {parts or self.topic}{extra}"

    def to_mapping(self) -> dict:
        out = {"kind": self.kind, "topic": self.topic, "partitions": list(self.partitions)}
        if self.member_id is not None:
            out["member"] = self.member_id
        if self.detail:
            out["detail"] = self.detail
        return out


def owner_arrays(problem: Problem, assignment: Assignment) -> tuple[dict[str, np.ndarray], tuple[Violation, ...]]:
    """Per-topic owner arrays of ``assignment``, and its violations.

    Where a partition is duplicated, the array holds one of its holders; the
    arrays are meaningful only when there are no violations.
    """
    counts = problem.partition_counts
    index = problem.member_index
    owners = {t.name: np.full(t.partitions, -1, dtype=np.int32) for t in problem.topics}
    seen = {t.name: np.zeros(t.partitions, dtype=np.int64) for t in problem.topics}
    found: list[Violation] = []
    for member_id in sorted(assignment.members):
        for topic in sorted(assignment.members[member_id]):
            given = np.asarray(assignment.members[member_id][topic], dtype=np.int64)
            if given.size == 0:
                continue
            if member_id not in index:
                found.append(Violation("unknown", topic, tuple(sorted(given.tolist())), member_id, "not a member of the group"))
                continue
            if topic not in counts:
                found.append(Violation("unknown", topic, tuple(sorted(given.tolist())), member_id, "no such topic"))
                continue
            beyond = (given >= counts[topic]) | (given < 0)
            if beyond.any():
                found.append(
                    Violation("unknown", topic, tuple(sorted(given[beyond].tolist())), member_id,
                              f"the topic has {counts[topic]} partitions")
                )
            given = given[~beyond]
            if topic not in problem.members[index[member_id]].topics:
                found.append(Violation("not-subscribed", topic, tuple(sorted(given.tolist())), member_id))
            np.add.at(seen[topic], given, 1)
            owners[topic][given] = index[member_id]
    for topic in problem.topics:
        name = topic.name
        twice = np.flatnonzero(seen[name] > 1)
        if twice.size:
            found.append(Violation("duplicated", name, tuple(twice.tolist()), None, "assigned more than once"))
        if problem.subscribers[name]:
            never = np.flatnonzero(seen[name] == 0)
            if never.size:
                found.append(Violation("missing", name, tuple(never.tolist())))
    return owners, tuple(found)


def violations(problem: Problem, assignment: Assignment) -> tuple[Violation, ...]:
    """Every way ``assignment`` is not a valid assignment for ``problem`` (empty if valid)."""
    return owner_arrays(problem, assignment)[1]


def assignment_from_owners(problem: Problem, owners: Mapping[str, np.ndarray]) -> Assignment:
    """Build an :class:`Assignment` from per-topic owner arrays (-1 = nobody).

    Every group member appears, with ``{}`` when it gets nothing.
    """
    ids = problem.member_ids
    members: dict[str, dict[str, tuple[int, ...]]] = {m: {} for m in ids}
    for topic in sorted(owners):
        owner = np.asarray(owners[topic])
        order = np.argsort(owner, kind="stable")
        holders = owner[order]
        cuts = np.flatnonzero(np.diff(holders)) + 1
        for block in np.split(order, cuts):
            if block.size == 0:
                continue
            holder = int(owner[block[0]])
            if holder >= 0:
                members[ids[holder]][topic] = tuple(block.tolist())
    return Assignment(members)
