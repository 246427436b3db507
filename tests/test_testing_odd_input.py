"""``assignment_oracle.testing`` on input no JSON file can hold: integer member ids, an answer that contains
itself, an answer given as a string, a counterexample folder that cannot be written (issue 49)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.json_shape import json_shape_problem
from assignment_oracle.testing import OracleAssertionError, assert_optimal, assert_valid, check_assignor

SCENARIO = {"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}


def test_an_integer_member_id_in_the_answer_is_named_not_a_type_error(tmp_path):
    with pytest.raises(OracleAssertionError) as raised:
        assert_valid(SCENARIO, {1: {"t": [0]}, "b": {"t": [1]}}, folder=tmp_path)
    message = str(raised.value)
    assert "the answer cannot be read" in message
    assert "a key must be a string" in message and "int 1" in message


def test_an_integer_member_id_in_the_scenario_is_bad_input_naming_the_field():
    with pytest.raises(InputError) as raised:
        assert_valid({"topics": {"t": 1}, "members": {7: {"topics": ["t"]}}}, {"7": {"t": [0]}})
    assert "members.7" in str(raised.value) and "must be a string" in str(raised.value)


def test_an_answer_that_contains_itself_is_named(tmp_path):
    answer: dict = {"a": {"t": [0, 1]}}
    answer["b"] = answer
    with pytest.raises(OracleAssertionError) as raised:
        assert_optimal(SCENARIO, answer, folder=tmp_path)
    assert "contains itself" in str(raised.value)


def test_a_string_answer_is_never_read_as_a_file(tmp_path, monkeypatch):
    secret = tmp_path / "secret.json"
    secret.write_text('{"a": {"t": [0]}, "b": {"t": [1]}}')  # a valid answer: reading it would pass
    opened: list[str] = []
    real_open = Path.open

    def watching(self, *args, **kwargs):
        opened.append(str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", watching)
    with pytest.raises(OracleAssertionError) as raised:
        check_assignor(lambda scenario: str(secret), max_examples=2, rounds=1, folder=tmp_path / "out")
    assert "a string is read as JSON text, never as a file name" in str(raised.value)
    assert str(secret) not in opened


def test_a_string_answer_holding_json_text_is_read():
    assert_valid(SCENARIO, '{"a": {"t": [0]}, "b": {"t": [1]}}')


def test_a_path_answer_is_read(tmp_path):
    answer = tmp_path / "answer.json"
    answer.write_text('{"assignment": {"a": {"t": [0]}, "b": {"t": [1]}}}')
    assert_valid(SCENARIO, answer)


def test_the_verdict_survives_a_folder_that_cannot_be_written(tmp_path, monkeypatch):
    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OracleAssertionError) as raised:
        assert_optimal(SCENARIO, {"a": {"t": [0, 1]}, "b": {}}, folder=tmp_path)
    error = raised.value
    assert error.verdict is not None and error.verdict.status == "gap"
    assert error.files == ()
    assert "could not be written" in error.replay and "No space left" in error.replay
    assert "balance" in str(error)  # the tier lines are still there


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ({"m": {"t": [0]}}, None),
        ({"m": {1: [0]}}, "m.1: a key must be a string"),
        ({"m": {"t": [0, {1}]}}, "m.t[1]: a set is not a JSON value"),
        ({"x": float("inf")}, "x: inf is not a JSON number"),
        ({"x": [[], []]}, None),
    ],
)
def test_json_shape(document, expected):
    said = json_shape_problem(document)
    assert (said is None) if expected is None else said.startswith(expected)


def test_json_shape_allows_a_shared_value_but_not_a_cycle():
    shared = [0]
    assert json_shape_problem({"a": shared, "b": shared}) is None
    cycle: list = []
    cycle.append(cycle)
    assert json_shape_problem({"x": cycle}) == "x[0]: contains itself (a circular reference)"


def test_json_shape_refuses_deep_nesting_without_recursing():
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["k"] = {}
        node = node["k"]
    assert "nested deeper than" in json_shape_problem(deep)


def test_the_missing_extra_hint_names_what_this_install_came_from(tmp_path):
    """The distribution is on no package index: the hint names the checkout (this editable install's folder,
    found independently as the folder of pyproject.toml), never ``pip install 'assignment-oracle[X]'``."""
    from assignment_oracle.problem.errors import MissingExtra, install_hint

    checkout = Path(__file__).resolve().parents[1]
    assert (checkout / "pyproject.toml").is_file()
    said = str(MissingExtra("spark", "sweep", "pyspark"))
    assert said.endswith(install_hint("spark"))
    assert "pip install 'assignment-oracle[" not in said
    assert f"'{checkout}[spark]'" in said or "PATH[spark]" in said
