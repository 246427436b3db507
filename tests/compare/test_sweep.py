"""Sweeps on Spark (local mode) end to end: rows, schema, determinism, resume, failures as rows."""

from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pytest
from jsonschema import Draft202012Validator
from local_spark import KEY, expected_rows, normalized

from assignment_oracle.compare.sweep.job import counterexample_path, read_rows, run_sweep
from assignment_oracle.compare.sweep.rows import COLUMNS, ROW_SCHEMA
from assignment_oracle.compare.sweep.spec import spec_from_mapping
from assignment_oracle.problem.errors import MissingExtra
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.model import Problem
from assignment_oracle.problem.scenario_json import InputError
from assignment_oracle.schema import schema

pytestmark = pytest.mark.xdist_group("spark")  # one worker runs every test that uses Spark (tests/conftest.py)

SPEC = {
    "name": "test",
    "seeds": 2,
    "assignors": ["range", "sticky", "cooperative-sticky", "sticky-kip54"],
    "time_limit": 20,
    "checks": {"cpsat_sample": 0.5, "cpsat_time_limit": 10, "brute_force_limit": 256},
    "families": [
        {"family": "uniform", "grid": {"members": 3, "topics": 2, "partitions": [2, 3]}},
        {"family": "random-subsets", "grid": {"members": 4, "topics": 3, "previous": "random", "churn": 1}},
        {"family": "churn", "grid": {"members": 3, "topics": 2, "partitions": 3, "rounds": 2}},
    ],
}


@pytest.fixture(scope="module")
def first_run(spark, tmp_path_factory):
    spec = spec_from_mapping(SPEC)
    out = tmp_path_factory.mktemp("sweep-a")
    result = run_sweep(spec, out, spark=spark, progress=False)
    return spec, out, result


def test_rows_schema_and_counts(first_run):
    spec, out, result = first_run
    rows = read_rows(out)
    assert set(rows.columns) == set(COLUMNS)
    assert rows["scenario_id"].nunique() == spec.scenarios == result.scenarios
    assert not rows.duplicated(KEY).any()
    assert result.rows == len(rows) and result.computed == spec.scenarios and result.skipped == 0
    # Arrow types as documented (partition columns come back as strings).
    import pyarrow.dataset as ds

    schema = ds.dataset(str(out / "rows"), format="parquet", partitioning="hive").schema
    types = {"string": "string", "int64": "int64", "bool": "bool", "double": "double"}
    for name, kind in ROW_SCHEMA:
        assert str(schema.field(name).type) == types[kind], name


def test_spark_rows_are_the_in_process_rows(first_run):
    spec, out, _ = first_run
    pd.testing.assert_frame_equal(normalized(read_rows(out)), expected_rows(spec), check_dtype=False)


def test_summary_and_counterexamples(first_run):
    spec, out, result = first_run
    summary = json.loads((out / "summary.json").read_text())
    assert {e["assignor"] for e in summary["assignors"]} >= set(spec.assignors) | {"optimum"}
    # summary.json and sweep --json name their versions and validate against `schema sweep-summary`, `schema sweep`
    assert Draft202012Validator(schema("sweep-summary")).is_valid(summary) and summary["format_version"] == 1
    assert Draft202012Validator(schema("sweep")).is_valid(versioned("sweep", result.to_mapping()))
    rows = read_rows(out)
    broken = rows[rows["counterexample"].notna()]
    files = sorted((out / "counterexamples").rglob("*.json")) if (out / "counterexamples").exists() else []
    assert len(files) == len(broken) == result.counterexamples
    for path in files:
        document = json.loads(path.read_text())
        assert {"assignor", "finding", "scenario"} <= set(document)
    assert (rows.loc[rows["assignor"] == "optimum", "most_balanced"] == True).all()  # noqa: E712
    # The summary's shares agree with the rows; CP-SAT's cross-check rows judge no assignment.
    by_name = {e["assignor"]: e for e in summary["assignors"]}
    for name in spec.assignors:
        mine = rows[rows["assignor"] == name]
        assert by_name[name]["share_valid"] == pytest.approx(mine["valid"].eq(True).mean(), abs=1e-6)
    assert by_name["optimum"]["share_valid"] == 1
    assert by_name["optimum-cpsat"]["share_valid"] is None and by_name["optimum-cpsat"]["share_most_balanced"] is None


def test_same_spec_same_rows(spark, first_run, tmp_path):
    spec, out, _ = first_run
    run_sweep(spec, tmp_path, spark=spark, progress=False)
    pd.testing.assert_frame_equal(normalized(read_rows(tmp_path)), normalized(read_rows(out)))


def test_an_interrupted_sweep_resumes_without_duplicates(spark, first_run, tmp_path):
    spec, out, _ = first_run
    partial = run_sweep(spec, tmp_path, spark=spark, progress=False, chunk_size=2, stop_after_chunks=2)
    assert partial.computed == 4 and read_rows(tmp_path)["scenario_id"].nunique() == 4
    resumed = run_sweep(spec, tmp_path, spark=spark, progress=False, chunk_size=2)
    assert resumed.skipped == 4 and resumed.computed == spec.scenarios - 4
    again = run_sweep(spec, tmp_path, spark=spark, progress=False)
    assert again.computed == 0
    rows = read_rows(tmp_path)
    assert not rows.duplicated(KEY).any()
    pd.testing.assert_frame_equal(normalized(rows), normalized(read_rows(out)))


def test_assignors_that_do_not_finish_are_rows(spark, tmp_path):
    spec = spec_from_mapping(
        {
            **SPEC,
            "time_limit": 1e-6,
            "checks": {},
            "families": [{"family": "uniform", "grid": {"members": 3, "topics": 1, "partitions": 2}}],
        }
    )
    run_sweep(spec, tmp_path, spark=spark, progress=False)
    rows = read_rows(tmp_path)
    assert set(rows.loc[rows["assignor"] != "optimum", "status"]) == {"timeout"}
    assert set(rows.loc[rows["assignor"] == "optimum", "status"]) == {"ok"}


def test_a_directory_holding_another_sweep_is_refused(spark, first_run):
    _, out, _ = first_run
    other = spec_from_mapping({**SPEC, "seeds": 3})
    with pytest.raises(InputError, match="holds another sweep"):
        run_sweep(other, out, spark=spark, progress=False)


def test_the_bundled_quick_spec(quick_sweep):
    """The README's sweep, as CI runs it: every scenario once, the models never disagree."""
    spec, result = quick_sweep.spec, quick_sweep.result
    rows = read_rows(quick_sweep.out)
    assert rows["scenario_id"].nunique() == spec.scenarios == result.computed
    assert not rows.duplicated(KEY).any()
    assert not rows["oracle_check"].str.startswith("DISAGREE").any()
    assert set(rows["assignor"]) >= set(spec.assignors) | {"optimum", "optimum-cpsat"}
    assert set(rows["status"]) <= {"ok", "invalid", "timeout", "error"}
    # The only errors are the peer's known finding (kafka-python's round robin, differing subscriptions).
    errors = rows[rows["status"] == "error"]
    assert set(errors["assignor"]) <= {"kafka-python:roundrobin"} and errors["message"].str.startswith("KeyError").all()
    assert {e["assignor"] for e in result.summary} == set(rows["assignor"])
    # The optimum is most balanced on every row; the other reference rows judge no assignment ("-").
    by_name = {e["assignor"]: e for e in result.summary}
    assert by_name["optimum"]["share_most_balanced"] == 1 and by_name["optimum"]["share_valid"] == 1
    references = [name for name in by_name if name.startswith("optimum-")]
    assert {"optimum-cpsat", "optimum-co-partitioned", "optimum-weighted"} <= set(references)
    assert all(by_name[name]["share_most_balanced"] is None for name in references)


def test_counterexample_files_stay_inside_the_directory_whatever_the_assignor_is_called(tmp_path):
    names = [
        "sticky",
        "kafka-python:range",
        "external:python3 /tmp/x.py valid",
        "external:../../../etc/passwd",
        "external-shell:a|b",
        "external:python3 /tmp/x.py valid ",
        "x" * 300,
        "..",
    ]
    folders = set()
    for name in names:
        path = counterexample_path(tmp_path, name, "0123", 2)
        assert path.parent.parent == tmp_path / "counterexamples" and path.name == "0123-r2.json"
        assert path.resolve().is_relative_to((tmp_path / "counterexamples").resolve())
        folders.add(path.parent.name)
    assert len(folders) == len(names)
    assert counterexample_path(tmp_path, "kafka-python:range", "a", 0).parent.name == "kafka-python:range"


def test_external_assignors_in_a_spark_sweep_keep_their_names_and_failures(spark, tmp_path):
    """Partition folders escape an external command's name; rows, reports and failure files get it back."""
    from assignment_oracle.compare.report import tables

    script = tmp_path / "assignor.py"
    script.write_text("import sys\nsys.stderr.write('boom\\n')\nsys.exit(2)\n")
    failing = f"external:{sys.executable} {script}"
    spec = spec_from_mapping(
        {
            "seeds": 2,
            "assignors": ["range", failing, {"name": "mine", "command": [sys.executable, str(script)]}],
            "families": [{"family": "uniform", "grid": {"members": 2, "topics": 1, "partitions": 2}}],
        }
    )
    out = tmp_path / "out"
    run_sweep(spec, out, spark=spark, progress=False)
    rows = tables.load(out)
    assert set(rows["assignor"]) == {"range", failing, "mine", "optimum"}
    assert tables.partitions(out)[1] == sorted(["range", failing, "mine", "optimum"])
    failed = tables.failures(rows, out)
    assert sorted(failed["assignor"]) == sorted([failing, "mine"]) and failed["results"].sum() == 4
    # A spec-defined assignor replays through its command: the command line does not know its name.
    mine = failed[failed["assignor"] == "mine"].iloc[0]
    assert f"--assignors 'external:{sys.executable} {script}'" in mine["replay"]
    failed = failed[failed["assignor"] == failing]
    assert failed["message"].iloc[0].startswith("ExternalAssignorError: exited with status 2 (")
    # The kept stderr file by its name: the report carries no folder of the machine that ran the sweep.
    assert re.search(r"; stderr \(whole in stderr-[0-9a-f]{16}\.txt\): boom$", failed["message"].iloc[0])
    stored = json.loads((out / failed["file"].iloc[0]).read_text())  # relative to the sweep directory
    assert stored["assignor"] == failing and Problem.from_mapping(stored["scenario"]).member_ids == ("m0000", "m0001")


def test_a_peer_without_its_extra_stops_the_sweep_before_spark_starts(monkeypatch, tmp_path):
    """No session, no output: the one-line MissingExtra, not a failed Spark job."""
    monkeypatch.setitem(sys.modules, "kafka", None)
    spec = spec_from_mapping(
        {
            "seeds": 1,
            "assignors": ["range", "kafka-python:range"],
            "families": [{"family": "uniform", "grid": {"members": 2, "topics": 1}}],
        }
    )
    with pytest.raises(MissingExtra, match="kafka-python:range needs the 'kafka-python' extra"):
        run_sweep(spec, tmp_path / "out", spark=object())
    assert not (tmp_path / "out").exists()


def test_a_sweep_without_java_is_one_line_naming_what_to_install(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    from assignment_oracle.compare.sweep.job import spark_session
    from assignment_oracle.problem.errors import MissingRuntime

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java anywhere
    with pytest.raises(MissingRuntime) as err:
        spark_session("local[1]")
    message = str(err.value)
    assert "\n" not in message and "Java 17" in message and "JAVA_HOME" in message and err.value.exit_code == 2
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # a JAVA_HOME without bin/java
    with pytest.raises(MissingRuntime, match="has no bin/java"):
        spark_session("local[1]")
