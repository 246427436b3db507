"""The command line on share group scenarios ("kind": "share"): solve, check, assign, compare, explain, demo.

Expected values are derived by hand from the bundled example (cli/examples/share-rebalance.json; the
derivation is in tests/compare/test_judge_share.py): the optimum [4, 3, 3, 3, 1] with all 10 held pairs
kept; Kafka's answer (share-simple, sorted order) [5, 4, 2, 2, 1] with 9 kept: a gap at balance.
"""

from __future__ import annotations

import json

import pytest

from assignment_oracle.cli import bundled_examples, main
from assignment_oracle.problem.share import ShareAssignment, ShareProblem, violations

EXAMPLES = {p.stem: p for p in bundled_examples()}
SHARE = EXAMPLES["share-rebalance"]
CONSUMER = EXAMPLES["kip49-example"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_solve_writes_the_proven_optimum_byte_stable_and_check_agrees(tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "solve", SHARE, "-o", first)[0] == 0
    assert run(capsys, "solve", SHARE, "-o", second)[0] == 0
    assert first.read_bytes() == second.read_bytes()
    doc = json.loads(first.read_text())
    assert doc["kind"] == "share" and doc["status"] == "OPTIMAL" and doc["method"] == "share-flow"
    assert {t["tier"]: t["value"] for t in doc["tiers"]} == {
        "coverage": 0,
        "sharing": [],
        "balance": [4, 3, 3, 3, 1],
        "stickiness": 10,
    }
    assert doc["request"] == {
        "objective": ["coverage", "sharing", "balance", "stickiness"],
        "balance": "member",
        "sharing": "kafka",
    }
    assert doc["sharing_targets"] == {"orders": 1, "payments": 2, "audit": 2}
    assert doc["proof"]["kind"] == "share-potentials" and len(doc["proof"]["stages"]) == 4
    problem = ShareProblem.from_mapping(json.loads(SHARE.read_text()))
    assert violations(problem, ShareAssignment.from_mapping(doc["assignment"])) == ()
    code, out, _ = run(capsys, "check", SHARE, first)
    assert code == 0 and "optimal on every tier" in out


def test_assign_then_check_shows_the_balance_gap(tmp_path, capsys):
    out_file = tmp_path / "port.json"
    assert run(capsys, "assign", SHARE, "--assignor", "share-simple", "-o", out_file)[0] == 0
    doc = json.loads(out_file.read_text())
    assert doc["kind"] == "share" and doc["assignor"] == "share-simple" and doc["valid"] is True
    code, out, _ = run(capsys, "check", SHARE, out_file, "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["verdict"] == "gap" and verdict["gap_tier"] == "balance"
    balance = next(t for t in verdict["tiers"] if t["tier"] == "balance")
    assert balance["value"] == [5, 4, 2, 2, 1] and balance["optimum"] == [4, 3, 3, 3, 1]
    assert balance["difference"]["largest_over_optimum"] == 1
    # under Kafka's heterogeneous definitions (per topic), the same answer is optimal
    objective = "coverage,sharing:per-topic,balance:per-topic,stickiness"
    code, out, _ = run(capsys, "check", SHARE, out_file, "--objective", objective)
    assert code == 0 and "optimal on every tier" in out


def test_java_order_iterates_the_members_as_the_coordinator_fills_them(tmp_path, capsys):
    """``a0`` and ``d3`` share a bucket of Java's ``HashMap`` and a slot of Kafka's ``TimelineHashMap``; the
    homogeneous builder deals ``t``'s two partitions in ``memberIds()`` order.  The coordinator
    (``modern/TargetAssignmentBuilder.build`` at d79bd50) fills ``memberIds()`` from the share group's
    ``TimelineHashMap`` of members, which hands a slot out from its last put: Kafka's own Java
    (``tools/kafka_differential/share.py --scenario``) gives ``t-0`` to the member that joined first, where
    the ``HashMap`` filled straight in the group's order (assumed before issue 43) gives it to the other."""
    for joined in (["a0", "d3"], ["d3", "a0"]):
        group = {
            "kind": "share",
            "topics": {"t": {"partitions": 2, "id": "V8WPCmE0Rv6ukyaMx_J-hg"}},
            "members": {m: {"topics": ["t"]} for m in joined},
        }
        scenario = write(tmp_path, "share.json", group)
        code, out, err = run(capsys, "assign", scenario, "--assignor", "share-simple", "--iteration-order", "java")
        assert code == 0 and err == ""
        assignment = json.loads(out)["assignment"]
        assert assignment[joined[0]] == {"t": [0]} and assignment[joined[1]] == {"t": [1]}, joined


def test_compare_explain_and_demo(capsys):
    code, out, _ = run(capsys, "compare", SHARE)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["optimum", "share-simple", "share-simple"]
    assert "share-simple (java order)" in out and "gap at balance" in out
    code, out, _ = run(capsys, "compare", SHARE, "--fail-on", "gap")
    assert code != 0
    code, out, _ = run(capsys, "explain", SHARE, "--assignor", "share-simple")
    assert code == 1 and "first at the balance tier" in out and "billing-1: 5" in out
    code, out, _ = run(capsys, "demo")
    line = next(line for line in out.splitlines() if line.startswith("share-rebalance:"))
    assert "oracle OPTIMAL" in line and "certificate verified" in line and line.endswith("check exit 0")
    assert "  share-simple (java order): gap at balance" in out


def one_line_error(code, out, err, *needles):
    assert code == 2, (code, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    for needle in needles:
        assert needle in err, err


@pytest.mark.parametrize(
    "argv, needles",
    [
        (("assign", SHARE, "--assignor", "range"), ("range is a consumer group assignor",)),
        (("compare", SHARE, "--assignors", "roundrobin"), ("--assignors", "consumer group assignor")),
        (("assign", SHARE, "--assignor", "nope"), ("unknown share group assignor 'nope'", "share-simple")),
        (("compare", CONSUMER, "--assignors", "share-simple"), ("share-simple is a share group assignor",)),
        (("solve", SHARE, "--balance", "sum-of-squares"), ("--balance", "share group (KIP-932)")),
        (("solve", SHARE, "--max-moves", "1"), ("--max-moves",)),
        (("solve", SHARE, "--method", "flow"), ("--method",)),
        (("solve", SHARE, "--objective", "coverage,balance"), ("--objective", "each once")),
        (("solve", SHARE, "--objective", "coverage,sharing:group,balance,stickiness"), ("--objective", "sharing")),
        (("compare", SHARE, "--objective", "balance"), ("--objective", "Kafka's order")),
    ],
)
def test_assignors_and_options_of_the_other_kind(capsys, argv, needles):
    one_line_error(*run(capsys, *argv), *needles)


@pytest.mark.parametrize(
    "content, needles",
    [
        ('{"kind": "share", ', ("not valid JSON",)),
        ({"kind": "share", "topics": {"t": 0}, "members": {}}, ("topics.t",)),
        (
            {"kind": "share", "topics": {"t": 2}, "members": {"m": {"topics": ["u"]}}},
            ("members.m.topics[0]", "unknown topic"),
        ),
        (
            {"kind": "share", "topics": {"t": 2}, "members": {"m": {"topics": ["t"], "assigned": {"t": [5]}}}},
            ("members.m.assigned.t[0]", "out of range"),
        ),
    ],
)
def test_bad_scenarios(tmp_path, capsys, content, needles):
    path = write(tmp_path, "s.json", content)
    for argv in (("solve", path), ("compare", path), ("assign", path, "--assignor", "share-simple")):
        one_line_error(*run(capsys, *argv), "s.json", *needles)
