"""The field readers every JSON format here shares (scenarios, assignments, churn histories, each kind of
group's), so that their one-line errors read alike.

Guarantee: each reader returns the value it was asked for, of the type it names, or raises one
:class:`~assignment_oracle.problem.errors.InputError` naming the source, the field (a path such as
``members.m2.owned.orders[1]``) and what is wrong; nothing is guessed.  This module imports nothing of the
project's but its errors, so every kind's model (:mod:`problem.model`, :mod:`problem.streams`,
:mod:`problem.share`) reads its JSON with it and :mod:`problem.scenario_json` builds on all of them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from assignment_oracle.problem.errors import InputError

__all__ = [
    "INT32_MAX",
    "Listed",
    "field_path",
    "expect_object",
    "reject_unknown_keys",
    "require_keys",
    "expect_integer",
    "expect_name",
    "json_kind",
]


INT32_MAX = 2**31 - 1


_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


def field_path(path: str, name: str) -> str:
    part = name if _PLAIN_NAME.match(name) else json.dumps(name)
    return f"{path}.{part}" if path else part


def expect_object(value: Any, source: str, path: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(source, path, f"must be a JSON object, got {json_kind(value)}")
    return value


def reject_unknown_keys(obj: dict, allowed: set[str], source: str, path: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InputError(
            source,
            field_path(path, unknown[0]),
            f"unknown key (allowed: {', '.join(sorted(allowed))})",
        )


def expect_integer(value: Any, source: str, path: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(source, path, f"must be an integer, got {json_kind(value)}")
    if minimum is not None and value < minimum:
        what = {1: "positive", 0: "non-negative"}.get(minimum, f"at least {minimum}")
        raise InputError(source, path, f"must be {what}, got {value}")
    return value


def expect_name(value: Any, source: str, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(source, path, f"must be a string, got {json_kind(value)}")
    if not value:
        raise InputError(source, path, "must not be empty")
    return value


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"number {json.dumps(value)}"
    if isinstance(value, str):
        return f"string {json.dumps(value)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


class Listed(dict):
    """A mapping whose order is part of the data, which :func:`dumps` writes in that order rather than sorted:
    a share group's members as the group presents them (Kafka's coordinator fills ``memberIds()`` in that
    order, and Java's iteration order over them depends on it) and its topics as the scenario lists them."""


def require_keys(obj: dict, required: tuple[str, ...], source: str, path: str = "") -> None:
    """Every key of ``required`` is in ``obj``; the first missing one is the error (``missing (required)``)."""
    for key in required:
        if key not in obj:
            raise InputError(source, field_path(path, key), "missing (required)")
