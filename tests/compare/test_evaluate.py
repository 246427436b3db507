"""Rows of ``compare``: statuses, bounded runs, the optimum first."""

from __future__ import annotations

import time

from compare.evaluate import ERROR, INVALID, OK, OPTIMUM, TIMEOUT, compare, evaluate
from heuristics import ASSIGNORS, Assignor
from problem import Problem
from problem.model import Assignment

PROBLEM = Problem.from_mapping({"topics": {"t": 4}, "members": {
    "a": {"topics": ["t"], "owned": {"t": [0, 1, 2]}, "generation": 1},
    "b": {"topics": ["t"], "owned": {"t": [3]}, "generation": 1}}})


def forever(problem):
    while True:
        time.sleep(0.01)


def crash(problem):
    raise ZeroDivisionError("boom")


def everything_to_a(problem):
    return Assignment({"a": {"t": (0, 1, 2, 3)}})


def entry(name, fn):
    return Assignor(name, fn, "test", "kafka-balance", "eager", "test assignor")


def test_a_loop_that_never_ends_is_a_timeout_not_a_hang():
    start = time.perf_counter()
    row = evaluate(PROBLEM, entry("forever", forever), time_limit=1.0)
    assert row.status == TIMEOUT and "did not finish in 1 s" in row.message
    assert time.perf_counter() - start < 30
    assert row.verdict is None


def test_a_crash_is_an_error_row_with_the_message():
    row = evaluate(PROBLEM, entry("crash", crash))
    assert row.status == ERROR and row.message == "ZeroDivisionError: boom"
    bounded = evaluate(PROBLEM, entry("crash", crash), time_limit=5)
    assert bounded.status == ERROR and "boom" in bounded.message


def test_an_invalid_result_is_judged_not_dropped():
    row = evaluate(PROBLEM, entry("greedy", everything_to_a))
    assert row.status == OK  # valid, but the guarantee is broken
    assert not row.guarantee.kept and row.verdict.spread == 4


def test_bounded_and_unbounded_runs_agree():
    for name in ("sticky", "cooperative-sticky"):
        fast, forked = evaluate(PROBLEM, name), evaluate(PROBLEM, name, time_limit=30)
        assert fast.to_mapping(timing=False) == forked.to_mapping(timing=False)


def test_compare_puts_the_optimum_first_and_covers_every_assignor():
    result = compare(PROBLEM)
    names = [row.assignor for row in result.rows]
    assert names == [OPTIMUM] + list(ASSIGNORS)
    best = result.rows[0]
    assert best.verdict.most_balanced and best.verdict.retained == best.verdict.optimal_retained == 3
    sticky = next(r for r in result.rows if r.assignor == "sticky")
    assert sticky.verdict.moved == 1 and sticky.verdict.max_topic_spread == 0
    stream = next(r for r in result.rows if r.assignor == "stream-join-sticky")
    assert stream.status in (OK, INVALID)
