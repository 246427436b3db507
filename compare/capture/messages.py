"""The describe requests no Python client has: KIP-848's, KIP-1071's and KIP-932's, as kafka-python classes.

kafka-python 3 builds its protocol classes from Kafka's own JSON message schemas
(``clients/src/main/resources/common/message/*.json``); it ships DescribeGroups, Metadata,
DescribeCluster, FindCoordinator and DescribeConfigs, not ConsumerGroupDescribe (API key 69, versions
0-1), StreamsGroupDescribe (89, 0-1) or ShareGroupDescribe (77, version 1).  Their schemas are copied
here unchanged from apache/kafka d79bd50 (``schemas/``, Apache License 2.0, headers kept) and turned
into request and response classes by the same machinery, so they are encoded and decoded as Kafka's
own generated classes are.  Also here: the StickyAssignor's user data (kafka-python's class for it, read
as Kafka's ``StickyAssignor.memberData`` reads it).

Needs the ``capture`` extra (kafka-python); imported only by what talks to a cluster.
"""

from __future__ import annotations

from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
from kafka.protocol.api_message import ApiMessage

from assignment_oracle.compare.capture import schemas

__all__ = [
    "ConsumerGroupDescribeRequest",
    "ConsumerGroupDescribeResponse",
    "ShareGroupDescribeRequest",
    "ShareGroupDescribeResponse",
    "StreamsGroupDescribeRequest",
    "StreamsGroupDescribeResponse",
    "sticky_previous_assignment",
]


class ConsumerGroupDescribeRequest(ApiMessage, load_json=schemas):
    pass


class ConsumerGroupDescribeResponse(ApiMessage, load_json=schemas):
    pass


class StreamsGroupDescribeRequest(ApiMessage, load_json=schemas):
    pass


class StreamsGroupDescribeResponse(ApiMessage, load_json=schemas):
    pass


class ShareGroupDescribeRequest(ApiMessage, load_json=schemas):
    pass


class ShareGroupDescribeResponse(ApiMessage, load_json=schemas):
    pass


def sticky_previous_assignment(user_data: bytes | None) -> tuple[dict[str, list[int]], int | None] | None:
    """The previous assignment and generation a StickyAssignor member encoded in its user data.

    As Kafka's ``StickyAssignor.memberData`` (d79bd50): the V1 schema (previous assignment, generation),
    else V0 (no generation); ``None`` when there is no user data or neither schema reads it (Kafka then
    ignores the member's previous assignment).  The user data has no version prefix.
    """
    if not user_data:
        return None
    for version in (1, 0):
        try:
            data = StickyAssignorUserData.decode(bytes(user_data), version=version, header=False)
        except Exception:  # noqa: BLE001 - any decoding failure means: try the older schema, as Kafka does
            continue
        previous: dict[str, list[int]] = {}
        for topic, partitions in data.previous_assignment:
            previous.setdefault(topic, []).extend(partitions)
        return previous, (data.generation if version == 1 else None)
    return None
