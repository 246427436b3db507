"""Running the command line in-process and writing a tiny external assignor: what the test-assignor and JUnit
tests share."""

from __future__ import annotations

import shlex
import sys

from assignment_oracle.cli import main


def run(capsys, *argv):
    """``main(argv)``'s exit status (argparse's own refusal included), stdout and stderr."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:  # argparse's own refusal (a bad number)
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def external(tmp_path, name: str, source: str) -> str:
    """``external:`` running ``source`` (Python) with this interpreter."""
    script = tmp_path / f"{name}.py"
    script.write_text(source)
    return f"external:{shlex.join([sys.executable, str(script)])}"
