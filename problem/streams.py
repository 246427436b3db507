"""Streams groups (KIP-1071): the task-assignment problem, an assignment, and what makes one valid.

A Kafka Streams application is split into *subtopologies*; subtopology ``s``
with ``n`` input partitions has the *tasks* ``(s, 0) .. (s, n - 1)``.  A task
is *stateful* when its subtopology has state stores backed by changelog
topics.  In a Streams group (server-side assignment, Kafka 4.1+) each
*member* is one stream thread and belongs to a *process* (one Kafka Streams
instance; several members per process); the group coordinator's
``TaskAssignor`` gives every task to one member as an *active* task and, for
stateful tasks, up to ``num.standby.replicas`` *standby* copies elsewhere.

What the assignor sees (``group-coordinator-api``, package
``org.apache.kafka.coordinator.group.api.streams.assignor``, at apache/kafka
d79bd502, 2026-08-23), and where it lives here:

=====================================  ===============================================
Kafka                                  this module
=====================================  ===============================================
``TopologyDescriber.subtopologies()``  :attr:`StreamsProblem.subtopologies` (in order)
``maxNumInputPartitions(s)``           :attr:`Subtopology.tasks`
``isStateful(s)``                      :attr:`Subtopology.stateful`
``MemberAssignmentMetadata``           :class:`StreamsMember`: ``process_id``,
                                       ``instance_id``, ``rack``, ``client_tags``
``MemberAssignmentState``              :class:`StreamsMember`: ``active``, ``standby``,
                                       ``warmup``, ``task_offsets``, ``task_end_offsets``
``AssignmentConfigs``                  :attr:`StreamsProblem.standby_replicas`,
                                       :attr:`StreamsProblem.rack_aware_tags`
``MemberAssignment``                   :class:`StreamsAssignment` (active, standby)
=====================================  ===============================================

Everything is validated once, at the edge (:meth:`StreamsProblem.from_mapping`,
:meth:`StreamsAssignment.from_mapping`): a mistake is one
:class:`~assignment_oracle.problem.errors.InputError` naming the field
(``members.m1.task_offsets.sub-1.0: must be non-negative, got -3``).  What a
real group can present is *not* an error (docs/formats.md, "Streams groups"):
a member's previous task of a subtopology that is gone or has fewer tasks
now (the coordinator hands the assignor each member's *current* tasks, which
lag behind a topology change), offsets reported for such tasks (state left
on disk), the same previous active task on two members, a rack-aware tag no
member carries.  They are kept exactly as given; :meth:`StreamsProblem.stale_tasks`
lists them.

:func:`violations` says whether a :class:`StreamsAssignment` is valid: every
active task on exactly one member, no task twice on one process (active or
standby), standbys only of stateful tasks and at most ``standby_replicas`` of
each, only known members and tasks.  Fewer standbys than asked is valid
(Kafka's assignor gives fewer, with a warning, when processes run out):
:func:`standby_shortfall` counts them, :func:`unavoidable_standby_shortfall`
the part no assignment can avoid.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import unversioned
from assignment_oracle.problem.invented import invented
from assignment_oracle.problem.joining import joining_mapping, read_joining
from assignment_oracle.problem.scenario_json import MAX_MEMBERS, check_members, claim_instance_id, listed_first

__all__ = [
    "KIND",
    "INT64_MAX",
    "MAX_TASKS",
    "TaskId",
    "Subtopology",
    "StreamsMember",
    "StreamsProblem",
    "MemberTasks",
    "StreamsAssignment",
    "StreamsViolation",
    "STREAMS_VIOLATION_KINDS",
    "violations",
    "standby_shortfall",
    "unavoidable_standby_shortfall",
    "streams_problem_from_mapping",
    "streams_problem_to_mapping",
    "streams_assignment_from_mapping",
    "streams_assignment_to_mapping",
]

#: The scenario's ``"kind"``: what tells a Streams group scenario from a consumer group's.
KIND = "streams"
#: The most tasks a Streams scenario may have by default (tasks are Python tuples here; ten million take a
#: few GiB through the model): the command line's ``--max-partitions`` raises it.
MAX_TASKS = 10_000_000
#: Java's ``Long.MAX_VALUE``: task offsets are ``long`` sums of changelog offsets (Kafka Streams pins an
#: overflowing sum here, ``StateDirectory.sumOfChangelogOffsets``).
INT64_MAX = 2**63 - 1

#: One task: ``(subtopology id, partition)`` (Kafka's ``TaskId`` record; sorts by subtopology, then partition).
TaskId = tuple[str, int]

_SCENARIO_KEYS = {"kind", "subtopologies", "members", "standby_replicas", "rack_aware_tags", "joining"}
_SUBTOPOLOGY_KEYS = {"tasks", "stateful"}
_MEMBER_KEYS = {
    "process",
    "instance_id",
    "rack",
    "client_tags",
    "active",
    "standby",
    "warmup",
    "task_offsets",
    "task_end_offsets",
}
_TASK_LISTS = ("active", "standby", "warmup")
_OFFSET_MAPS = ("task_offsets", "task_end_offsets")
_ASSIGNMENT_KEYS = {"members"}
_ASSIGNED_KEYS = {"active", "standby"}
_PARTITION_KEY = re.compile(r"^(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class Subtopology:
    """A subtopology: its id, its number of tasks (``maxNumInputPartitions``, positive) and whether its tasks
    have state (``isStateful``: changelog topics; only stateful tasks get standbys)."""

    id: str
    tasks: int
    stateful: bool


@dataclass(frozen=True)
class StreamsMember:
    """A member of a Streams group (one stream thread) as the assignor sees it.

    Task lists are sorted by subtopology id, then partition; ``client_tags``
    by key; offsets by task.  ``active``, ``standby`` and ``warmup`` are the
    tasks the member *currently* has (the coordinator's ``assignedTasks``),
    which may name tasks the topology no longer has.  ``task_offsets`` are
    the cumulative changelog offsets the member reported (state on its
    local disk, tasks it does not hold included), ``task_end_offsets`` the
    changelog end offsets (lag = end - offset).
    """

    member_id: str
    process_id: str
    instance_id: str | None = None
    rack: str | None = None
    client_tags: tuple[tuple[str, str], ...] = ()
    active: tuple[TaskId, ...] = ()
    standby: tuple[TaskId, ...] = ()
    warmup: tuple[TaskId, ...] = ()
    task_offsets: tuple[tuple[TaskId, int], ...] = ()
    task_end_offsets: tuple[tuple[TaskId, int], ...] = ()


@dataclass(frozen=True)
class StreamsProblem:
    """A Streams group rebalance: the topology, the members and the assignment configs.

    ``subtopologies`` keep the scenario's order (``TopologyDescriber.subtopologies()`` is a ``List``;
    the coordinator's is sorted by id); ``members`` are sorted by member id.  Build problems with
    :meth:`from_mapping` (validated) rather than by hand.
    """

    subtopologies: tuple[Subtopology, ...]
    members: tuple[StreamsMember, ...]
    standby_replicas: int = 0
    rack_aware_tags: tuple[str, ...] = ()
    #: The member ids in the order the scenario lists them, when that is not id order (empty: id order):
    #: the group's join order (:attr:`join_order`; ``assign --member-order listed`` hands it to the port).
    member_order: tuple[str, ...] = ()
    #: The member joining as the group rebalances (the scenario's ``"joining"``, :mod:`problem.joining`), which
    #: Kafka's coordinator puts after the others; ``None``: every member is in the group already.
    joining: str | None = None

    @classmethod
    def from_mapping(
        cls,
        data: Any,
        *,
        source: str = "scenario",
        max_tasks: int | None = MAX_TASKS,
        max_members: int | None = MAX_MEMBERS,
    ) -> StreamsProblem:
        """A validated problem from the JSON scenario format (docs/formats.md, "Streams groups")."""
        return streams_problem_from_mapping(data, source=source, max_tasks=max_tasks, max_members=max_members)

    def to_mapping(self) -> dict:
        """The JSON scenario of this problem (round-trips :meth:`from_mapping`)."""
        return streams_problem_to_mapping(self)

    # -- lookups, computed once --------------------------------------------------

    @cached_property
    def subtopology(self) -> Mapping[str, Subtopology]:
        """Subtopology id -> subtopology."""
        return MappingProxyType({s.id: s for s in self.subtopologies})

    @cached_property
    def tasks(self) -> tuple[TaskId, ...]:
        """Every task, subtopology by subtopology (in order), partitions ascending: the dense task numbering."""
        return tuple((s.id, p) for s in self.subtopologies for p in range(s.tasks))

    @cached_property
    def task_index(self) -> Mapping[TaskId, int]:
        """Task -> its index in :attr:`tasks`."""
        return MappingProxyType({t: i for i, t in enumerate(self.tasks)})

    @cached_property
    def stateful_tasks(self) -> tuple[TaskId, ...]:
        """The tasks of stateful subtopologies, in :attr:`tasks` order: those that may have standbys."""
        return tuple((s.id, p) for s in self.subtopologies if s.stateful for p in range(s.tasks))

    @cached_property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    @cached_property
    def join_order(self) -> tuple[str, ...]:
        """The member ids in the group's join order: as the scenario listed them (:attr:`member_order`),
        members it did not list after them in id order; id order when the scenario listed them so."""
        return listed_first(self.member_order, self.member_ids)

    @cached_property
    def member_index(self) -> Mapping[str, int]:
        return MappingProxyType({m: i for i, m in enumerate(self.member_ids)})

    @cached_property
    def member(self) -> Mapping[str, StreamsMember]:
        """Member id -> member."""
        return MappingProxyType({m.member_id: m for m in self.members})

    @cached_property
    def processes(self) -> tuple[str, ...]:
        """Every process id, sorted."""
        return tuple(sorted({m.process_id for m in self.members}))

    @cached_property
    def process_members(self) -> Mapping[str, tuple[str, ...]]:
        """Process id -> its member ids (sorted)."""
        out: dict[str, list[str]] = {p: [] for p in self.processes}
        for m in self.members:
            out[m.process_id].append(m.member_id)
        return MappingProxyType({p: tuple(ms) for p, ms in out.items()})

    def process_of(self, member_id: str) -> str:
        """The process of a member of the group (``KeyError`` for any other id)."""
        return self.member[member_id].process_id

    def is_task(self, task: TaskId) -> bool:
        """Whether the topology has this task."""
        sub = self.subtopology.get(task[0])
        return sub is not None and 0 <= task[1] < sub.tasks

    def stale_tasks(self) -> dict[str, tuple[TaskId, ...]]:
        """Member id -> the previous tasks (active, standby, warm-up) and offset-reported tasks it names that
        the topology does not have (tolerated: kept as given, ignored by Kafka's assignor); members with none
        are left out."""
        out = {}
        for m in self.members:
            named = {
                *m.active,
                *m.standby,
                *m.warmup,
                *(t for t, _ in m.task_offsets),
                *(t for t, _ in m.task_end_offsets),
            }
            stale = tuple(sorted(t for t in named if not self.is_task(t)))
            if stale:
                out[m.member_id] = stale
        return out


class MemberTasks(NamedTuple):
    """What one member gets: active and standby tasks, each sorted (repeats kept, to be reported)."""

    active: tuple[TaskId, ...] = ()
    standby: tuple[TaskId, ...] = ()


@dataclass(frozen=True)
class StreamsAssignment:
    """Member id -> :class:`MemberTasks`: any such table, valid or not (:func:`violations` judges it).

    Members are kept sorted by id and each list sorted, repeats kept, so equal assignments compare
    equal; members that got nothing may be listed.
    """

    members: Mapping[str, MemberTasks] = field(default_factory=dict)
    #: (member, subtopology) pairs listed with no tasks (``"sub-9": []``), sorted: they hold nothing, but a
    #: subtopology the topology does not have is a violation whatever it holds (:func:`violations`).
    listed_empty: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        normal = {
            m: MemberTasks(tuple(sorted(tasks[0])), tuple(sorted(tasks[1])))
            for m, tasks in sorted(self.members.items())
        }
        object.__setattr__(self, "members", MappingProxyType(normal))
        object.__setattr__(self, "listed_empty", tuple(sorted(set(self.listed_empty))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StreamsAssignment):
            return NotImplemented
        return dict(self.members) == dict(other.members)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "assignment") -> StreamsAssignment:
        """An assignment from its JSON form ``{"members": {"m1": {"active": {"sub-1": [0]}, "standby": {}}}}``."""
        return streams_assignment_from_mapping(data, source=source)

    def to_mapping(self) -> dict:
        return streams_assignment_to_mapping(self)

    def active_of(self, member_id: str) -> tuple[TaskId, ...]:
        return self.members.get(member_id, MemberTasks()).active

    def standby_of(self, member_id: str) -> tuple[TaskId, ...]:
        return self.members.get(member_id, MemberTasks()).standby


# -- validity ------------------------------------------------------------------------

#: ``missing``: an active task nobody got; ``duplicated``: an active task given more than once;
#: ``same-process``: a task twice on one process (its active and a standby, or two standbys, or twice to one
#: member); ``stateless-standby``: a standby of a stateless task; ``too-many-standbys``: more standbys of a
#: task than ``standby_replicas``; ``unknown``: a member not in the group or a task the topology lacks (a
#: member or subtopology the group does not have is one whatever it holds, nothing included).
STREAMS_VIOLATION_KINDS = (
    "missing",
    "duplicated",
    "same-process",
    "stateless-standby",
    "too-many-standbys",
    "unknown",
)


@dataclass(frozen=True)
class StreamsViolation:
    """One way a Streams assignment is invalid."""

    kind: str
    tasks: tuple[TaskId, ...]
    member_id: str | None = None
    detail: str = ""

    def __str__(self) -> str:
        shown = ", ".join(f"{s}_{p}" for s, p in self.tasks[:8])
        if len(self.tasks) > 8:
            shown += f", … ({len(self.tasks)} in all)"
        who = f" (member {self.member_id})" if self.member_id is not None else ""
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.kind}{who}: {shown}{extra}" if shown else f"{self.kind}{who}{extra}"

    def to_mapping(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind, "tasks": [[s, p] for s, p in self.tasks]}
        if self.member_id is not None:
            out["member"] = self.member_id
        if self.detail:
            out["detail"] = self.detail
        return out


def violations(problem: StreamsProblem, assignment: StreamsAssignment) -> tuple[StreamsViolation, ...]:
    """Every way ``assignment`` is not a valid assignment for ``problem`` (empty if valid).

    Member by member (sorted): unknown members and tasks, standbys of stateless tasks; then task by
    task (:attr:`StreamsProblem.tasks` order): duplicated active tasks, tasks twice on one process,
    too many standbys; then the missing active tasks.  Fewer standbys than ``standby_replicas`` is
    not a violation (:func:`standby_shortfall`).
    """
    out: list[StreamsViolation] = []
    active_holders: dict[TaskId, list[str]] = {}
    on_process: dict[TaskId, Counter] = {}
    standbys: Counter = Counter()
    # member -> the subtopologies it lists with no tasks that the topology does not have (the one rule)
    invented_subtopologies: dict[str, list[str]] = {}
    listed = ((m, bool(tasks.active or tasks.standby)) for m, tasks in assignment.members.items())
    for member_id, sub in invented(listed, assignment.listed_empty, problem.member, problem.subtopology).containers:
        invented_subtopologies.setdefault(member_id, []).append(sub)
    for member_id, (active, standby) in assignment.members.items():
        if member_id not in problem.member:  # a violation whatever it holds, nothing included
            out.append(StreamsViolation("unknown", active + standby, member_id, "not a member of the group"))
            continue
        process = problem.process_of(member_id)
        unknown = tuple(t for t in active + standby if not problem.is_task(t))
        if unknown:
            out.append(StreamsViolation("unknown", unknown, member_id, "no such task in the topology"))
        if member_id in invented_subtopologies:
            names = ", ".join(invented_subtopologies[member_id])
            out.append(StreamsViolation("unknown", (), member_id, f"no such subtopology: {names}"))
        stateless = tuple(t for t in standby if problem.is_task(t) and not problem.subtopology[t[0]].stateful)
        if stateless:
            out.append(StreamsViolation("stateless-standby", stateless, member_id, "a standby of a stateless task"))
        for task in active:
            if problem.is_task(task):
                active_holders.setdefault(task, []).append(member_id)
                on_process.setdefault(task, Counter())[process] += 1
        for task in standby:
            if problem.is_task(task):
                standbys[task] += 1
                on_process.setdefault(task, Counter())[process] += 1
    for task in problem.tasks:
        holders = active_holders.get(task, ())
        if len(holders) > 1:
            out.append(StreamsViolation("duplicated", (task,), None, f"active on {', '.join(holders)}"))
        crowded = sorted(p for p, n in on_process.get(task, Counter()).items() if n > 1)
        if crowded:
            out.append(StreamsViolation("same-process", (task,), None, f"twice on process {', '.join(crowded)}"))
        if standbys[task] > problem.standby_replicas and problem.subtopology[task[0]].stateful:
            out.append(
                StreamsViolation(
                    "too-many-standbys",
                    (task,),
                    None,
                    f"{standbys[task]} standbys, standby_replicas is {problem.standby_replicas}",
                )
            )
    missing = tuple(t for t in problem.tasks if t not in active_holders)
    if missing:
        out.append(StreamsViolation("missing", missing, None, "no member has it as an active task"))
    return tuple(out)


def standby_shortfall(problem: StreamsProblem, assignment: StreamsAssignment) -> int:
    """Standby replicas asked for but not given: over the stateful tasks, ``standby_replicas`` minus the
    task's standbys on members of the group (never below zero per task)."""
    given: Counter = Counter()
    for member_id, tasks in assignment.members.items():
        if member_id in problem.member:
            given.update(tasks.standby)
    return sum(max(0, problem.standby_replicas - given[t]) for t in problem.stateful_tasks)


def unavoidable_standby_shortfall(problem: StreamsProblem) -> int:
    """The shortfall no valid assignment avoids: a task's active and standbys are on distinct processes, so
    a task has at most ``processes - 1`` standbys."""
    if not problem.stateful_tasks:
        return 0
    room = max(0, len(problem.processes) - 1)
    return len(problem.stateful_tasks) * max(0, problem.standby_replicas - room)


# -- JSON: the scenario ------------------------------------------------------------------


def _partition_number(value: Any, source: str, path: str) -> int:
    number = fields.expect_integer(value, source, path, minimum=0)
    if number > fields.INT32_MAX:
        raise InputError(source, path, f"must fit Kafka's int32, got {number}")
    return number


def _partitions(value: Any, source: str, path: str) -> Iterator[tuple[TaskId, str]]:
    """``{"sub-1": [0, 1]}`` read one partition at a time, in order: each task and the path of its entry
    (a mistake is raised when the reading reaches it)."""
    obj = fields.expect_object(value, source, path)
    for sub, parts in obj.items():
        where = fields.field_path(path, sub)
        fields.expect_name(sub, source, where)
        if not isinstance(parts, list):
            raise InputError(source, where, f"must be an array of partition numbers, got {fields.json_kind(parts)}")
        for i, p in enumerate(parts):
            yield (sub, _partition_number(p, source, f"{where}[{i}]")), f"{where}[{i}]"


def _task_map(value: Any, source: str, path: str) -> list[TaskId]:
    """``{"sub-1": [0, 1]}``: subtopology id -> partitions, each task once (any subtopology id: stale ones
    are tolerated)."""
    tasks: list[TaskId] = []
    seen: set[TaskId] = set()
    for task, where in _partitions(value, source, path):
        if task in seen:
            raise InputError(source, where, f"partition {task[1]} is listed twice")
        seen.add(task)
        tasks.append(task)
    return tasks


def _offset_map(value: Any, source: str, path: str) -> list[tuple[TaskId, int]]:
    """``{"sub-1": {"0": 120}}``: subtopology id -> partition (a decimal string, JSON keys being strings)
    -> offset sum (a ``long``, non-negative)."""
    obj = fields.expect_object(value, source, path)
    out: list[tuple[TaskId, int]] = []
    for sub, by_partition in obj.items():
        where = fields.field_path(path, sub)
        fields.expect_name(sub, source, where)
        parts = fields.expect_object(by_partition, source, where)
        for key, offset in parts.items():
            at = fields.field_path(where, key)
            if not _PARTITION_KEY.match(key):
                raise InputError(
                    source, at, f'must be a partition number written in decimal ("0", "12"), got {json.dumps(key)}'
                )
            number = int(key)
            if number > fields.INT32_MAX:
                raise InputError(source, at, f"partition must fit Kafka's int32, got {number}")
            amount = fields.expect_integer(offset, source, at, minimum=0)
            if amount > INT64_MAX:
                raise InputError(source, at, f"must fit Kafka's long (at most 2^63-1), got {amount}")
            out.append(((sub, number), amount))
    return out


def _optional_name(obj: dict, key: str, source: str, path: str) -> str | None:
    value = obj.get(key)
    return None if value is None else fields.expect_name(value, source, f"{path}.{key}")


def _streams_member(member_id: str, value: Any, source: str, path: str) -> StreamsMember:
    obj = fields.expect_object(value, source, path)
    fields.reject_unknown_keys(obj, _MEMBER_KEYS, source, path)
    if obj.get("process") is None:
        raise InputError(source, path, 'missing key "process" (the member\'s process id)')
    process = fields.expect_name(obj["process"], source, f"{path}.process")
    tags: list[tuple[str, str]] = []
    if obj.get("client_tags") is not None:
        tag_obj = fields.expect_object(obj["client_tags"], source, f"{path}.client_tags")
        for key, tag in tag_obj.items():
            where = fields.field_path(f"{path}.client_tags", key)
            fields.expect_name(key, source, where)
            if not isinstance(tag, str):
                raise InputError(source, where, f"must be a string, got {fields.json_kind(tag)}")
            tags.append((key, tag))
    lists: dict[str, list[TaskId]] = {}
    first_in: dict[TaskId, str] = {}
    for name in _TASK_LISTS:
        lists[name] = _task_map(obj[name], source, f"{path}.{name}") if obj.get(name) is not None else []
        for task in lists[name]:
            if task in first_in:  # a member holds a task in one role at most
                where = fields.field_path(f"{path}.{name}", task[0])
                raise InputError(
                    source, where, f"task {task[0]}_{task[1]} is also in the member's {first_in[task]} tasks"
                )
            first_in[task] = name
    offsets = {
        name: _offset_map(obj[name], source, f"{path}.{name}") if obj.get(name) is not None else []
        for name in _OFFSET_MAPS
    }
    return StreamsMember(
        member_id=member_id,
        process_id=process,
        instance_id=_optional_name(obj, "instance_id", source, path),
        rack=_optional_name(obj, "rack", source, path),
        client_tags=tuple(sorted(tags)),
        active=tuple(sorted(lists["active"])),
        standby=tuple(sorted(lists["standby"])),
        warmup=tuple(sorted(lists["warmup"])),
        task_offsets=tuple(sorted(offsets["task_offsets"])),
        task_end_offsets=tuple(sorted(offsets["task_end_offsets"])),
    )


def streams_problem_from_mapping(
    data: Any, *, source: str = "scenario", max_tasks: int | None = MAX_TASKS, max_members: int | None = MAX_MEMBERS
) -> StreamsProblem:
    """Validate a decoded Streams group scenario and build the :class:`StreamsProblem`; more than ``max_tasks``
    tasks in all (``None``: no limit) is refused before anything per task is allocated."""
    obj = unversioned(fields.expect_object(data, source, ""), "scenario", source)  # problem.formats
    fields.reject_unknown_keys(obj, _SCENARIO_KEYS, source, "")
    if "kind" not in obj:
        raise InputError(source, "kind", f'missing (a Streams group scenario says "kind": "{KIND}")')
    if obj["kind"] != KIND:
        raise InputError(source, "kind", f'must be "{KIND}", got {fields.json_kind(obj["kind"])}')
    fields.require_keys(obj, ("subtopologies", "members"), source)
    subtopologies = []
    for sub_id, value in fields.expect_object(obj["subtopologies"], source, "subtopologies").items():
        path = fields.field_path("subtopologies", sub_id)
        fields.expect_name(sub_id, source, path)
        spec = fields.expect_object(value, source, path)
        fields.reject_unknown_keys(spec, _SUBTOPOLOGY_KEYS, source, path)
        for required in ("tasks", "stateful"):
            if required not in spec:
                raise InputError(source, path, f'missing key "{required}"')
        tasks = fields.expect_integer(spec["tasks"], source, f"{path}.tasks", minimum=1)
        if tasks > fields.INT32_MAX:
            raise InputError(source, f"{path}.tasks", f"must fit Kafka's int32, got {tasks}")
        if not isinstance(spec["stateful"], bool):
            raise InputError(
                source, f"{path}.stateful", f"must be true or false, got {fields.json_kind(spec['stateful'])}"
            )
        subtopologies.append(Subtopology(sub_id, tasks, spec["stateful"]))
    total = sum(sub.tasks for sub in subtopologies)
    if max_tasks is not None and total > max_tasks:  # before anything per task is allocated
        raise InputError(
            source,
            "subtopologies",
            f"{total:,} tasks in all, more than the limit of {max_tasks:,} "
            "(raise it with --max-partitions if this machine has the memory)",
        )
    replicas = 0
    if obj.get("standby_replicas") is not None:
        replicas = fields.expect_integer(obj["standby_replicas"], source, "standby_replicas", minimum=0)
        if replicas > fields.INT32_MAX:
            raise InputError(source, "standby_replicas", f"must fit Kafka's int32, got {replicas}")
    tags: list[str] = []
    if obj.get("rack_aware_tags") is not None:
        raw = obj["rack_aware_tags"]
        if not isinstance(raw, list):
            raise InputError(
                source, "rack_aware_tags", f"must be an array of client tag keys, got {fields.json_kind(raw)}"
            )
        for i, tag in enumerate(raw):
            name = fields.expect_name(tag, source, f"rack_aware_tags[{i}]")
            if name in tags:  # Kafka's config check: "must not contain duplicate tag keys"
                raise InputError(source, f"rack_aware_tags[{i}]", f"tag {json.dumps(name)} is listed twice")
            tags.append(name)
    members = []
    static: dict[str, str] = {}
    members_obj = fields.expect_object(obj["members"], source, "members")
    check_members(len(members_obj), max_members, source)
    for member_id, value in members_obj.items():
        path = fields.field_path("members", member_id)
        fields.expect_name(member_id, source, path)
        member = _streams_member(member_id, value, source, path)
        claim_instance_id(static, member_id, member.instance_id, source, path)
        members.append(member)
    by_id = tuple(sorted(members, key=lambda m: m.member_id))
    listed = tuple(m.member_id for m in members)
    return StreamsProblem(
        subtopologies=tuple(subtopologies),
        members=by_id,
        standby_replicas=replicas,
        rack_aware_tags=tuple(tags),
        member_order=listed if listed != tuple(m.member_id for m in by_id) else (),
        joining=read_joining(obj, listed, source),
    )


def _tasks_to_mapping(tasks: Iterable[TaskId]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for sub, p in tasks:
        out.setdefault(sub, []).append(p)
    return out


def _offsets_to_mapping(offsets: Iterable[tuple[TaskId, int]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (sub, p), amount in offsets:
        out.setdefault(sub, {})[str(p)] = amount
    return out


def streams_problem_to_mapping(problem: StreamsProblem) -> dict:
    """The JSON scenario: subtopologies in order, members in the group's join order (the scenario's), empty member
    fields left out; :func:`~problem.scenario_json.dumps` keeps the members' order (:class:`Listed`)."""
    members = fields.Listed()
    by_id = {m.member_id: m for m in problem.members}
    for m in (by_id[i] for i in problem.join_order):
        out: dict[str, Any] = {"process": m.process_id}
        if m.instance_id is not None:
            out["instance_id"] = m.instance_id
        if m.rack is not None:
            out["rack"] = m.rack
        if m.client_tags:
            out["client_tags"] = dict(m.client_tags)
        for name in _TASK_LISTS:
            if getattr(m, name):
                out[name] = _tasks_to_mapping(getattr(m, name))
        for name in _OFFSET_MAPS:
            if getattr(m, name):
                out[name] = _offsets_to_mapping(getattr(m, name))
        members[m.member_id] = out
    return {
        "kind": KIND,
        "subtopologies": {s.id: {"tasks": s.tasks, "stateful": s.stateful} for s in problem.subtopologies},
        "standby_replicas": problem.standby_replicas,
        "rack_aware_tags": list(problem.rack_aware_tags),
        "members": members,
        **joining_mapping(problem.joining),
    }


# -- JSON: the assignment ------------------------------------------------------------------


def _assigned_tasks(value: Any, source: str, path: str) -> list[TaskId]:
    """Like a member's task map, but repeats are kept (an assignor that repeats a task is reported)."""
    return [task for task, _ in _partitions(value, source, path)]


def streams_assignment_from_mapping(data: Any, *, source: str = "assignment") -> StreamsAssignment:
    """``{"members": {"m1": {"active": {"sub-1": [0]}, "standby": {}}}}``; ``active`` and ``standby`` may be
    left out (none).  Shape only: unknown members and tasks, repeats, are for :func:`violations`."""
    obj = fields.expect_object(data, source, "")
    fields.reject_unknown_keys(obj, _ASSIGNMENT_KEYS, source, "")
    fields.require_keys(obj, ("members",), source)
    members = {}
    listed: list[tuple[str, str]] = []
    for member_id, value in fields.expect_object(obj["members"], source, "members").items():
        path = fields.field_path("members", member_id)
        fields.expect_name(member_id, source, path)
        tasks = fields.expect_object(value, source, path)
        fields.reject_unknown_keys(tasks, _ASSIGNED_KEYS, source, path)
        active = _assigned_tasks(tasks["active"], source, f"{path}.active") if tasks.get("active") is not None else []
        standby = (
            _assigned_tasks(tasks["standby"], source, f"{path}.standby") if tasks.get("standby") is not None else []
        )
        members[member_id] = MemberTasks(tuple(active), tuple(standby))
        for kind in ("active", "standby"):
            if isinstance(tasks.get(kind), dict):
                listed.extend((member_id, sub) for sub, parts in tasks[kind].items() if parts == [])
    return StreamsAssignment(members, tuple(listed))


def streams_assignment_to_mapping(assignment: StreamsAssignment) -> dict:
    """The JSON form: every member listed (sorted), ``active`` and ``standby`` always present."""
    return {
        "members": {
            m: {"active": _tasks_to_mapping(t.active), "standby": _tasks_to_mapping(t.standby)}
            for m, t in assignment.members.items()
        }
    }
