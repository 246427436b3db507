"""The CI oracle's findings, replayed: where a claim does not hold, the counterexample must.

Each ``tests/regressions/*.json`` is the smallest counterexample Hypothesis
shrank to for a claim an assignor does not keep (``regressions_findings``),
with the numbers the oracle reported.  The replay asserts that the finding
still holds and that the numbers are the same; regenerate with
``python tests/regressions/shrink.py`` after an intended change.
"""

from __future__ import annotations

import json
from pathlib import Path

import brute_force
import pytest
from regressions_findings import FINDINGS, measure

from assignment_oracle.problem import Problem

CASES = sorted((Path(__file__).parent / "regressions").glob("*.json"))


def test_every_finding_has_a_stored_case():
    assert {c.stem for c in CASES} == {f.name for f in FINDINGS}


#: Cases whose assignor is a live peer taking seconds (librdkafka's mock cluster): with the slow ones.
LIVE = {"librdkafka-mock-consumer-protocol-leaves-partitions"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(c, marks=pytest.mark.slow) if c.stem in LIVE else c for c in CASES],
    ids=[c.stem for c in CASES],
)
def test_regression_case_replays(path):
    case = json.loads(path.read_text(encoding="utf-8"))
    assert case["finding"] == path.stem
    finding = next(f for f in FINDINGS if f.name == case["finding"])
    assert case["assignor"] == finding.assignor
    problem = Problem.from_mapping(case["scenario"], source=path.name)
    assert finding.holds_for(problem), f"{finding.assignor} no longer shows: {finding.claim}"
    assert measure(problem, case["assignor"]) == case["expected"]
    # The stored optimum is not the oracle's word alone: enumeration agrees.
    best = brute_force.optimum(Problem(problem.topics, problem.members))
    assert list(best.sorted_loads) == case["expected"]["optimal_sorted_loads"]
    assert best.retained == case["expected"]["optimal_retained"]
