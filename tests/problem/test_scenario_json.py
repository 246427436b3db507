"""The scenario and assignment formats: strict where a typo hides, tolerant where Kafka is."""

import json
import os
from pathlib import Path

import pytest

from assignment_oracle.problem import InputError, Problem
from assignment_oracle.problem.scenario_json import assignment_from_mapping, dumps, load_json, problem_from_mapping

GOOD = {
    "topics": {"orders": 6, "clicks": {"partitions": 4}},
    "members": {
        "m1": {"topics": ["orders", "clicks"]},
        "m2": {"topics": ["orders"], "owned": {"orders": [0, 2]}, "generation": 4, "rack": "a"},
    },
    "objective": ["balance", "stickiness"],
}


def with_(path, value):
    doc = json.loads(json.dumps(GOOD))
    *parents, last = path
    node = doc
    for key in parents:
        node = node[key]
    node[last] = value
    return doc


@pytest.mark.parametrize(
    "doc, field, words",
    [
        (with_(["topics", "orders"], 0), "topics.orders", "positive"),
        (with_(["topics", "orders"], -3), "topics.orders", "positive"),
        (with_(["topics", "orders"], 2.5), "topics.orders", "integer"),
        (with_(["topics", "orders"], 6.0), "topics.orders", "integer"),
        (with_(["topics", "orders"], True), "topics.orders", "integer"),
        (with_(["topics", "orders"], "6"), "topics.orders", "integer"),
        (with_(["topics", "clicks"], {"partitions": 4, "weight": 2}), "topics.clicks.weight", "unknown key"),
        (with_(["topics", "clicks"], {}), "topics.clicks", "partitions"),
        (with_(["members", "m1", "topics"], "orders"), "members.m1.topics", "array"),
        (with_(["members", "m1", "topics"], ["orders", "orders"]), "members.m1.topics[1]", "twice"),
        (with_(["members", "m1", "topics"], [""]), "members.m1.topics[0]", "empty"),
        (with_(["members", "m2", "owned"], {"orders": [0, -2]}), "members.m2.owned.orders[1]", "non-negative"),
        (with_(["members", "m2", "owned"], {"orders": 3}), "members.m2.owned.orders", "array"),
        (with_(["members", "m2", "generation"], "4"), "members.m2.generation", "integer"),
        (with_(["members", "m2", "generation"], -5), "members.m2.generation", "at least -1"),
        (with_(["members", "m2", "rack"], 7), "members.m2.rack", "string"),
        (with_(["members", "m2", "subscription"], []), "members.m2.subscription", "unknown key"),
        (with_(["members", "m1"], {"owned": {}}), "members.m1", "topics"),
        (with_(["members", "m1"], []), "members.m1", "object"),
        (with_(["objective"], ["balance"]), "objective", "balance and stickiness"),
        (with_(["objective"], "balance,balance"), "objective", "balance and stickiness"),
        (with_(["typo"], 1), "typo", "unknown key"),
        (with_(["topics", "clicks"], {"partitions": 4, "id": 7}), "topics.clicks.id", "Kafka topic id"),
        (with_(["topics", "clicks"], {"partitions": 4, "id": "UXyU9i5ARn6W00ON2taeW"}), "topics.clicks.id", "22"),
        (with_(["topics", "clicks"], {"partitions": 4, "id": "UXyU9i5ARn6W00ON2tae+A"}), "topics.clicks.id", "base64"),
        (with_(["topics", "clicks"], {"partitions": 4, "id": "AAAAAAAAAAAAAAAAAAAAAA"}), "topics.clicks.id", "zero"),
        (
            with_(
                ["topics"],
                {
                    "a": {"partitions": 1, "id": "UXyU9i5ARn6W00ON2taeWA"},
                    "b": {"partitions": 1, "id": "UXyU9i5ARn6W00ON2taeWA"},
                },
            ),
            "topics.b.id",
            "also the id of topic 'a'",
        ),
        (
            with_(  # one Uuid spelled two ways (the last character's 4 spare bits differ): still one id
                ["topics"],
                {
                    "a": {"partitions": 1, "id": "T2-B4s3VTwiI5YHbPp6YUQ"},
                    "b": {"partitions": 1, "id": "T2-B4s3VTwiI5YHbPp6YUe"},
                },
            ),
            "topics.b.id",
            "also the id of topic 'a'",
        ),
        ({"members": {}}, "topics", "missing"),
    ],
)
def test_bad_scenarios_name_the_field(doc, field, words):
    with pytest.raises(InputError) as err:
        problem_from_mapping(doc, source="s.json")
    assert err.value.field == field
    assert words in err.value.problem
    message = str(err.value)
    assert message.startswith(f"s.json: {field}: ") and "\n" not in message


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"topics": {"a": 1, "a": 2}, "members": {}}', 'duplicate JSON key "a"'),
        ('{"topics": {"a": NaN}, "members": {}}', "NaN"),
        ('{"topics": ', "not valid JSON"),
        (b"\xff\xfe", "not UTF-8 text"),  # UTF-16's byte order mark
        ('{"topics": {}, "members": {}}'.encode("utf-16-le"), "not UTF-8 text (a NUL byte at byte 1"),
        ('{"topics": {}, "members": {}}'.encode("utf-32"), "UTF-16 or UTF-32?"),
    ],
)
def test_malformed_json(text, words):
    with pytest.raises(InputError) as err:
        load_json(text, source="s.json")
    assert words in str(err.value)


def test_topic_ids_are_kafkas_uuids_and_round_trip():
    """``"id"`` is a Kafka Uuid as ``Uuid.toString()`` prints it; its halves and hash are Kafka's
    (``new Uuid(0L, 1L)``, Kafka's METADATA_TOPIC_ID, prints AAAAAAAAAAAAAAAAAAAAAQ; UuidTest's
    "UXyU9i5ARn6W00ON2taeWA" decodes to its 16 bytes)."""
    import base64

    from assignment_oracle.heuristics.java_order import uuid_hash
    from assignment_oracle.problem.scenario_json import uuid_bits

    doc = with_(["topics", "clicks"], {"partitions": 4, "id": "UXyU9i5ARn6W00ON2taeWA", "racks": None})
    problem = Problem.from_mapping(doc)
    assert {t.name: t.topic_id for t in problem.topics} == {"orders": None, "clicks": "UXyU9i5ARn6W00ON2taeWA"}
    assert Problem.from_mapping(problem.to_mapping()) == problem
    assert uuid_bits("AAAAAAAAAAAAAAAAAAAAAQ") == (0, 1) and uuid_hash(0, 1) == 1
    # Uuid.fromString ignores the last character's 4 spare bits, as Kafka's own tests rely on
    # ("T2-B4s3VTwiI5YHbPp6YUe", printed back as ...YUQ): accepted, kept as written, decoded as Java does.
    kafka_test_id = with_(["topics", "clicks"], {"partitions": 4, "id": "T2-B4s3VTwiI5YHbPp6YUe"})
    assert Problem.from_mapping(kafka_test_id).to_mapping()["topics"]["clicks"]["id"] == "T2-B4s3VTwiI5YHbPp6YUe"
    assert uuid_bits("T2-B4s3VTwiI5YHbPp6YUe") == uuid_bits("T2-B4s3VTwiI5YHbPp6YUQ")
    raw = base64.urlsafe_b64decode("UXyU9i5ARn6W00ON2taeWA==")
    most, least = uuid_bits("UXyU9i5ARn6W00ON2taeWA")
    assert (most % 2**64).to_bytes(8, "big") + (least % 2**64).to_bytes(8, "big") == raw


def test_round_trip_keeps_everything_given():
    problem = Problem.from_mapping(GOOD)
    again = Problem.from_mapping(problem.to_mapping())
    assert again == problem
    m2 = problem.members[1]
    assert (m2.member_id, m2.generation, m2.rack, m2.owned) == ("m2", 4, "a", (("orders", (0, 2)),))
    assert problem.objective == ("balance", "stickiness")


def test_objective_accepts_either_order_and_a_string():
    assert Problem.from_mapping(with_(["objective"], "stickiness,balance")).objective == ("stickiness", "balance")
    assert Problem.from_mapping(with_(["objective"], ["stickiness", "balance"])).objective == ("stickiness", "balance")


def test_what_kafka_tolerates_is_accepted_and_reported():
    problem = Problem.from_mapping(
        {
            "topics": {"a": 2, "lonely": 3},
            "members": {"m": {"topics": ["a", "deleted"], "owned": {"a": [7], "deleted": [0]}}},
        }
    )
    assert problem.missing_topics == {"m": ("deleted",)}
    assert problem.unsubscribed_topics == ("lonely",)
    assert problem.total_partitions == 2
    assert Problem.from_mapping({"topics": {"a": 1}, "members": {}}).total_partitions == 0


def test_assignment_format():
    a = assignment_from_mapping({"assignment": {"m1": {"t": [2, 0]}, "m2": {}}, "status": "ignored"})
    assert a.to_mapping() == {"m1": {"t": [0, 2]}, "m2": {}}
    for bad, field in [
        ({}, "assignment"),
        ({"assignment": {"m1": {"t": [-1]}}}, "assignment.m1.t[0]"),
        ({"assignment": {"m1": {"t": "0"}}}, "assignment.m1.t"),
        ({"assignment": {"m1": []}}, "assignment.m1"),
    ]:
        with pytest.raises(InputError) as err:
            assignment_from_mapping(bad, source="a.json")
        assert err.value.field == field


def test_output_is_canonical():
    doc = {"b": [3, 1], "a": {"y": {}, "x": [{"k": 1}]}}
    text = dumps(doc)
    assert text == dumps(json.loads(text))
    assert json.loads(text) == doc
    assert text.index('"a"') < text.index('"b"')


# -- the fast reader agrees with the strict one --------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_keys = st.text(alphabet=st.sampled_from('ab:"\\ é\u2028{}[],'), max_size=4)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | _keys,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json, st.booleans())
def test_load_json_reads_exactly_what_the_standard_library_reads(document, ascii_only):
    text = json.dumps(document, ensure_ascii=ascii_only)
    assert load_json(text.encode(), source="s") == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _json, min_size=1, max_size=4), st.data())
def test_a_repeated_key_is_always_an_error_even_with_colons_in_strings(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    body = json.dumps(obj)[1:-1]
    text = "{" + body + ", " + json.dumps(key) + ": 1}"
    nested = json.dumps({"outer": [json.loads("null"), "x:y"]})[:-1] + ', "inner": ' + text + "}"
    for document in (text, nested):
        with pytest.raises(InputError, match="duplicate JSON key"):
            load_json(document.encode(), source="s")


# -- racks of partitions' replicas and static members (KIP-881, KIP-345) -----------------------------------------

RACKED = {
    "topics": {"t": {"partitions": 3, "racks": [["a", "b"], ["b", "b"], []]}, "u": 2},
    "members": {
        "m1": {"topics": ["t", "u"], "rack": "a", "instance_id": "host-1"},
        "m2": {"topics": ["t"], "instance_id": "host-2"},
        "m3": {"topics": ["u"]},
    },
    "objective": ["balance", "stickiness"],
}


def test_replica_racks_and_instance_ids_are_read_and_round_trip():
    problem = Problem.from_mapping(RACKED)
    t = problem.topics[0]
    assert t.racks == (("a", "b"), ("b", "b"), ()) and problem.topics[1].racks is None
    assert [m.instance_id for m in problem.members] == ["host-1", "host-2", None]
    assert problem.members[0].rack == "a"
    assert problem.to_mapping() == RACKED
    assert Problem.from_mapping(json.loads(dumps(problem.to_mapping()))) == problem


@pytest.mark.parametrize(
    "topic, field, words",
    [
        ({"partitions": 3, "racks": [["a"], ["b"]]}, "topics.t.racks", "each of the 3 partitions, got 2"),
        ({"partitions": 1, "racks": "a"}, "topics.t.racks", "must be an array"),
        ({"partitions": 1, "racks": ["a"]}, "topics.t.racks[0]", "must be an array of rack names"),
        ({"partitions": 1, "racks": [["a", ""]]}, "topics.t.racks[0][1]", "must not be empty"),
        ({"partitions": 1, "racks": [[3]]}, "topics.t.racks[0][0]", "must be a string"),
    ],
)
def test_bad_replica_racks_are_named(topic, field, words):
    doc = {"topics": {"t": topic}, "members": {"m": {"topics": ["t"]}}}
    with pytest.raises(InputError) as err:
        Problem.from_mapping(doc, source="s.json")
    assert f"s.json: {field}: " in str(err.value) and words in str(err.value)


@pytest.mark.parametrize(
    "members, field, words",
    [
        ({"m": {"topics": ["t"], "instance_id": ""}}, "members.m.instance_id", "must not be empty"),
        ({"m": {"topics": ["t"], "instance_id": 7}}, "members.m.instance_id", "must be a string"),
        (
            {"a": {"topics": ["t"], "instance_id": "x"}, "b": {"topics": ["t"], "instance_id": "x"}},
            "members.b.instance_id",
            'already the instance id of member "a"',
        ),
    ],
)
def test_bad_instance_ids_are_named(members, field, words):
    with pytest.raises(InputError) as err:
        Problem.from_mapping({"topics": {"t": 1}, "members": members}, source="s.json")
    assert f"s.json: {field}: " in str(err.value) and words in str(err.value)


def test_output_onto_a_link_a_device_or_a_folder_is_refused_and_left_alone(tmp_path):
    from assignment_oracle.problem.scenario_json import write_output

    kept = tmp_path / "kept.json"
    kept.write_text("{}\n")
    link = tmp_path / "link.json"
    link.symlink_to(kept)
    folder = tmp_path / "folder"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (link, folder, fifo, Path(os.devnull)):
        with pytest.raises(InputError, match="cannot write file .it exists and is not a regular file"):
            write_output(target, "answer\n")
    assert link.is_symlink() and kept.read_text() == "{}\n" and folder.is_dir()
    assert Path(os.devnull).is_char_device()
    write_output(tmp_path / "new.json", "answer\n")  # a plain new file is written
    assert (tmp_path / "new.json").read_text() == "answer\n"


def test_deeply_nested_json_is_one_line_of_bad_input():
    with pytest.raises(InputError, match="nested too deeply"):
        load_json("[" * 100_000 + "]" * 100_000, source="deep.json")


def test_a_write_protected_output_is_refused_and_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    from assignment_oracle.problem.scenario_json import write_output

    protected = tmp_path / "protected.json"
    protected.write_text("{}\n")
    protected.chmod(0o444)
    with pytest.raises(InputError, match="write-protected"):
        write_output(protected, "answer\n")
    assert protected.read_text() == "{}\n" and not list(tmp_path.glob(".protected.json.*"))
    monkeypatch.chdir(tmp_path)
    write_output("-", "answer\n")  # a stream to standard output, no file named "-"
    assert capsys.readouterr().out == "answer\n" and not (tmp_path / "-").exists()
    write_output("/dev/stdout", "again\n")  # the link is followed as a stream, never replaced
    assert capsys.readouterr().out == "again\n" and Path("/dev/stdout").is_symlink()


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ('{"topics": {"t": 1}, "members": {"a\\ud800": {"topics": ["t"]}}}', 'members."a\\ud800"', "lone surrogate"),
        ('{"topics": {"t\\udfff": 1}, "members": {}}', 'topics."t\\udfff"', "lone surrogate"),
        ('{"topics": {"t": 1}, "members": {"a\\u0000b": {"topics": ["t"]}}}', 'members."a\\u0000b"', "NUL"),
        ('{"topics": {"t": 1}, "members": {"a": {"topics": ["t\\u0000"]}}}', "members.a.topics[0]", "NUL"),
    ],
)
def test_lone_surrogates_and_nuls_are_named_not_written(text, field, words):
    """Neither can be written back (a surrogate is not UTF-8) or shown safely: one line, the field named."""
    with pytest.raises(InputError) as err:
        load_json(text, source="s.json")
    assert str(err.value).startswith(f"s.json: {field}: ") and words in str(err.value)
    assert "\n" not in str(err.value)


def test_a_written_scenario_keeps_the_group_s_order_of_members_and_topics():
    """The tool writes a consumer or Streams group with its members in join order and its topics in the
    scenario's order (Java's iteration order depends on them), and reads it back in that order."""
    from assignment_oracle.problem.load import load_scenario
    from assignment_oracle.problem.scenario_json import dumps

    consumer = load_scenario(
        {"topics": {"z": 2, "a": 1}, "members": {"m2": {"topics": ["a", "z"]}, "m1": {"topics": ["z"]}}}
    )
    text = dumps(consumer.to_mapping())
    assert text.index('"m2"') < text.index('"m1"') and text.index('"z"') < text.index('"a": 1')
    again = load_scenario(text)
    assert again.join_order == ("m2", "m1") and again.topic_listing == ("z", "a")
    streams = load_scenario(
        {
            "kind": "streams",
            "subtopologies": {"s": {"tasks": 2, "stateful": False}},
            "members": {"c": {"process": "p1"}, "b": {"process": "p2"}, "a": {"process": "p1"}},
        }
    )
    assert load_scenario(dumps(streams.to_mapping())).join_order == ("c", "b", "a")
