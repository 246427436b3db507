"""A captured group judged in place: ``check``'s verdict on it, and what the optimum would move from here.

Guarantee: :attr:`CapturedVerdict.verdict` is exactly the verdict ``assignment-oracle check SCENARIO
CANDIDATE`` gives on the written files (the same judge, request and time limit); the moves are those of
the optimum *from the group's current assignment* -- the scenario with every member owning what it holds
now -- so "Y partitions would move" counts what the next rebalance to the optimum changes, whatever the
captured assignor read as owned (an eager assignor's members own nothing when they join).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assignment_oracle.compare.capture.group import Capture
from assignment_oracle.compare.judge import KINDS, judge, kind_of
from assignment_oracle.compare.judge.verdict import Verdict
from assignment_oracle.optimal import OPTIMAL, solve
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.problem.text import printable

__all__ = ["CapturedVerdict", "Moves", "judge_capture", "from_here"]


@dataclass(frozen=True)
class Moves:
    """The optimum from the current assignment, against the current assignment."""

    #: Partitions (a Streams group: active tasks) the optimum gives another member.
    moved: int
    #: Partitions (active tasks) in all.
    total: int
    #: The busiest member's load now and in the optimum (partitions; a Streams group: active tasks).
    busiest_now: int
    busiest_optimum: int
    #: Whether the optimum from here was proven (else its numbers are the best found in the time limit).
    proven: bool

    @property
    def busiest_change_pct(self) -> float:
        """The busiest member's load in the optimum against now, in percent (negative: lighter)."""
        if self.busiest_now == 0:
            return 0.0
        return 100.0 * (self.busiest_optimum - self.busiest_now) / self.busiest_now

    def text(self) -> str:
        unit = self.unit
        share = f" ({100.0 * self.moved / self.total:.1f}% of {self.total})" if self.total else ""
        change = self.busiest_change_pct
        busiest = (
            f"busiest member {change:+.1f}% ({self.busiest_now} -> {self.busiest_optimum} {unit})"
            if self.busiest_optimum != self.busiest_now
            else f"busiest member unchanged ({self.busiest_now} {unit})"
        )
        proof = "" if self.proven else " (the optimum from here not proven in the time limit: its best answer)"
        moved = f"{self.moved} {unit.removesuffix('s') if self.moved == 1 else unit}"
        return f"the optimum from here: {moved} would move{share}; {busiest}{proof}"

    #: What ``moved``, ``total`` and the loads count.
    unit: str = "partitions"


@dataclass(frozen=True)
class CapturedVerdict:
    """``check``'s verdict on a captured group, and the optimum's moves from its current assignment."""

    capture: Capture
    verdict: Verdict
    moves: Moves

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code()

    def text(self) -> str:
        c = self.capture
        assignor = printable(c.assignor or "unknown")
        port = f" (this project's port: {c.port})" if c.port else ""
        head = (
            f"group {printable(c.group)} ({c.kind}, {printable(c.state)}), assignor {assignor}{port}: "
            f"{len(c.scenario['members'])} members\n"
        )
        notes = "".join(f"note: {printable(n)}\n" for n in c.notes)
        return head + notes + self.verdict.text() + self.moves.text() + "\n"

    def to_mapping(self) -> dict[str, Any]:
        m = self.moves
        return {
            "group": self.capture.group,
            "kind": self.capture.kind,
            "assignor": self.capture.assignor,
            "port": self.capture.port,
            "verdict": self.verdict.to_mapping(),
            "from_here": {
                "moved": m.moved,
                "total": m.total,
                "busiest_now": m.busiest_now,
                "busiest_optimum": m.busiest_optimum,
                "busiest_change_pct": round(m.busiest_change_pct, 1),
                "proven": m.proven,
            },
        }


def judge_capture(capture: Capture, *, time_limit: float | None = None) -> CapturedVerdict:
    """``check``'s verdict on ``capture`` (its scenario's own objective, the kind's default time limit) and
    the optimum's moves from the current assignment."""
    problem = capture.problem()
    if type(problem) not in KINDS:
        raise InputError(
            capture.group,
            "",
            f"is a {capture.kind} group: the judge has no such kind yet (compare.judge.KINDS); -o writes its "
            "scenario and assignment",
        )
    assignment = load_assignment(dict(capture.assignment), problem)
    kind = kind_of(problem)
    request = kind.request(problem, {"objective_text": None})
    limit = time_limit if time_limit is not None else kind.default_time_limit(problem, request, "auto")
    verdict = judge(problem, assignment, request, time_limit=limit)
    return CapturedVerdict(capture, verdict, _moves(capture, problem, assignment, limit))


def from_here(capture: Capture) -> dict[str, Any]:
    """The captured scenario with every member owning what the candidate gives it now (one generation)."""
    scenario = {k: v for k, v in capture.scenario.items()}
    members = {}
    if scenario.get("kind") == "share":  # a share group's scenario holds what members have now already
        return scenario
    if scenario.get("kind") == "streams":
        held = capture.assignment["members"]
        for member_id, entry in scenario["members"].items():
            entry = {k: v for k, v in entry.items() if k not in ("active", "standby", "warmup")}
            for role in ("active", "standby"):
                if held.get(member_id, {}).get(role):
                    entry[role] = held[member_id][role]
            members[member_id] = entry
    else:
        for member_id, entry in scenario["members"].items():
            entry = {k: v for k, v in entry.items() if k not in ("owned", "generation")}
            held = capture.assignment.get(member_id) or {}
            if held:
                entry["owned"] = held
                entry["generation"] = 0
            members[member_id] = entry
    scenario["members"] = members
    return scenario


def _moves(capture: Capture, problem, assignment, limit: float | None) -> Moves:
    here = load_scenario(from_here(capture), max_partitions=None)
    kind = kind_of(here)
    request = kind.request(here, {"objective_text": None})
    solution = solve(
        here, request, time_limit=limit if limit is not None else kind.default_time_limit(here, request, "auto")
    )
    best = solution.assignment
    proven = solution.status == OPTIMAL
    if capture.scenario.get("kind") == "share":  # holdings: (member, partition); several members may share one
        now = {(m, t, p) for m, topics in capture.assignment.items() for t, ps in topics.items() for p in ps}
        then = (
            {(m, t, p) for m, topics in best.to_mapping().items() for t, ps in topics.items() for p in ps}
            if best is not None
            else now
        )
        per = {m: 0 for m in capture.assignment}
        for m, _, _ in then:
            per[m] = per.get(m, 0) + 1
        held = {m: sum(len(ps) for ps in topics.values()) for m, topics in capture.assignment.items()}
        return Moves(
            moved=len(now - then),
            total=len(then),
            busiest_now=max(held.values(), default=0),
            busiest_optimum=max(per.values(), default=0),
            proven=proven,
            unit="partition holdings",
        )
    if capture.scenario.get("kind") == "streams":
        members = here.member_ids
        now = {m: set(assignment.active_of(m)) for m in members}
        then = {m: set(best.active_of(m)) if best is not None else now[m] for m in members}
        moved = sum(len(then[m] - now[m]) for m in members)
        total = len(here.tasks)
        return Moves(
            moved=moved,
            total=total,
            busiest_now=max((len(v) for v in now.values()), default=0),
            busiest_optimum=max((len(v) for v in then.values()), default=0),
            proven=proven,
            unit="active tasks",
        )
    from assignment_oracle.problem.metrics import load_vector

    now_loads = load_vector(problem, assignment)
    best_loads = load_vector(here, best) if best is not None else now_loads
    return Moves(
        moved=int(solution.moved) if best is not None and solution.moved is not None else 0,
        total=int(sum(best_loads)),
        busiest_now=max(now_loads, default=0),
        busiest_optimum=max(best_loads, default=0),
        proven=proven,
    )
