"""A captured group judged in place: ``check``'s verdict on it, and what the optimum would move from here.

Guarantee: :attr:`CapturedVerdict.verdict` is exactly the verdict ``assignment-oracle check SCENARIO
CANDIDATE`` gives on the written files (the same judge, request and time limit); the moves are those of
the optimum *from the group's current assignment* -- the scenario with every member owning what it holds
now -- so "Y partitions would move" counts what the next rebalance to the optimum changes, whatever the
captured assignor read as owned (an eager assignor's members own nothing when they join).  For a consumer
group, :attr:`CapturedVerdict.recommendation` is the report's verdict on this one group: every assignor a
consumer can be configured with (:mod:`compare.judge.configuration`) run from the current assignment, the
same :func:`~compare.judge.configuration.choose` rule as the report's verdict row, and what the chosen one
would change: "configure X; Y partitions would move; busiest member -Z%".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assignment_oracle.compare.capture.group import Capture
from assignment_oracle.compare.judge import judge, kind_of
from assignment_oracle.compare.judge.configuration import Choice, Measured, choose, configuration
from assignment_oracle.compare.judge.verdict import Verdict
from assignment_oracle.optimal import OPTIMAL, solve
from assignment_oracle.problem.kinds import kind_of_scenario
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.problem.text import printable

__all__ = ["CapturedVerdict", "Moves", "Recommendation", "judge_capture", "from_here"]


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
class Recommendation:
    """What to configure for a captured consumer group: the report's choice
    (:func:`compare.judge.configuration.choose`) among the assignors a consumer can be configured with,
    each run on the group from its current assignment, and what the chosen one would change."""

    choice: Choice
    #: Partitions the chosen assignor gives another member than now, of ``total``.
    moved: int
    total: int
    #: The busiest member's load now and under the chosen assignor.
    busiest_now: int
    busiest: int
    #: Every configurable assignor as measured (percent), for the JSON.
    measured: tuple[Measured, ...]

    @property
    def busiest_change_pct(self) -> float:
        return 0.0 if self.busiest_now == 0 else 100.0 * (self.busiest - self.busiest_now) / self.busiest_now

    def text(self) -> str:
        c = self.choice
        moved = f"{self.moved} partition{'' if self.moved == 1 else 's'}"
        change = (
            f"busiest member {self.busiest_change_pct:+.1f}% ({self.busiest_now} -> {self.busiest} partitions)"
            if self.busiest != self.busiest_now
            else f"busiest member unchanged ({self.busiest} partitions)"
        )
        return (
            f"configure {c.choose}: {c.configuration.text()}\n"
            f"  {moved} would move ({_share(self.moved, self.total)} of {self.total}); {change}\n"
            f"  why: {c.why}\n"
        )


def _share(part: int, total: int) -> str:
    return f"{100.0 * part / total:.1f}%" if total else "0%"


@dataclass(frozen=True)
class CapturedVerdict:
    """``check``'s verdict on a captured group, the optimum's moves from its current assignment, and (a
    consumer group) what to configure."""

    capture: Capture
    verdict: Verdict
    moves: Moves
    recommendation: Recommendation | None = None

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
        advice = self.recommendation.text() if self.recommendation is not None else ""
        return head + notes + self.verdict.text() + self.moves.text() + "\n" + advice

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
            "configure": None if self.recommendation is None else _recommendation_mapping(self.recommendation),
        }


def _recommendation_mapping(r: Recommendation) -> dict[str, Any]:
    c = r.choice
    return {
        "assignor": c.choose,
        "client": c.configuration.client,
        "setting": c.configuration.setting,
        "protocol": c.configuration.protocol,
        "why": c.why,
        "moved": r.moved,
        "total": r.total,
        "busiest_now": r.busiest_now,
        "busiest": r.busiest,
        "busiest_change_pct": round(r.busiest_change_pct, 1),
        "measured": [
            {
                "assignor": m.assignor,
                "valid": m.valid == 1.0,
                "busiest_over_ideal_pct": None if m.busiest_over_ideal is None else round(m.busiest_over_ideal, 1),
                "cross_rack_pct": None if m.cross_rack is None else round(m.cross_rack, 1),
                "moved_pct": None if m.moved is None else round(m.moved, 1),
            }
            for m in r.measured
        ],
    }


def judge_capture(capture: Capture, *, time_limit: float | None = None) -> CapturedVerdict:
    """``check``'s verdict on ``capture`` (its scenario's own objective, the kind's default time limit) and
    the optimum's moves from the current assignment."""
    problem = capture.problem()
    assignment = load_assignment(dict(capture.assignment), problem)
    kind = kind_of(problem)
    request = kind.request(problem, {"objective_text": None})
    limit = time_limit if time_limit is not None else kind.default_time_limit(problem, request, "auto")
    verdict = judge(problem, assignment, request, time_limit=limit)
    moves = _moves(capture, problem, assignment, limit)
    advice = _ADVICE[kind.name](capture, problem, assignment, moves) if kind.name in _ADVICE else None
    return CapturedVerdict(capture, verdict, moves, advice)


#: Seconds each configurable assignor may run on a captured group (a longer run counts as not valid).
ASSIGNOR_TIME_LIMIT = 60.0


def _recommend(capture: Capture, problem, assignment, moves: Moves) -> Recommendation | None:
    """The report's choice on this one group: every configurable port run from the current assignment,
    measured against the optimum from here (:class:`Moves`), then :func:`choose`."""
    from assignment_oracle.heuristics import ASSIGNORS, run
    from assignment_oracle.problem.errors import AssignorError
    from assignment_oracle.problem.metrics import cross_rack, load_vector, retained
    from assignment_oracle.problem.ownership import violations

    here = load_scenario(from_here(capture), max_partitions=None)
    owned = sum(len(ps) for topics in capture.assignment.values() for ps in topics.values())
    ideal = moves.busiest_optimum
    racks = here.rack_locality.active
    now_loads = load_vector(problem, assignment)
    measured: list[Measured] = []
    runs = {}
    for name in (n for n in ASSIGNORS if configuration(n) is not None):
        try:
            result = run(name, here, time_limit=ASSIGNOR_TIME_LIMIT).assignment
        except AssignorError:
            measured.append(Measured(name, valid=0.0))
            continue
        valid = not violations(here, result)
        loads = load_vector(here, result)
        runs[name] = (result, loads)
        measured.append(
            Measured(
                name,
                valid=1.0 if valid else 0.0,
                busiest_over_ideal=100.0 * (max(loads, default=0) - ideal) / ideal if ideal else 0.0,
                cross_rack=100.0 * cross_rack(here, result) / moves.total if racks and moves.total else None,
                moved=100.0 * (owned - retained(here, result)) / moves.total if moves.total else None,
            )
        )
    choice = choose(measured)
    if choice is None or choice.choose not in runs:
        return None
    result, loads = runs[choice.choose]
    return Recommendation(
        choice=choice,
        moved=owned - retained(here, result),
        total=moves.total,
        busiest_now=max(now_loads, default=0),
        busiest=max(loads, default=0),
        measured=tuple(measured),
    )


def from_here(capture: Capture) -> dict[str, Any]:
    """The captured scenario with every member holding what the candidate gives it now as its previous
    assignment (a consumer group's ``owned`` at generation 0): the kind's own feed-back (problem.kinds)."""
    group = kind_of_scenario(capture.scenario)
    scenario = {k: v for k, v in capture.scenario.items()}
    return group.fed_back(scenario, group.answer_members({"assignment": dict(capture.assignment)}), 0)


def _moves(capture: Capture, problem, assignment, limit: float | None) -> Moves:
    here = load_scenario(from_here(capture), max_partitions=None)
    kind = kind_of(here)
    request = kind.request(here, {"objective_text": None})
    solution = solve(
        here, request, time_limit=limit if limit is not None else kind.default_time_limit(here, request, "auto")
    )
    return _MOVES[kind.name](capture, problem, assignment, here, solution)


def _share_moves(capture: Capture, problem, assignment, here, solution) -> Moves:
    """Holdings: (member, partition); several members may share one."""
    best = solution.assignment
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
        proven=solution.status == OPTIMAL,
        unit="partition holdings",
    )


def _streams_moves(capture: Capture, problem, assignment, here, solution) -> Moves:
    """Active tasks: the ones the optimum gives a member it does not run now."""
    best = solution.assignment
    members = here.member_ids
    now = {m: set(assignment.active_of(m)) for m in members}
    then = {m: set(best.active_of(m)) if best is not None else now[m] for m in members}
    return Moves(
        moved=sum(len(then[m] - now[m]) for m in members),
        total=len(here.tasks),
        busiest_now=max((len(v) for v in now.values()), default=0),
        busiest_optimum=max((len(v) for v in then.values()), default=0),
        proven=solution.status == OPTIMAL,
        unit="active tasks",
    )


def _consumer_moves(capture: Capture, problem, assignment, here, solution) -> Moves:
    """Partitions: the optimum's moves from the owned ones."""
    from assignment_oracle.problem.metrics import load_vector

    best = solution.assignment
    now_loads = load_vector(problem, assignment)
    best_loads = load_vector(here, best) if best is not None else now_loads
    return Moves(
        moved=int(solution.moved) if best is not None and solution.moved is not None else 0,
        total=int(sum(best_loads)),
        busiest_now=max(now_loads, default=0),
        busiest_optimum=max(best_loads, default=0),
        proven=solution.status == OPTIMAL,
    )


#: The optimum's moves from here, by kind (problem.kinds).
_MOVES = {"consumer": _consumer_moves, "streams": _streams_moves, "share": _share_moves}
#: The report's advice on the group's configuration, by kind (a consumer group's configurable assignors).
_ADVICE = {"consumer": _recommend}
