"""What every exact solve returns."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from functools import cached_property
from typing import Callable, Mapping

import numpy as np

from assignment_oracle.optimal.certificate import Certificate, certify
from assignment_oracle.optimal.levels import ObjectiveWeights, objective_weights
from assignment_oracle.optimal.network import AggregatedNetwork
from assignment_oracle.optimal.request import Measures, Request, measure
from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.metrics import cross_rack
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import owner_arrays

__all__ = [
    "OPTIMAL",
    "FEASIBLE",
    "INFEASIBLE",
    "UNKNOWN",
    "Solution",
    "TierResult",
    "SolverError",
    "finish",
    "valid_owners",
]

#: Proven optimal (and, for every solution we return with it, certified).
OPTIMAL = "OPTIMAL"
#: A valid assignment, not proven optimal (time limit); ``bound`` says how far it can be.
FEASIBLE = "FEASIBLE"
#: No assignment meets the constraints (join groups no single member can take, a budget of moves).
INFEASIBLE = "INFEASIBLE"
#: The time limit struck before any assignment was found; only ``bound`` is known.
UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class TierResult:
    """One tier of the objective as solved: its value on the answer, the proven bound, and how.

    ``value`` is measured on the answer by :func:`optimal.request.measure` (balance: the sorted loads
    under ``dec-min``, the sum of squares, or ``[largest, sum of squares]``; ``rack``: cross-rack
    partitions; ``spread``: the sum of squared per-topic counts; ``stickiness``: partitions kept).
    ``bound`` is what was proven about the best value (equal to ``value`` when ``proven``; ``None``
    when nothing was); ``how`` names the proof: ``certificate`` (member prices that
    :func:`optimal.verify` accepts), ``flow`` (an integral min-cost flow), ``cpsat`` (CP-SAT's
    status, stage by stage), ``bound`` (the value meets a bound computed without a solver).
    """

    tier: str
    value: object
    bound: object
    proven: bool
    how: str

    def to_mapping(self) -> dict:
        return {"tier": self.tier, "value": self.value, "bound": self.bound, "proven": self.proven, "how": self.how}


@dataclass(frozen=True, eq=False)
class Solution:
    """What :func:`optimal.solve` returns, whatever the engine.

    Attributes
    ----------
    status:
        ``OPTIMAL`` (every tier proven, in order), ``FEASIBLE`` (a valid answer, some tier not proven
        in time: see ``tiers``), ``INFEASIBLE`` (no assignment meets the constraints: ``message``
        says which) or ``UNKNOWN`` (the time limit struck before any assignment).
    method:
        The engine: ``flow``, ``networkx``, ``cpsat`` (the aggregated network's models, with a
        certificate), ``flow-spread`` (the per-topic spread flow) or ``cpsat-staged`` (the composed
        model, :mod:`optimal.staged`).
    assignment:
        The assignment (``None`` when ``UNKNOWN`` or ``INFEASIBLE``).
    request:
        What was asked (:class:`optimal.request.Request`); ``objective_order`` is its tiers.
    tiers:
        One :class:`TierResult` per tier of ``objective_order``, in order.
    stages:
        The staged model's stages (name, value, bound, proven), for the record.
    network, objective, bound, certificate, weights:
        The aggregated network's engines only: the network, the value of ``W * sum(x**2) - r * kept +
        q * cross`` (:mod:`optimal.levels`) and a proven lower bound on it, the member prices
        (``OPTIMAL`` only), the weights ``W, r, q``.
    retained, cross_rack:
        Partitions kept by their resolved previous owner; partitions outside their replicas' racks.
    wall_time:
        Seconds spent in :func:`optimal.solve`, model building included.
    stats:
        Model sizes and iterations, for benchmarks.
    measured:
        The answer's :class:`~assignment_oracle.optimal.request.Measures` when the engine has taken them
        (to check its answer), so :attr:`measures` is not computed twice; given at construction only.
    """

    problem: Problem
    status: str
    method: str
    assignment: Assignment | None
    network: AggregatedNetwork | None = None
    objective: int | None = None
    bound: int | None = None
    certificate: Certificate | None = None
    weights: ObjectiveWeights | None = None
    wall_time: float = 0.0
    retained: int | None = None
    cross_rack: int | None = None
    stats: Mapping[str, int] = field(default_factory=dict)
    request: Request = field(default_factory=Request)
    tiers: tuple[TierResult, ...] = ()
    stages: tuple[Mapping[str, object], ...] = ()
    message: str = ""
    claims: ResolvedClaims | None = None
    measured: InitVar[Measures | None] = None

    def __post_init__(self, measured: Measures | None) -> None:
        if measured is not None:  # the engine measured its answer (to check it): not measured again
            self.__dict__["measures"] = measured

    @property
    def objective_order(self) -> tuple[str, ...]:
        return self.request.tiers(self.problem)

    @cached_property
    def measures(self) -> Measures | None:
        """Every tier's number on the answer (:func:`optimal.request.measure`), computed once."""
        if self.assignment is None:
            return None
        return measure(self.problem, self.assignment, self.resolved_claims)

    @property
    def resolved_claims(self) -> ResolvedClaims:
        if self.network is not None:
            return self.network.claims
        if self.claims is not None:
            return self.claims
        return resolve_claims(self.problem)

    def _answer(self) -> Assignment:
        if self.assignment is None:
            raise ValueError(f"a {self.status} solution has no assignment")
        return self.assignment

    def _measured(self) -> Measures:
        measures = self.measures
        if measures is None:
            raise ValueError(f"a {self.status} solution has no assignment")
        return measures

    @cached_property
    def load_array(self) -> np.ndarray:
        """Partitions per member, in ``problem.members`` order."""
        answer = self._answer()
        return np.array([answer.load(m) for m in self.problem.member_ids], dtype=np.int64)

    @property
    def loads(self) -> dict[str, int]:
        """Member id -> number of partitions."""
        return {m: int(x) for m, x in zip(self.problem.member_ids, self.load_array)}

    @property
    def sorted_loads(self) -> tuple[int, ...]:
        """Loads sorted descending: the vector "most balanced" is about."""
        return tuple(int(x) for x in sorted(self.load_array.tolist(), reverse=True))

    @property
    def weighted_loads(self) -> dict[str, int]:
        """Member id -> the sum of its partitions' weights (the partition count without weights)."""
        return {m: int(x) for m, x in zip(self.problem.member_ids, self._measured().loads)}

    @property
    def sum_of_squares(self) -> int:
        return int(sum(int(x) ** 2 for x in self.load_array))

    @property
    def owned(self) -> int:
        """Partitions that had a resolved previous owner."""
        return self.resolved_claims.owned_count

    @property
    def moved(self) -> int | None:
        """Partitions whose (still eligible) previous owner lost them."""
        return None if self.retained is None else self.owned - self.retained

    def tier(self, name: str) -> TierResult | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def to_mapping(self, *, timing: bool = False, plain: bool = True) -> dict:
        """The JSON document ``assignment-oracle solve`` writes (docs/formats.md, "solve output"):
        the same keys for every engine.

        Wall time is left out unless ``timing`` is set, so that the same input
        gives the same bytes.  With ``plain=False`` the assignment stays an
        :class:`Assignment` (every member listed), which
        :func:`~assignment_oracle.problem.scenario_json.dumps` writes straight
        from its rows.
        """
        problem, claims = self.problem, self.resolved_claims
        out: dict = {
            "status": self.status,
            "method": self.method,
            "objective_order": list(self.objective_order),
            "balance_definition": self.request.balance,
            "max_moves": self.request.max_moves,
            "max_moves_per_member": self.request.max_moves_per_member,
            "join_groups": [list(g) for g in problem.join_groups],
            "tiers": [t.to_mapping() for t in self.tiers],
            "stages": [dict(s) for s in self.stages],
            "message": self.message,
            "objective": self.objective,
            "bound": self.bound,
            "unsubscribed_topics": list(problem.unsubscribed_topics),
            "missing_topics": {m: list(ts) for m, ts in problem.missing_topics.items()},
            "dropped_claims": [d.to_mapping() for d in claims.dropped],
            "owned": self.owned,
        }
        if self.assignment is not None:
            measures = self._measured()
            out.update(
                assignment=(
                    self.assignment.to_mapping(problem.member_ids)
                    if plain
                    else self.assignment.including(problem.member_ids)
                ),
                loads=self.loads,
                sorted_loads=list(self.sorted_loads),
                sum_of_squares=self.sum_of_squares,
                retained=measures.kept,
                moved=measures.moved,
                moved_per_member={m: int(n) for m, n in zip(problem.member_ids, measures.moved_from) if n},
                cross_rack=measures.cross_rack,
                topic_squares=measures.topic_squares,
            )
            if problem.weights:
                out["weighted_loads"] = self.weighted_loads
                out["weighted_sorted_loads"] = list(measures.sorted_loads)
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


def valid_owners(
    problem: Problem, assignment: Assignment, refusal: Callable[[str], Exception]
) -> dict[str, np.ndarray]:
    """The assignment's owner arrays (:func:`problem.ownership.owner_arrays`) when it is valid; else
    ``refusal(the first violation)`` is raised."""
    owners, broken = owner_arrays(problem, assignment)
    if broken:
        raise refusal(broken[0])
    return owners


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
        owners = valid_owners(
            problem,
            assignment,
            lambda broken: SolverError(f"{method}: the solver produced an invalid assignment ({broken})"),
        )
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
