"""A cooperative rebalance judged against the most balanced assignment its own moves could have bought.

KIP-429's cooperative protocol revokes partitions in a first rebalance and
hands them out in a second; every partition that changes owner is a pause in
its consumption, so the cooperative assignors (``cooperative-sticky``,
``kafka4-cooperative-sticky``) aim to move few.  Moving few is no excuse for
balancing badly with the moves made: :func:`judge` takes the assignor's
settled assignment, counts its moves (``k`` in all, at most ``j`` away from
any one member), and asks the front door (:func:`optimal.solve`) for the most
balanced assignment within those same limits: ``Request(objective=("balance",
"stickiness"), max_moves=k, max_moves_per_member=j)`` on partition counts
(the staged model, :mod:`optimal.staged`).  The assignor is *dominated* when
that assignment is strictly more balanced (dec-min counts), or as balanced
with fewer moves: its moves bought less than they could.  Unknown (``None``)
when the move-limited optimum was not proven in the time given.

The unlimited optimum (most balanced, then fewest moves: the min-cost flow ``compare`` solves anyway)
answers without a CP-SAT model whenever it is within the assignor's own limits -- nothing within them is
more balanced, nothing as balanced moves less -- and whenever the assignor itself is as balanced as it with
as few moves: the assignor is then the move-limited optimum.  Pass it (``optimum``: the flow's
:class:`~optimal.Solution` of the same problem, or :func:`unlimited` of it, computed once for several
assignors) and neither case solves anything; without it (or when it answers another objective: racks
between balance and stickiness, say) that flow is solved here first (:func:`unlimited_of`).
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass

import numpy as np

from assignment_oracle.optimal import OPTIMAL, Request, measure, solve
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.metrics import load_vector, sorted_loads
from assignment_oracle.problem.model import BALANCE, RACK, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import place

__all__ = ["JUDGE_TIME_LIMIT", "TIERS", "MovesVerdict", "Unlimited", "judge", "unlimited", "unlimited_of"]

#: Seconds the move-limited optimum may take when judging.
JUDGE_TIME_LIMIT = 10.0
#: What the verdict compares: the most balanced partition counts (dec-min), then the fewest moves.
TIERS = (BALANCE, STICKINESS)


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


@dataclass(frozen=True)
class Unlimited:
    """The unlimited optimum's sorted loads and moves (most balanced, then fewest moves; proven)."""

    sorted_loads: tuple[int, ...]
    moved: int
    most_from_one_member: int


def unlimited(problem: Problem, optimum) -> Unlimited | None:
    """``optimum`` (an :func:`optimal.solve` answer on ``problem``) as :class:`Unlimited`, or None when it is
    not proven most balanced then stickiest on partition counts (another tier between them, another
    balance definition, a budget, join groups or weights: then the move-limited model decides)."""
    if optimum is None or optimum.status != OPTIMAL or optimum.assignment is None:
        return None
    if problem.join_groups or problem.weights:
        return None
    request = getattr(optimum, "request", None)
    if request is not None and (
        request.balance != "dec-min" or request.max_moves is not None or request.max_moves_per_member is not None
    ):
        return None
    solved = getattr(optimum, "problem", None) or problem
    order = request.tiers(solved) if request is not None else solved.objective
    racks = problem.rack_locality.active  # without rack information the rack tier is the same for all
    if tuple(t for t in order if t != RACK or racks) != (BALANCE, STICKINESS):
        return None
    moved, per_member = _moves(problem, optimum.assignment)
    return Unlimited(tuple(optimum.sorted_loads), moved, max(per_member.values(), default=0))


def unlimited_of(problem: Problem) -> Unlimited | None:
    """The unlimited optimum of ``problem`` on partition counts, most balanced then fewest moves: one
    min-cost flow (:func:`optimal.solve` of ``Request(objective=TIERS)``), as :class:`Unlimited`."""
    problem = _on_counts(problem)
    return unlimited(problem, solve(problem, Request(objective=TIERS)))


def _on_counts(problem: Problem) -> Problem:
    """The problem the verdict is about: partition counts, no co-partitioning (judged elsewhere)."""
    if problem.join_groups or problem.weights:
        return dataclasses.replace(problem, join_groups=(), weights=())
    return problem


_last_resolved: list = [None, None]  # (weak reference to a problem, its previous owners): one compare's problem


def _previous_owners(problem: Problem) -> np.ndarray:
    """Each partition's resolved previous owner (:func:`problem.claims.resolve_claims`), resolved once for
    the several assignors (and the optimum) judged on one problem."""
    ref, previous = _last_resolved
    if ref is None or ref() is not problem:
        previous = resolve_claims(problem).previous_owner_array
        _last_resolved[:] = [weakref.ref(problem), previous]
    return previous


def _moves(problem: Problem, assignment: Assignment) -> tuple[int, dict[str, int]]:
    """Partitions ``assignment`` moves (resolved previous owner, another member now), in all and per
    previous owner (its partitions that leave it): vectorised when every row names a member and an
    existing partition, each partition once (a valid assignment); otherwise :func:`optimal.measure`'s
    ``moved_from``, the one definition."""
    placement = place(problem, assignment)
    previous = _previous_owners(problem)
    if not placement.placed.all() or (
        placement.partition.size and np.bincount(placement.partition, minlength=previous.size).max() > 1
    ):
        counted = measure(problem, assignment).moved_from.tolist()
        return sum(counted), dict(zip(problem.member_ids, counted))
    owner = np.full(previous.size, -1, dtype=np.int64)
    owner[placement.partition] = placement.member
    left = (previous >= 0) & (owner != previous)
    counts = np.bincount(previous[left], minlength=len(problem.members)).tolist()
    per_member = dict(zip(problem.member_ids, counts))
    return sum(counts), per_member


def judge(
    problem: Problem, assignment: Assignment, *, time_limit: float | None = JUDGE_TIME_LIMIT, optimum=None
) -> MovesVerdict:
    """``assignment`` against the most balanced assignment within its own move counts (module docstring).

    ``optimum``, if given, is the unlimited optimum of ``problem`` (an :func:`optimal.solve` answer, or
    :func:`unlimited` of one): when it settles the question nothing is solved here.  Join groups and
    weights are set aside: the verdict is about partition counts.
    """
    problem = _on_counts(problem)
    moved, per_member = _moves(problem, assignment)
    most = max(per_member.values(), default=0)
    loads = sorted_loads(load_vector(problem, assignment))
    free = optimum if isinstance(optimum, Unlimited) or optimum is None else unlimited(problem, optimum)
    if free is None:  # none given, or one of another objective: the flow, before any CP-SAT model
        free = unlimited_of(problem)
    if free is not None and (
        (free.moved <= moved and free.most_from_one_member <= most)
        or (tuple(loads) == free.sorted_loads and moved == free.moved)
    ):
        # Within the limits: nothing there is more balanced or as balanced with fewer moves.  Or the
        # assignor is as balanced as the unlimited optimum with as few moves: nothing within its limits
        # is better, and it is within them.  Either way the move-limited optimum is (these loads, moves).
        return MovesVerdict(
            moved=moved,
            most_from_one_member=most,
            sorted_loads=loads,
            best_sorted_loads=free.sorted_loads,
            best_moved=free.moved,
            proven=True,
        )
    best = solve(problem, Request(objective=TIERS, max_moves=moved, max_moves_per_member=most), time_limit=time_limit)
    answered = best.assignment is not None
    return MovesVerdict(
        moved=moved,
        most_from_one_member=most,
        sorted_loads=loads,
        best_sorted_loads=best.sorted_loads if answered else None,
        best_moved=best.moved if answered else None,
        proven=answered and best.status == OPTIMAL,
    )
