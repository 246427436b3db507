"""A correct assignor for docs/testing.md's Python example: the oracle's own optimum, as a client would
answer (``{member: {topic: [partitions]}}``), so every assertion of the example holds."""

from assignment_oracle.testing import optimal_assignment


def assign(scenario: dict) -> dict:
    return optimal_assignment(scenario)
