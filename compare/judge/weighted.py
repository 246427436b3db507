"""An assignment judged on weighted loads (lag, bytes/s) against the weighted optimum.

Kafka's assignors count partitions: range, round robin and the sticky family
are "as balanced as possible" in partition counts and ignore what a partition
weighs.  On a scenario with ``weights`` (docs/formats.md, "Weighted
partitions"), :func:`judge` says what that costs:

* the assignment's weighted loads, sorted, against the weighted optimum's
  (:mod:`optimal.weighted`: dec-min over weighted loads), and whether they are
  equal (``most_balanced``; unknown, ``None``, when the optimum's balance was
  not proven in time);
* its largest weighted load against the optimum's and against the proven
  lower bound (``largest_ratio``: how much more the busiest member carries
  than it has to);
* the partitions it keeps against the optimum's (``stickiest``).
"""

from __future__ import annotations

from dataclasses import dataclass

from assignment_oracle.optimal import weighted
from assignment_oracle.optimal.solution import OPTIMAL
from assignment_oracle.optimal.weighted import WeightedSolution, weighted_loads
from assignment_oracle.problem.metrics import retained
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import violations

__all__ = ["JUDGE_TIME_LIMIT", "WeightedVerdict", "judge", "solve_weighted"]

#: Seconds the weighted optimum may take when judging; a stage not proven by then makes the verdict
#: say "unknown" for what it decides.
JUDGE_TIME_LIMIT = 20.0


def solve_weighted(problem: Problem, *, time_limit: float | None = JUDGE_TIME_LIMIT) -> WeightedSolution:
    """The weighted optimum (dec-min weighted loads, then stickiest), proven or with its bounds."""
    return weighted.solve(problem, time_limit=time_limit)


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
        if not self.valid:
            return False
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
        lines = [f"valid: {'yes' if self.valid else 'no'}",
                 f"weighted loads, sorted: {list(self.sorted_loads)}",
                 f"weighted optimum ({self.optimum_status}): "
                 f"{'-' if self.optimal_sorted_loads is None else list(self.optimal_sorted_loads)}",
                 f"largest load: {self.largest}; optimum {'-' if self.optimal_largest is None else self.optimal_largest}"
                 f" (proven lower bound {self.lower_bound})" + ("" if ratio is None else f", {ratio:.3f}x the optimum's"),
                 f"most balanced (dec-min over weighted loads): {state(self.most_balanced)}",
                 f"retained: {self.retained}; optimum retains "
                 f"{'-' if self.optimal_retained is None else self.optimal_retained}",
                 f"verdict: {_summary(self)}"]
        return "\n".join(lines) + "\n"


def _summary(v: WeightedVerdict) -> str:
    if not v.valid:
        return "not valid"
    if v.optimal:
        return "the weighted optimum"
    if v.optimal is None:
        return "optimality unknown (the weighted optimum was not proven in time)"
    return "valid, with a gap on weighted loads" if not v.most_balanced else "most balanced, with a stickiness gap"


def judge(problem: Problem, assignment: Assignment, optimum: WeightedSolution) -> WeightedVerdict:
    """``assignment``'s weighted loads against ``optimum``, the weighted optimum of ``problem``."""
    loads = weighted_loads(problem, assignment)
    return WeightedVerdict(
        valid=not violations(problem, assignment),
        sorted_loads=tuple(sorted(loads.values(), reverse=True)),
        optimal_sorted_loads=optimum.sorted_loads if optimum.assignment is not None else None,
        lower_bound=optimum.largest_bound,
        retained=retained(problem, assignment),
        optimal_retained=optimum.retained,
        optimum_status=optimum.status,
        balance_proven=optimum.balance_proven,
        stickiness_proven=optimum.status == OPTIMAL,
        largest_proven=optimum.largest_proven,
    )
