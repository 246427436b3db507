"""A sweep on a real standalone Spark cluster on this machine, with a worker killed mid-sweep.

Issue 5: start a master and two workers (one core each) on 127.0.0.1 with
the launcher that ships in the pyspark wheel (``bin/spark-class``; the
wheel's ``sbin/`` has no ``start-master.sh``), run ``assignment-oracle
sweep`` against ``spark://127.0.0.1:PORT`` in a subprocess, and once a first
chunk has been published, SIGKILL one worker's whole process session (worker
JVM, executor JVM, Python workers: a lost machine) while its executor runs a
later chunk's task that has not staged its scenarios yet.  Then:

* the sweep exits 0 and reports every scenario computed;
* the kill happened mid-sweep (some but not all scenarios published), the
  killed attempt had staged nothing (``DIR/staged``: its work is lost and
  redone elsewhere), and the driver logged the lost executor and that
  task's failure;
* the rows hold each scenario id of the spec exactly once, no
  ``(scenario_id, round, assignor)`` twice, and, timing columns aside, are
  exactly the rows :func:`compare.sweep.rows.scenario_rows` computes in this
  process for ``spec.task(0..n-1)``.

Loopback only (``SPARK_LOCAL_IP``, the driver's host and bind address; the
master's REST server off), everything under ``tmp_path`` (conf, logs, work
dirs, output), each process started in its own session so teardown kills
exactly what was started; every wait is bounded.  About a minute on the
2-core machine, so it runs in the default suite (marked ``slow``).
``docs/sweeps-cluster.md`` says how to run the same cluster by hand.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from local_spark import free_port as _free_port
from local_spark import kill_session as _kill_session
from local_spark import session_members as _session_members
from local_spark import tail as _tail
from local_spark import wait_for as _wait_for

REPO = Path(__file__).resolve().parents[2]

#: Bounds on every wait (seconds); generous for a loaded 2-core machine.
START_TIMEOUT = 90
SWEEP_TIMEOUT = 300
KILL_WAIT_TIMEOUT = 180

#: A small spec: single rebalances of three families and churn histories (rounds > 0),
#: a CP-SAT sample, brute force on the smallest; 48 scenarios of a few hundred ms each.
SPEC = {
    "name": "cluster-test",
    "seeds": 8,
    "assignors": ["range", "roundrobin", "sticky", "cooperative-sticky"],
    "time_limit": 60,
    # CP-SAT on every scenario: a task of 6 scenarios works about a second, long enough to be killed in.
    "checks": {"cpsat_sample": 1.0, "cpsat_time_limit": 60, "brute_force_limit": 256},
    "families": [
        {"family": "uniform", "grid": {"members": [3, 6], "topics": [2], "partitions": [4]}},
        {"family": "random-subsets", "grid": {"members": [5, 8], "topics": [4], "subscribe": [0.5]}},
        {"family": "stream-join", "grid": {"members": [3], "pairs": [2]}},
        {
            "family": "churn",
            "grid": {"members": [3], "topics": [2], "partitions": [4], "rounds": [3], "events_per_round": [2]},
        },
    ],
}
#: Scenarios per Spark job: 2 chunks of 4 tasks of 6 scenarios, the kill in the second.
CHUNK_SIZE = 24

LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
# What the test reads: the master's URL and leadership, worker registration,
# task starts/ends and losses on the driver.
logger.master.name = org.apache.spark.deploy.master.Master
logger.master.level = info
logger.worker.name = org.apache.spark.deploy.worker.Worker
logger.worker.level = info
logger.tsm.name = org.apache.spark.scheduler.TaskSetManager
logger.tsm.level = info
logger.dag.name = org.apache.spark.scheduler.DAGScheduler
logger.dag.level = info
"""

SPARK_DEFAULTS = """\
spark.driver.host 127.0.0.1
spark.driver.bindAddress 127.0.0.1
spark.executor.memory 512m
spark.port.maxRetries 32
spark.master.rest.enabled false
spark.driver.extraJavaOptions {jvm}
spark.executor.extraJavaOptions {jvm}
"""
#: Short-lived JVMs on a small machine: C1 only and one GC thread start faster and leave the cores to Python.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / "java", os.X_OK):
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


pytestmark = [
    pytest.mark.slow,  # about a minute; still in the default run
    pytest.mark.skipif(_java() is None, reason="a standalone Spark cluster needs Java (no java on PATH, no JAVA_HOME)"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the cluster's processes in /proc (Linux)"),
]


class Cluster:
    """A master and workers on 127.0.0.1, each in its own session; ``stop`` kills them all."""

    def __init__(self, root: Path) -> None:
        import pyspark

        self.root = root
        self.spark_home = Path(pyspark.__file__).resolve().parent
        self.conf = root / "conf"
        self.logs = root / "logs"
        self.conf.mkdir(parents=True)
        self.logs.mkdir()
        (self.conf / "log4j2.properties").write_text(LOG4J2)
        (self.conf / "spark-defaults.conf").write_text(SPARK_DEFAULTS.format(jvm=JVM_OPTIONS))
        self.procs: dict[str, subprocess.Popen] = {}
        self.master_url = ""
        self.workers: list[tuple[str, Path]] = []  # (name, SPARK_WORKER_DIR)

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        for inherited in ("SPARK_REMOTE", "PYSPARK_SUBMIT_ARGS", "SPARK_CONNECT_MODE_ENABLED", "MASTER"):
            env.pop(inherited, None)
        env.update(
            SPARK_HOME=str(self.spark_home),
            SPARK_CONF_DIR=str(self.conf),
            SPARK_LOG_DIR=str(self.logs),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_HOSTNAME="127.0.0.1",
            SPARK_DAEMON_MEMORY="256m",
            SPARK_DAEMON_JAVA_OPTS=JVM_OPTIONS,
            PYSPARK_PYTHON=sys.executable,
            PYSPARK_DRIVER_PYTHON=sys.executable,
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        )
        env.update(extra)
        return env

    def spawn(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        """Start ``argv`` in a new session; stderr to ``logs/NAME.log``, stdout to ``logs/NAME.out``."""
        with open(self.logs / f"{name}.out", "wb") as out, open(self.logs / f"{name}.log", "wb") as log:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=log, env=env, cwd=self.root, start_new_session=True
            )
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def start(self, workers: int = 2) -> None:
        spark_class = str(self.spark_home / "bin" / "spark-class")
        self.spawn(
            "master",
            [
                spark_class,
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(_free_port()),
                "--webui-port",
                str(_free_port()),
            ],
            self.env(),
        )
        for i in range(1, workers + 1):
            (self.root / f"work-{i}").mkdir()
        url = _wait_for(lambda: self._master_url(), START_TIMEOUT, "the master to start", [self.log("master")])
        self.master_url = url
        for i in range(1, workers + 1):
            name, work = f"worker-{i}", self.root / f"work-{i}"
            self.spawn(
                name,
                [
                    spark_class,
                    "org.apache.spark.deploy.worker.Worker",
                    url,
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    "1g",
                    "--webui-port",
                    str(_free_port()),
                    "--work-dir",
                    str(work),
                ],
                self.env(SPARK_WORKER_DIR=str(work)),
            )
            self.workers.append((name, work))
        for name, _ in self.workers:
            _wait_for(
                lambda name=name: "Successfully registered with master" in self.log(name).read_text(errors="replace"),
                START_TIMEOUT,
                f"{name} to register",
                [self.log("master"), self.log(name)],
            )

    def _master_url(self) -> str | None:
        proc = self.procs["master"]
        if proc.poll() is not None:
            pytest.fail(f"the master exited with {proc.returncode}\n{_tail(self.log('master'))}")
        text = self.log("master").read_text(errors="replace")
        found = re.search(r"Starting Spark master at (spark://127\.0\.0\.1:\d+)", text)
        return found.group(1) if found and "ALIVE" in text else None

    def executor_of(self, work: Path) -> str | None:
        """The executor id a worker runs for the (single) application: ``WORK/app-*/ID``."""
        for app in work.glob("app-*"):
            for d in app.iterdir():
                if d.is_dir() and d.name.isdigit():
                    return d.name
        return None

    def kill(self, name: str) -> None:
        _kill_session(self.procs[name].pid)
        self.procs[name].wait(timeout=30)

    def stop(self) -> None:
        for name in reversed(list(self.procs)):
            proc = self.procs[name]
            _kill_session(proc.pid)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass


@pytest.fixture
def cluster(tmp_path):
    cluster = Cluster(tmp_path / "cluster")
    try:
        cluster.start(workers=2)
        yield cluster
    finally:
        cluster.stop()


def _committed_rows(rows_dir: Path) -> bool:
    return any(rows_dir.glob("batch=*/family=*/assignor=*/*.parquet"))


def _attempt_files(rows_dir: Path, tid: str) -> list[str]:
    """Files the task attempt ``tid`` has staged (finished scenarios not published yet).

    A worker names its staged files ``<first scenario>-<count>-t<TID>.parquet``
    (:func:`compare.sweep.store.stage`); a staged file is complete or absent.
    """
    return sorted(str(p) for p in (rows_dir.parent / "staged").glob(f"*-t{tid}.parquet"))


def _kill_during_a_write(
    cluster: Cluster, sweep: subprocess.Popen, driver_log: Path, rows_dir: Path, report: dict
) -> None:
    """Once a chunk is published, SIGKILL worker-1 while its executor runs a scenario task mid-work.

    The victim's executor id is the folder its worker made for the
    application (``WORK/app-*/ID``); its running task is a ``Starting task
    ... executor ID`` line of the driver's log (TaskSetManager at INFO) with
    no ``Finished task`` for that TID yet; it is mid-work when ``DIR/staged``
    holds no file of that TID yet (a task stages its rows just before it
    ends: one staged file per second of work) and not every scenario is
    published (the later jobs, counterexamples and summary, stage nothing).
    All of these, then the kill.
    """
    deadline = time.monotonic() + KILL_WAIT_TIMEOUT
    name, work = cluster.workers[0]
    from assignment_oracle.compare.sweep.spec import spec_from_mapping

    total = spec_from_mapping(SPEC).scenarios
    try:
        executor = None
        while time.monotonic() < deadline and sweep.poll() is None:
            time.sleep(0.02)
            committed = sorted(rows_dir.glob("batch=*/family=*/assignor=*/*.parquet"))
            if not committed:
                continue
            executor = executor or cluster.executor_of(work)
            if executor is None:
                continue
            text = driver_log.read_text(errors="replace")
            started = re.findall(
                rf"Starting task \S+ in stage \S+ \(TID (\d+)\) \(127\.0\.0\.1, ?executor {executor},", text
            )
            finished = set(re.findall(r"Finished task \S+ in stage \S+ \(TID (\d+)\)", text))
            working = [tid for tid in started if tid not in finished and not _attempt_files(rows_dir, tid)]
            if working and (published := _distinct_ids(committed)) < total:
                cluster.kill(name)
                report.update(
                    killed=name,
                    executor=executor,
                    tid=working[-1],
                    attempt_files=_attempt_files(rows_dir, working[-1]),
                    scenarios_committed_at_kill=published,
                )
                return
        report["missed"] = "the sweep ended first" if sweep.poll() is not None else "timed out"
    except Exception as err:  # reported by the test, never swallowed
        report["error"] = repr(err)


def _distinct_ids(files: list[Path]) -> int:
    """Distinct scenario ids in these committed Parquet files."""
    import pyarrow.parquet as pq

    return len({sid for f in files for sid in pq.read_table(f, columns=["scenario_id"]).column(0).to_pylist()})


def _row_key(row: dict) -> tuple:
    return row["scenario_id"], row["round"], row["assignor"]


def test_sweep_survives_a_worker_killed_mid_sweep(cluster, tmp_path):
    import pyarrow.dataset as ds

    from assignment_oracle.compare.sweep.rows import COLUMNS, TIMING_COLUMNS, scenario_rows, versions
    from assignment_oracle.compare.sweep.spec import scenario_id, spec_from_mapping

    spec = spec_from_mapping(SPEC)
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(SPEC))
    out = tmp_path / "out"
    driver_log = cluster.log("driver")
    sweep = cluster.spawn(
        "driver",
        [
            sys.executable,
            "-m",
            "assignment_oracle",
            "sweep",
            str(spec_file),
            "--out",
            str(out),
            "--master",
            cluster.master_url,
            "--chunk-size",
            str(CHUNK_SIZE),
            "--no-progress",
            "--json",
        ],
        cluster.env(),
    )
    report: dict = {}
    killer = threading.Thread(
        target=_kill_during_a_write, args=(cluster, sweep, driver_log, out / "rows", report), daemon=True
    )
    killer.start()
    try:
        sweep.wait(timeout=SWEEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the sweep did not finish in {SWEEP_TIMEOUT} s (kill: {report})\n{_tail(driver_log, 80)}")
    killer.join(timeout=10)
    log = driver_log.read_text(errors="replace")
    assert sweep.returncode == 0, f"sweep exited {sweep.returncode} (kill: {report})\n{_tail(driver_log, 80)}"

    # The kill happened mid-sweep, while the victim ran a task, and the driver saw both losses.
    assert "killed" in report, f"the worker was never killed: {report}\n{_tail(driver_log, 80)}"
    assert 0 < report["scenarios_committed_at_kill"] < spec.scenarios, report
    assert cluster.procs[report["killed"]].poll() is not None
    assert _session_members(cluster.procs[report["killed"]].pid) == []
    assert re.search(rf"Lost executor {report['executor']}\b", log), _tail(driver_log, 80)
    # Spark 4 words it "task 0.0 in stage 9.0 (TID 30) failed because while it was being computed, its
    # executor exited ..." (not counted towards spark.task.maxFailures); older Spark "Lost task ... ExecutorLostFailure".
    assert re.search(
        rf"\(TID {report['tid']}\) failed because while it was being computed, its executor exited", log
    ) or re.search(rf"Lost task \S+ in stage \S+ \(TID {report['tid']}\).*ExecutorLostFailure", log), _tail(
        driver_log, 80
    )

    # What the CLI says it did.
    printed = json.loads((cluster.logs / "driver.out").read_text())
    assert (printed["scenarios"], printed["skipped"], printed["computed"]) == (spec.scenarios, 0, spec.scenarios)

    # Every row exactly once, and the same rows the pure-Python computation gives.
    table = ds.dataset(str(out / "rows"), format="parquet", partitioning="hive").to_table()
    rows = table.select(list(COLUMNS)).to_pylist()
    assert len({r["scenario_id"] for r in rows}) == spec.scenarios
    keys = [_row_key(r) for r in rows]
    assert len(keys) == len(set(keys)), "a (scenario_id, round, assignor) row was written twice"
    version = versions()
    expected = []
    for i in range(spec.scenarios):
        point, seed = spec.task(i)
        expected.extend(
            scenario_rows(
                spec.hash,
                scenario_id(spec.hash, point, seed),
                point,
                seed,
                spec.assignors,
                spec.time_limit,
                spec.checks,
                version=version,
            )
        )
    assert printed["rows"] == len(expected)

    def comparable(rs):
        return sorted(({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rs), key=_row_key)

    got, want = comparable(rows), comparable(expected)
    assert [_row_key(r) for r in got] == [_row_key(r) for r in want]
    for g, w in zip(got, want):
        assert g == w, {k: (g[k], w[k]) for k in COLUMNS if k not in TIMING_COLUMNS and g[k] != w[k]}
