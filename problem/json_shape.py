"""Whether a document given as Python values could have come from JSON text: the rule every reader applies
to a decoded document it did not decode itself (a dict built by a test, an assignor's answer).

Guarantee: :func:`json_shape_problem` names the first place, in the document's own order, where the
document is not what strict JSON decodes to -- a key that is not a string (an integer member id), a
container that contains itself, a value of a type JSON has no word for (a set, an object, NaN) -- or says
nothing; it never changes the document (no key is converted: ``{1: ...}`` is refused, not read as ``"1"``)
and never recurses deeper than :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import math
from typing import Any

from assignment_oracle.problem.json_fields import field_path

__all__ = ["MAX_DEPTH", "json_shape_problem"]

#: Nesting a scenario or an answer never needs (the deepest format nests 5 levels); deeper is refused, so a
#: document nested a million levels deep costs nothing.
MAX_DEPTH = 64


def _type_name(value: Any) -> str:
    return type(value).__name__


def json_shape_problem(document: Any) -> str | None:
    """The first reason ``document`` is not JSON-shaped, as ``"PATH: problem"`` (PATH in the readers' own
    dotted form, empty at the top), or None when it is."""
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    open_containers: set[int] = set()
    exits: list[tuple[int, int]] = []  # (stack height at which to leave, id) -- containers on the current path
    while stack:
        while exits and len(stack) <= exits[-1][0]:
            open_containers.discard(exits.pop()[1])
        value, path, depth = stack.pop()
        where = path or "the document"
        if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                return f"{where}: {value!r} is not a JSON number"
            continue
        if not isinstance(value, (dict, list, tuple)):
            return f"{where}: a {_type_name(value)} is not a JSON value (objects, arrays, strings, numbers, booleans, null)"
        if depth >= MAX_DEPTH:
            return f"{where}: nested deeper than {MAX_DEPTH} levels"
        if id(value) in open_containers:
            return f"{where}: contains itself (a circular reference)"
        open_containers.add(id(value))
        exits.append((len(stack), id(value)))
        if isinstance(value, dict):
            children = []
            for key, child in value.items():
                if not isinstance(key, str):
                    return (
                        f"{path + '.' if path else ''}{key!r}: a key must be a string (JSON's object keys are), "
                        f"got the {_type_name(key)} {key!r}"
                    )
                children.append((child, field_path(path, key), depth + 1))
        else:
            children = [(child, f"{path}[{i}]", depth + 1) for i, child in enumerate(value)]
        stack.extend(reversed(children))
    return None
