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

from assignment_oracle.compare.judge.check import Verdict, check
from assignment_oracle.compare.judge.co_partition import (
    CLAIM_TIME_LIMIT,
    JUDGE_TIME_LIMIT,
    CoPartitionVerdict,
    co_partition_problem,
    solve_co_partitioned,
)
from assignment_oracle.compare.judge.co_partition import judge as judge_co_partition
from assignment_oracle.compare.judge.guarantees import GuaranteeCheck, check_guarantee
from assignment_oracle.compare.judge.moves import MovesVerdict, Unlimited, unlimited, unlimited_of
from assignment_oracle.compare.judge.moves import judge as judge_moves
from assignment_oracle.compare.judge.tiers import TierVerdict
from assignment_oracle.compare.judge.tiers import judge as judge_tiers
from assignment_oracle.compare.judge.weighted import WeightedVerdict, solve_weighted
from assignment_oracle.compare.judge.weighted import judge as judge_weighted
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
    #: Against the co-partitioned optimum: on scenarios with join groups, and for KIP-315's stream-join
    #: assignor (which claims to co-partition every topic) on every scenario with two topics or more.
    co_partition: CoPartitionVerdict | None = None
    #: Weighted loads against the weighted optimum, on scenarios with partition weights.
    weighted: WeightedVerdict | None = None
    #: A cooperative assignor's settled assignment against the most balanced one within its own moves.
    moves: MovesVerdict | None = None
    #: Against the optimum of the request ``compare`` was given (:mod:`compare.judge.tiers`), if any.
    asked: TierVerdict | None = None

    def to_mapping(self, *, timing: bool = True) -> dict:
        """A flat row (the JSON of ``compare``, a sweep's Parquet row's metrics)."""
        v = self.verdict
        out: dict = {"assignor": self.assignor, "status": self.status, "message": self.message}
        if v is not None:
            out.update(
                valid=v.valid,
                violations=[x.to_mapping() for x in v.violations],
                loads=dict(v.loads),
                sorted_loads=list(v.sorted_loads),
                spread=v.spread,
                optimal_spread=v.optimal_spread,
                kip54_score=v.kip54_score,
                optimal_kip54_score=v.optimal_kip54_score,
                kip54_gap=(v.kip54_score - v.optimal_kip54_score) if v.valid else None,
                sum_of_squares=v.sum_of_squares,
                optimal_sum_of_squares=v.optimal_sum_of_squares,
                most_balanced=v.most_balanced,
                balance_moves=v.balance_moves,
                kafka_balance_condition=v.kafka_condition,
                retained=v.retained,
                optimal_retained=v.optimal_retained,
                owned=v.owned,
                moved=v.moved,
                optimal_moved=v.optimal_moved,
                cross_rack=v.cross_rack,
                optimal_cross_rack=v.optimal_cross_rack,
                max_topic_spread=v.max_topic_spread,
                per_topic_spread=dict(v.per_topic_spread),
                optimal_on_every_tier=v.optimal,
            )
        if self.guarantee is not None:
            out["guarantee"] = self.guarantee.to_mapping()
        if self.rebalances is not None:
            out["rebalances"] = self.rebalances
        if self.co_partition is not None:
            out["co_partition"] = self.co_partition.to_mapping()
        if self.weighted is not None:
            out["weighted"] = self.weighted.to_mapping()
        if self.moves is not None:
            out["moves"] = self.moves.to_mapping()
        if self.asked is not None:
            out["request"] = self.asked.to_mapping()
        if timing:
            out["wall_time_s"] = None if self.wall_time is None else round(self.wall_time, 6)
        return out


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
    co_optimum: Solution | None = None,
    weighted_optimum: Solution | None = None,
    unlimited_moves: Unlimited | None = None,
) -> Evaluation:
    """Run assignor ``name`` on ``problem`` and judge it (see the module docstring).

    Judged against the balance-first optimum whatever the scenario's
    objective order says: that is the order every assignor here aims for.
    A live peer's group (``librdkafka:*``) is stopped afterwards unless
    ``keep_live`` (a churn simulation plays its next round on it).

    A scenario with join groups is judged twice: the verdict against the optimum without
    co-partitioning (what the assignor could reach ignoring the joins), and ``co_partition`` against
    the co-partitioned optimum (``co_optimum``, solved here if not given).  KIP-315's stream-join
    assignor gets ``co_partition`` on every scenario: it claims to co-partition every topic.  A scenario
    with partition weights is judged twice too: the verdict on partition counts, and ``weighted``
    against the weighted optimum (``weighted_optimum``, solved here if not given).  A cooperative
    assignor's settled result gets ``moves``: against the most balanced assignment within the moves it
    made (:mod:`compare.judge.moves`).

    Every optimum is solved at most once here, and not at all when given: ``optimum`` (the flow's, on
    the problem without join groups and weights) also answers the moves judge whenever it can
    (``unlimited_moves``, its moves, is computed once by :func:`compare` for every cooperative row), and
    stream-join's co-partitioning claim is solved only when the assignment is not itself proven to be
    the co-partitioned optimum (:func:`compare.judge.co_partition.judge`).
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
                co_optimum=co_optimum,
                weighted_optimum=weighted_optimum,
                unlimited_moves=unlimited_moves,
            )
        finally:
            assignor.assign.close()  # nothing keeps running once the row is judged
    if optimum is None:
        optimum = solve(_without_join_groups(_balance_first(problem)))
    evaluation = _evaluate(_balance_first(problem), assignor, optimum, time_limit, isolation)
    if evaluation.assignment is None:
        return evaluation
    if assignor.protocol == "cooperative" and evaluation.verdict.valid and evaluation.verdict.owned:
        # What its moves bought against what they could have (compare.judge.moves), on counts.
        plain = evaluation.judged_problem or _without_join_groups(_balance_first(problem))
        if evaluation.judged_problem is not None:
            free = evaluation.judged_optimum
        else:
            free = unlimited_moves if unlimited_moves is not None else optimum
        evaluation = dataclasses.replace(evaluation, moves=judge_moves(plain, evaluation.assignment, optimum=free))
    judged = evaluation.judged_problem  # a live group's own previous generation: the same join groups
    base = (
        _balance_first(problem)
        if judged is None
        else dataclasses.replace(judged, join_groups=problem.join_groups, weights=problem.weights)
    )
    if base.weights:
        if weighted_optimum is None or judged is not None:
            weighted_optimum = solve_weighted(base)
        evaluation = dataclasses.replace(
            evaluation, weighted=judge_weighted(base, evaluation.assignment, weighted_optimum)
        )
    grouped = co_partition_problem(base, every_topic=assignor.guarantee == "stream-join")
    if grouped is None:
        return evaluation
    if co_optimum is None or evaluation.judged_problem is not None:
        # Stream-join's claim on a scenario without join groups is judged on every sweep row: a shorter
        # limit keeps big sweeps moving (a stage not proven by then makes that part "unknown").  Solved
        # only if the assignment is not proven the co-partitioned optimum by itself (co_partition.judge).
        limit = JUDGE_TIME_LIMIT if problem.join_groups else CLAIM_TIME_LIMIT
        verdict = judge_co_partition(grouped, evaluation.assignment, time_limit=limit)
    else:
        verdict = judge_co_partition(grouped, evaluation.assignment, co_optimum)
    return dataclasses.replace(evaluation, co_partition=verdict)


def _evaluate(
    problem: Problem, assignor: Assignor, optimum: Solution | None, time_limit: float | None, isolation: str
) -> Evaluation:
    """The assignor's row against the optimum without co-partitioning (join groups set aside)."""
    name = assignor.name
    problem = _without_join_groups(problem)
    if optimum is None:
        optimum = solve(problem)
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
        result = run(assignor, problem, time_limit=time_limit, isolation=isolation)
    except AssignorDidNotFinish as err:
        message = _one_line(str(err))
        return Evaluation(name, TIMEOUT, message, guarantee=_undelivered(assignor, problem, optimum, message))
    except AssignorFailed as err:  # the assignor's crash is a finding; the harness's is a bug and propagates
        message = _one_line(str(err))
        return Evaluation(name, ERROR, message, guarantee=_undelivered(assignor, problem, optimum, message))
    assignment, phases = result.assignment, result.phases
    verdict = check(problem, assignment, optimum=optimum)
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
        guarantee=check_guarantee(
            assignor.guarantee,
            problem,
            assignment,
            optimal_sorted_loads=tuple(optimum.sorted_loads),
            rounds=[p.assignment for p in phases] or None,
        ),
        rebalances=(assignor.assign.last.rounds if is_live(assignor) else len(phases)) if phases else None,
        phases=phases,
        judged_problem=problem if note else None,
        judged_optimum=optimum if note else None,
    )


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

    The problem is solved once, balance first (the order the assignors aim
    for), whatever objective order the scenario states.  With ``request`` (an objective order, a
    balance definition, a budget of moves: :class:`optimal.Request`) its optimum is solved once more,
    on the scenario as given (``request_time_limit`` bounds a CP-SAT engine), and every row is also
    judged against it tier by tier (``asked``: :func:`compare.judge.tiers.judge`, as ``check`` does).
    """
    names = list(ASSIGNORS) if names is None else list(names)
    names = [get_assignor(n) if isinstance(n, str) else n for n in names]  # unknown names fail first
    step = progress or (lambda name: None)
    given = problem
    problem = _balance_first(problem)
    plain = _without_join_groups(problem)
    step(OPTIMUM)
    optimum = solve(plain)
    best = Evaluation(
        assignor=OPTIMUM,
        status=OK,
        wall_time=optimum.wall_time,
        assignment=optimum.assignment,
        verdict=check(plain, optimum.assignment, optimum=optimum),
        rebalances=1,
    )
    rows = [best]

    def optimum_row(label: str, solution: Solution, **judged) -> Evaluation:
        """The row of an optimum of another objective (co-partitioned, weighted), judged as its own."""
        return Evaluation(
            assignor=label,
            status=OK,
            message=solution.status + (f": {solution.message}" if solution.message else ""),
            wall_time=solution.wall_time,
            assignment=solution.assignment,
            verdict=check(plain, solution.assignment, optimum=optimum),
            rebalances=1,
            **judged,
        )

    co_optimum = None
    if problem.join_groups:
        co_optimum = solve_co_partitioned(problem)
        best = dataclasses.replace(best, co_partition=judge_co_partition(problem, optimum.assignment, co_optimum))
        rows = [best]
        if co_optimum.assignment is not None:
            co_partition = judge_co_partition(problem, co_optimum.assignment, co_optimum)
            rows.append(optimum_row(CO_PARTITIONED_OPTIMUM, co_optimum, co_partition=co_partition))
    heavy = None
    if problem.weights:
        heavy = solve_weighted(problem)
        rows[0] = dataclasses.replace(rows[0], weighted=judge_weighted(problem, optimum.assignment, heavy))
        if heavy.assignment is not None:
            weighted = judge_weighted(problem, heavy.assignment, heavy)
            rows.append(optimum_row(WEIGHTED_OPTIMUM, heavy, weighted=weighted))
    # The unlimited optimum's moves, once for every cooperative row's moves judge (compare.judge.moves): the
    # optimum's own when it is most balanced then stickiest, else that flow solved once here.
    free = None
    if any(a.protocol == "cooperative" for a in names):
        free = unlimited(plain, optimum) or unlimited_of(plain)
    for name in names:
        step(name.name)
        rows.append(
            evaluate(
                problem,
                name,
                optimum=optimum,
                time_limit=time_limit,
                co_optimum=co_optimum,
                weighted_optimum=heavy,
                unlimited_moves=free,
            )
        )
    asked = None
    if request is not None:
        step("request optimum")
        asked = solve(given, request, time_limit=request_time_limit)
        rows = [
            row
            if row.assignment is None
            else dataclasses.replace(row, asked=judge_tiers(given, row.assignment, request, optimum=asked))
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


def _balance_first(problem: Problem) -> Problem:
    return problem.balance_first_order()


def _without_join_groups(problem: Problem) -> Problem:
    """The problem the flow model solves: partition counts, no co-partitioning (those are judged apart)."""
    if problem.join_groups or problem.weights:
        return dataclasses.replace(problem, join_groups=(), weights=())
    return problem


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:300]
