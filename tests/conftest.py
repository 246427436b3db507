import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Shared helpers (brute force, strategies) live next to the tests.
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=True,
)
settings.load_profile("default")

# Every test module that uses the one Spark session or the quick sweep is in the xdist group "spark"
# (its ``pytestmark``): they all run on one worker, so one JVM and one quick sweep serve a run, as
# without workers (pyproject's addopts: ``-n 2 --dist loadgroup``).


def pytest_collection_modifyitems(items):
    """A test that uses Spark's fixtures from a module not in the group would start a second JVM and
    a second quick sweep on the other worker: refused, naming the module to mark."""
    for item in items:
        if {"spark", "quick_sweep"} & set(getattr(item, "fixturenames", ())):
            if not any(mark.args == ("spark",) for mark in item.iter_markers("xdist_group")):
                raise pytest.UsageError(
                    f"{item.nodeid} uses Spark: mark its module with pytest.mark.xdist_group('spark')"
                )


@pytest.fixture(scope="session")
def spark():
    """One Spark session (local mode, two task slots) for every test that needs Spark."""
    from assignment_oracle.compare.sweep.job import spark_session

    session = spark_session("local[2]")
    yield session
    session.stop()


@dataclass(frozen=True)
class QuickSweep:
    spec: object
    out: Path
    result: object


@pytest.fixture(scope="session")
def quick_sweep(spark, tmp_path_factory):
    """The bundled quick sweep, run once per test session (the README's main job, as CI runs it).

    Under ``$ASSIGNMENT_ORACLE_TEST_ARTIFACTS`` (set by .ci/run) the sweep is kept in its ``sweep-quick/``
    (an old one there removed first), with what tests write next to it (the report and its screenshot).
    """
    from assignment_oracle.compare.sweep.job import run_sweep
    from assignment_oracle.compare.sweep.spec import read_spec

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:  # one worker runs the quick sweep; a second one means xdist ignored the "spark" group
        claim = tmp_path_factory.getbasetemp().parent / "quick-sweep-worker"
        try:
            with open(claim, "x", encoding="utf-8") as first:
                first.write(worker)
        except FileExistsError:
            pytest.fail(
                f"the quick sweep ran on {claim.read_text(encoding='utf-8')} and again on {worker}: xdist's "
                "--dist loadgroup ignored the 'spark' group (pytest and pytest-xdist versions, pyproject's pin)",
                pytrace=False,
            )
    spec = read_spec("quick")
    artifacts = os.environ.get("ASSIGNMENT_ORACLE_TEST_ARTIFACTS")
    if artifacts:
        out = Path(artifacts) / "sweep-quick"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
    else:
        out = tmp_path_factory.mktemp("sweep-quick")
    return QuickSweep(spec, out, run_sweep(spec, out, spark=spark, progress=False))


@pytest.fixture(scope="session")
def node_libraries():
    """kafkajs and kafka-node installed where the Node peers look by default (the project's install step,
    ``assignment-oracle install-peers node``: once per machine, then reused), for tests that replay them in
    other processes (the bug corpus, its notebook).  Without node or npm: skipped, except under CI."""
    from assignment_oracle.heuristics import node_peers

    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        message = f"the Node peers need {', '.join(missing)} on PATH"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{message} (CI=true: never skipped)", pytrace=False)
        pytest.skip(message)
    return node_peers.install()


@pytest.fixture(scope="session")
def go_libraries():
    """sarama and kafka-go's driver built where the Go peers look by default (the project's install step,
    ``assignment-oracle install-peers go``: about a minute once per machine, then reused).  Off Linux x86-64
    (the pinned Go toolchain's platform): skipped, except under CI."""
    from assignment_oracle.heuristics import go_peers
    from assignment_oracle.problem.errors import MissingRuntime

    try:
        return go_peers.install()
    except MissingRuntime as err:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{err} (CI=true: never skipped)", pytrace=False)
        pytest.skip(str(err))
