"""What every exact solve returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

import numpy as np

from assignment_oracle.optimal.certificate import Certificate, certify
from assignment_oracle.optimal.levels import ObjectiveWeights, objective_weights
from assignment_oracle.optimal.network import AggregatedNetwork
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.metrics import cross_rack
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import owner_arrays

__all__ = ["OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "Solution", "SolverError", "finish"]

#: Proven optimal (and, for every solution we return with it, certified).
OPTIMAL = "OPTIMAL"
#: A valid assignment, not proven optimal (time limit); ``bound`` says how far it can be.
FEASIBLE = "FEASIBLE"
#: No valid assignment exists (not possible without side constraints; kept for later ones).
INFEASIBLE = "INFEASIBLE"
#: The time limit struck before any assignment was found; only ``bound`` is known.
UNKNOWN = "UNKNOWN"


@dataclass(frozen=True, eq=False)
class Solution:
    """The result of :func:`optimal.solve`.

    Attributes
    ----------
    status:
        ``OPTIMAL``, ``FEASIBLE`` (time limit; see ``bound``), ``INFEASIBLE``
        or ``UNKNOWN`` (no assignment found in time).
    method:
        ``flow``, ``networkx`` or ``cpsat``.
    assignment:
        The assignment (``None`` when ``UNKNOWN`` or ``INFEASIBLE``).
    objective, bound:
        The value of ``W * sum(x**2) - r * kept + q * cross`` (see
        :mod:`optimal.levels`) for the assignment, and a proven lower bound on
        the optimum; equal when ``OPTIMAL``.
    certificate:
        Member prices that :func:`optimal.certificate.verify` accepts
        (``OPTIMAL`` only).
    retained:
        Partitions that stay with their resolved previous owner.
    cross_rack:
        Partitions given to a member outside their replicas' racks
        (:func:`~assignment_oracle.problem.metrics.cross_rack`; 0 without
        rack information).
    wall_time:
        Seconds spent in :func:`optimal.solve`, model building included.
    stats:
        Model sizes and iterations, for benchmarks.
    """

    problem: Problem
    network: AggregatedNetwork
    status: str
    method: str
    assignment: Assignment | None
    objective: int | None
    bound: int | None
    certificate: Certificate | None
    weights: ObjectiveWeights
    wall_time: float
    retained: int | None = None
    cross_rack: int | None = None
    stats: Mapping[str, int] = field(default_factory=dict)

    @cached_property
    def load_array(self) -> np.ndarray:
        ids = self.problem.member_ids
        return np.array([self.assignment.load(m) for m in ids], dtype=np.int64)

    @property
    def loads(self) -> dict[str, int]:
        """Member id -> number of partitions."""
        return {m: int(x) for m, x in zip(self.problem.member_ids, self.load_array)}

    @property
    def sorted_loads(self) -> tuple[int, ...]:
        """Loads sorted descending: the vector "most balanced" is about."""
        return tuple(int(x) for x in sorted(self.load_array.tolist(), reverse=True))

    @property
    def sum_of_squares(self) -> int:
        return int(sum(int(x) ** 2 for x in self.load_array))

    @property
    def owned(self) -> int:
        """Partitions that had a resolved previous owner."""
        return int((self.network.previous_owner >= 0).sum())

    @property
    def moved(self) -> int | None:
        """Partitions whose (still eligible) previous owner lost them."""
        return None if self.retained is None else self.owned - self.retained

    def to_mapping(self, *, timing: bool = False, plain: bool = True) -> dict:
        """The JSON document ``assignment-oracle solve`` writes.

        Wall time is left out unless ``timing`` is set, so that the same input
        gives the same bytes.  With ``plain=False`` the assignment stays an
        :class:`Assignment` (every member listed), which
        :func:`~assignment_oracle.problem.scenario_json.dumps` writes straight
        from its rows.
        """
        problem, claims = self.problem, self.network.claims
        out: dict = {
            "status": self.status,
            "method": self.method,
            "objective_order": list(problem.objective),
            "objective": self.objective,
            "bound": self.bound,
            "unsubscribed_topics": list(problem.unsubscribed_topics),
            "missing_topics": {m: list(ts) for m, ts in problem.missing_topics.items()},
            "dropped_claims": [d.to_mapping() for d in claims.dropped],
        }
        if self.assignment is not None:
            out.update(
                assignment=(self.assignment.to_mapping(problem.member_ids) if plain
                            else self.assignment.including(problem.member_ids)),
                loads=self.loads,
                sorted_loads=list(self.sorted_loads),
                sum_of_squares=self.sum_of_squares,
                retained=self.retained,
                moved=self.moved,
                owned=self.owned,
                cross_rack=self.cross_rack,
            )
        out["certificate"] = None if self.certificate is None else self.certificate.to_mapping()
        if timing:
            out["wall_time_s"] = round(self.wall_time, 6)
            out["stats"] = dict(self.stats)
        return out


def retained_count(network: AggregatedNetwork, owners: Mapping[str, np.ndarray]) -> int:
    """Partitions that stay with their resolved previous owner, given owner arrays."""
    kept = 0
    for i, topic in enumerate(network.topics):
        before = network.previous_owner[network.topic_start[i] : network.topic_start[i + 1]]
        kept += int(((before >= 0) & (owners[topic] == before)).sum())
    return kept


def penalised_count(network: AggregatedNetwork, owners: Mapping[str, np.ndarray]) -> int:
    """Free partitions on a penalised arc (given or kept outside their replica racks where
    a local member was possible): the ``cross`` term of the objective (:mod:`optimal.levels`)."""
    if not network.penalised:
        return 0
    owner = network.global_owner(owners)
    free = ~network.fixed
    arc = network.arc_index(network.hub_of_partition[free], owner[free])
    return int(network.arc_cross[arc[arc >= 0]].sum())


def weighted_objective(weights: ObjectiveWeights, loads: np.ndarray, kept: int, penalised: int = 0) -> int:
    squares = int(sum(int(x) ** 2 for x in loads))
    return weights.balance_weight * squares - (weights.stickiness_reward or 0) * kept + weights.rack_penalty * penalised


def finish(
    network: AggregatedNetwork,
    method: str,
    assignment: Assignment | None,
    proven_optimal: bool,
    bound: int | None,
    started: float,
    stats: Mapping[str, int],
    clock,
) -> Solution:
    """Assemble a :class:`Solution`; certify and verify it if claimed optimal.

    A model that claims optimality must produce a certificate that the
    independent verifier accepts; otherwise this raises :class:`SolverError`
    (a bug, never a silent wrong answer).
    """
    weights = objective_weights(network)
    problem = network.problem
    objective = certificate = kept = cross = None
    status = UNKNOWN
    if assignment is not None:
        owners, broken = owner_arrays(problem, assignment)
        if broken:
            raise SolverError(f"{method}: the solver produced an invalid assignment ({broken[0]})")
        loads = network.loads(owners)
        kept = retained_count(network, owners)
        objective = weighted_objective(weights, loads, kept, penalised_count(network, owners))
        cross = cross_rack(problem, assignment)
        status = FEASIBLE
        if proven_optimal:
            # certify() returns only certificates that verify() accepts.
            certificate = certify(problem, assignment, network, owners)
            if certificate is None:
                raise SolverError(f"{method}: the solver reported an optimum that does not certify")
            status, bound = OPTIMAL, objective
    return Solution(
        problem=problem,
        network=network,
        status=status,
        method=method,
        assignment=assignment,
        objective=objective,
        bound=bound,
        certificate=certificate,
        weights=weights,
        wall_time=clock() - started,
        retained=kept,
        cross_rack=cross,
        stats=dict(stats),
    )
