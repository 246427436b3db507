"""The heuristic assignors: faithful ports of Kafka's strategies and proposals.

One module per algorithm, each a pure ``assign(problem) -> Assignment`` over
the shared model in :mod:`problem`, with the guarantee it claims and its
source at the top of its docstring:

=====================  ===========================================================
``range``              :mod:`heuristics.range` (RangeAssignor)
``roundrobin``         :mod:`heuristics.roundrobin` (RoundRobinAssignor)
``fair``               :mod:`heuristics.fair` (KIP-49 proposal)
``sticky``             :mod:`heuristics.sticky` (StickyAssignor, KIP-54 + KIP-341)
``sticky-kip54``       :mod:`heuristics.sticky` (before KIP-341)
``cooperative-sticky`` :mod:`heuristics.cooperative_sticky` (KIP-429)
``constrained-sticky`` :mod:`heuristics.constrained_sticky` (identical subscriptions)
``stream-join-sticky`` :mod:`heuristics.stream_join_sticky` (KIP-315 proposal)
=====================  ===========================================================

:data:`heuristics.registry.ASSIGNORS` maps these names to the entry points.
Next to them, judged the same way: :data:`heuristics.registry.PEERS`,
kafka-python's range, round robin and sticky assignors driven through their
real API (:mod:`heuristics.kafka_python`), and any program speaking the
JSON protocol of :mod:`heuristics.external` (``external:COMMAND``).
"""

from assignment_oracle.heuristics.registry import (
    ASSIGNORS,
    PEERS,
    Assignor,
    AssignorRun,
    external_assignor,
    get_assignor,
    run,
)
from assignment_oracle.problem.errors import AssignorDidNotFinish, AssignorFailed, UnknownAssignor

__all__ = [
    "ASSIGNORS",
    "PEERS",
    "Assignor",
    "AssignorDidNotFinish",
    "AssignorFailed",
    "AssignorRun",
    "UnknownAssignor",
    "external_assignor",
    "get_assignor",
    "run",
]
