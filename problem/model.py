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

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Iterable, Mapping, NamedTuple

__all__ = [
    "BALANCE",
    "STICKINESS",
    "BALANCE_FIRST",
    "STICKINESS_FIRST",
    "TopicPartition",
    "Topic",
    "Member",
    "Problem",
    "Assignment",
]

BALANCE = "balance"
STICKINESS = "stickiness"
#: The StickyAssignor's order (KIP-54, "fair yet sticky"): balance, then stickiness.
BALANCE_FIRST: tuple[str, str] = (BALANCE, STICKINESS)
#: KIP-54's "sticky yet fair" alternative: keep every valid claim, then balance.
STICKINESS_FIRST: tuple[str, str] = (STICKINESS, BALANCE)


class TopicPartition(NamedTuple):
    """One partition of one topic; sorts by topic, then partition number."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class Topic:
    """A topic and its partition count (always positive)."""

    name: str
    partitions: int


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
    """

    member_id: str
    topics: frozenset[str]
    owned: tuple[tuple[str, tuple[int, ...]], ...] = ()
    generation: int | None = None
    rack: str | None = None

    @property
    def claim_generation(self) -> int:
        """The generation this member's claims carry; -1 when none was sent."""
        return -1 if self.generation is None else self.generation


@dataclass(frozen=True)
class Problem:
    """A rebalance to compute: topics, members, claims and the objective order.

    ``topics`` is sorted by name and ``members`` by member id; build problems
    with :meth:`from_mapping` (validated, same rules as the JSON scenario
    format) rather than by hand.
    """

    topics: tuple[Topic, ...]
    members: tuple[Member, ...]
    objective: tuple[str, str] = BALANCE_FIRST

    @classmethod
    def from_mapping(cls, data: Mapping, *, source: str = "scenario") -> "Problem":
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
        counts = self.partition_counts
        return MappingProxyType(
            {
                m.member_id: tuple(sorted(t for t in m.topics if t not in counts))
                for m in self.members
                if any(t not in counts for t in m.topics)
            }
        )

    @cached_property
    def total_partitions(self) -> int:
        """Number of partitions an assignment must place (those of assignable topics)."""
        return sum(t.partitions for t in self.assignable_topics)

    @property
    def balance_first(self) -> bool:
        return self.objective == BALANCE_FIRST


def _freeze(members: Mapping[str, Mapping[str, tuple[int, ...]]]):
    return MappingProxyType(
        {m: MappingProxyType(dict(topics)) for m, topics in members.items()}
    )


@dataclass(frozen=True, eq=False)
class Assignment:
    """Member id -> topic -> partition numbers.

    An assignment is any such mapping, valid or not (a heuristic may assign a
    partition twice, or to a member that does not subscribe to its topic);
    :func:`problem.ownership.violations` says whether it is valid.  Partition
    lists keep what was given, duplicates included.
    """

    members: Mapping[str, Mapping[str, tuple[int, ...]]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", _freeze(self.members))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Assignment):
            return NotImplemented
        return self.to_mapping() == other.to_mapping()

    __hash__ = None  # type: ignore[assignment]  # mappings are not hashable

    @classmethod
    def from_partitions(
        cls, members: Mapping[str, Iterable[TopicPartition]], member_ids: Iterable[str] = ()
    ) -> Assignment:
        """Build an assignment from member id -> topic partitions (any order).

        Repeats are kept (an assignor that gives a partition twice is reported,
        not silently fixed); ``member_ids`` adds members that got nothing.
        """
        out: dict[str, dict[str, list[int]]] = {m: {} for m in member_ids}
        for member, partitions in members.items():
            topics = out.setdefault(member, {})
            for topic, partition in partitions:
                topics.setdefault(topic, []).append(partition)
        return cls({m: {t: tuple(sorted(ps)) for t, ps in ts.items()} for m, ts in out.items()})

    def partitions_of(self, member_id: str) -> tuple[TopicPartition, ...]:
        topics = self.members.get(member_id, {})
        return tuple(
            TopicPartition(t, p) for t in sorted(topics) for p in sorted(topics[t])
        )

    def load(self, member_id: str) -> int:
        return sum(len(ps) for ps in self.members.get(member_id, {}).values())

    def to_mapping(self, member_ids: tuple[str, ...] = ()) -> dict:
        """The JSON shape: members, topics and partitions sorted; ``member_ids``
        adds members that got nothing (as ``{}``)."""
        out: dict[str, dict[str, list[int]]] = {m: {} for m in member_ids}
        for member, topics in self.members.items():
            out[member] = {
                t: sorted(ps) for t, ps in sorted(topics.items()) if len(ps) > 0
            }
        return {m: out[m] for m in sorted(out)}
