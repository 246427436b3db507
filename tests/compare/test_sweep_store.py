"""The sweep directory's protocol (compare/sweep/store.py), without Spark: the lock, staging, and
publishing exactly once whatever the moment a crash stops it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.compare.sweep import store
from assignment_oracle.compare.sweep.job import _arrow_schema
from assignment_oracle.compare.sweep.rows import COLUMNS
from assignment_oracle.problem.scenario_json import InputError

FAMILIES = ("uniform", "churn")
ASSIGNORS = ("range", "kafka-python:sticky", "optimum")


def scenario_table(sids: list[str]) -> pa.Table:
    """Whole scenarios' rows: every (family of the scenario, assignor, round) for each id."""
    rows = []
    for sid in sids:
        family = FAMILIES[int(sid[1:]) % len(FAMILIES)]
        for assignor in ASSIGNORS:
            for round_ in range(1 + int(sid[1:]) % 2):
                row = dict.fromkeys(COLUMNS)
                row.update(scenario_id=sid, family=family, assignor=assignor, round=round_, seed=int(sid[1:]))
                rows.append(row)
    return pa.Table.from_pylist(rows, schema=_arrow_schema())


def rows_of(out: Path) -> list[tuple]:
    import pyarrow.dataset as ds

    table = ds.dataset(str(out / "rows"), format="parquet", partitioning="hive").to_table()
    return sorted(zip(*(table.column(c).to_pylist() for c in ("scenario_id", "round", "assignor", "family"))))


def expected_rows(sids) -> list[tuple]:
    t = scenario_table(sorted(set(sids)))
    return sorted(zip(*(t.column(c).to_pylist() for c in ("scenario_id", "round", "assignor", "family"))))


class Crash(BaseException):
    """A kill -9 at this point: nothing after it runs."""


@contextlib.contextmanager
def stopped_after(operations: int, stop: type[BaseException]):
    """The block stopped by ``stop`` at its file operation number ``operations + 1`` (a rename, a replace, an
    unlink or a Parquet write), as a kill -9 or a signal would stop it; nothing after that runs."""
    count = {"n": 0}
    real = os.replace, os.rename, Path.unlink, store._write_parquet

    def counted(function):
        def wrapper(*args, **kwargs):
            count["n"] += 1
            if count["n"] > operations:
                raise stop()
            return function(*args, **kwargs)

        return wrapper

    try:
        os.replace, os.rename, Path.unlink, store._write_parquet = map(counted, real)  # type: ignore[method-assign]
        yield
    except stop:
        pass
    finally:
        os.replace, os.rename, Path.unlink, store._write_parquet = real  # type: ignore[method-assign]


staged_batches = st.lists(
    st.lists(st.integers(0, 30).map(lambda i: f"s{i}"), min_size=1, max_size=6, unique=True), min_size=1, max_size=5
)


@pytest.mark.slow  # a crash at every point of a publish: stress, with the slow ones
@settings(max_examples=60, deadline=None)
@given(first=staged_batches, second=staged_batches, crash_at=st.integers(0, 40))
def test_a_publish_stopped_at_any_point_is_finished_by_the_next_start(tmp_path_factory, first, second, crash_at):
    """Two rounds of staging (the second overlapping the first, as a retried task does); the first
    publish is killed after ``crash_at`` file operations.  recover + publish then give every staged
    scenario exactly once and whole, and nothing staged is lost."""
    out = tmp_path_factory.mktemp("sweep")
    for k, sids in enumerate(first):
        store.stage(out, scenario_table(sids), f"{sids[0]}-{len(sids)}-t{k}")
    done: set[str] = set()
    with stopped_after(crash_at, Crash):
        store.publish(out, done)
    # Whatever a reader sees meanwhile is whole scenarios only.
    if (out / "rows").exists() and any((out / "rows").glob("batch=*/family=*/assignor=*/*.parquet")):
        seen = rows_of(out)
        assert seen == expected_rows({r[0] for r in seen})
    # The next start: recover, publish what is left, then a later round of staging.
    store.recover(out)
    done = store.published_ids(out)
    store.publish(out, done)
    for k, sids in enumerate(second):
        store.stage(out, scenario_table(sids), f"{sids[0]}-{len(sids)}-t{100 + k}")
    store.publish(out, done)
    everything = {sid for sids in first + second for sid in sids}
    assert rows_of(out) == expected_rows(everything)
    assert done == everything
    assert not list((out / "staged").iterdir())
    assert not [p for p in (out / "rows").rglob("*") if p.name.startswith(".")]


@settings(max_examples=30, deadline=None)
@given(first=staged_batches, crash_at=st.integers(0, 40))
def test_a_publish_interrupted_in_the_running_sweep_is_finished_once_by_its_stop(tmp_path_factory, first, crash_at):
    """A signal inside a publish (an exception at any file operation, the rename included) followed by the
    stopping sweep's own publish, in the same process with the ``done`` set it had: every staged scenario
    ends in ``rows/`` exactly once (a stale ``done`` used to publish the renamed batch's files again)."""
    out = tmp_path_factory.mktemp("sweep")
    for k, sids in enumerate(first):
        store.stage(out, scenario_table(sids), f"{sids[0]}-{len(sids)}-t{k}")
    with stopped_after(crash_at, KeyboardInterrupt):
        store.publish(out, set())
    store.publish_after_interrupt(out)
    assert rows_of(out) == expected_rows({sid for sids in first for sid in sids})


def test_partition_folders_are_read_back_as_the_names_given(tmp_path):
    """Assignor names with ':' '/' '=' '%' spaces and controls land in folders Spark and pyarrow read back."""
    import pyarrow.dataset as ds

    names = ["kafka-python:sticky", "external:python3 /x/y.py --a=b", "100%", "a\nb", "ü"]
    table = scenario_table(["s1"])
    table = table.set_column(
        table.schema.get_field_index("assignor"),
        "assignor",
        pa.array([names[i % len(names)] for i in range(len(table))], pa.string()),
    )
    store.stage(tmp_path, table, "s1-1-t0")
    store.publish(tmp_path, set())
    back = ds.dataset(str(tmp_path / "rows"), format="parquet", partitioning="hive").to_table()
    assert len(table) >= len(names)
    assert sorted(set(back.column("assignor").to_pylist())) == sorted(names)
    assert all(p.parents[3] == tmp_path / "rows" for p in (tmp_path / "rows").rglob("*.parquet"))


def test_a_held_lock_refuses_a_second_writer_naming_the_holder(tmp_path):
    held = store.lock(tmp_path)
    try:
        with pytest.raises(InputError, match=rf"another sweep is writing here \(pid {os.getpid()} on "):
            store.lock(tmp_path)
    finally:
        held.release()
    again = store.lock(tmp_path)  # released: free again, and nothing was taken over
    assert again.took_over is None
    again.release()


def test_a_lock_left_by_a_killed_sweep_is_taken_over_and_said(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from assignment_oracle.compare.sweep import store;"
            "store.lock(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError, match=rf"pid {holder.pid} on "):
            store.lock(tmp_path)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    finally:
        if holder.poll() is None:
            holder.kill()
    deadline = time.monotonic() + 10
    while True:
        try:
            held = store.lock(tmp_path)
            break
        except InputError:
            assert time.monotonic() < deadline, "the kernel never dropped the dead holder's lock"
            time.sleep(0.05)
    try:
        assert held.took_over is not None and held.took_over["pid"] == holder.pid
        note = store.took_over_text(held)
        assert note is not None and f"pid {holder.pid}" in note and "no longer running" in note
    finally:
        held.release()
