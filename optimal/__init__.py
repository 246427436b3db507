"""Exact models: the most balanced, then stickiest, assignment, with a proof.

``solve(problem, method="flow")`` is the entry point; ``flow`` (OR-Tools
min-cost flow) is the default, ``cpsat`` the second opinion, ``networkx``
the flow model on networkx's network simplex (for comparison).  Every
optimal solution carries a certificate that :func:`verify` checks without a
solver.
"""

from __future__ import annotations

from assignment_oracle.optimal.certificate import Certificate, certificate_from_mapping, certify, verify
from assignment_oracle.optimal.network import AggregatedNetwork, build_network
from assignment_oracle.optimal.solution import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Solution, SolverError
from assignment_oracle.problem.claims import ResolvedClaims
from assignment_oracle.problem.model import Problem

__all__ = [
    "METHODS",
    "DEFAULT_METHOD",
    "solve",
    "Solution",
    "SolverError",
    "Certificate",
    "certify",
    "verify",
    "certificate_from_mapping",
    "AggregatedNetwork",
    "build_network",
    "OPTIMAL",
    "FEASIBLE",
    "INFEASIBLE",
    "UNKNOWN",
]

METHODS = ("flow", "cpsat", "networkx")
DEFAULT_METHOD = "flow"


def solve(
    problem: Problem,
    method: str = DEFAULT_METHOD,
    *,
    time_limit: float | None = None,
    claims: ResolvedClaims | None = None,
    hint=None,
) -> Solution:
    """The optimal assignment of ``problem`` by ``method`` (see module docstring).

    ``time_limit`` (seconds) and ``hint`` (a valid assignment to warm-start
    from) apply to ``cpsat``; the flow methods are exact and polynomial and
    take neither.
    """
    if problem.join_groups:
        raise ValueError("the problem has join_groups: co-partitioning is solved by optimal.join_groups.solve "
                         "(a flow cannot express it, and this model ignores it)")
    if problem.weights:
        raise ValueError("the problem has weights: weighted loads are solved by optimal.weighted.solve "
                         "(this model counts partitions)")
    if method == "flow":
        from assignment_oracle.optimal.flow import solve as run

        return run(problem, claims=claims)
    if method == "networkx":
        from assignment_oracle.optimal.flow import solve as run

        return run(problem, claims=claims, backend="networkx")
    if method == "cpsat":
        from assignment_oracle.optimal.cpsat import solve as run

        return run(problem, claims=claims, time_limit=time_limit, hint=hint)
    raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
