"""A cooperative rebalance judged against the most balanced assignment its own moves could have bought.

KIP-429's cooperative protocol revokes partitions in a first rebalance and
hands them out in a second; every partition that changes owner is a pause in
its consumption, so the cooperative assignors (``cooperative-sticky``,
``kafka4-cooperative-sticky``) aim to move few.  Moving few is no excuse for
balancing badly with the moves made: :func:`judge` takes the assignor's
settled assignment, counts its moves (``k`` in all, at most ``j`` away from
any one member), and computes with :mod:`optimal.move_limits` the most
balanced assignment within those same limits.  The assignor is *dominated*
when that assignment is strictly more balanced (dec-min counts), or as
balanced with fewer moves: its moves bought less than they could.  Unknown
(``None``) when the move-limited optimum was not proven in the time given.
"""

from __future__ import annotations

from dataclasses import dataclass

from assignment_oracle.optimal import move_limits
from assignment_oracle.optimal.solution import OPTIMAL
from assignment_oracle.problem.metrics import load_vector, sorted_loads
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["JUDGE_TIME_LIMIT", "MovesVerdict", "judge"]

#: Seconds the move-limited optimum may take when judging.
JUDGE_TIME_LIMIT = 10.0


@dataclass(frozen=True)
class MovesVerdict:
    """The assignor's moves and balance against the most balanced within the same moves."""

    moved: int
    most_from_one_member: int
    sorted_loads: tuple[int, ...]
    best_sorted_loads: tuple[int, ...] | None
    best_moved: int | None
    proven: bool

    @property
    def dominated(self) -> bool | None:
        """Whether the same move budget buys a strictly better result (more balanced, or as balanced
        with fewer moves); None when the move-limited optimum was not proven."""
        if not self.proven or self.best_sorted_loads is None:
            return None
        return (self.best_sorted_loads, self.best_moved) < (self.sorted_loads, self.moved)

    def to_mapping(self) -> dict:
        return {
            "moved": self.moved,
            "most_from_one_member": self.most_from_one_member,
            "sorted_loads": list(self.sorted_loads),
            "best_sorted_loads": None if self.best_sorted_loads is None else list(self.best_sorted_loads),
            "best_moved": self.best_moved,
            "proven": self.proven,
            "dominated": self.dominated,
        }


def judge(problem: Problem, assignment: Assignment, *, time_limit: float | None = JUDGE_TIME_LIMIT) -> MovesVerdict:
    """``assignment`` against the most balanced assignment within its own move counts (module docstring)."""
    moved, per_member = move_limits.moves(problem, assignment)
    most = max(per_member.values(), default=0)
    best = move_limits.solve(problem, max_moves=moved, max_moves_per_member=most, time_limit=time_limit)
    return MovesVerdict(
        moved=moved,
        most_from_one_member=most,
        sorted_loads=sorted_loads(load_vector(problem, assignment)),
        best_sorted_loads=best.sorted_loads if best.assignment is not None else None,
        best_moved=best.moved if best.assignment is not None else None,
        proven=best.status == OPTIMAL,
    )
