"""Share groups (KIP-932): the share-group assignment problem, an assignment, and what makes one valid.

In a *share group* (Kafka 4.2+, "queues for Kafka") the members of the group
may *share* a partition: records are handed out and acknowledged one by one,
so several members can consume one partition at once.  The group coordinator's
assignor (``group.share.assignors``, built in: ``SimpleAssignor``) gives each
member a set of partitions of the topics it subscribes to; a partition may go
to several members, and only partitions whose share state is initialised may
be assigned (``GroupSpec.isPartitionAssignable``, KAFKA-19344).

What the assignor sees (``group-coordinator-api``, package
``org.apache.kafka.coordinator.group.api.assignor``, at apache/kafka d79bd502),
and where it lives here:

=========================================  ===============================================
Kafka                                      this module
=========================================  ===============================================
``groupSpec.memberIds()``                  :attr:`ShareProblem.members` (in the order given)
``memberSubscription(m).subscribedTopicIds``  :attr:`ShareMember.topics`
``memberSubscription(m).rackId()``         :attr:`ShareMember.rack` (not read by the assignor)
``memberAssignment(m).partitions()``       :attr:`ShareMember.assigned`
``describer.numPartitions(t)``             :attr:`ShareProblem.topics`
``groupSpec.isPartitionAssignable(t, p)``  :meth:`ShareProblem.is_assignable`
topic ids (``Uuid``)                       :attr:`ShareProblem.topic_ids` (optional; Java's hash order)
``GroupAssignment``                        :class:`ShareAssignment`
=========================================  ===============================================

Everything is validated once, at the edge (:meth:`ShareProblem.from_mapping`,
:meth:`ShareAssignment.from_mapping`): a mistake is one
:class:`~assignment_oracle.problem.errors.InputError` naming the field
(``members.m1.assigned.orders[1]: partition 9 is out of range (orders has 6 partitions)``).

:func:`violations` says whether a :class:`ShareAssignment` is valid: only
members of the group, only partitions that exist, of topics the member
subscribes to, assignable, each at most once per member.  A partition with no
holder is *not* a violation: how many assignable subscribed partitions are
covered is a measure (:func:`uncovered`), the first tier of the optimum.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import numpy as np

from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import unversioned
from assignment_oracle.problem.invented import invented
from assignment_oracle.problem.joining import joining_mapping, read_joining
from assignment_oracle.problem.scenario_json import MAX_PARTITIONS, expect_subscription, kafka_uuid, uuid_bits

__all__ = [
    "KIND",
    "SharePartition",
    "ShareMember",
    "ShareProblem",
    "ShareAssignment",
    "ShareViolation",
    "SHARE_VIOLATION_KINDS",
    "violations",
    "valid_pairs",
    "holders",
    "loads",
    "uncovered",
    "share_problem_from_mapping",
    "share_problem_to_mapping",
    "share_assignment_from_mapping",
    "share_assignment_to_mapping",
]

#: The scenario's ``"kind"``: what tells a share group scenario from the other kinds.
KIND = "share"

#: One partition: ``(topic, partition number)``.
SharePartition = tuple[str, int]

_SCENARIO_KEYS = {"kind", "topics", "members", "joining"}
_TOPIC_KEYS = {"partitions", "assignable", "id"}
_MEMBER_KEYS = {"topics", "rack", "assigned"}


@dataclass(frozen=True)
class ShareMember:
    """A member of a share group as the assignor sees it.

    ``topics`` is the subscription in the order given; ``rack`` is kept for reporting (Kafka's
    ``SimpleAssignor`` is not rack-aware); ``assigned`` is the member's current assignment
    (``memberAssignment(m).partitions()``), sorted by topic name, then partition, each partition once.
    """

    member_id: str
    topics: tuple[str, ...] = ()
    rack: str | None = None
    assigned: tuple[SharePartition, ...] = ()


@dataclass(frozen=True)
class ShareProblem:
    """A share group rebalance: the topics, which of their partitions are assignable, the members.

    ``topics`` maps each topic to its partition count, in the scenario's order.  ``assignable`` lists,
    for the topics that restrict it, the partitions that may be assigned (share state initialised);
    a topic not in it has every partition assignable (:meth:`is_assignable`).  ``topic_ids`` holds
    the Kafka topic ids the scenario gives (what Java's hash order over topics depends on).
    ``members`` keep the scenario's order: the group as presented (Kafka's coordinator fills its
    member map in join order).  Build problems with :meth:`from_mapping` (validated) rather than by
    hand.
    """

    topics: Mapping[str, int]
    members: tuple[ShareMember, ...]
    assignable: Mapping[str, frozenset[int]] = field(default_factory=dict)
    topic_ids: Mapping[str, str] = field(default_factory=dict)
    #: The member joining as the group rebalances (the scenario's ``"joining"``, :mod:`problem.joining`), which
    #: Kafka's coordinator puts after the others; ``None``: every member is in the group already.
    joining: str | None = None

    def __post_init__(self) -> None:
        for name in ("topics", "assignable", "topic_ids"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShareProblem):
            return NotImplemented
        return (
            list(self.topics.items()) == list(other.topics.items())
            and self.members == other.members
            and dict(self.assignable) == dict(other.assignable)
            and dict(self.topic_ids) == dict(other.topic_ids)
            and self.joining == other.joining
        )

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_mapping(
        cls, data: Any, *, source: str = "scenario", max_partitions: int | None = MAX_PARTITIONS
    ) -> ShareProblem:
        """A validated problem from the JSON scenario format (docs/formats.md, "Share groups (KIP-932)")."""
        return share_problem_from_mapping(data, source=source, max_partitions=max_partitions)

    def to_mapping(self) -> dict:
        """The JSON scenario of this problem (round-trips :meth:`from_mapping`)."""
        return share_problem_to_mapping(self)

    # -- lookups, computed once --------------------------------------------------

    @cached_property
    def topic_names(self) -> tuple[str, ...]:
        """The topics in the scenario's order."""
        return tuple(self.topics)

    @cached_property
    def topic_offset(self) -> Mapping[str, int]:
        """Topic -> the dense index of its partition 0 (its partitions follow, in order)."""
        out, at = {}, 0
        for topic, count in self.topics.items():
            out[topic] = at
            at += count
        return MappingProxyType(out)

    @cached_property
    def partition_count(self) -> int:
        """Partitions in all (assignable or not)."""
        return sum(self.topics.values())

    @cached_property
    def partitions(self) -> tuple[SharePartition, ...]:
        """Every partition, topic by topic (the scenario's order), partitions ascending: the dense numbering."""
        return tuple((t, p) for t, n in self.topics.items() for p in range(n))

    @cached_property
    def partition_index(self) -> Mapping[SharePartition, int]:
        """Partition -> its index in :attr:`partitions`."""
        return MappingProxyType({tp: i for i, tp in enumerate(self.partitions)})

    def index_of(self, topic: str, partition: int) -> int:
        """The dense index of a partition that exists (``KeyError`` for an unknown topic)."""
        return self.topic_offset[topic] + partition

    @cached_property
    def member_ids(self) -> tuple[str, ...]:
        """Member ids in the group's order."""
        return tuple(m.member_id for m in self.members)

    @property
    def join_order(self) -> tuple[str, ...]:
        """The member ids in the group's join order: :attr:`member_ids` (a share group keeps the scenario's order)."""
        return self.member_ids

    @cached_property
    def member_index(self) -> Mapping[str, int]:
        return MappingProxyType({m: i for i, m in enumerate(self.member_ids)})

    @cached_property
    def member(self) -> Mapping[str, ShareMember]:
        """Member id -> member."""
        return MappingProxyType({m.member_id: m for m in self.members})

    @cached_property
    def _subscribers(self) -> Mapping[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {t: [] for t in self.topics}
        for m in self.members:
            for t in m.topics:
                out[t].append(m.member_id)
        return MappingProxyType({t: tuple(ms) for t, ms in out.items()})

    def subscribers(self, topic: str) -> tuple[str, ...]:
        """The members subscribed to ``topic``, in the group's order (empty for a topic nobody subscribes to)."""
        return self._subscribers.get(topic, ())

    def is_assignable(self, topic: str, partition: int) -> bool:
        """Whether the partition exists and may be assigned (``GroupSpec.isPartitionAssignable``)."""
        count = self.topics.get(topic)
        if count is None or not 0 <= partition < count:
            return False
        allowed = self.assignable.get(topic)
        return allowed is None or partition in allowed

    def assignable_partitions(self, topic: str) -> tuple[int, ...]:
        """The assignable partitions of ``topic``, ascending (Kafka's ``targetPartitions`` of the topic)."""
        allowed = self.assignable.get(topic)
        if allowed is None:
            return tuple(range(self.topics[topic]))
        return tuple(sorted(allowed))

    @cached_property
    def assignable_mask(self) -> np.ndarray:
        """Per dense partition, whether it is assignable (a read-only boolean array)."""
        mask = np.ones(self.partition_count, dtype=bool)
        for topic, allowed in self.assignable.items():
            start = self.topic_offset[topic]
            block = np.zeros(self.topics[topic], dtype=bool)
            block[np.fromiter(allowed, dtype=np.int64, count=len(allowed))] = True
            mask[start : start + self.topics[topic]] = block
        mask.flags.writeable = False
        return mask

    @cached_property
    def subscribed_mask(self) -> np.ndarray:
        """Per dense partition, whether some member subscribes to its topic (a read-only boolean array)."""
        mask = np.zeros(self.partition_count, dtype=bool)
        for topic, count in self.topics.items():
            if self.subscribers(topic):
                start = self.topic_offset[topic]
                mask[start : start + count] = True
        mask.flags.writeable = False
        return mask

    @cached_property
    def target_mask(self) -> np.ndarray:
        """Per dense partition, whether it should have a holder: assignable and of a subscribed topic."""
        mask = self.assignable_mask & self.subscribed_mask
        mask.flags.writeable = False
        return mask

    @cached_property
    def is_homogeneous(self) -> bool:
        """Whether every member subscribes to the same set of topics (Kafka's ``SubscriptionType.HOMOGENEOUS``;
        an empty group is homogeneous)."""
        return len({frozenset(m.topics) for m in self.members}) <= 1


@dataclass(frozen=True)
class ShareAssignment:
    """Member id -> the partitions it gets: any such table, valid or not (:func:`violations` judges it).

    Members are kept sorted by id and each member's partitions sorted (by topic name, then
    partition), repeats kept (to be reported), so equal assignments compare equal; members that got
    nothing may be listed.
    """

    members: Mapping[str, tuple[SharePartition, ...]] = field(default_factory=dict)
    #: (member, topic) pairs listed with no partitions (``"nosuch": []``), sorted: they hold nothing, but a
    #: topic the group does not have is a violation whatever it holds (:func:`violations`).
    listed_empty: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        normal = {m: tuple(sorted(parts)) for m, parts in sorted(self.members.items())}
        object.__setattr__(self, "members", MappingProxyType(normal))
        object.__setattr__(self, "listed_empty", tuple(sorted(set(self.listed_empty))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShareAssignment):
            return NotImplemented
        return dict(self.members) == dict(other.members)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "assignment") -> ShareAssignment:
        """An assignment from its JSON form ``{"m1": {"orders": [0, 1]}, "m2": {"orders": [1]}}`` (the consumer
        groups' shape; also accepted under an ``"assignment"`` key, as ``solve`` and ``assign`` write it)."""
        return share_assignment_from_mapping(data, source=source)

    def to_mapping(self) -> dict:
        return share_assignment_to_mapping(self)

    def of(self, member_id: str) -> tuple[SharePartition, ...]:
        """The partitions ``member_id`` got (empty for a member not listed)."""
        return self.members.get(member_id, ())


# -- validity and measures ----------------------------------------------------------------

#: ``unknown-member``: a member not in the group holds partitions; ``unknown-topic``: a topic the scenario
#: lacks; ``no-such-partition``: a partition number past the topic's count; ``not-subscribed``: a partition
#: of a topic the member does not subscribe to; ``not-assignable``: a partition whose share state is not
#: initialised; ``held-twice``: a member holds one partition more than once.
SHARE_VIOLATION_KINDS = (
    "unknown-member",
    "unknown-topic",
    "no-such-partition",
    "not-subscribed",
    "not-assignable",
    "held-twice",
)


@dataclass(frozen=True)
class ShareViolation:
    """One way a share assignment is invalid: its kind, the member and the partitions involved."""

    kind: str
    member_id: str
    partitions: tuple[SharePartition, ...]
    detail: str = ""

    def __str__(self) -> str:
        shown = ", ".join(f"{t}-{p}" for t, p in self.partitions[:8])
        if len(self.partitions) > 8:
            shown += f", … ({len(self.partitions)} in all)"
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.kind} (member {self.member_id}): {shown}{extra}"

    def to_mapping(self) -> dict:
        out: dict[str, Any] = {
            "kind": self.kind,
            "member": self.member_id,
            "partitions": [[t, p] for t, p in self.partitions],
        }
        if self.detail:
            out["detail"] = self.detail
        return out


_DETAIL = {
    "unknown-member": "not a member of the group",
    "unknown-topic": "no such topic in the scenario",
    "no-such-partition": "past the topic's partition count",
    "not-subscribed": "the member does not subscribe to the topic",
    "not-assignable": "share state not initialised (not assignable)",
    "held-twice": "held more than once by the member",
}


def violations(problem: ShareProblem, assignment: ShareAssignment) -> tuple[ShareViolation, ...]:
    """Every way ``assignment`` is not a valid assignment for ``problem`` (empty if valid).

    Member by member (sorted by id), at most one violation of each kind per member, in the order of
    :data:`SHARE_VIOLATION_KINDS`, each listing its partitions in the member's (sorted) order.  A
    partition of a member not in the group is reported only as ``unknown-member``.  A partition
    nobody holds is not a violation (:func:`uncovered` counts them).
    """
    out: list[ShareViolation] = []
    # names the answer invents that hold nothing (the one rule, problem.invented)
    found = invented(
        ((m, bool(parts)) for m, parts in assignment.members.items()),
        assignment.listed_empty,
        problem.member,
        problem.topics,
    )
    empty_topics: dict[str, list[str]] = {}
    for member_id, topic in found.containers:
        empty_topics.setdefault(member_id, []).append(topic)
    for member_id, parts in assignment.members.items():
        member = problem.member.get(member_id)
        if member is None:  # a violation whatever it holds, nothing included
            out.append(ShareViolation("unknown-member", member_id, parts, _DETAIL["unknown-member"]))
            continue
        subscribed = set(member.topics)
        held: dict[str, list[SharePartition]] = {}
        previous = None
        for tp in parts:
            topic, p = tp
            if tp == previous:
                if not held.get("held-twice") or held["held-twice"][-1] != tp:
                    held.setdefault("held-twice", []).append(tp)
                continue
            previous = tp
            if topic not in problem.topics:
                kind = "unknown-topic"
            elif not 0 <= p < problem.topics[topic]:
                kind = "no-such-partition"
            elif topic not in subscribed:
                kind = "not-subscribed"
            elif not problem.is_assignable(topic, p):
                kind = "not-assignable"
            else:
                continue
            held.setdefault(kind, []).append(tp)
        for kind in SHARE_VIOLATION_KINDS:
            if kind in held:
                out.append(ShareViolation(kind, member_id, tuple(held[kind]), _DETAIL[kind]))
        if member_id in empty_topics:
            names = ", ".join(empty_topics[member_id])
            out.append(ShareViolation("unknown-topic", member_id, (), f"{_DETAIL['unknown-topic']}: {names}"))
    return tuple(out)


def valid_pairs(problem: ShareProblem, assignment: ShareAssignment) -> Iterable[tuple[int, int]]:
    """(member index, dense partition index) of every valid holding, each once: a member of the group, a topic
    it subscribes to, an assignable partition (what :func:`violations` does not refuse; the rest left out)."""
    for member_id, parts in assignment.members.items():
        i = problem.member_index.get(member_id)
        if i is None:
            continue
        subscribed = set(problem.members[i].topics)
        for tp in dict.fromkeys(parts):
            topic, p = tp
            if topic in subscribed and problem.is_assignable(topic, p):
                yield i, problem.index_of(topic, p)


def holders(problem: ShareProblem, assignment: ShareAssignment) -> np.ndarray:
    """Per dense partition (:attr:`ShareProblem.partitions`), how many members of the group validly hold it
    (each member once; invalid holdings are left out)."""
    out = np.zeros(problem.partition_count, dtype=np.int64)
    for _, j in valid_pairs(problem, assignment):
        out[j] += 1
    return out


def loads(problem: ShareProblem, assignment: ShareAssignment) -> np.ndarray:
    """Per member (the group's order), how many partitions it validly holds (each once)."""
    out = np.zeros(len(problem.members), dtype=np.int64)
    for i, _ in valid_pairs(problem, assignment):
        out[i] += 1
    return out


def uncovered(problem: ShareProblem, assignment: ShareAssignment) -> tuple[SharePartition, ...]:
    """The assignable partitions of subscribed topics that no member validly holds, in dense order (the
    coverage tier's measure; empty when every one has a holder)."""
    missing = np.flatnonzero(problem.target_mask & (holders(problem, assignment) == 0))
    return tuple(problem.partitions[j] for j in missing.tolist())


# -- JSON: the scenario ------------------------------------------------------------------


def _partition_numbers(value: Any, count: int, topic: str, source: str, path: str) -> list[int]:
    """An array of distinct partition numbers of ``topic`` (``count`` partitions), in the order given."""
    if not isinstance(value, list):
        raise InputError(source, path, f"must be an array of partition numbers, got {fields.json_kind(value)}")
    seen: set[int] = set()
    out = []
    for i, raw in enumerate(value):
        where = f"{path}[{i}]"
        p = fields.expect_integer(raw, source, where, minimum=0)
        if p >= count:
            raise InputError(
                source, where, f"partition {p} is out of range ({json.dumps(topic)} has {count} partitions)"
            )
        if p in seen:
            raise InputError(source, where, f"partition {p} is listed twice")
        seen.add(p)
        out.append(p)
    return out


def _topic(name: str, value: Any, source: str, path: str) -> tuple[int, str | None, Any]:
    """A topic: its partition count, its id (``None``: not given) and its raw ``assignable`` value (read
    once the size limit is checked; ``None``: every partition)."""
    if not isinstance(value, dict):
        count = fields.expect_integer(value, source, path, minimum=1)
        if count > fields.INT32_MAX:
            raise InputError(source, path, f"must fit Kafka's int32 partition count, got {count}")
        return count, None, None
    fields.reject_unknown_keys(value, _TOPIC_KEYS, source, path)
    if "partitions" not in value:
        raise InputError(source, path, 'missing key "partitions"')
    count = fields.expect_integer(value["partitions"], source, f"{path}.partitions", minimum=1)
    if count > fields.INT32_MAX:
        raise InputError(source, f"{path}.partitions", f"must fit Kafka's int32 partition count, got {count}")
    topic_id = kafka_uuid(value["id"], source, f"{path}.id") if value.get("id") is not None else None
    return count, topic_id, value.get("assignable")


def _share_member(member_id: str, value: Any, topics: Mapping[str, int], source: str, path: str) -> ShareMember:
    obj = fields.expect_object(value, source, path)
    fields.reject_unknown_keys(obj, _MEMBER_KEYS, source, path)
    raw = expect_subscription(obj, source, path)
    subscribed: list[str] = []
    for i, t in enumerate(raw):
        where = f"{path}.topics[{i}]"
        name = fields.expect_name(t, source, where)
        if name in subscribed:
            raise InputError(source, where, f"topic {json.dumps(name)} is listed twice")
        if name not in topics:
            # Kafka's assignor refuses it: "Members are subscribed to topic ... which doesn't exist".
            raise InputError(source, where, f"unknown topic {json.dumps(name)} (not in topics)")
        subscribed.append(name)
    rack = None
    if obj.get("rack") is not None:
        rack = fields.expect_name(obj["rack"], source, f"{path}.rack")
    assigned: list[SharePartition] = []
    if obj.get("assigned") is not None:
        held = fields.expect_object(obj["assigned"], source, f"{path}.assigned")
        for topic in held:
            where = fields.field_path(f"{path}.assigned", topic)
            fields.expect_name(topic, source, where)
            if topic not in topics:
                raise InputError(source, where, f"unknown topic {json.dumps(topic)} (not in topics)")
            parts = _partition_numbers(held[topic], topics[topic], topic, source, where)
            assigned.extend((topic, p) for p in parts)
    return ShareMember(member_id=member_id, topics=tuple(subscribed), rack=rack, assigned=tuple(sorted(assigned)))


def share_problem_from_mapping(
    data: Any, *, source: str = "scenario", max_partitions: int | None = MAX_PARTITIONS
) -> ShareProblem:
    """Validate a decoded share group scenario and build the :class:`ShareProblem`; more than
    ``max_partitions`` partitions in all (``None``: no limit) is refused before anything per partition is
    allocated."""
    obj = unversioned(fields.expect_object(data, source, ""), "scenario", source)  # problem.formats
    fields.reject_unknown_keys(obj, _SCENARIO_KEYS, source, "")
    if "kind" not in obj:
        raise InputError(source, "kind", f'missing (a share group scenario says "kind": "{KIND}")')
    if obj["kind"] != KIND:
        raise InputError(source, "kind", f'must be "{KIND}", got {fields.json_kind(obj["kind"])}')
    fields.require_keys(obj, ("topics", "members"), source)
    topics: dict[str, int] = {}
    ids: dict[str, str] = {}
    id_owner: dict[tuple[int, int], str] = {}
    raw_assignable: dict[str, Any] = {}
    for name, value in fields.expect_object(obj["topics"], source, "topics").items():
        path = fields.field_path("topics", name)
        fields.expect_name(name, source, path)
        count, topic_id, raw = _topic(name, value, source, path)
        topics[name] = count
        if topic_id is not None:
            bits = uuid_bits(topic_id)
            if bits in id_owner:
                raise InputError(
                    source, f"{path}.id", f"is already the id of topic {json.dumps(id_owner[bits])} (ids are unique)"
                )
            id_owner[bits] = name
            ids[name] = topic_id
        if raw is not None:
            raw_assignable[name] = raw
    total = sum(topics.values())
    if max_partitions is not None and total > max_partitions:  # before anything per partition is allocated
        raise InputError(
            source,
            "topics",
            f"{total:,} partitions in all, more than the limit of {max_partitions:,} "
            "(raise it with --max-partitions if this machine has the memory)",
        )
    assignable = {
        name: frozenset(
            _partition_numbers(raw, topics[name], name, source, f"{fields.field_path('topics', name)}.assignable")
        )
        for name, raw in raw_assignable.items()
    }
    members = []
    for member_id, value in fields.expect_object(obj["members"], source, "members").items():
        path = fields.field_path("members", member_id)
        fields.expect_name(member_id, source, path)
        members.append(_share_member(member_id, value, topics, source, path))
    return ShareProblem(
        topics=topics,
        members=tuple(members),
        assignable=assignable,
        topic_ids=ids,
        joining=read_joining(obj, {m.member_id for m in members}, source),
    )


def _partitions_to_mapping(parts: Iterable[SharePartition]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for topic, p in parts:
        out.setdefault(topic, []).append(p)
    return out


def share_problem_to_mapping(problem: ShareProblem) -> dict:
    """The JSON scenario: topics and members in order (:class:`~problem.scenario_json.Listed`, which
    :func:`~problem.scenario_json.dumps` writes in that order: the group's order survives a round trip),
    ``assignable``, ``id``, ``rack`` and ``assigned`` only where given (a topic written as its bare count
    when it has neither ``assignable`` nor ``id``)."""
    topics: dict[str, Any] = fields.Listed()
    for name, count in problem.topics.items():
        if name not in problem.assignable and name not in problem.topic_ids:
            topics[name] = count
            continue
        spec: dict[str, Any] = {"partitions": count}
        if name in problem.assignable:
            spec["assignable"] = sorted(problem.assignable[name])
        if name in problem.topic_ids:
            spec["id"] = problem.topic_ids[name]
        topics[name] = spec
    members: dict[str, Any] = fields.Listed()
    for m in problem.members:
        out: dict[str, Any] = {"topics": list(m.topics)}
        if m.rack is not None:
            out["rack"] = m.rack
        if m.assigned:
            out["assigned"] = _partitions_to_mapping(m.assigned)
        members[m.member_id] = out
    return {"kind": KIND, "topics": topics, "members": members, **joining_mapping(problem.joining)}


# -- JSON: the assignment ------------------------------------------------------------------


def share_assignment_from_mapping(data: Any, *, source: str = "assignment") -> ShareAssignment:
    """``{"m1": {"orders": [0, 1]}}``, bare or under ``"assignment"`` (other keys then ignored, as ``solve``
    and ``assign`` write more).  Shape only: partition numbers non-negative int32; unknown members, topics,
    partitions and repeats are for :func:`violations`."""
    obj = fields.expect_object(data, source, "")
    prefix = ""
    inner = obj.get("assignment")
    if isinstance(inner, dict) and all(isinstance(v, dict) for v in inner.values()):
        # the wrapped form (a bare member named "assignment" would map topics to arrays, not objects)
        obj, prefix = inner, "assignment"
    members: dict[str, tuple[SharePartition, ...]] = {}
    listed: list[tuple[str, str]] = []
    for member_id, value in obj.items():
        path = fields.field_path(prefix, member_id)
        fields.expect_name(member_id, source, path)
        held = fields.expect_object(value, source, path)
        parts: list[SharePartition] = []
        for topic, raw in held.items():
            where = fields.field_path(path, topic)
            fields.expect_name(topic, source, where)
            if not isinstance(raw, list):
                raise InputError(source, where, f"must be an array of partition numbers, got {fields.json_kind(raw)}")
            if not raw:
                listed.append((member_id, topic))
            for i, p in enumerate(raw):
                number = fields.expect_integer(p, source, f"{where}[{i}]", minimum=0)
                if number > fields.INT32_MAX:
                    raise InputError(source, f"{where}[{i}]", f"must fit Kafka's int32, got {number}")
                parts.append((topic, number))
        members[member_id] = tuple(parts)
    return ShareAssignment(members, tuple(listed))


def share_assignment_to_mapping(assignment: ShareAssignment) -> dict:
    """The JSON form: every member listed (sorted), topics sorted, partitions ascending (repeats kept)."""
    return {m: _partitions_to_mapping(parts) for m, parts in assignment.members.items()}
