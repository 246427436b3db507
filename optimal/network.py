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

Rack locality (the ``rack`` tier, KIP-881) refines the hubs: a hub is a
distinct pair (subscriber set ``S``, the members of ``S`` local to the
partition), so partitions whose replicas sit on different racks may go
through different hubs of the same topic.  When ``rack`` ranks *after*
``balance`` in the objective, a hub -> member arc to a non-local member (and
a class's stickiness arc when its owner is non-local) carries the rack
penalty of :mod:`optimal.levels`.  When ``rack`` ranks *before* ``balance``,
it is a restriction instead: a partition with a local subscriber may only
go to local subscribers (the fewest cross-rack partitions is exactly the
count of partitions without one; partitions are independent in this), so
the hub's members are its local ones; a partition without any local
subscriber keeps all of ``S``.  A hub whose members are all local, or
that has none, has no penalised arc: those partitions are local or
cross-rack whatever happens.

Stickiness before balance fixes claims (above); when ``rack`` ranks before
``stickiness`` too, only claims of an owner the restriction allows are
fixed.

The network also turns an aggregate solution (how many partitions of each
class stay, how many each hub sends to each member) back into concrete
partitions, deterministically (:meth:`AggregatedNetwork.materialize`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from assignment_oracle.problem.claims import ResolvedClaims, resolve_claims
from assignment_oracle.problem.errors import SolverError
from assignment_oracle.problem.model import BALANCE, RACK, STICKINESS, Assignment, Problem

__all__ = ["AggregatedNetwork", "build_network", "partition_name"]


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
        Member-index tuples (sorted), one per hub: the members its partitions
        may go to.
    hub_of_partition:
        int64 array over global partitions: the partition's hub.
    previous_owner:
        int32 array over global partitions: resolved previous owner or -1.
    keepable_owner:
        ``previous_owner`` where the objective lets the partition stay with
        it (its owner is one of the hub's members), else -1.
    fixed:
        bool array: partitions pre-assigned to their owner (stickiness first).
    class_hub, class_owner, class_count:
        Per class of free partitions: its hub, its keepable owner (-1 when
        none), and how many partitions it has.
    class_cross:
        bool per class: its owner is non-local to its partitions (penalised
        stickiness arc).
    class_start, class_members_order:
        ``class_members_order[class_start[c]:class_start[c+1]]`` are the
        global numbers of class ``c``'s partitions, ascending.
    arc_hub, arc_member:
        The hub -> member arcs, flattened: arc ``e`` lets hub ``arc_hub[e]``
        give partitions to member ``arc_member[e]``.  Grouped by hub,
        members ascending within a hub.
    arc_cross:
        bool per arc: the member is non-local to the hub's partitions
        (penalised arc; only when ``rack`` ranks after ``balance``).
    penalised:
        Free partitions in hubs with a penalised arc: the most the cross-rack
        count can differ by between two assignments (:mod:`optimal.levels`).
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
    hub_of_partition: np.ndarray
    previous_owner: np.ndarray
    keepable_owner: np.ndarray
    fixed: np.ndarray
    class_hub: np.ndarray
    class_owner: np.ndarray
    class_count: np.ndarray
    class_start: np.ndarray
    class_members_order: np.ndarray
    class_cross: np.ndarray
    arc_hub: np.ndarray
    arc_member: np.ndarray
    arc_cross: np.ndarray
    penalised: int
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

    def arc_index(self, hub: np.ndarray, member: np.ndarray) -> np.ndarray:
        """The arc from ``hub[i]`` to ``member[i]``, element-wise; -1 where there is none."""
        return _arc_index(self.arc_hub, self.arc_member, self.num_members, hub, member)

    def global_owner(self, owners: dict[str, np.ndarray]) -> np.ndarray:
        """One owner array over the network's global numbering, from per-topic owner arrays."""
        if not self.topics:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([owners[t] for t in self.topics]).astype(np.int64)

    def loads(self, owners: dict[str, np.ndarray]) -> np.ndarray:
        """Partitions per member of a valid assignment given as per-topic owner arrays."""
        return np.bincount(self.global_owner(owners), minlength=self.num_members).astype(np.int64)

    def aggregate(self, owners: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The aggregate solution of a valid assignment (the inverse of :meth:`materialize`).

        ``owners`` are per-topic owner arrays (:func:`problem.ownership.owner_arrays`).
        Returns ``(class_kept, arc_flow)``.
        """
        owner = self.global_owner(owners)
        class_kept = np.zeros(self.class_count.size, dtype=np.int64)
        for c in range(self.class_count.size):
            if self.class_owner[c] >= 0:
                segment = self.class_members_order[self.class_start[c] : self.class_start[c + 1]]
                class_kept[c] = int((owner[segment] == self.class_owner[c]).sum())
        # Free partitions each member got through each hub, less what it kept as owner.
        free = np.flatnonzero(~self.fixed)
        hub_of_partition = self.hub_of_partition
        got = {}
        pairs, counts = (
            np.unique(np.stack([hub_of_partition[free], owner[free]]), axis=1, return_counts=True)
            if free.size
            else (np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
        )
        for (h, m), n in zip(pairs.T.tolist(), counts.tolist()):
            got[(h, m)] = n
        for c in np.flatnonzero(class_kept).tolist():
            key = (int(self.class_hub[c]), int(self.class_owner[c]))
            got[key] = got.get(key, 0) - int(class_kept[c])
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
        # Vectorised over every class at once: a partition's rank within its class decides whether it
        # stays (the first ``kept``) or joins its hub's pool.
        counts = np.diff(self.class_start)
        members_order = self.class_members_order
        rank = np.arange(members_order.size) - np.repeat(self.class_start[:-1], counts)
        stays = rank < np.repeat(np.asarray(class_kept, dtype=np.int64), counts)
        owner[members_order[stays]] = np.repeat(self.class_owner, counts)[stays]
        pool, pool_hub = members_order[~stays], np.repeat(self.class_hub, counts)[~stays]
        # Classes are sorted by hub, each ascending: with one class per hub the pools are already in
        # (hub, partition) order; otherwise sort them so.
        if np.any(np.diff(self.class_hub) == 0):
            pool = pool[np.argsort(pool_hub * max(1, self.num_partitions) + pool, kind="stable")]
        flows = np.asarray(arc_flow, dtype=np.int64)
        sent = np.bincount(self.arc_hub, weights=flows, minlength=len(self.hubs)).astype(np.int64)
        held = np.bincount(pool_hub, minlength=len(self.hubs))
        wrong = np.flatnonzero(sent != held)
        if wrong.size:
            h = int(wrong[0])
            raise SolverError(f"flow: hub {h} sends {int(sent[h])} partitions but holds {int(held[h])} (a bug)")
        owner[pool] = np.repeat(self.arc_member, flows)
        problem = self.problem
        if len(self.topics) == len(problem.topics):  # every topic assignable: the same numbering
            return Assignment.from_owners(problem, owner)
        everything = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
        offsets = problem.partition_offsets
        index = {t: i for i, t in enumerate(problem.topic_names)}
        for i, t in enumerate(self.topics):
            start = offsets[index[t]]
            everything[start : start + self.topic_start[i + 1] - self.topic_start[i]] = owner[
                self.topic_start[i] : self.topic_start[i + 1]
            ]
        return Assignment.from_owners(problem, everything)


def partition_name(topics, starts: np.ndarray, p: int) -> str:
    """Global partition number ``p`` as ``topic-partition``: ``topics[i]``'s partitions are numbered from
    ``starts[i]`` on (:attr:`AggregatedNetwork.topic_start`, :attr:`Problem.partition_offsets`)."""
    i = int(np.searchsorted(starts, p, side="right")) - 1
    return f"{topics[i]}-{p - int(starts[i])}"


def _arc_index(arc_hub: np.ndarray, arc_member: np.ndarray, num_members: int, hub, member) -> np.ndarray:
    """The arc from ``hub[i]`` to ``member[i]`` (arcs grouped by hub, members ascending); -1 where none."""
    wanted = np.asarray(hub, dtype=np.int64) * num_members + np.asarray(member, dtype=np.int64)
    if not arc_hub.size:
        return np.full(wanted.shape, -1, dtype=np.int64)
    keys = arc_hub * num_members + arc_member  # ascending
    at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    return np.where(keys[at] == wanted, at, -1)


def _is_key(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Element-wise: is ``wanted[i]`` among the sorted ``keys``."""
    if not keys.size:
        return np.zeros(wanted.shape, dtype=bool)
    at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    return keys[at] == wanted


def build_network(problem: Problem, claims: ResolvedClaims | None = None) -> AggregatedNetwork:
    """Aggregate ``problem`` into hubs and classes (see module docstring)."""
    claims = resolve_claims(problem) if claims is None else claims
    num_members = len(problem.members)
    assignable = problem.assignable_topics
    topics = tuple(t.name for t in assignable)
    sizes = np.array([t.partitions for t in assignable], dtype=np.int64)
    topic_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    num_partitions = int(topic_start[-1])
    rack_tier = RACK in problem.objective and problem.rack_locality.active
    restrict = rack_tier and problem.ranks_before(RACK, BALANCE)
    stickiness_first = problem.ranks_before(STICKINESS, BALANCE)

    # Step 1: previous owners in the network's global numbering.
    previous_owner = (
        np.concatenate([claims.previous_owner[t] for t in topics]).astype(np.int32)
        if topics
        else np.zeros(0, dtype=np.int32)
    )

    # Step 2: one hub per distinct (members, non-local members) pair, numbered in partition order.
    # Without the rack tier that is one hub per distinct subscriber set.
    hub_ids: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    hub_of_partition = np.empty(num_partitions, dtype=np.int64)
    # Under "stickiness before rack before balance", claims are fixed against the subscribers, before
    # the restriction; the restriction then applies to the free partitions only.
    fix_before_restrict = restrict and stickiness_first and problem.ranks_before(STICKINESS, RACK)
    subscriber_owner_ok = previous_owner >= 0
    offsets = problem.partition_offsets
    topic_index = {t: i for i, t in enumerate(problem.topic_names)}
    locality = problem.rack_locality
    keys: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def hub_key(subscribers: tuple[int, ...], rackset: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(members, non-local members) of the hub for partitions with these subscribers and replica racks."""
        if rackset < 0:
            return (subscribers, ())
        members = np.asarray(subscribers, dtype=np.int64)
        rack = locality.member_rack[members]
        local = (rack < 0) | locality.table[rackset, np.maximum(rack, 0)]
        if local.all() or not local.any():
            return (subscribers, ())  # all local, or none: no choice to penalise
        if restrict:
            return (tuple(members[local].tolist()), ())
        return (subscribers, tuple(members[~local].tolist()))

    if not rack_tier:  # one hub per topic's subscriber set: every partition of a topic goes through it
        topic_hub = [hub_ids.setdefault((problem.subscribers[topic], ()), len(hub_ids)) for topic in topics]
        hub_of_partition = np.repeat(np.array(topic_hub, dtype=np.int64), sizes)
    else:
        for i, topic in enumerate(topics):
            subscribers = problem.subscribers[topic]
            span = slice(int(topic_start[i]), int(topic_start[i + 1]))
            racksets = locality.partition_rackset[offsets[topic_index[topic]] + np.arange(sizes[i])]
            distinct, inverse = np.unique(racksets, return_inverse=True)
            ids = np.empty(distinct.size, dtype=np.int64)
            for j, rackset in enumerate(distinct.tolist()):
                cached = keys.get((subscribers, rackset))
                if cached is None:
                    cached = keys[(subscribers, rackset)] = hub_key(subscribers, rackset)
                ids[j] = hub_ids.setdefault(cached, len(hub_ids))
            hub_of_partition[span] = ids[inverse.reshape(-1)]
    hubs = tuple(members for members, _ in hub_ids)
    hub_size = np.fromiter(map(len, hubs), dtype=np.int64, count=len(hubs))
    arc_hub = np.repeat(np.arange(len(hubs), dtype=np.int64), hub_size)
    arc_member = np.fromiter(itertools.chain.from_iterable(hubs), dtype=np.int64, count=int(hub_size.sum()))
    # The penalised (hub, member) pairs, as sorted keys hub * members + member.
    cross_keys = np.sort(
        np.array([h * num_members + m for h, (_, cross) in enumerate(hub_ids) for m in cross], dtype=np.int64)
    )
    hub_has_cross = np.array([bool(cross) for _, cross in hub_ids], dtype=bool)

    # Step 3: which claims may be kept, and which are fixed.
    keepable_owner = previous_owner.copy()
    if restrict:
        has = np.flatnonzero(previous_owner >= 0)
        allowed = _arc_index(arc_hub, arc_member, num_members, hub_of_partition[has], previous_owner[has]) >= 0
        keepable_owner[has[~allowed]] = -1
    if not stickiness_first:
        fixed = np.zeros(num_partitions, dtype=bool)
    elif fix_before_restrict:
        fixed = subscriber_owner_ok  # every valid claim, local or not
        keepable_owner = np.where(fixed, previous_owner, keepable_owner).astype(np.int32)
    else:
        fixed = keepable_owner >= 0
    base_load = np.bincount(previous_owner[fixed], minlength=num_members).astype(np.int64)

    # Step 4: classes of free partitions, keyed by (hub, keepable owner).
    free = np.flatnonzero(~fixed)
    key = hub_of_partition[free] * (num_members + 1) + (keepable_owner[free].astype(np.int64) + 1)
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
    class_cross = (class_owner >= 0) & _is_key(cross_keys, class_hub * num_members + class_owner)

    # Step 5: hub -> member arcs and member capacities.
    arc_cross = _is_key(cross_keys, arc_hub * num_members + arc_member)
    hub_supply = np.bincount(class_hub, weights=class_count, minlength=len(hubs)).astype(np.int64)
    capacity = base_load + np.bincount(arc_member, weights=hub_supply[arc_hub], minlength=num_members).astype(np.int64)
    penalised = int(hub_supply[hub_has_cross].sum())

    return AggregatedNetwork(
        problem=problem,
        claims=claims,
        topics=topics,
        topic_start=topic_start,
        hubs=hubs,
        hub_of_partition=hub_of_partition,
        previous_owner=previous_owner,
        keepable_owner=keepable_owner.astype(np.int32),
        fixed=fixed,
        class_hub=class_hub,
        class_owner=class_owner,
        class_count=class_count,
        class_start=class_start,
        class_members_order=class_members_order,
        class_cross=class_cross,
        arc_hub=arc_hub,
        arc_member=arc_member,
        arc_cross=arc_cross,
        penalised=penalised,
        base_load=base_load,
        capacity=capacity,
    )
