"""Kafka's CooperativeStickyAssignor (KIP-429, ``cooperative-sticky``).

Guarantee claimed: the same target as the StickyAssignor (as balanced as
possible in Kafka's sense, then as sticky as possible; see
:mod:`heuristics.sticky`), reached *incrementally*: no partition is ever
consumed by two members at once, because a partition that changes owner is
first revoked by every member that still holds it and only assigned in a
follow-up rebalance.  Members keep consuming everything that does not move.

Algorithm (KIP-429, "Incremental Cooperative Rebalancing"; the port follows
``CooperativeStickyAssignor.assign`` and ``computePartitionsTransferringOwnership``
in apache/kafka at 4.0.0-SNAPSHOT, commit 1eb7644; the general path has
used this rule since KIP-429 shipped in Kafka 2.4):

1. compute the sticky target from the members' owned partitions and
   generations (:func:`heuristics.sticky.assign`, which resolves claims per
   partition: :func:`problem.claims.resolve_claims`);
2. *first rebalance*: a partition the target gives to a member that does not
   hold it, while some other member does hold it, is *withheld*: left out of
   this assignment.  "Holds" means "claims", whatever claim resolution
   decided (:func:`problem.ownership.held_partitions`): a member whose claim
   was tied, superseded by a newer generation, or is on a topic it no
   longer subscribes to is still consuming that partition, and stops only
   when its new assignment leaves the partition out.  Each member *revokes*
   everything it holds and is not given;
3. every member that revoked something rejoins, so a *follow-up rebalance*
   runs with each member holding exactly what the previous one gave it, at
   the next generation; withheld partitions are held by nobody now and go
   to their target owner.  Repeat while a rebalance revokes anything (the
   rule Kafka's ``ConsumerCoordinator`` follows: revoked partitions trigger
   a rejoin); :attr:`CooperativeRebalance.rebalances` counts the rounds.

Before this rule the port withheld only partitions whose *resolved* previous
owner lost them, so a partition claimed by two members at the same
generation, or by a member that unsubscribed from its topic, went to a new
owner in the very rebalance in which its holders still consumed it (the
defect KAFKA-14639 fixed in Kafka's constrained path, Kafka 3.4.1/3.5.0).
:func:`problem.ownership.cooperative_handoffs` is the independent check.

Departures from Kafka: the target always comes from the general sticky
algorithm, also when all subscriptions are equal (Kafka then runs its
constrained path, :mod:`heuristics.constrained_sticky`), so tie-breaks
among equally good targets can differ from Kafka's; and
:data:`MAX_REBALANCES` bounds the follow-ups (Kafka has no bound).

:func:`rebalance` returns every phase; :func:`assign` the assignment the
group settles on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

from assignment_oracle.heuristics import sticky
from assignment_oracle.problem.errors import AssignorDidNotFinish
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition
from assignment_oracle.problem.ownership import held_partitions

__all__ = ["assign", "rebalance", "CooperativeRebalance", "Phase", "MAX_REBALANCES"]

#: Follow-up rebalances allowed before giving up (Kafka has no bound; two suffice in practice).
MAX_REBALANCES = 10


@dataclass(frozen=True)
class Phase:
    """One rebalance of the cooperative protocol.

    ``assignment`` is what members get in this rebalance; ``revoked`` maps a
    member to the partitions it held before and must give up now;
    ``withheld`` maps a member to the partitions the target gives it but
    another member still held, so they wait for a follow-up rebalance.
    """

    assignment: Assignment
    revoked: Assignment
    withheld: Assignment = field(default_factory=Assignment)


@dataclass(frozen=True)
class CooperativeRebalance:
    """All rebalances until the group settles; ``final`` is the last assignment."""

    phases: tuple[Phase, ...]

    @property
    def first(self) -> Assignment:
        return self.phases[0].assignment

    @property
    def revoked(self) -> Assignment:
        """What the first rebalance revokes."""
        return self.phases[0].revoked

    @property
    def final(self) -> Assignment:
        return self.phases[-1].assignment

    @property
    def rebalances(self) -> int:
        """Rebalances needed: 1 when nothing moves, 2 for the usual revoke-then-assign."""
        return len(self.phases)


def rebalance(
    problem: Problem,
    *,
    max_rebalances: int = MAX_REBALANCES,
    target: Callable[[Problem], Assignment] = sticky.assign,
    holdings: Callable[[Problem], Mapping[str, frozenset[TopicPartition]]] = held_partitions,
) -> CooperativeRebalance:
    """Run the cooperative protocol to the end; every phase is returned.

    ``target`` is the eager assignment each rebalance aims for, ``holdings``
    what the assignor takes each member to hold when it decides what to
    withhold (members revoke what they really hold, whatever it takes).  The defaults are this module's algorithm (every claim is
    held, as in Kafka today); the bug corpus passes older rules to replay
    what they did (:data:`compare.scenarios.bugs.COOPERATIVE_CONSTRAINED_34`).

    Examples
    --------
    A third member joins two that own everything: ``a``'s t-0 (the first
    partition of the most loaded member in sticky's round-robin listing) is
    revoked first and handed to ``c`` in the follow-up rebalance.

    >>> from assignment_oracle.problem import Problem
    >>> p = Problem.from_mapping({"topics": {"t": 3}, "members": {
    ...     "a": {"topics": ["t"], "owned": {"t": [0, 1]}, "generation": 1},
    ...     "b": {"topics": ["t"], "owned": {"t": [2]}, "generation": 1},
    ...     "c": {"topics": ["t"]}}})
    >>> r = rebalance(p)
    >>> r.first.to_mapping(), r.revoked.to_mapping(), r.rebalances
    ({'a': {'t': [1]}, 'b': {'t': [2]}, 'c': {}}, {'a': {'t': [0]}}, 2)
    >>> r.final.to_mapping()
    {'a': {'t': [1]}, 'b': {'t': [2]}, 'c': {'t': [0]}}
    """
    phases: list[Phase] = []
    current = problem
    for _ in range(max_rebalances):
        phase = _one_rebalance(current, target, holdings)
        phases.append(phase)
        if not phase.revoked.members:
            return CooperativeRebalance(tuple(phases))
        current = _rejoin(current, phase.assignment)
    raise AssignorDidNotFinish(f"cooperative-sticky: still revoking partitions after {max_rebalances} rebalances")


def assign(problem: Problem) -> Assignment:
    """The assignment the group settles on after the follow-up rebalance(s)."""
    return rebalance(problem).final


def _one_rebalance(problem: Problem, target_of, holdings) -> Phase:
    target = target_of(problem)
    held = held_partitions(problem)  # what members really hold: each revokes what it is not given
    believed = held if holdings is held_partitions else holdings(problem)  # what the assignor counts
    holders = Counter(tp for partitions in believed.values() for tp in partitions)
    ids = problem.member_ids
    given: dict[str, list[TopicPartition]] = {}
    withheld: dict[str, list[TopicPartition]] = {}
    for member_id in ids:
        mine = believed[member_id]
        for tp in target.partitions_of(member_id):
            # Kafka's partitionsTransferringOwnership: added here, held (so revoked) elsewhere.
            if tp not in mine and holders[tp]:
                withheld.setdefault(member_id, []).append(tp)
            else:
                given.setdefault(member_id, []).append(tp)
    revoked = {m: sorted(held[m] - set(given.get(m, ()))) for m in ids}
    return Phase(
        Assignment.from_partitions(given, ids),
        Assignment.from_partitions({m: ps for m, ps in revoked.items() if ps}),
        Assignment.from_partitions(withheld),
    )


def _rejoin(problem: Problem, assignment: Assignment) -> Problem:
    """The follow-up rebalance: everyone owns what it was just given, one generation on."""
    generation = max((m.claim_generation for m in problem.members), default=-1) + 1
    members = tuple(
        replace(  # the same member (rack, instance id, subscription), owning what it was given
            m,
            owned=tuple((t, tuple(ps)) for t, ps in sorted(assignment.members.get(m.member_id, {}).items()) if ps),
            generation=generation,
        )
        for m in problem.members
    )
    return Problem(problem.topics, members, problem.objective)
