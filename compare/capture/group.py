"""A captured group: what the cluster said about it, and the scenario and candidate assignment it makes.

Guarantee: the scenario is the input the group's assignor saw, as far as the cluster reports it, written
in this project's scenario format (docs/formats.md) and validated by the format's own reader before a
:class:`Capture` exists; the candidate is the assignment that assignor produced; nothing is guessed
without a note saying so (:attr:`Capture.notes`).

One small model per kind of group, each a record of what its describe API returns (Kafka's names):

* classic groups (``DescribeGroups``, the ``ConsumerProtocolSubscription`` each member joined with):
  the scenario's ``owned`` and ``generation`` are what the chosen assignor reads, as Kafka's assignors
  read them at apache/kafka d79bd50 -- ``sticky`` from its user data (``StickyAssignor.memberData``: an
  eager member revokes everything before it joins, so its owned partitions travel in the user data),
  ``cooperative-sticky`` from the owned partitions with the subscription's generation (v2+) or else its
  user data's (``CooperativeStickyAssignor.memberData``), every other assignor from the owned partitions
  and the subscription's generation; the candidate is each member's assignment;
* KIP-848 consumer groups (``ConsumerGroupDescribe``): the server-side assignor computes a target from the
  previous target, which no API returns; the scenario's ``owned`` is what each member holds now (at its
  member epoch, written as the generation), the candidate the target assignment;
* Streams groups (``StreamsGroupDescribe``, KIP-1071): subtopologies with their task counts (the largest
  partition count of their source and repartition source topics, Kafka's ``maxNumInputPartitions``),
  stateful when they have changelog topics; each member's current tasks and task offsets; the group's
  ``streams.num.standby.replicas`` and ``streams.rack.aware.assignment.tags`` configs; the candidate the
  target tasks;
* share groups (``ShareGroupDescribe``, KIP-932; ``problem/share.py``'s scenario): subscriptions (topics
  the cluster lacks left out, with a note: Kafka's assignor has no metadata for them), racks, and what each
  member holds now, which is also the candidate (no target is reported); every partition is taken as
  assignable (share state initialised), which the describe does not say.

Topics come from Metadata (partition counts, replicas, topic ids as Kafka's ``Uuid.toString()``), and the
replicas' racks from the brokers' racks (DescribeCluster).  Subscribed topics the cluster does not have
are left out of ``topics``, as the scenario format tolerates (``missing_topics``).
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.json_fields import Listed
from assignment_oracle.problem.load import load_scenario
from assignment_oracle.problem.scenario_json import dumps, write_output

__all__ = [
    "Capture",
    "ClassicMember",
    "ConsumerMember",
    "DescribedMember",
    "GroupDescription",
    "PORTS",
    "ShareMember",
    "StreamsMember",
    "Subtopology",
    "TopicMeta",
    "candidate_path",
    "capture_from",
    "kafka_uuid_text",
]

#: The kinds of group (the describe API that reads each).
KINDS = ("classic", "consumer", "streams", "share")

#: Kafka's name of a group's assignor -> this project's registered port of it, per kind of group.
PORTS: Mapping[str, Mapping[str, str]] = {
    "classic": {
        "range": "range",
        "roundrobin": "roundrobin",
        "sticky": "kafka4-sticky",
        "cooperative-sticky": "kafka4-cooperative-sticky",
    },
    "consumer": {"uniform": "uniform", "range": "server-range"},
    "streams": {"sticky": "streams-sticky"},
    "share": {},
}

#: Kafka's topic id meaning "none" (``Uuid.ZERO_UUID``).
_ZERO_ID = "AAAAAAAAAAAAAAAAAAAAAA"


def kafka_uuid_text(raw: bytes) -> str | None:
    """A topic id's 16 bytes as Kafka's ``Uuid.toString()`` prints it (URL-safe base64, no padding);
    ``None`` for the zero id (no id)."""
    text = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    return None if text == _ZERO_ID else text


@dataclass(frozen=True)
class TopicMeta:
    """One topic as the cluster's metadata describes it."""

    partitions: int
    #: Each partition's replicas (broker ids), or ``None`` when not known (a text without them).
    replicas: tuple[tuple[int, ...], ...] | None = None
    #: Kafka's topic id (``Uuid.toString()``), or ``None``.
    topic_id: str | None = None


@dataclass(frozen=True)
class DescribedMember:
    """Who a described member is (classic, KIP-848 and Streams groups; its fields come first in each):
    its member id, the client id and host it connected with, and its ``group.instance.id`` (``None``:
    not a static member)."""

    member_id: str
    client_id: str
    client_host: str
    instance_id: str | None


@dataclass(frozen=True)
class ClassicMember(DescribedMember):
    """A classic group's member (``DescribeGroups``), its ``ConsumerProtocolSubscription`` decoded."""

    topics: tuple[str, ...]
    owned: Mapping[str, tuple[int, ...]]
    #: The subscription's generation (v2+), ``-1`` when absent.
    generation: int
    rack: str | None
    user_data: bytes | None
    #: The ``ConsumerProtocolSubscription`` version the member joined with.
    subscription_version: int
    assignment: Mapping[str, tuple[int, ...]]
    assignment_user_data: bytes | None = None
    #: The StickyAssignor's previous assignment and generation from ``user_data`` (``None``: not read).
    sticky_user_data: tuple[Mapping[str, tuple[int, ...]], int | None] | None = None


@dataclass(frozen=True)
class ConsumerMember(DescribedMember):
    """A KIP-848 consumer group's member (``ConsumerGroupDescribe``)."""

    rack: str | None
    epoch: int
    topics: tuple[str, ...]
    regex: str | None
    assignment: Mapping[str, tuple[int, ...]]
    target: Mapping[str, tuple[int, ...]]
    #: -1 unknown, 0 a classic member of a consumer group (migration), 1 a consumer member (KIP-1099).
    member_type: int = -1


@dataclass(frozen=True)
class Subtopology:
    """A Streams group's subtopology as ``StreamsGroupDescribe`` reports it."""

    subtopology_id: str
    source_topics: tuple[str, ...]
    #: Repartition source topics with the partition count the topology sets (0: none set).
    repartition_source_topics: tuple[tuple[str, int], ...] = ()
    changelog_topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class StreamsMember(DescribedMember):
    """A Streams group's member (``StreamsGroupDescribe``); tasks as role -> subtopology -> partitions."""

    rack: str | None
    epoch: int
    process_id: str
    client_tags: Mapping[str, str]
    task_offsets: Mapping[str, Mapping[int, int]]
    task_end_offsets: Mapping[str, Mapping[int, int]]
    current: Mapping[str, Mapping[str, tuple[int, ...]]]
    target: Mapping[str, Mapping[str, tuple[int, ...]]]
    is_classic: bool = False


@dataclass(frozen=True)
class ShareMember:
    """A share group's member (``ShareGroupDescribe``)."""

    member_id: str
    client_id: str
    client_host: str
    rack: str | None
    epoch: int
    topics: tuple[str, ...]
    assignment: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class GroupDescription:
    """One group as its describe API returned it, before it is a scenario."""

    group_id: str
    kind: str
    state: str
    #: The assignor's name as Kafka gives it (a classic group: the protocol its members chose).
    assignor: str | None
    members: tuple
    epoch: int | None = None
    assignment_epoch: int | None = None
    subtopologies: tuple[Subtopology, ...] | None = None
    #: A group's configs read (``streams.num.standby.replicas``, ...): key -> value.
    configs: Mapping[str, str] = field(default_factory=dict)
    #: Where it was read: ``bootstrap HOST:PORT`` or the files of the offline path.
    source: str = ""

    def topic_names(self) -> tuple[str, ...]:
        """Every topic the members name (subscriptions, assignments, owned partitions, source topics)."""
        names: set[str] = set()
        for m in self.members:
            names.update(getattr(m, "topics", ()))
            for table in ("owned", "assignment", "target"):
                names.update(getattr(m, table, {}) or {})
            sticky = getattr(m, "sticky_user_data", None)
            if sticky is not None:
                names.update(sticky[0])
        for s in self.subtopologies or ():
            names.update(s.source_topics)
            names.update(n for n, _ in s.repartition_source_topics)
        return tuple(sorted(names))


@dataclass(frozen=True)
class Capture:
    """A captured group: the scenario its assignor saw, the assignment it made, and what else was said.

    ``scenario`` and ``assignment`` are documents in this project's formats (the scenario validated by
    the format's reader when the capture was made); ``group`` holds what the cluster reported beyond the
    scenario (state, epochs, per member its client id, host, epochs, user data in base64, the current
    assignment where the candidate is a target); ``notes`` say every inference made.
    """

    group: str
    kind: str
    state: str
    assignor: str | None
    #: This project's registered port of ``assignor`` (``None``: none).
    port: str | None
    scenario: Mapping[str, Any]
    assignment: Mapping[str, Any]
    details: Mapping[str, Any]
    source: str
    notes: tuple[str, ...] = ()

    def problem(self):
        """The scenario as this project's model, of the group's kind (problem.kinds)."""
        return load_scenario(dict(self.scenario), max_partitions=None)

    def candidate(self) -> dict[str, Any]:
        """The candidate document ``check``, ``compare`` and ``explain`` read (its ``assignment`` key), with
        the group's assignor and the capture's record."""
        return {
            "assignment": self.assignment,
            "assignor": self.assignor,
            "port": self.port,
            "capture": {
                "group": self.group,
                "kind": self.kind,
                "state": self.state,
                "source": self.source,
                "notes": list(self.notes),
                **self.details,
            },
        }

    def write(self, scenario_path: str, candidate: str | None = None) -> str:
        """Write the scenario to ``scenario_path`` and the candidate beside it (:func:`candidate_path`, or
        ``candidate``), each atomically in canonical bytes; the candidate's path is returned."""
        target = candidate or candidate_path(scenario_path)
        write_output(scenario_path, dumps(versioned("scenario", self.scenario)))
        write_output(target, dumps(versioned("assignment", self.candidate())), inputs=(scenario_path,))
        return target


def candidate_path(scenario_path: str) -> str:
    """Where the candidate goes beside a scenario: ``orders.json`` -> ``orders.assignment.json``."""
    root, ext = os.path.splitext(scenario_path)
    return f"{root}.assignment{ext or '.json'}"


# -- the scenario of each kind ----------------------------------------------------------------------------


def capture_from(
    description: GroupDescription,
    topics: Mapping[str, TopicMeta],
    broker_racks: Mapping[int, str | None] | None = None,
    *,
    notes: Iterable[str] = (),
) -> Capture:
    """The :class:`Capture` of a described group, its topics and the brokers' racks (broker id -> rack).

    Raises
    ------
    InputError
        The group cannot be judged as captured: dead, empty, a classic group whose
        protocol is not the consumer's (Kafka Connect, Streams before KIP-1071), or a document the
        scenario reader refuses (named field).
    """
    group = description.group_id
    if description.state == "Dead":
        raise InputError(group, "", "the group is dead (no members; the coordinator is removing it)")
    if not description.members:
        state = f" (state {description.state})" if description.state else ""
        raise InputError(group, "", f"the group has no members{state}: no assignment to judge")
    builder = {"classic": _classic, "consumer": _consumer, "streams": _streams, "share": _share}[description.kind]
    scenario, assignment, details, more = builder(description, topics, broker_racks or {})
    capture = Capture(
        group=group,
        kind=description.kind,
        state=description.state,
        assignor=description.assignor,
        port=PORTS[description.kind].get(description.assignor or ""),
        scenario=scenario,
        assignment=assignment,
        details=details,
        source=description.source,
        notes=(*notes, *more),
    )
    capture.problem()  # validated once, here: a document the reader refuses is one line naming the field
    return capture


def _topics(names: Iterable[str], topics: Mapping[str, TopicMeta], broker_racks: Mapping[int, str | None]) -> dict:
    """The scenario's ``topics``: each topic the cluster has, with its replicas' racks where any broker has a
    rack, and its id."""
    any_rack = any(rack for rack in broker_racks.values())
    out: dict[str, Any] = {}
    for name in sorted(set(names)):
        meta = topics.get(name)
        if meta is None:
            continue
        entry: dict[str, Any] = {"partitions": meta.partitions}
        if any_rack and meta.replicas is not None:
            entry["racks"] = [[broker_racks[b] for b in replicas if broker_racks.get(b)] for replicas in meta.replicas]
        if meta.topic_id is not None:
            entry["id"] = meta.topic_id
        out[name] = entry if len(entry) > 1 else meta.partitions
    return out


def _partitions(table: Mapping[str, Iterable[int]]) -> dict[str, list[int]]:
    """A member's partitions as the formats write them: topics sorted, partitions sorted, empty lists left out."""
    return {t: sorted(set(ps)) for t, ps in sorted(table.items()) if ps}


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(bytes(data)).decode()


def _classic(description: GroupDescription, topics, broker_racks):
    assignor = description.assignor or ""
    members: dict[str, Any] = {}
    assignment: dict[str, Any] = {}
    details: dict[str, Any] = {}
    notes: list[str] = []
    for m in description.members:
        owned, generation = _classic_claims(assignor, m)
        known = generation if generation is not None and generation >= 0 else None
        members[m.member_id] = _consumer_member(m.topics, owned, known, m.rack, m.instance_id)
        assignment[m.member_id] = _partitions(m.assignment)
        details[m.member_id] = {
            "client_id": m.client_id,
            "client_host": m.client_host,
            "subscription_version": m.subscription_version,
            "owned_partitions": _partitions(m.owned),
            "generation": m.generation,
            "user_data": _b64(m.user_data),
            "assignment_user_data": _b64(m.assignment_user_data),
        }
    if assignor == "sticky":
        notes.append(
            "owned partitions and generations from the StickyAssignor's user data, as Kafka's sticky reads them"
        )
    scenario = _consumer_scenario(members, topics, broker_racks)
    return scenario, assignment, {"members": details, "protocol_type": "consumer"}, notes


def _consumer_member(topics, owned: dict, generation: int | None, rack: str | None, instance_id: str | None) -> dict:
    """A consumer group member as the scenario writes it: its topics sorted, then ``owned`` when it holds
    something, ``generation`` when known, ``rack`` when it has one and ``instance_id`` when it is static."""
    entry: dict[str, Any] = {"topics": sorted(topics)}
    if owned:
        entry["owned"] = owned
    if generation is not None:
        entry["generation"] = generation
    if rack:
        entry["rack"] = rack
    if instance_id is not None:
        entry["instance_id"] = instance_id
    return entry


def _consumer_scenario(members: dict[str, Any], topics, broker_racks) -> dict:
    """A consumer group's scenario: every topic a member subscribes to or owns (:func:`_topics`), the members."""
    names = {t for e in members.values() for t in e["topics"]}
    names |= {t for e in members.values() for t in e.get("owned", {})}
    return {"topics": _topics(names, topics, broker_racks), "members": members}


def _classic_claims(assignor: str, m: ClassicMember) -> tuple[dict[str, list[int]], int | None]:
    """What the group's assignor reads as a member's owned partitions and generation (module docstring)."""
    if assignor == "sticky":
        if m.sticky_user_data is None:
            return {}, None
        previous, generation = m.sticky_user_data
        return _partitions(previous), generation
    generation: int | None = m.generation if m.generation >= 0 else None
    if assignor == "cooperative-sticky" and generation is None and m.sticky_user_data is not None:
        generation = m.sticky_user_data[1]
    return _partitions(m.owned), generation


def _consumer(description: GroupDescription, topics, broker_racks):
    members: dict[str, Any] = {}
    assignment: dict[str, Any] = {}
    details: dict[str, Any] = {}
    notes = [
        "KIP-848: owned partitions are what each member holds now (its member epoch as the generation); the candidate is the target assignment"
    ]
    for m in description.members:
        held = _partitions(m.assignment)
        members[m.member_id] = _consumer_member(m.topics, held, m.epoch if held else None, m.rack, m.instance_id)
        assignment[m.member_id] = _partitions(m.target)
        details[m.member_id] = {
            "client_id": m.client_id,
            "client_host": m.client_host,
            "member_epoch": m.epoch,
            "member_type": m.member_type,
            "subscribed_topic_regex": m.regex,
            "assignment": held,
        }
        if m.regex is not None:
            notes.append(
                f"member {m.member_id} subscribes by regex; its subscription is the topics the coordinator resolved"
            )
    scenario = _consumer_scenario(members, topics, broker_racks)
    group_details = {"group_epoch": description.epoch, "assignment_epoch": description.assignment_epoch}
    return scenario, assignment, {"members": details, **group_details}, notes


#: The Streams roles as the scenario names them.
_ROLES = ("active", "standby", "warmup")


def _streams(description: GroupDescription, topics, broker_racks):
    notes: list[str] = []
    subtopologies: dict[str, Any] = {}
    for s in description.subtopologies or ():
        counts = [topics[t].partitions for t in s.source_topics if t in topics]
        counts += [k if k > 0 else topics[n].partitions for n, k in s.repartition_source_topics if k > 0 or n in topics]
        if not counts:
            raise InputError(
                description.group_id,
                f"subtopology {s.subtopology_id}",
                "none of its source topics exists in the cluster",
            )
        subtopologies[s.subtopology_id] = {"tasks": max(counts), "stateful": bool(s.changelog_topics)}
    configs = description.configs
    standbys = configs.get("streams.num.standby.replicas")
    tags = configs.get("streams.rack.aware.assignment.tags")
    members: dict[str, Any] = {}
    assignment: dict[str, Any] = {}
    details: dict[str, Any] = {}
    for m in description.members:
        entry: dict[str, Any] = {"process": m.process_id}
        if m.instance_id is not None:
            entry["instance_id"] = m.instance_id
        if m.rack:
            entry["rack"] = m.rack
        if m.client_tags:
            entry["client_tags"] = dict(sorted(m.client_tags.items()))
        for role in _ROLES:
            held = _partitions(m.current.get(role, {}))
            if held:
                entry[role] = held
        for key, table in (("task_offsets", m.task_offsets), ("task_end_offsets", m.task_end_offsets)):
            rows = {s: {str(p): o for p, o in sorted(row.items())} for s, row in sorted(table.items()) if row}
            if rows:
                entry[key] = rows
        members[m.member_id] = entry
        assignment[m.member_id] = {role: _partitions(m.target.get(role, {})) for role in ("active", "standby")}
        details[m.member_id] = {
            "client_id": m.client_id,
            "client_host": m.client_host,
            "member_epoch": m.epoch,
            "is_classic": m.is_classic,
            "target_warmup": _partitions(m.target.get("warmup", {})),
        }
    scenario: dict[str, Any] = {"kind": "streams", "subtopologies": subtopologies, "members": members}
    if standbys is not None:
        try:
            scenario["standby_replicas"] = int(standbys)
        except ValueError:
            raise InputError(
                description.group_id, "streams.num.standby.replicas", f"not an integer: {standbys!r}"
            ) from None
    else:
        notes.append("streams.num.standby.replicas not readable: taken as 0")
    if tags:
        scenario["rack_aware_tags"] = [t.strip() for t in tags.split(",") if t.strip()]
    group_details = {"group_epoch": description.epoch, "assignment_epoch": description.assignment_epoch}
    return scenario, {"members": assignment}, {"members": details, **group_details}, notes


def _share(description: GroupDescription, topics, broker_racks):
    notes = [
        "share group: every partition taken as assignable (share state initialised; ShareGroupDescribe does not say)",
        "share group: the candidate is the current assignment (ShareGroupDescribe returns no target)",
    ]
    # The members in the order the coordinator listed them, written so (Java's order of memberIds() depends on it).
    members: dict[str, Any] = Listed()
    details: dict[str, Any] = {}
    for m in description.members:
        missing = sorted(t for t in m.topics if t not in topics)
        if missing:
            notes.append(f"member {m.member_id} subscribes to {', '.join(missing)}, not in the cluster: left out")
        entry: dict[str, Any] = {"topics": sorted(t for t in m.topics if t in topics)}
        if m.rack:
            entry["rack"] = m.rack
        held = _partitions({t: ps for t, ps in m.assignment.items() if t in topics})
        if held:
            entry["assigned"] = held
        members[m.member_id] = entry
        details[m.member_id] = {"client_id": m.client_id, "client_host": m.client_host, "member_epoch": m.epoch}
    names = {t for e in members.values() for t in e["topics"]} | {
        t for e in members.values() for t in e.get("assigned", {})
    }
    share_topics: dict[str, Any] = {}
    for name in sorted(names):
        meta = topics[name]
        share_topics[name] = {"partitions": meta.partitions, "id": meta.topic_id} if meta.topic_id else meta.partitions
    scenario = {"kind": "share", "topics": share_topics, "members": members}
    assignment = {m: e.get("assigned", {}) for m, e in members.items()}
    group_details = {"group_epoch": description.epoch, "assignment_epoch": description.assignment_epoch}
    return scenario, assignment, {"members": details, **group_details}, notes
