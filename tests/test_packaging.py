"""What installing the distribution puts into site-packages: one import name, one copy of each module."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import shutil
import subprocess
import sys
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


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources it builds.
    source = tmp_path_factory.mktemp("source") / "repo"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", "sweep-*"
        ),
    )
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
