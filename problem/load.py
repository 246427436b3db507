"""Read a scenario or an assignment from wherever it is: a file, standard input, JSON text, a decoded dict.

The one entry point for input in any shape, for the command line (``-`` is
standard input everywhere it reads a file) and for tests written without
this project's types::

    problem = load_scenario("scenario.json")                  # a file
    problem = load_scenario("-")                              # standard input
    problem = load_scenario({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}}})
    assignment = load_assignment({"a": {"t": [0, 1, 2]}}, problem)

Which kind of group a document is, and how it is read, is the kinds table's
(:mod:`~assignment_oracle.problem.kinds`): ``"kind": "share"`` is a share
group (KIP-932), any other ``"kind"`` a Streams group (KIP-1071), none a
consumer group.  A
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
from assignment_oracle.problem.formats import unversioned
from assignment_oracle.problem.json_shape import json_shape_problem
from assignment_oracle.problem.kinds import GroupAssignment, GroupProblem, kind_of, kind_of_answer, kind_of_scenario
from assignment_oracle.problem.scenario_json import (
    MAX_MEMBERS,
    MAX_PARTITIONS,
    counterexample_scenario,
    load_json,
    read_input,
    read_json_file,
)

__all__ = [
    "STDIN",
    "STDIN_NAME",
    "Source",
    "read_document",
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
    errors), as every file this project reads; a document given decoded must
    be what strict JSON decodes to (:mod:`problem.json_shape`: string keys,
    no container inside itself, JSON's values only).

    Raises
    ------
    InputError
        The file cannot be read, it is not strict JSON, or a decoded document is not JSON-shaped.
    """
    if isinstance(source, (dict, list)) or (isinstance(source, Mapping) and not isinstance(source, (str, bytes))):
        document = dict(source) if isinstance(source, Mapping) and not isinstance(source, dict) else source
        shape = json_shape_problem(document)
        if shape is not None:
            raise InputError(name, "", shape)
        return document, name
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
    return counterexample_scenario(document, name)


def scenario_from_document(
    document: Any,
    name: str = "scenario",
    *,
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> GroupProblem:
    """The scenario a decoded document describes (see :func:`load_scenario`); ``name`` is its errors' source.

    Every kind's scenario is read here: its ``format_version`` (problem.formats) is checked once, for every kind,
    and the kind's own reader gets the document without it."""
    document, name = _scenario_part(document, name)
    document = unversioned(document, "scenario", name)
    return kind_of_scenario(document).read_scenario(document, name, max_partitions, max_members)


def load_scenario(
    source: Source, *, max_partitions: int | None = MAX_PARTITIONS, max_members: int | None = MAX_MEMBERS
) -> GroupProblem:
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
        is read as the scenario it holds.  A ``format_version`` this program reads (1 to the current one,
        :data:`~assignment_oracle.problem.formats.FORMATS`) is accepted, a newer one refused; a document
        without one is read as it always was.
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
    The problem of the scenario's kind (:data:`~assignment_oracle.problem.kinds.KINDS`)

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


def assignment_from_document(
    document: Any, name: str = "assignment", problem: GroupProblem | None = None
) -> GroupAssignment:
    """The assignment a decoded document describes (see :func:`load_assignment`); ``name`` is its errors'
    source.  Its ``format_version`` (problem.formats) is checked here, for every kind."""
    document = unversioned(document, "assignment", name)
    kind = kind_of_answer(document) if problem is None else kind_of(problem)
    return kind.read_assignment(document, name)


def load_assignment(source: Source, problem: GroupProblem | None = None) -> GroupAssignment:
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
        The scenario it answers, when known: its kind
        (:func:`~assignment_oracle.problem.kinds.kind_of`) reads the
        assignment.  Without it the document decides: ``"kind": "share"``
        is a share assignment; another ``"kind"``, or only ``"members"``
        holding ``active``/``standby`` maps, is a Streams assignment.

    Returns
    -------
    The assignment of that kind
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
