"""Kafka's server-side Streams task assignor, ``StickyTaskAssignor`` (KIP-1071), ported (``streams-sticky``).

Guarantees claimed.  Kafka's class has no javadoc of its own; what it promises
is in its comments and its tests' names (``StickyTaskAssignorTest``):

* every task is given to exactly one member as an active task, or Kafka throws
  ``TaskAssignorException("No process available to assign active task ...")``
  (:class:`TaskAssignorException` here; only when the group has no member);
* a standby is never on the process that has the same task, active or standby
  ("A process that already owns a standby task (either as active or standby)
  cannot take it again"); standbys only for stateful subtopologies; when no
  process qualifies it gives fewer (``log.warn``: "There is not enough
  available capacity. You should increase the number of threads and/or
  application instances to maintain the requested number of standby replicas.");
* stickiness: "re-assigning existing active tasks to clients that previously
  had the same active tasks", then "to clients that previously have seen the
  same task (as standby task)"; "Standbys from the target assignment rank ahead
  of members only known to hold state through their reported offsets; within
  each group, the most caught-up state comes first" (KAFKA-20719);
* balance through per-member quotas, ``ceil(tasks left / members left with
  capacity)``, recomputed whenever a member fills its quota, and the least
  loaded process (tasks per member) for what is left; "To achieve an initially
  range-based assignment, sort by subtopology".  No optimality is claimed, and
  no bound on the spread of active tasks (the tests assert exact counts only for
  fresh groups).

Faithful port of ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/streams/assignor/``
``StickyTaskAssignor.java`` and ``ProcessState.java`` at apache/kafka
**d79bd502ec7fa49335afa422f442af80ed0ab8f6** (trunk, 2026-08-23; the class last changed in 89a6c9ed,
2026-08-12), names as in Kafka.  What the assignor reads of a member: its process id, its current active
and standby tasks and its reported ``taskOffsets``; it ignores warm-up tasks, ``taskEndOffsets``, the rack
id, client tags and ``rack.aware.assignment.tags`` (rack-aware standbys are KAFKA-20999, still open).

Java's ``PriorityQueue`` (a binary heap, no tie-breaker) is emulated exactly
(:class:`_JavaPriorityQueue`: the same ``siftUp``/``siftDown``), so among
equally loaded processes (or members of a process) the one Java's heap hands
out first is taken: which one depends on the order the heap was filled, that
is on the ``HashMap`` iteration orders below.

Departures:

* **hash orders** (``iteration_order``).  Kafka iterates three hash maps whose
  order decides ties: ``groupSpec.memberIds()`` (the coordinator's
  ``HashMap`` of member ids, ``streams/TargetAssignmentBuilder.build``),
  ``processIdToState`` (``new HashMap<>(number of members)``, filled by
  ``computeIfAbsent``) and each process's ``memberToTaskCounts``
  (``new HashMap<>()``).  ``"sorted"`` (the default) iterates each in id
  order, the only order a reader can predict; ``"java"`` iterates them as
  Java 17 does (:mod:`heuristics.java_order`, exact for ``String`` keys),
  the member map filled as the coordinator fills it: from the group's
  members, ``StreamsGroup.members``, a ``TimelineHashMap`` put in join order
  (the scenario's, :attr:`StreamsProblem.join_order`), iterated as Kafka's
  ``timeline`` package does, a joining member after them (``joining``;
  :mod:`heuristics.timeline_order`), which only matters for ids sharing a
  bucket (before issue 43 the map was taken to be filled in member id order,
  as Kafka's own tests fill theirs).  The member order decides which member's claim
  wins when two members both have a task as previous active (the last one
  iterated, Kafka's ``put``) and the order of equally ranked standby
  candidates (Java's stable sort keeps it); the other two decide the heap
  ties.  ``member_order`` (tests only) gives the member order explicitly,
  as Kafka's tests do with a ``LinkedHashMap``;
* strings compare by UTF-16 code unit, as Java's ``String.compareTo``
  (:func:`_java_string_key`), so the task sorts are Java's exactly;
* ``int`` arithmetic wraps at 32 bits where Kafka's can (the task totals);
  a scenario large enough to wrap is not realistic;
* nothing is logged: a standby Kafka cannot place is simply missing
  (:func:`assignment_oracle.problem.streams.standby_shortfall` counts them).

The subtopology order of the scenario does not matter: Kafka sorts the tasks
by (partition, subtopology) and (subtopology, partition) before each pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assignment_oracle.heuristics.java_order import (
    ITERATION_ORDERS,
    JavaHashMap,
    check_iteration_order,
    java_order,
    string_hash,
)
from assignment_oracle.heuristics.timeline_order import coordinator_member_order, joining_of, listed_member_order
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.streams import MemberTasks, StreamsAssignment, StreamsProblem, TaskId

__all__ = ["ITERATION_ORDERS", "KAFKA_NAME", "TaskAssignorException", "assign", "member_iteration_order"]

#: ``StickyTaskAssignor.name()`` (and ``toString()``): the name a group selects it by.
KAFKA_NAME = "sticky"

_INT32 = 1 << 32


def _int32(value: int) -> int:
    """``value`` wrapped to Java's ``int``."""
    value &= _INT32 - 1
    return value - _INT32 if value >= 1 << 31 else value


def _java_string_key(text: str) -> bytes:
    """A sort key ordering strings as Java's ``String.compareTo`` (UTF-16 code units; big-endian bytes compare
    the same way)."""
    return text.encode("utf-16-be", "surrogatepass")


class TaskAssignorException(AssignorError):
    """Kafka's ``TaskAssignorException``: no process (no member) to give an active task to."""


class _JavaPriorityQueue:
    """``java.util.PriorityQueue`` with a comparator on ``key(element)``: the same array heap, ``siftUp`` on
    ``add`` and ``siftDown`` of the last element on ``poll``, so ties come out in Java's order."""

    __slots__ = ("heap", "key")

    def __init__(self, key: Callable[[Any], Any]) -> None:
        self.heap: list = []
        self.key = key

    def __len__(self) -> int:
        return len(self.heap)

    def add(self, x) -> None:
        heap, key = self.heap, self.key
        k = len(heap)
        heap.append(x)
        kx = key(x)
        while k > 0:
            parent = (k - 1) >> 1
            e = heap[parent]
            if kx >= key(e):  # comparator.compare(x, e) >= 0
                break
            heap[k] = e
            k = parent
        heap[k] = x

    def poll(self):
        heap = self.heap
        if not heap:
            return None
        result = heap[0]
        x = heap.pop()
        n = len(heap)
        if n:
            key = self.key
            kx = key(x)
            k, half = 0, n >> 1
            while k < half:
                child = 2 * k + 1
                c = heap[child]
                right = child + 1
                if right < n and key(c) > key(heap[right]):
                    child = right
                    c = heap[child]
                if kx <= key(c):
                    break
                heap[k] = c
                k = child
            heap[k] = x
        return result


def _load(process: _ProcessState) -> float:
    return process.load


def _entry_value(entry: list) -> int:
    return entry[1]


class _ProcessState:
    """``ProcessState``: one process's members, their task counts and the tasks it holds.

    ``member_to_task_counts`` is a dict whose insertion order is the order Java iterates the
    ``HashMap`` (set once all members are added, :meth:`order_members`).
    """

    __slots__ = (
        "process_id",
        "capacity",
        "load",
        "task_count",
        "member_to_task_counts",
        "assigned_active",
        "assigned_standby",
        "assigned_tasks",
        "members_by_load",
    )

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.capacity = 0
        self.load = 1.7976931348623157e308  # Double.MAX_VALUE
        self.task_count = 0
        self.member_to_task_counts: dict[str, int] = {}
        self.assigned_active: dict[str, list[TaskId]] = {}
        self.assigned_standby: dict[str, list[TaskId]] = {}
        self.assigned_tasks: set[TaskId] = set()
        self.members_by_load: _JavaPriorityQueue | None = None

    def add_member(self, member: str) -> None:
        self.member_to_task_counts[member] = 0
        self.capacity += 1
        self.compute_load()

    def order_members(self, order: Sequence[str]) -> None:
        self.member_to_task_counts = {m: self.member_to_task_counts[m] for m in order}

    def compute_load(self) -> None:
        self.load = -1.0 if self.capacity <= 0 else self.task_count / self.capacity

    def has_task(self, task: TaskId) -> bool:
        return task in self.assigned_tasks

    def add_task(self, member: str, task: TaskId, is_active: bool) -> int:
        count = self._add_task_internal(member, task, is_active)
        # "We cannot efficiently add a task to a specific member and keep the memberByLoad ordered
        # correctly. So we just drop the heap here."
        self.members_by_load = None
        return count

    def _add_task_internal(self, member: str, task: TaskId, is_active: bool) -> int:
        self.task_count += 1
        self.assigned_tasks.add(task)
        (self.assigned_active if is_active else self.assigned_standby).setdefault(member, []).append(task)
        count = self.member_to_task_counts[member] + 1
        self.member_to_task_counts[member] = count
        self.compute_load()
        return count

    def add_task_to_least_loaded_member(self, task: TaskId, is_active: bool) -> int:
        counts = self.member_to_task_counts
        if not counts:
            return -1
        if len(counts) == 1:
            return self._add_task_internal(next(iter(counts)), task, is_active)
        if self.members_by_load is None:  # rebuilt from the map, in its iteration order
            self.members_by_load = _JavaPriorityQueue(_entry_value)
            for member, count in counts.items():
                self.members_by_load.add([member, count])
        entry = self.members_by_load.poll()
        count = self._add_task_internal(entry[0], task, is_active)
        entry[1] = count
        self.members_by_load.add(entry)
        return count


class _LocalState:
    """``StickyTaskAssignor.LocalState``: the quotas and what the previous assignment says."""

    def __init__(self) -> None:
        self.active_task_to_prev_member: dict[TaskId, tuple[str, str]] = {}  # task -> (process, member)
        self.standby_task_to_prev_member: dict[TaskId, list[tuple[str, str]]] = {}
        self.process_id_to_state: dict[str, _ProcessState] = {}  # in the map's iteration order
        self.num_standby_replicas = 0
        #: ``totalActiveTasks`` over ``totalMembersWithActiveTaskCapacity``: ``activeTasksPerMember``.
        self.active_quota = _TaskQuota()
        #: ``totalTasks`` (actives and standbys) over ``totalMembersWithTaskCapacity``: ``totalTasksPerMember``.
        self.total_quota = _TaskQuota()


class _TaskQuota:
    """One of ``LocalState``'s quotas: ``tasks`` left to the ``members`` with capacity, ``per_member`` each.

    :meth:`start` sets the pool and computes ``per_member`` (``computeTasksPerMember``); :meth:`maybe_update`
    is Kafka's ``maybeUpdateActiveTasksPerMember`` / ``maybeUpdateTotalTasksPerMember``: a member whose
    count reached the quota leaves the pool with its tasks and the quota is computed again over the rest,
    in Java's ``int`` arithmetic.
    """

    __slots__ = ("tasks", "members", "per_member")

    def __init__(self) -> None:
        self.tasks = self.members = self.per_member = 0

    def start(self, tasks: int, members: int) -> None:
        self.tasks, self.members = tasks, members
        self.per_member = _compute_tasks_per_member(tasks, members)

    def maybe_update(self, tasks_no: int) -> None:
        if tasks_no == self.per_member:
            self.members -= 1
            self.tasks -= tasks_no
            self.per_member = _compute_tasks_per_member(self.tasks, self.members)


def _compute_tasks_per_member(number_of_tasks: int, number_of_members: int) -> int:
    """``computeTasksPerMember``: ``ceil(tasks / members)`` in Java's ``int`` arithmetic (division truncating
    toward zero, the remainder taking the dividend's sign), 0 without members.  The totals can go below zero
    (a member reaching a later, larger quota is counted again), so Java's rules are kept exactly."""
    if number_of_members == 0:
        return 0
    quotient = abs(number_of_tasks) // abs(number_of_members)
    if (number_of_tasks < 0) != (number_of_members < 0):
        quotient = -quotient
    per = _int32(quotient)
    if number_of_tasks - number_of_members * quotient > 0:
        per += 1
    return _int32(per)


def member_iteration_order(
    problem: StreamsProblem, iteration_order: str = "sorted", joining: str | None = None
) -> list[str]:
    """The order in which Kafka iterates ``groupSpec.memberIds()``: member id order (``"sorted"``), or as the
    coordinator fills it (``"java"``): ``streams/TargetAssignmentBuilder.build`` (d79bd50 ``:229-235``) puts
    the group's members into a ``HashMap`` as ``StreamsGroup.members`` (a ``TimelineHashMap``, ``:168``,
    ``:314``) iterates them, filled in the join order, ``joining`` (the heartbeating member, the overlay's
    addition in ``GroupMetadataManager.maybeUpdateStreamsTargetAssignment``) after them (``None``: the
    problem's own, its scenario's ``"joining"``)."""
    if iteration_order != "java":
        return list(problem.member_ids)
    return coordinator_member_order(problem.join_order, joining_of(problem, joining, "streams-sticky"))


def _initialize(problem: StreamsProblem, members: Sequence[str], java: bool) -> _LocalState:
    state = _LocalState()
    state.num_standby_replicas = problem.standby_replicas
    # "Helpers for computing active tasks per member, and tasks per member"
    total_tasks = total_active_tasks = 0
    for sub in problem.subtopologies:
        total_tasks = _int32(total_tasks + sub.tasks)
        total_active_tasks = _int32(total_active_tasks + sub.tasks)
        if sub.stateful:
            total_tasks = _int32(total_tasks + _int32(sub.tasks * state.num_standby_replicas))
    state.active_quota.start(total_active_tasks, len(members))
    state.total_quota.start(total_tasks, len(members))

    processes: dict[str, _ProcessState] = {}
    process_map = JavaHashMap(string_hash, len(members)) if java else None  # new HashMap<>(members)
    # "Standby-strength candidates per task, gathered in a single pass over the members and ranked below."
    candidates: dict[TaskId, list[tuple[int, int, tuple[str, str]]]] = {}
    for member_id in members:
        member = problem.member[member_id]
        key = (member.process_id, member_id)
        if process_map is not None:
            process_map.compute_if_absent(member.process_id)
        process = processes.get(member.process_id)
        if process is None:
            process = processes[member.process_id] = _ProcessState(member.process_id)
        process.add_member(member_id)
        for task in member.active:  # a later member's claim replaces an earlier one (Map.put)
            state.active_task_to_prev_member[task] = key
        # collectStandbyCandidates: previous standbys carry their reported offset sum (0 if none: "the
        # conservative bound implying maximum lag"); then tasks known only through reported offsets.
        offsets = dict(member.task_offsets)
        standby = set(member.standby)
        for task in member.standby:
            candidates.setdefault(task, []).append((0, -offsets.get(task, 0), key))
        for task, offset in member.task_offsets:
            if task not in standby:
                candidates.setdefault(task, []).append((1, -offset, key))
    # rankStandbyCandidates: previous standbys first, then the most caught up; Java's sort is stable, so
    # equal candidates keep the member order.
    for task, found in candidates.items():
        found.sort(key=lambda c: (c[0], c[1]))
        state.standby_task_to_prev_member[task] = [c[2] for c in found]

    if process_map is not None:
        order: list[str] = list(process_map)  # type: ignore[arg-type]
    else:
        order = sorted(processes)
    state.process_id_to_state = {p: processes[p] for p in order}
    for process in state.process_id_to_state.values():
        ids = list(process.member_to_task_counts)  # in member order (put order)
        process.order_members(java_order(ids, string_hash) if java else sorted(ids))  # type: ignore[arg-type]
    return state


def _find_prev_member_with_least_load(
    state: _LocalState, members: list[tuple[str, str]] | None, standby_task: TaskId | None
) -> tuple[str, str] | None:
    """``findPrevMemberWithLeastLoad``: the first candidate, replaced only by one whose process load *and*
    member load are both strictly lower; with ``standby_task``, processes holding it are skipped."""
    if not members:
        return None
    candidate = None
    candidate_process_load = candidate_member_load = 1.7976931348623157e308
    for member in members:
        process = state.process_id_to_state[member[0]]
        # "A process that already owns a standby task (either as active or standby) cannot take it again"
        if standby_task is not None and process.has_task(standby_task):
            continue
        process_load = process.load
        member_load = process.member_to_task_counts[member[1]]
        if candidate is None or (process_load < candidate_process_load and member_load < candidate_member_load):
            candidate_process_load, candidate_member_load, candidate = process_load, member_load, member
    return candidate


def _has_unfulfilled_active_task_quota(state: _LocalState, process: _ProcessState, member: str) -> bool:
    return process.member_to_task_counts[member] < state.active_quota.per_member


def _has_unfulfilled_task_quota(state: _LocalState, process: _ProcessState, member: str) -> bool:
    return process.member_to_task_counts[member] < state.total_quota.per_member


def _give_active_under_quota(state: _LocalState, prev: tuple[str, str], task: TaskId) -> bool:
    """Steps 1 and 2's shared body: the task goes active to ``prev`` (process, member) if the member is under
    the active quota, and the quotas are updated; whether it went."""
    process = state.process_id_to_state[prev[0]]
    if not _has_unfulfilled_active_task_quota(state, process, prev[1]):
        return False
    count = process.add_task(prev[1], task, True)
    state.active_quota.maybe_update(count)
    state.total_quota.maybe_update(count)
    return True


def _assign_active(state: _LocalState, active_tasks: list[TaskId], subkey: dict[str, bytes]) -> None:
    # "Assuming our current assignment pairs same partitions (range-based), we want to sort by partition first"
    active_tasks.sort(key=lambda t: (t[1], subkey[t[0]]))

    # "1. re-assigning existing active tasks to clients that previously had the same active tasks"
    left: list[TaskId] = []
    for task in active_tasks:
        prev = state.active_task_to_prev_member.get(task)
        if prev is None or not _give_active_under_quota(state, prev, task):
            left.append(task)

    # "2. re-assigning tasks to clients that previously have seen the same task (as standby task)"
    remaining: list[TaskId] = []
    for task in left:
        prev = _find_prev_member_with_least_load(state, state.standby_task_to_prev_member.get(task), None)
        if prev is None or not _give_active_under_quota(state, prev, task):
            remaining.append(task)

    # "To achieve an initially range-based assignment, sort by subtopology"
    remaining.sort(key=lambda t: (subkey[t[0]], t[1]))

    # "3. assign any remaining unassigned tasks"
    process_by_load = _JavaPriorityQueue(_load)
    for process in state.process_id_to_state.values():
        process_by_load.add(process)
    for task in remaining:
        least = process_by_load.poll()
        if least is None:
            raise TaskAssignorException(f"No process available to assign active task {task[0]}_{task[1]}.")
        count = least.add_task_to_least_loaded_member(task, True)
        if count == -1:
            raise TaskAssignorException(f"No member available to assign active task {task[0]}_{task[1]}.")
        state.active_quota.maybe_update(count)
        state.total_quota.maybe_update(count)
        process_by_load.add(least)  # "Add it back to the queue after updating its state"


def _assign_standby_to_member_with_least_load(state: _LocalState, queue: _JavaPriorityQueue, task: TaskId) -> bool:
    """``assignStandbyToMemberWithLeastLoad``, its recursion unrolled: poll processes until one does not hold
    the task (it gets the standby) or the queue is empty, then put the polled ones back, the last polled
    first (as the recursion returns)."""
    polled = []
    found = False
    while True:
        process = queue.poll()
        if process is None:
            break
        polled.append(process)
        if not process.has_task(task):
            count = process.add_task_to_least_loaded_member(task, False)
            if count != -1:
                found = True
                state.total_quota.maybe_update(count)
            break
        if not len(queue):
            break
    for process in reversed(polled):
        queue.add(process)
    return found


def _assign_standby(state: _LocalState, standby_tasks: list[TaskId], subkey: dict[str, bytes]) -> None:
    to_least_loaded: list[tuple[TaskId, int]] = []  # StandbyToAssign: (task, remaining replicas)
    # "Assuming our current assignment is range-based, we want to sort by partition first." (reversed)
    standby_tasks.sort(key=lambda t: (t[1], subkey[t[0]]), reverse=True)
    replicas = state.num_standby_replicas
    for task in standby_tasks:
        for i in range(replicas):
            # prev active task
            prev_active = state.active_task_to_prev_member.get(task)
            if prev_active is not None:
                process = state.process_id_to_state[prev_active[0]]
                if not process.has_task(task) and _has_unfulfilled_task_quota(state, process, prev_active[1]):
                    count = process.add_task(prev_active[1], task, False)
                    state.total_quota.maybe_update(count)
                    continue
            # prev standby tasks
            prev_standbys = state.standby_task_to_prev_member.get(task)
            if prev_standbys:
                prev = _find_prev_member_with_least_load(state, prev_standbys, task)
                if prev is not None:
                    process = state.process_id_to_state[prev[0]]
                    if _has_unfulfilled_task_quota(state, process, prev[1]):
                        count = process.add_task(prev[1], task, False)
                        state.total_quota.maybe_update(count)
                        continue
            to_least_loaded.append((task, replicas - i))
            break

    # "To achieve a range-based assignment, sort by subtopology" (reversed)
    to_least_loaded.sort(key=lambda x: (subkey[x[0][0]], x[0][1]), reverse=True)
    process_by_load = _JavaPriorityQueue(_load)
    for process in state.process_id_to_state.values():
        process_by_load.add(process)
    for task, remaining in to_least_loaded:
        for _ in range(remaining):
            if not _assign_standby_to_member_with_least_load(state, process_by_load, task):
                break  # Kafka logs "Unable to assign N of R standby tasks for task [...]" and moves on


def assign(
    problem: StreamsProblem,
    *,
    iteration_order: str = "sorted",
    member_order: Sequence[str] | None = None,
    joining: str | None = None,
) -> StreamsAssignment:
    """Kafka's ``StickyTaskAssignor.assign`` on ``problem``: every member listed, active and standby tasks.

    ``iteration_order``: how Kafka's hash maps are iterated (module docstring, "Departures");
    ``member_order``: the order of ``groupSpec.memberIds()`` when given (every member once), as Kafka's
    tests fix it with a ``LinkedHashMap``; ``joining``: in Java's order, the member whose heartbeat
    computes the assignment as it joins (after the group's members, :func:`member_iteration_order`);
    ``None``: the problem's own (its scenario's ``"joining"``; none there: every member is in the group
    already).

    >>> p = StreamsProblem.from_mapping({"kind": "streams", "standby_replicas": 1,
    ...     "subtopologies": {"s": {"tasks": 2, "stateful": True}},
    ...     "members": {"a": {"process": "p1", "active": {"s": [1]}}, "b": {"process": "p2"}}})
    >>> assign(p).to_mapping()
    {'members': {'a': {'active': {'s': [1]}, 'standby': {'s': [0]}}, 'b': {'active': {'s': [0]}, 'standby': {'s': [1]}}}}
    """
    check_iteration_order(iteration_order)
    if member_order is None:
        members = member_iteration_order(problem, iteration_order, joining)
    else:
        members = listed_member_order(member_order, problem.member_ids)
    subkey = {s.id: _java_string_key(s.id) for s in problem.subtopologies}
    state = _initialize(problem, members, iteration_order == "java")
    _assign_active(state, list(problem.tasks), subkey)
    if state.num_standby_replicas > 0:
        _assign_standby(state, list(problem.stateful_tasks), subkey)
    # buildGroupAssignment: every member of the group, active and standby tasks as sets
    out: dict[str, MemberTasks] = {m: MemberTasks() for m in problem.member_ids}
    for process in state.process_id_to_state.values():
        for member in process.member_to_task_counts:
            out[member] = MemberTasks(
                tuple(process.assigned_active.get(member, ())), tuple(process.assigned_standby.get(member, ()))
            )
    return StreamsAssignment(out)
