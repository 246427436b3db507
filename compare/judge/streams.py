"""Judging a Streams group's task assignment (KIP-1071) against the proven optimum: valid or not, standbys
missing, each tier beside the optimum's, and which of Kafka's ``StickyTaskAssignor`` guarantees hold.

:func:`judge` is the one entry point: pure (it reads the problem, the assignment and, when not given,
solves the optimum through :func:`assignment_oracle.optimal.solve`, the same front door as ``solve``)
and returns the one :class:`~assignment_oracle.compare.judge.verdict.Verdict` (kind ``streams``):

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
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, Sequence, TypeAlias

from assignment_oracle.compare.judge.verdict import (
    AssignorRow,
    Comparison,
    Finding,
    TierLine,
    TierWords,
    Verdict,
    balance_difference,
    described,
    judge_tiers,
    judged_rows,
    short_value,
    status_of,
    verdict_of,
    words_for,
)
from assignment_oracle.optimal.solution import OPTIMAL
from assignment_oracle.optimal.streams_request import StreamsMeasures, measure, state_of
from assignment_oracle.problem.streams import (
    StreamsAssignment,
    StreamsProblem,
    TaskId,
    standby_shortfall,
    unavoidable_standby_shortfall,
    violations,
)
from assignment_oracle.problem.text import lines_text
from assignment_oracle.problem.tiers import ACTIVE_BALANCE, STICKINESS, TAG_DIVERSITY, TASK_BALANCE

if TYPE_CHECKING:
    from assignment_oracle.optimal.streams import StreamsSolution

__all__ = [
    "GUARANTEES",
    "STREAMS_TIME_LIMIT",
    "avoidable_shortfall",
    "unavoidable_shortfall",
    "explanation_text",
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

KIND = "streams"
KEPT, BROKEN, NOT_JUDGED = "kept", "broken", "not judged"
#: Seconds the Streams optimum may take when judging without a limit given.
STREAMS_TIME_LIMIT = 60.0


def task_name(task: TaskId) -> str:
    """``s_p``, as Kafka and the messages write a task."""
    return f"{task[0]}_{task[1]}"


def explanation_text(verdict: Verdict, *, limit: int = 20) -> str:
    """What the assignment did that the optimum did not: the gap tier, its numbers, the members and tasks
    involved (at most ``limit`` of each)."""
    who = verdict.assignor or "the assignment"
    if verdict.status == "invalid":
        return lines_text([f"{who} is not valid:", *(f"  {v}" for v in verdict.violations[:limit])])
    lines = []
    avoidable = avoidable_shortfall(verdict)
    if avoidable:
        lines.append(
            f"{who} left out {avoidable} standby(s) that could have been placed (the optimum places every one)"
        )
    gap = verdict.gap
    if gap is None:
        if verdict.status == "optimal":
            lines.append(f"{who} is optimal on every tier ({', '.join(verdict.objective_order)})")
        elif not lines:
            lines.append(f"{who}: no gap found (verdict {verdict.status})")
        return lines_text(lines)
    lines.append(
        f"{who} is worse than the optimum first at the {gap.tier} tier: {short_value(gap.value)} against "
        f"{short_value(gap.optimum)} ({gap.note})"
    )
    lines += words_for(KIND, gap.tier, WORDS).involved(gap, limit)
    return lines_text(lines)


def avoidable_shortfall(verdict: Verdict) -> int:
    """Standbys the assignment could have placed and did not (the ``standby-shortfall`` finding's)."""
    found = verdict.finding("standby-shortfall")
    return 0 if found is None else int(found.data["avoidable"])


def unavoidable_shortfall(verdict: Verdict) -> int:
    found = verdict.finding("standby-shortfall")
    return 0 if found is None else int(found.data["unavoidable"])


def _balance_note(what: str) -> Callable[[TierLine], str]:
    def note(line: TierLine) -> str:
        d = line.difference
        if d["largest_over_optimum"]:
            return f"largest {what} count {d['largest']}, the optimum's {d['optimum_largest']}"
        return (
            f"{d['members_at_level']} member(s) with {d['level']} or more {what}s, "
            f"the optimum {d['optimum_members_at_level']}"
        )

    return note


def _stickiness_note(line: TierLine) -> str:
    d = line.difference
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


def _balance_involved(what: str) -> Callable[[TierLine, int], list[str]]:
    def involved(line: TierLine, limit: int) -> list[str]:
        inv = line.involved
        members = list(inv["members"].items())
        out = [f"members with {inv['level']} or more {what} (the optimum has {inv['optimum_members']} such):"]
        out += [f"  {m}: {n}" for m, n in members[:limit]]
        if len(members) > limit:
            out.append(f"  … {len(members)} in all")
        return out

    return involved


def _tag_involved(line: TierLine, limit: int) -> list[str]:
    tasks = line.involved["tasks"]
    out = ["tasks with fewer distinct tag values than in the optimum:"]
    out += [f"  {t['task']}: {t['values']} (optimum {t['optimum']})" for t in tasks[:limit]]
    if len(tasks) > limit:
        out.append(f"  … {len(tasks)} in all")
    return out


def _stickiness_involved_lines(line: TierLine, limit: int) -> list[str]:
    inv = line.involved
    out: list[str] = []
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


@dataclass(frozen=True)
class _Judged:
    """What a tier's difference is read from: the group, the assignment and the optimum's, their measures."""

    problem: StreamsProblem
    assignment: StreamsAssignment
    mine: StreamsMeasures
    optimum: StreamsAssignment
    best: StreamsMeasures


def _counts(problem: StreamsProblem, counts) -> dict[str, int]:
    return {m: int(n) for m, n in zip(problem.member_ids, counts)}


def _balance_difference(counts: str) -> Callable[[_Judged, TierLine], tuple[dict, dict]]:
    def difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
        mine, best = getattr(j.mine, counts), getattr(j.best, counts)
        return balance_difference(_counts(j.problem, mine), list(_counts(j.problem, best).values()))

    return difference


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


def _tag_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    a, o = _tag_values(j.problem, j.assignment), _tag_values(j.problem, j.optimum)
    tasks = [{"task": task_name(t), "values": a[t], "optimum": o[t]} for t in j.problem.stateful_tasks if a[t] < o[t]]
    return {"fewer_by": line.optimum - line.value}, {"tasks": tasks}


def _stickiness_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    mine, best = j.mine, j.best
    difference = {
        "actives_kept_fewer_by": best.actives_kept - mine.actives_kept,
        "actives_on_state_fewer_by": best.actives_on_state - mine.actives_on_state,
        "standbys_kept_fewer_by": best.standbys_kept - mine.standbys_kept,
        "standbys_on_state_fewer_by": best.standbys_on_state - mine.standbys_on_state,
    }
    return difference, _stickiness_involved(j.problem, j.assignment, j.optimum)


#: How each tier's difference is said (its record in :data:`problem.tiers.STREAMS`, ``difference``).
WORDS: dict[str, TierWords] = {
    ACTIVE_BALANCE: TierWords(
        _balance_difference("active_counts"), _balance_note("active"), _balance_involved("active tasks")
    ),
    TASK_BALANCE: TierWords(
        _balance_difference("task_counts"), _balance_note("task"), _balance_involved("tasks (active and standby)")
    ),
    TAG_DIVERSITY: TierWords(
        _tag_difference, lambda line: f"{line.difference['fewer_by']} fewer distinct tag values", _tag_involved
    ),
    STICKINESS: TierWords(_stickiness_difference, _stickiness_note, _stickiness_involved_lines),
}


# -- the entry point -----------------------------------------------------------------------------------------


def judge(
    problem: StreamsProblem,
    assignment: StreamsAssignment,
    request=None,
    *,
    optimum: StreamsSolution | None = None,
    assignor=None,
    time_limit: float | None = None,
    **_,
) -> Verdict:
    """``assignment`` against the optimum of ``request`` on ``problem`` (a
    :class:`~assignment_oracle.optimal.streams_request.StreamsRequest`; ``None``: Kafka's order), solved through
    :func:`assignment_oracle.optimal.solve` within ``time_limit`` when ``optimum`` is not given; ``assignor``
    labels the verdict.  Returns the one :class:`~assignment_oracle.compare.judge.verdict.Verdict` (module
    docstring)."""
    if optimum is None:
        from assignment_oracle.optimal import solve

        optimum = solve(problem, request, time_limit=STREAMS_TIME_LIMIT if time_limit is None else time_limit)
    found = violations(problem, assignment)
    valid = not found
    mine = measure(problem, assignment)
    total = standby_shortfall(problem, assignment)
    unavoidable = unavoidable_standby_shortfall(problem)
    avoidable = mine.shortfall
    order = tuple(optimum.objective_order)
    best = optimum.measures if optimum.assignment is not None else None
    proven = {t.tier: bool(t.proven) for t in optimum.tiers}
    records = [(t, None if best is None else best.value(t), best is not None and proven.get(t, False)) for t in order]
    judged = None if best is None else _Judged(problem, assignment, mine, optimum.assignment, best)
    trusted = valid and not avoidable and optimum.status == OPTIMAL
    lines, gap, optimal = judge_tiers(
        KIND,
        records,
        {t: mine.value(t) for t in order},
        valid=valid,
        trusted=trusted,
        who="a valid Streams assignment",
        describe=lambda line: described(KIND, WORDS, judged, line),
    )
    status = status_of(valid=valid, gap=gap, optimal=optimal and optimum.status == OPTIMAL, short=bool(avoidable))

    shortfall = Finding(
        "standby-shortfall",
        not avoidable,
        f"{mine.standbys} standby(s) given, shortfall {total} (unavoidable {unavoidable}, avoidable {avoidable})",
        {
            "replicas": problem.standby_replicas,
            "given": mine.standbys,
            "shortfall": total,
            "unavoidable": unavoidable,
            "avoidable": avoidable,
        },
    )
    previous = sum(len(m.active) + len(m.standby) for m in problem.members)
    return verdict_of(
        KIND,
        optimum,
        found,
        lines,
        gap,
        status,
        assignor=assignor,
        findings=(shortfall, *_guarantees(problem, found, avoidable, lines)),
        owned=previous,
        request={"objective": list(order)},
    )


def _guarantee(name: str, status: str, detail: str = "") -> Finding:
    """One of Kafka's guarantees as a finding (``holds``: kept True, broken False, not judged None)."""
    holds = {KEPT: True, BROKEN: False, NOT_JUDGED: None}[status]
    summary = status + (f" ({detail})" if detail else "")
    return Finding(
        name, holds, summary, {"claim": GUARANTEES[name], "status": status, "detail": detail}, role="guarantee"
    )


def _guarantees(problem, found, avoidable: int, lines: tuple[TierLine, ...]) -> tuple[Finding, ...]:
    kinds = Counter(v.kind for v in found)
    out = [
        _guarantee(
            "valid",
            BROKEN if found else KEPT,
            ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(kinds.items())) if found else "",
        ),
        _guarantee(
            "standby-not-on-same-process",
            BROKEN if kinds["same-process"] else KEPT,
            ", ".join(task_name(v.tasks[0]) for v in found if v.kind == "same-process"),
        ),
        _guarantee(
            "every-placeable-standby",
            BROKEN if avoidable else KEPT,
            f"{avoidable} placeable standby(s) not given" if avoidable else "",
        ),
    ]
    by_tier = {t.tier: t for t in lines}
    active = by_tier.get(ACTIVE_BALANCE)
    if active is None or active.comparison == "unknown":
        out.append(_guarantee("active-balance", NOT_JUDGED, "no optimum to compare with"))
    elif active.comparison == "worse":
        out.append(_guarantee("active-balance", BROKEN, active.note))
    elif not active.proven and active.comparison == "equal":
        out.append(_guarantee("active-balance", KEPT, "as the optimum's (not proven)"))
    else:
        out.append(_guarantee("active-balance", KEPT))
    balance = [by_tier.get(t) for t in (ACTIVE_BALANCE, TASK_BALANCE)]
    sticky = by_tier.get(STICKINESS)
    if sticky is None or sticky.comparison == "unknown" or any(b is None for b in balance):
        out.append(_guarantee("sticky-at-equal-balance", NOT_JUDGED, "no optimum to compare with"))
    elif any(b.comparison != "equal" for b in balance):  # type: ignore[union-attr]
        out.append(
            _guarantee("sticky-at-equal-balance", NOT_JUDGED, "the balance differs from the optimum's: not comparable")
        )
    elif sticky.comparison == "worse":
        out.append(_guarantee("sticky-at-equal-balance", BROKEN, sticky.note))
    else:
        out.append(_guarantee("sticky-at-equal-balance", KEPT))
    return tuple(out)


# -- what the command line shows: the solution, one row per assignor -------------------------------------


def solution_to_mapping(solution, *, timing: bool = False) -> dict:
    """The solution as JSON: its own (:meth:`~assignment_oracle.optimal.streams.StreamsSolution.to_mapping`)."""
    return solution.to_mapping(timing=timing)


def _wanted(problem: StreamsProblem) -> int:
    from assignment_oracle.optimal.streams_request import standbys_wanted

    return standbys_wanted(problem)


#: One assignor run on a Streams group (the one row type of every kind, :class:`~compare.judge.verdict.AssignorRow`).
StreamsRow: TypeAlias = AssignorRow


@dataclass(frozen=True)
class StreamsComparison(Comparison):
    """Assignors on one Streams group, each judged against the same optimum."""

    kind = KIND
    problem: StreamsProblem
    optimum: StreamsSolution
    rows: tuple[StreamsRow, ...]
    solution_mapping = staticmethod(solution_to_mapping)

    def header(self) -> tuple[str, ...]:
        return ("assignor", "status", "verdict", *self.optimum.objective_order, "standbys short", "guarantees broken")

    def optimum_cells(self, best) -> tuple[str, ...]:
        return (*(str(best.value(t)) for t in self.optimum.objective_order), "0", "-")

    def verdict_cells(self, v: Verdict) -> tuple[str, ...]:
        cells = [str(t.value) + ("" if t.comparison in ("equal", "unknown") else f" ({t.comparison})") for t in v.tiers]
        return (
            *cells,
            f"{avoidable_shortfall(v)} (+{unavoidable_shortfall(v)} unavoidable)",
            ", ".join(v.broken) or "none",
        )

    def title(self) -> str:
        p = self.problem
        return (
            f"Streams group: {len(p.members)} members on {len(p.processes)} processes, {len(p.tasks)} tasks "
            f"({len(p.stateful_tasks)} stateful), {p.standby_replicas} standby replica(s); optimum {self.optimum.status}"
        )


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
    from assignment_oracle.heuristics.registry import get_assignor

    optimum, rows = judged_rows(
        problem, assignors, optimum=optimum, entry=partial(get_assignor, kind=KIND), judge=judge, progress=progress
    )
    return StreamsComparison(problem, optimum, rows)
