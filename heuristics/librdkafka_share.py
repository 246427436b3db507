"""librdkafka's mock broker assigning a share group (KIP-932), live: the peer ``librdkafka:share-mock``.

Guarantee: none claimed.  What the mock does, read from librdkafka's source (``src/rdkafka_mock_sharegrp.c``,
``rd_kafka_mock_sharegroup_assignment_recalculate`` and ``rd_kafka_mock_sharegroup_assign_topic_partitions``;
librdkafka 2.16.0 as bundled with confluent-kafka 2.16.1): on every join or leave every member's assignment is
dropped, and topic by topic each topic's subscribers, in the order they joined, get contiguous ranges:
subscriber ``i`` of ``S`` the next ``ceil(P/S·(i+1)) - ceil(P/S·i)`` of the topic's ``P`` partitions.  So no
partition is shared (subscribers past ``P`` get none of the topic), what members held is never read (nothing
is sticky), and every partition is assigned whether or not its share state is initialised (the mock keeps
none).  It is judged as any share group assignor, on Kafka's tiers and ``SimpleAssignor``'s promises
(:mod:`compare.judge.share`): it makes none of them, and the judge says which it keeps.

Nothing is computed here: real ``confluent_kafka.ShareConsumer``\\ s (librdkafka's share consumer, "preview"
in 2.16) run a share group on librdkafka's own mock broker, and each member's assignment is what its own
librdkafka says it was given.

* **A private broker.**  :class:`heuristics.librdkafka.MockCluster` (one broker on 127.0.0.1, made through
  ``ctypes``), with the share group APIs switched on (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge are
  off by default on the mock) and the share group's heartbeat every :data:`HEARTBEAT_MS`; topics at the
  scenario's exact partition counts.
* **Members, in the group's order.**  One share consumer per member that subscribes to something (a member
  subscribed to nothing is not in a share group: it gets nothing), joined one at a time in the scenario's
  order, each waiting until the mock lists it: the mock keeps members in the order they joined
  (``TAILQ_INSERT_TAIL``), and its per-topic split follows that order, so the group's order is the
  scenario's (checked against ``rd_kafka_mock_sharegroup_get_member_ids`` once settled).
* **What each member is given.**  A share consumer has no ``assignment()`` call and no rebalance callbacks, so
  each consumer's librdkafka log is read (``debug=cgrp``, delivered to a Python logger on ``poll``): the size
  of the target assignment each ShareGroupHeartbeat response carries, and the partitions of the group
  assignment the consumer then sets (``GRPASSIGNMENT``, one line per partition, never cut short).  A member's
  answer is the last target it was sent, once it has set it.
* **Settling.**  The mock's share group does not settle on its own with three or more members: every
  heartbeat of a member that rejoins (member epoch 0) recalculates the assignment and bumps every member's
  epoch ("New member always triggers recalculation", ``rd_kafka_mock_handle_ShareGroupHeartbeat``), so a
  member two bumps behind is fenced at its next heartbeat, rejoins, and fences the next: a livelock, seen here
  with 6 members for as long as it was watched (3 members: about 4 s).  The target it recalculates each time
  is the same (the same members in the same order), so the run reads that: settled when every member is
  listed by the mock in the order it joined, every consumer has set the last target it was sent, and no
  target has changed for :data:`SETTLED_AFTER` seconds (a target that leaves partitions without a holder must
  also stay for :data:`~heuristics.librdkafka.STILL` seconds; it is then judged as it is).  A group that does
  not get there in the time limit raises :class:`~problem.errors.AssignorDidNotFinish`; everything started
  is closed on every path.

Departures from a real deployment: the mock broker, not a Kafka broker (Kafka's own ``SimpleAssignor`` is
``share-simple``); members cannot be handed what they held, which the mock would not read anyway; the group
is read while its members are still being fenced (above), which a Kafka broker does not do.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import re
import time
import weakref
from dataclasses import dataclass

from assignment_oracle.heuristics import librdkafka
from assignment_oracle.problem.errors import AssignorDidNotFinish, AssignorFailed
from assignment_oracle.problem.share import ShareAssignment, ShareProblem

__all__ = ["HEARTBEAT_MS", "SETTLE_LIMIT", "assign", "describe"]

#: The share group's heartbeat interval on the mock (ms): a fenced member notices within one.
HEARTBEAT_MS = 100
#: The share group's session timeout on the mock (ms; the mock wants it above the heartbeat interval).
SESSION_TIMEOUT_MS = 3000
#: Seconds a group may take to form and settle before the run is given up (the consumer live peers' limit).
SETTLE_LIMIT = 60.0
#: Seconds every member's target must stay the same before it is read: several heartbeats, so a target the
#: last join changed has reached every member.
SETTLED_AFTER = max(librdkafka.QUIET, 5 * HEARTBEAT_MS / 1000)
#: Seconds one member may take to be listed by the mock after it subscribed.
JOIN_LIMIT = 10.0
#: Kafka's API keys of the share group protocol (KIP-932), switched on at version 1 on the mock.
SHARE_APIS = {"ShareGroupHeartbeat": 76, "ShareFetch": 78, "ShareAcknowledge": 79}

# "FACILITY [client#consumer-N] [thrd:main]: text", as confluent-kafka hands librdkafka's lines to a logger.
_LINE = re.compile(r"^(?P<fac>[A-Z]+) \[[^\]]*\] \[thrd:[^\]]*\]: (?P<text>.*)$", re.S)
_LIST = re.compile(r"^List with (\d+) partition\(s\):$")
_ITEM = re.compile(r"^\s+(?P<topic>\S+) \[(?P<partition>\d+)\]")
_TARGET_SIZE = re.compile(r"^ShareGroupHeartbeat response received assigned_topic_partitions size (\d+)$")


class _Bindings(librdkafka.LoadedOnce):
    """The mock's share group functions, bound once on the library confluent-kafka loaded."""

    def __init__(self) -> None:
        lib = librdkafka._Library.get().lib
        p, i, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        signatures = (
            ("rd_kafka_mock_set_apiversion", i, [p, ctypes.c_int16, ctypes.c_int16, ctypes.c_int16]),
            ("rd_kafka_mock_sharegroup_set_heartbeat_interval", None, [p, i]),
            ("rd_kafka_mock_sharegroup_set_session_timeout", None, [p, i]),
            (
                "rd_kafka_mock_sharegroup_get_member_ids",
                i,
                [p, s, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)), ctypes.POINTER(ctypes.c_size_t)],
            ),
            ("rd_kafka_mem_free", None, [p, p]),
        )
        librdkafka.bind_signatures(lib, signatures)
        self.lib = lib


def describe() -> str:
    """Version and setup, for every row's message."""
    return (
        f"{librdkafka.version()}, share consumers (KIP-932) on librdkafka's mock broker: its own share assignment "
        "(rdkafka_mock_sharegrp.c: a contiguous split per topic in join order, no sharing, nothing kept), live"
    )


@dataclass
class _Seat:
    """One member's share consumer and what its librdkafka said: the last target assignment the broker sent
    it (its size from the heartbeat response, its partitions from the group assignment the consumer then set)."""

    member_id: str
    topics: tuple[str, ...]
    consumer: object = None
    received: frozenset = frozenset()
    target_size: int | None = None  # the size of the last target the broker sent (None: none yet)
    listing: list | None = None  # a GRPASSIGNMENT list being read: [expected count, partitions so far]
    changed: float = 0.0
    fenced: int = 0  # times the broker fenced this member (it then rejoins)

    def read(self, line: str, now: float) -> None:
        """One line of this consumer's log."""
        match = _LINE.match(line)
        if match is None:
            return
        fac, text = match["fac"], match["text"]
        if fac == "LOST" and "lost: member fenced" in text:
            self.fenced += 1
        elif fac == "HEARTBEAT" and (sized := _TARGET_SIZE.search(text)) is not None:
            self.target_size = int(sized[1])
            if self.target_size == 0:
                self._set(frozenset(), now)
        elif fac == "GRPASSIGNMENT":
            listed = _LIST.match(text)
            if listed is not None:
                self.listing = [int(listed[1]), []]
            elif self.listing is not None and (item := _ITEM.match(text)) is not None:
                self.listing[1].append((item["topic"], int(item["partition"])))
            if self.listing is not None and len(self.listing[1]) == self.listing[0]:
                self._set(frozenset(self.listing[1]), now)
                self.listing = None

    def _set(self, received: frozenset, now: float) -> None:
        if received != self.received:
            self.received, self.changed = received, now

    @property
    def told(self) -> bool:
        """The consumer has set the last target the broker sent it (or was sent nothing)."""
        return self.target_size is not None and self.listing is None and len(self.received) == self.target_size


class _ShareGroup:
    """A share group of real share consumers on a private mock broker (module docstring)."""

    def __init__(self, problem: ShareProblem) -> None:
        self.bindings = _Bindings.get()
        self.cluster = librdkafka.MockCluster()
        self.seats: dict[str, _Seat] = {}
        self.joined: list[str] = []  # the mock's member ids, in the order our members joined
        self.group_id = f"assignment-oracle-share-{os.getpid()}-{id(self)}"
        _OPEN.add(self)
        lib, mock = self.bindings.lib, self.cluster._cluster
        for api, key in SHARE_APIS.items():
            if lib.rd_kafka_mock_set_apiversion(mock, key, 1, 1):
                raise AssignorFailed(f"RuntimeError: librdkafka's mock cannot switch on {api}")
        lib.rd_kafka_mock_sharegroup_set_heartbeat_interval(mock, HEARTBEAT_MS)
        lib.rd_kafka_mock_sharegroup_set_session_timeout(mock, SESSION_TIMEOUT_MS)
        for topic, count in problem.topics.items():
            self.cluster.create_topic(topic, count)

    def member_ids(self) -> list[str]:
        """The mock's share group members, in its order (empty before the group exists)."""
        lib = self.bindings.lib
        ids, count = ctypes.POINTER(ctypes.c_void_p)(), ctypes.c_size_t()
        if lib.rd_kafka_mock_sharegroup_get_member_ids(
            self.cluster._cluster, self.group_id.encode(), ctypes.byref(ids), ctypes.byref(count)
        ):
            return []
        if not ids:
            return []
        try:  # the strings and the array are the caller's to free (rdkafka_mock.h)
            return [ctypes.string_at(ids[k]).decode() for k in range(count.value)]
        finally:
            for k in range(count.value):
                lib.rd_kafka_mem_free(None, ids[k])
            lib.rd_kafka_mem_free(None, ids)

    def poll(self) -> None:
        for seat in self.seats.values():
            seat.consumer.poll(0.005)  # type: ignore[attr-defined]

    def join(self, index: int, member_id: str, topics: tuple[str, ...]) -> None:
        """Start ``member_id``'s share consumer and wait until the mock lists it (the group's order)."""
        seat = self.seats[member_id] = _Seat(member_id, topics)
        label = f"member-{index}"
        logger = logging.getLogger(f"assignment_oracle.librdkafka_share.{id(self)}.{label}")
        logger.handlers.clear()
        logger.addHandler(_Reader(seat))
        logger.setLevel(logging.DEBUG)
        logger.propagate = False

        seat.consumer = librdkafka._Library.get().kafka.ShareConsumer(
            {
                "bootstrap.servers": self.cluster.bootstraps,
                "group.id": self.group_id,
                "client.id": label,
                "debug": "cgrp",
                "logger": logger,
                "topic.metadata.refresh.interval.ms": 500,
            }
        )
        seat.consumer.subscribe(list(topics))  # type: ignore[attr-defined]
        before = set(self.joined)
        deadline = time.monotonic() + JOIN_LIMIT
        while True:
            self.poll()
            new = [m for m in self.member_ids() if m not in before]
            if new:
                self.joined.append(new[0])
                return
            if time.monotonic() >= deadline:
                raise AssignorDidNotFinish(f"share consumer {member_id} was not in the group after {JOIN_LIMIT:g} s")

    def settle(self, expected: frozenset, time_limit: float) -> ShareAssignment:
        """Poll until every member holds the same target for :data:`SETTLED_AFTER` seconds (module docstring);
        every member's last target."""
        start = time.monotonic()
        deadline = start + time_limit
        while True:
            self.poll()
            now = time.monotonic()
            last = max((s.changed for s in self.seats.values()), default=start)
            quiet = now - max(last, start)
            received = set().union(*(s.received for s in self.seats.values())) if self.seats else set()
            if (
                self.member_ids() == self.joined
                and all(s.told for s in self.seats.values())
                and quiet >= SETTLED_AFTER
                and (received >= expected or quiet >= librdkafka.STILL)
            ):
                self.fences = sum(s.fenced for s in self.seats.values())
                return ShareAssignment({m: tuple(sorted(s.received)) for m, s in self.seats.items()})
            if now >= deadline:
                states = ", ".join(
                    f"{m}: told {len(s.received)} of {s.target_size}, fenced {s.fenced}x"
                    for m, s in list(self.seats.items())[:8]
                )
                raise AssignorDidNotFinish(f"share group did not settle in {time_limit:g} s ({states})")

    def close(self) -> None:
        seats, self.seats = self.seats, {}
        try:
            for seat in seats.values():
                try:
                    seat.consumer.close()  # type: ignore[attr-defined]
                except Exception:  # already closed or broken: nothing more to release
                    pass
        finally:
            self.cluster.close()
            _OPEN.discard(self)


class _Reader(logging.Handler):
    """Hands one consumer's librdkafka lines to its seat, as they arrive (on ``poll``)."""

    def __init__(self, seat: _Seat) -> None:
        super().__init__(logging.DEBUG)
        self.seat = seat

    def emit(self, record: logging.LogRecord) -> None:
        self.seat.read(record.getMessage(), time.monotonic())


_OPEN: weakref.WeakSet[_ShareGroup] = weakref.WeakSet()


def close_all() -> None:
    """Close every share group of this process (``atexit`` calls it)."""
    for group in list(_OPEN):
        group.close()


atexit.register(close_all)


def assign(problem: ShareProblem, *, iteration_order: str = "sorted", settle_limit: float = SETTLE_LIMIT):
    """librdkafka's mock broker's share assignment of ``problem``, from a live share group (module docstring):
    every member listed with what its share consumer was given.

    The group's order is the scenario's (members join in it); ``iteration_order`` is Kafka's port's option and
    has no meaning here (``"java"`` is refused).  What members hold and which partitions are assignable are
    not sent: the mock reads neither.

    Raises
    ------
    ValueError
        ``iteration_order`` other than ``"sorted"``; a topic name Kafka would refuse.
    AssignorDidNotFinish
        The group did not form or settle in ``settle_limit`` seconds.
    PeerNotInstalled
        confluent-kafka is not installed (the ``librdkafka`` extra).
    """
    if iteration_order != "sorted":
        raise ValueError("librdkafka:share-mock runs in the group's own order (its join order): no Java order")
    group = _ShareGroup(problem)
    try:
        deadline = time.monotonic() + settle_limit
        subscribed = [m for m in problem.members if m.topics]
        for index, member in enumerate(subscribed):
            group.join(index, member.member_id, member.topics)
        expected = frozenset(
            (t, p) for t in {t for m in subscribed for t in m.topics} for p in range(problem.topics[t])
        )
        settled = group.settle(expected, max(deadline - time.monotonic(), 1.0))
    finally:
        group.close()
    return ShareAssignment({m.member_id: settled.of(m.member_id) for m in problem.members})
