# Frozen copy of compare/judge/check.py at commit 71d9755 (before issue 39, the one judge): the verdicts the project
# gave until then, kept as the reference tests/compare/test_judge.py compares the one judge with.  Not library code.
"""The verdict on one candidate assignment against the optimum (``assignment-oracle check``).

:func:`check` returns a :class:`Verdict`; :meth:`Verdict.exit_code` is the
CLI's exit status:

* 0: valid and optimal on every tier of the problem's objective order;
* 1: valid, with a gap on some tier;
* 3: not valid;
* 4: valid and optimal, but the certificate that came with it does not verify.

(2 is the CLI's "bad input".)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assignment_oracle.compare.judge.balance import Move, improving_chain, kafka_balance_violations
from assignment_oracle.optimal import Certificate, Solution, solve, verify
from assignment_oracle.problem.metrics import (
    cross_rack,
    kip54_balance_score,
    load_vector,
    per_topic_spread,
    retained,
    sorted_load_distance,
    sorted_loads,
    spread,
    sum_of_squares,
)
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import Violation, violations

__all__ = ["Verdict", "check"]


@dataclass(frozen=True)
class Verdict:
    """Everything ``check`` reports; see :func:`check`."""

    violations: tuple[Violation, ...]
    loads: dict[str, int]
    sorted_loads: tuple[int, ...]
    optimal_sorted_loads: tuple[int, ...]
    kip54_score: int
    optimal_kip54_score: int
    spread: int
    optimal_spread: int
    sum_of_squares: int
    optimal_sum_of_squares: int
    balance_moves: int | None
    most_balanced: bool | None
    kafka_condition: bool | None
    kafka_condition_breaches: tuple[Move, ...]
    improving_chain: tuple[Move, ...] | None
    retained: int
    optimal_retained: int
    owned: int
    objective_order: tuple[str, ...]
    tiers: dict[str, bool] = field(default_factory=dict)
    #: Whether racks matter in this scenario (members and partitions both carry them, KIP-881); without,
    #: every partition is local and the rack tier says nothing (the text leaves it out).
    racks: bool = False
    #: Partitions outside their replicas' racks (KIP-881), the candidate's and the optimum's.
    cross_rack: int = 0
    optimal_cross_rack: int = 0
    oracle_certificate_verified: bool = False
    certificate: str = "absent"  # absent | verified | failed
    certificate_problems: tuple[str, ...] = ()
    per_topic_spread: dict[str, int] = field(default_factory=dict)

    @property
    def moved(self) -> int:
        """Previously owned partitions that left their owner (revocations)."""
        return self.owned - self.retained

    @property
    def optimal_moved(self) -> int:
        return self.owned - self.optimal_retained

    @property
    def max_topic_spread(self) -> int:
        """The worst topic's max-min partitions per subscriber (0 without topics)."""
        return max(self.per_topic_spread.values(), default=0)

    @property
    def valid(self) -> bool:
        return not self.violations

    @property
    def optimal(self) -> bool:
        return self.valid and all(self.tiers.values())

    def exit_code(self) -> int:
        if not self.valid:
            return 3
        if not self.optimal:
            return 1
        return 4 if self.certificate == "failed" else 0

    def to_mapping(self) -> dict:
        def moves(ms):
            return None if ms is None else [m.to_mapping() for m in ms]

        return {
            "valid": self.valid,
            "violations": [v.to_mapping() for v in self.violations],
            "optimal": self.optimal,
            "objective_order": list(self.objective_order),
            "tiers": dict(self.tiers),
            "loads": dict(self.loads),
            "sorted_loads": list(self.sorted_loads),
            "optimal_sorted_loads": list(self.optimal_sorted_loads),
            "most_balanced": self.most_balanced,
            "balance_moves": self.balance_moves,
            "kip54_score": self.kip54_score,
            "optimal_kip54_score": self.optimal_kip54_score,
            "spread": self.spread,
            "optimal_spread": self.optimal_spread,
            "sum_of_squares": self.sum_of_squares,
            "optimal_sum_of_squares": self.optimal_sum_of_squares,
            "kafka_balance_condition": self.kafka_condition,
            "kafka_balance_condition_breaches": moves(self.kafka_condition_breaches),
            "improving_chain": moves(self.improving_chain),
            "retained": self.retained,
            "optimal_retained": self.optimal_retained,
            "owned": self.owned,
            "moved": self.moved,
            "optimal_moved": self.optimal_moved,
            "cross_rack": self.cross_rack,
            "optimal_cross_rack": self.optimal_cross_rack,
            "per_topic_spread": dict(self.per_topic_spread),
            "oracle_certificate_verified": self.oracle_certificate_verified,
            "certificate": self.certificate,
            "certificate_problems": list(self.certificate_problems),
            "exit_code": self.exit_code(),
        }


def check(
    problem: Problem,
    assignment: Assignment,
    certificate: Certificate | None = None,
    *,
    method: str = "flow",
    optimum: Solution | None = None,
) -> Verdict:
    """Judge ``assignment`` against the optimum of ``problem``.

    "Most balanced" is always judged against the globally most balanced
    loads (the ``balance, rack, stickiness`` optimum); the tiers follow the
    problem's own objective order.  ``certificate``, if given (``solve``
    writes one next to its assignment), is verified too.  ``optimum``, if
    given, is ``solve(problem)``'s result, reused (judging several
    candidates on one problem solves it once).
    """
    if optimum is None:
        optimum = solve(problem, method=method)
    balance_optimum = optimum if problem.balance_first else solve(problem.balance_first_order(), method=method)
    oracle_ok = optimum.certificate is not None and not verify(
        problem, optimum.assignment, optimum.certificate, optimum.network
    )
    found = violations(problem, assignment)
    loads = load_vector(problem, assignment)
    best = balance_optimum.sorted_loads
    valid = not found
    kept = retained(problem, assignment, optimum.network.claims)
    cross = cross_rack(problem, assignment)

    tiers = _tiers(problem, optimum, loads, kept, cross) if valid else {t: False for t in problem.objective}
    most_balanced = (sorted_loads(loads) == best) if valid else None
    breaches = tuple(kafka_balance_violations(problem, assignment)) if valid else ()
    # A most balanced assignment has no improving chain (one would make the loads better than the best).
    chain = _chain(problem, assignment) if valid and not most_balanced else None
    cert_state, cert_problems = "absent", ()
    if certificate is not None:
        cert_problems = verify(problem, assignment, certificate, optimum.network)
        cert_state = "failed" if cert_problems else "verified"
    return Verdict(
        violations=found,
        loads=dict(zip(problem.member_ids, loads)),
        sorted_loads=sorted_loads(loads),
        optimal_sorted_loads=best,
        kip54_score=kip54_balance_score(loads),
        optimal_kip54_score=kip54_balance_score(best),
        spread=spread(loads),
        optimal_spread=spread(best),
        sum_of_squares=sum_of_squares(loads),
        optimal_sum_of_squares=sum_of_squares(best),
        balance_moves=sorted_load_distance(loads, best) if valid else None,
        most_balanced=most_balanced,
        kafka_condition=(not breaches) if valid else None,
        kafka_condition_breaches=breaches,
        improving_chain=chain,
        retained=kept,
        optimal_retained=optimum.retained,
        owned=optimum.owned,
        objective_order=problem.objective,
        tiers=tiers,
        racks=problem.rack_locality.active,
        oracle_certificate_verified=oracle_ok,
        certificate=cert_state,
        certificate_problems=tuple(cert_problems),
        per_topic_spread=per_topic_spread(problem, assignment),
        cross_rack=cross,
        optimal_cross_rack=optimum.cross_rack,
    )


def _tiers(problem: Problem, optimum: Solution, loads, kept: int, cross: int) -> dict[str, bool]:
    """Tier by tier, in objective order: is the candidate as good as the optimum,
    given that it matched every earlier tier?"""
    reached = {
        "balance": sum_of_squares(loads) == optimum.sum_of_squares,
        "rack": cross == optimum.cross_rack,
        "stickiness": kept == optimum.retained,
    }
    tiers, so_far = {}, True
    for tier in problem.objective:
        so_far = so_far and reached[tier]
        tiers[tier] = so_far
    return tiers


def _chain(problem: Problem, assignment: Assignment):
    chain = improving_chain(problem, assignment)
    return None if chain is None else tuple(chain)
