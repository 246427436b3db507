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
from typing import Any, Mapping

import numpy as np

from assignment_oracle.optimal.levels import objective_weights, unit_cost
from assignment_oracle.optimal.network import AggregatedNetwork, build_network
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import owner_arrays
from assignment_oracle.problem.scenario_json import InputError

__all__ = ["Certificate", "certify", "verify", "certificate_from_mapping"]

KIND = "member-prices"


@dataclass(frozen=True, eq=False)
class Certificate:
    """Member prices proving an assignment optimal (see module docstring)."""

    balance_weight: int
    stickiness_reward: int | None
    prices: Mapping[str, int] = field(default_factory=dict)

    def to_mapping(self) -> dict:
        return {
            "kind": KIND,
            "balance_weight": self.balance_weight,
            "stickiness_reward": self.stickiness_reward,
            "prices": {m: int(self.prices[m]) for m in sorted(self.prices)},
        }


def certificate_from_mapping(data: Any, *, source: str = "certificate", path: str = "certificate") -> Certificate:
    """Read a certificate as written by ``solve``; bad shapes are input errors."""
    if not isinstance(data, dict):
        raise InputError(source, path, "must be a JSON object")
    unknown = sorted(set(data) - {"kind", "balance_weight", "stickiness_reward", "prices"})
    if unknown:
        raise InputError(source, f"{path}.{unknown[0]}", "unknown key")
    if data.get("kind") != KIND:
        raise InputError(source, f"{path}.kind", f"must be \"{KIND}\"")

    def integer(value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(source, where, "must be an integer")
        return value

    weight = integer(data.get("balance_weight"), f"{path}.balance_weight")
    reward = data.get("stickiness_reward")
    if reward is not None:
        reward = integer(reward, f"{path}.stickiness_reward")
    prices = data.get("prices")
    if not isinstance(prices, dict):
        raise InputError(source, f"{path}.prices", "must be a JSON object of member -> integer")
    return Certificate(
        weight, reward, MappingProxyType({m: integer(v, f"{path}.prices.{m}") for m, v in prices.items()})
    )


# -- verification (no solver) -------------------------------------------------


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
    if (certificate.balance_weight, certificate.stickiness_reward) != (
        weights.balance_weight,
        weights.stickiness_reward,
    ):
        return (
            f"the weights (W={certificate.balance_weight}, r={certificate.stickiness_reward}) are not "
            f"this problem's (W={weights.balance_weight}, r={weights.stickiness_reward})",
        )
    ids = problem.member_ids
    if set(certificate.prices) != set(ids):
        return ("the prices do not name exactly the group's members",)
    if any(abs(certificate.prices[m]) >= 2**62 for m in ids):
        return ("a price is out of range (|price| >= 2**62)",)
    price = np.array([certificate.prices[m] for m in ids], dtype=np.int64)
    W, r = weights.balance_weight, weights.stickiness_reward
    problems: list[str] = []

    # (a) Each price lies between the cost of the member's last unit and its next.
    load = network.loads(owners)
    last, following = unit_cost(W, load), unit_cost(W, load + 1)
    for m in np.flatnonzero(((load > 0) & (price < last)) | (price > following))[:5]:
        bounds = f"[{int(last[m]) if load[m] > 0 else '-inf'}, {int(following[m])}]"
        problems.append(f"(a) member {ids[m]} with load {int(load[m])}: price {int(price[m])} not in {bounds}")

    # (b), (c): per topic, against the cheapest subscriber.
    cheapest_in_hub = [int(price[np.asarray(members)].min()) for members in network.hubs]
    for i, t in enumerate(network.topics):
        cheapest = cheapest_in_hub[network.hub_of_topic[i]]
        owner = owners[t]
        previous = network.previous_owner[network.topic_start[i] : network.topic_start[i + 1]]
        had_owner = previous >= 0
        stays = had_owner & (owner == previous)
        checks = [(~stays & (price[owner] != cheapest), "went to {m} at price {pm}, not to a cheapest subscriber ({c})")]
        if r is None:
            checks.append((~stays & had_owner, "left {o} although stickiness comes first"))
        else:
            safe_previous = np.where(had_owner, previous, 0)
            checks.append((~stays & had_owner & (price[safe_previous] < cheapest + r), "left {o} at price {po} < {c} + {r}"))
            checks.append((stays & (price[safe_previous] > cheapest + r), "stayed with {o} at price {po} > {c} + {r}"))
        for mask, text in checks:
            for p in np.flatnonzero(mask)[:5]:
                m, o = int(owner[p]), int(previous[p])
                detail = text.format(
                    m=ids[m], pm=int(price[m]), c=cheapest, r=r,
                    o=ids[o] if o >= 0 else None, po=int(price[o]) if o >= 0 else None,
                )
                problems.append(f"({'b' if 'cheapest' in text else 'c'}) {t}-{p} {detail}")
        if len(problems) >= 20:
            break
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
    network of the assignment, reduced to members and hubs:

    * root -> member ``m``: ``c(x_m + 1)`` (``y_m <= c(x_m + 1)``);
    * member -> hub, for each subscriber: 0 (the hub's price is the minimum);
    * hub -> member, if the member got a partition through the hub: 0;
    * owner -> hub, ``-r``, if a partition left that owner; hub -> owner,
      ``+r``, if one stayed.

    ``y_m >= c(x_m)`` is not an arc here; it holds exactly when the
    assignment is optimal, which :func:`verify` checks.
    """
    network = build_network(problem) if network is None else network
    if owners is None:
        owners, broken = owner_arrays(problem, assignment)
        if broken:
            return None
    weights = objective_weights(network)
    W, r = weights.balance_weight, weights.stickiness_reward
    num_members, num_hubs = len(problem.members), len(network.hubs)
    root = num_members + num_hubs
    load = network.loads(owners)

    tails: list[np.ndarray] = [np.full(num_members, root), network.arc_member, ]
    heads: list[np.ndarray] = [np.arange(num_members), num_members + network.arc_hub]
    costs: list[np.ndarray] = [unit_cost(W, load + 1), np.zeros(network.arc_member.size, dtype=np.int64)]
    for i, t in enumerate(network.topics):
        hub = num_members + int(network.hub_of_topic[i])
        owner = owners[t].astype(np.int64)
        previous = network.previous_owner[network.topic_start[i] : network.topic_start[i + 1]].astype(np.int64)
        stays = (previous >= 0) & (owner == previous)
        receivers = np.unique(owner[~stays])
        tails.append(np.full(receivers.size, hub))
        heads.append(receivers)
        costs.append(np.zeros(receivers.size, dtype=np.int64))
        left = np.unique(previous[~stays & (previous >= 0)])
        if left.size and r is None:
            return None  # a claim was not kept although stickiness comes first
        if r is not None:
            kept = np.unique(previous[stays])
            tails += [left, np.full(kept.size, hub)]
            heads += [np.full(left.size, hub), kept]
            costs += [np.full(left.size, -r, dtype=np.int64), np.full(kept.size, r, dtype=np.int64)]
    distance = _shortest_paths(
        root + 1, root, np.concatenate(tails), np.concatenate(heads), np.concatenate(costs)
    )
    if distance is None:
        return None
    certificate = Certificate(
        W, r, MappingProxyType({m: int(distance[i]) for i, m in enumerate(problem.member_ids)})
    )
    return None if verify(problem, assignment, certificate, network, owners) else certificate


def _shortest_paths(num_nodes: int, source: int, tails, heads, costs) -> list[int] | None:
    """Queue-based Bellman-Ford (SPFA); ``None`` on a negative cycle."""
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
