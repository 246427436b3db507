"""What users see, frozen: the command line's output on every bundled example and on generated groups of each
kind, byte for byte, as it was before the kinds were given one home (issue 48).

The expected bytes are in ``tests/frozen/outputs.json``, written by this file run as a script
(``python tests/test_frozen_outputs.py --freeze``) on main at d7f04b2, before the move.  A refactoring that
changes a byte fails here; a change meant to be seen by users rewrites the file in the same commit and says so
in the CHANGELOG.  The answers of an assignor and of the optimum, the verdicts, the tables and the exit codes
are all in it; nothing timed is (no ``--timing``; compare's table is frozen without its time column).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from assignment_oracle.cli import bundled_examples, main

pytestmark = pytest.mark.xdist_group("spark")  # the quick sweep runs on one worker (tests/conftest.py)

FROZEN = Path(__file__).parent / "frozen" / "outputs.json"
#: The quick sweep's rows, a SHA-256 per row of its canonical JSON (wall times and version left out), keyed by
#: scenario, round and assignor.
FROZEN_ROWS = Path(__file__).parent / "frozen" / "quick-sweep-rows.json"
#: Columns that are not the same from run to run.
UNFROZEN_COLUMNS = ("wall_time_s", "oracle_wall_time_s", "version")
EXAMPLES = {p.stem: p for p in bundled_examples()}

#: Generated groups: (name, family, seed, params): one or more of each kind.
GENERATED = (
    ("subsets-racks", "random-subsets", 3, ("racks=2", "previous=balanced", "members=5", "topics=3")),
    ("weighted", "weighted", 2, ("members=3", "topics=2", "partitions=[1,4]", "previous=balanced")),
    ("join-groups", "join-groups", 1, ("members=4", "previous=balanced")),
    ("stream-join", "stream-join", 1, ("members=3", "pairs=2", "partitions=3")),
    (
        "zombies",
        "uniform",
        5,
        ("members=4", "topics=2", "partitions=3", "zombies=1", "generation=2", "previous=balanced"),
    ),
    ("streams", "streams", 1, ("previous=true", "members=3", "processes=2")),
    ("streams-tags", "streams", 2, ("tags=true", "previous=true")),
    ("share", "share", 1, ("previous=true", "heterogeneous=true")),
    ("share-plain", "share", 4, ("members=3",)),
)


def _run(argv: list[str]) -> dict:
    """One command in this process: its exit code, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return {"argv": argv, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def _commands(folder: Path) -> list[list[str]]:
    """Every command frozen, in order; files a command writes go into ``folder`` (named relative to it)."""
    runs: list[list[str]] = []
    scenarios: list[tuple[str, str]] = [(name, str(path)) for name, path in sorted(EXAMPLES.items())]
    for name, family, seed, params in GENERATED:
        target = folder / f"{name}.json"
        argv = ["generate", family, "--seed", str(seed), "-o", str(target)]
        for p in params:
            argv += ["--param", p]
        runs.append(argv)
        scenarios.append((name, str(target)))
    for name, path in scenarios:
        solution = str(folder / f"{name}.solution.json")
        runs.append(["solve", path])
        runs.append(["solve", path, "-o", solution])
        runs.append(["check", path, solution])
        runs.append(["check", path, solution, "--json"])
        runs.append(["compare", path, "--json"])
        runs.append(["compare", path])
    return runs


def outputs(folder: Path) -> list[dict]:
    """Each command's exit code and output, the folder's name replaced by ``{folder}``; a file a command wrote
    is frozen as its bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    cwd = os.getcwd()
    found = []
    for argv in _commands(folder):
        if argv[0] == "generate" or "-o" in argv:
            written = Path(argv[argv.index("-o") + 1])
            if written.exists():
                written.unlink()
        os.chdir(folder)  # nothing depends on where it runs
        try:
            result = _run(argv)
        finally:
            os.chdir(cwd)
        if "-o" in argv:
            written = Path(argv[argv.index("-o") + 1])
            result["written"] = written.read_text() if written.exists() else None
        text = json.dumps(result, ensure_ascii=False)
        found.append(json.loads(text.replace(str(folder), "{folder}")))
    return found


#: A wall time in compare's table (its last column).
_TIME = re.compile(r"\b\d+(?:\.\d+)? (?:ms|s)\b")


def _untimed(entry: dict) -> dict:
    """compare's table without its wall times (the column's width follows them); the rest byte for byte."""
    if entry["argv"][0] == "compare" and "--json" not in entry["argv"]:
        text = _TIME.sub("T", entry["stdout"])
        entry["stdout"] = re.sub(r"-{2,}", "--", re.sub(r" {2,}", "  ", text))
    return entry


def _examples_path(text: str) -> str:
    examples = str(next(iter(EXAMPLES.values())).parent)
    return text.replace(examples, "{examples}")


def normalised(found: list[dict]) -> list[dict]:
    return [_untimed(json.loads(_examples_path(json.dumps(entry, ensure_ascii=False)))) for entry in found]


def sweep_rows(out: Path) -> dict[str, str]:
    """The quick sweep's rows in ``out`` as canonical JSON lines, keyed ``scenario_id/round/assignor``."""
    import math

    from assignment_oracle.compare.sweep.job import read_rows

    frame = read_rows(out).drop(columns=list(UNFROZEN_COLUMNS))
    found = {}
    for row in frame.to_dict(orient="records"):
        clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in sorted(row.items())}
        key = f"{row['scenario_id']}/{row['round']}/{row['assignor']}"
        assert key not in found, key
        found[key] = json.dumps(clean, sort_keys=True, default=str)
    return dict(sorted(found.items()))


def test_outputs_are_byte_identical(tmp_path):
    expected = json.loads(FROZEN.read_text())
    found = normalised(outputs(tmp_path))
    assert [e["argv"] for e in found] == [e["argv"] for e in expected]
    for got, want in zip(found, expected):
        assert got == want, f"{' '.join(want['argv'])}: the output changed"


def _digest(row: str) -> str:
    return hashlib.sha256(row.encode("utf-8")).hexdigest()


def test_quick_sweep_rows_are_identical(quick_sweep):
    expected = json.loads(FROZEN_ROWS.read_text())
    found = sweep_rows(quick_sweep.out)
    assert sorted(found) == sorted(expected), "the quick sweep's rows are not the same rows"
    changed = [key for key in expected if _digest(found[key]) != expected[key]]
    assert not changed, f"{len(changed)} of the quick sweep's rows changed, the first {changed[0]}: {found[changed[0]]}"


if __name__ == "__main__":  # python tests/test_frozen_outputs.py --freeze [SWEEP_OUT]
    import tempfile

    if sys.argv[1:2] != ["--freeze"]:
        sys.exit("usage: python tests/test_frozen_outputs.py --freeze [QUICK_SWEEP_OUT]")
    if sys.argv[2:]:
        rows = {key: _digest(row) for key, row in sweep_rows(Path(sys.argv[2])).items()}
        FROZEN_ROWS.write_text(json.dumps(rows, indent=0) + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        FROZEN.parent.mkdir(exist_ok=True)
        FROZEN.write_text(json.dumps(normalised(outputs(Path(tmp))), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {FROZEN}")
