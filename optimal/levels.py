"""The objective as per-unit costs, and the load windows the models are built on.

Objective
---------
With loads ``x`` (partitions per member) and ``kept`` (partitions that stay
with their resolved previous owner), both exact models minimise

    W * sum(x_m ** 2)  -  r * kept

*Most balanced first* (``balance, stickiness``): ``r = 1`` and
``W = floor(K / 2) + 1`` where ``K`` is the number of partitions that have a
previous owner (capped at twice the members, below).  Sums of squares of two
valid assignments have the same parity as the partition count, so they
differ by 0 or by at least 2; ``2W > K >= any difference in kept`` makes
every balance improvement outweigh any stickiness loss: the minimum is the
stickiest of the most balanced assignments.  Minimal sum of squares is the same as decreasingly-minimal
(most balanced) here, because the achievable load vectors form an M-convex
set (Frank & Murota); the tests check that against brute force.

*Stickiness first* (``stickiness, balance``): every claim is kept (the
claims are fixed, see :mod:`optimal.network`), ``W = 1`` and ``r`` plays no
part (``None``).

*Rack locality* (the ``rack`` tier; KIP-881): a partition given to a member
outside its replicas' racks costs ``q``, so with ``cross`` such partitions
the objective is ``W * sum(x_m ** 2) + q * cross - r * kept``.  Tiers after
``balance`` are weighted, each above everything after it:

* ``balance, rack, stickiness``: ``r = 1``, ``q = K + 1`` (one partition
  more or less across racks outweighs every claim);
* ``balance, stickiness, rack``: ``q = 1``, ``r = C + 1``;
* a tier before ``balance`` is not weighted but enforced by the network
  (claims fixed, or partitions restricted to local subscribers), and its
  weight is ``None`` (``r``) or 0 (``q``).

Why weights this small suffice: the lexicographic optimum and the weighted
one are both characterised by cycles.  An assignment is lexicographically
optimal exactly when the residual network of its flow has no cycle that is
lexicographically negative (the difference to a better assignment
decomposes into cycles, one of which must be better), and weighted-optimal
exactly when it has no cycle of negative weighted cost.  The two agree when
on every simple cycle each tier's weight outweighs the most the later tiers
can change.  A simple cycle passes the sink at most once, so it changes at
most two loads, by one each, and the sum of squares by an even number (a
balance change is at least 2); every stickiness or rack term lies on an arc
that ends at a member, and a simple cycle passes each of the ``M`` members
once, so it changes kept and cross-rack counts by at most ``2M`` each.  So
``K`` above is the smaller of ``2M`` and the number of free partitions with
a keepable owner, and ``C`` the smaller of ``2M`` and the number of free
partitions whose hub has both local and non-local members
(:attr:`AggregatedNetwork.penalised`); then ``W = floor((q * C + r * K) /
2) + 1``.  The certificate proves the weighted optimum; this argument (and
the brute-force tests, on every objective order) carries it to the
lexicographic one.  Without rack information ``q = 0`` and this is the
two-tier objective above.  The ``2M`` cap keeps costs small on big groups
(Kafka's 1,000,000-partition case: ``W = 4,001`` instead of ~500,000, and
with racks ``q * C`` stays near ``(2M)**2`` rather than partitions
squared, far from int64's limits).

Per-unit costs
--------------
``W * x**2`` is convex and separable, so the k-th partition a member gets
costs ``c(k) = W * (2k - 1)``: the classic convex-cost flow with one arc per
load level.  One arc per level and member would be partitions x members arcs,
so the models only materialise a **window** ``[lo, hi]`` of levels per
member:

* levels ``1..lo`` as one arc of per-unit cost ``c(lo)``;
* levels ``lo+1 .. hi`` as one unit arc each;
* the rest as one arc of per-unit cost ``c(hi+1)``.

That is a convex function equal (up to a constant) to the true one on
``[lo, hi + 1]`` and below it elsewhere, so the windowed optimum is a lower
bound; when every member's optimal load lands inside its window, the
windowed optimum *is* the true optimum.  Otherwise the offending windows
are widened and the model is solved again (:func:`widen`).  Each window
starts around an estimate of the optimal loads (:func:`estimate_loads`,
water-filling and block coordinate descent), which is exact for uniform
subscriptions.  The certificate (:mod:`optimal.certificate`)
then proves the result against the full level structure, independently of
the windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assignment_oracle.optimal.network import AggregatedNetwork
from assignment_oracle.problem.model import BALANCE, RACK, STICKINESS

__all__ = [
    "ObjectiveWeights",
    "objective_weights",
    "unit_cost",
    "estimate_loads",
    "Windows",
    "initial_windows",
    "widen",
]


@dataclass(frozen=True)
class ObjectiveWeights:
    """``W`` (balance weight), ``r`` (stickiness reward; ``None`` = claims are fixed) and
    ``q`` (rack penalty per cross-rack partition; 0 = rack locality is not weighed)."""

    balance_weight: int
    stickiness_reward: int | None
    rack_penalty: int = 0


def objective_weights(network: AggregatedNetwork) -> ObjectiveWeights:
    """The weights of the problem's objective order (see module docstring)."""
    problem = network.problem
    # How much a later tier can change along one simple cycle of the residual network: every stickiness or
    # rack term sits on an arc that ends at a member, and a simple cycle passes each member once (two arcs),
    # so at most 2 per member; never more than the partitions that carry the term (see module docstring).
    per_cycle = 2 * network.num_members
    owned = min(int(network.class_count[network.class_owner >= 0].sum()), per_cycle)  # K
    penalised = min(network.penalised, per_cycle)  # C
    reward = None if problem.ranks_before(STICKINESS, BALANCE) else 1
    penalty = 1 if penalised and problem.ranks_before(BALANCE, RACK) and RACK in problem.objective else 0
    if reward is not None and penalty:
        if problem.ranks_before(RACK, STICKINESS):
            penalty = owned + 1
        else:
            reward = penalised + 1
    weight = (penalty * penalised + (reward or 0) * owned) // 2 + 1
    return ObjectiveWeights(weight, reward, penalty)


def unit_cost(weight: int, level):
    """Cost of a member's ``level``-th partition: ``W * (2 * level - 1)``."""
    return weight * (2 * np.asarray(level, dtype=np.int64) - 1)


def _water_fill(loads: np.ndarray, amount: int) -> np.ndarray:
    """Give ``amount`` units to ``loads``, always to the lowest; returns new loads."""
    if amount == 0 or loads.size == 0:
        return loads.copy()
    order = np.argsort(loads, kind="stable")
    ascending = loads[order]
    prefix = np.cumsum(ascending)
    # Units needed to lift the k lowest members to the k-th lowest load.
    needed = np.arange(1, ascending.size + 1) * ascending - prefix
    k = int(np.searchsorted(needed, amount, side="right"))
    total = amount + int(prefix[k - 1])
    level, extra = divmod(total, k)
    filled = ascending.copy()
    filled[:k] = level
    filled[:extra] += 1
    out = np.empty_like(loads)
    out[order] = filled
    return out


def estimate_loads(network: AggregatedNetwork, passes: int = 12) -> np.ndarray:
    """A balanced guess of each member's optimal load.

    First every hub is filled, most constrained first (fewest members, then
    most partitions, as KIP-49 orders topics), by water-filling its members'
    current loads.  Then block coordinate descent: hub by hub, take the hub's
    partitions back and water-fill them again given everything else, until a
    pass changes nothing (or ``passes`` passes).  Each step can only lower the
    sum of squares, so the guess approaches the most balanced loads; it is
    exact for uniform subscriptions, and within a unit or two of the optimum
    on the skewed benchmarks.  Previous owners are ignored (balance comes
    first; under stickiness first they are the fixed base load).
    """
    loads = network.base_load.copy()
    supply = network.hub_supply.tolist()
    starts = network.hub_arc_start.tolist()
    members_of = [network.arc_member[starts[h] : starts[h + 1]] for h in range(len(network.hubs))]
    given = np.zeros(network.arc_member.size, dtype=np.int64)  # each hub's share, per arc
    given_of = [given[starts[h] : starts[h + 1]] for h in range(len(network.hubs))]  # views
    ranks = np.arange(1, max((m.size for m in members_of), default=0) + 1, dtype=np.int64)
    order = sorted(range(len(network.hubs)), key=lambda h: (len(network.hubs[h]), -supply[h], h))
    for sweep in range(passes + 1):
        changed = False
        # From the second pass on, a hub whose share is already the water-filling of what its members
        # hold elsewhere (tested for every hub at once) and none of whose members' loads moved since
        # would be filled again to the same share: it is skipped (the last pass usually skips all).
        settled = _settled(network, loads, given).tolist() if sweep else []
        moved = np.zeros(network.num_members, dtype=bool)
        for h in order:
            members = members_of[h]
            if sweep and settled[h] and not moved[members].any():
                continue
            # _water_fill inline, in ndarray methods: this loop runs hubs x passes times, so each
            # call's overhead counts (the coordinator's 1,000 hubs take three passes).
            current = loads[members]
            others = current - given_of[h]
            by_load = others.argsort(kind="stable")
            ascending = others[by_load]
            prefix = ascending.cumsum()
            needed = ranks[: members.size] * ascending - prefix
            k = int(needed.searchsorted(supply[h], side="right"))
            level, extra = divmod(supply[h] + int(prefix[k - 1]), k)
            # The k lowest hold at most ``level``, the others more: raising to ``level`` fills the k.
            filled = np.maximum(others, level)
            if extra:
                filled[by_load[:extra]] += 1
            # The share changes exactly when the new loads differ from the current ones.
            if sweep == 0:
                changed = True
                loads[members] = filled
                given_of[h][:] = filled - others
                continue
            differs = filled != current
            if differs.any():
                changed = True
                moved[members[differs]] = True
                loads[members] = filled
                given_of[h][:] = filled - others
        if not changed:
            break
    return loads


def _settled(network: AggregatedNetwork, loads: np.ndarray, given: np.ndarray) -> np.ndarray:
    """Per hub: is its share ``given`` (per arc) exactly what water-filling would give it again?

    With ``c`` the members' loads, ``o = c - given`` what they hold elsewhere and ``l = min(c)``,
    the water-filling of the hub's supply (which ``given`` sums to) over ``o`` is ``c`` exactly when
    the members with ``o <= l`` hold ``l`` or ``l + 1``, the others got nothing, and those at
    ``l + 1`` are the first of them by ``(o, position)`` (:func:`_water_fill`'s stable order): then
    ``l`` is the fill's level and the ones at ``l + 1`` its extras.  Vectorised over every arc.
    """
    starts = network.hub_arc_start
    if not network.arc_member.size:
        return np.zeros(len(network.hubs), dtype=bool)
    first = starts[:-1]
    current = loads[network.arc_member]
    others = current - given
    level = np.minimum.reduceat(current, first)[network.arc_hub]
    low = others <= level
    wrong = np.where(low, current > level + 1, given != 0)
    width = int(np.diff(starts).max())
    key = others * width + (np.arange(current.size) - starts[network.arc_hub])  # (o, position)
    top = low & (current == level + 1)
    bottom = low & (current == level)
    last_top = np.maximum.reduceat(np.where(top, key, np.iinfo(np.int64).min), first)
    first_bottom = np.minimum.reduceat(np.where(bottom, key, np.iinfo(np.int64).max), first)
    return ~np.logical_or.reduceat(wrong, first) & (last_top < first_bottom)


@dataclass(frozen=True, eq=False)
class Windows:
    """Per member, the materialised load levels ``[lo, hi]`` (absolute loads)."""

    lo: np.ndarray
    hi: np.ndarray

    def contains(self, loads: np.ndarray) -> np.ndarray:
        """Where the windowed cost equals the true cost: ``lo <= x <= hi + 1``
        (below ``lo`` only when ``lo`` is the member's fixed load)."""
        return (loads <= self.hi + 1) & (loads >= self.lo)


def initial_windows(network: AggregatedNetwork, slack: int = 1, around: np.ndarray | None = None) -> Windows:
    """Windows of ``slack`` levels either side of the estimate, or of ``around``
    (the loads of a hint) when given."""
    estimate = estimate_loads(network) if around is None else np.asarray(around, dtype=np.int64)
    lo = np.maximum(network.base_load, estimate - slack)
    hi = np.minimum(network.capacity, estimate + slack)
    return Windows(lo, np.maximum(hi, lo))


def widen(network: AggregatedNetwork, windows: Windows, loads: np.ndarray) -> Windows:
    """Widen the windows of the members whose load fell outside (doubling)."""
    width = windows.hi - windows.lo + 1
    below = loads < windows.lo
    above = loads > windows.hi + 1
    lo = np.where(below, np.maximum(network.base_load, np.minimum(loads, windows.lo) - 2 * width), windows.lo)
    hi = np.where(above, np.minimum(network.capacity, np.maximum(loads, windows.hi) + 2 * width), windows.hi)
    return Windows(lo, hi)
