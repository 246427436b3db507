"""Read a running group from its cluster: read-only Admin requests, bounded in time, errors in one line.

Guarantee: only describe and metadata requests are sent (ApiVersions, Metadata, DescribeCluster,
FindCoordinator, DescribeGroups, ConsumerGroupDescribe, StreamsGroupDescribe, ShareGroupDescribe,
DescribeConfigs on the group; SASL's handshake), every wait ends within ``timeout`` seconds, and every
failure -- an address nobody answers at, a TLS or SASL failure, an unknown or dead group, a request the
cluster refuses -- is one :class:`~assignment_oracle.problem.errors.InputError` line (exit 2) that never
holds a value of the client properties.

The client is kafka-python 3.0's admin client (extra ``capture``): it connects, authenticates, finds the
group's coordinator and the brokers' API versions; the describes go through its connection manager,
classic ones decoded with its own ``ConsumerProtocolSubscription``/``Assignment`` classes (its
``describe_groups`` turns user data into text), the others with :mod:`.messages`.  Which describe
answers decides the kind of group, as Kafka's ``Admin.describeConsumerGroups`` does: ConsumerGroupDescribe
first (a classic group is ``GROUP_ID_NOT_FOUND`` there), then StreamsGroupDescribe and
ShareGroupDescribe where the broker has them, then DescribeGroups.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from contextlib import contextmanager
from typing import Any, Iterator

from assignment_oracle.compare.capture.client_config import ClientConfig
from assignment_oracle.compare.capture.group import (
    Capture,
    ClassicMember,
    ConsumerMember,
    GroupDescription,
    ShareMember,
    StreamsMember,
    Subtopology,
    TopicMeta,
    capture_from,
    kafka_uuid_text,
)
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.extras import require

__all__ = ["DEFAULT_TIMEOUT", "GROUP_TYPES", "capture_live", "describe_live"]

#: Seconds the whole capture may take by default (``--timeout``).
DEFAULT_TIMEOUT = 30.0
#: ``--type``: which describe to use (``auto``: the one that knows the group).
GROUP_TYPES = ("auto", "classic", "consumer", "streams", "share")

#: Kafka's error codes read here (``org.apache.kafka.common.protocol.Errors``).
_GROUP_AUTHORIZATION_FAILED = 30
_GROUP_ID_NOT_FOUND = 69
_UNKNOWN_TOPIC_OR_PARTITION = 3
#: API keys of the describes.
_DESCRIBES = {"consumer": 69, "streams": 89, "share": 77, "classic": 15}
#: The Streams group configs the scenario reads (GroupConfig at d79bd50).
_STREAMS_CONFIGS = ("streams.num.standby.replicas", "streams.rack.aware.assignment.tags")

_ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def capture_live(
    bootstrap: str,
    group: str,
    *,
    config: ClientConfig | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    group_type: str = "auto",
) -> Capture:
    """The :class:`Capture` of ``group`` on the cluster at ``bootstrap`` (``HOST:PORT[,HOST:PORT...]``).

    Raises
    ------
    InputError
        A malformed address, nobody answering within ``timeout``, TLS or SASL refused, the group unknown,
        dead, empty or of a kind not judged, a request refused (authorization): one line each.
    MissingExtra
        kafka-python is not installed (the ``capture`` extra).
    """
    description, topics, racks = describe_live(bootstrap, group, config=config, timeout=timeout, group_type=group_type)
    return capture_from(description, topics, racks)


def describe_live(
    bootstrap: str,
    group: str,
    *,
    config: ClientConfig | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    group_type: str = "auto",
) -> tuple[GroupDescription, dict[str, TopicMeta], dict[int, str | None]]:
    """The group's description, its topics' metadata and the brokers' racks, read from the cluster."""
    require("capture", "assignment-oracle capture")
    servers = _servers(bootstrap)
    if group_type not in GROUP_TYPES:
        raise InputError("--type", "", f"must be one of {', '.join(GROUP_TYPES)}, got {group_type!r}")
    if not (0 < timeout <= 3600):
        raise InputError("--timeout", "", f"must be a positive number of seconds up to 3600, got {timeout:g}")
    deadline = time.monotonic() + timeout
    with _session(servers, bootstrap, config or ClientConfig(), timeout) as admin:
        coordinator = _call(admin, deadline, bootstrap, admin._find_coordinator_id, group)
        description = _describe(admin, deadline, bootstrap, group, coordinator, group_type)
        topics = _topics(admin, deadline, bootstrap, description.topic_names())
        racks = _broker_racks(admin, deadline, bootstrap)
        if description.kind == "streams":
            description = _with_configs(admin, deadline, bootstrap, description)
    return description, topics, racks


# -- the session: connect, authenticate, and say what went wrong ------------------------------------------


def _servers(bootstrap: str) -> list[str]:
    servers = [s.strip() for s in bootstrap.split(",")]
    for server in servers:
        match = _ADDRESS.match(server)
        if not match or not (0 < int(match.group(2)) < 65536):
            raise InputError("--bootstrap-server", "", f"{server!r} is not HOST:PORT")
    return servers


class _Failures(logging.Handler):
    """kafka-python's log while a capture runs: kept from the terminal (it would print warnings, and at
    debug level its configuration), read for the last exception it reported, to say why a connection
    failed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.errors: list[BaseException] = []
        #: The client being built, once it exists: closed at the first authentication failure, which
        #: kafka-python's bootstrap would otherwise retry until the timeout.
        self.client: Any = None

    def emit(self, record: logging.LogRecord) -> None:
        import kafka.errors as errors

        args = record.args if isinstance(record.args, tuple) else ()
        seen = [a for a in args if isinstance(a, BaseException)]
        self.errors.extend(seen)
        refused = (
            errors.SaslAuthenticationFailedError,
            errors.UnsupportedSaslMechanismError,
            errors.AuthorizationError,
        )
        if self.client is not None and any(isinstance(e, refused) for e in seen):
            self.client._manager.close()  # the bootstrap loop ends at once (it runs while not closed)


@contextmanager
def _quiet_kafka() -> Iterator[_Failures]:
    logger = logging.getLogger("kafka")
    handler = _Failures()
    saved = (logger.level, logger.propagate, list(logger.handlers))
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
        logger.handlers[:] = saved[2]


@contextmanager
def _session(servers: list[str], bootstrap: str, config: ClientConfig, timeout: float) -> Iterator[Any]:
    import kafka.errors as errors
    from kafka.admin import KafkaAdminClient

    milliseconds = int(timeout * 1000)
    request = min(milliseconds, config.request_timeout_ms or milliseconds)
    options = {
        "bootstrap_servers": servers,
        "client_id": "assignment-oracle-capture",
        "bootstrap_timeout_ms": milliseconds,
        "request_timeout_ms": request,
        "socket_connection_setup_timeout_ms": min(request, 10_000),
        "socket_connection_setup_timeout_max_ms": min(request, 10_000),
        "reconnect_backoff_max_ms": 1_000,
        **config.options,
    }
    with _quiet_kafka() as failures:
        from kafka.net.compat import KafkaNetClient

        def client(**configs):
            failures.client = KafkaNetClient(**configs)
            return failures.client

        options["kafka_client"] = client
        try:
            admin = KafkaAdminClient(**{k: v for k, v in options.items() if k in KafkaAdminClient.DEFAULT_CONFIG})
        except errors.KafkaError as err:
            _stop(failures.client)
            raise _connection_error(bootstrap, timeout, err, failures.errors) from None
        try:
            yield admin
        finally:
            admin.close()


def _stop(client) -> None:
    """Close a client whose admin was never built (its IO thread runs from the start)."""
    if client is None:
        return
    try:
        client.close()
    finally:
        client._manager._net.stop()


def _connection_error(bootstrap: str, timeout: float, err: BaseException, seen: list[BaseException]) -> InputError:
    """One line for a failed bootstrap, from what kafka-python reported on the way (no configuration value)."""
    import kafka.errors as errors

    causes = [*seen, err]
    for cause in reversed(causes):
        if isinstance(cause, errors.UnsupportedSaslMechanismError) or getattr(cause, "errno", None) == 33:
            return InputError(
                bootstrap, "", "authentication failed: the brokers do not enable this SASL mechanism (sasl.mechanism)"
            )
        if isinstance(cause, errors.SaslAuthenticationFailedError):
            return InputError(
                bootstrap, "", "authentication failed: the brokers refused the SASL credentials (sasl.jaas.config)"
            )
        if isinstance(cause, errors.AuthorizationError):
            return InputError(bootstrap, "", f"not authorized to connect ({type(cause).__name__})")
    text = " ".join(str(c) for c in causes).lower()
    if "handshake failed" in text or "ssl" in text or "certificate" in text:
        return InputError(bootstrap, "", "the TLS handshake failed (ssl.* settings, or the listener is not TLS)")
    return InputError(
        bootstrap,
        "",
        f"cannot reach the cluster: no broker answered within {timeout:g} s (address, port, listener, firewall)",
    )


def _call(admin, deadline: float, bootstrap: str, coroutine, *args):
    """Run one of the admin client's coroutines on its IO thread; a Kafka error is one line."""
    import kafka.errors as errors

    if time.monotonic() > deadline:
        raise InputError(bootstrap, "", "the capture ran out of time (--timeout)")
    try:
        return admin._manager.run(coroutine, *args)
    except errors.KafkaTimeoutError:
        raise InputError(bootstrap, "", "the cluster did not answer in time (--timeout)") from None
    except (errors.GroupAuthorizationFailedError, errors.TopicAuthorizationFailedError) as err:
        raise InputError(
            bootstrap, "", f"not authorized: {type(err).__name__} (the principal needs DESCRIBE)"
        ) from None
    except (errors.SaslAuthenticationFailedError, errors.UnsupportedSaslMechanismError) as err:
        raise InputError(bootstrap, "", f"authentication failed ({type(err).__name__})") from None
    except errors.KafkaError as err:
        raise InputError(bootstrap, "", f"the cluster refused a request: {type(err).__name__}") from None


def _send(admin, deadline: float, bootstrap: str, request, node_id=None):
    async def send():
        return await admin._manager.send(request, node_id=node_id)

    return _call(admin, deadline, bootstrap, send)


def _supports(admin, api_key: int) -> bool:
    versions = admin._manager.broker_version_data.api_versions or {}
    return api_key in versions


# -- the describes -----------------------------------------------------------------------------------------


def _describe(admin, deadline: float, bootstrap: str, group: str, coordinator, group_type: str) -> GroupDescription:
    order = ("consumer", "streams", "share", "classic") if group_type == "auto" else (group_type,)
    source = f"bootstrap {bootstrap}"
    not_found: list[str] = []
    for kind in order:
        if kind != "classic" and not _supports(admin, _DESCRIBES[kind]):
            if group_type != "auto":
                raise InputError(bootstrap, "", f"the brokers do not support {_API_NAMES[kind]} ({kind} groups)")
            continue
        described = _READERS[kind](admin, deadline, bootstrap, group, coordinator)
        if described is None:
            not_found.append(kind)
            continue
        return GroupDescription(**{**described, "source": source})
    raise InputError(group, "", f"no such group on {bootstrap} (looked for a {' or '.join(not_found)} group)")


_API_NAMES = {
    "consumer": "ConsumerGroupDescribe",
    "streams": "StreamsGroupDescribe",
    "share": "ShareGroupDescribe",
    "classic": "DescribeGroups",
}


def _group_error(bootstrap: str, group: str, row) -> bool:
    """True when the row says the group is not of this type (or unknown); raise for any other error."""
    code = row.error_code
    if code == 0:
        return False
    if code == _GROUP_ID_NOT_FOUND:
        return True
    if code == _GROUP_AUTHORIZATION_FAILED:
        raise InputError(
            bootstrap, "", f"not authorized to describe group {group!r} (the principal needs DESCRIBE on it)"
        )
    import kafka.errors as errors

    raise InputError(bootstrap, "", f"describing group {group!r} failed: {errors.for_code(code).__name__}")


def _classic(admin, deadline, bootstrap, group, coordinator) -> dict | None:
    from kafka.protocol.admin import DescribeGroupsRequest
    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription

    from assignment_oracle.compare.capture.messages import sticky_previous_assignment

    response = _send(admin, deadline, bootstrap, DescribeGroupsRequest(groups=[group]), coordinator)
    row = response.groups[0]
    if _group_error(bootstrap, group, row):
        return None
    if row.group_state == "Dead" and not row.members:
        if row.protocol_type == "":  # Kafka's answer for a group it has never heard of (DescribeGroups < v6)
            return None
    if row.protocol_type not in ("consumer", ""):
        raise InputError(
            group, "", f"is a classic group of protocol type {row.protocol_type!r}: capture reads consumer groups"
        )
    if row.protocol_data == "stream":
        raise InputError(
            group,
            "",
            "is a Kafka Streams group on the classic protocol (assignor 'stream'): capture reads Streams groups of KIP-1071 (group.protocol=streams)",
        )
    members = []
    for m in row.members:
        try:
            metadata = bytes(m.member_metadata or b"")
            version = int.from_bytes(metadata[:2], "big", signed=True) if len(metadata) >= 2 else 0
            subscription = ConsumerProtocolSubscription.decode(metadata) if metadata else None
            assignment = ConsumerProtocolAssignment.decode(bytes(m.member_assignment)) if m.member_assignment else None
        except Exception:  # noqa: BLE001 - any malformed bytes: one line, as Kafka's SchemaException
            raise InputError(
                group, f"member {m.member_id}", "its subscription or assignment is not the consumer protocol's"
            ) from None
        user_data = bytes(subscription.user_data) if subscription and subscription.user_data is not None else None
        members.append(
            ClassicMember(
                member_id=m.member_id,
                client_id=m.client_id,
                client_host=m.client_host,
                instance_id=m.group_instance_id,
                topics=tuple(subscription.topics) if subscription else (),
                owned=_topic_table(subscription.owned_partitions if subscription and version >= 1 else ()),
                generation=subscription.generation_id if subscription and version >= 2 else -1,
                rack=(subscription.rack_id or None) if subscription and version >= 3 else None,
                user_data=user_data,
                subscription_version=version,
                assignment=_topic_table(assignment.assigned_partitions if assignment else ()),
                assignment_user_data=(
                    bytes(assignment.user_data) if assignment and assignment.user_data is not None else None
                ),
                sticky_user_data=_sticky(row.protocol_data, user_data, sticky_previous_assignment),
            )
        )
    return {
        "group_id": group,
        "kind": "classic",
        "state": row.group_state,
        "assignor": row.protocol_data or None,
        "members": tuple(members),
    }


def _sticky(assignor: str, user_data: bytes | None, read):
    """The StickyAssignor's user data, for the assignors that read it (sticky; cooperative-sticky's v0)."""
    if assignor == "sticky":
        return read(user_data)
    if assignor == "cooperative-sticky" and user_data and len(user_data) >= 4:
        return {}, int.from_bytes(user_data[:4], "big", signed=True)  # COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0
    return None


def _topic_table(rows) -> dict[str, tuple[int, ...]]:
    table: dict[str, list[int]] = {}
    for row in rows:
        topic, partitions = (row.topic, row.partitions) if hasattr(row, "topic") else row
        table.setdefault(topic, []).extend(partitions)
    return {t: tuple(ps) for t, ps in table.items()}


def _assignment_table(assignment) -> dict[str, tuple[int, ...]]:
    table: dict[str, list[int]] = {}
    for row in assignment.topic_partitions if assignment is not None else ():
        table.setdefault(row.topic_name, []).extend(row.partitions)
    return {t: tuple(ps) for t, ps in table.items()}


def _described(admin, deadline, bootstrap, group, coordinator, request_type, member):
    """The group's row of a KIP-848, KIP-1071 or KIP-932 describe (``request_type``, a request of
    :mod:`compare.capture.messages`) and its members, each decoded by ``member``; None when the coordinator
    answered with an error for the group."""
    request = request_type(group_ids=[group], include_authorized_operations=False)
    row = _send(admin, deadline, bootstrap, request, coordinator).groups[0]
    return None if _group_error(bootstrap, group, row) else (row, tuple(member(m) for m in row.members))


def _described_member(m) -> dict[str, Any]:
    """What every modern describe (KIP-848, KIP-1071, KIP-932) says of a member: its id, client, host, rack (an
    empty rack is none) and epoch."""
    return {
        "member_id": m.member_id,
        "client_id": m.client_id,
        "client_host": m.client_host,
        "rack": m.rack_id or None,
        "epoch": m.member_epoch,
    }


def _consumer_member(m) -> ConsumerMember:
    return ConsumerMember(
        **_described_member(m),
        topics=tuple(m.subscribed_topic_names),
        assignment=_assignment_table(m.assignment),
        instance_id=m.instance_id,
        regex=m.subscribed_topic_regex,
        target=_assignment_table(m.target_assignment),
        member_type=m.member_type if m.member_type is not None else -1,
    )


def _consumer(admin, deadline, bootstrap, group, coordinator) -> dict | None:
    from assignment_oracle.compare.capture.messages import ConsumerGroupDescribeRequest

    described = _described(
        admin, deadline, bootstrap, group, coordinator, ConsumerGroupDescribeRequest, _consumer_member
    )
    if described is None:
        return None
    row, members = described
    return {
        "group_id": group,
        "kind": "consumer",
        "state": row.group_state,
        "assignor": row.assignor_name or None,
        "members": members,
        "epoch": row.group_epoch,
        "assignment_epoch": row.assignment_epoch,
    }


def _tasks(assignment) -> dict[str, dict[str, tuple[int, ...]]]:
    out: dict[str, dict[str, tuple[int, ...]]] = {}
    for role, rows in (
        ("active", assignment.active_tasks),
        ("standby", assignment.standby_tasks),
        ("warmup", assignment.warmup_tasks),
    ):
        table: dict[str, list[int]] = {}
        for row in rows or ():
            table.setdefault(row.subtopology_id, []).extend(row.partitions)
        out[role] = {s: tuple(ps) for s, ps in table.items()}
    return out


def _offsets(rows) -> dict[str, dict[int, int]]:
    table: dict[str, dict[int, int]] = {}
    for row in rows or ():
        table.setdefault(row.subtopology_id, {})[row.partition] = row.offset
    return table


def _streams_member(m) -> StreamsMember:
    return StreamsMember(
        **_described_member(m),
        instance_id=m.instance_id,
        process_id=m.process_id,
        client_tags={kv.key: kv.value for kv in m.client_tags},
        task_offsets=_offsets(m.task_offsets),
        task_end_offsets=_offsets(m.task_end_offsets),
        current=_tasks(m.assignment),
        target=_tasks(m.target_assignment),
        is_classic=bool(m.is_classic),
    )


def _streams(admin, deadline, bootstrap, group, coordinator) -> dict | None:
    from assignment_oracle.compare.capture.messages import StreamsGroupDescribeRequest

    described = _described(admin, deadline, bootstrap, group, coordinator, StreamsGroupDescribeRequest, _streams_member)
    if described is None:
        return None
    row, members = described
    topology = row.topology
    if topology is None or topology.subtopologies is None:
        raise InputError(
            group, "", "the Streams group's topology is not initialized (source topics missing or not yet configured)"
        )
    subtopologies = tuple(
        Subtopology(
            subtopology_id=s.subtopology_id,
            source_topics=tuple(s.source_topics),
            repartition_source_topics=tuple((t.name, t.partitions) for t in s.repartition_source_topics),
            changelog_topics=tuple(t.name for t in s.state_changelog_topics),
        )
        for s in topology.subtopologies
    )
    return {
        "group_id": group,
        "kind": "streams",
        "state": row.group_state,
        "assignor": getattr(row, "assignor_name", None) or None,
        "members": members,
        "epoch": row.group_epoch,
        "assignment_epoch": row.assignment_epoch,
        "subtopologies": subtopologies,
    }


def _share_member(m) -> ShareMember:
    return ShareMember(
        **_described_member(m), topics=tuple(m.subscribed_topic_names), assignment=_assignment_table(m.assignment)
    )


def _share(admin, deadline, bootstrap, group, coordinator) -> dict | None:
    from assignment_oracle.compare.capture.messages import ShareGroupDescribeRequest

    described = _described(admin, deadline, bootstrap, group, coordinator, ShareGroupDescribeRequest, _share_member)
    if described is None:
        return None
    row, members = described
    return {
        "group_id": group,
        "kind": "share",
        "state": row.group_state,
        "assignor": row.assignor_name or None,
        "members": members,
        "epoch": row.group_epoch,
        "assignment_epoch": row.assignment_epoch,
    }


_READERS = {"consumer": _consumer, "streams": _streams, "share": _share, "classic": _classic}


# -- topics, racks, configs --------------------------------------------------------------------------------


def _topics(admin, deadline, bootstrap, names: tuple[str, ...]) -> dict[str, TopicMeta]:
    if not names:
        return {}
    from kafka.protocol.metadata import MetadataRequest

    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names],
        allow_auto_topic_creation=False,
    )
    response = _send(admin, deadline, bootstrap, request)
    topics: dict[str, TopicMeta] = {}
    for row in response.topics:
        if row.error_code == _UNKNOWN_TOPIC_OR_PARTITION:
            continue  # a subscription to a topic the cluster does not have: tolerated, as Kafka does
        if row.error_code != 0:
            import kafka.errors as errors

            raise InputError(
                bootstrap, "", f"reading topic {row.name!r} failed: {errors.for_code(row.error_code).__name__}"
            )
        partitions = sorted(row.partitions, key=lambda p: p.partition_index)
        replicas = tuple(tuple(p.replica_nodes) for p in partitions)
        topic_id = getattr(row, "topic_id", None)
        topics[row.name] = TopicMeta(
            partitions=len(partitions),
            replicas=replicas,
            topic_id=kafka_uuid_text(_uuid_bytes(topic_id)) if topic_id is not None else None,
        )
    return topics


def _uuid_bytes(value) -> bytes:
    return value.bytes if isinstance(value, uuid.UUID) else uuid.UUID(str(value)).bytes


def _broker_racks(admin, deadline, bootstrap) -> dict[int, str | None]:
    from kafka.protocol.admin import DescribeClusterRequest

    if _supports(admin, 60):
        response = _send(
            admin, deadline, bootstrap, DescribeClusterRequest(include_cluster_authorized_operations=False)
        )
        if response.error_code == 0:
            return {b.broker_id: b.rack or None for b in response.brokers}
    return {b.node_id: b.rack or None for b in admin._manager.cluster.brokers()}


def _with_configs(admin, deadline, bootstrap, description: GroupDescription) -> GroupDescription:
    """The Streams group's standby replicas and rack-aware tags (group configs), where the broker says."""
    from dataclasses import replace

    from kafka.protocol.admin import DescribeConfigsRequest

    Resource = DescribeConfigsRequest.DescribeConfigsResource
    request = DescribeConfigsRequest(
        resources=[
            Resource(resource_type=32, resource_name=description.group_id, configuration_keys=list(_STREAMS_CONFIGS))
        ],
        include_synonyms=False,
        include_documentation=False,
    )
    try:
        response = _send(admin, deadline, bootstrap, request)
    except InputError:
        return description  # the scenario says what was not read (capture_from's notes)
    configs: dict[str, str] = {}
    for result in response.results:
        if result.error_code != 0:
            continue
        for entry in result.configs:
            if entry.value is not None:
                configs[entry.name] = entry.value
    return replace(description, configs=configs)
