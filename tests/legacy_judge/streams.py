# Frozen copy of compare/judge/streams.py at commit 71d9755 (before issue 39, the one judge): the verdicts the project
# gave until then, kept as the reference tests/compare/test_judge.py compares the one judge with.  Not library code.
"""Judging a Streams group's task assignment (KIP-1071) against the proven optimum: valid or not, standbys
missing, each tier beside the optimum's, and which of Kafka's ``StickyTaskAssignor`` guarantees hold.

:func:`judge` is the one entry point: pure (it reads the problem, the assignment and, when not given,
solves the optimum through :func:`assignment_oracle.optimal.solve`, the same front door as ``solve``)
and returns a :class:`StreamsVerdict`:

* **validity** (:func:`~assignment_oracle.problem.streams.violations`): every active task on exactly one
  member, no task twice on one process, standbys only of stateful tasks, at most ``standby_replicas``;
* **the standby shortfall**, split: *unavoidable* (a task has at most ``processes - 1`` standbys,
  :func:`~assignment_oracle.problem.streams.unavoidable_standby_shortfall`) and *avoidable* (standbys that
  could have been placed and were not: :attr:`StreamsMeasures.shortfall`; the optimum places every one);
* **the tiers** in Kafka's order (:mod:`assignment_oracle.optimal.streams_request`: ``active-balance``,
  ``task-balance``, ``tag-diversity`` when the group has rack-aware tags, ``stickiness``), each the
  assignment's value beside the optimum's, ``equal``, ``worse``, ``better`` (only possible where the
  optimum was not proven, or where the assignment left out a placeable standby: the optimum may not) or
  ``unknown``; the *gap* is the first tier where the assignment is worse with every tier before it equal,
  with the difference in numbers (largest active count minus the optimum's; actives kept fewer by N) and
  the members and tasks involved (members at or above the first count where the sorted counts differ;
  previous actives the optimum kept on their member and the assignment moved);
* **the guarantees** Kafka's ``StickyTaskAssignor`` states (:mod:`assignment_oracle.heuristics.streams_sticky`),
  each ``kept``, ``broken`` or ``not judged``: ``valid``, ``standby-not-on-same-process``,
  ``every-placeable-standby``, ``active-balance`` (as balanced as the optimum's ``active-balance`` tier)
  and ``sticky-at-equal-balance`` (as sticky as the optimum when the two balance tiers are equal; judged
  only then, since the optimum's stickiness is the best at *its* balance).

Verdicts: ``optimal`` (valid, no avoidable shortfall, equal on every tier, every tier proven), ``gap``,
``unknown`` (the optimum not proven, or no better on any tier), ``short`` (valid but a placeable standby
left out, and no gap found before), ``invalid``.  Exit codes as for consumer groups' ``check``: 0
optimal, 3 invalid, 1 otherwise.  A valid assignment with every standby placed that beats a proven
optimum is a bug in the oracle: :class:`SolverError`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from assignment_oracle.optimal.solution import OPTIMAL
from assignment_oracle.optimal.streams_request import (
    ACTIVE_BALANCE,
    STICKINESS,
    TAG_DIVERSITY,
    TASK_BALANCE,
    StreamsMeasures,
    measure,
    state_of,
    tier_key,
)
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.streams import (
    StreamsAssignment,
    StreamsProblem,
    TaskId,
    standby_shortfall,
    unavoidable_standby_shortfall,
    violations,
)
from assignment_oracle.problem.text import lines_text
from legacy_judge.tiers import TierLine

if TYPE_CHECKING:
    from assignment_oracle.optimal.streams import StreamsSolution

__all__ = [
    "GUARANTEES",
    "StreamsTierLine",
    "StreamsGuarantee",
    "StreamsVerdict",
    "judge",
    "task_name",
    "solution_to_mapping",
    "StreamsRow",
    "StreamsComparison",
    "compare",
]

#: Kafka's ``StickyTaskAssignor``'s guarantees (heuristics/streams_sticky.py's docstring), name -> claim.
GUARANTEES: dict[str, str] = {
    "valid": "every task active on exactly one member; standbys only of stateful tasks, at most standby_replicas",
    "standby-not-on-same-process": "no standby on the process that has the same task (active or standby)",
    "every-placeable-standby": "fewer standbys only when no process qualifies (every placeable standby given)",
    "active-balance": "active tasks balanced (as the optimum's active-balance tier)",
    "sticky-at-equal-balance": "as sticky as the optimum given equal balance (previous actives, then standbys, then state)",
}

KEPT, BROKEN, NOT_JUDGED = "kept", "broken", "not judged"


def task_name(task: TaskId) -> str:
    """``s_p``, as Kafka and the messages write a task."""
    return f"{task[0]}_{task[1]}"


@dataclass(frozen=True)
class StreamsTierLine(TierLine):
    """One tier: the assignment's value beside the optimum's, the comparison (:class:`compare.judge.tiers.TierLine`),
    the difference in numbers (``difference``, positive when the assignment is worse) and the members and tasks
    involved."""

    difference: dict = field(default_factory=dict)
    involved: dict = field(default_factory=dict)

    def to_mapping(self) -> dict:
        return {**super().to_mapping(), "difference": self.difference, "involved": self.involved}


@dataclass(frozen=True)
class StreamsGuarantee:
    """One of Kafka's guarantees on this assignment: ``kept``, ``broken`` or ``not judged``, and why."""

    name: str
    status: str
    detail: str = ""

    @property
    def claim(self) -> str:
        return GUARANTEES[self.name]

    def to_mapping(self) -> dict:
        return {"name": self.name, "claim": self.claim, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class StreamsVerdict:
    """One Streams assignment against the optimum (module docstring)."""

    verdict: str  # optimal, gap, unknown, short, invalid
    valid: bool
    violations: tuple[str, ...]
    violation_details: tuple[dict, ...]
    standby_replicas: int
    standbys_given: int
    shortfall: int
    unavoidable_shortfall: int
    avoidable_shortfall: int
    objective_order: tuple[str, ...]
    optimum_status: str
    optimum_message: str
    tiers: tuple[StreamsTierLine, ...]
    gap_tier: str | None
    guarantees: tuple[StreamsGuarantee, ...]
    assignor: str | None = None

    @property
    def optimal(self) -> bool:
        return self.verdict == "optimal"

    @property
    def gap(self) -> StreamsTierLine | None:
        return self.tier(self.gap_tier) if self.gap_tier is not None else None

    def tier(self, name: str) -> StreamsTierLine | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def guarantee(self, name: str) -> StreamsGuarantee:
        return next(g for g in self.guarantees if g.name == name)

    @property
    def broken(self) -> tuple[str, ...]:
        """The names of the guarantees broken."""
        return tuple(g.name for g in self.guarantees if g.status == BROKEN)

    def exit_code(self) -> int:
        """0 optimal, 3 invalid, 1 otherwise (a gap, a placeable standby left out, or unknown)."""
        return {"optimal": 0, "invalid": 3}.get(self.verdict, 1)

    def to_mapping(self) -> dict:
        """Plain JSON, keys in a fixed order."""
        return {
            "kind": "streams",
            "assignor": self.assignor,
            "verdict": self.verdict,
            "valid": self.valid,
            "violations": list(self.violation_details),
            "standbys": {
                "replicas": self.standby_replicas,
                "given": self.standbys_given,
                "shortfall": self.shortfall,
                "unavoidable": self.unavoidable_shortfall,
                "avoidable": self.avoidable_shortfall,
            },
            "objective_order": list(self.objective_order),
            "optimum_status": self.optimum_status,
            "optimum_message": self.optimum_message,
            "gap_tier": self.gap_tier,
            "tiers": [t.to_mapping() for t in self.tiers],
            "guarantees": [g.to_mapping() for g in self.guarantees],
            "exit_code": self.exit_code(),
        }

    def text(self) -> str:
        """A few readable lines: validity, standbys, each tier beside the optimum, the guarantees broken."""
        who = f"{self.assignor}: " if self.assignor else ""
        lines = [f"{who}objective: {', '.join(self.objective_order)} (Kafka's order; optimum {self.optimum_status})"]
        if self.valid:
            lines.append("valid: yes")
        else:
            shown = "; ".join(self.violations[:3]) + (
                f" (+{len(self.violations) - 3} more)" if len(self.violations) > 3 else ""
            )
            lines.append(f"valid: no: {shown}")
        lines.append(
            f"standbys: {self.standbys_given} given, shortfall {self.shortfall} "
            f"(unavoidable {self.unavoidable_shortfall}, avoidable {self.avoidable_shortfall})"
        )
        for line in self.tiers:
            mark = {"equal": "=", "worse": "worse than", "better": "better than", "unknown": "?"}[line.comparison]
            proof = "" if line.proven else " (not proven)"
            said = f"{line.tier}: {_short(line.value)} {mark} optimum {_short(line.optimum)}{proof}"
            if line.comparison == "worse":
                said += f" ({_difference_text(line)})"
            lines.append(said)
        broken = [g for g in self.guarantees if g.status == BROKEN]
        lines.append(
            "Kafka's guarantees: "
            + (
                "broken: " + "; ".join(f"{g.name} ({g.detail})" if g.detail else g.name for g in broken)
                if broken
                else "none broken"
            )
        )
        said = {
            "optimal": "optimal on every tier",
            "gap": f"a gap at the {self.gap_tier} tier",
            "unknown": "unknown (the optimum was not proven on every tier, or the assignment is no worse on any)",
            "short": f"valid but {self.avoidable_shortfall} placeable standby(s) not given",
            "invalid": "not valid",
        }[self.verdict]
        lines.append(f"verdict: {said} (exit {self.exit_code()})")
        return lines_text(lines)

    def explanation_text(self, *, limit: int = 20) -> str:
        """What the assignment did that the optimum did not: the gap tier, its numbers, the members and
        tasks involved (at most ``limit`` of each)."""
        who = self.assignor or "the assignment"
        if self.verdict == "invalid":
            return lines_text([f"{who} is not valid:", *(f"  {v}" for v in self.violations[:limit])])
        lines = []
        if self.avoidable_shortfall:
            lines.append(
                f"{who} left out {self.avoidable_shortfall} standby(s) that could have been placed "
                "(the optimum places every one)"
            )
        gap = self.gap
        if gap is None:
            if self.verdict == "optimal":
                lines.append(f"{who} is optimal on every tier ({', '.join(self.objective_order)})")
            elif not lines:
                lines.append(f"{who}: no gap found (verdict {self.verdict})")
            return lines_text(lines)
        lines.append(
            f"{who} is worse than the optimum first at the {gap.tier} tier: {_short(gap.value)} against "
            f"{_short(gap.optimum)} ({_difference_text(gap)})"
        )
        lines += _involved_lines(gap, limit)
        return lines_text(lines)


def _short(value) -> str:
    if isinstance(value, list) and len(value) > 12:
        return f"[{', '.join(str(x) for x in value[:6])}, … {len(value)} values, … {value[-1]}]"
    return str(value)


def _difference_text(line: StreamsTierLine) -> str:
    d = line.difference
    if line.tier in (ACTIVE_BALANCE, TASK_BALANCE):
        what = "active" if line.tier == ACTIVE_BALANCE else "task"
        if d["largest_over_optimum"]:
            return f"largest {what} count {d['largest']}, the optimum's {d['optimum_largest']}"
        return (
            f"{d['members_at_level']} member(s) with {d['level']} or more {what}s, "
            f"the optimum {d['optimum_members_at_level']}"
        )
    if line.tier == TAG_DIVERSITY:
        return f"{d['fewer_by']} fewer distinct tag values"
    parts = [
        f"{label} fewer by {d[key]}"
        for key, label in (
            ("actives_kept_fewer_by", "actives kept"),
            ("actives_on_state_fewer_by", "actives on state"),
            ("standbys_kept_fewer_by", "standbys kept"),
            ("standbys_on_state_fewer_by", "standbys on state"),
        )
        if d[key]
    ]
    return ", ".join(parts) or "equal"


def _involved_lines(line: StreamsTierLine, limit: int) -> list[str]:
    inv = line.involved
    out: list[str] = []
    if line.tier in (ACTIVE_BALANCE, TASK_BALANCE):
        what = "active tasks" if line.tier == ACTIVE_BALANCE else "tasks (active and standby)"
        members = list(inv["members"].items())
        out.append(f"members with {inv['level']} or more {what} (the optimum has {inv['optimum_members']} such):")
        out += [f"  {m}: {n}" for m, n in members[:limit]]
        if len(members) > limit:
            out.append(f"  … {len(members)} in all")
    elif line.tier == TAG_DIVERSITY:
        tasks = inv["tasks"]
        out.append("tasks with fewer distinct tag values than in the optimum:")
        out += [f"  {t['task']}: {t['values']} (optimum {t['optimum']})" for t in tasks[:limit]]
        if len(tasks) > limit:
            out.append(f"  … {len(tasks)} in all")
    else:
        for key, said in (
            ("actives_moved", "previous actives moved that the optimum kept on their member"),
            ("standbys_moved", "previous standbys moved that the optimum kept on their member"),
            ("state_left", "copies the optimum put on a member with state for the task, the assignment did not"),
        ):
            items = inv[key]
            if not items:
                continue
            out.append(f"{said}:")
            for item in items[:limit]:
                now = f" (now on {', '.join(item['now']) or 'nobody'})" if "now" in item else ""
                out.append(f"  {item['task']} on {item['member']}{now}")
            if len(items) > limit:
                out.append(f"  … {len(items)} in all")
    return out


# -- the tiers' differences and the members and tasks involved ----------------------------------------------


def _counts(problem: StreamsProblem, counts) -> dict[str, int]:
    return {m: int(n) for m, n in zip(problem.member_ids, counts)}


def _balance_line(tier, problem, mine: dict[str, int], best: dict[str, int]) -> tuple[dict, dict]:
    a = sorted(mine.values(), reverse=True)
    o = sorted(best.values(), reverse=True)
    level = next((x for x, y in zip(a, o) if x != y), a[0] if a else 0)
    difference = {
        "largest": a[0] if a else 0,
        "optimum_largest": o[0] if o else 0,
        "largest_over_optimum": (a[0] if a else 0) - (o[0] if o else 0),
        "smallest": a[-1] if a else 0,
        "optimum_smallest": o[-1] if o else 0,
        "level": level,
        "members_at_level": sum(x >= level for x in a),
        "optimum_members_at_level": sum(x >= level for x in o),
    }
    at = {m: n for m, n in sorted(mine.items(), key=lambda kv: (-kv[1], kv[0])) if n >= level}
    involved = {"level": level, "members": at, "optimum_members": difference["optimum_members_at_level"]}
    return difference, involved


def _tag_values(problem: StreamsProblem, assignment: StreamsAssignment) -> dict[TaskId, int]:
    """Stateful task -> distinct (tag key, value) pairs among the members holding its copies (as measure)."""
    tags = problem.rack_aware_tags
    held: dict[TaskId, set] = {t: set() for t in problem.stateful_tasks}
    for member_id, (actives, standbys) in assignment.members.items():
        if member_id not in problem.member:
            continue
        member_tags = dict(problem.member[member_id].client_tags)
        for task in (*actives, *standbys):
            if task in held:
                held[task].update((k, member_tags[k]) for k in tags if k in member_tags)
    return {t: len(v) for t, v in held.items()}


def _holders(assignment: StreamsAssignment, role: int) -> dict[TaskId, list[str]]:
    out: dict[TaskId, list[str]] = {}
    for member_id, tasks in assignment.members.items():
        for task in tasks[role]:
            out.setdefault(task, []).append(member_id)
    return out


def _stickiness_involved(problem: StreamsProblem, assignment: StreamsAssignment, optimum: StreamsAssignment) -> dict:
    """(member, task) pairs the optimum keeps and the assignment does not: previous actives kept active on
    their member, previous standbys kept standby, copies of stateful tasks on a member with state."""
    now_active = _holders(assignment, 0)
    now_standby = _holders(assignment, 1)
    state = state_of(problem)
    moved_active, moved_standby, state_left = [], [], []
    for m in problem.members:
        mine, best = assignment.members.get(m.member_id), optimum.members.get(m.member_id)
        mine_a, mine_s = (set(mine.active), set(mine.standby)) if mine else (set(), set())
        best_a, best_s = (set(best.active), set(best.standby)) if best else (set(), set())
        for task in sorted(set(m.active) & best_a - mine_a):
            moved_active.append({"task": task_name(task), "member": m.member_id, "now": now_active.get(task, [])})
        for task in sorted(set(m.standby) & best_s - mine_s):
            moved_standby.append({"task": task_name(task), "member": m.member_id, "now": now_standby.get(task, [])})
        stateful = {t for t in state[m.member_id] if problem.subtopology[t[0]].stateful}
        for task in sorted(stateful & (best_a | best_s) - (mine_a | mine_s)):
            state_left.append({"task": task_name(task), "member": m.member_id})
    return {"actives_moved": moved_active, "standbys_moved": moved_standby, "state_left": state_left}


def _line(
    problem: StreamsProblem,
    tier: str,
    proven: bool,
    assignment: StreamsAssignment,
    mine: StreamsMeasures,
    optimum: StreamsAssignment | None,
    best: StreamsMeasures | None,
) -> StreamsTierLine:
    value = mine.value(tier)
    if optimum is None or best is None:
        return StreamsTierLine(tier, value, None, False, "unknown")
    target = best.value(tier)
    kx, ky = tier_key(tier, value), tier_key(tier, target)
    comparison = "equal" if kx == ky else ("worse" if kx > ky else "better")
    if tier == ACTIVE_BALANCE:
        difference, involved = _balance_line(
            tier, problem, _counts(problem, mine.active_counts), _counts(problem, best.active_counts)
        )
    elif tier == TASK_BALANCE:
        difference, involved = _balance_line(
            tier, problem, _counts(problem, mine.task_counts), _counts(problem, best.task_counts)
        )
    elif tier == TAG_DIVERSITY:
        difference = {"fewer_by": target - value}
        a, o = _tag_values(problem, assignment), _tag_values(problem, optimum)
        involved = {
            "tasks": [
                {"task": task_name(t), "values": a[t], "optimum": o[t]} for t in problem.stateful_tasks if a[t] < o[t]
            ]
        }
    else:
        difference = {
            "actives_kept_fewer_by": best.actives_kept - mine.actives_kept,
            "actives_on_state_fewer_by": best.actives_on_state - mine.actives_on_state,
            "standbys_kept_fewer_by": best.standbys_kept - mine.standbys_kept,
            "standbys_on_state_fewer_by": best.standbys_on_state - mine.standbys_on_state,
        }
        involved = _stickiness_involved(problem, assignment, optimum)
    return StreamsTierLine(tier, value, target, proven, comparison, difference, involved)


# -- the entry point -----------------------------------------------------------------------------------------


def judge(
    problem: StreamsProblem,
    assignment: StreamsAssignment,
    optimum: StreamsSolution | None = None,
    *,
    assignor: str | None = None,
) -> StreamsVerdict:
    """``assignment`` against the optimum of ``problem`` (Kafka's order of tiers; solved through
    :func:`assignment_oracle.optimal.solve` when ``optimum``, a ``StreamsSolution``, is not given);
    ``assignor`` only labels the verdict.  Returns a :class:`StreamsVerdict` (module docstring)."""
    if optimum is None:
        from assignment_oracle.optimal import solve

        optimum = solve(problem)
    found = violations(problem, assignment)
    valid = not found
    mine = measure(problem, assignment)
    total = standby_shortfall(problem, assignment)
    unavoidable = unavoidable_standby_shortfall(problem)
    avoidable = mine.shortfall
    order = tuple(optimum.objective_order)
    best_assignment = optimum.assignment
    best = optimum.measures if best_assignment is not None else None
    proven = {t.tier: bool(t.proven) for t in optimum.tiers}
    lines = tuple(
        _line(problem, tier, proven.get(tier, False), assignment, mine, best_assignment, best) for tier in order
    )

    # the gap: the first tier not equal, if worse; a better one first means no gap can be named
    gap = None
    first = next((t for t in lines if t.comparison != "equal"), None)
    if first is not None and first.comparison == "worse" and valid:
        gap = first.tier
    if (
        first is not None
        and first.comparison == "better"
        and first.proven
        and valid
        and not avoidable
        and optimum.status == OPTIMAL
    ):
        raise SolverError(f"a valid Streams assignment beats the proven optimum on the {first.tier} tier (a bug)")
    if not valid:
        verdict = "invalid"
    elif gap is not None:
        verdict = "gap"
    elif avoidable:
        verdict = "short"
    elif first is None and lines and all(t.proven for t in lines) and optimum.status == OPTIMAL:
        verdict = "optimal"
    else:
        verdict = "unknown"

    guarantees = _guarantees(problem, found, avoidable, lines)
    return StreamsVerdict(
        verdict=verdict,
        valid=valid,
        violations=tuple(str(v) for v in found),
        violation_details=tuple(v.to_mapping() for v in found),
        standby_replicas=problem.standby_replicas,
        standbys_given=mine.standbys,
        shortfall=total,
        unavoidable_shortfall=unavoidable,
        avoidable_shortfall=avoidable,
        objective_order=order,
        optimum_status=optimum.status,
        optimum_message=optimum.message,
        tiers=lines,
        gap_tier=gap,
        guarantees=guarantees,
        assignor=assignor,
    )


def _guarantees(problem, found, avoidable: int, lines: tuple[StreamsTierLine, ...]) -> tuple[StreamsGuarantee, ...]:
    kinds = Counter(v.kind for v in found)
    out = [
        StreamsGuarantee(
            "valid",
            BROKEN if found else KEPT,
            ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(kinds.items())) if found else "",
        ),
        StreamsGuarantee(
            "standby-not-on-same-process",
            BROKEN if kinds["same-process"] else KEPT,
            ", ".join(task_name(v.tasks[0]) for v in found if v.kind == "same-process"),
        ),
        StreamsGuarantee(
            "every-placeable-standby",
            BROKEN if avoidable else KEPT,
            f"{avoidable} placeable standby(s) not given" if avoidable else "",
        ),
    ]
    by_tier = {t.tier: t for t in lines}
    active = by_tier.get(ACTIVE_BALANCE)
    if active is None or active.comparison == "unknown":
        out.append(StreamsGuarantee("active-balance", NOT_JUDGED, "no optimum to compare with"))
    elif active.comparison == "worse":
        out.append(StreamsGuarantee("active-balance", BROKEN, _difference_text(active)))
    elif not active.proven and active.comparison == "equal":
        out.append(StreamsGuarantee("active-balance", KEPT, "as the optimum's (not proven)"))
    else:
        out.append(StreamsGuarantee("active-balance", KEPT))
    balance = [by_tier.get(t) for t in (ACTIVE_BALANCE, TASK_BALANCE)]
    sticky = by_tier.get(STICKINESS)
    if sticky is None or sticky.comparison == "unknown" or any(b is None for b in balance):
        out.append(StreamsGuarantee("sticky-at-equal-balance", NOT_JUDGED, "no optimum to compare with"))
    elif any(b.comparison != "equal" for b in balance):  # type: ignore[union-attr]
        out.append(
            StreamsGuarantee(
                "sticky-at-equal-balance", NOT_JUDGED, "the balance differs from the optimum's: not comparable"
            )
        )
    elif sticky.comparison == "worse":
        out.append(StreamsGuarantee("sticky-at-equal-balance", BROKEN, _difference_text(sticky)))
    else:
        out.append(StreamsGuarantee("sticky-at-equal-balance", KEPT))
    return tuple(out)


# -- what the command line shows: the solution, one row per assignor -------------------------------------


def solution_to_mapping(solution: StreamsSolution, *, timing: bool = False) -> dict:
    """A Streams solution as JSON (``solve``'s output; docs/formats.md, "Streams groups"): status, method,
    objective order, each tier's value, bound, proof, the message and the assignment
    (:func:`~assignment_oracle.problem.streams.streams_assignment_to_mapping`); ``timing`` adds the wall time
    and the model's sizes (then not byte-stable)."""
    from assignment_oracle.problem.streams import streams_assignment_to_mapping

    out: dict[str, Any] = {
        "kind": "streams",
        "status": solution.status,
        "method": solution.method,
        "objective_order": list(solution.objective_order),
        "tiers": [t.to_mapping() for t in solution.tiers],
        "standbys_wanted_per_stateful_task": _wanted(solution.problem),
        "message": solution.message,
        "assignment": None if solution.assignment is None else streams_assignment_to_mapping(solution.assignment),
    }
    if timing:
        out["wall_time"] = round(solution.wall_time, 6)
        out["stats"] = dict(solution.stats)
    return out


def _wanted(problem: StreamsProblem) -> int:
    from assignment_oracle.optimal.streams_request import standbys_wanted

    return standbys_wanted(problem)


@dataclass(frozen=True)
class StreamsRow:
    """One assignor run on a Streams group: its verdict, or why there is none (``status`` ``error``)."""

    assignor: str
    iteration_order: str
    status: str  # ok, error
    verdict: StreamsVerdict | None
    message: str = ""
    wall_time: float | None = None

    @property
    def label(self) -> str:
        return self.assignor if self.iteration_order == "sorted" else f"{self.assignor} ({self.iteration_order} order)"

    def to_mapping(self, *, timing: bool = False) -> dict:
        out: dict[str, Any] = {
            "assignor": self.assignor,
            "iteration_order": self.iteration_order,
            "status": self.status,
            "message": self.message,
            "verdict": None if self.verdict is None else self.verdict.to_mapping(),
        }
        if timing:
            out["wall_time"] = self.wall_time
        return out


@dataclass(frozen=True)
class StreamsComparison:
    """Assignors on one Streams group, each judged against the same optimum."""

    problem: StreamsProblem
    optimum: StreamsSolution
    rows: tuple[StreamsRow, ...]

    def to_mapping(self, *, timing: bool = False) -> dict:
        return {
            "kind": "streams",
            "optimum": solution_to_mapping(self.optimum, timing=timing),
            "rows": [r.to_mapping(timing=timing) for r in self.rows],
        }

    def text(self) -> str:
        """The table ``compare`` prints: the optimum's row, then one row per assignor."""
        from assignment_oracle.compare.judge.text import table

        order = self.optimum.objective_order
        header = ("assignor", "status", "verdict", *order, "standbys short", "guarantees broken")
        best = self.optimum.measures
        rows = []
        if best is not None:
            rows.append(("optimum", self.optimum.status.lower(), "-", *(str(best.value(t)) for t in order), "0", "-"))
        for row in self.rows:
            v = row.verdict
            if v is None:
                short = row.message if len(row.message) <= 60 else row.message[:57] + "..."
                rows.append((row.label, row.status, short) + ("-",) * (len(header) - 3))
                continue
            cells = [
                str(t.value) + ("" if t.comparison in ("equal", "unknown") else f" ({t.comparison})") for t in v.tiers
            ]
            rows.append(
                (
                    row.label,
                    row.status,
                    v.verdict + (f" at {v.gap_tier}" if v.gap_tier else ""),
                    *cells,
                    f"{v.avoidable_shortfall} (+{v.unavoidable_shortfall} unavoidable)",
                    ", ".join(v.broken) or "none",
                )
            )
        p = self.problem
        title = (
            f"Streams group: {len(p.members)} members on {len(p.processes)} processes, {len(p.tasks)} tasks "
            f"({len(p.stateful_tasks)} stateful), {p.standby_replicas} standby replica(s); optimum {self.optimum.status}"
        )
        return lines_text([title, *table(header, rows)])


def compare(
    problem: StreamsProblem,
    assignors: Sequence[tuple[str, str]],
    *,
    optimum: StreamsSolution | None = None,
    progress: Callable[[str], None] | None = None,
) -> StreamsComparison:
    """Run each ``(name, iteration order)`` of :data:`heuristics.registry.STREAMS_ASSIGNORS` on ``problem``
    and judge it against one optimum (solved if not given).  An assignor that raises is a row with status
    ``error`` and its message (Kafka's ``TaskAssignorException`` on a group without members)."""
    import time

    from assignment_oracle.heuristics.registry import get_assignor
    from assignment_oracle.problem.errors import AssignorError

    if progress is not None:
        progress("optimum")
    if optimum is None:
        from assignment_oracle.optimal import solve

        optimum = solve(problem)
    rows = []
    for name, order in assignors:
        entry = get_assignor(name, kind="streams")
        if progress is not None:
            progress(name if order == "sorted" else f"{name} ({order} order)")
        started = time.perf_counter()
        try:
            result = entry.assign(problem, iteration_order=order)
        except AssignorError as err:
            rows.append(StreamsRow(name, order, "error", None, f"{type(err).__name__}: {err}"))
            continue
        seconds = time.perf_counter() - started
        rows.append(StreamsRow(name, order, "ok", judge(problem, result, optimum, assignor=name), "", seconds))
    return StreamsComparison(problem, optimum, tuple(rows))
