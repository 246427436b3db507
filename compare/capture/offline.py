"""Capture a group from what Kafka's tools printed, for operators who cannot reach the cluster from here.

Guarantee: every value is read from the tools' text exactly as apache/kafka d79bd50 prints it (the
sources cited below); a text that is not what those tools print is one line naming the file and the
line; what the text does not hold (subscriptions, owned partitions, racks) is never made up without a
:attr:`Capture.notes` line saying what was assumed.

The texts:

* ``kafka-consumer-groups.sh --describe --group G --members --verbose``
  (``tools/.../consumer/group/ConsumerGroupCommand.java``, ``printMembers``): a blank line, a header
  line ``GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT
  TARGET-EPOCH TARGET-ASSIGNMENT [UPGRADED]``, one line per member; every column is padded to its widest
  value (``%-Ns``), so the header's labels give each column's start and a value may hold spaces (a
  client id).  Assignments are ``topic:p,p;topic:p`` (``getAssignmentString``), ``-`` when empty;
  epochs are ``-`` for a classic group.  The same file may also hold the output of ``--describe --state
  --verbose`` (``printStates``: ``GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE GROUP-EPOCH
  TARGET-ASSIGNMENT-EPOCH #MEMBERS``), which names the assignor and the state, and the tool's
  messages (``Consumer group 'G' does not exist.``, ``... has no active members.``, ``Warning:
  Consumer group 'G' is rebalancing.``).
* ``kafka-topics.sh --describe`` (``tools/.../TopicCommand.java``, ``TopicDescription.printDescription``
  and ``PartitionDescription.printDescription``): per topic ``Topic: T<TAB>TopicId: ID<TAB>
  PartitionCount: N<TAB>ReplicationFactor: R<TAB>Configs: ...`` and per partition ``<TAB>Topic: T<TAB>
  Partition: P<TAB>Leader: L<TAB>Replicas: a,b<TAB>Isr: ...``.
* optionally ``kafka-broker-api-versions.sh`` (``BrokerApiVersionsCommand.java``: each broker as
  ``Node.toString()``, ``HOST:PORT (id: ID rack: RACK isFenced: B) -> ...``): the brokers' racks.

What becomes of it: a KIP-848 consumer group (numeric epochs) as the live path reads one (owned: the
current assignment at the member epoch; candidate: the target assignment); a classic group with the
current assignment as the candidate and no owned partitions (the text has no subscription metadata).
Subscriptions are not printed: by default every member subscribes to every topic the group holds
(``same``: one ``subscribe(topics)`` call, the usual group), or each member to the topics it holds
(``held``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from assignment_oracle.compare.capture.group import (
    Capture,
    ClassicMember,
    ConsumerMember,
    GroupDescription,
    TopicMeta,
    capture_from,
)
from assignment_oracle.problem.errors import InputError

__all__ = [
    "SUBSCRIPTIONS",
    "capture_offline",
    "parse_broker_racks",
    "parse_members",
    "parse_topics",
]

#: How members' subscriptions are taken, the text holding none.
SUBSCRIPTIONS = ("same", "held")

_MISSING = "-"
_MEMBER_LABELS = (
    "GROUP",
    "CONSUMER-ID",
    "GROUP-INSTANCE-ID",
    "HOST",
    "CLIENT-ID",
    "#PARTITIONS",
    "CURRENT-EPOCH",
    "CURRENT-ASSIGNMENT",
    "TARGET-EPOCH",
    "TARGET-ASSIGNMENT",
    "UPGRADED",
)
_STATE_LABELS = (
    "GROUP",
    "COORDINATOR (ID)",
    "ASSIGNMENT-STRATEGY",
    "STATE",
    "GROUP-EPOCH",
    "TARGET-ASSIGNMENT-EPOCH",
    "#MEMBERS",
)


def capture_offline(
    group: str,
    members_text: str,
    topics_text: str,
    *,
    brokers_text: str | None = None,
    subscriptions: str = "same",
    sources: tuple[str, str] = ("members", "topics"),
) -> Capture:
    """The :class:`Capture` of ``group`` from the tools' texts (module docstring).

    Raises
    ------
    InputError
        A text that is not the tool's output (the file and line named), the group absent, dead or
        empty there, a topic the group holds missing from the topics' text.
    """
    if subscriptions not in SUBSCRIPTIONS:
        raise InputError("--subscriptions", "", f"must be one of {', '.join(SUBSCRIPTIONS)}, got {subscriptions!r}")
    description, notes = parse_members(members_text, group, source=sources[0])
    topics = parse_topics(topics_text, source=sources[1])
    racks = parse_broker_racks(brokers_text) if brokers_text is not None else {}
    missing = [t for t in description.topic_names() if t not in topics]
    if missing:
        raise InputError(sources[1], "", f"has no topic {missing[0]!r}, which group {group!r} holds: describe it too")
    description = _subscribe(description, subscriptions)
    notes.append(
        "subscriptions are not in the tool's text: every member taken to subscribe to every topic the group holds"
        if subscriptions == "same"
        else "subscriptions are not in the tool's text: each member taken to subscribe to the topics it holds"
    )
    if description.kind == "classic":
        notes.append(
            "the tool's text has no owned partitions or generations: stickiness is judged from the current assignment only by --judge"
        )
    if not racks:
        notes.append("no brokers' racks given (--brokers): no rack information")
    return capture_from(description, topics, racks, notes=notes)


# -- kafka-consumer-groups.sh ------------------------------------------------------------------------------


def _columns(header: str, labels: Iterable[str]) -> list[tuple[str, int]]:
    """The labels found in a header line and where each column starts, in order."""
    found = []
    for label in labels:
        match = re.search(rf"(?<!\S){re.escape(label)}(?!\S)", header)
        if match:
            found.append((label, match.start()))
    return sorted(found, key=lambda item: item[1])


def _cells(line: str, columns: list[tuple[str, int]]) -> dict[str, str]:
    cells = {}
    for i, (label, start) in enumerate(columns):
        end = columns[i + 1][1] if i + 1 < len(columns) else None
        cells[label] = line[start:end].strip() if end is not None else line[start:].strip()
    return cells


def _assignment(text: str, source: str, where: str) -> dict[str, tuple[int, ...]]:
    """``topic:0,1;topic2:3`` (``getAssignmentString``), ``-`` for none."""
    if text in ("", _MISSING):
        return {}
    table: dict[str, tuple[int, ...]] = {}
    for part in text.split(";"):
        topic, sep, numbers = part.rpartition(":")
        if not sep or not topic or not re.fullmatch(r"\d+(,\d+)*", numbers):
            raise InputError(source, where, f"{part!r} is not topic:partition,partition")
        table[topic] = tuple(int(n) for n in numbers.split(","))
    return table


def _member_identity(row: dict[str, str]) -> dict[str, str | None]:
    """Who a member of ``--describe --members --verbose`` is, as both member classes name it: its member id,
    client id and host (empty when the column is absent) and its static ``group.instance.id`` (``None``
    when absent or empty)."""
    return {
        "member_id": row["CONSUMER-ID"],
        "client_id": row.get("CLIENT-ID", ""),
        "client_host": row.get("HOST", ""),
        "instance_id": row.get("GROUP-INSTANCE-ID") or None,
    }


def _epoch(text: str, source: str, where: str) -> int | None:
    if text in ("", _MISSING):
        return None
    if not re.fullmatch(r"-?\d+", text):
        raise InputError(source, where, f"{text!r} is not an epoch")
    return int(text)


def parse_members(text: str, group: str, *, source: str = "members") -> tuple[GroupDescription, list[str]]:
    """The group described by ``kafka-consumer-groups.sh --describe --members --verbose`` (and, in the same
    text, ``--state --verbose``), and notes on what the text said."""
    lines = text.splitlines()
    notes: list[str] = []
    quoted = re.escape(group)
    for line in lines:
        if re.search(
            rf"Consumer group '{quoted}' does not exist\.|The consumer group '{quoted}' does not exist\.", line
        ):
            raise InputError(source, "", f"the tool says consumer group {group!r} does not exist")
        if re.search(rf"Consumer group '{quoted}' has no active members\.", line):
            raise InputError(
                source, "", f"the tool says consumer group {group!r} has no active members: no assignment to judge"
            )
        if re.search(rf"Consumer group '{quoted}' is rebalancing\.", line):
            notes.append("the tool said the group was rebalancing: assignments may be in flux")
    state, assignor, group_epoch, target_epoch = "", None, None, None
    members: list[dict[str, str]] = []
    seen_members_header = False
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if re.match(r"GROUP\s+CONSUMER-ID\s", line):
            seen_members_header = True
            columns = _columns(line, _MEMBER_LABELS)
            while index < len(lines) and lines[index].strip():
                row = lines[index]
                where = f"line {index + 1}"
                index += 1
                if not row.startswith(group + " ") and row.rstrip() != group:
                    continue  # another group's member (the tool was given several --group)
                members.append({**_cells(row, columns), "where": where})
        elif re.match(r"GROUP\s+COORDINATOR \(ID\)\s", line):
            columns = _columns(line, _STATE_LABELS)
            while index < len(lines) and lines[index].strip():
                row = lines[index]
                index += 1
                if not row.startswith(group + " "):
                    continue
                cells = _cells(row, columns)
                state = cells.get("STATE", "")
                strategy = cells.get("ASSIGNMENT-STRATEGY", _MISSING)
                assignor = None if strategy == _MISSING else strategy
                group_epoch = _epoch(cells.get("GROUP-EPOCH", _MISSING), source, "GROUP-EPOCH")
                target_epoch = _epoch(cells.get("TARGET-ASSIGNMENT-EPOCH", _MISSING), source, "TARGET-ASSIGNMENT-EPOCH")
    if not seen_members_header:
        raise InputError(
            source,
            "",
            "is not the output of kafka-consumer-groups.sh --describe --members --verbose (no GROUP CONSUMER-ID header)",
        )
    if not members:
        raise InputError(source, "", f"has no member of group {group!r}")
    if "CURRENT-ASSIGNMENT" not in members[0]:
        raise InputError(source, "", "has no CURRENT-ASSIGNMENT column: run kafka-consumer-groups.sh with --verbose")
    epochs = [_epoch(m.get("CURRENT-EPOCH", _MISSING), source, m["where"]) for m in members]
    consumer = any(e is not None for e in epochs)
    if assignor is None:
        notes.append("no --state --verbose output in the text: the group's assignor is not known")
    if consumer:
        described = tuple(
            ConsumerMember(
                **_member_identity(m),
                rack=None,
                epoch=epoch if epoch is not None else -1,
                topics=(),
                regex=None,
                assignment=_assignment(m.get("CURRENT-ASSIGNMENT", _MISSING), source, m["where"]),
                target=_assignment(m.get("TARGET-ASSIGNMENT", _MISSING), source, m["where"]),
                member_type={"true": 1, "false": 0}.get(m.get("UPGRADED", ""), -1),
            )
            for m, epoch in zip(members, epochs)
        )
    else:
        described = tuple(
            ClassicMember(
                **_member_identity(m),
                topics=(),
                owned={},
                generation=-1,
                rack=None,
                user_data=None,
                subscription_version=-1,
                assignment=_assignment(m.get("CURRENT-ASSIGNMENT", _MISSING), source, m["where"]),
            )
            for m in members
        )
    description = GroupDescription(
        group_id=group,
        kind="consumer" if consumer else "classic",
        state=state or "Stable",
        assignor=assignor,
        members=described,
        epoch=group_epoch,
        assignment_epoch=target_epoch,
        source=f"offline {source}",
    )
    return description, notes


def _subscribe(description: GroupDescription, how: str) -> GroupDescription:
    from dataclasses import replace

    every = description.topic_names()
    members = []
    for m in description.members:
        held = set(m.assignment) | set(getattr(m, "target", {}) or {})
        members.append(replace(m, topics=tuple(every) if how == "same" else tuple(sorted(held))))
    return replace(description, members=tuple(members))


# -- kafka-topics.sh, kafka-broker-api-versions.sh ----------------------------------------------------------


def _fields(line: str) -> dict[str, str]:
    out = {}
    for part in line.strip("\n").split("\t"):
        key, sep, value = part.partition(": ")
        if sep:
            out[key.strip()] = value.strip()
        elif part.endswith(":"):
            out[part[:-1].strip()] = ""
    return out


def parse_topics(text: str, *, source: str = "topics") -> dict[str, TopicMeta]:
    """Topics as ``kafka-topics.sh --describe`` prints them: partition counts, replicas, topic ids."""
    counts: dict[str, int] = {}
    ids: dict[str, str | None] = {}
    replicas: dict[str, dict[int, tuple[int, ...]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = _fields(line)
        where = f"line {number}"
        if line.startswith("Topic: ") and "PartitionCount" in fields:
            name = fields["Topic"]
            try:
                counts[name] = int(fields["PartitionCount"])
            except ValueError:
                raise InputError(source, where, "PartitionCount is not a number") from None
            topic_id = fields.get("TopicId")
            ids[name] = topic_id if topic_id and topic_id != "AAAAAAAAAAAAAAAAAAAAAA" else None
        elif line.startswith("\tTopic: ") and "Partition" in fields:
            name = fields["Topic"]
            try:
                partition = int(fields["Partition"])
                nodes = tuple(int(b) for b in fields.get("Replicas", "").split(",") if b)
            except ValueError:
                raise InputError(source, where, "Partition or Replicas is not a number") from None
            replicas.setdefault(name, {})[partition] = nodes
        elif line.startswith(("Error while executing topic command", "WARNING")):
            raise InputError(source, where, f"the tool reported an error: {line.strip()}")
    if not counts:
        raise InputError(
            source, "", "is not the output of kafka-topics.sh --describe (no 'Topic: ... PartitionCount:' line)"
        )
    topics = {}
    for name, count in counts.items():
        rows = replicas.get(name, {})
        complete = sorted(rows) == list(range(count))
        topics[name] = TopicMeta(
            partitions=count,
            replicas=tuple(rows[p] for p in range(count)) if complete else None,
            topic_id=ids.get(name),
        )
    return topics


_NODE = re.compile(r"^\S+ \(id: (-?\d+) rack: (.*?) isFenced: (?:true|false)\) -> ")


def parse_broker_racks(text: str) -> dict[int, str | None]:
    """Broker id -> rack from ``kafka-broker-api-versions.sh``'s lines (``Node.toString()``; rack ``null``: none)."""
    racks: dict[int, str | None] = {}
    for line in text.splitlines():
        match = _NODE.match(line)
        if match:
            rack = match.group(2)
            racks[int(match.group(1))] = None if rack == "null" else rack
    if not racks:
        raise InputError(
            "--brokers",
            "",
            "is not the output of kafka-broker-api-versions.sh (no 'HOST:PORT (id: N rack: R ...' line)",
        )
    return racks


def read_text(path: str) -> str:
    """A tool's saved output (UTF-8; undecodable bytes replaced, as a terminal would show them)."""
    try:
        return Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError as err:
        raise InputError(path, "", f"cannot read file ({err.strerror or err})") from None
