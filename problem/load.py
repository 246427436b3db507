"""Read a scenario or an assignment from wherever it is: a file, standard input, JSON text, a decoded dict.

The one entry point for input in any shape, for the command line (``-`` is
standard input everywhere it reads a file) and for tests written without
this project's types::

    problem = load_scenario("scenario.json")                  # a file
    problem = load_scenario("-")                              # standard input
    problem = load_scenario({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}}})
    assignment = load_assignment({"a": {"t": [0, 1, 2]}}, problem)

A document with ``"kind": "share"`` is a share group (KIP-932,
:class:`~assignment_oracle.problem.share.ShareProblem`), one with any other
``"kind"`` a Streams group (KIP-1071,
:class:`~assignment_oracle.problem.streams.StreamsProblem`); any other is a
consumer group (:class:`~assignment_oracle.problem.model.Problem`).  A
sweep's counterexample file (``{"assignor", "finding", "scenario"}``) is read
as the scenario it holds.  Validation is the formats' own
(:mod:`~assignment_oracle.problem.scenario_json`,
:mod:`~assignment_oracle.problem.streams`, :mod:`~assignment_oracle.problem.share`): a mistake is one
:class:`~assignment_oracle.problem.errors.InputError` naming the source and
the field, nothing guessed.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.scenario_json import (
    COUNTEREXAMPLE_KEYS,
    MAX_MEMBERS,
    MAX_PARTITIONS,
    assignment_from_mapping,
    check_members,
    load_json,
    problem_from_mapping,
    read_input,
    read_json_file,
)
from assignment_oracle.problem.share import KIND as SHARE_KIND
from assignment_oracle.problem.share import ShareAssignment, ShareProblem
from assignment_oracle.problem.streams import (
    _ASSIGNED_KEYS,
    MAX_TASKS,
    StreamsAssignment,
    StreamsProblem,
)

__all__ = [
    "STDIN",
    "STDIN_NAME",
    "Source",
    "read_document",
    "is_streams_scenario",
    "is_share_scenario",
    "scenario_from_document",
    "assignment_from_document",
    "load_scenario",
    "load_assignment",
]

#: The name that means standard input, as every command line tool takes it.
STDIN = "-"
#: What an error about standard input names as its source.
STDIN_NAME = "<stdin>"

#: Where input may come from: a path, ``"-"`` (standard input), JSON text (a ``str`` or ``bytes`` that
#: starts with ``{`` or ``[``), or an already decoded document (a dict, or a list for a bare error).
Source = str | bytes | os.PathLike | Mapping[str, Any] | list


def read_document(source: Source, *, name: str = "input") -> tuple[Any, str]:
    """The decoded JSON document of ``source`` and the name its errors give as their source.

    A path names itself, ``"-"`` reads standard input (once: it is a stream)
    and is named ``<stdin>``, JSON text and a decoded document are named
    ``name``.  Decoding is strict (duplicate keys, NaN, lone surrogates are
    errors), as every file this project reads.

    Raises
    ------
    InputError
        The file cannot be read, or it is not strict JSON.
    """
    if isinstance(source, (dict, list)) or (isinstance(source, Mapping) and not isinstance(source, (str, bytes))):
        return (dict(source) if isinstance(source, Mapping) and not isinstance(source, dict) else source), name
    if isinstance(source, bytes) or (isinstance(source, str) and source.lstrip()[:1] in ("{", "[")):
        return load_json(source, source=name), name
    if isinstance(source, (str, os.PathLike)):
        if str(source) == STDIN:
            try:
                data = read_input(None, STDIN_NAME, stream=sys.stdin.buffer)  # at most the input cap
            except (OSError, AttributeError, ValueError) as err:  # closed, or no standard input at all
                if isinstance(err, InputError):
                    raise
                raise InputError(STDIN_NAME, "", f"cannot read standard input ({err})") from None
            if not data.strip():
                raise InputError(STDIN_NAME, "", "is empty (expected a JSON document on standard input)")
            return load_json(data, source=STDIN_NAME), STDIN_NAME
        if isinstance(source, str) and not source:
            raise InputError(name, "", "no file named (an empty path)")
        return read_json_file(source), str(source)
    raise InputError(name, "", f"must be a path, '-', JSON text or a dict, got {type(source).__name__}")


def _scenario_part(document: Any, name: str) -> tuple[Any, str]:
    """A sweep's counterexample file holds its scenario under ``scenario``."""
    if isinstance(document, dict) and set(document) == COUNTEREXAMPLE_KEYS:
        return document["scenario"], f"{name}: scenario"
    return document, name


def is_streams_scenario(document: Any) -> bool:
    """Whether a decoded scenario is a Streams group's: any ``"kind"`` key but ``"share"`` (a consumer
    scenario has none; the Streams reader then says what is wrong with it).  A counterexample file is
    looked into."""
    document, _ = _scenario_part(document, "")
    return isinstance(document, dict) and "kind" in document and document["kind"] != SHARE_KIND


def is_share_scenario(document: Any) -> bool:
    """Whether a decoded scenario is a share group's (``"kind": "share"``).  A counterexample file is looked
    into."""
    document, _ = _scenario_part(document, "")
    return isinstance(document, dict) and document.get("kind") == SHARE_KIND


def scenario_from_document(
    document: Any,
    name: str = "scenario",
    *,
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> Problem | StreamsProblem | ShareProblem:
    """The scenario a decoded document describes (see :func:`load_scenario`); ``name`` is its errors' source."""
    document, name = _scenario_part(document, name)
    if not (isinstance(document, dict) and "kind" in document):
        return problem_from_mapping(document, source=name, max_partitions=max_partitions, max_members=max_members)
    if document["kind"] == SHARE_KIND:
        if isinstance(document.get("members"), dict):
            check_members(len(document["members"]), max_members, name)
        return ShareProblem.from_mapping(document, source=name, max_partitions=max_partitions)
    # a Streams group's own default (problem.streams.MAX_TASKS) unless another limit was asked for
    return StreamsProblem.from_mapping(
        document,
        source=name,
        max_tasks=MAX_TASKS if max_partitions == MAX_PARTITIONS else max_partitions,
        max_members=max_members,
    )


def load_scenario(
    source: Source, *, max_partitions: int | None = MAX_PARTITIONS, max_members: int | None = MAX_MEMBERS
) -> Problem | StreamsProblem | ShareProblem:
    """The validated scenario of ``source``: a consumer group, a share group when it says ``"kind": "share"``,
    or a Streams group when it says another ``"kind"``.

    Parameters
    ----------
    source
        A path, ``"-"`` for standard input, JSON text, or a decoded dict
        (``{"topics": ..., "members": ...}``, or a Streams group
        ``{"kind": "streams", "subtopologies": ..., "members": ...}``, or a
        share group ``{"kind": "share", "topics": ..., "members": ...}``).  A
        sweep's counterexample file (``{"assignor", "finding", "scenario"}``)
        is read as the scenario it holds.
    max_partitions
        Refuse a consumer or share group with more partitions in all, or a
        Streams group with more tasks (by default each kind's own limit:
        :data:`~assignment_oracle.problem.scenario_json.MAX_PARTITIONS`,
        :data:`~assignment_oracle.problem.streams.MAX_TASKS`); ``None``: no limit.
    max_members
        Refuse a group with more members (default
        :data:`~assignment_oracle.problem.scenario_json.MAX_MEMBERS`); ``None``: no limit.

    Returns
    -------
    Problem, StreamsProblem or ShareProblem

    Raises
    ------
    InputError
        One line naming the source and the field: a file that cannot be
        read, text that is not strict JSON, a field that is missing, of the
        wrong type or out of range, a group over the limit.

    Examples
    --------
    >>> p = load_scenario({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    >>> [m.member_id for m in p.members], p.topics[0].partitions
    (['a', 'b'], 3)
    >>> load_scenario('{"topics": {"t": 0}, "members": {}}')
    Traceback (most recent call last):
    ...
    assignment_oracle.problem.errors.InputError: scenario: topics.t: must be positive, got 0
    """
    document, name = read_document(source, name="scenario")
    return scenario_from_document(document, name, max_partitions=max_partitions, max_members=max_members)


def _looks_like_streams_assignment(document: Any) -> bool:
    """``{"kind": "streams", ...}`` (what ``assign`` writes for a Streams group), or an object whose only key is
    ``"members"`` mapping each member to ``{"active": ..., "standby": ...}`` (either may be left out)."""
    if not isinstance(document, dict):
        return False
    if document.get("kind") is not None:
        return document["kind"] != SHARE_KIND
    inner = document.get("assignment", document)
    if not isinstance(inner, dict) or set(inner) != {"members"} or not isinstance(inner["members"], dict):
        return False
    values = list(inner["members"].values())
    return bool(values) and all(isinstance(v, dict) and set(v) <= _ASSIGNED_KEYS for v in values)


def assignment_from_document(
    document: Any, name: str = "assignment", problem: Problem | StreamsProblem | ShareProblem | None = None
) -> Assignment | StreamsAssignment | ShareAssignment:
    """The assignment a decoded document describes (see :func:`load_assignment`); ``name`` is its errors'
    source."""
    if isinstance(problem, ShareProblem) or (
        problem is None and isinstance(document, dict) and document.get("kind") == SHARE_KIND
    ):
        return ShareAssignment.from_mapping(document, source=name)
    streams = isinstance(problem, StreamsProblem) or (problem is None and _looks_like_streams_assignment(document))
    if streams:
        if isinstance(document, dict) and "assignment" in document:
            return StreamsAssignment.from_mapping(document["assignment"], source=f"{name}: assignment")
        return StreamsAssignment.from_mapping(document, source=name)
    if isinstance(document, dict) and "assignment" in document:
        return assignment_from_mapping(document, source=name)
    # The bare form {member: {topic: [partitions]}}: read as the value of an "assignment" key, its errors
    # naming the fields as they are in this document.
    try:
        return assignment_from_mapping({"assignment": document}, source=name)
    except InputError as err:
        field = err.field.removeprefix("assignment").removeprefix(".")
        raise InputError(err.source, field, err.problem) from None


def load_assignment(
    source: Source, problem: Problem | StreamsProblem | ShareProblem | None = None
) -> Assignment | StreamsAssignment | ShareAssignment:
    """The assignment in ``source``, for a consumer group, a Streams group or a share group.

    Parameters
    ----------
    source
        A path, ``"-"`` for standard input, JSON text, or a decoded dict.  A
        consumer group's assignment is either a document with an
        ``"assignment"`` key (what ``solve`` and ``assign`` write; other
        keys ignored) or the bare ``{member: {topic: [partitions]}}``.  A
        Streams group's is ``{"members": {m: {"active": {subtopology:
        [partitions]}, "standby": {...}}}}``, bare or under ``"assignment"``.  A
        share group's has the consumer group's shape, bare or under
        ``"assignment"``.
    problem
        The scenario it answers, when known: a
        :class:`~assignment_oracle.problem.streams.StreamsProblem` means a
        Streams assignment, a :class:`~assignment_oracle.problem.share.ShareProblem`
        a share one, a :class:`~assignment_oracle.problem.model.Problem`
        a consumer one.  Without it the document decides: ``"kind": "share"``
        is a share assignment; another ``"kind"``, or only ``"members"``
        holding ``active``/``standby`` maps, is a Streams assignment.

    Returns
    -------
    Assignment, StreamsAssignment or ShareAssignment
        Shape only: whether it is valid for the scenario (unknown members,
        a partition twice) is for the judge to say.

    Raises
    ------
    InputError
        One line naming the source and the field.

    Examples
    --------
    >>> a = load_assignment({"a": {"t": [0, 1]}, "b": {"t": [2]}})
    >>> sorted(a.members)
    ['a', 'b']
    >>> load_assignment({"a": {"t": [0, -1]}})
    Traceback (most recent call last):
    ...
    assignment_oracle.problem.errors.InputError: assignment: a.t[1]: must be non-negative, got -1
    """
    document, name = read_document(source, name="assignment")
    return assignment_from_document(document, name, problem)
