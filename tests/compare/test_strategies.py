"""The public strategies: the docs example runs, and every family draws valid problems.

The block between the two ``docs/scenarios.md`` markers below is the
README-linked example, verbatim: ``test_the_docs_example_is_this_code``
fails if the two drift apart.
"""

# --- docs/scenarios.md example: start ---
from hypothesis import given

from assignment_oracle.compare.judge.balance import satisfies_kafka_balance_condition
from assignment_oracle.compare.scenarios.strategies import scenarios
from assignment_oracle.heuristics import ASSIGNORS
from assignment_oracle.optimal import solve
from assignment_oracle.problem.metrics import load_vector, sorted_loads
from assignment_oracle.problem.ownership import violations

my_assign = ASSIGNORS["sticky"].assign  # your assignor: assign(problem) -> Assignment


@given(scenarios())
def test_my_assignor_is_valid_and_meets_kafkas_balance_condition(problem):
    assignment = my_assign(problem)
    assert not violations(problem, assignment)
    assert satisfies_kafka_balance_condition(problem, assignment)


@given(scenarios(["uniform", "stream-join"]))  # identical subscriptions
def test_my_assignor_is_as_balanced_as_the_oracle(problem):
    assignment = my_assign(problem)
    assert sorted_loads(load_vector(problem, assignment)) == solve(problem).sorted_loads


# --- docs/scenarios.md example: end ---

import re
from pathlib import Path

import pytest
import strategies as test_strategies
from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assignment_oracle.compare.scenarios import strategies as public_strategies
from assignment_oracle.compare.scenarios.families import FAMILIES, UnknownFamily, generate
from assignment_oracle.compare.scenarios.strategies import _FAMILY_DRAWS
from assignment_oracle.problem import Problem, resolve_claims
from assignment_oracle.problem.model import Assignment

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"


def docs_python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)


def test_the_docs_example_is_this_code():
    source = Path(__file__).read_text()
    example = source.split("# --- docs/scenarios.md example: start ---\n")[1].split("# --- docs/scenarios.md")[0]
    example = example.rstrip("\n") + "\n"  # (the formatter's blank lines before the end marker)
    assert example in docs_python_blocks()


def test_the_docs_adapter_for_a_json_assignor_runs():
    (adapter,) = [block for block in docs_python_blocks() if "def my_assign(problem" in block]
    namespace: dict = {}
    exec(adapter, namespace)  # defines my_assign over a toy JSON-speaking assignor
    problem = generate("uniform", 0, members=3, topics=2, partitions=4)
    assignment = namespace["my_assign"](problem)
    assert isinstance(assignment, Assignment) and not violations(problem, assignment)


def test_every_family_has_a_draw():
    assert set(_FAMILY_DRAWS) == set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=25)
@given(data=st.data())
def test_scenarios_draw_valid_problems_of_every_family(family, data):
    most = data.draw(st.integers(1, 5), label="max_members")
    problem = data.draw(scenarios(family, max_members=most, max_topics=4, max_partitions=6))
    assert isinstance(problem, Problem)
    assert Problem.from_mapping(problem.to_mapping()) == problem  # a well-formed scenario
    assert resolve_claims(problem).dropped == ()  # claims are valid
    assert problem.members and len(problem.members) <= most  # a group, within the bound it was given ...
    if most == 1:  # ... and meets the tightest one exactly: one member, not none
        assert len(problem.members) == 1
    limit = 6 + 2 if family == "stream-join" else 6  # stream-join may grow one topic by 2
    assert all(1 <= t.partitions <= limit for t in problem.topics)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_member_bound_is_reached_not_only_respected(family):
    """The bound flows through: some draw has exactly ``max_members`` members (a strategy that ignored
    the bound, or capped it lower, would pass the ``<= most`` check above and fail here)."""
    from hypothesis import HealthCheck, find

    found = find(
        scenarios(family, max_members=4, max_topics=4, max_partitions=6),
        lambda problem: len(problem.members) == 4,
        settings=settings(max_examples=300, database=None, suppress_health_check=list(HealthCheck)),
    )
    assert len(found.members) == 4


def test_scenarios_shrink_to_small_problems():
    smallest = find(scenarios(), lambda p: len(p.members) >= 3)
    assert len(smallest.members) == 3 and len(smallest.topics) == 1
    assert smallest.total_partitions == 1


@settings(max_examples=40)
@given(scenarios([f for f in FAMILIES if f != "kip49-rolling"], previous=False))
def test_without_previous_generations_nobody_claims(problem):
    assert all(not m.owned and m.generation is None for m in problem.members)


@settings(max_examples=20)
@given(scenarios("kip49-rolling", previous=False))
def test_the_rolling_update_always_starts_from_a_previous_generation_without_churn(problem):
    assert all(m.generation is not None for m in problem.members)
    assert [int(m.member_id[1:]) for m in problem.members] == list(range(len(problem.members)))


def test_bad_arguments_fail_when_the_strategy_is_built():
    with pytest.raises(UnknownFamily, match="known: uniform"):
        scenarios("zipfian")
    with pytest.raises(InvalidArgument, match=r"^scenarios: max_members must be a positive integer, got 0$"):
        scenarios(max_members=0)
    with pytest.raises(InvalidArgument, match="at least one family"):
        scenarios([])


def test_the_tests_import_the_public_strategies():
    assert test_strategies.problems is public_strategies.problems
    assert test_strategies.rebalances is public_strategies.rebalances


@settings(max_examples=40)
@given(scenarios())
def test_by_default_no_join_groups_or_weights_are_drawn(problem):
    # Join groups and weights are drawn only when their family is named (optimal.solve leaves them out).
    assert problem.join_groups == () and problem.weights == ()
