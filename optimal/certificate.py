"""Certificates of optimality: member prices, and a verifier that needs no solver.

The certificate
---------------
Both exact models minimise ``W * sum(x_m**2) - r * kept`` (see
:mod:`optimal.levels`) over the aggregated network of
:mod:`optimal.network`.  As a min-cost flow with one arc per load level
(level ``k`` of member ``m`` costs ``c(k) = W * (2k - 1)``), an integral flow
is optimal, over all flows and so over all assignments, exactly when some
node potentials make every residual arc's reduced cost non-negative (LP
duality).  Those potentials collapse to one integer per member, its *price*
``y_m`` (minus its potential): the marginal cost of its load.  With
``min_t = min(y_s for s subscribing to topic t)`` the conditions are

(a) ``c(x_m) <= y_m <= c(x_m + 1)`` for every member (``c(0) = -inf``);
    the load arcs;
(b) a partition of topic ``t`` that does *not* stay with its previous owner
    goes to a cheapest subscriber: its member's price is ``min_t``; the hub
    arcs;
(c) if that partition had a previous owner ``o``, letting it go was right:
    ``y_o >= min_t + r``; and a partition that *stays* with ``o`` was right
    to stay: ``y_o <= min_t + r``; the stickiness arcs.  Under
    ``stickiness, balance`` (``r = None``) claims are fixed: (c) becomes
    "every claim is kept".

With the rack tier (:mod:`optimal.levels`) the topic is refined into hubs
(the partitions with the same members and the same local ones,
:mod:`optimal.network`), and each member's price in (b) and (c) is its
*effective* price in that hub: ``y_m + q`` when ``m`` is outside the
partition's replica racks, ``y_m`` otherwise; ``min_t`` is the hub's least
effective price.  When rack locality ranks before balance, (r): a partition
that has a local subscriber went to a local one.

Why they suffice: set the member potentials to ``-y``, the sink's to 0, the
hub of subscriber set ``S`` to ``-min_S y`` and each class node anywhere in
the interval (c) leaves open.  (a)-(c) are then exactly the reduced-cost
conditions on every residual arc of the full network, including all the
level arcs no model built (by convexity only the levels next to ``x_m``
matter).

:func:`verify` checks (a)-(c) and validity with integer arithmetic in
``O(partitions + subscriptions)``.  :func:`certify` finds the prices for an
assignment, when they exist, as shortest-path distances in its residual
network (Bellman-Ford with a queue; a negative cycle means the assignment
is not optimal, and then there is no certificate).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import numpy as np

from assignment_oracle.optimal.levels import objective_weights, unit_cost
from assignment_oracle.optimal.network import AggregatedNetwork, build_network, partition_name
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import owner_arrays
from assignment_oracle.problem.scenario_json import InputError

__all__ = ["Certificate", "certify", "verify", "certificate_from_mapping", "wrong_weights"]

KIND = "member-prices"


@dataclass(frozen=True, eq=False)
class Certificate:
    """Member prices proving an assignment optimal (see module docstring).  ``kind`` names the proof the
    prices belong to (this module's network prices; ``optimal.units_flow``'s unit prices share the shape)."""

    kind: ClassVar[str] = KIND
    balance_weight: int
    stickiness_reward: int | None
    prices: Mapping[str, int] = field(default_factory=dict)
    rack_penalty: int = 0

    def to_mapping(self) -> dict:
        return {
            "kind": self.kind,
            "balance_weight": self.balance_weight,
            "stickiness_reward": self.stickiness_reward,
            "rack_penalty": self.rack_penalty,
            "prices": {m: int(self.prices[m]) for m in sorted(self.prices)},
        }


def certificate_from_mapping(data: Any, *, source: str = "certificate", path: str = "certificate") -> Certificate:
    """Read a certificate as written by ``solve``; bad shapes are input errors."""
    if not isinstance(data, dict):
        raise InputError(source, path, "must be a JSON object")
    unknown = sorted(set(data) - {"kind", "balance_weight", "stickiness_reward", "rack_penalty", "prices"})
    if unknown:
        raise InputError(source, f"{path}.{unknown[0]}", "unknown key")
    if data.get("kind") != KIND:
        raise InputError(source, f"{path}.kind", f'must be "{KIND}"')

    def integer(value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(source, where, "must be an integer")
        return value

    weight = integer(data.get("balance_weight"), f"{path}.balance_weight")
    reward = data.get("stickiness_reward")
    if reward is not None:
        reward = integer(reward, f"{path}.stickiness_reward")
    penalty = integer(data.get("rack_penalty", 0), f"{path}.rack_penalty")
    prices = data.get("prices")
    if not isinstance(prices, dict):
        raise InputError(source, f"{path}.prices", "must be a JSON object of member -> integer")
    return Certificate(
        weight, reward, MappingProxyType({m: integer(v, f"{path}.prices.{m}") for m, v in prices.items()}), penalty
    )


# -- verification (no solver) -------------------------------------------------


def wrong_weights(certificate: Any, theirs: tuple[int, int | None, int | None]) -> tuple[str, ...]:
    """Why the weights a certificate (:class:`Certificate`, or the units' flow's prices) was written
    for, ``(W, r, q)``, are not ``theirs``, the problem's: ``()`` when they are the same."""
    mine = (certificate.balance_weight, certificate.stickiness_reward, certificate.rack_penalty)
    if mine == theirs:
        return ()
    return (
        f"the weights (W={mine[0]}, r={mine[1]}, q={mine[2]}) are not "
        f"this problem's (W={theirs[0]}, r={theirs[1]}, q={theirs[2]})",
    )


def _topic_partition(network: AggregatedNetwork, p: int) -> str:
    return partition_name(network.topics, network.topic_start, p)


def verify(
    problem: Problem,
    assignment: Assignment,
    certificate: Certificate,
    network: AggregatedNetwork | None = None,
    owners: dict[str, np.ndarray] | None = None,
) -> tuple[str, ...]:
    """Check that ``certificate`` proves ``assignment`` optimal for ``problem``.

    Returns the reasons it does not (empty: verified).  Uses integer
    arithmetic only and calls no solver.  ``owners`` (the per-topic owner
    arrays of ``assignment``) may be passed by a caller that already checked
    the assignment valid, to save recomputing them.
    """
    network = build_network(problem) if network is None else network
    if owners is None:
        owners, broken = owner_arrays(problem, assignment)
        if broken:
            return (f"the assignment is not valid ({broken[0]})",)
    weights = objective_weights(network)
    wrong = wrong_weights(certificate, (weights.balance_weight, weights.stickiness_reward, weights.rack_penalty))
    if wrong:
        return wrong
    ids = problem.member_ids
    if set(certificate.prices) != set(ids):
        return ("the prices do not name exactly the group's members",)
    if any(abs(certificate.prices[m]) >= 2**62 for m in ids):
        return ("a price is out of range (|price| >= 2**62)",)
    return _verify(problem, certificate, network, _Placed.of(network, owners, weights.stickiness_reward))


@dataclass(frozen=True, eq=False)
class _Placed:
    """An assignment on the network, as :func:`verify` and :func:`certify` read it (computed once
    for both: the arc lookups are the costly part)."""

    load: np.ndarray  # partitions per member
    owner: np.ndarray  # per partition, in the network's numbering
    arc: np.ndarray  # per partition, the hub -> owner arc (-1: none)
    previous: np.ndarray  # per partition, its keepable owner (-1: none)
    had_owner: np.ndarray  # a free partition with a keepable owner
    stays: np.ndarray  # ... that stays with it
    moving: np.ndarray  # a free partition that does not stay
    owner_arc: np.ndarray | None  # per partition, the hub -> previous owner arc (claims weighed only)

    @classmethod
    def of(cls, network: AggregatedNetwork, owners: dict[str, np.ndarray], reward: int | None) -> _Placed:
        owner = network.global_owner(owners)
        hub, fixed = network.hub_of_partition, network.fixed
        previous = network.keepable_owner.astype(np.int64)
        had_owner = (previous >= 0) & ~fixed
        stays = had_owner & (owner == previous)
        owner_arc = None if reward is None else network.arc_index(hub, np.where(had_owner, previous, 0))
        return cls(
            np.bincount(owner, minlength=network.num_members).astype(np.int64),
            owner,
            network.arc_index(hub, owner),
            previous,
            had_owner,
            stays,
            ~fixed & ~stays,
            owner_arc,
        )


def _verify(problem: Problem, certificate: Certificate, network: AggregatedNetwork, placed: _Placed) -> tuple[str, ...]:
    """:func:`verify` once the weights and the members' names are checked."""
    ids = problem.member_ids
    price = np.array([certificate.prices[m] for m in ids], dtype=np.int64)
    W, r, q = certificate.balance_weight, certificate.stickiness_reward, certificate.rack_penalty
    problems: list[str] = []

    # (a) Each price lies between the cost of the member's last unit and its next.
    load = placed.load
    last, following = unit_cost(W, load), unit_cost(W, load + 1)
    for m in np.flatnonzero(((load > 0) & (price < last)) | (price > following))[:5]:
        bounds = f"[{int(last[m]) if load[m] > 0 else '-inf'}, {int(following[m])}]"
        problems.append(f"(a) member {ids[m]} with load {int(load[m])}: price {int(price[m])} not in {bounds}")

    owner, arc = placed.owner, placed.arc
    hub = network.hub_of_partition
    fixed = network.fixed
    # Claims the objective fixes (stickiness before balance) stay.
    for p in np.flatnonzero(fixed & (owner != network.previous_owner))[:5]:
        problems.append(
            f"(c) {_topic_partition(network, p)} left {ids[network.previous_owner[p]]} although stickiness comes first"
        )
    # Every other partition goes through its hub: to one of the members the objective allows it.
    for p in np.flatnonzero(~fixed & (arc < 0))[:5]:
        problems.append(
            f"(r) {_topic_partition(network, p)} went to {ids[owner[p]]}, outside its replicas' racks, "
            "although rack locality comes before balance and a local subscriber exists"
        )
    if problems:
        return tuple(problems[:20])

    # (b), (c): against the hub's cheapest member, each member's price plus the arc's rack penalty.
    effective = price[network.arc_member] + q * network.arc_cross
    cheapest = np.minimum.reduceat(effective, network.hub_arc_start[:-1]) if effective.size else effective
    previous, had_owner, stays, moving = placed.previous, placed.had_owner, placed.stays, placed.moving
    went = effective[np.where(moving, arc, 0)] if effective.size else np.zeros(owner.size, np.int64)
    floor = cheapest[hub] if effective.size else np.zeros(owner.size, np.int64)
    checks = [(moving & (went != floor), "(b) {tp} went to {m} at price {pm}, not to a cheapest member ({c})")]
    if r is not None and placed.owner_arc is not None:
        owner_arc = placed.owner_arc
        held = effective[np.where(had_owner, owner_arc, 0)] if effective.size else np.zeros(owner.size, np.int64)
        checks.append((had_owner & ~stays & (held < floor + r), "(c) {tp} left {o} at price {po} < {c} + {r}"))
        checks.append((stays & (held > floor + r), "(c) {tp} stayed with {o} at price {po} > {c} + {r}"))
    else:
        held = np.zeros(owner.size, np.int64)
    for mask, text in checks:
        for p in np.flatnonzero(mask)[:5]:
            o = int(previous[p])
            problems.append(
                text.format(
                    tp=_topic_partition(network, p),
                    m=ids[owner[p]],
                    pm=int(went[p]),
                    c=int(floor[p]),
                    r=r,
                    o=ids[o] if o >= 0 else None,
                    po=int(held[p]),
                )
            )
    return tuple(problems[:20])


# -- finding prices -------------------------------------------------------------


def certify(
    problem: Problem,
    assignment: Assignment,
    network: AggregatedNetwork | None = None,
    owners: dict[str, np.ndarray] | None = None,
) -> Certificate | None:
    """Prices proving ``assignment`` optimal, or ``None`` if it is not optimal (or not valid).

    The prices are shortest-path distances from a root in the residual
    network of the assignment, reduced to members and hubs (``x_e``: the
    rack penalty ``q`` if arc ``e`` leads to a non-local member, else 0):

    * root -> member ``m``: ``c(x_m + 1)`` (``y_m <= c(x_m + 1)``);
    * member -> hub, for each of the hub's members: ``x_e`` (the hub's price
      is the minimum of ``y_m + x_e``);
    * hub -> member, if the member got a partition through the hub: ``-x_e``;
    * owner -> hub, ``x_e - r``, if a partition left that owner; hub -> owner,
      ``r - x_e``, if one stayed.

    ``y_m >= c(x_m)`` is not an arc here; it holds exactly when the
    assignment is optimal, which :func:`verify` checks.
    """
    network = build_network(problem) if network is None else network
    if owners is None:
        owners, broken = owner_arrays(problem, assignment)
        if broken:
            return None
    weights = objective_weights(network)
    W, r, q = weights.balance_weight, weights.stickiness_reward, weights.rack_penalty
    num_members, num_hubs = len(problem.members), len(network.hubs)
    root = num_members + num_hubs
    placed = _Placed.of(network, owners, r)
    if (network.fixed & (placed.owner != network.previous_owner)).any():
        return None  # a claim was not kept although stickiness comes first
    if (~network.fixed & (placed.arc < 0)).any():
        return None  # a partition went where the rack restriction does not allow
    penalty = q * network.arc_cross.astype(np.int64)
    num_arcs = network.arc_member.size
    used = _distinct(placed.arc[placed.moving], num_arcs)
    tails = [np.full(num_members, root), network.arc_member, num_members + network.arc_hub[used]]
    heads = [np.arange(num_members), num_members + network.arc_hub, network.arc_member[used]]
    costs = [unit_cost(W, placed.load + 1), penalty, -penalty[used]]
    if r is not None and placed.owner_arc is not None:
        left = _distinct(placed.owner_arc[placed.had_owner & ~placed.stays], num_arcs)
        kept = _distinct(placed.owner_arc[placed.stays], num_arcs)
        tails += [network.arc_member[left], num_members + network.arc_hub[kept]]
        heads += [num_members + network.arc_hub[left], network.arc_member[kept]]
        costs += [penalty[left] - r, r - penalty[kept]]
    distance = _shortest_paths(
        root + 1, root, np.concatenate(tails), np.concatenate(heads), np.concatenate(costs).astype(np.int64)
    )
    if distance is None:
        return None
    certificate = Certificate(
        W, r, MappingProxyType({m: int(distance[i]) for i, m in enumerate(problem.member_ids)}), q
    )
    return None if _verify(problem, certificate, network, placed) else certificate


def _distinct(arcs: np.ndarray, num_arcs: int) -> np.ndarray:
    """The distinct arc indices among ``arcs`` (all in ``[0, num_arcs)``), ascending: ``np.unique``
    by counting, linear in the arcs."""
    return np.flatnonzero(np.bincount(arcs, minlength=num_arcs))


def _shortest_paths(num_nodes: int, source: int, tails, heads, costs) -> list[int] | None:
    """Shortest-path distances from ``source`` (every node is reachable); ``None`` on a negative cycle.

    Bellman-Ford in rounds, each round vectorised over the arcs leaving the nodes the round before
    improved; with int64 sums when no path can leave int64 (a shortest path has fewer than
    ``num_nodes`` arcs, and so has every walk a round relaxes), else with Python's integers
    (:func:`_shortest_paths_exact`).  Shortest distances are unique, so both give the same prices.
    """
    largest = int(np.abs(costs).max()) if costs.size else 0
    if largest * (num_nodes + 1) >= 2**62:
        return _shortest_paths_exact(num_nodes, source, tails, heads, costs)
    # Arcs grouped by tail (their order within a tail does not matter: the distances are unique); a
    # 16-bit key sorts by radix, several times faster than a comparison sort of int64.
    order = np.argsort(tails.astype(np.int16) if num_nodes < 2**15 else tails, kind="stable")
    tails, heads, costs = tails[order], heads[order], costs[order]
    starts = np.searchsorted(tails, np.arange(num_nodes + 1))
    degree = np.diff(starts)
    unreached = np.iinfo(np.int64).max
    distance = np.full(num_nodes, unreached, dtype=np.int64)
    distance[source] = 0
    frontier = np.array([source], dtype=np.int64)
    for _ in range(num_nodes):
        counts = degree[frontier]
        total = int(counts.sum())
        if total == 0:
            break
        first = np.repeat(starts[frontier] - (np.cumsum(counts) - counts), counts)
        arcs = first + np.arange(total)
        reach = distance[tails[arcs]] + costs[arcs]
        to = heads[arcs]
        better = reach < distance[to]
        if not better.any():
            break
        to, reach = to[better], reach[better]
        np.minimum.at(distance, to, reach)
        frontier = np.flatnonzero(np.bincount(to, minlength=num_nodes))
    else:
        return None  # still improving after num_nodes rounds: a negative cycle
    found: list[Any] = distance.tolist()
    if (distance == unreached).any():  # not reached (the root reaches every member and hub)
        found = [None if d == unreached else d for d in found]
    return found


def _shortest_paths_exact(num_nodes: int, source: int, tails, heads, costs) -> list[int] | None:
    """Queue-based Bellman-Ford (SPFA) with Python's integers; ``None`` on a negative cycle."""
    order = np.lexsort((heads, tails))
    tails, heads, costs = tails[order], heads[order], costs[order]
    starts = np.searchsorted(tails, np.arange(num_nodes + 1)).tolist()
    heads, costs = heads.tolist(), costs.tolist()
    distance: list[Any] = [None] * num_nodes
    distance[source] = 0
    queued = [False] * num_nodes
    relaxed = [0] * num_nodes
    queue = deque([source])
    queued[source] = True
    while queue:
        u = queue.popleft()
        queued[u] = False
        du = distance[u]
        for e in range(starts[u], starts[u + 1]):
            v = heads[e]
            dv = du + costs[e]
            if distance[v] is None or dv < distance[v]:
                distance[v] = dv
                if not queued[v]:
                    relaxed[v] += 1
                    if relaxed[v] > num_nodes:
                        return None
                    queued[v] = True
                    queue.append(v)
    return distance
