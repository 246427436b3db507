"""What installing the distribution puts into site-packages: one import name, one copy of each module."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import assignment_oracle

REPO = Path(__file__).resolve().parents[1]
#: The design card's folders at the repository root, each mapped under the namespace.
MAPPED = {
    "problem": "problem",
    "optimal": "optimal",
    "heuristics": "heuristics",
    "compare": "compare",
    "notebooks": "notebooks",
}
#: Modules that need an extra (imported here only if it is installed).
NEEDS = {
    "assignment_oracle.compare.sweep.job": "pyspark",
    "assignment_oracle.compare.report.figures": "matplotlib",
    "assignment_oracle.compare.report.notebooks": "nbclient",
    "assignment_oracle.compare.report.tables": "pandas",
    "assignment_oracle.heuristics.kafka_python": "kafka",
}
#: Files in the mapped folders that are not code and are left out of the wheel on purpose, with why.
NOT_SHIPPED = {
    "notebooks/README.md": "a guide to the folder for readers of the repository; no code reads it",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources it builds.  What runs
    # leave at the root (a sweep's folder, sweep-quick/) is left out there only: a data file named alike
    # (cli/schemas/sweep-summary.json) is a source.
    source = tmp_path_factory.mktemp("source") / "repo"
    everywhere = shutil.ignore_patterns("*.egg-info", "__pycache__", ".hypothesis")
    at_root = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "sweep-*", "ci-artifacts")

    def ignore(folder: str, names: list[str]) -> set[str]:
        return everywhere(folder, names) | (at_root(folder, names) if Path(folder) == REPO else set())

    shutil.copytree(REPO, source, ignore=ignore)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (found,) = out.glob("assignment_oracle-*.whl")
    return found


def test_the_wheel_adds_one_import_name_and_the_console_script(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"assignment_oracle"}
    assert "assignment-oracle = assignment_oracle.cli:command" in scripts
    # The data files travel with their packages.
    for data in (
        "assignment_oracle/examples/kip49-example.json",
        "assignment_oracle/compare/sweep/specs/quick.toml",
        "assignment_oracle/notebooks/gap_report.ipynb",
        "assignment_oracle/problem/model.py",
    ):
        assert data in names, data


def test_every_module_is_one_copy_from_one_place():
    """Importing every module of the namespace loads each from where its package is mapped (the
    repository's folders in an editable install, site-packages otherwise), and nothing under the old
    top-level names, which would be a second copy of the same code."""
    base = Path(assignment_oracle.__file__).resolve().parent
    editable = base == REPO / "cli"

    def home(package: str) -> Path:
        if package not in MAPPED:
            return base
        return REPO / MAPPED[package] if editable else base / package

    packages = [assignment_oracle] + [importlib.import_module(f"assignment_oracle.{p}") for p in MAPPED]
    imported = list(packages)
    for package in packages:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__") or any(
                info.name.startswith(m) and importlib.util.find_spec(NEEDS[m]) is None for m in NEEDS
            ):
                continue
            imported.append(importlib.import_module(info.name))
    assert len(imported) > 40
    for module in imported:
        package = module.__name__.split(".")[1] if "." in module.__name__ else ""
        assert Path(module.__file__).resolve().is_relative_to(home(package)), module.__name__
    stray = sorted(m for m in sys.modules if m.split(".")[0] in set(MAPPED) | {"cli"})
    assert stray == [], stray


def data_files() -> list[str]:
    """Every file of the mapped folders (``cli/`` as ``assignment_oracle``) that is not Python: what git
    tracks, or, outside a git checkout, what is on disk (caches left out)."""
    folders = ["cli", *MAPPED.values()]
    listed = subprocess.run(["git", "ls-files", "-z", *folders], cwd=REPO, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        names = listed.stdout.decode().split("\0")
    else:
        names = [str(p.relative_to(REPO)) for f in folders for p in (REPO / f).rglob("*") if p.is_file()]
    return sorted(
        n for n in names if n and not n.endswith((".py", ".pyc")) and "__pycache__" not in n and n not in NOT_SHIPPED
    )


def in_wheel(path: str) -> str:
    """Where a repository file lands in the wheel (the folders' mapping, pyproject's package-dir)."""
    top, _, rest = path.partition("/")
    return f"assignment_oracle/{rest}" if top == "cli" else f"assignment_oracle/{path}"


def test_every_data_file_of_the_sources_is_in_the_wheel(wheel):
    """A data file the code reads but pyproject's package-data leaves out works in a checkout and fails
    after a wheel install: each one is found in the wheel, under its package."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    files = data_files()
    assert "cli/examples/kip49-example.json" in files and "heuristics/java/AssignorDriver.java" in files
    missing = [f for f in files if in_wheel(f) not in names]
    assert missing == [], f"in the sources, not in the wheel (pyproject's package-data): {missing}"


def test_the_wheel_alone_runs_outside_the_repository(wheel, tmp_path):
    """The wheel unpacked by pip into a folder of its own and run from elsewhere, with the dependencies of
    this environment but without its ``.pth`` files (``python -S``: no editable install's finder), so every
    module and data file comes from the wheel: ``demo``, ``schema``, and ``test-assignor`` on a port."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(target), sysconfig.get_paths()["purelib"]])

    def oracle(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-S", "-m", "assignment_oracle", *argv],
            cwd=away,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    where = subprocess.run(
        [sys.executable, "-S", "-c", "import assignment_oracle; print(assignment_oracle.__file__)"],
        cwd=away,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(target), where.stdout
    demo = oracle("demo")
    assert demo.returncode == 0, demo.stderr
    assert "oracle OPTIMAL" in demo.stdout
    schema = oracle("schema", "scenario")
    assert schema.returncode == 0, schema.stderr
    assert "$defs" in json.loads(schema.stdout)
    judged = oracle(
        "test-assignor", "range", "--guarantee", "per-topic-balance", "--examples", "5", "--junit", "range.xml"
    )
    assert judged.returncode == 0, judged.stdout + judged.stderr
    assert "<testcase" in (away / "range.xml").read_text(encoding="utf-8")
