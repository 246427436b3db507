"""The JSON formats the tool writes, each with a version: one table, one key, one check on reading.

Guarantee: every JSON document the tool writes carries ``"format_version": N``, ``N`` the current version of
its format in :data:`FORMATS` (:func:`versioned` is the one way a writer adds it); every reader of a document
(a scenario of any kind, an answer, a churn history) accepts a version it knows, at most the current one, and
refuses an unknown or newer one in one line naming the field (:func:`read_version`, exit 2).  A document
without the key is read as it was before versions existed.  docs/formats.md ("Format versions") keeps each
format's history; ``assignment-oracle schema NAME`` prints its JSON Schema.

A version changes only when a script reading the document could break: a key moved, renamed or removed, a
value's type or meaning changed.  A new optional key is not a new version.
"""

from __future__ import annotations

from typing import Any, Mapping

from assignment_oracle.problem import json_fields as fields
from assignment_oracle.problem.errors import InputError

__all__ = ["FORMAT_VERSION", "FORMATS", "versioned", "read_version", "unversioned"]

#: The key every written document carries.
FORMAT_VERSION = "format_version"

#: Each format's current version, by name (the ``schema`` command's names where one describes it).
FORMATS: Mapping[str, int] = {
    # Input formats, written by generate, capture, bugs --scenario and read back.
    "scenario": 1,  # every kind's scenario (consumer, Streams, share)
    "assignment": 1,  # assign's answer (and the bare answers check reads)
    "history": 1,  # a churn history (generate churn; simulate reads it)
    # Output formats.
    "solution": 1,  # solve's answer, demo --out's files
    "verdict": 2,  # check/explain --json; 1: the measures at the top level (before issue 39)
    "explanation": 1,  # explain --json on a consumer group
    "capture": 1,  # capture --judge --json
    "compare": 1,  # compare --json
    "simulation": 1,  # simulate --json
    "bug-replay": 1,  # each entry of bugs --json
    "bug-candidate": 1,  # bugs NAME --assignor A --json
    "bug-export-entry": 1,  # bugs --export DIR: each DIR/NAME/entry.json
    "bug-export-index": 1,  # bugs --export DIR: DIR/conformance.json
    "sweep": 1,  # sweep --json
    "sweep-summary": 1,  # a sweep's summary.json
    "sweep-counterexample": 1,  # a sweep's DIR/counterexamples/A/ID-rR.json (the rows' column holds it unversioned)
}


def versioned(format_name: str, document: Mapping) -> dict:
    """``document`` with ``format_version`` set to the current version of ``format_name`` (a copy).

    Raises ``KeyError`` for a format not in :data:`FORMATS`: a writer names its format, never guesses it."""
    return {FORMAT_VERSION: FORMATS[format_name], **document}


def read_version(document: Any, format_name: str, source: str) -> int | None:
    """The ``format_version`` of a decoded ``document`` of format ``format_name``, checked: ``None`` when it
    has none (read as before versions existed), else an integer from 1 to the current version.

    Raises
    ------
    InputError
        ``format_version`` is not an integer, or names a version this program does not know (a newer one: an
        upgrade reads it).
    """
    if not isinstance(document, dict) or FORMAT_VERSION not in document:
        return None
    current = FORMATS[format_name]
    version = fields.expect_integer(document[FORMAT_VERSION], source, FORMAT_VERSION, minimum=1)
    if version > current:
        raise InputError(
            source,
            FORMAT_VERSION,
            f"version {version} of the {format_name} format is newer than this program reads (up to {current}; "
            "upgrade assignment-oracle)",
        )
    return version


def unversioned(document: Any, format_name: str, source: str) -> Any:
    """``document`` without its ``format_version`` (checked by :func:`read_version`), for the format's own
    reader, which knows no such key; any other value is returned as it is."""
    if read_version(document, format_name, source) is None:
        return document
    return {k: v for k, v in document.items() if k != FORMAT_VERSION}
