"""A sweep over Spark Connect (``--remote sc://...``): a real Connect server on 127.0.0.1, started from the wheel.

The server is the class ``sbin/start-connect-server.sh`` starts
(``org.apache.spark.sql.connect.service.SparkConnectServer``), launched in
the foreground with ``bin/spark-submit`` in its own session, bound to
127.0.0.1 on a free port, Spark in local mode behind it.  The CLI runs the
sweep as a Connect client in a subprocess (a client session cannot share a
process with the classic session the other tests hold); its rows must be
exactly the rows computed in this process, timing aside.  About 30 s.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from local_spark import expected_rows, free_port, kill_session, normalized, tail, wait_for

from assignment_oracle.compare.sweep.job import read_rows
from assignment_oracle.compare.sweep.spec import spec_from_mapping

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120
SWEEP_TIMEOUT = 300

SPEC = {
    "name": "connect-test",
    "seeds": 3,
    "assignors": ["range", "sticky", "cooperative-sticky"],
    "time_limit": 20,
    "checks": {"cpsat_sample": 0.3, "cpsat_time_limit": 10, "brute_force_limit": 256},
    "families": [
        {"family": "uniform", "grid": {"members": [3, 5], "topics": [2], "partitions": [4]}},
        {"family": "random-subsets", "grid": {"members": [6], "topics": [3], "previous": "balanced", "zombies": [1]}},
        {"family": "churn", "grid": {"members": [3], "topics": [2], "partitions": [4], "rounds": [2]}},
    ],
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server's processes in /proc (Linux)"),
]


def _env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SPARK_REMOTE", "PYSPARK_SUBMIT_ARGS", "SPARK_CONNECT_MODE_ENABLED", "MASTER")
    }
    env.update(
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOCAL_HOSTNAME="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )
    return env


@pytest.fixture
def connect_server(tmp_path):
    pytest.importorskip("grpc", reason="Spark Connect's client needs pyspark[connect] (grpcio)")
    import pyspark

    spark_home = Path(pyspark.__file__).resolve().parent
    port = free_port()
    log = tmp_path / "connect-server.log"
    argv = [
        str(spark_home / "bin" / "spark-submit"),
        "--class",
        "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--name",
        "assignment-oracle connect test",
        "--master",
        "local[2]",
        "--conf",
        "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        "spark.driver.host=127.0.0.1",
        "--conf",
        "spark.driver.bindAddress=127.0.0.1",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        f"spark.pyspark.python={sys.executable}",
        "--conf",
        "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        "spark-internal",
    ]
    with open(log, "wb") as out:
        server = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(),
            cwd=tmp_path,
            start_new_session=True,
        )
    try:

        def started():
            if server.poll() is not None:
                pytest.fail(f"the Connect server exited with {server.returncode}\n{tail(log)}")
            return re.search(rf"Spark Connect server started at: 127\.0\.0\.1:{port}", log.read_text(errors="replace"))

        wait_for(started, START_TIMEOUT, "the Spark Connect server to start", [log])
        yield f"sc://127.0.0.1:{port}", log
    finally:
        kill_session(server.pid)
        server.wait(timeout=30)


def test_a_sweep_over_spark_connect_writes_the_in_process_rows(connect_server, tmp_path):
    url, server_log = connect_server
    spec_file, out = tmp_path / "spec.json", tmp_path / "out"
    spec_file.write_text(json.dumps(SPEC))
    sweep = subprocess.run(
        [
            sys.executable,
            "-m",
            "assignment_oracle",
            "sweep",
            str(spec_file),
            "--out",
            str(out),
            "--remote",
            url,
            "--no-progress",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=SWEEP_TIMEOUT,
    )
    assert sweep.returncode == 0, f"{sweep.stderr[-3000:]}\n--- server\n{tail(server_log)}"
    spec = spec_from_mapping(SPEC)
    printed = json.loads(sweep.stdout)
    assert (printed["scenarios"], printed["computed"]) == (spec.scenarios, spec.scenarios)
    rows = read_rows(out)
    assert rows["scenario_id"].nunique() == spec.scenarios
    pd.testing.assert_frame_equal(normalized(rows), expected_rows(spec))
    # The KIP-341 scenarios reached the server's Python workers too: the old sticky is not among the
    # assignors here, so every stale claim must have been resolved (all of sticky's results valid).
    sticky = rows[(rows["assignor"] == "sticky") & (rows["family"] == "random-subsets")]
    assert len(sticky) == 3 and sticky["valid"].all()
