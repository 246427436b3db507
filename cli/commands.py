"""The commands of ``assignment-oracle``: their options and their few lines each over the library.

:mod:`assignment_oracle.cli` is the front (the overview, ``--help``,
``--version``, signals); it imports this module, and with it the library,
only when a command runs.

Every subcommand is a few lines around a library call that notebooks and
other programs can make directly (``optimal.solve``, ``compare.judge.judge``).
Bad input is one line on stderr naming the file and field, exit status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import logging
import os
import shlex
import sys
import threading
import time
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Mapping, Sequence

from assignment_oracle.compare.judge import FAIL_ON, judge, kind_of
from assignment_oracle.compare.judge.explain import explain
from assignment_oracle.compare.judge.front import ORACLE_ROWS
from assignment_oracle.compare.scenarios.bugs import BUGS
from assignment_oracle.compare.scenarios.bugs import find as find_bugs
from assignment_oracle.compare.scenarios.bugs import replay as replay_bug
from assignment_oracle.compare.scenarios.churn import (
    check_size,
    history_from_mapping,
    random_history,
    read_history,
    simulate,
    simulation_text,
)
from assignment_oracle.compare.scenarios.families import GROUP_MAXIMUM
from assignment_oracle.heuristics import ASSIGNORS, uniform
from assignment_oracle.heuristics import run as run_assignor
from assignment_oracle.heuristics.external import DEFAULT_MAX_OUTPUT, MAX_OUTPUT_VARIABLE
from assignment_oracle.heuristics.external import PREFIXES as EXTERNAL_PREFIXES
from assignment_oracle.heuristics.java_class import CLASSPATH_VARIABLE
from assignment_oracle.heuristics.java_class import PREFIX as JAVA_PREFIX
from assignment_oracle.heuristics.registry import (
    CLIENT_PEERS,
    GUARANTEE_NAMES,
    ITERATION_ORDERS,
    LIVE_PEERS,
    PEERS,
    STREAMS_ASSIGNORS,
    TOPIC_ID_PORTS,
    get_assignor,
    in_iteration_order,
    require_installed,
)
from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.junit import Case, write_junit
from assignment_oracle.optimal import (
    BALANCE_DEFINITIONS,
    DEFAULT_BALANCE,
    INFEASIBLE,
    METHODS,
    OPTIMAL,
    certificate_from_mapping,
    solve,
)
from assignment_oracle.problem.errors import (
    AssignorDidNotFinish,
    AssignorFailed,
    OracleError,
    SolverError,
    SparkFailed,
    WriteFailed,
)
from assignment_oracle.problem.extras import require
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.joining import with_joining
from assignment_oracle.problem.json_fields import field_path
from assignment_oracle.problem.kinds import kind_named
from assignment_oracle.problem.load import (
    STDIN,
    assignment_from_document,
    load_scenario,
    read_document,
    scenario_from_document,
)
from assignment_oracle.problem.scenario_json import (
    MAX_INPUT_BYTES,
    MAX_INPUT_VARIABLE,
    MAX_MEMBERS,
    MAX_PARTITIONS,
    InputError,
    check_output,
    counterexample_scenario,
    dumps,
    parse_objective,
    read_problem,
    write_output,
)
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
    command.add_argument(
        "--max-members",
        type=_max_partitions,
        default=MAX_MEMBERS,
        metavar="N",
        help="refuse groups with more members (default %(default)s)",
    )


#: The commands that read files or standard input: each takes --max-input-bytes.
_READS_INPUT = frozenset({"solve", "check", "assign", "compare", "explain", "simulate", "sweep", "capture"})


def _apply_max_input(args) -> None:
    """``--max-input-bytes`` for every file and standard input this command reads."""
    value = getattr(args, "max_input_bytes", None)
    if value is not None:
        os.environ[MAX_INPUT_VARIABLE] = str(value)


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


#: Each command's ``--help``: what it does in one sentence, an example, its exit statuses.
_HELP: dict[str, tuple[str, str, str]] = {
    "solve": (
        "Solve a scenario: the best assignment under the objective asked for, with its proof (a certificate).",
        "assignment-oracle solve scenario.json -o best.json",
        "0 proven optimal; 1 not proven within --time-limit; 3 infeasible; 2 bad input; 5 solver failed",
    ),
    "check": (
        "Judge an assignment against the optimum of its scenario, tier by tier.",
        "assignment-oracle assign s.json --assignor range | assignment-oracle check s.json -",
        "0 optimal; 1 valid, with a gap; 3 invalid; 4 the certificate given does not verify; 2 bad input",
    ),
    "explain": (
        "Say why an assignment is not optimal: the improving chain, or what could have stayed.",
        "assignment-oracle explain s.json --assignor sticky",
        "0 optimal; 1 valid, with a gap; 3 invalid; 2 bad input",
    ),
    "compare": (
        "Run every assignor (or those named) on a scenario and judge each against the optimum, one row each.",
        "assignment-oracle compare s.json --assignors range,sticky,external:./my-assignor --fail-on gap",
        "0 done (with --fail-on: no row meets it); 1 --fail-on: some row meets it, named on stderr; 2 bad input",
    ),
    "assign": (
        "Run one assignor on a scenario and write its assignment (check and explain read it).",
        "assignment-oracle assign s.json --assignor cooperative-sticky -o answer.json",
        "0 an assignment written (an invalid one with a note); 2 bad input; 6 did not finish; 7 failed",
    ),
    "assignors": (
        "List every assignor by name, with the kind of group it assigns (consumer, streams) and its protocol.",
        "assignment-oracle assignors",
        "0",
    ),
    "simulate": (
        "Play an assignor over a churn history, each round judged against that round's optimum.",
        "assignment-oracle generate churn --seed 3 | assignment-oracle simulate - --assignor sticky --fail-on invalid",
        "0 every round played (with --fail-on: none meets it); 1 stopped by a timeout or error, or --fail-on met; "
        "2 bad input",
    ),
    "bugs": (
        "Replay the historical bug corpus; write an entry's scenarios; or replay an assignor on an entry.",
        "assignment-oracle bugs KAFKA-7026 --assignor external:./my-assignor",
        "0 every entry as expected (--assignor, --answer: the defect is gone; --scenario, --export: written); 1 not "
        "as expected (--assignor, --answer: the defect is still there, or not judged); 2 bad input; 74 an export "
        "file could not be written whole",
    ),
    "test-assignor": (
        "Run the CI oracle's battery (assignment_oracle.testing.check_assignor) on an assignor in any language: "
        "groups drawn and played round after round, each answer judged against the optimum; a failure is shrunk "
        "to the smallest group, printed with the move that fixes it and a replay command, and written into --out.",
        "assignment-oracle test-assignor 'external:python3 my_assignor.py' --guarantee valid --junit oracle.xml",
        "0 passed (one summary line); 1 a counterexample (printed; its files in --out); 2 bad input (an unknown kind, "
        "guarantee, tier or assignor, --examples or --rounds below 1)",
    ),
    "install-peers": (
        "Install the Node or Go client libraries the kafkajs:*, kafka-node:*, sarama:* and kafka-go:* peers run.",
        "assignment-oracle install-peers node",
        "0 installed; 2 the runtime or the download is missing",
    ),
    "sweep": (
        "Run a scenario sweep on Spark into Parquet rows (resumable: a rerun skips finished scenarios).",
        "assignment-oracle sweep quick --out sweep-quick --fail-on invalid",
        "0 done (with --fail-on: no row meets it); 1 the exact models disagreed, or --fail-on met; 2 bad input; "
        "8 Spark failed",
    ),
    "report": (
        "Execute the gap report notebook against a sweep and write it as one standalone HTML file.",
        "assignment-oracle report sweep-quick --html report.html",
        "0 written; 1 the notebook failed; 2 bad input",
    ),
    "demo": (
        "Solve the bundled KIP-54, KIP-49 and Streams examples and judge every assignor on them.",
        "assignment-oracle demo",
        "0 every optimum checks; 1 one does not",
    ),
    "capture": (
        "Read a running group (read-only Admin requests) or the text kafka-consumer-groups.sh and kafka-topics.sh "
        "printed, as a scenario and, beside it, the group's current assignment (NAME.assignment.json) for check, "
        "compare and explain; --judge prints check's verdict and what the optimum would move (docs/operators.md).",
        "assignment-oracle capture --bootstrap-server broker:9092 --group orders --command-config client.properties "
        "-o orders.json --judge",
        "0 written (--judge: optimal); 1 --judge: a gap; 3 --judge: the assignment is invalid; 2 bad input, "
        "unreachable cluster, authentication failed, unknown or dead group",
    ),
    "generate": (
        "Write one scenario, churn history or Streams group from the bundled generator families.",
        "assignment-oracle generate random-subsets --seed 7 --param members=5 --param previous=balanced -o s.json",
        "0 written (the same family, seed and params give the same bytes); 2 bad family, parameter or output",
    ),
    "schema": (
        "Print the JSON Schema (draft 2020-12) of a format the tool reads or writes; --list (or no NAME) lists them.",
        "assignment-oracle schema scenario > scenario.schema.json",
        "0 printed; 2 an unknown NAME",
    ),
}


def _command(sub, name: str) -> argparse.ArgumentParser:
    """Subcommand ``name``: its line in the overview, and a ``--help`` that opens with what it does, an example
    and its exit statuses."""
    what, example, codes = _HELP[name]
    command = sub.add_parser(
        name,
        help=COMMANDS[name],
        description=what,
        epilog=f"example:\n  {example}\n\nexit status: {codes}; 74 an output could not be written whole "
        "(a full disk); 130 Ctrl-C, 143 SIGTERM",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if name in _READS_INPUT:
        command.add_argument(
            "--max-input-bytes",
            type=_max_partitions,
            metavar="N",
            help=f"refuse an input file (or standard input) larger than N bytes (default {MAX_INPUT_BYTES:,})",
        )
    return command


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Provably optimal Kafka consumer partition assignment.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = _command(sub, "solve")
    p.add_argument("scenario", help="scenario JSON file (- reads standard input)")
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

    c = _command(sub, "check")
    c.add_argument("scenario", help="scenario JSON file (- reads standard input)")
    _max_partitions_argument(c)
    c.add_argument(
        "assignment",
        help='JSON with an "assignment" key (and optionally a "certificate"), or the bare {member: {topic: '
        "[partitions]}}; - reads standard input (one of the two at most)",
    )
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

    a = _command(sub, "assign")
    a.add_argument("scenario", help="scenario JSON file (- reads standard input)")
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
    a.add_argument(
        "--member-order",
        choices=("listed", "id"),
        help="the order the group presents its members: as the scenario lists them (its join order) or by member "
        "id; for a Streams group the port's groupSpec.memberIds() in exactly that order (as Kafka's tests fix it), "
        "for a consumer group the join order peers and Java's order read (default: Streams, the iteration "
        "order's own; consumer, listed)",
    )
    _max_output_argument(a)
    _classpath_argument(a)
    _joining_argument(a)

    _command(sub, "assignors")

    m = _command(sub, "compare")
    m.add_argument("scenario", help="scenario JSON file (- reads standard input)")
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
    _fail_on_argument(m)
    _declared_arguments(m, "row")
    _max_output_argument(m)
    _classpath_argument(m)
    _joining_argument(m)

    e = _command(sub, "explain")
    e.add_argument("scenario", help="scenario JSON file (or a sweep's counterexample file; - reads standard input)")
    _max_partitions_argument(e)
    e.add_argument(
        "assignment",
        nargs="?",
        help='JSON with an "assignment" key (what solve, assign and check use) or the bare form; - reads standard input',
    )
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

    s = _command(sub, "simulate")
    s.add_argument(
        "history",
        nargs="?",
        help="history JSON file, a bundled one by name (see docs/churn.md), or - for standard input",
    )
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
    _joining_argument(
        s,
        "the starting group's member joining in round 0 (each later round: the member its join "
        "events add last, by default)",
    )
    s.add_argument("--json", action="store_true", help="print the simulation as JSON")
    _fail_on_argument(s)
    _declared_arguments(s, "round")

    w = _command(sub, "sweep")
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
    _fail_on_argument(w)
    _junit_argument(w)

    b = _command(sub, "bugs")
    b.add_argument("name", nargs="?", help="one entry, or a JIRA key (default: all)")
    b.add_argument("--json", action="store_true", help="print the replays as JSON")
    b.add_argument(
        "--scenario",
        dest="write_scenario",
        action="store_true",
        help="write the entry's scenario as solve and check read it (an entry with several: -o FILE writes "
        "FILE-1, FILE-2, ...; standard output gets one JSON array)",
    )
    b.add_argument("-o", "--output", metavar="OUT", help="with --scenario: write here instead of stdout")
    b.add_argument(
        "--assignor",
        metavar="NAME",
        help="replay this assignor (a registered name, external:COMMAND, java:CLASS with --classpath) in the place "
        "of the variants that show the entry's defect: exit 1 while it is still there, 0 once it is gone",
    )
    b.add_argument(
        "--iteration-order",
        choices=ITERATION_ORDERS,
        default="sorted",
        help="with --assignor: iterate Kafka's hash maps sorted (default) or as Java does (see assign --help)",
    )
    b.add_argument(
        "--answer",
        action="append",
        metavar="FILE",
        help="judge this answer in the place of the variants that show the entry's defect (one --answer per "
        "scenario of the entry, in order; - reads standard input): exit 1 while it is still there, 0 once it is gone",
    )
    b.add_argument(
        "--export",
        metavar="DIR",
        help="write the whole corpus as a conformance folder any test runner can use (README.md, each entry's "
        "scenarios and entry.json with its condition and judging commands); DIR new, empty, or a previous export",
    )
    b.add_argument(
        "--time-limit", type=float, metavar="S", help="with --assignor or --answer: seconds per run (default 60)"
    )
    _max_output_argument(b)
    _classpath_argument(b)

    t = _command(sub, "test-assignor")
    t.add_argument(
        "assignor",
        metavar="ASSIGNOR",
        help="external:COMMAND (any language, docs/external.md), java:CLASS with --classpath, or a registered name",
    )
    t.add_argument(
        "--kind",
        default="consumer",
        metavar="consumer|streams|share",
        help="the kind of group to draw (default consumer; several separated by commas, each checked apart)",
    )
    asked = t.add_mutually_exclusive_group()
    asked.add_argument(
        "--guarantee",
        metavar="G",
        help="judge only this promise beyond validity (valid, kafka-balance, ...; Streams and share groups: Kafka's)",
    )
    asked.add_argument(
        "--objective",
        metavar="T,T",
        help="optimal on this objective's tiers, in priority order (default: the scenario's own objective)",
    )
    t.add_argument("--tiers", metavar="T,T", help="only these tiers must equal the optimum's (default: every tier)")
    t.add_argument(
        "--examples",
        type=_max_partitions,
        metavar="N",
        help="groups to draw (default: check_assignor's, Hypothesis's default budget)",
    )
    t.add_argument("--rounds", type=_max_partitions, default=3, metavar="R", help="rebalances per group (default 3)")
    t.add_argument("--seed", type=int, default=0, metavar="S", help="the seed: the same groups every run (default 0)")
    t.add_argument(
        "--out",
        default="oracle-counterexamples",
        metavar="DIR",
        help="where the counterexample's scenario and answer go (default ./oracle-counterexamples, created)",
    )
    t.add_argument(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML here: one test case per kind checked, a failing one holding the counterexample",
    )
    t.add_argument("--time-limit", type=float, metavar="S", help="seconds per call of the assignor (default 60)")
    _max_output_argument(t)
    _classpath_argument(t)

    r = _command(sub, "report")
    r.add_argument("dir", metavar="DIR", help="a sweep's output directory (assignment-oracle sweep ... --out DIR)")
    r.add_argument("--html", metavar="OUT", help="the HTML file to write (default: DIR/report.html)")
    r.add_argument("--families", metavar="A,B", help="only these scenario families (default: all in the sweep)")
    r.add_argument("--assignors", metavar="A,B", help="only these assignors (default: all in the sweep)")
    r.add_argument(
        "--counterexamples", type=int, default=10, metavar="N", help="rows in the worst-counterexamples table"
    )
    r.add_argument("--notebook", metavar="OUT.ipynb", help="also write the executed notebook here")
    r.add_argument("--show-code", action="store_true", help="keep the notebook's code cells in the HTML")

    i = _command(sub, "install-peers")
    i.add_argument(
        "runtime",
        choices=("node", "go"),
        help="node: kafkajs and kafka-node at the pinned versions (npm); go: sarama and kafka-go with Debian's Go "
        "at the pinned versions (downloaded from deb.debian.org, built once)",
    )

    d = _command(sub, "demo")
    d.add_argument("--out", metavar="DIR", help="also write each example's solution here")

    k = _command(sub, "capture")
    k.add_argument("--group", required=True, metavar="G", help="the group id")
    k.add_argument("--bootstrap-server", metavar="HOST:PORT", help="a broker of the cluster (HOST:PORT[,HOST:PORT])")
    k.add_argument(
        "--command-config",
        metavar="FILE",
        help="client properties (security.protocol, sasl.*, ssl.*: the Kafka client's keys); secrets are never shown",
    )
    k.add_argument(
        "--type",
        dest="group_type",
        choices=("auto", "classic", "consumer", "streams", "share"),
        default="auto",
        help="the group's protocol (default auto: the describe that knows the group)",
    )
    k.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds for the whole read (default 30)")
    k.add_argument(
        "--group-description",
        metavar="FILE",
        help="offline: the saved output of kafka-consumer-groups.sh --describe --group G --members --verbose "
        "(and --state --verbose, for the assignor)",
    )
    k.add_argument(
        "--topic-description", metavar="FILE", help="offline: the saved output of kafka-topics.sh --describe"
    )
    k.add_argument(
        "--brokers", metavar="FILE", help="offline: the saved output of kafka-broker-api-versions.sh (racks)"
    )
    k.add_argument(
        "--subscriptions",
        choices=("same", "held"),
        default="same",
        help="offline (the text has none): every member subscribes to every topic the group holds (default), "
        "or to the topics it holds",
    )
    k.add_argument("-o", "--output", metavar="OUT", help="write the scenario here and the assignment beside it")
    k.add_argument(
        "--judge", action="store_true", help="judge the current assignment: check's verdict, and the optimum's moves"
    )
    k.add_argument("--json", action="store_true", help="with --judge: print the verdict as JSON")
    k.add_argument(
        "--time-limit", type=float, metavar="S", help="with --judge: seconds for the optimum (default: as check)"
    )

    g = _command(sub, "generate")
    g.add_argument("family", nargs="?", help="a generator family (generate --list shows each with its parameters)")
    g.add_argument("--seed", type=int, metavar="N", help="the seed (a non-negative integer)")
    g.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a family parameter, repeatable; VALUE as JSON (5, 0.3, true, null, [4,8]) or a bare string (balanced)",
    )
    g.add_argument("-o", "--output", metavar="OUT", help="write the JSON here instead of stdout (- is stdout)")
    g.add_argument("--list", action="store_true", help="list the families and their parameters with defaults")

    j = _command(sub, "schema")
    j.add_argument("name", nargs="?", metavar="NAME", help="the format (schema --list names them)")
    j.add_argument("--list", action="store_true", help="list the schemas, one line each")
    return parser


def run(argv: Sequence[str], handlers: Mapping[str, Callable] = MappingProxyType({})) -> int:
    """Parse ``argv`` (a command and its options) and run the command; :func:`cli.main` wraps it."""
    return _run(_parser().parse_args(argv), handlers)


def _run(args, handlers: Mapping[str, Callable] = MappingProxyType({})) -> int:
    _STANDARD_INPUT.clear()
    try:
        _apply_max_output(args)
        _apply_max_input(args)
        _apply_classpath(args)
        _one_standard_input(args)
        if getattr(args, "output", None) is not None:  # refused before any work, not after it
            check_output(args.output, inputs=tuple(a for a in (getattr(args, "scenario", None),) if a))
        if getattr(args, "junit", None) is not None:
            check_output(args.junit, inputs=tuple(a for a in (getattr(args, "scenario", None),) if a))
        if args.command in handlers:  # a command the front hands in (the CI oracle's: test-assignor)
            return handlers[args.command](args)
        if args.command == "test-assignor":  # run() called without the front's handlers
            raise InputError("test-assignor", "", "runs through the program's front (assignment_oracle.cli.main)")
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
        if args.command == "generate":
            return _generate(args)
        if args.command == "capture":
            return _capture(args)
        if args.command == "schema":
            return _schema(args)
        return _demo(args)
    except OracleError as err:  # the library's one error vocabulary: one line, its exit status
        print(f"{PROG}: {_label(err)}: {printable(str(err))}", file=sys.stderr)
        return err.exit_code


def _label(err: OracleError) -> str:
    for kind, label in (
        (SolverError, "solver failed"),
        (SparkFailed, "sweep failed"),
        (WriteFailed, "write failed"),
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
    return read_problem(
        args.scenario, objective=objective, max_partitions=args.max_partitions, max_members=args.max_members
    )


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


def _resolve(name: str, source: str = "the scenario"):
    """The consumer group assignor called ``name`` (registry, peer or ``external:``); bad names are bad input,
    another kind's assignor refused by the registry's one refusal (``source``: what the scenario is called)."""
    try:
        assignor = get_assignor(name, source=source)
    except ValueError as err:
        raise InputError("--assignor", "", str(err)) from None
    require_installed(name)  # a peer whose library or runtime is missing: one line, exit 2
    return assignor


def _run_named(name: str, problem, iteration_order: str = "sorted", source: str = "scenario"):
    """Run one assignor for ``assign``/``explain``; its failure is one line naming it (exit 7)."""
    assignor = _resolve(name, source)
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
    """Every assignor, one line each: name, kind of group (consumer, streams, share), protocol, what it is."""
    everything = [*ASSIGNORS.values(), *PEERS.values(), *LIVE_PEERS.values(), *CLIENT_PEERS.values()]
    lines = [
        (a.name, "consumer", a.protocol, f"{a.summary}  [{a.origin}; guarantee: {a.guarantee}]") for a in everything
    ]
    lines += [
        (
            "external:COMMAND",
            "consumer",
            "eager",
            "any program speaking the JSON protocol (docs/external.md)  [guarantee: valid]",
        ),
        (
            "java:CLASS",
            "consumer",
            "either",
            "any Java ConsumerPartitionAssignor on --classpath, one JVM per command (docs/external.md)  "
            "[guarantee: valid]",
        ),
    ]
    lines += [
        (
            s.name,
            "streams",
            "streams",
            f"{s.summary}; --iteration-order java as Kafka iterates  [{s.origin}; guarantees: Kafka's (valid, "
            "standbys placed where possible, balanced)]",
        )
        for s in STREAMS_ASSIGNORS.values()
    ]
    from assignment_oracle.heuristics.registry import SHARE_ASSIGNORS

    lines += [
        (
            s.name,
            "share",
            "share",
            f"{s.summary}"
            + ("" if s.live else "; --iteration-order java as Kafka iterates")
            + f"  [{s.origin}; judged on Kafka's SimpleAssignor promises]",
        )
        for s in SHARE_ASSIGNORS.values()
    ]
    width = max(len(name) for name, *_ in lines)
    print(f"{'name':{width}}  {'kind':8}  {'protocol':11}  what")
    for name, kind, protocol, what in lines:
        print(f"{name:{width}}  {kind:8}  {protocol:11}  {what}")
    return 0


def _assignor_time_limit(value: float | None) -> float | None:
    """``--time-limit`` for assignors: positive, finite, at most a year."""
    if value is not None and not (0 < value <= MAX_TIME_LIMIT):
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {value}"
        )
    return value


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
    assignor = _declaring([args.assignor], args.guarantee)[0]
    _assignor_time_limit(args.time_limit)
    if (args.history is None) == (args.seed is None):
        raise InputError("simulate", "", "give a history file (or bundled name) or --seed, not both and not neither")
    if args.history == STDIN:
        document, source = _document(STDIN)
        history = history_from_mapping(
            document, source=source, max_partitions=args.max_partitions, max_members=args.max_members
        )
    elif args.history is not None:
        path = Path(args.history)
        if not path.exists() and args.history in bundled_histories():
            path = bundled_histories()[args.history]
        history = read_history(path, max_partitions=args.max_partitions, max_members=args.max_members)
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
        check_size(history, source="--seed", max_partitions=args.max_partitions, max_members=args.max_members)
    history = _with_joining(args, history)
    with _Steps(len(history.rounds) + 1, f"simulate {args.assignor}") as steps:
        result = simulate(history, assignor, time_limit=args.time_limit, progress=steps)
    if args.json:
        sys.stdout.write(dumps(versioned("simulation", result.to_mapping())))
    else:
        sys.stdout.write(simulation_text(result))
    failed = _fail_on(args, [(f"round {r.index}", r.evaluation, r.problem) for r in result.rounds])
    return 0 if result.completed and not failed else 1


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
        sys.stdout.write(dumps(versioned("sweep", result.to_mapping())))
    else:
        sys.stdout.write(result.text())
    if args.junit is not None:
        _sweep_junit(args)
    disagreements = sum(entry.get("oracle_disagreements") or 0 for entry in result.summary)
    if disagreements:
        print(f"{PROG}: the exact models disagreed on {disagreements} row(s): see oracle_check", file=sys.stderr)
        return 1
    if args.fail_on is not None:
        return _report_failures(args.fail_on, _sweep_failures(args.out, args.fail_on))
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
    modes = [
        m
        for m, on in (
            ("--scenario", args.write_scenario),
            ("--assignor", args.assignor is not None),
            ("--answer", args.answer),
        )
        if on
    ]
    if args.export is not None:
        if args.name is not None or modes or args.json or args.output is not None:
            raise InputError(
                "--export",
                "",
                "writes the whole corpus: no entry, --scenario, --assignor, --answer, --json or -o with it",
            )
        return _bug_export(args)
    if len(modes) > 1:
        raise InputError(
            "bugs", "", f"give one of --scenario, --assignor and --answer, not both {modes[0]} and {modes[1]}"
        )
    if args.output is not None and not args.write_scenario:
        raise InputError("-o", "", "writes an entry's scenarios: it goes with --scenario")
    if modes and args.name is None:
        raise InputError(
            "bugs", "", f"--scenario, --assignor and --answer take one entry: bugs NAME {modes[0]} (see bugs)"
        )
    if modes and len(names) != 1:
        raise InputError("bugs", "", f"{args.name!r} names {len(names)} entries ({', '.join(names)}): name one")
    if args.write_scenario:
        return _bug_scenarios(args, names[0])
    if args.assignor is not None:
        return _bug_candidate(args, names[0])
    if args.answer:
        return _bug_answers(args, names[0])
    replays = [replay_bug(n) for n in names]
    if args.json:
        sys.stdout.write(dumps([versioned("bug-replay", r.to_mapping()) for r in replays]))
    else:
        sys.stdout.write("\n".join(r.text() for r in replays) + "\n")
    return 0 if all(r.as_expected for r in replays) else 1


def _numbered(path: str, number: int) -> Path:
    """``FILE.json`` -> ``FILE-2.json``: the ``number``-th scenario of an entry with several."""
    target = Path(path)
    return target.with_name(f"{target.stem}-{number}{target.suffix}")


def _bug_scenarios(args, name: str) -> int:
    """``bugs NAME --scenario [-o FILE]``: the entry's scenario as ``solve`` and ``check`` read it; an entry with
    several (the same claims in another order, a control group) writes FILE-1, FILE-2, ... (on standard output:
    one JSON array)."""
    documents = _bug_documents(name)
    if len(documents) == 1:
        _write(args.output, dumps(documents[0]))
        return 0
    if args.output is None or args.output in ("-", "/dev/stdout"):
        _write(None, dumps(documents))
        return 0
    targets = [_numbered(args.output, i) for i in range(1, len(documents) + 1)]
    for target in targets:
        check_output(target)
    for target, document in zip(targets, documents):
        write_output(target, dumps(document))
    print(f"{PROG}: {name}: {len(documents)} scenarios -> {', '.join(map(str, targets))}", file=sys.stderr)
    return 0


def _bug_documents(name: str) -> list[dict]:
    """Entry ``name``'s scenarios as ``bugs NAME --scenario`` and ``bugs --export`` write them."""
    return [versioned("scenario", problem.to_mapping()) for problem in BUGS[name].problems()]


def _bug_export(args) -> int:
    """``bugs --export DIR``: the whole corpus as a conformance folder (compare.scenarios.bug_export)."""
    from assignment_oracle.compare.scenarios.bug_export import export

    written = export(args.export, {name: _bug_documents(name) for name in BUGS})
    print(f"{PROG}: bugs: {len(BUGS)} entries, {len(written)} files -> {printable(args.export)}", file=sys.stderr)
    return 0


def _bug_answers(args, name: str) -> int:
    """``bugs NAME --answer FILE ...``: the answers (one per scenario of the entry) judged in the place of the
    variants that show the defect, as ``--assignor`` judges an assignor's; exit 0 gone, 1 still there or not
    judged."""
    from assignment_oracle.compare.scenarios.bugs import TIME_LIMIT, answer_candidate, replay_assignor
    from assignment_oracle.problem.load import load_assignment

    if BUGS[name].later_rounds:
        raise InputError(
            "--answer", "", f"{name} judges the assignor's later rounds, which no answer file holds: give --assignor"
        )
    problems = BUGS[name].problems()
    if len(args.answer) != len(problems):
        raise InputError(
            "--answer",
            "",
            f"{name} has {len(problems)} scenario(s): give one --answer per scenario, in order "
            f"(got {len(args.answer)}; bugs {name} --scenario writes them)",
        )
    if args.answer.count("-") > 1:
        raise InputError("--answer", "", "standard input (-) can be read once")
    answers = [load_assignment(path, problem) for path, problem in zip(args.answer, problems)]
    candidate = answer_candidate(name, answers)
    limit = _assignor_time_limit(args.time_limit)
    result = replay_assignor(name, candidate, time_limit=TIME_LIMIT if limit is None else limit)
    sys.stdout.write(
        dumps(versioned("bug-candidate", result.to_mapping())) if args.json else printable_lines(result.text())
    )
    return result.exit_code()


def _bug_candidate(args, name: str) -> int:
    """``bugs NAME --assignor A``: A replayed in the place of the variants that show the entry's defect, judged
    by the entry's finding; exit 0 when the defect is gone, 1 when it is still there (or not judged)."""
    from assignment_oracle.compare.judge.front import registered
    from assignment_oracle.compare.scenarios.bugs import TIME_LIMIT, as_candidate, replay_assignor

    limit = _assignor_time_limit(args.time_limit)
    bug = BUGS[name]
    label = args.assignor if args.iteration_order == "sorted" else f"{args.assignor} ({args.iteration_order} order)"
    entry = registered(bug.kind, args.assignor, "--assignor", f"corpus entry {name}")
    try:
        candidate = as_candidate(bug.kind, label, entry, args.iteration_order)
    except ValueError as err:
        raise InputError("--iteration-order", "", str(err)) from None
    with _Steps(None, f"bugs {name} --assignor"):
        result = replay_assignor(name, candidate, time_limit=TIME_LIMIT if limit is None else limit)
    sys.stdout.write(
        dumps(versioned("bug-candidate", result.to_mapping())) if args.json else printable_lines(result.text())
    )
    return result.exit_code()


def printable_lines(text: str) -> str:
    """``text`` with each line shown through :func:`printable` (names from a scenario or a command in it)."""
    return "".join(printable(line) + "\n" for line in text.splitlines())


# -- generate: one scenario, history or Streams group from the bundled generators -----------------------------


def _param(text: str) -> tuple[str, object]:
    """``--param k=v``: ``v`` as JSON (``3``, ``0.5``, ``true``, ``null``, ``[4, 8]``), else as a string."""
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise InputError("--param", "", f"must be NAME=VALUE, got {printable(text)!r}")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    if isinstance(parsed, float) and parsed.is_integer() and "." not in value and "e" not in value.lower():
        parsed = int(parsed)
    return key, parsed


def _generate(args) -> int:
    from assignment_oracle.compare.scenarios import generated

    if args.list:
        sys.stdout.write(generated.catalogue())
        return 0
    if args.family is None:
        raise InputError("generate", "", f"name a family ({', '.join(generated.GENERATORS)}; generate --list)")
    if args.seed is None:
        raise InputError("--seed", "", "required: the same family, seed and params give the same scenario")
    params: dict[str, object] = {}
    for text in args.param or ():
        key, value = _param(text)
        if key in params:
            raise InputError("--param", "", f"{printable(key)} is given twice")
        params[key] = value
    try:
        document = generated.document(args.family, args.seed, params)
    except generated.UnknownGenerator:
        raise InputError(
            "generate", "", f"unknown family {printable(args.family)!r} (known: {', '.join(generated.GENERATORS)})"
        ) from None
    except (ValueError, TypeError) as err:
        said = printable(str(err))
        if "parameters:" not in said and "known:" not in said:
            said += f" (the parameters of {args.family}: {', '.join(sorted(generated.parameters(args.family)))})"
        raise InputError("--param", "", said) from None
    _write(args.output, dumps(versioned("history" if args.family == generated.CHURN else "scenario", document)))
    return 0


def _schema(args) -> int:
    """``schema NAME``: the JSON Schema of a format (assignment_oracle.schema), as canonical JSON."""
    from assignment_oracle import schema

    if args.list or args.name is None:
        sys.stdout.write(schema.listing())
        return 0
    sys.stdout.write(dumps(schema.schema(args.name)))
    return 0


# -- --fail-on: exit 1 when a row of compare, simulate or sweep meets a condition ------------------------------

#: ``--fail-on``'s conditions (compare.judge.verdict.FAIL_ON, a ladder, each including the ones before) and the
#: rows that are the optimum's own, never judged by it (compare.judge.front.ORACLE_ROWS): the library's, not copies.
_OPTIMUM_ROWS = frozenset(ORACLE_ROWS)


def _capture(args) -> int:
    """``capture``: a group, live or from the tools' texts, written as a scenario and its assignment; judged."""
    from assignment_oracle.compare.capture import candidate_path, capture_group, judge_capture

    if args.output is None and not args.judge:
        raise InputError("capture", "", "give -o OUT (the scenario; its assignment goes beside it), --judge, or both")
    if args.time_limit is not None and not (0 < args.time_limit <= MAX_TIME_LIMIT):
        raise InputError("--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}")
    if args.output is not None:  # both files refused before any work, as every -o
        check_output(candidate_path(args.output), inputs=(args.output,))
    capture = capture_group(
        args.group,
        bootstrap=args.bootstrap_server,
        command_config=args.command_config,
        group_type=args.group_type,
        timeout=args.timeout,
        group_description=args.group_description,
        topic_description=args.topic_description,
        brokers=args.brokers,
        subscriptions=args.subscriptions,
    )
    if args.output is not None:
        written = capture.write(args.output)
        where = f"{printable(args.output)} (scenario) and {printable(written)} (assignment"
        print(f"{PROG}: wrote {where}, assignor {printable(capture.assignor or 'unknown')})", file=sys.stderr)
    if not args.judge:
        return 0
    with _Clock(args.time_limit, "capture: the optimum"):
        judged = judge_capture(capture, time_limit=args.time_limit)
    sys.stdout.write(dumps(versioned("capture", judged.to_mapping())) if args.json else judged.text())
    return judged.exit_code


def _fail_on_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        metavar="invalid|guarantee|gap",
        help="exit 1 when any row meets this, naming the rows on stderr: invalid (no valid assignment), guarantee "
        "(that, or the assignor's own guarantee broken), gap (that, or worse than the optimum on some tier)",
    )


def _junit_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--junit",
        metavar="FILE",
        help="also write JUnit XML here, one test case per row judged (GitHub Actions, GitLab and Jenkins show each "
        f"failing one): failing when it meets --fail-on's condition (default {JUNIT_CONDITION})",
    )


def _declared_arguments(command: argparse.ArgumentParser, rows: str) -> None:
    """``--guarantee`` (what an ``external:`` or ``java:`` assignor promises), ``--junit`` and ``--out`` (the
    failing rows' groups and answers, for their replay commands)."""
    command.add_argument(
        "--guarantee",
        metavar="G",
        help="the guarantee the external:/java: assignor declares, judged by --fail-on guarantee (valid, "
        "kafka-balance, per-topic-balance, ...; default valid); a registered assignor keeps its own",
    )
    _junit_argument(command)
    command.add_argument(
        "--out",
        metavar="DIR",
        help=f"write each failing {rows}'s group and answer here (named by their content): its replay command "
        "checks them",
    )


def _declaring(names: list, guarantee: str | None) -> list:
    """``names`` with each ``external:`` and ``java:`` assignor judged on ``guarantee`` (``--guarantee``); the
    registered ones keep their own.  A guarantee with no such assignor to declare it, or an unknown one, is one
    line for ``--guarantee``."""
    if guarantee is None:
        return list(names)
    commands = [n for n in names if isinstance(n, str) and n.startswith((*EXTERNAL_PREFIXES, JAVA_PREFIX))]
    if not commands:
        raise InputError(
            "--guarantee",
            "",
            "declares what an external: or java: assignor promises, and none is named (a registered assignor is "
            "judged on its own guarantee)",
        )
    if guarantee not in GUARANTEE_NAMES:
        raise InputError(
            "--guarantee", "", f"unknown guarantee {printable(guarantee)!r} (known: {', '.join(GUARANTEE_NAMES)})"
        )
    return [dataclasses.replace(get_assignor(n), guarantee=guarantee) if n in commands else n for n in names]


def _meets(row, condition: str) -> str | None:
    """Why a compare row or a simulate round's evaluation meets ``condition`` (its own ``meets`` decides),
    or ``None``."""
    if not row.meets(condition):
        return None
    verdict = row.verdict
    if row.status != "ok" or verdict is None or not verdict.valid:
        shown = row.message or ("; ".join(verdict.violations[:2]) if verdict is not None else "")
        return (
            "invalid"
            + (f" ({row.status})" if row.status not in ("ok", "invalid") else "")
            + (f": {shown}" if shown else "")
        )
    guarantee = getattr(row, "guarantee", None)  # a consumer row's own guarantee; the verdict names the others
    broken = [f"{f.name.removeprefix('guarantee:')} ({f.summary})" for f in verdict.guarantees if f.holds is False]
    if not broken and guarantee is not None and guarantee.applies and not guarantee.kept:
        broken = [f"{guarantee.guarantee}: {guarantee.reason}"]
    if broken and condition != "invalid":
        return f"guarantee broken: {'; '.join(broken)}"
    return f"{verdict.status}" + (f" at the {verdict.gap_tier} tier" if verdict.gap_tier else "")


def _report_failures(condition: str, failures: list[str]) -> int:
    for line in failures:
        print(printable(f"{PROG}: --fail-on {condition}: {line}"), file=sys.stderr)
    return 1 if failures else 0


#: What ``--junit`` marks as a failing test case when ``--fail-on`` is not given: a broken promise (an invalid
#: answer, or the assignor's own guarantee broken); a gap is a failure only when ``--fail-on gap`` asks.
JUNIT_CONDITION = "guarantee"


def _fail_on(args, rows, *, scenario: str | None = None) -> int:
    """``--fail-on`` and ``--junit``: 1 when any row (the optimum's own aside) meets ``--fail-on``'s condition,
    each named on stderr in one line with the move that fixes it, a replay command and the ``test-assignor``
    command that shrinks it; ``--junit`` writes one test case per row.  ``rows`` are ``(label, row, problem)``
    (the group the row was judged on); ``scenario``: the file the rows' group was read from (``None``: a group
    that is no file, a simulation's round: replayable once ``--out`` writes it)."""
    condition = getattr(args, "fail_on", None)
    junit = getattr(args, "junit", None)
    if condition is None and junit is None:
        return 0
    failures, cases = [], []
    suite = f"{args.command} {_shown_path(getattr(args, 'scenario', None) or getattr(args, 'history', None))}"
    for label, row, problem in rows:
        if getattr(row, "assignor", None) in _OPTIMUM_ROWS:
            continue
        why = _meets(row, condition or JUNIT_CONDITION)
        if why is None:
            cases.append(Case(label, suite))
            continue
        move, replay, shrink, files = _row_replay(args, label, row, problem, scenario, why)
        said = f"{label}: {why}" + (f"; fixing move: {move}" if move else "") + f"; replay: {replay}; shrink: {shrink}"
        if condition is not None:
            failures.append(said)
        details = [f"{label}: {why}", *([f"fixing move: {move}"] if move else []), f"replay: {replay}"]
        details.append(f"shrink: {shrink}")
        cases.append(Case(label, suite, why, "\n".join(details), "\n".join(f"[[ATTACHMENT|{f}]]" for f in files)))
    if junit is not None:
        write_junit(junit, suite, cases)
    return _report_failures(condition, failures) if condition is not None else 0


def _shown_path(path) -> str:
    return "(standard input)" if path in (None, STDIN) else Path(str(path)).name


def _fixing_move(verdict) -> str | None:
    """The first finding of ``verdict`` that does not hold, a move that fixes it first (Kafka's local condition,
    the improving chain) before a broken promise's own finding."""
    if verdict is None or not verdict.valid:
        return None
    defects = [f for f in verdict.findings if f.holds is False]
    first = next((f for f in defects if f.role != "guarantee"), defects[0] if defects else None)
    return None if first is None else f"{first.name}: {first.summary}"


def _row_replay(args, label: str, row, problem, scenario: str | None, why: str):
    """How a failing row is replayed: (the fixing move, the replay command, the ``test-assignor`` command that
    shrinks it, the files written).  With ``--out DIR`` the row's group and answer are written there (named by
    their content) and ``check`` replays them; without, ``assign | check`` on the scenario file, when there is
    one."""
    assignor = getattr(row, "assignor", label)
    kind = kind_of(problem).name
    move = _fixing_move(row.verdict)
    objective = ""
    order = tuple(row.verdict.objective_order) if row.verdict is not None else ()
    if order and tuple(getattr(problem, "objective", order)) != order:  # compare judges balance first
        objective = " --objective " + ",".join(order)
    files: list[Path] = []
    out = getattr(args, "out", None)
    if out is not None:
        files = _write_row(Path(out), problem, getattr(row, "assignment", None))
    source = str(files[0]) if files else scenario
    if len(files) == 2:
        replay = f"{PROG} check {shlex.quote(str(files[0]))} {shlex.quote(str(files[1]))}{objective}"
    elif source is not None and source != STDIN:
        order_flag = "" if getattr(row, "iteration_order", "sorted") == "sorted" else " --iteration-order java"
        replay = (
            f"{PROG} assign {shlex.quote(source)} --assignor {shlex.quote(assignor)}{order_flag} | "
            f"{PROG} check {shlex.quote(source)} -{objective}"
        )
    else:
        replay = f"run again with --out DIR to write {label}'s group and answer"
    promise = None
    if why.startswith("invalid"):
        promise = "valid"
    elif why.startswith("guarantee broken") and getattr(row, "guarantee", None) is not None:
        promise = row.guarantee.guarantee
    shrink = shlex.join(
        [PROG, "test-assignor", assignor, "--kind", kind, *(["--guarantee", promise] if promise else [])]
    )
    return move, replay, shrink, files


def _write_row(out: Path, problem, assignment) -> list[Path]:
    """The row's group (and its answer, when the row has one) as JSON files in ``out``, named by their content
    (the same failure twice writes the same files)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(str(out), "", f"cannot create the folder ({err.strerror or err})") from None
    texts = [dumps(problem.to_mapping())]
    if assignment is not None:
        texts.append(dumps(kind_named(kind_of(problem).name).answer_document(problem, assignment)))
    digest = hashlib.sha256("".join(texts).encode()).hexdigest()[:10]
    paths = [out / f"{name}-{digest}.json" for name in ("scenario", "answer")[: len(texts)]]
    for path, text in zip(paths, texts):
        write_output(path, text)
    return paths


#: The sweep columns ``--fail-on`` reads (those present: ``verdict`` and ``gap_tier`` are newer).
_SWEEP_COLUMNS = (
    "family",
    "scenario_id",
    "seed",
    "round",
    "assignor",
    "status",
    "message",
    "valid",
    "verdict",
    "gap_tier",
    "guarantee",
    "guarantee_applies",
    "guarantee_kept",
    "streams_guarantees_broken",
    "streams_verdict",
    "streams_gap_tier",
    "most_balanced",
    "cross_rack",
    "optimal_cross_rack",
    "retained",
    "optimal_retained",
)


def _sweep_row_faults(r: dict) -> tuple[str | None, str | None, str | None]:
    """:func:`_row_faults` for a sweep's Parquet row."""
    status = r.get("status")
    verdict = r.get("verdict")
    if status != "ok" or r.get("valid") is False or verdict == "invalid":
        return f"{status}" + (f": {r['message']}" if r.get("message") else ""), None, None
    broken = None
    if r.get("guarantee_applies") and r.get("guarantee_kept") is False:
        broken = f"guarantee {r.get('guarantee')} broken"
    elif r.get("streams_guarantees_broken"):
        broken = f"guarantees broken: {r['streams_guarantees_broken']}"
    if verdict is not None or r.get("streams_verdict") is not None:
        said = verdict if verdict is not None else r["streams_verdict"]
        tier = r.get("gap_tier") if verdict is not None else r.get("streams_gap_tier")
        gap = f"{said}" + (f" at {tier}" if tier else "") if said in ("gap", "short") else None
        return None, broken, gap
    # rows without a verdict column (sweeps written before it): the tiers, balance first, against the optimum's
    tiers = []
    if r.get("most_balanced") is False:
        tiers.append("balance")
    for tier, mine, best in (
        ("rack", "cross_rack", "optimal_cross_rack"),
        ("stickiness", "retained", "optimal_retained"),
    ):
        if r.get(mine) is not None and r.get(best) is not None and r[mine] != r[best]:
            tiers.append(tier)
    return None, broken, (f"gap on {', '.join(tiers)}" if tiers else None)


def _sweep_judged(out, condition: str) -> list[tuple[str, str, str | None]]:
    """Every row of the sweep in ``out`` (the optimum's own aside), in a stable order: where it is (family,
    scenario, seed, round), its assignor, and why it meets ``condition`` (``None``: it does not)."""
    import pyarrow.dataset as ds

    dataset = ds.dataset(str(Path(out) / "rows"), format="parquet", partitioning="hive")
    columns = [c for c in _SWEEP_COLUMNS if c in dataset.schema.names]
    rows = dataset.to_table(columns=columns).to_pylist()
    at = FAIL_ON.index(condition) + 1
    judged = []
    for r in sorted(rows, key=lambda r: tuple(str(r.get(c)) for c in ("family", "scenario_id", "round", "assignor"))):
        if str(r.get("assignor")) in _OPTIMUM_ROWS:
            continue
        said = next((x for x in _sweep_row_faults(r)[:at] if x is not None), None)
        where = f"{r.get('family')} {r.get('scenario_id')} seed {r.get('seed')}"
        where += f" round {r['round']}" if r.get("round") is not None else ""
        judged.append((where, str(r.get("assignor")), said))
    return judged


def _sweep_failures(out, condition: str) -> list[str]:
    """The rows of the sweep in ``out`` that meet ``condition``, one line each, in a stable order."""
    return [f"{where} {assignor}: {said}" for where, assignor, said in _sweep_judged(out, condition) if said]


def _sweep_junit(args) -> None:
    """``sweep --junit FILE``: one test case per row judged, failing where it meets ``--fail-on``'s condition
    (default :data:`JUNIT_CONDITION`), pointing to the sweep's counterexample files and to ``test-assignor``."""
    folder = Path(args.out) / "counterexamples"
    cases = []
    for where, assignor, said in _sweep_judged(args.out, args.fail_on or JUNIT_CONDITION):
        if said is None:
            cases.append(Case(where, f"sweep.{assignor}"))
            continue
        details = (
            f"{where} {assignor}: {said}\nthe group: a file in {folder} (explain FILE --assignor {assignor} replays "
            f"it)\nshrink: {shlex.join([PROG, 'test-assignor', assignor])}"
        )
        cases.append(Case(where, f"sweep.{assignor}", said, details))
    write_junit(args.junit, f"sweep {_shown_path(args.spec)}", cases)


def _one_standard_input(args) -> None:
    """Standard input is read once: two inputs of one command cannot both be ``-``."""
    given = [
        name
        for name in ("scenario", "assignment", "history")
        if isinstance(getattr(args, name, None), str) and getattr(args, name) == STDIN
    ]
    if len(given) > 1:
        raise InputError(
            args.command,
            "",
            f"the {' and the '.join(given)} are both '-': standard input holds one document; give the other as a file",
        )


# -- reading scenarios; the kinds of group (compare.judge.KINDS) ---------------------------------------------
# Every command reads a scenario of any kind and goes through the one judge and the kind's table entry; the
# options a kind has no use for are refused rather than ignored.


def _document(path) -> tuple[object, str]:
    """The decoded JSON of a file, or of standard input for ``-`` (read once per command: a stream cannot be
    read twice, and a command may look at its scenario before it reads it), and the source its errors name."""
    if str(path) != STDIN:
        return read_document(path)
    if STDIN not in _STANDARD_INPUT:
        _STANDARD_INPUT[STDIN] = read_document(STDIN)
    return _STANDARD_INPUT[STDIN]


#: Standard input's document, once read, for the command running (emptied by :func:`_run`).
_STANDARD_INPUT: dict[str, tuple[object, str]] = {}


def _scenario_document(path) -> tuple[object, str]:
    """The decoded scenario of a file (or ``-``) and the source its errors name (a sweep's counterexample file is
    read as the scenario it holds, as :func:`read_problem` does)."""
    document, source = _document(path)
    return counterexample_scenario(document, source)


def _read_assignment(path, problem):
    """The assignment in a file (or ``-``) for ``problem`` (problem.load: ``solve``'s and ``assign``'s output,
    or the bare ``{member: {topic: [partitions]}}``), and the whole document when it is keyed (else ``{}``)."""
    document, source = _document(path)
    assignment = assignment_from_document(document, source, problem)
    keyed = isinstance(document, dict) and "assignment" in document
    return assignment, (document if keyed else {})


def _read_scenario(args):
    """The scenario of ``args.scenario``, of the kind its JSON says (problem.kinds; no ``"kind"``: a consumer
    group, exactly as :func:`read_problem` reads it)."""
    document, source = _document(args.scenario)
    # a Streams group's own default (problem.streams.MAX_TASKS) unless --max-partitions was given another value
    return scenario_from_document(
        document,
        source,
        max_partitions=getattr(args, "max_partitions", MAX_PARTITIONS),
        max_members=getattr(args, "max_members", MAX_MEMBERS),
    )


#: The options of a consumer group's request: a kind with tiers of its own (Streams, share) has no use for them.
_CONSUMER_REQUEST = ("--method", "--balance", "--topic-spread", "--max-moves", "--max-moves-per-member")
#: Options a kind of group has no use for, by kind (problem.kinds): refused when given, never ignored.
REFUSES: dict[str, tuple[str, ...]] = {"consumer": (), "streams": _CONSUMER_REQUEST, "share": _CONSUMER_REQUEST}
#: The same for ``compare``, which judges a Streams or share group in Kafka's order with its model's own limit.
REFUSES_IN_COMPARE: dict[str, tuple[str, ...]] = {
    "consumer": (),
    "streams": ("--time-limit", "--objective"),
    "share": ("--time-limit", "--objective"),
}


def _kind(args, problem):
    """The kind of group of the scenario read (:data:`compare.judge.KINDS`), its unused options refused."""
    kind = kind_of(problem)
    _refuse(args, REFUSES[kind.name], kind)
    return kind


def _refuse(args, options, kind) -> None:
    """Refuse the options a kind of group has no use for (one line, exit 2): given, never ignored."""
    given = {
        "--method": getattr(args, "method", "auto") != "auto",
        "--balance": getattr(args, "balance", DEFAULT_BALANCE) != DEFAULT_BALANCE,
        "--topic-spread": bool(getattr(args, "topic_spread", False)),
        "--max-moves": getattr(args, "max_moves", None) is not None,
        "--max-moves-per-member": getattr(args, "max_moves_per_member", None) is not None,
        "--time-limit": getattr(args, "time_limit", None) is not None,
        "--objective": getattr(args, "objective", None) is not None,
    }
    for option in options:
        if given[option]:
            if option == "--objective":
                raise InputError(option, "", f"compare judges {args.scenario}, {kind.described}, in Kafka's order")
            raise InputError(option, "", f"applies to consumer group scenarios; {args.scenario} is {kind.described}")


def _request(args, problem, default_order: tuple[str, ...] | None = None):
    """The request the flags ask for, in the scenario's kind (docs/formats.md, "Objective"): ``--objective``
    (else ``default_order``, else the scenario's), ``--topic-spread``, ``--balance``, the budget of moves."""
    return kind_of(problem).request(
        problem,
        {
            "objective_text": args.objective,
            "default_order": default_order,
            "topic_spread": getattr(args, "topic_spread", False),
            "balance": getattr(args, "balance", DEFAULT_BALANCE),
            "max_moves": getattr(args, "max_moves", None),
            "max_moves_per_member": getattr(args, "max_moves_per_member", None),
        },
    )


def _time_limit(args, problem, request) -> float | None:
    if args.time_limit is not None and not (0 < args.time_limit <= MAX_TIME_LIMIT):
        raise InputError(
            "--time-limit", "", f"must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {args.time_limit}"
        )
    if args.time_limit is None:
        return kind_of(problem).default_time_limit(problem, request, getattr(args, "method", "auto"))
    return args.time_limit


def _solve(args) -> int:
    problem = _read_scenario(args)
    kind = _kind(args, problem)
    request = _request(args, problem)
    limit = _time_limit(args, problem, request)
    with _Clock(limit, "solve"):
        solution = solve(problem, request, method=args.method, time_limit=limit)
    document = versioned("solution", kind.solution_mapping(solution, timing=args.timing))
    _write(args.output, dumps(document), inputs=(args.scenario,))
    if solution.status == OPTIMAL:
        return 0
    if solution.status == INFEASIBLE:
        print(f"{PROG}: INFEASIBLE: {printable(solution.message)}", file=sys.stderr)
        return EXIT_INFEASIBLE
    unproven = "; ".join(f"{t.tier}: bound {json.dumps(t.bound)}" for t in solution.tiers if not t.proven)
    detail = solution.message or "not proven optimal"
    if getattr(solution, "objective", None) is not None:  # the network's CP-SAT model: its weighted objective
        detail += f"; objective {solution.objective}, proven lower bound {solution.bound}"
    print(printable(f"{PROG}: {solution.status}: {detail}" + (f" ({unproven})" if unproven else "")), file=sys.stderr)
    return 1


def _check(args) -> int:
    problem = _read_scenario(args)
    _kind(args, problem)
    request = _request(args, problem)
    assignment, document = _read_assignment(args.assignment, problem)
    certificate = None
    if isinstance(document, dict) and document.get("certificate") is not None:
        certificate = certificate_from_mapping(document["certificate"], source=args.assignment)
    limit = _time_limit(args, problem, request)
    with _Clock(limit, "check: the optimum"):
        verdict = judge(problem, assignment, request, certificate=certificate, method=args.method, time_limit=limit)
    sys.stdout.write(
        dumps(versioned("verdict", verdict.to_mapping())) if args.json else verdict.text(verbose=args.verbose)
    )
    return verdict.exit_code()


def _consumer_member_order(args, kind, problem):
    """``--member-order id``: the join order read as member id order (``listed``: the scenario's, as read)."""
    if args.member_order == "id":
        problem = dataclasses.replace(problem, member_order=())
    return problem, None


def _streams_member_order(args, kind, problem):
    """Kafka's tests fix ``groupSpec.memberIds()`` with a LinkedHashMap; here the scenario's order, or id order,
    given to the assignor and written beside its answer."""
    from assignment_oracle.compare.judge.front import registered

    order = problem.join_order if args.member_order == "listed" else problem.member_ids
    _kind_assign(kind, args.assignor, problem, args.iteration_order, args.scenario)  # the name checked
    entry = registered(kind.name, args.assignor, "--member-order", args.scenario)
    try:
        assignment = entry.assign(problem, iteration_order=args.iteration_order, member_order=order)
    except TypeError:
        raise InputError("--member-order", "", f"{args.assignor} takes no member order") from None
    document = kind.assignment_mapping(problem, assignment, args.assignor, args.iteration_order)
    document["member_order"] = list(order)
    return problem, document


#: What ``--member-order`` does, by kind of group (problem.kinds); a kind not here takes its group's order.
_MEMBER_ORDER = {"consumer": _consumer_member_order, "streams": _streams_member_order}


def _joining_argument(command: argparse.ArgumentParser, what: str = "") -> None:
    command.add_argument(
        "--joining",
        metavar="MEMBER",
        help=(what or 'the member joining as the group rebalances (sets the scenario\'s "joining")')
        + ": Kafka's coordinator puts it after the other members, which in Java's order decides the answers of "
        "uniform, uniform-4.0.0, streams-sticky and share-simple; an external assignor gets it in the scenario",
    )


def _with_joining(args, problem):
    """``--joining MEMBER``: the scenario's (or history's) joining member set, by the scenario's one rule
    (problem.joining); one that is not a member of the group is one line naming ``--joining`` (exit 2)."""
    return with_joining(problem, args.joining)


def _assign(args) -> int:
    problem = _with_joining(args, _read_scenario(args))
    kind = _kind(args, problem)
    document = None
    if args.member_order is not None:
        if kind.name not in _MEMBER_ORDER:  # given, never ignored
            applies = " and ".join(kind_named(k).label for k in _MEMBER_ORDER)
            raise InputError(
                "--member-order", "", f"applies to {applies} scenarios; {args.scenario} is {kind.described}"
            )
        problem, document = _MEMBER_ORDER[kind.name](args, kind, problem)
    if document is None and kind.assign is not None:  # a kind with its own registered assignors
        assignment = _kind_assign(kind, args.assignor, problem, args.iteration_order, args.scenario)
        document = kind.assignment_mapping(problem, assignment, args.assignor, args.iteration_order)
    elif document is None:
        with _Steps(1, "assign") as steps:  # a live peer's group takes seconds to form
            steps(args.assignor)
            result = _run_named(args.assignor, problem, args.iteration_order, source=args.scenario)
        document = result.to_mapping(plain=False)
    _write(args.output, dumps(versioned("assignment", document)), inputs=(args.scenario,))
    if not document["valid"]:
        kinds = sorted({v["kind"] for v in document["violations"]})
        print(
            printable(f"{PROG}: note: {args.assignor} produced an invalid assignment ({', '.join(kinds)})"),
            file=sys.stderr,
        )
    return 0


def _kind_assign(kind, name: str, problem, iteration_order: str, source: str):
    """One assignor of ``kind``'s own registry, run; another kind's, or nobody's, is the registry's one refusal."""
    return kind.assign(name, problem, iteration_order, source)


def _compare(args) -> int:
    _assignor_time_limit(args.time_limit)
    given = [n.strip() for n in args.assignors.split(",") if n.strip()]
    if not given:
        raise InputError("--assignors", "", "no assignor named (give all, peers, or names separated by commas)")
    problem = _with_joining(args, _read_scenario(args))
    kind = _kind(args, problem)
    _refuse(args, REFUSES_IN_COMPARE[kind.name], kind)
    names = _declaring(kind.resolve(given, args.scenario), args.guarantee)
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
    options = {}
    if request is not None:
        options = {"request": request, "request_time_limit": _time_limit(args, problem, request)}
    if args.time_limit is not None:
        options["time_limit"] = args.time_limit
    with _Steps(None, "compare") as steps:
        result = kind.compare(problem, names, progress=steps, **options)
    if args.json:
        sys.stdout.write(dumps(versioned("compare", result.to_mapping(timing=args.timing))))
    else:
        sys.stdout.write(result.text())
    rows = [
        (getattr(row, "label", row.assignor), row, getattr(row, "judged_problem", None) or problem)
        for row in result.rows
    ]
    return _fail_on(args, rows, scenario=args.scenario)


def _explain(args) -> int:
    problem = _read_scenario(args)
    kind = _kind(args, problem)
    if (args.assignment is None) == (args.assignor is None):
        raise InputError("explain", "", "give an assignment file or --assignor NAME, not both and not neither")
    if kind.explanation is not None:  # a kind that explains its own verdict (Streams groups: the gap tier's tasks)
        if args.assignor is not None:
            assignment = _kind_assign(kind, args.assignor, problem, "sorted", args.scenario)
        else:
            assignment, _ = _read_assignment(args.assignment, problem)
        request = _request(args, problem)
        limit = _time_limit(args, problem, request)
        with _Clock(limit, "explain: the optimum"):
            verdict = judge(problem, assignment, request, assignor=args.assignor, time_limit=limit)
        sys.stdout.write(dumps(versioned("verdict", verdict.to_mapping())) if args.json else kind.explanation(verdict))
        return verdict.exit_code()
    # Balance first unless --objective says otherwise: the order assignors aim for.
    request = _request(args, problem, default_order=problem.balance_first_order().objective)
    if args.objective is None and not problem.balance_first:
        print(
            f"{PROG}: note: explained balance first, the order assignors aim for; "
            f"`check` judges the scenario's order ({', '.join(problem.objective)})",
            file=sys.stderr,
        )
    if args.assignor is not None:
        assignment = _run_named(args.assignor, problem, source=args.scenario).assignment
    else:
        assignment, _ = _read_assignment(args.assignment, problem)
    limit = _time_limit(args, problem, request)
    with _Clock(limit, "explain: the optimum"):
        explanation = explain(problem, assignment, request=request, method=args.method, time_limit=limit)
    sys.stdout.write(dumps(versioned("explanation", explanation.to_mapping())) if args.json else explanation.text())
    return explanation.exit_code


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
        problem = load_scenario(path)
        kind = kind_of(problem)
        solution = solve(problem)
        if out is not None:
            write_output(out / path.name, dumps(versioned("solution", kind.solution_mapping(solution))))
        code = 1
        said = ""
        if solution.assignment is not None:
            certificate = getattr(solution, "certificate", None)
            verdict = judge(problem, solution.assignment, optimum=solution, certificate=certificate)
            code = verdict.exit_code()
            given = verdict.finding("certificate")
            said = "" if given is None else f"  certificate {'verified' if given.holds else 'FAILED'}"
        failures += code != 0
        values = "  ".join(f"{t.tier} {json.dumps(t.value)}" for t in solution.tiers)
        print(f"{path.stem}: oracle {solution.status}  {values}{said}  check exit {code}")
        for row in kind.compare(problem, kind.demo_names()).rows:
            if not row.assignor.startswith("optimum"):
                print("  " + row.line())
    return 0 if failures == 0 else 1
