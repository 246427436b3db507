"""Rows of ``compare``: statuses, bounded runs, the optimum first."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time

import pytest

from assignment_oracle.compare.judge.evaluate import ERROR, INVALID, OK, OPTIMUM, TIMEOUT, compare, evaluate
from assignment_oracle.heuristics import ASSIGNORS, Assignor
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Assignment

PROBLEM = Problem.from_mapping(
    {
        "topics": {"t": 4},
        "members": {
            "a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 1},
            "b": {"topics": ["t"], "owned": {"t": [3]}, "generation": 1},
        },
    }
)


def forever(problem):
    while True:
        time.sleep(0.01)


def crash(problem):
    raise ZeroDivisionError("boom")


def everything_to_a(problem):
    return Assignment({"a": {"t": (0, 1, 2, 3)}})


def entry(name, fn):
    return Assignor(name, fn, "test", "kafka-balance", "eager", "test assignor")


@pytest.mark.parametrize("isolation", ["auto", "process"])
def test_a_loop_that_never_ends_is_a_timeout_not_a_hang(isolation):
    start = time.perf_counter()
    row = evaluate(PROBLEM, entry("forever", forever), time_limit=1.0, isolation=isolation)
    assert row.status == TIMEOUT and "did not finish in 1 s" in row.message
    assert time.perf_counter() - start < 30
    assert row.verdict is None
    # Kafka's balance condition always applies: no assignment breaks it.
    assert row.guarantee.applies and not row.guarantee.kept and "no assignment" in row.guarantee.reason


def test_a_crash_breaks_a_guarantee_only_where_it_applies():
    identical = evaluate(PROBLEM, Assignor("c", crash, "test", "identical-subscriptions-balance", "eager", "t"))
    differing = Problem.from_mapping(
        {"topics": {"t": 2, "u": 1}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t", "u"]}}}
    )
    elsewhere = evaluate(differing, Assignor("c", crash, "test", "identical-subscriptions-balance", "eager", "t"))
    assert identical.status == elsewhere.status == "error"
    assert identical.guarantee.applies == all(m.topics == PROBLEM.members[0].topics for m in PROBLEM.members)
    assert not elsewhere.guarantee.applies and elsewhere.guarantee.kept  # kept vacuously, as for any assignor


def test_the_alarm_cannot_be_swallowed_and_is_cleaned_up():
    def stubborn(problem):
        while True:
            try:
                time.sleep(0.01)
            except Exception:  # an assignor that swallows errors still stops
                pass

    row = evaluate(PROBLEM, entry("stubborn", stubborn), time_limit=0.5)
    assert row.status == TIMEOUT
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.default_int_handler, None)


def test_off_the_main_thread_the_limit_still_holds():
    import threading

    result = {}
    thread = threading.Thread(
        target=lambda: result.setdefault("row", evaluate(PROBLEM, entry("forever", forever), time_limit=0.5))
    )
    thread.start()
    thread.join(30)
    assert result["row"].status == TIMEOUT


class Picky(ValueError):
    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")


def raises(exception):
    def assign(problem):
        raise exception

    return assign


@pytest.mark.parametrize(
    "exception, message",
    [
        (ZeroDivisionError("boom"), "ZeroDivisionError: boom"),
        (KeyError("k"), "KeyError: 'k'"),
        (Picky(1, 2), "Picky: 1 and 2"),  # a constructor that cannot be called with the message alone
        (json.JSONDecodeError("Expecting value", "x", 0), "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_a_crash_is_the_same_error_row_bounded_or_not(exception, message):
    here = evaluate(PROBLEM, entry("crash", raises(exception)))
    alarm = evaluate(PROBLEM, entry("crash", raises(exception)), time_limit=10)
    forked = evaluate(PROBLEM, entry("crash", raises(exception)), time_limit=10, isolation="process")
    assert (
        (here.status, here.message)
        == (alarm.status, alarm.message)
        == (forked.status, forked.message)
        == (ERROR, message)
    )


def test_returning_something_else_is_an_error_row():
    for limit, isolation in ((None, "auto"), (10, "auto"), (10, "process")):
        row = evaluate(PROBLEM, entry("dict", lambda problem: {"a": {"t": [0]}}), time_limit=limit, isolation=isolation)
        assert row.status == ERROR and row.message == "TypeError: returned dict, not an Assignment"


def test_a_killed_child_is_an_error_row():
    row = evaluate(
        PROBLEM, entry("dies", lambda problem: os.kill(os.getpid(), signal.SIGKILL)), time_limit=10, isolation="process"
    )
    assert row.status == ERROR and "signal 9" in row.message


def test_valid_with_a_broken_guarantee_and_invalid_are_told_apart():
    row = evaluate(PROBLEM, entry("greedy", everything_to_a))
    assert row.status == OK and not row.guarantee.kept and row.verdict.measures["spread"] == 4
    half = evaluate(PROBLEM, entry("half", lambda problem: Assignment({"a": {"t": (0, 1)}})))
    assert half.status == INVALID and not half.verdict.valid and not half.guarantee.kept
    assert [v["kind"] for v in half.verdict.violation_details] == ["missing"]


def test_bounded_runs_work_inside_a_daemonic_pool_worker():
    with multiprocessing.get_context("fork").Pool(1) as pool:
        status, message = pool.apply(_bounded_status)
    assert status == TIMEOUT and "did not finish" in message


def _bounded_status():
    row = evaluate(PROBLEM, entry("forever", forever), time_limit=0.5, isolation="process")
    return row.status, row.message


@pytest.mark.parametrize("limit", [0, -1, float("inf"), float("nan"), 1e12])
def test_nonsense_time_limits_are_refused(limit):
    with pytest.raises(ValueError, match="time_limit must be"):
        evaluate(PROBLEM, "sticky", time_limit=limit)


def test_bounded_and_unbounded_runs_agree():
    for name in ("sticky", "cooperative-sticky"):
        fast, forked = evaluate(PROBLEM, name), evaluate(PROBLEM, name, time_limit=30)
        assert fast.to_mapping(timing=False) == forked.to_mapping(timing=False)


def test_compare_puts_the_optimum_first_and_covers_every_assignor():
    result = compare(PROBLEM)
    names = [row.assignor for row in result.rows]
    assert names == [OPTIMUM] + list(ASSIGNORS)
    best = result.rows[0]
    measures = best.verdict.measures
    assert measures["most_balanced"] and measures["retained"] == measures["optimal_retained"] == 3
    sticky = next(r for r in result.rows if r.assignor == "sticky")
    assert sticky.verdict.measures["moved"] == 1 and sticky.verdict.measures["max_topic_spread"] == 0
    stream = next(r for r in result.rows if r.assignor == "stream-join-sticky")
    assert stream.status == OK  # one topic: nothing is left out by design here
