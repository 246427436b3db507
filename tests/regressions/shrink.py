"""Regenerate the regression cases: the smallest counterexample Hypothesis shrinks to, per finding.

Run by hand when an assignor changes on purpose (the replay test then
fails and shows the new numbers)::

    python tests/regressions/shrink.py [FINDING ...]

Each finding is a claim an assignor does not keep; Hypothesis searches
arbitrary groups (differing subscriptions, stale and tied claims) for a
counterexample and shrinks it.  The case is written next to this file with
the numbers the oracle reported, which ``test_regressions.py`` replays.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the tests folder: its strategies and findings

from hypothesis import HealthCheck, find, settings
from hypothesis import strategies as st
from regressions_findings import FINDINGS, measure
from strategies import problems, rebalances


def main(names: list[str]) -> int:
    """Shrink every finding, or only those named on the command line."""
    search = st.one_of(problems(max_topics=3, max_partitions=4, max_members=4, max_assignments=None), rebalances())
    for finding in FINDINGS:
        if names and finding.name not in names:
            continue
        example = find(
            search,
            lambda p, f=finding: f.holds_for(p),
            settings=settings(
                max_examples=5000,
                database=None,
                derandomize=True,
                deadline=None,
                suppress_health_check=list(HealthCheck),
            ),
        )
        case = {
            "finding": finding.name,
            "assignor": finding.assignor,
            "claim": finding.claim,
            "scenario": example.to_mapping(),
            "expected": measure(example, finding.assignor),
        }
        path = HERE / f"{finding.name}.json"
        path.write_text(json.dumps(case, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{path.name}: {json.dumps(case['expected'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
