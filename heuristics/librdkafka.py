"""librdkafka's assignors, live in a real consumer group: the peers ``librdkafka:*``.

Guarantee: theirs, not ours.  librdkafka (C; behind confluent-kafka for
Python, Go, .NET and Node) ships its own ``range``, ``roundrobin`` and
``cooperative-sticky`` assignors, ports of Kafka's; each peer claims the
guarantee of the Kafka class it ports (``librdkafka:range`` per-topic
balance like ``range``, ``librdkafka:cooperative-sticky`` the cooperative
one), so a peer and this project's port are judged alike.  Nothing is called
as a library function: the assignor runs inside a group leader, in a live
consumer group, exactly as deployed.

How a group runs (optional extra ``librdkafka``: confluent-kafka, whose
wheel bundles librdkafka):

* **A private broker.**  librdkafka's built-in mock cluster
  (``rdkafka_mock.h``), created through ``ctypes`` on the very library
  confluent-kafka loaded: ``rd_kafka_mock_cluster_new`` on a handle of our
  own, one broker listening on 127.0.0.1 at a free port, topics made with
  ``rd_kafka_mock_topic_create`` at exactly the scenario's partition counts
  (auto-creation would give 4; the admin API times out on the mock).
* **Members.**  One ``confluent_kafka.Consumer`` per member, its
  ``group.instance.id`` and ``client.id`` the member id (static members, so
  range and round robin order them by it, as Kafka does),
  ``partition.assignment.strategy`` the peer's strategy.  Short session
  timeouts keep rebalances quick: the mock waits ``session.timeout.ms - 1 s``
  for members to rejoin, and expires a closed static member after the
  session timeout (static members send no LeaveGroup).
* **Settling.**  Every member's ``on_assign``/``on_revoke`` is logged with
  its time, so holdings are known at every instant (eager: a revocation
  empties, an assignment replaces; cooperative: both are incremental).  The
  group has settled when every member's statistics say ``join_state``
  ``steady`` and nothing has happened for :data:`QUIET` seconds, and the
  holdings are one complete assignment (or have been still for
  :data:`STILL` seconds: an invalid assignment is a finding too).  What
  members held after every callback that changed something is a
  :class:`~assignment_oracle.heuristics.cooperative_sticky.Phase`, so the
  cooperative guarantee is checked exactly on what members really held in
  between (a partition assigned while another member still holds it shows
  as such, and is also recorded the moment it happens); the rebalance
  rounds are the bursts of callbacks, :data:`ROUND_GAP` apart.
  A group that does not settle in the time limit raises
  :class:`~assignment_oracle.problem.errors.AssignorDidNotFinish` with what
  was seen; everything started is stopped on every path (``finally``,
  ``atexit``), also on Ctrl-C.

A live group cannot be handed claims.  A :class:`LivePeer` keeps its group
between calls; :meth:`LivePeer.prepare` brings it to the problem's previous
generation and returns the problem it will really be judged on:

* when the group's members hold exactly what the problem says they claim
  (a churn simulation feeding each round's live result forward), nothing
  changes: the live group *is* that state;
* otherwise a fresh group is started with the members that claim something
  (their current subscriptions), settled, and its assignment replaces the
  problem's claims: the rebalance keeps the scenario's shape (the same
  joiners, the same topics) on the live group's own previous generation.

:meth:`LivePeer.rebalance` then applies the difference to the live group
(joins, leaves, subscription changes, topics created, deleted or grown;
a member that claims nothing although it held partitions restarts under the
same ``group.instance.id``, a static bounce) and settles.  The mock cannot
add partitions to a topic: growing one deletes and recreates it with the
new count, which the members see as the topic vanishing and coming back.

Departures from a real deployment, all stated in each row's message: one
mock broker (no replica racks, so librdkafka's rack-aware matching is not
exercised); short session timeouts; a zombie's stale claims cannot be sent
by a live member, so such a round starts a fresh group.
"""

from __future__ import annotations

import atexit
import ctypes
import glob
import json
import os
import re
import threading
import time
import weakref
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from assignment_oracle.heuristics.cooperative_sticky import CooperativeRebalance, Phase
from assignment_oracle.problem.errors import AssignorDidNotFinish, MissingExtra
from assignment_oracle.problem.model import Assignment, Member, Problem

__all__ = [
    "STRATEGIES",
    "PROTOCOLS",
    "QUIET",
    "STILL",
    "LiveGroup",
    "LivePeer",
    "LoadedOnce",
    "MockCluster",
    "PeerNotInstalled",
    "Settled",
    "bind_signatures",
    "close_all",
    "version",
]

#: Peer name suffix -> (``partition.assignment.strategy``, ``group.protocol``, incremental callbacks).
STRATEGIES: Mapping[str, tuple[str | None, str, bool]] = MappingProxyType(
    {
        "range": ("range", "classic", False),
        "roundrobin": ("roundrobin", "classic", False),
        "cooperative-sticky": ("cooperative-sticky", "classic", True),
        # KIP-848: the broker computes the assignment; the mock runs its own simple range (see PROTOCOLS).
        "consumer-protocol": (None, "consumer", True),
    }
)
#: What the KIP-848 mock assigns with, from librdkafka's source (``rdkafka_mock_cgrp.c``,
#: ``rd_kafka_mock_cgrp_consumer_target_assignment_calculate_range``).
PROTOCOLS = MappingProxyType(
    {
        "classic": "classic group protocol: the leader member runs the assignor (JoinGroup/SyncGroup)",
        "consumer": "KIP-848 consumer protocol: the mock broker's own 'simple range' target assignment "
        "(not a Kafka broker assignor; librdkafka's mock, rdkafka_mock_cgrp.c)",
    }
)
#: Seconds without any rebalance activity before a group counts as settled.
QUIET = 0.35
#: Seconds between two bursts of callbacks that make them two rebalance rounds (a round's callbacks
#: come within milliseconds; the next needs a JoinGroup and a SyncGroup).
ROUND_GAP = 0.05
#: Seconds an incomplete or overlapping assignment must stay still before it is reported as it is.
STILL = 3.0
#: Session timeout of every member (ms); the mock waits this minus one second for members to rejoin a
#: rebalance (shorter, and members polled in turn miss the window: the group rebalances forever).
SESSION_TIMEOUT_MS = 2000
#: The mock's wait for more members before the first rebalance of an empty group (ms).
INITIAL_REBALANCE_DELAY_MS = 800
_TOPIC_NAME = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


class PeerNotInstalled(MissingExtra):
    """confluent-kafka (librdkafka) is not installed: the peers need the optional extra."""

    def __init__(self) -> None:
        super().__init__("librdkafka", "every librdkafka:* peer", "confluent_kafka")


# -- the library and its mock cluster ------------------------------------------------


class LoadedOnce:
    """A binding loaded once per process: :meth:`get` builds it on first use and returns that one ever after.

    Each subclass has its own instance and lock, so threads that ask at once load it once; a load that
    raises leaves nothing behind, and the next :meth:`get` tries again.
    """

    _instance: LoadedOnce | None = None
    _lock: threading.Lock

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._instance, cls._lock = None, threading.Lock()

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance


def bind_signatures(lib: ctypes.CDLL, signatures) -> None:
    """Declare the C types of ``lib``'s functions: each ``(name, restype, argtypes)`` is set on ``lib.name``.

    Afterwards ``ctypes`` converts every call's arguments and result as the C declaration says (a pointer is
    not cut to an ``int``); a name the library lacks raises ``AttributeError`` before any call is made.
    """
    for name, restype, argtypes in signatures:
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes


class _Library(LoadedOnce):
    """confluent-kafka and, through ``ctypes``, the librdkafka it bundles (loaded once)."""

    def __init__(self) -> None:
        try:
            import confluent_kafka
        except ImportError:
            raise PeerNotInstalled() from None
        self.kafka = confluent_kafka
        package = os.path.dirname(confluent_kafka.__file__)
        candidates = sorted(glob.glob(os.path.join(package, os.pardir, "confluent_kafka.libs", "librdkafka*")))
        candidates += sorted(glob.glob(os.path.join(package, ".dylibs", "librdkafka*")))
        if not candidates:
            raise MissingExtra(
                "librdkafka",
                "the librdkafka mock cluster (no bundled librdkafka found next to "
                "confluent_kafka: install the confluent-kafka wheel)",
                "confluent_kafka",
            )
        lib = ctypes.CDLL(candidates[0])
        p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        signatures = (
            ("rd_kafka_conf_new", p, []),
            ("rd_kafka_conf_set", i, [p, s, s, s, ctypes.c_size_t]),
            ("rd_kafka_new", p, [i, p, s, ctypes.c_size_t]),
            ("rd_kafka_destroy", None, [p]),
            ("rd_kafka_mock_cluster_new", p, [p, i]),
            ("rd_kafka_mock_cluster_destroy", None, [p]),
            ("rd_kafka_mock_cluster_bootstraps", s, [p]),
            ("rd_kafka_mock_topic_create", i, [p, s, i, i]),
            ("rd_kafka_mock_topic_delete", i, [p, s]),
            ("rd_kafka_mock_group_initial_rebalance_delay_ms", None, [p, ctypes.c_int32]),
            ("rd_kafka_mock_set_group_consumer_session_timeout_ms", None, [p, i]),
            ("rd_kafka_mock_set_group_consumer_heartbeat_interval_ms", None, [p, i]),
        )
        bind_signatures(lib, signatures)
        self.lib = lib
        self.version = confluent_kafka.libversion()[0]


def version() -> str:
    """``librdkafka X (confluent-kafka Y)``; raises :class:`PeerNotInstalled` without the extra."""
    library = _Library.get()
    package = library.kafka.version()
    return f"librdkafka {library.version} (confluent-kafka {package[0] if isinstance(package, tuple) else package})"


class MockCluster:
    """librdkafka's mock cluster: one broker on 127.0.0.1, topics at exact partition counts."""

    def __init__(self, brokers: int = 1) -> None:
        self._library = _Library.get()
        lib = self._library.lib
        errors = ctypes.create_string_buffer(512)
        conf = lib.rd_kafka_conf_new()
        for key, value in ((b"log_level", b"0"), (b"client.id", b"assignment-oracle-mock")):
            lib.rd_kafka_conf_set(conf, key, value, errors, len(errors))
        self._handle = lib.rd_kafka_new(1, conf, errors, len(errors))  # RD_KAFKA_PRODUCER: it only hosts the mock
        if not self._handle:
            raise RuntimeError(f"librdkafka: rd_kafka_new failed: {errors.value.decode(errors='replace')}")
        self._cluster = lib.rd_kafka_mock_cluster_new(self._handle, brokers)
        if not self._cluster:
            lib.rd_kafka_destroy(self._handle)
            raise RuntimeError("librdkafka: rd_kafka_mock_cluster_new failed")
        lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._cluster, INITIAL_REBALANCE_DELAY_MS)
        # KIP-848 groups: the broker owns the session and heartbeat settings.
        lib.rd_kafka_mock_set_group_consumer_session_timeout_ms(self._cluster, SESSION_TIMEOUT_MS)
        lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(self._cluster, 100)
        self.bootstraps = lib.rd_kafka_mock_cluster_bootstraps(self._cluster).decode()
        self.topics: dict[str, int] = {}

    def create_topic(self, name: str, partitions: int) -> None:
        if not _TOPIC_NAME.match(name) or name in (".", ".."):
            raise ValueError(f"topic {name!r} is not a valid Kafka topic name")
        code = self._library.lib.rd_kafka_mock_topic_create(self._cluster, name.encode(), partitions, 1)
        if code:
            raise RuntimeError(f"librdkafka mock: creating topic {name!r} failed (error {code})")
        self.topics[name] = partitions

    def delete_topic(self, name: str) -> None:
        code = self._library.lib.rd_kafka_mock_topic_delete(self._cluster, name.encode())
        if code:
            raise RuntimeError(f"librdkafka mock: deleting topic {name!r} failed (error {code})")
        del self.topics[name]

    def close(self) -> None:
        if self._cluster:
            self._library.lib.rd_kafka_mock_cluster_destroy(self._cluster)
            self._cluster = None
        if self._handle:
            self._library.lib.rd_kafka_destroy(self._handle)
            self._handle = None


# -- a live group --------------------------------------------------------------------


@dataclass
class _Seat:
    """One member's consumer and everything it was told."""

    consumer: object
    topics: frozenset[str]
    holdings: set = field(default_factory=set)
    stats: dict | None = None
    subscribed: tuple[str, ...] | None = None  # what the consumer was last told to subscribe to


@dataclass(frozen=True)
class Settled:
    """What one settle observed: the final assignment, every round's holdings, and how long it took."""

    assignment: Assignment
    phases: tuple[Phase, ...]
    seconds: float
    handoffs: tuple[str, ...]  # partitions assigned while another member still held them, as observed
    rounds: int = 1  # rebalance rounds: bursts of callbacks ROUND_GAP apart


class LiveGroup:
    """A consumer group of real librdkafka consumers on a private mock cluster."""

    def __init__(self, strategy: str) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown librdkafka strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
        self.strategy = strategy
        self.assignor_name, self.protocol, self.incremental = STRATEGIES[strategy]
        self.cluster = MockCluster()
        self.seats: dict[str, _Seat] = {}
        self.events: list[tuple[float, str, str, tuple]] = []  # (time, member, "assign"|"revoke", partitions)
        self.group_id = f"assignment-oracle-{os.getpid()}-{id(self)}"
        _OPEN.add(self)

    # -- membership ---------------------------------------------------------------

    def join_all(self, members) -> None:
        """Start every consumer first, then subscribe them together: their JoinGroups reach the mock
        within its initial rebalance delay, so a fresh group forms in one round."""
        members = list(members)
        for member in members:
            self.join(member, subscribe=False)
        for member in members:
            self._subscribe(member.member_id)

    def join(self, member: Member, *, subscribe: bool = True) -> None:
        library = _Library.get()
        member_id = member.member_id
        config = {
            "bootstrap.servers": self.cluster.bootstraps,
            "group.id": self.group_id,
            "group.instance.id": member_id,
            "client.id": member_id,
            "enable.auto.commit": False,
            "session.timeout.ms": SESSION_TIMEOUT_MS,
            "heartbeat.interval.ms": 100,
            "max.poll.interval.ms": 300000,
            "statistics.interval.ms": 100,
            "topic.metadata.refresh.interval.ms": 500,
            "log_level": 0,
            "logger": _silent,
            "group.protocol": self.protocol,
        }
        if self.protocol == "classic":
            config["partition.assignment.strategy"] = self.assignor_name
        else:
            del config["session.timeout.ms"], config["heartbeat.interval.ms"]  # broker-side in KIP-848
        if member.rack is not None:
            config["client.rack"] = member.rack
        seat = _Seat(None, member.topics)

        def stats(text: str) -> None:
            seat.stats = json.loads(text)

        config["stats_cb"] = stats
        consumer = library.kafka.Consumer(config)
        seat.consumer = consumer
        self.seats[member_id] = seat
        if subscribe:
            self._subscribe(member_id)

    def _subscribe(self, member_id: str) -> None:
        seat = self.seats[member_id]
        log = self.events

        def on_assign(consumer, partitions) -> None:
            log.append((time.monotonic(), member_id, "assign", tuple((p.topic, p.partition) for p in partitions)))

        def on_revoke(consumer, partitions) -> None:
            log.append((time.monotonic(), member_id, "revoke", tuple((p.topic, p.partition) for p in partitions)))

        topics = tuple(sorted(t for t in seat.topics if t in self.cluster.topics))
        if topics == seat.subscribed:
            return  # subscribing again would make the member rejoin: a rebalance nobody asked for
        seat.subscribed = topics
        if topics:
            seat.consumer.subscribe(list(topics), on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        else:
            seat.consumer.unsubscribe()
            seat.holdings.clear()

    def leave(self, member_id: str) -> None:
        seat = self.seats.pop(member_id)
        _close_consumer(seat.consumer)

    def resubscribe(self, member_id: str, topics: frozenset[str]) -> None:
        self.seats[member_id].topics = topics
        self._subscribe(member_id)

    def bounce(self, member: Member) -> None:
        """A static member restarts: same ``group.instance.id``, nothing held."""
        self.leave(member.member_id)
        self.join(member)

    # -- topics -------------------------------------------------------------------

    def set_topics(self, topics: Mapping[str, int]) -> None:
        """Create, delete and grow topics to ``topics`` (growing = delete and recreate: the mock cannot add)."""
        for name in sorted(set(self.cluster.topics) - set(topics)):
            self.cluster.delete_topic(name)
        for name, count in sorted(topics.items()):
            if name in self.cluster.topics and self.cluster.topics[name] != count:
                self.cluster.delete_topic(name)
            if name not in self.cluster.topics:
                self.cluster.create_topic(name, count)

    def refresh_subscriptions(self) -> None:
        """Resubscribe members whose subscription now names a topic that exists (or no longer does)."""
        for member_id in sorted(self.seats):
            self._subscribe(member_id)

    # -- settling -----------------------------------------------------------------

    def holdings(self) -> dict[str, frozenset]:
        return {m: frozenset(s.holdings) for m, s in self.seats.items()}

    def settle(self, expected: frozenset, time_limit: float) -> Settled:
        """Poll every member until the group settles (see the module docstring); rounds observed."""
        start = time.monotonic()
        deadline = start + time_limit
        first = len(self.events)
        applied = first
        before = self.holdings()
        handoffs: list[str] = []
        last_activity = start
        while True:
            for seat in self.seats.values():
                seat.consumer.poll(0.01 if len(self.seats) < 8 else 0)
            now = time.monotonic()
            if len(self.events) > applied:
                for _, member, kind, partitions in self.events[applied:]:
                    seat = self.seats.get(member)
                    if seat is None:
                        continue
                    if kind == "revoke":
                        seat.holdings.difference_update(partitions)
                        continue
                    if not self.incremental:
                        seat.holdings.clear()
                    for tp in partitions:
                        holder = next((m for m, s in self.seats.items() if m != member and tp in s.holdings), None)
                        if holder is not None:
                            handoffs.append(f"{tp[0]}-{tp[1]} assigned to {member} while {holder} held it")
                    seat.holdings.update(partitions)
                applied = len(self.events)
                last_activity = now
            # A member that subscribes to no existing topic is not in the group: nothing to wait for.
            steady = all(
                s.stats is not None and _steady(s.stats)
                for s in self.seats.values()
                if s.topics & self.cluster.topics.keys()
            )
            quiet = now - last_activity
            snapshot = self.holdings()
            complete = _is_complete(snapshot, expected)
            if steady and quiet >= QUIET and (complete or quiet >= STILL) and (applied > first or complete):
                phases, rounds = _rounds(before, self.events[first:applied], set(self.seats), self.incremental)
                return Settled(_assignment(snapshot), phases, now - start, tuple(handoffs), rounds)
            if now >= deadline:
                states = ", ".join(
                    f"{m}: {_state(s.stats)} holding {len(s.holdings)}" for m, s in sorted(self.seats.items())[:8]
                )
                raise AssignorDidNotFinish(
                    f"live group did not settle in {time_limit:g} s ({len(self.events) - first} callbacks; {states})"
                )

    def close(self) -> None:
        seats, self.seats = self.seats, {}
        try:
            for seat in seats.values():
                _close_consumer(seat.consumer)
        finally:
            self.cluster.close()
            _OPEN.discard(self)


def _rounds(before: Mapping[str, frozenset], events, members: set, incremental: bool) -> tuple[tuple[Phase, ...], int]:
    """What members held after every callback that changed something, and how many rebalance rounds.

    A snapshot after each change makes the cooperative check exact: a partition that went from one
    member to another without a snapshot in which nobody held it was assigned while its holder still
    held it, as it happened.  Rounds are bursts of callbacks: within a round every member's callbacks
    come within milliseconds of each other, and the next round needs a rejoin and a sync
    (:data:`ROUND_GAP` apart at least).
    """
    state = {m: set(before.get(m, ())) for m in members}
    phases: list[Phase] = []
    rounds = 0
    last_assign = None
    for when, member, kind, partitions in events:
        if kind == "assign":  # a burst of assignments ends a round (revocations open it, eager ones early)
            if last_assign is None or when - last_assign >= ROUND_GAP:
                rounds += 1
            last_assign = when
        if member not in state:
            continue
        revoked: set = set()
        if kind == "revoke":
            revoked = state[member] & set(partitions)
            state[member].difference_update(partitions)
        else:
            if not incremental:
                revoked = state[member] - set(partitions)
                state[member].clear()
            state[member].update(partitions)
        if revoked or kind == "assign" and partitions:
            phases.append(Phase(_assignment(state), _assignment({member: revoked} if revoked else {})))
    if not phases:
        phases.append(Phase(_assignment(state), Assignment({})))
    return tuple(phases), max(rounds, 1)


def _silent(*_args) -> None:
    """A logger that drops librdkafka's log lines (it would print to stderr)."""


def _close_consumer(consumer) -> None:
    try:
        consumer.close()
    except Exception:  # already closed or broken: nothing more to release
        pass


def _steady(stats: dict) -> bool:
    group = stats.get("cgrp") or {}
    return group.get("join_state") in ("steady", "init") and group.get("state") == "up"


def _state(stats: dict | None) -> str:
    if stats is None:
        return "no statistics yet"
    group = stats.get("cgrp") or {}
    return f"{group.get('state')}/{group.get('join_state')}"


def _is_complete(holdings: Mapping[str, frozenset], expected: frozenset) -> bool:
    seen: set = set()
    for held in holdings.values():
        if seen & held:
            return False
        seen |= held
    return seen == expected


def _assignment(holdings: Mapping[str, frozenset | set]) -> Assignment:
    members: dict[str, dict[str, list[int]]] = {}
    for member, held in holdings.items():
        topics: dict[str, list[int]] = {}
        for topic, partition in sorted(held):
            topics.setdefault(topic, []).append(partition)
        members[member] = topics
    return Assignment(members)


_OPEN: weakref.WeakSet[LiveGroup] = weakref.WeakSet()


def close_all() -> None:
    """Stop every live group of this process (tests, sweeps' workers, and ``atexit`` call it)."""
    for peer in list(_PEERS):
        peer.close()
    for group in list(_OPEN):
        group.close()


atexit.register(close_all)


# -- the peer ------------------------------------------------------------------------


def _expected(problem: Problem) -> frozenset:
    return frozenset((t.name, p) for t in problem.assignable_topics for p in range(t.partitions))


def _claims(member: Member) -> frozenset:
    return frozenset((t, p) for t, ps in member.owned for p in ps)


_PEERS: weakref.WeakSet[LivePeer] = weakref.WeakSet()


class LivePeer:
    """A librdkafka assignor as a peer: ``prepare`` then ``rebalance`` (or ``__call__``) on one live group."""

    def __init__(self, strategy: str, *, settle_limit: float = 60.0) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown librdkafka strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
        self.strategy = strategy
        self.settle_limit = settle_limit
        self.group: LiveGroup | None = None
        self.last: Settled | None = None
        _PEERS.add(self)

    def describe(self) -> str:
        """Version and configuration, for every row's message."""
        assignor, protocol, _ = STRATEGIES[self.strategy]
        what = f"partition.assignment.strategy={assignor}" if assignor else "broker-side assignment"
        return f"{version()}, group.protocol={protocol}, {what}; live group on librdkafka's mock cluster"

    def close(self) -> None:
        group, self.group = self.group, None
        if group is not None:
            group.close()

    def _matches(self, problem: Problem) -> bool:
        """Does the live group hold what the problem's members claim (see the module docstring)?"""
        if self.group is None:
            return False
        held = self.group.holdings()
        members = {m.member_id: m for m in problem.members}
        for member_id, holding in held.items():
            member = members.get(member_id)
            if member is not None and member.owned and _claims(member) != holding:
                return False
        return all(m.member_id in held for m in problem.members if m.owned)

    def prepare(self, problem: Problem) -> Problem:
        """Bring the live group to ``problem``'s previous generation; the problem it will be judged on."""
        if self._matches(problem):
            return problem
        self.close()
        claimants = [m for m in problem.members if m.owned]
        group = self.group = LiveGroup(self.strategy)
        try:
            group.set_topics({t.name: t.partitions for t in problem.topics})
            if not claimants:
                return _with_claims(problem, {}, None)
            previous = Problem(problem.topics, tuple(claimants), problem.objective)
            group.join_all(claimants)
            group.settle(_expected(previous), self.settle_limit)
        except BaseException:
            self.close()
            raise
        generation = max((m.generation for m in claimants if m.generation is not None), default=1)
        return _with_claims(problem, group.holdings(), generation)

    def rebalance(self, problem: Problem) -> CooperativeRebalance:
        """Apply ``problem``'s membership, subscriptions and topics to the live group and settle it."""
        if self.group is None or not self._matches(problem):
            problem = self.prepare(problem)
        group = self.group
        try:
            members = {m.member_id: m for m in problem.members}
            group.set_topics({t.name: t.partitions for t in problem.topics})
            for member_id in sorted(set(group.seats) - set(members)):
                group.leave(member_id)
            held = group.holdings()
            group.join_all(members[m] for m in sorted(members) if m not in group.seats)
            for member_id in sorted(members):
                member = members[member_id]
                if not member.owned and held.get(member_id):
                    group.bounce(member)
                elif group.seats[member_id].topics != member.topics:
                    group.resubscribe(member_id, member.topics)
            group.refresh_subscriptions()
            settled = self.last = group.settle(_expected(problem), self.settle_limit)
        except BaseException:
            self.close()
            raise
        return CooperativeRebalance(settled.phases)

    def __call__(self, problem: Problem) -> Assignment:
        return self.rebalance(problem).final


def _with_claims(problem: Problem, holdings: Mapping[str, frozenset], generation: int | None) -> Problem:
    """``problem`` with each member claiming what it holds in the live group (nothing if absent)."""
    members = []
    for m in problem.members:
        held = holdings.get(m.member_id, frozenset())
        owned: dict[str, list[int]] = {}
        for topic, partition in sorted(held):
            owned.setdefault(topic, []).append(partition)
        members.append(
            Member(
                m.member_id,
                m.topics,
                tuple((t, tuple(ps)) for t, ps in owned.items()),
                generation if owned else None,
                m.rack,
                m.instance_id,
            )
        )
    return Problem(problem.topics, tuple(members), problem.objective)
