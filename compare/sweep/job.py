"""Scenario sweeps on Spark: generate, assign, solve and score at scale, written to Parquet.

:func:`run_sweep` turns a :class:`~compare.sweep.spec.SweepSpec` into a
Parquet dataset under ``DIR/rows`` (partitioned by ``batch``, ``family`` and
``assignor``; schema :data:`compare.sweep.rows.ROW_SCHEMA`), standalone
counterexample JSON files under ``DIR/counterexamples``, and a summary
(``DIR/summary.json``).  Spark runs in local mode by default; the same call
runs on a standalone cluster (``master="spark://host:port"``) or over Spark
Connect (``remote="sc://host:port"``).

How it scales.  A scenario is an index into the spec's grid (grid points ×
seeds); ``spark.range`` makes a chunk's positions, and each Python worker
decodes its indices, generates the scenarios from their seeds, runs the
assignors and the oracle (:func:`compare.sweep.rows.scenario_rows`) and
stages their rows as Parquet (``mapInArrow`` returns only counts).  The
driver holds the spec and the ids of the finished scenarios (to publish
each exactly once; resuming, it lists a chunk's missing indices), loops
over a bounded number of *chunks*, publishes their rows and aggregates the
summary with Spark; only counterexamples (rare by construction) are
streamed back to be written as files.

Exactly once.  The directory's protocol is :mod:`compare.sweep.store`: one
sweep at a time writes ``DIR`` (a lock naming its holder; a lock left by a
killed sweep is taken over); workers stage every finished scenario's rows
(complete files, at least every second of work); the driver publishes them
into ``DIR/rows`` through a journal after each chunk, when stopped (Ctrl-C,
SIGTERM: the Spark job is cancelled, what finished is kept) and, for what a
killed sweep left, at the next start.  A scenario's rows appear whole or not
at all, and never twice (a retried task, a task lost with its worker, a
crash mid-publish).  A rerun of the same spec skips the scenarios ``DIR/rows``
has, so an interrupted sweep resumes exactly.  ``DIR`` remembers its spec
(``DIR/spec.json``): a different spec there is refused.  Spark's own log goes
to ``DIR/spark.log`` (unless ``SPARK_CONF_DIR`` configures it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import math
import os
import re
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from assignment_oracle.compare.judge.text import table
from assignment_oracle.compare.scenarios.share_churn import ASSIGNORS as SHARE_ASSIGNORS
from assignment_oracle.compare.scenarios.streams_churn import ASSIGNORS as STREAMS_ASSIGNORS
from assignment_oracle.compare.sweep import store
from assignment_oracle.compare.sweep.rows import (
    ROW_SCHEMA,
    SHARE_OPTIMUM,
    STREAMS_OPTIMUM,
    TIMING_COLUMNS,
    scenario_rows,
    versions,
)
from assignment_oracle.compare.sweep.spec import SweepSpec, scenario_id
from assignment_oracle.compare.sweep.store import FLUSH_SCENARIOS, FLUSH_SECONDS, stage
from assignment_oracle.heuristics.registry import require_installed
from assignment_oracle.problem.errors import MissingRuntime, SparkFailed, WriteFailed
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.scenario_json import InputError, dumps, write_output
from assignment_oracle.problem.text import lines_text, printable

__all__ = [
    "SweepResult",
    "counterexample_path",
    "run_sweep",
    "spark_session",
    "summarize",
    "read_rows",
    "TIMING_COLUMNS",
]

#: At most this many chunks (Spark jobs) per sweep: progress and resume granularity.
MAX_CHUNKS = 16
#: At least this many scenarios per chunk: each chunk costs a few Spark jobs' overhead.
MIN_CHUNK = 48
#: Scenarios per Spark task, about: small enough to balance load, large enough to amortize.
SCENARIOS_PER_TASK = 4


@dataclass(frozen=True)
class SweepResult:
    """What a sweep did: its directory, counts, and the summary (one entry per assignor)."""

    out: Path
    spec_hash: str
    scenarios: int
    skipped: int
    computed: int
    rows: int
    counterexamples: int
    summary: list[dict] = field(default_factory=list)
    wall_time_s: float = 0.0
    #: What the run found and did about it (a lock taken over, staged scenarios kept): one line each.
    notes: tuple[str, ...] = ()

    def to_mapping(self) -> dict:
        """The JSON ``sweep --json`` prints."""
        return {
            "out": str(self.out),
            "hash": self.spec_hash,
            "scenarios": self.scenarios,
            "skipped": self.skipped,
            "computed": self.computed,
            "rows": self.rows,
            "counterexamples": self.counterexamples,
            "assignors": self.summary,
            "notes": list(self.notes),
        }

    def text(self) -> str:
        """The summary table ``sweep`` prints (one row per assignor)."""

        def pct(value) -> str:
            return "-" if value is None else f"{100 * value:.0f}%"

        def num(value) -> str:
            return "-" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))

        header = (
            "assignor",
            "rows",
            "valid",
            "most bal.",
            "guarantee",
            "KIP-54 gap p50/p90/max",
            "stickiness gap p90/max",
            "timeout/error",
            "time p50/p99",
        )
        rows = [
            (
                e["assignor"],
                str(e["rows"]),
                pct(e["share_valid"]),
                pct(e["share_most_balanced"]),
                pct(e["share_guarantee_kept"]),
                f"{num(e['kip54_gap_p50'])}/{num(e['kip54_gap_p90'])}/{num(e['kip54_gap_max'])}",
                f"{num(e['stickiness_gap_p90'])}/{num(e['stickiness_gap_max'])}",
                f"{e['timeout']}/{e['error']}",
                f"{num(e['time_p50_s'] and round(e['time_p50_s'] * 1000, 1))}/"
                f"{num(e['time_p99_s'] and round(e['time_p99_s'] * 1000, 1))} ms",
            )
            for e in self.summary
        ]
        lines = table(header, rows)
        # One row per scenario-round for the optimum; an assignor with fewer failed a churn round, and a
        # history stops at its assignor's first failed round (what follows depends on what it returned).
        # Streams (share) groups' assignors play the Streams (share) scenarios only: their reference is the
        # Streams (share) optimum's rows.
        counts = {e["assignor"]: e["rows"] for e in self.summary}
        for e in self.summary:
            reference = (
                STREAMS_OPTIMUM
                if e["assignor"] in STREAMS_ASSIGNORS
                else SHARE_OPTIMUM
                if e["assignor"] in SHARE_ASSIGNORS
                else "optimum"
            )
            expected = counts.get(reference)
            if (
                expected
                and e["assignor"] != "scenario"
                and not e["assignor"].startswith("optimum")
                and e["rows"] < expected
            ):
                lines.append(
                    f"{e['assignor']}: {e['rows']} rows where the optimum has {expected}: "
                    f"{expected - e['rows']} churn round(s) not played, a history stops at the "
                    "assignor's first failed round (timeout/error above)"
                )
        lines.append(
            f"{self.scenarios} scenarios ({self.skipped} already done, {self.computed} computed), "
            f"{self.rows} rows, {self.counterexamples} counterexamples, in {self.wall_time_s:.1f} s -> {self.out}"
        )
        return lines_text(lines)


def _require_java() -> None:
    """Spark's driver is a JVM, found the way PySpark finds it (``$JAVA_HOME/bin/java``, else ``java``
    on ``PATH``): without one, one line naming what to install, not PySpark's traceback."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        where = f"JAVA_HOME={home} has no bin/java" if home else "no java on PATH and JAVA_HOME is not set"
        raise MissingRuntime(
            f"sweep runs Spark, which needs Java 17 or later ({where}): install a JDK "
            "(e.g. apt install openjdk-17-jre-headless) or set JAVA_HOME; or use --remote sc://HOST:PORT"
        )


def spark_session(
    master: str = "local[*]",
    remote: str | None = None,
    *,
    app: str = "assignment-oracle sweep",
    log: Path | None = None,
):
    """A Spark session for sweeps: the UI off, Arrow on, this Python on the workers.

    Local mode binds to 127.0.0.1.  With ``remote`` (Spark Connect) the
    server's configuration applies.  With ``log``, the driver's log goes to
    that file instead of the terminal (unless ``SPARK_CONF_DIR`` is set).
    """
    from pyspark.sql import SparkSession

    if remote is not None:
        return SparkSession.builder.remote(remote).appName(app).getOrCreate()
    _require_java()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # The JVM only moves a few rows per scenario (Python does the work), but a cold JVM
    # spent more CPU than the Python workers on a 48-scenario sweep (C2 compiling, adaptive
    # planning, whole-stage code generation), CPU the workers need on a small machine:
    # C1 only, one GC thread, plain plans.  Measured in benchmarks/bench_sweep.py.
    java_options = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    if log is not None and not os.environ.get("SPARK_CONF_DIR"):
        config = Path(__file__).with_name("log4j2-sweep.properties")
        java_options += f" -Dlog4j2.configurationFile=file:{config} -Dassignment_oracle.spark_log={Path(log).resolve()}"
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.task.maxFailures", "4")
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
    )
    if master.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    try:
        with _stderr_to(log if log is not None and not os.environ.get("SPARK_CONF_DIR") else None):
            return builder.getOrCreate()
    except BaseException:
        _kill_spark_children()
        raise


@contextlib.contextmanager
def _stderr_to(log: Path | None):
    """While the JVM starts, file descriptor 2 is ``log`` (appended to): the JVM inherits it as its
    stderr, so what it says outside log4j ("WARNING: Using incubator modules: jdk.incubator.vector" at
    every start, a crash report) goes to the sweep's log with the rest of Spark's output, not between
    the sweep's lines.  This process's own stderr is back as soon as the session is up."""
    if log is None:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        target = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    except OSError:  # the log cannot be written: the JVM keeps this process's stderr
        os.close(saved)
        yield
        return
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


def _kill_spark_children() -> None:
    """End the JVM a session start was launching (stopped by Ctrl-C or SIGTERM, or failed).

    PySpark deletes the folder where that JVM is to say which port it
    listens on; the JVM then never hears from Python, and its py4j server
    thread keeps it alive after this process has gone (holding the
    terminal's output).  Linux: children found in ``/proc``.
    """
    me = str(os.getpid())
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
            if stat[stat.rindex(")") + 2 :].split()[1] != me:
                continue
            if b"org.apache.spark.deploy.SparkSubmit" in (entry / "cmdline").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue


def _spark_schema():
    from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType, StructField, StructType

    types = {"string": StringType(), "int64": LongType(), "bool": BooleanType(), "double": DoubleType()}
    return StructType([StructField(name, types[kind], True) for name, kind in ROW_SCHEMA])


def _arrow_schema():
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(), "double": pa.float64()}
    return pa.schema([(name, types[kind]) for name, kind in ROW_SCHEMA])


def _sweep_hash(out: Path) -> str | None:
    """The spec hash of the sweep in ``out`` (its ``spec.json``, as :func:`_prepare` writes it), ``None``
    when ``out`` is absent or empty; :class:`InputError` when ``out`` holds anything else.

    A sweep writes its own files into ``--out`` (``lock``, ``summary.json``, ``spark.log``, ...): into a
    folder it did not make it would write over a user's files, so such a folder is refused in one line
    before anything is written.
    """
    if not out.is_dir():
        return None
    marker = out / "spec.json"
    if not marker.exists():
        try:  # a spec.json being written (_write_spec_first's temporary file) is not the user's
            empty = not any(not re.fullmatch(r"\.spec\.json\.\d+\.tmp", p.name) for p in out.iterdir())
        except OSError as err:
            raise InputError(str(out), "", f"cannot read the sweep directory ({err.strerror or err})") from None
        if empty:
            return None
        raise InputError(
            str(out),
            "",
            "is not empty and holds no sweep (no spec.json written by assignment-oracle sweep): "
            "a sweep writes only into a new or empty folder, or its own; choose another --out",
        )
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    if not (isinstance(record, dict) and isinstance(record.get("hash"), str) and isinstance(record.get("spec"), dict)):
        raise InputError(str(marker), "", "not a sweep's spec.json; choose another --out")
    return record["hash"]


def _write_spec_first(out: Path, spec: SweepSpec) -> None:
    """A new sweep folder's first file is its ``spec.json`` (the lock comes next), so the folder is a
    sweep's from its first write on, and a sweep killed at any moment leaves a folder it resumes.
    Written whole under a temporary name and linked into place: of two sweeps starting at once in one
    new folder, one spec wins and the other is refused once it holds the lock (:func:`_prepare`)."""
    marker = out / "spec.json"
    if marker.exists():
        return
    temporary = out / f".spec.json.{os.getpid()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(dumps({"hash": spec.hash, "spec": spec.document}))
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, marker)
    except FileExistsError:
        pass
    finally:
        temporary.unlink(missing_ok=True)


def _prepare(out: Path, spec: SweepSpec) -> None:
    """Under the lock: ``out/spec.json`` is this spec's (another is refused)."""
    existing = _sweep_hash(out)
    if existing != spec.hash:
        raise InputError(
            str(out), "", f"holds another sweep (spec hash {existing}, this one {spec.hash}); choose another --out"
        )


def _make_directory(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(str(out), "", "exists and is not a directory; choose another --out") from None
    except OSError as err:
        raise InputError(str(out), "", f"cannot create the sweep directory ({err.strerror or err})") from None
    if not out.is_dir():
        raise InputError(str(out), "", "exists and is not a directory; choose another --out")


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    spark=None,
    master: str = "local[*]",
    remote: str | None = None,
    progress: bool = True,
    stop_after_chunks: int | None = None,
    chunk_size: int | None = None,
) -> SweepResult:
    """Run (or resume) ``spec`` into ``out``; see the module docstring.

    ``spark``: an existing session (else one is made from ``master`` or
    ``remote`` and stopped at the end).  ``chunk_size``: scenarios per Spark
    job (default: the spec split in at most :data:`MAX_CHUNKS`, at least
    :data:`MIN_CHUNK` each).  ``stop_after_chunks`` ends the run early, as
    an interruption would (tests use it to check resuming).  Stopped by
    ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM as the command line delivers
    it), the Spark job is cancelled, every finished scenario is published,
    and the interrupt goes on.
    """
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    for name in spec.assignors:  # before any Spark work: a worker would only fail later, deep in a job
        require_installed(name, f"the sweep's assignor {name}")
    started = time.perf_counter()
    import pyarrow.compute  # noqa: F401  (what publishing needs, loaded now: a stopped sweep publishes at once)
    import pyarrow.dataset  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    out = Path(out).absolute()  # the workers write here: the same folder whatever their working directory
    # Everything that can refuse the sweep is asked before anything is written: a refused sweep leaves
    # no folder, lock or spec.json behind, and never writes into a folder that is not a sweep's.
    if spark is None and remote is None:
        _require_java()
    if out.exists() and not out.is_dir():
        raise InputError(str(out), "", "exists and is not a directory; choose another --out")
    existing = _sweep_hash(out)
    if existing is not None and existing != spec.hash:
        raise InputError(
            str(out), "", f"holds another sweep (spec hash {existing}, this one {spec.hash}); choose another --out"
        )
    try:
        return _run_sweep(spec, out, spark, master, remote, progress, stop_after_chunks, chunk_size, started)
    except BaseException as err:
        failure = _write_failure(err, out)
        if failure is not None:
            raise failure from None
        raise


#: What a sweep stopped by a full disk says after its reason.
RESUME = "the sweep stopped; every scenario finished so far is kept: free some space and run the same command to resume"


def _write_failure(err: BaseException, out: Path) -> WriteFailed | None:
    """A full (or failing) disk under the sweep, met by this process or by a Spark worker, as one line
    (:class:`WriteFailed`, exit 74); ``None`` for any other error."""
    if isinstance(err, WriteFailed):
        return err
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO):
        return WriteFailed(str(out), err.strerror or str(err), RESUME)
    if _from_spark(err):
        text = str(err)
        for reason in ("No space left on device", "Disk quota exceeded", "File too large"):
            if reason in text:
                return WriteFailed(str(out), reason, RESUME)
    return None


def _run_sweep(spec, out: Path, spark, master, remote, progress, stop_after_chunks, chunk_size, started):
    """:func:`run_sweep` once its checks have passed: the folder, its lock and spec, the Spark job."""
    _make_directory(out)
    _write_spec_first(out, spec)
    held = store.lock(out)
    try:
        _prepare(out, spec)
        if any((out / "rows").glob("family=*")):
            raise InputError(
                str(out / "rows"),
                "",
                "was written by an earlier version of assignment-oracle (no batch= folders): "
                "finish it with that version, or choose another --out",
            )
        store.recover(out)
        done = store.published_ids(out)
        recovered = store.publish(out, done)  # what a killed sweep had staged
        notes = [note for note in (store.took_over_text(held),) if note]
        if recovered:
            notes.append(f"kept {recovered} scenario(s) a stopped sweep had finished but not published")
        own_session = spark is None
        if own_session:
            spark = spark_session(master, remote, log=out / "spark.log")
        # PySpark's SIGINT handler cancels the jobs from inside the signal, over the py4j connection the
        # main thread is reading (a reentrant call, logged as a traceback): Ctrl-C is a plain
        # KeyboardInterrupt here, and the jobs are cancelled below, over a connection of their own.
        main = threading.current_thread() is threading.main_thread()
        interrupts = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
        try:
            result = _run(spark, spec, out, done, progress, stop_after_chunks, chunk_size, started)
        except BaseException as err:
            _cancel(spark)
            try:
                store.publish_after_interrupt(out)  # every scenario finished so far is kept, once
            except Exception as publishing:  # the disk is full here too: the rest stays staged for the next run
                if _write_failure(publishing, out) is None:
                    raise
            if _from_spark(err) and _write_failure(err, out) is None:
                raise SparkFailed(f"Spark failed ({_first_line(err)}); its log: {out / 'spark.log'}") from None
            raise
        finally:
            if interrupts is not None:
                signal.signal(signal.SIGINT, interrupts)
            if own_session:
                spark.stop()
        return dataclasses.replace(result, notes=tuple(notes))
    finally:
        held.release()


def _from_spark(err: BaseException) -> bool:
    """An error raised by PySpark or py4j (a failed job, a lost JVM), not by this project or the user."""
    return isinstance(err, Exception) and type(err).__module__.split(".")[0] in ("py4j", "pyspark")


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return printable(lines[0][:300]) if lines else type(err).__name__


def _cancel(spark) -> None:
    """Stop the running Spark jobs (Ctrl-C, SIGTERM, an error): their workers stage nothing more."""
    try:
        if hasattr(spark, "interruptAll") and not hasattr(spark, "sparkContext"):
            spark.interruptAll()  # Spark Connect
        else:
            spark.sparkContext.cancelAllJobs()
    except Exception:  # a session already going down: nothing left to cancel
        pass


def _run(
    spark,
    spec: SweepSpec,
    out: Path,
    done: set[str],
    progress: bool,
    stop_after_chunks: int | None,
    chunk_size: int | None,
    started: float,
) -> SweepResult:
    rows_dir = out / "rows"
    total = spec.scenarios
    already = len(done)
    resuming = already > 0
    chunk_size = chunk_size or max(MIN_CHUNK, math.ceil(total / MAX_CHUNKS))
    bar = _Progress(total, already, enabled=progress, label=spec.name)
    computed = 0
    try:
        for k, start in enumerate(range(0, total if already < total else 0, chunk_size)):
            if stop_after_chunks is not None and k >= stop_after_chunks:
                break
            end = min(total, start + chunk_size)
            indices: range | list[int] = range(start, end)
            if resuming:  # the scenarios of this chunk not published yet
                indices = [i for i in indices if _scenario_id(spec, i) not in done]
                if not indices:
                    continue
            count = len(indices)
            job = spark.range(0, count, numPartitions=_tasks_for(spark, count)).mapInArrow(
                _worker(spec, out, indices), "scenarios long"
            )
            bar.watch(spark, count)
            job.collect()  # the workers stage their scenarios' rows; the driver publishes them
            computed += store.publish(out, done)
            bar.chunk_done(count)
    finally:
        bar.close()
    written = _write_counterexamples(spark, rows_dir, out / "counterexamples")
    frame = spark.read.parquet(str(rows_dir)) if rows_dir.exists() else None
    summary = summarize(frame) if frame is not None else []
    row_count = frame.count() if frame is not None else 0
    result = SweepResult(
        out, spec.hash, total, already, computed, row_count, written, summary, time.perf_counter() - started
    )
    write_output(
        out / "summary.json",
        dumps(
            versioned(
                "sweep-summary",
                {
                    "spec": spec.name,
                    "hash": spec.hash,
                    "scenarios": total,
                    "rows": row_count,
                    "counterexamples": written,
                    "assignors": summary,
                },
            )
        ),
    )
    return result


def _scenario_id(spec: SweepSpec, index: int) -> str:
    point, seed = spec.points[index // len(spec.seeds)], spec.seeds[index % len(spec.seeds)]
    return scenario_id(spec.hash, point, seed)


def _tasks_for(spark, count: int) -> int:
    """Python tasks for a chunk: two per task slot, about :data:`SCENARIOS_PER_TASK` scenarios or more each.

    Each task costs the JVM a Python worker round trip, so tasks are few and
    large; two per slot keeps both slots busy when one task is slower.
    """
    try:
        slots = spark.sparkContext.defaultParallelism
    except Exception:  # Spark Connect: no SparkContext on the client
        slots = 8
    return max(1, min(count, 2 * slots, math.ceil(count / SCENARIOS_PER_TASK)))


def _spread(count: int) -> int:
    """A multiplier coprime to ``count``, near ``count / golden ratio``.

    ``position -> position * a mod count`` is a bijection of the chunk that
    sends every run of consecutive positions (one Spark task's share) to
    indices spread over the whole chunk.  Indices of one grid point are
    consecutive and grid points differ in cost by orders of magnitude, so
    contiguous shares would leave one task slot idle while the other works
    through the large groups.
    """
    a = max(1, round(count * 0.6180339887))
    while math.gcd(a, count) != 1:
        a += 1
    return a


def _worker(spec: SweepSpec, out: Path, indices: range | list[int]):
    """The function each Python worker runs over its share of a chunk.

    Its batches hold positions ``0 .. count-1`` into ``indices`` (the
    chunk's scenario indices), spread over the chunk by :func:`_spread`.  It
    stages the rows of what it finished (:func:`compare.sweep.store.stage`)
    every :data:`~compare.sweep.store.FLUSH_SECONDS` of work or
    :data:`~compare.sweep.store.FLUSH_SCENARIOS` scenarios, and yields how
    many scenarios each staged file holds.
    """
    sweep_hash, points, seeds = spec.hash, spec.points, spec.seeds
    assignors, time_limit, checks = [spec.assignor(n) for n in spec.assignors], spec.time_limit, spec.checks
    version = versions()
    count = len(indices)
    a = _spread(count)
    folder = str(out)

    def run(batches: Iterator) -> Iterator:
        import pyarrow as pa
        from pyspark import TaskContext

        context = TaskContext.get()
        attempt = context.taskAttemptId() if context is not None else os.getpid()
        schema = _arrow_schema()
        rows: list[dict] = []
        first, finished, since = "", 0, time.monotonic()

        def flush() -> Iterator:
            nonlocal rows, first, finished, since
            stage(folder, pa.Table.from_pylist(rows, schema=schema), f"{first}-{finished}-t{attempt}")
            yield pa.RecordBatch.from_arrays([pa.array([finished], pa.int64())], names=["scenarios"])
            rows, first, finished, since = [], "", 0, time.monotonic()

        for batch in batches:
            for position in batch.column(0).to_pylist():
                i = indices[position * a % count]
                point, seed = points[i // len(seeds)], seeds[i % len(seeds)]
                sid = scenario_id(sweep_hash, point, seed)
                rows += scenario_rows(sweep_hash, sid, point, seed, assignors, time_limit, checks, version=version)
                first, finished = first or sid, finished + 1
                if finished >= FLUSH_SCENARIOS or time.monotonic() - since >= FLUSH_SECONDS:
                    yield from flush()
        if finished:
            yield from flush()

    return run


def read_rows(out: str | Path, spark=None):
    """The sweep's rows as a Spark DataFrame (with ``spark``) or a pandas one (without): the columns of
    :data:`~compare.sweep.rows.ROW_SCHEMA` (not ``batch``, which publish wrote a row)."""
    rows_dir = Path(out) / "rows"
    if spark is not None:
        return spark.read.parquet(str(rows_dir)).drop("batch")
    import pyarrow.dataset as ds

    table = ds.dataset(str(rows_dir), format="parquet", partitioning="hive").to_table()
    return table.drop_columns([c for c in ("batch",) if c in table.column_names]).to_pandas()


def counterexample_path(out: str | Path, assignor: str, scenario: str, round_: int) -> Path:
    """Where a sweep writes a counterexample: ``DIR/counterexamples/<assignor>/<scenario_id>-r<round>.json``.

    An assignor name that is not a plain file name (an external command
    with spaces, slashes or ``..``) becomes a slug plus a hash of the name,
    so every file stays inside ``DIR/counterexamples`` and two names never
    share a folder.
    """
    folder = assignor
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,99}", assignor) or ".." in assignor:
        slug = re.sub(r"[^A-Za-z0-9._+-]+", "_", assignor).strip("._")[:60] or "assignor"
        folder = f"{slug}-{hashlib.sha256(assignor.encode('utf-8')).hexdigest()[:8]}"
    return Path(out) / "counterexamples" / folder / f"{scenario}-r{round_}.json"


def counterexample_file(column: str) -> str:
    """A counterexample file's text: the rows' ``counterexample`` column (``{"assignor", "finding",
    "scenario"}``) with its ``format_version`` (problem.formats' ``sweep-counterexample``)."""
    return dumps(versioned("sweep-counterexample", json.loads(column)))


def _write_counterexamples(spark, rows_dir: Path, folder: Path) -> int:
    """Every invalid result / broken guarantee as a standalone scenario file (streamed, not collected)."""
    if not rows_dir.exists():
        return 0
    from pyspark.sql import functions as F

    found = (
        spark.read.parquet(str(rows_dir))
        .where(F.col("counterexample").isNotNull())
        .select("assignor", "scenario_id", "round", "counterexample")
    )
    written = 0
    for row in found.toLocalIterator():
        target = counterexample_path(folder.parent, row["assignor"], row["scenario_id"], row["round"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(counterexample_file(row["counterexample"]), encoding="utf-8")
        written += 1
    return written


def summarize(frame) -> list[dict]:
    """Per assignor: shares valid / most balanced / guarantee kept, gap and time percentiles.

    Computed by Spark (one small row per assignor comes back); deterministic
    apart from the time percentiles.
    """
    from pyspark.sql import functions as F

    def share(condition):
        # The reference rows besides the optimum itself (optimum-cpsat: the cross-check; optimum-co-partitioned,
        # optimum-weighted: optima of other requests, most balanced only under their own constraints) judge
        # no assignment: their shares are empty ("-"), not a misleading "92% most balanced".
        reference = F.col("assignor").startswith("optimum-")
        return F.avg(F.when(~reference, F.when(condition, 1.0).otherwise(0.0)))

    def pct(column: str, q: float):
        return F.percentile_approx(F.col(column), q, 10000)

    judged = F.col("status").isin("ok", "invalid")
    stickiness_gap = F.when(F.col("most_balanced"), F.col("optimal_retained") - F.col("retained"))
    aggregated = (
        frame.withColumn("stickiness_gap", stickiness_gap)
        .groupBy("assignor")
        .agg(
            F.count(F.lit(1)).alias("rows"),
            F.sum(F.when(F.col("status") == "ok", 1).otherwise(0)).alias("ok"),
            F.sum(F.when(F.col("status") == "invalid", 1).otherwise(0)).alias("invalid"),
            F.sum(F.when(F.col("status") == "timeout", 1).otherwise(0)).alias("timeout"),
            F.sum(F.when(F.col("status") == "error", 1).otherwise(0)).alias("error"),
            share(F.col("valid") & judged).alias("share_valid"),
            share(F.col("most_balanced") & judged).alias("share_most_balanced"),
            F.avg(F.when(F.col("guarantee_applies"), F.when(F.col("guarantee_kept"), 1.0).otherwise(0.0))).alias(
                "share_guarantee_kept"
            ),
            pct("kip54_gap", 0.5).alias("kip54_gap_p50"),
            pct("kip54_gap", 0.9).alias("kip54_gap_p90"),
            F.max("kip54_gap").alias("kip54_gap_max"),
            pct("balance_moves", 0.9).alias("balance_moves_p90"),
            F.max("balance_moves").alias("balance_moves_max"),
            pct("stickiness_gap", 0.9).alias("stickiness_gap_p90"),
            F.max("stickiness_gap").alias("stickiness_gap_max"),
            pct("wall_time_s", 0.5).alias("time_p50_s"),
            pct("wall_time_s", 0.9).alias("time_p90_s"),
            pct("wall_time_s", 0.99).alias("time_p99_s"),
            F.max("wall_time_s").alias("time_max_s"),
            F.sum(F.when(F.col("oracle_check").startswith("DISAGREE"), 1).otherwise(0)).alias("oracle_disagreements"),
        )
        .orderBy("assignor")
    )
    out = []
    for row in aggregated.toLocalIterator():
        entry = row.asDict()
        for key, value in entry.items():
            if isinstance(value, float):
                entry[key] = round(value, 6)
        out.append(entry)
    return out


class _Progress:
    """Scenarios done / total, rate and ETA (``tqdm.auto``: a terminal bar, or a notebook widget).

    Within a chunk, a thread polls Spark's status tracker and advances the
    bar by finished tasks (each task is a few scenarios); a chunk's end
    settles the count exactly.
    """

    def __init__(self, total: int, already: int, *, enabled: bool, label: str) -> None:
        self.enabled = enabled
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=already, unit="scenario", desc=f"sweep {label}", dynamic_ncols=True)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = 0

    def watch(self, spark, count: int) -> None:
        if self.bar is None:
            return
        self._stop.clear()
        self._shown = 0
        try:
            tracker = spark.sparkContext.statusTracker()
        except Exception:  # Spark Connect has no status tracker: chunk-level progress only
            return

        def poll() -> None:
            while not self._stop.wait(0.5):
                try:
                    ids = tracker.getActiveStageIds()
                    stage = tracker.getStageInfo(max(ids)) if ids else None  # the last stage does the work
                    done = stage.numCompletedTasks / stage.numTasks if stage and stage.numTasks else 0.0
                except Exception:
                    return
                step = int(done * count) - self._shown
                if step > 0:
                    self.bar.update(step)
                    self._shown += step

        self._thread = threading.Thread(target=poll, daemon=True)
        self._thread.start()

    def chunk_done(self, count: int) -> None:
        if self.bar is None:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.bar.update(count - self._shown)
        self._shown = 0

    def close(self) -> None:
        self._stop.set()
        if self.bar is not None:
            self.bar.close()
