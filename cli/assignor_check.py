"""``assignment-oracle test-assignor``: the CI oracle's battery (:func:`assignment_oracle.testing.check_assignor`)
from the command line, for an assignor in any language.

Guarantee: the command judges exactly what ``check_assignor`` judges (the same drawn groups for the same seed,
the same rounds, the same one judge), so a pass here is a pass of ``check_assignor`` and a failure is its
:class:`~assignment_oracle.testing.OracleAssertionError`, printed whole: the shrunk counterexample (the
scenario, the answer, tier by tier), the first finding that does not hold (the move that fixes it) and the
replay command over the two files written into ``--out``.

The assignor is an ``external:COMMAND`` (any language, docs/external.md), a ``java:CLASS`` (one JVM for the
whole run, started once: :mod:`heuristics.java_class` keeps it) or a registered name, resolved once per kind
of group, before anything is drawn: a name no kind knows, or another kind's, is bad input (one line, exit 2).
A consumer group's assignor runs through the one runner (:func:`heuristics.run`), which bounds it with
``--time-limit`` and reports a crash as the assignor's failure.

Exit statuses: 0 every kind asked for passes (one summary line); 1 a counterexample (its message on standard
output, where its files went on standard error); 2 bad input (an unknown kind, guarantee, tier or assignor,
``--examples`` or ``--rounds`` below 1).

The command is wired into the program by the front (:mod:`assignment_oracle.cli`): the command line's own
module (:mod:`assignment_oracle.commands`) declares its options but never imports the CI oracle, which sits
beside it (pyproject's import-linter layers).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from hypothesis import settings

from assignment_oracle.compare.judge.front import KINDS as JUDGED
from assignment_oracle.compare.judge.front import registered
from assignment_oracle.heuristics import Assignor, run
from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.junit import Case, write_junit
from assignment_oracle.optimal.engines import parse_objective
from assignment_oracle.problem.errors import InputError, UnsupportedRequest
from assignment_oracle.problem.scenario_json import check_output
from assignment_oracle.problem.text import lines_text, printable
from assignment_oracle.program import PROG
from assignment_oracle.testing import KINDS, OracleAssertionError, check_assignor

__all__ = ["GUARANTEES", "HANDLERS", "UnderTest", "run_battery"]

#: The guarantees ``check_assignor`` judges, by kind of group: the judge's table's own
#: (:attr:`compare.judge.front.Kind.guarantees`), so a bad name is refused before anything is drawn.
GUARANTEES: dict[str, tuple[str, ...]] = {kind: JUDGED[kind].guarantees() for kind in KINDS}


class UnderTest:
    """The assignor under test for one kind of group: ``assign(problem)`` runs it (a consumer group's through
    the one runner, bounded by ``time_limit``) and counts the calls, so the summary says how many groups
    were played."""

    def __init__(self, name: str, entry: Any, time_limit: float | None) -> None:
        self.name, self.entry, self.time_limit = name, entry, time_limit
        self.calls = 0

    def assign(self, problem):
        self.calls += 1
        if isinstance(self.entry, Assignor):  # the runner's: a time limit, a crash as AssignorFailed
            return run(self.entry, problem, time_limit=self.time_limit).assignment
        return self.entry.assign(problem)


def _kinds(text: str) -> tuple[str, ...]:
    names = tuple(k.strip() for k in text.split(",") if k.strip())
    if not names:
        raise InputError("--kind", "", f"no kind named (one of {', '.join(KINDS)}, or several separated by commas)")
    for name in names:
        if name not in KINDS:
            raise InputError("--kind", "", f"unknown kind {printable(name)!r} (known: {', '.join(KINDS)})")
    if len(set(names)) != len(names):
        raise InputError("--kind", "", "names a kind twice")
    return names


def _guarantee(guarantee: str | None, kinds: tuple[str, ...]) -> None:
    for kind in kinds if guarantee is not None else ():
        if guarantee not in GUARANTEES[kind]:
            raise InputError(
                "--guarantee",
                "",
                f"{printable(guarantee)!r} is not a {kind} group guarantee (known: {', '.join(GUARANTEES[kind])})",
            )


def _objective_and_tiers(args, kinds: tuple[str, ...]) -> tuple[str | None, list[str] | None]:
    """``--objective`` read for each kind (its tiers, each kind's rule); ``--tiers`` a subset of it (of the
    kind's tiers when no objective is given)."""
    tiers = None if args.tiers is None else [t.strip() for t in args.tiers.split(",") if t.strip()]
    if tiers is not None and not tiers:
        raise InputError("--tiers", "", "no tier named (tiers separated by commas)")
    for kind in kinds:
        try:
            request = parse_objective(kind, args.objective)
        except UnsupportedRequest as err:
            raise InputError("--objective", "", printable(str(err).removeprefix("objective: "))) from None
        order = getattr(request, "objective", None) if args.objective is not None else None
        if order is None:
            from assignment_oracle.problem.tiers import table

            order = table(kind).names
        for tier in tiers or ():
            if tier not in order:
                raise InputError(
                    "--tiers", "", f"{printable(tier)!r} is not a tier of the objective ({', '.join(order)})"
                )
    return args.objective, tiers


def _time_limit(value: float | None) -> float | None:
    if value is not None and not (0 < value <= MAX_TIME_LIMIT):  # NaN fails too
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {value}"
        )
    return value


def _out(path: str) -> Path:
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), "", "--out must be a folder (this exists and is not one)")
    return folder


def _under_test(name: str, kind: str, time_limit: float | None) -> UnderTest:
    """The assignor ``name`` for groups of ``kind`` (the one registry; an unknown name or another kind's is one
    line for ``ASSIGNOR``); ``--time-limit`` bounds what the runner runs, and is refused for what it does not."""
    entry = registered(kind, name, "ASSIGNOR", f"--kind {kind}")
    if time_limit is not None and not isinstance(entry, Assignor):
        raise InputError(
            "--time-limit", "", f"bounds an assignor the runner runs (consumer groups'); {name} is a port run here"
        )
    return UnderTest(name, entry, time_limit)


def _asked(guarantee: str | None, objective: str | None, tiers: list[str] | None) -> str:
    """What was judged, in words."""
    said = []
    if guarantee is not None:
        said.append(f"guarantee {guarantee}")
    if guarantee is None or objective is not None or tiers is not None:
        which = f"tiers {','.join(tiers)}" if tiers else "every tier"
        said.append(f"optimal on {which} of " + (f"objective {objective}" if objective else "the scenario's objective"))
    return " and ".join(said)


def _replay_command(args, kind: str) -> str:
    """The command that runs this check again (the shrink, from the start)."""
    words = [PROG, "test-assignor", args.assignor, "--kind", kind]
    for option, value in (
        ("--guarantee", args.guarantee),
        ("--objective", args.objective),
        ("--tiers", args.tiers),
        ("--examples", args.examples),
        ("--rounds", args.rounds),
        ("--seed", args.seed),
    ):
        if value is not None:
            words += [option, str(value)]
    return shlex.join(words)


def run_battery(args) -> int:
    """``test-assignor ASSIGNOR``: :func:`check_assignor` on each kind asked for (module docstring)."""
    kinds = _kinds(args.kind)
    _guarantee(args.guarantee, kinds)
    objective, tiers = _objective_and_tiers(args, kinds)
    limit = _time_limit(args.time_limit)
    folder = _out(args.out)
    if args.junit is not None:
        check_output(args.junit)
    assignors = {kind: _under_test(args.assignor, kind, limit) for kind in kinds}  # every name before any draw
    budget = settings.default.max_examples if args.examples is None else args.examples
    asked = _asked(args.guarantee, objective, tiers)
    cases, failed = [], 0
    for kind in kinds:
        found = None
        try:
            check_assignor(
                assignors[kind],
                guarantee=args.guarantee,
                objective=objective,
                tiers=tiers,
                kinds=(kind,),
                max_examples=args.examples,
                rounds=args.rounds,
                speaks="objects",
                seed=args.seed,
                folder=folder,
            )
        except OracleAssertionError as error:
            found = error
        label = f"{kind} groups"
        classname = f"test-assignor.{args.assignor}"
        if found is None:
            played = assignors[kind].calls // args.rounds
            print(
                printable(
                    f"{PROG} test-assignor: {args.assignor}: passed on {played} {kind} groups drawn (at most "
                    f"{budget}; seed {args.seed}), {args.rounds} round(s) each: {asked}"
                )
            )
            cases.append(Case(label, classname))
            continue
        failed += 1
        sys.stdout.write(lines_text(str(found).splitlines()))
        files = ", ".join(str(f) for f in found.files) or "none"
        print(
            printable(
                f"{PROG}: test-assignor: {args.assignor} fails on {kind} groups ({asked}); the shrunk counterexample "
                f"is written in {folder}: {files}; run again: {_replay_command(args, kind)}"
            ),
            file=sys.stderr,
        )
        title = str(found).splitlines()[0] if str(found) else "check_assignor failed"
        cases.append(
            Case(
                label,
                classname,
                failure=f"{title}; replay: {found.replay}",
                details=str(found),
                output=f"counterexample files: {files}",
            )
        )
    if args.junit is not None:
        write_junit(args.junit, f"test-assignor {args.assignor}", cases)
    return 1 if failed else 0


#: The commands this module runs, for the front (:func:`assignment_oracle.cli.main`) to hand the command line.
HANDLERS = {"test-assignor": run_battery}
