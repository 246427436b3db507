"""The JSON formats: scenario in, assignment in and out.  Validation lives here.

Everything a user hands the project passes through this module once.  A
mistake is reported as one :class:`InputError` naming the source, the field
(as a path such as ``members.m2.owned.orders[1]``) and the problem; nothing is
guessed and nothing is silently dropped.  What Kafka itself tolerates (a
subscription to a topic that does not exist, a claim on a partition that is
gone, an empty group) is *not* an input error: it is accepted here and
reported by the code that resolves it.

Scenario::

    {"topics": {"orders": 6, "clicks": {"partitions": 2, "racks": [["a", "b"], ["b", "c"]]}},
     "members": {"m1": {"topics": ["orders", "clicks"], "instance_id": "host-1"},
                 "m2": {"topics": ["orders"], "owned": {"orders": [0, 2]},
                        "generation": 4, "rack": "a"}},
     "objective": ["balance", "rack", "stickiness"]}

Assignment::

    {"assignment": {"m1": {"clicks": [0, 1, 2, 3], "orders": [1, 3]},
                    "m2": {"orders": [0, 2, 4, 5]}}}
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import orjson

from assignment_oracle.problem.errors import InputError, WriteFailed
from assignment_oracle.problem.model import (
    BALANCE_FIRST,
    Assignment,
    Member,
    Problem,
    Topic,
)
from assignment_oracle.problem.tiers import CONSUMER

__all__ = [
    "listed_first",
    # Field readers every JSON format here shares (scenarios, assignments, churn
    # histories), so that their one-line errors read alike.
    "field_path",
    "read_json_file",
    "read_input",
    "max_input_bytes",
    "MAX_INPUT_BYTES",
    "MAX_INPUT_VARIABLE",
    "MAX_MEMBERS",
    "check_members",
    "expect_subscription",
    "claim_instance_id",
    "expect_object",
    "reject_unknown_keys",
    "expect_integer",
    "expect_name",
    "json_kind",
    "topic_from_value",
    "kafka_uuid",
    "uuid_bits",
    "InputError",
    "load_json",
    "problem_from_mapping",
    "problem_to_mapping",
    "read_problem",
    "assignment_from_mapping",
    "read_assignment",
    "dumps",
    "Listed",
    "write_output",
    "check_output",
    "MAX_PARTITIONS",
]

_SCENARIO_KEYS = {"topics", "members", "objective", "join_groups", "weights"}
_TOPIC_KEYS = {"partitions", "racks", "id"}
_MEMBER_KEYS = {"topics", "owned", "generation", "rack", "instance_id"}
INT32_MAX = 2**31 - 1
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


def listed_first(order: tuple[str, ...], ids: tuple[str, ...]) -> tuple[str, ...]:
    """``ids`` in the order the scenario listed them (``order``), those it did not list after them in
    their own order; ``ids`` as they are when the scenario listed none (a group's join order)."""
    if not order:
        return ids
    present = set(ids)
    listed = [m for m in order if m in present]
    seen = set(listed)
    return tuple(listed + [m for m in ids if m not in seen])


def field_path(path: str, name: str) -> str:
    part = name if _PLAIN_NAME.match(name) else json.dumps(name)
    return f"{path}.{part}" if path else part


def _reject_duplicates(source: str):
    def hook(pairs):
        seen = dict(pairs)
        if len(seen) != len(pairs):
            names = [key for key, _ in pairs]
            repeated = next(key for i, key in enumerate(names) if key in names[:i])
            raise InputError(source, "", f"duplicate JSON key {json.dumps(repeated)}")
        return seen

    return hook


def _reject_constant(source: str):
    def hook(name):
        raise InputError(source, "", f"{name} is not valid JSON")

    return hook


def load_json(text: str | bytes, *, source: str) -> Any:
    """Parse JSON strictly: duplicate keys and NaN/Infinity are errors.

    The fast path parses with ``orjson`` and then proves there was no
    duplicate key by counting: every object key in the text is followed by
    exactly one ``:`` outside a string, so when the parsed objects hold as
    many keys as the text has colons, no key was repeated (and no string
    contained a colon).  Anything else -- a colon inside a string, a
    duplicate, an error, a number beyond 64 bits -- goes through the strict
    standard-library parser, which accepts or names the problem exactly.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    try:
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            keys = _key_count(document)
            if keys is not None and keys == data.count(b":") and b"\\u0000" not in data:
                return document
        return _load_strict(text, source=source)
    except RecursionError:
        raise InputError(source, "", "is nested too deeply to be a scenario or an assignment") from None


def _key_count(document: Any) -> int | None:
    """Keys of every object in a decoded document; ``None`` if it holds a float
    (``orjson`` reads an integer beyond 64 bits as a float: only the strict
    parser keeps it exact, and none of this project's formats has floats).

    Walks level by level, objects and arrays apart, so the types of a
    level's millions of values are collected (and, where they are all of
    one kind, passed on) in loops that run at C speed.
    """
    if type(document) not in (dict, list):
        return None if type(document) is float else 0
    count = 0
    dicts: list[dict] = []
    lists: list[list] = []
    (dicts if type(document) is dict else lists).append(document)
    while dicts or lists:
        count += sum(map(len, dicts))
        next_dicts: list = []
        next_lists: list = []
        for children in (
            lambda: itertools.chain.from_iterable(map(dict.values, dicts)),
            lambda: itertools.chain.from_iterable(lists),
        ):
            kinds = set(map(type, children()))
            if float in kinds:
                return None
            if kinds <= {dict}:
                next_dicts.extend(children())
            elif kinds <= {list}:
                next_lists.extend(children())
            elif dict in kinds or list in kinds:
                values = list(children())
                next_dicts.extend(v for v in values if type(v) is dict)
                next_lists.extend(v for v in values if type(v) is list)
        dicts, lists = next_dicts, next_lists
    return count


def _utf8(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a byte order mark before it skipped), else one line.  The standard library's
    parser would guess UTF-16 or UTF-32 from the first bytes and read them too; the formats are UTF-8
    only (docs/formats.md), and a raw NUL byte, never part of JSON text, is how UTF-16 and UTF-32 look."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(source, "", f"not UTF-8 text (a NUL byte at byte {nul}: UTF-16 or UTF-32?)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(source, "", f"not UTF-8 text (byte {err.start}: {err.reason})") from None


def _load_strict(text: str | bytes, *, source: str) -> Any:
    if isinstance(text, (bytes, bytearray)):
        text = _utf8(bytes(text), source)
    try:
        document = json.loads(
            text,
            object_pairs_hook=_reject_duplicates(source),
            parse_constant=_reject_constant(source),
        )
        _reject_bad_strings(document, source)
        return document
    except json.JSONDecodeError as err:
        raise InputError(source, "", f"not valid JSON ({err.msg} at line {err.lineno} column {err.colno})") from None
    except UnicodeDecodeError:
        raise InputError(source, "", "not UTF-8 text") from None


def _reject_bad_strings(document: Any, source: str) -> None:
    """A lone surrogate (``"\\ud800"``: not Unicode, so no answer naming it could be written) or a NUL
    in any key or string is one line naming where; other strings are kept exactly as given."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                where = field_path(path, key)
                _check_string(key, source, where)
                stack.append((where, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_string(value, source, path)


def _check_string(value: str, source: str, path: str) -> None:
    if "\x00" in value:
        raise InputError(source, path, "contains a NUL character (\\u0000), which no name may hold")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(source, path, "contains a lone surrogate (e.g. \\ud800): not valid Unicode") from None


#: Bytes an input may hold unless ``--max-input-bytes`` says otherwise: 1 GiB, thirty times Kafka's
#: 1,000,000-partition stress case as a scenario (34 MB, benchmarks/bench_cli.py).  Without a cap a
#: read of ``/dev/zero`` (or an endless pipe) would grow until the kernel's OOM killer ends it.
MAX_INPUT_BYTES = 1 << 30
#: The environment variable ``--max-input-bytes`` sets, for this process.
MAX_INPUT_VARIABLE = "ASSIGNMENT_ORACLE_MAX_INPUT_BYTES"


def max_input_bytes() -> int:
    """The cap on every input read (a file, standard input): ``$ASSIGNMENT_ORACLE_MAX_INPUT_BYTES`` (what
    ``--max-input-bytes`` sets), else :data:`MAX_INPUT_BYTES`."""
    text = os.environ.get(MAX_INPUT_VARIABLE, "")
    return int(text) if text.isdigit() and int(text) > 0 else MAX_INPUT_BYTES


def read_input(path: str | Path | None, source: str, *, stream: Any = None) -> bytes:
    """The bytes of the file ``path`` (or of the binary ``stream``, standard input), at most
    :func:`max_input_bytes`: past it one line naming the source and the cap (:class:`InputError`), after
    reading one byte more than the cap and no further (a device, a fifo and a pipe included)."""
    limit = max_input_bytes()
    too_big = False
    try:
        if stream is not None:
            data = stream.read(limit + 1)
        else:
            with open(path, "rb") as handle:  # type: ignore[arg-type]
                found = os.fstat(handle.fileno())
                # A regular file says its size: refused without reading a byte of it.
                too_big = stat.S_ISREG(found.st_mode) and found.st_size > limit
                data = b"" if too_big else handle.read(limit + 1)
    except OSError as err:
        raise InputError(source, "", f"cannot read file ({err.strerror or err})") from None
    if too_big or len(data) > limit:
        raise InputError(
            source, "", f"is larger than {limit:,} bytes, the cap on an input (raise it with --max-input-bytes)"
        )
    return data


def read_json_file(path: str | Path) -> Any:
    source = str(path)
    return load_json(read_input(path, source), source=source)


# -- field checks ------------------------------------------------------------


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


def _partition_list(value: Any, source: str, path: str | Callable[[], str]) -> tuple[int, ...]:
    """A list of partition numbers; ``path`` may be a function, called only to name an error."""
    if _partition_numbers_ok([value]):  # the common case at C speed; below only to name the first bad element
        return tuple(value)
    path = path() if callable(path) else path
    if not isinstance(value, list):
        raise InputError(source, path, f"must be an array of partition numbers, got {json_kind(value)}")
    parts = tuple(expect_integer(p, source, f"{path}[{i}]", minimum=0) for i, p in enumerate(value))
    for i, p in enumerate(parts):
        if p > INT32_MAX:
            raise InputError(source, f"{path}[{i}]", f"must fit Kafka's int32, got {p}")
    return parts


# -- scenario ----------------------------------------------------------------


def topic_from_value(name: str, value: Any, source: str, path: str) -> Topic:
    if isinstance(value, dict):
        reject_unknown_keys(value, _TOPIC_KEYS, source, path)
        if "partitions" not in value:
            raise InputError(source, path, 'missing key "partitions"')
        count = expect_integer(value["partitions"], source, f"{path}.partitions", minimum=1)
    else:
        count = expect_integer(value, source, path, minimum=1)
    if count > INT32_MAX:
        raise InputError(source, path, f"must fit Kafka's int32 partition count, got {count}")
    racks = None
    if isinstance(value, dict) and value.get("racks") is not None:
        racks = _replica_racks(value["racks"], count, source, f"{path}.racks")
    topic_id = None
    if isinstance(value, dict) and value.get("id") is not None:
        topic_id = kafka_uuid(value["id"], source, f"{path}.id")
    return Topic(name, count, racks, topic_id)


def kafka_uuid(value: Any, source: str, path: str) -> str:
    """A Kafka ``Uuid`` as ``Uuid.fromString`` reads one: 22 characters of URL-safe base64 (no padding) for
    16 bytes, not the all-zero id Kafka reserves for "no id".  As in Java's decoder, the last character's
    4 bits past the 16th byte are not checked (Kafka's own tests write ids such as
    ``T2-B4s3VTwiI5YHbPp6YUe``, which ``Uuid.toString()`` prints back as ``T2-B4s3VTwiI5YHbPp6YUQ``);
    the text is kept as given."""
    import base64
    import re

    if not isinstance(value, str):
        raise InputError(
            source, path, f"must be a Kafka topic id (22 characters of URL-safe base64), got {json_kind(value)}"
        )
    if not re.fullmatch(r"[A-Za-z0-9_-]{22}", value):
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InputError(source, path, f"must be a Kafka topic id (22 characters of URL-safe base64), got {shown!r}")
    if base64.urlsafe_b64decode(value + "==") == bytes(16):
        raise InputError(source, path, "is Kafka's all-zero Uuid, reserved for no topic id")
    return value


def uuid_bits(topic_id: str) -> tuple[int, int]:
    """The two signed 64-bit halves of a Kafka ``Uuid`` (``getMostSignificantBits``, ``getLeastSignificantBits``)."""
    import base64

    raw = base64.urlsafe_b64decode(topic_id + "==")
    most, least = int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big", signed=True)
    return most, least


def _replica_racks(value: Any, count: int, source: str, path: str) -> tuple[tuple[str, ...], ...]:
    """Per partition, the racks of its replicas: exactly ``count`` arrays of rack names."""
    if not isinstance(value, list):
        raise InputError(
            source, path, f"must be an array with the replicas' racks of each partition, got {json_kind(value)}"
        )
    if len(value) != count:
        raise InputError(
            source, path, f"must list the replicas' racks of each of the {count} partitions, got {len(value)}"
        )
    racks = []
    for p, replicas in enumerate(value):
        if not isinstance(replicas, list):
            raise InputError(source, f"{path}[{p}]", f"must be an array of rack names, got {json_kind(replicas)}")
        racks.append(tuple(expect_name(r, source, f"{path}[{p}][{i}]") for i, r in enumerate(replicas)))
    return tuple(racks)


def _partition_numbers_ok(lists: list) -> bool:
    """Every element of every list is a partition number (an int in ``0 .. INT32_MAX``).

    One pass at C speed over all the lists of a document together; when it
    says no, the per-list checks run to name the first bad element.
    """
    if not set(map(type, lists)) <= {list}:
        return False
    if not set(map(type, itertools.chain.from_iterable(lists))) <= {int}:
        return False
    try:
        numbers = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64)
    except OverflowError:  # beyond 64 bits: certainly not a partition number
        return False
    return numbers.size == 0 or (int(numbers.min()) >= 0 and int(numbers.max()) <= INT32_MAX)


def expect_subscription(obj: dict, source: str, path: str) -> list:
    """A member's ``topics`` as the JSON array it must be (its entries not checked yet); one line naming
    ``path`` when the key is missing or is not an array."""
    if "topics" not in obj:
        raise InputError(source, path, 'missing key "topics"')
    raw = obj["topics"]
    if not isinstance(raw, list):
        raise InputError(source, f"{path}.topics", f"must be an array of topic names, got {json_kind(raw)}")
    return raw


def claim_instance_id(static: dict[str, str], member_id: str, instance_id: str | None, source: str, path: str) -> None:
    """Record a static member's ``group.instance.id`` in ``static`` (id -> member); one line naming the
    member's ``path`` when another member of the group has it already (Kafka fences the second one)."""
    if instance_id is None:
        return
    if instance_id in static:
        raise InputError(
            source,
            f"{path}.instance_id",
            f"{json.dumps(instance_id)} is already the instance id of member "
            f"{json.dumps(static[instance_id])} (group.instance.id is unique in a group)",
        )
    static[instance_id] = member_id


def _member(
    member_id: str, value: Any, source: str, path: str, *, checked: bool = False, subscriptions: dict | None = None
) -> Member:
    """One member; ``checked``: its claimed lists already passed :func:`_partition_numbers_ok`.

    ``subscriptions`` remembers the subscriptions already validated (as
    tuples of names): members usually share a few, and one frozenset each
    then serves them all.
    """
    obj = expect_object(value, source, path)
    reject_unknown_keys(obj, _MEMBER_KEYS, source, path)
    raw_topics = expect_subscription(obj, source, path)
    known = (
        subscriptions.get(tuple(raw_topics))
        if subscriptions is not None and set(map(type, raw_topics)) <= {str}
        else None
    )
    if known is not None:
        topics = known
    elif set(map(type, raw_topics)) <= {str} and "" not in raw_topics and len(set(raw_topics)) == len(raw_topics):
        topics = frozenset(raw_topics)
        if subscriptions is not None:
            subscriptions[tuple(raw_topics)] = topics
    else:  # name the first bad or repeated entry
        topics = []
        for i, t in enumerate(raw_topics):
            name = expect_name(t, source, f"{path}.topics[{i}]")
            if name in topics:
                raise InputError(source, f"{path}.topics[{i}]", f"topic {json.dumps(name)} is listed twice")
            topics.append(name)

    owned: list[tuple[str, tuple[int, ...]]] = []
    if "owned" in obj:
        owned_obj = expect_object(obj["owned"], source, f"{path}.owned")
        if checked and "" not in owned_obj and set(map(type, owned_obj)) <= {str}:  # its lists passed already
            owned = list(zip(owned_obj.keys(), map(tuple, owned_obj.values())))
            owned_obj = {}
        for topic, parts in owned_obj.items():
            if not topic:
                expect_name(topic, source, field_path(f"{path}.owned", topic))
            owned.append(
                (
                    topic,
                    tuple(parts)
                    if checked
                    else _partition_list(parts, source, functools.partial(field_path, f"{path}.owned", topic)),
                )
            )
    generation = None
    if obj.get("generation") is not None:
        generation = expect_integer(obj["generation"], source, f"{path}.generation", minimum=-1)
        if generation > INT32_MAX:
            raise InputError(source, f"{path}.generation", f"must fit Kafka's int32, got {generation}")
    rack = None
    if obj.get("rack") is not None:
        rack = expect_name(obj["rack"], source, f"{path}.rack")
    instance_id = None
    if obj.get("instance_id") is not None:
        instance_id = expect_name(obj["instance_id"], source, f"{path}.instance_id")
    return Member(
        member_id=member_id,
        topics=frozenset(topics),
        owned=tuple(sorted(owned)),
        generation=generation,
        rack=rack,
        instance_id=instance_id,
    )


def parse_objective(value: Any, source: str, path: str = "objective") -> tuple[str, ...]:
    """Tiers in priority order: ``["balance", "rack", "stickiness"]`` or ``"balance,rack,stickiness"``.

    The consumer tier table's rule (:data:`problem.tiers.CONSUMER`): ``balance`` and ``stickiness`` once
    each, ``rack`` and ``spread`` at most once each (left out: they play no part), in any order.
    """
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
    elif isinstance(value, list) and all(isinstance(p, str) for p in value):
        parts = list(value)
    else:
        raise InputError(source, path, f"must be a list of objective names, got {json_kind(value)}")
    if not CONSUMER.accepts(parts):
        raise InputError(source, path, f"{CONSUMER.rule}, in priority order; got {json.dumps(parts)}")
    return tuple(parts)


#: The most partitions a scenario may have by default: an answer this size
#: (owner arrays, rows, the JSON) fits this project's 24 GiB machines.
MAX_PARTITIONS = 100_000_000
#: The most members a group may have by default (``--max-members``): 2,000,000 members took 2 GB and
#: 39 s to solve on one partition, and 8,000,000 ended in a crash; a million is a thousand times
#: the coordinator benchmark's group (benchmarks/bench_coordinator.py).
MAX_MEMBERS = 1_000_000


def check_members(count: int, max_members: int | None, source: str, field: str = "members") -> None:
    """Refuse (one line naming ``field``) a group with more than ``max_members`` members (``None``: no limit),
    before anything per member is built."""
    if max_members is not None and count > max_members:
        raise InputError(
            source,
            field,
            f"{count:,} members, more than the limit of {max_members:,} "
            "(raise it with --max-members if this machine has the memory)",
        )


def problem_from_mapping(
    data: Any,
    *,
    source: str = "scenario",
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> Problem:
    """Validate a decoded scenario and build the :class:`Problem`.

    A scenario with more than ``max_partitions`` partitions in all, or more
    than ``max_members`` members (``None``: no limit), is refused before
    anything per partition or per member is allocated.
    """
    obj = expect_object(data, source, "")
    reject_unknown_keys(obj, _SCENARIO_KEYS, source, "")
    for required in ("topics", "members"):
        if required not in obj:
            raise InputError(source, required, "missing (required)")
    topics_obj = expect_object(obj["topics"], source, "topics")
    topics = []
    for name, value in topics_obj.items():
        path = field_path("topics", name)
        expect_name(name, source, path)
        topics.append(topic_from_value(name, value, source, path))
    ids: dict[tuple[int, int], str] = {}
    for t in topics:
        if t.topic_id is not None:
            bits = uuid_bits(t.topic_id)  # the Uuid: two spellings may decode to one
            if bits in ids:
                raise InputError(source, field_path("topics", t.name) + ".id", f"is also the id of topic {ids[bits]!r}")
            ids[bits] = t.name
    total = sum(t.partitions for t in topics)
    if max_partitions is not None and total > max_partitions:
        raise InputError(
            source,
            "topics",
            f"{total:,} partitions in all, more than the limit of {max_partitions:,} "
            "(raise it with --max-partitions if this machine has the memory)",
        )
    members_obj = expect_object(obj["members"], source, "members")
    check_members(len(members_obj), max_members, source)
    claimed = [
        parts
        for value in members_obj.values()
        if type(value) is dict and type(value.get("owned")) is dict
        for parts in value["owned"].values()
    ]
    checked = _partition_numbers_ok(claimed)  # else each list is checked, to name the first bad one
    subscriptions: dict[tuple[str, ...], frozenset[str]] = {}
    members = []
    for member_id, value in members_obj.items():
        path = field_path("members", member_id)
        expect_name(member_id, source, path)
        members.append(_member(member_id, value, source, path, checked=checked, subscriptions=subscriptions))
    static: dict[str, str] = {}
    for member in members:  # Kafka fences a second member with the same group.instance.id
        claim_instance_id(static, member.member_id, member.instance_id, source, field_path("members", member.member_id))
    objective = BALANCE_FIRST
    if obj.get("objective") is not None:
        objective = parse_objective(obj["objective"], source)
    join_groups = _join_groups(obj.get("join_groups"), {t.name for t in topics}, source)
    weights = _weights(obj.get("weights"), {t.name: t.partitions for t in topics}, source)
    listed_members = tuple(m.member_id for m in members)
    listed_topics = tuple(t.name for t in topics)
    by_id = tuple(sorted(members, key=lambda m: m.member_id))
    by_name = tuple(sorted(topics, key=lambda t: t.name))
    return Problem(
        topics=by_name,
        members=by_id,
        objective=objective,
        join_groups=join_groups,
        weights=weights,
        # The scenario's own order (the group's join order, the metadata's topic order) when it is not the
        # sorted one: some assignors' answers depend on it (Problem.join_order).
        member_order=listed_members if listed_members != tuple(m.member_id for m in by_id) else (),
        topic_order=listed_topics if listed_topics != tuple(t.name for t in by_name) else (),
    )


#: The largest partition weight: weighted loads of a million partitions stay exact in 64-bit integers.
MAX_WEIGHT = 10**9


def _weights(value: Any, counts: dict[str, int], source: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """``{"clicks": [w0, w1, ...]}``: one whole number ``0 .. MAX_WEIGHT`` per partition of an existing topic."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise InputError(source, "weights", f"must be an object of topic -> list of weights, got {json_kind(value)}")
    out = []
    for topic, weights in value.items():
        where = field_path("weights", topic)
        if topic not in counts:
            raise InputError(source, where, f"{json.dumps(topic)} is not a topic of the scenario")
        if not isinstance(weights, list):
            raise InputError(source, where, f"must be a list of weights, one per partition, got {json_kind(weights)}")
        if len(weights) != counts[topic]:
            raise InputError(source, where, f"has {len(weights)} weight(s) for {counts[topic]} partition(s)")
        for i, w in enumerate(weights):
            if type(w) is not int or not 0 <= w <= MAX_WEIGHT:
                raise InputError(
                    source,
                    f"{where}[{i}]",
                    f"must be a whole number from 0 to {MAX_WEIGHT:,}, got "
                    f"{json.dumps(w) if type(w) in (int, float) else json_kind(w)}",
                )
        out.append((topic, tuple(weights)))
    return tuple(sorted(out))


def _join_groups(value: Any, topics: set[str], source: str) -> tuple[tuple[str, ...], ...]:
    """``[["impressions", "clicks"], ...]``: groups of two or more existing topics, each topic in one group."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(source, "join_groups", f"must be a list of topic lists, got {json_kind(value)}")
    seen: dict[str, int] = {}
    groups = []
    for i, group in enumerate(value):
        where = f"join_groups[{i}]"
        if not isinstance(group, list) or len(group) < 2:
            raise InputError(source, where, "must be a list of at least two topic names")
        for j, topic in enumerate(group):
            if not isinstance(topic, str):
                raise InputError(source, f"{where}[{j}]", f"must be a topic name, got {json_kind(topic)}")
            if topic not in topics:
                raise InputError(source, f"{where}[{j}]", f"{json.dumps(topic)} is not a topic of the scenario")
            if topic in seen:
                raise InputError(
                    source,
                    f"{where}[{j}]",
                    f"{json.dumps(topic)} is already in join_groups[{seen[topic]}]"
                    if seen[topic] != i
                    else f"{json.dumps(topic)} is named twice",
                )
            seen[topic] = i
        groups.append(tuple(sorted(group)))
    return tuple(sorted(groups))


def problem_to_mapping(problem: Problem) -> dict:
    """The scenario document of ``problem``: members and topics in the scenario's own order (its join order
    and topic order), which :func:`dumps` keeps (:class:`Listed`): a scenario the tool writes (``generate``,
    ``capture``, ``bugs --scenario``, a sweep's counterexamples) reads back in the same group order, on
    which Java's iteration order depends."""
    members = Listed()
    by_id = {m.member_id: m for m in problem.members}
    for m in (by_id[i] for i in problem.join_order):
        entry: dict[str, Any] = {"topics": sorted(m.topics)}
        if m.owned:
            entry["owned"] = {t: list(ps) for t, ps in m.owned}
        if m.generation is not None:
            entry["generation"] = m.generation
        if m.rack is not None:
            entry["rack"] = m.rack
        if m.instance_id is not None:
            entry["instance_id"] = m.instance_id
        members[m.member_id] = entry
    topics = {t.name: t for t in problem.topics}
    return {
        "topics": Listed(
            (
                t.name,
                t.partitions
                if t.racks is None and t.topic_id is None
                else {
                    "partitions": t.partitions,
                    **({"racks": [list(r) for r in t.racks]} if t.racks is not None else {}),
                    **({"id": t.topic_id} if t.topic_id is not None else {}),
                },
            )
            for t in (topics[name] for name in problem.topic_listing)
        ),
        "members": members,
        "objective": list(problem.objective),
        **({"join_groups": [list(g) for g in problem.join_groups]} if problem.join_groups else {}),
        **({"weights": {t: list(ws) for t, ws in problem.weights}} if problem.weights else {}),
    }


#: A sweep's counterexample file (``DIR/counterexamples/A/ID-rR.json``): its scenario is under ``scenario``.
COUNTEREXAMPLE_KEYS = frozenset({"assignor", "finding", "scenario"})


def read_problem(
    path: str | Path,
    *,
    objective: tuple[str, ...] | None = None,
    max_partitions: int | None = MAX_PARTITIONS,
    max_members: int | None = MAX_MEMBERS,
) -> Problem:
    """Read and validate a scenario file; ``objective`` overrides the file's.

    A sweep's counterexample file is read as the scenario it holds, so every
    command that takes a scenario replays a counterexample as it is.
    """
    document = read_json_file(path)
    source = str(path)
    if isinstance(document, dict) and set(document) == COUNTEREXAMPLE_KEYS:
        document, source = document["scenario"], f"{path}: scenario"
    problem = problem_from_mapping(document, source=source, max_partitions=max_partitions, max_members=max_members)
    if objective is not None and objective != problem.objective:
        problem = dataclasses.replace(problem, objective=objective)
    return problem


# -- assignment --------------------------------------------------------------


def assignment_from_mapping(data: Any, *, source: str = "assignment") -> Assignment:
    """Read the ``assignment`` key of a decoded document (other keys are ignored)."""
    obj = expect_object(data, source, "")
    if "assignment" not in obj:
        raise InputError(source, "assignment", "missing (required)")
    members_obj = expect_object(obj["assignment"], source, "assignment")
    if (
        "" not in members_obj
        and set(map(type, members_obj)) <= {str}
        and set(map(type, members_obj.values())) <= {dict}
        and set(map(type, itertools.chain.from_iterable(members_obj.values()))) <= {str}
        and not any("" in ts for ts in members_obj.values())
        and _partition_numbers_ok([ps for ts in members_obj.values() for ps in ts.values()])
    ):
        return Assignment(members_obj)  # every field checked in bulk; else the loop below names the first bad one
    members: dict[str, dict[str, tuple[int, ...]]] = {}
    for member_id, topics in members_obj.items():
        path = field_path("assignment", member_id)
        expect_name(member_id, source, path)
        topics_obj = expect_object(topics, source, path)
        members[member_id] = {}
        for topic, parts in topics_obj.items():
            if not topic:
                expect_name(topic, source, field_path(path, topic))
            members[member_id][topic] = _partition_list(parts, source, functools.partial(field_path, path, topic))
    return Assignment(members)


def read_assignment(path: str | Path) -> tuple[Assignment, dict]:
    """Read an assignment file; returns the assignment and the whole document."""
    doc = read_json_file(path)
    return assignment_from_mapping(doc, source=str(path)), doc


#: Output names that mean this process's standard output, written as a stream (a terminal, a pipe):
#: ``/dev/stdout`` is a link, which is otherwise refused, to /proc/self/fd/1.
STANDARD_OUTPUT = frozenset({"-", "/dev/stdout"})


def write_output(path: str | Path, text: str, *, inputs: tuple[str | Path, ...] = ()) -> None:
    """Write ``text`` to ``path`` atomically, never over one of the command's ``inputs``.

    The text goes to a temporary file in the same directory, is flushed to
    disk, and replaces ``path`` in one rename: a reader (or a kill at any
    moment) sees the old file or the whole new one, never a truncated one.
    Writing over an input file is refused (:class:`InputError`): the user's
    scenario must not be lost to a typo in ``-o``.
    """
    if str(path) in STANDARD_OUTPUT:  # standard output, as a stream (what no -o does)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    check_output(path, inputs=inputs)
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        handle = tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=directory, prefix=f".{target.name[:120]}.", suffix=".tmp", delete=False
        )
    except OSError as err:
        raise InputError(str(path), "", f"cannot write file ({err.strerror or err})") from None
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as err:  # created, but the disk is full (or failing): the file is left as it was
        Path(handle.name).unlink(missing_ok=True)
        outcome = "left as it was" if target.exists() else "not written"
        raise WriteFailed(str(path), err.strerror or str(err), outcome) from None
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    try:
        mode = 0o666 & ~_umask()
        os.chmod(handle.name, target.stat().st_mode & 0o7777 if target.exists() else mode)
        os.replace(handle.name, target)
    except OSError as err:
        Path(handle.name).unlink(missing_ok=True)
        raise InputError(str(path), "", f"cannot write file ({err.strerror or err})") from None
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def check_output(path: str | Path, *, inputs: tuple[str | Path, ...] = ()) -> None:
    """Refuse, in one line (:class:`InputError`), an output path :func:`write_output` would not write.

    Commands call it before any work (an hour's solve must not end in a
    refused ``-o``), and :func:`write_output` again before writing.  ``-``
    (standard output) is always fine.
    """
    if str(path) in STANDARD_OUTPUT:
        return
    target = Path(path)
    for given in inputs:
        if _same_file(target, Path(given)):
            raise InputError(str(path), "", f"is also an input of this command ({given}): choose another output file")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:  # a name too long, a path through a file, a loop of links
        raise InputError(str(path), "", f"cannot write file ({err.strerror or err})") from None
    if mode is not None and not stat.S_ISREG(mode):
        # os.replace would put a regular file in place of the link, device, fifo or folder (as root, over
        # /dev/null itself): only what the shell's `>` would leave a regular file is written.
        raise InputError(
            str(path),
            "",
            "cannot write file (it exists and is not a regular file: "
            "a link, device, fifo or folder; choose a regular file)",
        )
    if mode is not None and not mode & 0o222:
        # A user's `>` refuses a write-protected file, and the rename below would replace it whatever its
        # mode (root's `>` would truncate it): a file without write permission is someone's decision.
        raise InputError(str(path), "", "cannot write file (it is write-protected: make it writable or choose another)")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(str(path), "", f"cannot write file (no folder {str(directory)!r})")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(str(path), "", f"cannot write file (the folder {str(directory)!r} is not writable)")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        try:
            return a.resolve() == b.resolve()
        except OSError:
            return False


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


class Listed(dict):
    """A mapping whose order is part of the data, which :func:`dumps` writes in that order rather than sorted:
    a share group's members as the group presents them (Kafka's coordinator fills ``memberIds()`` in that
    order, and Java's iteration order over them depends on it) and its topics as the scenario lists them."""


def dumps(document: Mapping) -> str:
    """Canonical JSON output: sorted keys (a :class:`Listed` mapping's in its own order), two-space indent,
    arrays of scalars on one line, trailing newline.  The same document always gives the same bytes.

    A value may be an :class:`Assignment`: it is written as its
    ``to_mapping()`` would be, straight from its rows (what ``solve`` and
    ``assign`` do with a million partitions).
    """
    return _dump(document, 0) + "\n"


_encode_string = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) uses for a str


def _dump_assignment(assignment: Assignment, depth: int) -> str:
    """An :class:`Assignment` as the nested mapping ``_dump`` would write for
    ``assignment.to_mapping()``, byte for byte, streamed from its rows."""
    names = [_encode_string(n) for n in assignment.member_names]
    if not names:
        return "{}"
    topics = [_encode_string(t) for t in assignment.topic_names]
    outer, inner = "  " * (depth + 1), "  " * (depth + 2)
    starts, _ = assignment._blocks
    block_member = assignment.member[starts]
    numbers = list(map(int.__repr__, assignment.partition.tolist()))
    if starts.size == assignment.size:  # one partition per (member, topic): no joins needed
        lists = numbers
    else:
        bounds = np.r_[starts, assignment.size].tolist()
        lists = [", ".join(numbers[lo:hi]) for lo, hi in zip(bounds, bounds[1:])]
    lines = [f"{inner}{topics[t]}: [{text}]" for t, text in zip(assignment.topic[starts].tolist(), lists)]
    # Each member's lines are consecutive: cut them out by where each member's blocks start.
    cuts = np.searchsorted(block_member, np.arange(len(names) + 1)).tolist()
    items = [
        f"{outer}{name}: " + ("{\n" + ",\n".join(lines[lo:hi]) + "\n" + outer + "}" if hi > lo else "{}")
        for name, lo, hi in zip(names, cuts, cuts[1:])
    ]
    return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is str:
        return _encode_string(value)
    return json.dumps(value, ensure_ascii=False)


def _dump(value: Any, depth: int) -> str:
    # Exact-type checks first: this runs once per (member, topic) of an
    # assignment, a million times on Kafka's stress case.
    kind = type(value)
    if kind is Assignment:
        return _dump_assignment(value, depth)
    if kind is Listed:  # the order is the data's: kept
        if not value:
            return "{}"
        pad = "  " * (depth + 1)
        items = [f"{pad}{_encode_string(str(k))}: {_dump(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if kind is dict or (kind is not list and kind is not tuple and isinstance(value, Mapping)):
        if not value:
            return "{}"
        pad = "  " * (depth + 1)
        items = [f"{pad}{_encode_string(str(k))}: {_dump(value[k], depth + 1)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if kind is list or kind is tuple:
        if all(type(v) is int for v in value):
            return "[" + ", ".join(map(int.__repr__, value)) + "]"
        if all(not isinstance(v, (Mapping, list, tuple)) for v in value):
            return "[" + ", ".join(map(_scalar, value)) + "]"
        pad = "  " * (depth + 1)
        return "[\n" + ",\n".join(pad + _dump(v, depth + 1) for v in value) + "\n" + "  " * depth + "]"
    return _scalar(value)
