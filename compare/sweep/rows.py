"""One scenario of a sweep, computed: the rows it contributes (pure Python, no Spark).

:func:`scenario_rows` is what every Spark worker runs for each scenario, and
what the in-process baseline loop runs too, so both produce the same rows.
It never raises for a scenario's sake: a scenario that cannot be generated
or solved is one ``error`` row (assignor ``"scenario"``), an assignor that
fails or does not finish is its own ``error`` or ``timeout`` row.

Rows (the schema is :data:`ROW_SCHEMA`, documented in ``docs/sweeps.md``):

* one per (scenario, round, assignor) with every metric of
  :class:`compare.judge.evaluate.Evaluation`;
* one per (scenario, round) for the oracle, assignor ``"optimum"`` (the
  flow model's solve time, for the run-time plots);
* one per (scenario, round) with assignor ``"optimum-cpsat"`` when the
  scenario is in the CP-SAT sample;
* for a scenario with join groups, one per (scenario, round) with assignor
  ``"optimum-co-partitioned"`` (:func:`compare.judge.co_partition.solve_co_partitioned`:
  :func:`optimal.solve` with the join groups, dec-min then stickiest); the ``co_*``
  columns judge every row against it (and stream-join-sticky's rows on every
  scenario, against the optimum co-partitioning every topic);
* for a scenario with partition weights, one per (scenario, round) with
  assignor ``"optimum-weighted"`` (:func:`compare.judge.weighted.solve_weighted`:
  :func:`optimal.solve` on weighted loads); the ``weighted_*`` columns judge
  every row's weighted loads against it.

Streams groups (KIP-1071, families ``streams`` and ``streams-churn``,
:func:`_streams_rows`): one row per (scenario, step, assignor) for Kafka's
Streams assignor in both iteration orders (``streams-sticky``,
``streams-sticky-java``) judged by :func:`compare.judge.streams.judge`
against the step's exact optimum, and one per (scenario, step) with
assignor ``"optimum-streams"`` (the optimum; on a history, the oracle's own
trajectory).  They fill ``members``, ``topics`` (subtopologies),
``partitions`` (tasks), ``racks`` (rack-aware tags), ``valid``,
``violations``, ``most_balanced`` (both balance tiers equal to the
optimum's) and the ``streams_*`` columns; the consumer columns stay null,
and consumer rows leave the ``streams_*`` columns null.

Share groups (KIP-932, families ``share`` and ``share-churn``, :func:`_share_rows`)
likewise: Kafka's ``SimpleAssignor`` in both iteration orders (``share-simple``,
``share-simple-java``) judged by :func:`compare.judge.share.judge`, and the
optimum's rows (``"optimum-share"``); ``members``, ``topics`` (subscribed),
``partitions`` (assignable, of subscribed topics), ``valid``, ``violations``,
``most_balanced`` and the ``sharegroup_*`` columns; a counterexample where the
answer is invalid, Kafka's assignor threw, or it breaks one of Kafka's promises.

Cross-checks land in ``oracle_check`` on every row of the scenario:
``flow`` (flow only), ``flow=cpsat`` / ``flow=brute-force`` (they agree on
the objective), ``cpsat-feasible`` (CP-SAT hit its time limit; its bound is
consistent with the flow's optimum), ``co-partitioned optimal=brute-force`` /
``weighted optimal=brute-force`` (those optima's tier values are the brute
force's, :func:`optimal.brute_force.request_optimum`, on small scenarios; else
their status alone), or ``DISAGREE: ...``, a bug in the oracle, counted in the
summary.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import time
import traceback
from importlib import metadata
from typing import Any, Iterable

from assignment_oracle.compare.judge.evaluate import (
    CO_PARTITIONED_OPTIMUM,
    WEIGHTED_OPTIMUM,
    Evaluation,
    evaluate,
    optimum_evaluation,
    row_optima,
)
from assignment_oracle.compare.judge.streams import unavoidable_shortfall
from assignment_oracle.compare.scenarios.churn import random_history, simulate
from assignment_oracle.compare.scenarios.families import generate
from assignment_oracle.compare.sweep.spec import (
    CHURN,
    SHARE,
    SHARE_FAMILIES,
    STREAMS,
    STREAMS_FAMILIES,
    Checks,
    GridPoint,
)
from assignment_oracle.heuristics import get_assignor
from assignment_oracle.heuristics.registry import library_version
from assignment_oracle.optimal import INFEASIBLE, OPTIMAL, Solution, solve
from assignment_oracle.optimal.brute_force import optimum as brute_optimum
from assignment_oracle.optimal.brute_force import request_optimum
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.scenario_json import dumps

__all__ = ["COLUMNS", "ROW_SCHEMA", "STREAMS_OPTIMUM", "SHARE_OPTIMUM", "scenario_rows", "versions"]

#: The assignor name of the optimum's rows on Streams groups (a reference row: it judges no assignor).
STREAMS_OPTIMUM = "optimum-streams"
#: The same on share groups.
SHARE_OPTIMUM = "optimum-share"

#: Column name -> Arrow type name, in order (``docs/sweeps.md`` explains each).
ROW_SCHEMA: tuple[tuple[str, str], ...] = (
    ("sweep", "string"),
    ("scenario_id", "string"),
    ("family", "string"),
    ("params", "string"),
    ("seed", "int64"),
    ("round", "int64"),
    ("assignor", "string"),
    ("status", "string"),
    ("message", "string"),
    ("members", "int64"),
    ("topics", "int64"),
    ("partitions", "int64"),
    ("identical_subscriptions", "bool"),
    ("racks", "bool"),
    ("valid", "bool"),
    ("violations", "int64"),
    ("verdict", "string"),
    ("gap_tier", "string"),
    ("spread", "int64"),
    ("optimal_spread", "int64"),
    ("largest_load", "int64"),
    ("optimal_largest_load", "int64"),
    ("kip54_score", "int64"),
    ("optimal_kip54_score", "int64"),
    ("kip54_gap", "int64"),
    ("balance_moves", "int64"),
    ("most_balanced", "bool"),
    ("kafka_balance_condition", "bool"),
    ("guarantee", "string"),
    ("guarantee_applies", "bool"),
    ("guarantee_kept", "bool"),
    ("retained", "int64"),
    ("optimal_retained", "int64"),
    ("owned", "int64"),
    ("moved", "int64"),
    ("optimal_moved", "int64"),
    ("oracle_moved", "int64"),
    ("cumulative_moved", "int64"),
    ("cumulative_oracle_moved", "int64"),
    ("cross_rack", "int64"),
    ("optimal_cross_rack", "int64"),
    ("max_topic_spread", "int64"),
    ("co_partitioned", "bool"),
    ("co_most_balanced", "bool"),
    ("co_retained", "int64"),
    ("optimal_co_retained", "int64"),
    ("co_optimum_status", "string"),
    ("weighted_largest", "int64"),
    ("optimal_weighted_largest", "int64"),
    ("weighted_largest_ratio", "double"),
    ("weighted_most_balanced", "bool"),
    ("weighted_optimum_status", "string"),
    ("moves_dominated", "bool"),
    ("rebalances", "int64"),
    ("streams_event", "string"),
    ("streams_verdict", "string"),
    ("streams_gap_tier", "string"),
    ("streams_avoidable_shortfall", "int64"),
    ("streams_unavoidable_shortfall", "int64"),
    ("streams_active_balance", "string"),
    ("streams_task_balance", "string"),
    ("streams_tag_diversity", "string"),
    ("streams_stickiness", "string"),
    ("streams_largest_active", "int64"),
    ("optimal_streams_largest_active", "int64"),
    ("streams_largest_tasks", "int64"),
    ("optimal_streams_largest_tasks", "int64"),
    ("streams_tag_values", "int64"),
    ("optimal_streams_tag_values", "int64"),
    ("streams_actives_kept", "int64"),
    ("optimal_streams_actives_kept", "int64"),
    ("streams_standbys_kept", "int64"),
    ("optimal_streams_standbys_kept", "int64"),
    ("streams_copies_on_state", "int64"),
    ("optimal_streams_copies_on_state", "int64"),
    ("streams_previous_actives", "int64"),
    ("streams_previous_standbys", "int64"),
    ("streams_moved_optimum_kept", "int64"),
    ("streams_guarantees_broken", "string"),
    ("streams_optimum_status", "string"),
    ("streams_tiers", "string"),
    ("sharegroup_event", "string"),
    ("sharegroup_homogeneous", "bool"),
    ("sharegroup_verdict", "string"),
    ("sharegroup_gap_tier", "string"),
    ("sharegroup_coverage", "string"),
    ("sharegroup_sharing", "string"),
    ("sharegroup_balance", "string"),
    ("sharegroup_stickiness", "string"),
    ("sharegroup_uncovered", "int64"),
    ("sharegroup_under_shared", "int64"),
    ("sharegroup_over_shared", "int64"),
    ("sharegroup_largest_load", "int64"),
    ("optimal_sharegroup_largest_load", "int64"),
    ("sharegroup_load_spread", "int64"),
    ("optimal_sharegroup_load_spread", "int64"),
    ("sharegroup_pairs", "int64"),
    ("optimal_sharegroup_pairs", "int64"),
    ("sharegroup_kept", "int64"),
    ("optimal_sharegroup_kept", "int64"),
    ("sharegroup_owned", "int64"),
    ("sharegroup_moved_optimum_kept", "int64"),
    ("sharegroup_guarantees_broken", "string"),
    ("sharegroup_tiers", "string"),
    ("wall_time_s", "double"),
    ("oracle_wall_time_s", "double"),
    ("oracle_check", "string"),
    ("counterexample", "string"),
    ("version", "string"),
)
COLUMNS = tuple(name for name, _ in ROW_SCHEMA)
#: Columns that differ between runs of the same spec (everything else is deterministic).
TIMING_COLUMNS = ("wall_time_s", "oracle_wall_time_s")


def versions() -> str:
    """``assignment-oracle X; python Y; ortools Z`` for the ``version`` column."""

    def of(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "?"

    return f"assignment-oracle {of('assignment-oracle')}; python {platform.python_version()}; ortools {of('ortools')}"


def scenario_rows(
    sweep: str,
    scenario: str,
    point: GridPoint,
    seed: int,
    assignors: Iterable[str],
    time_limit: float,
    checks: Checks,
    *,
    version: str = "",
) -> list[dict[str, Any]]:
    """Every row of one scenario (see the module docstring); never raises for the scenario's sake."""
    base = {
        "sweep": sweep,
        "scenario_id": scenario,
        "family": point.family,
        "params": json.dumps(dict(point.params), sort_keys=True),
        "seed": seed,
        "version": version,
    }
    try:
        if point.family == CHURN:
            return _churn_rows(base, point, seed, tuple(assignors), time_limit, checks)
        if point.family in STREAMS_FAMILIES:
            return _streams_rows(base, point, seed)
        if point.family in SHARE_FAMILIES:
            return _share_rows(base, point, seed, checks)
        problem = generate(point.family, seed, **point.params)
        return _rebalance_rows(base, problem, 0, tuple(assignors), time_limit, checks)
    except Exception as err:  # the scenario itself failed: one row says so
        last = traceback.extract_tb(err.__traceback__)[-1]
        message = f"{type(err).__name__}: {err} (at {last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
        return [_row(base, round=0, assignor="scenario", status="error", message=message[:500])]


def _rebalance_rows(
    base: dict, problem: Problem, round_: int, assignors: tuple[str, ...], time_limit: float, checks: Checks
) -> list[dict]:
    grouped = problem.balance_first_order()
    problem = dataclasses.replace(grouped, join_groups=(), weights=())  # the optimum counting partitions
    start = time.perf_counter()
    optimum = solve(problem)
    oracle_time = time.perf_counter() - start
    check, cpsat_row = _cross_check(base, problem, optimum, round_, checks)
    shape = _shape(problem)
    assignors = tuple(get_assignor(a) if isinstance(a, str) else a for a in assignors)
    # Every optimum the rows are judged against, each solved once (compare.judge.consumer.FINDINGS).
    optima = row_optima(grouped, optimum, assignors)
    co_rows = []

    def optimum_row(label: str, solution, check: str) -> dict:
        """The row of an optimum of another objective (co-partitioned, weighted), judged as its own."""
        e = optimum_evaluation(grouped, optimum, solution, label, optima=optima)
        return _row(
            base,
            round=round_,
            assignor=label,
            status="ok",
            message=solution.status,
            **shape,
            **_metrics(e),
            wall_time_s=solution.wall_time,
            oracle_wall_time_s=oracle_time,
            oracle_check=check,
        )

    for name, label, what in (
        ("co-partition", CO_PARTITIONED_OPTIMUM, "co-partitioned"),
        ("weighted", WEIGHTED_OPTIMUM, "weighted"),
    ):
        solution = optima.get(name)
        if solution is None:
            continue
        check = _joined(check, _brute_force_check(what, solution, checks))
        if solution.assignment is not None:
            co_rows.append(optimum_row(label, solution, check))
    best = optimum_evaluation(grouped, optimum, optima=optima)
    rows = [
        _row(
            base,
            round=round_,
            assignor="optimum",
            status="ok",
            **shape,
            **_metrics(best),
            wall_time_s=oracle_time,
            oracle_wall_time_s=oracle_time,
            oracle_check=check,
        )
    ] + co_rows
    if cpsat_row is not None:
        rows.append({**cpsat_row, **shape, "oracle_check": check})
    for assignor in assignors:
        e = evaluate(grouped, assignor, optimum=optimum, time_limit=time_limit, optima=optima)
        rows.append(
            _row(
                base,
                round=round_,
                assignor=e.assignor,
                status=e.status,
                message=e.message,
                **shape,
                **_metrics(e),
                wall_time_s=e.wall_time,
                oracle_wall_time_s=oracle_time,
                oracle_check=check,
                counterexample=_counterexample(problem, e),
            )
        )
    return rows


def evaluate_optimum(problem: Problem, optimum, assignment=None) -> Evaluation:
    """The optimum's own row, judged like any assignment (it is most balanced and stickiest)."""
    return optimum_evaluation(problem, optimum)


def _joined(check: str, more: str) -> str:
    """Two cross-check verdicts in one cell, a disagreement first."""
    return f"{more}; {check}" if more.startswith("DISAGREE") else f"{check}; {more}"


def _brute_force_check(name: str, solution: Solution, checks: Checks) -> str:
    """An optimum of the front door (the co-partitioned or the weighted one) against brute force over the
    same request (:func:`optimal.brute_force.request_optimum`: units, weights and claims read off the
    scenario again) when the problem is small enough, else its status alone."""
    try:
        best = request_optimum(solution.problem, solution.request, limit=checks.brute_force_limit)
    except ValueError:  # too many assignments to enumerate
        return f"{name} {solution.status.lower()}"
    found = None if solution.assignment is None else [t.value for t in solution.tiers]
    if best != found and solution.status in (OPTIMAL, INFEASIBLE):  # a claim of proof: FEASIBLE, UNKNOWN are none
        return f"DISAGREE: {name} brute force {best}, {solution.method} {found}"
    return f"{name} {solution.status.lower()}=brute-force"


def _cross_check(base: dict, problem: Problem, optimum, round_: int, checks: Checks):
    """Brute force when the problem is small enough; CP-SAT on a deterministic sample."""
    agreed = ["flow"]
    cpsat_row = None
    size = 1
    for topic in problem.assignable_topics:
        size *= len(problem.subscribers[topic.name]) ** topic.partitions
        if size > checks.brute_force_limit:
            break
    if size <= checks.brute_force_limit:
        best = brute_optimum(problem)
        if (
            tuple(best.sorted_loads) != tuple(optimum.sorted_loads)
            or best.retained != optimum.retained
            or best.cross_rack != optimum.cross_rack
        ):
            return (
                f"DISAGREE: brute force {list(best.sorted_loads)} keeping {best.retained} with "
                f"{best.cross_rack} cross-rack, flow {list(optimum.sorted_loads)} keeping {optimum.retained} "
                f"with {optimum.cross_rack} cross-rack"
            ), None
        agreed.append("brute-force")
    if _sampled(base["scenario_id"], round_, checks.cpsat_sample):
        start = time.perf_counter()
        cpsat = solve(problem, method="cpsat", time_limit=checks.cpsat_time_limit)
        elapsed = time.perf_counter() - start
        cpsat_row = _row(
            base,
            round=round_,
            assignor="optimum-cpsat",
            status="ok" if cpsat.status == OPTIMAL else "timeout",
            message=f"{cpsat.status}, objective {cpsat.objective}, bound {cpsat.bound}",
            wall_time_s=elapsed,
            oracle_wall_time_s=elapsed,
        )
        if cpsat.status == OPTIMAL:
            if cpsat.objective != optimum.objective:
                return f"DISAGREE: cpsat objective {cpsat.objective}, flow {optimum.objective}", cpsat_row
            agreed.append("cpsat")
        elif cpsat.bound is not None and cpsat.bound > optimum.objective:
            return f"DISAGREE: cpsat proves bound {cpsat.bound} above flow's optimum {optimum.objective}", cpsat_row
        else:
            agreed.append("cpsat-feasible")
    return "=".join(agreed), cpsat_row


def _sampled(scenario: str, round_: int, share: float) -> bool:
    """A deterministic sample: the scenario id's hash, not a random draw."""
    if share <= 0:
        return False
    digest = hashlib.sha256(f"{scenario}|{round_}|cpsat".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _churn_rows(
    base: dict, point: GridPoint, seed: int, assignors: tuple[str, ...], time_limit: float, checks: Checks
) -> list[dict]:
    history = random_history(seed, **point.params)
    rows: list[dict] = []
    oracle_rounds: set[int] = set()  # the oracle's own trajectory is the same for every assignor
    for assignor in assignors:
        name = assignor if isinstance(assignor, str) else assignor.name
        sim = simulate(history, assignor, time_limit=time_limit)
        for rnd in sim.rounds:
            shape = _shape(rnd.problem)
            if rnd.index not in oracle_rounds:
                oracle_rounds.add(rnd.index)
                rows.append(
                    _row(
                        base,
                        round=rnd.index,
                        assignor="optimum",
                        status="ok",
                        **_shape(rnd.oracle_problem),
                        **_metrics(evaluate_optimum(rnd.oracle_problem, rnd.oracle)),
                        oracle_moved=rnd.oracle_moved,
                        cumulative_oracle_moved=rnd.cumulative_oracle_moved,
                        cumulative_moved=rnd.cumulative_oracle_moved,
                        wall_time_s=rnd.oracle.wall_time,
                        oracle_wall_time_s=rnd.oracle.wall_time,
                        oracle_check="flow",
                    )
                )
            e = rnd.evaluation
            rows.append(
                _row(
                    base,
                    round=rnd.index,
                    assignor=name,
                    status=e.status,
                    message=e.message,
                    **shape,
                    **_metrics(e),
                    oracle_moved=rnd.oracle_moved,
                    cumulative_moved=rnd.cumulative_moved,
                    cumulative_oracle_moved=rnd.cumulative_oracle_moved,
                    wall_time_s=e.wall_time,
                    oracle_wall_time_s=rnd.optimum.wall_time,
                    oracle_check="flow",
                    counterexample=_counterexample(rnd.problem, e),
                )
            )
    return rows


def _streams_rows(base: dict, point: GridPoint, seed: int) -> list[dict]:
    """A Streams group scenario's rows (module docstring): a single rebalance (``streams``) or every step of
    a history (``streams-churn``), for each of Kafka's two iteration orders and the optimum."""
    from assignment_oracle.compare.scenarios import streams_churn as sc

    params = dict(point.params)
    if point.family == STREAMS:
        previous = params.pop("previous", False)
        problem = sc.random_scenario(seed, previous=previous, **params)
        plan = sc.StreamsPlan("single", seed, {}, {}, {}, ())
        optimum = solve(problem)
        histories = {sc.OPTIMUM: _single(sc, plan, problem, optimum, sc.OPTIMUM)}
        for name in sc.ASSIGNORS:
            histories[name] = _single(sc, plan, problem, optimum, name)
    else:
        history = params.pop("history")
        plan = sc.plan(history, seed=seed, **params)
        histories = {name: sc.play(plan, name) for name in (sc.OPTIMUM, *sc.ASSIGNORS)}
    rows = []
    for name, played in histories.items():
        label = STREAMS_OPTIMUM if name == sc.OPTIMUM else name
        for step in played.steps:
            rows.append(_streams_row(base, label, step))
    return rows


def _single(sc, plan, problem, optimum, name: str):
    """A one-step history: ``name``'s answer to ``problem`` (the optimum's own, for ``optimum``), judged."""
    from assignment_oracle.compare.judge.streams import judge

    started = time.perf_counter()
    assignment = optimum.assignment if name == sc.OPTIMUM else sc.ASSIGNORS[name](problem)
    elapsed = optimum.wall_time if name == sc.OPTIMUM else time.perf_counter() - started
    verdict = judge(problem, assignment, optimum=optimum, assignor=name)
    step = sc.StreamsStep(0, sc.Event("start"), problem, assignment, optimum, verdict, elapsed)
    return sc.StreamsHistory(plan, name, (step,))


def _streams_row(base: dict, label: str, step) -> dict:
    """One Streams step's row (the ``streams_*`` columns, docs/sweeps.md)."""
    r = step.row()
    problem, verdict = step.problem, step.verdict
    comparison = r["tiers"]
    values, best = r["values"], r["optimal_values"]

    def first(value):
        return value[0] if value else 0

    invalid = not r["valid"]
    counterexample = None
    if invalid and label != STREAMS_OPTIMUM:
        finding = "; ".join(verdict.violations[:3])
        counterexample = dumps({"assignor": label, "finding": finding, "scenario": problem.to_mapping()})
    return _row(
        base,
        round=r["step"],
        assignor=label,
        status="invalid" if invalid else "ok",
        message=None if label != STREAMS_OPTIMUM else step.optimum.status,
        members=r["members"],
        topics=len(problem.subtopologies),
        partitions=r["tasks"],
        racks=bool(problem.rack_aware_tags),
        valid=r["valid"],
        violations=r["violations"],
        most_balanced=comparison.get("active-balance") == "equal" and comparison.get("task-balance") == "equal",
        streams_event=r["event"],
        streams_verdict=r["verdict"],
        streams_gap_tier=r["gap_tier"],
        verdict=None if label == STREAMS_OPTIMUM else r["verdict"],
        gap_tier=None if label == STREAMS_OPTIMUM else r["gap_tier"],
        streams_avoidable_shortfall=r["avoidable_shortfall"],
        streams_unavoidable_shortfall=unavoidable_shortfall(verdict),
        streams_active_balance=comparison.get("active-balance"),
        streams_task_balance=comparison.get("task-balance"),
        streams_tag_diversity=comparison.get("tag-diversity"),
        streams_stickiness=comparison.get("stickiness"),
        streams_largest_active=first(values.get("active-balance")),
        optimal_streams_largest_active=first(best.get("active-balance")),
        streams_largest_tasks=first(values.get("task-balance")),
        optimal_streams_largest_tasks=first(best.get("task-balance")),
        streams_tag_values=values.get("tag-diversity"),
        optimal_streams_tag_values=best.get("tag-diversity"),
        streams_actives_kept=r["actives_kept"],
        optimal_streams_actives_kept=r["optimal_actives_kept"],
        streams_standbys_kept=r["standbys_kept"],
        optimal_streams_standbys_kept=r["optimal_standbys_kept"],
        streams_copies_on_state=r["copies_on_state"],  # actives and standbys (measure's on_state)
        optimal_streams_copies_on_state=r["optimal_copies_on_state"],
        streams_previous_actives=r["previous_actives"],
        streams_previous_standbys=r["previous_standbys"],
        streams_moved_optimum_kept=r["moved_optimum_kept"],
        streams_guarantees_broken=",".join(r["guarantees_broken"]) or None,
        streams_optimum_status=r["optimum_status"],
        streams_tiers=json.dumps(
            {t: {"value": values[t], "optimum": best[t], "comparison": comparison[t]} for t in comparison},
            sort_keys=True,
        ),
        wall_time_s=r["wall_time_s"],
        oracle_wall_time_s=r["optimum_wall_time_s"],
        oracle_check=f"streams-cpsat {r['optimum_status'].lower()}",
        counterexample=counterexample,
    )


def _share_rows(base: dict, point: GridPoint, seed: int, checks: Checks) -> list[dict]:
    """A share group scenario's rows (module docstring): a single rebalance (``share``) or every step of a
    history (``share-churn``), for each of Kafka's two iteration orders and the optimum; the optimum checked
    against brute force where the group is small enough (``checks.brute_force_limit``)."""
    from assignment_oracle.compare.scenarios import share_churn as sc

    params = dict(point.params)
    if point.family == SHARE:
        previous = params.pop("previous", False)
        problem = sc.random_scenario(seed, previous=previous, **params)
        plan = sc.SharePlan("single", seed, {}, {}, {}, {}, ())
        optimum = solve(problem)
        histories = {name: _share_single(sc, plan, problem, optimum, name) for name in (sc.OPTIMUM, *sc.ASSIGNORS)}
    else:
        history = params.pop("history")
        plan = sc.plan(history, seed=seed, **params)
        histories = {name: sc.play(plan, name) for name in (sc.OPTIMUM, *sc.ASSIGNORS)}
    checked: dict[int, str] = {}
    rows = []
    for name, played in histories.items():
        label = SHARE_OPTIMUM if name == sc.OPTIMUM else name
        for step in played.steps:
            key = id(step.optimum)
            if key not in checked:
                checked[key] = _share_check(step.problem, step.optimum, checks)
            rows.append(_share_row(base, label, step, checked[key]))
    return rows


def _share_single(sc, plan, problem, optimum, name: str):
    """A one-step share history: ``name``'s answer to ``problem`` (the optimum's own, for ``optimum``), judged."""
    from assignment_oracle.compare.judge.share import judge
    from assignment_oracle.problem.errors import AssignorError

    started = time.perf_counter()
    if name == sc.OPTIMUM:
        verdict = judge(problem, optimum.assignment, optimum=optimum, assignor=name)
        step = sc.ShareStep(0, sc.Event("start"), problem, optimum.assignment, optimum, verdict, optimum.wall_time)
        return sc.ShareHistory(plan, name, (step,))
    try:
        assignment = sc.ASSIGNORS[name](problem)
    except AssignorError as err:
        error = f"{type(err).__name__}: {err}"
        step = sc.ShareStep(0, sc.Event("start"), problem, None, optimum, None, time.perf_counter() - started, error)
        return sc.ShareHistory(plan, name, (step,))
    elapsed = time.perf_counter() - started
    verdict = judge(problem, assignment, optimum=optimum, assignor=name)
    return sc.ShareHistory(
        plan, name, (sc.ShareStep(0, sc.Event("start"), problem, assignment, optimum, verdict, elapsed),)
    )


def _share_check(problem, optimum, checks: Checks) -> str:
    """``share-flow optimal``, or ``share-flow=brute-force`` when enumerated (``DISAGREE: ...`` a bug)."""
    from assignment_oracle.optimal.brute_force import share_optimum, share_pairs

    said = f"share-flow {optimum.status.lower()}"
    if 2 ** len(share_pairs(problem)) > checks.brute_force_limit:
        return said
    brute = share_optimum(problem, optimum.request, limit=checks.brute_force_limit)
    values = [t.value for t in optimum.tiers]
    if values != brute.values:
        return f"DISAGREE: share-flow {values} brute force {brute.values}"
    return "share-flow=brute-force"


def _share_row(base: dict, label: str, step, check: str) -> dict:
    """One share step's row (the ``sharegroup_*`` columns, docs/sweeps.md)."""
    r = step.row()
    problem = step.problem
    values = {
        "members": r["members"],
        "topics": sum(1 for t in problem.topics if problem.subscribers(t)),
        "partitions": r["partitions"],
        "sharegroup_event": r["event"],
        "sharegroup_homogeneous": r["homogeneous"],
        "optimal_sharegroup_kept": r["optimal_kept"],
        "sharegroup_owned": r["owned"],
        "oracle_wall_time_s": r["optimum_wall_time_s"],
        "wall_time_s": r["wall_time_s"],
        "oracle_check": check,
    }
    best = step.optimum.measures
    values.update(
        optimal_sharegroup_largest_load=int(best.loads.max()) if best.loads.size else 0,
        optimal_sharegroup_load_spread=int(best.loads.max() - best.loads.min()) if best.loads.size else 0,
        optimal_sharegroup_pairs=best.pairs,
    )
    if r["status"] == "error":
        document = {"assignor": label, "finding": r["message"], "scenario": problem.to_mapping()}
        return _row(
            base,
            round=r["step"],
            assignor=label,
            status="error",
            message=r["message"][:500],
            counterexample=dumps(document),
            **values,
        )
    verdict = step.verdict
    tiers = {t.tier: t for t in verdict.tiers}
    invalid = not verdict.valid
    reference = label == SHARE_OPTIMUM
    counterexample = None
    if not reference and (invalid or verdict.broken):
        finding = "; ".join(verdict.violations[:3]) if invalid else ", ".join(verdict.broken)
        counterexample = dumps(
            {
                "assignor": label,
                "finding": finding,
                "scenario": problem.to_mapping(),
                "assignment": step.assignment.to_mapping(),
            }
        )
    m = verdict.measures
    return _row(
        base,
        round=r["step"],
        assignor=label,
        status="invalid" if invalid else "ok",
        message=step.optimum.status if reference else None,
        valid=verdict.valid,
        violations=len(verdict.violations),
        most_balanced=tiers["balance"].comparison == "equal",
        verdict=None if reference else verdict.status,
        gap_tier=None if reference else verdict.gap_tier,
        sharegroup_verdict=verdict.status,
        sharegroup_gap_tier=verdict.gap_tier,
        sharegroup_coverage=tiers["coverage"].comparison,
        sharegroup_sharing=tiers["sharing"].comparison,
        sharegroup_balance=tiers["balance"].comparison,
        sharegroup_stickiness=tiers["stickiness"].comparison,
        sharegroup_uncovered=m["uncovered"],
        sharegroup_under_shared=m["under_shared"],
        sharegroup_over_shared=m["over_shared"],
        sharegroup_largest_load=r["largest_load"],
        sharegroup_load_spread=m["load_spread"],
        sharegroup_pairs=m["pairs"],
        sharegroup_kept=m["kept"],
        sharegroup_moved_optimum_kept=r["moved_optimum_kept"],
        sharegroup_guarantees_broken=",".join(verdict.broken) or None,
        sharegroup_tiers=json.dumps(
            {
                t: {"value": line.value, "optimum": line.optimum, "comparison": line.comparison}
                for t, line in tiers.items()
            },
            sort_keys=True,
        ),
        counterexample=counterexample,
        **values,
    )


def _shape(problem: Problem) -> dict:
    return {
        "members": len(problem.members),
        "topics": len(problem.assignable_topics),
        "partitions": problem.total_partitions,
        "identical_subscriptions": len({m.topics for m in problem.members}) <= 1,
        "racks": problem.rack_locality.active,
    }


#: The row columns taken as they are from :meth:`Evaluation.to_mapping`.
_EVALUATION_COLUMNS = (
    "valid",
    "spread",
    "optimal_spread",
    "kip54_score",
    "optimal_kip54_score",
    "kip54_gap",
    "balance_moves",
    "verdict",
    "gap_tier",
    "most_balanced",
    "kafka_balance_condition",
    "retained",
    "optimal_retained",
    "owned",
    "moved",
    "optimal_moved",
    "cross_rack",
    "optimal_cross_rack",
    "max_topic_spread",
    "rebalances",
)


#: The row columns taken from the parts of :meth:`Evaluation.to_mapping` a row may have, in row order:
#: part -> (column, the part's key) pairs.
_PART_COLUMNS = {
    "co_partition": (
        ("co_partitioned", "co_partitioned"),
        ("co_most_balanced", "most_balanced"),
        ("co_retained", "retained"),
        ("optimal_co_retained", "optimal_retained"),
        ("co_optimum_status", "optimum_status"),
    ),
    "weighted": (
        ("weighted_largest", "largest"),
        ("optimal_weighted_largest", "optimal_largest"),
        ("weighted_largest_ratio", "largest_ratio"),
        ("weighted_most_balanced", "most_balanced"),
        ("weighted_optimum_status", "optimum_status"),
    ),
    "moves": (("moves_dominated", "dominated"),),
    "guarantee": (("guarantee", "guarantee"), ("guarantee_applies", "applies"), ("guarantee_kept", "kept")),
}


def _metrics(e: Evaluation) -> dict:
    """The row's metric columns: :meth:`Evaluation.to_mapping`, flattened (one place defines them)."""
    full = e.to_mapping(timing=False)
    out: dict[str, Any] = {key: full.get(key) for key in _EVALUATION_COLUMNS}
    if "violations" in full:
        out["violations"] = len(full["violations"])
    if e.verdict is not None and e.verdict.measures["sorted_loads"]:  # descending: the busiest member first
        m = e.verdict.measures
        out.update(largest_load=m["sorted_loads"][0], optimal_largest_load=(m["optimal_sorted_loads"] or [None])[0])
    for part, columns in _PART_COLUMNS.items():
        if part in full:
            out.update({column: full[part][key] for column, key in columns})
    return out


def _counterexample(problem: Problem, e: Evaluation) -> str | None:
    """The scenario as standalone JSON when the assignor raised, or its result breaks its own guarantee."""
    # Invalid results break every guarantee but stream-join's, whose partitions left out by design
    # (KIP-315) are not a finding; so "broken guarantee" covers every invalid result that matters.
    # An assignor that raises (an exception in a peer, a command that failed) is a finding too.
    # A timeout breaks the guarantee too (no assignment), but depends on the machine: not a counterexample.
    broken = e.status in ("ok", "invalid") and e.guarantee is not None and e.guarantee.applies and not e.guarantee.kept
    if not broken and e.status != "error":
        return None
    reason = e.message or (e.guarantee.reason if e.guarantee is not None else "")
    if e.verdict is not None and not e.verdict.valid:
        reason = "; ".join(str(v) for v in e.verdict.violations[:3])
    document = {"assignor": e.assignor, "finding": reason, "scenario": problem.to_mapping()}
    return dumps(document)


def _row(base: dict, **values: Any) -> dict:
    row = dict.fromkeys(COLUMNS)
    row.update(base)
    for key, value in values.items():
        if key not in row:
            raise KeyError(f"not a sweep column: {key}")
        row[key] = value
    library = library_version(row["assignor"]) if isinstance(row["assignor"], str) else None
    if library:  # a client library's assignor: the version judged goes with its result
        row["version"] = f"{row['version']}; {library}" if row["version"] else library
    return row
