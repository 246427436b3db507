"""What is asked of the oracle: the objective's tiers in order, how balance is measured, the constraints.

A :class:`Request` and a :class:`~assignment_oracle.problem.model.Problem` are the whole question
:func:`assignment_oracle.optimal.solve` answers.  The problem carries what the group *is* (topics,
members, claims, racks, join groups, weights); the request says what "best" means for it:

``objective``
    the tiers, in priority order, each compared only among assignments equal on every tier before it
    (``None``: the problem's own ``objective``).  ``balance`` and ``stickiness`` once each, ``rack``
    and ``spread`` at most once each:

    * ``balance``: the members' loads (partition counts; weighted loads when the problem has
      ``weights``), most balanced by ``balance`` below;
    * ``rack``: the fewest partitions given to a member outside their replicas' racks (KIP-881);
    * ``spread``: the least sum over topics and members of the member's partitions of the topic
      squared: each topic spread most evenly over its holders (KAFKA-16277);
    * ``stickiness``: the most partitions kept by their resolved previous owner (KIP-54), which is
      the fewest moves.
``balance``
    ``dec-min`` (the sorted loads, largest first, lexicographically smallest), ``sum-of-squares``
    (the least sum of squared loads) or ``max-then-squares`` (the least largest load, then the least
    sum of squares).  On partition counts without join groups or move limits the three agree (the
    achievable load vectors are M-convex); with weights, join groups or a budget of moves they can
    differ.
``max_moves``, ``max_moves_per_member``
    constraints, not tiers: at most this many partitions with a resolved previous owner go to
    another member, in all and taken from any one member (KIP-429's revocations).

Join groups (co-partitioning) are a constraint of the problem: a unit goes to one member.

Everything is measured on an assignment by :func:`measure`, the one definition the models, the
brute force and the judges share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import UnsupportedRequest
from assignment_oracle.problem.metrics import cross_rack, retained
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import place
from assignment_oracle.problem.tiers import CONSUMER

__all__ = ["BALANCE_DEFINITIONS", "DEFAULT_BALANCE", "Request", "Measures", "measure", "tier_key", "better"]

BALANCE_DEFINITIONS = ("dec-min", "sum-of-squares", "max-then-squares")
DEFAULT_BALANCE = "dec-min"


@dataclass(frozen=True)
class Request:
    """The objective and constraints of one solve (module docstring)."""

    objective: tuple[str, ...] | None = None
    balance: str = DEFAULT_BALANCE
    max_moves: int | None = None
    max_moves_per_member: int | None = None

    def __post_init__(self) -> None:
        if self.objective is not None:
            object.__setattr__(self, "objective", CONSUMER.check(self.objective))
        if self.balance not in BALANCE_DEFINITIONS:
            raise UnsupportedRequest(
                f"balance: unknown definition {self.balance!r} (known: {', '.join(BALANCE_DEFINITIONS)})"
            )
        for name in ("max_moves", "max_moves_per_member"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0):
                raise UnsupportedRequest(f"{name}: must be a whole number, 0 or more, got {value!r}")

    def tiers(self, problem: Problem) -> tuple[str, ...]:
        """The tiers solved, in order: the request's objective, else the problem's."""
        return self.objective if self.objective is not None else problem.objective

    @property
    def limited(self) -> bool:
        return self.max_moves is not None or self.max_moves_per_member is not None

    def to_mapping(self, problem: Problem) -> dict:
        return {
            "objective": list(self.tiers(problem)),
            "balance": self.balance,
            "max_moves": self.max_moves,
            "max_moves_per_member": self.max_moves_per_member,
        }


@dataclass(frozen=True, eq=False)
class Measures:
    """Every number the tiers and constraints are about, for one assignment (:func:`measure`)."""

    loads: np.ndarray  # per member: partitions, or weighted load with weights (what balance balances)
    counts: np.ndarray  # per member: partitions
    kept: int  # partitions kept by their resolved previous owner
    owned: int  # partitions with a resolved previous owner
    moved_from: np.ndarray  # per member: its previously owned partitions that went elsewhere
    cross_rack: int
    topic_squares: int  # sum over topics and members of (partitions of the topic held)^2

    @property
    def moved(self) -> int:
        return self.owned - self.kept

    @property
    def sorted_loads(self) -> tuple[int, ...]:
        return tuple(sorted((int(x) for x in self.loads), reverse=True))

    def balance_value(self, definition: str):
        """The balance tier's value: the sorted loads (``dec-min``), the sum of squares, or
        ``[largest, sum of squares]``."""
        squares = int(sum(int(x) ** 2 for x in self.loads))
        if definition == "dec-min":
            return list(self.sorted_loads)
        if definition == "sum-of-squares":
            return squares
        return [int(self.loads.max()) if self.loads.size else 0, squares]

    def value(self, tier: str, definition: str = DEFAULT_BALANCE):
        """A tier's value as reported, read as its record in :data:`problem.tiers.CONSUMER` says (``balance``:
        :meth:`balance_value` of ``definition``; ``rack``: cross-rack partitions; ``spread``: the per-topic
        squares; ``stickiness``: partitions kept); :class:`~assignment_oracle.problem.tiers.UnknownTier` on a
        tier the table or these measures do not know."""
        return CONSUMER.tier(tier).read(self, definition)


def measure(problem: Problem, assignment: Assignment, claims: ResolvedClaims | None = None) -> Measures:
    """The tiers' numbers for ``assignment`` (partitions outside the problem weigh nothing; a
    partition given twice counts twice: validity is judged elsewhere)."""
    claims = resolve_claims(problem) if claims is None else claims
    placement = place(problem, assignment)
    rows = placement.placed
    member, partition = placement.member[rows], placement.partition[rows]
    n = len(problem.members)
    counts = np.bincount(member, minlength=n).astype(np.int64)
    if problem.weights:
        loads = np.bincount(member, weights=problem.weight_array[partition], minlength=n).astype(np.int64)
    else:
        loads = counts
    previous = claims.previous_owner_array
    owned_rows = previous >= 0
    kept = retained(problem, assignment, claims, placement)
    # Moves per previous owner: its partitions that no row gives back to it.
    kept_mask = np.zeros(previous.size, dtype=bool)
    kept_mask[partition[previous[partition] == member]] = True
    gone = owned_rows & ~kept_mask
    moved_from = np.bincount(previous[gone], minlength=n).astype(np.int64)
    topic = np.searchsorted(problem.partition_offsets, partition, side="right") - 1
    held = np.bincount(topic * max(n, 1) + member, minlength=len(problem.topics) * max(n, 1))
    return Measures(
        loads=loads,
        counts=counts,
        kept=kept,
        owned=int(owned_rows.sum()),
        moved_from=moved_from,
        cross_rack=cross_rack(problem, assignment, placement),
        topic_squares=int((held.astype(np.int64) ** 2).sum()),
    )


def tier_key(tier: str, value: Any) -> Any:
    """A tier's value as something smaller-is-better and comparable (its record's
    :meth:`~assignment_oracle.problem.tiers.Tier.key`: ``stickiness`` negated, lists as tuples);
    :class:`~assignment_oracle.problem.tiers.UnknownTier` on a tier a consumer group does not have."""
    return CONSUMER.key(tier, value)


def better(tiers: tuple[str, ...], a: list, b: list, key=None) -> int:
    """Compare two lists of tier values lexicographically: -1 when ``a`` is better, 1 when ``b`` is, 0.
    ``key``: a tier's value as something smaller-is-better (:func:`tier_key`, or a Streams group's)."""
    key = tier_key if key is None else key
    for tier, x, y in zip(tiers, a, b):
        kx, ky = key(tier, x), key(tier, y)
        if kx != ky:
            return -1 if kx < ky else 1
    return 0
