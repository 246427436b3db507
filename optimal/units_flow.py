"""Join groups by one min-cost flow over units: the best co-partitioned assignment, exact and
certified, when every unit has one size.

Guarantee: for a problem with join groups (KIP-315's co-partitioning: the partitions numbered ``p`` of
a group's topics, a *unit*, go to one member subscribing to all of them), no weights and no budget of
moves, whose units all have the same number of partitions ``s`` (their partitions' previous owners
any members, one or several per unit, or nobody), :func:`solve` returns the optimum of ``balance``,
``rack`` (KIP-881) and ``stickiness`` in any order (every balance definition), and a certificate,
one integer price per member, that :func:`verify` checks with integer arithmetic and no solver.
:func:`applies` says when a problem has this shape; the engine table
(:data:`optimal.engines.ENGINES`, ``units-flow``) sends it here and everything else to the staged
CP-SAT model.

Units
-----
As in :mod:`optimal.staged`: a partition of a topic outside every join group is a unit of its own; for
a group and a number ``p``, the partitions ``p`` of the group's topics that have one form a unit; a
unit none of whose topics has a subscriber is left out, and a unit whose topics are subscribed but by
no single member makes the problem ``INFEASIBLE``.  A unit's *owners* are the members its claimed
partitions resolve to (:func:`problem.claims.resolve_claims`), ``kept(u, m)`` how many of its
partitions resolve to member ``m`` (0 for a member that is not an owner): giving the unit to ``m``
keeps exactly those partitions (:func:`optimal.request.measure`'s ``kept``), so stickiness is a
linear term per (unit, member) pair.  A unit given to member ``m`` has ``cross(u, m)`` partitions
outside ``m``'s rack (the rack tier's measure, summed over the unit's partitions; 0 without rack
information).

Why one flow is exact
---------------------
Every load is ``s`` times a unit count, so balance is about unit counts.  The unit counts that
assignments reach, each unit to one of a set of members, are the integer points of a polymatroid's
base polytope (a transversal structure), an M-convex set, where the decreasingly-minimal vector is
the one of least sum of squares and so also of least largest load (Frank & Murota); ``dec-min``,
``sum-of-squares`` and ``max-then-squares`` pick the same assignments.  A tier ranked before
``balance`` is a restriction, met unit by unit because nothing else competes for a unit:
``stickiness`` first lets each unit go only to the owners that keep most of it (when one of them can
take it; a unit with one such owner is *fixed*, its count an offset); ``rack`` first lets each unit
go only to the members with its least ``cross`` (the *allowed* ones).  With both before ``balance``
the first restricts and the second picks among what is left; a tier ranked before the other among
``rack`` and ``stickiness`` decides, the same way, which owners can keep (``stickiness, rack``: any
eligible owner; ``rack, stickiness``: an allowed one).  The tiers after ``balance`` are weighted
terms; the flow minimises ``W * sum(x_m ** 2) + q * cross - r * kept`` over unit counts ``x``:

    class --0--> hub --q * cross(h, m)--> allowed member m
    class --(q * cross(h, o) - r * kept(u, o))--> owner o     (each owner that can keep, when
                                                              stickiness is after balance)
    class --q * cross(h, o)--> owner o      (stickiness first, a unit with tied owners: no hub arc)
    member --W * (2n - 1) for its n-th unit--> sink              (n counts fixed units too)

A *hub* is a set of allowed members and, when rack is weighted, the cross counts its units have at
each; a *class* is the free units of one hub with the same owners' arcs (owners and kept counts):
units of a class are interchangeable for the flow, which stays small (classes, hubs, members and a
few levels each).  Weights, with ``K`` and ``C`` the most one simple residual cycle can change
``kept`` and ``cross``: the smaller of what the free units can change in all and ``2 * members``
times the most one unit can (a simple cycle passes each member once, through at most two arcs that
carry a kept or cross term); sums of squared counts differ by an even number (their parity is the
unit count's):

* ``balance, rack, stickiness``: ``r = 1``, ``q = K + 1``; ``balance, stickiness, rack``: ``q = 1``,
  ``r = C + 1``; rack or stickiness before balance: its weight 0 (``r``: ``None``) and the other 1;
* ``W = floor((q * C + r * K) / 2) + 1``: every cycle that improves the sum of squares outweighs all
  it costs after, and each weighted tier outweighs the next (the argument of :mod:`optimal.levels`).

The certificate
---------------
One price ``y_m`` per member; with ``c(n) = W * (2n - 1)``, ``x_m`` the member's unit count, a unit's
*cost* at a member ``m`` it may go to (an allowed member of its hub, unless stickiness first ties it
to its best owners; those owners then) ``y_m + q * cross(u, m) - r * kept(u, m)`` (the last term only
with ``r`` and an owner that can keep):

(a) ``c(x_m) <= y_m <= c(x_m + 1)`` (the lower bound only for a member holding a unit not fixed);
(b) every unit not fixed goes to a member where its cost is least;
(c) every fixed unit goes to its owner, every other unit to a member it may go to.

Then no assignment is cheaper: any other gives each unit a cost at least its least, and by (a) and
convexity ``W * x'_m ** 2 - W * x_m ** 2 >= y_m * (x'_m - x_m)`` for every count ``x'_m`` a member
can have; summed, the other assignment's weighted cost is at least this one's, which is the
lexicographic optimum above.  (They are the reduced-cost conditions of the flow's residual network
under the potentials ``-y`` on members, 0 on the sink, minus the least cost on hubs and classes.)
:func:`verify` checks validity (every unit to one member subscribing to all its topics, every
partition once), the weights, the restrictions and (a)-(c), in ``O(partitions + members * hubs +
claims)``.  The prices come from the solver's flow as shortest-path distances in its residual
network (Bellman-Ford over classes, hubs, members and the sink), with every level arc of every
member (by convexity only the two next to ``x_m`` matter).

The flow is first built with level arcs up to one unit over the average count only (thousands of
arcs rather than members times units); when subscriptions push some member's optimum higher, that
flow is infeasible or its residual network has a negative cycle (no prices), and the flow is solved
again with every level.  A negative cycle then, an answer that fails :func:`verify`, or measured
loads, cross-rack and kept partitions (:func:`optimal.request.measure`) other than the flow's raise
:class:`SolverError`: a bug, never a wrong answer.

Examples
--------
>>> from assignment_oracle.problem import Problem
>>> problem = Problem.from_mapping({
...     "topics": {"clicks": 3, "impressions": 3},
...     "join_groups": [["clicks", "impressions"]],
...     "members": {"C0": {"topics": ["clicks", "impressions"], "owned": {"clicks": [0, 1, 2]}, "generation": 1},
...                 "C1": {"topics": ["clicks", "impressions"], "owned": {"impressions": [0]}, "generation": 1}}})
>>> answer = solve(problem)
>>> answer.sorted_loads, answer.retained, [t.how for t in answer.tiers]
((4, 2), 3, ['unit-prices', 'bound', 'unit-prices'])
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import numpy as np

from assignment_oracle.optimal.certificate import Certificate, wrong_weights
from assignment_oracle.optimal.network import partition_name
from assignment_oracle.optimal.request import Request, measure
from assignment_oracle.optimal.solution import INFEASIBLE, OPTIMAL, Solution, TierResult
from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import BALANCE, RACK, STICKINESS, Assignment, Problem
from assignment_oracle.problem.ownership import owner_array

__all__ = ["METHOD", "PROOF", "Units", "UnitPrices", "units_of", "applies", "solve", "verify"]

METHOD = "units-flow"
#: How this engine's tiers are proven (``TierResult.how``): member prices :func:`verify` accepts.
PROOF = "unit-prices"


@dataclass(frozen=True, eq=False)
class Units:
    """A problem's units as dense arrays (module docstring), whatever the objective.

    ``unit_of``: per partition (global numbering) its unit, -1 when left out; per unit its ``size``
    and ``group`` (which set of members can take it: a row of ``eligible``, sets x members); per
    (unit, previous owner) pair, sorted by unit then member, ``claim_unit``, ``claim_member`` and
    ``claim_kept`` (the unit's partitions resolved to that member, at least 1); ``stranded``: the
    first unit no single member can take and how many there are.
    """

    unit_of: np.ndarray
    size: np.ndarray
    group: np.ndarray
    eligible: np.ndarray
    claim_unit: np.ndarray
    claim_member: np.ndarray
    claim_kept: np.ndarray
    stranded: tuple[tuple[str, int], int] | None = None

    @property
    def count(self) -> int:
        return int(self.size.size)

    @property
    def owners(self) -> np.ndarray:
        """Per unit: its distinct resolved previous owners."""
        return np.bincount(self.claim_unit, minlength=self.count).astype(np.int64)

    @property
    def uniform(self) -> bool:
        """Every unit has one size: the flow is exact."""
        return bool(np.unique(self.size).size <= 1)

    def kept_at(self, member: np.ndarray) -> np.ndarray:
        """Per unit: its partitions kept when it goes to ``member[u]`` (0 where that is -1 or no owner)."""
        kept = np.zeros(member.size, dtype=np.int64)
        if not self.claim_unit.size:
            return kept
        width = max(int(self.eligible.shape[1]), 1)
        key = self.claim_unit * width + self.claim_member
        query = np.arange(member.size, dtype=np.int64) * width + member
        at = np.minimum(np.searchsorted(key, query), key.size - 1)
        hit = (member >= 0) & (key[at] == query)
        kept[hit] = self.claim_kept[at[hit]]
        return kept


def units_of(problem: Problem, claims: ResolvedClaims | None = None) -> Units:
    """The problem's units, the sets of members that can take them, and their previous owners (module
    docstring)."""
    claims = resolve_claims(problem) if claims is None else claims
    n = len(problem.members)
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    subscribed = problem.subscribers
    grouped = {t for g in problem.join_groups for t in g}
    unit_of = np.full(int(offsets[-1]), -1, dtype=np.int64)
    sets: dict[tuple[int, ...], int] = {}
    set_of: list[np.ndarray] = []
    stranded: tuple[tuple[str, int], int] | None = None
    next_unit = 0

    def add(eligible: tuple[int, ...], count: int) -> range:
        nonlocal next_unit
        ids = range(next_unit, next_unit + count)
        set_of.append(np.full(count, sets.setdefault(eligible, len(sets)), dtype=np.int64))
        next_unit += count
        return ids

    for topic in problem.topics:
        if topic.name not in grouped and subscribed[topic.name]:
            ids = add(subscribed[topic.name], topic.partitions)
            start = int(offsets[index[topic.name]])
            unit_of[start : start + topic.partitions] = np.arange(ids.start, ids.stop)
    for group in problem.join_groups:
        counts = sorted({problem.partition_counts[t] for t in group})
        low = 0
        for high in counts:  # partition numbers low..high-1 have the same topics
            present = [t for t in group if problem.partition_counts[t] >= high]
            if high > low and any(subscribed[t] for t in present):
                eligible = set(range(n)).intersection(*(subscribed[t] for t in present))
                if not eligible:
                    first, more = stranded if stranded is not None else ((present[0], low), 0)
                    stranded = (first, more + high - low)
                else:
                    ids = add(tuple(sorted(eligible)), high - low)
                    for t in present:
                        start = int(offsets[index[t]])
                        unit_of[start + low : start + high] = np.arange(ids.start, ids.stop)
            low = high
    units = next_unit
    inside = unit_of >= 0
    size = np.bincount(unit_of[inside], minlength=units).astype(np.int64)
    group = np.concatenate(set_of) if set_of else np.zeros(0, dtype=np.int64)
    eligible_matrix = np.zeros((max(len(sets), 1), max(n, 1)), dtype=bool)
    for members, g in sets.items():
        eligible_matrix[g, list(members)] = True
    # Previous owners per unit: the distinct (unit, owner) pairs of its claimed partitions, and how
    # many of the unit's partitions each one's claims resolve to.
    previous = claims.previous_owner_array
    claimed = inside & (previous >= 0)
    width = max(n, 1)
    pair, kept = np.unique(unit_of[claimed] * width + previous[claimed], return_counts=True)
    return Units(
        unit_of,
        size,
        group,
        eligible_matrix,
        (pair // width).astype(np.int64),
        (pair % width).astype(np.int64),
        kept.astype(np.int64),
        stranded,
    )


def applies(problem: Problem, claims: ResolvedClaims | None = None) -> bool:
    """Whether the problem's units have the flow's shape (one size, whatever their previous owners)."""
    return _units_and_claims(problem, claims)[0].uniform


#: The last problem's claims and units, so that choosing this engine (:func:`applies`) and running it
#: (:func:`solve`) resolve them once: ``(weak reference to the problem, claims, units)``.
_LAST: tuple[weakref.ref[Problem], ResolvedClaims, Units] | None = None


def _units_and_claims(problem: Problem, claims: ResolvedClaims | None) -> tuple[Units, ResolvedClaims]:
    global _LAST
    last = _LAST  # one read: another thread may replace it
    if last is not None and last[0]() is problem and (claims is None or claims is last[1]):
        return last[2], last[1]
    claims = resolve_claims(problem) if claims is None else claims
    units = units_of(problem, claims)
    _LAST = (weakref.ref(problem), claims, units)
    return units, claims


# -- the objective: restrictions, hubs and weights -------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Plan:
    """What the flow works on for one order of the tiers (module docstring, "Why one flow is exact").

    ``hub`` per unit, ``allowed`` and ``cross`` per hub and member (``cross``: a hub unit's cross-rack
    partitions at the member, the same for all its units when rack is weighted, and unused
    otherwise); ``rack_cross`` per unit and rack column (the last: members without a rack),
    ``column`` per member.  Per unit ``via_hub`` (it may go to any allowed member of its hub: every
    unit but those stickiness first ties to its best owners), ``fixed`` and ``fixed_to`` (stickiness
    first, one best owner: that owner, else -1).  Per *option*, a (unit, member) pair the unit may go
    to directly (an owner that can keep when stickiness is after balance, one of the tied best owners
    when it is first), sorted by unit then member: ``option_unit``, ``option_member``,
    ``option_kept`` (the partitions it keeps there).  The weights ``W``, ``r`` (``None``: stickiness
    before balance), ``q``.
    """

    order: tuple[str, ...]
    hub: np.ndarray
    allowed: np.ndarray
    cross: np.ndarray
    rack_cross: np.ndarray
    column: np.ndarray
    via_hub: np.ndarray
    fixed: np.ndarray
    fixed_to: np.ndarray
    option_unit: np.ndarray
    option_member: np.ndarray
    option_kept: np.ndarray
    weight: int
    reward: int | None
    penalty: int

    def cross_at(self, member: np.ndarray) -> np.ndarray:
        """Per unit: its cross-rack partitions at ``member[u]``."""
        return self.rack_cross[np.arange(member.size), self.column[member]]

    def option_cost(self) -> np.ndarray:
        """Per option: ``q * cross - r * kept`` (the reward only when stickiness is weighted)."""
        cross = self.rack_cross[self.option_unit, self.column[self.option_member]]
        return self.penalty * cross - (self.reward or 0) * self.option_kept


def _active(problem: Problem, request: Request) -> tuple[str, ...]:
    """The request's tiers, rack only where the problem has rack information (else 0 for everyone)."""
    return tuple(t for t in request.tiers(problem) if t != RACK or problem.rack_locality.active)


def _plan(problem: Problem, units: Units, order: tuple[str, ...]) -> _Plan:
    n = len(problem.members)
    count = units.count
    # Cross-rack partitions of each unit at a member of each rack (one column per rack, then none).
    locality = problem.rack_locality
    racks = len(locality.racks) if RACK in order else 0
    rack_cross = np.zeros((count, racks + 1), dtype=np.int64)
    inside = np.flatnonzero(units.unit_of >= 0)
    rackset = locality.partition_rackset[inside] if racks else np.zeros(0, dtype=np.int64)
    for k in range(racks):
        away = (rackset >= 0) & ~locality.table[np.maximum(rackset, 0), k]
        rack_cross[:, k] = np.bincount(units.unit_of[inside], weights=away, minlength=count)
    column = np.where(locality.member_rack >= 0, locality.member_rack, racks) if racks else np.zeros(n, np.int64)
    column = np.asarray(column, dtype=np.int64)
    # Which rack columns each set of eligible members has, and per unit the least cross among them.
    has_column = np.zeros((units.eligible.shape[0], racks + 1), dtype=bool)
    rows, members = np.nonzero(units.eligible[:, :n])
    has_column[rows, column[members]] = True
    reachable = has_column[units.group]
    least = np.where(reachable, rack_cross, np.iinfo(np.int64).max).min(axis=1, initial=np.iinfo(np.int64).max)
    balance_at = order.index(BALANCE)
    restricted = RACK in order and order.index(RACK) < balance_at
    weighted = RACK in order and order.index(RACK) > balance_at
    rack_before_stickiness = RACK in order and order.index(RACK) < order.index(STICKINESS)
    sticky_first = order.index(STICKINESS) < balance_at
    # A hub: the set, the rack columns allowed (rack first: the least cross) or the cross counts (rack
    # weighted) -- units of one hub are alike for the flow.
    if restricted:
        key = np.concatenate([units.group[:, None], reachable & (rack_cross == least[:, None])], axis=1)
    elif weighted:
        key = np.concatenate([units.group[:, None], rack_cross], axis=1)
    else:
        key = units.group[:, None]
    if count:
        keys, hub = np.unique(key.astype(np.int64), axis=0, return_inverse=True)
        hub = hub.ravel().astype(np.int64)
    else:
        keys, hub = np.zeros((0, key.shape[1]), dtype=np.int64), np.zeros(0, dtype=np.int64)
    hubs = len(keys)
    allowed = units.eligible[keys[:, 0]][:, :n] if hubs else np.zeros((0, n), dtype=bool)
    if restricted and hubs:
        allowed = allowed & keys[:, 1:].astype(bool)[:, column]
    first = np.zeros(hubs, dtype=np.int64)  # a unit of each hub
    first[hub[::-1]] = np.arange(count - 1, -1, -1)
    cross = np.where(allowed, rack_cross[first][:, column], 0) if hubs else np.zeros((0, n), dtype=np.int64)
    # Owners that can keep: eligible ones, or allowed ones when rack ranks before stickiness.
    cu, cm, ck = units.claim_unit, units.claim_member, units.claim_kept
    if rack_before_stickiness:
        can = allowed[hub[cu], cm] if hubs else np.zeros(0, dtype=bool)
    else:
        can = units.eligible[units.group[cu], cm]
    cu, cm, ck = cu[can], cm[can], ck[can]
    via_hub = np.ones(count, dtype=bool)
    fixed = np.zeros(count, dtype=bool)
    fixed_to = np.full(count, -1, dtype=np.int64)
    if sticky_first:
        # Each unit only to the owners that keep most of it (then, rack next, to those of them with
        # its fewest cross-rack partitions): one such owner fixes it, several are its options.
        best = np.zeros(count, dtype=np.int64)
        np.maximum.at(best, cu, ck)
        top = ck == best[cu]
        cu, cm, ck = cu[top], cm[top], ck[top]
        if restricted and not rack_before_stickiness:
            at = rack_cross[cu, column[cm]]
            low = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
            np.minimum.at(low, cu, at)
            near = at == low[cu]
            cu, cm, ck = cu[near], cm[near], ck[near]
        ways = np.bincount(cu, minlength=count)
        fixed = ways == 1
        only = fixed[cu]
        fixed_to[cu[only]] = cm[only]
        via_hub = ways == 0
        cu, cm, ck = cu[~only], cm[~only], ck[~only]
    # Weights (module docstring): K and C over the free units, capped by what one simple cycle changes.
    free = ~fixed
    most = np.zeros(count, dtype=np.int64)
    np.maximum.at(most, cu, ck)
    most_kept = min(int(most.sum()), 2 * n * int(most.max(initial=0))) if not sticky_first else 0
    spread = np.where(allowed, cross, 0).max(axis=1, initial=0) - np.where(allowed, cross, 2**40).min(
        axis=1, initial=2**40
    )
    spread = np.maximum(spread, 0)
    most_cross = min(int(spread[hub[free]].sum()), 2 * n * int(cross.max(initial=0))) if weighted else 0
    reward: int | None = None if sticky_first else 1
    penalty = 1 if weighted else 0
    if weighted and reward is not None:
        if order.index(RACK) < order.index(STICKINESS):
            penalty = most_kept + 1
        else:
            reward = most_cross + 1
    weight = (penalty * most_cross + (reward or 0) * most_kept) // 2 + 1
    return _Plan(
        order, hub, allowed, cross, rack_cross, column, via_hub, fixed, fixed_to, cu, cm, ck, weight, reward, penalty
    )


@dataclass(frozen=True, eq=False)
class UnitPrices(Certificate):
    """Member prices proving a co-partitioned assignment optimal (module docstring, "The certificate"): the
    network certificate's shape (:class:`optimal.certificate.Certificate`), another proof.
    ``stickiness_reward`` is ``None`` when stickiness ranks before balance."""

    kind: ClassVar[str] = PROOF

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> UnitPrices:
        return cls(
            int(data["balance_weight"]),
            None if data["stickiness_reward"] is None else int(data["stickiness_reward"]),
            MappingProxyType({m: int(v) for m, v in data["prices"].items()}),
            int(data.get("rack_penalty", 0)),
        )


def _level_cost(weight: int, n: np.ndarray) -> np.ndarray:
    return weight * (2 * n.astype(np.int64) - 1)


# -- the flow -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Classes:
    """The free units grouped into classes (module docstring): units of one hub with the same direct
    arcs, interchangeable for the flow.  Per class its ``hub``, ``via_hub`` (whether it has the arc to
    its hub) and ``units`` (how many); per free unit, in unit order, its class (``class_of``); per
    class option (a direct arc to a member), sorted by class then member, ``option_class``,
    ``option_member``, ``option_kept`` (partitions kept there) and ``option_cost``."""

    hub: np.ndarray
    via_hub: np.ndarray
    units: np.ndarray
    class_of: np.ndarray
    option_class: np.ndarray
    option_member: np.ndarray
    option_kept: np.ndarray
    option_cost: np.ndarray

    @property
    def count(self) -> int:
        return int(self.units.size)


def _classes(units: Units, plan: _Plan) -> _Classes:
    ids = np.flatnonzero(~plan.fixed)
    cost = plan.option_cost()
    # One row per free unit: its hub, whether it may use it, then (member, kept, cost) per option, in
    # member order (options are sorted by unit then member) and padded with -1.
    per_unit = np.bincount(plan.option_unit, minlength=units.count)
    place = np.arange(plan.option_unit.size, dtype=np.int64) - (np.cumsum(per_unit) - per_unit)[plan.option_unit]
    width = int(per_unit.max(initial=0))
    rows = np.full((ids.size, 2 + 3 * width), -1, dtype=np.int64)
    rows[:, 0] = plan.hub[ids]
    rows[:, 1] = plan.via_hub[ids]
    local = np.searchsorted(ids, plan.option_unit)
    rows[local, 2 + 3 * place] = plan.option_member
    rows[local, 3 + 3 * place] = plan.option_kept
    rows[local, 4 + 3 * place] = cost
    if not ids.size:
        none = np.zeros(0, dtype=np.int64)
        return _Classes(none, none.astype(bool), none, none, none, none, none, none)
    # The distinct rows, in row order, by a sort over the columns (np.unique's rows are slower).
    ranked = np.lexsort(rows.T[::-1])
    ordered = rows[ranked]
    new = np.ones(ids.size, dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(ids.size, dtype=np.int64)
    inverse[ranked] = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    keys = ordered[starts]
    counts = np.diff(np.append(starts, ids.size))
    members = keys[:, 2::3]
    option_class, place = np.nonzero(members >= 0)  # by class, then member
    return _Classes(
        hub=keys[:, 0].astype(np.int64),
        via_hub=keys[:, 1].astype(bool),
        units=counts.astype(np.int64),
        class_of=inverse.ravel().astype(np.int64),
        option_class=option_class.astype(np.int64),
        option_member=members[option_class, place].astype(np.int64),
        option_kept=keys[:, 3::3][option_class, place].astype(np.int64),
        option_cost=keys[:, 4::3][option_class, place].astype(np.int64),
    )


@dataclass(frozen=True, eq=False)
class _Flow:
    """The optimal flow, read back per class option and per (hub, member)."""

    classes: _Classes
    option_flow: np.ndarray  # per class option: units sent directly to its member
    through: np.ndarray  # hubs x members: units given through the hub


def _run_flow(units: Units, plan: _Plan, n: int, ceiling: int | None) -> _Flow | None:
    """The min-cost flow of the module docstring on the free units' classes, solved by OR-Tools, with
    each member's level arcs up to ``ceiling`` units (``None``: all it can take).  ``None`` when the
    ceiling leaves no feasible flow."""
    from ortools.graph.python import min_cost_flow

    classes = _classes(units, plan)
    hubs = plan.allowed.shape[0]
    fixed_load = np.bincount(plan.fixed_to[plan.fixed], minlength=n).astype(np.int64)
    c = classes.count
    hub0, member0 = c, c + hubs
    sink = member0 + n
    via = np.flatnonzero(classes.via_hub)
    hub_units = np.bincount(classes.hub[via], weights=classes.units[via], minlength=hubs).astype(np.int64)
    # Class -> hub.
    tails = [via]
    heads = [hub0 + classes.hub[via]]
    caps = [classes.units[via]]
    costs = [np.zeros(via.size, dtype=np.int64)]
    # Class -> each option's member: the reward for what it keeps, the penalty for what is off-rack.
    option_units = classes.units[classes.option_class]
    tails.append(classes.option_class)
    heads.append(member0 + classes.option_member)
    caps.append(option_units)
    costs.append(classes.option_cost)
    # Hub -> each allowed member.
    hub_index, member_index = np.nonzero(plan.allowed & (hub_units[:, None] > 0))
    tails.append(hub0 + hub_index)
    heads.append(member0 + member_index)
    caps.append(hub_units[hub_index])
    costs.append(plan.penalty * plan.cross[hub_index, member_index])
    # Member -> sink, one arc per level up to the free units it can take (or the ceiling).
    capacity = np.zeros(n, dtype=np.int64)
    np.add.at(capacity, member_index, hub_units[hub_index])
    np.add.at(capacity, classes.option_member, option_units)
    if ceiling is not None:
        capacity = np.clip(np.minimum(capacity, ceiling - fixed_load), 0, None)
    level_member = np.repeat(np.arange(n, dtype=np.int64), capacity)
    level = np.arange(level_member.size, dtype=np.int64) - np.repeat(np.cumsum(capacity) - capacity, capacity) + 1
    tails.append(member0 + level_member)
    heads.append(np.full(level_member.size, sink, dtype=np.int64))
    caps.append(np.ones(level_member.size, dtype=np.int64))
    costs.append(_level_cost(plan.weight, fixed_load[level_member] + level))
    option_flow = np.zeros(classes.option_class.size, dtype=np.int64)
    through = np.zeros((hubs, n), dtype=np.int64)
    if c == 0:
        return _Flow(classes, option_flow, through)
    solver = min_cost_flow.SimpleMinCostFlow()
    arcs = solver.add_arcs_with_capacity_and_unit_cost(
        np.concatenate(tails), np.concatenate(heads), np.concatenate(caps), np.concatenate(costs)
    )
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:c] = classes.units
    supplies[sink] = -int(classes.units.sum())
    solver.set_nodes_supplies(np.arange(sink + 1, dtype=np.int64), supplies)
    code = solver.solve()
    if code == solver.INFEASIBLE and ceiling is not None:
        return None
    if code != solver.OPTIMAL:
        raise SolverError(f"{METHOD}: the min-cost flow failed on a feasible co-partitioned problem (a bug)")
    flows = solver.flows(arcs)
    start = via.size
    option_flow[:] = flows[start : start + option_flow.size]
    start += option_flow.size
    through[hub_index, member_index] = flows[start : start + hub_index.size]
    return _Flow(classes, option_flow, through)


def _deal(units: Units, plan: _Plan, n: int, flow: _Flow) -> np.ndarray:
    """Per unit its member: fixed units to their owners; each class's first units (in unit order) to
    its options' members, as many as the flow sent to each (options in member order); the other
    units of each hub, in unit order, to members by the hub's flows, members in index order."""
    classes = flow.classes
    owner = np.where(plan.fixed, plan.fixed_to, -1)
    ids = np.flatnonzero(~plan.fixed)
    order = np.argsort(classes.class_of, kind="stable")  # by class, then unit
    ranked, cls = ids[order], classes.class_of[order]
    position = np.arange(ids.size, dtype=np.int64) - (np.cumsum(classes.units) - classes.units)[cls]
    direct = np.bincount(classes.option_class, weights=flow.option_flow, minlength=classes.count).astype(np.int64)
    back = position < direct[cls]
    owner[ranked[back]] = np.repeat(classes.option_member, flow.option_flow)
    pending = ranked[~back]
    pending = pending[np.lexsort((pending, plan.hub[pending]))]  # by hub, then unit
    hubs = flow.through.shape[0]
    if not np.array_equal(np.bincount(plan.hub[pending], minlength=hubs), flow.through.sum(axis=1)):
        raise SolverError(f"{METHOD}: the flow through a hub does not match its units (a bug)")
    owner[pending] = np.repeat(np.tile(np.arange(n, dtype=np.int64), hubs), flow.through.ravel())
    if (owner < 0).any():
        raise SolverError(f"{METHOD}: the flow left a unit without a member (a bug)")
    return owner


# -- the certificate -------------------------------------------------------------------------------


def _direct(keys_first: np.ndarray, keys_second: np.ndarray, first: np.ndarray, second: np.ndarray, width: int):
    """For each query (``first``, ``second``): whether it is one of the sorted pairs
    (``keys_first``, ``keys_second``), and which (0 where not)."""
    if not keys_first.size:
        return np.zeros(first.size, dtype=bool), np.zeros(first.size, dtype=np.int64)
    key = keys_first * width + keys_second
    query = first * width + second
    at = np.minimum(np.searchsorted(key, query), key.size - 1)
    hit = key[at] == query
    return hit, np.where(hit, at, 0)


def _prices(units: Units, plan: _Plan, n: int, owner: np.ndarray, classes: _Classes) -> np.ndarray | None:
    """Member prices for the flow of ``owner``: shortest-path distances in its residual network over
    classes, hubs, members and the sink, with every level arc (module docstring).  ``None`` when
    there is a negative cycle: the flow is not optimal."""
    hubs = plan.allowed.shape[0]
    c = classes.count
    hub0, member0 = c, c + hubs
    sink = member0 + n
    weight = plan.weight
    count = np.bincount(owner, minlength=n).astype(np.int64)
    free_count = np.bincount(owner[~plan.fixed], minlength=n).astype(np.int64)
    ids = np.flatnonzero(~plan.fixed)
    at, cls = owner[ids], classes.class_of
    # A unit at one of its options went there directly, any other through its hub.
    direct, which = _direct(classes.option_class, classes.option_member, cls, at, max(n, 1))
    option_flow = np.bincount(which[direct], minlength=classes.option_class.size)
    hub_in = np.bincount(cls[~direct], minlength=c)
    through = np.bincount(plan.hub[ids[~direct]] * n + at[~direct], minlength=hubs * n).reshape(hubs, n)
    via = classes.via_hub
    hub_units = np.bincount(classes.hub[via], weights=classes.units[via], minlength=hubs).astype(np.int64)
    tails: list[np.ndarray] = []
    heads: list[np.ndarray] = []
    costs: list[np.ndarray] = []

    def arcs(tail, head, cost) -> None:
        tails.append(np.asarray(tail, dtype=np.int64))
        heads.append(np.asarray(head, dtype=np.int64))
        costs.append(np.broadcast_to(np.asarray(cost, dtype=np.int64), np.shape(tail)).copy())

    # Class <-> hub, class <-> each option's member, hub <-> each allowed member: forward where there
    # is room, backward where there is flow.
    every = np.arange(c, dtype=np.int64)
    forward, backward = via & (hub_in < classes.units), hub_in > 0
    arcs(every[forward], hub0 + classes.hub[forward], 0)
    arcs(hub0 + classes.hub[backward], every[backward], 0)
    oc, om, cost = classes.option_class, classes.option_member, classes.option_cost
    forward, backward = option_flow < classes.units[oc], option_flow > 0
    arcs(oc[forward], member0 + om[forward], cost[forward])
    arcs(member0 + om[backward], oc[backward], -cost[backward])
    h, m = np.nonzero(plan.allowed & (hub_units[:, None] > 0))
    cost = plan.penalty * plan.cross[h, m]
    forward, backward = through[h, m] < hub_units[h], through[h, m] > 0
    arcs(hub0 + h[forward], member0 + m[forward], cost[forward])
    arcs(member0 + m[backward], hub0 + h[backward], -cost[backward])
    members = np.arange(n, dtype=np.int64)
    arcs(member0 + members, np.full(n, sink), _level_cost(weight, count + 1))  # the next level, always there
    holding = np.flatnonzero(free_count > 0)
    arcs(np.full(holding.size, sink), member0 + holding, -_level_cost(weight, count[holding]))  # the last, undone
    tail, head, cost = np.concatenate(tails), np.concatenate(heads), np.concatenate(costs)
    distance = np.zeros(sink + 1, dtype=np.int64)  # from a root with a 0 arc to every node
    for _ in range(sink + 2):
        relaxed = distance.copy()
        np.minimum.at(relaxed, head, distance[tail] + cost)
        if np.array_equal(relaxed, distance):
            return distance[sink] - distance[member0 : member0 + n]
        distance = relaxed
    return None


def _named(problem: Problem, units: Units, u: int) -> str:
    """A unit by its first partition, for messages: ``the unit of t0-3``."""
    first = int(np.flatnonzero(units.unit_of == u)[0])
    return f"the unit of {partition_name(problem.topic_names, problem.partition_offsets, first)}"


def verify(
    problem: Problem,
    assignment: Assignment,
    certificate: UnitPrices,
    request: Request | None = None,
    claims: ResolvedClaims | None = None,
) -> tuple[str, ...]:
    """Check that ``certificate`` proves ``assignment`` optimal for ``request`` on ``problem`` (module
    docstring, "The certificate").  Returns the reasons it does not (empty: verified); integer
    arithmetic, no solver."""
    request = Request() if request is None else request
    claims = resolve_claims(problem) if claims is None else claims
    return _verify(problem, assignment, certificate, request, units_of(problem, claims))


def _verify(
    problem: Problem, assignment: Assignment, certificate: UnitPrices, request: Request, units: Units
) -> tuple[str, ...]:
    n = len(problem.members)
    ids = problem.member_ids
    if units.stranded is not None or not units.uniform:
        return ("the problem's units do not have the flow's shape (every unit of one size)",)
    order = _active(problem, request)
    if set(order) - {RACK} != {BALANCE, STICKINESS}:
        return (f"the objective {','.join(order)} is not the flow's (balance, stickiness, maybe rack)",)
    given, broken = owner_array(problem, assignment)
    if broken:
        return (f"the assignment is not valid ({broken[0]})",)
    inside = units.unit_of >= 0
    owner = np.full(units.count, -1, dtype=np.int64)
    owner[units.unit_of[inside]] = given[inside]
    together = np.full(given.size, -1, dtype=np.int64)  # each partition's unit's member
    together[inside] = owner[units.unit_of[inside]]
    split = np.flatnonzero(inside & (given != together))
    if split.size:
        return (f"{_named(problem, units, int(units.unit_of[split[0]]))} is split between members",)
    if (given[~inside] >= 0).any():
        return ("a partition outside every unit was given",)
    plan = _plan(problem, units, order)
    wrong = wrong_weights(certificate, (plan.weight, plan.reward, plan.penalty))
    if wrong:
        return wrong
    if set(certificate.prices) != set(ids):
        return ("the prices do not name exactly the group's members",)
    if any(abs(certificate.prices[m]) >= 2**62 for m in ids):
        return ("a price is out of range (|price| >= 2**62)",)
    price = np.array([certificate.prices[m] for m in ids], dtype=np.int64)
    fixed, free = plan.fixed, ~plan.fixed
    problems: list[str] = []
    # (c) Fixed units with their owner, every other unit where it may go: an allowed member of its
    # hub (unless stickiness first ties it to its best owners) or one of its options.
    for u in np.flatnonzero(fixed & (owner != plan.fixed_to))[:5]:
        problems.append(f"(c) {_named(problem, units, u)} left {ids[plan.fixed_to[u]]} although stickiness comes first")
    unit_ids = np.arange(units.count, dtype=np.int64)
    direct, which = _direct(plan.option_unit, plan.option_member, unit_ids, owner, max(n, 1))
    may = direct | (plan.via_hub & plan.allowed[plan.hub, owner])
    for u in np.flatnonzero(free & ~may)[:5]:
        why = "a member with its fewest cross-rack" if plan.via_hub[u] else "one of the owners keeping most of it"
        problems.append(f"(c) {_named(problem, units, u)} went to {ids[owner[u]]}, not {why}")
    if problems:
        return tuple(problems)
    # (a) Each price lies between the cost of the member's last unit and its next.
    count = np.bincount(owner, minlength=n).astype(np.int64)
    holds_free = np.bincount(owner[free], minlength=n) > 0
    last, following = _level_cost(plan.weight, count), _level_cost(plan.weight, count + 1)
    for m in np.flatnonzero((holds_free & (price < last)) | (price > following))[:5]:
        problems.append(f"(a) member {ids[m]} with {int(count[m])} units: price {int(price[m])} outside its levels")
    # (b) Every unit not fixed at a member where its cost is least.
    effective = price[None, :] + plan.penalty * plan.cross
    cheapest = np.where(plan.allowed, effective, 2**62).min(axis=1, initial=2**62)
    least = np.where(plan.via_hub, cheapest[plan.hub], 2**62)
    option_price = price[plan.option_member] + plan.option_cost()
    np.minimum.at(least, plan.option_unit, option_price)
    paid = effective[plan.hub, owner]
    if option_price.size:
        paid = np.where(direct, option_price[which], paid)
    for u in np.flatnonzero(free & (paid != least))[:5]:
        problems.append(
            f"(b) {_named(problem, units, u)} went to {ids[owner[u]]} at {int(paid[u])}, not its least {int(least[u])}"
        )
    return tuple(problems[:20])


# -- the engine ------------------------------------------------------------------------------------


def solve(problem: Problem, request: Request | None = None, *, claims: ResolvedClaims | None = None) -> Solution:
    """The optimum of ``request`` on ``problem`` by one min-cost flow over units, certified (module
    docstring).  Raises :class:`SolverError` when the answer fails its own checks (a bug), and
    ``ValueError`` when the problem's units or the request are not the flow's (:func:`applies`)."""
    started = time.perf_counter()
    request = Request() if request is None else request
    units, claims = _units_and_claims(problem, claims)
    tiers = request.tiers(problem)
    if units.stranded is not None:
        (topic, p), many = units.stranded
        return Solution(
            problem=problem,
            status=INFEASIBLE,
            method=METHOD,
            assignment=None,
            request=request,
            claims=claims,
            wall_time=time.perf_counter() - started,
            message=f"no member subscribes to every topic of the unit of {topic}-{p}'s "
            f"partition number ({many} such unit(s))",
        )
    if not units.uniform:
        raise ValueError(f"{METHOD}: units of different sizes")
    order = _active(problem, request)
    if set(order) - {RACK} != {BALANCE, STICKINESS}:
        raise ValueError(f"{METHOD}: solves balance, rack and stickiness only, not {','.join(order)}")
    n = len(problem.members)
    plan = _plan(problem, units, order)
    # First with level arcs up to a little over the average load: the optimum lies there unless
    # subscriptions force some member higher, and then the prices (computed over every level) do not
    # exist and the full network is solved.  Thousands of level arcs instead of members x units.
    reach = int((units.eligible[units.group].any(axis=0) if units.count else np.zeros(0, bool)).sum())
    ceiling = -(-units.count // max(reach, 1)) + 1
    for limit in (ceiling, None):
        flow = _run_flow(units, plan, n, limit)
        if flow is None:
            continue
        owner = _deal(units, plan, n, flow)
        prices = _prices(units, plan, n, owner, flow.classes)
        if prices is not None:
            break
    else:
        raise SolverError(f"{METHOD}: the flow's residual network has a negative cycle (the flow is not optimal)")
    certificate = UnitPrices(
        plan.weight, plan.reward, MappingProxyType(dict(zip(problem.member_ids, prices.tolist()))), plan.penalty
    )
    # What the flow proved: unit counts (loads are s times them), cross-rack and kept partitions.
    size = int(units.size[0]) if units.count else 1
    proven_loads = size * np.bincount(owner, minlength=n).astype(np.int64)
    proven_cross = int(plan.cross_at(owner).sum())
    classes = flow.classes
    fixed_kept = units.kept_at(np.where(plan.fixed, plan.fixed_to, -1))
    proven_kept = int(fixed_kept.sum() + (flow.option_flow * classes.option_kept).sum())
    global_owner = np.full(units.unit_of.size, -1, dtype=np.int64)
    inside = units.unit_of >= 0
    global_owner[inside] = owner[units.unit_of[inside]]
    assignment = Assignment.from_owners(problem, global_owner)
    problems = _verify(problem, assignment, certificate, request, units)
    if problems:
        raise SolverError(f"{METHOD}: the flow's answer does not certify ({problems[0]})")
    measures = measure(problem, assignment, claims)
    # Cross-rack is the flow's only when rack is a tier (else the flow ignores racks: not compared).
    measured = (measures.loads.tolist(), measures.cross_rack if RACK in order else 0, measures.kept)
    if measured != (proven_loads.tolist(), proven_cross, proven_kept):
        raise SolverError(
            f"{METHOD}: the answer measures loads {measures.sorted_loads}, {measures.cross_rack} cross-rack and "
            f"{measures.kept} kept; the flow proved {tuple(sorted(proven_loads.tolist(), reverse=True))}, "
            f"{proven_cross} and {proven_kept}"
        )
    records = []
    for tier in tiers:
        value = measures.value(tier, request.balance)
        if tier == RACK and RACK not in order:  # no rack information: every partition local
            records.append(TierResult(tier, value, value, True, "bound"))
        elif tier != BALANCE and order.index(tier) < order.index(BALANCE):
            # Met unit by unit (every unit back to an owner that can keep it, or to a member with its
            # fewest cross-rack): the value is a bound no assignment passes.
            records.append(TierResult(tier, value, value, True, "bound"))
        else:
            records.append(TierResult(tier, value, value, True, PROOF))
    stage = {
        "stage": f"{','.join(order)}: one min-cost flow over {units.count} units of {size} partition(s)",
        "value": {
            "sorted_loads": list(measures.sorted_loads),
            "cross_rack": measures.cross_rack,
            "kept": measures.kept,
        },
        "bound": None,
        "proven": True,
        "proof": PROOF,
        "certificate": certificate.to_mapping(),
    }
    return Solution(
        problem=problem,
        status=OPTIMAL,
        method=METHOD,
        assignment=assignment,
        wall_time=time.perf_counter() - started,
        retained=measures.kept,
        cross_rack=measures.cross_rack,
        stats={
            "units": units.count,
            "classes": classes.count,
            "hubs": int(plan.allowed.shape[0]),
            "every_level": int(limit is None),  # 1: the first ceiling on the levels was too low
        },
        request=request,
        tiers=tuple(records),
        stages=(stage,),
        claims=claims,
        measured=measures,
    )
