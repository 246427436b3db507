# Frozen copy of compare/judge/tiers.py at commit 71d9755 (before issue 39, the one judge): the verdicts the project
# gave until then, kept as the reference tests/compare/test_judge.py compares the one judge with.  Not library code.
"""Judging an assignment against the optimum of the same request, tier by tier.

Guarantee: the verdict never calls an assignment optimal unless the optimum of the very request it
is judged under (:func:`assignment_oracle.optimal.solve`, the same front door as ``solve``) is
proven on every tier and the assignment equals it on every tier; a gap is named at the first tier
where the assignment is worse than an answer the oracle holds (a gap needs no proof: the optimum's
answer is itself a valid assignment that is better there and equal before).

What is judged (docs/formats.md, "check"):

* **valid under the constraints**: every partition of a subscribed topic once, to a subscriber
  (:func:`~assignment_oracle.problem.ownership.violations`); with join groups every unit with one
  member (KIP-315's co-partitioning); within the budget of moves, in all and per member;
* then each tier in the request's order: ``balance`` (by the request's definition, over weighted
  loads when the scenario has weights), ``rack``, ``spread``, ``stickiness``, the assignment's value
  beside the optimum's, ``equal``, ``worse`` (the gap), ``better`` (only possible where the optimum
  was not proven: then ``unknown``) or ``unknown`` (equal so far, but the optimum's tier not proven).

An optimum that is ``INFEASIBLE`` (a join-group unit no member can take, a budget no assignment
keeps) makes every assignment invalid under the request: the verdict says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assignment_oracle.optimal import INFEASIBLE, Request, Solution, measure, solve
from assignment_oracle.optimal.request import tier_key
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import violations
from assignment_oracle.problem.text import lines_text

__all__ = ["TierLine", "TierVerdict", "judge"]


@dataclass(frozen=True)
class TierLine:
    tier: str
    value: object
    optimum: object
    proven: bool
    comparison: str  # equal, worse, better, unknown

    def to_mapping(self) -> dict:
        return {
            "tier": self.tier,
            "value": self.value,
            "optimum": self.optimum,
            "optimum_proven": self.proven,
            "comparison": self.comparison,
        }


@dataclass(frozen=True)
class TierVerdict:
    """One assignment against the optimum of one request (module docstring)."""

    request: Request
    objective_order: tuple[str, ...]
    optimum_status: str
    valid: bool
    breaks: tuple[str, ...] = ()
    tiers: tuple[TierLine, ...] = ()
    verdict: str = ""  # optimal, gap, unknown, invalid
    gap_tier: str | None = None
    message: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def optimal(self) -> bool:
        return self.verdict == "optimal"

    def exit_code(self) -> int:
        """0 optimal on every tier, 1 a gap or unknown, 3 not valid under the constraints."""
        return {"optimal": 0, "invalid": 3}.get(self.verdict, 1)

    def to_mapping(self) -> dict:
        return {
            "verdict": self.verdict,
            "valid": self.valid,
            "breaks": list(self.breaks),
            "objective_order": list(self.objective_order),
            "balance_definition": self.request.balance,
            "max_moves": self.request.max_moves,
            "max_moves_per_member": self.request.max_moves_per_member,
            "optimum_status": self.optimum_status,
            "gap_tier": self.gap_tier,
            "message": self.message,
            "tiers": [t.to_mapping() for t in self.tiers],
            **self.extra,
        }

    def text(self) -> str:
        lines = [
            f"objective: {', '.join(self.objective_order)} (balance: {self.request.balance}"
            + (f"; at most {self.request.max_moves} moves" if self.request.max_moves is not None else "")
            + (
                f"; at most {self.request.max_moves_per_member} from any member"
                if self.request.max_moves_per_member is not None
                else ""
            )
            + ")"
        ]
        if self.optimum_status == INFEASIBLE:
            lines.append(f"optimum: INFEASIBLE ({self.message})")
        lines.append(
            "valid under the constraints: "
            + (
                "yes"
                if self.valid
                else "no: "
                + "; ".join(self.breaks[:3])
                + (f" (+{len(self.breaks) - 3} more)" if len(self.breaks) > 3 else "")
            )
        )
        for line in self.tiers:
            mark = {"equal": "=", "worse": "worse than", "better": "better than", "unknown": "?"}[line.comparison]
            proof = "" if line.proven else " (not proven)"
            lines.append(f"{line.tier}: {_short(line.value)} {mark} optimum {_short(line.optimum)}{proof}")
        said = {
            "optimal": "optimal on every tier",
            "gap": f"a gap at the {self.gap_tier} tier",
            "unknown": "unknown (the optimum was not proven on every tier in time)",
            "invalid": "not valid under the constraints",
        }[self.verdict]
        lines.append(f"verdict: {said} (exit {self.exit_code()})")
        return lines_text(lines)


def _short(value) -> str:
    if isinstance(value, list) and len(value) > 12:
        return f"[{', '.join(str(x) for x in value[:6])}, … {len(value)} values, … {value[-1]}]"
    return str(value)


def _breaks(problem: Problem, request: Request, assignment: Assignment) -> list[str]:
    found = [str(v) for v in violations(problem, assignment)]
    owner = {(t, p): m for m, topics in assignment.members.items() for t, ps in topics.items() for p in ps}
    counts = problem.partition_counts
    for group in problem.join_groups:
        for p in range(max(counts[t] for t in group)):
            holders = {owner.get((t, p)) for t in group if p < counts[t]} - {None}
            if len(holders) > 1:
                found.append(f"join group {'+'.join(group)} partition {p} split between {', '.join(sorted(holders))}")
    if request.limited:
        measures = measure(problem, assignment)
        if request.max_moves is not None and measures.moved > request.max_moves:
            found.append(f"{measures.moved} moves, over the budget of {request.max_moves}")
        if request.max_moves_per_member is not None:
            for m, n in zip(problem.member_ids, measures.moved_from):
                if n > request.max_moves_per_member:
                    found.append(
                        f"{n} of {m}'s partitions moved, over the per-member budget of {request.max_moves_per_member}"
                    )
    return found


def judge(
    problem: Problem,
    assignment: Assignment,
    request: Request | None = None,
    *,
    optimum: Solution | None = None,
    method: str = "auto",
    time_limit: float | None = None,
) -> TierVerdict:
    """``assignment`` against the optimum of ``request`` on ``problem`` (computed if not given)."""
    request = Request() if request is None else request
    order = request.tiers(problem)
    if optimum is None:
        optimum = solve(problem, request, method=method, time_limit=time_limit)
    breaks = tuple(_breaks(problem, request, assignment))
    if optimum.status == INFEASIBLE:
        return TierVerdict(
            request,
            order,
            optimum.status,
            False,
            breaks or ("no assignment meets the constraints",),
            (),
            "invalid",
            None,
            optimum.message,
        )
    measures = measure(problem, assignment, resolve_claims(problem))
    lines: list[TierLine] = []
    verdict, gap = None, None
    for record in optimum.tiers:
        value = measures.value(record.tier, request.balance)
        if record.value is None:  # no answer from the optimum (UNKNOWN): nothing to compare with
            lines.append(TierLine(record.tier, value, None, False, "unknown"))
            verdict = verdict or "unknown"
            continue
        mine, best = tier_key(record.tier, value), tier_key(record.tier, record.value)
        comparison = "equal" if mine == best else ("worse" if mine > best else "better")
        if verdict is None and comparison == "worse":
            # The optimum's answer is equal on every tier before and better here: a gap, proven or not.
            verdict, gap = "gap", record.tier
        elif verdict is None and comparison == "better":
            if record.proven and not breaks:
                raise SolverError(f"a valid assignment beats the proven optimum on the {record.tier} tier (a bug)")
            verdict = "unknown"
        elif comparison == "equal" and not record.proven and verdict is None:
            comparison = "unknown"
        lines.append(TierLine(record.tier, value, record.value, record.proven, comparison))
    if verdict is None:
        verdict = "optimal" if all(t.proven for t in optimum.tiers) and optimum.tiers else "unknown"
    if breaks:
        verdict, gap = "invalid", None
    return TierVerdict(request, order, optimum.status, not breaks, breaks, tuple(lines), verdict, gap, optimum.message)
