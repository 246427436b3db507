"""Balance notions against brute force: the equivalences the oracle relies on."""

import brute_force
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.compare.judge.balance import improving_chain, is_most_balanced, satisfies_kafka_balance_condition
from assignment_oracle.problem import BALANCE_FIRST, Assignment, Problem
from assignment_oracle.problem.metrics import kip54_balance_score, sorted_load_distance, spread, sum_of_squares


@settings(max_examples=400)
@given(problems(objectives=(BALANCE_FIRST,)))
def test_decreasingly_minimal_is_minimal_sum_of_squares_and_more(problem):
    e = brute_force.enumerate_assignments(problem)
    dec_min = brute_force.lexicographic_min(e.sorted_loads)
    squares = (e.loads**2).sum(axis=1)
    is_dec_min = (e.sorted_loads == dec_min).all(axis=1)
    # The same set of assignments minimises the sum of squares ...
    assert np.array_equal(is_dec_min, squares == squares.min())
    # ... and every one of them has minimal max, maximal min and minimal KIP-54 score.
    scores = np.array([kip54_balance_score(row) for row in e.loads])
    if e.loads.shape[1]:
        assert (e.loads.max(axis=1)[is_dec_min] == e.loads.max(axis=1).min()).all()
        assert (e.loads.min(axis=1)[is_dec_min] == e.loads.min(axis=1).max()).all()
    assert (scores[is_dec_min] == scores.min()).all()


@settings(max_examples=300)
@given(problems(objectives=(BALANCE_FIRST,), max_assignments=256))
def test_no_improving_chain_exactly_when_most_balanced(problem):
    best = brute_force.optimum(problem).sorted_loads
    for assignment, loads, _, _ in brute_force.all_assignments(problem, limit=256):
        chain = improving_chain(problem, assignment)
        assert (chain is None) == is_most_balanced(loads, best)
        # Most balanced implies Kafka's local condition (not the other way round).
        if chain is None:
            assert satisfies_kafka_balance_condition(problem, assignment)
        else:
            applied = apply_moves(assignment, chain)
            before, after = sum_of_squares(loads), sum_of_squares(applied.load(m) for m in problem.member_ids)
            assert after < before


def apply_moves(assignment, moves):
    members = {m: {t: list(ps) for t, ps in ts.items()} for m, ts in assignment.members.items()}
    for move in moves:
        members[move.source][move.partition.topic].remove(move.partition.partition)
        members[move.target].setdefault(move.partition.topic, []).append(move.partition.partition)
    return Assignment({m: {t: tuple(ps) for t, ps in ts.items()} for m, ts in members.items()})


def test_local_condition_is_weaker_than_most_balanced():
    # The example: t0 (1 partition), t1 (2); c0 both, c1 only t1, c2 only t0.
    problem = Problem.from_mapping(
        {
            "topics": {"t0": 1, "t1": 2},
            "members": {"c0": {"topics": ["t0", "t1"]}, "c1": {"topics": ["t1"]}, "c2": {"topics": ["t0"]}},
        }
    )
    a = Assignment({"c0": {"t0": (0,)}, "c1": {"t1": (0, 1)}, "c2": {}})
    assert satisfies_kafka_balance_condition(problem, a)
    assert not is_most_balanced([1, 2, 0], [1, 1, 1])
    assert [(str(m.partition), m.source, m.target) for m in improving_chain(problem, a)] == [
        ("t1-0", "c1", "c0"),
        ("t0-0", "c0", "c2"),
    ]


def test_the_9_10_11_chain_gap():
    # T1 (10) subscribed by {M1, M2}, T2 (20) by {M2, M3}: 9/10/11 meets the
    # local condition while 10/10/10 exists (Kafka's balanceTopics notes it).
    problem = Problem.from_mapping(
        {
            "topics": {"T1": 10, "T2": 20},
            "members": {"M1": {"topics": ["T1"]}, "M2": {"topics": ["T1", "T2"]}, "M3": {"topics": ["T2"]}},
        }
    )
    a = Assignment(
        {"M1": {"T1": tuple(range(9))}, "M2": {"T1": (9,), "T2": tuple(range(9))}, "M3": {"T2": tuple(range(9, 20))}}
    )
    assert satisfies_kafka_balance_condition(problem, a)
    chain = improving_chain(problem, a)
    assert chain is not None and len(chain) == 2
    assert sum_of_squares(apply_moves(a, chain).load(m) for m in problem.member_ids) == 300


@given(st.lists(st.integers(0, 50), max_size=12))
def test_kip54_score_is_the_pairwise_sum(loads):
    pairwise = sum(abs(a - b) for i, a in enumerate(loads) for b in loads[i + 1 :])
    assert kip54_balance_score(loads) == pairwise
    assert spread(loads) == (max(loads) - min(loads) if loads else 0)


@given(st.lists(st.integers(0, 9), min_size=1, max_size=8), st.data())
def test_sorted_load_distance_counts_unit_moves(loads, data):
    # Moving k single partitions changes the sorted vector by at most k.
    moved = list(loads)
    k = data.draw(st.integers(0, 5))
    for _ in range(k):
        i = data.draw(st.integers(0, len(moved) - 1))
        j = data.draw(st.integers(0, len(moved) - 1))
        if moved[i] > 0:
            moved[i] -= 1
            moved[j] += 1
    assert sorted_load_distance(loads, moved) <= k
    assert sorted_load_distance(loads, loads) == 0
