"""The one runner: every kind of assignor through ``heuristics.run``, every failure one of the documented errors."""

from __future__ import annotations

import sys
import time

import pytest

from assignment_oracle.heuristics import Assignor, external_assignor, get_assignor, run
from assignment_oracle.problem import Problem
from assignment_oracle.problem.errors import (
    AssignorDidNotFinish,
    AssignorError,
    AssignorFailed,
    InputError,
    MissingExtra,
    OracleError,
    SolverError,
    UnknownAssignor,
    install_hint,
)

PROBLEM = Problem.from_mapping(
    {
        "topics": {"t": 3},
        "members": {"a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 1}, "b": {"topics": ["t"]}},
    }
)


def entry(name, assign):
    return Assignor(name, assign, "test", "valid", "eager", "test assignor")


def test_ports_peers_externals_and_cooperative_assignors_share_one_runner(tmp_path):
    script = tmp_path / "everything_to_b.py"
    script.write_text(
        "import json, sys\nrequest = json.load(sys.stdin)\nprint(json.dumps({'assignment': {'b': {'t': [0, 1, 2]}}}))\n"
    )
    kinds = {
        "port": get_assignor("sticky"),
        "peer": get_assignor("kafka-python:range"),
        "external": external_assignor([sys.executable, str(script)], name="mine"),
        "cooperative": get_assignor("cooperative-sticky"),
    }
    for kind, assignor in kinds.items():
        result = run(assignor, PROBLEM, time_limit=30)
        assert result.assignor is assignor and result.problem is PROBLEM and result.wall_time >= 0, kind
        assert sum(result.assignment.load(m) for m in PROBLEM.member_ids) == 3, kind
    cooperative = run("cooperative-sticky", PROBLEM)
    assert len(cooperative.phases) == 2 and cooperative.assignment == cooperative.phases[-1].assignment
    assert run(f"external:{sys.executable} {script}", PROBLEM).assignment.to_mapping() == {
        "a": {},
        "b": {"t": [0, 1, 2]},
    }


@pytest.mark.parametrize("limit, isolation", [(None, "auto"), (10, "auto"), (10, "process")])
def test_a_raise_is_assignor_failed_with_the_same_message_however_it_ran(limit, isolation):
    def boom(problem):
        raise KeyError("t")

    with pytest.raises(AssignorFailed) as err:
        run(entry("boom", boom), PROBLEM, time_limit=limit, isolation=isolation)
    assert str(err.value) == "KeyError: 't'" and err.value.exit_code == 7


@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_the_time_limit_is_assignor_did_not_finish(isolation):
    started = time.monotonic()
    with pytest.raises(AssignorDidNotFinish, match="slow: did not finish in 0.3 s") as err:
        run(entry("slow", lambda problem: time.sleep(20)), PROBLEM, time_limit=0.3, isolation=isolation)
    assert time.monotonic() - started < 10 and err.value.exit_code == 6


def test_the_hierarchy_is_small_and_every_message_one_line():
    errors = [
        InputError("s.json", "members.a", "must be an object"),
        MissingExtra("spark", "sweep", "pyspark"),
        SolverError("boom"),
        UnknownAssignor("nope", ["range"]),
        AssignorDidNotFinish("x"),
        AssignorFailed("y"),
    ]
    for error in errors:
        assert isinstance(error, OracleError) and "\n" not in str(error)
    assert [e.exit_code for e in errors] == [2, 2, 5, 2, 6, 7]
    assert all(isinstance(e, AssignorError) for e in errors[3:])
    assert str(errors[3]) == "unknown assignor 'nope' (known: range, or external:COMMAND)"
    assert str(errors[1]) == "sweep needs the 'spark' extra (pyspark is not installed): " + install_hint("spark")
    with pytest.raises(UnknownAssignor):
        run("no-such-assignor", PROBLEM)
