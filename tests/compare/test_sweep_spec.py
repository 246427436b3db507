"""Sweep specs: validation with one-line errors, grids, identity."""

from __future__ import annotations

import dataclasses

import pytest

from assignment_oracle.compare.sweep.rows import scenario_rows
from assignment_oracle.compare.sweep.spec import bundled_specs, read_spec, scenario_id, spec_from_mapping
from assignment_oracle.heuristics import ASSIGNORS
from assignment_oracle.problem.scenario_json import InputError

BASE = {"families": [{"family": "uniform", "grid": {"members": [2, 3], "topics": 2}}]}


def test_defaults_and_grid_expansion():
    spec = spec_from_mapping({**BASE, "seeds": 3})
    assert spec.assignors == tuple(ASSIGNORS) and spec.seeds == (0, 1, 2)
    assert [dict(p.params) for p in spec.points] == [{"members": 2, "topics": 2}, {"members": 3, "topics": 2}]
    assert spec.scenarios == 6
    assert [spec.task(i)[1] for i in range(6)] == [0, 1, 2, 0, 1, 2]


def test_identity_is_the_whole_spec():
    a, b = spec_from_mapping(BASE), spec_from_mapping(dict(BASE))
    assert a.hash == b.hash
    assert spec_from_mapping({**BASE, "time_limit": 5}).hash != a.hash
    point = a.points[0]
    assert scenario_id(a.hash, point, 1) == scenario_id(b.hash, point, 1) != scenario_id(a.hash, point, 2)


@pytest.mark.parametrize(
    "document, field, words",
    [
        ({}, "families", "non-empty list"),
        ({**BASE, "seeds": 0}, "seeds", "a count from 1 to 1,000,000, got 0"),
        ({**BASE, "seeds": [1, 1]}, "seeds", "twice"),
        (
            {**BASE, "seeds": 10**400},
            "seeds",
            "a count from 1 to 1,000,000, got 1000000000000000000000000000000000000...",
        ),
        ({**BASE, "seeds": [-1]}, "seeds", "integers from 0 to 2^63-1"),
        ({**BASE, "time_limit": 10**400}, "time_limit", "a positive number up to 3.1536e+07"),
        ({**BASE, "checks": {"brute_force_limit": 2**64}}, "checks.brute_force_limit", "a positive integer up to"),
        ({**BASE, "assignors": ["stiky"]}, "assignors", "unknown assignor 'stiky'"),
        ({**BASE, "time_limit": -1}, "time_limit", "positive"),
        ({**BASE, "checks": {"cpsat_sample": 2}}, "checks.cpsat_sample", "between 0 and 1"),
        ({**BASE, "colour": 1}, "colour", "unknown field"),
        ({"families": [{"family": "nope"}]}, "families[0].family", "unknown family 'nope'"),
        ({"families": [{"family": "uniform", "grid": {"members": []}}]}, "families[0].grid.members", "empty list"),
        ({"families": [{"family": "uniform", "grid": {"subscribe": 0.5}}]}, "families[0].grid", "uniform"),
        ({"families": [{"family": "churn", "grid": {"rounds": -1}}]}, "families[0].grid.rounds", ">= 0"),
        ({"families": [BASE["families"][0], BASE["families"][0]]}, "families", "same family"),
    ],
)
def test_bad_specs_name_the_field(document, field, words):
    with pytest.raises(InputError) as err:
        spec_from_mapping(document, source="s.toml")
    text = str(err.value)
    assert text.startswith(f"s.toml: {field}") and words in text and "\n" not in text


def test_bundled_specs_are_valid():
    assert {"quick", "full"} <= set(bundled_specs())
    quick, full = read_spec("quick"), read_spec("full")
    assert quick.scenarios < 200 < full.scenarios


def test_files_toml_json_and_errors(tmp_path):
    (tmp_path / "a.toml").write_text('seeds = 2\n[[families]]\nfamily = "uniform"\ngrid = { members = 3 }\n')
    assert read_spec(tmp_path / "a.toml").scenarios == 2
    (tmp_path / "b.json").write_text('{"families": [{"family": "racks"}]}')
    assert read_spec(tmp_path / "b.json").scenarios == 1
    (tmp_path / "c.toml").write_text("seeds = = 2")
    with pytest.raises(InputError, match="not valid TOML"):
        read_spec(tmp_path / "c.toml")
    with pytest.raises(InputError, match="not a bundled spec"):
        read_spec(tmp_path / "missing.toml")


def test_the_soundness_spec_is_a_100000_scenario_campaign_whose_models_agree():
    spec = read_spec("soundness")
    assert spec.scenarios >= 100_000
    assert spec.checks.cpsat_sample == 1.0 and spec.checks.brute_force_limit >= 1024
    # A slice of it, as a sweep worker runs it: every scenario cross-checked, no disagreement.
    checks = set()
    for index in range(0, spec.scenarios, spec.scenarios // 16):
        point, seed = spec.task(index)
        rows = scenario_rows(
            spec.hash, scenario_id(spec.hash, point, seed), point, seed, spec.assignors, spec.time_limit, spec.checks
        )
        checks |= {row["oracle_check"] for row in rows}
    assert checks and not any(c.startswith("DISAGREE") for c in checks)
    assert any("brute-force" in c for c in checks) and any("cpsat" in c for c in checks)


def test_the_clients_spec_names_every_client_library_peer():
    from assignment_oracle.heuristics.registry import CLIENT_PEERS, PEERS

    spec = read_spec("clients")
    assert set(CLIENT_PEERS) | set(PEERS) <= set(spec.assignors)
    assert {"range", "roundrobin", "sticky"} <= set(spec.assignors)


def test_a_sweep_with_node_peers_but_no_install_stops_in_one_line_before_spark(tmp_path, monkeypatch):
    from assignment_oracle.compare.sweep.job import run_sweep
    from assignment_oracle.heuristics import node_peers

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    spec = dataclasses.replace(read_spec("quick"), assignors=("range", "kafkajs:roundrobin"))
    with pytest.raises(node_peers.NodeLibrariesNotInstalled) as err:
        run_sweep(spec, tmp_path / "out", spark=object())  # no Spark call is reached
    assert "\n" not in str(err.value) and "install-peers node" in str(err.value)
    assert not (tmp_path / "out").exists()
