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

Under the cooperative protocol (KIP-429) validity of each assignment is not
enough: a member keeps consuming every partition it *holds* until it revokes
it, and it revokes a partition only when it sees it missing from a new
assignment.  So a partition may go to a member that does not hold it only
once no other member holds it; :func:`cooperative_handoffs` lists every
rebalance that broke this (a :class:`Handoff`), from what each member holds
(:func:`held_partitions`), not from who won claim resolution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = ["Violation", "VIOLATION_KINDS", "owner_arrays", "violations", "assignment_from_owners",
           "Handoff", "held_partitions", "cooperative_handoffs"]

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


@dataclass(frozen=True)
class Handoff:
    """A partition given to a member that did not hold it, while another member still held it.

    ``round`` counts the rebalances of one cooperative protocol run: 0 is the
    rebalance the problem describes, ``r`` its ``r``-th follow-up.
    ``holders`` are the members that still held the partition (sorted): each
    keeps consuming it until it has revoked it, so for a while the partition
    is consumed by ``holders`` and ``member_id`` at once.
    """

    round: int
    topic: str
    partition: int
    member_id: str
    holders: tuple[str, ...]

    def __str__(self) -> str:
        return (f"rebalance {self.round}: {self.topic}-{self.partition} given to {self.member_id} "
                f"while {', '.join(self.holders)} still held it")

    def to_mapping(self) -> dict:
        return {"round": self.round, "topic": self.topic, "partition": self.partition,
                "member": self.member_id, "holders": list(self.holders)}


def held_partitions(problem: Problem) -> dict[str, frozenset[TopicPartition]]:
    """Member id -> the partitions it holds as the rebalance starts: every partition it claims.

    Whatever claim resolution decides (:func:`problem.claims.resolve_claims`
    drops tied, superseded and unsubscribed claims), the member still has
    those partitions: under the cooperative protocol its claims *are* its
    current assignment (``ownedPartitions``), and it gives a partition up
    only when a new assignment leaves it out.  Claims on partitions that do
    not exist are held too (the member was consuming them); they can never
    be handed to anyone, so they never cause a :class:`Handoff`.  A member
    that left the group sends nothing and holds nothing.
    """
    return {
        m.member_id: frozenset(TopicPartition(t, p) for t, partitions in m.owned for p in partitions)
        for m in problem.members
    }


def cooperative_handoffs(problem: Problem, rounds: Sequence[Assignment]) -> tuple[Handoff, ...]:
    """Every partition the rebalances ``rounds`` hand to a new owner while another member holds it.

    ``rounds[0]`` is the assignment of the rebalance ``problem`` describes,
    where members hold what they claim (:func:`held_partitions`);
    ``rounds[r]`` that of the ``r``-th follow-up rebalance, where every
    member of the group holds exactly what ``rounds[r - 1]`` gave it (it
    revoked the rest, which is why it rejoined).  A partition given to a
    member that already held it is no handoff even if another member held it
    too: nothing new consumes it, and the other holder revokes it.  This is
    Kafka's own test of the protocol (``verifyCooperativeValidity`` in
    ``CooperativeStickyAssignorTest``: no partition is both added to one
    member and revoked from another in the same rebalance).

    Examples
    --------
    Two members tied on t-0 at the same generation: claim resolution gives
    it to nobody, but both still consume it, so ``c`` may not have it yet.

    >>> p = Problem.from_mapping({"topics": {"t": 3}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [0, 2]}, "generation": 1},
    ...     "c": {"topics": ["t"]}}})
    >>> eager = Assignment({"a": {"t": (1,)}, "b": {"t": (2,)}, "c": {"t": (0,)}})
    >>> [str(h) for h in cooperative_handoffs(p, [eager])]
    ['rebalance 0: t-0 given to c while a, b still held it']
    >>> first = Assignment({"a": {"t": (1,)}, "b": {"t": (2,)}, "c": {}})
    >>> cooperative_handoffs(p, [first, eager])
    ()
    """
    held = held_partitions(problem)
    found: list[Handoff] = []
    for number, assignment in enumerate(rounds):
        holders: dict[TopicPartition, list[str]] = {}
        for member_id in sorted(held):
            for tp in held[member_id]:
                holders.setdefault(tp, []).append(member_id)
        for member_id in sorted(assignment.members):
            mine = held.get(member_id, frozenset())
            for tp in sorted(set(assignment.partitions_of(member_id))):
                if tp not in mine and tp in holders:
                    found.append(Handoff(number, tp.topic, tp.partition, member_id, tuple(holders[tp])))
        held = {m: frozenset(assignment.partitions_of(m)) for m in problem.member_ids}
    return tuple(found)
