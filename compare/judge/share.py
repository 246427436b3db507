"""Judging a share group's assignment (KIP-932) against the proven optimum: valid or not, each tier beside the
optimum's, and which of Kafka's ``SimpleAssignor`` promises hold.

:func:`judge` is the one entry point: pure (it reads the problem, the assignment and, when not given, solves
the optimum through :func:`assignment_oracle.optimal.solve`, the same front door as ``solve``) and returns
the one :class:`~assignment_oracle.compare.judge.verdict.Verdict` (kind ``share``):

* **validity** (:func:`~assignment_oracle.problem.share.violations`): members of the group, partitions that
  exist, of topics the member subscribes to, assignable, each at most once per member;
* **the tiers** of the request (:mod:`assignment_oracle.optimal.share_request`: ``coverage``, ``sharing``,
  ``balance``, ``stickiness`` in Kafka's order by default), each the assignment's value beside the
  optimum's, ``equal``, ``worse``, ``better`` (only possible where the assignment is invalid) or
  ``unknown``; the *gap* is the first tier where the assignment is worse with every tier before it equal,
  with the difference in numbers and the partitions and members involved (the partitions without a
  holder; the partitions off their target, with their holders and target; the members at or above the
  first load where the sorted loads differ; the pairs the optimum keeps and the assignment moved);
* **Kafka's promises** (``SimpleAssignor``'s and its builders' javadoc, apache/kafka d79bd50), each
  ``kept``, ``broken`` or ``not judged``, whatever the request (guarantees when an assignor is named, the
  promises it makes; plain findings about an assignment from a file): ``valid``; ``coverage`` (every assignable
  partition of a subscribed topic assigned); ``balance-within-one`` ("the difference in assignments sizes
  between any two members should not exceed one partition": over the members on a homogeneous group,
  per topic over its subscribers on a heterogeneous one, where Kafka's heterogeneous builder says balance
  is computed); ``sharing-at-desired`` (every target partition held by exactly Kafka's
  ``desiredSharing``, computed as Kafka's builder for the group computes it); ``sticky-at-equal-balance``
  ("minimize partition movements": as many pairs kept as the optimum when every tier before stickiness
  equals the optimum's; judged only then);
* the certificates: the optimum's (verified before it was returned) and, when one is given with the
  assignment, that one (:func:`assignment_oracle.optimal.share.verify`; exit 4 when it does not verify).

Verdicts: ``optimal`` (valid, equal on every tier, every tier proven), ``gap``, ``unknown``, ``invalid``;
exit codes as for the other kinds: 0 optimal, 1 a gap or unknown, 3 invalid, 4 optimal but the certificate
given does not verify.  A valid assignment better than the proven optimum is a bug in the oracle:
:class:`SolverError`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeAlias

import numpy as np

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
from assignment_oracle.optimal.share_request import ShareMeasures, ShareRequest, measure, sharing_targets
from assignment_oracle.optimal.solution import OPTIMAL
from assignment_oracle.problem.errors import AssignorError
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, violations
from assignment_oracle.problem.text import lines_text
from assignment_oracle.problem.tiers import BALANCE, COVERAGE, SHARING, STICKINESS

if TYPE_CHECKING:
    from assignment_oracle.optimal.share import ShareSolution

__all__ = [
    "GUARANTEES",
    "judge",
    "explanation_text",
    "solution_to_mapping",
    "kafka_balance",
    "ShareRow",
    "ShareComparison",
    "compare",
]

#: Kafka's ``SimpleAssignor``'s promises (its javadoc and its builders'), name -> claim.
GUARANTEES: dict[str, str] = {
    "valid": "only subscribed, assignable partitions, each at most once per member",
    "coverage": "every assignable partition of a subscribed topic is assigned",
    "balance-within-one": "the difference in assignment sizes between any two members does not exceed one partition "
    "(per topic on a heterogeneous group)",
    "sharing-at-desired": "every assignable partition is held by desiredSharing members (as Kafka computes it)",
    "sticky-at-equal-balance": "as few partitions moved as the optimum, given every tier before stickiness equal",
}

KIND = "share"
KEPT, BROKEN, NOT_JUDGED = "kept", "broken", "not judged"
_LIMIT = 50  # partitions or pairs listed in a tier line's ``involved``


def _name(problem: ShareProblem, j: int) -> str:
    topic, p = problem.partitions[j]
    return f"{topic}-{p}"


def _topic_slots(problem: ShareProblem) -> list[tuple[str, str]]:
    """(member, topic) of each per-topic load, in :func:`measure`'s order (members, then their topics that
    have assignable partitions)."""
    with_targets = {t for t in problem.topics if _has_targets(problem, t)}
    return [(m.member_id, t) for m in problem.members for t in m.topics if t in with_targets]


def _loads(problem: ShareProblem, measures: ShareMeasures, balance: str) -> dict[str, int]:
    """Who carries each load the balance tier reads: members, or ``member/topic`` under per-topic balance."""
    if balance == "member":
        return {m: int(n) for m, n in zip(problem.member_ids, measures.loads)}
    return {f"{m}/{t}": int(n) for (m, t), n in zip(_topic_slots(problem), measures.topic_loads)}


def _has_targets(problem: ShareProblem, topic: str) -> bool:
    start = problem.topic_offset[topic]
    return bool(problem.target_mask[start : start + problem.topics[topic]].any())


def kafka_balance(problem: ShareProblem, measures: ShareMeasures) -> tuple[int, str]:
    """The largest load difference Kafka's promise is about, and where: over the members on a homogeneous
    group; per topic over its subscribers on a heterogeneous one (the first worst topic named)."""
    if problem.is_homogeneous:
        if not measures.loads.size:
            return 0, "no members"
        return int(measures.loads.max() - measures.loads.min()), "members' loads"
    per_topic: dict[str, list[int]] = {}
    for (_, t), n in zip(_topic_slots(problem), measures.topic_loads.tolist()):
        per_topic.setdefault(t, []).append(n)
    worst, where = 0, "every topic"
    for t, loads in per_topic.items():
        if max(loads) - min(loads) > worst:
            worst, where = max(loads) - min(loads), f"topic {t}"
    return worst, where


def _holders_of(assignment: ShareAssignment) -> dict[tuple[str, int], list[str]]:
    out: dict[tuple[str, int], list[str]] = {}
    for member_id, parts in assignment.members.items():
        for tp in parts:
            out.setdefault(tp, []).append(member_id)
    return out


@dataclass(frozen=True)
class _Judged:
    """What a tier's difference is read from: the group, the assignment and the optimum's, their measures, and
    what the balance tier balances."""

    problem: ShareProblem
    assignment: ShareAssignment
    mine: ShareMeasures
    optimum: ShareAssignment
    best: ShareMeasures
    balance: str


def _coverage_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    mine, best = j.mine, j.best
    missing = np.flatnonzero(mine.target_mask & (mine.holders == 0))
    return (
        {"uncovered": mine.uncovered, "optimum_uncovered": best.uncovered, "more_by": mine.uncovered - best.uncovered},
        {"partitions": [_name(j.problem, p) for p in missing[:_LIMIT].tolist()], "count": int(missing.size)},
    )


def _sharing_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    mine, best = j.mine, j.best
    off = np.flatnonzero(mine.target_mask & (mine.holders != mine.targets))
    d = mine.deviations
    return (
        {
            "under_shared": mine.under_shared,
            "over_shared": mine.over_shared,
            "optimum_under_shared": best.under_shared,
            "optimum_over_shared": best.over_shared,
            "largest_deviation": int(d.max()) if d.size else 0,
            "optimum_largest_deviation": int(best.deviations.max()) if best.deviations.size else 0,
        },
        {
            "partitions": [
                {"partition": _name(j.problem, p), "holders": int(mine.holders[p]), "target": int(mine.targets[p])}
                for p in off[:_LIMIT].tolist()
            ],
            "count": int(off.size),
        },
    )


def _balance_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    mine, best = _loads(j.problem, j.mine, j.balance), _loads(j.problem, j.best, j.balance)
    return balance_difference(mine, list(best.values()))


def _stickiness_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    difference = {"kept_fewer_by": j.best.kept - j.mine.kept, "kept": j.mine.kept, "optimum_kept": j.best.kept}
    return difference, _stickiness_involved(j.problem, j.assignment, j.optimum)


def _stickiness_involved(problem: ShareProblem, assignment: ShareAssignment, optimum: ShareAssignment) -> dict:
    """(member, partition) pairs of the current assignment the optimum keeps and the assignment does not."""
    now = _holders_of(assignment)
    moved = []
    for m in problem.members:
        mine, best = set(assignment.of(m.member_id)), set(optimum.of(m.member_id))
        for tp in sorted(set(m.assigned) & best - mine):
            moved.append({"partition": f"{tp[0]}-{tp[1]}", "member": m.member_id, "now": sorted(now.get(tp, []))})
    return {"moved": moved[:_LIMIT], "count": len(moved)}


def _balance_note(line: TierLine) -> str:
    d = line.difference
    if d["largest_over_optimum"]:
        return f"largest load {d['largest']}, the optimum's {d['optimum_largest']}"
    return f"{d['members_at_level']} with {d['level']} or more, the optimum {d['optimum_members_at_level']}"


def _sharing_note(line: TierLine) -> str:
    d = line.difference
    return (
        f"{d['under_shared']} partition(s) under-shared and {d['over_shared']} over-shared, the optimum "
        f"{d['optimum_under_shared']} and {d['optimum_over_shared']}"
    )


def _listed(title: str, said: Callable[[Any], str], key: str = "partitions") -> Callable[[TierLine, int], list[str]]:
    """An explanation's lines for a tier: ``title``, then each item of ``involved[key]`` as ``said`` says it."""

    def involved(line: TierLine, limit: int) -> list[str]:
        return [title, *(f"  {said(item)}" for item in line.involved[key][:limit])]

    return involved


def _balance_involved(line: TierLine, limit: int) -> list[str]:
    inv = line.involved
    members = list(inv["members"].items())
    out = [f"members with {inv['level']} or more (the optimum has {inv['optimum_members']} such):"]
    return out + [f"  {m}: {n}" for m, n in members[:limit]]


#: How each tier's difference is said (its record in :data:`problem.tiers.SHARE`, ``difference``).
WORDS: dict[str, TierWords] = {
    COVERAGE: TierWords(
        _coverage_difference,
        lambda line: (
            f"{line.difference['uncovered']} partition(s) without a holder, the optimum "
            f"{line.difference['optimum_uncovered']}"
        ),
        _listed("partitions without a holder:", str),
    ),
    SHARING: TierWords(
        _sharing_difference,
        _sharing_note,
        _listed(
            "partitions off their target (holders, target):",
            lambda p: f"{p['partition']}: {p['holders']} (target {p['target']})",
        ),
    ),
    BALANCE: TierWords(_balance_difference, _balance_note, _balance_involved),
    STICKINESS: TierWords(
        _stickiness_difference,
        lambda line: f"{line.difference['kept_fewer_by']} fewer pair(s) kept",
        _listed(
            "pairs the optimum keeps and the assignment moved:",
            lambda i: f"{i['partition']} on {i['member']} (now on {', '.join(i['now']) or 'nobody'})",
            "moved",
        ),
    ),
}


# -- the entry point -----------------------------------------------------------------------------------------


def judge(
    problem: ShareProblem,
    assignment: ShareAssignment,
    request: ShareRequest | None = None,
    *,
    optimum: ShareSolution | None = None,
    assignor=None,
    certificate=None,
    **_,
) -> Verdict:
    """``assignment`` against the optimum of ``request`` on ``problem`` (a
    :class:`~assignment_oracle.optimal.share_request.ShareRequest`; ``None``: Kafka's order and definitions),
    solved through :func:`assignment_oracle.optimal.solve` when ``optimum`` is not given; ``assignor`` labels
    the verdict; ``certificate`` (a :class:`~assignment_oracle.optimal.share.ShareCertificate` given with the
    assignment) is verified.  Returns the one :class:`~assignment_oracle.compare.judge.verdict.Verdict`
    (module docstring)."""
    if optimum is None:
        from assignment_oracle.optimal import solve

        optimum = solve(problem, request)
    request = optimum.request
    balance = request.balance
    found = violations(problem, assignment)
    valid = not found
    mine = measure(problem, assignment, request)
    order = tuple(optimum.objective_order)
    best = optimum.measures if optimum.assignment is not None else None
    proven = {t.tier: bool(t.proven) for t in optimum.tiers}
    records = [
        (t, None if best is None else best.value(t, balance), best is not None and proven.get(t, False)) for t in order
    ]
    judged = None if best is None else _Judged(problem, assignment, mine, optimum.assignment, best, balance)
    lines, gap, optimal = judge_tiers(
        KIND,
        records,
        {t: mine.value(t, balance) for t in order},
        valid=valid,
        trusted=valid and optimum.status == OPTIMAL,
        who="a valid share assignment",
        describe=lambda line: described(KIND, WORDS, judged, line),
    )
    status = status_of(valid=valid, gap=gap, optimal=optimal and optimum.status == OPTIMAL)
    role = "guarantee" if assignor is not None else "finding"
    findings = [
        *_certificates(problem, assignment, request, optimum, certificate),
        *_guarantees(problem, found, mine, lines, order, role),
    ]
    spread, where = kafka_balance(problem, mine)
    return verdict_of(
        KIND,
        optimum,
        found,
        lines,
        gap,
        status,
        assignor=assignor,
        findings=tuple(findings),
        owned=mine.owned,
        request=request.to_mapping(problem),
        measures={
            "loads": {m: int(n) for m, n in zip(problem.member_ids, mine.loads)},
            "pairs": mine.pairs,
            "target_partitions": int(mine.target_mask.sum()),
            "uncovered": mine.uncovered,
            "under_shared": mine.under_shared,
            "over_shared": mine.over_shared,
            "largest_deviation": int(mine.deviations.max()) if mine.deviations.size else 0,
            "load_spread": int(mine.loads.max() - mine.loads.min()) if mine.loads.size else 0,
            "kafka_balance_spread": spread,
            "kafka_balance_where": where,
            "kept": mine.kept,
            "owned": mine.owned,
            **{f"optimum_{name}": None if best is None else getattr(best, name) for name in ("kept", "pairs")},
        },
    )


def _certificates(problem, assignment, request, optimum, certificate) -> list[Finding]:
    out = []
    if optimum.certificate is not None:  # verified by optimal.share.solve before it returned
        out.append(Finding("oracle-certificate", True, "the optimum's certificate verifies"))
    if certificate is not None:
        from assignment_oracle.optimal.share import ShareCertificate, verify

        if not isinstance(certificate, ShareCertificate):
            out.append(Finding("certificate", False, "the certificate given is not a share group's"))
        else:
            reasons = verify(problem, assignment, certificate, request)
            said = "verifies: the assignment is proven optimal" if not reasons else f"does not verify: {reasons[0]}"
            out.append(Finding("certificate", not reasons, said, {"reasons": list(reasons)}))
    return out


def _guarantees(problem, found, mine: ShareMeasures, lines, order, role: str) -> list[Finding]:
    """Kafka's promises on the assignment, each a finding (``holds``: kept True, broken False, not judged None);
    ``role`` ``guarantee`` when an assignor is named (its promises), else ``finding``."""

    def _guarantee(name: str, status: str, detail: str = "", data: dict | None = None) -> Finding:
        holds = {KEPT: True, BROKEN: False, NOT_JUDGED: None}[status]
        summary = status + (f" ({detail})" if detail else "")
        claim = {"claim": GUARANTEES[name], "status": status, "detail": detail, **(data or {})}
        return Finding(name, holds, summary, claim, role=role)

    kinds = Counter(v.kind for v in found)
    out = []
    if role == "guarantee":  # an assignor's promise; about a file, the validity line says it
        detail = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(kinds.items())) if found else ""
        out.append(_guarantee("valid", BROKEN if found else KEPT, detail))
    out.append(
        _guarantee("coverage", BROKEN, f"{mine.uncovered} assignable partition(s) without a holder")
        if mine.uncovered
        else _guarantee("coverage", KEPT)
    )
    spread, where = kafka_balance(problem, mine)
    out.append(
        _guarantee("balance-within-one", BROKEN, f"{where} differ by {spread}", {"spread": spread, "where": where})
        if spread > 1
        else _guarantee("balance-within-one", KEPT, "", {"spread": spread, "where": where})
    )
    targets = sharing_targets(problem, "kafka")
    mask = problem.target_mask
    under = int((mine.holders[mask] < targets[mask]).sum())
    over = int((mine.holders[mask] > targets[mask]).sum())
    out.append(
        _guarantee(
            "sharing-at-desired",
            BROKEN if under or over else KEPT,
            f"{under} partition(s) under-shared, {over} over-shared" if under or over else "",
            {"under_shared": under, "over_shared": over},
        )
    )
    by_tier = {t.tier: t for t in lines}
    sticky = by_tier.get(STICKINESS)
    before = [by_tier[t] for t in order[: order.index(STICKINESS)]] if STICKINESS in order else []
    if sticky is None or sticky.comparison == "unknown":
        out.append(_guarantee("sticky-at-equal-balance", NOT_JUDGED, "no optimum to compare with"))
    elif any(t.comparison != "equal" for t in before):
        out.append(
            _guarantee(
                "sticky-at-equal-balance",
                NOT_JUDGED,
                "a tier before stickiness differs from the optimum's: not comparable",
            )
        )
    elif sticky.comparison == "worse":
        out.append(_guarantee("sticky-at-equal-balance", BROKEN, sticky.note))
    else:
        out.append(_guarantee("sticky-at-equal-balance", KEPT))
    return out


def explanation_text(verdict: Verdict, *, limit: int = 20) -> str:
    """What the assignment did that the optimum did not: the gap tier, its numbers, the partitions and
    members involved (at most ``limit`` of each), then Kafka's promises broken."""
    who = verdict.assignor or "the assignment"
    if verdict.status == "invalid":
        return lines_text([f"{who} is not valid:", *(f"  {v}" for v in verdict.violations[:limit])])
    lines = []
    gap = verdict.gap
    if gap is None:
        if verdict.status == "optimal":
            lines.append(f"{who} is optimal on every tier ({', '.join(verdict.objective_order)})")
        else:
            lines.append(f"{who}: no gap found (verdict {verdict.status})")
    else:
        lines.append(
            f"{who} is worse than the optimum first at the {gap.tier} tier: {short_value(gap.value)} against "
            f"{short_value(gap.optimum)} ({gap.note})"
        )
        lines += _involved_lines(gap, limit)
    broken = [g for g in verdict.guarantees if g.holds is False]
    for g in broken:
        lines.append(f"Kafka's promise {g.name} broken: {g.summary.removeprefix('broken').strip(' ()')}")
    return lines_text(lines)


def _involved_lines(line: TierLine, limit: int) -> list[str]:
    """What is involved in a gap, at most ``limit`` items, then how many in all when there are more."""
    out = words_for(KIND, line.tier, WORDS).involved(line, limit)
    count = line.involved.get("count", len(line.involved.get("members", {})))
    if count > limit:
        out.append(f"  … {count} in all")
    return out


# -- what the command line shows: the solution, one row per assignor -------------------------------------


def solution_to_mapping(solution, *, timing: bool = False) -> dict:
    """The solution as JSON: its own (:meth:`~assignment_oracle.optimal.share.ShareSolution.to_mapping`)."""
    return solution.to_mapping(timing=timing)


#: One assignor run on a share group (the one row type of every kind, :class:`~compare.judge.verdict.AssignorRow`).
ShareRow: TypeAlias = AssignorRow


@dataclass(frozen=True)
class ShareComparison(Comparison):
    """Assignors on one share group, each judged against the same optimum."""

    kind = KIND
    problem: ShareProblem
    optimum: ShareSolution
    rows: tuple[ShareRow, ...]
    solution_mapping = staticmethod(solution_to_mapping)

    def header(self) -> tuple[str, ...]:
        return (
            "assignor",
            "status",
            "verdict",
            "uncovered",
            "under/over-shared",
            "loads max-min",
            "kept/owned",
            "guarantees broken",
        )

    def optimum_cells(self, best) -> tuple[str, ...]:
        spread = int(best.loads.max() - best.loads.min()) if best.loads.size else 0
        return (
            str(best.uncovered),
            f"{best.under_shared}/{best.over_shared}",
            str(spread),
            f"{best.kept}/{best.owned}",
            "-",
        )

    def verdict_cells(self, v: Verdict) -> tuple[str, ...]:
        m = v.measures
        return (
            str(m["uncovered"]),
            f"{m['under_shared']}/{m['over_shared']}",
            str(m["load_spread"]),
            f"{m['kept']}/{m['owned']}",
            ", ".join(v.broken) or "none",
        )

    def title(self) -> str:
        p = self.problem
        targets = int(p.target_mask.sum())
        return (
            f"share group: {len(p.members)} members, {len(p.topics)} topic(s), {targets} assignable partition(s) "
            f"({'homogeneous' if p.is_homogeneous else 'heterogeneous'}); optimum {self.optimum.status}"
        )


def compare(
    problem: ShareProblem,
    assignors: Sequence[tuple[str, str]],
    *,
    optimum: ShareSolution | None = None,
    progress: Callable[[str], None] | None = None,
) -> ShareComparison:
    """Run each ``(name, iteration order)`` of :data:`heuristics.registry.SHARE_ASSIGNORS` on ``problem`` and
    judge it against one optimum (solved if not given).  An assignor that raises is a row with status
    ``error`` and its message (Kafka's ``NoSuchElementException``; Java's order without topic ids)."""
    from assignment_oracle.heuristics.registry import get_assignor

    optimum, rows = judged_rows(
        problem,
        assignors,
        optimum=optimum,
        entry=partial(get_assignor, kind=KIND),
        judge=judge,
        errors=(AssignorError, ValueError),
        progress=progress,
    )
    return ShareComparison(problem, optimum, rows)
