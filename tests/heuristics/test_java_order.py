"""heuristics.java_order against a real JVM: Java 17's HashMap/HashSet iteration order, key for key.

``java/HashOrder.java`` is compiled with the machine's ``javac`` and fed thousands of random cases in one
JVM: keys like Kafka's member ids (``consumer3``, ``member-0a1b…``), topic names, unicode beyond the BMP,
Kafka ``TopicPartition``\\ s; every constructor the assignors use (``new HashMap<>()``,
``new HashMap<>(n)``, the copy constructor, ``new HashSet<>(collection)``), puts and removes, tables that
grow many times.  Every order must be Java's.  Skipped without ``java``/``javac``, except under ``CI``
(where Java 17 is installed): there it fails.  ``computeIfAbsent`` (Kafka's ``groupPartitionsByTopic``) too.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from assignment_oracle.heuristics.java_order import (
    JavaHashMap,
    TreeBinNotEmulated,
    grouped_order,
    hash_map_copy,
    hash_set_copy,
    java_order,
    string_hash,
    topic_partition_hash,
    uuid_hash,
)

SOURCE = Path(__file__).with_name("java") / "HashOrder.java"
MISSING = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")


def hex16(text: str) -> str:
    return text.encode("utf-16-be").hex()


@pytest.fixture(scope="module")
def hash_order(tmp_path_factory):
    """A function running cases through the compiled HashOrder in one JVM: lines in, lines out."""
    if MISSING:
        message = f"java_order's differential test needs {', '.join(MISSING)}"
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    classes = tmp_path_factory.mktemp("hash-order")
    subprocess.run(["javac", "-d", str(classes), str(SOURCE)], check=True, capture_output=True, timeout=120)

    def run(lines: list[str]) -> list[str]:
        done = subprocess.run(
            ["java", "-Xss4m", "-cp", str(classes), "HashOrder"],
            input="".join(line + "\n" for line in lines),
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
            check=True,
        )
        return done.stdout.split("\n")[: len(lines)]

    return run


def member_ids(rng: random.Random, count: int) -> list[str]:
    style = rng.choice(["consumer", "member", "uuid", "unicode", "short"])
    if style == "consumer":
        return [f"consumer{rng.randrange(count * 3 + 1)}" for _ in range(count)]
    if style == "member":
        return [f"member-{rng.randrange(10**6):06d}" for _ in range(count)]
    if style == "uuid":
        return [f"client-{rng.getrandbits(64):016x}-{rng.getrandbits(32):08x}" for _ in range(count)]
    if style == "unicode":
        alphabet = "aZ09-_ñ中\U0001f600\u00e9"
        return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 6))) for _ in range(count)]
    return [rng.choice("abcdefghij") * rng.randrange(1, 4) for _ in range(count)]


def cases(seed: int, number: int):
    """(mode, kind, ops) triples: ops are ("+", key) puts and ("-", key) removes."""
    rng = random.Random(seed)
    for _ in range(number):
        kind = "tp" if rng.random() < 0.2 else "string"
        size = rng.choice([0, 1, 2, 5, 11, 12, 13, 24, 25, 40, 97, 200, 700])
        if kind == "tp":
            topics = [f"topic{rng.randrange(8)}" for _ in range(max(1, size // 10))]
            keys = [(rng.choice(topics), rng.randrange(50)) for _ in range(size)]
        else:
            keys = member_ids(rng, size)
        mode = rng.choice(["default", "default", f"cap:{rng.choice([0, 1, 2, 3, 7, 12, 16, 17, 64, 100, 1000])}"])
        if rng.random() < 0.25:
            mode = rng.choice(["copy", "setcopy"])
        ops = [("+", k) for k in keys]
        if mode.startswith(("default", "cap")) and keys:
            for _ in range(rng.randrange(size // 4 + 1)):
                ops.insert(rng.randrange(len(ops) + 1), ("-", rng.choice(keys)))
        yield mode, kind, ops


def encode(kind: str, key) -> str:
    return f"{hex16(key[0])}:{key[1]}" if kind == "tp" else hex16(key)


def emulate(mode: str, kind: str, ops) -> list:
    hash_of = (lambda tp: topic_partition_hash(*tp)) if kind == "tp" else string_hash
    added = [key for sign, key in ops if sign == "+"]
    if mode == "copy":
        return hash_map_copy(dict.fromkeys(added), hash_of)
    if mode == "setcopy":
        return hash_set_copy(added, hash_of)
    table = JavaHashMap(hash_of, None if mode == "default" else int(mode[4:]))
    for sign, key in ops:
        if sign == "+":
            table.put(key)
        elif sign == "*":
            table.compute_if_absent(key)
        else:
            table.remove(key)
    return list(table)


def test_hash_codes_are_javas():
    """Known values of Java's String.hashCode and of Kafka's hash codes, computed by hand from their definitions."""
    assert string_hash("") == 0
    assert string_hash("a") == 97
    by_definition = sum(ord(c) * 31 ** (8 - i) for i, c in enumerate("consumer1")) % 2**32
    assert string_hash("consumer1") == (by_definition - 2**32 if by_definition >= 2**31 else by_definition)
    assert string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00  # two UTF-16 code units
    assert topic_partition_hash("t", 0) == 31 * 31 + 116
    assert uuid_hash(1 << 32, 0) == 1 and uuid_hash(5, 3) == 6


def test_every_order_is_javas(hash_order):
    """Thousands of random cases through one JVM: every constructor, puts and removes, growing tables."""
    lines, expected, skipped = [], [], 0
    for mode, kind, ops in cases(seed=26, number=3000):
        try:
            order = emulate(mode, kind, ops)
        except TreeBinNotEmulated:
            skipped += 1
            continue
        lines.append("\t".join([mode, kind, *(sign + encode(kind, key) for sign, key in ops)]))
        expected.append("\t".join(encode(kind, key) for key in order))
    shown = hash_order(lines)
    wrong = [(line[:120], want[:120], got[:120]) for line, want, got in zip(lines, expected, shown) if want != got]
    assert wrong == [], f"{len(wrong)} of {len(lines)} orders differ from Java's, e.g. {wrong[0]}"
    assert skipped <= 3  # tree bins need adversarial keys
    # The cases are not trivial: most orders are neither the insertion order nor the sorted one.
    neither = sum(
        1 for want in expected if len(set(want.split("\t"))) > 2 and want.split("\t") != sorted(want.split("\t"))
    )
    assert neither > len(lines) // 2


def test_compute_if_absent_is_javas(hash_order):
    """``computeIfAbsent`` (head of the chain, growth before the call) mixed with puts and removes, repeats
    included, against the JVM; ``grouped_order`` is a ``groupPartitionsByTopic`` map's order."""
    rng = random.Random(27)
    lines, expected = [], []
    for mode, kind, ops in cases(seed=27, number=1500):
        if not mode.startswith(("default", "cap")):
            continue
        ops = [(rng.choice("+**") if sign == "+" else sign, key) for sign, key in ops]
        ops += [("*", key) for sign, key in ops if sign != "-" and rng.random() < 0.3]  # repeats, as per partition
        try:
            order = emulate(mode, kind, ops)
        except TreeBinNotEmulated:
            continue
        lines.append("\t".join([mode, kind, *(sign + encode(kind, key) for sign, key in ops)]))
        expected.append("\t".join(encode(kind, key) for key in order))
    topics = [["g6", "r1"], ["r1", "g6", "r1"], [f"topic-{i}" for i in range(13)] * 2]
    for keys in topics:
        lines.append("\t".join(["default", "string", *("*" + encode("string", k) for k in keys)]))
        expected.append("\t".join(encode("string", k) for k in grouped_order(keys)))
    shown = hash_order(lines)
    wrong = [(line[:120], want[:120], got[:120]) for line, want, got in zip(lines, expected, shown) if want != got]
    assert wrong == [], f"{len(wrong)} of {len(lines)} orders differ from Java's, e.g. {wrong[0]}"
    assert len(lines) > 1000
    # "g6" and "r1" share a bucket: put keeps them in insertion order, computeIfAbsent reverses it.
    assert java_order(["g6", "r1"]) == ["g6", "r1"] and grouped_order(["g6", "r1"]) == ["r1", "g6"]


def test_kafkas_consumers_iterate_as_kafkas_tests_expect():
    """The order Kafka's own test names (AbstractStickyAssignorTest's
    testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers: consumer3, consumer2, consumer1 in a HashMap)."""
    assert java_order(["consumer1", "consumer2", "consumer3"]) == ["consumer3", "consumer2", "consumer1"]


def test_a_tree_bin_is_refused_not_guessed():
    """Nine keys with one hash code in a table of 64 buckets: Java makes the bucket a tree; the emulation says so."""
    table = JavaHashMap(lambda key: 0, initial_capacity=64)
    with pytest.raises(TreeBinNotEmulated):
        for key in range(9):
            table.put(key)
    small = JavaHashMap(lambda key: 0)  # below 64 buckets Java grows the table instead
    for key in range(9):
        small.put(key)
    assert list(small) == list(range(9))
