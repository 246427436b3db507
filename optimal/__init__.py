"""Exact models: the best assignment under the objective asked for, with a proof.

``solve(problem, request)`` is the one entry point (:mod:`optimal.engines`): a
:class:`Request` names the objective's tiers in order (``balance``, ``rack``,
``spread``, ``stickiness``), the balance definition and the budget of moves;
the problem carries join groups and weights.  The engine is chosen from one
table of capabilities: the aggregated min-cost flow (``flow``, with a
certificate that :func:`verify` checks without a solver) wherever the request
is flow-expressible, the per-topic spread flow, the units' flow for join groups
whose units have one size, whatever their previous owners (:mod:`optimal.units_flow`,
with member prices :func:`optimal.units_flow.verify` checks), and otherwise the
staged CP-SAT model that composes every tier and constraint (:mod:`optimal.staged`).
Every engine returns one :class:`Solution` shape.
"""

from __future__ import annotations

from assignment_oracle.optimal.certificate import Certificate, certificate_from_mapping, certify, verify
from assignment_oracle.optimal.engines import DEFAULT_METHOD, ENGINES, METHODS, choose, solve
from assignment_oracle.optimal.network import AggregatedNetwork, build_network
from assignment_oracle.optimal.request import BALANCE_DEFINITIONS, DEFAULT_BALANCE, Request, measure
from assignment_oracle.optimal.solution import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, Solution, SolverError, TierResult
from assignment_oracle.problem.errors import UnsupportedRequest

__all__ = [
    "METHODS",
    "DEFAULT_METHOD",
    "ENGINES",
    "BALANCE_DEFINITIONS",
    "DEFAULT_BALANCE",
    "Request",
    "TierResult",
    "UnsupportedRequest",
    "choose",
    "measure",
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
