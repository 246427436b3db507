"""Join groups by one min-cost flow over units: the most balanced, then stickiest, co-partitioned
assignment, exact and certified, when every unit has one size and at most one previous owner.

Guarantee: for a problem with join groups (KIP-315's co-partitioning: the partitions numbered ``p`` of
a group's topics, a *unit*, go to one member subscribing to all of them), no weights and no budget of
moves, whose units all have the same number of partitions ``s`` and whose units' partitions are each
claimed by one member or by nobody, :func:`solve` returns an optimum of ``balance`` and
``stickiness`` in either order (every balance definition; ``rack`` only where the problem has no rack
information), and a certificate, one integer price per member, that :func:`verify` checks with
integer arithmetic and no solver.  :func:`applies` says when a problem has this shape; the engine
table (:data:`optimal.engines.ENGINES`, ``units-flow``) sends it here and everything else to the
staged CP-SAT model.

Units
-----
As in :mod:`optimal.staged`: a partition of a topic outside every join group is a unit of its own; for
a group and a number ``p``, the partitions ``p`` of the group's topics that have one form a unit; a
unit none of whose topics has a subscriber is left out, and a unit whose topics are subscribed but by
no single member makes the problem ``INFEASIBLE``.  A unit's *owner* is the one member its claimed
partitions resolve to (:func:`problem.claims.resolve_claims`), its *kept* count how many of its
partitions that member claimed (1 to ``s``): giving the unit back to its owner keeps exactly that many
partitions (:func:`optimal.request.measure`'s ``kept``), giving it to anyone else keeps none.  An
owner that cannot take the unit (it does not subscribe to all its topics) keeps nothing.

Why one flow is exact
---------------------
Every load is ``s`` times a unit count, so balance is about unit counts.  The unit counts that
assignments reach are the integer points of a polymatroid's base polytope (units to eligible members:
a transversal structure), an M-convex set, where the decreasingly-minimal vector is the one of least
sum of squares and so also of least largest load (Frank & Murota); ``dec-min``, ``sum-of-squares`` and
``max-then-squares`` pick the same assignments.  Under ``stickiness, balance`` the most partitions are
kept exactly when every unit goes back to an owner that can take it (nothing else competes for it):
those units are fixed, and the rest is the same problem with the fixed counts as offsets (still
M-convex).  The flow minimises ``W * sum(x_m ** 2) - r * kept`` over unit counts ``x``:

    class (units of one hub, owner and kept count) --0--> hub (its eligible members) --0--> member
    class --(-r * kept)--> owner                                           (balance first only)
    member --W * (2n - 1) for its n-th unit--> sink                       (n counts fixed units too)

With balance first, ``r = 1`` and ``W = floor(K / 2) + 1``, ``K`` the smaller of the partitions the
units' owners can keep and ``2 * members * k``, ``k`` the most one unit keeps: sums of squared counts
differ by an even number (their parity is the unit count's), and a simple residual cycle passes each
member once, so it changes ``kept`` through at most two owner arcs per member, each by at most ``k``:
every cycle that improves the sum of squares outweighs what it costs in ``kept`` (the cycle argument
of :mod:`optimal.levels`).  With
stickiness first, ``W = 1`` and ``r`` is ``None``.

The certificate
---------------
One price ``y_m`` per member; with ``c(n) = W * (2n - 1)``, ``x_m`` the member's unit count,
``min_h`` the least price among a unit's eligible members:

(a) ``c(x_m) <= y_m <= c(x_m + 1)`` (the lower bound only for a member holding a unit that is not
    fixed);
(b) a unit not given back to its owner goes to a member priced ``min_h``;
(c) balance first: a unit kept by owner ``o`` has ``y_o <= min_h + r * kept``, a unit with an owner
    ``o`` that did not keep it has ``y_o >= min_h + r * kept``; stickiness first: every unit whose
    owner can take it is kept.

These are the reduced-cost conditions of the flow's residual network under the potentials ``-y`` on
members, 0 on the sink, ``-min_h`` on hubs (each unit's potential anywhere in the interval (c) leaves
open), with every level arc of every member (by convexity only the two next to ``x_m`` matter): so the
flow, and the assignment, is of least ``W * sum(x_m ** 2) - r * kept``, which is the lexicographic
optimum above.  :func:`verify` checks validity (every unit to one member subscribing to all its topics,
every partition once), the weights, and (a)-(c), in ``O(partitions + members * hubs)``.  The prices
come from the solver's flow as shortest-path distances in its residual network (Bellman-Ford over
members, hubs and the sink, a few dozen nodes), with every level arc of every member.

The flow is first built with level arcs up to one unit over the average count only (thousands of
arcs rather than members times units); when subscriptions push some member's optimum higher, that
flow is infeasible or its residual network has a negative cycle (no prices), and the flow is solved
again with every level.  A negative cycle then, an answer that fails :func:`verify`, or measured loads
and kept partitions (:func:`optimal.request.measure`) other than the flow's raise
:class:`SolverError`: a bug, never a wrong answer.

Examples
--------
>>> from assignment_oracle.problem import Problem
>>> problem = Problem.from_mapping({
...     "topics": {"clicks": 3, "impressions": 3},
...     "join_groups": [["clicks", "impressions"]],
...     "members": {"C0": {"topics": ["clicks", "impressions"], "owned": {"clicks": [0, 1, 2]}, "generation": 1},
...                 "C1": {"topics": ["clicks", "impressions"]}}})
>>> answer = solve(problem)
>>> answer.sorted_loads, answer.retained, [t.how for t in answer.tiers]
((4, 2), 2, ['unit-prices', 'bound', 'unit-prices'])
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

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
    """A problem's units as dense arrays (module docstring).

    ``unit_of``: per partition (global numbering) its unit, -1 when left out; ``size``, ``hub``,
    ``owner`` (-1: none, or several), ``owners`` (distinct resolved previous owners), ``kept``
    (partitions the owner claimed) per unit; ``eligible``: per hub, which members may take its units
    (hubs x members); ``stranded``: the first unit no single member can take and how many there are.
    """

    unit_of: np.ndarray
    size: np.ndarray
    hub: np.ndarray
    owner: np.ndarray
    owners: np.ndarray
    kept: np.ndarray
    eligible: np.ndarray
    stranded: tuple[tuple[str, int], int] | None = None

    @property
    def count(self) -> int:
        return int(self.size.size)

    @property
    def uniform(self) -> bool:
        """Every unit has one size and at most one previous owner: the flow is exact."""
        return bool(np.unique(self.size).size <= 1 and (self.owners <= 1).all())

    @cached_property
    def keepable(self) -> np.ndarray:
        """Per unit: its owner can take it back (keeping ``kept`` partitions)."""
        has = self.owner >= 0
        out = np.zeros(self.count, dtype=bool)
        out[has] = self.eligible[self.hub[has], self.owner[has]]
        return out


def units_of(problem: Problem, claims: ResolvedClaims | None = None) -> Units:
    """The problem's units, their hubs and previous owners (module docstring)."""
    claims = resolve_claims(problem) if claims is None else claims
    n = len(problem.members)
    offsets = problem.partition_offsets
    index = {t: i for i, t in enumerate(problem.topic_names)}
    subscribed = problem.subscribers
    grouped = {t for g in problem.join_groups for t in g}
    unit_of = np.full(int(offsets[-1]), -1, dtype=np.int64)
    hubs: dict[tuple[int, ...], int] = {}
    hub_of: list[np.ndarray] = []
    stranded: tuple[tuple[str, int], int] | None = None
    next_unit = 0

    def add(eligible: tuple[int, ...], count: int) -> range:
        nonlocal next_unit
        ids = range(next_unit, next_unit + count)
        hub_of.append(np.full(count, hubs.setdefault(eligible, len(hubs)), dtype=np.int64))
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
    hub = np.concatenate(hub_of) if hub_of else np.zeros(0, dtype=np.int64)
    eligible_matrix = np.zeros((max(len(hubs), 1), max(n, 1)), dtype=bool)
    for members, h in hubs.items():
        eligible_matrix[h, list(members)] = True
    # Previous owners per unit: the distinct (unit, owner) pairs of its claimed partitions.
    previous = claims.previous_owner_array
    claimed = inside & (previous >= 0)
    pair = np.unique(unit_of[claimed] * max(n, 1) + previous[claimed])
    owners = np.bincount(pair // max(n, 1), minlength=units).astype(np.int64)
    owner = np.full(units, -1, dtype=np.int64)
    single = owners[pair // max(n, 1)] == 1
    owner[pair[single] // max(n, 1)] = pair[single] % max(n, 1)
    kept = np.bincount(unit_of[claimed], minlength=units).astype(np.int64)
    kept[owners != 1] = 0
    return Units(unit_of, size, hub, owner, owners, kept, eligible_matrix, stranded)


def applies(problem: Problem, claims: ResolvedClaims | None = None) -> bool:
    """Whether the problem's units have the flow's shape (one size, at most one previous owner each)."""
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


@dataclass(frozen=True, eq=False)
class UnitPrices:
    """Member prices proving a co-partitioned assignment optimal (module docstring, "The certificate").
    ``stickiness_reward`` is ``None`` when stickiness ranks first."""

    balance_weight: int
    stickiness_reward: int | None
    prices: Mapping[str, int] = field(default_factory=dict)

    def to_mapping(self) -> dict:
        return {
            "kind": PROOF,
            "balance_weight": self.balance_weight,
            "stickiness_reward": self.stickiness_reward,
            "prices": {m: int(self.prices[m]) for m in sorted(self.prices)},
        }

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> UnitPrices:
        return cls(
            int(data["balance_weight"]),
            None if data["stickiness_reward"] is None else int(data["stickiness_reward"]),
            MappingProxyType({m: int(v) for m, v in data["prices"].items()}),
        )


def _weights(units: Units, n: int, sticky_first: bool) -> tuple[int, int | None]:
    """``(W, r)`` (module docstring, "Why one flow is exact")."""
    if sticky_first:
        return 1, None
    keep = units.kept[units.keepable]
    most = min(int(keep.sum()), 2 * n * int(keep.max(initial=0)))
    return most // 2 + 1, 1


def _level_cost(weight: int, n: np.ndarray) -> np.ndarray:
    return weight * (2 * n.astype(np.int64) - 1)


# -- the flow -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Flow:
    """The optimal flow, read back per class and per (hub, member)."""

    classes: np.ndarray  # per class: (hub, owner it can go back to or -1, kept, units)
    class_of: np.ndarray  # per free unit (in unit order): its class
    back: np.ndarray  # per class: units given back to the owner
    through: np.ndarray  # hubs x members: units given through the hub


def _classes(units: Units, free: np.ndarray, rewarded: bool) -> tuple[np.ndarray, np.ndarray]:
    """The free units grouped by (hub, owner it can go back to or -1, kept): rows of (hub, owner,
    kept, units), and per free unit its class.  Units of a class are interchangeable for the flow."""
    owner = np.where(units.keepable & rewarded, units.owner, -1)
    kept = np.where(owner >= 0, units.kept, 0)
    if not free.any():
        return np.zeros((0, 4), dtype=np.int64), np.zeros(0, dtype=np.int64)
    # One integer key per unit, in (hub, owner, kept) order: a 1-D unique, far cheaper than rows'.
    members, most = int(units.eligible.shape[1]) + 1, int(kept.max(initial=0)) + 1
    key = (units.hub * members + owner + 1) * most + kept
    keys, inverse, counts = np.unique(key[free], return_inverse=True, return_counts=True)
    hub, rest = np.divmod(keys, members * most)
    classes = np.stack([hub, rest // most - 1, rest % most, counts], axis=1)
    return classes.astype(np.int64), inverse.ravel().astype(np.int64)


def _run_flow(
    units: Units,
    n: int,
    free: np.ndarray,
    fixed_load: np.ndarray,
    weight: int,
    reward: int | None,
    ceiling: int | None,
) -> _Flow | None:
    """The min-cost flow of the module docstring on the free units' classes, solved by OR-Tools, with
    each member's level arcs up to ``ceiling`` units (``None``: all it is eligible for).  ``None``
    when the ceiling leaves no feasible flow."""
    from ortools.graph.python import min_cost_flow

    classes, class_of = _classes(units, free, reward is not None)
    hubs = units.eligible.shape[0]
    c = len(classes)
    hub0, member0 = c, c + hubs
    sink = member0 + n
    hub_units = np.bincount(classes[:, 0], weights=classes[:, 3], minlength=hubs).astype(np.int64)
    # Class -> hub.
    tails = [np.arange(c, dtype=np.int64)]
    heads = [hub0 + classes[:, 0]]
    caps = [classes[:, 3]]
    costs = [np.zeros(c, dtype=np.int64)]
    # Class -> its owner, rewarded per partition kept (balance first only).
    has_owner = np.flatnonzero(classes[:, 1] >= 0)
    tails.append(has_owner)
    heads.append(member0 + classes[has_owner, 1])
    caps.append(classes[has_owner, 3])
    costs.append(-(reward or 0) * classes[has_owner, 2])
    # Hub -> each eligible member.
    hub_index, member_index = np.nonzero(units.eligible[:hubs, :n] & (hub_units[:, None] > 0))
    tails.append(hub0 + hub_index)
    heads.append(member0 + member_index)
    caps.append(hub_units[hub_index])
    costs.append(np.zeros(hub_index.size, dtype=np.int64))
    # Member -> sink, one arc per level up to the free units it is eligible for (or the ceiling).
    capacity = np.zeros(n, dtype=np.int64)
    np.add.at(capacity, member_index, hub_units[hub_index])
    if ceiling is not None:
        capacity = np.clip(np.minimum(capacity, ceiling - fixed_load), 0, None)
    level_member = np.repeat(np.arange(n, dtype=np.int64), capacity)
    level = np.arange(level_member.size, dtype=np.int64) - np.repeat(np.cumsum(capacity) - capacity, capacity) + 1
    tails.append(member0 + level_member)
    heads.append(np.full(level_member.size, sink, dtype=np.int64))
    caps.append(np.ones(level_member.size, dtype=np.int64))
    costs.append(_level_cost(weight, fixed_load[level_member] + level))
    back = np.zeros(c, dtype=np.int64)
    through = np.zeros((hubs, n), dtype=np.int64)
    if c == 0:
        return _Flow(classes, class_of, back, through)
    solver = min_cost_flow.SimpleMinCostFlow()
    arcs = solver.add_arcs_with_capacity_and_unit_cost(
        np.concatenate(tails), np.concatenate(heads), np.concatenate(caps), np.concatenate(costs)
    )
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:c] = classes[:, 3]
    supplies[sink] = -int(classes[:, 3].sum())
    solver.set_nodes_supplies(np.arange(sink + 1, dtype=np.int64), supplies)
    code = solver.solve()
    if code == solver.INFEASIBLE and ceiling is not None:
        return None
    if code != solver.OPTIMAL:
        raise SolverError(f"{METHOD}: the min-cost flow failed on a feasible co-partitioned problem (a bug)")
    flows = solver.flows(arcs)
    back[has_owner] = flows[c : c + has_owner.size]
    start = c + has_owner.size
    through[hub_index, member_index] = flows[start : start + hub_index.size]
    return _Flow(classes, class_of, back, through)


def _deal(units: Units, n: int, free: np.ndarray, flow: _Flow) -> np.ndarray:
    """Per unit its member: fixed units to their owners; each class's first ``back`` units (in unit
    order) to its owner; the other units of each hub, in unit order, to members by the hub's flows,
    members in index order."""
    owner = np.where(free, -1, units.owner)
    ids = np.flatnonzero(free)
    order = np.argsort(flow.class_of, kind="stable")  # by class, then unit
    ranked, cls = ids[order], flow.class_of[order]
    counts = flow.classes[:, 3]
    position = np.arange(ids.size, dtype=np.int64) - (np.cumsum(counts) - counts)[cls]
    back = position < flow.back[cls]
    owner[ranked[back]] = flow.classes[cls[back], 1]
    pending = ranked[~back]
    pending = pending[np.lexsort((pending, units.hub[pending]))]  # by hub, then unit
    hubs = flow.through.shape[0]
    if not np.array_equal(np.bincount(units.hub[pending], minlength=hubs), flow.through.sum(axis=1)):
        raise SolverError(f"{METHOD}: the flow through a hub does not match its units (a bug)")
    owner[pending] = np.repeat(np.tile(np.arange(n, dtype=np.int64), hubs), flow.through.ravel())
    if (owner < 0).any():
        raise SolverError(f"{METHOD}: the flow left a unit without a member (a bug)")
    return owner


# -- the certificate -------------------------------------------------------------------------------


def _prices(
    units: Units, n: int, owner: np.ndarray, fixed: np.ndarray, weight: int, reward: int | None
) -> np.ndarray | None:
    """Member prices for the flow of ``owner``: shortest-path distances in its residual network over
    members, hubs and the sink, with every level arc and each class node folded into hub <-> owner
    arcs (module docstring).  ``None`` when there is a negative cycle: the flow is not optimal."""
    hubs = units.eligible.shape[0]
    sink = n + hubs
    count = np.bincount(owner, minlength=n).astype(np.int64)
    free_count = np.bincount(owner[~fixed], minlength=n).astype(np.int64)
    hub_nodes = n + np.arange(hubs, dtype=np.int64)
    tails: list[np.ndarray] = []
    heads: list[np.ndarray] = []
    costs: list[np.ndarray] = []

    def arcs(tail, head, cost) -> None:
        tails.append(np.asarray(tail, dtype=np.int64))
        heads.append(np.asarray(head, dtype=np.int64))
        costs.append(np.broadcast_to(np.asarray(cost, dtype=np.int64), np.shape(tail)).copy())

    members = np.arange(n, dtype=np.int64)
    arcs(members, np.full(n, sink), _level_cost(weight, count + 1))  # the next level, always there
    holding = np.flatnonzero(free_count > 0)
    arcs(np.full(holding.size, sink), holding, -_level_cost(weight, count[holding]))  # the last level, undone
    h, m = np.nonzero(units.eligible[:hubs, :n])
    arcs(hub_nodes[h], m, 0)  # a hub gives to any eligible member
    given = ~fixed
    kept = given & (owner == units.owner) & units.keepable & (reward is not None)
    via_hub = given & ~kept
    pair = np.unique(units.hub[via_hub] * max(n, 1) + owner[via_hub])
    arcs(pair % max(n, 1), hub_nodes[pair // max(n, 1)], 0)  # ... and can take one back
    if reward is not None:
        # A kept unit can leave its owner for the hub (gaining its reward back); a unit with an owner
        # that went through the hub can return to its owner.
        arcs(units.owner[kept], hub_nodes[units.hub[kept]], reward * units.kept[kept])
        back = via_hub & units.keepable
        arcs(hub_nodes[units.hub[back]], units.owner[back], -reward * units.kept[back])
    tail, head, cost = np.concatenate(tails), np.concatenate(heads), np.concatenate(costs)
    distance = np.zeros(sink + 1, dtype=np.int64)  # from a root with a 0 arc to every node
    for _ in range(sink + 2):
        relaxed = distance.copy()
        np.minimum.at(relaxed, head, distance[tail] + cost)
        if np.array_equal(relaxed, distance):
            return distance[sink] - distance[:n]
        distance = relaxed
    return None


def _named(problem: Problem, units: Units, u: int) -> str:
    """A unit by its first partition, for messages: ``the unit of t0-3``."""
    first = int(np.flatnonzero(units.unit_of == u)[0])
    topic = int(np.searchsorted(problem.partition_offsets, first, side="right")) - 1
    return f"the unit of {problem.topic_names[topic]}-{first - int(problem.partition_offsets[topic])}"


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
        return ("the problem's units do not have the flow's shape (one size, at most one previous owner)",)
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
    tiers = tuple(t for t in request.tiers(problem) if t != RACK or problem.rack_locality.active)
    if set(tiers) != {BALANCE, STICKINESS}:
        return (f"the objective {','.join(tiers)} is not balance and stickiness alone (with no rack information)",)
    sticky_first = tiers.index(STICKINESS) < tiers.index(BALANCE)
    weight, reward = _weights(units, n, sticky_first)
    if (certificate.balance_weight, certificate.stickiness_reward) != (weight, reward):
        return (
            f"the weights (W={certificate.balance_weight}, r={certificate.stickiness_reward}) are not "
            f"this problem's (W={weight}, r={reward})",
        )
    if set(certificate.prices) != set(ids):
        return ("the prices do not name exactly the group's members",)
    if any(abs(certificate.prices[m]) >= 2**62 for m in ids):
        return ("a price is out of range (|price| >= 2**62)",)
    price = np.array([certificate.prices[m] for m in ids], dtype=np.int64)
    keepable = units.keepable
    fixed = keepable if sticky_first else np.zeros(units.count, dtype=bool)
    problems: list[str] = []
    for u in np.flatnonzero(fixed & (owner != units.owner))[:5]:
        problems.append(f"(c) {_named(problem, units, u)} left {ids[units.owner[u]]} although stickiness comes first")
    # (a) Each price lies between the cost of the member's last unit and its next.
    count = np.bincount(owner, minlength=n).astype(np.int64)
    holds_free = np.bincount(owner[~fixed], minlength=n) > 0
    last, following = _level_cost(weight, count), _level_cost(weight, count + 1)
    for m in np.flatnonzero((holds_free & (price < last)) | (price > following))[:5]:
        problems.append(f"(a) member {ids[m]} with {int(count[m])} units: price {int(price[m])} outside its levels")
    # (b) Units not kept go to a cheapest eligible member; (c) owners kept exactly what they should.
    cheapest = np.where(units.eligible[:, :n], price[None, :], np.iinfo(np.int64).max).min(axis=1, initial=2**62)
    floor = cheapest[units.hub]
    kept = ~fixed & keepable & (owner == units.owner) & (reward is not None)
    moving = ~fixed & ~kept
    for u in np.flatnonzero(moving & (price[owner] != floor))[:5]:
        problems.append(
            f"(b) {_named(problem, units, u)} went to {ids[owner[u]]} at price {int(price[owner[u]])}, not {int(floor[u])}"
        )
    if reward is not None:
        held = price[np.maximum(units.owner, 0)]
        gain = reward * units.kept
        for u in np.flatnonzero(moving & keepable & (held < floor + gain))[:5]:
            problems.append(
                f"(c) {_named(problem, units, u)} left {ids[units.owner[u]]} priced below {int(floor[u] + gain[u])}"
            )
        for u in np.flatnonzero(kept & (held > floor + gain))[:5]:
            problems.append(
                f"(c) {_named(problem, units, u)} stayed with {ids[units.owner[u]]} priced above {int(floor[u] + gain[u])}"
            )
    return tuple(problems[:20])


# -- the engine ------------------------------------------------------------------------------------


def solve(problem: Problem, request: Request | None = None, *, claims: ResolvedClaims | None = None) -> Solution:
    """The optimum of ``request`` on ``problem`` by one min-cost flow over units, certified (module
    docstring).  Raises :class:`SolverError` when the answer fails its own checks (a bug), and
    ``ValueError`` when the problem's units do not have the flow's shape (:func:`applies`)."""
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
        raise ValueError(f"{METHOD}: units of different sizes or with several previous owners")
    active = tuple(t for t in tiers if t != RACK or problem.rack_locality.active)
    if set(active) != {BALANCE, STICKINESS}:
        raise ValueError(f"{METHOD}: solves balance and stickiness only, not {','.join(active)}")
    n = len(problem.members)
    sticky_first = active.index(STICKINESS) < active.index(BALANCE)
    weight, reward = _weights(units, n, sticky_first)
    fixed = units.keepable if sticky_first else np.zeros(units.count, dtype=bool)
    fixed_load = np.bincount(units.owner[fixed], minlength=n).astype(np.int64)
    # First with level arcs up to a little over the average load: the optimum lies there unless
    # subscriptions force some member higher, and then the prices (computed over every level) do not
    # exist and the full network is solved.  Thousands of level arcs instead of members x units.
    total = int((units.eligible[units.hub].any(axis=0) if units.count else np.zeros(0, bool)).sum())
    ceiling = -(-units.count // max(total, 1)) + 1
    for limit in (ceiling, None):
        flow = _run_flow(units, n, ~fixed, fixed_load, weight, reward, limit)
        if flow is None:
            continue
        owner = _deal(units, n, ~fixed, flow)
        prices = _prices(units, n, owner, fixed, weight, reward)
        if prices is not None:
            break
    else:
        raise SolverError(f"{METHOD}: the flow's residual network has a negative cycle (the flow is not optimal)")
    certificate = UnitPrices(weight, reward, MappingProxyType(dict(zip(problem.member_ids, prices.tolist()))))
    # What the flow proved: unit counts (loads are s times them) and the partitions kept.
    proven_counts = np.bincount(owner, minlength=n).astype(np.int64)
    size = int(units.size[0]) if units.count else 1
    proven_kept = int(units.kept[fixed].sum()) + int((flow.back * flow.classes[:, 2]).sum() if flow.classes.size else 0)
    global_owner = np.full(units.unit_of.size, -1, dtype=np.int64)
    inside = units.unit_of >= 0
    global_owner[inside] = owner[units.unit_of[inside]]
    assignment = Assignment.from_owners(problem, global_owner)
    problems = _verify(problem, assignment, certificate, request, units)
    if problems:
        raise SolverError(f"{METHOD}: the flow's answer does not certify ({problems[0]})")
    measures = measure(problem, assignment, claims)
    if measures.kept != proven_kept or not np.array_equal(measures.loads, size * proven_counts):
        raise SolverError(
            f"{METHOD}: the answer measures loads {measures.sorted_loads} and {measures.kept} kept, "
            f"the flow proved {tuple(sorted((size * proven_counts).tolist(), reverse=True))} and {proven_kept}"
        )
    records = []
    for tier in tiers:
        value = measures.value(tier, request.balance)
        if tier == RACK:  # no rack information (else this engine is not chosen): every partition local
            records.append(TierResult(tier, value, value, True, "bound"))
        elif tier == STICKINESS and sticky_first:  # every unit back to an owner that can take it
            records.append(TierResult(tier, value, int(units.kept[units.keepable].sum()), True, "bound"))
        else:
            records.append(TierResult(tier, value, value, True, PROOF))
    stage = {
        "stage": f"{','.join(active)}: one min-cost flow over {units.count} units of {size} partition(s)",
        "value": {"sorted_loads": list(measures.sorted_loads), "kept": measures.kept},
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
            "classes": int(len(flow.classes)),
            "hubs": int(units.eligible.shape[0]),
            "every_level": int(limit is None),  # 1: the first ceiling on the levels was too low
        },
        request=request,
        tiers=tuple(records),
        stages=(stage,),
        claims=claims,
        measured=measures,
    )
