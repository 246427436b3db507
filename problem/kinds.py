"""The kinds of group, defined once: every table above ``problem/`` is a lookup in :data:`KINDS`.

Guarantee: a kind of group is one :class:`GroupKind` row here, and everything that reads, validates or feeds back
a group of that kind goes through the row: which scenarios and answers are its own (the document's ``"kind"``),
how they are read, when an answer is valid (one rule for invented names, :mod:`problem.invented`), how an answer
is written as the JSON ``check`` reads, and how an answer becomes the next round's previous assignment.  Nothing
asks ``isinstance`` of a group: :func:`kind_of` finds the row by the problem's exact type, :func:`kind_named` by
name, :func:`kind_of_scenario` by the document, and an unknown one is refused by name, never taken for another.

Kafka's own shape is the model: one ``PartitionAssignor`` contract, a sub-interface per group type
(``ConsumerGroupPartitionAssignor``, ``ShareGroupPartitionAssignor``) and a map from group type to what it is
configured with.  Each layer above adds its part to the same kind by the kind's :attr:`GroupKind.name`:
``optimal.engines.GROUP_MODELS`` (the exact model and its request), ``heuristics.registry`` (the assignors, keyed
by kind and name), ``compare.judge.front.JUDGES`` (the judge and the explanation), ``assignment_oracle.testing``
(the strategies and the churn between rounds).  docs/architecture.md lists the files a new kind touches.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from assignment_oracle.problem import ownership
from assignment_oracle.problem import share as share_group
from assignment_oracle.problem import streams as streams_group
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.joining import KEY as JOINING
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.scenario_json import (
    MAX_PARTITIONS,
    assignment_from_mapping,
    check_members,
    problem_from_mapping,
)

__all__ = [
    "GroupProblem",
    "GroupAssignment",
    "GroupKind",
    "KINDS",
    "CONSUMER",
    "STREAMS",
    "SHARE",
    "PROBLEM_TYPES",
    "is_problem",
    "kind_of",
    "kind_named",
    "kind_of_scenario",
    "kind_of_answer",
]

#: A group of any kind, and an answer for one (the union of the kinds' types; annotations only).
GroupProblem = Problem | streams_group.StreamsProblem | share_group.ShareProblem
GroupAssignment = Assignment | streams_group.StreamsAssignment | share_group.ShareAssignment


@dataclass(frozen=True)
class GroupKind:
    """One kind of group: what the problem layer knows of it (module docstring)."""

    #: The kind's name, as ``check_assignor(kinds=...)``, a sweep's spec and the other layers' tables key it.
    name: str
    #: What a message calls a group of this kind ("a Streams group (KIP-1071)").
    described: str
    #: The KIP that defines the group's protocol ("" for the consumer group, whose protocol predates KIPs).
    kip: str
    problem_type: type
    assignment_type: type
    #: The scenario's ``"kind"`` value (None: a consumer group's scenario has no ``"kind"``).
    tag: str | None
    #: (document, source, max_partitions, max_members) -> the validated problem.
    read_scenario: Callable[[Any, str, int | None, int | None], Any]
    #: (document, source) -> the assignment (shape only).
    read_assignment: Callable[[Any, str], Any]
    #: Whether a document read without its scenario is this kind's answer.
    claims_answer: Callable[[Any], bool]
    #: (problem, assignment) -> every way it is not a valid assignment of the group (empty: valid).
    violations: Callable[[Any, Any], tuple]
    #: (problem, assignment) -> the JSON ``check`` reads of it.
    answer_document: Callable[[Any, Any], dict]
    #: The key an answer document holds its members under (``assignment``; a Streams group's ``members``).
    answer_key: str
    #: (scenario JSON, the answer's members JSON, generation) -> the scenario with every member holding what
    #: the answer gives it as its previous assignment (a copy; ``generation`` None: the one after the
    #: scenario's, where the kind has generations), nobody joining (:func:`_next_round`).
    fed_back: Callable[[dict, Mapping, int | None], dict]
    #: A member's JSON entry -> the entry of a member joining like it (its subscription, process or rack).
    joining_like: Callable[[dict], dict]

    @property
    def label(self) -> str:
        """The kind as a message names it in passing ("Streams group", "share group")."""
        return self.described.removeprefix("a ").split(" (")[0]

    def wrap_answer(self, members: Mapping) -> dict:
        """A bare ``{member: ...}`` answer as the document ``check`` reads (its key added)."""
        return {self.answer_key: dict(members)}

    def answer_members(self, document: Any) -> Mapping:
        """The members' part of an answer document: under ``assignment`` (what ``solve``, ``assign`` and
        ``capture`` write), then under the kind's own key; a consumer or share group's may be bare."""
        if not isinstance(document, Mapping):
            return {}
        inner = document.get("assignment", document)
        if self.answer_key == "assignment":
            return inner if isinstance(inner, Mapping) else {}
        return inner.get(self.answer_key, {}) if isinstance(inner, Mapping) else {}


def _next_round(fed_back: Callable[[dict, Mapping, int | None], dict]) -> Callable[[dict, Mapping, int | None], dict]:
    """A kind's ``fed_back`` whose next round has nobody joining (every kind's one rule, :mod:`problem.joining`):
    every member of the answered round is in the group's map by then; a member added afterwards (the caller's
    churn) is the one joining, if the caller says so."""

    def next_round(scenario: dict, members: Mapping, generation: int | None) -> dict:
        out = fed_back(scenario, members, generation)
        out.pop(JOINING, None)
        return out

    next_round.__doc__ = fed_back.__doc__
    return next_round


# -- consumer groups (the classic protocol and KIP-848) --------------------------------------------------------


def _consumer_scenario(document: Any, source: str, max_partitions: int | None, max_members: int | None) -> Problem:
    return problem_from_mapping(document, source=source, max_partitions=max_partitions, max_members=max_members)


def _consumer_assignment(document: Any, source: str) -> Assignment:
    if isinstance(document, dict) and "assignment" in document:
        return assignment_from_mapping(document, source=source)
    # The bare form {member: {topic: [partitions]}}: read as the value of an "assignment" key, its errors
    # naming the fields as they are in this document.
    try:
        return assignment_from_mapping({"assignment": document}, source=source)
    except InputError as err:
        field = err.field.removeprefix("assignment").removeprefix(".")
        raise InputError(err.source, field, err.problem) from None


def _consumer_fed_back(scenario: dict, members: Mapping, generation: int | None) -> dict:
    """Every member's ``owned`` at ``generation`` (None: one past the scenario's highest)."""
    out = copy.deepcopy(scenario)
    entries = out["members"]
    if generation is None:
        generation = 1 + max((m.get("generation") or 0 for m in entries.values()), default=0)
    for member_id, entry in entries.items():
        owned = members.get(member_id) or {}
        entry.pop("owned", None)
        entry.pop("generation", None)
        if owned:
            entry["owned"] = {t: list(ps) for t, ps in owned.items() if ps}
            entry["generation"] = generation
    return out


def _consumer_joining(like: dict) -> dict:
    return {"topics": list(like["topics"]), **({"rack": like["rack"]} if "rack" in like else {})}


# -- Streams groups (KIP-1071) ---------------------------------------------------------------------------------


def _streams_scenario(document: Any, source: str, max_partitions: int | None, max_members: int | None):
    # a Streams group's own default (problem.streams.MAX_TASKS) unless another limit was asked for
    return streams_group.StreamsProblem.from_mapping(
        document,
        source=source,
        max_tasks=streams_group.MAX_TASKS if max_partitions == MAX_PARTITIONS else max_partitions,
        max_members=max_members,
    )


def _streams_assignment(document: Any, source: str):
    if isinstance(document, dict) and "assignment" in document:
        return streams_group.StreamsAssignment.from_mapping(document["assignment"], source=f"{source}: assignment")
    return streams_group.StreamsAssignment.from_mapping(document, source=source)


def _streams_answer(document: Any) -> bool:
    """``{"kind": "streams", ...}`` (what ``assign`` writes for a Streams group), or an object whose only key is
    ``"members"`` mapping each member to ``{"active": ..., "standby": ...}`` (either may be left out)."""
    if not isinstance(document, dict):
        return False
    if document.get("kind") is not None:  # any "kind" no other row has: the Streams reader says what is wrong
        return _tagged_kind(document["kind"]) is STREAMS
    inner = document.get("assignment", document)
    if not isinstance(inner, dict) or set(inner) != {"members"} or not isinstance(inner["members"], dict):
        return False
    values = list(inner["members"].values())
    return bool(values) and all(isinstance(v, dict) and set(v) <= streams_group._ASSIGNED_KEYS for v in values)


def _streams_fed_back(scenario: dict, members: Mapping, generation: int | None) -> dict:
    """Every member's previous active and standby tasks (warm-ups dropped)."""
    out = copy.deepcopy(scenario)
    for member_id, entry in out["members"].items():
        tasks = members.get(member_id) or {}
        for role in ("active", "standby", "warmup"):
            entry.pop(role, None)
        for role in ("active", "standby"):
            held = {s: list(ps) for s, ps in (tasks.get(role) or {}).items() if ps}
            if held:
                entry[role] = held
    return out


def _streams_joining(like: dict) -> dict:
    """On the process of the member it is like (a process's members share its tags: one instance's config)."""
    joined: dict = {"process": like["process"]}
    if "client_tags" in like:
        joined["client_tags"] = dict(like["client_tags"])
    return joined


# -- share groups (KIP-932) ------------------------------------------------------------------------------------


def _share_scenario(document: Any, source: str, max_partitions: int | None, max_members: int | None):
    if isinstance(document, dict) and isinstance(document.get("members"), dict):
        check_members(len(document["members"]), max_members, source)
    return share_group.ShareProblem.from_mapping(document, source=source, max_partitions=max_partitions)


def _share_fed_back(scenario: dict, members: Mapping, generation: int | None) -> dict:
    """Every member's current assignment (``assigned``): a share group has no generations of its own."""
    out = copy.deepcopy(scenario)
    for member_id, entry in out["members"].items():
        entry.pop("assigned", None)
        held = {t: list(ps) for t, ps in (members.get(member_id) or {}).items() if ps}
        if held:
            entry["assigned"] = held
    return out


def _tagged(tag: str) -> Callable[[Any], bool]:
    return lambda document: isinstance(document, dict) and document.get("kind") == tag


CONSUMER = GroupKind(
    name="consumer",
    described="a consumer group",
    kip="",
    problem_type=Problem,
    assignment_type=Assignment,
    tag=None,
    read_scenario=_consumer_scenario,
    read_assignment=_consumer_assignment,
    claims_answer=lambda document: True,  # what no other kind claims
    violations=ownership.violations,
    answer_document=lambda problem, assignment: {"assignment": assignment.to_mapping(problem.member_ids)},
    answer_key="assignment",
    fed_back=_next_round(_consumer_fed_back),
    joining_like=_consumer_joining,
)
STREAMS = GroupKind(
    name="streams",
    described="a Streams group (KIP-1071)",
    kip="KIP-1071",
    problem_type=streams_group.StreamsProblem,
    assignment_type=streams_group.StreamsAssignment,
    tag=streams_group.KIND,
    read_scenario=_streams_scenario,
    read_assignment=_streams_assignment,
    claims_answer=_streams_answer,
    violations=streams_group.violations,
    answer_document=lambda problem, assignment: assignment.to_mapping(),
    answer_key="members",
    fed_back=_next_round(_streams_fed_back),
    joining_like=_streams_joining,
)
SHARE = GroupKind(
    name="share",
    described="a share group (KIP-932)",
    kip="KIP-932",
    problem_type=share_group.ShareProblem,
    assignment_type=share_group.ShareAssignment,
    tag=share_group.KIND,
    read_scenario=_share_scenario,
    read_assignment=lambda document, source: share_group.ShareAssignment.from_mapping(document, source=source),
    claims_answer=_tagged(share_group.KIND),
    violations=share_group.violations,
    answer_document=lambda problem, assignment: {"assignment": assignment.to_mapping()},
    answer_key="assignment",
    fed_back=_next_round(_share_fed_back),
    joining_like=lambda like: {"topics": list(like["topics"])},
)

#: The kinds of group, by name, in the order answers are told apart when no scenario says which (the
#: consumer group last: it is what no other kind claims).
KINDS: dict[str, GroupKind] = {k.name: k for k in (SHARE, STREAMS, CONSUMER)}
_BY_TYPE: dict[type, GroupKind] = {k.problem_type: k for k in KINDS.values()}
_BY_TAG: dict[str | None, GroupKind] = {k.tag: k for k in KINDS.values()}


def kind_of(problem: Any) -> GroupKind:
    """The kind of ``problem``, by its exact type; a type no kind has raises ``TypeError`` naming the known ones."""
    kind = _BY_TYPE.get(type(problem))
    if kind is None:
        raise TypeError(f"no kind of group is a {type(problem).__name__} (known: {', '.join(KINDS)})")
    return kind


#: Every kind's problem type (what ``assign(problem)`` of any kind takes).
PROBLEM_TYPES: tuple[type, ...] = tuple(_BY_TYPE)


def is_problem(value: Any) -> bool:
    """Whether ``value`` is a problem of some kind (its exact type is a kind's)."""
    return type(value) in _BY_TYPE


def kind_named(name: str) -> GroupKind:
    """The kind called ``name``; another name raises ``ValueError`` naming the known ones."""
    kind = KINDS.get(name)
    if kind is None:
        raise ValueError(f"unknown kind of group {name!r} (known: {', '.join(KINDS)})")
    return kind


def kind_of_scenario(document: Any) -> GroupKind:
    """The kind a decoded scenario is: its ``"kind"`` (none: a consumer group).  A ``"kind"`` no row has is read
    as a Streams group's, whose reader then says what is wrong with it (the format's first tagged kind)."""
    if not (isinstance(document, dict) and "kind" in document):
        return CONSUMER
    return _tagged_kind(document["kind"])


def _tagged_kind(tag: Any) -> GroupKind:
    """The kind a scenario's ``"kind"`` names; one no row has is the Streams group's (whose reader refuses it)."""
    return _BY_TAG.get(tag, STREAMS) if isinstance(tag, str) else STREAMS


def kind_of_answer(document: Any) -> GroupKind:
    """The kind of an answer read without its scenario: the first kind (:data:`KINDS`' order) that claims it."""
    return next(k for k in KINDS.values() if k.claims_answer(document))
