"""Churn simulation: an assignor over many rebalances, judged round by round against the optimum.

A :class:`History` is a starting group (topics, members) and a list of
rounds, each a list of events in Kafka's vocabulary: a member joins or
leaves, changes its subscription, a topic gains partitions, is created or
is deleted, a zombie rejoins with stale claims (KAFKA-7026), a static member
bounces.  :func:`simulate` plays it with one registered assignor:

* **round 0** is the starting group, nobody owning anything, generation 1;
* **round r** (``history.rounds[r - 1]``) applies its events in order, then
  the group rebalances at generation ``r + 1``.  Every member that was in
  round ``r - 1`` (and neither bounced nor rejoined as a zombie since)
  claims exactly the partitions the assignor gave it there (for a
  cooperative assignor, the assignment the group settled on after its
  follow-up rebalances), with generation ``r``; a member that joined has no
  claims.  This is Kafka's protocol: user data (``StickyAssignor``) or
  ``ownedPartitions`` (KIP-429) carries the last assignment back;
* each round's problem is solved once (:func:`optimal.solve`, balance then
  stickiness) and the assignor is judged by :func:`compare.judge.evaluate.evaluate`
  against it: the same row as ``compare``, every metric against the round's
  optimum given the assignor's own state.

Alongside, the **oracle trajectory** plays the same events with the
optimum as the assignor: each round's claims are the previous oracle
round's optimal assignment.  It answers "how much churn would the best
possible assignor have caused over this history", which the per-round
optimum (given the heuristic's state) cannot: a heuristic's earlier choices
change what later rounds can keep.

The numbers of a round (see ``docs/churn.md``):

``owned``
    partitions with a resolved previous owner in this round's problem
    (:func:`problem.claims.resolve_claims`: the owner is in the group, still
    subscribes to the topic, and won its claim on generation).  Partitions of
    a member that left, a bounced member's, a zombie's superseded claims and
    partitions of a topic its owner unsubscribed from are *not* owned.
``moved``
    ``owned - retained`` of the assignor's assignment
    (:attr:`compare.judge.check.Verdict.moved`): revocations, partitions taken
    from a member that still could have kept them.
``optimal_moved``
    the fewest revocations of any most balanced assignment from the same
    state (:attr:`compare.judge.check.Verdict.optimal_moved`).
``oracle_moved``
    revocations in the oracle trajectory's round (its own state).
``cumulative_moved``, ``cumulative_oracle_moved``
    the sums of ``moved`` and ``oracle_moved`` over rounds ``0 .. r``.

A heuristic can move fewer partitions than the optimum when it settles for
a less balanced assignment (balance comes first in the optimum); the
``most_balanced`` column says when that happened.

Decisions where Kafka or the issue left room:

* **Generations** count rounds (round ``r`` is generation ``r + 1``).  A
  cooperative assignor's follow-up rebalances happen inside its round and
  are reported in ``rebalances``; they do not shift later rounds'
  generations, so every assignor and the oracle see the same numbers.  Claim
  resolution only compares generations, and every member of one round
  shares its generation, so nothing depends on this.
* **Zombie** (``{"zombie": "m0", "rounds_ago": k}``): the member sends the
  claims it had in round ``r - k`` (the assignment it got there, in the
  trajectory being played) with that round's generation ``r - k + 1``: the
  stale user data of KAFKA-7026.  If the member is absent it rejoins with
  the subscription and rack it had then (its process kept running on that
  state).  If it is still in the group, only its claims and generation are
  stale (a member that missed its assignment and rejoins with old user data;
  its subscription is sent fresh with every join), and ``k`` must be at
  least 2, since its claims from one round ago are current.  The member
  must have been in the group at round ``r - k`` and, if present, must
  still hold the previous round's claims (not have joined, rejoined or
  bounced earlier in the same round).  KIP-341's rule (highest
  generation wins) then gives contested partitions to their newer owner;
  ``sticky-kip54``, which reads no generations, keeps the stale claim too
  and the round's assignment has a duplicate.
* **Static-member bounce** (``{"bounce": "m1"}``): a member with a static id
  (``group.instance.id``, KIP-345) restarts and rejoins under the same id
  with *no claims* and no generation.  Its owned partitions live in memory
  only (the StickyAssignor serializes its user data from the last
  assignment it received; the cooperative protocol sends the consumer's
  currently assigned partitions), and a restarted process has neither.  It
  differs from a leave and a join by keeping its member id (which range and
  round robin order by) and by never missing a rebalance.  Kafka skips the
  rebalance when a static member comes back in time; the bounce matters at
  the next rebalance, which is the round it is listed in.  A member that
  joined, rejoined or bounced earlier in the same round has no claims left
  to lose: bouncing it is an error.
* **Topic deletion** leaves subscriptions alone (Kafka keeps a subscription
  to a missing topic; there is nothing to assign for it) and claims on the
  deleted topic are dropped as ``unknown-topic``.  A deleted topic may be
  created again; a zombie's claims then name the new topic's partitions,
  as Kafka's would.
* **Partition counts** only grow (Kafka cannot shrink a topic); a new topic
  is a separate event (``create``).
* An **empty group** is allowed (Kafka's ``Empty`` state); a leave may
  empty it and a later join or zombie refills it.
* An **invalid** round (``sticky-kip54``'s duplicate, ``stream-join-sticky``'s
  unassigned partitions) is fed forward as it is: every member claims what
  it was given, the way Kafka's members would.
* A round whose assignor ends ``timeout`` or ``error`` has no assignment to
  feed forward: the simulation **stops** there.  That round is recorded
  (status and message), later rounds are not run, and
  :attr:`Simulation.stopped` names the round.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, ClassVar, Iterator, Mapping, Sequence

from assignment_oracle.compare.judge.evaluate import Evaluation, evaluate
from assignment_oracle.compare.judge.text import cell, short_list, table, yes
from assignment_oracle.heuristics import Assignor, get_assignor
from assignment_oracle.heuristics.registry import is_live
from assignment_oracle.optimal import Solution, solve, verify
from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.formats import unversioned
from assignment_oracle.problem.joining import joining_mapping, read_joining
from assignment_oracle.problem.metrics import spread
from assignment_oracle.problem.model import Assignment, Member, Problem, Topic
from assignment_oracle.problem.scenario_json import (
    MAX_MEMBERS,
    MAX_PARTITIONS,
    InputError,
    check_members,
    read_json_file,
    topic_from_value,
)

# The scenario format's own field checks, so that both formats word their errors alike.
from assignment_oracle.problem.text import lines_text

__all__ = [
    "Join",
    "Leave",
    "SubscriptionChange",
    "CreatePartitions",
    "CreateTopic",
    "DeleteTopic",
    "ZombieRejoin",
    "StaticBounce",
    "Event",
    "EVENT_KINDS",
    "History",
    "history_from_mapping",
    "read_history",
    "Round",
    "Simulation",
    "simulate",
    "simulation_text",
    "random_history",
]


# -- events --------------------------------------------------------------------


def _topics_list(topics: frozenset[str]) -> list[str]:
    return sorted(topics)


@dataclass(frozen=True)
class Join:
    """A member joins with a subscription and no claims (a new consumer, or a
    dynamic member that restarted and got a new member id)."""

    member_id: str
    topics: frozenset[str]
    rack: str | None = None
    kind: ClassVar[str] = "join"

    def to_mapping(self) -> dict:
        out: dict = {"join": self.member_id, "topics": _topics_list(self.topics)}
        if self.rack is not None:
            out["rack"] = self.rack
        return out

    def summary(self) -> str:
        return f"join {self.member_id}"


@dataclass(frozen=True)
class Leave:
    """A member leaves the group (it closed, or its session timed out); its
    claims go with it."""

    member_id: str
    kind: ClassVar[str] = "leave"

    def to_mapping(self) -> dict:
        return {"leave": self.member_id}

    def summary(self) -> str:
        return f"leave {self.member_id}"


@dataclass(frozen=True)
class SubscriptionChange:
    """A member subscribes to a new set of topics (``consumer.subscribe``);
    its claims stay, and those on topics it dropped are no longer owned."""

    member_id: str
    topics: frozenset[str]
    kind: ClassVar[str] = "subscribe"

    def to_mapping(self) -> dict:
        return {"subscribe": self.member_id, "topics": _topics_list(self.topics)}

    def summary(self) -> str:
        return f"subscribe {self.member_id} [{','.join(_topics_list(self.topics))}]"


@dataclass(frozen=True)
class CreatePartitions:
    """A topic grows to ``count`` partitions (``AdminClient.createPartitions``,
    ``NewPartitions.increaseTo``)."""

    topic: str
    count: int
    kind: ClassVar[str] = "partitions"

    def to_mapping(self) -> dict:
        return {"partitions": self.topic, "count": self.count}

    def summary(self) -> str:
        return f"partitions {self.topic}={self.count}"


@dataclass(frozen=True)
class CreateTopic:
    """A new topic with ``count`` partitions."""

    topic: str
    count: int
    kind: ClassVar[str] = "create"

    def to_mapping(self) -> dict:
        return {"create": self.topic, "count": self.count}

    def summary(self) -> str:
        return f"create {self.topic}({self.count})"


@dataclass(frozen=True)
class DeleteTopic:
    """A topic is deleted; subscriptions to it remain (see the module docstring)."""

    topic: str
    kind: ClassVar[str] = "delete"

    def to_mapping(self) -> dict:
        return {"delete": self.topic}

    def summary(self) -> str:
        return f"delete {self.topic}"


@dataclass(frozen=True)
class ZombieRejoin:
    """A member rejoins with the claims and generation it had ``rounds_ago``
    rounds earlier (KAFKA-7026's stale user data; see the module docstring)."""

    member_id: str
    rounds_ago: int
    kind: ClassVar[str] = "zombie"

    def to_mapping(self) -> dict:
        return {"zombie": self.member_id, "rounds_ago": self.rounds_ago}

    def summary(self) -> str:
        return f"zombie {self.member_id} -{self.rounds_ago}"


@dataclass(frozen=True)
class StaticBounce:
    """A static member restarts under the same id and rejoins with no claims
    (its user data lived in memory; see the module docstring)."""

    member_id: str
    kind: ClassVar[str] = "bounce"

    def to_mapping(self) -> dict:
        return {"bounce": self.member_id}

    def summary(self) -> str:
        return f"bounce {self.member_id}"


Event = Join | Leave | SubscriptionChange | CreatePartitions | CreateTopic | DeleteTopic | ZombieRejoin | StaticBounce

#: JSON kind key -> event class.  Each event object has exactly one of these keys.
EVENT_KINDS: Mapping[str, type] = MappingProxyType(
    {
        cls.kind: cls
        for cls in (
            Join,
            Leave,
            SubscriptionChange,
            CreatePartitions,
            CreateTopic,
            DeleteTopic,
            ZombieRejoin,
            StaticBounce,
        )
    }
)


# -- history -------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    """The starting group and the events of each later round.

    Attributes
    ----------
    topics:
        The topics at round 0 (sorted by name on construction).
    members:
        The members at round 0: subscription and rack; no claims (sorted by id).
    rounds:
        ``rounds[i]`` holds the events of round ``i + 1``, applied in order.
    description:
        Free text, carried into the simulation's output.
    joining:
        The member of round 0 joining as the group first rebalances (the history's ``"joining"``, read by the
        scenario's one rule, :mod:`problem.joining`); ``None``: nobody.  In each later round the member the
        round's events add last (a join, or a zombie rejoining the group) is the one joining, as Kafka's
        coordinator adds the heartbeating member after the others (:mod:`heuristics.timeline_order`).

    A history built in code is checked when it is simulated; one read from
    JSON (:func:`history_from_mapping`) is checked on reading, events against
    the group they apply to.
    """

    topics: tuple[Topic, ...]
    members: tuple[Member, ...]
    rounds: tuple[tuple[Event, ...], ...] = ()
    description: str = ""
    joining: str | None = None

    @property
    def member_ids(self) -> tuple[str, ...]:
        """The members of round 0, by id."""
        return tuple(m.member_id for m in self.members)

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", tuple(sorted(self.topics, key=lambda t: t.name)))
        object.__setattr__(self, "members", tuple(sorted(self.members, key=lambda m: m.member_id)))
        object.__setattr__(self, "rounds", tuple(tuple(events) for events in self.rounds))

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "history") -> History:
        """See :func:`history_from_mapping`."""
        return history_from_mapping(data, source=source)

    def to_mapping(self) -> dict:
        """The JSON format (round-trips :func:`history_from_mapping`)."""
        members: dict[str, dict] = {}
        for m in self.members:
            entry: dict = {"topics": _topics_list(m.topics)}
            if m.rack is not None:
                entry["rack"] = m.rack
            members[m.member_id] = entry
        out: dict = {
            "topics": {t.name: t.partitions for t in self.topics},
            "members": members,
            "rounds": [[e.to_mapping() for e in events] for events in self.rounds],
        }
        if self.description:
            out["description"] = self.description
        return out | joining_mapping(self.joining)


_HISTORY_KEYS = {"topics", "members", "rounds", "description", "joining"}
_INITIAL_MEMBER_KEYS = {"topics", "rack"}
_EVENT_KEYS: Mapping[str, set[str]] = MappingProxyType(
    {
        "join": {"join", "topics", "rack"},
        "leave": {"leave"},
        "subscribe": {"subscribe", "topics"},
        "partitions": {"partitions", "count"},
        "create": {"create", "count"},
        "delete": {"delete"},
        "zombie": {"zombie", "rounds_ago"},
        "bounce": {"bounce"},
    }
)


def read_history(
    path: str | Path, *, max_partitions: int | None = MAX_PARTITIONS, max_members: int | None = MAX_MEMBERS
) -> History:
    """Read and check a history file (see :func:`history_from_mapping`)."""
    return history_from_mapping(
        read_json_file(path), source=str(path), max_partitions=max_partitions, max_members=max_members
    )


def check_size(
    history: History,
    *,
    source: str = "history",
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> None:
    """Refuse (one line) a history whose group, at some round, has more than ``max_partitions`` partitions
    in all or more than ``max_members`` members: each round solves its optimum and runs the assignor on it
    (the scenario format's limits)."""
    if max_partitions is None and max_members is None:
        return
    for group in _groups(history, source):
        where = "members" if group.round == 0 else f"rounds[{group.round - 1}]"
        check_members(len(group.seats), max_members, source, where)
        total = sum(group.topics.values())
        if max_partitions is not None and total > max_partitions:
            raise InputError(
                source,
                "topics" if group.round == 0 else f"rounds[{group.round - 1}]",
                f"{total:,} partitions in all at round {group.round}, more than the limit of {max_partitions:,} "
                "(raise it with --max-partitions if this machine has the memory)",
            )


def history_from_mapping(
    data: Any,
    *,
    source: str = "history",
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> History:
    """Check a decoded history document and build the :class:`History`.

    Raises
    ------
    InputError
        naming the field: a wrong shape or type (``rounds[1][0].count: must
        be an integer``), or an event that makes no sense where it stands
        (``rounds[2][0].leave: no member "m9" in the group at round 3``).
    """
    obj = unversioned(fields.expect_object(data, source, ""), "history", source)  # problem.formats
    fields.reject_unknown_keys(obj, _HISTORY_KEYS, source, "")
    fields.require_keys(obj, ("topics", "members", "rounds"), source)
    topics = []
    for name, value in fields.expect_object(obj["topics"], source, "topics").items():
        path = fields.field_path("topics", name)
        fields.expect_name(name, source, path)
        topics.append(topic_from_value(name, value, source, path))
    members = []
    members_obj = fields.expect_object(obj["members"], source, "members")
    check_members(len(members_obj), max_members, source)  # before anything per member is built
    for member_id, value in members_obj.items():
        path = fields.field_path("members", member_id)
        fields.expect_name(member_id, source, path)
        entry = fields.expect_object(value, source, path)
        fields.reject_unknown_keys(entry, _INITIAL_MEMBER_KEYS, source, path)
        if "topics" not in entry:
            raise InputError(source, path, 'missing key "topics"')
        members.append(
            Member(
                member_id,
                _subscription(entry["topics"], source, f"{path}.topics"),
                rack=_rack(entry.get("rack"), source, f"{path}.rack"),
            )
        )
    raw_rounds = obj["rounds"]
    if not isinstance(raw_rounds, list):
        raise InputError(source, "rounds", f"must be an array of rounds, got {fields.json_kind(raw_rounds)}")
    rounds = []
    for i, raw_events in enumerate(raw_rounds):
        path = f"rounds[{i}]"
        if not isinstance(raw_events, list):
            raise InputError(source, path, f"must be an array of events, got {fields.json_kind(raw_events)}")
        rounds.append(tuple(_event(e, source, f"{path}[{j}]") for j, e in enumerate(raw_events)))
    description = obj.get("description")
    if description is None:
        description = ""
    elif not isinstance(description, str):
        raise InputError(source, "description", f"must be a string, got {fields.json_kind(description)}")
    joining = read_joining(obj, [m.member_id for m in members], source)
    history = History(tuple(topics), tuple(members), tuple(rounds), description, joining)
    for _ in _groups(history, source):  # every event against the group it applies to
        pass
    check_size(history, source=source, max_partitions=max_partitions, max_members=max_members)
    return history


def _subscription(value: Any, source: str, path: str) -> frozenset[str]:
    if not isinstance(value, list):
        raise InputError(source, path, f"must be an array of topic names, got {fields.json_kind(value)}")
    if not value:
        raise InputError(source, path, "must name at least one topic (a consumer with no subscription does not join)")
    seen: list[str] = []
    for i, t in enumerate(value):
        name = fields.expect_name(t, source, f"{path}[{i}]")
        if name in seen:
            raise InputError(source, f"{path}[{i}]", f"topic {json.dumps(name)} is listed twice")
        seen.append(name)
    return frozenset(seen)


def _rack(value: Any, source: str, path: str) -> str | None:
    return None if value is None else fields.expect_name(value, source, path)


def _count(value: Any, source: str, path: str) -> int:
    count = fields.expect_integer(value, source, path, minimum=1)
    if count > fields.INT32_MAX:
        raise InputError(source, path, f"must fit Kafka's int32 partition count, got {count}")
    return count


def _event(value: Any, source: str, path: str) -> Event:
    obj = fields.expect_object(value, source, path)
    kinds = [k for k in EVENT_KINDS if k in obj]
    if not kinds:
        unknown = sorted(obj)
        names = ", ".join(EVENT_KINDS)
        if unknown:
            raise InputError(
                source, fields.field_path(path, unknown[0]), f"unknown key (an event names one kind: {names})"
            )
        raise InputError(source, path, f"must name one event kind ({names})")
    if len(kinds) > 1:
        first, second = json.dumps(kinds[0]), json.dumps(kinds[1])
        raise InputError(source, path, f"names two event kinds ({first} and {second}); one event per object")
    kind = kinds[0]
    fields.reject_unknown_keys(obj, _EVENT_KEYS[kind], source, path)
    for required in sorted(_EVENT_KEYS[kind] - {kind, "rack"}):
        if required not in obj:
            raise InputError(source, path, f"missing key {json.dumps(required)}")
    subject = fields.expect_name(obj[kind], source, f"{path}.{kind}")
    if kind == "join":
        return Join(
            subject,
            _subscription(obj["topics"], source, f"{path}.topics"),
            _rack(obj.get("rack"), source, f"{path}.rack"),
        )
    if kind == "leave":
        return Leave(subject)
    if kind == "subscribe":
        return SubscriptionChange(subject, _subscription(obj["topics"], source, f"{path}.topics"))
    if kind == "partitions":
        return CreatePartitions(subject, _count(obj["count"], source, f"{path}.count"))
    if kind == "create":
        return CreateTopic(subject, _count(obj["count"], source, f"{path}.count"))
    if kind == "delete":
        return DeleteTopic(subject)
    if kind == "zombie":
        return ZombieRejoin(subject, fields.expect_integer(obj["rounds_ago"], source, f"{path}.rounds_ago", minimum=1))
    return StaticBounce(subject)


# -- the group between events ----------------------------------------------------


@dataclass(frozen=True)
class _Seat:
    """A member of the group being built: what it subscribes to and whose
    assignment it claims (``claims_from``: a round index, ``None`` for none)."""

    topics: frozenset[str]
    rack: str | None
    claims_from: int | None


@dataclass(frozen=True)
class _Group:
    """The group of round ``round`` as events are applied to it.

    ``past[j]`` is the group of round ``j`` (for zombies: who was there,
    with which subscription).  Each :meth:`apply` returns a new group.
    """

    round: int
    topics: Mapping[str, int]
    seats: Mapping[str, _Seat]
    past: tuple[Mapping[str, _Seat], ...] = ()
    #: The member joining as this round rebalances: the history's at round 0, else the one the round's events
    #: added last (None: nobody; the next round starts with nobody joining).
    joining: str | None = None

    @classmethod
    def initial(cls, history: History, source: str) -> _Group:
        topics: dict[str, int] = {}
        for t in history.topics:
            if t.name in topics:
                raise InputError(source, fields.field_path("topics", t.name), "listed twice")
            topics[t.name] = t.partitions
        seats: dict[str, _Seat] = {}
        for m in history.members:
            if m.member_id in seats:
                raise InputError(source, fields.field_path("members", m.member_id), "listed twice")
            if m.owned or m.generation is not None:
                raise InputError(source, fields.field_path("members", m.member_id), "round 0 starts with no claims")
            seats[m.member_id] = _Seat(m.topics, m.rack, None)
        joining = read_joining(joining_mapping(history.joining), seats, source)  # a history built in code too
        return cls(0, MappingProxyType(topics), MappingProxyType(seats), joining=joining)

    def advance(self) -> _Group:
        """The next round: everyone present claims what it gets in this one."""
        seats = {m: replace(s, claims_from=self.round) for m, s in self.seats.items()}
        return _Group(self.round + 1, self.topics, MappingProxyType(seats), self.past + (self.seats,))

    def _with(
        self,
        *,
        topics: Mapping[str, int] | None = None,
        seats: Mapping[str, _Seat] | None = None,
        joining: str | None = None,
    ) -> _Group:
        return _Group(
            self.round,
            self.topics if topics is None else MappingProxyType(dict(topics)),
            self.seats if seats is None else MappingProxyType(dict(seats)),
            self.past,
            joining,
        )

    def apply(self, event: Event, source: str, path: str) -> _Group:
        """The group after ``event``; an event that makes no sense here is an :class:`InputError`.

        ``path`` is the event's position (``rounds[i][j]``); the error names
        the event's field at fault and the round.
        """
        if type(event) not in EVENT_KINDS.values():
            raise InputError(source, path, f"not an event: {type(event).__name__}")
        r = self.round
        seats, topics = dict(self.seats), dict(self.topics)
        present = set(seats)

        def fail(key: str, text: str) -> InputError:
            return InputError(source, f"{path}.{key}", text)

        member = getattr(event, "member_id", None)
        topic = getattr(event, "topic", None)
        q = json.dumps
        if isinstance(event, (Leave, SubscriptionChange, StaticBounce)) and member not in seats:
            raise fail(event.kind, f"no member {q(member)} in the group at round {r}")
        if isinstance(event, Join):
            if member in seats:
                raise fail(event.kind, f"member {q(member)} is already in the group at round {r}")
            seats[member] = _Seat(frozenset(event.topics), event.rack, None)
        elif isinstance(event, Leave):
            del seats[member]
        elif isinstance(event, SubscriptionChange):
            if seats[member].topics == frozenset(event.topics):
                raise fail("topics", f"member {q(member)} already subscribes to exactly these topics")
            seats[member] = replace(seats[member], topics=frozenset(event.topics))
        elif isinstance(event, StaticBounce):
            if seats[member].claims_from != r - 1:
                raise fail(
                    event.kind,
                    f"member {q(member)} has no claims to lose at round {r} "
                    "(it joined, rejoined or bounced in this round)",
                )
            seats[member] = replace(seats[member], claims_from=None)
        elif isinstance(event, ZombieRejoin):
            k = event.rounds_ago
            if k > r:
                raise fail("rounds_ago", f"round {r} has {r} earlier round(s), got {k}")
            then = self.past[r - k].get(member)
            if then is None:
                raise fail("rounds_ago", f"member {q(member)} was not in the group at round {r - k}")
            if member not in seats:
                seats[member] = _Seat(then.topics, then.rack, r - k)
            elif seats[member].claims_from != r - 1:
                raise fail(
                    event.kind,
                    f"member {q(member)} has no current claims for stale ones to replace "
                    f"at round {r} (it joined, rejoined or bounced in this round)",
                )
            elif k < 2:
                raise fail(
                    "rounds_ago",
                    f"member {q(member)} is in the group and its claims from 1 round ago "
                    "are current, not stale (use 2 or more)",
                )
            else:
                seats[member] = replace(seats[member], claims_from=r - k)
        elif isinstance(event, CreatePartitions):
            if topic not in topics:
                raise fail(event.kind, f'no topic {q(topic)} at round {r} (a new topic is a "create" event)')
            if event.count <= topics[topic]:
                raise fail(
                    "count",
                    f"partition counts only grow (Kafka cannot shrink a topic): "
                    f"{q(topic)} has {topics[topic]}, got {event.count}",
                )
            topics[topic] = event.count
        elif isinstance(event, CreateTopic):
            if topic in topics:
                raise fail(event.kind, f"topic {q(topic)} already exists at round {r}")
            topics[topic] = event.count
        else:  # DeleteTopic
            if topic not in topics:
                raise fail(event.kind, f"no topic {q(topic)} at round {r}")
            del topics[topic]
        # The member this event added joins last (Kafka's coordinator puts the heartbeating member after the
        # others); one that left is joining no more.
        added = [m for m in seats if m not in present]
        joining = added[-1] if added else (self.joining if self.joining in seats else None)
        return self._with(topics=topics, seats=seats, joining=joining)

    def problem(self, assignments: Sequence[Assignment]) -> Problem:
        """This round's rebalance in one trajectory: ``assignments[j]`` is what
        that trajectory assigned in round ``j``; claims carry generation ``j + 1``."""
        members = []
        for member_id in sorted(self.seats):
            seat = self.seats[member_id]
            owned: tuple = ()
            generation = None
            if seat.claims_from is not None:
                got = assignments[seat.claims_from].members.get(member_id, {})
                owned = tuple((t, tuple(ps)) for t, ps in sorted(got.items()) if len(ps))
                generation = seat.claims_from + 1
            members.append(Member(member_id, seat.topics, owned, generation, seat.rack))
        topics = tuple(Topic(name, self.topics[name]) for name in sorted(self.topics))
        return Problem(topics, tuple(members), joining=self.joining)


def _groups(history: History, source: str) -> Iterator[_Group]:
    """The group of each round after its events, checking every event."""
    group = _Group.initial(history, source)
    yield group
    for i, events in enumerate(history.rounds):
        group = group.advance()
        for j, event in enumerate(events):
            group = group.apply(event, source, f"rounds[{i}][{j}]")
        yield group


# -- simulation ----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Round:
    """One round of a simulation.

    Attributes
    ----------
    index:
        The round number (0 is the starting group).
    events:
        What happened before this rebalance (empty for round 0).
    problem, optimum, evaluation:
        The rebalance given the assignor's previous rounds, its optimum, and
        the assignor's row judged against it (:func:`compare.judge.evaluate.evaluate`).
    oracle_problem, oracle:
        The same round in the oracle trajectory (claims from the previous
        oracle round's optimum) and its optimum.
    cumulative_moved, cumulative_oracle_moved:
        ``moved`` and ``oracle_moved`` summed over rounds ``0 .. index``
        (``cumulative_moved`` is ``None`` in a round the assignor did not finish).
    """

    index: int
    events: tuple[Event, ...]
    problem: Problem
    optimum: Solution
    evaluation: Evaluation
    oracle_problem: Problem
    oracle: Solution
    cumulative_moved: int | None
    cumulative_oracle_moved: int

    @property
    def generation(self) -> int:
        """The generation this round's rebalance creates (claims in the next round carry it)."""
        return self.index + 1

    @property
    def finished(self) -> bool:
        """Did the assignor produce an assignment (valid or not)?"""
        return self.evaluation.verdict is not None

    @property
    def moved(self) -> int | None:
        """The assignor's revocations (``owned - retained``)."""
        return None if self.evaluation.verdict is None else self.evaluation.verdict.measures["moved"]

    @property
    def optimal_moved(self) -> int:
        """The fewest revocations of a most balanced assignment from the assignor's state."""
        return self.optimum.moved

    @property
    def oracle_moved(self) -> int:
        """Revocations in the oracle trajectory's round."""
        return self.oracle.moved

    @property
    def summary(self) -> str:
        """The events in one short line."""
        if self.index == 0:
            return "initial group"
        return "; ".join(e.summary() for e in self.events) or "(no events)"

    def row(self) -> dict:
        """One flat row for a per-round table (see :meth:`Simulation.rows`)."""
        e, v = self.evaluation, self.evaluation.verdict
        m = {} if v is None else v.measures
        condition = None if v is None or not v.valid else v.finding("kafka-local-condition")
        protocol_rebalances = e.rebalances if e.rebalances is not None else 1
        return {
            "round": self.index,
            "generation": self.generation,
            "events": self.summary,
            "members": len(self.problem.members),
            "partitions": self.problem.total_partitions,
            "status": e.status,
            "message": e.message,
            "valid": None if v is None else v.valid,
            "sorted_loads": None if v is None else list(m["sorted_loads"]),
            "optimal_sorted_loads": list(self.optimum.sorted_loads),
            "spread": None if v is None else m["spread"],
            "optimal_spread": spread(self.optimum.sorted_loads),
            "most_balanced": None if v is None else m["most_balanced"],
            "kafka_balance_condition": None if condition is None else condition.holds,
            "guarantee_kept": None if e.guarantee is None else e.guarantee.kept,
            "owned": self.optimum.owned,
            "retained": None if v is None else m["retained"],
            "optimal_retained": self.optimum.retained,
            "moved": self.moved,
            "optimal_moved": self.optimal_moved,
            "oracle_moved": self.oracle_moved,
            "cumulative_moved": self.cumulative_moved,
            "cumulative_oracle_moved": self.cumulative_oracle_moved,
            "rebalances": protocol_rebalances if self.finished else None,
        }

    def to_mapping(self, *, timing: bool = False) -> dict:
        e = self.evaluation
        oracle = self.oracle
        out: dict = {
            "round": self.index,
            "generation": self.generation,
            "events": [ev.to_mapping() for ev in self.events],
            "summary": self.summary,
            "members": len(self.problem.members),
            "partitions": self.problem.total_partitions,
            "missing_topics": {m: list(ts) for m, ts in self.problem.missing_topics.items()},
            "dropped_claims": [d.to_mapping() for d in self.optimum.network.claims.dropped],
            "evaluation": e.to_mapping(timing=timing),
            "assignment": None if e.assignment is None else e.assignment.to_mapping(self.problem.member_ids),
            "oracle_trajectory": {
                "assignment": oracle.assignment.to_mapping(self.oracle_problem.member_ids),
                "sorted_loads": list(oracle.sorted_loads),
                "owned": oracle.owned,
                "retained": oracle.retained,
                "moved": oracle.moved,
                "certified": _certified(self.oracle_problem, oracle),
                "same_state_as_assignor": self.oracle_problem == self.problem,
            },
            "cumulative_moved": self.cumulative_moved,
            "cumulative_oracle_moved": self.cumulative_oracle_moved,
        }
        if timing:
            out["optimum_wall_time_s"] = round(self.optimum.wall_time, 6)
            out["oracle_wall_time_s"] = round(oracle.wall_time, 6)
        return out


def _certified(problem: Problem, solution: Solution) -> bool:
    return solution.certificate is not None and not verify(
        problem, solution.assignment, solution.certificate, solution.network
    )


@dataclass(frozen=True, eq=False)
class Simulation:
    """An assignor played over a :class:`History`, one :class:`Round` per rebalance.

    ``rounds`` has ``len(history.rounds) + 1`` entries, unless the assignor
    stopped the simulation (``timeout`` or ``error``): then the last round is
    that one and :attr:`stopped` is its index.
    """

    history: History
    assignor: str
    rounds: tuple[Round, ...]
    time_limit: float | None = None

    @property
    def stopped(self) -> int | None:
        """The round where the assignor ended ``timeout`` or ``error``, if any."""
        last = self.rounds[-1] if self.rounds else None
        return last.index if last is not None and not last.finished else None

    @property
    def completed(self) -> bool:
        return self.stopped is None and len(self.rounds) == len(self.history.rounds) + 1

    def next_round(self, events: Sequence[Event]) -> Simulation:
        """A new simulation: this one with one more round (``events``, then a rebalance).

        For driving a simulation step by step (tests, notebooks).  Raises
        :class:`InputError` (source ``history``) for an event that makes no
        sense here, :class:`ValueError` if the simulation stopped.
        """
        if self.stopped is not None:
            raise ValueError(f"the simulation stopped at round {self.stopped} ({self.rounds[-1].evaluation.status})")
        if len(self.rounds) != len(self.history.rounds) + 1:
            raise ValueError("the simulation has not run every round of its history")
        history = replace(self.history, rounds=self.history.rounds + (tuple(events),))
        *_, group = _groups(history, "history")
        round_ = _play_round(group, history.rounds[-1], self.assignor, self.rounds, self.time_limit)
        return Simulation(history, self.assignor, self.rounds + (round_,), self.time_limit)

    def totals(self) -> dict:
        """Sums over the rounds run."""
        done = [r for r in self.rounds if r.finished]
        return {
            "rounds": len(self.rounds),
            "stopped_at": self.stopped,
            "moved": sum(r.moved for r in done),
            "optimal_moved": sum(r.optimal_moved for r in done),
            "oracle_moved": sum(r.oracle_moved for r in self.rounds),
            "rounds_valid": sum(1 for r in done if r.evaluation.verdict.valid),
            "rounds_most_balanced": sum(1 for r in done if r.evaluation.verdict.measures["most_balanced"]),
            "rounds_guarantee_kept": sum(1 for r in done if r.evaluation.guarantee.kept),
            "rebalances": sum(r.row()["rebalances"] for r in done),
        }

    def rows(self) -> list[dict]:
        """One flat dict per round, for a table (keys in ``docs/churn.md``)."""
        return [r.row() for r in self.rounds]

    def to_mapping(self, *, timing: bool = False) -> dict:
        """The JSON document of the simulation; without ``timing`` the same
        history and assignor always give the same bytes (through
        :func:`problem.scenario_json.dumps`)."""
        assignor = get_assignor(self.assignor)
        last = self.rounds[-1] if self.rounds else None
        return {
            "assignor": self.assignor,
            "protocol": assignor.protocol,
            "guarantee": assignor.guarantee,
            "description": self.history.description,
            "history": self.history.to_mapping(),
            "rounds": [r.to_mapping(timing=timing) for r in self.rounds],
            "stopped": None
            if self.stopped is None
            else {
                "round": self.stopped,
                "status": last.evaluation.status,
                "message": last.evaluation.message,
            },
            "totals": self.totals(),
        }


def simulate(
    history: History,
    assignor: str | Assignor,
    *,
    time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> Simulation:
    """Play ``history`` with ``assignor`` (a name, or any :class:`~heuristics.Assignor`; see the module docstring).

    Each round's scenario carries the previous round's result as owned
    partitions with the next generation, as Kafka's group protocol delivers
    them, so an external command (``external:...``) sees the same history.

    ``time_limit`` (seconds) bounds each round's assignor run
    (:func:`compare.judge.evaluate.evaluate`); the oracle is exact and unbounded.
    ``progress``, if given, is called with ``"round K of N"`` before each
    round is played (the command line's progress bar).

    Raises
    ------
    heuristics.UnknownAssignor
        if no assignor has that name (before any work).
    InputError
        for an event that makes no sense where it stands (source ``history``).
    ValueError
        for a time limit that is not a positive number.

    Examples
    --------
    >>> h = history_from_mapping({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}},
    ...                           "rounds": [[{"join": "b", "topics": ["t"]}]]})
    >>> s = simulate(h, "sticky")
    >>> [(r["round"], r["events"], r["sorted_loads"], r["moved"], r["oracle_moved"]) for r in s.rows()]
    [(0, 'initial group', [3], 0, 0), (1, 'join b', [2, 1], 1, 1)]
    """
    if isinstance(assignor, str):
        get_assignor(assignor)
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit}")
    groups = list(_groups(history, "history"))  # every event checked before any work
    rounds: list[Round] = []
    resolved = get_assignor(assignor) if isinstance(assignor, str) else assignor
    try:
        for index, group in enumerate(groups):
            events = history.rounds[index - 1] if index else ()
            if progress is not None:
                progress(f"round {index} of {len(groups) - 1}")
            round_ = _play_round(group, events, assignor, rounds, time_limit)
            rounds.append(round_)
            if not round_.finished:
                break
    finally:
        if is_live(resolved):  # a live group plays every round, then stops
            resolved.assign.close()
    return Simulation(history, assignor if isinstance(assignor, str) else assignor.name, tuple(rounds), time_limit)


def _play_round(
    group: _Group,
    events: tuple[Event, ...],
    assignor: str | Assignor,
    earlier: Sequence[Round],
    time_limit: float | None,
) -> Round:
    """One rebalance in both trajectories, judged."""
    problem = group.problem([r.evaluation.assignment for r in earlier])
    oracle_problem = group.problem([r.oracle.assignment for r in earlier])
    optimum = solve(problem)
    # Where the assignor has matched the oracle so far the two states are equal: solve once.
    oracle = optimum if oracle_problem == problem else solve(oracle_problem)
    evaluation = evaluate(problem, assignor, optimum=optimum, time_limit=time_limit, keep_live=True)
    if evaluation.judged_problem is not None:  # a live group could not take these claims: its own state instead
        problem, optimum = evaluation.judged_problem, evaluation.judged_optimum
    previous = earlier[-1] if earlier else None
    moved = evaluation.verdict.measures["moved"] if evaluation.verdict is not None else None
    cumulative = None if moved is None else moved + (previous.cumulative_moved if previous else 0)
    return Round(
        index=group.round,
        events=tuple(events),
        problem=problem,
        optimum=optimum,
        evaluation=evaluation,
        oracle_problem=oracle_problem,
        oracle=oracle,
        cumulative_moved=cumulative,
        cumulative_oracle_moved=oracle.moved + (previous.cumulative_oracle_moved if previous else 0),
    )


# -- random histories ------------------------------------------------------------

#: How often each kind is drawn, when it can apply (joins and leaves dominate real churn).
_WEIGHTS: Mapping[str, int] = MappingProxyType(
    {"join": 3, "leave": 3, "subscribe": 2, "partitions": 1, "create": 1, "delete": 1, "zombie": 2, "bounce": 2}
)


def random_history(
    seed: int,
    *,
    members: int = 3,
    topics: int = 2,
    partitions: int = 4,
    rounds: int = 6,
    events_per_round: int = 2,
) -> History:
    """A random, valid history, the same for the same arguments.

    The starting group has ``members`` members (``m0``, ``m1``, ...) and
    ``topics`` topics (``t0``, ...) of 1 to ``partitions`` partitions; half
    the members subscribe to every topic, the others to a random non-empty
    subset.  Each of ``rounds`` rounds draws 1 to ``events_per_round``
    events, each kind weighted (joins and leaves most often) among the kinds
    that can apply at that point:

    * a join takes a fresh id (``m3``, ...) and either an existing member's
      subscription or a random one; at most ``2 * members + 2`` members;
    * a leave needs two members (the group never empties);
    * a subscription change picks a different non-empty set of existing topics;
    * partitions grow by 1 to ``max(1, partitions // 2)``;
    * a topic is created (fresh name, 1 to ``partitions`` partitions; at most
      ``2 * topics`` topics) or deleted (at least one stays);
    * a zombie is a member that was in an earlier round, with claims at
      least one round old if it is absent now and two if it is present
      (absent members are preferred: they are the KAFKA-7026 case);
    * a bounce picks a member that was in the previous round.

    Everything is drawn from ``random.Random(seed)`` over sorted lists.
    """
    for name, value, least in (
        ("members", members, 1),
        ("topics", topics, 1),
        ("partitions", partitions, 1),
        ("rounds", rounds, 0),
        ("events_per_round", events_per_round, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"random_history: {name} must be an integer >= {least}, got {value!r}")
    rng = random.Random(seed)
    topic_names = [f"t{i}" for i in range(topics)]
    initial_topics = tuple(Topic(t, rng.randint(1, partitions)) for t in topic_names)

    def subset(names: list[str]) -> frozenset[str]:
        chosen = [t for t in names if rng.random() < 0.5]
        return frozenset(chosen or [rng.choice(names)])

    initial_members = tuple(
        Member(f"m{i}", frozenset(topic_names) if rng.random() < 0.5 else subset(topic_names)) for i in range(members)
    )
    history = History(initial_topics, initial_members)
    group = _Group.initial(history, "random_history")
    fresh_member, fresh_topic = members, topics
    all_rounds: list[tuple[Event, ...]] = []
    for _ in range(rounds):
        group = group.advance()
        events: list[Event] = []
        for _ in range(rng.randint(1, events_per_round)):
            event = _draw_event(rng, group, members, topics, partitions, fresh_member, fresh_topic, subset)
            if isinstance(event, Join):
                fresh_member += 1
            elif isinstance(event, CreateTopic):
                fresh_topic += 1
            group = group.apply(event, "random_history", f"rounds[{len(all_rounds)}][{len(events)}]")
            events.append(event)
        all_rounds.append(tuple(events))
    return History(initial_topics, initial_members, tuple(all_rounds), f"random_history(seed={seed!r})")


def _draw_event(
    rng: random.Random,
    group: _Group,
    members: int,
    topics: int,
    partitions: int,
    fresh_member: int,
    fresh_topic: int,
    subset,
) -> Event:
    r = group.round
    present = sorted(group.seats)
    existing = sorted(group.topics)
    options: dict[str, Any] = {}
    if len(present) < 2 * members + 2:
        options["join"] = None
    if len(present) >= 2:
        options["leave"] = None
    if existing and present:
        options["subscribe"] = None
    if existing:
        options["partitions"] = None
    if len(existing) < 2 * topics:
        options["create"] = None
    if len(existing) >= 2:
        options["delete"] = None
    absent_zombies = [(j, m) for j in range(r) for m in sorted(group.past[j]) if m not in group.seats]
    present_zombies = [
        (j, m)
        for j in range(r - 1)
        for m in sorted(group.past[j])
        if m in group.seats and group.seats[m].claims_from == r - 1
    ]
    if absent_zombies or present_zombies:
        options["zombie"] = None
    bounceable = [m for m in present if group.seats[m].claims_from == r - 1]
    if bounceable:
        options["bounce"] = None
    kinds = sorted(options)
    kind = rng.choices(kinds, weights=[_WEIGHTS[k] for k in kinds])[0]

    if kind == "join":
        if present and existing and rng.random() < 0.5:
            wanted = group.seats[rng.choice(present)].topics
        else:
            wanted = subset(existing) if existing else frozenset(["t0"])
        return Join(f"m{fresh_member}", wanted)
    if kind == "leave":
        return Leave(rng.choice(present))
    if kind == "subscribe":
        member = rng.choice(present)
        current = group.seats[member].topics
        wanted = subset(existing)
        if wanted == current:
            # Flip one topic in or out, keeping the set non-empty; if no other set of
            # existing topics is possible (a single topic, already subscribed), grow
            # partitions instead.
            flip = rng.choice(existing)
            wanted = current - {flip} if flip in current else current | {flip}
            if not wanted or wanted == current:
                others = [t for t in existing if t not in current]
                if not others:
                    return _grow(rng, group, existing, partitions)
                wanted = current | {rng.choice(others)}
        return SubscriptionChange(member, frozenset(wanted))
    if kind == "partitions":
        return _grow(rng, group, existing, partitions)
    if kind == "create":
        return CreateTopic(f"t{fresh_topic}", rng.randint(1, partitions))
    if kind == "delete":
        return DeleteTopic(rng.choice(existing))
    if kind == "zombie":
        pool = absent_zombies if absent_zombies and (not present_zombies or rng.random() < 0.75) else present_zombies
        j, member = rng.choice(pool)
        return ZombieRejoin(member, r - j)
    return StaticBounce(rng.choice(bounceable))


def _grow(rng: random.Random, group: _Group, existing: list[str], partitions: int) -> CreatePartitions:
    topic = rng.choice(existing)
    return CreatePartitions(topic, group.topics[topic] + rng.randint(1, max(1, partitions // 2)))


def simulation_text(result: Simulation) -> str:
    """The per-round table ``simulate`` prints."""
    header = (
        "round",
        "status",
        "sorted loads",
        "most bal.",
        "local cond.",
        "retained/opt",
        "moved",
        "oracle moved",
        "cum. moved/oracle",
        "rebal.",
        "events",
    )
    rows = []
    for row in result.rows():
        loads = row.get("sorted_loads")
        rows.append(
            (
                str(row["round"]),
                row["status"],
                "-" if loads is None else short_list(loads),
                yes(row.get("most_balanced")),
                {True: "holds", False: "broken", None: "-"}[row.get("kafka_balance_condition")],
                f"{cell(row.get('retained'))}/{cell(row.get('optimal_retained'))}",
                cell(row.get("moved")),
                cell(row.get("oracle_moved")),
                f"{cell(row.get('cumulative_moved'))}/{cell(row.get('cumulative_oracle_moved'))}",
                "-" if row.get("rebalances") is None else str(row["rebalances"]),
                row["events"] or "(start)",
            )
        )
    lines = table(header, rows)
    totals = result.totals()
    lines.append(
        f"{result.assignor}: moved {totals['moved']} partitions over {totals['rounds']} rounds; "
        f"the oracle's own trajectory moved {totals['oracle_moved']}"
        + ("" if result.completed else f"; stopped at round {result.stopped}")
    )
    return lines_text(lines)
