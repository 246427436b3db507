"""The consumer-group assignment problem and an assignment, as immutable values.

Everything in this project (the exact models, the heuristic assignors, the
judges) reads these types and nothing else.  They are built once, at the edge,
by :func:`problem_from_mapping` (:meth:`Problem.from_mapping`; :mod:`problem.scenario_json` reads files and
standard input into it), which validates the input; code inside trusts them.  As each kind of group's model
holds its own JSON (:mod:`problem.streams`, :mod:`problem.share`), the consumer group's scenario format is read
and written here (the section at the end), with the field readers of :mod:`problem.json_fields`.

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
import functools
import itertools
import json
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import numpy as np

from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import unversioned
from assignment_oracle.problem.joining import joining_mapping, read_joining
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
    "problem_from_mapping",
    "problem_to_mapping",
    "parse_objective",
    "listed_first",
    "topic_from_value",
    "kafka_uuid",
    "uuid_bits",
    "check_members",
    "expect_subscription",
    "claim_instance_id",
    "MAX_PARTITIONS",
    "MAX_MEMBERS",
    "MAX_WEIGHT",
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
    #: The member joining as the group rebalances (the scenario's ``"joining"``, :mod:`problem.joining`), which
    #: Kafka's coordinator puts after the others; ``None``: every member is in the group already.
    joining: str | None = None

    @classmethod
    def from_mapping(cls, data: Mapping, *, source: str = "scenario") -> Problem:
        """Build a validated problem from the scenario format (see README)."""
        return problem_from_mapping(data, source=source)

    def to_mapping(self) -> dict:
        """The scenario format of this problem (round-trips :meth:`from_mapping`)."""
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


# -- the scenario format (docs/formats.md): read once at the edge, written back ------------------------------


_SCENARIO_KEYS = {"topics", "members", "objective", "join_groups", "weights", "joining"}


_TOPIC_KEYS = {"partitions", "racks", "id"}


_MEMBER_KEYS = {"topics", "owned", "generation", "rack", "instance_id"}


def listed_first(order: tuple[str, ...], ids: tuple[str, ...]) -> tuple[str, ...]:
    """``ids`` in the order the scenario listed them (``order``), those it did not list after them in
    their own order; ``ids`` as they are when the scenario listed none (a group's join order)."""
    if not order:
        return ids
    present = set(ids)
    listed = [m for m in order if m in present]
    seen = set(listed)
    return tuple(listed + [m for m in ids if m not in seen])


def _partition_list(value: Any, source: str, path: str | Callable[[], str]) -> tuple[int, ...]:
    """A list of partition numbers; ``path`` may be a function, called only to name an error."""
    if _partition_numbers_ok([value]):  # the common case at C speed; below only to name the first bad element
        return tuple(value)
    path = path() if callable(path) else path
    if not isinstance(value, list):
        raise InputError(source, path, f"must be an array of partition numbers, got {fields.json_kind(value)}")
    parts = tuple(fields.expect_integer(p, source, f"{path}[{i}]", minimum=0) for i, p in enumerate(value))
    for i, p in enumerate(parts):
        if p > fields.INT32_MAX:
            raise InputError(source, f"{path}[{i}]", f"must fit Kafka's int32, got {p}")
    return parts


def topic_from_value(name: str, value: Any, source: str, path: str) -> Topic:
    if isinstance(value, dict):
        fields.reject_unknown_keys(value, _TOPIC_KEYS, source, path)
        if "partitions" not in value:
            raise InputError(source, path, 'missing key "partitions"')
        count = fields.expect_integer(value["partitions"], source, f"{path}.partitions", minimum=1)
    else:
        count = fields.expect_integer(value, source, path, minimum=1)
    if count > fields.INT32_MAX:
        raise InputError(source, path, f"must fit Kafka's int32 partition count, got {count}")
    racks = None
    if isinstance(value, dict) and value.get("racks") is not None:
        racks = _replica_racks(value["racks"], count, source, f"{path}.racks")
    topic_id = None
    if isinstance(value, dict) and value.get("id") is not None:
        topic_id = kafka_uuid(value["id"], source, f"{path}.id")
    return Topic(name, count, racks, topic_id)


def kafka_uuid(value: Any, source: str, path: str) -> str:
    """A Kafka ``Uuid`` as ``Uuid.fromString`` reads one: 22 characters of URL-safe base64 (no padding) for
    16 bytes, not the all-zero id Kafka reserves for "no id".  As in Java's decoder, the last character's
    4 bits past the 16th byte are not checked (Kafka's own tests write ids such as
    ``T2-B4s3VTwiI5YHbPp6YUe``, which ``Uuid.toString()`` prints back as ``T2-B4s3VTwiI5YHbPp6YUQ``);
    the text is kept as given."""
    import base64
    import re

    if not isinstance(value, str):
        raise InputError(
            source, path, f"must be a Kafka topic id (22 characters of URL-safe base64), got {fields.json_kind(value)}"
        )
    if not re.fullmatch(r"[A-Za-z0-9_-]{22}", value):
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InputError(source, path, f"must be a Kafka topic id (22 characters of URL-safe base64), got {shown!r}")
    if base64.urlsafe_b64decode(value + "==") == bytes(16):
        raise InputError(source, path, "is Kafka's all-zero Uuid, reserved for no topic id")
    return value


def uuid_bits(topic_id: str) -> tuple[int, int]:
    """The two signed 64-bit halves of a Kafka ``Uuid`` (``getMostSignificantBits``, ``getLeastSignificantBits``)."""
    import base64

    raw = base64.urlsafe_b64decode(topic_id + "==")
    most, least = int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big", signed=True)
    return most, least


def _replica_racks(value: Any, count: int, source: str, path: str) -> tuple[tuple[str, ...], ...]:
    """Per partition, the racks of its replicas: exactly ``count`` arrays of rack names."""
    if not isinstance(value, list):
        raise InputError(
            source, path, f"must be an array with the replicas' racks of each partition, got {fields.json_kind(value)}"
        )
    if len(value) != count:
        raise InputError(
            source, path, f"must list the replicas' racks of each of the {count} partitions, got {len(value)}"
        )
    racks = []
    for p, replicas in enumerate(value):
        if not isinstance(replicas, list):
            raise InputError(
                source, f"{path}[{p}]", f"must be an array of rack names, got {fields.json_kind(replicas)}"
            )
        racks.append(tuple(fields.expect_name(r, source, f"{path}[{p}][{i}]") for i, r in enumerate(replicas)))
    return tuple(racks)


def _partition_numbers_ok(lists: list) -> bool:
    """Every element of every list is a partition number (an int in ``0 .. INT32_MAX``).

    One pass at C speed over all the lists of a document together; when it
    says no, the per-list checks run to name the first bad element.
    """
    if not set(map(type, lists)) <= {list}:
        return False
    if not set(map(type, itertools.chain.from_iterable(lists))) <= {int}:
        return False
    try:
        numbers = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64)
    except OverflowError:  # beyond 64 bits: certainly not a partition number
        return False
    return numbers.size == 0 or (int(numbers.min()) >= 0 and int(numbers.max()) <= fields.INT32_MAX)


def expect_subscription(obj: dict, source: str, path: str) -> list:
    """A member's ``topics`` as the JSON array it must be (its entries not checked yet); one line naming
    ``path`` when the key is missing or is not an array."""
    if "topics" not in obj:
        raise InputError(source, path, 'missing key "topics"')
    raw = obj["topics"]
    if not isinstance(raw, list):
        raise InputError(source, f"{path}.topics", f"must be an array of topic names, got {fields.json_kind(raw)}")
    return raw


def claim_instance_id(static: dict[str, str], member_id: str, instance_id: str | None, source: str, path: str) -> None:
    """Record a static member's ``group.instance.id`` in ``static`` (id -> member); one line naming the
    member's ``path`` when another member of the group has it already (Kafka fences the second one)."""
    if instance_id is None:
        return
    if instance_id in static:
        raise InputError(
            source,
            f"{path}.instance_id",
            f"{json.dumps(instance_id)} is already the instance id of member "
            f"{json.dumps(static[instance_id])} (group.instance.id is unique in a group)",
        )
    static[instance_id] = member_id


def _member(
    member_id: str, value: Any, source: str, path: str, *, checked: bool = False, subscriptions: dict | None = None
) -> Member:
    """One member; ``checked``: its claimed lists already passed :func:`_partition_numbers_ok`.

    ``subscriptions`` remembers the subscriptions already validated (as
    tuples of names): members usually share a few, and one frozenset each
    then serves them all.
    """
    obj = fields.expect_object(value, source, path)
    fields.reject_unknown_keys(obj, _MEMBER_KEYS, source, path)
    raw_topics = expect_subscription(obj, source, path)
    known = (
        subscriptions.get(tuple(raw_topics))
        if subscriptions is not None and set(map(type, raw_topics)) <= {str}
        else None
    )
    if known is not None:
        topics = known
    elif set(map(type, raw_topics)) <= {str} and "" not in raw_topics and len(set(raw_topics)) == len(raw_topics):
        topics = frozenset(raw_topics)
        if subscriptions is not None:
            subscriptions[tuple(raw_topics)] = topics
    else:  # name the first bad or repeated entry
        topics = []
        for i, t in enumerate(raw_topics):
            name = fields.expect_name(t, source, f"{path}.topics[{i}]")
            if name in topics:
                raise InputError(source, f"{path}.topics[{i}]", f"topic {json.dumps(name)} is listed twice")
            topics.append(name)

    owned: list[tuple[str, tuple[int, ...]]] = []
    if "owned" in obj:
        owned_obj = fields.expect_object(obj["owned"], source, f"{path}.owned")
        if checked and "" not in owned_obj and set(map(type, owned_obj)) <= {str}:  # its lists passed already
            owned = list(zip(owned_obj.keys(), map(tuple, owned_obj.values())))
            owned_obj = {}
        for topic, parts in owned_obj.items():
            if not topic:
                fields.expect_name(topic, source, fields.field_path(f"{path}.owned", topic))
            owned.append(
                (
                    topic,
                    tuple(parts)
                    if checked
                    else _partition_list(parts, source, functools.partial(fields.field_path, f"{path}.owned", topic)),
                )
            )
    generation = None
    if obj.get("generation") is not None:
        generation = fields.expect_integer(obj["generation"], source, f"{path}.generation", minimum=-1)
        if generation > fields.INT32_MAX:
            raise InputError(source, f"{path}.generation", f"must fit Kafka's int32, got {generation}")
    rack = None
    if obj.get("rack") is not None:
        rack = fields.expect_name(obj["rack"], source, f"{path}.rack")
    instance_id = None
    if obj.get("instance_id") is not None:
        instance_id = fields.expect_name(obj["instance_id"], source, f"{path}.instance_id")
    return Member(
        member_id=member_id,
        topics=frozenset(topics),
        owned=tuple(sorted(owned)),
        generation=generation,
        rack=rack,
        instance_id=instance_id,
    )


def parse_objective(value: Any, source: str, path: str = "objective") -> tuple[str, ...]:
    """Tiers in priority order: ``["balance", "rack", "stickiness"]`` or ``"balance,rack,stickiness"``.

    The consumer tier table's rule (:data:`problem.tiers.CONSUMER`): ``balance`` and ``stickiness`` once
    each, ``rack`` and ``spread`` at most once each (left out: they play no part), in any order.
    """
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, list) and all(isinstance(p, str) for p in value):
        parts = list(value)
    else:
        raise InputError(source, path, f"must be a list of objective names, got {fields.json_kind(value)}")
    if not CONSUMER.accepts(parts):
        raise InputError(source, path, f"{CONSUMER.rule}, in priority order; got {json.dumps(parts)}")
    return tuple(parts)


#: The most partitions a scenario may have by default: an answer this size
#: (owner arrays, rows, the JSON) fits this project's 24 GiB machines.
MAX_PARTITIONS = 100_000_000


#: The most members a group may have by default (``--max-members``): 2,000,000 members took 2 GB and
#: 39 s to solve on one partition, and 8,000,000 ended in a crash; a million is a thousand times
#: the coordinator benchmark's group (benchmarks/bench_coordinator.py).
MAX_MEMBERS = 1_000_000


def check_members(count: int, max_members: int | None, source: str, field: str = "members") -> None:
    """Refuse (one line naming ``field``) a group with more than ``max_members`` members (``None``: no limit),
    before anything per member is built."""
    if max_members is not None and count > max_members:
        raise InputError(
            source,
            field,
            f"{count:,} members, more than the limit of {max_members:,} "
            "(raise it with --max-members if this machine has the memory)",
        )


def problem_from_mapping(
    data: Any,
    *,
    source: str = "scenario",
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> Problem:
    """Validate a decoded scenario and build the :class:`Problem`.

    A scenario with more than ``max_partitions`` partitions in all, or more
    than ``max_members`` members (``None``: no limit), is refused before
    anything per partition or per member is allocated.
    """
    obj = unversioned(fields.expect_object(data, source, ""), "scenario", source)  # problem.formats
    fields.reject_unknown_keys(obj, _SCENARIO_KEYS, source, "")
    fields.require_keys(obj, ("topics", "members"), source)
    topics_obj = fields.expect_object(obj["topics"], source, "topics")
    topics = []
    for name, value in topics_obj.items():
        path = fields.field_path("topics", name)
        fields.expect_name(name, source, path)
        topics.append(topic_from_value(name, value, source, path))
    ids: dict[tuple[int, int], str] = {}
    for t in topics:
        if t.topic_id is not None:
            bits = uuid_bits(t.topic_id)  # the Uuid: two spellings may decode to one
            if bits in ids:
                raise InputError(
                    source, fields.field_path("topics", t.name) + ".id", f"is also the id of topic {ids[bits]!r}"
                )
            ids[bits] = t.name
    total = sum(t.partitions for t in topics)
    if max_partitions is not None and total > max_partitions:
        raise InputError(
            source,
            "topics",
            f"{total:,} partitions in all, more than the limit of {max_partitions:,} "
            "(raise it with --max-partitions if this machine has the memory)",
        )
    members_obj = fields.expect_object(obj["members"], source, "members")
    check_members(len(members_obj), max_members, source)
    claimed = [
        parts
        for value in members_obj.values()
        if type(value) is dict and type(value.get("owned")) is dict
        for parts in value["owned"].values()
    ]
    checked = _partition_numbers_ok(claimed)  # else each list is checked, to name the first bad one
    subscriptions: dict[tuple[str, ...], frozenset[str]] = {}
    members = []
    for member_id, value in members_obj.items():
        path = fields.field_path("members", member_id)
        fields.expect_name(member_id, source, path)
        members.append(_member(member_id, value, source, path, checked=checked, subscriptions=subscriptions))
    static: dict[str, str] = {}
    for member in members:  # Kafka fences a second member with the same group.instance.id
        claim_instance_id(
            static, member.member_id, member.instance_id, source, fields.field_path("members", member.member_id)
        )
    objective = BALANCE_FIRST
    if obj.get("objective") is not None:
        objective = parse_objective(obj["objective"], source)
    join_groups = _join_groups(obj.get("join_groups"), {t.name for t in topics}, source)
    weights = _weights(obj.get("weights"), {t.name: t.partitions for t in topics}, source)
    listed_members = tuple(m.member_id for m in members)
    listed_topics = tuple(t.name for t in topics)
    by_id = tuple(sorted(members, key=lambda m: m.member_id))
    by_name = tuple(sorted(topics, key=lambda t: t.name))
    return Problem(
        topics=by_name,
        members=by_id,
        objective=objective,
        join_groups=join_groups,
        weights=weights,
        # The scenario's own order (the group's join order, the metadata's topic order) when it is not the
        # sorted one: some assignors' answers depend on it (Problem.join_order).
        member_order=listed_members if listed_members != tuple(m.member_id for m in by_id) else (),
        topic_order=listed_topics if listed_topics != tuple(t.name for t in by_name) else (),
        joining=read_joining(obj, listed_members, source),
    )


#: The largest partition weight: weighted loads of a million partitions stay exact in 64-bit integers.
MAX_WEIGHT = 10**9


def _weights(value: Any, counts: dict[str, int], source: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """``{"clicks": [w0, w1, ...]}``: one whole number ``0 .. MAX_WEIGHT`` per partition of an existing topic."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise InputError(
            source, "weights", f"must be an object of topic -> list of weights, got {fields.json_kind(value)}"
        )
    out = []
    for topic, weights in value.items():
        where = fields.field_path("weights", topic)
        if topic not in counts:
            raise InputError(source, where, f"{json.dumps(topic)} is not a topic of the scenario")
        if not isinstance(weights, list):
            raise InputError(
                source, where, f"must be a list of weights, one per partition, got {fields.json_kind(weights)}"
            )
        if len(weights) != counts[topic]:
            raise InputError(source, where, f"has {len(weights)} weight(s) for {counts[topic]} partition(s)")
        for i, w in enumerate(weights):
            if type(w) is not int or not 0 <= w <= MAX_WEIGHT:
                raise InputError(
                    source,
                    f"{where}[{i}]",
                    f"must be a whole number from 0 to {MAX_WEIGHT:,}, got "
                    f"{json.dumps(w) if type(w) in (int, float) else fields.json_kind(w)}",
                )
        out.append((topic, tuple(weights)))
    return tuple(sorted(out))


def _join_groups(value: Any, topics: set[str], source: str) -> tuple[tuple[str, ...], ...]:
    """``[["impressions", "clicks"], ...]``: groups of two or more existing topics, each topic in one group."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(source, "join_groups", f"must be a list of topic lists, got {fields.json_kind(value)}")
    seen: dict[str, int] = {}
    groups = []
    for i, group in enumerate(value):
        where = f"join_groups[{i}]"
        if not isinstance(group, list) or len(group) < 2:
            raise InputError(source, where, "must be a list of at least two topic names")
        for j, topic in enumerate(group):
            if not isinstance(topic, str):
                raise InputError(source, f"{where}[{j}]", f"must be a topic name, got {fields.json_kind(topic)}")
            if topic not in topics:
                raise InputError(source, f"{where}[{j}]", f"{json.dumps(topic)} is not a topic of the scenario")
            if topic in seen:
                raise InputError(
                    source,
                    f"{where}[{j}]",
                    f"{json.dumps(topic)} is already in join_groups[{seen[topic]}]"
                    if seen[topic] != i
                    else f"{json.dumps(topic)} is named twice",
                )
            seen[topic] = i
        groups.append(tuple(sorted(group)))
    return tuple(sorted(groups))


def problem_to_mapping(problem: Problem) -> dict:
    """The scenario document of ``problem``: members and topics in the scenario's own order (its join order
    and topic order), which :func:`dumps` keeps (:class:`Listed`): a scenario the tool writes (``generate``,
    ``capture``, ``bugs --scenario``, a sweep's counterexamples) reads back in the same group order, on
    which Java's iteration order depends."""
    members = fields.Listed()
    by_id = {m.member_id: m for m in problem.members}
    for m in (by_id[i] for i in problem.join_order):
        entry: dict[str, Any] = {"topics": sorted(m.topics)}
        if m.owned:
            entry["owned"] = {t: list(ps) for t, ps in m.owned}
        if m.generation is not None:
            entry["generation"] = m.generation
        if m.rack is not None:
            entry["rack"] = m.rack
        if m.instance_id is not None:
            entry["instance_id"] = m.instance_id
        members[m.member_id] = entry
    topics = {t.name: t for t in problem.topics}
    return {
        "topics": fields.Listed(
            (
                t.name,
                t.partitions
                if t.racks is None and t.topic_id is None
                else {
                    "partitions": t.partitions,
                    **({"racks": [list(r) for r in t.racks]} if t.racks is not None else {}),
                    **({"id": t.topic_id} if t.topic_id is not None else {}),
                },
            )
            for t in (topics[name] for name in problem.topic_listing)
        ),
        "members": members,
        "objective": list(problem.objective),
        **({"join_groups": [list(g) for g in problem.join_groups]} if problem.join_groups else {}),
        **({"weights": {t: list(ws) for t, ws in problem.weights}} if problem.weights else {}),
        **joining_mapping(problem.joining),
    }
