"""The notebooks: committed without outputs, executed on the quick sweep, rendered as the HTML report."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from assignment_oracle.cli import main
from assignment_oracle.compare.report import figures
from assignment_oracle.compare.report.notebooks import NOTEBOOKS, execute, notebook_path
from assignment_oracle.compare.scenarios.bugs import BUGS

pytestmark = pytest.mark.xdist_group("spark")  # one worker runs every test that uses Spark (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebooks_are_stripped_and_installed(name):
    path = REPO / "notebooks" / f"{name}.ipynb"
    assert notebook_path(name).read_bytes() == path.read_bytes()
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_the_gap_report_takes_its_parameters_from_the_top():
    nb = nbformat.read(notebook_path("gap_report"), as_version=4)
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert "parameters" in first_code.metadata.get("tags", [])
    for name in ("SWEEP_DIR", "RUN_IF_MISSING", "FAMILIES", "ASSIGNORS"):
        assert re.search(rf"^{name} = ", first_code.source, re.M)
    with pytest.raises(ValueError, match="unknown notebook parameter 'SWEEP'"):
        execute("gap_report", {"SWEEP": "x"})


def test_the_bug_corpus_has_a_section_per_entry_and_runs(tmp_path, node_libraries, go_libraries):
    nb = nbformat.read(notebook_path("bug_corpus"), as_version=4)
    headings = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    for name in BUGS:
        assert any(h.startswith(f"## {name}:") for h in headings), name
    steps: list[str] = []
    executed = execute("bug_corpus", cwd=tmp_path, progress=steps.append)
    code = sum(c.cell_type == "code" for c in executed.cells)
    assert steps == [f"cell {k} of {code}" for k in range(1, code + 1)]  # each code cell, in order
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    markdown = [o.data["text/markdown"] for o in outputs if "data" in o and "text/markdown" in o.data]
    verdicts = [m for m in markdown if "**Verdict:**" in m]
    assert len(verdicts) == len(BUGS)
    assert all("**Verdict:** as expected" in m for m in verdicts)


@pytest.fixture(scope="module")
def report_html(quick_sweep, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    html, executed = folder / "report.html", folder / "executed.ipynb"
    code = main(["report", str(quick_sweep.out), "--html", str(html), "--notebook", str(executed)])
    return code, html, executed


def test_report_executes_the_gap_report_and_writes_html_with_every_figure(report_html):
    code, html, executed = report_html
    assert code == 0
    page = html.read_text(encoding="utf-8")
    for title in figures.FIGURES.values():
        assert title in page, title
    assert page.count('class="assignment-oracle-figure"') == len(figures.FIGURES)
    assert "Traceback" not in page
    # Readers get the figures and tables, not the code.
    assert "figures.show(" not in page
    nb = nbformat.read(executed, as_version=4)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells)


def test_report_lists_the_commands_that_replay_counterexamples(report_html):
    _, html, _ = report_html
    page = html.read_text(encoding="utf-8")
    assert "assignment-oracle compare " in page and "assignment-oracle explain " in page


def test_report_bad_input_is_one_line_before_any_kernel_starts(quick_sweep, tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "holds no sweep rows" in err and err.count("\n") == 1
    assert main(["report", str(quick_sweep.out), "--families", "zipfian"]) == 2
    err = capsys.readouterr().err
    assert "--families: 'zipfian' is not in the sweep (present: " in err and err.count("\n") == 1
    assert main(["report", str(quick_sweep.out), "--assignors", "nope"]) == 2
    assert "--assignors: 'nope' is not in the sweep" in capsys.readouterr().err


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (Linux /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _kernels_of(pid: int) -> list[int]:
    """Live ipykernel processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat[1]) == pid and b"ipykernel_launcher" in command and stat[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    "signal_name, code, line", [("SIGINT", 130, "interrupted (Ctrl-C)"), ("SIGTERM", 143, "terminated (SIGTERM)")]
)
def test_a_report_stopped_while_its_kernel_runs_says_one_line_and_leaves_no_kernel(
    quick_sweep, tmp_path, signal_name, code, line
):
    """Ctrl-C (to the whole process group, as a terminal sends it) or SIGTERM while the notebook runs:
    the exit code of the signal, one line on stderr (no kernel traceback, no nbclient AssertionError),
    no HTML written, the kernel gone."""
    import os
    import signal
    import subprocess
    import sys
    import time

    html = tmp_path / "report.html"
    argv = [sys.executable, "-m", "assignment_oracle", "report", str(quick_sweep.out), "--html", str(html)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (kernels := _kernels_of(process.pid)) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert kernels, "the report's kernel never started"
    time.sleep(1.0)  # the kernel is running the notebook's first cells
    os.killpg(process.pid, getattr(signal, signal_name))
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code and stderr.decode() == f"assignment-oracle: {line}\n"
    assert not html.exists()
    deadline = time.monotonic() + 10
    while any(map(_alive, kernels)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [k for k in kernels if _alive(k)]
