"""Names that try to forge the tool's output (issue 25): newlines, carriage returns, ANSI escapes, bells
and bidi overrides in topic, member, rack and instance names, through every command that prints for
people.  Nothing a scenario contains may reach the screen raw: every such character is shown escaped,
no output line begins with text a name carried, and the JSON outputs keep every name exactly."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignment_oracle.cli import main
from assignment_oracle.problem.text import printable

TOPIC = "t\nFORGED-T\x1b[2J"
OTHER = "u\x07\u202e"
MEMBER = "m\nFORGED-M\x1b]0;title\x07"
LIAR = "b\nFORGED verdict: optimal on every tier (exit 0)"
RACK = "r\rFORGED-R\u202e"
INSTANCE = "i\nFORGED-I\x9b"
SCENARIO = {
    "topics": {TOPIC: {"partitions": 3, "racks": [[RACK], ["r2"], ["r2"]]}, OTHER: 2},
    "members": {
        MEMBER: {"topics": [TOPIC, OTHER], "owned": {TOPIC: [0, 1, 2]}, "generation": 1, "rack": RACK},
        LIAR: {"topics": [TOPIC, OTHER], "rack": "r2", "instance_id": INSTANCE},
        "c": {"topics": [OTHER], "owned": {OTHER: [0, 1]}, "generation": 1, "rack": "r2"},
    },
}
#: Valid but not optimal (all of TOPIC on one member): check and explain have something to say.
ASSIGNMENT = {"assignment": {MEMBER: {TOPIC: [0, 1, 2]}, LIAR: {}, "c": {OTHER: [0, 1]}}}
#: Invalid (a partition twice, one missing): the violations name members and topics.
INVALID = {"assignment": {MEMBER: {TOPIC: [0, 1]}, LIAR: {TOPIC: [1]}, "c": {OTHER: [0, 1]}}}
HISTORY = {
    "topics": SCENARIO["topics"],
    "members": {name: {"topics": m["topics"]} for name, m in SCENARIO["members"].items()},
    "rounds": [[{"bounce": MEMBER}], [{"leave": LIAR}]],
}

#: What may not appear raw in output meant for people (the newline ends lines of the tool's own).
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
CARRIED = ("FORGED",)


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_unforgeable(text: str) -> None:
    assert not RAW.search(text), f"raw control character in: {text!r}"
    forged = [line for line in text.splitlines() if line.lstrip().startswith(CARRIED)]
    assert not forged, forged


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, document in (
        ("scenario", SCENARIO),
        ("assignment", ASSIGNMENT),
        ("invalid", INVALID),
        ("history", HISTORY),
    ):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(document))
    return paths


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "{scenario}", "{assignment}"),
        ("check", "{scenario}", "{invalid}"),
        ("check", "{scenario}", "{assignment}", "--objective", "stickiness,balance,rack"),
        ("check", "{scenario}", "{assignment}", "--max-moves", "1"),
        ("compare", "{scenario}"),
        ("compare", "{scenario}", "--objective", "balance,stickiness"),
        ("explain", "{scenario}", "{assignment}"),
        ("explain", "{scenario}", "{invalid}"),
        ("explain", "{scenario}", "{assignment}", "--objective", "stickiness,balance"),
        ("simulate", "{history}", "--assignor", "cooperative-sticky"),
        ("simulate", "{history}", "--assignor", "sticky-kip54"),
    ],
    ids=lambda argv: " ".join(a for a in argv if not a.startswith("{")),
)
def test_no_name_forges_a_line_of_human_output(capsys, files, argv):
    code, text = run(capsys, *(a.format(**files) for a in argv))
    assert code in (0, 1, 3), text
    assert_unforgeable(text)


def test_names_are_shown_escaped_not_dropped(capsys, files):
    _, text = run(capsys, "check", str(files["scenario"]), str(files["invalid"]))
    assert f"duplicated: {printable(TOPIC)}-1" in text and printable(LIAR) in text


@pytest.mark.parametrize(
    "argv",
    [
        ("solve", "{scenario}"),
        ("check", "{scenario}", "{assignment}", "--json"),
        ("compare", "{scenario}", "--json"),
        ("explain", "{scenario}", "{assignment}", "--json"),
        ("assign", "{scenario}", "--assignor", "sticky"),
        ("simulate", "{history}", "--assignor", "sticky", "--json"),
    ],
    ids=lambda argv: " ".join(a for a in argv if not a.startswith("{")),
)
def test_json_outputs_keep_every_name_exactly(capsys, files, argv):
    code = main([a.format(**files) for a in argv])
    out = capsys.readouterr().out
    assert code in (0, 1, 3)
    document = json.loads(out)
    strings = set()
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            strings.update(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            strings.add(value)
    assert {MEMBER, TOPIC} & strings, sorted(strings)[:20]  # exact, not escaped
    assert not any("\\x1b" in s or "\\n" in s for s in strings)


def unescaped(shown: str) -> str:
    named = {"n": "\n", "r": "\r", "t": "\t"}
    return re.sub(
        r"\\(n|r|t|x[0-9a-f]{2}|u[0-9a-f]{4})",
        lambda m: named.get(m.group(1)) or chr(int(m.group(1)[1:], 16)),
        shown,
    )


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_printable_escapes_exactly_the_control_characters(name):
    shown = printable(name)
    assert not RAW.search(shown) and "\n" not in shown
    if not RAW.search(name) and "\n" not in name:
        assert shown == name  # anything else is shown as given
    if "\\" not in name:
        assert unescaped(shown) == name  # nothing lost: the escapes read back to the name
