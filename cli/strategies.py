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

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assignment_oracle.compare.scenarios.share_strategies import (
    SHARE_EVENTS,
    share_problems,
    share_scenarios,
)
from assignment_oracle.compare.scenarios.strategies import (
    CONSUMER_EVENTS,
    Event,
    event_lists,
    play_events,
    problems,
    rebalances,
    requests,
    scenarios,
)
from assignment_oracle.compare.scenarios.streams_strategies import (
    STREAMS_EVENTS,
    streams_problems,
    streams_scenarios,
)
from assignment_oracle.problem.scenario_json import problem_to_mapping

__all__ = [
    "KINDS",
    "MAX_EVENTS",
    "Drawn",
    "event_lists",
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

#: Hostile events drawn per scenario by default (``max_events``): each is one edit, so two keep a counterexample
#: readable while the events of a group's rounds (``check_assignor``'s churn draws as many between rounds)
#: add up to six.
MAX_EVENTS = 2


@dataclass(frozen=True)
class Drawn:
    """How the strategies draw one kind of group: its JSON scenarios, and the hostile events on one."""

    #: ``**options`` -> a strategy of the kind's JSON scenarios (no events).
    scenarios: Callable[..., st.SearchStrategy[dict]]
    #: The kind's events by name, ``"none"`` first (``table[what](scenario, a, b, name)`` edits in place).
    events: dict[str, Callable]

    def event_lists(self, max_events: int = MAX_EVENTS) -> st.SearchStrategy[list[Event]]:
        """Lists of up to ``max_events`` of the kind's events (shrinking towards none)."""
        return event_lists(tuple(self.events), max_events=max_events)

    def apply(self, scenario: dict, events: Iterable[Event], label: str) -> dict:
        """``scenario`` after ``events`` (a copy); what they add is named after ``label``."""
        return play_events(scenario, events, self.events, label)


#: The kinds of group the strategies draw: each one's JSON scenarios and its hostile events.
KINDS: dict[str, Drawn] = {
    "consumer": Drawn(lambda **options: scenarios(**options).map(problem_to_mapping), CONSUMER_EVENTS),
    "streams": Drawn(lambda **options: streams_scenarios(**{"process_tags": True, **options}), STREAMS_EVENTS),
    "share": Drawn(share_scenarios, SHARE_EVENTS),
}


def json_scenarios(
    kind: str = "consumer", *, hostile: bool = True, max_events: int = MAX_EVENTS, **options: Any
) -> st.SearchStrategy[dict]:
    """Scenarios of one kind of group as plain JSON-shaped dicts, each one ``load_scenario`` accepts.

    Parameters
    ----------
    kind:
        ``"consumer"`` (``{"topics": ..., "members": ..., "objective": [...]}``, drawn by :func:`scenarios`:
        the bundled families, with owned partitions and generations), ``"streams"``
        (``{"kind": "streams", "subtopologies": ..., "members": ...}``, drawn by :func:`streams_scenarios`
        with ``process_tags=True``: the members of a process share its client tags, as in Kafka) or
        ``"share"`` (``{"kind": "share", "topics": ..., "members": ...}``, drawn by :func:`share_scenarios`).
    hostile:
        Whether to edit each drawn group by up to ``max_events`` hostile events, the inputs that broke real
        assignors (default: yes).  A consumer group's (``assignment_oracle.compare.scenarios.strategies.
        CONSUMER_EVENTS``): two members claiming one partition at different generations, at the same one, or
        one without a generation; a static member rejoining under a new member id with its claims; members
        leaving (their claims gone) and joining; partitions added; a topic deleted while still subscribed
        and claimed; a member dropping a topic it still claims; a subscription to a topic the metadata lacks;
        an empty subscription; heterogeneous subscriptions; a claim past a topic's count; racks that match
        and racks that do not.  A Streams group's (``STREAMS_EVENTS``): a task active on two members, a task
        in two roles, a standby whose active left, a task the topology no longer has, tasks added, a member
        joining on a process or a new one, standby replicas changed.  A share group's (``SHARE_EVENTS``): a
        held partition no longer assignable or of a topic no longer subscribed, partitions added, a topic
        deleted, empty and heterogeneous subscriptions, a partition held by two members.  A member the events
        add last is the scenario's ``"joining"`` member.
    options:
        The keyword options of that strategy (``max_members``, ``max_partitions``, ``family``, ...;
        ``max_processes``, ``max_tasks``, ... for Streams; ``max_topics``, ``assigned``, ... for share groups).

    A consumer topic's value is its partition count, or ``{"partitions": N, "racks": [...]}`` when its
    replicas have racks.  Examples shrink towards no event (each event towards ``"none"`` and the first
    member, topic and partition), then as the underlying strategy's do.
    """
    if kind not in KINDS:
        raise InvalidArgument(f"json_scenarios: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    drawn = KINDS[kind]
    base = drawn.scenarios(**options)
    if not hostile:
        return base
    if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 0:
        raise InvalidArgument(f"json_scenarios: max_events must be a whole number, 0 or more, got {max_events!r}")
    return st.tuples(base, drawn.event_lists(max_events)).map(lambda d: drawn.apply(d[0], d[1], "e"))
