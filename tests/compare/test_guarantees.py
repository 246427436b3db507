"""Each guarantee check can fail, says why, and holds on the oracle's own optimum."""

from __future__ import annotations

from hypothesis import given, settings
from strategies import problems

from assignment_oracle.compare.judge.guarantees import GUARANTEES, check_guarantee
from assignment_oracle.heuristics.registry import GUARANTEE_NAMES
from assignment_oracle.optimal import solve
from assignment_oracle.problem import Problem
from assignment_oracle.problem.model import Assignment


def problem_of(topics, subscriptions, owned=None):
    members = {m: {"topics": ts} for m, ts in subscriptions.items()}
    for m, claims in (owned or {}).items():
        members[m].update(owned=claims, generation=1)
    return Problem.from_mapping({"topics": topics, "members": members})


def test_per_topic_balance_flags_uneven_shares_and_split_copartitions():
    problem = problem_of({"a": 3, "b": 3}, {"x": ["a", "b"], "y": ["a", "b"]})
    uneven = Assignment({"x": {"a": (0, 1, 2), "b": (0, 1)}, "y": {"b": (2,)}})
    result = check_guarantee("per-topic-balance", problem, uneven)
    assert not result.kept and "topic a" in result.reason
    split = Assignment({"x": {"a": (0, 1), "b": (1, 2)}, "y": {"a": (2,), "b": (0,)}})
    result = check_guarantee("per-topic-balance", problem, split)
    assert not result.kept and "co-partitioned" in result.reason


def test_identical_subscriptions_balance_is_conditional():
    differing = problem_of({"a": 2}, {"x": ["a"], "y": []})
    result = check_guarantee("identical-subscriptions-balance", differing, Assignment({"x": {"a": (0, 1)}}))
    assert not result.applies and result.kept
    same = problem_of({"a": 3}, {"x": ["a"], "y": ["a"]})
    result = check_guarantee("identical-subscriptions-balance", same, Assignment({"x": {"a": (0, 1, 2)}}))
    assert result.applies and not result.kept and "most balanced [2, 1]" in result.reason


def test_kafka_balance_flags_a_member_that_could_take_more():
    problem = problem_of({"a": 3}, {"x": ["a"], "y": ["a"]})
    result = check_guarantee("kafka-balance", problem, Assignment({"x": {"a": (0, 1, 2)}}))
    assert not result.kept
    invalid = check_guarantee("kafka-balance", problem, Assignment({"x": {"a": (0, 1)}}))
    assert not invalid.kept and invalid.reason.startswith("not valid: missing")


def test_cooperative_kafka_balance_judges_every_rebalance_on_what_members_hold():
    """Kafka's CooperativeStickyAssignorTest case: consumer1 and consumer2 both claim topic-0 at
    generation 1.  Claim resolution gives it to nobody, yet both still consume it."""
    problem = Problem.from_mapping(
        {
            "topics": {"topic": 3},
            "members": {
                "consumer1": {"topics": ["topic"], "owned": {"topic": [0, 1]}, "generation": 1},
                "consumer2": {"topics": ["topic"], "owned": {"topic": [0, 2]}, "generation": 1},
                "consumer3": {"topics": ["topic"]},
            },
        }
    )
    final = Assignment({"consumer1": {"topic": (1,)}, "consumer2": {"topic": (2,)}, "consumer3": {"topic": (0,)}})
    first = Assignment({"consumer1": {"topic": (1,)}, "consumer2": {"topic": (2,)}, "consumer3": {}})
    at_once = check_guarantee("cooperative-kafka-balance", problem, final)  # one rebalance: a handoff
    assert not at_once.kept and "topic-0 given to consumer3 while consumer1, consumer2 still held it" in at_once.reason
    assert check_guarantee("kafka-balance", problem, final).kept  # the eager guarantee sees nothing wrong
    two_steps = check_guarantee("cooperative-kafka-balance", problem, final, rounds=[first, final])
    assert two_steps.kept, two_steps.reason
    # Safe rounds do not excuse an unbalanced end state.
    lopsided = Assignment({"consumer1": {"topic": (0, 1, 2)}, "consumer2": {}, "consumer3": {}})
    stay = Assignment({"consumer1": {"topic": (1,)}, "consumer2": {}, "consumer3": {}})
    result = check_guarantee("cooperative-kafka-balance", problem, lopsided, rounds=[stay, lopsided])
    assert not result.kept and "lighter" in result.reason


def test_stream_join_flags_split_numbers_and_lost_stickiness():
    problem = problem_of(
        {"c": 2, "v": 2}, {"x": ["c", "v"], "y": ["c", "v"]}, {"x": {"c": [0], "v": [0]}, "y": {"c": [1], "v": [1]}}
    )
    split = Assignment({"x": {"c": (0,), "v": (1,)}, "y": {"c": (1,), "v": (0,)}})
    assert "split" in check_guarantee("stream-join", problem, split).reason
    swapped = Assignment({"x": {"c": (1,), "v": (1,)}, "y": {"c": (0,), "v": (0,)}})
    result = check_guarantee("stream-join", problem, swapped)
    assert not result.kept and "the oracle keeps 2" in result.reason
    kept = Assignment({"x": {"c": (0,), "v": (0,)}, "y": {"c": (1,), "v": (1,)}})
    assert check_guarantee("stream-join", problem, kept).kept


@settings(max_examples=80)
@given(problem=problems(max_assignments=None))
def test_the_optimum_keeps_every_balance_guarantee(problem):
    """Most balanced implies Kafka's local condition and exact balance: the oracle's answer passes."""
    optimum = solve(Problem(problem.topics, problem.members)).assignment  # balance first
    for key in ("identical-subscriptions-balance", "kafka-balance", "exact-balance"):
        assert check_guarantee(key, problem, optimum).kept, key
    assert set(GUARANTEES) == {
        "per-topic-balance",
        "identical-subscriptions-balance",
        "kafka-balance",
        "cooperative-kafka-balance",
        "exact-balance",
        "stream-join",
        "valid",
    }
    assert tuple(GUARANTEES) == GUARANTEE_NAMES  # what assignors may claim is exactly what can be checked
