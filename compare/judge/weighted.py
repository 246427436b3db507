"""An assignment judged on weighted loads (lag, bytes/s) against the weighted optimum.

Kafka's assignors count partitions: range, round robin and the sticky family
are "as balanced as possible" in partition counts and ignore what a partition
weighs.  On a scenario with ``weights`` (docs/formats.md, "Weighted
partitions"), :func:`judge` says what that costs:

* the assignment's weighted loads, sorted, against the weighted optimum's,
  and whether they are equal (``most_balanced``; unknown, ``None``, when the
  optimum's balance tier was not proven in time);
* its largest weighted load against the optimum's and against a proven
  lower bound (``largest_ratio``: how much more the busiest member carries
  than it has to);
* the partitions it keeps against the optimum's (``stickiest``).

The weighted optimum is the front door's (:func:`optimal.solve`) on the
weighted problem, asked for exactly what the verdict judges: :data:`REQUEST`,
dec-min over weighted loads, then the most partitions kept (the staged model,
:mod:`optimal.staged`).  With join groups too it is the co-partitioned
weighted optimum (units weigh their partitions together); when no
co-partitioned assignment exists (a unit no single member can take) it is
``INFEASIBLE``, and no assignment is most balanced.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assignment_oracle.optimal import INFEASIBLE, OPTIMAL, Request, Solution, measure, solve
from assignment_oracle.problem.model import BALANCE, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import violations
from assignment_oracle.problem.text import lines_text

__all__ = ["JUDGE_TIME_LIMIT", "REQUEST", "WeightedVerdict", "judge", "largest_lower_bound", "solve_weighted"]

#: Seconds the weighted optimum may take when judging; a stage not proven by then makes the verdict
#: say "unknown" for what it decides.
JUDGE_TIME_LIMIT = 20.0
#: What the weighted optimum is asked for: the tiers the verdict judges, dec-min weighted loads then the most
#: partitions kept (not the scenario's rack or spread tiers, which the verdict does not measure).
REQUEST = Request(objective=(BALANCE, STICKINESS))
#: The staged model's stage that minimises the largest load (optimal.staged), read for its proven bound.
_LARGEST = "largest load"


def solve_weighted(problem: Problem, *, time_limit: float | None = JUDGE_TIME_LIMIT) -> Solution:
    """The weighted optimum (dec-min weighted loads, then stickiest): :func:`optimal.solve` of
    :data:`REQUEST` on ``problem`` (its weights and join groups), proven tier by tier or with what was
    proven in ``time_limit``."""
    return solve(problem, REQUEST, time_limit=time_limit)


def _largest_proven(optimum: Solution) -> bool:
    """Whether the optimum's largest weighted load is proven least: its balance tier is proven, or the
    largest-load stage is (whatever came after it)."""
    if optimum.assignment is None:
        return False
    balance = optimum.tier(BALANCE)
    if balance is not None and balance.proven:
        return True
    return any(s.get("stage") == _LARGEST and s.get("proven") for s in optimum.stages)


def largest_lower_bound(problem: Problem, optimum: Solution) -> int:
    """A proven lower bound on the largest weighted load of any assignment the optimum ranges over.

    The optimum's largest load itself once it is proven least; otherwise the better of the bound
    CP-SAT proved on the largest-load stage (when that stage ran) and the bound every assignment meets:
    the heaviest partition of a subscribed topic, and the subscribed topics' weight shared evenly
    among the members subscribing to anything (rounded up).
    """
    if _largest_proven(optimum):
        return int(optimum.measures.loads.max(initial=0))
    subscribed = [i for i, t in enumerate(problem.topic_names) if problem.subscribers[t]]
    offsets = problem.partition_offsets
    weights = (
        np.concatenate([problem.weight_array[offsets[i] : offsets[i + 1]] for i in subscribed])
        if subscribed
        else np.zeros(0, dtype=np.int64)
    )
    takers = len(set().union(*(problem.subscribers[problem.topic_names[i]] for i in subscribed)))
    bound = max(int(weights.max(initial=0)), -(-int(weights.sum()) // takers) if takers else 0)
    for stage in optimum.stages:
        value = stage.get("bound")
        if stage.get("stage") == _LARGEST and isinstance(value, (int, float)):
            bound = max(bound, int(value))
    return bound


@dataclass(frozen=True)
class WeightedVerdict:
    """One assignment's weighted loads against the weighted optimum (module docstring)."""

    valid: bool
    sorted_loads: tuple[int, ...]
    optimal_sorted_loads: tuple[int, ...] | None
    lower_bound: int
    retained: int
    optimal_retained: int | None
    optimum_status: str
    balance_proven: bool
    stickiness_proven: bool
    largest_proven: bool = False

    @property
    def largest(self) -> int:
        return max(self.sorted_loads, default=0)

    @property
    def optimal_largest(self) -> int | None:
        """The optimum's largest load, when proven least (else unknown: the bound is :attr:`lower_bound`)."""
        if self.optimal_sorted_loads is None or not self.largest_proven:
            return None
        return max(self.optimal_sorted_loads, default=0)

    @property
    def largest_ratio(self) -> float | None:
        """The largest weighted load over the optimum's (1.0: as light as it can be)."""
        best = self.optimal_largest
        if best is None:
            return None
        return 1.0 if best == 0 and self.largest == 0 else (self.largest / best if best else float("inf"))

    @property
    def most_balanced(self) -> bool | None:
        if not self.valid or self.optimum_status == INFEASIBLE:
            return False  # INFEASIBLE: no co-partitioned assignment exists, so none is most balanced
        if not self.balance_proven or self.optimal_sorted_loads is None:
            return None
        return self.sorted_loads == self.optimal_sorted_loads

    @property
    def optimal(self) -> bool | None:
        if self.most_balanced is not True:
            return self.most_balanced
        if not self.stickiness_proven or self.optimal_retained is None:
            return None
        return self.retained >= self.optimal_retained

    def to_mapping(self) -> dict:
        ratio = self.largest_ratio
        return {
            "valid": self.valid,
            "sorted_loads": list(self.sorted_loads),
            "optimal_sorted_loads": None if self.optimal_sorted_loads is None else list(self.optimal_sorted_loads),
            "largest": self.largest,
            "optimal_largest": self.optimal_largest,
            "largest_lower_bound": self.lower_bound,
            "largest_ratio": None if ratio is None else round(ratio, 6),
            "most_balanced": self.most_balanced,
            "retained": self.retained,
            "optimal_retained": self.optimal_retained,
            "optimum_status": self.optimum_status,
            "optimal": self.optimal,
        }

    def text(self) -> str:
        def state(flag: bool | None) -> str:
            return {True: "yes", False: "no", None: "unknown (not proven in time)"}[flag]

        ratio = self.largest_ratio
        lines = [
            f"valid: {'yes' if self.valid else 'no'}",
            f"weighted loads, sorted: {list(self.sorted_loads)}",
            f"weighted optimum ({self.optimum_status}): "
            f"{'-' if self.optimal_sorted_loads is None else list(self.optimal_sorted_loads)}",
            f"largest load: {self.largest}; optimum {'-' if self.optimal_largest is None else self.optimal_largest}"
            f" (proven lower bound {self.lower_bound})" + ("" if ratio is None else f", {ratio:.3f}x the optimum's"),
            f"most balanced (dec-min over weighted loads): {state(self.most_balanced)}",
            f"retained: {self.retained}; optimum retains "
            f"{'-' if self.optimal_retained is None else self.optimal_retained}",
            f"verdict: {_summary(self)}",
        ]
        return lines_text(lines)


def _summary(v: WeightedVerdict) -> str:
    if not v.valid:
        return "not valid"
    if v.optimum_status == INFEASIBLE:
        return "no co-partitioned assignment exists (the weighted optimum is INFEASIBLE)"
    if v.optimal:
        return "the weighted optimum"
    if v.optimal is None:
        return "optimality unknown (the weighted optimum was not proven in time)"
    return "valid, with a gap on weighted loads" if not v.most_balanced else "most balanced, with a stickiness gap"


def judge(problem: Problem, assignment: Assignment, optimum: Solution) -> WeightedVerdict:
    """``assignment``'s weighted loads against ``optimum``, the weighted optimum of ``problem``
    (:func:`solve_weighted`)."""
    measures = measure(problem, assignment)
    best = optimum.measures
    balance = optimum.tier(BALANCE)
    return WeightedVerdict(
        valid=not violations(problem, assignment),
        sorted_loads=measures.sorted_loads,
        optimal_sorted_loads=None if best is None else best.sorted_loads,
        lower_bound=largest_lower_bound(problem, optimum),
        retained=measures.kept,
        optimal_retained=None if best is None else best.kept,
        optimum_status=optimum.status,
        balance_proven=best is not None and balance is not None and balance.proven,
        stickiness_proven=best is not None and optimum.status == OPTIMAL,
        largest_proven=_largest_proven(optimum),
    )
