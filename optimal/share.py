"""The exact optimum of a share group (KIP-932): one min-cost flow per tier, each proven by node potentials.

Guarantee: the answer is lexicographically optimal for the request's tiers in
its order (:mod:`optimal.share_request`: ``coverage``, ``sharing``,
``balance``, ``stickiness`` by default, Kafka's ``SimpleAssignor`` priorities
at apache/kafka d79bd50), over *every* valid share assignment; each tier's
value measured on the answer equals what its stage proved, and the whole is
proven by a certificate :func:`verify` checks without a solver
(:class:`SolverError` otherwise, never a silent answer).

The network
-----------
A share assignment is a set of (member, partition) pairs, a member holding a
partition at most once.  As a flow::

    source --load--> unit --> hub(topic) --> class --level q--> sink
                     unit --own--> class                         (unit: a member, or a
    source ------------------bypass----------------------> sink   (member, topic) under
                                                                  per-topic balance)

* a **class** is a set of target partitions of one topic with the same
  *owners* (the members whose current assignment holds them and who may keep
  them); its partitions are interchangeable for every tier, so a class of
  ``k`` partitions is one node.  Given how many of a class's partitions each
  member takes (at most ``k`` each), the partitions can always be dealt so
  that their holder counts differ by at most one (near-uniform column sums
  are realisable for any row sums up to ``k``: Gale-Ryser), which every tier
  prefers (a sum of a convex function of the holder counts is least on the
  most even split); so a class's arc to the sink is one arc per *level* ``q``
  (the ``q``-th holder of each of its partitions), capacity ``k``;
* a partition never needs more holders than ``cap = max(target, owners)``
  (at most the topic's subscribers): a holder beyond both is a member that
  did not hold it, and dropping it improves ``sharing`` and ``balance`` and
  changes nothing else;
* a unit reaches the classes of a topic through the topic's **hub** (members
  + classes arcs, not members x classes), and each owner also by its own arc
  to its class.  The hub forgets who sends what, so this network is a
  *relaxation*: it admits a member taking one partition twice.  Its optimum
  is the real one whenever each hub's flow can be dealt out without that (a
  small transportation problem per topic: each member at most ``k`` of a
  class, none of a class it owns, since such a unit would rather stay on its
  own arc, which the stickiness stage rules out); for a topic where it
  cannot, the topic gets an arc from every subscriber to every class
  (capacity ``k``: each partition at most once) and the stages run again.
  Where every partition has at most one holder (a target of 1 and one owner,
  every topic of a group with at least as many partitions as members, under
  Kafka's target) the hub is always dealt out;
* the **bypass** lets the number of pairs be whatever the tiers make it.

Every tier is a separable convex cost on these arcs: ``coverage`` costs -1 on
each class's first level (minus the partitions covered); ``sharing`` the
squared deviations, ``2q - 2s - 1`` on level ``q`` (``s`` the target);
``balance`` the squared loads on the load arcs (one arc per load level, a
window of levels materialised around an estimate, widened until every load
lands inside, as :mod:`optimal.levels` does); ``stickiness`` -1 on each
owner's arc to its class.  The least sum of squared deviations (loads) is the
decreasingly minimal deviation (load) vector: on a flow's face the vectors of
flows on the arcs at the sink (at the source) form an M-natural-convex set
(an integral g-polymatroid), where a separable convex function is least
exactly where no exchange of one unit improves it, and for both the squares
and a steep exponential (whose minimum is the dec-min) the improving
exchanges are the same ones (Frank & Murota, *Discrete decreasing
minimization*; the tests check it against brute force on every tier order).

The stages
----------
Tier by tier: OR-Tools' ``SimpleMinCostFlow`` minimises the tier's cost on
the face the tiers before left, giving an integral flow; Bellman-Ford on its
residual network gives node potentials under which no residual arc has a
negative reduced cost (the proof of that stage: LP duality for convex
separable costs).  For a convex problem every optimal flow and every optimal
dual pair up, so the tier's optimal face is exactly the flows that meet the
potentials' complementary slackness: each arc's flow narrowed to an interval
(an arc cheaper than its potential difference full, a dearer one empty, a
load arc to the one or two loads whose marginal cost brackets it).  The next
tier is minimised within those bounds.  A tier whose every arc can sit at its
own best (coverage and sharing met exactly, as in Kafka's order) needs no
search: the zero potentials prove it.

The answer is dealt from the last flow: each hub's units to its classes (the
transportation problem above: members' units laid over the classes' places
level by level, else a max-flow), then each class's partitions round-robin
to its members in the group's order.

:func:`verify` rebuilds the network, reads the flow off the assignment and
replays the stages: in each, the assignment's flow within the bounds, no
residual arc of negative reduced cost under the stage's potentials, the
stage's value equal to the tier's measured number; then the bounds narrowed
as the stage did.  That proves each tier optimal given the ones before, over
the relaxation, so over every real assignment.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Mapping

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow

from assignment_oracle.optimal.share_request import (
    BALANCE,
    COVERAGE,
    SHARING,
    STICKINESS,
    ShareMeasures,
    ShareRequest,
    measure,
    owned_pairs,
    sharing_targets,
)
from assignment_oracle.optimal.solution import OPTIMAL, TierResult
from assignment_oracle.problem.errors import SolverError, UnsupportedRequest
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, violations
from assignment_oracle.problem.tiers import SHARE, pick

__all__ = ["METHOD", "ShareNetwork", "ShareCertificate", "ShareSolution", "build_network", "solve", "verify"]

METHOD = "share-flow"
PROOF = "potentials"

# Arc kinds.
LOAD, BYPASS, HUB_IN, OWN, PAIR, HUB_OUT, LEVEL = range(7)
_SOURCE, _SINK = 0, 1


@dataclass(frozen=True, eq=False)
class ShareNetwork:
    """The flow network of a share problem under a request (module docstring), as arrays.

    Nodes: 0 the source, 1 the sink, then the units, the hubs, the classes.  Arcs: ``tail``, ``head``,
    ``upper`` (every lower bound is 0 to start with), ``kind`` (``LOAD``, ``BYPASS``, ``HUB_IN``, ``OWN``,
    ``PAIR``, ``HUB_OUT``, ``LEVEL``), and per arc its ``unit`` (-1 when none), ``cls`` (-1 when none) and
    ``level`` (``LEVEL`` arcs).  ``unit_member``/``unit_topic`` say whose load a unit carries (topic -1 under
    member balance); per class its ``class_topic``, ``class_parts`` (dense partitions, ascending),
    ``class_owners`` (member indices), ``class_cap`` and ``class_target``.  ``explicit``: the topics (indices
    into ``topics``) with an arc from every subscriber to every class instead of a hub."""

    problem: ShareProblem
    request: ShareRequest
    explicit: frozenset[int]
    targets: np.ndarray
    unit_member: np.ndarray
    unit_topic: np.ndarray  # index into ``topics`` or -1
    topics: tuple[str, ...]  # topics with subscribers and target partitions, scenario order
    hub_topic: tuple[int, ...]  # per hub, its topic index
    class_topic: np.ndarray
    class_parts: tuple[np.ndarray, ...]
    class_owners: tuple[tuple[int, ...], ...]
    class_cap: np.ndarray
    class_target: np.ndarray
    class_position: np.ndarray  # its place among its topic's classes
    tail: np.ndarray
    head: np.ndarray
    upper: np.ndarray
    kind: np.ndarray
    unit: np.ndarray
    cls: np.ndarray
    level: np.ndarray
    num_nodes: int
    supply: int  # the source's supply: the most pairs there can be
    # where to find arcs from an assignment's pairs
    unit_of: Mapping[tuple[int, int], int]  # (member, topic index) -> unit
    topic_units: tuple[np.ndarray, ...]  # per topic, its subscribers' units (the group's order)
    topic_classes: tuple[np.ndarray, ...]  # per topic, its classes
    hub_in_first: Mapping[int, int]  # hub topic -> its first HUB_IN arc (one per unit of topic_units)
    own_arc: Mapping[tuple[int, int], int]  # (unit, class) -> OWN arc (hub topics)
    pair_first: Mapping[int, int]  # explicit topic -> first arc: unit at a, class at b is first + a * classes + b
    hub_out_arc: np.ndarray  # per class, its HUB_OUT arc or -1
    level_start: np.ndarray  # per class, its first LEVEL arc (levels 1..cap follow)
    load_arc: np.ndarray  # per unit

    @property
    def num_units(self) -> int:
        return int(self.unit_member.size)

    @property
    def num_classes(self) -> int:
        return int(self.class_topic.size)

    @property
    def num_arcs(self) -> int:
        return int(self.tail.size)

    @cached_property
    def class_size(self) -> np.ndarray:
        return np.array([p.size for p in self.class_parts], dtype=np.int64)

    @property
    def explicit_arcs(self) -> int:
        return sum(self.topic_units[k].size * self.topic_classes[k].size for k in self.explicit)

    def node_name(self, node: int) -> str:
        """A node's stable name (the certificate's keys)."""
        if node == _SOURCE:
            return "source"
        if node == _SINK:
            return "sink"
        node -= 2
        if node < self.num_units:
            member = self.problem.member_ids[int(self.unit_member[node])]
            t = int(self.unit_topic[node])
            return f"member:{member}" if t < 0 else f"member:{member}/topic:{self.topics[t]}"
        node -= self.num_units
        if node < len(self.hub_topic):
            return f"hub:{self.topics[self.hub_topic[node]]}"
        node -= len(self.hub_topic)
        topic, p = self.problem.partitions[int(self.class_parts[node][0])]
        return f"class:{topic}:{p}"

    def costs(self, tier: str) -> tuple[np.ndarray, bool]:
        """The tier's per-unit cost on every arc, and whether the load arcs carry squared loads instead
        (:data:`_TIER_FLOWS`); :class:`~assignment_oracle.problem.tiers.UnknownTier` on a tier it has none for."""
        stage = _tier_flow(tier)
        out = np.zeros(self.num_arcs, dtype=np.int64)
        stage.costs(self, out)
        return out, stage.squares


class _Arcs:
    """Arc arrays gathered block by block, numbered in order."""

    def __init__(self) -> None:
        self.blocks: list[tuple[np.ndarray, ...]] = []
        self.count = 0

    def add(self, tail, head, upper, kind: int, unit=-1, cls=-1, level=0) -> int:
        """Add a block of arcs (arguments broadcast together); returns the first one's number."""
        arrays = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (tail, head, upper, unit, cls, level)))
        n = int(arrays[0].size)
        tail_, head_, upper_, unit_, cls_, level_ = (a.ravel() for a in arrays)
        self.blocks.append((tail_, head_, upper_, np.full(n, kind, dtype=np.int64), unit_, cls_, level_))
        first = self.count
        self.count += n
        return first

    def columns(self) -> tuple[np.ndarray, ...]:
        if not self.blocks:
            return tuple(np.zeros(0, dtype=np.int64) for _ in range(7))
        return tuple(np.concatenate([b[i] for b in self.blocks]) for i in range(7))


def _units(
    problem: ShareProblem, topic_index: dict[str, int], per_topic: bool
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], int]]:
    """The network's units: one per member, or one per (member, topic with targets) under per-topic
    balance; each unit's member and topic (``-1``: all of the member's), and the unit of each (member,
    topic index)."""
    unit_member: list[int] = []
    unit_topic: list[int] = []
    unit_of: dict[tuple[int, int], int] = {}
    for i, m in enumerate(problem.members):
        mine = [topic_index[t] for t in m.topics if t in topic_index]
        if per_topic:
            for k in mine:
                unit_of[(i, k)] = len(unit_member)
                unit_member.append(i)
                unit_topic.append(k)
        else:
            for k in mine:
                unit_of[(i, k)] = len(unit_member)
            unit_member.append(i)
            unit_topic.append(-1)
    return np.array(unit_member, dtype=np.int64), np.array(unit_topic, dtype=np.int64), unit_of


@dataclass(frozen=True, eq=False)
class _Classes:
    """The classes of the network's topics (per topic, by owner set, ordered by their first partition):
    each class's topic, partitions, owners, cap, target and position in its topic; per topic its
    classes, its subscribers' units and its count of target partitions."""

    topic: np.ndarray
    parts: tuple[np.ndarray, ...]
    owners: tuple[tuple[int, ...], ...]
    cap: np.ndarray
    target: np.ndarray
    position: np.ndarray
    topic_classes: list[np.ndarray]
    topic_units: list[np.ndarray]
    topic_size: list[int]


def _classes(
    problem: ShareProblem,
    topics: tuple[str, ...],
    targets: np.ndarray,
    owners: dict[int, list[int]],
    unit_of: dict[tuple[int, int], int],
) -> _Classes:
    """The classes of ``topics`` (:class:`_Classes`): a topic's target partitions with the same owners."""
    target = problem.target_mask
    class_topic: list[int] = []
    class_parts: list[np.ndarray] = []
    class_owners: list[tuple[int, ...]] = []
    class_cap: list[int] = []
    class_target: list[int] = []
    class_position: list[int] = []
    topic_classes: list[np.ndarray] = []
    topic_units: list[np.ndarray] = []
    topic_size: list[int] = []
    for k, t in enumerate(topics):
        start = problem.topic_offset[t]
        parts = start + np.flatnonzero(target[start : start + problem.topics[t]])
        subscribers = [problem.member_index[m] for m in problem.subscribers(t)]
        topic_units.append(np.array([unit_of[(i, k)] for i in subscribers], dtype=np.int64))
        topic_size.append(int(parts.size))
        s = int(targets[parts[0]])
        groups: dict[tuple[int, ...], list[int]] = {}
        for j in parts.tolist():
            groups.setdefault(tuple(sorted(owners.get(j, ()))), []).append(j)
        first = len(class_topic)
        for owner_set, js in groups.items():  # insertion order: by first partition
            class_position.append(len(class_topic) - first)
            class_topic.append(k)
            class_parts.append(np.array(js, dtype=np.int64))
            class_owners.append(owner_set)
            class_cap.append(min(len(subscribers), max(s, len(owner_set))))
            class_target.append(s)
        topic_classes.append(np.arange(first, len(class_topic), dtype=np.int64))
    topic, cap, target_of, position = (
        np.array(column, dtype=np.int64) for column in (class_topic, class_cap, class_target, class_position)
    )
    parts_of, owners_of = tuple(class_parts), tuple(class_owners)
    return _Classes(topic, parts_of, owners_of, cap, target_of, position, topic_classes, topic_units, topic_size)


def build_network(
    problem: ShareProblem, request: ShareRequest | None = None, explicit: frozenset[int] = frozenset()
) -> ShareNetwork:
    """The network of ``problem`` under ``request`` (module docstring), with the topics ``explicit`` (indices
    into the topics with subscribers and target partitions, in the scenario's order) given an arc from every
    subscriber to every class; deterministic."""
    request = ShareRequest() if request is None else request
    per_topic = request.balance == "per-topic"
    targets = sharing_targets(problem, request.sharing)
    target = problem.target_mask
    owners: dict[int, list[int]] = {}
    for i, j in owned_pairs(problem):
        owners.setdefault(j, []).append(i)
    topics = tuple(
        t
        for t in problem.topics
        if problem.subscribers(t)
        and target[problem.topic_offset[t] : problem.topic_offset[t] + problem.topics[t]].any()
    )
    topic_index = {t: k for k, t in enumerate(topics)}

    unit_member, unit_topic, unit_of = _units(problem, topic_index, per_topic)
    units = len(unit_member)
    classes = _classes(problem, topics, targets, owners, unit_of)
    class_owners, topic_units, topic_classes = classes.owners, classes.topic_units, classes.topic_classes
    topic_size = classes.topic_size
    hub_topics = tuple(k for k in range(len(topics)) if k not in explicit)
    hub_node0 = 2 + units
    class_node0 = hub_node0 + len(hub_topics)
    num_nodes = class_node0 + len(classes.topic)
    sizes = np.array([p.size for p in classes.parts], dtype=np.int64)
    caps = classes.cap

    arcs = _Arcs()
    # load arcs: the most a unit can hold
    unit_upper = np.zeros(units, dtype=np.int64)
    if unit_of:
        keys = np.array([(i, k, u) for (i, k), u in unit_of.items()], dtype=np.int64)  # member, topic, unit
        np.add.at(unit_upper, keys[:, 2], np.array(topic_size, dtype=np.int64)[keys[:, 1]])
    load_first = arcs.add(_SOURCE, 2 + np.arange(units), unit_upper, LOAD, unit=np.arange(units))
    supply = int((sizes * caps).sum())
    arcs.add(_SOURCE, _SINK, supply, BYPASS)

    hub_in_first: dict[int, int] = {}
    pair_first: dict[int, int] = {}
    hub_out_arc = np.full(len(classes.topic), -1, dtype=np.int64)
    own_units: list[int] = []
    own_classes: list[int] = []
    for h, k in enumerate(hub_topics):
        hub = hub_node0 + h
        subs_units = topic_units[k]
        cls = topic_classes[k]
        hub_in_first[k] = arcs.add(2 + subs_units, hub, topic_size[k], HUB_IN, unit=subs_units)
        hub_out_arc[cls] = arcs.add(hub, class_node0 + cls, sizes[cls] * caps[cls], HUB_OUT, cls=cls) + np.arange(
            cls.size
        )
        for c in cls.tolist():
            for o in class_owners[c]:
                own_units.append(unit_of[(o, k)])
                own_classes.append(c)
    own_first = arcs.add(
        2 + np.array(own_units, dtype=np.int64),
        class_node0 + np.array(own_classes, dtype=np.int64),
        sizes[np.array(own_classes, dtype=np.int64)] if own_classes else np.zeros(0, dtype=np.int64),
        OWN,
        unit=np.array(own_units, dtype=np.int64),
        cls=np.array(own_classes, dtype=np.int64),
    )
    own_arc = {(u, c): own_first + a for a, (u, c) in enumerate(zip(own_units, own_classes))}
    for k in sorted(explicit):
        subs_units = topic_units[k]
        cls = topic_classes[k]
        owner_of = np.zeros((subs_units.size, cls.size), dtype=bool)
        position = {int(u): a for a, u in enumerate(subs_units.tolist())}
        for b, c in enumerate(cls.tolist()):
            for o in class_owners[c]:
                owner_of[position[unit_of[(o, k)]], b] = True
        # one arc per (subscriber, class), capacity the class's size; an owner's arc is OWN
        unit_rep = np.repeat(subs_units, cls.size)
        cls_rep = np.tile(cls, subs_units.size)
        pair_first[k] = arcs.add(2 + unit_rep, class_node0 + cls_rep, sizes[cls_rep], PAIR, unit=unit_rep, cls=cls_rep)
        arcs.blocks[-1][3][owner_of.ravel()] = OWN
    # levels: class c's arcs to the sink, levels 1..cap, capacity its size each
    class_ids = np.arange(len(classes.topic), dtype=np.int64)
    level_cls = np.repeat(class_ids, caps)
    level_q = np.arange(level_cls.size, dtype=np.int64) - np.repeat(np.cumsum(caps) - caps, caps) + 1
    level_first = arcs.add(class_node0 + level_cls, _SINK, sizes[level_cls], LEVEL, cls=level_cls, level=level_q)
    level_start = level_first + np.cumsum(caps) - caps
    tail, head, upper, kind, unit, cls_, level = arcs.columns()
    return ShareNetwork(
        problem=problem,
        request=request,
        explicit=frozenset(explicit),
        targets=targets,
        unit_member=unit_member,
        unit_topic=unit_topic,
        topics=topics,
        hub_topic=hub_topics,
        class_topic=classes.topic,
        class_parts=classes.parts,
        class_owners=classes.owners,
        class_cap=caps,
        class_target=classes.target,
        class_position=classes.position,
        tail=tail,
        head=head,
        upper=upper,
        kind=kind,
        unit=unit,
        cls=cls_,
        level=level,
        num_nodes=num_nodes,
        supply=supply,
        unit_of=unit_of,
        topic_units=tuple(topic_units),
        topic_classes=tuple(topic_classes),
        hub_in_first=hub_in_first,
        own_arc=own_arc,
        pair_first=pair_first,
        hub_out_arc=hub_out_arc,
        level_start=level_start,
        load_arc=load_first + np.arange(units, dtype=np.int64),
    )


# -- one stage: the tier's min-cost flow on the face left, its potentials, the face it leaves ----------------


@dataclass(frozen=True, eq=False)
class _Stage:
    """What one stage proved: its tier, the least value of the tier's scalar (:meth:`ShareMeasures.scalar`),
    the node potentials proving it, and how much work it took."""

    tier: str
    value: int
    potentials: np.ndarray
    rounds: int  # min-cost flows solved (load windows widened)
    iterations: int  # Bellman-Ford passes
    seconds: float


def _marginals(net: ShareNetwork, flow: np.ndarray, costs: np.ndarray, squares: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per arc, the cost of one more unit and of the last unit (the residual arcs' costs, forward and back)."""
    nxt, last = costs.copy(), costs.copy()
    if squares:
        a = net.load_arc
        nxt[a] = 2 * flow[a] + 1
        last[a] = 2 * flow[a] - 1
    return nxt, last


def _potentials(
    net: ShareNetwork, lo: np.ndarray, hi: np.ndarray, flow: np.ndarray, costs: np.ndarray, squares: bool
) -> tuple[np.ndarray, int]:
    """Node potentials under which no residual arc has a negative reduced cost (shortest distances from a
    virtual root joined to every node at cost 0, by Bellman-Ford, every arc relaxed at once per pass); a
    negative cycle (the flow is not optimal) is a :class:`SolverError`."""
    nxt, last = _marginals(net, flow, costs, squares)
    fwd, bwd = flow < hi, flow > lo
    rt = np.concatenate([net.tail[fwd], net.head[bwd]])
    rh = np.concatenate([net.head[fwd], net.tail[bwd]])
    rw = np.concatenate([nxt[fwd], -last[bwd]])
    d = np.zeros(net.num_nodes, dtype=np.int64)
    if not rt.size:
        return d, 0
    order = np.argsort(rh, kind="stable")
    rt, rh, rw = rt[order], rh[order], rw[order]
    starts = np.flatnonzero(np.r_[True, rh[1:] != rh[:-1]])
    heads = rh[starts]
    for passes in range(1, net.num_nodes + 2):
        best = np.minimum.reduceat(d[rt] + rw, starts)
        lower = best < d[heads]
        if not lower.any():
            return d, passes
        d[heads[lower]] = best[lower]
    raise SolverError("share optimum: a stage's flow has a negative residual cycle (not optimal)")


def _narrow(
    net: ShareNetwork, lo: np.ndarray, hi: np.ndarray, d: np.ndarray, costs: np.ndarray, squares: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The bounds of the stage's optimal face: complementary slackness with potentials ``d`` (module
    docstring)."""
    delta = d[net.head] - d[net.tail]
    rc = costs - delta
    new_lo = np.where(rc < 0, hi, lo)
    new_hi = np.where(rc > 0, lo, hi)
    if squares:
        a = net.load_arc
        # 2x + 1 >= delta and 2x - 1 <= delta, within the bounds (a load at a bound has no residual arc past it)
        new_lo[a] = np.clip(delta[a] // 2, lo[a], hi[a])
        new_hi[a] = np.clip((delta[a] + 1) // 2, lo[a], hi[a])
    return new_lo, new_hi


def _stage_value(net: ShareNetwork, tier: str, flow: np.ndarray) -> int:
    """The tier's scalar on a flow (as :meth:`ShareMeasures.scalar` reads it on the dealt assignment)."""
    return _tier_flow(tier).value(net, flow)


@dataclass(frozen=True)
class _TierFlow:
    """What one tier is on the network: ``costs`` writes its per-unit cost on the arcs (into an array of
    zeros), ``squares`` says whether the load arcs carry squared loads instead, and ``value`` is the tier's
    scalar on a flow."""

    costs: Callable[[ShareNetwork, np.ndarray], None]
    value: Callable[[ShareNetwork, np.ndarray], int]
    squares: bool = False


def _first_levels(net: ShareNetwork) -> np.ndarray:
    return (net.kind == LEVEL) & (net.level == 1)


def _coverage_costs(net: ShareNetwork, out: np.ndarray) -> None:
    out[_first_levels(net)] = -1


def _coverage_value(net: ShareNetwork, flow: np.ndarray) -> int:
    return int(sum(p.size for p in net.class_parts) - flow[_first_levels(net)].sum())


def _sharing_deviation(net: ShareNetwork) -> tuple[np.ndarray, np.ndarray]:
    """The level arcs, and each one's cost: what its unit adds to the class's squared deviation."""
    levels = net.kind == LEVEL
    return levels, 2 * net.level[levels] - 2 * net.class_target[net.cls[levels]] - 1


def _sharing_costs(net: ShareNetwork, out: np.ndarray) -> None:
    levels, cost = _sharing_deviation(net)
    out[levels] = cost


def _sharing_value(net: ShareNetwork, flow: np.ndarray) -> int:
    levels, cost = _sharing_deviation(net)
    return int((net.class_size * net.class_target**2).sum()) + int((flow[levels] * cost).sum())


def _own_costs(net: ShareNetwork, out: np.ndarray) -> None:
    out[net.kind == OWN] = -1


#: Each tier on the network (:meth:`ShareNetwork.costs`, :func:`_stage_value`), looked up through
#: :func:`problem.tiers.pick`: a share tier not here is refused by name, never minimised as another.
_TIER_FLOWS = {
    COVERAGE: _TierFlow(_coverage_costs, _coverage_value),
    SHARING: _TierFlow(_sharing_costs, _sharing_value),
    BALANCE: _TierFlow(lambda net, out: None, lambda net, flow: int((flow[net.load_arc] ** 2).sum()), squares=True),
    STICKINESS: _TierFlow(_own_costs, lambda net, flow: -int(flow[net.kind == OWN].sum())),
}


def _tier_flow(tier: str) -> _TierFlow:
    return pick(SHARE.kind, tier, _TIER_FLOWS, "the share exact model's network")


class _Run:
    """The stages of one solve: the face's bounds, the last flow, the stages proven (module docstring)."""

    #: A load arc whose range is at most this wide gets every level; a wider one a window around an estimate.
    FULL_RANGE = 16
    WINDOW = 4
    MAX_ROUNDS = 64

    def __init__(self, net: ShareNetwork) -> None:
        self.net = net
        self.lo = np.zeros(net.num_arcs, dtype=np.int64)
        self.hi = net.upper.copy()
        self.flow: np.ndarray | None = None
        self.stages: list[_Stage] = []

    def stage(self, tier: str) -> None:
        started = time.perf_counter()
        costs, squares = self.net.costs(tier)
        flow, rounds = self._minimise(costs, squares)
        d, iterations = _potentials(self.net, self.lo, self.hi, flow, costs, squares)
        lo, hi = _narrow(self.net, self.lo, self.hi, d, costs, squares)
        if (flow < lo).any() or (flow > hi).any():
            raise SolverError(f"share optimum: the {tier} stage's flow is outside the face its potentials give")
        self.lo, self.hi, self.flow = lo, hi, flow
        value = _stage_value(self.net, tier, flow)
        self.stages.append(_Stage(tier, value, d, rounds, iterations, time.perf_counter() - started))

    # -- the min-cost flow of a stage ------------------------------------------------------------------------

    def _minimise(self, costs: np.ndarray, squares: bool) -> tuple[np.ndarray, int]:
        if not squares:
            return self._flow(costs, None), 1
        net = self.net
        a = net.load_arc
        lo, hi = self.lo[a], self.hi[a]
        centre = np.clip(self._estimate(), lo, hi)
        narrow = hi - lo <= self.FULL_RANGE
        wlo = np.where(narrow, lo, np.maximum(lo, centre - self.WINDOW))
        whi = np.where(narrow, hi, np.minimum(hi, centre + self.WINDOW))
        for rounds in range(1, self.MAX_ROUNDS + 1):
            flow = self._flow(costs, (wlo, whi))
            loads = flow[a]
            low = (loads < wlo) & (wlo > lo)
            high = (loads > whi) & (whi < hi)
            if not (low.any() or high.any()):
                return flow, rounds
            width = whi - wlo + 1
            wlo = np.where(low, np.maximum(lo, np.minimum(loads, wlo) - 2 * width), wlo)
            whi = np.where(high, np.minimum(hi, np.maximum(loads, whi) + 2 * width), whi)
        raise SolverError("share optimum: the load windows did not settle")

    def _estimate(self) -> np.ndarray:
        """Each unit's load if every topic's pairs (in the last flow) were spread evenly over its subscribers."""
        net = self.net
        out = np.zeros(net.num_units, dtype=np.int64)
        if self.flow is None or not net.num_classes:
            return out
        levels = net.kind == LEVEL
        per_class = np.bincount(net.cls[levels], weights=self.flow[levels], minlength=net.num_classes)
        per_topic = np.bincount(net.class_topic, weights=per_class, minlength=len(net.topics))
        share = np.zeros(net.num_units, dtype=np.float64)
        for k, units in enumerate(net.topic_units):
            share[units] += per_topic[k] / units.size
        return np.rint(share).astype(np.int64)

    def _flow(self, costs: np.ndarray, windows: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """One min-cost flow within the bounds; with ``windows`` the load arcs carry squared loads, levels
        outside each window folded into one arc either side (module docstring of :mod:`optimal.levels`)."""
        net = self.net
        lo, hi = self.lo, self.hi
        supplies = np.zeros(net.num_nodes, dtype=np.int64)
        supplies[_SOURCE] += net.supply
        supplies[_SINK] -= net.supply
        np.subtract.at(supplies, net.tail, lo)
        np.add.at(supplies, net.head, lo)
        room = hi - lo
        linear = room > 0
        if windows is not None:
            linear[net.load_arc] = False
        ids = [np.flatnonzero(linear)]
        caps = [room[ids[0]]]
        unit_costs = [costs[ids[0]]]
        if windows is not None:
            a = net.load_arc
            wlo, whi = windows
            below = wlo - lo[a]
            above = hi[a] - whi
            width = whi - wlo
            ids += [a[below > 0], a[above > 0]]
            caps += [below[below > 0], above[above > 0]]
            unit_costs += [2 * wlo[below > 0] - 1, 2 * whi[above > 0] + 1]
            arc_rep = np.repeat(a, width)
            offset = np.arange(arc_rep.size) - np.repeat(np.cumsum(width) - width, width)
            ids.append(arc_rep)
            caps.append(np.ones(arc_rep.size, dtype=np.int64))
            unit_costs.append(2 * (np.repeat(wlo, width) + offset + 1) - 1)
        arc_ids = np.concatenate(ids)
        smcf = min_cost_flow.SimpleMinCostFlow()
        if arc_ids.size:
            smcf.add_arcs_with_capacity_and_unit_cost(
                net.tail[arc_ids], net.head[arc_ids], np.concatenate(caps), np.concatenate(unit_costs)
            )
        nodes = np.flatnonzero(supplies)
        if nodes.size:
            smcf.set_nodes_supplies(nodes, supplies[nodes])
        flow = lo.copy()
        if not arc_ids.size:
            if nodes.size:
                raise SolverError("share optimum: the face left no way to route the flow")
            return flow
        status = smcf.solve()
        if status != smcf.OPTIMAL:
            raise SolverError(f"share optimum: min-cost flow ended {status} (a stage's face has no flow)")
        np.add.at(flow, arc_ids, smcf.flows(np.arange(arc_ids.size)))
        return flow

    # -- the answer ------------------------------------------------------------------------------------------

    def deal(self) -> ShareAssignment | frozenset[int]:
        """The assignment the last flow describes (module docstring), or the hub topics whose flow cannot be
        dealt out without a member taking a partition twice."""
        net, flow = self.net, self.flow
        assert flow is not None
        given: list[dict[int, int]] = [{} for _ in range(net.num_classes)]  # class -> member -> units
        direct = np.flatnonzero(((net.kind == OWN) | (net.kind == PAIR)) & (flow > 0))
        for arc, units in zip(direct.tolist(), flow[direct].tolist()):
            c, member = int(net.cls[arc]), int(net.unit_member[net.unit[arc]])
            given[c][member] = given[c].get(member, 0) + units
        failed = []
        for k in net.hub_topic:
            first = net.hub_in_first[k]
            units = net.topic_units[k]
            sent = flow[first : first + units.size]
            classes = net.topic_classes[k]
            dealt = _transport(
                net, net.unit_member[units[sent > 0]], sent[sent > 0], classes, flow[net.hub_out_arc[classes]], given
            )
            if dealt is None:
                failed.append(k)
                continue
            for member, c, n in dealt:
                given[c][member] = given[c].get(member, 0) + n
        if failed:
            return frozenset(failed)
        held: list[list[int]] = [[] for _ in net.problem.members]
        for c, members_units in enumerate(given):
            parts = net.class_parts[c].tolist()
            at = 0
            for member in sorted(members_units):
                n = members_units[member]
                if n > len(parts):
                    raise SolverError("share optimum: a member was given more of a class than it has partitions")
                held[member].extend(parts[(at + i) % len(parts)] for i in range(n))
                at += n
        names = net.problem.partitions
        return ShareAssignment(
            {m.member_id: tuple(names[j] for j in held[i]) for i, m in enumerate(net.problem.members)}
        )


def _transport(
    net: ShareNetwork,
    members: np.ndarray,
    sent: np.ndarray,
    classes: np.ndarray,
    received: np.ndarray,
    given: list[dict[int, int]],
) -> list[tuple[int, int, int]] | None:
    """A hub's flow dealt out: ``(member, class, units)`` with each member's units ``sent``, each class's
    ``received``, no member more of a class than it has partitions (counting what it has on its own arc) nor
    any of a class it owns; ``None`` when no such deal exists.  First the members' units laid in the group's
    order over the classes' places level by level (each class once per level), else a max-flow."""
    keep = received > 0
    classes, received = classes[keep], received[keep]
    total = int(sent.sum())
    if total != int(received.sum()):
        raise SolverError("share optimum: a hub's flow is not conserved")
    if not total:
        return []
    sizes = net.class_size

    def room(member: int, c: int) -> int:
        return 0 if member in net.class_owners[c] else int(sizes[c]) - given[c].get(member, 0)

    # places: level 0 of every class, then level 1 of those with two or more, ...
    level = np.arange(int(received.sum())) - np.repeat(np.cumsum(received) - received, received)
    place_class = np.repeat(classes, received)[np.lexsort((np.repeat(np.arange(classes.size), received), level))]
    place_member = np.repeat(members, sent)
    pairs, counts = np.unique(np.stack([place_member, place_class]), axis=1, return_counts=True)
    dealt = [(int(m), int(c), int(n)) for (m, c), n in zip(pairs.T.tolist(), counts.tolist())]
    if all(n <= room(m, c) for m, c, n in dealt):
        return dealt
    # the exact deal: source -> member (its units) -> class (room) -> sink (its units)
    rows, cols = members.tolist(), classes.tolist()
    smf = max_flow.SimpleMaxFlow()
    tails, heads, caps = [], [], []
    for a, m in enumerate(rows):
        for b, c in enumerate(cols):
            r = room(m, c)
            if r > 0:
                tails.append(2 + a)
                heads.append(2 + len(rows) + b)
                caps.append(r)
    inner = len(tails)
    tails += [0] * len(rows) + [2 + len(rows) + b for b in range(len(cols))]
    heads += [2 + a for a in range(len(rows))] + [1] * len(cols)
    caps += sent.tolist() + received.tolist()
    smf.add_arcs_with_capacity(np.array(tails), np.array(heads), np.array(caps))
    if smf.solve(0, 1) != smf.OPTIMAL or smf.optimal_flow() != total:
        return None
    flows = smf.flows(np.arange(inner)).tolist()
    return [(rows[tails[e] - 2], cols[heads[e] - 2 - len(rows)], int(f)) for e, f in enumerate(flows) if f]


# -- the certificate and its check ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ShareCertificate:
    """The stages' node potentials (module docstring): per tier in order, one integer per node of the network
    :func:`build_network` builds for the problem, the request and the ``explicit`` topics (by name)."""

    tiers: tuple[str, ...]
    potentials: tuple[np.ndarray, ...]
    explicit: tuple[str, ...] = ()
    kind: str = "share-potentials"

    def to_mapping(self, network: ShareNetwork) -> dict:
        """Per stage, the non-zero potentials by node name (``member:m1``, ``hub:orders``, ``class:orders:3``)."""
        return {
            "kind": self.kind,
            "explicit_topics": list(self.explicit),
            "stages": [
                {
                    "tier": tier,
                    "potentials": {network.node_name(int(v)): int(d[v]) for v in np.flatnonzero(d).tolist()},
                }
                for tier, d in zip(self.tiers, self.potentials)
            ],
        }


def _flow_of(net: ShareNetwork, assignment: ShareAssignment) -> tuple[np.ndarray | None, str]:
    """The flow on ``net`` that a valid ``assignment`` is (an owner's holdings of its class on its own arc,
    everything else of a hub topic through the hub; levels filled in order), or why there is none."""
    problem = net.problem
    flow = np.zeros(net.num_arcs, dtype=np.int64)
    class_of = np.full(problem.partition_count, -1, dtype=np.int64)
    for c, parts in enumerate(net.class_parts):
        class_of[parts] = c
    topic_index = {t: k for k, t in enumerate(net.topics)}
    place: dict[tuple[int, int], int] = {}  # (unit, topic) -> its place among the topic's subscribers
    for k, units in enumerate(net.topic_units):
        for a, u in enumerate(units.tolist()):
            place[(u, k)] = a
    holders = np.zeros(problem.partition_count, dtype=np.int64)
    for member_id, parts in assignment.members.items():
        i = problem.member_index[member_id]
        for topic, p in parts:
            j = problem.index_of(topic, p)
            c = int(class_of[j])
            if c < 0:
                return None, f"{member_id} holds {topic}-{p}, which is not a target partition"
            k = topic_index[topic]
            u = net.unit_of[(i, k)]
            holders[j] += 1
            flow[net.load_arc[u]] += 1
            if k in net.pair_first:
                flow[net.pair_first[k] + place[(u, k)] * net.topic_classes[k].size + int(net.class_position[c])] += 1
            elif i in net.class_owners[c]:
                flow[net.own_arc[(u, c)]] += 1
            else:
                flow[net.hub_in_first[k] + place[(u, k)]] += 1
                flow[net.hub_out_arc[c]] += 1
    for c, parts in enumerate(net.class_parts):
        h = holders[parts]
        cap = int(net.class_cap[c])
        if h.size and int(h.max()) > cap:
            topic, p = problem.partitions[int(parts[int(h.argmax())])]
            return None, f"{topic}-{p} has {int(h.max())} holders, more than its target and its owners ({cap})"
        if cap:
            levels = np.arange(1, cap + 1)
            flow[net.level_start[c] : net.level_start[c] + cap] = (h[None, :] >= levels[:, None]).sum(axis=1)
    flow[net.kind == BYPASS] = net.supply - int(flow[net.load_arc].sum())
    return flow, ""


def verify(
    problem: ShareProblem,
    assignment: ShareAssignment,
    certificate: ShareCertificate,
    request: ShareRequest | None = None,
    *,
    network: ShareNetwork | None = None,
    measures: ShareMeasures | None = None,
) -> tuple[str, ...]:
    """Check that ``certificate`` proves ``assignment`` optimal for ``request`` on ``problem`` (module
    docstring); returns the reasons it does not (empty: verified).  Integer arithmetic, no solver.
    ``network`` and ``measures`` may be passed by a caller that has them."""
    request = ShareRequest() if request is None else request
    order = request.tiers(problem)
    if certificate.tiers != order:
        return (f"the certificate's stages are {', '.join(certificate.tiers)}, the request's tiers {', '.join(order)}",)
    found = violations(problem, assignment)
    if found:
        return (f"the assignment is not valid: {found[0]}",)
    if network is None:
        network = build_network(problem, request)
        if certificate.explicit:
            named = set(certificate.explicit)
            network = build_network(problem, request, frozenset(k for k, t in enumerate(network.topics) if t in named))
    net = network
    if tuple(net.topics[k] for k in sorted(net.explicit)) != tuple(certificate.explicit):
        return ("the certificate's explicit topics are not the network's",)
    flow, why = _flow_of(net, assignment)
    if flow is None:
        return (why,)
    measures = measure(problem, assignment, request) if measures is None else measures
    lo = np.zeros(net.num_arcs, dtype=np.int64)
    hi = net.upper.copy()
    for tier, d in zip(certificate.tiers, certificate.potentials):
        if d.shape != (net.num_nodes,):
            return (f"{tier}: the stage's potentials do not match the network ({d.size} for {net.num_nodes} nodes)",)
        costs, squares = net.costs(tier)
        outside = int(((flow < lo) | (flow > hi)).sum())
        if outside:
            return (f"{tier}: the flow leaves the optimal face of the tiers before it on {outside} arc(s)",)
        nxt, last = _marginals(net, flow, costs, squares)
        forward = (flow < hi) & (nxt + d[net.tail] - d[net.head] < 0)
        backward = (flow > lo) & (-last + d[net.head] - d[net.tail] < 0)
        negative = int(forward.sum() + backward.sum())
        if negative:
            return (f"{tier}: {negative} residual arc(s) of negative reduced cost (not optimal)",)
        value, measured = _stage_value(net, tier, flow), measures.scalar(tier, request.balance)
        if value != measured:
            return (f"{tier}: the measured value {measured} is not the flow's {value}",)
        lo, hi = _narrow(net, lo, hi, d, costs, squares)
    return ()


# -- the answer ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ShareSolution:
    """What :func:`optimal.solve` returns for a :class:`~assignment_oracle.problem.share.ShareProblem`.

    ``status`` is ``OPTIMAL`` (the flows are polynomial and exact: no other status); ``tiers``: one
    :class:`~assignment_oracle.optimal.solution.TierResult` per tier (``how`` ``potentials``), the value as
    reported (:meth:`ShareMeasures.value`); ``stages``: per stage the scalar proven, the flows solved and the
    Bellman-Ford passes; ``certificate``: the potentials, checked by :func:`verify` before returning.
    """

    problem: ShareProblem
    status: str
    method: str
    assignment: ShareAssignment | None
    request: ShareRequest = field(default_factory=ShareRequest)
    tiers: tuple[TierResult, ...] = ()
    stages: tuple[Mapping[str, object], ...] = ()
    wall_time: float = 0.0
    message: str = ""
    certificate: ShareCertificate | None = None
    network: ShareNetwork | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)

    @property
    def objective_order(self) -> tuple[str, ...]:
        return self.request.tiers(self.problem)

    @cached_property
    def measures(self) -> ShareMeasures | None:
        return None if self.assignment is None else measure(self.problem, self.assignment, self.request)

    def tier(self, name: str) -> TierResult | None:
        return next((t for t in self.tiers if t.tier == name), None)

    def to_mapping(self, *, timing: bool = False) -> dict:
        """The solution as JSON (``solve``'s output; docs/formats.md, "Share groups"): status, method, the
        request, each tier's value, bound and proof, each stage's proven number, the sharing targets per topic,
        the assignment and the proof (the stages' potentials); ``timing`` adds the wall time and the model's
        sizes (then not byte-stable)."""
        problem = self.problem
        targets = sharing_targets(problem, self.request.sharing)
        per_topic = {}
        for t in problem.topics:
            start = problem.topic_offset[t]
            mask = problem.target_mask[start : start + problem.topics[t]]
            if mask.any():
                per_topic[t] = int(targets[start : start + problem.topics[t]][mask][0])
        out: dict[str, Any] = {
            "kind": "share",
            "status": self.status,
            "method": self.method,
            "objective_order": list(self.objective_order),
            "request": self.request.to_mapping(problem),
            "tiers": [t.to_mapping() for t in self.tiers],
            "stages": [dict(s) for s in self.stages],
            "sharing_targets": per_topic,
            "message": self.message,
            "assignment": None if self.assignment is None else self.assignment.to_mapping(),
            "proof": None
            if self.certificate is None or self.network is None
            else self.certificate.to_mapping(self.network),
        }
        if timing:
            out["wall_time"] = round(self.wall_time, 6)
            out["stats"] = dict(self.stats)
        return out


def solve(
    problem: ShareProblem, request: ShareRequest | None = None, *, time_limit: float | None = None
) -> ShareSolution:
    """The optimum of ``request`` (default: Kafka's order, member balance, Kafka's sharing target) on
    ``problem``: one min-cost flow per tier, each proven by node potentials, the whole checked by
    :func:`verify` (module docstring).  ``time_limit`` is accepted for the front door's sake: the flows are
    polynomial and take none.

    Examples
    --------
    >>> from assignment_oracle.problem.share import ShareProblem
    >>> p = ShareProblem.from_mapping({"kind": "share", "topics": {"t": 2}, "members": {
    ...     "a": {"topics": ["t"], "assigned": {"t": [0, 1]}}, "b": {"topics": ["t"]}, "c": {"topics": ["t"]}}})
    >>> s = solve(p)
    >>> s.status, [t.value for t in s.tiers]
    ('OPTIMAL', [0, [], [2, 1, 1], 2])
    """
    del time_limit
    request = ShareRequest() if request is None else request
    if not isinstance(request, ShareRequest):
        raise UnsupportedRequest("a share group is solved with a ShareRequest (its tiers are not a consumer group's)")
    started = time.perf_counter()
    order = request.tiers(problem)
    explicit: frozenset[int] = frozenset()
    rounds = 0
    while True:  # the relaxation, then explicit arcs for the topics whose hubs could not be dealt out
        rounds += 1
        net = build_network(problem, request, explicit)
        run = _Run(net)
        for tier in order:
            run.stage(tier)
        dealt = run.deal()
        if isinstance(dealt, ShareAssignment):
            break
        if dealt <= explicit:
            raise SolverError("share optimum: an explicit topic could not be dealt out")
        explicit |= dealt
    assignment = dealt
    found = violations(problem, assignment)
    if found:
        raise SolverError(f"share optimum: the answer is not valid ({found[0]})")
    measures = measure(problem, assignment, request)
    for stage in run.stages:
        measured = measures.scalar(stage.tier, request.balance)
        if measured != stage.value:
            raise SolverError(
                f"share optimum: the {stage.tier} tier measures {measured} on the answer, the model proved {stage.value}"
            )
    certificate = ShareCertificate(
        tuple(s.tier for s in run.stages),
        tuple(s.potentials for s in run.stages),
        tuple(net.topics[k] for k in sorted(net.explicit)),
    )
    reasons = verify(problem, assignment, certificate, request, network=net, measures=measures)
    if reasons:
        raise SolverError(f"share optimum: the certificate does not verify ({reasons[0]})")
    tiers = tuple(
        TierResult(t, measures.value(t, request.balance), measures.value(t, request.balance), True, PROOF)
        for t in order
    )
    stages = tuple(
        {"tier": s.tier, "value": s.value, "proven": True, "flows": s.rounds, "passes": s.iterations}
        for s in run.stages
    )
    stats = {
        "nodes": net.num_nodes,
        "arcs": net.num_arcs,
        "units": net.num_units,
        "classes": net.num_classes,
        "hub_topics": len(net.hub_topic),
        "explicit_topics": len(net.explicit),
        "explicit_arcs": net.explicit_arcs,
        "rounds": rounds,
        "stage_seconds": [round(s.seconds, 4) for s in run.stages],
    }
    return ShareSolution(
        problem,
        OPTIMAL,
        METHOD,
        assignment,
        request,
        tiers=tiers,
        stages=stages,
        wall_time=time.perf_counter() - started,
        certificate=certificate,
        network=net,
        stats=stats,
    )
