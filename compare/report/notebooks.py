"""Run the project's notebooks headless and render them as standalone HTML.

``assignment-oracle report DIR --html OUT.html`` is :func:`write_gap_report`:
the gap report notebook (``notebooks/gap_report.ipynb``) executed against
``DIR`` with its parameters set, then exported by nbconvert as one HTML file
whose figures are inline SVG (no image files, nothing fetched to show
them).  The notebooks themselves are installed with the package
(:func:`notebook_path`), so the command works from a wheel as from a
checkout.

Parameters follow papermill's convention: the notebook's cell tagged
``parameters`` holds the defaults, and a cell tagged
``injected-parameters`` with the given values is inserted after it (so
papermill itself can run these notebooks too).  The kernel is this
process's own Python (a kernelspec made on the fly, not whatever
``python3`` kernel the user has installed), so the report always runs the
installed library it was asked from.

A cell that raises stops the run: :class:`NotebookFailed` names the cell
and the error's last line.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.scenario_json import write_output

__all__ = ["NOTEBOOKS", "NotebookFailed", "execute", "notebook_path", "to_html", "write_gap_report"]

#: The notebooks shipped with the package.
NOTEBOOKS = ("gap_report", "bug_corpus")
#: Seconds a single cell may run (the gap report's first cell may run the quick sweep).
CELL_TIMEOUT = 1800


class NotebookFailed(RuntimeError):
    """A notebook cell raised while executing; the message names the cell and the error."""


def notebook_path(name: str) -> Path:
    """The installed notebook ``name`` (one of :data:`NOTEBOOKS`)."""
    if name not in NOTEBOOKS:
        raise ValueError(f"unknown notebook {name!r} (known: {', '.join(NOTEBOOKS)})")
    return Path(str(resources.files("assignment_oracle.notebooks") / f"{name}.ipynb"))


def _parameterized(nb, parameters: Mapping[str, Any]):
    """A copy of ``nb`` with a cell setting ``parameters`` right after the ``parameters`` cell."""
    import nbformat

    nb = copy.deepcopy(nb)
    if not parameters:
        return nb
    tagged = [i for i, cell in enumerate(nb.cells) if "parameters" in cell.get("metadata", {}).get("tags", [])]
    if not tagged:
        raise ValueError("the notebook has no cell tagged 'parameters'")
    declared = _declared_names(nb.cells[tagged[0]].source)
    unknown = sorted(set(parameters) - declared)
    if unknown:
        raise ValueError(f"unknown notebook parameter {unknown[0]!r} (parameters: {', '.join(sorted(declared))})")
    source = "# Parameters given to this run\n" + "\n".join(f"{k} = {v!r}" for k, v in parameters.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    cell.id = "injected-parameters"
    nb.cells.insert(tagged[0] + 1, cell)
    return nb


def _declared_names(source: str) -> set[str]:
    import ast

    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def execute(
    name_or_path: str | Path,
    parameters: Mapping[str, Any] | None = None,
    *,
    cwd: str | Path | None = None,
    timeout: float = CELL_TIMEOUT,
    progress: Callable[[str], None] | None = None,
):
    """The notebook executed with ``parameters`` (an ``nbformat`` node, outputs filled in).

    ``name_or_path``: a name from :data:`NOTEBOOKS` or a notebook file.
    ``cwd``: the kernel's working directory (default: this process's).
    ``progress``: called with ``"cell K of N"`` before each code cell runs (a progress bar's steps).
    Raises :class:`NotebookFailed` when a cell raises.
    """
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    path = Path(name_or_path) if str(name_or_path).endswith(".ipynb") else notebook_path(str(name_or_path))
    nb = _parameterized(nbformat.read(path, as_version=4), parameters or {})
    with tempfile.TemporaryDirectory(prefix="assignment-oracle-kernel-") as kernels:
        spec_dir = Path(kernels) / "assignment-oracle"
        spec_dir.mkdir()
        (spec_dir / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [
                        sys.executable,
                        "-m",
                        "ipykernel_launcher",
                        "-f",
                        "{connection_file}",
                        "--IPKernelApp.log_level=ERROR",
                    ],
                    "display_name": "assignment-oracle (this Python)",
                    "language": "python",
                }
            ),
            encoding="utf-8",
        )
        specs = KernelSpecManager(kernel_dirs=[kernels])
        # Unix sockets in the temporary folder: no TCP port at all, nothing left behind.
        manager = KernelManager(
            kernel_name="assignment-oracle",
            kernel_spec_manager=specs,
            transport="ipc",
            ip=str(Path(kernels) / "kernel"),
        )
        code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]

        def started(cell, cell_index, **_) -> None:
            if progress is not None and cell_index in code:
                progress(f"cell {code.index(cell_index) + 1} of {len(code)}")

        client = NotebookClient(
            nb,
            km=manager,
            timeout=timeout,
            allow_errors=False,
            resources={"metadata": {"path": str(cwd or Path.cwd())}},
            on_cell_start=started,
        )
        # The kernel's own stdout and stderr (its log, a KeyboardInterrupt's traceback when Ctrl-C reaches
        # it) are not the reader's: cell errors come back as messages and are reported from them.  The
        # client runs in a worker thread, where nbclient installs no signal handlers of its own (in the
        # main thread it turns Ctrl-C into a kernel shutdown and then fails on the missing kernel):
        # Ctrl-C and SIGTERM stay this process's, which stops the kernel and exits in one line.
        failures: list[BaseException] = []

        def run() -> None:
            try:
                client.execute(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except BaseException as error:  # handed to the main thread below
                failures.append(error)

        worker = threading.Thread(target=run, name="notebook", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
        except BaseException:
            _stop_kernel(manager)
            raise
        if failures:
            error = failures[0]
            if isinstance(error, CellTimeoutError):
                raise NotebookFailed(
                    f"{path.name}: a cell ran longer than {timeout:g} s: {_last_line(str(error))}"
                ) from None
            if isinstance(error, CellExecutionError):
                raise NotebookFailed(
                    f"{path.name}: {_failed_cell(nb)}: {error.ename}: {_last_line(error.evalue)}"
                ) from None
            raise error
    return nb


def _stop_kernel(manager) -> None:
    """Kill the kernel's process (a stopped report leaves no kernel behind); best effort."""
    process = getattr(getattr(manager, "provisioner", None), "process", None)
    try:
        if process is not None:
            process.kill()
    except OSError:
        pass


def _last_line(text: str) -> str:
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _failed_cell(nb) -> str:
    for index, cell in enumerate(nb.cells):
        if any(output.get("output_type") == "error" for output in cell.get("outputs", [])):
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            return f"cell {index} ({first[:60]!r})"
    return "a cell"


def to_html(nb, *, title: str, show_code: bool = False) -> str:
    """The executed notebook as one HTML document (nbconvert's lab template; figures inline).

    Code cells are hidden unless ``show_code``: the report is for readers,
    the notebook for people who want the code.  The page loads nothing from
    the network (``report.html.j2`` drops the template's CDN scripts), so it
    reads the same offline, in a mail attachment or a CI artifact.
    """
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="lab",
        template_file=str(Path(__file__).with_name("report.html.j2")),
        exclude_input=not show_code,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    return body


def write_gap_report(
    sweep_dir: str | Path,
    html: str | Path,
    *,
    families=None,
    assignors=None,
    counterexamples: int = 10,
    show_code: bool = False,
    notebook: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Execute the gap report against ``sweep_dir`` and write it as HTML to ``html``.

    ``progress``: as :func:`execute`'s (each cell's step, for a progress bar).

    ``sweep_dir`` must already hold a sweep (nothing is run here);
    ``notebook``: also write the executed notebook there.  Returns the HTML
    path.
    """
    sweep_dir = Path(sweep_dir).resolve()
    for target in (html, notebook):
        if target is not None:
            _refuse_sweep_file(sweep_dir, Path(target))
    # The kernel runs where the notebook is written (else the page), and reads the sweep by a path relative
    # to there: the executed notebook opens in Jupyter as it ran, and no absolute path of this machine is
    # written into it.
    here = Path(notebook if notebook is not None else html).resolve().parent
    parameters = {
        "SWEEP_DIR": os.path.relpath(sweep_dir, here),
        "RUN_IF_MISSING": None,
        "FAMILIES": families,
        "ASSIGNORS": assignors,
        "COUNTEREXAMPLES": counterexamples,
    }
    here.mkdir(parents=True, exist_ok=True)
    nb = execute("gap_report", parameters, cwd=here, progress=progress)
    html = Path(html)
    html.parent.mkdir(parents=True, exist_ok=True)
    write_output(html, to_html(nb, title=f"Gap report: {sweep_dir.name}", show_code=show_code))
    if notebook is not None:
        import nbformat

        text = nbformat.writes(nb)
        write_output(notebook, text if text.endswith("\n") else text + "\n")
    return html


#: What a sweep directory holds of its own (compare.sweep.job): never written over by a report.
SWEEP_FILES = ("spec.json", "summary.json", "lock", "spark.log")
SWEEP_FOLDERS = ("rows", "counterexamples", "staged")


def _refuse_sweep_file(sweep_dir: Path, target: Path) -> None:
    """A report written over the sweep's spec, summary, lock, log, rows, staged rows or counterexamples
    would lose the sweep (it could not resume): refused in one line, before anything runs."""
    where = target.resolve()
    own = [sweep_dir / name for name in SWEEP_FILES]
    inside = any(where == folder or folder in where.parents for folder in (sweep_dir / f for f in SWEEP_FOLDERS))
    if where in own or inside:
        raise InputError(str(target), "", f"is one of the sweep's own files in {sweep_dir}: choose another output")
