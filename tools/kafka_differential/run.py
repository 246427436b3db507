"""Differential test of the Kafka ports against Kafka's own assignors, compiled from source (issue 27).

Not part of CI: it needs a Kafka source tree (or a git dir and a commit), ``javac``/``java`` 17 and the
Jackson/SLF4J jars of a Maven cache.  See README.md in this folder.

What it does:

1. prepares a build directory under ``$TMPDIR/kafka_differential/`` (cached, keyed by the Kafka commit or
   source hash, the list of Kafka's files as that commit lays them out, and this tool's own Java files; tried
   at apache/kafka 1eb7644 and d79bd50): Kafka's client assignors, its
   KIP-848 group coordinator assignors and the few classes they need, extracted verbatim, plus this folder's
   stand-ins (``standins/``), ``Driver.java`` and ``ServerAssignors.java``, compiled with javac;
2. starts ONE JVM running ``Driver`` (JSON lines: a scenario in, the assignors' answers out);
3. generates N random scenarios (seeded), streams them to the JVM, and compares each of Kafka's answers with
   the port's: ``heuristics.range.assign``, ``heuristics.roundrobin.assign``, ``heuristics.kafka4_sticky.assign``
   (``StickyAssignor``), ``heuristics.kafka4_sticky.rebalance_cooperative(...).first``
   (``CooperativeStickyAssignor``: one rebalance, as Kafka's ``assign`` is one), ``heuristics.uniform.assign``
   (the group coordinator's ``UniformAssignor``; ``variant=None`` when the Kafka commit has KAFKA-18688, else
   ``variant=uniform.KAFKA_4_0_0``, see ``--uniform-port``) and ``heuristics.server_range.assign`` (its
   ``RangeAssignor``), for each iteration order the port has;
4. prints the agreement per assignor and iteration order and, per assignor and order, the smallest differing
   scenario (fewest members, then partitions), also written as JSON under ``--out``; ``--shrink`` also
   shrinks it greedily against the same JVM (drop members, topics, partitions, claims, racks, ...).  For the
   server assignors every difference is also diagnosed: the JVM answers again with Kafka's member order and/or
   topic-id orders replaced by the port's, which tells which Java map decides it.

Scenarios list their members in member-id order: the order the port takes as the join order (its
``Problem`` keeps members sorted), so Java's ``HashMap`` is filled in that order too.  For the server
assignors every topic also gets a random Kafka ``Uuid`` (seeded, from a stream of its own so that the
scenarios themselves are unchanged), sent to Java as the topic's ``"id"``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import inspect
import json
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from assignment_oracle.heuristics import cooperative_sticky, kafka4_sticky, roundrobin, server_range, uniform
from assignment_oracle.heuristics import range as range_assignor
from assignment_oracle.heuristics.timeline_order import joining_member
from assignment_oracle.problem.errors import AssignorDidNotFinish
from assignment_oracle.problem.model import Problem

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

#: Kafka's sources the client assignors compile from (under clients/src/main/java/org/apache/kafka/).
KAFKA_ROOT = "clients/src/main/java"
KAFKA_CLIENT_FILES = [
    *(
        f"org/apache/kafka/clients/consumer/{name}.java"
        for name in (
            "ConsumerPartitionAssignor",
            "RangeAssignor",
            "RoundRobinAssignor",
            "StickyAssignor",
            "CooperativeStickyAssignor",
            "ConsumerGroupMetadata",
        )
    ),
    *(
        f"org/apache/kafka/clients/consumer/internals/{name}.java"
        for name in ("AbstractStickyAssignor", "AbstractPartitionAssignor", "Utils")
    ),
    *(
        f"org/apache/kafka/common/{name}.java"
        for name in (
            "TopicPartition",
            "TopicIdPartition",
            "PartitionInfo",
            "Node",
            "KafkaException",
            "Configurable",
            "Uuid",
        )
    ),
    # Moved to common/utils/internals/ after 1eb7644 (at d79bd50): the first path the commit has is taken.
    *(
        f"org/apache/kafka/common/utils/{name}.java|org/apache/kafka/common/utils/internals/{name}.java"
        for name in ("CircularIterator", "ByteUtils")
    ),
    # Optional ("?": skipped when the commit lacks it): CollectionUtils is gone by d79bd50 (StickyAssignor no
    # longer uses it); Bytes is named by utils/internals/ByteUtils at d79bd50 (unused, but present, at 1eb7644).
    "org/apache/kafka/common/utils/CollectionUtils.java?",
    "org/apache/kafka/common/utils/Bytes.java?",
    "org/apache/kafka/common/protocol/Writable.java",
]
#: The group coordinator's (KIP-848) assignors and what they need, by source root.
SERVER_API_ROOT = "group-coordinator/group-coordinator-api/src/main/java"
SERVER_ROOT = "group-coordinator/src/main/java"
SERVER_COMMON_ROOT = "server-common/src/main/java"
#: Every file of Kafka's the build takes: a path, or alternatives "a|b" (the first the commit has), "?" at the
#: end when the commit may have none of them (:meth:`KafkaSource.resolve`).
KAFKA_FILES = [
    *(
        f"{KAFKA_ROOT}/{f}" if "|" not in f else "|".join(f"{KAFKA_ROOT}/{x}" for x in f.split("|"))
        for f in KAFKA_CLIENT_FILES
    ),
    f"{KAFKA_ROOT}/org/apache/kafka/common/annotation/InterfaceStability.java",
    # Annotations the API and the assignors carry after 1eb7644 (at d79bd50).
    f"{KAFKA_ROOT}/org/apache/kafka/common/annotation/InterfaceAudience.java?",
    f"{KAFKA_ROOT}/org/apache/kafka/common/annotation/SuppressKafkaInternalApiUsage.java?",
    f"{KAFKA_ROOT}/org/apache/kafka/common/errors/ApiException.java",
    *(
        f"{SERVER_ROOT}/org/apache/kafka/coordinator/group/assignor/{name}.java"
        for name in (
            "UniformAssignor",
            "UniformHomogeneousAssignmentBuilder",
            "UniformHeterogeneousAssignmentBuilder",
            "RangeAssignor",
            "RangeSet",
            "AssignorHelpers",
        )
    ),
    # The share group assignor (KIP-932; share.py): rewritten in 2025, loaded by name (ShareAssignors.java).
    *(
        f"{SERVER_ROOT}/org/apache/kafka/coordinator/group/assignor/{name}.java?"
        for name in ("SimpleAssignor", "SimpleHomogeneousAssignmentBuilder", "SimpleHeterogeneousAssignmentBuilder")
    ),
    f"{SERVER_ROOT}/org/apache/kafka/coordinator/group/modern/MemberAssignmentImpl.java",
    f"{SERVER_COMMON_ROOT}/org/apache/kafka/server/common/TopicIdPartition.java",
    # The group's members: Kafka's TimelineHashMap (ServerAssignors.coordinatorOrder), and the LogContext its
    # SnapshotRegistry takes (moved under utils/internals after 1eb7644).
    *(
        f"{SERVER_COMMON_ROOT}/org/apache/kafka/timeline/{name}.java"
        for name in (
            "BaseHashTable",
            "Delta",
            "Revertable",
            "Snapshot",
            "SnapshotRegistry",
            "SnapshottableHashTable",
            "TimelineHashMap",
        )
    ),
    f"{KAFKA_ROOT}/org/apache/kafka/common/utils/internals/LogContext.java|"
    f"{KAFKA_ROOT}/org/apache/kafka/common/utils/LogContext.java",
]
#: Whole folders taken as they are (paths from the source root).
KAFKA_DIRS = [
    f"{KAFKA_ROOT}/org/apache/kafka/common/protocol/types",
    f"{SERVER_API_ROOT}/org/apache/kafka/coordinator/group/api/assignor",
]

#: Jars from the Maven cache: JSON for the driver, the logging API the assignors call.
JARS = [
    "com/fasterxml/jackson/core/jackson-databind/2.17.2/jackson-databind-2.17.2.jar",
    "com/fasterxml/jackson/core/jackson-core/2.17.2/jackson-core-2.17.2.jar",
    "com/fasterxml/jackson/core/jackson-annotations/2.17.2/jackson-annotations-2.17.2.jar",
    "org/slf4j/slf4j-api/1.7.33/slf4j-api-1.7.33.jar",
]
DRIVER_CLASS = "org.apache.kafka.clients.consumer.Driver"

CLIENT_ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
#: The group coordinator's: UniformAssignor (both builders) and RangeAssignor.
SERVER_ASSIGNORS = ("uniform", "server-range")
ASSIGNORS = CLIENT_ASSIGNORS + SERVER_ASSIGNORS
ORDERS = tuple(kafka4_sticky.ITERATION_ORDERS)  # ("sorted", "java")
#: Assignors whose ports have no iteration order because Kafka's answer has none (they sort): one answer,
#: shown in both columns.
ORDERLESS = ("range", "roundrobin", "server-range")
#: Whether the uniform port takes ``iteration_order`` (not yet at the time of writing): then both orders are
#: compared, else only its (sorted) order.
UNIFORM_HAS_ORDER = "iteration_order" in inspect.signature(uniform.assign).parameters
#: Whether the uniform port takes ``variant`` (since b7a01df): the Kafka commit decides which one is compared.
UNIFORM_HAS_VARIANT = "variant" in inspect.signature(uniform.assign).parameters

#: KAFKA-18688 (apache/kafka c16c240, PR #19677, 2025-05-13) changed the answers of the homogeneous uniform
#: builder. Kafka with it (e.g. d79bd50, 4.0.1 and later) is compared with the uniform port's default
#: (``variant=None``, registry name ``uniform``), Kafka without it (e.g. 1eb7644, 4.0.0) with
#: ``variant=uniform.KAFKA_4_0_0`` (``uniform-4.0.0``).
KAFKA_18688 = "c16c240bd1fb8c84f89b7b774629ec24016d3866"
#: The uniform port's registry names and their ``variant``s (``--uniform-port``).
UNIFORM_PORTS = {"uniform": None, "uniform-4.0.0": getattr(uniform, "KAFKA_4_0_0", "4.0.0")}
#: The uniform port compared in this run (set by :func:`main` from ``--uniform-port``): a key of UNIFORM_PORTS.
UNIFORM_PORT = "uniform"


def port_orders(name: str) -> tuple[str, ...]:
    """The iteration orders the port of ``name`` can be run in."""
    if name == "uniform" and not UNIFORM_HAS_ORDER:
        return ("sorted",)
    return ORDERS


# -- Kafka's sources and the build ---------------------------------------------------------------------------


@dataclass
class KafkaSource:
    """Where Kafka's files come from: a checkout folder, or a git dir at a commit."""

    path: Path | None = None
    git_dir: Path | None = None
    commit: str | None = None  # full sha when known
    _resolved: list[str] | None = field(default=None, repr=False)  # resolve()'s answer, once

    def describe(self) -> str:
        if self.git_dir is not None:
            return f"{self.commit} (git dir {self.git_dir})"
        return f"{self.commit or 'unknown commit (not a git checkout)'} (checkout {self.path})"

    def _exists(self, rel: str) -> bool:
        if self.git_dir is not None:
            return bool(
                subprocess.run(
                    ["git", f"--git-dir={self.git_dir}", "ls-tree", "--name-only", self.commit, "--", rel],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout.strip()
            )
        return (self.path / rel).exists()

    def resolve(self) -> list[str]:
        """The paths of Kafka's files and folders this commit has: per entry of :data:`KAFKA_FILES` the first of
        its alternatives (``a|b``) present, none for an optional one (``?``) that is absent (Kafka moved and
        removed some of them after 1eb7644); then :data:`KAFKA_DIRS`."""
        if self._resolved is not None:
            return self._resolved
        found = []
        for entry in KAFKA_FILES:
            optional = entry.endswith("?")
            options = entry.removesuffix("?").split("|")
            present = next((rel for rel in options if self._exists(rel)), None)
            if present is not None:
                found.append(present)
            elif not optional:
                raise SystemExit(
                    f"kafka_differential: error: {self.describe()}: none of {', '.join(options)} (a Kafka layout "
                    "this tool does not know: add the file's new path to KAFKA_FILES)"
                )
        for rel in KAFKA_DIRS:
            if not self._exists(rel):
                raise SystemExit(f"kafka_differential: error: {self.describe()}: no {rel}")
            found.append(rel)
        self._resolved = found
        return found

    def extract(self, dest: Path) -> None:
        """Kafka's needed files under ``dest`` (paths relative to the source root kept)."""
        wanted = self.resolve()
        if self.git_dir is not None:
            archive = subprocess.run(
                ["git", f"--git-dir={self.git_dir}", "archive", self.commit, *wanted],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
            return
        for rel in wanted:
            src = self.path / rel
            if src.is_dir():
                shutil.copytree(src, dest / rel, dirs_exist_ok=True)
            else:
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel)

    def content_key(self) -> str:
        """The cache key of Kafka's side: the commit for a git dir, a hash of the files for a checkout."""
        if self.git_dir is not None:
            return self.commit
        digest = hashlib.sha256()
        for rel in sorted(self.resolve()):
            src = self.path / rel
            files = sorted(src.rglob("*.java")) if src.is_dir() else [src]
            for f in files:
                if f.is_file():
                    digest.update(str(f.relative_to(self.path)).encode() + b"\0" + f.read_bytes() + b"\0")
        return ("checkout-" + (self.commit or "nogit")[:12] + "-" + digest.hexdigest()[:16]).replace("/", "_")


def kafka_source(args: argparse.Namespace) -> KafkaSource:
    if args.kafka_git is not None:
        git_dir = Path(args.kafka_git).resolve()
        try:
            commit = subprocess.run(
                ["git", f"--git-dir={git_dir}", "rev-parse", "--verify", f"{args.commit}^{{commit}}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        except subprocess.CalledProcessError as e:
            raise SystemExit(
                f"kafka_differential: error: {git_dir}: cannot resolve {args.commit!r}: {e.stderr.strip()}"
            ) from None
        return KafkaSource(git_dir=git_dir, commit=commit)
    path = Path(args.kafka).resolve()
    if not (path / KAFKA_ROOT).is_dir():
        raise SystemExit(f"kafka_differential: error: {path}: no {KAFKA_ROOT} (not a Kafka source checkout)")
    commit = None
    probe = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
    if probe.returncode == 0:
        commit = probe.stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(path),
                "status",
                "--porcelain",
                "--",
                KAFKA_ROOT,
                SERVER_API_ROOT,
                SERVER_ROOT,
                SERVER_COMMON_ROOT,
            ],
            capture_output=True,
            text=True,
        ).stdout.strip()
        if dirty:
            commit += "+local-changes"
    return KafkaSource(path=path, commit=commit)


def tool_files() -> list[Path]:
    """This tool's Java: the driver, the server side and the stand-ins (part of the cache key)."""
    return [*sorted(HERE.glob("*.java")), *sorted((HERE / "standins").rglob("*.java"))]


def classpath_jars(m2: Path) -> list[Path]:
    jars = [m2 / j for j in JARS]
    missing = [str(j) for j in jars if not j.is_file()]
    if missing:
        raise SystemExit("kafka_differential: error: missing from the Maven cache: " + ", ".join(missing))
    return jars


def cache_root() -> Path:
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "kafka_differential"


def build(source: KafkaSource, jars: list[Path], javac: str, rebuild: bool) -> Path:
    """Compile Kafka's assignors, the stand-ins and the driver; return the classes folder (cached).

    The build happens in a private folder renamed into place when javac succeeds, so a concurrent run
    never sees half a build.
    """
    digest = hashlib.sha256("\0".join(source.resolve()).encode() + b"\0")  # which of Kafka's files
    for f in tool_files():
        digest.update(str(f.relative_to(HERE)).encode() + b"\0" + f.read_bytes() + b"\0")
    key = f"{source.content_key()}-{digest.hexdigest()[:12]}"
    root = cache_root() / key
    if (root / "BUILT").is_file() and not rebuild:
        print(f"build: cached in {root}", file=sys.stderr)
        return root / "classes"
    root.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{key}.building-", dir=root.parent))
    (work / "kafka").mkdir()
    source.extract(work / "kafka")
    shutil.copytree(HERE / "standins", work / "standins")
    for f in sorted(HERE.glob("*.java")):
        shutil.copy2(f, work / f.name)
    sources = sorted(p.relative_to(work).as_posix() for p in (work / "kafka").rglob("*.java"))
    sources += sorted(p.relative_to(work).as_posix() for p in (work / "standins").rglob("*.java"))
    sources += sorted(f.name for f in HERE.glob("*.java"))
    (work / "sources.txt").write_text("\n".join(sources) + "\n")
    (work / "classes").mkdir()
    started = time.monotonic()
    command = [javac, "-nowarn", "-encoding", "UTF-8", "-d", "classes", "-cp", os.pathsep.join(map(str, jars))]
    result = subprocess.run([*command, "@sources.txt"], cwd=work, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"kafka_differential: error: javac failed (sources in {work})")
    (work / "BUILT").write_text(f"{source.describe()}\n{' '.join(command)} @sources.txt\n")
    if root.exists():
        shutil.rmtree(root)  # --rebuild, or a stale half of an older layout
    try:
        work.rename(root)
    except OSError:  # another run finished the same build first: use theirs
        shutil.rmtree(work, ignore_errors=True)
    print(f"build: compiled {len(sources)} files in {time.monotonic() - started:.1f} s into {root}", file=sys.stderr)
    return root / "classes"


# -- the JVM ---------------------------------------------------------------------------------------------------


class Jvm:
    """One long-lived ``Driver``: requests written by a thread, answers read in order."""

    def __init__(self, java: str, classes: Path, jars: list[Path], log: Path) -> None:
        self.log_path = log
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            # Full exception messages every time (HotSpot drops them for an exception thrown often at one site).
            [
                java,
                "-XX:-OmitStackTraceInFastThrow",
                "-cp",
                os.pathsep.join([str(classes), *map(str, jars)]),
                DRIVER_CLASS,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self._next_id = 0

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self._log.flush()
            tail = self.log_path.read_text(errors="replace")[-2000:]
            raise SystemExit(
                f"kafka_differential: error: the JVM exited ({self.proc.poll()}); its stderr ends:\n{tail}"
            )
        answer = json.loads(line)
        if "fatal" in answer:
            raise SystemExit(f"kafka_differential: error: the driver could not read a scenario: {answer['fatal']}")
        return answer

    def stream(self, scenarios: list[dict], assignors: list[str], server_orders: dict | None = None) -> Iterable[dict]:
        """Kafka's answers to ``scenarios``, in order (written from a thread so neither pipe fills up)."""

        def write() -> None:
            try:
                for i, scenario in enumerate(scenarios):
                    request = {"id": i, "scenario": scenario, "assignors": assignors}
                    if server_orders:
                        request["server_orders"] = server_orders
                    self.proc.stdin.write(json.dumps(request).encode() + b"\n")
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        for i in range(len(scenarios)):
            answer = self._read()
            if answer["id"] != i:
                raise SystemExit(f"kafka_differential: error: answer {answer['id']} came for request {i}")
            yield answer
        writer.join()

    def ask(self, scenario: dict, assignors: list[str], server_orders: dict | None = None) -> dict:
        """One scenario, synchronously (shrinking, diagnosis); ``server_orders``: see ServerAssignors.Orders."""
        self._next_id += 1
        ident = f"ask-{self._next_id}"
        request = {"id": ident, "scenario": scenario, "assignors": assignors}
        if server_orders:
            request["server_orders"] = server_orders
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        answer = self._read()
        if answer["id"] != ident:
            raise SystemExit(f"kafka_differential: error: answer {answer['id']} came for request {ident}")
        return answer

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
        if self.proc.returncode == 0:
            self.log_path.unlink(missing_ok=True)  # only SLF4J's "no binding" notice


# -- scenarios -------------------------------------------------------------------------------------------------


def _name(rng: random.Random, used: set[str], style: str) -> str:
    """A fresh member or topic name: short ids, Kafka-like ids, or random strings (they decide Java's hash order)."""
    while True:
        if style == "short":
            name = rng.choice(string.ascii_lowercase) + str(rng.randrange(10))
        elif style == "kafka":
            name = f"consumer-{rng.randrange(1, 20)}-{rng.randrange(16**4):04x}"
        else:
            name = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(1, 6)))
        if name not in used:
            used.add(name)
            return name


def generate(seed: int, index: int, max_partitions: int = 8) -> dict:
    """Scenario ``index`` of run ``seed`` (each one reproducible alone; the same for every ``max_partitions``
    up to the partition counts drawn, so the default 8 gives the scenarios of before the option)."""
    rng = random.Random(f"kafka_differential/{seed}/{index}")
    # Topics: 1-4, 1-max_partitions (8) partitions each; racks on some of them.
    topic_style = rng.choice(["plain", "short", "random"])
    used: set[str] = set()
    topic_names = [
        f"t{i}" if topic_style == "plain" else _name(rng, used, topic_style) for i in range(rng.randint(1, 4))
    ]
    counts = {t: rng.randint(1, max_partitions) for t in topic_names}
    rack_pool = ["r0", "r1", "r2"][: rng.randint(1, 3)] if rng.random() < 0.45 else []
    topics: dict = {}
    for t in topic_names:
        if rack_pool and rng.random() < 0.7:
            racks = []
            for _ in range(counts[t]):
                k = rng.choice([0, 1, 1, 1, 2, 2, 3]) if rng.random() < 0.95 else 0
                racks.append(sorted(rng.sample(rack_pool, min(k, len(rack_pool)))))
            topics[t] = {"partitions": counts[t], "racks": racks}
        else:
            topics[t] = counts[t]
    # Members: 1-8, subscriptions all equal about half the time (the constrained builder), else differing.
    n_members = rng.randint(1, 8)
    member_style = rng.choice(["short", "kafka", "random"])
    used = set()
    member_ids = [_name(rng, used, member_style) for _ in range(n_members)]
    all_equal = rng.random() < 0.5
    common = sorted(rng.sample(topic_names, rng.randint(1, len(topic_names))))
    subscriptions = {}
    for m in member_ids:
        subs = list(common) if all_equal else sorted(rng.sample(topic_names, rng.randint(1, len(topic_names))))
        if rng.random() < 0.03:
            subs.append("missing-topic")  # a subscription to a topic the cluster does not have
        subscriptions[m] = subs
    # Claims: a previous generation's assignment, some members stale, some partitions claimed twice.
    members: dict = {m: {"topics": subscriptions[m]} for m in member_ids}
    if rng.random() < 0.75:
        generation = rng.randint(1, 6)
        gens = {}
        for m in member_ids:
            r = rng.random()
            gens[m] = (
                generation
                if r < 0.6
                else generation - rng.randint(1, 2)
                if r < 0.8
                else None
                if r < 0.92
                else -1
                if r < 0.95
                else generation + 1
            )
        owned: dict[str, dict[str, list[int]]] = {m: {} for m in member_ids}
        # The previous owners: everyone, all but one or two (they joined since), or any subset.
        k = rng.choice([n_members, n_members - 1, n_members - 1, n_members - 2, rng.randint(1, n_members)])
        claimants = rng.sample(member_ids, max(k, 1)) if rng.random() < 0.95 else []
        every = [(t, p) for t in topic_names for p in range(counts[t])]
        if rng.random() < 0.5:  # a balanced previous assignment dealt among the claimants, a few partitions lost
            if rng.random() < 0.5:
                rng.shuffle(every)
            unclaimed = rng.choice([0.0, 0.0, 0.1, 0.25])
            previous = [(tp, [claimants[k % len(claimants)]]) for k, tp in enumerate(every) if claimants]
            previous = [(tp, holders) for tp, holders in previous if rng.random() >= unclaimed]
        else:  # each partition with a random previous owner, some with none
            previous = [(tp, [rng.choice(claimants)]) for tp in every if claimants and rng.random() >= 0.2]
        for (t, p), holders in previous:
            if rng.random() < 0.1:  # a conflicting claim (equal or different generation)
                holders.append(rng.choice(claimants))
            for h in holders:
                owned[h].setdefault(t, [])
                if p not in owned[h][t]:
                    owned[h][t].append(p)
        for m in member_ids:
            if owned[m]:
                members[m]["owned"] = {t: sorted(ps) for t, ps in sorted(owned[m].items())}
            if gens[m] is not None and (owned[m] or rng.random() < 0.5):
                members[m]["generation"] = gens[m]
    # Racks on some members, static members.
    for m in member_ids:
        if rack_pool and rng.random() < 0.7:
            members[m]["rack"] = rng.choice(rack_pool + ["elsewhere"] if rng.random() < 0.1 else rack_pool)
        if rng.random() < 0.25:
            members[m]["instance_id"] = f"instance-{rng.randrange(1000)}-{m}"
    return {"topics": topics, "members": {m: members[m] for m in sorted(members)}}


def shuffled_members(scenario: dict, seed: int, index: int) -> dict:
    """``scenario`` with its members listed in a random order (the group's join order), from a stream of its own."""
    rng = random.Random(f"kafka_differential/{seed}/{index}/join-order")
    order = list(scenario["members"])
    rng.shuffle(order)
    return {**scenario, "members": {m: scenario["members"][m] for m in order}}


def kafka_uuid(rng: random.Random, taken: Iterable[str] = ()) -> str:
    """A random Kafka topic id as ``Uuid.toString()`` prints it (URL-safe base64 of 16 bytes, no padding).

    As ``Uuid.randomUuid()`` draws it: the 16 bytes of a version-4 ``java.util.UUID`` (version and variant bits
    set), redrawn when the text starts with ``-`` (Kafka's rule; the reserved all-zero and ``ONE_UUID`` ids
    cannot have version 4).  ``taken``: ids already given in the scenario (redrawn, never repeated).
    """
    while True:
        raw = bytearray(rng.getrandbits(128).to_bytes(16, "big"))
        raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
        raw[8] = (raw[8] & 0x3F) | 0x80  # IETF variant
        text = base64.urlsafe_b64encode(bytes(raw)).decode("ascii").rstrip("=")
        if not text.startswith("-") and text not in taken:
            return text


def topic_ids(seed: int, index: int, topics: Iterable[str]) -> dict[str, str]:
    """Scenario ``index``'s topic ids: a random ``Uuid`` per topic, from a stream of their own (the scenario
    drawn by :func:`generate` does not change)."""
    rng = random.Random(f"kafka_differential/{seed}/{index}/topic-ids")
    ids: dict[str, str] = {}
    for t in topics:
        ids[t] = kafka_uuid(rng, ids.values())
    return ids


def with_ids(scenario: dict, ids: dict[str, str]) -> dict:
    """``scenario`` with each topic's ``"id"`` (the topic as ``{"partitions": N, "racks": ..., "id": ...}``)."""
    topics = {}
    for t, spec in scenario["topics"].items():
        spec = {"partitions": spec} if isinstance(spec, int) else dict(spec)
        spec["id"] = ids[t]
        topics[t] = spec
    return {**scenario, "topics": topics}


def without_ids(scenario: dict) -> dict:
    """``scenario`` without topic ids (a topic of only a partition count back to a plain count)."""
    topics = {}
    for t, spec in scenario["topics"].items():
        if isinstance(spec, dict) and "id" in spec:
            spec = {k: v for k, v in spec.items() if k != "id"}
            if set(spec) == {"partitions"}:
                spec = spec["partitions"]
        topics[t] = spec
    return {**scenario, "topics": topics}


def _ports_read_topic_ids() -> bool:
    """Whether ``Problem.from_mapping`` accepts a topic's ``"id"`` (checked by trying): then the ports get it."""
    probe = {"topics": {"t": {"partitions": 1, "id": "AAAAAAAAAAAAAAAAAAAAAg"}}, "members": {}}  # Uuid(0, 2)
    try:
        Problem.from_mapping(probe)
    except Exception:
        return False
    return True


PORTS_READ_TOPIC_IDS = _ports_read_topic_ids()


def ports_view(scenario: dict) -> dict:
    """The scenario as the ports are given it: topic ids only when ``Problem.from_mapping`` accepts them."""
    return scenario if PORTS_READ_TOPIC_IDS else without_ids(scenario)


def size(scenario: dict) -> tuple[int, int, int, int]:
    """Smaller is simpler: members, then partitions, then topics, then claims."""
    partitions = sum(t if isinstance(t, int) else t["partitions"] for t in scenario["topics"].values())
    claims = sum(len(ps) for m in scenario["members"].values() for ps in m.get("owned", {}).values())
    return (len(scenario["members"]), partitions, len(scenario["topics"]), claims)


# -- the ports -------------------------------------------------------------------------------------------------


def normalise(assignment: dict, members: Iterable[str]) -> dict:
    """{member: {topic: sorted partitions}} for every member, empty topics left out."""
    out = {m: {} for m in members}
    for m, topics in assignment.items():
        out[m] = {t: sorted(ps) for t, ps in sorted(topics.items()) if ps}
    return {m: out[m] for m in sorted(out)}


def _literal(literal: bool) -> dict:
    """``literal=True`` for the sticky ports only when asked (the keyword is newer than the ports' first version)."""
    return {"literal": True} if literal else {}


def cooperative_first(problem: Problem, order: str, literal: bool = False):
    """The cooperative port's FIRST rebalance (Kafka's ``assign`` is one rebalance).

    ``rebalance_cooperative`` runs the follow-up rebalances too and raises ``AssignorDidNotFinish`` when the
    group has not settled after ``MAX_REBALANCES``; its first phase is then computed alone, by the same two
    functions ``rebalance_cooperative`` hands to ``cooperative_sticky.rebalance``.
    """
    try:
        return kafka4_sticky.rebalance_cooperative(problem, iteration_order=order, **_literal(literal)).first
    except AssignorDidNotFinish:
        return cooperative_sticky._one_rebalance(
            problem,
            lambda p: kafka4_sticky.assign(p, iteration_order=order, **_literal(literal)),
            lambda p: kafka4_sticky.believed_holdings(p, order, **_literal(literal)),
        ).assignment


#: ``--joining``: ``"last"`` makes the last listed member, when it claims nothing, the one joining.
JOINING = "none"


def uniform_keywords(order: str, problem: Problem | None = None) -> dict:
    """``uniform.assign``'s keywords: the variant of :data:`UNIFORM_PORT` and the iteration order, each only if
    the port takes it; in Java's order with ``--joining last``, the joining member."""
    keywords: dict = {"iteration_order": order} if UNIFORM_HAS_ORDER else {}
    if JOINING == "last" and order == "java" and problem is not None:
        owns = {m.member_id: bool(m.owned) for m in problem.members}
        keywords["joining"] = joining_member(problem.join_order, owns.__getitem__)
    if UNIFORM_HAS_VARIANT:
        keywords["variant"] = UNIFORM_PORTS[UNIFORM_PORT]
    elif UNIFORM_PORT != "uniform":
        raise SystemExit(f"kafka_differential: error: uniform.assign has no variant keyword (no {UNIFORM_PORT} port)")
    return keywords


def port_answers(
    scenario: dict, assignors: list[str], orders: list[str], literal: bool = False
) -> dict[tuple[str, str], dict]:
    """The ports' answers, per (assignor, iteration order): {"assignment": ...} or {"error": ...}.

    Only the orders the port has (:func:`port_orders`); topic ids reach the ports only if they read them.
    """
    problem = Problem.from_mapping(ports_view(scenario))
    members = list(scenario["members"])
    runs: dict[str, Callable[[str], object]] = {
        "range": lambda order: range_assignor.assign(problem),
        "roundrobin": lambda order: roundrobin.assign(problem),
        "sticky": lambda order: kafka4_sticky.assign(problem, iteration_order=order, **_literal(literal)),
        "cooperative-sticky": lambda order: cooperative_first(problem, order, literal),
        "uniform": lambda order: uniform.assign(problem, **uniform_keywords(order, problem)),
        "server-range": lambda order: server_range.assign(problem),
    }
    answers = {}
    for name in assignors:
        cache = None
        for order in orders:
            if order not in port_orders(name):
                continue
            if name in ORDERLESS and cache is not None:
                answers[name, order] = cache  # order-independent: computed once
                continue
            try:
                answers[name, order] = {"assignment": normalise(runs[name](order).to_mapping(), members)}
            except Exception as e:  # the port refusing is a result to compare, not a crash of the tool
                answers[name, order] = {"error": f"{type(e).__name__}: {e}"}
            cache = answers[name, order]
    return answers


def java_result(answer: dict, name: str, members: Iterable[str]) -> dict:
    result = answer[name]
    if "assignment" in result:
        return {"assignment": normalise(result["assignment"], members)}
    return result


def agree(java: dict, port: dict) -> bool:
    if "assignment" in java and "assignment" in port:
        return java["assignment"] == port["assignment"]
    # Both refuse, with the same exception (by simple class name: Kafka's java.lang.NullPointerException is
    # the literal port's NullPointerException).
    return "error" in java and "error" in port and _exception(java["error"]) == _exception(port["error"])


def _exception(error: str) -> str:
    return error.split(":", 1)[0].rsplit(".", 1)[-1]


def differences(java: dict, port: dict) -> dict:
    """Per member whose assignment differs: what Kafka gives and what the port gives."""
    if "assignment" not in java or "assignment" not in port:
        return {"java": java, "port": port}
    ja, pa = java["assignment"], port["assignment"]
    return {
        m: {"java": ja.get(m, {}), "port": pa.get(m, {})} for m in sorted(set(ja) | set(pa)) if ja.get(m) != pa.get(m)
    }


# -- shrinking -------------------------------------------------------------------------------------------------


def _count(spec) -> int:
    return spec if isinstance(spec, int) else spec["partitions"]


def candidates(scenario: dict) -> Iterable[dict]:
    """Simpler scenarios, one step each (still valid in the generator's terms: every member subscribes)."""
    topics, members = scenario["topics"], scenario["members"]

    def copy() -> dict:
        return json.loads(json.dumps(scenario))

    for m in members:  # drop a member
        s = copy()
        del s["members"][m]
        if s["members"]:
            yield s
    for t in topics:  # drop a topic (its subscriptions and claims)
        s = copy()
        del s["topics"][t]
        ok = bool(s["topics"])
        for mm in s["members"].values():
            mm["topics"] = [x for x in mm["topics"] if x != t]
            ok &= bool(mm["topics"])
            if t in mm.get("owned", {}):
                del mm["owned"][t]
                if not mm["owned"]:
                    del mm["owned"]
        if ok:
            yield s
    for t, spec in topics.items():  # one partition fewer (the last; claims on it dropped)
        n = _count(spec)
        if n > 1:
            s = copy()
            if isinstance(spec, int):
                s["topics"][t] = n - 1
            else:
                s["topics"][t]["partitions"] = n - 1
                if spec.get("racks") is not None:
                    s["topics"][t]["racks"] = s["topics"][t]["racks"][: n - 1]
            for mm in s["members"].values():
                if t in mm.get("owned", {}):
                    mm["owned"][t] = [p for p in mm["owned"][t] if p < n - 1]
                    if not mm["owned"][t]:
                        del mm["owned"][t]
                    if not mm["owned"]:
                        del mm["owned"]
            yield s
    for m, mm in members.items():  # drop a subscription, a claim, a rack, an instance id, a generation
        for t in mm["topics"]:
            if len(mm["topics"]) > 1:
                s = copy()
                s["members"][m]["topics"].remove(t)
                yield s
        for t, ps in mm.get("owned", {}).items():
            for p in ps:
                s = copy()
                s["members"][m]["owned"][t].remove(p)
                if not s["members"][m]["owned"][t]:
                    del s["members"][m]["owned"][t]
                if not s["members"][m]["owned"]:
                    del s["members"][m]["owned"]
                yield s
        for key in ("rack", "instance_id", "generation"):
            if key in mm:
                s = copy()
                del s["members"][m][key]
                yield s
    for t, spec in topics.items():  # racks off a topic, one replica rack off a partition
        if isinstance(spec, dict) and spec.get("racks") is not None:
            s = copy()
            if "id" in spec:
                del s["topics"][t]["racks"]  # the topic keeps its id
            else:
                s["topics"][t] = spec["partitions"]
            yield s
            for p, racks in enumerate(spec["racks"]):
                for r in racks:
                    s = copy()
                    s["topics"][t]["racks"][p].remove(r)
                    yield s
    renames = {m: f"c{i}" for i, m in enumerate(members)}  # plain member names, if the difference survives
    if any(m != n for m, n in renames.items()):
        s = copy()
        s["members"] = {renames[m]: mm for m, mm in members.items()}
        yield s


def shrink(scenario: dict, still_differs: Callable[[dict], bool], budget: int = 3000) -> dict:
    """Greedy: take the first simpler scenario that still differs, until none does (or the budget is spent)."""
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for s in candidates(scenario):
            s["members"] = {m: s["members"][m] for m in sorted(s["members"])}  # members in id order (join order)
            tries += 1
            if still_differs(s):
                scenario, progress = s, True
                break
            if tries >= budget:
                break
    return scenario


# -- diagnosis (server assignors) -----------------------------------------------------------------------------

#: Kafka's answer again with some of its orders replaced by the port's (``ServerAssignors.Orders``): member
#: ids in id order (a LinkedHashMap instead of the HashMap of GroupSpec.memberIds()), topic ids in name order
#: (topic k by name gets Uuid(0, k + 2): every hash order and Uuid.compareTo follow the names), the previous
#: assignments' maps in topic name order, topic ids that compare in name order but hash at random (topic k by
#: name gets Uuid(k + 1, its id's low bits)).
DIAGNOSIS_VARIANTS = {
    "members": {"members": "sorted"},
    "topics": {"topic_ids": "names"},
    "both": {"members": "sorted", "topic_ids": "names"},
    "maps": {"members": "sorted", "assignment_maps": "names"},
    "compare": {"members": "sorted", "topic_ids": "compare-names"},
}

#: What decides a difference of the uniform assignor, by (Kafka's builder, cause): the Java map or comparison
#: (files under group-coordinator/src/main/java/.../coordinator/group/; lines at apache/kafka 1eb7644, then at
#: d79bd50 where they moved).
UNIFORM_CAUSES = {
    ("heterogeneous", "subscription type"): "not an order: Kafka's subscription type counts topic NAMES, a topic "
    "that does not exist included (modern/ModernGroup.java:535, GroupMetadataManager.java:1813), so a member that "
    "also subscribes to a missing topic makes the group heterogeneous; a port that skips missing topics first "
    "runs the homogeneous builder",
    ("homogeneous", "member ids"): "groupSpec.memberIds(), a HashMap<String, ...> of member ids "
    "(modern/TargetAssignmentBuilder.java:329; d79bd50 :403), iterated at "
    "assignor/UniformHomogeneousAssignmentBuilder.java:157 (d79bd50 :159)",
    ("homogeneous", "topic ids (subscribed set)"): "subscribedTopicIds, a HashSet<Uuid> "
    "(UniformHomogeneousAssignmentBuilder.java:99, d79bd50 :98), iterated at :117 (d79bd50 :116; the order of the "
    "unassigned partitions)",
    ("homogeneous", "topic ids (previous assignment)"): "a member's previous assignment, a HashMap<Uuid, Set<Integer>> "
    "(modern/Assignment.java:45, 84), iterated at UniformHomogeneousAssignmentBuilder.java:173 (d79bd50 :178)",
    ("homogeneous", "not an order"): "with partition numbers of 16 and more, likely the HashSet<Integer> of a "
    "member's previous partitions of a topic (Assignment.fromRecord: new HashSet<>), iterated at "
    "UniformHomogeneousAssignmentBuilder.java:181 (d79bd50 :186): an order the diagnosis does not replace; "
    "or a uniform port of another Kafka release (--uniform-port: KAFKA-18688)",
    ("heterogeneous", "member ids"): "memberIds = new ArrayList<>(groupSpec.memberIds()) "
    "(UniformHeterogeneousAssignmentBuilder.java:157, d79bd50 :152): member indices break memberComparator's tie "
    "(:223, d79bd50 :213) and group a topic's partitions by owner (:744, d79bd50 :731)",
    ("heterogeneous", "topic ids (compareTo)"): "Uuid.compareTo, topicComparator's last tie "
    "(UniformHeterogeneousAssignmentBuilder.java:205, d79bd50 :198): topic id order, not a hash order",
    ("heterogeneous", "topic ids (hash order)"): "a hash order over topic ids (not expected: the builder never "
    "iterates one where it shows)",
}


def diagnose(jvm: Jvm, name: str, scenario: dict, port: dict, builder: str | None) -> str:
    """Which of Kafka's orders makes its answer differ from the port's ``port`` on ``scenario``.

    ``"member ids"``: Kafka agrees once members iterate in id order; ``"topic ids (...)"``: once topic ids
    are in name order (for the homogeneous builder, ``previous assignment`` when the previous assignments'
    maps in name order suffice, else ``subscribed set``; for the heterogeneous builder, ``compareTo`` when ids
    that compare in name order but hash at random suffice, else ``hash order``);
    ``"member ids or topic ids"``: either alone suffices; ``"member ids and topic ids (...)"``: both are needed;
    ``"not an order"``: Kafka still differs with all of them in the port's order.  Before any of this,
    ``"subscription type"``: Kafka's builder is not the port's (a member also subscribes to a topic that does
    not exist: Kafka decides the type on topic names, ModernGroup.subscriptionType, and calls the heterogeneous
    builder; the port decides on existing topics and runs the homogeneous one).
    """
    if builder is not None and builder != port_subscription_type(scenario):
        return "subscription type"
    members = list(scenario["members"])
    ok = {
        k: agree(java_result(jvm.ask(scenario, [name], v), name, members), port) for k, v in DIAGNOSIS_VARIANTS.items()
    }
    if not ok["both"]:
        return "not an order"
    if ok["members"] and ok["topics"]:
        return "member ids or topic ids"
    if ok["members"]:
        return "member ids"
    if builder == "homogeneous":
        topic = "topic ids (previous assignment)" if ok["maps"] else "topic ids (subscribed set)"
    elif builder == "heterogeneous" and name == "uniform":
        topic = "topic ids (compareTo)" if ok["compare"] else "topic ids (hash order)"
    else:
        topic = "topic ids"
    return topic if ok["topics"] else "member ids and " + topic


def port_subscription_type(scenario: dict) -> str:
    """The uniform port's builder: homogeneous when all members subscribe to the same topic NAMES, a topic that
    does not exist included (Kafka's ModernGroup.subscriptionType; the port's rule since 59bc6d4, before which it
    counted existing topics only: then "subscription type" differences were found here)."""
    subscriptions = {frozenset(m["topics"]) for m in scenario["members"].values()}
    return "homogeneous" if len(subscriptions) <= 1 else "heterogeneous"


def kafka_has_18688(source: KafkaSource) -> tuple[bool, str]:
    """Whether Kafka's commit has KAFKA-18688 (its homogeneous uniform builder), and how that was decided.

    ``git merge-base --is-ancestor`` c16c240 (apache trunk's commit of the fix); when that is not an ancestor or
    the repository lacks it, a commit whose message names KAFKA-18688 in the history of
    UniformHomogeneousAssignmentBuilder.java (a backport, e.g. d64a970 on the 4.0 branch).
    """
    if source.git_dir is not None:
        git, rev = ["git", f"--git-dir={source.git_dir}"], source.commit
    elif source.commit is not None:
        git, rev = ["git", "-C", str(source.path)], "HEAD"
    else:
        raise SystemExit(
            "kafka_differential: error: the Kafka checkout is not a git repository: say which uniform port to "
            "compare with --uniform-port uniform (Kafka with KAFKA-18688) or uniform-4.0.0 (without)"
        )
    ancestor = subprocess.run([*git, "merge-base", "--is-ancestor", KAFKA_18688, rev], capture_output=True)
    if ancestor.returncode == 0:
        return True, f"KAFKA-18688 ({KAFKA_18688[:7]}) is an ancestor of {rev[:12]}"
    builder = f"{SERVER_ROOT}/org/apache/kafka/coordinator/group/assignor/UniformHomogeneousAssignmentBuilder.java"
    backport = subprocess.run(
        [*git, "log", "-1", "--format=%h", "--grep=KAFKA-18688", rev, "--", builder],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if backport:
        return True, f"KAFKA-18688 is in {rev[:12]}'s history as {backport} (a backport)"
    why = "not an ancestor of" if ancestor.returncode == 1 else "not in the repository, so not an ancestor of"
    return False, f"KAFKA-18688 ({KAFKA_18688[:7]}) is {why} {rev[:12]}, and no commit in its history names it"


# -- main ------------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    agree: int = 0
    total: int = 0
    java_errors: int = 0
    port_errors: int = 0
    smallest: dict | None = None
    #: Server assignors: Kafka's builder (subscription type) -> [agree, total].
    by_type: dict = field(default_factory=dict)
    #: Server assignors: scenarios where Kafka's subscription type is not the port's -> [agree, total].
    type_departs: list = field(default_factory=lambda: [0, 0])
    #: Server assignors: the differing scenarios (index, Kafka's builder), diagnosed after the run.
    differing: list = field(default_factory=list)
    #: Server assignors: Kafka with the port's orders (members by id, topic ids in name order) -> [agree, total],
    #: over all scenarios and over those where Kafka's subscription type is the port's.
    in_port_order: list = field(default_factory=lambda: [0, 0])
    in_port_order_same_type: list = field(default_factory=lambda: [0, 0])


def without_traces(obj):
    """``obj`` without the Java stack traces (kept in the JSON files, too long for one line)."""
    if isinstance(obj, dict):
        return {k: without_traces(v) for k, v in obj.items() if k != "trace"}
    return obj


def one_line(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False)


def _pct(k: int, n: int) -> str:
    return f"{k} / {n} ({100 * k / n:.1f}%)" if n else "0 / 0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/kafka_differential/run.py",
        description="Compare Kafka's client and group coordinator assignors (compiled from source) with this "
        "project's ports on random scenarios.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--kafka", metavar="PATH", help="a Kafka source checkout (folder with clients/src/main/java)")
    where.add_argument("--kafka-git", metavar="DIR", help="a Kafka git dir (bare or .git); needs --commit")
    parser.add_argument("--commit", metavar="REV", help="the commit to read from --kafka-git")
    parser.add_argument("--scenarios", type=int, default=1000, metavar="N", help="random scenarios (default 1000)")
    parser.add_argument(
        "--seed", type=int, default=0, help="the run's seed (default 0); scenario i depends on (seed, i) only"
    )
    parser.add_argument(
        "--max-partitions",
        type=int,
        default=8,
        metavar="N",
        help="partitions per topic drawn from 1..N (default 8; above 15 a partition number can pass the capacity of "
        "a HashSet<Integer>, whose order then stops being ascending)",
    )
    parser.add_argument(
        "--assignors",
        default=",".join(ASSIGNORS),
        help=f"comma-separated, of {', '.join(ASSIGNORS)} (default all six)",
    )
    parser.add_argument(
        "--iteration-order",
        choices=[*ORDERS, "both"],
        default="both",
        help="the ports' member iteration order (default both); range, roundrobin and server-range have none "
        "(one answer shown in both columns)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=str(cache_root() / "reproducers"),
        help="where reproducers go (default $TMPDIR/kafka_differential/reproducers)",
    )
    parser.add_argument("--shrink", action="store_true", help="also shrink each smallest reproducer against the JVM")
    parser.add_argument(
        "--join-order",
        choices=("id", "shuffled"),
        default="id",
        help="the order each scenario lists its members, i.e. the group's join order: by id (default, the "
        "scenarios of earlier runs) or shuffled (a stream of its own per scenario)",
    )
    parser.add_argument(
        "--joining",
        choices=("none", "last"),
        default="none",
        help="the server assignors' member order: every member in the group's TimelineHashMap (none, default), or "
        "the last listed member, when it claims nothing, joining (the OverlayMap's addition, after the others)",
    )
    parser.add_argument(
        "--literal",
        action="store_true",
        help="run the sticky ports with literal=True (Kafka's NullPointerException and empty-first-subscription rule kept)",
    )
    parser.add_argument(
        "--uniform-port",
        choices=["auto", *UNIFORM_PORTS],
        default="auto",
        help="which uniform port Kafka's UniformAssignor is compared with: uniform (today's Kafka, with KAFKA-18688), "
        "uniform-4.0.0 (Kafka 4.0.0, without), or auto (default): uniform when the Kafka commit has KAFKA-18688 "
        f"(git merge-base --is-ancestor {KAFKA_18688[:7]}, or a commit naming it in the builder's history)",
    )
    parser.add_argument("--m2", default=str(Path.home() / ".m2" / "repository"), help="the Maven cache with the jars")
    parser.add_argument("--javac", default="javac")
    parser.add_argument("--java", default="java")
    parser.add_argument("--rebuild", action="store_true", help="ignore the cached build")
    args = parser.parse_args(argv)
    if args.kafka_git is not None and not args.commit:
        parser.error("--kafka-git needs --commit")
    if args.kafka is not None and args.commit:
        parser.error("--commit goes with --kafka-git (a checkout's commit is read from it)")
    if args.scenarios < 1:
        parser.error("--scenarios must be at least 1")
    if args.max_partitions < 1:
        parser.error("--max-partitions must be at least 1")
    assignors = [a.strip() for a in args.assignors.split(",") if a.strip()]
    unknown = [a for a in assignors if a not in ASSIGNORS]
    if unknown or not assignors:
        parser.error(f"--assignors: unknown {', '.join(unknown) or '(none given)'}; known: {', '.join(ASSIGNORS)}")
    orders = list(ORDERS) if args.iteration_order == "both" else [args.iteration_order]
    for tool in (args.javac, args.java):
        if shutil.which(tool) is None:
            parser.error(f"{tool}: not found")

    source = kafka_source(args)
    global UNIFORM_PORT
    uniform_why = ""
    if args.uniform_port != "auto":
        UNIFORM_PORT, uniform_why = args.uniform_port, "--uniform-port"
    elif "uniform" in assignors:
        has_fix, uniform_why = kafka_has_18688(source)
        UNIFORM_PORT = "uniform" if has_fix else "uniform-4.0.0"
    jars = classpath_jars(Path(args.m2))
    classes = build(source, jars, args.javac, args.rebuild)
    print(f"Kafka commit: {source.describe()}")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--", "heuristics"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"ports: assignment-oracle {head.stdout.strip() or '?'}"
        + (" + uncommitted changes in heuristics/" if dirty else "")
        + (", sticky ports with literal=True" if args.literal else "")
    )
    client = [a for a in assignors if a in CLIENT_ASSIGNORS]
    server = [a for a in assignors if a in SERVER_ASSIGNORS]
    if server:
        print(
            "server assignors: random topic ids (Kafka's Uuid) per scenario; "
            + (
                "the ports are given them too (Problem.from_mapping accepts a topic id)"
                if PORTS_READ_TOPIC_IDS
                else "the ports are not given them (Problem.from_mapping refuses a topic id)"
            )
            + ("" if UNIFORM_HAS_ORDER else "; the uniform port has no iteration_order (sorted order only)")
        )
    if "uniform" in assignors:
        variant = UNIFORM_PORTS[UNIFORM_PORT]
        print(
            f"uniform: Kafka's UniformAssignor against the port {UNIFORM_PORT} "
            f"(uniform.assign(p, variant={variant!r}, iteration_order=...)): {uniform_why}"
        )

    scenarios = [generate(args.seed, i, args.max_partitions) for i in range(args.scenarios)]
    if args.join_order == "shuffled":  # the group's join order: the scenario's member order, drawn on its own
        scenarios = [shuffled_members(s, args.seed, i) for i, s in enumerate(scenarios)]
    global JOINING
    JOINING = args.joining
    joining = {"joining": "last"} if args.joining == "last" else None
    # The server assignors' view: every topic with its id (the client assignors get the scenario as it was).
    with_topic_ids = (
        [with_ids(s, topic_ids(args.seed, i, s["topics"])) for i, s in enumerate(scenarios)] if server else scenarios
    )
    tallies = {(a, o): Tally() for a in assignors for o in orders if o in port_orders(a)}
    sensitive: dict[str, Counter] = {a: Counter() for a in assignors}
    server_ports: list[dict] = []  # per scenario, the server ports' answers (compared again below)
    out_dir = Path(args.out)
    jvm = Jvm(args.java, classes, jars, classes.parent / f"jvm-stderr-{os.getpid()}.log")
    started = time.monotonic()
    try:
        for i, answer in enumerate(jvm.stream(with_topic_ids, assignors, joining)):
            for names, scenario in ((client, scenarios[i]), (server, with_topic_ids[i])):
                if not names:
                    continue
                members = list(scenario["members"])
                ports = port_answers(scenario, names, orders, args.literal)
                if names is server:
                    server_ports.append(ports)
                for a in names:
                    java = java_result(answer, a, members)
                    mine = [o for o in orders if (a, o) in tallies]
                    if len(mine) == 2 and a not in ORDERLESS and ports[a, mine[0]] != ports[a, mine[1]]:
                        # Order-sensitive: the port's answers differ by iteration order; which one is Kafka's?
                        sensitive[a][tuple(o for o in mine if agree(java, ports[a, o])) or ("neither",)] += 1
                    kafka_type = answer[a].get("subscription_type")
                    for o in mine:
                        tally = tallies[a, o]
                        port = ports[a, o]
                        tally.total += 1
                        tally.java_errors += "error" in java
                        tally.port_errors += "error" in port
                        same = agree(java, port)
                        tally.agree += same
                        if a in SERVER_ASSIGNORS:
                            counts = tally.by_type.setdefault(kafka_type or "error", [0, 0])
                            counts[0] += same
                            counts[1] += 1
                            if kafka_type is not None and kafka_type != port_subscription_type(scenario):
                                tally.type_departs[0] += same
                                tally.type_departs[1] += 1
                            if not same:
                                tally.differing.append((i, kafka_type))
                        if same:
                            continue
                        if tally.smallest is None or size(scenario) < size(tally.smallest["scenario"]):
                            tally.smallest = {
                                "index": i,
                                "scenario": scenario,
                                "java": java,
                                "port": port,
                                **({"subscription_type": kafka_type} if kafka_type else {}),
                            }
        if server:  # Kafka again on every scenario, in the port's orders: what is left is not an order
            for i, answer in enumerate(jvm.stream(with_topic_ids, server, DIAGNOSIS_VARIANTS["both"])):
                for a in server:
                    java = java_result(answer, a, with_topic_ids[i]["members"])
                    same_type = answer[a].get("subscription_type") == port_subscription_type(with_topic_ids[i])
                    for o in orders:
                        if (a, o) in tallies:
                            same = agree(java, server_ports[i][a, o])
                            for counts in [tallies[a, o].in_port_order] + (
                                [tallies[a, o].in_port_order_same_type] if same_type else []
                            ):
                                counts[0] += same
                                counts[1] += 1
        elapsed = time.monotonic() - started
        print(f"{args.scenarios} scenarios (seed {args.seed}) in {elapsed:.1f} s, one JVM")
        print()
        rows = [["assignor", *(f"{o} order" for o in orders)]]
        for a in assignors:
            row = [f"uniform (port {UNIFORM_PORT})" if a == "uniform" else a]
            for o in orders:
                t = tallies.get((a, o))
                row.append(f"agree {_pct(t.agree, t.total)}" if t else "n/a (the port has no iteration_order)")
            rows.append(row)
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        for row in rows:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        errors = [
            f"{a}/{o}: Kafka threw {t.java_errors}, the port {t.port_errors}"
            for (a, o), t in tallies.items()
            if t.java_errors or t.port_errors
        ]
        if errors:
            print("errors (agreement only when both sides throw the same exception): " + "; ".join(errors))
        for a, counts in sensitive.items():
            if counts:
                which = ", ".join(f"{'+'.join(k)} {v}" for k, v in sorted(counts.items()))
                print(
                    f"{a}: {sum(counts.values())} order-sensitive scenarios (the port's two orders differ); Kafka agrees with: {which}"
                )
        # Server assignors: per builder (Kafka's subscription type), and where Kafka's type is not the port's.
        diagnoses: dict[tuple[str, str], Counter] = {}
        smallest_by_cause: dict[tuple[str, str, str, str], dict] = {}  # (assignor, order, builder, cause)
        for (a, o), t in tallies.items():
            if a not in SERVER_ASSIGNORS or (a in ORDERLESS and o != next(x for x in orders if (a, x) in tallies)):
                continue  # an order-less assignor's answer is the same in every column: reported once
            split = ", ".join(f"{k} agree {_pct(*v)}" for k, v in sorted(t.by_type.items()))
            print(f"{a}/{o} by Kafka's subscription type: {split}")
            # The diagnosis replaces Kafka's orders by sorted ones: it explains the sorted port's differences, not
            # those of a port that already iterates in Java's orders (whose "port's orders" are Kafka's own).
            in_java_order = o == "java" and a not in ORDERLESS
            if not in_java_order:
                print(
                    f"{a}/{o} with Kafka in the port's orders (member ids sorted, topic ids in name order): "
                    f"agree {_pct(*t.in_port_order)}; where Kafka's subscription type is the port's: "
                    f"agree {_pct(*t.in_port_order_same_type)}"
                )
            if t.type_departs[1]:
                print(
                    f"{a}/{o}: {t.type_departs[1]} scenarios where Kafka's subscription type is not the port's: "
                    f"agree {_pct(*t.type_departs)}"
                )
            causes = diagnoses[a, o] = Counter()
            if in_java_order:
                if t.differing:
                    print(
                        f"{a}/{o}: {len(t.differing)} differences, not diagnosed (the port iterates in Java's orders)"
                    )
                continue
            for i, kafka_type in t.differing:
                scenario = with_topic_ids[i]
                port = port_answers(scenario, [a], [o], args.literal)[a, o]
                cause = diagnose(jvm, a, scenario, port, kafka_type)
                causes[kafka_type or "error", cause] += 1
                best = smallest_by_cause.get((a, o, kafka_type or "error", cause))
                if best is None or size(scenario) < size(best["scenario"]):
                    java = java_result(jvm.ask(scenario, [a]), a, scenario["members"])
                    smallest_by_cause[a, o, kafka_type or "error", cause] = {
                        "index": i,
                        "scenario": scenario,
                        "java": java,
                        "port": port,
                        "subscription_type": kafka_type,
                    }
            if causes:
                print(
                    f"{a}/{o}: {sum(causes.values())} differences, each diagnosed by asking Kafka again with its "
                    "member order and/or topic-id orders replaced by the port's:"
                )
                for (kind, cause), n in sorted(causes.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1])):
                    where = (
                        UNIFORM_CAUSES.get((kind, cause.removeprefix("member ids and ")), "") if a == "uniform" else ""
                    )
                    print(f"    {kind}, {cause}: {n}" + (f"  [{where}]" if where else ""))
        print()

        for (a, o), t in tallies.items():
            if t.smallest is None:
                (out_dir / f"{a}.{o}.json").unlink(missing_ok=True)  # not a reproducer of this run
                continue
            s = t.smallest
            doc = {
                "kafka_commit": source.commit,
                "assignor": a,
                **({"uniform_port": UNIFORM_PORT} if a == "uniform" else {}),
                "iteration_order": o,
                "seed": args.seed,
                "scenario_index": s["index"],
                **({"subscription_type": s["subscription_type"]} if "subscription_type" in s else {}),
                "scenario": s["scenario"],
                "java": s["java"],
                "port": s["port"],
                "differences": differences(s["java"], s["port"]),
            }
            if a in SERVER_ASSIGNORS and not (o == "java" and a not in ORDERLESS):
                doc["diagnosis"] = diagnose(jvm, a, s["scenario"], s["port"], s.get("subscription_type"))
            if args.shrink:

                def still_differs(candidate: dict, a: str = a, o: str = o) -> bool:
                    java = java_result(jvm.ask(candidate, [a]), a, candidate["members"])
                    return not agree(java, port_answers(candidate, [a], [o], args.literal)[a, o])

                doc["shrunk"] = _shrunk(jvm, a, o, s["scenario"], still_differs, args.literal)
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{a}.{o}.json"
            path.write_text(json.dumps(doc, indent=2) + "\n")
            print(f"smallest difference {a}/{o} (scenario {s['index']}, {path}): {one_line(s['scenario'])}")
            print(f"    differs: {one_line(without_traces(doc['differences']))}")
            if "diagnosis" in doc:
                print(f"    Kafka's {s.get('subscription_type')} builder; decided by: {doc['diagnosis']}")
            if args.shrink:
                print(f"    shrunk: {one_line(doc['shrunk']['scenario'])}")
                print(f"    shrunk differs: {one_line(without_traces(doc['shrunk']['differences']))}")

        # Server assignors: the smallest difference of each cause, shrunk keeping its cause.
        for a, o in tallies:
            if a in SERVER_ASSIGNORS:
                for stale in out_dir.glob(f"{a}.{o}.*.json"):  # causes of an earlier run
                    stale.unlink()
        for (a, o, kind, cause), s in sorted(smallest_by_cause.items()):
            slug = f"{kind}.{cause}".replace(" ", "-").replace("(", "").replace(")", "")
            doc = {
                "kafka_commit": source.commit,
                "assignor": a,
                **({"uniform_port": UNIFORM_PORT} if a == "uniform" else {}),
                "iteration_order": o,
                "seed": args.seed,
                "scenario_index": s["index"],
                "subscription_type": kind,
                "diagnosis": cause,
                "scenario": s["scenario"],
                "java": s["java"],
                "port": s["port"],
                "differences": differences(s["java"], s["port"]),
            }
            if args.shrink:

                def same_cause(candidate: dict, a: str = a, o: str = o, kind: str = kind, cause: str = cause) -> bool:
                    answer = jvm.ask(candidate, [a])[a]
                    java = java_result({a: answer}, a, candidate["members"])
                    port = port_answers(candidate, [a], [o], args.literal)[a, o]
                    if agree(java, port) or answer.get("subscription_type", "error") != kind:
                        return False
                    return diagnose(jvm, a, candidate, port, answer.get("subscription_type")) == cause

                doc["shrunk"] = _shrunk(jvm, a, o, s["scenario"], same_cause, args.literal)
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"{a}.{o}.{slug}.json"
            path.write_text(json.dumps(doc, indent=2) + "\n")
            print(
                f"smallest {a}/{o} difference of Kafka's {kind} builder decided by {cause} (scenario {s['index']}, {path}):"
            )
            print(f"    {one_line(s['scenario'])}")
            print(f"    differs: {one_line(without_traces(doc['differences']))}")
            if args.shrink:
                print(f"    shrunk: {one_line(doc['shrunk']['scenario'])}")
                print(f"    shrunk differs: {one_line(without_traces(doc['shrunk']['differences']))}")
    finally:
        jvm.close()
    return 0


def _shrunk(jvm: Jvm, a: str, o: str, scenario: dict, still_differs: Callable[[dict], bool], literal: bool) -> dict:
    """``scenario`` shrunk while ``still_differs``, with Kafka's and the port's answers on it."""
    small = shrink(scenario, still_differs)
    answer = jvm.ask(small, [a])
    java = java_result(answer, a, small["members"])
    port = port_answers(small, [a], [o], literal)[a, o]
    doc = {"scenario": small, "java": java, "port": port, "differences": differences(java, port)}
    if "subscription_type" in answer[a]:
        doc["subscription_type"] = answer[a]["subscription_type"]
    return doc


if __name__ == "__main__":
    sys.exit(main())
