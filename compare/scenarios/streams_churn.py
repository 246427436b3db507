"""Streams group histories (KIP-1071): Kafka's ``StickyTaskAssignor`` over many rebalances, each judged.

A *history* is a starting Streams group and a list of events; :func:`simulate`
plays it with one assignor.  Step 0 is the starting group (nobody holds a
task); each later step applies one event and rebalances.  What a member
brings to a rebalance is what Kafka's coordinator hands the assignor:

* its **current tasks**: the active and standby tasks the assignor gave it
  in the step before (the answer fed back), if it was in the group then; a
  member that (re)joined holds none;
* its **task offsets**: every task whose state its *process* holds on disk
  (a process's state directory is shared by its stream threads): every task
  any member of the process held, active or standby, in an earlier step of
  this history (state stays on disk; ``state.cleanup.delay.ms`` is not
  modelled).  The offset says how recent the state is: ``1000 * (s + 1)``
  for a task last held as an active in step ``s``, ``1000 * (s + 1) - 10``
  as a standby (a standby lags its active), so Kafka's "most caught-up
  state first" ranks the newest state first.  A process that leaves the
  group for good (``scale-in``) takes its disk with it.

Families (:data:`HISTORIES`), every choice drawn from ``random.Random(seed)``:

``rolling-restart``
    every process restarts, one at a time (a seeded order; ``steps`` limits
    how many): its members leave (a step), then rejoin (the next step) with
    NEW member ids (``p1-m0-r1``: a restarted thread gets a new member id)
    on the same process, holding no task but reporting the offsets of the
    state still on the process's disk; the other members keep theirs;
``scale-out``
    ``steps`` times, a new process with 1 to ``members`` members joins;
``scale-in``
    ``steps`` times, a process (seeded) leaves with its members; at least
    one process stays;
``steady``
    ``steps`` rebalances where nothing changes: every member brings back
    exactly what it was given, so an assignor that is sticky at equal
    balance moves nothing (what the optimum does on the same state says
    whether keeping everything was possible at the optimum's balance).

The starting group: ``subtopologies`` subtopologies ``sub-0 ..`` of 1 to
``tasks`` tasks (``sub-0`` stateful, each other one stateful with
probability 1/2), ``processes`` processes ``p0 ..`` of 1 to ``members``
members each (``p0-m0``, ...), ``standby_replicas`` standbys; with ``tags``
every process carries the client tag ``zone`` (``z0``/``z1``, by process
number: a new process continues the pattern) and the group asks for
``rack_aware_tags = ["zone"]``.

Each step is solved exactly (:func:`assignment_oracle.optimal.solve`, Kafka's
tier order) and the assignor's answer judged against that optimum
(:func:`assignment_oracle.compare.judge.streams.judge`): validity, avoidable
standby shortfall, every tier beside the optimum's, the first worse tier,
Kafka's guarantees; and moves: previous actives (standbys) of members still
in the group that did not stay active (standby) on their member, beside the
optimum's on the same state, and ``moved_optimum_kept``: previous copies
the optimum keeps on their member and the assignor moved (the judge's
stickiness line).  The trajectory is the assignor's own: a step's problem
depends on what the assignor answered before, so two assignors' steps
after step 0 are different problems.

Assignors (:data:`ASSIGNORS`): ``streams-sticky`` (the port,
``iteration_order="sorted"``) and ``streams-sticky-java``
(``iteration_order="java"``: Java 17's hash orders); and ``optimum``
(:data:`OPTIMUM`), the oracle's own trajectory: each step's answer is that
step's optimum, the best any assignor could have done over the whole history.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from assignment_oracle.compare.judge.streams import avoidable_shortfall, judge
from assignment_oracle.compare.judge.text import cell
from assignment_oracle.compare.scenarios import history as history_
from assignment_oracle.compare.scenarios.history import OPTIMUM
from assignment_oracle.optimal.streams_request import STICKINESS, measure
from assignment_oracle.problem.kinds import STREAMS
from assignment_oracle.problem.streams import MemberTasks, StreamsAssignment, StreamsProblem, TaskId

__all__ = [
    "HISTORIES",
    "ASSIGNORS",
    "OPTIMUM",
    "DEFAULTS",
    "Event",
    "StreamsPlan",
    "StreamsStep",
    "StreamsHistory",
    "plan",
    "play",
    "simulate",
    "starting_group",
    "random_scenario",
    "get_streams_assignor",
]

HISTORIES = ("rolling-restart", "scale-out", "scale-in", "steady")

#: Assignor name -> what answers a :class:`StreamsProblem` (Kafka's port in each iteration order).
ASSIGNORS: Mapping[str, Callable[[StreamsProblem], StreamsAssignment]] = history_.in_both_orders(
    "streams-sticky", "streams"
)

#: The starting group's parameters when not given (small enough for an exact solve well under a second).
DEFAULTS: Mapping[str, Any] = {
    "processes": 3,
    "members": 2,
    "subtopologies": 2,
    "tasks": 4,
    "standby_replicas": 1,
    "tags": False,
}
_ZONES = 2


def get_streams_assignor(name: str) -> Callable[[StreamsProblem], StreamsAssignment]:
    """The assignor called ``name`` (:data:`ASSIGNORS`); ``ValueError`` naming the known ones otherwise."""
    return HISTORY_KIND.assignor(name)


# -- the group and its events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event(history_.Event):
    """What happens before a step's rebalance: ``kind`` (``start``, ``leave``, ``rejoin``, ``join``,
    ``remove``, ``none``), the process, and the member ids that join (``join``, ``rejoin``)."""

    process: str | None = None
    members: tuple[str, ...] = ()

    def change(self) -> str:
        if self.kind == "leave":
            return f"{self.process} stops (restart): its members leave"
        if self.kind == "rejoin":
            return f"{self.process} restarted: {', '.join(self.members)} rejoin with its state on disk"
        if self.kind == "join":
            return f"{self.process} joins: {', '.join(self.members)}"
        return f"{self.process} leaves for good"


@dataclass(frozen=True)
class StreamsPlan(history_.Plan):
    """A history before it is played: the topology, the starting members, the events (one per step after
    step 0).  The same name, seed and parameters always give the same plan."""

    subtopologies: Mapping[str, Mapping[str, Any]]  # id -> {"tasks", "stateful"} (the scenario format)
    members: Mapping[str, str]  # starting member id -> process
    events: tuple[Event, ...]

    @property
    def standby_replicas(self) -> int:
        return int(self.params["standby_replicas"])

    @property
    def tags(self) -> bool:
        return bool(self.params["tags"])


def _zone(process: str) -> str:
    return f"z{int(process[1:]) % _ZONES}"


def starting_group(rng: random.Random, params: Mapping[str, Any]) -> tuple[dict, dict[str, str]]:
    """The topology (scenario format) and the starting members (id -> process), drawn from ``rng``."""
    subtopologies = {
        f"sub-{i}": {"tasks": rng.randint(1, params["tasks"]), "stateful": i == 0 or rng.random() < 0.5}
        for i in range(params["subtopologies"])
    }
    members = {}
    for i in range(params["processes"]):
        for j in range(rng.randint(1, params["members"])):
            members[f"p{i}-m{j}"] = f"p{i}"
    return subtopologies, members


def plan(history: str, *, seed: int = 0, **params: Any) -> StreamsPlan:
    """The events of ``history`` (:data:`HISTORIES`) from ``seed`` (module docstring); parameters as
    :data:`DEFAULTS`, and ``steps`` (default: every process for ``rolling-restart``, 2 otherwise;
    ``scale-in`` removes at most ``processes - 1``)."""
    p, steps, shown, rng = HISTORY_KIND.begin(history, seed, params)
    subtopologies, members = starting_group(rng, p)
    processes = sorted(set(members.values()), key=lambda x: int(x[1:]))
    events: list[Event] = []
    if history == "rolling-restart":
        order = processes[:]
        rng.shuffle(order)
        for process in order[: len(order) if steps is None else steps]:
            threads = sorted(m for m, q in members.items() if q == process)
            events.append(Event("leave", process))
            events.append(Event("rejoin", process, tuple(f"{m}-r1" for m in threads)))
    elif history == "scale-out":
        for k in range(2 if steps is None else steps):
            process = f"p{len(processes) + k}"
            events.append(Event("join", process, tuple(f"{process}-m{j}" for j in range(rng.randint(1, p["members"])))))
    elif history == "scale-in":
        left = processes[:]
        for _ in range(min(2 if steps is None else steps, len(left) - 1)):
            process = rng.choice(left)
            left.remove(process)
            events.append(Event("remove", process))
    else:
        events = [Event("none")] * (2 if steps is None else steps)
    return StreamsPlan(history, seed, shown, subtopologies, members, tuple(events))


def _tasks_mapping(tasks) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for s, part in sorted(tasks):
        out.setdefault(s, []).append(part)
    return out


def _problem(
    plan_: StreamsPlan,
    members: Mapping[str, str],
    previous: StreamsAssignment | None,
    disk: Mapping[str, Mapping[TaskId, int]],
) -> StreamsProblem:
    """The step's scenario: each member's fed-back tasks (if it was in the previous step) and its process's
    state on disk as task offsets."""
    out = {}
    for member_id, process in sorted(members.items()):
        entry: dict[str, Any] = {"process": process}
        if plan_.tags:
            entry["client_tags"] = {"zone": _zone(process)}
        if previous is not None and member_id in previous.members:
            given = previous.members[member_id]
            if given.active:
                entry["active"] = _tasks_mapping(given.active)
            if given.standby:
                entry["standby"] = _tasks_mapping(given.standby)
        on_disk = disk.get(process, {})
        if on_disk:
            offsets: dict[str, dict[str, int]] = {}
            for (s, part), offset in sorted(on_disk.items()):
                offsets.setdefault(s, {})[str(part)] = offset
            entry["task_offsets"] = offsets
        out[member_id] = entry
    scenario = {
        "kind": "streams",
        "subtopologies": {k: dict(v) for k, v in plan_.subtopologies.items()},
        "standby_replicas": plan_.standby_replicas,
        "rack_aware_tags": ["zone"] if plan_.tags else [],
        "members": out,
    }
    return StreamsProblem.from_mapping(scenario, source=f"streams history {plan_.name}")


# -- playing a history -------------------------------------------------------------------------------------


class _Group(history_.Group):
    """A Streams group between steps: its members (id -> process) and each process's state on disk."""

    def __init__(self, plan_: StreamsPlan) -> None:
        self.plan = plan_
        self.members = dict(plan_.members)
        self.disk: dict[str, dict[TaskId, int]] = {}

    def apply(self, event: Event) -> None:
        if event.kind in ("leave", "remove"):
            self.members = {m: p for m, p in self.members.items() if p != event.process}
            if event.kind == "remove":
                self.disk.pop(event.process, None)
        elif event.kind in ("rejoin", "join"):
            self.members.update(dict.fromkeys(event.members, event.process))

    def problem(self, previous: StreamsAssignment | None) -> StreamsProblem:
        return _problem(self.plan, self.members, previous, self.disk)

    def answered(self, index: int, problem: StreamsProblem, assignment: StreamsAssignment) -> None:
        """Every task a member of a process holds is on the process's disk, with this step's offset."""
        for member_id, given in assignment.members.items():
            process = self.members.get(member_id)
            if process is None:
                continue
            held = self.disk.setdefault(process, {})
            for task in given.standby:
                held[task] = 1000 * (index + 1) - 10
            for task in given.active:
                if problem.subtopology.get(task[0]) is not None and problem.subtopology[task[0]].stateful:
                    held[task] = 1000 * (index + 1)


@dataclass(frozen=True, eq=False)
class StreamsStep(history_.Step):
    """One rebalance of a Streams group's history (:class:`history.Step`): ``problem`` a
    :class:`StreamsProblem`, ``assignment`` a :class:`StreamsAssignment`, ``optimum`` an
    ``optimal.streams.StreamsSolution``."""

    def _previous(self) -> tuple[int, int]:
        actives = sum(len([t for t in m.active if self.problem.is_task(t)]) for m in self.problem.members)
        standbys = sum(
            len([t for t in m.standby if self.problem.is_task(t) and self.problem.subtopology[t[0]].stateful])
            for m in self.problem.members
        )
        return actives, standbys

    def row(self) -> dict:
        """One flat dict: ``step``, ``event``, ``processes``, ``members``, ``tasks``; the verdict's
        ``valid``, ``violations``, ``avoidable_shortfall``, ``verdict``, ``gap_tier`` (the first worse
        tier), ``tiers`` (tier -> equal/worse/better/unknown), ``values`` and ``optimal_values`` (tier ->
        value), ``guarantees_broken``; moves: ``previous_actives``/``previous_standbys`` (fed back to
        members still in the group), ``actives_kept``/``standbys_kept`` and the optimum's, the same as
        ``*_moved``, ``copies_on_state`` (copies of stateful tasks on a member with state for them) and the
        optimum's, ``moved_optimum_kept`` (copies the optimum keeps on their member, the assignor moved);
        ``optimum_status``, ``optimum_wall_time_s``, ``wall_time_s``."""
        v = self.verdict
        mine = measure(self.problem, self.assignment)
        best = self.optimum.measures
        prev_active, prev_standby = self._previous()
        sticky = v.tier(STICKINESS)
        moved_kept = (
            len(sticky.involved.get("actives_moved", ())) + len(sticky.involved.get("standbys_moved", ()))
            if sticky is not None and sticky.involved
            else None
        )
        tiers = {t.tier: t for t in v.tiers}
        return {
            "step": self.index,
            "event": self.event.summary(),
            "processes": len(self.problem.processes),
            "members": len(self.problem.members),
            "tasks": len(self.problem.tasks),
            "valid": v.valid,
            "violations": len(v.violations),
            "avoidable_shortfall": avoidable_shortfall(v),
            "verdict": v.status,
            "gap_tier": v.gap_tier,
            "tiers": {name: line.comparison for name, line in tiers.items()},
            "values": {name: line.value for name, line in tiers.items()},
            "optimal_values": {name: line.optimum for name, line in tiers.items()},
            "guarantees_broken": list(v.broken),
            "previous_actives": prev_active,
            "previous_standbys": prev_standby,
            "actives_kept": mine.actives_kept,
            "standbys_kept": mine.standbys_kept,
            "optimal_actives_kept": None if best is None else best.actives_kept,
            "optimal_standbys_kept": None if best is None else best.standbys_kept,
            "copies_on_state": mine.on_state,
            "optimal_copies_on_state": None if best is None else best.on_state,
            "actives_moved": prev_active - mine.actives_kept,
            "standbys_moved": prev_standby - mine.standbys_kept,
            "optimal_actives_moved": None if best is None else prev_active - best.actives_kept,
            "optimal_standbys_moved": None if best is None else prev_standby - best.standbys_kept,
            "moved_optimum_kept": moved_kept,
            "optimum_status": self.optimum.status,
            "optimum_wall_time_s": self.optimum.wall_time,
            "wall_time_s": self.wall_time,
        }


@dataclass(frozen=True, eq=False)
class StreamsHistory(history_.History):
    """A Streams group's history played by one assignor (:class:`history.History`): one
    :class:`StreamsStep` per rebalance (step 0 the starting group)."""

    KIND = STREAMS
    COLUMNS = ("actives (max/opt)", "kept act./opt", "kept stb./opt", "moved what opt. kept")
    MOVED = (("actives_moved", "actives"), ("standbys_moved", "standbys"))

    def cells(self, r: dict) -> tuple[str, ...]:
        active = r["values"].get("active-balance") or [0]
        best = r["optimal_values"].get("active-balance") or [0]
        return (
            f"{active[0] if active else 0}/{best[0] if best else 0}",
            f"{r['actives_kept']}/{cell(r['optimal_actives_kept'])} of {r['previous_actives']}",
            f"{r['standbys_kept']}/{cell(r['optimal_standbys_kept'])} of {r['previous_standbys']}",
            cell(r["moved_optimum_kept"]),
        )


#: What a Streams group's history is made of (the one play loop, :class:`history.HistoryKind`).
HISTORY_KIND = history_.HistoryKind(
    histories=HISTORIES,
    defaults=DEFAULTS,
    at_least={"processes": 1, "members": 1, "subtopologies": 1, "tasks": 1, "standby_replicas": 0},
    flags=("tags",),
    assignors=ASSIGNORS,
    judge=judge,
    group=_Group,
    event=Event,
    step=StreamsStep,
    history=StreamsHistory,
)


def play(plan_: StreamsPlan, assignor: str) -> StreamsHistory:
    """Play ``plan_`` with ``assignor`` (:data:`ASSIGNORS`, or :data:`OPTIMUM`), each step solved and judged."""
    return HISTORY_KIND.play(plan_, assignor)


def simulate(history: str, assignor: str = "streams-sticky", *, seed: int = 0, **params: Any) -> StreamsHistory:
    """Play the history called ``history`` (:data:`HISTORIES`) with ``assignor`` (``streams-sticky`` or
    ``streams-sticky-java``) from ``seed``; ``params`` as :func:`plan`.  The command line's one call.

    >>> h = simulate("steady", "streams-sticky", seed=1)
    >>> [r["step"] for r in h.rows()], h.rows()[0]["valid"]
    ([0, 1, 2], True)
    """
    return HISTORY_KIND.simulate(plan, history, assignor, seed, params)


# -- single rebalances for sweeps ------------------------------------------------------------------------------


def random_scenario(seed: int, *, previous: bool = False, **params: Any) -> StreamsProblem:
    """One Streams group rebalance from ``seed`` (parameters as :data:`DEFAULTS`; ``steps`` not taken).

    Without ``previous``: a fresh group (nobody holds a task).  With it: the group after a random earlier
    assignment and some churn: every task was active on a random member of the earlier group, each stateful
    task had up to ``standby_replicas`` standbys on other processes, every member reports offsets for its
    process's tasks; then one process (seeded) left for good, unless it is the only one, and a new process
    with 1 to ``members`` members joined.
    """
    p, rng = HISTORY_KIND.begin_single(seed, previous, params)
    subtopologies, members = starting_group(rng, p)
    disk: dict[str, dict[TaskId, int]] = {}
    earlier = None
    if previous:
        by_process: dict[str, list[str]] = {}
        for m, proc in sorted(members.items()):
            by_process.setdefault(proc, []).append(m)
        given: dict[str, tuple[list, list]] = {m: ([], []) for m in members}
        for sub, spec in subtopologies.items():
            for part in range(spec["tasks"]):
                task = (sub, part)
                owner = rng.choice(sorted(members))
                given[owner][0].append(task)
                disk.setdefault(members[owner], {})[task] = 1000
                if spec["stateful"]:
                    others = [q for q in sorted(by_process) if q != members[owner]]
                    for q in rng.sample(others, min(len(others), p["standby_replicas"])):
                        holder = rng.choice(by_process[q])
                        given[holder][1].append(task)
                        disk.setdefault(q, {})[task] = 990
        earlier = StreamsAssignment({m: MemberTasks(tuple(a), tuple(s)) for m, (a, s) in given.items()})
        processes = sorted(by_process, key=lambda x: int(x[1:]))
        if len(processes) > 1:
            gone = rng.choice(processes)
            members = {m: q for m, q in members.items() if q != gone}
            disk.pop(gone, None)
        fresh = f"p{len(processes)}"
        for j in range(rng.randint(1, p["members"])):
            members[f"{fresh}-m{j}"] = fresh
    plan_ = StreamsPlan("single", seed, p, subtopologies, members, ())
    return _problem(plan_, members, earlier, disk)
