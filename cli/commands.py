"""The commands of ``assignment-oracle``: their options and their few lines each over the library.

:mod:`assignment_oracle.cli` is the front (the overview, ``--help``,
``--version``, signals); it imports this module, and with it the library,
only when a command runs.

Every subcommand is a few lines around a library call that notebooks and
other programs can make directly (``optimal.solve``, ``compare.judge.check.check``).
Bad input is one line on stderr naming the file and field, exit status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Sequence

from assignment_oracle.compare.judge.check import check
from assignment_oracle.compare.judge.evaluate import compare as compare_assignors
from assignment_oracle.compare.judge.evaluate import evaluate
from assignment_oracle.compare.judge.explain import explain
from assignment_oracle.compare.judge.text import comparison_text, evaluation_line, verdict_text
from assignment_oracle.compare.scenarios.bugs import BUGS
from assignment_oracle.compare.scenarios.bugs import find as find_bugs
from assignment_oracle.compare.scenarios.bugs import replay as replay_bug
from assignment_oracle.compare.scenarios.churn import (
    check_size,
    random_history,
    read_history,
    simulate,
    simulation_text,
)
from assignment_oracle.compare.scenarios.families import GROUP_MAXIMUM
from assignment_oracle.heuristics import ASSIGNORS, uniform
from assignment_oracle.heuristics import run as run_assignor
from assignment_oracle.heuristics.external import DEFAULT_MAX_OUTPUT, MAX_OUTPUT_VARIABLE
from assignment_oracle.heuristics.java_class import CLASSPATH_VARIABLE
from assignment_oracle.heuristics.registry import (
    CLIENT_PEERS,
    ITERATION_ORDERS,
    LIVE_PEERS,
    PEERS,
    STREAMS_ASSIGNORS,
    TOPIC_ID_PORTS,
    get_assignor,
    in_iteration_order,
    require_installed,
    resolve_names,
)
from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.optimal import (
    BALANCE_DEFINITIONS,
    DEFAULT_BALANCE,
    INFEASIBLE,
    METHODS,
    OPTIMAL,
    Request,
    Solution,
    certificate_from_mapping,
    choose,
    solve,
)
from assignment_oracle.problem.errors import (
    AssignorDidNotFinish,
    AssignorFailed,
    OracleError,
    SolverError,
    SparkFailed,
    UnknownAssignor,
    UnsupportedRequest,
)
from assignment_oracle.problem.extras import require
from assignment_oracle.problem.model import BALANCE, SPREAD
from assignment_oracle.problem.scenario_json import (
    COUNTEREXAMPLE_KEYS,
    MAX_PARTITIONS,
    InputError,
    check_output,
    dumps,
    field_path,
    parse_objective,
    problem_from_mapping,
    read_assignment,
    read_json_file,
    read_problem,
    write_output,
)
from assignment_oracle.problem.streams import MAX_TASKS, StreamsProblem
from assignment_oracle.problem.text import printable
from assignment_oracle.program import COMMANDS, PROG, Parser, bundled_examples

#: argparse's own usage errors; every other status is the error's ``exit_code`` (problem.errors).
EXIT_BAD_INPUT = InputError.exit_code
#: ``solve``: no assignment meets the constraints (join groups no member can take, a budget no answer keeps).
EXIT_INFEASIBLE = 3


#: ``solve``'s and ``check``'s default time limit for the staged CP-SAT model (weighted dec-min is NP-hard:
#: never unbounded by default; ``--time-limit`` sets another).
STAGED_TIME_LIMIT = 60.0


#: ``compare``'s default limit: it runs every assignor and the optimum on the group, 1.18 GiB at peak on
#: Kafka's 1,000,000-partition case (benchmarks/bench_cli.py --compare), so a tenth of what ``solve`` takes
#: fits the same 24 GiB machine.
COMPARE_MAX_PARTITIONS = 10_000_000


def _request_arguments(p: argparse.ArgumentParser) -> None:
    """The request's flags (docs/formats.md, "Objective"), the same for ``solve`` and ``check``."""
    p.add_argument(
        "--objective",
        help="tiers in priority order, balance and stickiness once each, rack and spread "
        "optional: balance,rack,stickiness (default), stickiness,balance,rack, balance,spread,stickiness, ...",
    )
    p.add_argument(
        "--balance",
        choices=BALANCE_DEFINITIONS,
        default=DEFAULT_BALANCE,
        help="what 'most balanced' means (default dec-min; the definitions differ only with weights, "
        "join groups or move limits)",
    )
    p.add_argument(
        "--topic-spread",
        action="store_true",
        help="add the spread tier right after balance (KAFKA-16277): each topic's partitions spread as "
        "evenly as possible; same as naming spread in --objective",
    )
    p.add_argument(
        "--max-moves",
        type=_moves_limit,
        metavar="K",
        help="move at most K previously owned partitions (a constraint; docs/formats.md)",
    )
    p.add_argument(
        "--max-moves-per-member",
        type=_moves_limit,
        metavar="J",
        help="take at most J of each member's previously owned partitions away from it",
    )


def _max_partitions_argument(
    command: argparse.ArgumentParser,
    default: int = MAX_PARTITIONS,
    what: str = "refuse scenarios with more partitions (default %(default)s)",
) -> None:
    command.add_argument("--max-partitions", type=_max_partitions, default=default, metavar="N", help=what)


def _max_output_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--max-output",
        type=float,
        metavar="MIB",
        help=f"cap on an external assignor's stdout and on its stderr, MiB (default {DEFAULT_MAX_OUTPUT >> 20})",
    )


def _classpath_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--classpath",
        metavar="PATHS",
        help="jars and class folders for java:CLASS assignors, ':'-separated as java -cp takes them "
        f"(default ${CLASSPATH_VARIABLE}; docs/external.md)",
    )


def _apply_classpath(args) -> None:
    """``--classpath`` for every ``java:CLASS`` name this process (and its children) resolves."""
    value = getattr(args, "classpath", None)
    if value is None:
        return
    if not value.strip(os.pathsep + " "):
        raise InputError("--classpath", "", "is empty (jars and class folders, ':'-separated)")
    os.environ[CLASSPATH_VARIABLE] = value


def _apply_max_output(args) -> None:
    """``--max-output`` for every external command this process (and its children) runs."""
    value = getattr(args, "max_output", None)
    if value is None:
        return
    if not (0 < value <= 1 << 20):  # NaN fails too
        raise InputError("--max-output", "", f"must be a positive number of MiB up to 1048576, got {value:g}")
    os.environ[MAX_OUTPUT_VARIABLE] = f"{value:g}"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Provably optimal Kafka consumer partition assignment.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("solve", help=COMMANDS["solve"])
    p.add_argument("scenario", help="scenario JSON file")
    _max_partitions_argument(p)
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="exact engine (default auto: chosen from what the request needs; docs/formats.md)",
    )
    _request_arguments(p)
    p.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help="seconds for the CP-SAT engines (the flows are exact and need none; default "
        f"{STAGED_TIME_LIMIT:g} for the staged model: weighted dec-min is NP-hard)",
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write the JSON here instead of stdout (- is stdout)")
    p.add_argument(
        "--timing", action="store_true", help="include wall time and model sizes (output is then not byte-stable)"
    )

    c = sub.add_parser("check", help=COMMANDS["check"])
    c.add_argument("scenario", help="scenario JSON file")
    _max_partitions_argument(c)
    c.add_argument("assignment", help='JSON with an "assignment" key (and optionally a "certificate")')
    c.add_argument("--json", action="store_true", help="print the verdict as JSON")
    c.add_argument("--verbose", action="store_true", help="every member's load, however large the group")
    c.add_argument("--method", choices=METHODS, default="auto", help="exact engine for the optimum (default auto)")
    _request_arguments(c)
    c.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help=f"seconds for the optimum's CP-SAT engines (default {STAGED_TIME_LIMIT:g} for the staged model)",
    )

    a = sub.add_parser("assign", help=COMMANDS["assign"])
    a.add_argument("scenario", help="scenario JSON file")
    _max_partitions_argument(a)
    a.add_argument(
        "--assignor",
        required=True,
        metavar="NAME",
        help="a registered name (see `assignors`), external:COMMAND, or java:CLASS with --classpath (docs/external.md)",
    )
    a.add_argument("-o", "--output", metavar="OUT", help="write the JSON here instead of stdout (- is stdout)")
    a.add_argument(
        "--iteration-order",
        choices=ITERATION_ORDERS,
        default="sorted",
        help="how a Kafka port iterates Kafka's hash maps: sorted by member id and topic name (default) or as "
        "Java 17's HashMap does (kafka4-sticky, kafka4-cooperative-sticky, sticky (Kafka 2.3.1), sticky-kip54 "
        "(2.0.1), cooperative-sticky (2.4.1), constrained-sticky (3.4.0), uniform and uniform-4.0.0, the last two "
        'then needing every subscribed topic\'s "id"; range, roundrobin and server-range do not depend on it)',
    )
    _max_output_argument(a)
    _classpath_argument(a)

    sub.add_parser("assignors", help=COMMANDS["assignors"])

    m = sub.add_parser("compare", help=COMMANDS["compare"])
    m.add_argument("scenario", help="scenario JSON file")
    _max_partitions_argument(
        m,
        COMPARE_MAX_PARTITIONS,
        what="refuse scenarios with more partitions (default %(default)s: every assignor runs on it)",
    )
    m.add_argument(
        "--assignors",
        default="all",
        metavar="all|peers|A,B",
        help="which assignors: all (this project's ports), peers (kafka-python's), names, "
        "external:COMMAND, java:CLASS; comma-separated (default: all)",
    )
    m.add_argument(
        "--time-limit", type=float, metavar="S", help="seconds per assignor; a longer run is reported as a timeout"
    )
    m.add_argument("--json", action="store_true", help="print the rows as JSON (without wall times unless --timing)")
    m.add_argument("--timing", action="store_true", help="include wall times in --json output (not byte-stable)")
    _request_arguments(m)  # given: every row is also judged against the optimum of that request
    _max_output_argument(m)
    _classpath_argument(m)

    e = sub.add_parser("explain", help=COMMANDS["explain"])
    e.add_argument("scenario", help="scenario JSON file (or a sweep's counterexample file)")
    _max_partitions_argument(e)
    e.add_argument("assignment", nargs="?", help='JSON with an "assignment" key (what solve, assign and check use)')
    e.add_argument("--assignor", metavar="NAME", help="explain this assignor's result on the scenario instead")
    e.add_argument("--json", action="store_true", help="print the explanation as JSON")
    e.add_argument("--method", choices=METHODS, default="auto", help="exact engine for the optimum (default auto)")
    _request_arguments(e)
    e.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help=f"seconds for the optimum's CP-SAT engines (default {STAGED_TIME_LIMIT:g} for the staged model)",
    )
    _classpath_argument(e)

    s = sub.add_parser("simulate", help=COMMANDS["simulate"])
    s.add_argument("history", nargs="?", help="history JSON file, or a bundled one by name (see docs/churn.md)")
    s.add_argument(
        "--assignor", required=True, metavar="NAME", help="a registered name, external:COMMAND, or java:CLASS"
    )
    s.add_argument("--seed", type=int, help="no history file: a random history from this seed")
    s.add_argument("--members", type=int, default=3, help="random history: members at the start (default 3)")
    s.add_argument("--topics", type=int, default=2, help="random history: topics at the start (default 2)")
    s.add_argument("--partitions", type=int, default=4, help="random history: partitions per topic (default 4)")
    s.add_argument("--rounds", type=int, default=6, help="random history: rounds after the first (default 6)")
    s.add_argument("--events-per-round", type=int, default=2, help="random history: at most this many events a round")
    s.add_argument("--time-limit", type=float, metavar="S", help="seconds per round for the assignor")
    _max_partitions_argument(s, what="refuse a history whose group ever has more partitions (default %(default)s)")
    _max_output_argument(s)
    _classpath_argument(s)
    s.add_argument("--json", action="store_true", help="print the simulation as JSON")

    w = sub.add_parser("sweep", help=COMMANDS["sweep"])
    w.add_argument("spec", help="spec file (.toml or .json), or a bundled one: quick, full")
    w.add_argument(
        "--out", required=True, metavar="DIR", help="output directory (rows/, counterexamples/, summary.json)"
    )
    w.add_argument(
        "--master", default="local[*]", help="Spark master: local[N], local[*] (default) or spark://HOST:PORT"
    )
    w.add_argument("--remote", metavar="sc://HOST:PORT", help="Spark Connect server instead of --master")
    w.add_argument("--chunk-size", type=int, metavar="N", help="scenarios per Spark job (resume granularity)")
    w.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (there is none either when stderr is not a terminal)",
    )
    w.add_argument("--json", action="store_true", help="print the summary as JSON")

    b = sub.add_parser("bugs", help=COMMANDS["bugs"])
    b.add_argument("name", nargs="?", help="one entry (default: all)")
    b.add_argument("--json", action="store_true", help="print the replays as JSON")

    r = sub.add_parser("report", help=COMMANDS["report"])
    r.add_argument("dir", metavar="DIR", help="a sweep's output directory (assignment-oracle sweep ... --out DIR)")
    r.add_argument("--html", metavar="OUT", help="the HTML file to write (default: DIR/report.html)")
    r.add_argument("--families", metavar="A,B", help="only these scenario families (default: all in the sweep)")
    r.add_argument("--assignors", metavar="A,B", help="only these assignors (default: all in the sweep)")
    r.add_argument(
        "--counterexamples", type=int, default=10, metavar="N", help="rows in the worst-counterexamples table"
    )
    r.add_argument("--notebook", metavar="OUT.ipynb", help="also write the executed notebook here")
    r.add_argument("--show-code", action="store_true", help="keep the notebook's code cells in the HTML")

    i = sub.add_parser("install-peers", help=COMMANDS["install-peers"])
    i.add_argument(
        "runtime",
        choices=("node", "go"),
        help="node: kafkajs and kafka-node at the pinned versions (npm); go: sarama and kafka-go with Debian's Go "
        "at the pinned versions (downloaded from deb.debian.org, built once)",
    )

    d = sub.add_parser("demo", help=COMMANDS["demo"])
    d.add_argument("--out", metavar="DIR", help="also write each example's solution here")
    return parser


def run(argv: Sequence[str]) -> int:
    """Parse ``argv`` (a command and its options) and run the command; :func:`cli.main` wraps it."""
    return _run(_parser().parse_args(argv))


def _run(args) -> int:
    try:
        _apply_max_output(args)
        _apply_classpath(args)
        if getattr(args, "output", None) is not None:  # refused before any work, not after it
            check_output(args.output, inputs=tuple(a for a in (getattr(args, "scenario", None),) if a))
        if args.command == "solve":
            return _solve(args)
        if args.command == "check":
            return _check(args)
        if args.command == "assign":
            return _assign(args)
        if args.command == "assignors":
            return _assignors()
        if args.command == "compare":
            return _compare(args)
        if args.command == "explain":
            return _explain(args)
        if args.command == "bugs":
            return _bugs(args)
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "report":
            return _report(args)
        if args.command == "install-peers":
            return _install_peers(args)
        return _demo(args)
    except OracleError as err:  # the library's one error vocabulary: one line, its exit status
        print(f"{PROG}: {_label(err)}: {printable(str(err))}", file=sys.stderr)
        return err.exit_code


def _label(err: OracleError) -> str:
    for kind, label in (
        (SolverError, "solver failed"),
        (SparkFailed, "sweep failed"),
        (AssignorDidNotFinish, "assignor did not finish"),
        (AssignorFailed, "assignor failed"),
    ):
        if isinstance(err, kind):
            return label
    return "error"


def _objective(text: str | None):
    return None if text is None else parse_objective(text, "--objective", "")


def _write(path: str | None, text: str, *, inputs: tuple[str, ...] = ()) -> None:
    """To stdout, or atomically to ``path`` (never over one of ``inputs``)."""
    if path is None:
        sys.stdout.write(text)
    else:
        write_output(path, text, inputs=inputs)


def _read_problem(args, objective=None):
    return read_problem(args.scenario, objective=objective, max_partitions=args.max_partitions)


def _moves_limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _max_partitions(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def _request(args, problem, default_order: tuple[str, ...] | None = None) -> Request:
    """The request the flags ask for: ``--objective`` (else ``default_order``, else the scenario's),
    ``--topic-spread`` (spread right after balance), ``--balance``, the budget of moves."""
    order = _objective(args.objective) or default_order or problem.objective
    if args.topic_spread and SPREAD not in order:
        at = order.index(BALANCE) + 1
        order = (*order[:at], SPREAD, *order[at:])
    return Request(
        objective=order, balance=args.balance, max_moves=args.max_moves, max_moves_per_member=args.max_moves_per_member
    )


def _time_limit(args, problem, request) -> float | None:
    if args.time_limit is not None and not (0 < args.time_limit <= MAX_TIME_LIMIT):
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {args.time_limit}"
        )
    if args.time_limit is None and choose(problem, request, args.method).name == "cpsat-staged":
        return STAGED_TIME_LIMIT
    return args.time_limit


def _solve(args) -> int:
    problem = _read_scenario(args)
    if isinstance(problem, StreamsProblem):
        return _streams_solve(args, problem)
    request = _request(args, problem)
    limit = _time_limit(args, problem, request)
    with _Clock(limit, "solve"):
        solution = solve(problem, request, method=args.method, time_limit=limit)
    _write(args.output, dumps(solution.to_mapping(timing=args.timing, plain=False)), inputs=(args.scenario,))
    if solution.status == OPTIMAL:
        return 0
    if solution.status == INFEASIBLE:
        print(f"{PROG}: INFEASIBLE: {printable(solution.message)}", file=sys.stderr)
        return EXIT_INFEASIBLE
    unproven = "; ".join(f"{t.tier}: bound {json.dumps(t.bound)}" for t in solution.tiers if not t.proven)
    detail = solution.message or "not proven optimal"
    if solution.objective is not None:  # the network's CP-SAT model: its weighted objective and bound
        detail += f"; objective {solution.objective}, proven lower bound {solution.bound}"
    print(printable(f"{PROG}: {solution.status}: {detail}" + (f" ({unproven})" if unproven else "")), file=sys.stderr)
    return 1


def _check(args) -> int:
    problem = _read_scenario(args)
    if isinstance(problem, StreamsProblem):
        return _streams_check(args, problem)
    request = _request(args, problem)
    assignment, document = read_assignment(args.assignment)
    engine = choose(problem, request, args.method)
    if engine.proof == "certificate":  # the network's optimum: the full verdict, certificates verified
        certificate = None
        if document.get("certificate") is not None:
            certificate = certificate_from_mapping(document["certificate"], source=args.assignment)
        problem = (
            problem
            if request.tiers(problem) == problem.objective
            else dataclasses.replace(problem, objective=request.tiers(problem))
        )
        verdict = check(problem, assignment, certificate, method=engine.name)
        sys.stdout.write(dumps(verdict.to_mapping()) if args.json else verdict_text(verdict, verbose=args.verbose))
        return verdict.exit_code()
    # Every other request: against the optimum of the same request, tier by tier (compare.judge.tiers).
    from assignment_oracle.compare.judge import tiers

    limit = _time_limit(args, problem, request)
    with _Clock(limit, "check: the optimum"):
        verdict = tiers.judge(problem, assignment, request, method=args.method, time_limit=limit)
    sys.stdout.write(dumps(verdict.to_mapping()) if args.json else verdict.text())
    return verdict.exit_code()


def _assign(args) -> int:
    problem = _read_scenario(args)
    if isinstance(problem, StreamsProblem):
        return _streams_assign(args, problem)
    with _Steps(1, "assign") as steps:  # a live peer's group takes seconds to form
        steps(args.assignor)
        result = _run_named(args.assignor, problem, args.iteration_order, source=args.scenario)
    document = result.to_mapping(plain=False)
    _write(args.output, dumps(document), inputs=(args.scenario,))
    if not document["valid"]:
        kinds = sorted({v["kind"] for v in document["violations"]})
        print(
            printable(f"{PROG}: note: {args.assignor} produced an invalid assignment ({', '.join(kinds)})"),
            file=sys.stderr,
        )
    return 0


def _resolve(name: str):
    """The assignor called ``name`` (registry, peer or ``external:``); bad names are bad input."""
    try:
        assignor = get_assignor(name)
    except ValueError as err:
        raise InputError("--assignor", "", str(err)) from None
    require_installed(name)  # a peer whose library or runtime is missing: one line, exit 2
    return assignor


def _run_named(name: str, problem, iteration_order: str = "sorted", source: str = "scenario"):
    """Run one assignor for ``assign``/``explain``; its failure is one line naming it (exit 7)."""
    if name in STREAMS_ASSIGNORS:
        raise InputError(
            "--assignor", "", f"{name} is a Streams group assignor (KIP-1071); {source} is a consumer group scenario"
        )
    assignor = _resolve(name)
    try:
        assignor = in_iteration_order(assignor, iteration_order)
    except ValueError as err:
        raise InputError("--iteration-order", "", str(err)) from None
    if iteration_order == "java" and assignor.name in TOPIC_ID_PORTS and uniform.topics_without_id(problem):
        missing = uniform.topics_without_id(problem)
        raise InputError(
            str(source),
            field_path("topics", missing[0]) + ".id",
            f"missing: {name} in Java's order keys topics by their Kafka id (Uuid), and {len(missing)} subscribed "
            f"topic(s) have none ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''})",
        )
    try:
        return run_assignor(assignor, problem)
    except AssignorFailed as err:
        raise AssignorFailed(f"{assignor.name}: {err}") from None


def _assignors() -> int:
    everything = [*ASSIGNORS.values(), *PEERS.values(), *LIVE_PEERS.values(), *CLIENT_PEERS.values()]
    width = max(len(a.name) for a in everything)
    for assignor in everything:
        print(
            f"{assignor.name:{width}}  {assignor.protocol:11}  {assignor.summary}  [{assignor.origin}; guarantee: {assignor.guarantee}]"
        )
    print(
        f"{'external:COMMAND':{width}}  {'eager':11}  any program speaking the JSON protocol (docs/external.md)  [guarantee: valid]"
    )
    print(
        f"{'java:CLASS':{width}}  {'either':11}  any Java ConsumerPartitionAssignor on --classpath, one JVM per command "
        "(docs/external.md)  [guarantee: valid]"
    )
    return 0


def _assignor_time_limit(value: float | None) -> float | None:
    """``--time-limit`` for assignors: positive, finite, at most a year."""
    if value is not None and not (0 < value <= MAX_TIME_LIMIT):
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {value}"
        )
    return value


def _compare(args) -> int:
    _assignor_time_limit(args.time_limit)
    given = [n.strip() for n in args.assignors.split(",") if n.strip()]
    if not given:
        raise InputError("--assignors", "", "no assignor named (give all, peers, or names separated by commas)")
    try:
        names = list(resolve_names([n for n in given if n not in STREAMS_ASSIGNORS]))
    except (ValueError, UnknownAssignor) as err:
        if not _is_streams_file(args.scenario):
            if isinstance(err, UnknownAssignor):
                raise
            raise InputError("--assignors", "", str(err)) from None
        names = []  # a Streams group: its own names (_streams_compare says which are wrong)
    for name in names:  # before any work: a peer that cannot run is one line, not a row of errors
        require_installed(name)
    problem = _read_scenario(args)
    if isinstance(problem, StreamsProblem):
        return _streams_compare(args, problem, given)
    streams_named = [n for n in given if n in STREAMS_ASSIGNORS]
    if streams_named:
        raise InputError(
            "--assignors",
            "",
            f"{streams_named[0]} is a Streams group assignor (KIP-1071); {args.scenario} is a consumer group scenario",
        )
    request = None
    if (
        args.objective is not None
        or args.topic_spread
        or args.balance != DEFAULT_BALANCE
        or args.max_moves is not None
        or args.max_moves_per_member is not None
    ):
        # Asked for: every row is also judged against the optimum of this request (balance first
        # unless --objective says otherwise, as explain does).
        request = _request(args, problem, default_order=problem.balance_first_order().objective)
    limit = STAGED_TIME_LIMIT if request is not None and choose(problem, request).name == "cpsat-staged" else None
    with _Steps(1 + len(names) + (request is not None), "compare") as steps:
        result = compare_assignors(
            problem, names, time_limit=args.time_limit, request=request, request_time_limit=limit, progress=steps
        )
    if args.json:
        sys.stdout.write(dumps(result.to_mapping(timing=args.timing)))
    else:
        sys.stdout.write(comparison_text(result))
    return 0


def _explain(args) -> int:
    problem = _read_scenario(args)
    if isinstance(problem, StreamsProblem):
        return _streams_explain(args, problem)
    # Balance first unless --objective says otherwise: the order assignors aim for.
    request = _request(args, problem, default_order=problem.balance_first_order().objective)
    if args.objective is None and not problem.balance_first:
        print(
            f"{PROG}: note: explained balance first, the order assignors aim for; "
            f"`check` judges the scenario's order ({', '.join(problem.objective)})",
            file=sys.stderr,
        )
    if (args.assignment is None) == (args.assignor is None):
        raise InputError("explain", "", "give an assignment file or --assignor NAME, not both and not neither")
    if args.assignor is not None:
        assignment = _run_named(args.assignor, problem, source=args.scenario).assignment
    else:
        assignment, _ = read_assignment(args.assignment)
    limit = _time_limit(args, problem, request)
    with _Clock(limit, "explain: the optimum"):
        explanation = explain(problem, assignment, request=request, method=args.method, time_limit=limit)
    sys.stdout.write(dumps(explanation.to_mapping()) if args.json else explanation.text())
    return explanation.exit_code


def _names(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InputError(option, "", "no name given (names separated by commas)")
    return names


def _report(args) -> int:
    require("report", "assignment-oracle report")
    from assignment_oracle.compare.report.notebooks import NotebookFailed, write_gap_report
    from assignment_oracle.compare.report.tables import NO_SWEEP, partitions

    out = Path(args.dir)
    families, assignors = partitions(out)
    if not families:
        raise InputError(str(out), "", NO_SWEEP)
    for option, given, present in (
        ("--families", _names(args.families, "--families"), families),
        ("--assignors", _names(args.assignors, "--assignors"), assignors),
    ):
        for name in given or ():
            if name not in present:
                raise InputError(option, "", f"{name!r} is not in the sweep (present: {', '.join(present)})")
    if args.counterexamples < 0:
        raise InputError("--counterexamples", "", f"must be at least 0, got {args.counterexamples}")
    html = Path(args.html) if args.html else out / "report.html"
    try:
        with _Steps(None, "report") as steps:
            written = write_gap_report(
                out,
                html,
                families=_names(args.families, "--families"),
                assignors=_names(args.assignors, "--assignors"),
                counterexamples=args.counterexamples,
                show_code=args.show_code,
                notebook=args.notebook,
                progress=steps,
            )
    except NotebookFailed as err:
        print(f"{PROG}: report failed: {printable(str(err))}", file=sys.stderr)
        return 1
    print(f"{PROG}: gap report for {out} -> {written}", file=sys.stderr)
    return 0


def bundled_histories() -> dict[str, Path]:
    """The bundled churn histories, by name."""
    folder = resources.files("assignment_oracle") / "examples" / "churn"
    return {Path(str(p)).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json")}


def _simulate(args) -> int:
    _resolve(args.assignor)
    _assignor_time_limit(args.time_limit)
    if (args.history is None) == (args.seed is None):
        raise InputError("simulate", "", "give a history file (or bundled name) or --seed, not both and not neither")
    if args.history is not None:
        path = Path(args.history)
        if not path.exists() and args.history in bundled_histories():
            path = bundled_histories()[args.history]
        history = read_history(path, max_partitions=args.max_partitions)
    else:
        for flag in ("members", "topics", "partitions", "rounds", "events_per_round"):
            if not 1 <= getattr(args, flag) <= GROUP_MAXIMUM:
                raise InputError(
                    f"--{flag.replace('_', '-')}", "", f"must be from 1 to {GROUP_MAXIMUM:,}, got {getattr(args, flag)}"
                )
        if args.topics * args.partitions > args.max_partitions:  # before anything is generated
            raise InputError(
                "--partitions",
                "",
                f"{args.topics:,} topics of {args.partitions:,} partitions is more than the limit of "
                f"{args.max_partitions:,} (raise it with --max-partitions if this machine has the memory)",
            )
        history = random_history(
            args.seed,
            members=args.members,
            topics=args.topics,
            partitions=args.partitions,
            rounds=args.rounds,
            events_per_round=args.events_per_round,
        )
        check_size(history, source="--seed", max_partitions=args.max_partitions)
    with _Steps(len(history.rounds) + 1, f"simulate {args.assignor}") as steps:
        result = simulate(history, args.assignor, time_limit=args.time_limit, progress=steps)
    if args.json:
        sys.stdout.write(dumps(result.to_mapping()))
    else:
        sys.stdout.write(simulation_text(result))
    return 0 if result.completed else 1


class _Steps:
    """A progress bar over a command's named steps, on stderr when it is a terminal (``tqdm``); silent
    otherwise, so pipes, files and CI logs get the output alone."""

    def __init__(self, total: int | None, label: str) -> None:
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="step", leave=False, dynamic_ncols=True)

    def __call__(self, name: str) -> None:
        if self.bar is not None:
            if self.bar.n or self.bar.postfix:  # the step before this one is done
                self.bar.update(1)
            self.bar.set_postfix_str(printable(name)[:40])

    def __enter__(self) -> _Steps:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


class _Clock:
    """Seconds spent against a solver's time limit, as a bar on stderr when it is a terminal: an exact
    solve is one call into CP-SAT, so its progress is the clock (which the limit bounds).  Silent
    without a limit (the flow model answers in seconds) and when stderr is not a terminal."""

    def __init__(self, limit: float | None, label: str) -> None:
        self.bar, self.done, self.ticker = None, threading.Event(), None
        if limit is not None and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(
                total=limit,
                desc=f"{label} (time limit {limit:g} s)",
                leave=False,
                dynamic_ncols=True,
                bar_format="{desc}: {bar} {n:.0f}/{total:.0f} s",
            )

    def _tick(self, start: float) -> None:
        assert self.bar is not None
        while not self.done.wait(0.5):
            self.bar.n = min(self.bar.total, time.monotonic() - start)
            self.bar.refresh()

    def __enter__(self) -> _Clock:
        if self.bar is not None:
            self.ticker = threading.Thread(target=self._tick, args=(time.monotonic(),), daemon=True)
            self.ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.ticker is not None:
            self.ticker.join()
        if self.bar is not None:
            self.bar.close()


class _OneLineLog(logging.Handler):
    """Python-side logs during a sweep as one line each, warnings and up.  py4j's own (tracebacks of a
    connection the stop of a sweep closed) are dropped: a failure of Spark surfaces as an exception,
    which the sweep turns into one line naming Spark's log."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if f"{os.sep}py4j{os.sep}" in record.pathname or record.name.startswith("py4j"):
            return
        print(f"{PROG}: {record.name}: {printable(record.getMessage())}", file=sys.stderr)


def _sweep(args) -> int:
    require("spark", "assignment-oracle sweep")
    from assignment_oracle.compare.sweep.job import run_sweep  # imports pyspark: only when sweeping
    from assignment_oracle.compare.sweep.spec import read_spec

    spec = read_spec(args.spec)
    logging.getLogger().addHandler(_OneLineLog())  # before py4j's first log could configure its own
    if args.remote is not None and not args.remote.startswith("sc://"):
        raise InputError("--remote", "", f"must be a Spark Connect URL sc://HOST:PORT, got {args.remote!r}")
    if args.remote is None and not (args.master.startswith("local") or args.master.startswith("spark://")):
        raise InputError("--master", "", f"must be local[N], local[*] or spark://HOST:PORT, got {args.master!r}")
    if args.chunk_size is not None and args.chunk_size < 1:
        raise InputError("--chunk-size", "", f"must be at least 1, got {args.chunk_size}")
    result = run_sweep(
        spec,
        args.out,
        master=args.master,
        remote=args.remote,
        progress=not args.no_progress and sys.stderr.isatty(),  # a bar for people, not for logs and pipes
        chunk_size=args.chunk_size,
    )
    for note in result.notes:
        print(f"{PROG}: note: {printable(note)}", file=sys.stderr)
    if args.json:
        sys.stdout.write(dumps(result.to_mapping()))
    else:
        sys.stdout.write(result.text())
    disagreements = sum(entry.get("oracle_disagreements") or 0 for entry in result.summary)
    if disagreements:
        print(f"{PROG}: the exact models disagreed on {disagreements} row(s): see oracle_check", file=sys.stderr)
        return 1
    return 0


def _install_peers(args) -> int:
    """The pinned Node libraries (``npm ci``, :func:`heuristics.node_peers.install`) or Go libraries (Debian's
    packages, the driver built: :func:`heuristics.go_peers.install`) into the cache."""
    from assignment_oracle.heuristics import go_peers, node_peers

    library = node_peers if args.runtime == "node" else go_peers
    try:
        folder = library.install()
    except RuntimeError as err:
        raise InputError("install-peers", "", str(err)) from None
    print(f"{library.version()} installed in {folder}")
    return 0


def _bugs(args) -> int:
    names = find_bugs(args.name) if args.name is not None else tuple(BUGS)
    if not names:
        raise InputError("bugs", "", f"no corpus entry {args.name!r} (known: {', '.join(BUGS)})")
    replays = [replay_bug(n) for n in names]
    if args.json:
        sys.stdout.write(dumps([r.to_mapping() for r in replays]))
    else:
        sys.stdout.write("\n".join(r.text() for r in replays) + "\n")
    return 0 if all(r.as_expected for r in replays) else 1


def _demo(args) -> int:
    out = Path(args.out) if args.out else None
    if out is not None:
        if out.exists() and not out.is_dir():
            raise InputError(str(out), "", "--out must be a folder (this exists and is not one)")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(str(out), "", f"cannot create the folder ({err.strerror or err})") from None
    failures = 0
    for path in bundled_examples():
        if _is_streams_file(path):
            failures += _streams_demo(path, out)
            continue
        problem = read_problem(path)
        solution: Solution = solve(problem)
        verdict = check(problem, solution.assignment, solution.certificate)
        if out is not None:
            write_output(out / path.name, dumps(solution.to_mapping(plain=False)))
        ok = verdict.exit_code() == 0
        failures += not ok
        print(
            f"{path.stem}: oracle {solution.status}  sorted loads {list(solution.sorted_loads)}  "
            f"retained {solution.retained}/{solution.owned}  certificate {verdict.certificate}  "
            f"check exit {verdict.exit_code()}"
        )
        for name in ASSIGNORS:
            print("  " + evaluation_line(evaluate(problem, name)))
    return 0 if failures == 0 else 1


# -- Streams groups (KIP-1071): scenarios with "kind": "streams" -------------------------------------------
# The same commands, over compare.judge.streams and optimal.solve; the options that only mean something for
# consumer groups are refused on a Streams group rather than ignored.


def _scenario_document(path) -> tuple[object, str]:
    """The decoded scenario of a file and the source its errors name (a sweep's counterexample file is read as
    the scenario it holds, as :func:`read_problem` does)."""
    document = read_json_file(path)
    source = str(path)
    if isinstance(document, dict) and set(document) == COUNTEREXAMPLE_KEYS:
        document, source = document["scenario"], f"{path}: scenario"
    return document, source


def _is_streams_document(document) -> bool:
    # a consumer scenario has no "kind" (its reader refuses the key): any "kind" is a Streams group's, whose
    # reader then says what is wrong with it
    return isinstance(document, dict) and "kind" in document


def _is_streams_file(path) -> bool:
    return _is_streams_document(_scenario_document(path)[0])


def _read_scenario(args):
    """The scenario of ``args.scenario``: a :class:`StreamsProblem` when its JSON says ``"kind"``, else the
    consumer group :class:`Problem` (exactly as :func:`read_problem` reads it)."""
    document, source = _scenario_document(args.scenario)
    limit = getattr(args, "max_partitions", MAX_PARTITIONS)
    if not _is_streams_document(document):
        return problem_from_mapping(document, source=source, max_partitions=limit)
    # a Streams group's own default (problem.streams.MAX_TASKS) unless --max-partitions was given another value
    return StreamsProblem.from_mapping(
        document, source=source, max_tasks=MAX_TASKS if limit == MAX_PARTITIONS else limit
    )


def _consumer_only(args, *options: str) -> None:
    """Refuse the consumer group options given on a Streams group scenario (one line, exit 2)."""
    given = {
        "--method": getattr(args, "method", "auto") != "auto",
        "--balance": getattr(args, "balance", DEFAULT_BALANCE) != DEFAULT_BALANCE,
        "--topic-spread": bool(getattr(args, "topic_spread", False)),
        "--max-moves": getattr(args, "max_moves", None) is not None,
        "--max-moves-per-member": getattr(args, "max_moves_per_member", None) is not None,
        "--time-limit": getattr(args, "time_limit", None) is not None,
    }
    for option in options:
        if given[option]:
            raise InputError(
                option, "", f"applies to consumer group scenarios; {args.scenario} is a Streams group (KIP-1071)"
            )


_CONSUMER_REQUEST = ("--method", "--balance", "--topic-spread", "--max-moves", "--max-moves-per-member")


def _streams_request(args):
    from assignment_oracle.optimal.streams_request import StreamsRequest

    _consumer_only(args, *_CONSUMER_REQUEST)
    if args.objective is None:
        return StreamsRequest()
    try:
        return StreamsRequest(objective=tuple(t.strip() for t in args.objective.split(",") if t.strip()))
    except UnsupportedRequest as err:
        raise InputError("--objective", "", str(err).removeprefix("objective: ")) from None


def _streams_time_limit(args) -> float | None:
    if args.time_limit is not None and not (0 < args.time_limit <= MAX_TIME_LIMIT):
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {args.time_limit}"
        )
    return STAGED_TIME_LIMIT if args.time_limit is None else args.time_limit


def _streams_optimum(args, problem: StreamsProblem, label: str):
    request = _streams_request(args)
    limit = _streams_time_limit(args)
    with _Clock(limit, label):
        return solve(problem, request, time_limit=limit)


def _streams_solve(args, problem: StreamsProblem) -> int:
    from assignment_oracle.compare.judge.streams import solution_to_mapping

    solution = _streams_optimum(args, problem, "solve")
    _write(args.output, dumps(solution_to_mapping(solution, timing=args.timing)), inputs=(args.scenario,))
    if solution.status == OPTIMAL:
        return 0
    unproven = "; ".join(f"{t.tier}: bound {json.dumps(t.bound)}" for t in solution.tiers if not t.proven)
    detail = solution.message or "not proven optimal"
    print(printable(f"{PROG}: {solution.status}: {detail}" + (f" ({unproven})" if unproven else "")), file=sys.stderr)
    return 1


def _streams_assignment(path: str):
    """A Streams assignment file: the output of ``solve``/``assign`` (its ``"assignment"`` key) or the bare
    ``{"members": ...}`` form."""
    from assignment_oracle.problem.streams import StreamsAssignment

    document = read_json_file(path)
    if isinstance(document, dict) and "assignment" in document:
        return StreamsAssignment.from_mapping(document["assignment"], source=f"{path}: assignment")
    return StreamsAssignment.from_mapping(document, source=str(path))


def _streams_check(args, problem: StreamsProblem) -> int:
    from assignment_oracle.compare.judge.streams import judge

    assignment = _streams_assignment(args.assignment)
    optimum = _streams_optimum(args, problem, "check: the optimum")
    verdict = judge(problem, assignment, optimum)
    sys.stdout.write(dumps(verdict.to_mapping()) if args.json else verdict.text())
    return verdict.exit_code()


def _streams_assignor(name: str, source: str, option: str = "--assignor"):
    """The Streams assignor called ``name``; a consumer group assignor's name is one line naming the mismatch."""
    from assignment_oracle.heuristics.registry import get_streams_assignor

    try:
        return get_streams_assignor(name)
    except UnknownAssignor:
        known = ", ".join(STREAMS_ASSIGNORS)
        try:
            get_assignor(name)
        except (ValueError, OracleError):
            raise InputError(
                option,
                "",
                f"unknown Streams group assignor {name!r} ({source} is a Streams group; known: {known})",
            ) from None
        raise InputError(
            option,
            "",
            f"{name} is a consumer group assignor; {source} is a Streams group scenario (its assignors: {known})",
        ) from None


def _run_streams(name: str, problem: StreamsProblem, order: str, source: str):
    from assignment_oracle.problem.errors import AssignorError

    entry = _streams_assignor(name, source)
    try:
        return entry.assign(problem, iteration_order=order)
    except AssignorError as err:
        raise AssignorFailed(f"{name}: {err}") from None


def _streams_assign(args, problem: StreamsProblem) -> int:
    from assignment_oracle.problem.streams import standby_shortfall, violations

    assignment = _run_streams(args.assignor, problem, args.iteration_order, args.scenario)
    found = violations(problem, assignment)
    document = {
        "kind": "streams",
        "assignor": args.assignor,
        "iteration_order": args.iteration_order,
        "valid": not found,
        "violations": [v.to_mapping() for v in found],
        "standby_shortfall": standby_shortfall(problem, assignment),
        "assignment": assignment.to_mapping(),
    }
    _write(args.output, dumps(document), inputs=(args.scenario,))
    if found:
        kinds = sorted({v.kind for v in found})
        print(
            printable(f"{PROG}: note: {args.assignor} produced an invalid assignment ({', '.join(kinds)})"),
            file=sys.stderr,
        )
    return 0


def _streams_compare(args, problem: StreamsProblem, given: list[str]) -> int:
    from assignment_oracle.compare.judge.streams import compare as compare_streams

    _consumer_only(args, *_CONSUMER_REQUEST, "--time-limit")
    if args.objective is not None:
        raise InputError("--objective", "", f"compare judges {args.scenario}, a Streams group, in Kafka's order")
    runs: list[tuple[str, str]] = []
    for name in given:
        items = [(n, o) for n in STREAMS_ASSIGNORS for o in ITERATION_ORDERS] if name == "all" else None
        if items is None:
            _streams_assignor(name, args.scenario, "--assignors")
            items = [(name, "sorted")]
        for item in items:
            if item in runs:
                raise InputError("--assignors", "", f"assignor {item[0]!r} is named twice")
            runs.append(item)
    with _Steps(1 + len(runs), "compare") as steps:
        result = compare_streams(problem, runs, progress=steps)
    sys.stdout.write(dumps(result.to_mapping(timing=args.timing)) if args.json else result.text())
    return 0


def _streams_explain(args, problem: StreamsProblem) -> int:
    from assignment_oracle.compare.judge.streams import judge

    if (args.assignment is None) == (args.assignor is None):
        raise InputError("explain", "", "give an assignment file or --assignor NAME, not both and not neither")
    if args.assignor is not None:
        assignment = _run_streams(args.assignor, problem, "sorted", args.scenario)
    else:
        assignment = _streams_assignment(args.assignment)
    optimum = _streams_optimum(args, problem, "explain: the optimum")
    verdict = judge(problem, assignment, optimum, assignor=args.assignor)
    sys.stdout.write(dumps(verdict.to_mapping()) if args.json else verdict.explanation_text())
    return verdict.exit_code()


def _streams_demo(path: Path, out: Path | None) -> int:
    """One bundled Streams example in ``demo``: the optimum, judged against itself, and every Streams assignor
    in both iteration orders; 1 when the optimum does not check."""
    from assignment_oracle.compare.judge.streams import compare as compare_streams
    from assignment_oracle.compare.judge.streams import judge, solution_to_mapping

    problem = StreamsProblem.from_mapping(read_json_file(path), source=str(path))
    solution = solve(problem)
    if out is not None:
        write_output(out / path.name, dumps(solution_to_mapping(solution)))
    code = judge(problem, solution.assignment, solution).exit_code() if solution.assignment is not None else 1
    values = "  ".join(f"{t.tier} {json.dumps(t.value)}" for t in solution.tiers)
    print(f"{path.stem}: oracle {solution.status}  {values}  check exit {code}")
    runs = [(n, o) for n in STREAMS_ASSIGNORS for o in ITERATION_ORDERS]
    for row in compare_streams(problem, runs, optimum=solution).rows:
        v = row.verdict
        said = (
            f"{row.status}: {row.message}"
            if v is None
            else v.verdict
            + (f" at {v.gap_tier}" if v.gap_tier else "")
            + (f"; broken: {', '.join(v.broken)}" if v.broken else "")
        )
        print(f"  {row.label}: {said}")
    return code != 0
