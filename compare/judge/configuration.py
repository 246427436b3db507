"""What an operator sets to run an assignor: the client, the setting, and the rebalance protocol it runs.

Guarantee: every assignor a consumer can be configured with today has exactly one entry here, naming the
setting in the client's own vocabulary -- Kafka's Java consumer: ``group.protocol=classic`` (the default)
with ``partition.assignment.strategy`` set to the assignor's class, or ``group.protocol=consumer``
(KIP-848) with the broker's ``group.consumer.assignors`` (the consumer may pick one of them with
``group.remote.assignor``); the other clients: their own option -- and the protocol that setting runs:

* ``eager``: every rebalance revokes every partition of every member first (a stop-the-world rebalance);
* ``cooperative`` (KIP-429): only the partitions that change owner are revoked, in a follow-up rebalance;
* ``consumer`` (KIP-848): the group coordinator computes the assignment; members revoke and receive
  partitions one heartbeat at a time, with no group-wide barrier.

:func:`configuration` looks one up; :data:`STOP_THE_WORLD` ranks the protocols by how much of the group a
rebalance stops (what a tie between assignors is decided on).  Assignors with no entry -- proposals never
shipped (KIP-49's fair, KIP-315's stream-join), behaviour a newer release replaced (the sticky assignor
before KIP-341, the 2.8-3.4 constrained path, uniform before KAFKA-18688), librdkafka's mock broker's own
assignor -- are judged everywhere but never recommended.

Sources: Kafka's ``ConsumerConfig`` and ``GroupCoordinatorConfig`` at apache/kafka d79bd50 (the assignor
classes, ``group.protocol``, ``group.remote.assignor``, ``group.consumer.assignors``); each client
library's own option at the version :mod:`heuristics` runs (librdkafka ``CONFIGURATION.md``,
kafka-python ``KafkaConsumer``, aiokafka ``AIOKafkaConsumer``, kafkajs ``consumer`` options, kafka-node
``ConsumerGroup`` options, sarama ``Config.Consumer.Group.Rebalance``, kafka-go ``ReaderConfig``, Faust's
``App``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

__all__ = [
    "BALANCE_EDGE_PCT",
    "CONFIGURATIONS",
    "Choice",
    "Configuration",
    "MOVES_TRADE_PCT",
    "Measured",
    "PROTOCOL_TEXT",
    "RESOLUTION_PCT",
    "STOP_THE_WORLD",
    "choose",
    "configuration",
    "rank_key",
]

#: How much of the group one rebalance stops, per protocol (lower is less): what a tie is decided on.
STOP_THE_WORLD: Mapping[str, int] = MappingProxyType({"consumer": 0, "cooperative": 1, "eager": 2})

#: The protocols in a reader's words.
PROTOCOL_TEXT: Mapping[str, str] = MappingProxyType(
    {
        "eager": "eager: every rebalance stops the whole group",
        "cooperative": "cooperative (KIP-429): only moved partitions pause",
        "consumer": "KIP-848: the broker assigns, no group-wide stop",
    }
)

_JAVA = "org.apache.kafka.clients.consumer."


@dataclass(frozen=True)
class Configuration:
    """How to run one assignor."""

    assignor: str
    #: The client (and the release whose behaviour the port follows).
    client: str
    #: What to set, in the client's own words.
    setting: str
    #: ``eager``, ``cooperative`` or ``consumer`` (module docstring).
    protocol: str
    #: Whether it is what the protocol runs when nothing is set (KIP-848's ``uniform``): preferred in a tie.
    default: bool = False

    @property
    def stop_the_world(self) -> int:
        """:data:`STOP_THE_WORLD`'s rank of this protocol (0: no group-wide stop)."""
        return STOP_THE_WORLD[self.protocol]

    def text(self) -> str:
        """``client: setting (protocol)``: the verdict's one line."""
        return f"{self.client}: {self.setting} ({PROTOCOL_TEXT[self.protocol]})"

    def short(self) -> str:
        """The setting without the client's package names, and the protocol in one word: what a table shows
        (``partition.assignment.strategy=CooperativeStickyAssignor (cooperative)``)."""
        setting = self.setting.replace(_JAVA, "").replace("group.protocol=classic, ", "")
        setting = setting.split(" (")[0]
        client = "" if self.client.startswith("Java") else f"{self.client}: "
        protocol = "KIP-848" if self.protocol == "consumer" else self.protocol
        release = self.client.partition("(as ")[2].removesuffix(")")  # a port of an older release
        return f"{client}{setting} ({protocol}{'; as ' + release if release else ''})"


def _classic(assignor: str, cls: str, protocol: str, release: str) -> Configuration:
    return Configuration(
        assignor,
        f"Java consumer ({release})",
        f"group.protocol=classic, partition.assignment.strategy={_JAVA}{cls}",
        protocol,
    )


def _kip848(assignor: str, name: str, note: str, default: bool = False) -> Configuration:
    return Configuration(
        assignor,
        "Java consumer, Kafka 4.0+ brokers",
        f"group.protocol=consumer, broker group.consumer.assignors={name}{note}",
        "consumer",
        default,
    )


_ENTRIES = (
    _classic("range", "RangeAssignor", "eager", "Kafka 4.x"),
    _classic("roundrobin", "RoundRobinAssignor", "eager", "Kafka 4.x"),
    _classic("sticky", "StickyAssignor", "eager", "as Kafka 2.3-2.7 clients run it"),
    _classic("kafka4-sticky", "StickyAssignor", "eager", "Kafka 4.x"),
    _classic("cooperative-sticky", "CooperativeStickyAssignor", "cooperative", "as Kafka 2.4-2.7 clients run it"),
    _classic("kafka4-cooperative-sticky", "CooperativeStickyAssignor", "cooperative", "Kafka 4.x"),
    _kip848("uniform", "uniform", " (the default; a consumer picks it with group.remote.assignor=uniform)", True),
    _kip848("server-range", "range", " (a consumer picks it with group.remote.assignor=range)"),
    Configuration(
        "kafka-python:range",
        "kafka-python 3.0",
        "KafkaConsumer(partition_assignment_strategy=[RangePartitionAssignor])",
        "eager",
    ),
    Configuration(
        "kafka-python:roundrobin",
        "kafka-python 3.0",
        "KafkaConsumer(partition_assignment_strategy=[RoundRobinPartitionAssignor])",
        "eager",
    ),
    Configuration(
        "kafka-python:sticky",
        "kafka-python 3.0",
        "KafkaConsumer(partition_assignment_strategy=[StickyPartitionAssignor])",
        "eager",
    ),
    Configuration("librdkafka:range", "librdkafka", "partition.assignment.strategy=range", "eager"),
    Configuration("librdkafka:roundrobin", "librdkafka", "partition.assignment.strategy=roundrobin", "eager"),
    Configuration(
        "librdkafka:cooperative-sticky", "librdkafka", "partition.assignment.strategy=cooperative-sticky", "cooperative"
    ),
    Configuration(
        "aiokafka:range",
        "aiokafka 0.14",
        "AIOKafkaConsumer(partition_assignment_strategy=(RangePartitionAssignor,))",
        "eager",
    ),
    Configuration(
        "aiokafka:roundrobin",
        "aiokafka 0.14",
        "AIOKafkaConsumer(partition_assignment_strategy=(RoundRobinPartitionAssignor,))",
        "eager",
    ),
    Configuration(
        "aiokafka:sticky",
        "aiokafka 0.14",
        "AIOKafkaConsumer(partition_assignment_strategy=(StickyPartitionAssignor,))",
        "eager",
    ),
    Configuration(
        "kafkajs:roundrobin", "kafkajs 2.2", "consumer({partitionAssigners: [PartitionAssigners.roundRobin]})", "eager"
    ),
    Configuration("kafka-node:range", "kafka-node 5.0", "ConsumerGroup({protocol: ['range']})", "eager"),
    Configuration("kafka-node:roundrobin", "kafka-node 5.0", "ConsumerGroup({protocol: ['roundrobin']})", "eager"),
    Configuration("faust:copartitioned", "Faust 0.15", "faust.App (its PartitionAssignor, the only one)", "eager"),
    Configuration(
        "sarama:range",
        "sarama 1.45",
        "Consumer.Group.Rebalance.GroupStrategies = []BalanceStrategy{NewBalanceStrategyRange()}",
        "eager",
    ),
    Configuration(
        "sarama:roundrobin",
        "sarama 1.45",
        "Consumer.Group.Rebalance.GroupStrategies = []BalanceStrategy{NewBalanceStrategyRoundRobin()}",
        "eager",
    ),
    Configuration(
        "sarama:sticky",
        "sarama 1.45",
        "Consumer.Group.Rebalance.GroupStrategies = []BalanceStrategy{NewBalanceStrategySticky()}",
        "eager",
    ),
    Configuration(
        "kafka-go:range", "kafka-go 0.4", "ReaderConfig{GroupBalancers: []GroupBalancer{RangeGroupBalancer{}}}", "eager"
    ),
    Configuration(
        "kafka-go:roundrobin",
        "kafka-go 0.4",
        "ReaderConfig{GroupBalancers: []GroupBalancer{RoundRobinGroupBalancer{}}}",
        "eager",
    ),
    Configuration(
        "kafka-go:rack-affinity",
        "kafka-go 0.4",
        "ReaderConfig{GroupBalancers: []GroupBalancer{RackAffinityGroupBalancer{Rack: ...}}}",
        "eager",
    ),
)

#: Assignor name -> how to run it (module docstring).
CONFIGURATIONS: Mapping[str, Configuration] = MappingProxyType({c.assignor: c for c in _ENTRIES})


def configuration(assignor: str) -> Configuration | None:
    """How to run ``assignor``, or ``None`` when no consumer can be configured with it today."""
    return CONFIGURATIONS.get(assignor)


# -- choosing among configurable assignors ------------------------------------------------------------------

#: Differences below this many percentage points are ties (noise in the last digit does not decide).
RESOLUTION_PCT = 0.1
#: A balance edge (the busiest member over the ideal) smaller than this many points ...
BALANCE_EDGE_PCT = 1.0
#: ... is not worth this many more points of the group's partitions moved per rebalance: the assignor that
#: moves fewer is chosen, and the trade is said.
MOVES_TRADE_PCT = 10.0


@dataclass(frozen=True)
class Measured:
    """One assignor's results on a set of groups, in an operator's units (percent; ``None``: not measured,
    e.g. moves on groups without previous owners)."""

    assignor: str
    #: Share of its results that were valid (0..1; a timeout or an error counts against it).
    valid: float
    #: Share co-partitioned (0..1) where join groups were judged, else ``None``.
    co_partitioned: float | None = None
    #: The busiest member's load above the most balanced assignment's, in percent (mean).
    busiest_over_ideal: float | None = None
    #: Partitions read across racks, percent of the group's partitions (mean).
    cross_rack: float | None = None
    #: Partitions moved per rebalance, percent of the group's partitions (mean).
    moved: float | None = None


@dataclass(frozen=True)
class Choice:
    """The assignor to configure, and why."""

    choose: str
    configuration: Configuration
    #: Configurable assignors equal to the choice on every measure (it won on fewer stop-the-world
    #: rebalances, then the order given).
    tied: tuple[str, ...]
    #: The next configurable assignor that is not tied.
    runner_up: str | None
    #: The assignor the measures ranked first when the trade rule chose another (module constants).
    traded: str | None
    #: One sentence: why this one.
    why: str
    #: The same in a few words (a table's cell).
    reason: str = ""


def _points(value: float | None) -> int:
    return 0 if value is None or value != value else round(value / RESOLUTION_PCT)


def _tie(assignor: str) -> tuple[int, int, int]:
    """How a tie on every measure is decided: fewer stop-the-world rebalances, then the protocol's default,
    then today's release before an older one's behaviour (``kafka4-cooperative-sticky`` before the 2.4 port)."""
    config = CONFIGURATIONS[assignor]
    return config.stop_the_world, 0 if config.default else 1, 1 if "(as " in config.client else 0


def rank_key(m: Measured) -> tuple:
    """The measures :func:`choose` ranks on, in order (smaller is better)."""
    return _key(m)


def _key(m: Measured) -> tuple:
    co = m.co_partitioned if m.co_partitioned is not None and m.co_partitioned == m.co_partitioned else 0.0
    return (-round(m.valid, 6), -round(co, 6), _points(m.busiest_over_ideal), _points(m.cross_rack), _points(m.moved))


def _missing(value: float | None) -> bool:
    return value is None or value != value  # None or NaN


def _close(a: float | None, b: float | None, edge: float) -> bool:
    """Within ``edge`` points of each other (both unmeasured counts as close; one of them, as not)."""
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    return abs(a - b) < edge  # type: ignore[operator]


def choose(measured: list[Measured]) -> Choice | None:
    """The assignor to configure among ``measured`` (in a stable order), ``None`` when none is configurable.

    Ranked by the share valid, then the share co-partitioned, then the oracle's own order -- the busiest
    member over the ideal, partitions read across racks, partitions moved per rebalance -- each compared
    at :data:`RESOLUTION_PCT`; equal ones by fewer stop-the-world rebalances (:data:`STOP_THE_WORLD`:
    KIP-848, then cooperative, then eager), then the protocol's default (KIP-848's ``uniform``), then
    today's release before an older one's behaviour, then the order given.  Then the trade rule: when another
    configurable assignor is as valid and as co-partitioned, within :data:`BALANCE_EDGE_PCT` points on the
    busiest member and on racks, and moves at least :data:`MOVES_TRADE_PCT` points fewer partitions per
    rebalance, it is chosen instead (the fewest moves among such), and ``why`` says the trade.
    """
    candidates = [(i, m) for i, m in enumerate(measured) if m.assignor in CONFIGURATIONS]
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda im: (_key(im[1]), *_tie(im[1].assignor), im[0]))
    first = ranked[0][1]
    best = first
    traded = None
    for _, other in ranked[1:]:
        if _key(other)[:2] != _key(first)[:2] or _missing(first.moved) or _missing(other.moved):
            continue
        if not (_close(first.busiest_over_ideal, other.busiest_over_ideal, BALANCE_EDGE_PCT)):
            continue
        if not _close(first.cross_rack, other.cross_rack, BALANCE_EDGE_PCT):
            continue
        if first.moved - other.moved >= MOVES_TRADE_PCT and (best is first or other.moved < best.moved):  # type: ignore[operator]
            best = other
    config = CONFIGURATIONS[best.assignor]
    tied = tuple(m.assignor for _, m in ranked if m is not best and _key(m) == _key(best))
    behind = [m.assignor for _, m in ranked if m is not best and m.assignor not in tied]
    if best is not first:
        traded = first.assignor
        edge = (best.busiest_over_ideal or 0.0) - (first.busiest_over_ideal or 0.0)
        reason = f"trade: {first.assignor} is {edge:.1f} pt more balanced but moves {first.moved:.1f}% (not {best.moved:.1f}%)"
        why = (
            f"{first.assignor} is {edge:.1f} points more balanced but moves {first.moved:.1f}% of partitions per "
            f"rebalance against {best.moved:.1f}%: an edge under {BALANCE_EDGE_PCT:g} point is not worth "
            f"{MOVES_TRADE_PCT:g} points more moves"
        )
    elif tied:
        louder = [t for t in tied if CONFIGURATIONS[t].stop_the_world > config.stop_the_world]
        others = f"{len(tied)} others" if len(tied) > 1 else tied[0]
        reason = f"ties with {others}; " + ("fewer stop-the-world rebalances" if louder else "report order")
        why = f"ties on every measure with {', '.join(tied)}"
        why += (
            f"; chosen for fewer stop-the-world rebalances ({PROTOCOL_TEXT[config.protocol]})"
            if louder
            else "; the first in the report's order"
        )
    else:
        why = "best on the measures, in the oracle's order"
        reason = "best on the measures"
    return Choice(best.assignor, config, tied, behind[0] if behind else None, traded, why, reason)
