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

#: Fixtures that start or share this session's Spark: their tests run on one xdist worker (one JVM,
#: one quick sweep per run, as without workers).
SPARK_FIXTURES = {"spark", "quick_sweep"}


def pytest_collection_modifyitems(items):
    for item in items:
        if SPARK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("spark"))


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

    spec = read_spec("quick")
    artifacts = os.environ.get("ASSIGNMENT_ORACLE_TEST_ARTIFACTS")
    if artifacts:
        out = Path(artifacts) / "sweep-quick"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
    else:
        out = tmp_path_factory.mktemp("sweep-quick")
    return QuickSweep(spec, out, run_sweep(spec, out, spark=spark, progress=False))
