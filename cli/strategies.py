"""Public Hypothesis strategies for every kind of group: test an assignor against the oracle.

Two shapes for each kind: the project's validated objects (for an assignor written against
:mod:`assignment_oracle.problem`), and plain JSON-shaped scenario dicts (for an assignor written without
this project: it reads what it would read from ``external:``'s stdin).

Consumer groups (:mod:`assignment_oracle.compare.scenarios.strategies`)
    :func:`scenarios` (the bundled families with small parameters, a previous generation and churn:
    start here), :func:`problems` (tiny groups with messy claims, small enough for brute force),
    :func:`rebalances` (a real previous generation, then leaves, joins and zombie claims) and
    :func:`requests` (a tiny group with an objective request): :class:`~assignment_oracle.problem.model.Problem`.
Streams groups (:mod:`assignment_oracle.compare.scenarios.streams_strategies`)
    :func:`streams_scenarios` (dicts) and :func:`streams_problems`
    (the Streams row of :data:`assignment_oracle.problem.kinds.KINDS`).
Share groups (:mod:`assignment_oracle.compare.scenarios.share_strategies`)
    :func:`share_scenarios` (dicts) and :func:`share_problems`
    (the share row of :data:`assignment_oracle.problem.kinds.KINDS`).
Every kind, as JSON
    :func:`json_scenarios` (``kind="consumer"``, ``"streams"`` or ``"share"``): the scenario dict, what
    ``assignment-oracle check`` reads; :data:`KINDS` names the kinds.

Example::

    from hypothesis import given
    from assignment_oracle.strategies import json_scenarios
    from assignment_oracle.testing import assert_optimal

    @given(json_scenarios())
    def test_my_assignor(scenario):
        assert_optimal(scenario, my_assign(scenario))

(:func:`assignment_oracle.testing.check_assignor` runs this for you, round after round.)
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assignment_oracle.compare.scenarios.share_strategies import share_problems, share_scenarios
from assignment_oracle.compare.scenarios.strategies import problems, rebalances, requests, scenarios
from assignment_oracle.compare.scenarios.streams_strategies import streams_problems, streams_scenarios
from assignment_oracle.problem.scenario_json import problem_to_mapping

__all__ = [
    "KINDS",
    "json_scenarios",
    "problems",
    "rebalances",
    "requests",
    "scenarios",
    "share_problems",
    "share_scenarios",
    "streams_problems",
    "streams_scenarios",
]

#: The kinds of group the strategies draw, each with the JSON scenario strategy it is drawn from.
KINDS: dict[str, Any] = {
    "consumer": lambda **options: scenarios(**options).map(problem_to_mapping),
    "streams": lambda **options: streams_scenarios(**{"process_tags": True, **options}),
    "share": lambda **options: share_scenarios(**options),
}


def json_scenarios(kind: str = "consumer", **options: Any) -> st.SearchStrategy[dict]:
    """Scenarios of one kind of group as plain JSON-shaped dicts, each one ``load_scenario`` accepts.

    Parameters
    ----------
    kind:
        ``"consumer"`` (``{"topics": ..., "members": ..., "objective": [...]}``, drawn by :func:`scenarios`:
        the bundled families, with owned partitions and generations), ``"streams"``
        (``{"kind": "streams", "subtopologies": ..., "members": ...}``, drawn by :func:`streams_scenarios`
        with ``process_tags=True``: the members of a process share its client tags, as in Kafka) or
        ``"share"`` (``{"kind": "share", "topics": ..., "members": ...}``, drawn by :func:`share_scenarios`).
    options:
        The keyword options of that strategy (``max_members``, ``max_partitions``, ``family``, ...;
        ``max_processes``, ``max_tasks``, ... for Streams; ``max_topics``, ``assigned``, ... for share groups).

    A consumer topic's value is its partition count, or ``{"partitions": N, "racks": [...]}`` when its
    replicas have racks.  Examples shrink as the underlying strategy's do.
    """
    if kind not in KINDS:
        raise InvalidArgument(f"json_scenarios: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return KINDS[kind](**options)
