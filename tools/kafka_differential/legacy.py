"""The ports of OLDER Kafka sticky code against Kafka's own Java at the release each port follows (issue 27).

Not part of CI (like ``run.py`` in this folder, whose scenario generator, shrinker and JSON helpers it
reuses): it needs a Kafka git dir with release tags, ``javac``/``java`` 17 and the Jackson/SLF4J jars of a
Maven cache.  See README.md, "Older releases (legacy.py)".

Per target (a port and the Kafka release it follows):

1. build (cached under ``$TMPDIR/kafka_differential/legacy/<release>-<hash of legacy/>/``): ``git archive
   <tag> clients/src/main/java``, then ``javac -implicit:class`` with ``-sourcepath`` = this folder's
   ``legacy/standins`` (first: they win), the driver (``legacy/common`` and ``legacy/api-2.0`` for the
   ``PartitionAssignor`` API before 2.4, ``legacy/api-2.4`` after) and Kafka's tree, compiling only what
   the assignors reach (the Kafka files compiled are listed in the cache's ``kafka-files.txt``);
2. one JVM per target running ``LegacyDriver`` (JSON lines: a scenario in, Kafka's answer out);
3. ``run.generate`` scenarios with what the release cannot express removed (racks and instance ids always:
   no sticky assignor reads them before Kafka 3.5; generations where the release's protocol has none),
   each given to Kafka and to the port, in each iteration order the port has.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (this folder's run.py: generator, shrinker, JSON helpers)

from assignment_oracle.heuristics import constrained_sticky, cooperative_sticky, sticky  # noqa: E402
from assignment_oracle.problem.model import Assignment, Problem  # noqa: E402
from assignment_oracle.problem.ownership import held_partitions  # noqa: E402

HERE = Path(__file__).resolve().parent
LEGACY = HERE / "legacy"
DEFAULT_GIT = "/work/.mirror/apache+kafka/repo"
DRIVER_CLASS = "org.apache.kafka.clients.consumer.LegacyDriver"
KAFKA_ROOT = "clients/src/main/java"


#: ``--literal``: in Java's order, ports that take ``literal`` get ``literal=True`` (Kafka's exceptions kept).
LITERAL = False


def _with_order(function: Callable[..., Assignment], problem: Problem, order: str, **kwargs) -> Assignment:
    """``function(problem, **kwargs)``, with ``iteration_order=order`` unless it is the default ``sorted``
    (and ``literal=True`` in Java's order under ``--literal``, if ``function`` takes it)."""
    if order != "sorted":
        kwargs["iteration_order"] = order
        if LITERAL and "literal" in inspect.signature(function).parameters:
            kwargs["literal"] = True
    return function(problem, **kwargs)


def _has_order(function: Callable) -> bool:
    return "iteration_order" in inspect.signature(function).parameters


def _cooperative_first(problem: Problem, order: str) -> Assignment:
    """The cooperative port's FIRST rebalance (Kafka's ``assign`` is one rebalance); computed alone, so that a
    group that does not settle within ``MAX_REBALANCES`` still gets its first answer."""
    kwargs = {} if order == "sorted" else {"iteration_order": order}
    if kwargs:
        return cooperative_sticky.rebalance(problem, **kwargs).first
    return cooperative_sticky._one_rebalance(problem, sticky.assign, held_partitions).assignment


@dataclass(frozen=True)
class Target:
    """A port and the Kafka release it is judged against."""

    name: str  # the row's name: the registry name, and a variant in brackets
    release: str  # a tag of apache/kafka
    api: str  # "2.0": PartitionAssignor (before 2.4); "2.4": ConsumerPartitionAssignor
    assignor: str  # Kafka's class: "sticky" (StickyAssignor) or "cooperative-sticky"
    user_data: str  # "v0" (no generation field) or "v1"
    port: Callable[[Problem, str], Assignment]  # (problem, iteration order)
    orders: tuple[str, ...]
    drop: tuple[str, ...]  # member keys the release cannot express, removed from every scenario
    why: str


def _targets() -> list[Target]:
    coop_orders = ("sorted", "java") if _has_order(cooperative_sticky.rebalance) else ("sorted",)
    sticky_orders = ("sorted", "java") if _has_order(sticky.assign) else ("sorted",)
    kip54_orders = ("sorted", "java") if _has_order(sticky.assign_kip54) else ("sorted",)
    constrained_orders = ("sorted", "java") if _has_order(constrained_sticky.assign) else ("sorted",)
    return [
        Target(
            "sticky-kip54",
            "2.0.1",
            "2.0",
            "sticky",
            "v0",
            lambda p, o: _with_order(sticky.assign_kip54, p, o),
            kip54_orders,
            ("rack", "instance_id", "generation"),
            "the last 2.0 release; StickyAssignor is the same algorithm from 0.11.0 (KAFKA-5277) to 2.2.2: "
            "KIP-341 (3e8a10e) first shipped in 2.3.0; V0 user data carries no generation",
        ),
        Target(
            "sticky",
            "2.3.1",
            "2.0",
            "sticky",
            "v1",
            lambda p, o: _with_order(sticky.assign, p, o),
            sticky_orders,
            ("rack", "instance_id"),
            "KIP-341 (apache/kafka 3e8a10e, KAFKA-7026) first shipped in 2.3.0, not 2.1; 2.3.1 is the last "
            "release of the standalone StickyAssignor (2.4 moved it into AbstractStickyAssignor)",
        ),
        Target(
            "sticky[ties=first-claimant]",
            "2.3.1",
            "2.0",
            "sticky",
            "v1",
            lambda p, o: _with_order(sticky.assign, p, o, ties="first-claimant"),
            sticky_orders,
            ("rack", "instance_id"),
            "the port's replay of the release's tie rule (first claimant at the top generation keeps it)",
        ),
        Target(
            "cooperative-sticky",
            "2.4.1",
            "2.4",
            "cooperative-sticky",
            "v1",
            _cooperative_first,
            coop_orders,
            ("rack", "instance_id", "generation"),
            "KIP-429 shipped in 2.4.0; 2.4.1 runs the general path for every group (the constrained path came "
            "in 2.7.0) and its CooperativeStickyAssignor reads ownedPartitions only (MemberData with no "
            "generation): generations are dropped",
        ),
        Target(
            "constrained-sticky",
            "3.4.0",
            "2.4",
            "sticky",
            "v1",
            lambda p, o: _with_order(constrained_sticky.assign, p, o),
            constrained_orders,
            ("rack", "instance_id"),
            "the last release of the whole-member generation rule the port keeps (KAFKA-14639 changed it in "
            "3.4.1/3.5.0); the eager StickyAssignor, constrained path when all subscriptions are equal",
        ),
        Target(
            "constrained-sticky@2.8.0",
            "2.8.0",
            "2.4",
            "sticky",
            "v1",
            lambda p, o: _with_order(constrained_sticky.assign, p, o),
            constrained_orders,
            ("rack", "instance_id"),
            "the release whose constrainedAssign the port's docstring compares itself with (before "
            "KAFKA-12464's rewrite in 3.0.0)",
        ),
    ]


TARGETS = {t.name: t for t in _targets()}
DEFAULT_TARGETS = [n for n in TARGETS if n != "constrained-sticky@2.8.0"]


# -- scenarios -------------------------------------------------------------------------------------------------


def prepare(scenario: dict, target: Target) -> dict:
    """``scenario`` as the release can express it: topics as partition counts (no racks), member keys of
    ``target.drop`` removed."""
    topics = {t: run._count(spec) for t, spec in scenario["topics"].items()}
    members = {m: {k: v for k, v in spec.items() if k not in target.drop} for m, spec in scenario["members"].items()}
    return {"topics": topics, "members": members}


def identical(scenario: dict) -> bool:
    """All members subscribe to the same topics (as Kafka compares them: raw subscriptions)."""
    return len({frozenset(m["topics"]) for m in scenario["members"].values()}) <= 1


def renamed(scenario: dict) -> dict:
    """Members renamed ``c0``, ``c1``, ... in id order: their String hashes ascend, so every ``HashMap`` of
    member ids (up to 16 members, any capacity >= the count) iterates them in id order, the port's."""
    names = {m: f"c{i}" for i, m in enumerate(scenario["members"])}
    return {**scenario, "members": {names[m]: spec for m, spec in scenario["members"].items()}}


# -- build and JVM ---------------------------------------------------------------------------------------------


def tool_java(api: str) -> list[Path]:
    return [
        *sorted((LEGACY / "standins").rglob("*.java")),
        *sorted((LEGACY / "common").rglob("*.java")),
        *sorted((LEGACY / f"api-{api}").rglob("*.java")),
    ]


def build(git_dir: Path, release: str, api: str, assignor_files: list[str], jars: list[Path], javac: str) -> Path:
    """Compile ``release``'s assignors with the stand-ins and the driver; the classes folder (cached)."""
    commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", f"{release}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    digest = hashlib.sha256(f"{commit}\0{api}\0".encode())
    for f in tool_java(api):
        digest.update(str(f.relative_to(LEGACY)).encode() + b"\0" + f.read_bytes() + b"\0")
    root = run.cache_root() / "legacy" / f"{release}-{digest.hexdigest()[:12]}"
    if (root / "BUILT").is_file():
        return root / "classes"
    root.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{root.name}.building-", dir=root.parent))
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", commit, KAFKA_ROOT], check=True, capture_output=True
    ).stdout
    (work / "kafka").mkdir()
    subprocess.run(["tar", "-x", "-C", str(work / "kafka")], input=archive, check=True)
    kafka = work / "kafka" / KAFKA_ROOT
    paths = [LEGACY / "standins", LEGACY / "common", LEGACY / f"api-{api}", kafka]
    roots = [*(f"{KAFKA_ROOT}/org/apache/kafka/clients/consumer/{f}.java" for f in assignor_files)]
    sources = [str(work / "kafka" / r) for r in roots] + [str(f) for f in tool_java(api) if "standins" not in f.parts]
    (work / "classes").mkdir()
    command = [
        javac,
        "-nowarn",
        "-verbose",
        "-implicit:class",
        "-encoding",
        "UTF-8",
        "-d",
        str(work / "classes"),
        "-cp",
        os.pathsep.join(map(str, jars)),
        "-sourcepath",
        os.pathsep.join(map(str, paths)),
        *sources,
    ]
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write("\n".join(line for line in result.stderr.splitlines() if not line.startswith("[")) + "\n")
        raise SystemExit(f"legacy: error: javac failed for Kafka {release} (sources in {work})")
    parsed = sorted(  # "[parsing started SimpleFileObject[path]]" or "DirectoryFileObject[root:relative path]"
        {
            Path(m.replace(":", "/", 1) if m.startswith(str(kafka) + ":") else m).relative_to(kafka).as_posix()
            for m in re.findall(r"\[parsing started \w+\[(.+?)\]\]", result.stderr)
            if m.startswith(str(kafka))
        }
    )
    (work / "kafka-files.txt").write_text("\n".join(parsed) + "\n")
    shutil.rmtree(work / "kafka")
    (work / "BUILT").write_text(f"Kafka {release} ({commit})\n")
    try:
        work.rename(root)
    except OSError:  # another run finished the same build first
        shutil.rmtree(work, ignore_errors=True)
    print(
        f"build: Kafka {release}: {len(parsed)} of Kafka's files compiled in {time.monotonic() - started:.1f} s "
        f"into {root}",
        file=sys.stderr,
    )
    return root / "classes"


class Jvm:
    """One ``LegacyDriver``: requests written by a thread, answers read in order."""

    def __init__(self, java: str, classes: Path, jars: list[Path]) -> None:
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
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
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def _read(self) -> dict:
        line = self.stdout.readline()
        if not line:
            self._log.seek(0)
            raise SystemExit(f"legacy: error: the JVM exited:\n{self._log.read()[-2000:].decode(errors='replace')}")
        answer = json.loads(line)
        if "fatal" in answer:
            raise SystemExit(f"legacy: error: the driver could not read a scenario: {answer['fatal']}")
        return answer

    def stream(self, requests: list[dict]) -> Iterable[dict]:
        def write() -> None:
            try:
                for i, request in enumerate(requests):
                    self.stdin.write(json.dumps({"id": i, **request}).encode() + b"\n")
                self.stdin.flush()
            except BrokenPipeError:
                pass

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        for _ in requests:
            yield self._read()
        writer.join()

    def ask(self, request: dict) -> dict:
        self.stdin.write(json.dumps({"id": "ask", **request}).encode() + b"\n")
        self.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


# -- comparing ---------------------------------------------------------------------------------------------------


def kafka_answer(jvm: Jvm, target: Target, scenario: dict) -> dict:
    return _result(jvm.ask(request(target, scenario)), scenario)


def request(target: Target, scenario: dict) -> dict:
    return {"scenario": scenario, "assignor": target.assignor, "user_data": target.user_data}


def _result(answer: dict, scenario: dict) -> dict:
    if "assignment" in answer:
        return {"assignment": run.normalise(answer["assignment"], scenario["members"])}
    return {"error": answer["error"], "trace": answer.get("trace", "")}


def port_answer(target: Target, scenario: dict, order: str) -> dict:
    try:
        assignment = target.port(Problem.from_mapping(scenario), order)
        return {"assignment": run.normalise(assignment.to_mapping(), scenario["members"])}
    except Exception as e:  # the port refusing is an answer to compare
        return {"error": f"{type(e).__name__}: {e}"}


@dataclass
class Tally:
    agree: int = 0
    total: int = 0
    by_kind: dict = field(default_factory=lambda: {True: [0, 0], False: [0, 0]})  # identical subscriptions?
    java_errors: Counter = field(default_factory=Counter)
    port_errors: Counter = field(default_factory=Counter)
    #: differences per cause (:func:`cause`)
    causes: Counter = field(default_factory=Counter)
    #: the smallest differing scenario per cause
    smallest: dict = field(default_factory=dict)


#: What a difference is put down to, checked in this order.
CAUSES = {
    "kafka-error": "Kafka throws, the port answers (or the other way round)",
    "member-order": "Kafka agrees once members are renamed c0, c1, ... in id order (Java's member HashMap order "
    "is then the port's id order)",
    "double-claim": "a partition claimed by two or more members (the release's tie rule: which claimant keeps it)",
    "other": "none of the above: a partition order of Kafka's (HashMap<TopicPartition>, HashSet), or a rule of "
    "the port's that is not the release's",
}


def cause(target: Target, jvm: Jvm, scenario: dict, java: dict, port: dict, order: str) -> str:
    if ("error" in java) != ("error" in port) or ("error" in java and "error" in port):
        return "kafka-error"
    small = renamed(scenario)
    if run.agree(kafka_answer(jvm, target, small), port_answer(target, small, order)):
        return "member-order"
    claims = Counter((t, p) for m in scenario["members"].values() for t, ps in m.get("owned", {}).items() for p in ps)
    if any(n > 1 for n in claims.values()):
        return "double-claim"
    return "other"


def _pct(k: int, n: int) -> str:
    return f"{k} / {n} ({100 * k / n:.1f}%)" if n else "0 / 0"


def compare(target: Target, jvm: Jvm, scenarios: list[dict], shrink: bool, out_dir: Path) -> dict[str, Tally]:
    prepared = [prepare(s, target) for s in scenarios]
    tallies = {o: Tally() for o in target.orders}
    answers = list(jvm.stream([request(target, s) for s in prepared]))  # all read before any ask below
    for i, answer in enumerate(answers):
        scenario = prepared[i]
        java = _result(answer, scenario)
        kind = identical(scenario)
        for o, t in tallies.items():
            port = port_answer(target, scenario, o)
            same = run.agree(java, port)
            t.total += 1
            t.agree += same
            t.by_kind[kind][0] += same
            t.by_kind[kind][1] += 1
            if "error" in java:
                t.java_errors[run._exception(java["error"])] += 1
            if "error" in port:
                t.port_errors[run._exception(port["error"])] += 1
            if same:
                continue
            why = cause(target, jvm, scenario, java, port, o)
            t.causes[why] += 1
            best = t.smallest.get(why)
            if best is None or run.size(scenario) < run.size(best["scenario"]):
                t.smallest[why] = {"index": i, "scenario": scenario, "java": java, "port": port}
    for o, t in tallies.items():
        for why, s in t.smallest.items():
            s["differences"] = run.differences(s["java"], s["port"])
            if shrink:

                def same_cause(candidate: dict, o: str = o, why: str = why) -> bool:
                    java, port = kafka_answer(jvm, target, candidate), port_answer(target, candidate, o)
                    return not run.agree(java, port) and cause(target, jvm, candidate, java, port, o) == why

                small = run.shrink(s["scenario"], same_cause)
                java, port = kafka_answer(jvm, target, small), port_answer(target, small, o)
                s["shrunk"] = {
                    "scenario": small,
                    "java": java,
                    "port": port,
                    "differences": run.differences(java, port),
                }
            out_dir.mkdir(parents=True, exist_ok=True)
            path = out_dir / f"legacy.{target.name}.{o}.{why}.json"
            doc = {"release": target.release, "port": target.name, "order": o, "cause": why, **s}
            path.write_text(json.dumps(doc, indent=2) + "\n")
            s["path"] = str(path)
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/kafka_differential/legacy.py",
        description="Compare the ports of older Kafka sticky assignors with Kafka's Java at the release each follows.",
    )
    parser.add_argument(
        "--kafka-git", default=DEFAULT_GIT, metavar="DIR", help=f"a Kafka git dir (default {DEFAULT_GIT})"
    )
    parser.add_argument("--scenarios", type=int, default=1000, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--targets",
        default=",".join(DEFAULT_TARGETS),
        help=f"comma-separated, of {', '.join(TARGETS)} (default all but constrained-sticky@2.8.0)",
    )
    parser.add_argument("--shrink", action="store_true", help="shrink each smallest difference against the JVM")
    parser.add_argument(
        "--literal", action="store_true", help="in Java's order, ports that take literal run with literal=True"
    )
    parser.add_argument("--out", default=str(run.cache_root() / "reproducers"), metavar="DIR")
    parser.add_argument("--m2", default=str(Path.home() / ".m2" / "repository"))
    parser.add_argument("--javac", default="javac")
    parser.add_argument("--java", default="java")
    args = parser.parse_args(argv)
    global LITERAL
    LITERAL = args.literal
    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in names if n not in TARGETS]
    if unknown or not names:
        parser.error(f"--targets: unknown {', '.join(unknown) or '(none)'}; known: {', '.join(TARGETS)}")
    jars = run.classpath_jars(Path(args.m2))
    scenarios = [run.generate(args.seed, i) for i in range(args.scenarios)]
    print(
        f"{args.scenarios} scenarios (seed {args.seed}, run.py's generator); racks and instance ids dropped"
        + ("; java order literal where a port can be" if args.literal else "")
    )
    rows = [["port", "Kafka", "sorted order", "java order", "identical subs (sorted)", "differing subs (sorted)"]]
    notes = []
    for name in names:
        target = TARGETS[name]
        files = ["StickyAssignor"] + (["CooperativeStickyAssignor"] if target.assignor == "cooperative-sticky" else [])
        classes = build(Path(args.kafka_git), target.release, target.api, files, jars, args.javac)
        jvm = Jvm(args.java, classes, jars)
        started = time.monotonic()
        try:
            tallies = compare(target, jvm, scenarios, args.shrink, Path(args.out))
        finally:
            jvm.close()
        t_sorted = tallies["sorted"]
        rows.append(
            [
                name,
                target.release,
                *(f"{_pct(tallies[o].agree, tallies[o].total)}" if o in tallies else "n/a" for o in ("sorted", "java")),
                _pct(*t_sorted.by_kind[True]),
                _pct(*t_sorted.by_kind[False]),
            ]
        )
        notes.append(f"{name} vs Kafka {target.release} ({time.monotonic() - started:.1f} s): {target.why}")
        for o, t in tallies.items():
            if t.java_errors or t.port_errors:
                notes.append(f"    {o}: Kafka threw {dict(t.java_errors)}, the port {dict(t.port_errors)}")
            if t.causes:
                notes.append(
                    f"    {o}: {t.total - t.agree} differ: "
                    + ", ".join(f"{k} {v}" for k, v in sorted(t.causes.items()))
                )
            for why, s in sorted(t.smallest.items()):
                notes.append(f"    {o}, smallest {why} (scenario {s['index']}, {s['path']}):")
                notes.append(f"      {run.one_line(s['scenario'])}")
                notes.append(f"      differs: {run.one_line(run.without_traces(s['differences']))}")
                if "shrunk" in s:
                    notes.append(f"      shrunk: {run.one_line(s['shrunk']['scenario'])}")
                    notes.append(
                        f"      shrunk differs: {run.one_line(run.without_traces(s['shrunk']['differences']))}"
                    )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    print()
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    print()
    print("\n".join(notes))
    print()
    print("causes: " + "; ".join(f"{k}: {v}" for k, v in CAUSES.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
