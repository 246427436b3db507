"""problem.load: one reader for a scenario or an assignment from a path, standard input, JSON text or a dict."""

import io
import json
import sys

import pytest

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.load import load_assignment, load_scenario, read_document
from assignment_oracle.problem.model import Assignment, Problem
from assignment_oracle.problem.streams import StreamsAssignment, StreamsProblem

SCENARIO = {"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"], "owned": {"t": [2]}}}}
STREAMS = {
    "kind": "streams",
    "subtopologies": {"s": {"tasks": 2, "stateful": True}},
    "standby_replicas": 1,
    "members": {"m1": {"process": "p1"}, "m2": {"process": "p2"}},
}


class _Stdin:
    """Standard input as a byte stream, as sys.stdin is."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def _same_problem(problem: Problem) -> None:
    assert [m.member_id for m in problem.members] == ["a", "b"]
    assert [(t.name, t.partitions) for t in problem.topics] == [("t", 3)]
    assert problem.members[1].owned == (("t", (2,)),)


def test_every_source_reads_the_same_scenario(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(SCENARIO).encode()))
    for source in (str(path), path, "-", json.dumps(SCENARIO), json.dumps(SCENARIO).encode(), SCENARIO):
        _same_problem(load_scenario(source))


def test_a_counterexample_file_is_read_as_its_scenario(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"assignor": "range", "finding": "gap", "scenario": SCENARIO}))
    _same_problem(load_scenario(path))
    bad = {"assignor": "range", "finding": "gap", "scenario": {"topics": {"t": 0}, "members": {}}}
    with pytest.raises(InputError, match=r"^scenario: scenario: topics.t: must be positive, got 0$"):
        load_scenario(bad)


def test_kind_means_a_streams_group_and_its_own_task_limit():
    problem = load_scenario(STREAMS)
    assert isinstance(problem, StreamsProblem)
    assert len(problem.tasks) == 2
    with pytest.raises(InputError, match="more than the limit of 1"):
        load_scenario(STREAMS, max_partitions=1)
    with pytest.raises(InputError, match="more than the limit of 2"):
        load_scenario(SCENARIO, max_partitions=2)


def test_assignment_forms():
    problem = load_scenario(SCENARIO)
    bare = load_assignment({"a": {"t": [0, 1]}, "b": {"t": [2]}}, problem)
    keyed = load_assignment({"assignment": {"a": {"t": [0, 1]}, "b": {"t": [2]}}, "status": "OPTIMAL"})
    assert isinstance(bare, Assignment) and bare.members == keyed.members == {"a": {"t": (0, 1)}, "b": {"t": (2,)}}
    streams = {"members": {"m1": {"active": {"s": [0, 1]}}, "m2": {"standby": {"s": [0]}}}}
    for given, problem in ((streams, None), ({"assignment": streams}, load_scenario(STREAMS))):
        got = load_assignment(given, problem)
        assert isinstance(got, StreamsAssignment)
        assert got.active_of("m1") == (("s", 0), ("s", 1)) and got.standby_of("m2") == (("s", 0),)


@pytest.mark.parametrize(
    "source, message",
    [
        ({"a": {"t": [0, -1]}}, "assignment: a.t[1]: must be non-negative, got -1"),
        ({"assignment": {"a": []}}, "assignment: assignment.a: must be a JSON object, got an array"),
        ([1], "assignment: must be a JSON object, got an array"),
        ('{"a": {"t": [0]}, "a": {}}', 'assignment: duplicate JSON key "a"'),
        (3, "assignment: must be a path, '-', JSON text or a dict, got int"),
    ],
)
def test_bad_assignments_are_one_line_naming_the_field(source, message):
    with pytest.raises(InputError) as err:
        load_assignment(source)
    assert str(err.value) == message


def test_standard_input_errors_name_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(b""))
    with pytest.raises(InputError, match=r"^<stdin>: is empty"):
        read_document("-")
    monkeypatch.setattr(sys, "stdin", _Stdin(b'{"topics": {"t": 1}, "members": {"a": {"topics": "t"}}}'))
    with pytest.raises(InputError, match=r"^<stdin>: members.a.topics: "):
        load_scenario("-")


def test_a_missing_file_names_itself(tmp_path):
    with pytest.raises(InputError, match=r"nope.json: cannot read file"):
        load_scenario(tmp_path / "nope.json")
