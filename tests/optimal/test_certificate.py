"""Certificates: the optimum's verify; nothing else does, whatever the prices."""

from dataclasses import replace

import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems

from assignment_oracle.optimal import Certificate, certify, solve, verify
from assignment_oracle.problem import Assignment, Problem


@settings(max_examples=300)
@given(st.one_of(problems(max_assignments=256), problems(max_assignments=256, racks=True)))
def test_certify_succeeds_exactly_on_optimal_assignments(problem):
    # Completeness and soundness at once: over every valid assignment,
    # prices exist (and verify) if and only if brute force calls it optimal
    # (every objective order, rack locality included).
    best = brute_force.optimum(problem)
    for assignment, loads, kept, cross in brute_force.all_assignments(problem, limit=256):
        certificate = certify(problem, assignment)
        assert (certificate is not None) == brute_force.is_optimal(problem, loads, kept, best, cross)
        if certificate is not None:
            assert verify(problem, assignment, certificate) == ()


@settings(max_examples=300)
@given(st.one_of(problems(max_assignments=256), problems(max_assignments=256, racks=True)))
def test_the_optimums_certificate_proves_nothing_else(problem):
    solution = solve(problem)
    assert verify(problem, solution.assignment, solution.certificate) == ()
    best = brute_force.optimum(problem)
    for assignment, loads, kept, cross in brute_force.all_assignments(problem, limit=256):
        if not brute_force.is_optimal(problem, loads, kept, best, cross):
            assert verify(problem, assignment, solution.certificate) != ()


@settings(max_examples=300)
@given(problems(max_assignments=None), st.data())
def test_tampered_certificates_fail(problem, data):
    solution = solve(problem)
    certificate = solution.certificate
    assignment = solution.assignment
    assert not verify(problem, assignment, certificate)
    W = certificate.balance_weight
    tamper = data.draw(st.sampled_from(["weight", "reward", "member", "price-above", "price-below"]))
    prices = dict(certificate.prices)
    if tamper == "weight":
        bad = replace(certificate, balance_weight=W + data.draw(st.integers(1, 5)))
    elif tamper == "reward":
        reward = certificate.stickiness_reward
        bad = replace(certificate, stickiness_reward=None if reward is not None else 1)
    elif not prices:
        return
    elif tamper == "member":
        del prices[data.draw(st.sampled_from(sorted(prices)))]
        bad = replace(certificate, prices=prices)
    else:
        member = data.draw(st.sampled_from(sorted(prices)))
        load = solution.loads[member]
        # Beyond the marginal cost of the next unit, or below that of the last one.
        if tamper == "price-above":
            prices[member] = W * (2 * load + 1) + data.draw(st.integers(1, 10))
        elif load == 0:
            return
        else:
            prices[member] = W * (2 * load - 1) - data.draw(st.integers(1, 10))
        bad = replace(certificate, prices=prices)
    assert verify(problem, assignment, bad) != ()


def test_an_invalid_assignment_never_verifies():
    problem = Problem.from_mapping({"topics": {"t": 2}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    certificate = solve(problem).certificate
    assert verify(problem, Assignment({"a": {"t": (0, 1)}, "b": {"t": (1,)}}), certificate)
    assert verify(problem, Assignment({"a": {"t": (0,)}, "b": {}}), certificate)
    assert certify(problem, Assignment({"a": {"t": (0,)}, "b": {}})) is None


def test_certificate_round_trips_through_json():
    from assignment_oracle.optimal import certificate_from_mapping

    problem = Problem.from_mapping({"topics": {"t": 5}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    solution = solve(problem)
    again = certificate_from_mapping(solution.certificate.to_mapping())
    assert isinstance(again, Certificate)
    assert verify(problem, solution.assignment, again) == ()
