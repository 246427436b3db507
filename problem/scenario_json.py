"""The JSON formats: scenario in, assignment in and out, files and standard input, canonical output.

Everything a user hands the project passes through this module once: it reads the bytes (bounded, strict
JSON), and each kind's model validates its document (a consumer group's scenario in :mod:`problem.model`,
with the field readers of :mod:`problem.json_fields`; a Streams or share group's in :mod:`problem.streams`
and :mod:`problem.share`); the names are re-exported here, the one place callers import them from.  A
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
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import orjson

from assignment_oracle.problem.errors import InputError, WriteFailed
from assignment_oracle.problem.formats import FORMAT_VERSION, read_version, unversioned
from assignment_oracle.problem.json_fields import (
    Listed,
    expect_name,
    expect_object,
    field_path,
    require_keys,
)
from assignment_oracle.problem.model import (
    MAX_MEMBERS,
    MAX_PARTITIONS,
    Assignment,
    Problem,
    _partition_list,
    _partition_numbers_ok,
    check_members,
    claim_instance_id,
    expect_subscription,
    kafka_uuid,
    listed_first,
    parse_objective,
    problem_from_mapping,
    problem_to_mapping,
    topic_from_value,
    uuid_bits,
)

__all__ = [
    "listed_first",
    "read_json_file",
    "read_input",
    "max_input_bytes",
    "MAX_INPUT_BYTES",
    "MAX_INPUT_VARIABLE",
    "MAX_MEMBERS",
    "check_members",
    "expect_subscription",
    "claim_instance_id",
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
    "write_output",
    "check_output",
    "MAX_PARTITIONS",
    "parse_objective",
]


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


# -- scenario ----------------------------------------------------------------


#: A sweep's counterexample file (``DIR/counterexamples/A/ID-rR.json``): its scenario is under ``scenario``.
COUNTEREXAMPLE_KEYS = frozenset({"assignor", "finding", "scenario"})


def counterexample_scenario(document: Any, source: str) -> tuple[Any, str]:
    """The scenario a sweep's counterexample holds and the source its errors name (``FILE: scenario``), or the
    document as it is when it is no counterexample: the one rule every reader of a scenario applies.  A
    counterexample file names its ``format_version`` (format ``sweep-counterexample``, checked here); the
    rows' own column holds the same document without it."""
    if not isinstance(document, dict) or set(document) - {FORMAT_VERSION} != COUNTEREXAMPLE_KEYS:
        return document, source
    read_version(document, "sweep-counterexample", source)
    return document["scenario"], f"{source}: scenario"


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
    document, source = counterexample_scenario(document, source)
    document = unversioned(document, "scenario", source)  # as problem.load reads every kind's
    problem = problem_from_mapping(document, source=source, max_partitions=max_partitions, max_members=max_members)
    if objective is not None and objective != problem.objective:
        problem = dataclasses.replace(problem, objective=objective)
    return problem


# -- assignment --------------------------------------------------------------


def assignment_from_mapping(data: Any, *, source: str = "assignment") -> Assignment:
    """Read the ``assignment`` key of a decoded document (other keys are ignored)."""
    obj = expect_object(data, source, "")
    require_keys(obj, ("assignment",), source)
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
