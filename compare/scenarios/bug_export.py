"""The bug corpus as a conformance folder any test runner can use (``assignment-oracle bugs --export DIR``).

Guarantee: :func:`export` writes every entry of :data:`~compare.scenarios.bugs.BUGS` as plain files (the same
corpus gives the same bytes): per entry a folder with its scenario(s) as ``solve`` and ``check`` read them and an
``entry.json`` (what the defect is, its sources and links, the condition a fixed assignor meets, machine-readable
where it can be, and the exact commands that judge an answer or an assignor), a top-level ``README.md`` saying
how to run it from any language, and ``conformance.json``, the index (every file written).

A folder is written only if it is new, empty, or a previous export (it holds our ``conformance.json``): then
the files that export wrote are replaced, those it no longer writes removed, and any other file (a runner's
answers) left alone.  Anything else is refused before a byte is written.

The condition of an entry is one :class:`Condition`: ``{"valid": true}`` (``check`` exits 0 or 1), optimal on
a prefix of the check's tiers (``{"optimal_tiers": [...]}``: ``check`` exits 0, or 1 with its ``gap_tier``
outside the list), a guarantee or a property only the entry's own judge reads (``bugs NAME --answer``), or a
relation between the answers to an entry's several scenarios (KAFKA-12984's claim order).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from assignment_oracle.compare.scenarios.bugs import BUGS, Bug
from assignment_oracle.problem.errors import WriteFailed
from assignment_oracle.problem.formats import versioned
from assignment_oracle.problem.scenario_json import InputError, dumps, load_json, write_output

__all__ = ["Condition", "CONDITIONS", "INDEX", "export", "entry_document"]

#: The index file of an export; a folder holding one written by :func:`export` may be exported into again.
INDEX = "conformance.json"
#: What the index names as its writer.
GENERATOR = "assignment-oracle bugs --export"
PROG = "assignment-oracle"


@dataclass(frozen=True)
class Condition:
    """What an answer to an entry's scenario(s) must meet for the defect to be gone.

    ``document`` is the machine-readable form written in ``entry.json`` (keys: ``valid``, ``optimal_tiers``
    with ``objective`` when it is not the kind's default, ``guarantee``, ``same_up_to_renaming``, ``finishes``,
    ``judged_by``); ``text`` says it in words.  ``check`` is true when ``assignment-oracle check`` on each
    scenario decides it (with ``objective`` and ``optimal_tiers``); otherwise only the entry's own judge does
    (``bugs NAME --answer`` / ``--assignor``).
    """

    document: Mapping[str, Any]
    text: str
    check: bool = True

    @property
    def objective(self) -> tuple[str, ...]:
        return tuple(self.document.get("objective", ()))

    @property
    def optimal_tiers(self) -> tuple[str, ...]:
        return tuple(self.document.get("optimal_tiers", ()))


def _valid(text: str = "a valid assignment (the assignor answers, and the answer is valid)") -> Condition:
    return Condition({"valid": True}, text)


def _optimal(tiers: tuple[str, ...], text: str, objective: tuple[str, ...] = ()) -> Condition:
    document: dict = {"valid": True, "optimal_tiers": list(tiers)}
    if objective:
        document["objective"] = list(objective)
    return Condition(document, text)


def _judged(document: Mapping[str, Any], text: str) -> Condition:
    return Condition({**document, "judged_by": "bugs"}, text, check=False)


_CONSUMER_ALL = ("balance", "rack", "stickiness")

#: Each entry's condition, by name (every entry of the corpus has one: tests/test_cli_bugs.py).
CONDITIONS: Mapping[str, Condition] = MappingProxyType(
    {
        "kafka-7026": _valid("a valid assignment: no partition assigned twice (the stale claim loses)"),
        "local-condition-chain": _optimal(
            ("balance",), "the most balanced loads (10/10/10), not Kafka's local condition"
        ),
        "kafka-12984-equal-generation": _valid("a valid assignment: the doubly claimed t-1 assigned once"),
        "kafka-12984-claim-order": _judged(
            {"valid": True, "same_up_to_renaming": {"a": "b", "b": "a"}, "or_identical": True},
            "the answer to scenario-2 is the answer to scenario-1 with members a and b swapped (or the very same "
            "answer, when the claims are not read): the claim order decides nothing",
        ),
        "aiokafka-1176-no-generation": _judged(
            {"valid": True}, "none an assignor can meet: the defect is in the input (no generation sent)"
        ),
        "kafka-15106-loop-shape": Condition(
            {"valid": True, "finishes": True}, "a valid assignment, within the runner's time limit (60 s here)"
        ),
        "kafka-16277-per-topic-skew": _optimal(
            ("balance", "spread"),
            "the most balanced loads with each topic spread within one across its subscribers",
            ("balance", "spread", "stickiness"),
        ),
        "kafka-14639-stale-handoff": _judged(
            {"guarantee": "cooperative-kafka-balance"},
            "no partition a member still holds goes to another member in the same rebalance (a cooperative "
            "assignor's answer)",
        ),
        "kafka-18688-balanced-stays": _optimal(_CONSUMER_ALL, "the balanced previous assignment kept: nothing moves"),
        "kafka-14891-co-partitioned-subsets": _valid("a valid assignment: clicks-1 once, clicks-0 assigned"),
        "kafka-16930-empty-subscription": _valid("an answer (no crash), valid: A topic1-0..2, B nothing"),
        "kafka-15170-rack-quota": _valid("an answer (no crash), valid"),
        "kafka4-empty-first-subscription": _valid("a valid assignment: t0-0 to c1, the member subscribed to t0"),
        "kafka4-npe-stale-previous-owner": _valid("an answer (no crash), valid"),
        "kafkajs-roundrobin-subscriptions": _valid("a valid assignment: each partition to a subscriber, t1-0 too"),
        "kafka-node-range-missing-topic": _valid("an answer (no crash), valid: the missing topic skipped"),
        "aiokafka-sticky-no-generation": _optimal(
            _CONSUMER_ALL, "the generation-2 owners keep their partitions (b t-0, c t-1); the zombie a gets nothing"
        ),
        "faust-new-member-gets-nothing": _optimal(("balance",), "the most balanced loads: the new member c gets one"),
        "faust-stale-claim-by-join-order": _optimal(_CONSUMER_ALL, "the newer claim wins: a keeps t-0"),
        "faust-claim-out-of-range": _valid("an answer (no crash) on both scenarios, valid: no partition beyond t's"),
        "kafka-go-roundrobin-per-topic": _optimal(("balance",), "the most balanced loads: a and b one partition each"),
        "kafka-go-missing-topic-assigns-nothing": _valid("a valid assignment: t0's partitions assigned"),
        "sarama-missing-topic-fails-rebalance": _valid("an answer (no crash), valid: the missing topic skipped"),
        "kafka4-stale-owner-unsubscribed": _valid("a valid assignment on both scenarios: t1-2 not to c1"),
        "kafka4-cooperative-never-settles": _judged(
            {"valid": True, "settles_within_rebalances": 10},
            "the group settles: fed its own answers back, rebalance after rebalance, nothing is revoked any more",
        ),
        "streams-actives-ignore-standbys": _optimal(
            ("active-balance", "task-balance"), "balanced actives, then balanced tasks (2 and 2)"
        ),
        "streams-fresh-standbys-uneven": _optimal(
            ("active-balance", "task-balance"), "balanced actives, then balanced tasks (4/4/4)"
        ),
        "streams-fed-back-moves-standby": _judged(
            {"steady_when_fed_back": True},
            "the assignor's own answer, fed back as every member's previous tasks, is kept: nothing moves",
        ),
        "streams-idle-member-process-average": _optimal(("active-balance",), "balanced actives: no member idle"),
        "streams-keeps-stateless-moves-stateful": _optimal(
            ("active-balance", "task-balance", "stickiness"), "balanced, and the stateful task kept on its state"
        ),
        "share-heterogeneous-skew": _optimal(
            ("coverage", "sharing", "balance"), "every partition covered and shared, loads within one (4 and 3)"
        ),
        "share-remaining-partitions-starved": _optimal(
            ("coverage", "sharing"), "every partition covered and shared as far as members allow"
        ),
        "share-unsubscribed-topic-kept": _valid("a valid assignment: u-0 revoked"),
        "share-held-unassignable-kept": _optimal(("coverage",), "a valid assignment covering t-0"),
        "share-held-unassignable-crash": _optimal(("coverage",), "an answer (no crash), valid, covering t-1"),
        "share-member-not-recorded": _judged(
            {"valid": True}, "none: a refuted suspicion kept with its evidence (Kafka's answer is already right)"
        ),
    }
)

_LINKS = (
    (re.compile(r"\b(KAFKA-[0-9]+)\b"), "https://issues.apache.org/jira/browse/{0}"),
    (re.compile(r"\bapache/kafka ([0-9a-f]{7,40})\b"), "https://github.com/apache/kafka/commit/{0}"),
    (re.compile(r"\baiokafka #([0-9]+)"), "https://github.com/aio-libs/aiokafka/issues/{0}"),
    (re.compile(r"\blibrdkafka #([0-9]+)"), "https://github.com/confluentinc/librdkafka/issues/{0}"),
)


def _links(text: str) -> list[str]:
    """The JIRA issues, Kafka commits and client-library issues ``text`` cites, as links, each once."""
    found: list[str] = []
    for pattern, link in _LINKS:
        for match in pattern.finditer(text):
            url = link.format(match.group(1))
            if url not in found:
                found.append(url)
    return found


def _scenario_files(bug: Bug) -> list[str]:
    return (
        ["scenario.json"]
        if len(bug.scenarios) == 1
        else [f"scenario-{i}.json" for i in range(1, len(bug.scenarios) + 1)]
    )


def _answer_files(bug: Bug) -> list[str]:
    return [name.replace("scenario", "answer") for name in _scenario_files(bug)]


def _check_commands(bug: Bug, condition: Condition) -> list[dict] | None:
    if not condition.check:
        return None
    objective = ["--objective", ",".join(condition.objective)] if condition.objective else []
    passes = {"exit": [0, 1], "gap_tier_not_in": list(condition.optimal_tiers)}  # exit 3: not valid
    return [
        {
            "scenario": scenario,
            "command": shlex.join([PROG, "check", scenario, answer, "--json", *objective]),
            "passes": passes,
        }
        for scenario, answer in zip(_scenario_files(bug), _answer_files(bug))
    ]


def entry_document(name: str) -> dict:
    """``entry.json`` of corpus entry ``name``: what it is, the condition a fixed assignor meets, how to judge."""
    bug = BUGS[name]
    condition = CONDITIONS[name]
    answers = [part for answer in _answer_files(bug) for part in ("--answer", answer)]
    return versioned(
        "bug-export-entry",
        {
            "name": bug.name,
            "title": bug.title,
            "kind": bug.kind,
            "source": bug.source,
            "links": _links(f"{bug.source} {bug.title}"),
            "defect": bug.expectation,
            "shown_by": [v if isinstance(v, str) else v.name for v in bug.shown_by],
            "fixed_by": [v if isinstance(v, str) else v.name for v in bug.fixed_by],
            "reproduces": bug.reproduces,
            "report": bug.report or None,
            "recorded": bug.recorded,
            "scenarios": _scenario_files(bug),
            "condition": dict(condition.document),
            "condition_text": condition.text,
            "candidates_note": bug.candidates_note or None,
            "judge": {
                "answer": None if bug.later_rounds else shlex.join([PROG, "bugs", name, *answers]),
                "assignor": f"{PROG} bugs {name} --assignor external:YOUR-COMMAND",
                "exit": {"0": "the defect is gone", "1": "still there, or not judged (the reason named)"},
                "check": _check_commands(bug, condition),
            },
        },
    )


def _files(scenario_documents: Mapping[str, list]) -> dict[str, str]:
    """Every file of the export, by path relative to its folder, with its text."""
    files: dict[str, str] = {}
    for name, bug in BUGS.items():
        for scenario, document in zip(_scenario_files(bug), scenario_documents[name]):
            files[f"{name}/{scenario}"] = dumps(document)
        files[f"{name}/entry.json"] = dumps(entry_document(name))
    files["README.md"] = _readme()
    index = versioned(
        "bug-export-index",
        {
            "generator": GENERATOR,
            "entries": [
                {"name": n, "kind": b.kind, "folder": n, "judged_by_check": CONDITIONS[n].check}
                for n, b in BUGS.items()
            ],
            "files": sorted([*files, INDEX]),
        },
    )
    files[INDEX] = dumps(index)
    return files


def _previous_files(folder: Path) -> list[str] | None:
    """The files a previous export wrote into ``folder`` (from its index), ``None`` when it holds no export."""
    index = folder / INDEX
    if not index.is_file():
        return None
    try:
        document = load_json(index.read_bytes(), source=str(index))
    except (OSError, InputError):
        return None
    if not isinstance(document, Mapping) or document.get("generator") != GENERATOR:
        return None
    listed = document.get("files")
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        return None
    return [p for p in listed if not Path(p).is_absolute() and ".." not in Path(p).parts]


def export(folder: str | Path, scenario_documents: Mapping[str, list] | None = None) -> list[str]:
    """Write the corpus into ``folder`` (created if missing); the files written, relative to it, in order.

    ``scenario_documents``: each entry's scenarios as JSON documents, by entry name (default: each problem's
    ``to_mapping()``, what ``bugs NAME --scenario`` writes).

    Raises
    ------
    InputError
        ``folder`` is a file, cannot be created or written, or holds files and no previous export.
    WriteFailed
        A file could not be written whole (a full disk): exit 74.
    """
    target = Path(folder)
    if scenario_documents is None:
        scenario_documents = {n: [p.to_mapping() for p in b.problems()] for n, b in BUGS.items()}
    where = str(folder)
    if target.exists() and not target.is_dir():
        raise InputError("--export", "", f"{where!r} is a file: name a folder (new, empty, or a previous export)")
    previous: list[str] = []
    if target.is_dir():
        try:
            occupied = any(target.iterdir())
        except OSError as err:
            raise InputError("--export", "", f"cannot read the folder {where!r} ({err.strerror or err})") from None
        if occupied:
            found = _previous_files(target)
            if found is None:
                raise InputError(
                    "--export",
                    "",
                    f"the folder {where!r} is not empty and holds no previous export (no {INDEX} written by "
                    f"{GENERATOR}): name a new or empty folder",
                )
            previous = found
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError("--export", "", f"cannot create the folder {where!r} ({err.strerror or err})") from None
    if not os.access(target, os.W_OK | os.X_OK):
        raise InputError("--export", "", f"cannot write into the folder {where!r} (it is not writable)")
    files = _files(scenario_documents)
    for stale in previous:  # what the previous export wrote and this one does not
        if stale not in files:
            (target / stale).unlink(missing_ok=True)
    for relative in sorted({str(Path(p).parent) for p in previous if p not in files}, reverse=True):
        if relative != ".":
            try:
                (target / relative).rmdir()  # only when empty: a runner's own files stay
            except OSError:
                pass
    for relative, text in files.items():
        path = target / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise WriteFailed(str(path.parent), err.strerror or str(err), "the export is incomplete") from None
        write_output(path, text)
    return list(files)


def _readme() -> str:
    rows = []
    for name, bug in BUGS.items():
        condition = CONDITIONS[name]
        judged = "check" if condition.check else "bugs"
        rows.append(f"| `{name}` | {bug.kind} | {len(bug.scenarios)} | {condition.text} | {judged} |")
    table = "\n".join(rows)
    return f"""# The assignment-oracle bug corpus, as a conformance suite

Each folder is one defect that shipped in a Kafka partition assignor (Kafka's own, or a client library's), or
a shape that broke one: the group it happened on, what went wrong, and the condition an assignor without
the defect meets.  Nothing here needs Python: read a scenario, run your assignor, judge its answer with the
`{PROG}` command line (installed from a checkout or a wheel: docs/testing.md), or check the plain condition
yourself.

Written by `{GENERATOR} DIR`; the same corpus always gives the same bytes.  Exporting again into this folder
replaces the files listed in `{INDEX}` and leaves any other file (your answers) alone.

## Layout

- `{INDEX}`: the index (each entry, its kind, and every file written).
- `NAME/scenario.json` (an entry with several groups: `scenario-1.json`, `scenario-2.json`, ...): the group,
  in the scenario format of docs/formats.md (`"kind": "streams"` or `"share"` for those groups; a consumer
  group has none).  It is what an external assignor reads on its standard input.
- `NAME/entry.json`: `name`, `title`, `kind`, `source` and `links` (JIRA, commits, issues), `defect` (what
  goes wrong, in words), `shown_by`/`fixed_by` (the assignors the project replays), `condition` (machine-
  readable) and `condition_text`, `candidates_note` (why a correct assignor may still show it), and `judge`
  (the exact commands).

## Running an entry from any test runner

1. For each scenario file, run your assignor on it and write its answer beside it as `answer.json`
   (`answer-1.json`, ... for `scenario-1.json`, ...): `{{"assignment": {{member: {{topic: [partitions]}}}}}}`
   (a Streams group: `{{"members": {{member: {{"active": {{...}}, "standby": {{...}}}}}}}}`), the format
   `{PROG} assign` writes.  An assignor that fails to answer fails the entry.
2. Judge the answer(s) with the entry's own judge, `judge.answer` in `entry.json`:
   `{PROG} bugs NAME --answer answer.json` (one `--answer` per scenario, in order).  Exit 0: the defect is
   gone; 1: still there, or not judged (a crash, an empty or invalid answer: the reason is printed); 2: bad
   input.  `judge.answer` is null where the entry judges the assignor's later rounds (its own answer fed
   back, rebalance after rebalance), which no answer file holds.  Or let the tool run your assignor itself:
   `judge.assignor`,
   `{PROG} bugs NAME --assignor external:YOUR-COMMAND`, same exit statuses.
3. Where `judge.check` is given, the condition is also a plain `check` of each answer (no corpus needed):
   run the command; it passes when its exit status is in `passes.exit` and the `gap_tier` of its JSON
   output is not one of `passes.gap_tier_not_in` (`check` exits 0 optimal, 1 valid with a gap, 3 invalid).

A shell loop over every entry:

```sh
for entry in */entry.json; do
  dir=$(dirname "$entry")
  for scenario in "$dir"/scenario*.json; do
    my-assignor < "$scenario" > "${{scenario/scenario/answer}}" || echo "$dir: no answer"
  done
  (cd "$dir" && {PROG} bugs "$dir" $(ls answer*.json | sort -V | sed 's/^/--answer /')) || echo "$dir: FAILED"
done
```

## The conditions (`condition` in entry.json)

| key | meaning |
|---|---|
| `valid: true` | an answer, and a valid one (every partition to one subscriber, nothing invented) |
| `optimal_tiers: [...]` | no gap on these tiers against the proven optimum (`check`'s `gap_tier` not among them); `objective`: the tiers `check` is given (`--objective`), when not the kind's default |
| `guarantee: NAME` | the assignor's promise (docs/formats.md), judged by `bugs NAME --answer` |
| `same_up_to_renaming: {{a: b}}` | the answers to the scenarios are the same up to that renaming of members (`or_identical`: or the very same) |
| `finishes: true` | an answer within the runner's time limit |
| `settles_within_rebalances: N`, `steady_when_fed_back: true` | about the assignor's next rounds: only `bugs NAME --assignor` judges it |
| `judged_by: "bugs"` | no `check` decides it: use `judge.answer` or `judge.assignor` |

## The entries

| entry | kind | scenarios | condition | judged by |
|---|---|---|---|---|
{table}
"""
