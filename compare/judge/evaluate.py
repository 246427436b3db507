"""Run assignors on a problem and judge each against the optimum: one row per assignor.

This is the unit every consumer shares (``assignment-oracle compare``, churn
simulation, sweeps, notebooks): :func:`evaluate` runs one registered assignor
(bounded in time if asked), and returns an :class:`Evaluation` with a status,
the :class:`~compare.judge.check.Verdict` (every metric against the optimum) and
the assignor's own guarantee; :func:`compare` does it for several assignors
with the optimum's row first, solving the problem once.

Status of a row:

``ok``
    the assignor returned a valid assignment;
``invalid``
    it returned an assignment that breaks validity (the verdict names how);
``timeout``
    it did not finish: its own loop bound
    (:class:`heuristics.AssignorDidNotFinish`) or the caller's time limit;
``error``
    it raised; the message is the exception's, in one line.

The assignor runs through the one runner, :func:`assignment_oracle.heuristics.run`
(:mod:`assignment_oracle.heuristics.runner`: a time-limited run is
interrupted at the limit, so a non-terminating assignor is reported, never
hung on), whose two errors become the ``timeout`` and ``error`` statuses.
Either way the row is the same (messages included); only failures of the
assignor become ``error`` rows, a failure of this harness raises.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable

from assignment_oracle.compare.judge import consumer
from assignment_oracle.compare.judge.co_partition import solve_co_partitioned
from assignment_oracle.compare.judge.guarantees import GuaranteeCheck, check_guarantee
from assignment_oracle.compare.judge.moves import unlimited, unlimited_of
from assignment_oracle.compare.judge.text import comparison_text, evaluation_line
from assignment_oracle.compare.judge.verdict import Verdict, fails
from assignment_oracle.compare.judge.weighted import solve_weighted
from assignment_oracle.heuristics import ASSIGNORS, Assignor, get_assignor, run
from assignment_oracle.heuristics.cooperative_sticky import Phase
from assignment_oracle.heuristics.registry import is_live
from assignment_oracle.optimal import Request, Solution, solve
from assignment_oracle.problem.errors import AssignorDidNotFinish, AssignorFailed, MissingExtra
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "OK",
    "INVALID",
    "TIMEOUT",
    "ERROR",
    "OPTIMUM",
    "CO_PARTITIONED_OPTIMUM",
    "WEIGHTED_OPTIMUM",
    "Evaluation",
    "Comparison",
    "evaluate",
    "compare",
    "optimum_evaluation",
    "row_optima",
]

OK, INVALID, TIMEOUT, ERROR = "ok", "invalid", "timeout", "error"
#: The name of the optimum's row.
OPTIMUM = "optimum"
#: The name of the co-partitioned optimum's row (scenarios with join groups).
CO_PARTITIONED_OPTIMUM = "optimum-co-partitioned"
#: The name of the weighted optimum's row (scenarios with partition weights).
WEIGHTED_OPTIMUM = "optimum-weighted"


@dataclass(frozen=True, eq=False)
class Evaluation:
    """One assignor on one problem.

    ``verdict`` and ``guarantee`` are ``None`` when the assignor produced no
    assignment (``timeout``, ``error``); ``rebalances`` is set for
    cooperative assignors (and 1 for the optimum, which is a target, not a
    protocol).
    """

    assignor: str
    status: str
    message: str = ""
    wall_time: float | None = None
    assignment: Assignment | None = None
    verdict: Verdict | None = None
    guarantee: GuaranteeCheck | None = None
    rebalances: int | None = None
    phases: tuple[Phase, ...] = field(default=())
    #: The problem the assignor was judged on, when it is not the one given: a live group
    #: (``librdkafka:*``) cannot be handed claims and is judged on its own previous generation.
    judged_problem: Problem | None = None
    judged_optimum: Solution | None = None
    #: Against the optimum of the request ``compare`` was given (the same judge, that request), if any.
    asked: Verdict | None = None

    def line(self) -> str:
        """One line: how this assignor did (``demo``; :func:`compare.judge.text.evaluation_line`)."""
        return evaluation_line(self)

    def _finding(self, name: str) -> dict | None:
        found = None if self.verdict is None else self.verdict.finding(name)
        return None if found is None else found.data

    @property
    def co_partition(self) -> dict | None:
        """The ``co-partition`` finding's numbers (against the co-partitioned optimum), if judged."""
        return self._finding("co-partition")

    @property
    def weighted(self) -> dict | None:
        """The ``weighted`` finding's numbers (against the weighted optimum), if judged."""
        return self._finding("weighted")

    @property
    def moves(self) -> dict | None:
        """The ``moves`` finding's numbers (against the most balanced within the same moves), if judged."""
        return self._finding("moves")

    def meets(self, condition: str) -> bool:
        """Whether this row meets a ``--fail-on`` condition (:data:`compare.judge.verdict.FAIL_ON`): no
        valid assignment (``invalid``, ``error``, ``timeout``); its guarantee broken; a gap on some tier."""
        if self.assignor.startswith("optimum"):
            return False
        broken = self.guarantee is not None and self.guarantee.applies and not self.guarantee.kept
        if self.verdict is None:
            return fails(condition, valid=False, broken=broken, gap=True)
        return fails(condition, valid=self.verdict.valid, broken=broken, gap=self.verdict.status in ("gap", "short"))

    def to_mapping(self, *, timing: bool = True) -> dict:
        """A flat row (the JSON of ``compare``, a sweep's Parquet row's metrics)."""
        v = self.verdict
        out: dict = {"assignor": self.assignor, "status": self.status, "message": self.message}
        if v is not None:
            m = v.measures
            out.update(
                valid=v.valid,
                verdict=v.status,
                gap_tier=v.gap_tier,
                violations=list(v.violation_details),
                loads=dict(m["loads"]),
                sorted_loads=list(m["sorted_loads"]),
                spread=m["spread"],
                optimal_spread=m["optimal_spread"],
                kip54_score=m["kip54_score"],
                optimal_kip54_score=m["optimal_kip54_score"],
                kip54_gap=(m["kip54_score"] - m["optimal_kip54_score"])
                if v.valid and m["optimal_kip54_score"] is not None
                else None,
                sum_of_squares=m["sum_of_squares"],
                optimal_sum_of_squares=m["optimal_sum_of_squares"],
                most_balanced=m["most_balanced"],
                balance_moves=m["balance_moves"],
                kafka_balance_condition=_holds(v.finding("kafka-local-condition")) if v.valid else None,
                retained=m["retained"],
                optimal_retained=m["optimal_retained"],
                owned=m["owned"],
                moved=m["moved"],
                optimal_moved=m["optimal_moved"],
                cross_rack=m["cross_rack"],
                optimal_cross_rack=m["optimal_cross_rack"],
                max_topic_spread=m["max_topic_spread"],
                per_topic_spread=dict(m["per_topic_spread"]),
                optimal_on_every_tier=v.optimal,
                tiers=[t.to_mapping() for t in v.tiers],
                findings=[f.to_mapping() for f in v.findings if f.role == "finding"],
            )
        if self.guarantee is not None:
            out["guarantee"] = self.guarantee.to_mapping()
        if self.rebalances is not None:
            out["rebalances"] = self.rebalances
        for name in ("co_partition", "weighted", "moves"):
            data = getattr(self, name)
            if data is not None:
                out[name] = dict(data)
        if self.asked is not None:
            out["request"] = self.asked.to_mapping()
        if timing:
            out["wall_time_s"] = None if self.wall_time is None else round(self.wall_time, 6)
        return out


def _holds(finding) -> bool | None:
    return None if finding is None else finding.holds


@dataclass(frozen=True, eq=False)
class Comparison:
    """Several assignors on one problem, the optimum's row first."""

    problem: Problem
    optimum: Solution
    rows: tuple[Evaluation, ...]
    #: The co-partitioned optimum, when the scenario has join groups (:func:`compare.judge.co_partition.solve_co_partitioned`).
    co_optimum: Solution | None = None
    #: The weighted optimum, when the scenario has partition weights (:func:`compare.judge.weighted.solve_weighted`).
    weighted_optimum: Solution | None = None
    #: The request ``compare`` was given and its optimum (every row has ``asked``), if any.
    request: Request | None = None
    request_optimum: Solution | None = None

    def text(self) -> str:
        """The table ``compare`` prints (:func:`compare.judge.text.comparison_text`)."""
        return comparison_text(self)

    def to_mapping(self, *, timing: bool = True) -> dict:
        out = {
            "members": len(self.problem.members),
            "partitions": self.problem.total_partitions,
            "rows": [row.to_mapping(timing=timing) for row in self.rows],
        }
        if self.request is not None and self.request_optimum is not None:
            out["request"] = {
                **self.request.to_mapping(self.problem),
                "optimum_status": self.request_optimum.status,
                "optimum_method": self.request_optimum.method,
                "optimum_message": self.request_optimum.message,
                "optimum_tiers": [
                    {"tier": t.tier, "value": t.value, "proven": t.proven} for t in self.request_optimum.tiers
                ],
            }
        return out


def evaluate(
    problem: Problem,
    assignor: str | Assignor,
    *,
    optimum: Solution | None = None,
    time_limit: float | None = None,
    isolation: str = "auto",
    keep_live: bool = False,
    optima: dict | None = None,
) -> Evaluation:
    """Run assignor ``name`` on ``problem`` and judge it (see the module docstring).

    Judged by the one judge under :data:`compare.judge.consumer.ROWS`: what every assignor aims for,
    balance first on partition counts, whatever objective order the scenario states; join groups,
    weights and a cooperative rebalance's moves are findings against their own optima
    (:data:`compare.judge.consumer.FINDINGS`).  ``optimum`` (the flow's, on the problem without join
    groups and weights) and ``optima`` (by finding name) are reused when given, so several assignors on
    one problem solve each optimum once.  A live peer's group (``librdkafka:*``) is stopped afterwards
    unless ``keep_live`` (a churn simulation plays its next round on it).
    """
    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    if is_live(assignor) and not keep_live:
        try:
            return evaluate(
                problem,
                assignor,
                optimum=optimum,
                time_limit=time_limit,
                isolation=isolation,
                keep_live=True,
                optima=optima,
            )
        finally:
            assignor.assign.close()  # nothing keeps running once the row is judged
    if optimum is None:
        optimum = solve(consumer.row_problem(problem))
    return _evaluate(problem, assignor, optimum, time_limit, isolation, dict(optima or {}))


def _evaluate(
    scenario: Problem, assignor: Assignor, optimum: Solution, time_limit: float | None, isolation: str, optima: dict
) -> Evaluation:
    """The assignor's row: run it, then the one judge (:data:`compare.judge.consumer.ROWS`)."""
    name = assignor.name
    problem = consumer.row_problem(scenario)
    note = ""
    try:
        if is_live(assignor):
            # A live group cannot be handed claims: it is brought to the previous generation (its own,
            # unless it already holds the problem's claims) and judged on the problem it really faces.
            peer = assignor.assign
            if time_limit is not None:
                peer.settle_limit = time_limit
            try:
                judged = peer.prepare(problem)
            except (AssignorDidNotFinish, MissingExtra):
                raise
            except Exception as err:  # a scenario the live group cannot run (a topic name Kafka refuses, ...)
                raise AssignorFailed(f"{type(err).__name__}: {err}") from None
            if judged != problem:
                problem, optimum = judged, solve(judged)
                note = "; the claims are its own live previous generation's"
                # its own previous generation, with the scenario's join groups and weights (judged apart)
                scenario = dataclasses.replace(judged, join_groups=scenario.join_groups, weights=scenario.weights)
                optima = {}
        result = run(assignor, problem, time_limit=time_limit, isolation=isolation)
    except AssignorDidNotFinish as err:
        message = _one_line(str(err))
        return Evaluation(name, TIMEOUT, message, guarantee=_undelivered(assignor, problem, optimum, message))
    except AssignorFailed as err:  # the assignor's crash is a finding; the harness's is a bug and propagates
        message = _one_line(str(err))
        return Evaluation(name, ERROR, message, guarantee=_undelivered(assignor, problem, optimum, message))
    assignment, phases = result.assignment, result.phases
    if "moves" not in optima and assignor.protocol == "cooperative":
        optima["moves"] = optimum
    verdict = consumer.judge(
        scenario,
        assignment,
        consumer.ROWS,
        optimum=optimum,
        assignor=assignor,
        optima=optima,
        rounds=[p.assignment for p in phases] or None,
    )
    message = ""
    if is_live(assignor):
        settled = assignor.assign.last
        message = (
            f"{assignor.assign.describe()}; {settled.rounds} rebalance round(s) observed, settled in "
            f"{settled.seconds:.2f} s"
            + (f"; {len(settled.handoffs)} handoff(s) seen live: {settled.handoffs[0]}" if settled.handoffs else "")
            + note
        )
    return Evaluation(
        assignor=name,
        status=OK if verdict.valid else INVALID,
        message=message,
        wall_time=result.wall_time,
        assignment=assignment,
        verdict=verdict,
        guarantee=_guarantee_check(verdict),
        rebalances=(assignor.assign.last.rounds if is_live(assignor) else len(phases)) if phases else None,
        phases=phases,
        judged_problem=problem if note else None,
        judged_optimum=optimum if note else None,
    )


def _guarantee_check(verdict: Verdict) -> GuaranteeCheck | None:
    found = verdict.guarantee
    if found is None:
        return None
    d = found.data
    return GuaranteeCheck(d["guarantee"], d["applies"], d["kept"], d["reason"])


def optimum_evaluation(
    scenario: Problem, optimum: Solution, solution: Solution | None = None, label: str = OPTIMUM, optima=None
) -> Evaluation:
    """An optimum's own row (``solution``: an optimum of another objective, the co-partitioned or weighted
    one; default ``optimum`` itself), judged like any assignment against ``optimum`` (the rows' optimum)."""
    solution = optimum if solution is None else solution
    verdict = consumer.judge(scenario, solution.assignment, consumer.ROWS, optimum=optimum, optima=optima)
    return Evaluation(
        assignor=label,
        status=OK,
        message="" if solution is optimum else solution.status + (f": {solution.message}" if solution.message else ""),
        wall_time=solution.wall_time,
        assignment=solution.assignment,
        verdict=verdict,
        rebalances=1,
    )


def row_optima(scenario: Problem, optimum: Solution, assignors=()) -> dict:
    """The optima of :data:`compare.judge.consumer.FINDINGS` a problem's rows are judged against, each
    solved once: the co-partitioned one (join groups), the weighted one (weights), and the unlimited
    optimum's moves for the cooperative assignors' ``moves`` finding."""
    optima: dict = {}
    if scenario.join_groups:
        optima["co-partition"] = solve_co_partitioned(scenario)
    if scenario.weights:
        optima["weighted"] = solve_weighted(scenario)
    if any(a.protocol == "cooperative" for a in assignors):
        plain = consumer.row_problem(scenario)
        optima["moves"] = unlimited(plain, optimum) or unlimited_of(plain)
    return optima


def compare(
    problem: Problem,
    names: list[str | Assignor] | tuple[str | Assignor, ...] | None = None,
    *,
    time_limit: float | None = None,
    request: Request | None = None,
    request_time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Comparison:
    """Every assignor in ``names`` (default: all registered) on ``problem``, the optimum first.

    ``progress``, if given, is called with the name of each step before it runs (``"optimum"``, each
    assignor, ``"request optimum"``): what a progress bar shows.  Nothing else depends on it.

    Every row is judged by the one judge under :data:`compare.judge.consumer.ROWS` (balance first, the
    order the assignors aim for), each optimum solved once.  With ``request`` (an objective order, a
    balance definition, a budget of moves: :class:`optimal.Request`) its optimum is solved once more,
    on the scenario as given (``request_time_limit`` bounds a CP-SAT engine), and every row is also
    judged against it (``asked``), as ``check`` does.
    """
    names = list(ASSIGNORS) if names is None else list(names)
    names = [get_assignor(n) if isinstance(n, str) else n for n in names]  # unknown names fail first
    step = progress or (lambda name: None)
    given = problem
    step(OPTIMUM)
    optimum = solve(consumer.row_problem(problem))
    optima = row_optima(problem, optimum, names)
    rows = [optimum_evaluation(problem, optimum, optima=optima)]
    co_optimum, heavy = optima.get("co-partition"), optima.get("weighted")
    for label, solution in ((CO_PARTITIONED_OPTIMUM, co_optimum), (WEIGHTED_OPTIMUM, heavy)):
        if solution is not None and solution.assignment is not None:
            rows.append(optimum_evaluation(problem, optimum, solution, label, optima=optima))
    for name in names:
        step(name.name)
        rows.append(evaluate(problem, name, optimum=optimum, time_limit=time_limit, optima=optima))
    asked = None
    if request is not None:
        step("request optimum")
        asked = solve(given, request, time_limit=request_time_limit)
        rows = [
            row
            if row.assignment is None
            else dataclasses.replace(row, asked=consumer.judge(given, row.assignment, request, optimum=asked))
            for row in rows
        ]
    return Comparison(problem, optimum, tuple(rows), co_optimum, heavy, request, asked)


def _undelivered(assignor: Assignor, problem: Problem, optimum: Solution, message: str) -> GuaranteeCheck:
    """No assignment came back: the guarantee is broken wherever it applies (kept vacuously elsewhere).

    Whether a guarantee applies depends on the problem only (identical
    subscriptions, say), so it is asked with an empty assignment.
    """
    probe = check_guarantee(
        assignor.guarantee,
        problem,
        Assignment.from_partitions({}, problem.member_ids),
        optimal_sorted_loads=tuple(optimum.sorted_loads),
    )
    if not probe.applies:
        return probe
    return GuaranteeCheck(probe.guarantee, True, False, f"no assignment: {message}")


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:300]
