"""The assignors by the names users know from ``partition.assignment.strategy``.

Each entry says what the assignor is (its Kafka class, or the proposal it
comes from), the guarantee it claims (a key of
:data:`compare.guarantees.GUARANTEES`, which checks it against the oracle),
and whether it runs the eager or the cooperative protocol.  Everything that
accepts an assignor name (the CLI, sweeps, notebooks) looks it up here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from compare.metrics import load_vector, retained, sorted_loads, sum_of_squares
from heuristics import constrained_sticky, cooperative_sticky, fair, range, roundrobin, sticky, stream_join_sticky
from problem.claims import resolve_claims
from problem.model import Assignment, Problem
from problem.ownership import violations

__all__ = ["Assignor", "ASSIGNORS", "AssignorRun", "UnknownAssignor", "get_assignor", "run"]


@dataclass(frozen=True)
class Assignor:
    """One registered assignor.

    Attributes
    ----------
    name:
        The registry key (Kafka's ``name()`` where Kafka has one).
    assign:
        ``assign(problem) -> Assignment``: the assignment members end up with
        (for a cooperative assignor, after its follow-up rebalances).
    origin:
        The Kafka class, or the KIP that proposed it.
    guarantee:
        The key of the guarantee it claims in :mod:`compare.guarantees`.
    protocol:
        ``eager`` or ``cooperative`` (KIP-429: moves take a second rebalance).
    summary:
        One line for ``assignment-oracle assignors``.
    """

    name: str
    assign: Callable[[Problem], Assignment]
    origin: str
    guarantee: str
    protocol: str
    summary: str


_ENTRIES = (
    Assignor("range", range.assign, "org.apache.kafka.clients.consumer.RangeAssignor", "per-topic-balance", "eager",
             "per topic, contiguous ranges to subscribers by member id; co-partitions equal topics"),
    Assignor("roundrobin", roundrobin.assign, "org.apache.kafka.clients.consumer.RoundRobinAssignor",
             "identical-subscriptions-balance", "eager",
             "all partitions dealt around the members in id order, skipping non-subscribers"),
    Assignor("fair", fair.assign, "KIP-49 FairAssignor (proposed, never shipped)", "identical-subscriptions-balance",
             "eager", "each partition to the least-loaded eligible member, most constrained topics first"),
    Assignor("sticky", sticky.assign, "org.apache.kafka.clients.consumer.StickyAssignor (KIP-54 + KIP-341)",
             "kafka-balance", "eager",
             "keep valid claims (highest generation wins), fill the lightest, move single partitions until balanced"),
    Assignor("sticky-kip54", sticky.assign_kip54, "StickyAssignor before KIP-341 (Kafka 0.11-2.0)", "kafka-balance",
             "eager", "the KIP-54 sticky algorithm reading claims without generations: stale claims are kept"),
    Assignor("cooperative-sticky", cooperative_sticky.assign,
             "org.apache.kafka.clients.consumer.CooperativeStickyAssignor (KIP-429)", "kafka-balance", "cooperative",
             "sticky's target, moved partitions revoked first and assigned in a follow-up rebalance"),
    Assignor("constrained-sticky", constrained_sticky.assign,
             "AbstractStickyAssignor constrained path (KAFKA-9987, constrained cooperative sticky proposal)",
             "exact-balance", "eager",
             "identical subscriptions: floor/ceil quotas, keep owned up to quota, fill, steal; else sticky"),
    Assignor("stream-join-sticky", stream_join_sticky.assign, "KIP-315 StickyStreamJoinAssignor (proposed)",
             "stream-join", "eager",
             "partition p of every topic to one member; sticky by epoch; partitions past the smallest topic stay unassigned"),
)

#: Registry name -> :class:`Assignor`, in the order above.
ASSIGNORS: Mapping[str, Assignor] = MappingProxyType({a.name: a for a in _ENTRIES})


class UnknownAssignor(KeyError):
    """No assignor is registered under this name."""

    def __str__(self) -> str:
        return f"unknown assignor {self.args[0]!r} (known: {', '.join(ASSIGNORS)})"


def get_assignor(name: str) -> Assignor:
    """The registered assignor called ``name``; :class:`UnknownAssignor` lists the known names."""
    try:
        return ASSIGNORS[name]
    except KeyError:
        raise UnknownAssignor(name) from None


@dataclass(frozen=True, eq=False)
class AssignorRun:
    """One assignor run on one problem: the assignment and, if cooperative, every phase."""

    assignor: Assignor
    problem: Problem
    assignment: Assignment
    phases: tuple[cooperative_sticky.Phase, ...] = ()

    def to_mapping(self) -> dict:
        """The JSON ``assignment-oracle assign`` writes: ``solve``'s assignment fields, plus validity.

        ``check`` reads it as a candidate (its ``assignment`` key).  For a
        cooperative assignor ``assignment`` is the final one; ``phases``
        lists each rebalance's assignment and what it revoked.
        """
        problem, assignment = self.problem, self.assignment
        claims = resolve_claims(problem)
        loads = load_vector(problem, assignment)
        kept = retained(problem, assignment, claims)
        out: dict = {
            "assignor": self.assignor.name,
            "protocol": self.assignor.protocol,
            "unsubscribed_topics": list(problem.unsubscribed_topics),
            "missing_topics": {m: list(ts) for m, ts in problem.missing_topics.items()},
            "dropped_claims": [d.to_mapping() for d in claims.dropped],
            "assignment": assignment.to_mapping(problem.member_ids),
            "valid": not violations(problem, assignment),
            "violations": [v.to_mapping() for v in violations(problem, assignment)],
            "loads": dict(zip(problem.member_ids, loads)),
            "sorted_loads": list(sorted_loads(loads)),
            "sum_of_squares": sum_of_squares(loads),
            "retained": kept,
            "moved": claims.owned_count - kept,
            "owned": claims.owned_count,
        }
        if self.phases:
            out["rebalances"] = len(self.phases)
            out["revoked"] = self.phases[0].revoked.to_mapping()
            out["phases"] = [
                {"assignment": p.assignment.to_mapping(problem.member_ids), "revoked": p.revoked.to_mapping()}
                for p in self.phases
            ]
        return out


def run(assignor: str | Assignor, problem: Problem) -> AssignorRun:
    """Run an assignor (a registered name, or any :class:`Assignor`) on ``problem``
    (every phase, if cooperative)."""
    if isinstance(assignor, str):
        assignor = get_assignor(assignor)
    if assignor.assign is cooperative_sticky.assign:
        phases = cooperative_sticky.rebalance(problem).phases
        return AssignorRun(assignor, problem, phases[-1].assignment, phases)
    return AssignorRun(assignor, problem, assignor.assign(problem))
