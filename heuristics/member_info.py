"""The order Kafka's client assignors put members in: static members first, by ``group.instance.id``.

Kafka's ``AbstractPartitionAssignor.MemberInfo`` (KIP-345, Kafka 2.3+; read
at apache/kafka 1eb7644, 4.0.0-SNAPSHOT) compares two members by their
``group.instance.id`` when both have one, puts a member with one before a
member without, and compares two dynamic members by member id.  Range and
RoundRobin sort their members with it, so a static member keeps its place,
and so its partitions, when it rejoins under a new member id.

Departure: Java compares strings by UTF-16 code units, Python by code
points; the two orders differ only between characters above U+FFFF and
those in U+E000-U+FFFF.
"""

from __future__ import annotations

from assignment_oracle.problem.model import Problem

__all__ = ["member_order"]


def member_order(problem: Problem) -> tuple[int, ...]:
    """Member indices (into ``problem.members``) in ``MemberInfo`` order.

    >>> p = Problem.from_mapping({"topics": {"t": 1}, "members": {
    ...     "a": {"topics": ["t"]}, "b": {"topics": ["t"], "instance_id": "z"},
    ...     "c": {"topics": ["t"], "instance_id": "y"}}})
    >>> [p.member_ids[i] for i in member_order(p)]
    ['c', 'b', 'a']
    """
    members = problem.members
    if all(m.instance_id is None for m in members):
        return tuple(range(len(members)))  # members are kept sorted by id already
    return tuple(
        sorted(
            range(len(members)),
            key=lambda i: (
                (0, members[i].instance_id) if members[i].instance_id is not None else (1, members[i].member_id)
            ),
        )
    )
