"""A consumer group's assignment against the optimum of the same request: the consumer kind of the one judge.

Guarantee: the verdict calls an assignment optimal only when the optimum of the very request it is
judged under (:func:`assignment_oracle.optimal.solve`, the same front door as ``solve``) is proven on
every tier and the assignment equals it on every tier; a valid assignment that beats a proven optimum
raises :class:`SolverError` (a bug in the oracle, never a verdict).

What is judged (docs/formats.md, "The verdict"):

* **valid under the constraints**: every partition of a subscribed topic once, to a subscriber
  (:func:`~assignment_oracle.problem.ownership.violations`); with join groups in the judged problem,
  every unit with one member (KIP-315); within the request's budget of moves;
* **each tier** of the request's order (``balance``, ``rack``, ``spread``, ``stickiness``;
  :mod:`optimal.request`) beside the optimum's, with the gap in numbers and the members and partitions
  involved;
* **the findings**, from :data:`FINDINGS`, the one table of which optimum each part is judged against:
  Kafka's local balance condition and the improving chain (KIP-54, KIP-341), the co-partitioned optimum
  (join groups set aside by the tiers, or KIP-315's stream-join assignor), the weighted optimum
  (weights set aside by the tiers), the most balanced assignment within a cooperative rebalance's own
  moves (KIP-429), the certificates; and the assignor's own guarantee (:mod:`compare.judge.guarantees`).

:data:`ROWS` is the request a row of ``compare``, ``simulate`` or a sweep is judged under: what every
assignor aims for, balance first on partition counts, join groups and weights set aside by the tiers
and judged by their findings against their own optima.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

from assignment_oracle.compare.judge import co_partition, moves, weighted
from assignment_oracle.compare.judge.balance import improving_chain, kafka_balance_violations
from assignment_oracle.compare.judge.guarantees import GuaranteeCheck, check_guarantee
from assignment_oracle.compare.judge.verdict import (
    INVALID,
    Finding,
    TierLine,
    TierWords,
    Verdict,
    balance_difference,
    described,
    judge_tiers,
    status_of,
)
from assignment_oracle.optimal import INFEASIBLE, Request, Solution, choose, measure, solve, verify
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.metrics import (
    kip54_balance_score,
    per_topic_spread,
    sorted_load_distance,
    spread,
    sum_of_squares,
)
from assignment_oracle.problem.model import BALANCE, RACK, SPREAD, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import owner_array, violations

__all__ = ["KIND", "ROWS", "FINDINGS", "JUDGE_TIME_LIMIT", "Family", "judge", "row_problem", "family_optimum"]

KIND = "consumer"
#: Seconds the staged CP-SAT optimum may take when judging without a limit given (weighted dec-min is NP-hard).
JUDGE_TIME_LIMIT = 60.0


class _Rows:
    """The request a row is judged under (module docstring); ``judge(problem, assignment, ROWS)``."""

    def __repr__(self) -> str:
        return "ROWS"


#: Judge as the assignors aim: balance first on partition counts; join groups and weights by their findings.
ROWS = _Rows()


def row_problem(problem: Problem) -> Problem:
    """The problem a row's tiers are judged on: balance first, partition counts, no co-partitioning."""
    problem = problem.balance_first_order()
    if problem.join_groups or problem.weights:
        return dataclasses.replace(problem, join_groups=(), weights=())
    return problem


@dataclass(frozen=True)
class Family:
    """One row of :data:`FINDINGS`: a finding, when it applies, the optimum it is judged against, and how."""

    name: str
    applies: Callable[[Problem, Problem, object], bool]  # (scenario, the tiers' problem, assignor)
    optimum: Callable[[Problem], object]  # the scenario -> its optimum (None: the judge solves what it needs)
    finding: Callable[..., Finding]  # (scenario, assignment, optimum, **context) -> Finding


def _co_partition_applies(scenario: Problem, tiers: Problem, assignor) -> bool:
    every = getattr(assignor, "guarantee", None) == "stream-join"
    return not tiers.join_groups and co_partition.co_partition_problem(scenario, every_topic=every) is not None


def _co_partition_finding(scenario: Problem, assignment: Assignment, optimum, *, assignor=None, **_) -> Finding:
    every = getattr(assignor, "guarantee", None) == "stream-join"
    grouped = co_partition.co_partition_problem(scenario, every_topic=every)
    if optimum is None:
        # Stream-join's claim on a scenario without join groups is judged on every sweep row: a shorter limit.
        limit = co_partition.JUDGE_TIME_LIMIT if scenario.join_groups else co_partition.CLAIM_TIME_LIMIT
        v = co_partition.judge(grouped, assignment, time_limit=limit)
    else:
        v = co_partition.judge(grouped, assignment, optimum)
    said = {True: "co-partitioned, most balanced and stickiest", None: "co-partitioned; optimality unknown"}
    summary = (
        f"not co-partitioned ({v.first_break})"
        if not v.co_partitioned
        else said.get(
            v.optimal,
            f"co-partitioned, with a gap: loads {list(v.sorted_loads)} against "
            f"{v.optimal_sorted_loads}, retained {v.retained} against {v.optimal_retained}",
        )
    )
    return Finding("co-partition", v.optimal, summary, v.to_mapping())


def _weighted_finding(scenario: Problem, assignment: Assignment, optimum, **_) -> Finding:
    if optimum is None:
        optimum = weighted.solve_weighted(scenario)
    v = weighted.judge(scenario, assignment, optimum)
    ratio = v.largest_ratio
    summary = (
        f"largest weighted load {v.largest}"
        + ("" if v.optimal_largest is None else f", the optimum's {v.optimal_largest}")
        + ("" if ratio is None else f" ({ratio:.3f}x)")
        + f"; {weighted._summary(v)}"
    )
    return Finding("weighted", v.optimal, summary, v.to_mapping())


def _moves_applies(scenario: Problem, tiers: Problem, assignor) -> bool:
    return getattr(assignor, "protocol", None) == "cooperative"


def _moves_finding(scenario: Problem, assignment: Assignment, optimum, *, counts_problem=None, **_) -> Finding:
    v = moves.judge(counts_problem or row_problem(scenario), assignment, optimum=optimum)
    dominated = v.dominated
    summary = (
        f"{v.moved} move(s) (at most {v.most_from_one_member} from one member) bought loads {list(v.sorted_loads)}"
        + (
            ""
            if v.best_sorted_loads is None
            else f"; within the same moves the best is {list(v.best_sorted_loads)} with {v.best_moved} move(s)"
        )
        + {True: ": dominated", False: "", None: " (not proven)"}[dominated]
    )
    return Finding("moves", None if dominated is None else not dominated, summary, v.to_mapping())


#: Which optimum each finding is judged against (the one table; ``judge`` and every row read it).
FINDINGS: tuple[Family, ...] = (
    Family(
        "co-partition",
        _co_partition_applies,
        lambda scenario: co_partition.solve_co_partitioned(scenario) if scenario.join_groups else None,
        _co_partition_finding,
    ),
    Family("weighted", lambda s, t, a: bool(s.weights) and not t.weights, weighted.solve_weighted, _weighted_finding),
    Family("moves", _moves_applies, lambda scenario: None, _moves_finding),
)


def family_optimum(name: str, scenario: Problem):
    """The optimum finding ``name`` of :data:`FINDINGS` is judged against on ``scenario`` (solved once for
    several rows by ``compare`` and the sweep)."""
    return next(f for f in FINDINGS if f.name == name).optimum(scenario)


# -- the tiers -----------------------------------------------------------------------------------------------


def _breaks(problem: Problem, request: Request, assignment: Assignment, found) -> tuple[list[str], list[dict]]:
    lines = [str(v) for v in found]
    details = [v.to_mapping() for v in found]
    if problem.join_groups:
        owner = {(t, p): m for m, topics in assignment.members.items() for t, ps in topics.items() for p in ps}
        counts = problem.partition_counts
        for group in problem.join_groups:
            for p in range(max(counts[t] for t in group)):
                holders = {owner.get((t, p)) for t in group if p < counts[t]} - {None}
                if len(holders) > 1:
                    said = f"join group {'+'.join(group)} partition {p} split between {', '.join(sorted(holders))}"
                    lines.append(said)
                    details.append({"kind": "join-group-split", "message": said})
    if request.limited:
        measures = measure(problem, assignment)
        budget = []
        if request.max_moves is not None and measures.moved > request.max_moves:
            budget.append(f"{measures.moved} moves, over the budget of {request.max_moves}")
        if request.max_moves_per_member is not None:
            for m, n in zip(problem.member_ids, measures.moved_from):
                if n > request.max_moves_per_member:
                    budget.append(
                        f"{n} of {m}'s partitions moved, over the per-member budget of {request.max_moves_per_member}"
                    )
        lines += budget
        details += [{"kind": "move-budget", "message": b} for b in budget]
    return lines, details


def _partition_name(problem: Problem, index: int) -> str:
    offsets = problem.partition_offsets
    topic = int(np.searchsorted(offsets, index, side="right")) - 1
    return f"{problem.topic_names[topic]}-{index - int(offsets[topic])}"


@dataclass(frozen=True)
class _Judged:
    """What a tier's difference is read from: the tiers' problem, the assignment, its measures, the optimum."""

    problem: Problem
    assignment: Assignment
    optimum: Solution
    mine: object
    claims: object


def _balance_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    best = [int(x) for x in j.optimum.measures.loads]
    return balance_difference(dict(zip(j.problem.member_ids, (int(x) for x in j.mine.loads))), best)


def _balance_note(line: TierLine) -> str:
    d = line.difference
    if d["largest_over_optimum"]:
        return f"largest load {d['largest']}, the optimum's {d['optimum_largest']}"
    return f"{d['members_at_level']} member(s) at {d['level']} or more, the optimum {d['optimum_members_at_level']}"


def _stickiness_difference(j: _Judged, line: TierLine) -> tuple[dict, dict]:
    problem = j.problem
    previous = j.claims.previous_owner_array
    now, _ = owner_array(problem, j.assignment)
    best, _ = owner_array(problem, j.optimum.assignment)
    lost = np.flatnonzero((previous >= 0) & (best == previous) & (now != previous))
    ids = problem.member_ids
    involved = {
        "partitions": [
            {
                "partition": _partition_name(problem, int(i)),
                "owner": ids[previous[i]],
                "now": ids[now[i]] if now[i] >= 0 else None,
            }
            for i in lost[:50]
        ],
        "count": int(lost.size),
    }
    return {"kept_fewer_by": int(line.optimum) - int(line.value)}, involved


def _stickiness_note(line: TierLine) -> str:
    partitions = line.involved["partitions"]
    return (
        f"{line.difference['kept_fewer_by']} fewer partitions kept; the optimum keeps "
        + ", ".join(f"{p['partition']} on {p['owner']}" for p in partitions[:3])
        + (" …" if line.involved["count"] > 3 else "")
    )


#: How each tier's difference is said (its record in :data:`problem.tiers.CONSUMER`, ``difference``).
WORDS: dict[str, TierWords] = {
    BALANCE: TierWords(_balance_difference, _balance_note),
    RACK: TierWords(
        lambda j, line: ({"cross_rack_over_by": int(line.value) - int(line.optimum)}, {}),
        lambda line: f"{line.difference['cross_rack_over_by']} more partitions read across racks",
    ),
    SPREAD: TierWords(
        lambda j, line: ({"over_by": int(line.value) - int(line.optimum)}, {}),
        lambda line: f"per-topic sum of squares {line.value}, the optimum's {line.optimum}",
    ),
    STICKINESS: TierWords(_stickiness_difference, _stickiness_note),
}


def _explained(judged: _Judged, line: TierLine) -> TierLine:
    """A tier line with its difference in numbers, the members and partitions involved, and a note (where the
    assignment differs from an optimum that has an answer)."""
    if line.comparison not in ("worse", "better") or judged.optimum.assignment is None:
        return line
    return described(KIND, WORDS, judged, line)


# -- the judge -----------------------------------------------------------------------------------------------


def judge(
    problem: Problem,
    assignment: Assignment,
    request=None,
    *,
    optimum: Solution | None = None,
    assignor=None,
    certificate=None,
    method: str = "auto",
    time_limit: float | None = None,
    optima: dict | None = None,
    rounds=None,
) -> Verdict:
    """``assignment`` against the optimum of ``request`` on ``problem`` (module docstring).

    ``request``: an :class:`optimal.Request` (``None``: the scenario's own objective, dec-min) or
    :data:`ROWS`.  ``optimum``, if given, is the optimum of that request on the tiers' problem (reused by
    callers judging several assignments); ``optima`` the same for :data:`FINDINGS` by name.  ``assignor``
    (a registered :class:`heuristics.Assignor` or its name) adds its guarantee and the findings about it;
    ``rounds`` are a cooperative assignor's rebalances (its guarantee covers each).  ``certificate``, one
    that came with the assignment (``solve`` writes one), is verified.
    """
    from assignment_oracle.heuristics import get_assignor

    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    scenario = problem
    if request is ROWS:
        problem = row_problem(scenario)
        request = Request(objective=problem.objective)
    elif request is None:
        request = Request()
    order = request.tiers(problem)
    if optimum is None:
        limit = time_limit
        if limit is None and choose(problem, request, method).name == "cpsat-staged":
            limit = JUDGE_TIME_LIMIT
        optimum = solve(problem, request, method=method, time_limit=limit)
    network = getattr(optimum, "network", None)  # the flow's claims, resolved once for every row judged on it
    claims = network.claims if network is not None else resolve_claims(problem)
    found = violations(problem, assignment)
    breaks, details = _breaks(problem, request, assignment, found)
    valid = not breaks
    mine = measure(problem, assignment, claims)
    owned = mine.owned
    base = dict(
        kind="consumer",
        objective_order=order,
        optimum_status=optimum.status,
        optimum_message=optimum.message,
        owned=owned,
        assignor=getattr(assignor, "name", None),
        request=request.to_mapping(problem),
        violations=tuple(breaks),
        violation_details=tuple(details),
    )
    if optimum.status == INFEASIBLE:
        breaks = breaks or ["no assignment meets the constraints"]
        return Verdict(status=INVALID, valid=False, tiers=(), **{**base, "violations": tuple(breaks)})

    records = [(t.tier, t.value, t.proven) for t in optimum.tiers]
    values = {t: mine.value(t, request.balance) for t, _, _ in records}
    judged = _Judged(problem, assignment, optimum, mine, claims)
    lines, gap, optimal = judge_tiers(
        KIND,
        records,
        values,
        valid=valid,
        trusted=valid,
        describe=lambda line: _explained(judged, line),
        mark_unproven=True,
    )
    status = status_of(valid=valid, gap=gap, optimal=optimal)

    findings: list[Finding] = []
    balance_optimum = _balance_optimum(problem, request, optimum, method)
    measures = _measures(problem, assignment, mine, optimum, balance_optimum, valid and not found)
    if not found:  # the local condition and chains are about a valid assignment
        findings += _balance_findings(problem, assignment, measures)
    findings += _certificate_findings(problem, assignment, optimum, certificate)
    given = optima or {}
    for family in FINDINGS:
        if family.applies(scenario, problem, assignor):
            if family.name == "moves" and not (valid and owned):
                continue  # nothing moved, or nothing to judge: no finding
            findings.append(
                family.finding(
                    scenario,
                    assignment,
                    given.get(family.name),
                    assignor=assignor,
                    counts_problem=row_problem(scenario) if family.name == "moves" else None,
                )
            )
    if assignor is not None:
        findings.append(_guarantee(assignor, problem, assignment, balance_optimum, rounds))
    return Verdict(
        status=status,
        valid=valid,
        tiers=tuple(lines),
        gap_tier=gap,
        findings=tuple(findings),
        measures=measures,
        **base,
    )


def _balance_optimum(problem: Problem, request: Request, optimum: Solution, method: str) -> Solution | None:
    """The globally most balanced loads on partition counts (the balance-first flow's), which Kafka's
    promises and the improving chain are about: the optimum itself when it is that, else solved."""
    counts = row_problem(problem)
    if (
        optimum.assignment is not None
        and not problem.weights
        and not problem.join_groups
        and request.tiers(problem)[0] == BALANCE
        and not request.limited
        and optimum.status == "OPTIMAL"
    ):
        return optimum
    return solve(counts, Request(objective=counts.objective))


def _measures(problem: Problem, assignment: Assignment, mine, optimum: Solution, best: Solution | None, valid: bool):
    """The plain numbers a row's columns read (docs/sweeps.md): counts, whatever the balance definition."""
    counts = [int(x) for x in mine.counts]
    ordered = sorted(counts, reverse=True)
    target = list(best.sorted_loads) if best is not None and best.assignment is not None else None
    theirs = optimum.measures if optimum.assignment is not None else None
    per_topic = per_topic_spread(problem, assignment)
    return {
        "loads": dict(zip(problem.member_ids, counts)),
        "sorted_loads": ordered,
        "optimal_sorted_loads": target,
        "most_balanced": (ordered == target) if valid and target is not None else None,
        "balance_moves": sorted_load_distance(counts, target) if valid and target is not None else None,
        "kip54_score": kip54_balance_score(counts),
        "optimal_kip54_score": None if target is None else kip54_balance_score(target),
        "spread": spread(counts),
        "optimal_spread": None if target is None else spread(target),
        "sum_of_squares": sum_of_squares(counts),
        "optimal_sum_of_squares": None if target is None else sum_of_squares(target),
        "retained": mine.kept,
        "optimal_retained": None if theirs is None else theirs.kept,
        "owned": mine.owned,
        "moved": mine.moved,
        "optimal_moved": None if theirs is None else theirs.moved,
        "cross_rack": mine.cross_rack,
        "optimal_cross_rack": None if theirs is None else theirs.cross_rack,
        "racks": problem.rack_locality.active,
        "per_topic_spread": per_topic,
        "max_topic_spread": max(per_topic.values(), default=0),
    }


def _balance_findings(problem: Problem, assignment: Assignment, measures: dict) -> list[Finding]:
    breaches = kafka_balance_violations(problem, assignment)
    shown = ", ".join(str(m) for m in breaches[:3]) + (f" (+{len(breaches) - 3} more)" if len(breaches) > 3 else "")
    out = [
        Finding(
            "kafka-local-condition",
            not breaches,
            "holds" if not breaches else f"broken: could move {shown}",
            {"breaches": [m.to_mapping() for m in breaches]},
        )
    ]
    if measures["most_balanced"] is False:  # not most balanced: an improving chain exists (M-convexity)
        chain = improving_chain(problem, assignment)
        if chain is not None:
            out.append(
                Finding(
                    "improving-chain",
                    False,
                    " → ".join([str(chain[0])] + [str(m) for m in chain[1:]]) if chain else "",
                    {"moves": [m.to_mapping() for m in chain]},
                )
            )
    return out


def _certificate_findings(problem: Problem, assignment: Assignment, optimum: Solution, certificate) -> list[Finding]:
    out = []
    if optimum.certificate is not None:
        problems = verify(problem, optimum.assignment, optimum.certificate, optimum.network)
        out.append(
            Finding(
                "oracle-certificate",
                not problems,
                "the optimum's certificate verifies" if not problems else f"does not verify: {problems[0]}",
                {"problems": list(problems)},
            )
        )
    if certificate is not None:
        network = optimum.network
        if network is None:
            problems = ["no network: the optimum's engine gives no certificate to check against"]
        else:
            problems = verify(problem, assignment, certificate, network)
        out.append(
            Finding(
                "certificate",
                not problems,
                "the certificate given verifies: the assignment is optimal"
                if not problems
                else f"the certificate given does not verify: {problems[0]}",
                {"problems": list(problems)},
            )
        )
    return out


def _guarantee(assignor, problem: Problem, assignment: Assignment, best: Solution | None, rounds) -> Finding:
    check: GuaranteeCheck = check_guarantee(
        assignor.guarantee,
        problem,
        assignment,
        optimal_sorted_loads=None if best is None else tuple(best.sorted_loads),
        rounds=rounds,
    )
    return guarantee_finding(check)


def guarantee_finding(check: GuaranteeCheck) -> Finding:
    """An assignor's guarantee (:class:`compare.judge.guarantees.GuaranteeCheck`) as a finding."""
    if not check.applies:
        summary = "does not apply here (kept vacuously)"
    else:
        summary = "kept" if check.kept else f"broken: {check.reason}"
    return Finding(f"guarantee:{check.guarantee}", check.kept, summary, check.to_mapping(), role="guarantee")
