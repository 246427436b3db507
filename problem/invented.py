"""The one rule for names an answer invents, for every kind of group.

Guarantee: an answer that names a member the group does not have, or lists for one of its members a topic (a
Streams group: a subtopology) the group does not have, is not a valid assignment of that group, even when the
invented name holds nothing (``"ghost": {}``, ``"nosuch": []``).  Kafka's coordinator only ever sends an
assignment to the members of the group, of the topics it knows; an answer with more is a different group's.

Each kind's validity (:func:`problem.ownership.violations`, :func:`problem.streams.violations`,
:func:`problem.share.violations`) reports what is *held* by unknown names in its own terms; the names that hold
nothing, which no holding can reveal, are found here, once, and each kind words them as its own violation.
"""

from __future__ import annotations

from typing import Collection, Iterable

__all__ = ["Invented", "invented"]


class Invented:
    """What :func:`invented` found: members the group lacks that hold nothing, and (member, name) pairs of a
    member of the group listing, with nothing in it, a topic or subtopology the group lacks (sorted)."""

    __slots__ = ("members", "containers")

    def __init__(self, members: tuple[str, ...], containers: tuple[tuple[str, str], ...]) -> None:
        self.members = members
        self.containers = containers

    def __bool__(self) -> bool:
        return bool(self.members or self.containers)


def invented(
    listed: Iterable[tuple[str, bool]],
    listed_empty: Iterable[tuple[str, str]],
    members: Collection[str],
    containers: Collection[str],
) -> Invented:
    """The names an answer invents that hold nothing.

    ``listed``: each member the answer names and whether it holds anything; ``listed_empty``: the (member,
    topic or subtopology) pairs it lists with nothing; ``members`` and ``containers``: the group's member ids
    and its topics (or subtopologies).  A member that holds something is left to the kind's own validity, as
    is a pair whose member is not in the group (the member is the violation).
    """
    unknown = tuple(m for m, holds in listed if m not in members and not holds)
    pairs = tuple(sorted({(m, c) for m, c in listed_empty if m in members and c not in containers}))
    return Invented(unknown, pairs)
