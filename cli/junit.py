"""JUnit XML for CI: each group judged by ``compare``, ``simulate``, ``sweep`` or ``test-assignor`` as one test case.

Guarantee: the file is well-formed XML in the JUnit schema GitHub Actions (test reporter actions), GitLab
(``artifacts:reports:junit``) and Jenkins (``junit``) read: one ``<testsuites>`` holding one ``<testsuite>``
per command run, one ``<testcase>`` per row, round, group or kind judged, and a ``<failure>`` on each one that
fails, whose ``message`` is the reason in one line and whose text says how to replay it.  Every text from data
(a member, topic or assignor name) is shown through :func:`~assignment_oracle.problem.text.printable` (a
newline or an escape sequence cannot forge a line) and escaped by :mod:`xml.etree` (a ``<`` or ``&`` cannot
forge an element); a character XML 1.0 cannot hold at all is written as its escape.  No timestamps and no
durations: the same run writes the same bytes.

Example::

    cases = [Case("range", "compare.kip54", failure="gap at the balance tier", details="replay: ...")]
    write_junit("report.xml", "compare kip54.json", cases)
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from assignment_oracle.problem.scenario_json import write_output
from assignment_oracle.problem.text import printable

__all__ = ["Case", "junit_text", "write_junit"]

#: What XML 1.0 cannot hold even escaped (C0 controls but tab and newline, lone surrogates, U+FFFE/U+FFFF):
#: each written as a Python-style escape instead.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Case:
    """One test case: a row, a round, a group or a kind judged.

    ``name`` and ``classname`` name it as CI lists it (``classname`` groups cases: the command and what it
    ran on); ``failure``: the reason it fails in one line (``None``: it passed); ``details``: the failure's
    text (the replay command, the counterexample); ``output``: what the case's ``<system-out>`` shows (the
    files written for it)."""

    name: str
    classname: str
    failure: str | None = None
    details: str = ""
    output: str = ""


def _line(text: str) -> str:
    """One line of text for an attribute: escaped as the terminal output is."""
    return printable(str(text))


def _block(text: str) -> str:
    """Several lines for an element's text: each line escaped, the lines kept."""
    return "\n".join(printable(line) for line in str(text).splitlines())


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def junit_text(suite: str, cases: Iterable[Case]) -> str:
    """The JUnit XML of one command run (``suite``: its name, the command line in short) with ``cases``."""
    cases = list(cases)
    failures = sum(case.failure is not None for case in cases)
    root = ET.Element("testsuites", name="assignment-oracle", tests=str(len(cases)), failures=str(failures))
    node = ET.SubElement(
        root, "testsuite", name=_line(suite), tests=str(len(cases)), failures=str(failures), errors="0", skipped="0"
    )
    for case in cases:
        element = ET.SubElement(node, "testcase", name=_line(case.name), classname=_line(case.classname))
        if case.failure is not None:
            failure = ET.SubElement(element, "failure", message=_line(case.failure), type="assignment-oracle")
            failure.text = _block(case.details or case.failure)
        if case.output:
            ET.SubElement(element, "system-out").text = _block(case.output)
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode", xml_declaration=False)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _xml_safe(text) + "\n"


def write_junit(path: str | Path, suite: str, cases: Iterable[Case], *, inputs: tuple[str, ...] = ()) -> Path:
    """Write :func:`junit_text` to ``path`` atomically (never over one of ``inputs``); the path written."""
    write_output(path, junit_text(suite, cases), inputs=inputs)
    return Path(path)
