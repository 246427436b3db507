"""An independent battery of seeded-bug assignors: a blind check of ``check_assignor``'s strategies.

Issue 49's done-criterion: "seeded-bug assignors written independently of the strategies, on defect
classes from the corpus, are caught too".  Each assignor here was written as a client maintainer in
another language would write one, speaking the JSON protocol (docs/formats.md, docs/external.md),
from the bug corpus' entries (``assignment-oracle bugs``) and without reading the strategies that
draw the groups or the project's own seeded bugs.  Each mutant is a plausible implementation with ONE
realistic defect, claims the guarantee its real counterpart claims, and is fine on a plain group of
its kind (``plain``); ``trigger`` is a small hand-written group that shows its defect.  The correct
assignors handle every trigger.

``SEEDED`` and ``CORRECT`` are the table ``test_independent_mutants.py`` reads: ``check_assignor``
with its defaults must fail every seeded mutant and pass every correct assignor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import consumer, share, streams


@dataclass(frozen=True)
class Seeded:
    """A seeded-bug assignor: its defect class, the guarantee it claims, and two groups of its kind."""

    name: str
    kind: str
    guarantee: str
    assign: Callable
    defect: str  # the corpus entries (or the class) the defect comes from
    trigger: dict  # a group on which the defect shows
    plain: dict  # a group of the same kind without the defect's shape, on which the guarantee holds


@dataclass(frozen=True)
class Correct:
    name: str
    kind: str
    guarantee: str
    assign: Callable


def _member(topics, owned=None, generation=None):
    spec = {"topics": list(topics)}
    if owned is not None:
        spec["owned"] = owned
    if generation is not None:
        spec["generation"] = generation
    return spec


SEEDED = (
    Seeded(
        "stale-claim-kept",
        "consumer",
        "valid",
        consumer.sticky_keeps_every_claim,
        "kafka-7026 (KIP-341): claims of an older generation kept",
        {
            "topics": {"t": 3},
            "members": {
                "a": _member(["t"], {"t": [1, 2]}, 2),
                "b": _member(["t"], {"t": [0]}, 2),
                "c": _member(["t"], {"t": [0]}, 1),
            },
        },
        {
            "topics": {"t": 3},
            "members": {"a": _member(["t"], {"t": [1, 2]}, 2), "b": _member(["t"], {"t": [0]}, 2), "c": _member(["t"])},
        },
    ),
    Seeded(
        "equal-generation-tie-kept",
        "consumer",
        "valid",
        consumer.sticky_equal_generation_keeps_both,
        "kafka-12984-equal-generation: claims tied at the newest generation all kept",
        {
            "topics": {"t": 4},
            "members": {
                "a": _member(["t"], {"t": [0, 1]}, 5),
                "b": _member(["t"], {"t": [1, 2]}, 5),
                "c": _member(["t"], {"t": [3]}, 5),
            },
        },
        {
            "topics": {"t": 4},
            "members": {
                "a": _member(["t"], {"t": [0, 1]}, 5),
                "b": _member(["t"], {"t": [2]}, 5),
                "c": _member(["t"], {"t": [3]}, 4),
            },
        },
    ),
    Seeded(
        "no-generation-crash",
        "consumer",
        "valid",
        consumer.sticky_requires_generation,
        "aiokafka-1176-no-generation: claims without a generation (V0 user data)",
        {"topics": {"t": 2}, "members": {"a": _member(["t"], {"t": [0]}), "b": _member(["t"])}},
        {"topics": {"t": 2}, "members": {"a": _member(["t"], {"t": [0]}, 1), "b": _member(["t"])}},
    ),
    Seeded(
        "deleted-topic-claim-kept",
        "consumer",
        "valid",
        consumer.sticky_trusts_claims_on_unknown_topics,
        "a claim on a deleted topic (faust-claim-out-of-range's class, kafka-node-range-missing-topic's shape)",
        {
            "topics": {"t": 2},
            "members": {"a": _member(["gone", "t"], {"gone": [0], "t": [0]}, 3), "b": _member(["t"], {"t": [1]}, 3)},
        },
        {
            "topics": {"t": 2},
            "members": {"a": _member(["gone", "t"], {"t": [0]}, 3), "b": _member(["t"], {"t": [1]}, 3)},
        },
    ),
    Seeded(
        "claim-past-partition-count-kept",
        "consumer",
        "valid",
        consumer.sticky_keeps_claims_past_partition_count,
        "faust-claim-out-of-range: a claim on a partition that no longer exists",
        {"topics": {"t": 3}, "members": {"a": _member(["t"], {"t": [5]}, 1), "b": _member(["t"])}},
        {"topics": {"t": 3}, "members": {"a": _member(["t"], {"t": [1]}, 1), "b": _member(["t"])}},
    ),
    Seeded(
        "unsubscribed-claim-kept",
        "consumer",
        "valid",
        consumer.sticky_ignores_subscription_of_owner,
        "kafka4-stale-owner-unsubscribed: a claim on a topic the member resubscribed away from",
        {
            "topics": {"t1": 2, "t2": 2},
            "members": {"a": _member(["t2"], {"t1": [0]}, 2), "b": _member(["t1", "t2"], {"t2": [0]}, 2)},
        },
        {
            "topics": {"t1": 2, "t2": 2},
            "members": {"a": _member(["t1", "t2"], {"t1": [0]}, 2), "b": _member(["t1", "t2"], {"t2": [0]}, 2)},
        },
    ),
    Seeded(
        "empty-subscription-crash",
        "consumer",
        "valid",
        consumer.uniform_crashes_on_empty_subscription,
        "kafka-16930-empty-subscription: a member subscribed to nothing in a heterogeneous group",
        {"topics": {"topic1": 3}, "members": {"A": _member(["topic1"]), "B": _member([])}},
        {"topics": {"t": 2, "u": 1}, "members": {"A": _member(["t"]), "B": _member(["t", "u"])}},
    ),
    Seeded(
        "missing-topic-crash",
        "consumer",
        "per-topic-balance",
        consumer.range_fails_on_missing_topic,
        "kafka-node-range-missing-topic, sarama-missing-topic-fails-rebalance: a subscribed topic missing from the metadata",
        {"topics": {"t0": 2}, "members": {"a": _member(["gone", "t0"]), "b": _member(["t0"])}},
        {"topics": {"t0": 3, "t1": 1}, "members": {"a": _member(["t0", "t1"]), "b": _member(["t0"])}},
    ),
    Seeded(
        "rack-match-dealt-twice",
        "consumer",
        "valid",
        consumer.rack_aware_range_reuses_rack_matches,
        "kafka-14891-co-partitioned-subsets: a partition matched on its rack handed out again",
        {
            "topics": {"t": {"partitions": 2, "racks": [["x"], ["y"]]}},
            "members": {"a": {"topics": ["t"], "rack": "x"}, "b": {"topics": ["t"], "rack": "z"}},
        },
        {
            "topics": {"t": {"partitions": 2, "racks": [["x"], ["y"]]}},
            "members": {"a": {"topics": ["t"], "rack": "z"}, "b": {"topics": ["t"]}},
        },
    ),
    Seeded(
        "non-subscriber-dealt",
        "consumer",
        "valid",
        consumer.round_robin_leaders_topics,
        "kafkajs-roundrobin-subscriptions: the leader's topics dealt to every member, subscribed or not",
        {"topics": {"t0": 2, "t1": 1}, "members": {"a": _member(["t0"]), "b": _member(["t1"])}},
        {"topics": {"t0": 2, "t1": 1}, "members": {"a": _member(["t0", "t1"]), "b": _member(["t0", "t1"])}},
    ),
    Seeded(
        "per-topic-deal-restart",
        "consumer",
        "identical-subscriptions-balance",
        consumer.round_robin_restarting_each_topic,
        "kafka-go-roundrobin-per-topic: each topic dealt from the first member again",
        {"topics": {"t0": 1, "t1": 1}, "members": {"a": _member(["t0", "t1"]), "b": _member(["t0", "t1"])}},
        {"topics": {"t0": 3}, "members": {"a": _member(["t0"]), "b": _member(["t0"])}},
    ),
    Seeded(
        "owners-keep-ceiling",
        "consumer",
        "identical-subscriptions-balance",
        consumer.sticky_keeps_up_to_ceiling,
        "faust-new-member-gets-nothing: owners keep up to the ceiling, a joining member is left short",
        {
            "topics": {"t": 4},
            "members": {
                "a": _member(["t"], {"t": [0, 1]}, 1),
                "b": _member(["t"], {"t": [2, 3]}, 1),
                "c": _member(["t"]),
            },
        },
        {
            "topics": {"t": 4},
            "members": {"a": _member(["t"], {"t": [0, 1]}, 1), "b": _member(["t"], {"t": [2, 3]}, 1)},
        },
    ),
    Seeded(
        "streams-active-claimed-twice",
        "streams",
        "valid",
        streams.streams_keeps_every_previous_active,
        "a task claimed by two members (the Streams analogue of kafka-7026)",
        {
            "kind": "streams",
            "subtopologies": {"s0": {"tasks": 2, "stateful": False}},
            "members": {"m0": {"process": "p0", "active": {"s0": [0]}}, "m1": {"process": "p1", "active": {"s0": [0]}}},
        },
        {
            "kind": "streams",
            "subtopologies": {"s0": {"tasks": 2, "stateful": False}},
            "members": {"m0": {"process": "p0", "active": {"s0": [0]}}, "m1": {"process": "p1", "active": {"s0": [1]}}},
        },
    ),
    Seeded(
        "streams-standby-on-active-process",
        "streams",
        "standby-not-on-same-process",
        streams.streams_standby_apart_by_member,
        "a standby on its active's process (two stream threads of one process)",
        {
            "kind": "streams",
            "subtopologies": {"s0": {"tasks": 1, "stateful": True}},
            "standby_replicas": 1,
            "members": {"m0": {"process": "p0"}, "m1": {"process": "p0"}},
        },
        {
            "kind": "streams",
            "subtopologies": {"s0": {"tasks": 1, "stateful": True}},
            "standby_replicas": 1,
            "members": {"m0": {"process": "p0"}, "m1": {"process": "p1"}},
        },
    ),
    Seeded(
        "share-unassignable-kept",
        "share",
        "valid",
        share.share_keeps_unassignable,
        "share-held-unassignable-kept: a held partition no longer assignable kept",
        {
            "kind": "share",
            "topics": {"t": {"partitions": 2, "assignable": [0]}},
            "members": {"A": {"topics": ["t"], "assigned": {"t": [1]}}},
        },
        {
            "kind": "share",
            "topics": {"t": {"partitions": 2, "assignable": [0]}},
            "members": {"A": {"topics": ["t"], "assigned": {"t": [0]}}},
        },
    ),
    Seeded(
        "share-unsubscribed-kept",
        "share",
        "valid",
        share.share_keeps_unsubscribed,
        "share-unsubscribed-topic-kept: a held partition of a topic no longer subscribed kept",
        {
            "kind": "share",
            "topics": {"t": 1, "u": 1},
            "members": {"A": {"topics": ["t"], "assigned": {"u": [0]}}, "B": {"topics": []}},
        },
        {
            "kind": "share",
            "topics": {"t": 1, "u": 1},
            "members": {"A": {"topics": ["t"], "assigned": {"t": [0]}}, "B": {"topics": ["u"]}},
        },
    ),
)

CORRECT = (
    Correct("generation-aware-sticky", "consumer", "valid", consumer.generation_aware_sticky),
    Correct("range", "consumer", "per-topic-balance", consumer.plain_range),
    Correct("round-robin", "consumer", "identical-subscriptions-balance", consumer.plain_round_robin),
    Correct("streams-sticky", "streams", "standby-not-on-same-process", streams.streams_sticky),
    Correct("share-sticky", "share", "valid", share.share_sticky),
)
