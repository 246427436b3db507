"""The most balanced, then stickiest, assignment as a min-cost flow (exact, polynomial).

Guarantee: the returned assignment is optimal for the problem's objective
order, ``balance, stickiness`` (decreasingly-minimal loads, then the most
partitions kept by their resolved previous owner) or ``stickiness,
balance``, and comes with a certificate that :func:`optimal.certificate.verify`
checks without a solver.

The network is the aggregated one of :mod:`optimal.network`:

    class (hub, owner) --cost -r (+q)--> owner member
    class (hub, owner) --cost 0---> hub --cost 0 (+q)--> member (any of the hub's members)
    member --convex level arcs--> sink

(``+q``: the rack penalty, on arcs to a member outside the partitions'
replica racks, when the objective weighs rack locality after balance.)

with supplies on classes (and on hubs for partitions without an owner) and
the per-unit level costs ``W * (2k - 1)`` of :mod:`optimal.levels`.  Only a
window of levels per member is built; the window is widened and the flow
solved again until every load lands inside (usually once; each round is one
min-cost flow, so the whole is polynomial).

The default backend is OR-Tools' ``SimpleMinCostFlow`` (cost scaling, exact
integer arithmetic).  ``backend="networkx"`` runs the same network through
networkx's network simplex, for comparison.

Examples
--------
>>> from assignment_oracle.problem import Problem
>>> from assignment_oracle.optimal.flow import solve
>>> p = Problem.from_mapping({"topics": {"t": 3}, "members": {
...     "a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}}, "b": {"topics": ["t"]}}})
>>> s = solve(p)
>>> s.status, s.sorted_loads, s.retained
('OPTIMAL', (2, 1), 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from ortools.graph.python import min_cost_flow

from assignment_oracle.optimal.levels import Windows, initial_windows, objective_weights, unit_cost, widen
from assignment_oracle.optimal.network import AggregatedNetwork, build_network
from assignment_oracle.optimal.solution import Solution, SolverError, finish
from assignment_oracle.problem.claims import ResolvedClaims
from assignment_oracle.problem.model import Problem

__all__ = ["solve"]

BACKENDS = ("ortools", "networkx")
# OR-Tools' cost scaling multiplies costs by about the number of nodes; keep
# that product well inside int64.
_COST_LIMIT = 2**62


@dataclass(frozen=True, eq=False)
class _FlowNetwork:
    """Arc arrays of one windowed network, and where each kind of arc starts."""

    tails: np.ndarray
    heads: np.ndarray
    capacities: np.ndarray
    costs: np.ndarray
    supplies: np.ndarray
    keep_arcs: np.ndarray  # arc index per class (-1 when the class has no owner)
    hub_arcs: slice  # the hub -> member arcs, in network.arc_* order
    num_nodes: int


def solve(
    problem: Problem,
    *,
    claims: ResolvedClaims | None = None,
    backend: str = "ortools",
    max_rounds: int = 64,
) -> Solution:
    """Solve ``problem`` exactly by min-cost flow.  Never returns a non-optimal status.

    Raises
    ------
    ValueError
        On an unknown backend.
    SolverError
        If costs would overflow int64, or the flow solver fails (a bug).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown flow backend {backend!r} (known: {', '.join(BACKENDS)})")
    started = time.perf_counter()
    network = build_network(problem, claims)
    weights = objective_weights(network)
    windows = initial_windows(network)
    run = _run_ortools if backend == "ortools" else _run_networkx
    for rounds in range(1, max_rounds + 1):
        flow_network = _build(network, weights, windows)
        flows = run(flow_network)
        class_kept = np.where(flow_network.keep_arcs >= 0, flows[flow_network.keep_arcs], 0)
        arc_flow = flows[flow_network.hub_arcs]
        loads = (
            network.base_load
            + np.bincount(
                network.class_owner[network.class_owner >= 0],
                weights=class_kept[network.class_owner >= 0],
                minlength=network.num_members,
            ).astype(np.int64)
            + np.bincount(network.arc_member, weights=arc_flow, minlength=network.num_members).astype(np.int64)
        )
        if windows.contains(loads).all():
            break
        windows = widen(network, windows, loads)
    else:
        raise SolverError(f"load windows did not settle in {max_rounds} rounds")
    assignment = network.materialize(class_kept, arc_flow)
    stats = {
        "rounds": rounds,
        "nodes": flow_network.num_nodes,
        "arcs": int(flow_network.tails.size),
        "hubs": len(network.hubs),
        "classes": int(network.class_count.size),
    }
    return finish(
        network,
        "flow" if backend == "ortools" else "networkx",
        assignment,
        True,
        None,
        started,
        stats,
        time.perf_counter,
    )


def _build(network: AggregatedNetwork, weights, windows: Windows) -> _FlowNetwork:
    """Nodes: owned classes, then hubs, then members, then the sink."""
    W, r, q = weights.balance_weight, weights.stickiness_reward, weights.rack_penalty
    owned = np.flatnonzero(network.class_owner >= 0)
    num_classes, num_hubs, num_members = owned.size, len(network.hubs), network.num_members
    hub0, member0 = num_classes, num_classes + num_hubs
    sink = member0 + num_members
    tails, heads, caps, costs = [], [], [], []

    def add(t, h, c, k):
        tails.append(np.asarray(t, dtype=np.int64))
        heads.append(np.asarray(h, dtype=np.int64))
        caps.append(np.asarray(c, dtype=np.int64))
        costs.append(np.asarray(k, dtype=np.int64))

    # Each owned class sends its partitions to its hub or keeps them (reward r; penalty q if its
    # owner is not local to them).
    class_nodes = np.arange(num_classes)
    counts = network.class_count[owned]
    add(class_nodes, hub0 + network.class_hub[owned], counts, np.zeros(num_classes))
    add(class_nodes, member0 + network.class_owner[owned], counts, q * network.class_cross[owned] - (r or 0))
    keep_arcs = np.full(network.class_count.size, -1, dtype=np.int64)
    keep_arcs[owned] = num_classes + np.arange(num_classes)
    # Each hub may give any of its partitions to any of its members (penalty q to a non-local one).
    first_hub_arc = 2 * num_classes
    add(
        hub0 + network.arc_hub, member0 + network.arc_member, network.hub_supply[network.arc_hub], q * network.arc_cross
    )
    hub_arcs = slice(first_hub_arc, first_hub_arc + network.arc_hub.size)
    # Each member's load pays the convex level costs, windowed.
    members = np.arange(num_members)
    base, lo, hi, cap = network.base_load, windows.lo, windows.hi, network.capacity
    merged = lo > base
    add(member0 + members[merged], np.full(int(merged.sum()), sink), (lo - base)[merged], unit_cost(W, lo[merged]))
    unit_counts = hi - lo
    unit_member = np.repeat(members, unit_counts)
    unit_level = np.repeat(lo + 1 - np.cumsum(np.concatenate(([0], unit_counts[:-1]))), unit_counts) + np.arange(
        unit_counts.sum()
    )
    add(member0 + unit_member, np.full(unit_member.size, sink), np.ones(unit_member.size), unit_cost(W, unit_level))
    overflow = hi < cap
    add(
        member0 + members[overflow],
        np.full(int(overflow.sum()), sink),
        (cap - hi)[overflow],
        unit_cost(W, hi[overflow] + 1),
    )

    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:num_classes] = counts
    unowned = network.class_owner < 0
    supplies[hub0 : hub0 + num_hubs] = np.bincount(
        network.class_hub[unowned], weights=network.class_count[unowned], minlength=num_hubs
    )
    supplies[sink] = -int(network.class_count.sum())
    result = _FlowNetwork(
        np.concatenate(tails),
        np.concatenate(heads),
        np.concatenate(caps),
        np.concatenate(costs),
        supplies,
        keep_arcs,
        hub_arcs,
        sink + 1,
    )
    largest = int(np.abs(result.costs).max()) if result.costs.size else 0
    if largest * (result.num_nodes + 1) >= _COST_LIMIT:
        raise SolverError(f"costs up to {largest} on {result.num_nodes} nodes may overflow int64")
    return result


def _run_ortools(net: _FlowNetwork) -> np.ndarray:
    solver = min_cost_flow.SimpleMinCostFlow()
    arcs = solver.add_arcs_with_capacity_and_unit_cost(net.tails, net.heads, net.capacities, net.costs)
    solver.set_nodes_supplies(np.arange(net.num_nodes), net.supplies)
    status = solver.solve()
    if status != solver.OPTIMAL:
        raise SolverError(f"OR-Tools min-cost flow ended with status {status}")
    return np.asarray(solver.flows(arcs), dtype=np.int64)


def _run_networkx(net: _FlowNetwork) -> np.ndarray:
    import networkx as nx  # only this backend needs it; importing it costs ~0.3 s

    graph = nx.MultiDiGraph()
    for node, supply in enumerate(net.supplies.tolist()):
        graph.add_node(node, demand=-supply)
    keys = [
        graph.add_edge(t, h, capacity=c, weight=k)
        for t, h, c, k in zip(net.tails.tolist(), net.heads.tolist(), net.capacities.tolist(), net.costs.tolist())
    ]
    try:
        _, flow = nx.network_simplex(graph)
    except nx.NetworkXException as err:
        raise SolverError(f"networkx network simplex failed: {err}") from None
    return np.array([flow[t][h][k] for t, h, k in zip(net.tails.tolist(), net.heads.tolist(), keys)], dtype=np.int64)
