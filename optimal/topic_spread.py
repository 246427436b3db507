"""Per-topic spread as a tier after balance (KAFKA-16277), exact with one min-cost flow.

Guarantee: the result is most balanced (dec-min partition counts, as
everywhere), then, among those, spreads each topic's partitions as evenly as
possible over its subscribers, then keeps the most partitions with their
resolved previous owner; proven by the flow's optimality (integral min-cost
flow), cross-checked against brute force in the tests.

Why: KAFKA-16277 (fixed in Kafka 3.8 / 4.0, ``AbstractStickyAssignor``): after
a member joined, the cooperative sticky assignor could hand it every
partition of one topic, balanced in total but not per topic, and a consumer
of that topic then got one member's throughput.  Kafka's fix spreads a
topic's partitions; this is the exact version of that wish.

Definition (docs/formats.md, "Per-topic spread"): with ``n[t][m]`` the
partitions of topic ``t`` member ``m`` holds, the spread tier minimises
``sum over t and m of n[t][m]^2`` among the most balanced assignments: for
one topic with its total fixed, the least sum of squares is the most even
split, and summing over topics keeps the tier separable convex, which is
what makes one flow exact.

The network (partition identity is needed only for stickiness)::

    owned partition p of t --(-1)--> (t, its owner)      keeping it
    owned partition p of t --0--> pool(t) --0--> (t, m)  for every subscriber m
    unowned partitions of t: supply at pool(t)
    (t, m) --B*(2k-1) for its k-th partition--> m        spread tier
    m --A*(2k-1) for its k-th partition--> sink          balance tier

with ``B = P // 2 + 1`` (a step of 2 in the spread sum outweighs every
stickiness difference, at most ``P``, the partitions) and ``A`` likewise over
the spread's range: the tiers never trade.  Racks are not a tier here yet.
"""

from __future__ import annotations

import time

import numpy as np
from ortools.graph.python import min_cost_flow

from assignment_oracle.optimal.solution import OPTIMAL, Solution
from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.metrics import retained
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["solve", "topic_squares"]

#: Costs stay below this (int64, with room for the solver's sums).
_COST_LIMIT = 2**62


def topic_squares(problem: Problem, assignment: Assignment) -> int:
    """The spread tier's measure: the sum over topics and members of (partitions of the topic held)^2."""
    return sum(
        len(ps) ** 2
        for topics in assignment.members.values()
        for t, ps in topics.items()
        if t in problem.partition_counts
    )


def solve(problem: Problem, *, claims: ResolvedClaims | None = None) -> Solution:
    """Most balanced, then most evenly spread per topic, then stickiest (module docstring); the
    front door (:func:`optimal.solve`) adds the per-tier records.  :class:`ValueError` when the
    tiers' weights do not fit 64-bit costs (the front door then takes the staged model)."""
    if problem.join_groups or problem.weights:
        raise ValueError("per-topic spread with join groups or weights is not a flow")
    started = time.perf_counter()
    claims = resolve_claims(problem) if claims is None else claims
    previous = claims.previous_owner
    n = len(problem.members)
    topics = problem.assignable_topics
    total = problem.total_partitions
    largest_topic = max((t.partitions for t in topics), default=0)
    spread_weight = total // 2 + 1
    balance_weight = (spread_weight * total * max(largest_topic, 1) + total) // 2 + 1
    if balance_weight * total * total >= _COST_LIMIT:
        raise ValueError(f"{total:,} partitions is too many for the spread tier's exact weights in 64-bit costs")
    tails, heads, caps, costs = [], [], [], []
    supplies: dict[int, int] = {}
    nodes = 0

    def node() -> int:
        nonlocal nodes
        nodes += 1
        return nodes - 1

    def arc(tail: int, head: int, cap: int, cost: int) -> int:
        tails.append(tail)
        heads.append(head)
        caps.append(cap)
        costs.append(cost)
        return len(tails) - 1

    member_node = [node() for _ in range(n)]
    sink = node()
    keep_arcs: list[tuple[int, str, int, int]] = []  # (arc, topic, partition, member)
    pair_arcs: dict[tuple[str, int], list[int]] = {}
    for topic in topics:
        subscribers = problem.subscribers[topic.name]
        pool = node()
        pair = {m: node() for m in subscribers}
        owners = previous[topic.name]
        unowned = 0
        for p in range(topic.partitions):
            o = int(owners[p])
            if o >= 0 and o in pair:
                source = node()
                supplies[source] = 1
                keep_arcs.append((arc(source, pair[o], 1, -1), topic.name, p, o))
                arc(source, pool, 1, 0)
            else:
                unowned += 1
        supplies[pool] = supplies.get(pool, 0) + unowned
        for m, pm in pair.items():
            arc(pool, pm, topic.partitions, 0)
            pair_arcs[(topic.name, m)] = [
                arc(pm, member_node[m], 1, spread_weight * (2 * k - 1)) for k in range(1, topic.partitions + 1)
            ]
    capacity = [0] * n
    for topic in topics:
        for m in problem.subscribers[topic.name]:
            capacity[m] += topic.partitions
    for m in range(n):
        for k in range(1, capacity[m] + 1):
            arc(member_node[m], sink, 1, balance_weight * (2 * k - 1))
    supplies[sink] = -total
    flow = min_cost_flow.SimpleMinCostFlow()
    if tails:
        flow.add_arcs_with_capacity_and_unit_cost(
            np.array(tails, dtype=np.int64),
            np.array(heads, dtype=np.int64),
            np.array(caps, dtype=np.int64),
            np.array(costs, dtype=np.int64),
        )
    for v, s in supplies.items():
        flow.set_node_supply(v, s)
    if tails and flow.solve() != flow.OPTIMAL:
        raise SolverError("flow-spread: min-cost flow failed on a feasible problem (a bug)")
    placed: dict[str, list[tuple[str, int]]] = {mid: [] for mid in problem.member_ids}
    kept_set = set()
    for a, t, p, m in keep_arcs:
        if flow.flow(a):
            placed[problem.member_ids[m]].append((t, p))
            kept_set.add((t, p))
    for topic in topics:
        rest = iter(p for p in range(topic.partitions) if (topic.name, p) not in kept_set)
        for m in problem.subscribers[topic.name]:
            held = sum(flow.flow(a) for a in pair_arcs[(topic.name, m)])
            already = sum(1 for t, _ in placed[problem.member_ids[m]] if t == topic.name)
            for _ in range(held - already):
                placed[problem.member_ids[m]].append((topic.name, next(rest)))
    assignment = Assignment.from_partitions(placed, problem.member_ids)
    return Solution(
        problem=problem,
        status=OPTIMAL,
        method="flow-spread",
        assignment=assignment,
        wall_time=time.perf_counter() - started,
        retained=retained(problem, assignment, claims),
        cross_rack=0,
        claims=claims,
        stats={"arcs": len(tails), "nodes": nodes},
    )
