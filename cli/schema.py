"""The JSON Schemas (draft 2020-12) of the formats the tool reads and writes, shipped as package data.

Guarantee: :func:`schema` returns one self-contained schema per name in :data:`NAMES` (a schema another one
refers to, such as the request a verdict names, is bundled under ``$defs`` with its own ``$id``), read with
:mod:`importlib.resources` from ``assignment_oracle/schemas/``, so an installed wheel has them; ``scenario`` is
any kind's scenario and ``assignment`` any kind's answer, each the one-of of the kinds' own schemas (the kinds
table, :data:`~assignment_oracle.problem.kinds.KINDS`).  Each written document's ``format_version`` is the
``const`` its schema holds (:data:`~assignment_oracle.problem.formats.FORMATS`).  ``assignment-oracle schema
NAME`` prints one; docs/formats.md ("Format versions") keeps their history.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.kinds import KINDS

__all__ = ["NAMES", "schema", "listing"]

#: The schemas by name, each with one line: what it describes.
_FILES: dict[str, str] = {
    **{f"scenario-{kind}": f"a {KINDS[kind].label}'s scenario" for kind in ("consumer", "streams", "share")},
    **{f"assignment-{kind}": f"a {KINDS[kind].label}'s answer" for kind in ("consumer", "streams", "share")},
    "request": "a request: the objective's tiers in priority order and the constraints",
    "verdict": "check --json, explain --json (Streams, share): an assignment judged tier by tier",
    "solution": "solve's output (every kind), demo --out's files",
    "explanation": "explain --json on a consumer group",
    "compare": "compare --json",
    "simulation": "simulate --json",
    "history": "a churn history (generate churn, simulate reads it)",
    "capture": "capture --judge --json",
    "bug-replay": "each entry of bugs --json",
    "bug-candidate": "bugs NAME --assignor A --json",
    "bug-export-entry": "bugs --export DIR: each entry's entry.json (its condition and judging commands)",
    "bug-export-index": "bugs --export DIR: conformance.json (every entry's folder and every file written)",
    "sweep": "sweep --json",
    "sweep-summary": "a sweep's summary.json",
    "sweep-counterexample": "a sweep's counterexample file (DIR/counterexamples/A/ID-rR.json)",
}
#: The schemas over the kinds' own (the kinds table's names, in its order): a scenario is exactly one kind's (its
#: ``"kind"`` says which); an answer may be several kinds' (a consumer and a share group's answers have one shape:
#: the scenario tells them apart).
_ANY_KIND: dict[str, tuple[str, str]] = {
    "scenario": ("oneOf", "a scenario of any kind (consumer, Streams, share group)"),
    "assignment": ("anyOf", "an answer of any kind"),
}
#: Every name ``schema`` knows, with its line (``schema --list``).
NAMES: dict[str, str] = {**{name: line for name, (_, line) in _ANY_KIND.items()}, **_FILES}

_BASE = "https://github.com/assignment-oracle/assignment-oracle/schemas/"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _read(name: str) -> dict[str, Any]:
    return json.loads((resources.files("assignment_oracle") / "schemas" / f"{name}.json").read_text("utf-8"))


def _references(node: Any) -> set[str]:
    """The other files a schema refers to (``"$ref": "request.json"``)."""
    if isinstance(node, dict):
        found = {node["$ref"].removesuffix(".json")} if str(node.get("$ref", "")).endswith(".json") else set()
        return found.union(*(_references(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_references(v) for v in node))
    return set()


def _bundled(top: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """``top`` with every file it refers to (transitively) and ``names`` under ``$defs``, each keeping its
    ``$id``: a compound schema, which any 2020-12 validator resolves without fetching."""
    seen: dict[str, dict] = {}
    todo = set(names) | _references(top)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        part = _read(name)
        part.pop("$schema", None)
        seen[name] = part
        todo |= _references(part) - set(seen)
    return {**top, "$defs": dict(sorted(seen.items()))} if seen else top


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema called ``name`` (:data:`NAMES`), self-contained.

    Raises
    ------
    InputError
        ``name`` is not one (the message lists them).
    """
    if name in _ANY_KIND:
        keyword, title = _ANY_KIND[name]
        parts = [f"{name}-{kind}" for kind in KINDS if f"{name}-{kind}" in _FILES]
        top = {
            "$schema": _DRAFT,
            "$id": f"{_BASE}{name}.json",
            "title": title,
            keyword: [{"$ref": f"{part}.json"} for part in parts],
        }
        return _bundled(top, set(parts))
    if name not in _FILES:
        raise InputError("schema", "", f"unknown schema {name!r} (known: {', '.join(NAMES)})")
    return _bundled(_read(name), set())


def listing() -> str:
    """``schema --list``: every name and its line."""
    width = max(map(len, NAMES))
    return "".join(f"{name:<{width}}  {line}\n" for name, line in NAMES.items())
