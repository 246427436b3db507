"""The member joining as the group rebalances (a scenario's ``"joining"``): one rule for every kind of group.

Guarantee: a scenario of any kind (a consumer group, a Streams group, a share group) may name in its top-level
``"joining"`` one of its own members: the member whose heartbeat, as it joins, makes Kafka's group coordinator
compute this assignment.  The coordinator adds that member after every member already in the group (the
``OverlayMap``'s addition in ``UpdatedMembersAndTargetAssignmentView``), so the order the assignor iterates
``groupSpec.memberIds()`` in, and with it the answer of a port that iterates as Java does (``uniform``,
``uniform-4.0.0``, ``streams-sticky``, ``share-simple``), depends on it (:mod:`heuristics.timeline_order`).

The field is read and checked here, once, by every kind's model (:mod:`problem.model`, :mod:`problem.streams`,
:mod:`problem.share`): ``null`` or left out is nobody; anything but one of the group's member ids is refused in
one line naming ``joining`` (``--joining`` on the command line, through :func:`with_joining`).  Each kind's
``to_mapping`` writes it back when set, and each kind's ``fed_back`` (:mod:`problem.kinds`) drops it: in the next
round every member is in the group's map already, and nobody is joining unless a member is added.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Collection, Mapping, TypeVar

from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.errors import InputError

__all__ = ["KEY", "read_joining", "joining_mapping", "with_joining"]

#: The scenario's key.
KEY = "joining"

P = TypeVar("P")


def read_joining(obj: Mapping[str, Any], member_ids: Collection[str], source: str, field: str = KEY) -> str | None:
    """The joining member ``obj`` names under :data:`KEY` (``None``: nobody), one of ``member_ids``.

    Raises :class:`InputError` naming ``field`` when the value is not a member id of the group.
    """
    value = obj.get(KEY)
    if value is None:
        return None
    member = fields.expect_name(value, source, field)
    if member not in member_ids:
        raise InputError(
            source,
            field,
            f"{json.dumps(member)} is not a member of the group (the joining member is one of its members)",
        )
    return member


def joining_mapping(joining: str | None) -> dict[str, str]:
    """What a scenario document holds of ``joining``: ``{"joining": member}``, or nothing for nobody."""
    return {} if joining is None else {KEY: joining}


def with_joining(problem: P, member: str | None, source: str = "--joining") -> P:
    """``problem`` (of any kind, or a churn history: anything with ``member_ids`` and a ``joining`` field) with
    ``member`` joining, checked by the same rule as the scenario's field (:class:`InputError` from ``source``
    otherwise); ``None`` leaves it as it is."""
    if member is None:
        return problem
    joining = read_joining({KEY: member}, problem.member_ids, source, field="")  # type: ignore[attr-defined]
    return dataclasses.replace(problem, joining=joining)  # type: ignore[type-var]
