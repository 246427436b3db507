"""kafka-python's assignors, driven through their real API: the built-in peers ``kafka-python:*``.

Guarantee: theirs, not ours.  kafka-python (PyPI ``kafka-python``, the
optional extra ``assignment-oracle[kafka-python]``) ships
``RangePartitionAssignor``, ``RoundRobinPartitionAssignor`` and
``StickyPartitionAssignor``, ports of Kafka's Java assignors; each peer
claims the guarantee of the Kafka class it ports (the registry's
``kafka-python:range`` judges per-topic balance like ``range``, and so on),
so a peer and this project's port of the same class are judged alike.

How a kafka-python group leader runs them: its coordinator calls
``assignor.assign(cluster, members)`` where

* ``cluster`` is a ``ClusterMetadata``; the assignors only call
  ``topics()`` and ``partitions_for_topic(topic)`` (a fresh ``set`` of
  partition numbers, ``None`` for an unknown topic), so :class:`Cluster`
  below provides exactly those two;
* ``members`` is the JoinGroup response's list of
  ``JoinGroupResponse.JoinGroupResponseMember`` (``member_id``,
  ``group_instance_id``, ``metadata``), the metadata already decoded by the
  coordinator into a ``ConsumerProtocolSubscription`` (``_perform_assignment``);
* the result is ``{member_id: ConsumerProtocolAssignment}``.

Each member's metadata is produced the way a kafka-python consumer produces
it: the member's own assignor instance learns its previous assignment and
generation through ``on_assignment`` and builds its subscription with
``metadata(topics)`` (for the sticky assignor, ``StickyAssignorUserData``
version 1: previous partitions per topic and the generation); it is encoded
to bytes as sent in the JoinGroup request and decoded as the leader decodes
it, so the sticky assignor parses real user-data bytes inside ``assign``.

:func:`prepare` does all that once (it is not part of the assignor's work);
:func:`run` is the leader's call; :func:`to_assignment` converts the result
to this project's :class:`~assignment_oracle.problem.model.Assignment`, repeats kept.
Nothing here works around kafka-python's behaviour: an exception it raises
(its round robin's ``KeyError`` on differing subscriptions, for one)
reaches the caller, and the judge records it as the peer's failure.
kafka-python is imported on first use: without it, running a peer raises
:class:`PeerNotInstalled`, which names the extra to install (through
:func:`~assignment_oracle.heuristics.run` it stays that exception unless the
run was isolated in a child process, which sends back a plain
:class:`~assignment_oracle.problem.errors.MissingExtra` with the same message).
"""

from __future__ import annotations

import functools
from typing import Mapping

from assignment_oracle.problem.errors import MissingExtra
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = [
    "PEER_OF",
    "Cluster",
    "PeerNotInstalled",
    "assign_range",
    "assign_roundrobin",
    "assign_sticky",
    "kafka_python_assign",
    "prepare",
    "run",
    "to_assignment",
    "to_mapping",
    "version",
]

#: This project's assignor name -> the kafka-python class name that ports the same Kafka assignor.
PEER_OF = {
    "range": "RangePartitionAssignor",
    "roundrobin": "RoundRobinPartitionAssignor",
    "sticky": "StickyPartitionAssignor",
}


class PeerNotInstalled(MissingExtra):
    """kafka-python is not installed: the peers need the optional extra."""

    def __init__(self) -> None:
        super().__init__("kafka-python", "every kafka-python:* peer", "kafka")


@functools.cache
def _kafka():
    """kafka-python's classes, imported once; :class:`PeerNotInstalled` without it."""
    try:
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
        from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
        from kafka.protocol.consumer.group import JoinGroupResponse
        from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription
    except ImportError:
        raise PeerNotInstalled() from None
    classes = {
        "range": RangePartitionAssignor,
        "roundrobin": RoundRobinPartitionAssignor,
        "sticky": StickyPartitionAssignor,
    }
    return classes, JoinGroupResponse, ConsumerProtocolAssignment, ConsumerProtocolSubscription


def version() -> str | None:
    """The installed kafka-python's version, or ``None``."""
    from importlib import metadata

    try:
        return metadata.version("kafka-python")
    except metadata.PackageNotFoundError:
        return None


class Cluster:
    """The part of ``kafka.cluster.ClusterMetadata`` the assignors use."""

    def __init__(self, partition_counts: Mapping[str, int]) -> None:
        self._counts = dict(partition_counts)

    def topics(self, exclude_internal_topics: bool = True) -> set[str]:
        return set(self._counts)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        # ClusterMetadata returns a new set on every call; so does this.
        count = self._counts.get(topic)
        return None if count is None else set(range(count))


def _assignor(name: str):
    """A fresh assignor: the sticky one keeps per-instance state, never shared between runs."""
    cls = _kafka()[0][name]
    return cls() if name == "sticky" else cls


def _subscription(name: str, member):
    """The member's JoinGroup metadata as its own kafka-python consumer would build it."""
    assignor = _assignor(name)
    if member.owned:
        # What the member got last time, delivered by its coordinator after SyncGroup.
        previous = _kafka()[2](assignor.version, [(t, list(ps)) for t, ps in member.owned], b"")
        assignor.on_assignment(previous, member.claim_generation)
    return assignor.metadata(sorted(member.topics))


def prepare(name: str, problem: Problem):
    """The leader's inputs for ``assign``: ``(cluster, members)``, metadata decoded from wire bytes.

    Only the topics somebody subscribes to are in the cluster metadata (the
    leader fetches metadata for the group's subscription).
    """
    cluster = Cluster({t.name: t.partitions for t in problem.assignable_topics})
    _, join_group, _, subscription = _kafka()
    member_type = join_group.JoinGroupResponseMember
    members = []
    for member in problem.members:
        wire = _subscription(name, member).encode()
        members.append(
            member_type(
                member_id=member.member_id,
                group_instance_id=None,
                metadata=subscription.decode(wire),
            )
        )
    return cluster, members


def run(name: str, cluster: Cluster, members: list) -> dict:
    """One leader-side assignment: ``{member_id: ConsumerProtocolAssignment}``."""
    return _assignor(name).assign(cluster, members)


def to_mapping(result: Mapping) -> dict[str, dict[str, list[int]]]:
    """Plain member -> topic -> partitions (picklable, for results coming back from a subprocess)."""
    return {
        member_id: {topic: list(partitions) for topic, partitions in assignment.assigned_partitions}
        for member_id, assignment in result.items()
    }


def to_assignment(mapping: Mapping[str, Mapping[str, list[int]]], problem: Problem) -> Assignment:
    """This project's :class:`Assignment` of a :func:`to_mapping` result (repeats kept)."""
    return Assignment.from_partitions(
        {m: [TopicPartition(t, p) for t, ps in topics.items() for p in ps] for m, topics in mapping.items()},
        problem.member_ids,
    )


def kafka_python_assign(name: str, problem: Problem) -> Assignment:
    """kafka-python's assignor ``name`` (range, roundrobin or sticky) on ``problem``."""
    cluster, members = prepare(name, problem)
    return to_assignment(to_mapping(run(name, cluster, members)), problem)


#: kafka-python's ``RangePartitionAssignor``, ``RoundRobinPartitionAssignor`` and ``StickyPartitionAssignor``
#: (registry: ``kafka-python:range``, ``kafka-python:roundrobin``, ``kafka-python:sticky``):
#: :func:`kafka_python_assign` of each.
assign_range, assign_roundrobin, assign_sticky = (
    functools.partial(kafka_python_assign, strategy) for strategy in ("range", "roundrobin", "sticky")
)
