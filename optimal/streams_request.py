"""What "best" means for a Streams group (KIP-1071): the tiers, in Kafka's order, and how each is measured.

A Streams task assignment is judged, tier after tier (each compared only
among assignments equal on every tier before it), in the order Kafka's
server-side ``StickyTaskAssignor`` states its priorities (its quotas first,
then its stickiness rules; :mod:`heuristics.streams_sticky`):

Constraints (every assignment the oracle answers with meets them)
    validity (:func:`problem.streams.violations`): every active task on
    exactly one member, no task twice on one process, standbys only of
    stateful tasks, at most ``standby_replicas`` of each; and **every standby
    that can be placed is placed**: each stateful task gets
    ``min(standby_replicas, processes - 1)`` standbys (a task's copies are on
    distinct processes, so no assignment gives more; Kafka gives fewer only
    "when there is not enough available capacity").

``active-balance``
    the members' active task counts, most balanced: sorted largest first,
    lexicographically least (``dec-min``).  Kafka balances stateful and
    stateless active tasks together, one quota ``ceil(active tasks /
    members)`` over all of them (``activeTasksPerMember``), so this tier does
    too.
``task-balance``
    the members' task counts, actives and standbys together, most balanced
    (``dec-min``): how Kafka balances standbys (``totalTasksPerMember``, and
    a process's load counts both kinds).
``tag-diversity``
    only when ``rack_aware_tags`` are set: over the stateful tasks and the
    rack-aware tag keys, the number of distinct tag values among the members
    holding the task's copies (active and standbys), the most.  A member
    without the tag adds no value.  Kafka Streams' client-side
    ``ClientTagAwareStandbyTaskAssignor`` (KIP-708) spreads standbys this
    way; the server-side assignor does not yet (KAFKA-20999).
``stickiness``
    four numbers, the most, in order: *actives kept* (an active task on a
    member that had it as an active task), *actives on state* (active
    copies of stateful tasks on a member with local state for the task: it
    had the task as active, standby or warm-up, or reported an offset for
    it), *standbys kept* (a standby on a member that had it as a standby),
    *standbys on state* (standbys on a member with local state for the
    task).  Kafka's rules in the same order: previous actives first, then
    an active to a member that has "seen the same task (as standby task)",
    then standbys to previous holders, "the most caught-up state" first.
    An active on state outranks a standby kept: the active serves traffic
    and a cold one restores from nothing.  How caught up a state is (the
    reported offsets' values) does not enter the tiers yet: any state counts
    the same, where Kafka ranks previous standbys, then the highest offset.

:func:`measure` is the one definition of every number: the exact models
(:mod:`optimal.streams`), the brute force and the judges all read it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from assignment_oracle.problem.streams import StreamsAssignment, StreamsProblem, TaskId
from assignment_oracle.problem.tiers import ACTIVE_BALANCE, STICKINESS, STREAMS, TAG_DIVERSITY, TASK_BALANCE

__all__ = [
    "ACTIVE_BALANCE",
    "TASK_BALANCE",
    "TAG_DIVERSITY",
    "STICKINESS",
    "STREAMS_TIERS",
    "DEFAULT_ORDER",
    "StreamsRequest",
    "StreamsMeasures",
    "measure",
    "standbys_wanted",
    "state_of",
    "tier_key",
    "better",
]

#: The tiers (their records: :data:`problem.tiers.STREAMS`).
STREAMS_TIERS = STREAMS.names
#: Kafka's order (module docstring).
DEFAULT_ORDER = STREAMS_TIERS


@dataclass(frozen=True)
class StreamsRequest:
    """The tiers of a Streams solve, in priority order (each of :data:`STREAMS_TIERS` once; ``None``: Kafka's
    order).  ``tag-diversity`` is left out of :meth:`tiers` when the problem has no rack-aware tags."""

    objective: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.objective is not None:
            object.__setattr__(self, "objective", STREAMS.check(self.objective))

    def tiers(self, problem: StreamsProblem) -> tuple[str, ...]:
        """The tiers solved, in order: those that play a part on ``problem`` (:meth:`problem.tiers.Tier.plays`)."""
        order = self.objective if self.objective is not None else DEFAULT_ORDER
        return tuple(t for t in order if STREAMS.tier(t).plays(problem))

    def to_mapping(self, problem: StreamsProblem) -> dict:
        return {"objective": list(self.tiers(problem))}


def standbys_wanted(problem: StreamsProblem) -> int:
    """Standbys of each stateful task in every answer of the oracle: ``min(standby_replicas, processes - 1)``."""
    return max(0, min(problem.standby_replicas, len(problem.processes) - 1))


def state_of(problem: StreamsProblem) -> dict[str, frozenset[TaskId]]:
    """Member id -> the topology's tasks it has local state for: previous active, standby and warm-up tasks,
    and tasks it reported an offset for (stale tasks left out)."""
    out = {}
    for m in problem.members:
        named = {*m.active, *m.standby, *m.warmup, *(t for t, _ in m.task_offsets)}
        out[m.member_id] = frozenset(t for t in named if problem.is_task(t))
    return out


@dataclass(frozen=True, eq=False)
class StreamsMeasures:
    """Every number the tiers are about, for one assignment (:func:`measure`); arrays in ``problem.members``
    order."""

    active_counts: np.ndarray
    standby_counts: np.ndarray
    actives_kept: int
    actives_on_state: int
    standbys_kept: int
    standbys_on_state: int
    tag_diversity: int
    standbys: int  # standbys given (of known stateful tasks, to members of the group)
    shortfall: int  # standbys wanted (min(replicas, processes - 1) per stateful task) and not given

    @property
    def task_counts(self) -> np.ndarray:
        return self.active_counts + self.standby_counts

    @property
    def on_state(self) -> int:
        """Copies of stateful tasks, active or standby, on a member with local state for the task."""
        return self.actives_on_state + self.standbys_on_state

    @property
    def stickiness(self) -> list[int]:
        return [self.actives_kept, self.actives_on_state, self.standbys_kept, self.standbys_on_state]

    @property
    def active_balance(self) -> list[int]:
        """The active task counts, largest first."""
        return sorted((int(x) for x in self.active_counts), reverse=True)

    @property
    def task_balance(self) -> list[int]:
        """The task counts (actives and standbys), largest first."""
        return sorted((int(x) for x in self.task_counts), reverse=True)

    def value(self, tier: str) -> Any:
        """A tier's value as reported, read as its record in :data:`problem.tiers.STREAMS` says: sorted counts
        (largest first) for the balances, a number for ``tag-diversity``, ``[actives kept, actives on state,
        standbys kept, standbys on state]`` for ``stickiness``; :class:`~assignment_oracle.problem.tiers.UnknownTier`
        on a tier the table or these measures do not know."""
        return STREAMS.tier(tier).read(self)

    def values(self, tiers: tuple[str, ...]) -> list:
        return [self.value(t) for t in tiers]


def measure(problem: StreamsProblem, assignment: StreamsAssignment) -> StreamsMeasures:
    """The tiers' numbers for ``assignment`` (members outside the group and tasks outside the topology count
    for nothing; a task given twice counts twice: validity is :func:`problem.streams.violations`' job)."""
    index = problem.member_index
    n = len(problem.members)
    active = np.zeros(n, dtype=np.int64)
    standby = np.zeros(n, dtype=np.int64)
    state = state_of(problem)
    tags = problem.rack_aware_tags
    previous = {m.member_id: (frozenset(m.active), frozenset(m.standby)) for m in problem.members}
    kept_active = kept_standby = 0
    on_state = {"active": 0, "standby": 0}
    given: Counter = Counter()
    values: dict[TaskId, set[tuple[str, str]]] = {}
    for member_id, (actives, standbys) in assignment.members.items():
        i = index.get(member_id)
        if i is None:
            continue
        member = problem.members[i]
        member_tags = dict(member.client_tags)
        was_active, was_standby = previous[member_id]
        for role, tasks in (("active", actives), ("standby", standbys)):
            for task in tasks:
                if not problem.is_task(task):
                    continue
                stateful = problem.subtopology[task[0]].stateful
                if role == "active":
                    active[i] += 1
                    kept_active += task in was_active
                else:
                    if not stateful:
                        continue
                    standby[i] += 1
                    given[task] += 1
                    kept_standby += task in was_standby
                if stateful:
                    on_state[role] += task in state[member_id]
                    if tags:
                        held = values.setdefault(task, set())
                        held.update((k, member_tags[k]) for k in tags if k in member_tags)
    wanted = standbys_wanted(problem)
    return StreamsMeasures(
        active_counts=active,
        standby_counts=standby,
        actives_kept=kept_active,
        actives_on_state=on_state["active"],
        standbys_kept=kept_standby,
        standbys_on_state=on_state["standby"],
        tag_diversity=sum(len(v) for v in values.values()),
        standbys=int(standby.sum()),
        shortfall=sum(max(0, wanted - given[t]) for t in problem.stateful_tasks),
    )


#: A tier's value as something smaller-is-better and comparable (its record's key).
tier_key = STREAMS.key
#: Compare two lists of tier values lexicographically: -1 when ``a`` is better, 1 when ``b`` is, 0.
better = STREAMS.better
