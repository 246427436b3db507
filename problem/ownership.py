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
    not have; a member or topic the group does not have is one whatever it
    holds (a member listed with ``{}``, a topic with ``[]``).

Inside the exact models an assignment is an int32 array per topic: entry
``p`` is the index (in ``problem.members``) of the member that owns partition
``p``, or -1.  :func:`owner_array` (:func:`owner_arrays` per topic) and
:meth:`Assignment.from_owners` convert between the two forms.

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
from typing import Sequence

import numpy as np

from assignment_oracle.problem.invented import invented
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = [
    "Violation",
    "VIOLATION_KINDS",
    "Placement",
    "place",
    "owner_array",
    "owner_arrays",
    "subscribes",
    "subscription_mask_first",
    "split_by_topic",
    "violations",
    "Handoff",
    "held_partitions",
    "cooperative_handoffs",
]

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
        what = parts or self.topic
        return f"{self.kind}{who}: {what}{extra}" if what else f"{self.kind}{who}{extra}"

    def to_mapping(self) -> dict:
        out = {"kind": self.kind, "topic": self.topic, "partitions": list(self.partitions)}
        if self.member_id is not None:
            out["member"] = self.member_id
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Placement:
    """Each row of an assignment located in a problem: dense indices, computed once, vectorised.

    ``member[r]`` is the row's member as an index into ``problem.members``
    (-1: not a member of the group), ``topic[r]`` its topic as an index into
    ``problem.topics`` (-1: no such topic), ``partition[r]`` its global
    partition number (``problem.partition_offsets``; -1 when the member or
    topic is unknown or the topic has no such partition).
    """

    member: np.ndarray
    topic: np.ndarray
    partition: np.ndarray

    @property
    def placed(self) -> np.ndarray:
        """Rows that name a group member and a partition that exists."""
        return (self.member >= 0) & (self.partition >= 0)


def place(problem: Problem, assignment: Assignment) -> Placement:
    """Locate every row of ``assignment`` in ``problem`` (see :class:`Placement`).

    Names are matched once per distinct name, not per row; the result is
    kept on the assignment for the last problem it was placed in.
    """
    cached = assignment._located.get("place")
    if cached is not None and cached[0] is problem:
        return cached[1]
    placement = _place(problem, assignment)
    assignment._located["place"] = (problem, placement)
    return placement


def _place(problem: Problem, assignment: Assignment) -> Placement:
    index = problem.member_index
    member_of = np.array([index.get(n, -1) for n in assignment.member_names], dtype=np.int32)
    topic_index = {t: i for i, t in enumerate(problem.topic_names)}
    topic_of = np.array([topic_index.get(t, -1) for t in assignment.topic_names], dtype=np.int32)
    member = member_of[assignment.member] if member_of.size else np.zeros(0, np.int32)
    topic = topic_of[assignment.topic] if topic_of.size else np.zeros(0, np.int32)
    sizes = np.diff(problem.partition_offsets)
    known = (member >= 0) & (topic >= 0)
    limit = np.where(known, sizes[np.maximum(topic, 0)] if sizes.size else 0, 0)
    inside = known & (assignment.partition >= 0) & (assignment.partition < limit)
    partition = np.full(assignment.size, -1, dtype=np.int64)
    partition[inside] = problem.partition_offsets[topic[inside]] + assignment.partition[inside]
    return Placement(member, topic, partition)


def subscribes(problem: Problem, member: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """Element-wise: does ``problem.members[member[i]]`` subscribe to ``problem.topics[topic[i]]``.

    :attr:`Problem.subscription_mask` answers in one lookup per pair, but building it reads every
    distinct subscription (100,000 names in a coordinator's group of 1,000 members with 100 topics
    each); a few pairs (an exact model's answer gives each member a run of a few topics) are asked
    of the members' own topic sets instead, unless the mask is built already.
    """
    if "subscription_mask" not in problem.__dict__ and member.size < _subscription_size(problem):
        names, members = problem.topic_names, problem.members
        return np.fromiter(
            (names[t] in members[m].topics for m, t in zip(member.tolist(), topic.tolist())),
            dtype=bool,
            count=member.size,
        )
    mask, group_of_member = problem.subscription_mask
    return mask[group_of_member[member], topic]


def _subscription_size(problem: Problem) -> int:
    """Topics named over the members' distinct subscriptions: what building the mask reads."""
    return sum(map(len, {m.topics for m in problem.members}))


def subscription_mask_first(problem: Problem, lookups: int) -> bool:
    """Whether ``lookups`` pairs go straight to the subscription mask, without finding the distinct
    pairs first: when it is built already, or building it reads fewer names than a tenth of the
    lookups (a name costs about ten times a vectorised lookup; Kafka's 1,000,000-partition group has
    one subscription of 500 topics)."""
    return "subscription_mask" in problem.__dict__ or 10 * _subscription_size(problem) < lookups


def owner_array(
    problem: Problem, assignment: Assignment, placement: Placement | None = None
) -> tuple[np.ndarray, tuple[Violation, ...]]:
    """One owner per partition in global order (-1: nobody), and the assignment's violations.

    Vectorised over the rows.  Where a partition is duplicated, the array
    holds one of its holders; it is meaningful only when there are no
    violations.  Violations come member by member (sorted by id), topic by
    topic, then the duplicated and missing partitions topic by topic.
    """
    placement = place(problem, assignment) if placement is None else placement
    member, topic, partition = placement.member, placement.topic, placement.partition
    offsets = problem.partition_offsets
    owner = np.full(int(offsets[-1]), -1, dtype=np.int32)
    placed = placement.placed
    owner[partition[placed]] = member[placed]
    seen = np.bincount(partition[placed], minlength=owner.size)

    found: list[tuple[tuple, Violation]] = []  # (sort key, violation): member, topic, then kind order
    unsubscribed = placed.copy()
    if placed.any():
        rows = np.flatnonzero(placed)
        if subscription_mask_first(problem, rows.size):
            unsubscribed[rows] = ~subscribes(problem, member[rows], topic[rows])
        else:  # rows come in (member, topic) runs: ask once per run
            key = member[rows].astype(np.int64) * max(1, len(problem.topics)) + topic[rows]
            run = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            answer = subscribes(problem, member[rows[run]], topic[rows[run]])
            unsubscribed[rows] = ~np.repeat(answer, np.diff(np.r_[run, rows.size]))
    bad = (member < 0) | (topic < 0) | ((partition < 0) & (member >= 0)) | unsubscribed
    if bad.any():
        starts = assignment._blocks[0]
        block_of_row = np.searchsorted(starts, np.arange(assignment.size), side="right") - 1
        for block in np.unique(block_of_row[bad]).tolist():
            lo = int(starts[block])
            hi = int(starts[block + 1]) if block + 1 < starts.size else assignment.size
            member_id = assignment.member_names[int(assignment.member[lo])]
            name = assignment.topic_names[int(assignment.topic[lo])]
            given = assignment.partition[lo:hi]
            key = (member_id, name)
            if member[lo] < 0:
                found.append(
                    (
                        key + (0,),
                        Violation("unknown", name, tuple(given.tolist()), member_id, "not a member of the group"),
                    )
                )
                continue
            if topic[lo] < 0:
                found.append(
                    (key + (0,), Violation("unknown", name, tuple(given.tolist()), member_id, "no such topic"))
                )
                continue
            beyond = partition[lo:hi] < 0
            if beyond.any():
                count = int(offsets[topic[lo] + 1] - offsets[topic[lo]])
                found.append(
                    (
                        key + (1,),
                        Violation(
                            "unknown",
                            name,
                            tuple(given[beyond].tolist()),
                            member_id,
                            f"the topic has {count} partitions",
                        ),
                    )
                )
            if not subscribes(problem, member[lo : lo + 1], topic[lo : lo + 1])[0]:
                found.append((key + (2,), Violation("not-subscribed", name, tuple(given[~beyond].tolist()), member_id)))
    found.extend(_unknown_names(problem, assignment))
    found.sort(key=lambda pair: pair[0])
    out = [v for _, v in found]
    twice = np.flatnonzero(seen > 1)
    assignable = np.zeros(len(problem.topics), dtype=bool)
    for i, t in enumerate(problem.topics):
        assignable[i] = bool(problem.subscribers[t.name])
    never = np.flatnonzero((seen == 0) & np.repeat(assignable, np.diff(offsets)))
    if twice.size or never.size:
        for i, t in enumerate(problem.topics):
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            dup = twice[(twice >= lo) & (twice < hi)]
            if dup.size:
                out.append(Violation("duplicated", t.name, tuple((dup - lo).tolist()), None, "assigned more than once"))
            gap = never[(never >= lo) & (never < hi)]
            if gap.size:
                out.append(Violation("missing", t.name, tuple((gap - lo).tolist())))
    owner.setflags(write=False)
    assignment._located["owner"] = (problem, (owner, tuple(out)))
    return owner, tuple(out)


def _unknown_names(problem: Problem, assignment: Assignment) -> list[tuple[tuple, Violation]]:
    """Names the group does not have that hold nothing: a member listed with nothing (``{}``), a topic listed
    with no partitions (``[]``), found by the one rule (:func:`problem.invented.invented`); rows that name
    unknown members or topics are reported by :func:`owner_array` itself."""
    with_rows = set(np.unique(assignment.member).tolist())
    found = invented(
        ((name, k in with_rows) for k, name in enumerate(assignment.member_names)),
        assignment.listed_empty,
        problem.member_index,
        problem.partition_counts,
    )
    out = [((name, "", 0), Violation("unknown", "", (), name, "not a member of the group")) for name in found.members]
    out += [((m, t, 0), Violation("unknown", t, (), m, "no such topic")) for m, t in found.containers]
    return out


def split_by_topic(problem: Problem, owner: np.ndarray) -> dict[str, np.ndarray]:
    """Topic name -> its slice (a view) of a global per-partition array."""
    offsets = problem.partition_offsets.tolist()
    return {t.name: owner[offsets[i] : offsets[i + 1]] for i, t in enumerate(problem.topics)}


def owner_arrays(problem: Problem, assignment: Assignment) -> tuple[dict[str, np.ndarray], tuple[Violation, ...]]:
    """Per-topic owner arrays of ``assignment`` (views of :func:`owner_array`), and its violations."""
    owner, found = owner_array(problem, assignment)
    return split_by_topic(problem, owner), found


def violations(problem: Problem, assignment: Assignment) -> tuple[Violation, ...]:
    """Every way ``assignment`` is not a valid assignment for ``problem`` (empty if valid)."""
    return owner_array(problem, assignment)[1]


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
        return (
            f"rebalance {self.round}: {self.topic}-{self.partition} given to {self.member_id} "
            f"while {', '.join(self.holders)} still held it"
        )

    def to_mapping(self) -> dict:
        return {
            "round": self.round,
            "topic": self.topic,
            "partition": self.partition,
            "member": self.member_id,
            "holders": list(self.holders),
        }


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
