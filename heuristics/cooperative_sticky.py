"""Kafka's CooperativeStickyAssignor (KIP-429, ``cooperative-sticky``).

Guarantee claimed: the same target as the StickyAssignor (as balanced as
possible in Kafka's sense, then as sticky as possible; see
:mod:`heuristics.sticky`), reached *incrementally*: no partition is ever
owned by two members at once, because a partition that changes owner is
first revoked by its previous owner and only assigned in a follow-up
rebalance.  Members keep consuming everything that does not move.

Algorithm (KIP-429, "Incremental Cooperative Rebalancing"; Kafka's
``CooperativeStickyAssignor.adjustAssignment``):

1. compute the sticky target from the members' owned partitions and
   generations (:func:`heuristics.sticky.assign`);
2. *first rebalance*: give every member its target minus the partitions that
   another member still owns (the resolved previous owner,
   :func:`problem.claims.resolve_claims`); those are *revoked*: their owner
   sees them missing from its assignment and gives them up;
3. every member that revoked something rejoins, so a *follow-up rebalance*
   runs with each member owning exactly what the first one gave it, at the
   next generation; partitions nobody owns now are free to go to their
   target owner.  Repeat while a rebalance still withholds partitions.

:func:`rebalance` returns every phase; :func:`assign` the assignment the
group settles on.
"""

from __future__ import annotations

from dataclasses import dataclass

from heuristics import sticky
from heuristics.sticky import AssignorDidNotFinish
from problem.claims import resolve_claims
from problem.model import Assignment, Member, Problem, TopicPartition

__all__ = ["assign", "rebalance", "CooperativeRebalance", "Phase", "MAX_REBALANCES"]

#: Follow-up rebalances allowed before giving up (Kafka has no bound; two suffice in practice).
MAX_REBALANCES = 10


@dataclass(frozen=True)
class Phase:
    """One rebalance of the cooperative protocol.

    ``assignment`` is what members get in this rebalance; ``revoked`` maps a
    member to the partitions it owned before and must give up now.
    """

    assignment: Assignment
    revoked: Assignment


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


def rebalance(problem: Problem, *, max_rebalances: int = MAX_REBALANCES) -> CooperativeRebalance:
    """Run the cooperative protocol to the end; every phase is returned.

    Examples
    --------
    A third member joins two that own everything: ``a``'s t-0 (the first
    partition of the most loaded member in sticky's round-robin listing) is
    revoked first and handed to ``c`` in the follow-up rebalance.

    >>> from problem import Problem
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
        phase = _one_rebalance(current)
        phases.append(phase)
        if not phase.revoked.members:
            return CooperativeRebalance(tuple(phases))
        current = _rejoin(current, phase.assignment)
    raise AssignorDidNotFinish(f"cooperative-sticky: still revoking partitions after {max_rebalances} rebalances")


def assign(problem: Problem) -> Assignment:
    """The assignment the group settles on after the follow-up rebalance(s)."""
    return rebalance(problem).final


def _one_rebalance(problem: Problem) -> Phase:
    target = sticky.assign(problem)
    owner = resolve_claims(problem).previous_owner
    ids = problem.member_ids
    given: dict[str, list[TopicPartition]] = {}
    revoked: dict[str, list[TopicPartition]] = {}
    for member_id in ids:
        me = problem.member_index[member_id]
        for topic, partition in target.partitions_of(member_id):
            previous = int(owner[topic][partition])
            if previous >= 0 and previous != me:
                revoked.setdefault(ids[previous], []).append(TopicPartition(topic, partition))
            else:
                given.setdefault(member_id, []).append(TopicPartition(topic, partition))
    return Phase(Assignment.from_partitions(given, ids), Assignment.from_partitions(revoked))


def _rejoin(problem: Problem, assignment: Assignment) -> Problem:
    """The follow-up rebalance: everyone owns what it was just given, one generation on."""
    generation = max((m.claim_generation for m in problem.members), default=-1) + 1
    members = tuple(
        Member(
            member_id=m.member_id,
            topics=m.topics,
            owned=tuple((t, tuple(ps)) for t, ps in sorted(assignment.members.get(m.member_id, {}).items()) if ps),
            generation=generation,
            rack=m.rack,
        )
        for m in problem.members
    )
    return Problem(problem.topics, members, problem.objective)
