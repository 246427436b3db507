"""The consumer-group assignment problem and an assignment, as immutable values.

Everything in this project (the exact models, the heuristic assignors, the
judges) reads these types and nothing else.  They are built once, at the edge,
by :mod:`problem.scenario_json` (or :meth:`Problem.from_mapping`), which
validates the input; code inside trusts them.

Vocabulary follows Kafka's:

* a *topic* has a number of *partitions*, numbered ``0 .. partitions - 1``;
* a *member* of the consumer group *subscribes* to topics and may *claim* the
  partitions it *owned* in the previous *generation* (the ``userData`` of the
  sticky assignors, or ``ownedPartitions`` of the cooperative protocol);
* an *assignment* maps each member id to the partitions it gets, per topic.

Members and topics are kept sorted (by id, by name) so that a member's
position in :attr:`Problem.members` is a stable dense index, the way
franz-go's balancer turns member ids into ``memberNums`` once.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterable, Mapping, NamedTuple

import numpy as np

from assignment_oracle.problem.tiers import BALANCE, CONSUMER, RACK, SPREAD, STICKINESS

__all__ = [
    "BALANCE",
    "RACK",
    "SPREAD",
    "STICKINESS",
    "TIERS",
    "BALANCE_FIRST",
    "STICKINESS_FIRST",
    "RackLocality",
    "TopicPartition",
    "Topic",
    "Member",
    "Problem",
    "Assignment",
    "entry_columns",
]

#: The objective's tiers, named once in :data:`problem.tiers.CONSUMER` (their records).  An objective names
#: ``balance`` and ``stickiness`` once each, ``rack`` and ``spread`` (per-topic spread, KAFKA-16277) at most
#: once each (left out: they play no part), in priority order (docs/formats.md, "Objective").
TIERS: tuple[str, ...] = CONSUMER.names
#: The default order: most balanced, then fewest cross-rack partitions (KIP-881), then stickiest.
#: KIP-54's "fair yet sticky" with rack locality between the two, as Kafka's rack-aware sticky
#: assignors rank them (see docs/formats.md, "Objective").  Without rack information every
#: partition is local and this is KIP-54's ``balance, stickiness``.
BALANCE_FIRST: tuple[str, ...] = (BALANCE, RACK, STICKINESS)
#: KIP-54's "sticky yet fair" alternative: keep every valid claim, then balance, then rack locality.
STICKINESS_FIRST: tuple[str, ...] = (STICKINESS, BALANCE, RACK)


class TopicPartition(NamedTuple):
    """One partition of one topic; sorts by topic, then partition number."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class Topic:
    """A topic and its partition count (always positive).

    ``topic_id``, when given, is Kafka's ``Uuid`` of the topic (``Uuid.toString()``: URL-safe base64
    without padding), read only where Java's iteration order over topic ids is emulated.
    ``racks``, when known, lists per partition the racks of its replicas
    (``racks[p]`` for partition ``p``; a rack may repeat when two replicas
    share it), what KIP-881's rack-aware assignors match a member's
    ``client.rack`` against.  ``None``: no rack information (every member is
    as good as any other for every partition).
    """

    name: str
    partitions: int
    racks: tuple[tuple[str, ...], ...] | None = None
    #: The topic's id as Kafka prints a ``Uuid`` (22 characters of URL-safe base64): what KIP-848's
    #: group coordinator keys topics by, so what decides its hash order.  ``None``: not given.
    topic_id: str | None = None


@dataclass(frozen=True)
class Member:
    """A member of the consumer group as it joins a rebalance.

    Attributes
    ----------
    member_id:
        The member id (Kafka sorts members by it; so does this project).
    topics:
        The topics the member subscribes to.  It may name topics that do not
        exist (Kafka tolerates that: there is nothing to give for them).
    owned:
        The partitions the member claims from the previous generation, per
        topic, exactly as the member sent them (pairs of topic and partition
        numbers, topics sorted).  Claims are resolved by
        :func:`problem.claims.resolve_claims`; nothing here is pre-filtered.
    generation:
        The generation of the claim; ``None`` means "not sent", which Kafka
        reads as -1 (``DEFAULT_GENERATION``, V0 user data).
    rack:
        The member's rack (``client.rack``), if any.
    instance_id:
        The member's ``group.instance.id`` (KIP-345 static membership), if
        any; unique within the group.
    """

    member_id: str
    topics: frozenset[str]
    owned: tuple[tuple[str, tuple[int, ...]], ...] = ()
    generation: int | None = None
    rack: str | None = None
    instance_id: str | None = None

    @property
    def claim_generation(self) -> int:
        """The generation this member's claims carry; -1 when none was sent."""
        return -1 if self.generation is None else self.generation


@dataclass(frozen=True)
class Problem:
    """A rebalance to compute: topics, members, claims and the objective order.

    ``topics`` is sorted by name and ``members`` by member id; build problems
    with :meth:`from_mapping` (validated, same rules as the JSON scenario
    format) rather than by hand.  The scenario's own order of members and
    topics, which decides some assignors' answers, is kept beside them
    (:attr:`join_order`, :attr:`topic_listing`).
    """

    topics: tuple[Topic, ...]
    members: tuple[Member, ...]
    objective: tuple[str, ...] = BALANCE_FIRST
    #: Groups of topics to co-partition (Kafka Streams joins): partition ``p`` of every topic of a group
    #: goes to one member (:mod:`optimal.join_groups`).  Each group is sorted; groups are sorted.
    join_groups: tuple[tuple[str, ...], ...] = ()
    #: Partition weights (lag, bytes/s) per topic, sorted by topic: ``(topic, (w0, w1, ...))``; a topic
    #: not listed weighs 1 per partition (docs/formats.md, "Weighted partitions").
    weights: tuple[tuple[str, tuple[int, ...]], ...] = ()
    #: The member ids in the order the scenario lists them, when that is not id order (empty: id order):
    #: the order the group presents its members (JoinGroup's, the coordinator's join order), which the
    #: answers of some assignors depend on (:attr:`join_order`).
    member_order: tuple[str, ...] = ()
    #: The topic names in the order the scenario lists them, when that is not name order (empty: name
    #: order): the cluster metadata's order, which some client libraries deal topics in (:attr:`topic_listing`).
    topic_order: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, data: Mapping, *, source: str = "scenario") -> Problem:
        """Build a validated problem from the scenario format (see README)."""
        from assignment_oracle.problem.scenario_json import problem_from_mapping

        return problem_from_mapping(data, source=source)

    def to_mapping(self) -> dict:
        """The scenario format of this problem (round-trips :meth:`from_mapping`)."""
        from assignment_oracle.problem.scenario_json import problem_to_mapping

        return problem_to_mapping(self)

    # -- lookups, computed once --------------------------------------------

    @cached_property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    @cached_property
    def join_order(self) -> tuple[str, ...]:
        """The member ids in the order the group presents them: as the scenario listed them
        (:attr:`member_order`), members it did not list (a problem derived from it) after them in id
        order; id order when the scenario listed them so."""
        from assignment_oracle.problem.scenario_json import listed_first

        return listed_first(self.member_order, self.member_ids)

    @cached_property
    def topic_listing(self) -> tuple[str, ...]:
        """The topic names in the scenario's order (:attr:`topic_order`), the rest after them by name."""
        if not self.topic_order:
            return self.topic_names
        present = set(self.topic_names)
        listed = [t for t in self.topic_order if t in present]
        seen = set(listed)
        return tuple(listed + [t for t in self.topic_names if t not in seen])

    @cached_property
    def member_index(self) -> Mapping[str, int]:
        return MappingProxyType({m: i for i, m in enumerate(self.member_ids)})

    @cached_property
    def partition_counts(self) -> Mapping[str, int]:
        return MappingProxyType({t.name: t.partitions for t in self.topics})

    @cached_property
    def subscribers(self) -> Mapping[str, tuple[int, ...]]:
        """Existing topic -> indices of the members subscribing to it (sorted)."""
        # Group members by subscription first: groups are usually few (Kafka's
        # stress test has one), so this is O(members + distinct subscriptions).
        groups: dict[frozenset[str], list[int]] = {}
        for i, member in enumerate(self.members):
            groups.setdefault(member.topics, []).append(i)
        subs: dict[str, list[int]] = {t.name: [] for t in self.topics}
        for topics, indices in groups.items():
            for topic in topics:
                if topic in subs:
                    subs[topic].extend(indices)
        return MappingProxyType({t: tuple(sorted(ms)) for t, ms in subs.items()})

    @cached_property
    def assignable_topics(self) -> tuple[Topic, ...]:
        """Topics with at least one subscriber: every partition of these is assigned."""
        return tuple(t for t in self.topics if self.subscribers[t.name])

    @cached_property
    def unsubscribed_topics(self) -> tuple[str, ...]:
        """Topics nobody subscribes to: left out of the assignment."""
        return tuple(t.name for t in self.topics if not self.subscribers[t.name])

    @cached_property
    def missing_topics(self) -> Mapping[str, tuple[str, ...]]:
        """Member id -> subscribed topics that do not exist (nothing to assign)."""
        existing = self.partition_counts.keys()
        missing: dict[frozenset[str], tuple[str, ...]] = {}  # per distinct subscription
        for m in self.members:
            if m.topics not in missing:
                missing[m.topics] = tuple(sorted(m.topics - existing))
        return MappingProxyType({m.member_id: missing[m.topics] for m in self.members if missing[m.topics]})

    @cached_property
    def topic_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.topics)

    @cached_property
    def partition_offsets(self) -> np.ndarray:
        """Global partition numbering: topic ``i``'s partitions are
        ``partition_offsets[i] .. partition_offsets[i + 1] - 1`` (topics in order)."""
        sizes = np.array([t.partitions for t in self.topics], dtype=np.int64)
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        offsets.setflags(write=False)
        return offsets

    @cached_property
    def subscription_mask(self) -> tuple[np.ndarray, np.ndarray]:
        """``(mask, group_of_member)``: ``mask[group_of_member[m], t]`` says whether
        member ``m`` subscribes to topic ``t`` (an index into :attr:`topics`).

        One row per distinct subscription, not per member (Kafka's stress
        test has 2,000 members and one subscription).
        """
        groups: dict[frozenset[str], int] = {}
        group_of_member = np.array([groups.setdefault(m.topics, len(groups)) for m in self.members], dtype=np.int64)
        topic_index = {t: i for i, t in enumerate(self.topic_names)}
        mask = np.zeros((max(1, len(groups)), max(1, len(topic_index))), dtype=bool)
        for topics, g in groups.items():
            mask[g, [topic_index[t] for t in topics if t in topic_index]] = True
        mask.setflags(write=False)
        group_of_member.setflags(write=False)
        return mask, group_of_member

    @cached_property
    def weight_array(self) -> np.ndarray:
        """Each partition's weight in the global numbering (:attr:`partition_offsets`): 1 unless given."""
        weights = np.ones(int(self.partition_offsets[-1]), dtype=np.int64)
        index = {t: i for i, t in enumerate(self.topic_names)}
        for topic, values in self.weights:
            start = self.partition_offsets[index[topic]]
            weights[start : start + len(values)] = values
        weights.setflags(write=False)
        return weights

    @cached_property
    def total_partitions(self) -> int:
        """Number of partitions an assignment must place (those of assignable topics)."""
        return sum(t.partitions for t in self.assignable_topics)

    @property
    def balance_first(self) -> bool:
        """Whether balance is the first tier (what the judges measure heuristics against)."""
        return self.objective[0] == BALANCE

    def balance_first_order(self) -> Problem:
        """This problem judged balance first, the order assignors aim for: ``balance`` moved to the
        front, the other tiers kept in their order (``rack`` only if the objective has it)."""
        if self.balance_first:
            return self
        return dataclasses.replace(self, objective=(BALANCE, *(t for t in self.objective if t != BALANCE)))

    def ranks_before(self, first: str, second: str) -> bool:
        """Whether tier ``first`` comes before ``second`` in the objective (a tier left out comes last)."""
        order = {t: i for i, t in enumerate(self.objective)}
        return order.get(first, len(order)) < order.get(second, len(order))

    @cached_property
    def rack_locality(self) -> RackLocality:
        """Which member is local to which partition (KIP-881 rack matching); see :class:`RackLocality`."""
        return RackLocality.of(self)


@dataclass(frozen=True, eq=False)
class RackLocality:
    """Rack matching as dense arrays: is partition ``p`` *local* to member ``m``?

    A partition is local to a member when the member's rack (``client.rack``)
    is among the racks of the partition's replicas (KIP-881).  No rack
    information means local: a member without a rack, or a partition of a
    topic without replica racks (or with an empty rack list), is local to
    everything.

    Attributes
    ----------
    partition_rackset:
        int32 per global partition (:attr:`Problem.partition_offsets`): index
        into ``racksets``, -1 when its topic has no rack information.
    racksets:
        The distinct replica rack sets.
    member_rack:
        int32 per member: index into ``racks``, -1 when the member has none.
    racks:
        Every rack named by a member (sorted).
    table:
        bool ``[len(racksets), len(racks)]``: rack set ``s`` contains rack ``k``.
    """

    partition_rackset: np.ndarray
    racksets: tuple[frozenset[str], ...]
    member_rack: np.ndarray
    racks: tuple[str, ...]
    table: np.ndarray

    @classmethod
    def of(cls, problem: Problem) -> RackLocality:
        racks = tuple(sorted({m.rack for m in problem.members if m.rack is not None}))
        rack_index = {r: i for i, r in enumerate(racks)}
        member_rack = np.array(
            [rack_index.get(m.rack, -1) if m.rack is not None else -1 for m in problem.members], dtype=np.int32
        )
        partition_rackset = np.full(int(problem.partition_offsets[-1]), -1, dtype=np.int32)
        rackset_index: dict[frozenset[str], int] = {}
        by_list: dict[tuple[str, ...], int] = {(): -1}  # [] is "no rack information"; lists as written, memoised
        if racks:  # no member has a rack: everything is local, no need to read partition racks
            for i, topic in enumerate(problem.topics):
                if topic.racks is not None:
                    start = int(problem.partition_offsets[i])
                    ids = []
                    for r in topic.racks:
                        found = by_list.get(r)
                        if found is None:
                            found = by_list[r] = rackset_index.setdefault(frozenset(r), len(rackset_index))
                        ids.append(found)
                    partition_rackset[start : start + topic.partitions] = ids
        racksets = tuple(rackset_index)
        table = np.zeros((len(racksets), len(racks)), dtype=bool)
        for s, rackset in enumerate(racksets):
            table[s, [rack_index[r] for r in rackset if r in rack_index]] = True
        for array in (member_rack, partition_rackset, table):
            array.setflags(write=False)
        return cls(partition_rackset, racksets, member_rack, racks, table)

    @property
    def active(self) -> bool:
        """Whether any member can be non-local to any partition."""
        return bool(self.racksets) and bool(self.racks)

    def is_local(self, partition, member) -> np.ndarray:
        """Element-wise: is global partition ``partition[i]`` local to member ``member[i]``?"""
        partition = np.asarray(partition, dtype=np.int64)
        member = np.asarray(member, dtype=np.int64)
        if not self.active:
            return np.ones(np.broadcast(partition, member).shape, dtype=bool)
        rackset = self.partition_rackset[partition]
        rack = self.member_rack[member]
        known = (rackset >= 0) & (rack >= 0)
        local = np.ones(known.shape, dtype=bool)
        local[known] = self.table[rackset[known], rack[known]]
        return local


class Assignment:
    """Which member gets which partitions: any such table, valid or not.

    An assignment is held as *entries*, three parallel integer arrays, one
    row per partition given: ``member`` (an index into :attr:`member_names`),
    ``topic`` (an index into :attr:`topic_names`) and ``partition``.  Names
    are tables of their own, sorted, so an assignment can hold everything a
    heuristic may hand back -- a partition given twice, a member that is not
    in the group, a topic or partition that does not exist -- and
    :func:`~assignment_oracle.problem.ownership.violations` says whether it
    is valid.  Rows are kept sorted by member, topic, partition (repeats
    kept), so equal assignments have equal arrays and the JSON writer streams
    them in order.  :attr:`member_names` may also list members that got
    nothing.

    Build one from owner arrays (:meth:`from_owners`, what the exact models
    and the linear assignors produce), from topic partitions
    (:meth:`from_partitions`), or from the nested mapping of the JSON format
    (``Assignment({"m": {"t": (0, 1)}})``); :attr:`members` gives that
    mapping back, built on first use, for code that walks it.
    """

    member_names: tuple[str, ...]  #: sorted, distinct
    topic_names: tuple[str, ...]  #: sorted, distinct
    member: np.ndarray  #: int32, per row
    topic: np.ndarray  #: int32, per row
    partition: np.ndarray  #: int64, per row (whatever was given, negative or beyond the topic included)
    #: (member, topic) pairs listed with no partitions, sorted: not rows, but a topic the group does not
    #: have is a violation whatever it holds (:func:`~assignment_oracle.problem.ownership.violations`).
    listed_empty: tuple[tuple[str, str], ...]
    _located: dict[str, Any]  # set by _store; what problem.ownership computed (see ownership.place)

    def __init__(self, members: Mapping[str, Mapping[str, Iterable[int]]] | None = None) -> None:
        by_member = list((members or {}).items())
        # One comprehension per column (C-speed loops); lists and tuples are used as they are.
        by_topic = [topics for _, topics in by_member]
        chunk_member = np.array([i for i, topics in enumerate(by_topic) for _ in topics], dtype=np.int64)
        chunk_topic = [topic for topics in by_topic for topic in topics]
        chunks: list[Any] = [partitions for topics in by_topic for partitions in topics.values()]
        if not set(map(type, chunks)) <= {list, tuple}:
            chunks = [c if type(c) is list or type(c) is tuple else tuple(c) for c in chunks]
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        member_names = tuple(sorted({m for m, _ in by_member}))
        member_rank = {n: i for i, n in enumerate(member_names)}
        of_name = np.array([member_rank[m] for m, _ in by_member], dtype=np.int32)
        distinct = sorted(set(chunk_topic))
        rank = {t: i for i, t in enumerate(distinct)}
        code = np.array([rank[t] for t in chunk_topic], dtype=np.int32)
        used = np.unique(code[lengths > 0])  # a topic listed only with no partitions is not in the rows
        topic_names = tuple(distinct[i] for i in used.tolist())
        renumber = np.zeros(len(distinct), dtype=np.int32)
        renumber[used] = np.arange(used.size, dtype=np.int32)
        member = np.repeat(of_name[chunk_member] if chunk_member.size else np.zeros(0, np.int32), lengths)
        topic = np.repeat(renumber[code] if code.size else code, lengths)
        partition = np.fromiter(itertools.chain.from_iterable(chunks), dtype=np.int64, count=int(lengths.sum()))
        empty = np.flatnonzero(lengths == 0).tolist()
        listed = tuple(sorted({(by_member[chunk_member[k]][0], chunk_topic[k]) for k in empty}))
        _store(self, member_names, topic_names, member.astype(np.int32), topic, partition, presorted=False)
        self.listed_empty = listed

    @classmethod
    def from_entries(
        cls,
        member_names: Iterable[str],
        topic_names: Iterable[str],
        member,
        topic,
        partition,
        *,
        presorted: bool = False,
    ) -> Assignment:
        """An assignment from entry arrays whose indices refer to ``member_names`` and
        ``topic_names`` (both sorted and distinct); ``presorted`` when the rows already are."""
        self = cls.__new__(cls)
        _store(
            self,
            tuple(member_names),
            tuple(topic_names),
            np.asarray(member, dtype=np.int32),
            np.asarray(topic, dtype=np.int32),
            np.asarray(partition, dtype=np.int64),
            presorted=presorted,
        )
        return self

    @classmethod
    def from_owners(cls, problem: Problem, owner: np.ndarray) -> Assignment:
        """An assignment from one owner per partition (-1: nobody), in ``problem.topics``
        order and partition order (the layout of
        :attr:`Problem.partition_offsets`).  Every group member is listed."""
        owner = np.asarray(owner)
        given = np.flatnonzero(owner >= 0)
        holders = owner[given]
        order = np.argsort(holders, kind="stable")  # by member, then topic and partition (global order)
        given, holders = given[order], holders[order]
        offsets = problem.partition_offsets
        topic = np.searchsorted(offsets, given, side="right") - 1
        return cls.from_entries(
            problem.member_ids, problem.topic_names, holders, topic, given - offsets[topic], presorted=True
        )

    @classmethod
    def from_partitions(
        cls, members: Mapping[str, Iterable[TopicPartition]], member_ids: Iterable[str] = ()
    ) -> Assignment:
        """Build an assignment from member id -> topic partitions (any order).

        Repeats are kept (an assignor that gives a partition twice is reported,
        not silently fixed); ``member_ids`` adds members that got nothing.
        """
        names = sorted(set(members) | set(member_ids))
        member_rows, topic_rows, partition_rows = entry_columns(members.items(), {n: i for i, n in enumerate(names)})
        topic_names = sorted(set(topic_rows))
        topic_rank = {t: i for i, t in enumerate(topic_names)}
        return cls.from_entries(names, topic_names, member_rows, [topic_rank[t] for t in topic_rows], partition_rows)

    # -- the entries, read ----------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Assignment):
            return NotImplemented
        return self.to_mapping() == other.to_mapping()

    __hash__ = None  # type: ignore[assignment]  # mutable arrays inside

    def __repr__(self) -> str:
        return f"Assignment({self.to_mapping()!r})"

    def __getstate__(self):
        return (self.member_names, self.topic_names, self.member, self.topic, self.partition, self.listed_empty)

    def __setstate__(self, state) -> None:
        _store(self, *state[:5], presorted=True)
        self.listed_empty = tuple(state[5]) if len(state) > 5 else ()

    @property
    def size(self) -> int:
        """Rows: partitions given, repeats counted."""
        return int(self.partition.size)

    @cached_property
    def _blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """Start of each (member, topic) run of rows, and each member's first row."""
        key = self.member.astype(np.int64) * max(1, len(self.topic_names)) + self.topic
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
        member_start = np.searchsorted(self.member, np.arange(len(self.member_names) + 1), side="left")
        return starts, member_start

    @cached_property
    def members(self) -> Mapping[str, Mapping[str, tuple[int, ...]]]:
        """Member id -> topic -> partitions (sorted, repeats kept): the nested form, built on first use."""
        return MappingProxyType({m: MappingProxyType(ts) for m, ts in self._nested(tuple).items()})

    def partitions_of(self, member_id: str) -> tuple[TopicPartition, ...]:
        topics = self.members.get(member_id, {})
        return tuple(TopicPartition(t, p) for t in sorted(topics) for p in topics[t])

    def load(self, member_id: str) -> int:
        """Partitions given to ``member_id``, repeats counted (0 if not listed)."""
        _, member_start = self._blocks
        i = bisect.bisect_left(self.member_names, member_id)
        if i == len(self.member_names) or self.member_names[i] != member_id:
            return 0
        return int(member_start[i + 1] - member_start[i])

    def including(self, member_ids: Iterable[str]) -> Assignment:
        """The same rows with ``member_ids`` listed too (members that got nothing)."""
        extra = set(member_ids) - set(self.member_names)
        if not extra:
            return self
        names = tuple(sorted(set(self.member_names) | extra))
        rank = np.array([bisect.bisect_left(names, n) for n in self.member_names], dtype=np.int32)
        member = rank[self.member] if self.size else self.member
        out = Assignment.from_entries(names, self.topic_names, member, self.topic, self.partition, presorted=True)
        out.listed_empty = self.listed_empty
        return out

    def to_mapping(self, member_ids: tuple[str, ...] = ()) -> dict:
        """The JSON shape: members, topics and partitions sorted; ``member_ids``
        adds members that got nothing (as ``{}``)."""
        out = self._nested(list)
        for m in member_ids:
            out.setdefault(m, {})
        return {m: out[m] for m in sorted(out)}

    def _nested(self, container) -> dict[str, dict[str, Any]]:
        """Member id -> topic -> ``container`` of partitions, in one pass over the rows."""
        out: dict[str, dict[str, Any]] = {m: {} for m in self.member_names}
        starts, _ = self._blocks
        bounds = np.r_[starts, self.size].tolist()
        partitions = self.partition.tolist()
        names, topics = self.member_names, self.topic_names
        for k, (m, t) in enumerate(zip(self.member[starts].tolist(), self.topic[starts].tolist())):
            out[names[m]][topics[t]] = container(partitions[bounds[k] : bounds[k + 1]])
        return out


def entry_columns(
    holdings: Iterable[tuple[str, Iterable[tuple[str, int]]]], number: Mapping[str, int]
) -> tuple[np.ndarray, list[str], list[int]]:
    """Holdings (member, its topic partitions) as entry columns, in order: the member's ``number`` once per
    topic partition it holds, and the topic partitions' topics and partition numbers (repeats kept: a caller
    that counts a pair once passes each member's pairs without them)."""
    numbers: list[int] = []
    counts: list[int] = []
    topic: list[str] = []
    partition: list[int] = []
    for key, pairs in holdings:
        rows = tuple(pairs)
        if rows:
            topics, numbered = zip(*rows)
            topic.extend(topics)
            partition.extend(numbered)
            numbers.append(number[key])
            counts.append(len(rows))
    return np.repeat(np.asarray(numbers, dtype=np.int64), counts), topic, partition


def _store(self: Assignment, member_names, topic_names, member, topic, partition, *, presorted: bool) -> None:
    if not presorted and member.size:
        order = np.lexsort((partition, topic, member))
        member, topic, partition = member[order], topic[order], partition[order]
    for array in (member, topic, partition):
        array.setflags(write=False)
    self.member_names, self.topic_names = member_names, topic_names
    self.member, self.topic, self.partition = member, topic, partition
    self.listed_empty = ()
    self._located = {}  # what problem.ownership computed for the last problem (see ownership.place)
