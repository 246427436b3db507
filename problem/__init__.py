"""The shared problem model: what a rebalance is, and what an assignment is.

``optimal/``, ``heuristics/`` and ``compare/`` all import their types from
here.  See :mod:`problem.model` for the types, :mod:`problem.claims` for
previous-ownership resolution (KIP-341, KAFKA-14639) and
:mod:`problem.scenario_json` for the validated JSON formats.
"""

from assignment_oracle.problem.claims import DROP_REASONS, DroppedClaim, ResolvedClaims, resolve_claims
from assignment_oracle.problem.model import (
    BALANCE,
    BALANCE_FIRST,
    STICKINESS,
    STICKINESS_FIRST,
    Assignment,
    Member,
    Problem,
    Topic,
    TopicPartition,
)
from assignment_oracle.problem.scenario_json import InputError

__all__ = [
    "BALANCE",
    "BALANCE_FIRST",
    "STICKINESS",
    "STICKINESS_FIRST",
    "Assignment",
    "DROP_REASONS",
    "DroppedClaim",
    "InputError",
    "Member",
    "Problem",
    "ResolvedClaims",
    "Topic",
    "TopicPartition",
    "resolve_claims",
]
