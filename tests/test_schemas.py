"""Formats with a version and a schema (issue 49): every JSON Schema ``schema NAME`` prints is itself valid, every
kind of file the tool writes validates against its schema and names its ``format_version``, a document with a
required key missing or of the wrong type does not validate (the schemas are not vacuous), and the scenario
schema and the scenario reader agree on hand-written good and bad documents.

The files are written by the real command line (in this process) on the bundled examples, the generator
families, corpus entries and the offline capture of the texts Kafka's tools print; the validator is
``jsonschema``'s (draft 2020-12), independent of the readers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.compare.scenarios.bugs import BUGS
from assignment_oracle.compare.scenarios.churn import history_from_mapping, read_history
from assignment_oracle.problem.errors import InputError
from assignment_oracle.problem.formats import FORMAT_VERSION, FORMATS
from assignment_oracle.problem.kinds import KINDS, kind_of
from assignment_oracle.problem.load import load_assignment, load_scenario
from assignment_oracle.schema import NAMES, schema
from assignment_oracle.strategies import json_scenarios

EXAMPLES = {p.stem: p for p in bundled_examples()}
HISTORIES = sorted((Path(next(iter(EXAMPLES.values()))).parent / "churn").glob("*.json"))
CAPTURE = Path(__file__).parent / "compare" / "capture_outputs"
#: One bundled example of each kind of group, and an assignor of that kind.
BY_KIND = {
    "consumer": ("kip54-example-1-rebalance", "range"),
    "streams": ("streams-rolling-restart", "streams-sticky"),
    "share": ("share-rebalance", "share-simple"),
}
#: The format each schema describes (problem.formats.FORMATS), where it is not the schema's own name.
FORMAT_OF = {
    **{f"scenario-{k}": "scenario" for k in KINDS},
    **{f"assignment-{k}": "assignment" for k in KINDS},
}


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name))


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, _ = capsys.readouterr()
    return code, out


def assert_valid(name: str, document) -> None:
    errors = sorted(validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, f"{name}: {[(list(e.absolute_path), e.message[:200]) for e in errors[:3]]}"


def assert_written(name: str, document) -> None:
    """A written document: valid against its schema, carrying its format's current version."""
    assert document[FORMAT_VERSION] == FORMATS[FORMAT_OF.get(name, name)], name
    assert_valid(name, document)


# -- the schemas themselves ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(NAMES))
def test_every_schema_is_a_valid_2020_12_schema(name):
    document = schema(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)
    for part in document.get("$defs", {}).values():
        Draft202012Validator.check_schema(part)
    # not vacuous: every schema constrains the document's type, or is a one-of of schemas that do
    assert "type" in document or "oneOf" in document or "anyOf" in document
    assert not validator(name).is_valid([]) and not validator(name).is_valid("a string")


#: Every schema of a whole document (not the one-ofs over the kinds, each kind's checked by its own name; not the
#: request, which is part of a verdict and a solution).
DOCUMENTS = [n for n in NAMES if n not in ("scenario", "assignment", "request")]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_schema_names_the_current_version_of_its_format(name):
    """An output's schema holds its version as a ``const``; an input's accepts 1 to the current one (what
    problem.formats reads)."""
    spec = schema(name)
    branches = spec.get("oneOf", [spec])
    versions = [b["properties"][FORMAT_VERSION] for b in branches if FORMAT_VERSION in b.get("properties", {})]
    assert versions, f"{name}: no format_version"
    current = FORMATS[FORMAT_OF.get(name, name)]
    for version in versions:
        assert version.get("const", version.get("maximum")) == current
        if "const" not in version:
            assert version["minimum"] == 1


def test_every_format_has_a_schema():
    """Each format the tool writes (problem.formats.FORMATS) has a schema by its name, and each schema of a whole
    document describes a format there."""
    assert set(FORMATS) <= set(NAMES)
    assert {FORMAT_OF.get(n, n) for n in DOCUMENTS} <= set(FORMATS)


def test_the_schema_command(capsys):
    code, out = run(capsys, "schema", "--list")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == list(NAMES)
    code, alone = run(capsys, "schema")
    assert (code, alone) == (0, out)
    code, out = run(capsys, "schema", "verdict")
    assert code == 0 and json.loads(out) == schema("verdict")
    code = main(["schema", "no-such\x1b[31m"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "unknown schema" in err and "\x1b" not in err
    assert "verdict" in err  # the known names listed


# -- every kind of file the tool writes validates --------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_solve_and_check_of_every_bundled_example(tmp_path, capsys, example):
    path = EXAMPLES[example]
    scenario = json.loads(path.read_text())
    kind = kind_of(load_scenario(path)).name
    assert_valid("scenario", scenario)
    assert_valid(f"scenario-{kind}", scenario)
    solution = tmp_path / "solution.json"
    assert run(capsys, "solve", path, "-o", solution)[0] == 0
    assert_written("solution", json.loads(solution.read_text()))
    assert_valid("assignment", json.loads(solution.read_text()))  # check reads solve's output as an answer
    code, out = run(capsys, "check", path, solution, "--json")
    assert code == 0
    assert_written("verdict", json.loads(out))


@pytest.mark.parametrize("kind", list(BY_KIND))
def test_assign_compare_and_explain_of_each_kind(tmp_path, capsys, kind):
    example, assignor = BY_KIND[kind]
    path = EXAMPLES[example]
    answer = tmp_path / "answer.json"
    assert run(capsys, "assign", path, "--assignor", assignor, "-o", answer)[0] == 0
    document = json.loads(answer.read_text())
    assert_written(f"assignment-{kind}", document)
    assert_valid("assignment", document)
    code, out = run(capsys, "compare", path, "--assignors", assignor, "--json")
    assert code == 0
    assert_written("compare", json.loads(out))
    code, out = run(capsys, "explain", path, "--assignor", assignor, "--json")
    assert code in (0, 1)
    assert_written("explanation" if kind == "consumer" else "verdict", json.loads(out))


def test_demo_out(tmp_path, capsys):
    assert run(capsys, "demo", "--out", tmp_path)[0] == 0
    written = sorted(tmp_path.glob("*.json"))
    assert [p.name for p in written] == sorted(p.name for p in EXAMPLES.values())
    for path in written:
        assert_written("solution", json.loads(path.read_text()))


#: One set of parameters per family: small groups, every option that adds a key (racks, owned partitions,
#: weights, join groups, zombies, static members, tags).
FAMILIES = (
    ("uniform", ("members=4", "topics=2", "partitions=3", "zombies=1", "generation=2", "previous=balanced")),
    ("random-subsets", ("members=5", "racks=2", "previous=balanced", "static=0.5")),
    ("skewed-sizes", ("members=3", "topics=3")),
    ("zipf", ("members=3", "topics=3")),
    ("kip49-rolling", ("members=3",)),
    ("stream-join", ("members=3", "pairs=2", "partitions=3")),
    ("join-groups", ("members=4", "previous=balanced", "weighted=true")),
    ("weighted", ("members=3", "topics=2", "previous=balanced")),
    ("racks", ("members=4", "replicas=2", "rack_skew=1.0")),
    ("streams", ("previous=true", "tags=true")),
    ("share", ("previous=true", "heterogeneous=true")),
    ("churn", ("rounds=4",)),
)


@pytest.mark.parametrize("family, params", FAMILIES, ids=[f for f, _ in FAMILIES])
def test_generate_of_every_family(capsys, family, params):
    argv = ["generate", family, "--seed", "3"]
    for p in params:
        argv += ["--param", p]
    code, out = run(capsys, *argv)
    assert code == 0
    document = json.loads(out)
    if family == "churn":
        assert_written("history", document)
        assert history_from_mapping(document).rounds  # read back, format_version and all
    else:
        assert_written("scenario", document)
        kind = kind_of(load_scenario(document)).name  # read back, format_version and all
        assert_valid(f"scenario-{kind}", document)


@pytest.mark.parametrize("history", HISTORIES, ids=[p.stem for p in HISTORIES])
def test_simulate_of_the_bundled_histories(capsys, history):
    assert_valid("history", json.loads(history.read_text()))
    code, out = run(capsys, "simulate", history, "--assignor", "sticky", "--json")
    assert code == 0
    document = json.loads(out)
    assert_written("simulation", document)
    assert_valid("history", document["history"])  # the history a simulation carries is one


@pytest.mark.parametrize(
    "entry", ["kafka-7026", "kafka-12984-claim-order", "streams-actives-ignore-standbys", "share-heterogeneous-skew"]
)
def test_bugs_scenario_of_entries_of_each_kind(capsys, entry):
    code, out = run(capsys, "bugs", entry, "--scenario")
    assert code == 0
    document = json.loads(out)
    for scenario in document if isinstance(document, list) else [document]:
        assert_written("scenario", scenario)
        load_scenario(scenario)


def test_bugs_json_and_a_candidate(capsys):
    code, out = run(capsys, "bugs", "kafka-7026", "--json")
    assert code == 0
    replays = json.loads(out)
    assert len(replays) == 1
    for replay in replays:
        assert_written("bug-replay", replay)
    code, out = run(capsys, "bugs", "kafka-7026", "--assignor", "sticky", "--json")
    assert code == 0
    assert_written("bug-candidate", json.loads(out))


def test_bugs_export_writes_entries_an_index_and_scenarios_that_validate(tmp_path, capsys):
    out = tmp_path / "corpus"
    code, _ = run(capsys, "bugs", "--export", out)
    assert code == 0
    index = json.loads((out / "conformance.json").read_text())
    assert_written("bug-export-index", index)
    assert {e["name"] for e in index["entries"]} == set(BUGS)
    for entry in index["entries"]:
        document = json.loads((out / entry["folder"] / "entry.json").read_text())
        assert_written("bug-export-entry", document)
        assert document["kind"] == entry["kind"] == BUGS[entry["name"]].kind
        for scenario in document["scenarios"]:
            written = json.loads((out / entry["folder"] / scenario).read_text())
            assert_written(f"scenario-{entry['kind']}", written)
            load_scenario(written)  # and read back
    broken = json.loads((out / "kafka-7026" / "entry.json").read_text())
    del broken["condition"]
    assert list(validator("bug-export-entry").iter_errors(broken))


def test_a_sweeps_counterexample_file_validates_and_is_read_as_its_scenario(tmp_path, capsys):
    """The file the sweep writes from a row's counterexample column (compare.sweep.job.counterexample_file, the
    writer itself) names its version, validates, and every reader takes it as the scenario it holds."""
    from assignment_oracle.compare.sweep.job import counterexample_file

    code, out = run(capsys, "bugs", "kafka-7026", "--scenario")
    column = json.dumps({"assignor": "sticky-kip54", "finding": "duplicated: t-0", "scenario": json.loads(out)})
    path = tmp_path / "abc-r1.json"
    path.write_text(counterexample_file(column))
    written = json.loads(path.read_text())
    assert_written("sweep-counterexample", written)
    assert load_scenario(path) == load_scenario(json.loads(out))
    code, printed = run(capsys, "solve", path)
    assert code == 0 and json.loads(printed)["assignment"]
    assert list(validator("sweep-counterexample").iter_errors({**written, "finding": 3}))
    path.write_text(json.dumps({**written, "format_version": 2}))
    code, _ = run(capsys, "solve", path)
    assert code == 2


def test_a_history_naming_its_joining_member_validates(tmp_path, capsys):
    code, out = run(capsys, "generate", "churn", "--seed", "5", "--param", "rounds=2")
    history = json.loads(out)
    history["joining"] = sorted(history["members"])[0]
    assert_written("history", history)
    assert_valid("history", {**history, "joining": None})
    assert list(validator("history").iter_errors({**history, "joining": 3}))


def test_capture_offline_writes_a_scenario_an_answer_and_a_verdict(tmp_path, capsys):
    out = tmp_path / "billing.json"
    texts = ("--group-description", CAPTURE / "billing-classic.txt", "--topic-description", CAPTURE / "topics.txt")
    code, stdout = run(capsys, "capture", "--group", "billing", *texts, "--brokers", CAPTURE / "brokers.txt",
                       "-o", out, "--judge", "--json")  # fmt: skip
    assert code == 1  # range: 4/2/2 where 3/3/2 exists (tests/compare/test_capture_offline.py)
    assert_written("capture", json.loads(stdout))
    assert_written("scenario-consumer", json.loads(out.read_text()))
    answer = json.loads((tmp_path / "billing.assignment.json").read_text())
    assert_written("assignment-consumer", answer)
    assert load_assignment(answer, load_scenario(out)).members  # read back, format_version and all


def test_a_history_with_a_version_is_simulated(tmp_path, capsys):
    code, out = run(capsys, "generate", "churn", "--seed", "5", "--param", "rounds=2")
    history = tmp_path / "h.json"
    history.write_text(out)
    assert json.loads(out)[FORMAT_VERSION] == FORMATS["history"]
    assert read_history(history).rounds
    code, out = run(capsys, "simulate", history, "--assignor", "range", "--json")
    assert code == 0 and json.loads(out)["history"]["rounds"]


# -- the schemas are not vacuous: a wrong type or a missing required key does not validate -----------------------

#: A value of each JSON type, to put where the schema allows none of that type.
_OF_TYPE = {"null": None, "boolean": True, "integer": 7, "number": 0.5, "string": "x", "array": [[]], "object": {}}


def _wrong_values(spec: dict) -> list:
    """Values of the JSON types a property's schema does not allow, by its ``type`` alone ([] without one)."""
    allowed = spec.get("type")
    if allowed is None:
        return []
    allowed = {allowed} if isinstance(allowed, str) else set(allowed)
    if "number" in allowed:
        allowed.add("integer")
    return [value for kind, value in _OF_TYPE.items() if kind not in allowed]


def _written_documents(tmp_path, capsys) -> dict[str, dict]:
    """One written document of each object-typed output format, from the real command line."""
    path = EXAMPLES["kip54-example-1-rebalance"]
    solution = tmp_path / "s.json"
    run(capsys, "solve", path, "-o", solution)
    documents = {"solution": json.loads(solution.read_text())}
    documents["verdict"] = json.loads(run(capsys, "check", path, solution, "--json")[1])
    documents["compare"] = json.loads(run(capsys, "compare", path, "--assignors", "range", "--json")[1])
    documents["explanation"] = json.loads(run(capsys, "explain", path, "--assignor", "range", "--json")[1])
    documents["simulation"] = json.loads(run(capsys, "simulate", HISTORIES[0], "--assignor", "range", "--json")[1])
    documents["bug-candidate"] = json.loads(run(capsys, "bugs", "kafka-7026", "--assignor", "sticky", "--json")[1])
    documents["bug-replay"] = json.loads(run(capsys, "bugs", "kafka-7026", "--json")[1])[0]
    documents["history"] = json.loads(HISTORIES[0].read_text())
    documents["scenario-consumer"] = json.loads(path.read_text())
    documents["scenario-streams"] = json.loads(EXAMPLES["streams-fresh"].read_text())
    documents["scenario-share"] = json.loads(EXAMPLES["share-rebalance"].read_text())
    return documents


def test_a_missing_required_key_or_a_wrong_type_does_not_validate(tmp_path, capsys):
    documents = _written_documents(tmp_path, capsys)
    for name, document in documents.items():
        spec = schema(name)
        check = validator(name)
        assert check.is_valid(document), name
        required = spec["required"]
        assert len(required) >= 2, name
        for key in required:
            assert not check.is_valid({k: v for k, v in document.items() if k != key}), (name, key)
        typed = [k for k in required if _wrong_values(spec["properties"].get(k, {}))]
        assert typed, f"{name}: no required key has a type"
        for key in typed:
            for wrong in _wrong_values(spec["properties"][key]):
                assert not check.is_valid({**document, key: wrong}), (name, key, wrong)
        if FORMAT_VERSION in document:  # a written document: its version is the format's, no other
            assert not check.is_valid({**document, FORMAT_VERSION: 99}), name
        if spec.get("additionalProperties") is False:  # an input format: a typo is refused, as by its reader
            assert not check.is_valid({**document, "topicz": {}}), name


def test_a_version_1_verdict_does_not_validate_as_version_2(tmp_path, capsys):
    """The verdict's previous format (before issue 39: the measures at the top level, no version) is not the
    current one: a script validating against ``schema verdict`` notices."""
    documents = _written_documents(tmp_path, capsys)
    current = documents["verdict"]
    old = {k: v for k, v in current.items() if k not in ("measures", FORMAT_VERSION)} | current["measures"]
    assert not validator("verdict").is_valid(old)
    assert not validator("verdict").is_valid({**current, FORMAT_VERSION: 1})


# -- the scenario schema and the scenario reader agree ---------------------------------------------------------

_MEMBER = {"topics": ["t"]}
_STREAMS = {
    "kind": "streams",
    "subtopologies": {"s": {"tasks": 2, "stateful": True}},
    "members": {"a": {"process": "p"}},
}
_SHARE = {"kind": "share", "topics": {"t": 2}, "members": {"a": {"topics": ["t"]}}}
_CONSUMER = {"topics": {"t": 2}, "members": {"a": _MEMBER, "b": _MEMBER}}

#: (document, whether it is a good scenario): written by hand, each bad one wrong in one shape the schema states
#: (a required key missing, a wrong type, a value out of range, an unknown key, a version too new).
HAND_WRITTEN = [
    (_CONSUMER, True),
    ({**_CONSUMER, FORMAT_VERSION: 1}, True),
    ({"topics": {}, "members": {}}, True),
    ({"topics": {"t": {"partitions": 2, "racks": [["r1"], []]}}, "members": {"a": {**_MEMBER, "rack": "r1"}}}, True),
    ({**_CONSUMER, "members": {"a": {**_MEMBER, "owned": {"t": [0]}, "generation": 3, "instance_id": None}}}, True),
    ({**_CONSUMER, "objective": ["stickiness", "balance"]}, True),
    ({**_CONSUMER, "objective": "balance,rack,stickiness"}, True),
    ({**_CONSUMER, "weights": {"t": [1, 5]}}, True),
    ({**_CONSUMER, "joining": "b"}, True),
    (_STREAMS, True),
    ({**_STREAMS, FORMAT_VERSION: 1, "standby_replicas": 1, "rack_aware_tags": ["zone"]}, True),
    ({**_STREAMS, "members": {"a": {"process": "p", "active": {"s": [0]}, "client_tags": {"zone": "z"}}}}, True),
    (_SHARE, True),
    ({**_SHARE, FORMAT_VERSION: 1, "topics": {"t": {"partitions": 2, "assignable": [1]}}}, True),
    ({**_SHARE, "members": {"a": {"topics": ["t"], "assigned": {"t": [0, 1]}, "rack": None}}}, True),
    # bad
    ({"members": {}}, False),
    ({"topics": {"t": 2}}, False),
    ({**_CONSUMER, FORMAT_VERSION: FORMATS["scenario"] + 1}, False),
    ({**_CONSUMER, FORMAT_VERSION: "1"}, False),
    ({**_CONSUMER, FORMAT_VERSION: 0}, False),
    ({**_CONSUMER, "topicz": {}}, False),
    ({"topics": {"t": 0}, "members": {}}, False),
    ({"topics": {"t": "2"}, "members": {}}, False),
    ({"topics": {"t": {"racks": None}}, "members": {}}, False),
    ({"topics": {"t": 2}, "members": {"a": {}}}, False),
    ({"topics": {"t": 2}, "members": {"a": {"topics": "t"}}}, False),
    ({"topics": {"t": 2}, "members": {"a": {"topics": [""]}}}, False),
    ({"topics": {"t": 2}, "members": {"a": {"topics": ["t"], "generation": "3"}}}, False),
    ({"topics": {"t": 2}, "members": {"a": {"topics": ["t"], "owned": {"t": [-1]}}}}, False),
    ({"topics": {"t": 2}, "members": {"a": {"topics": ["t"], "rack": 3}}}, False),
    ({"topics": {"t": 2}, "members": []}, False),
    ({**_CONSUMER, "objective": 3}, False),
    ({**_CONSUMER, "weights": {"t": [1, -5]}}, False),
    ({**_CONSUMER, "joining": 7}, False),
    ({**_STREAMS, "subtopologies": {"s": {"tasks": 2}}}, False),
    ({**_STREAMS, "subtopologies": {"s": {"tasks": 2, "stateful": "yes"}}}, False),
    ({**_STREAMS, "members": {"a": {}}}, False),
    ({**_STREAMS, "standby_replicas": -1}, False),
    ({**_STREAMS, FORMAT_VERSION: 2}, False),
    ({k: v for k, v in _STREAMS.items() if k != "subtopologies"}, False),
    ({**_SHARE, "topics": {"t": {"partitions": 2, "assignable": ["0"]}}}, False),
    ({**_SHARE, "members": {"a": {"topics": ["t"], "owned": {"t": [0]}}}}, False),
    ({k: v for k, v in _SHARE.items() if k != "members"}, False),
    ({**_SHARE, FORMAT_VERSION: 2}, False),
]


def _read(document) -> bool:
    try:
        load_scenario(document)
    except InputError:
        return False
    return True


@pytest.mark.parametrize("document, good", HAND_WRITTEN, ids=[str(i) for i in range(len(HAND_WRITTEN))])
def test_the_scenario_schema_and_reader_agree(document, good):
    assert validator("scenario").is_valid(document) is good
    assert _read(document) is good


@pytest.mark.parametrize("kind", list(KINDS))
def test_drawn_scenarios_validate_and_are_read(kind):
    """Every scenario the public strategies draw (assignment_oracle.strategies.json_scenarios) is valid against
    its kind's schema and the one-of, and the reader reads it."""
    check, either = validator(f"scenario-{kind}"), validator("scenario")

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(json_scenarios(kind))
    def drawn(document):
        assert check.is_valid(document) and either.is_valid(document) and _read(document)

    drawn()


@pytest.mark.parametrize(
    "command, version",
    [("solve", 99), ("solve", "1"), ("check", 99), ("check", True), ("simulate", 2), ("simulate", 0)],
)
def test_a_version_this_program_does_not_read_is_one_line(tmp_path, capsys, command, version):
    """A newer (or not an integer) ``format_version`` on a scenario, an answer or a history: exit 2, one line naming
    the field, nothing else read; the same file without the key (or with the current version) is read."""
    scenario = json.loads(EXAMPLES["kip54-example-1-fresh"].read_text())
    history = json.loads(HISTORIES[0].read_text())
    answer = {"assignment": {m: {} for m in scenario["members"]}}
    files = {"scenario": scenario, "answer": answer, "history": history}
    bad = {"solve": "scenario", "check": "answer", "simulate": "history"}[command]
    for name, document in files.items():
        (tmp_path / f"{name}.json").write_text(
            json.dumps({**document, FORMAT_VERSION: version} if name == bad else document)
        )
    argv = {
        "solve": ("solve", tmp_path / "scenario.json"),
        "check": ("check", tmp_path / "scenario.json", tmp_path / "answer.json"),
        "simulate": ("simulate", tmp_path / "history.json", "--assignor", "range"),
    }[command]
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{bad}.json: format_version: " in err and "Traceback" not in err
    (tmp_path / f"{bad}.json").write_text(json.dumps({**files[bad], FORMAT_VERSION: 1}))
    assert main([str(a) for a in argv]) in (0, 1, 3)  # read (check: an empty answer is invalid, exit 3)
    capsys.readouterr()
