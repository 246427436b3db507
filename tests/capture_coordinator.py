"""A small Kafka broker and group coordinator on 127.0.0.1 for the capture tests: the real wire protocol.

It answers, frame by frame over TCP, the requests a read-only admin client makes to describe a group --
ApiVersions, Metadata, DescribeCluster, FindCoordinator, DescribeGroups, ConsumerGroupDescribe,
StreamsGroupDescribe, ShareGroupDescribe, DescribeConfigs (a group's configs), SaslHandshake and
SaslAuthenticate -- with responses encoded by kafka-python's protocol classes (Kafka's JSON message
schemas; the three KIP-848/1071/932 describes from the schemas at apache/kafka d79bd50 that
``assignment_oracle.compare.capture.messages`` carries) from the groups a test defines as plain data.
Nothing in the capture code knows it is talking to this: it is one more broker at an address.

Classic members' metadata is encoded here independently of the capture code: the subscription with
kafka-python's ``ConsumerProtocolSubscription`` at the version the test names, and the StickyAssignor's
user data by hand from Kafka's schema (``StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V1``: an array of
(topic string, int32 array), then the int32 generation).

Every socket has a timeout, the server's threads are daemons, and :meth:`Coordinator.close` (or the
``with`` block's end) stops it; it records every request's API key so a test can assert the capture only
read.  Run ``python tests/capture_coordinator.py`` to serve the worked example of docs/operators.md.
"""

from __future__ import annotations

import socket
import struct
import threading
import uuid
from dataclasses import dataclass, field

from kafka.protocol.admin import (
    DescribeClusterRequest,
    DescribeClusterResponse,
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
)
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription
from kafka.protocol.metadata import (
    ApiVersionsRequest,
    ApiVersionsResponse,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    MetadataRequest,
    MetadataResponse,
)
from kafka.protocol.sasl import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)

from assignment_oracle.compare.capture.messages import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
    ShareGroupDescribeRequest,
    ShareGroupDescribeResponse,
    StreamsGroupDescribeRequest,
    StreamsGroupDescribeResponse,
)

#: Kafka's error codes the coordinator answers with (``org.apache.kafka.common.protocol.Errors``).
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
GROUP_AUTHORIZATION_FAILED = 30
UNSUPPORTED_SASL_MECHANISM = 33
SASL_AUTHENTICATION_FAILED = 58
GROUP_ID_NOT_FOUND = 69

#: Authorized operations not asked for (Kafka's Integer.MIN_VALUE), as kafka-python's bit-field fields take it.
NOT_REQUESTED = frozenset({31})

#: Seconds any socket of the coordinator waits: a test never hangs on it.
SOCKET_TIMEOUT = 10.0

#: The requests it reads, by API key, with the highest version it answers (never above Kafka's at d79bd50).
REQUESTS = {
    18: ApiVersionsRequest,
    3: MetadataRequest,
    60: DescribeClusterRequest,
    10: FindCoordinatorRequest,
    15: DescribeGroupsRequest,
    69: ConsumerGroupDescribeRequest,
    89: StreamsGroupDescribeRequest,
    77: ShareGroupDescribeRequest,
    32: DescribeConfigsRequest,
    17: SaslHandshakeRequest,
    36: SaslAuthenticateRequest,
}
RESPONSES = {
    18: ApiVersionsResponse,
    3: MetadataResponse,
    60: DescribeClusterResponse,
    10: FindCoordinatorResponse,
    15: DescribeGroupsResponse,
    69: ConsumerGroupDescribeResponse,
    89: StreamsGroupDescribeResponse,
    77: ShareGroupDescribeResponse,
    32: DescribeConfigsResponse,
    17: SaslHandshakeResponse,
    36: SaslAuthenticateResponse,
}
#: API keys that only read (every request the capture may make).
READ_ONLY = frozenset(REQUESTS)


# -- the groups a test defines -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """A topic: each partition's replicas (broker ids), and its id."""

    name: str
    replicas: tuple[tuple[int, ...], ...]
    topic_id: uuid.UUID = field(default_factory=lambda: uuid.UUID(int=0))


@dataclass(frozen=True)
class Broker:
    node_id: int
    rack: str | None = None


@dataclass(frozen=True)
class ClassicMember:
    """A member of a classic group: what its JoinGroup sent (the subscription at ``version``) and what its
    SyncGroup got."""

    member_id: str
    topics: tuple[str, ...]
    assignment: dict[str, list[int]]
    owned: dict[str, list[int]] = field(default_factory=dict)
    generation: int = -1
    rack: str | None = None
    user_data: bytes | None = None
    instance_id: str | None = None
    client_id: str = "consumer"
    client_host: str = "/127.0.0.1"
    version: int = 3
    assignment_user_data: bytes | None = None


@dataclass(frozen=True)
class ClassicGroup:
    group_id: str
    protocol: str
    members: tuple[ClassicMember, ...]
    state: str = "Stable"
    protocol_type: str = "consumer"
    error_code: int = NONE


@dataclass(frozen=True)
class ConsumerMember:
    """A KIP-848 member as ConsumerGroupDescribe reports it."""

    member_id: str
    topics: tuple[str, ...]
    assignment: dict[str, list[int]]
    target: dict[str, list[int]]
    epoch: int = 1
    rack: str | None = None
    instance_id: str | None = None
    client_id: str = "consumer"
    client_host: str = "/127.0.0.1"
    regex: str | None = None
    member_type: int = 1


@dataclass(frozen=True)
class ConsumerGroup:
    group_id: str
    assignor: str
    members: tuple[ConsumerMember, ...]
    state: str = "Stable"
    epoch: int = 1
    assignment_epoch: int = 1
    error_code: int = NONE


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...]
    changelog_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[tuple[str, int], ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class StreamsMember:
    """A KIP-1071 member: its process, tags, task offsets and its current and target tasks (role ->
    subtopology -> partitions)."""

    member_id: str
    process_id: str
    active: dict[str, list[int]] = field(default_factory=dict)
    standby: dict[str, list[int]] = field(default_factory=dict)
    warmup: dict[str, list[int]] = field(default_factory=dict)
    target_active: dict[str, list[int]] = field(default_factory=dict)
    target_standby: dict[str, list[int]] = field(default_factory=dict)
    target_warmup: dict[str, list[int]] = field(default_factory=dict)
    client_tags: dict[str, str] = field(default_factory=dict)
    task_offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    task_end_offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    epoch: int = 1
    rack: str | None = None
    instance_id: str | None = None
    client_id: str = "streams"
    client_host: str = "/127.0.0.1"


@dataclass(frozen=True)
class StreamsGroup:
    group_id: str
    subtopologies: tuple[Subtopology, ...]
    members: tuple[StreamsMember, ...]
    configs: dict[str, str] = field(default_factory=dict)
    assignor: str | None = "sticky"
    state: str = "Stable"
    epoch: int = 1
    assignment_epoch: int = 1
    topology_epoch: int = 1
    error_code: int = NONE


@dataclass(frozen=True)
class ShareMember:
    member_id: str
    topics: tuple[str, ...]
    assignment: dict[str, list[int]]
    epoch: int = 1
    rack: str | None = None
    client_id: str = "share-consumer"
    client_host: str = "/127.0.0.1"


@dataclass(frozen=True)
class ShareGroup:
    group_id: str
    members: tuple[ShareMember, ...]
    assignor: str = "simple"
    state: str = "Stable"
    epoch: int = 1
    assignment_epoch: int = 1
    error_code: int = NONE


def sticky_user_data(previous: dict[str, list[int]], generation: int | None) -> bytes:
    """Kafka's StickyAssignor user data (V1 with a generation, V0 without), written from its schema."""
    out = [struct.pack(">i", len(previous))]
    for topic, partitions in previous.items():
        name = topic.encode()
        out.append(struct.pack(">h", len(name)) + name + struct.pack(">i", len(partitions)))
        out.extend(struct.pack(">i", p) for p in partitions)
    if generation is not None:
        out.append(struct.pack(">i", generation))
    return b"".join(out)


# -- the server --------------------------------------------------------------------------------------------


class Coordinator:
    """The broker: ``with Coordinator(...) as c: capture(c.address, ...)``.

    ``sasl``: None (PLAINTEXT), or ``{"mechanisms": [...], "users": {name: password}}``: a connection must
    then hand-shake one of ``mechanisms`` (else UNSUPPORTED_SASL_MECHANISM) and authenticate with PLAIN as
    one of ``users`` (else SASL_AUTHENTICATION_FAILED).  ``apis``: the API keys advertised (default all).
    ``brokers``: the cluster's brokers, the first being this server (the others are listed at the same
    address, as a cluster's metadata lists brokers the client never needs to reach).
    """

    def __init__(
        self,
        *,
        topics: tuple[Topic, ...] = (),
        brokers: tuple[Broker, ...] = (Broker(0),),
        groups: tuple = (),
        sasl: dict | None = None,
        apis: frozenset[int] | None = None,
        cluster_id: str = "capture-test-cluster",
    ) -> None:
        self.topics = {t.name: t for t in topics}
        self.brokers = brokers
        self.groups = {g.group_id: g for g in groups}
        self.sasl = sasl
        self.apis = frozenset(REQUESTS) if apis is None else frozenset(apis) | {18}
        self.cluster_id = cluster_id
        self.received: list[int] = []
        #: Exceptions raised while answering (a test's groups the coordinator could not encode).
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.port = self._server.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._connections: list[socket.socket] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> Coordinator:
        thread = threading.Thread(target=self._accept, name="capture-coordinator", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._server.close()
        with self._lock:
            for connection in self._connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                connection.close()
        for thread in self._threads:
            thread.join(timeout=SOCKET_TIMEOUT)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connection.settimeout(SOCKET_TIMEOUT)
            with self._lock:
                self._connections.append(connection)
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, connection: socket.socket) -> None:
        state = {"authenticated": self.sasl is None, "mechanism": None}
        try:
            while not self._stop.is_set():
                size = _read(connection, 4)
                if size is None:
                    return
                frame = _read(connection, struct.unpack(">i", size)[0])
                if frame is None:
                    return
                api_key, version = struct.unpack(">hh", frame[:4])
                with self._lock:
                    self.received.append(api_key)
                if api_key not in self.apis or api_key not in REQUESTS:
                    return  # a broker closes the connection on an API it does not know
                request = REQUESTS[api_key].decode(frame, version=version, header=True)
                if not state["authenticated"] and api_key not in (18, 17, 36):
                    return  # Kafka closes a connection that skips authentication
                try:
                    response = self._answer(api_key, version, request, state)
                except Exception as err:  # a bug of the test's groups: recorded for the test, the client cut off
                    self.errors.append(err)
                    return
                response.API_VERSION = version
                response.with_header(correlation_id=request.header.correlation_id)
                connection.sendall(response.encode(header=True, framed=True))
        except OSError:
            return

    # -- one method per request ----------------------------------------------------------------------------

    def _answer(self, api_key: int, version: int, request, state: dict):
        return {
            18: self._api_versions,
            3: self._metadata,
            60: self._describe_cluster,
            10: self._find_coordinator,
            15: self._describe_groups,
            69: self._consumer_group_describe,
            89: self._streams_group_describe,
            77: self._share_group_describe,
            32: self._describe_configs,
            17: self._sasl_handshake,
            36: self._sasl_authenticate,
        }[api_key](version, request, state)

    def _api_versions(self, version, request, state):
        keys = [
            ApiVersionsResponse.ApiVersion(
                api_key=key, min_version=RESPONSES[key].min_version, max_version=RESPONSES[key].max_version
            )
            for key in sorted(self.apis)
        ]
        return ApiVersionsResponse(error_code=NONE, api_keys=keys, throttle_time_ms=0)

    def _broker_rows(self, row, key: str = "node_id"):
        return [row(**{key: b.node_id}, host="127.0.0.1", port=self.port, rack=b.rack) for b in self.brokers]

    def _metadata(self, version, request, state):
        names = list(self.topics) if request.topics is None else [t.name for t in request.topics]
        Topic_ = MetadataResponse.MetadataResponseTopic
        Partition = Topic_.MetadataResponsePartition
        rows = []
        for name in names:
            topic = self.topics.get(name)
            if topic is None:
                rows.append(Topic_(error_code=UNKNOWN_TOPIC_OR_PARTITION, name=name, topic_id=uuid.UUID(int=0)))
                continue
            partitions = [
                Partition(
                    error_code=NONE,
                    partition_index=p,
                    leader_id=replicas[0],
                    leader_epoch=0,
                    replica_nodes=list(replicas),
                    isr_nodes=list(replicas),
                    offline_replicas=[],
                )
                for p, replicas in enumerate(topic.replicas)
            ]
            rows.append(
                Topic_(error_code=NONE, name=name, topic_id=topic.topic_id, is_internal=False, partitions=partitions)
            )
        return MetadataResponse(
            throttle_time_ms=0,
            brokers=self._broker_rows(MetadataResponse.MetadataResponseBroker),
            cluster_id=self.cluster_id,
            controller_id=self.brokers[0].node_id,
            topics=rows,
        )

    def _describe_cluster(self, version, request, state):
        return DescribeClusterResponse(
            throttle_time_ms=0,
            error_code=NONE,
            error_message=None,
            endpoint_type=1,
            cluster_id=self.cluster_id,
            controller_id=self.brokers[0].node_id,
            brokers=self._broker_rows(DescribeClusterResponse.DescribeClusterBroker, "broker_id"),
            authorized_operations=NOT_REQUESTED,
        )

    def _find_coordinator(self, version, request, state):
        me = self.brokers[0].node_id
        if version < 4:
            return FindCoordinatorResponse(
                throttle_time_ms=0, error_code=NONE, error_message=None, node_id=me, host="127.0.0.1", port=self.port
            )
        rows = [
            FindCoordinatorResponse.Coordinator(
                key=key, node_id=me, host="127.0.0.1", port=self.port, error_code=NONE, error_message=None
            )
            for key in request.coordinator_keys
        ]
        return FindCoordinatorResponse(throttle_time_ms=0, coordinators=rows)

    def _describe_groups(self, version, request, state):
        Group = DescribeGroupsResponse.DescribedGroup
        Member = Group.DescribedGroupMember
        rows = []
        for group_id in request.groups:
            group = self.groups.get(group_id)
            if not isinstance(group, ClassicGroup):
                # Kafka before DescribeGroups v6 answers an unknown group (or one of another type) as Dead.
                code = GROUP_ID_NOT_FOUND if version >= 6 else NONE
                rows.append(
                    Group(
                        error_code=code,
                        group_id=group_id,
                        group_state="Dead",
                        protocol_type="",
                        protocol_data="",
                        members=[],
                        authorized_operations=NOT_REQUESTED,
                    )
                )
                continue
            members = [
                Member(
                    member_id=m.member_id,
                    group_instance_id=m.instance_id,
                    client_id=m.client_id,
                    client_host=m.client_host,
                    member_metadata=_subscription(m),
                    member_assignment=_assignment(m),
                )
                for m in group.members
            ]
            rows.append(
                Group(
                    error_code=group.error_code,
                    group_id=group.group_id,
                    group_state=group.state,
                    protocol_type=group.protocol_type,
                    protocol_data=group.protocol,
                    members=members,
                    authorized_operations=NOT_REQUESTED,
                )
            )
        return DescribeGroupsResponse(throttle_time_ms=0, groups=rows)

    def _consumer_group_describe(self, version, request, state):
        Group = ConsumerGroupDescribeResponse.DescribedGroup
        Member = Group.Member
        rows = []
        for group_id in request.group_ids:
            group = self.groups.get(group_id)
            if not isinstance(group, ConsumerGroup):
                rows.append(_not_found(Group, group_id, "consumer", group))
                continue
            members = [
                Member(
                    member_id=m.member_id,
                    instance_id=m.instance_id,
                    rack_id=m.rack,
                    member_epoch=m.epoch,
                    client_id=m.client_id,
                    client_host=m.client_host,
                    subscribed_topic_names=list(m.topics),
                    subscribed_topic_regex=m.regex,
                    assignment=self._partitions(Member.Assignment, m.assignment),
                    target_assignment=self._partitions(Member.Assignment, m.target),
                    member_type=m.member_type,
                )
                for m in group.members
            ]
            rows.append(
                Group(
                    error_code=group.error_code,
                    error_message=None,
                    group_id=group.group_id,
                    group_state=group.state,
                    group_epoch=group.epoch,
                    assignment_epoch=group.assignment_epoch,
                    assignor_name=group.assignor,
                    members=members,
                    authorized_operations=-2147483648,
                )
            )
        return ConsumerGroupDescribeResponse(throttle_time_ms=0, groups=rows)

    def _partitions(self, assignment_type, partitions: dict[str, list[int]]):
        TopicPartitions = assignment_type.TopicPartitions
        rows = [
            TopicPartitions(
                topic_id=self.topics[t].topic_id if t in self.topics else uuid.UUID(int=0),
                topic_name=t,
                partitions=list(ps),
            )
            for t, ps in partitions.items()
        ]
        return assignment_type(topic_partitions=rows)

    def _streams_group_describe(self, version, request, state):
        Group = StreamsGroupDescribeResponse.DescribedGroup
        Member = Group.Member
        Topology = Group.Topology
        Sub = Topology.Subtopology
        Info = Sub.TopicInfo
        Tasks = Member.Assignment
        rows = []
        for group_id in request.group_ids:
            group = self.groups.get(group_id)
            if not isinstance(group, StreamsGroup):
                rows.append(_not_found(Group, group_id, "streams", group))
                continue
            topology = Topology(
                epoch=group.topology_epoch,
                subtopologies=[
                    Sub(
                        subtopology_id=s.subtopology_id,
                        source_topics=list(s.source_topics),
                        repartition_sink_topics=list(s.repartition_sink_topics),
                        state_changelog_topics=[
                            Info(name=n, partitions=0, replication_factor=0, topic_configs=[])
                            for n in s.changelog_topics
                        ],
                        repartition_source_topics=[
                            Info(name=n, partitions=k, replication_factor=0, topic_configs=[])
                            for n, k in s.repartition_source_topics
                        ],
                    )
                    for s in group.subtopologies
                ],
            )

            def tasks(active, standby, warmup):
                def ids(roles):
                    return [Tasks.TaskIds(subtopology_id=s, partitions=list(ps)) for s, ps in roles.items()]

                return Tasks(active_tasks=ids(active), standby_tasks=ids(standby), warmup_tasks=ids(warmup))

            def offsets(table):
                return [
                    Member.TaskOffset(subtopology_id=s, partition=p, offset=o)
                    for s, row in table.items()
                    for p, o in row.items()
                ]

            members = [
                Member(
                    member_id=m.member_id,
                    member_epoch=m.epoch,
                    instance_id=m.instance_id,
                    rack_id=m.rack,
                    client_id=m.client_id,
                    client_host=m.client_host,
                    topology_epoch=group.topology_epoch,
                    process_id=m.process_id,
                    user_endpoint=None,
                    client_tags=[Member.KeyValue(key=k, value=v) for k, v in m.client_tags.items()],
                    task_offsets=offsets(m.task_offsets),
                    task_end_offsets=offsets(m.task_end_offsets),
                    assignment=tasks(m.active, m.standby, m.warmup),
                    target_assignment=tasks(m.target_active, m.target_standby, m.target_warmup),
                    is_classic=False,
                )
                for m in group.members
            ]
            rows.append(
                Group(
                    error_code=group.error_code,
                    error_message=None,
                    group_id=group.group_id,
                    group_state=group.state,
                    group_epoch=group.epoch,
                    assignment_epoch=group.assignment_epoch,
                    topology=topology,
                    members=members,
                    authorized_operations=-2147483648,
                    topology_description=None,
                    topology_description_status=0,
                    assignor_name=group.assignor,
                )
            )
        return StreamsGroupDescribeResponse(throttle_time_ms=0, groups=rows)

    def _share_group_describe(self, version, request, state):
        Group = ShareGroupDescribeResponse.DescribedGroup
        Member = Group.Member
        rows = []
        for group_id in request.group_ids:
            group = self.groups.get(group_id)
            if not isinstance(group, ShareGroup):
                rows.append(_not_found(Group, group_id, "share", group))
                continue
            members = [
                Member(
                    member_id=m.member_id,
                    rack_id=m.rack,
                    member_epoch=m.epoch,
                    client_id=m.client_id,
                    client_host=m.client_host,
                    subscribed_topic_names=list(m.topics),
                    assignment=self._partitions(Member.Assignment, m.assignment),
                )
                for m in group.members
            ]
            rows.append(
                Group(
                    error_code=group.error_code,
                    error_message=None,
                    group_id=group.group_id,
                    group_state=group.state,
                    group_epoch=group.epoch,
                    assignment_epoch=group.assignment_epoch,
                    assignor_name=group.assignor,
                    members=members,
                    authorized_operations=-2147483648,
                )
            )
        return ShareGroupDescribeResponse(throttle_time_ms=0, groups=rows)

    def _describe_configs(self, version, request, state):
        Result = DescribeConfigsResponse.DescribeConfigsResult
        Config = Result.DescribeConfigsResourceResult
        rows = []
        for resource in request.resources:
            group = self.groups.get(resource.resource_name)
            configs = getattr(group, "configs", {}) if resource.resource_type == 32 else {}
            wanted = resource.configuration_keys
            entries = [
                Config(
                    name=k,
                    value=v,
                    read_only=False,
                    config_source=1,
                    is_sensitive=False,
                    synonyms=[],
                    config_type=0,
                    documentation=None,
                )
                for k, v in configs.items()
                if wanted is None or k in wanted
            ]
            rows.append(
                Result(
                    error_code=NONE if group is not None else GROUP_ID_NOT_FOUND,
                    error_message=None,
                    resource_type=resource.resource_type,
                    resource_name=resource.resource_name,
                    configs=entries,
                )
            )
        return DescribeConfigsResponse(throttle_time_ms=0, results=rows)

    def _sasl_handshake(self, version, request, state):
        mechanisms = list((self.sasl or {}).get("mechanisms", ()))
        if request.mechanism not in mechanisms:
            return SaslHandshakeResponse(error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=mechanisms)
        state["mechanism"] = request.mechanism
        return SaslHandshakeResponse(error_code=NONE, mechanisms=mechanisms)

    def _sasl_authenticate(self, version, request, state):
        # PLAIN (RFC 4616): authzid NUL authcid NUL passwd
        parts = bytes(request.auth_bytes).split(b"\x00")
        users = (self.sasl or {}).get("users", {})
        if state["mechanism"] == "PLAIN" and len(parts) == 3 and users.get(parts[1].decode()) == parts[2].decode():
            state["authenticated"] = True
            return SaslAuthenticateResponse(error_code=NONE, error_message=None, auth_bytes=b"", session_lifetime_ms=0)
        return SaslAuthenticateResponse(
            error_code=SASL_AUTHENTICATION_FAILED,
            error_message="Authentication failed: Invalid username or password",
            auth_bytes=b"",
            session_lifetime_ms=0,
        )


def _not_found(Group, group_id: str, kind: str, group):
    """Kafka's answer to a describe of a group that does not exist, or is of another type."""
    message = f"Group {group_id} not found." if group is None else f"Group {group_id} is not a {kind} group."
    return Group(
        error_code=GROUP_ID_NOT_FOUND,
        error_message=message,
        group_id=group_id,
        group_state="",
        group_epoch=0,
        assignment_epoch=0,
        assignor_name="",
        members=[],
        authorized_operations=-2147483648,
    )


def _subscription(m: ClassicMember) -> bytes:
    owned = [ConsumerProtocolSubscription.TopicPartition(topic=t, partitions=ps) for t, ps in m.owned.items()]
    data = ConsumerProtocolSubscription(
        version=m.version,
        topics=list(m.topics),
        user_data=m.user_data,
        owned_partitions=owned,
        generation_id=m.generation,
        rack_id=m.rack,
    )
    return data.encode(version=m.version, header=True)


def _assignment(m: ClassicMember) -> bytes:
    rows = [ConsumerProtocolAssignment.TopicPartition(topic=t, partitions=ps) for t, ps in m.assignment.items()]
    return ConsumerProtocolAssignment(version=3, assigned_partitions=rows, user_data=m.assignment_user_data).encode(
        version=3, header=True
    )


def _read(connection: socket.socket, size: int) -> bytes | None:
    chunks = []
    while size:
        try:
            chunk = connection.recv(size)
        except (TimeoutError, OSError):
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# -- the worked example of docs/operators.md --------------------------------------------------------------


def example() -> Coordinator:
    """docs/operators.md's cluster: three brokers in three zones, and the classic group ``billing`` (range,
    eager; three members in those zones, subscribed to ``orders`` and ``clicks``, 4 partitions each) holding
    the assignment this project's port of Kafka's RangeAssignor gives it."""
    from assignment_oracle.heuristics import ASSIGNORS
    from assignment_oracle.problem.load import load_scenario

    zones = {0: "eu-west-1a", 1: "eu-west-1b", 2: "eu-west-1c"}
    replicas = ((0, 1), (1, 2), (2, 0), (0, 2))
    topics = (
        Topic("orders", replicas, uuid.UUID("5e4c1a2b-7d3f-4a6e-9b8c-0d1e2f3a4b5c")),
        Topic("clicks", replicas, uuid.UUID("a1b2c3d4-e5f6-4789-8abc-def012345678")),
    )
    members = {f"billing-{k}-0f3c{k}": zones[k - 1] for k in (1, 2, 3)}
    scenario = {
        "topics": {
            t.name: {"partitions": len(t.replicas), "racks": [[zones[b] for b in r] for r in t.replicas]}
            for t in topics
        },
        "members": {m: {"topics": ["clicks", "orders"], "rack": rack} for m, rack in members.items()},
    }
    assignment = ASSIGNORS["range"].assign(load_scenario(scenario)).to_mapping()
    group = ClassicGroup(
        "billing",
        "range",
        tuple(
            ClassicMember(
                m,
                ("orders", "clicks"),
                assignment.get(m, {}),
                generation=5,
                rack=rack,
                client_id=f"billing-{i}",
                client_host=f"/10.0.{i}.17",
            )
            for i, (m, rack) in enumerate(members.items(), start=1)
        ),
    )
    brokers = tuple(Broker(b, rack) for b, rack in zones.items())
    return Coordinator(topics=topics, brokers=brokers, groups=(group,))


if __name__ == "__main__":
    import sys

    with example() as served:
        print(served.address, flush=True)
        try:
            sys.stdin.read()  # serves until its standard input closes (or Ctrl-C)
        except KeyboardInterrupt:
            pass
