"""The assignors by the names users know from ``partition.assignment.strategy``.

Each entry says what the assignor is (its Kafka class, or the proposal it
comes from), the guarantee it claims (a key of
:data:`compare.judge.guarantees.GUARANTEES`, which checks it against the oracle),
and whether it runs the eager or the cooperative protocol.  Everything that
accepts an assignor name (the CLI, sweeps, notebooks) looks it up here.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from assignment_oracle.heuristics import (
    aiokafka_peer,
    constrained_sticky,
    cooperative_sticky,
    external,
    fair,
    faust_peer,
    go_peers,
    kafka4_sticky,
    kafka_python,
    librdkafka,
    librdkafka_share,
    node_peers,
    range,
    roundrobin,
    runner,
    server_range,
    share_simple,
    sticky,
    stream_join_sticky,
    streams_sticky,
    uniform,
)
from assignment_oracle.heuristics.assignor import GUARANTEE_NAMES, Assignor
from assignment_oracle.problem.claims import resolve_claims
from assignment_oracle.problem.errors import AssignorOfAnotherKind, UnknownAssignor
from assignment_oracle.problem.kinds import KINDS, GroupKind, kind_named
from assignment_oracle.problem.metrics import load_vector, retained, sorted_loads, sum_of_squares
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.ownership import violations

__all__ = [
    "Assignor",
    "ASSIGNORS",
    "GUARANTEE_NAMES",
    "AssignorRun",
    "CLIENT_EXTRAS",
    "CLIENT_PEERS",
    "LIVE_PEERS",
    "PEERS",
    "PORT_OF",
    "UnknownAssignor",
    "external_assignor",
    "ITERATION_ORDERS",
    "TOPIC_ID_PORTS",
    "JAVA_ORDER_PORTS",
    "ORDER_FREE_PORTS",
    "get_assignor",
    "in_iteration_order",
    "library_version",
    "require_installed",
    "is_live",
    "resolve_names",
    "run",
    "StreamsAssignor",
    "STREAMS_ASSIGNORS",
    "ShareAssignor",
    "SHARE_ASSIGNORS",
    "REGISTRIES",
    "KindRegistry",
    "assignors_of",
    "registered_kind",
]


_ENTRIES = (
    Assignor(
        "range",
        range.assign,
        "org.apache.kafka.clients.consumer.RangeAssignor",
        "per-topic-balance",
        "eager",
        "per topic, contiguous ranges to subscribers (static first, then by member id), rack-matched first (KIP-881); co-partitions equal topics",
    ),
    Assignor(
        "roundrobin",
        roundrobin.assign,
        "org.apache.kafka.clients.consumer.RoundRobinAssignor",
        "identical-subscriptions-balance",
        "eager",
        "all partitions dealt around the members (static first, then by id), skipping non-subscribers",
    ),
    Assignor(
        "fair",
        fair.assign,
        "KIP-49 FairAssignor (proposed, never shipped)",
        "identical-subscriptions-balance",
        "eager",
        "each partition to the least-loaded eligible member, most constrained topics first",
        configurable=False,
    ),
    Assignor(
        "sticky",
        sticky.assign,
        "org.apache.kafka.clients.consumer.StickyAssignor (KIP-54 + KIP-341)",
        "kafka-balance",
        "eager",
        "keep valid claims (highest generation wins), fill the lightest, move single partitions until balanced",
    ),
    Assignor(
        "sticky-kip54",
        sticky.assign_kip54,
        "StickyAssignor before KIP-341 (Kafka 0.11-2.2)",
        "kafka-balance",
        "eager",
        "the KIP-54 sticky algorithm reading claims without generations: stale claims are kept",
        configurable=False,
    ),
    Assignor(
        "cooperative-sticky",
        cooperative_sticky.assign,
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor (KIP-429)",
        "cooperative-kafka-balance",
        "cooperative",
        "sticky's target; a partition another member still holds is revoked first, assigned in a follow-up rebalance",
        cooperative_sticky.rebalance,
    ),
    Assignor(
        "constrained-sticky",
        constrained_sticky.assign,
        "AbstractStickyAssignor constrained path, Kafka 2.8-3.4.0 claim rule (KAFKA-9987, constrained "
        "cooperative sticky proposal)",
        "exact-balance",
        "eager",
        "identical subscriptions: floor/ceil quotas, keep owned up to quota, fill, steal; else sticky",
        configurable=False,
    ),
    Assignor(
        "server-range",
        server_range.assign,
        "org.apache.kafka.coordinator.group.assignor.RangeAssignor (KIP-848 group coordinator, Kafka 4.0.0-SNAPSHOT "
        "1eb7644)",
        "per-topic-balance",
        "consumer",
        "KIP-848 broker-side range: members sorted (static first), each takes every subscribed topic's next range",
    ),
    Assignor(
        "uniform",
        uniform.assign,
        "org.apache.kafka.coordinator.group.assignor.UniformAssignor (KIP-848 group coordinator at apache/kafka "
        "d79bd50, August 2026: what Kafka 4.0.1 and later run, KAFKA-18688's homogeneous builder; "
        "homogeneous and heterogeneous builders)",
        "kafka-balance",
        "consumer",
        "KIP-848 broker default: keep the previous target up to each member's quota, fill the least loaded, rebalance",
    ),
    Assignor(
        "uniform-4.0.0",
        functools.partial(uniform.assign, variant=uniform.KAFKA_4_0_0),
        "org.apache.kafka.coordinator.group.assignor.UniformAssignor as Kafka 4.0.0 shipped it (apache/kafka "
        "1eb7644, before KAFKA-18688)",
        "kafka-balance",
        "consumer",
        "uniform before KAFKA-18688 (fixed in 4.0.1): the extra partitions go to the first members in order",
        configurable=False,
    ),
    Assignor(
        "kafka4-sticky",
        kafka4_sticky.assign,
        "org.apache.kafka.clients.consumer.StickyAssignor (Kafka 4.0.0-SNAPSHOT 1eb7644: constrained + general "
        "builder, rack-aware, KAFKA-14639 claim rule)",
        "kafka-balance",
        "eager",
        "equal subscriptions: quotas, keep owned (same rack) up to quota, fill by rack then round robin; "
        "else the general sticky balance",
    ),
    Assignor(
        "kafka4-cooperative-sticky",
        kafka4_sticky.assign_cooperative,
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor (Kafka 4.0.0-SNAPSHOT 1eb7644: constrained + "
        "general builder, rack-aware, KAFKA-14639 claim rule)",
        "cooperative-kafka-balance",
        "cooperative",
        "kafka4-sticky's target; partitions transferring ownership wait for a follow-up rebalance",
        kafka4_sticky.rebalance_cooperative,
    ),
    Assignor(
        "stream-join-sticky",
        stream_join_sticky.assign,
        "KIP-315 StickyStreamJoinAssignor (proposed)",
        "stream-join",
        "eager",
        "partition p of every topic to one member; sticky by epoch; partitions past the smallest topic stay unassigned",
        configurable=False,
    ),
)

#: Registry name -> :class:`Assignor`, in the order above.
ASSIGNORS: Mapping[str, Assignor] = MappingProxyType({a.name: a for a in _ENTRIES})


def _peer(port: str, summary: str) -> Assignor:
    """kafka-python's assignor porting the same Kafka class as ``port``: judged on the port's guarantee."""
    mine = ASSIGNORS[port]
    kafka_class = mine.origin.split()[0].rsplit(".", 1)[-1]
    return Assignor(
        f"kafka-python:{port}",
        getattr(kafka_python, f"assign_{port}"),
        f"kafka-python's {kafka_python.PEER_OF[port]} (a port of Kafka's {kafka_class})",
        mine.guarantee,
        mine.protocol,
        f"kafka-python's {summary} (extra: kafka-python)",
    )


_PEER_ENTRIES = (
    _peer("range", "range, through its real assignor API"),
    _peer("roundrobin", "round robin, through its real assignor API"),
    _peer("sticky", "sticky, user data v1 with generations, real bytes"),
)
#: Other implementations of the same Kafka assignors, judged next to this project's ports: ``kafka-python:*``.
PEERS: Mapping[str, Assignor] = MappingProxyType({a.name: a for a in _PEER_ENTRIES})


def _live(strategy: str, port: str | None, summary: str) -> Assignor:
    """librdkafka's assignor, run by a live group on a mock cluster (:mod:`heuristics.librdkafka`)."""
    peer = librdkafka.LivePeer(strategy)
    mine = ASSIGNORS[port] if port else None
    kafka_class = mine.origin.split()[0].rsplit(".", 1)[-1] if mine else None
    origin = (
        f"librdkafka's {strategy} assignor (a port of Kafka's {kafka_class}), live"
        if mine
        else "librdkafka's mock broker, KIP-848 consumer protocol (its own simple range), live"
    )
    return Assignor(
        f"librdkafka:{strategy}",
        peer,
        origin,
        mine.guarantee if mine else "valid",
        mine.protocol if mine else "consumer",
        f"{summary} (extra: librdkafka)",
        peer.rebalance,
    )


_LIVE_ENTRIES = (
    _live("range", "range", "librdkafka's range in a live group (confluent-kafka consumers, mock cluster)"),
    _live("roundrobin", "roundrobin", "librdkafka's round robin in a live group"),
    _live(
        "cooperative-sticky",
        "cooperative-sticky",
        "librdkafka's cooperative sticky in a live group; every rebalance round observed",
    ),
    _live(
        "consumer-protocol",
        None,
        "a live KIP-848 group (group.protocol=consumer): the mock broker's own simple range, not Kafka's",
    ),
)
#: librdkafka's assignors, live (``librdkafka:*``): judged like the ports they mirror; names
#: resolve like any assignor's, and ``live`` expands to all of them.
LIVE_PEERS: Mapping[str, Assignor] = MappingProxyType({a.name: a for a in _LIVE_ENTRIES})
#: The client libraries whose assignors are peers ``LIBRARY:STRATEGY`` (issue 28), one module each.  A
#: module's contract: ``LIBRARY``, ``EXTRA`` (what installs it), ``version()``, and ``STRATEGIES``: strategy
#: (or full ``library:strategy`` name) -> (its assign function, this project's port of the Kafka class it
#: claims to implement or ``None``, a one-line summary), and optionally ``GUARANTEE_OF``: peer name -> the
#: guarantee its own documentation claims.  A peer is judged on that guarantee, else on the guarantee and
#: protocol of the Kafka class it claims to copy, else on ``valid``.
_CLIENT_LIBRARIES = (aiokafka_peer, node_peers, faust_peer, go_peers)


def _client_peers() -> dict[str, Assignor]:
    peers: dict[str, Assignor] = {}
    for module in _CLIENT_LIBRARIES:
        for key, (assign, port, summary) in module.STRATEGIES.items():
            name = key if ":" in key else f"{module.LIBRARY}:{key}"
            mine = ASSIGNORS[port] if port else None
            kafka_class = mine.origin.split()[0].rsplit(".", 1)[-1] if mine else None
            origin = f"{name.split(':')[0]}'s {name.split(':')[1]} assignor" + (
                f" (its own copy of Kafka's {kafka_class})" if kafka_class else ""
            )
            claimed = getattr(module, "GUARANTEE_OF", {}).get(name)  # a guarantee of its own, not a port's
            peers[name] = Assignor(
                name,
                assign,
                origin,
                claimed or (mine.guarantee if mine else "valid"),
                mine.protocol if mine else "eager",
                f"{summary} (extra: {module.EXTRA})",
            )
    return peers


#: Other client libraries' assignors, called directly on the scenario (``aiokafka:*``, ...): judged like the
#: ports of the Kafka classes they claim to implement; ``clients`` expands to all of them.
CLIENT_PEERS: Mapping[str, Assignor] = MappingProxyType(_client_peers())
#: Client peer name -> what installs its library (an extra of ``problem.extras.EXTRAS``, or another step).
CLIENT_EXTRAS: Mapping[str, str] = MappingProxyType(
    {
        (key if ":" in key else f"{module.LIBRARY}:{key}"): module.EXTRA
        for module in _CLIENT_LIBRARIES
        for key in module.STRATEGIES
    }
)


#: Peer name -> the name of this project's port of the same Kafka assignor.
PORT_OF: Mapping[str, str] = MappingProxyType(
    {
        **{f"kafka-python:{port}": port for port in kafka_python.PEER_OF},
        "librdkafka:range": "range",
        "librdkafka:roundrobin": "roundrobin",
        "librdkafka:cooperative-sticky": "cooperative-sticky",
        **{
            (key if ":" in key else f"{module.LIBRARY}:{key}"): port
            for module in _CLIENT_LIBRARIES
            for key, (_, port, _) in module.STRATEGIES.items()
            if port
        },
    }
)


def _client_module(name: str):
    """The library module behind the client peer ``name``."""
    for module in _CLIENT_LIBRARIES:
        libraries = module.LIBRARY if isinstance(module.LIBRARY, tuple) else (module.LIBRARY,)
        if name.split(":", 1)[0] in libraries and (
            name in module.STRATEGIES or name.split(":", 1)[1] in module.STRATEGIES
        ):
            return module
    raise KeyError(name)


def require_installed(name: str, needed_by: str | None = None) -> None:
    """Raise unless the peer ``name`` can run on this machine: one line naming what to install.

    :class:`~problem.errors.MissingExtra` (exit 2) when its Python extra is
    missing, or its Node/Go libraries are not in the cache (the message
    names ``assignment-oracle install-peers``);
    :class:`~problem.errors.MissingRuntime` (exit 2) when the runtime it
    calls (``node``, ...) is not on ``PATH``.  Ports, ``external:`` and
    ``java:`` names pass (a Java class checks its JVM when it is looked up).
    Called before any work by the commands and sweeps that name peers, so a
    missing library is one line, never a column of error rows.
    """
    from assignment_oracle.problem.extras import EXTRAS, require

    needed_by = needed_by or name
    if name in PEERS:
        require("kafka-python", needed_by)
    elif name in LIVE_PEERS:
        require("librdkafka", needed_by)
    elif name in CLIENT_PEERS:
        module = _client_module(name)
        if module.EXTRA in EXTRAS:
            require(module.EXTRA, needed_by)
        if hasattr(module, "require"):
            module.require(needed_by)
    elif name in SHARE_ASSIGNORS and SHARE_ASSIGNORS[name].extra is not None:
        require(SHARE_ASSIGNORS[name].extra, needed_by)


@functools.cache
def library_version(name: str) -> str | None:
    """``"LIBRARY VERSION"`` of the client library whose assignor the peer ``name`` runs (``"aiokafka
    0.14.0"``, ``"kafkajs 2.2.4"``, ``"librdkafka 2.12.0 (confluent-kafka 2.12.0)"``), or ``None`` for a
    port or when the library is not installed: what a result of that peer was judged on."""
    try:
        if name in PEERS:
            found = kafka_python.version()
            return f"kafka-python {found}" if found else None
        if name in LIVE_PEERS:
            return librdkafka.version()
        if name not in CLIENT_PEERS:
            return None
        module = _client_module(name)
        library = name.split(":", 1)[0]
        found = module.version(library) if isinstance(module.LIBRARY, tuple) else module.version()
    except Exception:  # not installed, or a broken install: no version to record
        return None
    return f"{library} {found}" if found else None


def is_live(assignor: Assignor) -> bool:
    """Does the assignor run a live group (state between calls, its own time limit, no forking)?"""
    return isinstance(assignor.assign, librdkafka.LivePeer)


def get_assignor(name: str, *, kind: str = "consumer", classpath: str | None = None, source: str = "the scenario"):
    """The assignor called ``name`` for groups of ``kind`` (a name in :data:`problem.kinds.KINDS`), from the
    one registry keyed by kind and name (:data:`REGISTRIES`).

    A name registered for another kind raises :class:`~problem.errors.AssignorOfAnotherKind`, one line naming
    both kinds (``source``: what the scenario is called there) and this kind's assignors; a name nobody registered, :class:`UnknownAssignor` listing them.
    For consumer groups: a port (:data:`ASSIGNORS`), a peer (:data:`PEERS`), an external command, or a Java
    class (below).

    ``external:CMD ARGS`` runs ``CMD`` without a shell, ``external-shell:CMD``
    through ``/bin/sh -c`` (:mod:`heuristics.external`); judged on the
    ``valid`` guarantee (use :func:`external_assignor` to claim another).
    ``java:CLASS`` runs that ``ConsumerPartitionAssignor`` in this process's
    JVM for it, started now, from ``classpath`` (jars and class folders,
    ``:``-separated; default ``$ASSIGNMENT_ORACLE_CLASSPATH``), judged on
    ``valid`` (:mod:`heuristics.java_class`; its ``java_assignor`` claims
    another).  :class:`UnknownAssignor` lists the known names; ``ValueError``
    when an external name holds no command, or a Java class cannot be run
    from the classpath; :class:`~problem.errors.MissingRuntime` without
    ``java`` or ``javac``.
    """
    registry = REGISTRIES[kind_named(kind).name]
    found = registry.by_command(name, classpath) if registry.by_command is not None else None
    if found is not None:
        return found
    try:
        if name in registry.entries:
            return registry.entries[name]
    except TypeError:  # not a name at all
        raise UnknownAssignor(name, registry.entries, message=registry.unknown(name)) from None
    other = registered_kind(name)
    if other is not None:
        raise AssignorOfAnotherKind(name, registry.entries, message=registry.other_kind(name, other, source))
    raise UnknownAssignor(name, registry.entries, message=registry.unknown(name))


def _consumer_command(name: str, classpath: str | None) -> Assignor | None:
    """``external:CMD`` / ``external-shell:CMD`` (a program speaking the JSON protocol) or ``java:CLASS``."""
    if isinstance(name, str) and name.startswith(external.PREFIXES):
        return external_assignor(name, name=name)
    if isinstance(name, str) and name.startswith("java:"):
        from assignment_oracle.heuristics import java_class  # it builds this module's Assignor

        return java_class.java_assignor(name, classpath=classpath)
    return None


#: How a Kafka port iterates Kafka's hash maps: ``sorted`` (by member id, the documented default) or
#: ``java`` (as Java 17's ``HashMap`` does, :mod:`heuristics.java_order`).
ITERATION_ORDERS = kafka4_sticky.ITERATION_ORDERS
#: Ports that iterate as Java does on request (the keyword ``iteration_order``): name -> the entry point
#: and, for a cooperative port, its rebalance, each taking ``iteration_order``.
_IN_ORDER: Mapping[str, tuple[Callable, Callable | None]] = MappingProxyType(
    {
        "kafka4-sticky": (kafka4_sticky.assign, None),
        "kafka4-cooperative-sticky": (kafka4_sticky.assign_cooperative, kafka4_sticky.rebalance_cooperative),
        "uniform": (uniform.assign, None),
        "uniform-4.0.0": (functools.partial(uniform.assign, variant=uniform.KAFKA_4_0_0), None),
        "sticky": (sticky.assign, None),
        "sticky-kip54": (sticky.assign_kip54, None),
        "cooperative-sticky": (cooperative_sticky.assign, cooperative_sticky.rebalance),
        "constrained-sticky": (constrained_sticky.assign, None),
    }
)
JAVA_ORDER_PORTS = tuple(_IN_ORDER)
#: Of those, the KIP-848 ports, which key topics by id: in Java's order every subscribed topic needs its ``"id"``.
TOPIC_ID_PORTS = ("uniform", "uniform-4.0.0")
#: Ports of Kafka classes that sort every collection whose order decides an answer (members by
#: ``group.instance.id`` then id, topics by name; the server range assignor's ranges are per topic):
#: Java's hash order changes nothing (tools/kafka_differential: 100% in both orders).
ORDER_FREE_PORTS = ("range", "roundrobin", "server-range")


def in_iteration_order(assignor: Assignor, order: str) -> Assignor:
    """``assignor`` iterating Kafka's hash maps in ``order`` (:data:`ITERATION_ORDERS`).

    ``"sorted"`` is every assignor as registered.  ``"java"``: the ports of
    :data:`JAVA_ORDER_PORTS` iterate as Java 17's ``HashMap`` does; those of
    :data:`ORDER_FREE_PORTS` are unchanged (their answer does not depend on
    it); any other assignor is a ``ValueError`` naming the ones that can,
    rather than an answer in an order that is not Java's.
    """
    if order not in ITERATION_ORDERS:
        raise ValueError(f"iteration order must be one of {', '.join(ITERATION_ORDERS)}, got {order!r}")
    if order == "sorted" or assignor.name in ORDER_FREE_PORTS:
        return assignor
    if assignor.name not in _IN_ORDER:
        raise ValueError(
            f"{assignor.name} does not iterate in Java's order; this project's ports of Kafka's Java code do: "
            f"{', '.join(JAVA_ORDER_PORTS)} (and {', '.join(ORDER_FREE_PORTS)}, whose answer does not depend on it)"
        )
    assign, rebalance = _IN_ORDER[assignor.name]
    return dataclasses.replace(
        assignor,
        assign=functools.partial(assign, iteration_order=order),
        rebalance=functools.partial(rebalance, iteration_order=order) if rebalance else assignor.rebalance,
    )


def external_assignor(
    command: str | list[str] | tuple[str, ...],
    *,
    name: str | None = None,
    guarantee: str = "valid",
    timeout: float = external.DEFAULT_TIMEOUT,
    shell: bool = False,
    env: Mapping[str, str] | None = None,
) -> Assignor:
    """An :class:`Assignor` that runs ``command`` over the JSON protocol (:mod:`heuristics.external`).

    ``command``: an ``external:``/``external-shell:`` name, an argv list, or
    a command line split by :func:`shlex.split` (a shell only with
    ``shell=True``).  ``guarantee``: one of :data:`GUARANTEE_NAMES`, the
    promise its author claims.  ``name``: the row name in reports (default
    ``external:`` + the command).
    """
    if guarantee not in GUARANTEE_NAMES:
        raise ValueError(f"unknown guarantee {guarantee!r} (known: {', '.join(GUARANTEE_NAMES)})")
    if isinstance(command, str) and command.startswith(external.PREFIXES):
        parsed = external.parse_external(command)
        runner = external.ExternalCommand(parsed.argv, parsed.shell, timeout, tuple(sorted((env or {}).items())))
    elif isinstance(command, str):
        runner = external.ExternalCommand(
            (command,) if shell else tuple(shlex.split(command)), shell, timeout, tuple(sorted((env or {}).items()))
        )
    else:
        runner = external.ExternalCommand(tuple(command), shell, timeout, tuple(sorted((env or {}).items())))
    label = name or ("external-shell:" if runner.shell else "external:") + runner.display
    return Assignor(
        label,
        runner,
        f"external command: {runner.display}",
        guarantee,
        "eager",
        f"runs {runner.display!r} over the JSON protocol (docs/external.md)",
    )


@dataclass(frozen=True, eq=False)
class AssignorRun:
    """One assignor run on one problem: the assignment and, if cooperative, every phase."""

    assignor: Assignor
    problem: Problem
    assignment: Assignment
    phases: tuple[cooperative_sticky.Phase, ...] = ()
    #: Seconds the assignor took (``None`` when not measured).
    wall_time: float | None = None

    def to_mapping(self, *, plain: bool = True) -> dict:
        """The JSON ``assignment-oracle assign`` writes: ``solve``'s assignment fields, plus validity.

        ``check`` reads it as a candidate (its ``assignment`` key).  For a
        cooperative assignor ``assignment`` is the final one; ``phases``
        lists each rebalance's assignment, what it revoked and what it
        withheld for a follow-up rebalance.  With ``plain=False``
        assignments stay :class:`Assignment` objects (every member listed)
        for :func:`~assignment_oracle.problem.scenario_json.dumps`.
        """
        problem, assignment = self.problem, self.assignment
        ids = problem.member_ids

        def written(a: Assignment, every_member: bool = True):
            if plain:
                return a.to_mapping(ids if every_member else ())
            return a.including(ids) if every_member else a

        claims = resolve_claims(problem)
        loads = load_vector(problem, assignment)
        kept = retained(problem, assignment, claims)
        broken = violations(problem, assignment)
        out: dict = {
            "assignor": self.assignor.name,
            "protocol": self.assignor.protocol,
            "unsubscribed_topics": list(problem.unsubscribed_topics),
            "missing_topics": {m: list(ts) for m, ts in problem.missing_topics.items()},
            "dropped_claims": [d.to_mapping() for d in claims.dropped],
            "assignment": written(assignment),
            "valid": not broken,
            "violations": [v.to_mapping() for v in broken],
            "loads": dict(zip(problem.member_ids, loads)),
            "sorted_loads": list(sorted_loads(loads)),
            "sum_of_squares": sum_of_squares(loads),
            "retained": kept,
            "moved": claims.owned_count - kept,
            "owned": claims.owned_count,
        }
        if self.phases:
            out["rebalances"] = len(self.phases)
            out["revoked"] = written(self.phases[0].revoked, every_member=False)
            out["phases"] = [
                {
                    "assignment": written(p.assignment),
                    "revoked": written(p.revoked, every_member=False),
                    "withheld": written(p.withheld, every_member=False),
                }
                for p in self.phases
            ]
        return out


def run(
    assignor: str | Assignor, problem: Problem, *, time_limit: float | None = None, isolation: str = "auto"
) -> AssignorRun:
    """Run an assignor (a registered name, or any :class:`Assignor`) on ``problem``: the one runner.

    Every phase is kept if the assignor is cooperative.  ``time_limit``
    (seconds) bounds the run; ``isolation`` is ``"auto"`` (an alarm in this
    process on the main thread, else a forked child) or ``"process"``
    (always a child).  Raises :class:`UnknownAssignor` for an unknown name,
    :class:`AssignorDidNotFinish` (own loop bound or the limit) and
    :class:`AssignorFailed` (it raised or returned something else); see
    :mod:`assignment_oracle.heuristics.runner`.
    """
    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    if is_live(assignor):  # a live group bounds its own waiting and cannot cross a fork
        if time_limit is not None:
            assignor.assign.settle_limit = time_limit
        time_limit = None
    assignment, phases, seconds = runner.execute(assignor, problem, time_limit=time_limit, isolation=isolation)
    return AssignorRun(assignor, problem, assignment, phases, seconds)


def resolve_names(names) -> tuple[str, ...]:
    """Names as users write them, expanded: ``all`` (this project's ports), ``peers`` (:data:`PEERS`),
    ``live`` (:data:`LIVE_PEERS`), ``clients`` (:data:`CLIENT_PEERS`), others.

    Order kept, duplicates refused (``ValueError``), every name checked
    (:class:`UnknownAssignor`, ``ValueError`` for an external name without a
    command).
    """
    out: list[str] = []
    for name in names:
        expanded = (
            list(ASSIGNORS)
            if name == "all"
            else list(PEERS)
            if name == "peers"
            else list(LIVE_PEERS)
            if name == "live"
            else list(CLIENT_PEERS)
            if name == "clients"
            else [name]
        )
        for item in expanded:
            get_assignor(item)
            if item in out:
                raise ValueError(f"assignor {item!r} is named twice")
            out.append(item)
    return tuple(out)


# -- Streams groups (KIP-1071) ---------------------------------------------------------------------------
# A Streams group's assignor takes a Streams group's problem and answers its assignment: its own small registry,
# apart from the consumer assignors above (a name of one kind on a scenario of the other is refused).


@dataclass(frozen=True)
class StreamsAssignor:
    """One registered Streams group assignor: ``assign(problem, *, iteration_order) -> StreamsAssignment``."""

    name: str
    summary: str
    origin: str
    assign: Callable


STREAMS_ASSIGNORS: Mapping[str, StreamsAssignor] = MappingProxyType(
    {
        "streams-sticky": StreamsAssignor(
            "streams-sticky",
            "Kafka's server-side Streams task assignor, StickyTaskAssignor (KIP-1071)",
            "Kafka d79bd502 group-coordinator streams/assignor/StickyTaskAssignor.java",
            streams_sticky.assign,
        )
    }
)


# -- Share groups (KIP-932) ------------------------------------------------------------------------------------
# A share group's assignor takes a share group's problem and answers its assignment: a registry of its own, as for
# Streams groups.


@dataclass(frozen=True)
class ShareAssignor:
    """One registered share group assignor: ``assign(problem, *, iteration_order) -> ShareAssignment``.
    ``extra``: the optional install it needs (a live peer's), ``None`` for a port; a live peer runs in its
    group's own order only and is left out of ``all``."""

    name: str
    summary: str
    origin: str
    assign: Callable
    extra: str | None = None

    @property
    def live(self) -> bool:
        return self.extra is not None


SHARE_ASSIGNORS: Mapping[str, ShareAssignor] = MappingProxyType(
    {
        "share-simple": ShareAssignor(
            "share-simple",
            "Kafka's share group assignor, SimpleAssignor (KIP-932), both builders",
            "Kafka d79bd502 group-coordinator assignor/SimpleAssignor.java, SimpleHomogeneousAssignmentBuilder.java, "
            "SimpleHeterogeneousAssignmentBuilder.java",
            share_simple.assign,
        ),
        "librdkafka:share-mock": ShareAssignor(
            "librdkafka:share-mock",
            "librdkafka's mock broker's own share assignment (a contiguous split per topic in join order, no "
            "sharing), live: real share consumers (confluent-kafka) on its mock cluster (extra: librdkafka)",
            "librdkafka 2.16 src/rdkafka_mock_sharegrp.c rd_kafka_mock_sharegroup_assign_topic_partitions, live",
            librdkafka_share.assign,
            extra="librdkafka",
        ),
    }
)


# -- every kind's assignors: the one registry, keyed by kind and name ---------------------------------------------


@dataclass(frozen=True)
class KindRegistry:
    """One kind of group's assignors (:data:`REGISTRIES`), and the one way a name is refused for it."""

    kind: GroupKind
    entries: Mapping[str, object]
    #: (name, classpath) -> an assignor named by a command rather than registered (None: not such a name).
    by_command: Callable[[str, str | None], object | None] | None = None
    #: The names a refusal lists as this kind's assignors (None: every entry).
    listed: tuple[str, ...] | None = None

    def unknown(self, name: object) -> str:
        """A name nobody registered: listed with this kind's assignors."""
        hint = ", or external:COMMAND" if self.by_command is not None else ""
        label = "" if self.by_command is not None else f"{self.kind.label} "
        return f"unknown {label}assignor {name!r} (known: {', '.join(self.entries)}{hint})"

    def other_kind(self, name: str, other: GroupKind, source: str = "the scenario") -> str:
        """A name registered for ``other``: both kinds named, with this kind's assignors."""
        listed = self.entries if self.listed is None else self.listed
        return (
            f"{name} is a {other.label} assignor{f' ({other.kip})' if other.kip else ''}; {source} is "
            f"a {self.kind.label} scenario (its assignors: {', '.join(listed)})"
        )


#: Every kind's assignors, by the kind's name (problem.kinds.KINDS): what get_assignor reads.
REGISTRIES: Mapping[str, KindRegistry] = MappingProxyType(
    {
        "consumer": KindRegistry(
            KINDS["consumer"],
            MappingProxyType({**ASSIGNORS, **PEERS, **LIVE_PEERS, **CLIENT_PEERS}),
            _consumer_command,
            listed=(*ASSIGNORS, "peers", "external:COMMAND", "java:CLASS"),
        ),
        "streams": KindRegistry(KINDS["streams"], STREAMS_ASSIGNORS),
        "share": KindRegistry(KINDS["share"], SHARE_ASSIGNORS),
    }
)


def assignors_of(kind: str) -> tuple[str, ...]:
    """The names registered for groups of ``kind``."""
    return tuple(REGISTRIES[kind_named(kind).name].entries)


def registered_kind(name: object) -> GroupKind | None:
    """The kind of group ``name`` is registered for (a command, ``external:``/``java:``, is a consumer group's),
    or None."""
    if not isinstance(name, str):
        return None
    for registry in REGISTRIES.values():
        if name in registry.entries or (
            registry.by_command is not None and name.startswith((*external.PREFIXES, "java:"))
        ):
            return registry.kind
    return None
