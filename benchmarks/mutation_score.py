"""The mutation score of ``check_assignor``'s defaults: how many of the seeded-bug battery it catches.

Runs :func:`assignment_oracle.testing.check_assignor` with its defaults (``max_examples``, ``rounds``, ``seed``)
on every row of :data:`assignment_oracle.heuristics.seeded_bugs.SEEDED_BUGS` and every control of
:data:`~assignment_oracle.heuristics.seeded_bugs.CONTROLS`, and prints one line per row: caught or passed, the
assignor calls until the first failing answer (each answer judged as check_assignor judges it, by the public
``assert_*`` functions), the calls in all (shrinking included) and the seconds taken; then the score::

    python benchmarks/mutation_score.py            # the whole battery
    python benchmarks/mutation_score.py tie-kept-by-both crash-on-missing-topic

docs/testing.md ("What the battery catches") publishes its output.
"""

from __future__ import annotations

import sys
import tempfile
import time

from hypothesis import settings

from assignment_oracle import testing
from assignment_oracle.heuristics.seeded_bugs import CONTROLS, SEEDED_BUGS
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.kinds import kind_of
from assignment_oracle.problem.load import load_assignment, load_scenario


class _Counting:
    """The assignor under test, counting its calls and noting the first whose answer fails the check."""

    def __init__(self, assign, guarantee, folder):
        self.inner, self.guarantee, self.folder = assign, guarantee, folder
        self.calls, self.first_failure = 0, None

    def __call__(self, scenario: dict):
        self.calls += 1
        try:
            answer = self.inner(scenario)
        except Exception:
            self._failed()
            raise
        if self.first_failure is None:
            try:
                if self.guarantee == "valid":  # the kind's own validity rule: no optimum to solve
                    problem = load_scenario(scenario)
                    if kind_of(problem).violations(problem, load_assignment(_wrapped(problem, answer), problem)):
                        self._failed()
                elif self.guarantee is None:
                    testing.assert_optimal(scenario, answer, folder=self.folder)
                else:
                    testing.assert_guarantee(scenario, answer, self.guarantee, folder=self.folder)
            except (testing.OracleAssertionError, InputError):
                self._failed()
        return answer

    def _failed(self) -> None:
        if self.first_failure is None:
            self.first_failure = self.calls


def _wrapped(problem, answer):
    """A bare ``{member: ...}`` answer under its kind's key, as ``check`` reads it."""
    kind = kind_of(problem)
    return answer if kind.answer_key in answer or "assignment" in answer else kind.wrap_answer(answer)


def score(name: str, assign, kind: str, guarantee: str | None, folder: str) -> tuple[bool, int | None, int, float]:
    """(caught, calls until the first failing answer, calls in all, seconds) of one row."""
    counting = _Counting(assign, guarantee, folder) if callable(assign) else assign
    began = time.process_time()
    try:
        testing.check_assignor(counting, kinds=kind, guarantee=guarantee, speaks="json", folder=folder)
        caught = False
    except testing.OracleAssertionError:
        caught = True
    took = time.process_time() - began
    if callable(assign):
        return caught, counting.first_failure, counting.calls, took
    return caught, None, 0, took


def main(names: list[str]) -> int:
    settings.register_profile("mutation-score", deadline=None)
    settings.load_profile("mutation-score")
    rows = [b for b in SEEDED_BUGS if not names or b.name in names]
    controls = [c for c in CONTROLS if not names or c.name in names]
    caught_bugs = 0
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'seeded bug':28} {'kind':9} {'guarantee':32} {'caught':7} {'first':>6} {'calls':>6} {'cpu s':>6}")
        for bug in rows:
            caught, first, calls, took = score(bug.name, bug.assign, bug.kind, bug.guarantee, folder)
            caught_bugs += caught
            print(
                f"{bug.name:28} {bug.kind:9} {bug.guarantee or 'optimal':32} {'yes' if caught else 'NO':7} "
                f"{first if first is not None else '-':>6} {calls:>6} {took:6.1f}"
            )
        passed = 0
        for control in controls:
            caught, _, calls, took = score(control.name, control.assign, control.kind, control.guarantee, folder)
            passed += not caught
            print(
                f"{'control ' + control.name:28} {control.kind:9} {control.guarantee or 'optimal':32} "
                f"{'FAILED' if caught else 'passed':7} {'':>6} {calls or '':>6} {took:6.1f}"
            )
    print(f"score: {caught_bugs}/{len(rows)} seeded bugs caught; {passed}/{len(controls)} controls passed")
    return 0 if caught_bugs == len(rows) and passed == len(controls) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
