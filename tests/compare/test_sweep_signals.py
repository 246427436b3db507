"""Real sweeps stopped the hostile ways (issue 25): Ctrl-C, SIGTERM, ``kill -9`` of the driver, and a
second sweep started on the same directory.  Each run is ``assignment-oracle sweep`` in its own process
session on 127.0.0.1 (local[2]), every wait bounded; afterwards the directory is resumed and must hold
exactly the rows the scenarios give in this process, each once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from local_spark import KEY, expected_rows, kill_session, normalized, session_members, wait_for

from assignment_oracle.compare.sweep.job import read_rows, run_sweep
from assignment_oracle.compare.sweep.spec import spec_from_mapping

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("spark")]

#: About 40 scenarios of 0.1-0.5 s: long enough to be stopped in the middle.
SPEC = {
    "name": "signals",
    "seeds": 6,
    "assignors": ["range", "sticky", "cooperative-sticky"],
    "time_limit": 20,
    "checks": {"brute_force_limit": 64},
    "families": [
        {"family": "random-subsets", "grid": {"members": [6, 9], "topics": 4, "previous": "random", "churn": 2}},
        {"family": "churn", "grid": {"members": 5, "topics": 3, "partitions": 4, "rounds": [3, 4]}},
        {"family": "skewed-sizes", "grid": {"members": [8, 10], "topics": 5}},
    ],
}
#: Only what the JVM prints at its start (not on a stop) may precede the command's own line.
JVM_START = "WARNING: Using incubator modules"
START_TIMEOUT = 120


def start(tmp_path: Path, out: Path, *extra: str) -> subprocess.Popen:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(SPEC))
    return subprocess.Popen(
        [sys.executable, "-m", "assignment_oracle", "sweep", str(spec_file), "--out", str(out), "--master", "local[2]"]
        + ["--no-progress", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def published(out: Path) -> bool:
    return any((out / "rows").glob("batch=*"))


def stderr_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith(JVM_START)]


def finish(sweep: subprocess.Popen) -> tuple[int, str, str]:
    try:
        stdout, stderr = sweep.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        kill_session(sweep.pid)
        stdout, stderr = sweep.communicate()
        pytest.fail(f"the sweep did not end:\n{stderr[-3000:]}")
    return sweep.returncode, stdout, stderr


def assert_rows_exactly_once(spark, out: Path) -> None:
    spec = spec_from_mapping(SPEC)
    result = run_sweep(spec, out, spark=spark, progress=False)  # resume
    rows = read_rows(out)
    assert not rows.duplicated(KEY).any()
    assert rows["scenario_id"].nunique() == spec.scenarios == result.scenarios
    pd.testing.assert_frame_equal(normalized(rows), expected_rows(spec))
    assert not list((out / "staged").glob("*")) if (out / "staged").exists() else True


@pytest.mark.parametrize(
    "how, code, line",
    [
        ("ctrl-c", 130, "assignment-oracle: interrupted (Ctrl-C)"),
        ("sigterm", 143, "assignment-oracle: terminated (SIGTERM)"),
    ],
)
def test_a_stopped_sweep_says_one_line_keeps_what_finished_and_resumes_exactly(spark, tmp_path, how, code, line):
    out = tmp_path / "out"
    sweep = start(tmp_path, out)
    wait_for(lambda: published(out) or sweep.poll() is not None, START_TIMEOUT, "a first published chunk")
    assert sweep.poll() is None, "the sweep ended before it could be stopped"
    if how == "ctrl-c":
        os.killpg(sweep.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    else:
        sweep.send_signal(signal.SIGTERM)
    sweep.wait(timeout=30)  # a hang guard; how fast it stops is benchmarks' business, not a test's
    returncode, stdout, stderr = finish(sweep)
    assert returncode == code, stderr[-3000:]
    assert stderr_lines(stderr) == [line], stderr[-3000:]
    assert stdout == ""
    wait_for(lambda: not session_members(sweep.pid), 30, "Spark's JVM and workers to end")
    kept = read_rows(out)["scenario_id"].nunique()
    assert kept >= 1
    assert_rows_exactly_once(spark, out)


def test_a_driver_killed_with_sigkill_leaves_a_directory_the_next_sweep_takes_over_and_finishes(spark, tmp_path):
    out = tmp_path / "out"
    sweep = start(tmp_path, out)
    wait_for(lambda: published(out) or sweep.poll() is not None, START_TIMEOUT, "a first published chunk")
    assert sweep.poll() is None, "the sweep ended before it could be killed"
    os.kill(sweep.pid, signal.SIGKILL)  # the driver only: its JVM and workers are left to notice
    finish(sweep)
    wait_for(lambda: not session_members(sweep.pid), 60, "the orphaned JVM and workers to end")
    spec = spec_from_mapping(SPEC)
    result = run_sweep(spec, out, spark=spark, progress=False)
    assert any(f"pid {sweep.pid}" in note and "no longer running" in note for note in result.notes), result.notes
    rows = read_rows(out)
    assert not rows.duplicated(KEY).any()
    pd.testing.assert_frame_equal(normalized(rows), expected_rows(spec))


def test_a_second_sweep_on_the_same_directory_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "out"
    first = start(tmp_path, out)
    try:
        wait_for(
            lambda: (out / "lock").exists() and (out / "lock").read_text().strip() or first.poll() is not None,
            START_TIMEOUT,
            "the first sweep's lock",
        )
        assert first.poll() is None
        second = start(tmp_path, out)
        returncode, stdout, stderr = finish(second)
        assert returncode == 2, stderr
        [only] = stderr_lines(stderr)
        assert only.startswith(f"assignment-oracle: error: {out}: another sweep is writing here (pid {first.pid} on ")
        returncode, stdout, stderr = finish(first)
        assert returncode == 0, stderr[-3000:]
    finally:
        kill_session(first.pid)
    rows = read_rows(out)
    assert not rows.duplicated(KEY).any()
    pd.testing.assert_frame_equal(normalized(rows), expected_rows(spec_from_mapping(SPEC)))
