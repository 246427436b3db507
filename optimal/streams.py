"""The exact optimum of a Streams group's task assignment (KIP-1071), tier by tier, with a proof.

Guarantee: with no time limit the answer is valid, gives every standby that
can be placed, and is optimal for the tiers of :mod:`optimal.streams_request`
in the asked order (Kafka's by default: ``active-balance``, ``task-balance``,
``tag-diversity``, ``stickiness``), each tier proven before the next starts
(by a bound that needs no solver, or by CP-SAT) and pinned for the rest; the
assignment returned is measured by :func:`optimal.streams_request.measure`
and must show exactly the proven values, or the solve fails rather than
answer.  With a time limit a tier that is not proven keeps its incumbent's
value as a ceiling, the answer is ``FEASIBLE`` and the tier carries the best
bound known (below, "Bounds of a tier left unproven").
``optimal.solve(streams_problem)`` comes here: the one front door.

The model: processes, not members, hold copies
----------------------------------------------
A task's copies (one active, ``k = min(standby_replicas, processes - 1)``
standbys if stateful) must be on distinct processes, and inside one process
any member can take any of the process's tasks (a process holds a task at
most once, so its members never clash).  So the model decides, per task,
which processes hold its active and its standbys, and per member only *how
many* actives (``a_m``) and standbys (``s_m``) it takes, with
``sum a_m`` over a process's members equal to the actives the process holds.
Which member of a process gets which task matters only for stickiness: a
boolean ``uA[t, m]`` (``uS[t, m]``) says task ``t`` is active (standby) on
member ``m``, one per member with local state for ``t`` (previous active,
standby, warm-up, reported offset), at most one per process holding the
copy, at most ``a_m`` (``s_m``) per member; the rest of a process's tasks
fill its members' remaining slots in any order.  Actives kept, standbys kept
and copies on state are sums of these booleans.

The core model.  Only copies on a member with state for the task can
score; the others ("free" copies) matter only for validity and the counts.
So the core model has the booleans ``uA``/``uS`` and the counts ``a_m``,
``s_m`` alone: per task at most one active and ``k`` standbys among its
state holders, at most one copy per process among them, per member at most
``a_m`` (``s_m``) of them, the totals fixed, and per process at most one copy
of each task.  Every assignment is a solution of it (set the booleans from
where its copies are), so its optimum bounds every tier.  The answer is then
*realized* (:func:`_realize`): the free actives dealt to processes by a
max-flow (a task to a process holding none of its copies, up to the
process's free active slots), then the free standbys the same way, then each
process's free copies to its members' free slots.  A realization has the
model's counts and at least its stickiness, so it meets the bound: it is
optimal, and :func:`solve` checks that by measuring it.  When the free
copies cannot be dealt out (tight groups: few processes, many standbys),
the *full* model answers: a boolean per task, process and role
(``XA``/``XS``), the ``uA``/``uS`` tied to them, exact as it stands; it is
also the model whenever ``tag-diversity`` is a tier (tag values belong to
the processes a task's copies are on).  Target scale (100 processes × 2
members, 1,000 tasks half stateful, one standby, every task with previous
owners): about 3,000 variables and under 2 s, against 150,000 booleans the
full model cannot settle in a minute.

Stages
------
``active-balance`` and ``task-balance`` (``dec-min``): the totals are fixed
(every active task once, every placeable standby), so the most balanced
vector any assignment could have is ``floor``/``ceil`` of the average
(the *ideal*); the model with every load in that window is tried first, and
when it is feasible the tier is proven by that bound.  Otherwise the counts
``N_l`` of members with load at least ``l`` are minimized level by level
from the top (a sorted vector is lexicographically least exactly when its
sequence ``N_top, N_top-1, ...`` is), each level proven by CP-SAT and pinned.
While only balance tiers come first (Kafka's order), both are decided on the
*counts model* (:class:`_Counts`): the members' counts alone, under the same
count constraints (every other variable may be 0, so its count vectors are
exactly the model's), the members of a process ordered (they are
interchangeable there) and each load's value a boolean, so that ``N_l`` is a
sum whose LP relaxation bounds the total by the levels above (the big-M
flags' does not: a group of 6 processes spent 2-4 s of search a level).  Its
optimum is then pinned in the model (:func:`_pin`).
``tag-diversity``: the most distinct (key, value) pairs per stateful task,
CP-SAT.  ``stickiness``: actives kept, then standbys kept, then copies on
state, each the most, CP-SAT, each pinned.  Every solve is hinted with the
previous one's answer, or, for a stage with an objective, with the optimum
of the model's LP relaxation when that is integral (:func:`_lp_answer`:
after the balance and tag tiers are pinned it was on every stage of the
1,000-task group with tags of ``benchmarks/bench_streams.py``, where CP-SAT
took 4-35 s a stage to find it; 83 s became 5 s).  A hint is never a proof:
CP-SAT checks it and proves the stage.  CP-SAT runs with
:func:`optimal.cpsat_solver.parameters` (deterministic: same input, same answer),
with one worker on models of fewer than 5,000 variables (in the portfolio
each worker runs its whole slice, up to a second, after another has proven
the stage in milliseconds) and, on larger ones, the portfolio without its
core-based worker (the same) and its LP-diving workers (seconds a batch, and
no answer the others did not find sooner).

Bounds of a tier left unproven
------------------------------
A balance tier: the ideal (no assignment is more balanced).  The first
maximized stage left unproven, every stage before it proven: CP-SAT's bound
on it (valid for every assignment at the optimum of the tiers before); after
it, what no assignment exceeds (:attr:`_Model.ceilings`: tasks with a
previous active owner, stateful tasks with state somewhere, standbys on
distinct processes with state, ``min(copies, values)`` per task and tag key),
since a later stage's own bound holds only under pins not known optimal.
``stickiness`` gives the four numbers, each its bound.

The flow engine of consumer groups has no counterpart here: a task's active
and standbys are two kinds of copy tied by the distinct-process rule, a
two-commodity structure no single min-cost flow expresses; the proofs are
the bound and CP-SAT, and the brute force (:func:`optimal.brute_force.streams_optimum`)
checks both on tiny groups.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping

from ortools.graph.python import max_flow
from ortools.linear_solver import pywraplp
from ortools.sat.python import cp_model

from assignment_oracle.optimal.cpsat_solver import parameters, solve_interruptibly
from assignment_oracle.optimal.solution import FEASIBLE, OPTIMAL, UNKNOWN, TierResult
from assignment_oracle.optimal.streams_request import (
    ACTIVE_BALANCE,
    STICKINESS,
    TAG_DIVERSITY,
    TASK_BALANCE,
    StreamsMeasures,
    StreamsRequest,
    measure,
    standbys_wanted,
    state_of,
)
from assignment_oracle.problem.errors import SolverError, UnsupportedRequest
from assignment_oracle.problem.streams import (
    MemberTasks,
    StreamsAssignment,
    StreamsProblem,
    streams_assignment_to_mapping,
    violations,
)
from assignment_oracle.problem.tiers import STREAMS, pick

__all__ = ["METHOD", "StreamsSolution", "solve"]

#: The engine's name in a :class:`StreamsSolution`.
METHOD = "streams-cpsat"


@dataclass(frozen=True, eq=False)
class StreamsSolution:
    """What :func:`optimal.solve` returns for a :class:`~assignment_oracle.problem.streams.StreamsProblem`.

    ``status``: ``OPTIMAL`` (every tier proven, in order), ``FEASIBLE`` (valid, some tier not proven in time:
    see ``tiers``) or ``UNKNOWN`` (no assignment in time).  ``tiers``: one
    :class:`~assignment_oracle.optimal.solution.TierResult` per tier, ``how`` ``bound`` (the ideal) or
    ``cpsat``.  ``stages``: each solve (name, value, proven).  ``core``: whether the answer came from the
    core model (module docstring), else the full one.
    """

    problem: StreamsProblem
    status: str
    method: str
    assignment: StreamsAssignment | None
    request: StreamsRequest = field(default_factory=StreamsRequest)
    tiers: tuple[TierResult, ...] = ()
    stages: tuple[Mapping[str, object], ...] = ()
    wall_time: float = 0.0
    message: str = ""
    core: bool = False
    stats: Mapping[str, int] = field(default_factory=dict)

    @property
    def objective_order(self) -> tuple[str, ...]:
        return self.request.tiers(self.problem)

    @cached_property
    def measures(self) -> StreamsMeasures | None:
        return None if self.assignment is None else measure(self.problem, self.assignment)

    def tier(self, name: str) -> TierResult | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def to_mapping(self, *, timing: bool = False) -> dict:
        """The solution as JSON (``solve``'s output; docs/formats.md, "Streams groups"): status, method,
        objective order, each tier's value, bound, proof, the message and the assignment
        (:func:`~assignment_oracle.problem.streams.streams_assignment_to_mapping`); ``timing`` adds the wall time
        and the model's sizes (then not byte-stable)."""
        out: dict[str, Any] = {
            "kind": "streams",
            "status": self.status,
            "method": self.method,
            "objective_order": list(self.objective_order),
            "tiers": [t.to_mapping() for t in self.tiers],
            "standbys_wanted_per_stateful_task": standbys_wanted(self.problem),
            "message": self.message,
            "assignment": None if self.assignment is None else streams_assignment_to_mapping(self.assignment),
        }
        if timing:
            out["wall_time"] = round(self.wall_time, 6)
            out["stats"] = dict(self.stats)
        return out


class _Model:
    """The CP-SAT model of one Streams problem (module docstring), with every tier's expression."""

    def __init__(self, problem: StreamsProblem, *, core: bool, tags: bool) -> None:
        self.problem = problem
        self.model = m = cp_model.CpModel()
        self.k = k = standbys_wanted(problem)
        processes = problem.processes
        self.process_index = pindex = {p: i for i, p in enumerate(processes)}
        P = len(processes)
        members = problem.members
        self.member_process = [pindex[x.process_id] for x in members]
        self.process_members: list[list[int]] = [[] for _ in range(P)]
        for j, pi in enumerate(self.member_process):
            self.process_members[pi].append(j)
        tasks = problem.tasks
        self.stateful = [problem.subtopology[s].stateful for s, _ in tasks]
        state = state_of(problem)
        holders: list[list[int]] = [[] for _ in tasks]  # members with state for each task
        for j, x in enumerate(members):
            for t in state[x.member_id]:
                holders[problem.task_index[t]].append(j)
        self.holders = holders
        T = len(tasks)
        self.core = core
        # full: which processes hold each task's active (XA) and standbys (XS)
        self.XA: list[dict[int, Any]] = [{} for _ in tasks]
        self.XS: list[dict[int, Any]] = [{} for _ in tasks]
        per_process_active: list[list[Any]] = [[] for _ in range(P)]
        per_process_standby: list[list[Any]] = [[] for _ in range(P)]
        if not core:
            for i in range(T):
                sf = self.stateful[i]
                xa = self.XA[i] = {p: m.new_bool_var(f"xa{i}_{p}") for p in range(P)}
                xs = self.XS[i] = {p: m.new_bool_var(f"xs{i}_{p}") for p in range(P)} if sf and k else {}
                m.add(sum(xa.values()) == 1)
                if xs:
                    m.add(sum(xs.values()) == k)
                for p in range(P):
                    per_process_active[p].append(xa[p])
                    if xs:
                        m.add(xa[p] + xs[p] <= 1)
                        per_process_standby[p].append(xs[p])
        # members' counts
        self.a = [m.new_int_var(0, T, f"a{j}") for j in range(len(members))]
        self.s = [m.new_int_var(0, T, f"s{j}") for j in range(len(members))]
        stateful_count = sum(self.stateful)
        if core:  # the totals, and what one process can hold (each task once)
            m.add(sum(self.a) == T)
            m.add(sum(self.s) == k * stateful_count)
            for js in self.process_members:
                m.add(sum(self.a[j] + self.s[j] for j in js) <= T)
                m.add(sum(self.s[j] for j in js) <= stateful_count)
        else:
            for p in range(P):
                m.add(sum(self.a[j] for j in self.process_members[p]) == sum(per_process_active[p]))
                m.add(sum(self.s[j] for j in self.process_members[p]) == sum(per_process_standby[p]))
        # which member gets a task it has state for: uA / uS
        self.uA: dict[tuple[int, int], Any] = {}
        self.uS: dict[tuple[int, int], Any] = {}
        on_member_a: list[list[Any]] = [[] for _ in members]
        on_member_s: list[list[Any]] = [[] for _ in members]
        prev_active = [{problem.task_index[t] for t in x.active if problem.is_task(t)} for x in members]
        prev_standby = [{problem.task_index[t] for t in x.standby if problem.is_task(t)} for x in members]
        kept_a, kept_s, state_a, state_s = [], [], [], []
        for i in range(T):
            by_process: dict[int, list[int]] = {}
            for j in holders[i]:
                by_process.setdefault(self.member_process[j], []).append(j)
            task_a, task_s = [], []
            for p, js in by_process.items():
                ua = [m.new_bool_var(f"ua{i}_{j}") for j in js]
                us = [m.new_bool_var(f"us{i}_{j}") for j in js] if self.stateful[i] and k else []
                for j, v in zip(js, ua):
                    self.uA[i, j] = v
                for j, v in zip(js, us):
                    self.uS[i, j] = v
                if core:  # one copy of a task per process
                    m.add(sum(ua) + sum(us) <= 1)
                else:
                    m.add(sum(ua) <= self.XA[i][p])
                    if us:
                        m.add(sum(us) <= self.XS[i][p])
                task_a += ua
                task_s += us
                for j, v in zip(js, ua):
                    on_member_a[j].append(v)
                    if i in prev_active[j]:
                        kept_a.append(v)
                    if self.stateful[i]:
                        state_a.append(v)
                for j, v in zip(js, us):
                    on_member_s[j].append(v)
                    if i in prev_standby[j]:
                        kept_s.append(v)
                    state_s.append(v)
            if core and task_a:
                m.add(sum(task_a) <= 1)
                if task_s:
                    m.add(sum(task_s) <= k)
        for j in range(len(members)):
            if on_member_a[j]:
                m.add(sum(on_member_a[j]) <= self.a[j])
            if on_member_s[j]:
                m.add(sum(on_member_s[j]) <= self.s[j])
        self.kept_active = sum(kept_a)
        # what no assignment exceeds, tier by tier (the bound of a tier left unproven, :func:`_staged`)
        task_processes = [len({self.member_process[j] for j in holders[i]}) for i in range(T)]
        kept_processes = [len({self.member_process[j] for j in holders[i] if i in prev_standby[j]}) for i in range(T)]
        self.ceilings = {
            "actives kept": sum(1 for i in range(T) if any(i in prev_active[j] for j in holders[i])),
            "actives on state": sum(1 for i in range(T) if self.stateful[i] and holders[i]),
            "standbys kept": sum(min(k, kept_processes[i]) for i in range(T) if self.stateful[i]),
            "standbys on state": sum(min(k, task_processes[i]) for i in range(T) if self.stateful[i]),
            "tag-diversity": 0,
        }
        self.kept_standby = sum(kept_s)
        self.active_on_state = sum(state_a)
        self.standby_on_state = sum(state_s)
        self.diversity: Any = 0
        self.tag_vars: list[Any] = []
        self.tag_terms: list[tuple[Any, list[Any]]] = []  # each tag value's boolean and the copies it counts
        self.tags = tags
        self.relaxation: _Relaxation | None = None  # its LP relaxation, built at the first stage that asks
        self.fA: list[dict[int, Any]] = [{} for _ in tasks]  # core with tags: free copies per tag class
        self.fS: list[dict[int, Any]] = [{} for _ in tasks]
        self.process_class = [0] * P
        if tags:
            self.diversity = self._tag_diversity()
        self.stickiness = (self.kept_active, self.active_on_state, self.kept_standby, self.standby_on_state)
        self.totals = {
            ACTIVE_BALANCE: T,
            TASK_BALANCE: T + k * sum(self.stateful),
        }
        self.loads: dict[str, list[Any]] = {
            ACTIVE_BALANCE: list(self.a),
            TASK_BALANCE: [self.a[j] + self.s[j] for j in range(len(members))],
        }
        self.variables = (
            [v for d in self.XA for v in d.values()]
            + [v for d in self.XS for v in d.values()]
            + self.a
            + self.s
            + list(self.uA.values())
            + list(self.uS.values())
            + self.tag_vars
            + [v for d in self.fA for v in d.values()]
            + [v for d in self.fS for v in d.values()]
        )

    def ideal(self, tier: str) -> list[int]:
        """The tier's most balanced vector any assignment could have (floor/ceil of the average, largest
        first): a bound on the tier, proven or not."""
        n = len(self.loads[tier])
        low, extra = divmod(self.totals[tier], n) if n else (0, 0)
        return [low + 1] * extra + [low] * (n - extra)

    def ceiling(self, tier: str) -> Any:
        """What no assignment is better than on ``tier``: the ideal, or the ceilings."""
        return pick(STREAMS.kind, tier, _CEILINGS, "the Streams exact model's bounds")(self, tier)

    def _process_tags(self) -> list[dict[str, str]]:
        """Each process's rack-aware tag values: its members' (which must agree)."""
        problem = self.problem
        keys = problem.rack_aware_tags
        process_tags: list[dict[str, str]] = []
        for p, members in zip(problem.processes, self.process_members):
            seen: dict[str, str | None] = {}
            for j in members:
                tags = dict(problem.members[j].client_tags)
                for key in keys:
                    value = tags.get(key)
                    if key in seen and seen[key] != value:
                        raise UnsupportedRequest(
                            f"tag-diversity: the members of process {p} disagree on rack-aware tag {key!r}"
                        )
                    seen[key] = value
            process_tags.append({k: v for k, v in seen.items() if v is not None})
        return process_tags

    def _tag_diversity(self) -> Any:
        """Distinct (key, value) pairs per stateful task over the processes holding its copies.

        Full model: from ``XA``/``XS``.  Core model: processes with the same tag values form a *class*; the
        free copies of a task are counted per class (``fA``, ``fS``), at most the class's processes minus
        those holding the task's other copies, and each class's members' counts are its copies; the
        realization deals each class's free copies to its processes (:func:`_realize`)."""
        m, k = self.model, self.k
        process_tags = self._process_tags()
        classes: dict[tuple, int] = {}
        for p, tags in enumerate(process_tags):
            self.process_class[p] = classes.setdefault(tuple(sorted(tags.items())), len(classes))
        C = len(classes)
        class_tags = [dict(key) for key in classes]
        class_size = [0] * C
        for c in self.process_class:
            class_size[c] += 1
        # copies of task i in class c: holder booleans and (core) free counts
        copies: list[list[list[Any]]] = [[[] for _ in range(C)] for _ in self.stateful]
        home = self.member_process
        if self.core:
            per_class_a: list[list[Any]] = [[] for _ in range(C)]
            per_class_s: list[list[Any]] = [[] for _ in range(C)]
            for (i, j), v in self.uA.items():
                copies[i][self.process_class[home[j]]].append(v)
                per_class_a[self.process_class[home[j]]].append(v)
            for (i, j), v in self.uS.items():
                copies[i][self.process_class[home[j]]].append(v)
                per_class_s[self.process_class[home[j]]].append(v)
            held_a: list[list[Any]] = [[] for _ in self.stateful]
            held_s: list[list[Any]] = [[] for _ in self.stateful]
            for (i, _), v in self.uA.items():
                held_a[i].append(v)
            for (i, _), v in self.uS.items():
                held_s[i].append(v)
            for i, sf in enumerate(self.stateful):
                self.fA[i] = {c: m.new_int_var(0, 1, f"fa{i}_{c}") for c in range(C)}
                m.add(sum(self.fA[i].values()) + sum(held_a[i]) == 1)
                if sf and k:
                    self.fS[i] = {c: m.new_int_var(0, min(k, class_size[c]), f"fs{i}_{c}") for c in range(C)}
                    m.add(sum(self.fS[i].values()) + sum(held_s[i]) == k)
                for c in range(C):
                    free = [self.fA[i][c]] + ([self.fS[i][c]] if self.fS[i] else [])
                    m.add(sum(free) + sum(copies[i][c]) <= class_size[c])
                    copies[i][c] = copies[i][c] + free
                    per_class_a[c].append(self.fA[i][c])
                    if self.fS[i]:
                        per_class_s[c].append(self.fS[i][c])
            for c in range(C):
                members = [j for j in range(len(self.a)) if self.process_class[home[j]] == c]
                m.add(sum(self.a[j] for j in members) == sum(per_class_a[c]))
                m.add(sum(self.s[j] for j in members) == sum(per_class_s[c]))
        else:
            for i in range(len(self.stateful)):
                for p, v in self.XA[i].items():
                    copies[i][self.process_class[p]].append(v)
                for p, v in self.XS[i].items():
                    copies[i][self.process_class[p]].append(v)
        terms = []
        for i, sf in enumerate(self.stateful):
            if not sf:
                continue
            for key in self.problem.rack_aware_tags:
                groups: dict[str, list[int]] = {}
                for c, tags in enumerate(class_tags):
                    if key in tags:
                        groups.setdefault(tags[key], []).append(c)
                self.ceilings["tag-diversity"] += min(k + 1, len(groups))  # k + 1 copies, one value each
                for value, cs in sorted(groups.items()):
                    z = m.new_bool_var(f"z{i}_{key}_{value}")
                    held = [v for c in cs for v in copies[i][c]]
                    m.add(z <= sum(held))
                    terms.append(z)
                    self.tag_vars.append(z)
                    self.tag_terms.append((z, held))
        return sum(terms)


#: The stickiness tier's parts, in order (the numbers of :attr:`StreamsMeasures.stickiness`).
_STICKINESS_PARTS = ("actives kept", "actives on state", "standbys kept", "standbys on state")
#: What no assignment is better than, per tier (:meth:`_Model.ceiling`).
_CEILINGS: dict[str, Callable[[_Model, str], Any]] = {
    ACTIVE_BALANCE: _Model.ideal,
    TASK_BALANCE: _Model.ideal,
    TAG_DIVERSITY: lambda model, tier: model.ceilings[tier],
    STICKINESS: lambda model, tier: [model.ceilings[n] for n in _STICKINESS_PARTS],
}
#: The balance tiers, whose stages are decided on the counts model while only balance tiers come first.
_BALANCE_TIERS = (ACTIVE_BALANCE, TASK_BALANCE)

#: The stickiness tier's stages, in order (one per number of :attr:`StreamsMeasures.stickiness`).
_STICKINESS_STAGES = tuple(f"stickiness: {n}" for n in _STICKINESS_PARTS)

#: CP-SAT's workers left out of the searches of models with at least ``_LARGE`` variables (:func:`_search`):
#: on the 1,000-task group with tags (benchmarks/bench_streams.py) 30 s instead of 90 s.
_SLOW_WORKERS = ("default_lp", "max_lp", "pseudo_costs", "quick_restart", "reduced_costs")
_LARGE = 5_000
#: Left out of every search: the core-based worker runs its whole batch (about a second of deterministic time)
#: after the others have proven the stage in milliseconds, and the interleaved portfolio waits for it.
_ALWAYS_LEFT_OUT = ("core",)


@dataclass
class _Run:
    """The staged search's state: the solver, the last answer (every variable's value) and the records."""

    solver: cp_model.CpSolver
    time_limit: float | None
    started: float
    values: dict[Any, int] | None = None
    loads: dict[str, list[int]] = field(default_factory=dict)  # the last answer's member loads, per tier
    measured: dict[str, Any] = field(default_factory=dict)  # the last answer's tier expressions
    stages: list[dict] = field(default_factory=list)
    unproven: list[str] = field(default_factory=list)
    stale: bool = False  # constraints were added that the last answer may not meet (:func:`_pin`)
    pinned: list[tuple[str, _Pins]] = field(default_factory=list)  # balance tiers pinned from counts models
    bounds: dict[str, int] = field(default_factory=dict)  # stage name -> CP-SAT's bound on it (maximized)

    def left(self) -> float | None:
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - (time.perf_counter() - self.started))


def _search(run: _Run, model: Any, name: str, objective=None, maximize: bool = True) -> tuple[str, Any]:
    """One CP-SAT solve of the model as it stands (hinted with the last answer): ``("optimal"|"feasible"|
    "infeasible"|"unknown", objective value or None)``; the answer, if any, becomes the last one."""
    cp = model.model
    cp.clear_objective()
    if objective is not None:
        (cp.maximize if maximize else cp.minimize)(objective)
    cp.clear_hints()
    began = time.perf_counter()
    relaxed = _lp_answer(model, run.left()) if objective is not None and isinstance(model, _Model) else None
    if relaxed is not None:  # the LP's optimum is integral: the hint (CP-SAT checks it and proves it)
        for v in model.variables:
            cp.add_hint(v, relaxed[v.index])
    elif run.values is not None:
        for v in model.variables:
            cp.add_hint(v, run.values[v])
    parameters(run.solver, time_limit=run.left())
    # on large models the portfolio's LP-diving workers take seconds a batch (an LP at each of thousands of
    # decisions) and find no answer the others do not find sooner; the LP bound still comes from the
    # symmetry-folded LP worker (max_lp_sym).  Small models get one worker (below)
    if not run.solver.parameters.ignore_subsolvers:  # set once per solver (its parameters stay)
        run.solver.parameters.ignore_subsolvers.extend(_SLOW_WORKERS if len(model.variables) >= _LARGE else ())
        run.solver.parameters.ignore_subsolvers.extend(_ALWAYS_LEFT_OUT)
    if len(model.variables) < _LARGE:
        # one worker (deterministic too): in the interleaved portfolio every worker of a batch runs its
        # whole slice, up to a second of deterministic time, after another has proven the stage in
        # milliseconds; on the 300 medium groups of benchmarks/bench_streams.py 25 s became 16 s, the
        # slowest group 3.1 s became 1.8 s
        run.solver.parameters.num_workers = 1
    code = solve_interruptibly(run.solver, cp)
    seconds = round(time.perf_counter() - began, 3)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        solver = run.solver
        run.stale = False
        run.values = {v: int(solver.value(v)) for v in model.variables}
        run.loads = {t: [int(solver.value(x)) for x in xs] for t, xs in model.loads.items()}
        run.measured = {
            TAG_DIVERSITY: _value(solver, model.diversity),
            STICKINESS: [_value(solver, e) for e in model.stickiness],
        }
        value = None if objective is None else int(round(run.solver.objective_value))
        proven = code == cp_model.OPTIMAL
        _record_bound(run, name, objective, maximize)
        run.stages.append({"stage": name, "value": value, "proven": proven, "seconds": seconds})
        return ("optimal" if proven else "feasible"), value
    if code == cp_model.INFEASIBLE:
        run.stages.append({"stage": name, "value": None, "proven": True, "infeasible": True, "seconds": seconds})
        return "infeasible", None
    run.stages.append({"stage": name, "value": None, "proven": False, "seconds": seconds})
    return "unknown", None


def _record_bound(run: _Run, name: str, objective, maximize: bool) -> None:
    """CP-SAT's proven bound on a maximized stage (under the model's pins), in ``run.bounds``: only read
    after an answer was found (without one, a stopped search reports 0, not a bound)."""
    if objective is None or not maximize:
        return
    bound = run.solver.best_objective_bound
    if math.isfinite(bound):
        run.bounds[name] = math.floor(bound + 1e-6)


class _Counts:
    """The balance tiers alone: each member's active and standby counts under the core model's count
    constraints (the totals, what one process can hold) and nothing else.

    Every other variable of the core model may be 0 (every copy free; no tag value counted), so the core
    model's count vectors are exactly this model's: a balance tier's optimum proven here is the core
    model's, and is pinned there (:func:`_pin`).  With tags it has the core model's free copies per tag
    class (``fA``/``fS``) too, and without the core model (tight groups) the full model's ``XA``/``XS``,
    for the same reason.  The members of one process are interchangeable here, so they
    are ordered by ``tier``'s load (then the other count), largest first, and so are their level flags:
    one answer of each class of symmetric ones is searched, which is what makes the levels' lower bounds
    quick to prove (the model with every variable took seconds a level on groups of 6 processes).  One
    such model per tier, the tiers before it pinned (the order suits one tier only)."""

    diversity = 0
    stickiness: tuple[Any, ...] = ()

    def __init__(self, model: _Model, tier: str) -> None:
        self.model = m = cp_model.CpModel()
        T = len(model.problem.tasks)
        stateful = sum(model.stateful)
        standbys = model.k * stateful
        M = len(model.a)
        self.a = [m.new_int_var(0, T, f"a{j}") for j in range(M)]
        self.s = [m.new_int_var(0, standbys, f"s{j}") for j in range(M)]
        m.add(sum(self.a) == T)
        m.add(sum(self.s) == standbys)
        if not model.core:  # which processes hold each task's copies, as in the full model
            P = len(model.process_members)
            on_process_a: list[list[Any]] = [[] for _ in range(P)]
            on_process_s: list[list[Any]] = [[] for _ in range(P)]
            last: dict[bool, Any] = {}  # the previous task of each kind's key (below)
            for i, sf in enumerate(model.stateful):
                xa = [m.new_bool_var(f"xa{i}_{p}") for p in range(P)]
                m.add_exactly_one(xa)
                xs = [m.new_bool_var(f"xs{i}_{p}") for p in range(P)] if sf and model.k else []
                if xs:
                    m.add(sum(xs) == model.k)
                # Tasks of one kind (stateful or not) are interchangeable here too: ordered by their processes
                # (as a binary number, active first; with many processes by the active's alone).
                key = (
                    sum((2**p) * x for p, x in enumerate(xs + xa))
                    if 2 * P <= 30
                    else sum(p * x for p, x in enumerate(xa))
                )
                if sf in last:
                    m.add(last[sf] >= key)
                last[sf] = key
                for p in range(P):
                    on_process_a[p].append(xa[p])
                    if xs:
                        m.add(xa[p] + xs[p] <= 1)
                        on_process_s[p].append(xs[p])
            for p, js in enumerate(model.process_members):
                m.add(sum(self.a[j] for j in js) == sum(on_process_a[p]))
                m.add(sum(self.s[j] for j in js) == sum(on_process_s[p]))
        self.totals = model.totals
        self.loads: dict[str, list[Any]] = {
            ACTIVE_BALANCE: list(self.a),
            TASK_BALANCE: [self.a[j] + self.s[j] for j in range(M)],
        }
        self.variables: list[Any] = self.a + self.s
        self.process_members = model.process_members
        other = self.s if tier == ACTIVE_BALANCE else self.a
        if model.core and model.tags:  # the core model's tag classes: each task's copies counted per class
            # Tasks of one kind are interchangeable here, so only how many tasks have each *pattern* (the
            # class of the active, the standbys per class: the core model's fA/fS of one task) matters:
            # a count per pattern, not a variable per task and class (2,000 tasks: 2 s a stage to ms).
            C = max(model.process_class) + 1
            size = [model.process_class.count(c) for c in range(C)]
            in_class_a: list[list[Any]] = [[] for _ in range(C)]
            in_class_s: list[list[Any]] = [[] for _ in range(C)]
            for sf in (False, True):
                tasks = sum(1 for x in model.stateful if x == sf)
                k = model.k if sf else 0
                spreads = [
                    fs for fs in itertools.product(*(range(min(k, size[c]) + 1) for c in range(C))) if sum(fs) == k
                ]
                patterns = [(c, fs) for c in range(C) for fs in spreads if fs[c] + 1 <= size[c]]
                counts = [m.new_int_var(0, tasks, f"pattern{int(sf)}_{n}") for n in range(len(patterns))]
                m.add(sum(counts) == tasks)
                for (c, fs), n in zip(patterns, counts):
                    in_class_a[c].append(n)
                    for c2, many in enumerate(fs):
                        if many:
                            in_class_s[c2].append(many * n)
            for c in range(C):
                js = [j for j in range(M) if model.process_class[model.member_process[j]] == c]
                m.add(sum(self.a[j] for j in js) == sum(in_class_a[c]))
                m.add(sum(self.s[j] for j in js) == sum(in_class_s[c]))
        for js in model.process_members:
            m.add(sum(self.a[j] + self.s[j] for j in js) <= T)
            m.add(sum(self.s[j] for j in js) <= stateful)
            for j, after in zip(js, js[1:]):  # (tier's load, the other count), lexicographically non-increasing
                key = (T + standbys + 1) * self.loads[tier][j] + other[j]
                m.add(key >= (T + standbys + 1) * self.loads[tier][after] + other[after])


@dataclass(frozen=True)
class _Pins:
    """What a balance tier's optimum pins: every load in ``[low, high]`` (the ideal), or none above
    ``top`` and at most ``count`` members at ``level`` or more for each ``(level, count)``."""

    low: int = 0
    high: int = 0
    top: int | None = None
    levels: tuple[tuple[int, int], ...] = ()


def _pin(model: Any, tier: str, pins: _Pins) -> None:
    """Add ``pins`` (found on :class:`_Counts`) to the model: its answers are then exactly those of the
    tier's optimum."""
    loads = model.loads[tier]
    if pins.top is None:
        for x in loads:
            model.model.add_linear_constraint(x, pins.low, pins.high)
        return
    for x in loads:
        model.model.add(x <= pins.top)
    for level, count in pins.levels:
        flags = [model.model.new_bool_var(f"{tier}_ge{level}_{j}") for j in range(len(loads))]
        for x, g in zip(loads, flags):  # x <= top is pinned: the tightest big-M (a weak one leaves proofs to search)
            model.model.add(x <= level - 1 + (pins.top - level + 1) * g)
        model.model.add(sum(flags) <= count)


def _balance(run: _Run, model: _Model, tier: str, *, by_counts: bool) -> tuple[bool, str]:
    """Pin the tier's loads at their dec-min optimum (module docstring, "Stages"); ``(proven, how)``.  With
    ``by_counts`` (only balance tiers before it) the optimum is found on the counts model
    (:class:`_Counts`) and pinned here."""
    if not by_counts:
        proven, how, found = _dec_min(run, model, tier)
        if found is not None:
            run.pinned.append((tier, found))
        return proven, how
    counts = _Counts(model, tier)
    for before, pins in run.pinned:
        _pin(counts, before, pins)
    alone = _Run(cp_model.CpSolver(), run.time_limit, run.started, stages=run.stages, unproven=run.unproven)
    proven, how, found = _dec_min(alone, counts, tier)
    if found is not None:
        _pin(model, tier, found)
        run.pinned.append((tier, found))
        run.stale = True
    return proven, how


def _dec_min(run: _Run, model: Any, tier: str) -> tuple[bool, str, _Pins | None]:
    """The tier's dec-min optimum on ``model`` (a :class:`_Model` or :class:`_Counts`), pinned there as it
    is found; ``(proven, how, pins)`` (``pins`` ``None`` when nothing was pinned)."""
    loads = model.loads[tier]
    n = len(loads)
    total = model.totals[tier]
    if n == 0:
        return True, "bound", None
    low, extra = divmod(total, n)
    high = low + (1 if extra else 0)
    ideal = model.model.new_bool_var(f"{tier}_ideal")
    for x in loads:
        model.model.add_linear_constraint(x, low, high).only_enforce_if(ideal)
    model.variables.append(ideal)
    if run.values is not None:
        run.values[ideal] = int(all(low <= v <= high for v in run.loads[tier]))
    model.model.add_assumptions([ideal])
    status, _ = _search(run, model, f"{tier}: ideal")
    model.model.clear_assumptions()
    if status in ("optimal", "feasible"):
        model.model.add(ideal == 1)
        for x in loads:  # the same, unconditional: what the LP relaxation (:func:`_lp_answer`) reads
            model.model.add_linear_constraint(x, low, high)
        return True, "bound", _Pins(low, high)
    if status == "unknown":
        run.unproven.append(tier)
        return False, "bound", None
    model.model.add(ideal == 0)
    if run.values is None or run.stale:
        peak = None
        if isinstance(model, _Counts):  # small: an answer with the least largest load, the levels' top
            peak = model.model.new_int_var(0, total, f"{tier}_peak")
            for x in loads:
                model.model.add(x <= peak)
            model.variables.append(peak)
        status, _ = _search(run, model, f"{tier}: a first answer", peak, maximize=False)
        if status not in ("optimal", "feasible"):
            run.unproven.append(tier)
            return False, "cpsat", None
    proven = True
    top = max(run.loads[tier])
    levels: list[tuple[int, int]] = []
    for x in loads:  # the answer in hand has none above it: neither has the optimum (pinned before the levels)
        model.model.add(x <= top)
    exact = isinstance(model, _Counts)
    if exact:  # each load's value as booleans: "members at l or more" a sum of them, without a big-M (below)
        values = run.values
        assert values is not None
        at: list[list[Any]] = []
        for j, x in enumerate(loads):
            ys = [model.model.new_bool_var(f"{tier}_at{v}_{j}") for v in range(top + 1)]
            model.model.add_exactly_one(ys)
            model.model.add(x == sum(v * y for v, y in enumerate(ys)))
            at.append(ys)
            model.variables.extend(ys)
            for v, y in enumerate(ys):
                values[y] = int(run.loads[tier][j] == v)
    for level in range(top, 0, -1):
        values = run.values
        assert values is not None  # the first answer above
        flags: list[Any] = []
        if exact:
            # Members at ``level`` or more as the sum of their value booleans: the LP then bounds the total
            # by the levels pinned above (the big-M flags' LP spreads a load over fractions of flags and
            # proves nothing: "all 11 members at 9 or more" took 2 s of search on a 6-process group).
            flags = [sum(ys[level:]) for ys in at]
        else:
            for j, x in enumerate(loads):
                g = model.model.new_bool_var(f"{tier}_ge{level}_{j}")
                model.model.add(x <= level - 1 + (top - level + 1) * g)  # x <= top is pinned: the tightest big-M
                flags.append(g)
                values[g] = int(run.loads[tier][j] >= level)
            model.variables.extend(flags)
        if exact:  # its members ordered by this tier's load: so are their flags
            for js in model.process_members:
                for j, after in zip(js, js[1:]):
                    model.model.add(flags[j] >= flags[after])
        status, value = _search(run, model, f"{tier}: members at {level} or more", sum(flags), maximize=False)
        if status == "unknown" or value is None:
            run.unproven.append(tier)
            return False, "cpsat", _Pins(top=top, levels=tuple(levels))
        if status == "feasible":
            proven = False
        model.model.add(sum(flags) <= value)
        levels.append((level, value))
        if value == n:  # every member at this level or above: so at every lower one
            break
    if not proven:
        run.unproven.append(tier)
    return proven, "cpsat", _Pins(top=top, levels=tuple(levels))


class _Relaxation:
    """The LP relaxation of one CP-SAT model (GLOP), kept from stage to stage: each call reads only the
    variables and constraints added since the last (a model only grows), so GLOP starts from its last basis
    (:func:`_lp_answer`)."""

    def __init__(self) -> None:
        self.lp = pywraplp.Solver.CreateSolver("GLOP")
        self.xs: list[Any] = []
        self.read = 0  # constraints of the proto read so far

    def update(self, proto: Any) -> None:
        lp, xs = self.lp, self.xs
        infinity = lp.infinity()
        for i in range(len(xs), len(proto.variables)):
            domain = list(proto.variables[i].domain)
            xs.append(lp.NumVar(domain[0], domain[-1], f"v{i}"))
        for n in range(self.read, len(proto.constraints)):
            c = proto.constraints[n]
            if not c.has_linear() or len(c.enforcement_literal):
                continue
            domain = list(c.linear.domain)
            shift = 0
            terms = []
            for ref, coeff in zip(c.linear.vars, c.linear.coeffs):
                if ref < 0:  # a negated literal: 1 - x
                    shift += coeff
                    terms.append((xs[-ref - 1], -coeff))
                else:
                    terms.append((xs[ref], coeff))
            low = -infinity if domain[0] <= cp_model.INT_MIN else domain[0] - shift
            high = infinity if domain[-1] >= cp_model.INT_MAX else domain[-1] - shift
            row = lp.Constraint(low, high)
            for x, coeff in terms:
                row.SetCoefficient(x, coeff)
        self.read = len(proto.constraints)


def _lp_answer(model: _Model, left: float | None) -> list[int] | None:
    """The optimum of the model's LP relaxation (GLOP; constraints with an enforcement literal left out, so a
    relaxation), when every variable is integral in it: then it is a solution of the model if it meets the
    constraints left out, and an optimal one.  Only a hint: CP-SAT checks it and proves the bound itself.
    Within the time ``left`` (seconds; ``None``: no limit).

    Why: after the balance and tag tiers are pinned, the stickiness stages' relaxations came out integral
    on every stage of the 1,000-task group with tags (benchmarks/bench_streams.py; 0.2-0.3 s each), where
    CP-SAT's own search took 4-35 s a stage to find that answer from the previous stage's."""
    if left is not None and left <= 0:
        return None
    if model.relaxation is None:
        model.relaxation = _Relaxation()
    relaxation = model.relaxation
    lp = relaxation.lp
    if lp is None:
        return None
    proto = model.model.proto
    relaxation.update(proto)
    lp.SetTimeLimit(0 if left is None else max(1, int(left * 1000)))  # milliseconds; 0: none
    objective = lp.Objective()
    objective.Clear()
    for ref, coeff in zip(proto.objective.vars, proto.objective.coeffs):
        if ref < 0:
            return None
        objective.SetCoefficient(relaxation.xs[ref], coeff)
    objective.SetMinimization()  # the proto's objective is minimized (a maximization is negated)
    if lp.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    values = [x.solution_value() for x in relaxation.xs]
    rounded = [int(round(v)) for v in values]
    if any(abs(v - r) > 1e-6 for v, r in zip(values, rounded)):
        return None
    return rounded


def _value(solver: cp_model.CpSolver, expr) -> int:
    return expr if isinstance(expr, int) else int(solver.value(expr))


def _maximize(run: _Run, model: _Model, name: str, expr) -> tuple[bool, int | None]:
    """Maximize ``expr`` and pin it at the value found; ``(proven, value)``."""
    if isinstance(expr, int):
        return True, expr
    status, value = _search(run, model, name, expr)
    if status == "unknown" or value is None:
        run.unproven.append(name)
        return False, None
    model.model.add(expr >= value)
    if status != "optimal":
        run.unproven.append(name)
        return False, value
    return True, value


def solve(
    problem: StreamsProblem, request: StreamsRequest | None = None, *, time_limit: float | None = None
) -> StreamsSolution:
    """The optimum of ``request`` (default: Kafka's order of tiers) on ``problem`` (module docstring)."""
    request = StreamsRequest() if request is None else request
    started = time.perf_counter()
    order = request.tiers(problem)
    tags = TAG_DIVERSITY in order
    if not problem.members:  # nothing to decide: no tasks (the empty answer, every tier at its only value) or none
        if problem.tasks:
            tiers = tuple(TierResult(t, None, None, False, "bound") for t in order)
            return _unanswered(problem, request, tiers, "no member to give the active tasks to", started)
        empty = StreamsAssignment({})
        only = measure(problem, empty)
        return StreamsSolution(
            problem,
            OPTIMAL,
            METHOD,
            empty,
            request,
            tiers=tuple(TierResult(t, only.value(t), only.value(t), True, "bound") for t in order),
            wall_time=time.perf_counter() - started,
        )
    # the core model first (module docstring)
    first = _staged(problem, request, order, core=True, tags=tags, time_limit=time_limit, started=started)
    if isinstance(first, StreamsSolution):
        return first
    # its free copies could not be dealt out: the full model, at the core model's optimum if it reaches it
    reached = None if first is None else _reach(problem, request, order, first, tags, time_limit, started)
    if reached is not None:
        return reached
    solution = _staged(problem, request, order, core=False, tags=tags, time_limit=time_limit, started=started)
    if not isinstance(solution, StreamsSolution):
        raise SolverError("the Streams model's answer could not be realized as an assignment")
    return solution


def _unanswered(
    problem: StreamsProblem,
    request: StreamsRequest,
    tiers: tuple[TierResult, ...],
    message: str,
    started: float,
    **more: Any,
) -> StreamsSolution:
    """An ``UNKNOWN`` solution without an answer: each tier's record, and ``message`` saying why."""
    wall_time = time.perf_counter() - started
    return StreamsSolution(
        problem, UNKNOWN, METHOD, None, request, tiers=tiers, message=message, wall_time=wall_time, **more
    )


@dataclass(frozen=True)
class _Target:
    """The core model's optimum, every tier proven, when its answer could not be dealt out: the balance
    tiers' pins and the maximized stages' values.  The core model is a relaxation of the full one, so a
    full answer with these values is optimal (:func:`_reach`)."""

    pinned: tuple[tuple[str, _Pins], ...]
    maxima: tuple[tuple[str, int], ...]
    hows: Mapping[str, str]
    stages: tuple[Mapping[str, object], ...]


def _reach(
    problem: StreamsProblem,
    request: StreamsRequest,
    order: tuple[str, ...],
    target: _Target,
    tags: bool,
    time_limit: float | None,
    started: float,
) -> StreamsSolution | None:
    """The full model with every tier pinned at the core model's optimum (``target``): one search for an
    answer instead of a stage per tier (tight groups, where the core model's answer could not be dealt out,
    mostly have one); ``None`` when it has none (then the full model's own stages answer).  Every tier is
    proven by the core model's stages: no assignment is better on any tier in order."""
    model = _Model(problem, core=False, tags=tags)
    run = _Run(cp_model.CpSolver(), time_limit, started, stages=[dict(x) for x in target.stages])
    for tier, pins in target.pinned:
        _pin(model, tier, pins)
    expressions = {TAG_DIVERSITY: model.diversity, **dict(zip(_STICKINESS_STAGES, model.stickiness))}
    for name, value in target.maxima:
        expression = expressions[name]
        if not isinstance(expression, int):
            model.model.add(expression >= value)
    status, _ = _search(run, model, "the core model's optimum, in the full model")
    if status not in ("optimal", "feasible"):
        return None
    answer = _answer(problem, request, order, model, run, {t: True for t in order}, target.hows, {}, False, started)
    return answer if isinstance(answer, StreamsSolution) else None


@dataclass
class _Stages:
    """What the staged search proved so far, tier by tier: each tier's ``proven`` and ``hows``, the best bound
    known of a tier left unproven (``bounds``: the ideal for a balance tier; CP-SAT's bound, under the tiers
    before, all proven, for the first stage left unproven; after it only what no assignment exceeds, the
    model's ceilings, a stage's bound being under pins no longer known optimal) and the maximized stages'
    values found (``maxima``).  Each tier's stage is a method, looked up in :data:`_STAGES` by tier name."""

    model: _Model
    run: _Run
    hows: dict[str, str] = field(default_factory=dict)
    proven: dict[str, bool] = field(default_factory=dict)
    bounds: dict[str, Any] = field(default_factory=dict)
    maxima: list[tuple[str, int]] = field(default_factory=list)
    clean: bool = True  # every stage so far proven

    def ceiling(self, name: str, stage: str) -> int:
        own = self.run.bounds.get(stage) if self.clean else None
        return self.model.ceilings[name] if own is None else min(own, self.model.ceilings[name])

    def balance(self, tier: str, before: tuple[str, ...]) -> None:
        by_counts = all(t in _BALANCE_TIERS for t in before)
        self.proven[tier], self.hows[tier] = _balance(self.run, self.model, tier, by_counts=by_counts)
        if not self.proven[tier]:
            self.bounds[tier], self.clean = self.model.ideal(tier), False

    def diversity(self, tier: str, before: tuple[str, ...]) -> None:
        ok, found = _maximize(self.run, self.model, tier, self.model.diversity)
        self.proven[tier], self.hows[tier] = ok, "cpsat"
        if found is not None:
            self.maxima.append((tier, found))
        if not ok:
            self.bounds[tier], self.clean = self.ceiling(tier, tier), False

    def stickiness(self, tier: str, before: tuple[str, ...]) -> None:
        ok, parts = True, []
        for stage, expr in zip(_STICKINESS_STAGES, self.model.stickiness):
            done, found = _maximize(self.run, self.model, stage, expr)
            name = stage.removeprefix("stickiness: ")
            parts.append(found if done else self.ceiling(name, stage))
            if found is not None:
                self.maxima.append((stage, found))
            ok &= done
            self.clean &= done
        self.proven[tier], self.hows[tier] = ok, "cpsat"
        if not ok:
            self.bounds[tier] = parts


#: Each tier's stage (:class:`_Stages`), looked up through :func:`problem.tiers.pick`: a Streams tier not here
#: is refused by name, never optimised as another.
_STAGES: dict[str, Callable[[_Stages, str, tuple[str, ...]], None]] = {
    ACTIVE_BALANCE: _Stages.balance,
    TASK_BALANCE: _Stages.balance,
    TAG_DIVERSITY: _Stages.diversity,
    STICKINESS: _Stages.stickiness,
}


def _staged(
    problem: StreamsProblem,
    request: StreamsRequest,
    order: tuple[str, ...],
    *,
    core: bool,
    tags: bool,
    time_limit: float | None,
    started: float,
) -> StreamsSolution | _Target | None:
    """The staged search on the core or the full model: the solution, or when the core model's answer
    cannot be dealt out its optimum (:class:`_Target`, every tier proven) or ``None``."""
    model = _Model(problem, core=core, tags=tags)
    run = _Run(cp_model.CpSolver(), time_limit, started)
    stages = _Stages(model, run)
    for n, tier in enumerate(order):
        stage = pick(STREAMS.kind, tier, _STAGES, "the Streams exact model's stages")
        if tier not in _BALANCE_TIERS and run.stale and time_limit is not None:
            # the balance tiers were pinned from the counts model: an answer in hand first, should the
            # stage run out of time (a time-limited solve then answers FEASIBLE, not UNKNOWN)
            _search(run, model, "an answer at the balance tiers' optimum")
        stage(stages, tier, order[:n])
    hows, proven, bounds, maxima = stages.hows, stages.proven, stages.bounds, stages.maxima
    if run.values is None or run.stale:
        status, _ = _search(run, model, "a first answer")
        if status not in ("optimal", "feasible"):
            tiers = tuple(
                TierResult(t, None, bounds.get(t, model.ceiling(t)), False, hows.get(t, "cpsat")) for t in order
            )
            message = "no assignment found in time"
            return _unanswered(problem, request, tiers, message, started, stages=tuple(run.stages), core=core)
    answer = _answer(problem, request, order, model, run, proven, hows, bounds, core, started)
    if answer is not None:
        return answer
    if all(proven.get(t, False) for t in order):
        return _Target(tuple(run.pinned), tuple(maxima), hows, tuple(run.stages))
    return None


def _answer(
    problem: StreamsProblem,
    request: StreamsRequest,
    order: tuple[str, ...],
    model: _Model,
    run: _Run,
    proven: Mapping[str, bool],
    hows: Mapping[str, str],
    bounds: Mapping[str, Any],
    core: bool,
    started: float,
) -> StreamsSolution | None:
    """The last answer realized, checked (valid; each tier measured as the model proved it, or a
    :class:`SolverError`) and reported; ``None`` when the core model's free copies cannot be dealt out."""
    assert run.values is not None  # an answer was found
    assignment = _realize(model, run.values)
    if assignment is None:
        return None
    measures = measure(problem, assignment)
    broken = violations(problem, assignment)
    if broken or measures.shortfall:
        raise SolverError(f"the Streams model's answer is not valid: {broken[0] if broken else 'standbys missing'}")
    everything_proven = all(proven.get(t, False) for t in order)
    records = []
    for tier in order:
        value = measures.value(tier)
        if tier in _BALANCE_TIERS:
            expected = sorted(run.loads[tier], reverse=True)
            worse = value != expected
        else:  # the members' slots may hold more state than the model counted, never less
            expected = run.measured[tier]
            worse = value < expected
        if worse:
            raise SolverError(f"the Streams model's answer measures {value} on {tier}, the model {expected}")
        ok = proven.get(tier, False)
        records.append(TierResult(tier, value, value if ok else bounds.get(tier), ok, hows.get(tier, "cpsat")))
    status = OPTIMAL if everything_proven else FEASIBLE
    return StreamsSolution(
        problem,
        status,
        METHOD,
        assignment,
        request,
        tiers=tuple(records),
        stages=tuple(run.stages),
        wall_time=time.perf_counter() - started,
        message="" if everything_proven else "not proven in time: " + ", ".join(run.unproven),
        core=core,
        stats={"variables": len(model.variables), "constraints": len(model.model.proto.constraints)},
    )


def _realize(model: _Model, values: Mapping[Any, int]) -> StreamsAssignment | None:
    """The assignment of the model's answer (module docstring), or ``None`` when the core model's free copies
    cannot be dealt out (then the full model answers)."""
    problem = model.problem
    T, P, M = len(problem.tasks), len(problem.processes), len(problem.members)
    home = model.member_process
    active_member = [-1] * T
    standby_members: list[list[int]] = [[] for _ in range(T)]
    for (i, j), v in model.uA.items():
        if values[v]:
            active_member[i] = j
    for (i, j), v in model.uS.items():
        if values[v]:
            standby_members[i].append(j)
    room_a = [values[model.a[j]] for j in range(M)]
    room_s = [values[model.s[j]] for j in range(M)]
    for i in range(T):
        if active_member[i] >= 0:
            room_a[active_member[i]] -= 1
        for j in standby_members[i]:
            room_s[j] -= 1
    # the processes of the copies no member with state takes ("free" copies)
    free_active: list[int] = [-1] * T
    free_standby: list[list[int]] = [[] for _ in range(T)]
    if model.core:
        used = [
            {home[j] for j in standby_members[i]} | ({home[active_member[i]]} if active_member[i] >= 0 else set())
            for i in range(T)
        ]
        supply_a = [0] * P
        supply_s = [0] * P
        for j in range(M):
            supply_a[home[j]] += room_a[j]
            supply_s[home[j]] += room_s[j]
        classes = sorted(set(model.process_class))
        for c in classes:  # one tag class at a time (one class without tags)
            in_class = [p for p in range(P) if model.process_class[p] == c]

            def wanted_in(role: list[dict[int, Any]], default: list[int], c: int = c) -> dict[int, int]:
                return {i: (values[role[i][c]] if role[i] else default[i]) for i in range(T) if role[i] or default[i]}

            need = {i: n for i, n in wanted_in(model.fA, [int(a < 0) for a in active_member]).items() if n}
            open_a = [p for p in in_class if supply_a[p]]
            dealt = _flow(list(need), need, supply_a, {i: [p for p in open_a if p not in used[i]] for i in need})
            if dealt is None:
                return None
            for i, ps in dealt.items():
                free_active[i] = ps[0]
                used[i].add(ps[0])
            missing = [
                (model.k - len(standby_members[i])) if model.stateful[i] and not model.fS[i] else 0 for i in range(T)
            ]
            wanted = {i: n for i, n in wanted_in(model.fS, missing).items() if n}
            open_s = [p for p in in_class if supply_s[p]]
            dealt = _flow(list(wanted), wanted, supply_s, {i: [p for p in open_s if p not in used[i]] for i in wanted})
            if dealt is None:
                return None
            for i, ps in dealt.items():
                free_standby[i].extend(ps)
                used[i].update(ps)
    else:
        for i in range(T):
            p = next(p for p, v in model.XA[i].items() if values[v])
            if active_member[i] < 0:
                free_active[i] = p
            held = {home[j] for j in standby_members[i]}
            free_standby[i] = [p for p, v in model.XS[i].items() if values[v] and p not in held]
    # each process's free copies to its members' remaining slots, tasks and members in order
    out_a: list[list[int]] = [[] for _ in range(M)]
    out_s: list[list[int]] = [[] for _ in range(M)]
    for i in range(T):
        if active_member[i] >= 0:
            out_a[active_member[i]].append(i)
        for j in standby_members[i]:
            out_s[j].append(i)
    for free, room, out in (
        ([(p, i) for i, p in enumerate(free_active) if p >= 0], room_a, out_a),
        ([(p, i) for i, ps in enumerate(free_standby) for p in ps], room_s, out_s),
    ):
        queues: list[list[int]] = [[] for _ in range(P)]
        for p, i in sorted(free):
            queues[p].append(i)
        for p in range(P):
            tasks = iter(queues[p])
            for j in model.process_members[p]:
                for _ in range(room[j]):
                    task = next(tasks, None)
                    if task is None:
                        raise SolverError(f"the Streams model's counts do not add up on process {problem.processes[p]}")
                    out[j].append(task)
            if next(tasks, None) is not None:
                raise SolverError(f"the Streams model's counts do not add up on process {problem.processes[p]}")
    tasks = problem.tasks
    return StreamsAssignment(
        {
            x.member_id: MemberTasks(tuple(tasks[i] for i in out_a[j]), tuple(tasks[i] for i in out_s[j]))
            for j, x in enumerate(problem.members)
        }
    )


def _flow(
    tasks: list[int], demand: Mapping[int, int], supply: list[int], allowed: Mapping[int, list[int]]
) -> dict[int, list[int]] | None:
    """Deal ``demand[t]`` copies of each task to distinct allowed processes within their ``supply``: a max-flow
    (source -> task -> process -> sink, unit task-process arcs); ``None`` if not every copy finds a place."""
    if not tasks:
        return {}
    flow = max_flow.SimpleMaxFlow()
    source, sink = 0, 1
    task_node = {t: 2 + n for n, t in enumerate(tasks)}
    base = 2 + len(tasks)
    arcs = []
    for t in tasks:
        flow.add_arc_with_capacity(source, task_node[t], demand[t])
        for p in allowed[t]:
            arcs.append((flow.add_arc_with_capacity(task_node[t], base + p, 1), t, p))
    for p, amount in enumerate(supply):
        if amount:
            flow.add_arc_with_capacity(base + p, sink, amount)
    if flow.solve(source, sink) != flow.OPTIMAL or flow.optimal_flow() != sum(demand.values()):
        return None
    out: dict[int, list[int]] = {t: [] for t in tasks}
    for arc, t, p in arcs:
        if flow.flow(arc):
            out[t].append(p)
    return out
