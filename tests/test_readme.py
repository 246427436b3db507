"""The README's first five minutes are true: every command of its tour runs, and every output line it
shows is a line the command prints today, in the same order (``...`` elides; times are masked)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from assignment_oracle.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "cli" / "examples" / "kip54-example-2-rebalance.json"


def tour() -> list[tuple[list[str], list[str]]]:
    """(argv, the output lines shown) for each ``$ assignment-oracle ...`` of the README's console blocks."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## The first five minutes", 1)[1].split("\n## ", 1)[0]
    steps: list[tuple[list[str], list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:].split("  #", 1)[0]
                steps.append((shlex.split(command)[1:], []))
            elif steps and line.strip() != "...":
                steps[-1][1].append(line)
    return steps


def masked(line: str) -> str:
    """Times masked and runs of spaces and dashes shortened: a time's width moves its column."""
    line = re.sub(r"\d+\.\d+ ms", "T ms", line.rstrip())
    return re.sub(r"-{2,}", "--", re.sub(r" {2,}", "  ", line))


def test_the_tour_has_steps():
    commands = [argv[0] for argv, _ in tour()]
    assert {"demo", "solve", "assign", "check", "compare", "explain"} <= set(commands)


@pytest.mark.parametrize("argv, shown", tour(), ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_each_step_of_the_tour_prints_what_the_readme_shows(tmp_path, monkeypatch, capsys, argv, shown):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLE, tmp_path / "ex.json")
    for before in (["assign", "ex.json", "--assignor", "range", "-o", "range.json"],):
        if argv[0] in ("check", "explain"):
            main(before)
    capsys.readouterr()
    code = main(argv)
    assert code in (0, 1), code
    printed = [masked(line) for line in capsys.readouterr().out.splitlines()]
    position = 0
    for line in (masked(x) for x in shown):
        assert line in printed[position:], f"{' '.join(argv)}: README shows {line!r}, not printed (in order)"
        position = printed.index(line, position) + 1


def test_ci_runs_the_readmes_test_command_and_the_slow_tests_it_leaves_out():
    """The README's second command is a line of .ci/run, verbatim; when it leaves tests out (-m 'not
    slow'), .ci/run runs those too."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(.*?)\n```", text.split("\n## ", 1)[0], re.S)
    assert len(commands) == 2, "the README opens with two commands"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci
    if "-m 'not slow'" in commands[1]:
        assert any(line.endswith("pytest -q -m slow") for line in ci)


#: A command that asks a package index for the distribution by name (``pip install assignment-oracle``,
#: ``pip install 'assignment-oracle[spark]'``, ``pipx install assignment-oracle``): it is on none.
FROM_AN_INDEX = re.compile(r"\bpipx? install (?:-\S+ )*['\"]?assignment-oracle\b(?!/)")


@pytest.mark.parametrize("document", ["README.md", "docs/testing.md"])
def test_the_install_commands_need_no_package_index(document):
    """The distribution is on no package index: every install line installs it from a checkout, a git
    clone or a built wheel, and the page says how to build the wheel."""
    text = (REPO / document).read_text(encoding="utf-8")
    assert FROM_AN_INDEX.findall(text) == [], f"{document} installs assignment-oracle from a package index"
    assert "pip wheel" in text and "assignment_oracle-" in text, f"{document}: no wheel built and installed"
