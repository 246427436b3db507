"""The aggregated transportation network both exact models are built on.

Partitions are interchangeable for the objective when they have the same set
of eligible members (their topic's subscribers) and the same resolved previous
owner.  So instead of one node per partition and one arc per (partition,
member) pair, the models see:

* a **hub** per distinct subscriber set ``S``: every partition of a topic
  subscribed by exactly ``S`` can go to any member of ``S`` through it;
* a **class** per (hub, previous owner) with a supply: the class's
  partitions either stay with their owner (the stickiness arc) or go to the
  hub;
* a **member** per group member, with convex per-unit load costs
  (:mod:`optimal.levels`).

The model's size therefore grows with the number of distinct (subscription
set, previous owner) classes and with the total size of the distinct
subscriber sets, not with partitions x members.  Kafka's own 1,000,000
partition stress test (2,000 members, all subscribed to everything) has one
hub and at most 2,001 classes.

Under the objective order ``stickiness, balance`` every valid claim is kept
(keeping all of them is always possible, so it is what "stickiness first"
means); those partitions are *fixed*: they are pre-loaded onto their owners
and only the unowned partitions flow through the network.

The network also turns an aggregate solution (how many partitions of each
class stay, how many each hub sends to each member) back into concrete
partitions, deterministically (:meth:`AggregatedNetwork.materialize`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.model import Assignment, Problem

__all__ = ["AggregatedNetwork", "build_network"]


@dataclass(frozen=True, eq=False)
class AggregatedNetwork:
    """The aggregated network of a problem (see module docstring).

    Partitions of assignable topics are numbered globally in (topic,
    partition) order; ``topic_start[t]`` is the first global number of the
    t-th assignable topic.

    Attributes
    ----------
    problem, claims:
        The problem and its resolved claims.
    topics:
        Names of the assignable topics (sorted).
    topic_start:
        int64 array, ``len(topics) + 1`` offsets into the global numbering.
    hubs:
        Member-index tuples, one per distinct subscriber set.
    hub_of_topic:
        int array: hub index per assignable topic.
    previous_owner:
        int32 array over global partitions: resolved previous owner or -1.
    fixed:
        bool array: partitions pre-assigned to their owner (stickiness first).
    class_hub, class_owner, class_count:
        Per class of free partitions: its hub, its previous owner (-1 when
        none), and how many partitions it has.
    class_start, class_members_order:
        ``class_members_order[class_start[c]:class_start[c+1]]`` are the
        global numbers of class ``c``'s partitions, ascending.
    arc_hub, arc_member:
        The hub -> member arcs, flattened: arc ``e`` lets hub ``arc_hub[e]``
        give partitions to member ``arc_member[e]``.  Grouped by hub.
    base_load:
        Fixed partitions per member.
    capacity:
        The most a member can hold: fixed plus every free partition it is
        eligible for.
    """

    problem: Problem
    claims: ResolvedClaims
    topics: tuple[str, ...]
    topic_start: np.ndarray
    hubs: tuple[tuple[int, ...], ...]
    hub_of_topic: np.ndarray
    previous_owner: np.ndarray
    fixed: np.ndarray
    class_hub: np.ndarray
    class_owner: np.ndarray
    class_count: np.ndarray
    class_start: np.ndarray
    class_members_order: np.ndarray
    arc_hub: np.ndarray
    arc_member: np.ndarray
    base_load: np.ndarray
    capacity: np.ndarray

    @property
    def num_members(self) -> int:
        return len(self.problem.members)

    @property
    def num_partitions(self) -> int:
        return int(self.topic_start[-1])

    @cached_property
    def hub_supply(self) -> np.ndarray:
        """Free partitions per hub."""
        return np.bincount(self.class_hub, weights=self.class_count, minlength=len(self.hubs)).astype(np.int64)

    @cached_property
    def hub_arc_start(self) -> np.ndarray:
        """``arc_*[hub_arc_start[h]:hub_arc_start[h+1]]`` are hub ``h``'s arcs."""
        return np.concatenate(([0], np.cumsum([len(s) for s in self.hubs]))).astype(np.int64)

    def loads(self, owners: dict[str, np.ndarray]) -> np.ndarray:
        """Partitions per member of a valid assignment given as per-topic owner arrays."""
        total = np.zeros(self.num_members, dtype=np.int64)
        for topic in self.topics:
            total += np.bincount(owners[topic], minlength=self.num_members)
        return total

    def aggregate(self, owners: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The aggregate solution of a valid assignment (the inverse of :meth:`materialize`).

        ``owners`` are per-topic owner arrays (:func:`problem.ownership.owner_arrays`).
        Returns ``(class_kept, arc_flow)``.
        """
        owner = np.concatenate([owners[t] for t in self.topics]).astype(np.int64) if self.topics else np.zeros(0, np.int64)
        class_kept = np.zeros(self.class_count.size, dtype=np.int64)
        for c in range(self.class_count.size):
            if self.class_owner[c] >= 0:
                segment = self.class_members_order[self.class_start[c] : self.class_start[c + 1]]
                class_kept[c] = int((owner[segment] == self.class_owner[c]).sum())
        # Free partitions each member got through each hub, less what it kept as owner.
        free = np.flatnonzero(~self.fixed)
        hub_of_partition = np.repeat(self.hub_of_topic, np.diff(self.topic_start))
        got = {}
        pairs, counts = np.unique(
            np.stack([hub_of_partition[free], owner[free]]), axis=1, return_counts=True
        ) if free.size else (np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
        for (h, m), n in zip(pairs.T.tolist(), counts.tolist()):
            got[(h, m)] = n
        for c in np.flatnonzero(class_kept):
            key = (int(self.class_hub[c]), int(self.class_owner[c]))
            got[key] -= int(class_kept[c])
        arc_flow = np.array(
            [got.get((h, m), 0) for h, m in zip(self.arc_hub.tolist(), self.arc_member.tolist())], dtype=np.int64
        )
        return class_kept, arc_flow

    def materialize(self, class_kept: np.ndarray, arc_flow: np.ndarray) -> Assignment:
        """Concrete partitions from an aggregate solution.

        Parameters
        ----------
        class_kept:
            Per class, how many of its partitions stay with its previous owner
            (0 for classes without one).
        arc_flow:
            Per hub -> member arc, how many partitions the member gets from the
            hub.

        Each class keeps its lowest-numbered partitions; each hub hands its
        pool out in ascending global order, to its members in member order, so
        that members get contiguous runs and the result is deterministic.
        """
        owner = np.full(self.num_partitions, -1, dtype=np.int32)
        owner[self.fixed] = self.previous_owner[self.fixed]
        pools: list[list[np.ndarray]] = [[] for _ in self.hubs]
        for c in range(len(self.class_count)):
            segment = self.class_members_order[self.class_start[c] : self.class_start[c + 1]]
            kept = int(class_kept[c])
            if kept:
                owner[segment[:kept]] = self.class_owner[c]
            pools[self.class_hub[c]].append(segment[kept:])
        starts = self.hub_arc_start
        for h, parts in enumerate(pools):
            pool = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
            flows = np.asarray(arc_flow[starts[h] : starts[h + 1]], dtype=np.int64)
            if int(flows.sum()) != pool.size:
                raise AssertionError(f"hub {h} sends {int(flows.sum())} partitions but holds {pool.size}")
            owner[pool] = np.repeat(self.arc_member[starts[h] : starts[h + 1]], flows)
        problem = self.problem
        if len(self.topics) == len(problem.topics):  # every topic assignable: the same numbering
            return Assignment.from_owners(problem, owner)
        everything = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
        offsets = problem.partition_offsets
        index = {t: i for i, t in enumerate(problem.topic_names)}
        for i, t in enumerate(self.topics):
            start = offsets[index[t]]
            everything[start : start + self.topic_start[i + 1] - self.topic_start[i]] = \
                owner[self.topic_start[i] : self.topic_start[i + 1]]
        return Assignment.from_owners(problem, everything)


def build_network(problem: Problem, claims: ResolvedClaims | None = None) -> AggregatedNetwork:
    """Aggregate ``problem`` into hubs and classes (see module docstring)."""
    claims = resolve_claims(problem) if claims is None else claims
    num_members = len(problem.members)
    topics = tuple(t.name for t in problem.assignable_topics)
    sizes = np.array([t.partitions for t in problem.assignable_topics], dtype=np.int64)
    topic_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)

    # Step 1: one hub per distinct subscriber set, numbered in topic order.
    hub_ids: dict[tuple[int, ...], int] = {}
    hub_of_topic = np.array(
        [hub_ids.setdefault(problem.subscribers[t], len(hub_ids)) for t in topics], dtype=np.int64
    )
    hubs = tuple(hub_ids)

    # Step 2: previous owners in the global numbering; fixed partitions.
    previous_owner = (
        np.concatenate([claims.previous_owner[t] for t in topics]).astype(np.int32)
        if topics
        else np.zeros(0, dtype=np.int32)
    )
    hub_of_partition = np.repeat(hub_of_topic, sizes)
    if problem.balance_first:
        fixed = np.zeros(previous_owner.size, dtype=bool)
    else:
        fixed = previous_owner >= 0
    base_load = np.bincount(previous_owner[fixed], minlength=num_members).astype(np.int64)

    # Step 3: classes of free partitions, keyed by (hub, previous owner).
    free = np.flatnonzero(~fixed)
    key = hub_of_partition[free] * (num_members + 1) + (previous_owner[free].astype(np.int64) + 1)
    order = np.argsort(key, kind="stable")
    class_members_order = free[order]
    sorted_key = key[order]
    boundaries = np.flatnonzero(np.diff(sorted_key)) + 1
    class_start = np.concatenate(([0], boundaries, [sorted_key.size])).astype(np.int64)
    if sorted_key.size == 0:
        class_start = np.zeros(1, dtype=np.int64)
    class_key = sorted_key[class_start[:-1]]
    class_hub = (class_key // (num_members + 1)).astype(np.int64)
    class_owner = (class_key % (num_members + 1) - 1).astype(np.int64)
    class_count = np.diff(class_start)

    # Step 4: hub -> member arcs and member capacities.
    arc_hub = np.repeat(np.arange(len(hubs), dtype=np.int64), [len(s) for s in hubs])
    arc_member = np.array([m for s in hubs for m in s], dtype=np.int64)
    hub_supply = np.bincount(class_hub, weights=class_count, minlength=len(hubs)).astype(np.int64)
    capacity = base_load + np.bincount(arc_member, weights=hub_supply[arc_hub], minlength=num_members).astype(np.int64)

    return AggregatedNetwork(
        problem=problem,
        claims=claims,
        topics=topics,
        topic_start=topic_start,
        hubs=hubs,
        hub_of_topic=hub_of_topic,
        previous_owner=previous_owner,
        fixed=fixed,
        class_hub=class_hub,
        class_owner=class_owner,
        class_count=class_count,
        class_start=class_start,
        class_members_order=class_members_order,
        arc_hub=arc_hub,
        arc_member=arc_member,
        base_load=base_load,
        capacity=capacity,
    )
