"""The tier table (problem/tiers.py): a lookup that refuses a tier it does not know, by name; a dummy tier added
to the table is refused by every engine, the brute force, the measures and the judges, never measured as
stickiness; and the table's keys order values as the brute force's own definitions do (most kept, fewest
cross-rack, least sorted loads)."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from assignment_oracle.compare.judge import judge
from assignment_oracle.compare.judge import share as share_judge
from assignment_oracle.compare.judge import streams as streams_judge
from assignment_oracle.optimal import Request, brute_force, measure, solve
from assignment_oracle.optimal import share as share_optimum
from assignment_oracle.optimal import streams as streams_optimum
from assignment_oracle.optimal.request import tier_key
from assignment_oracle.optimal.share_request import ShareRequest
from assignment_oracle.optimal.solution import TierResult
from assignment_oracle.optimal.streams_request import StreamsRequest
from assignment_oracle.problem import tiers
from assignment_oracle.problem.errors import UnsupportedRequest
from assignment_oracle.problem.model import TIERS, Assignment, Problem
from assignment_oracle.problem.share import ShareProblem
from assignment_oracle.problem.streams import StreamsProblem
from assignment_oracle.problem.tiers import LEAST, Tier, UnknownTier

LATENCY = "latency"
ENGINES = ("flow", "networkx", "cpsat", "flow-spread", "units-flow", "cpsat-staged")


def _latency(kind: str) -> Tier:
    return Tier(LATENCY, kind, "a dummy tier nobody taught", "latency_ms", LEAST, "ms slower", required=False)


@pytest.fixture
def latency(monkeypatch):
    """A dummy ``latency`` tier in every kind's table (optional, so the requests accept it)."""
    for table in tiers.TABLES.values():
        monkeypatch.setitem(table.records, LATENCY, _latency(table.kind))
    return LATENCY


def _problem() -> Problem:
    return Problem.from_mapping(
        {
            "topics": {"t": 3, "u": 2},
            "members": {
                "a": {"topics": ["t", "u"], "owned": {"t": [0, 1]}, "generation": 1},
                "b": {"topics": ["t", "u"], "owned": {"u": [0]}, "generation": 1},
            },
        }
    )


def _streams() -> StreamsProblem:
    return StreamsProblem.from_mapping(
        {
            "kind": "streams",
            "standby_replicas": 1,
            "subtopologies": {"s": {"tasks": 2, "stateful": True}},
            "members": {"a": {"process": "p1", "active": {"s": [0]}}, "b": {"process": "p2"}},
        }
    )


def _share() -> ShareProblem:
    return ShareProblem.from_mapping(
        {"kind": "share", "topics": {"t": 2}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}}
    )


def _refuses(error: pytest.ExceptionInfo) -> None:
    assert LATENCY in str(error.value), str(error.value)


# -- the lookup ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(tiers.TABLES))
def test_an_unknown_tier_is_refused_by_name_with_the_known_ones(kind: str) -> None:
    with pytest.raises(UnsupportedRequest) as error:
        tiers.tier(kind, LATENCY)
    assert isinstance(error.value, UnknownTier)
    message = str(error.value)
    assert LATENCY in message and kind in message
    assert all(name in message for name in tiers.table(kind).names)


def test_an_unknown_tier_has_no_key() -> None:
    with pytest.raises(UnknownTier) as error:
        tier_key(LATENCY, 3)  # before the table, -3: stickiness's key
    _refuses(error)


def test_an_unknown_kind_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedRequest, match="connect"):
        tiers.table("connect")


def test_a_handler_table_that_misses_a_known_tier_refuses_it_naming_where() -> None:
    with pytest.raises(UnknownTier) as error:
        tiers.pick("consumer", tiers.SPREAD, {tiers.BALANCE: 1, tiers.STICKINESS: 2}, "the test's handlers")
    assert "spread" in str(error.value) and "the test's handlers" in str(error.value)


def test_the_model_constants_are_the_consumer_tables_names() -> None:
    assert TIERS == ("balance", "rack", "spread", "stickiness") == tiers.CONSUMER.names


def test_the_rules_for_objectives_stay_as_they_were() -> None:
    # consumer groups: balance and stickiness once each, rack and spread at most once (docs/formats.md)
    assert Request(objective=("stickiness", "balance")).objective == ("stickiness", "balance")
    for wrong in (("balance",), ("balance", "stickiness", "stickiness"), ("balance", "stickiness", "latency")):
        with pytest.raises(UnsupportedRequest, match="must name balance and stickiness once each"):
            Request(objective=wrong)
    with pytest.raises(UnsupportedRequest, match="a Streams group's tiers are"):
        StreamsRequest(objective=("active-balance", "stickiness"))
    with pytest.raises(UnsupportedRequest, match="a share group's tiers are"):
        ShareRequest(objective=("coverage", "sharing", "balance"))


# -- a dummy tier is refused everywhere, by name -------------------------------------------------------------


@pytest.mark.parametrize("method", ("auto", *ENGINES))
def test_every_engine_refuses_a_dummy_tier(latency: str, method: str) -> None:
    request = Request(objective=("balance", latency, "stickiness"))  # the table knows it: the request takes it
    with pytest.raises(UnsupportedRequest) as error:
        solve(_problem(), request, method=method)
    _refuses(error)


def test_the_measures_refuse_a_dummy_tier_rather_than_report_partitions_kept(latency: str) -> None:
    problem = _problem()
    measures = measure(problem, solve(problem).assignment)
    assert measures.value("stickiness") == 3
    with pytest.raises(UnknownTier) as error:
        measures.value(latency)
    _refuses(error)
    assert tier_key(latency, 3) == 3  # its record's sense (least), not stickiness's -3


def test_the_brute_force_refuses_a_dummy_tier(latency: str) -> None:
    problem = _problem()
    with pytest.raises(UnknownTier) as error:
        brute_force.request_optimum(problem, Request(objective=("balance", latency, "stickiness")))
    _refuses(error)
    with pytest.raises(UnknownTier) as error:
        brute_force.optimum(dataclasses.replace(problem, objective=("balance", latency, "stickiness")))
    _refuses(error)


def test_the_brute_force_optimum_refuses_spread_it_does_not_enumerate() -> None:
    # Before the table, a spread tier here was silently counted as stickiness.
    problem = dataclasses.replace(_problem(), objective=("balance", "spread", "stickiness"))
    with pytest.raises(UnknownTier, match="spread"):
        brute_force.optimum(problem)


def test_the_consumer_judge_refuses_a_dummy_tier(latency: str) -> None:
    problem = _problem()
    optimum = solve(problem)
    request = Request(objective=("balance", latency, "stickiness"))
    with pytest.raises(UnsupportedRequest) as error:
        judge(problem, optimum.assignment, request)
    _refuses(error)
    # Handed an optimum that reports the dummy tier, the judge refuses it rather than compare it as stickiness.
    reported = dataclasses.replace(optimum, tiers=(*optimum.tiers, TierResult(latency, 0, 0, True, "bound")))
    worse = Assignment({"a": {"t": (0, 1, 2), "u": (0, 1)}, "b": {}})
    with pytest.raises(UnknownTier) as error:
        judge(problem, worse, request, optimum=reported)
    _refuses(error)


#: Per kind: its problem, an objective with the dummy tier before stickiness, its brute force, its judge, and
#: the part of its exact model that used to treat an unknown tier as stickiness (the Streams stage loop
#: optimised it as stickiness; the share network gave it stickiness's arc costs).
OTHER_KINDS = {
    "streams": (
        _streams,
        lambda latency: StreamsRequest(
            objective=("active-balance", "task-balance", "tag-diversity", latency, "stickiness")
        ),
        brute_force.streams_optimum,
        streams_judge.judge,
        "the Streams exact model's stages",
    ),
    "share": (
        _share,
        lambda latency: ShareRequest(objective=("coverage", "sharing", "balance", latency, "stickiness")),
        brute_force.share_optimum,
        share_judge.judge,
        "the share exact model's network",
    ),
}


@pytest.mark.parametrize("kind", sorted(OTHER_KINDS))
def test_the_streams_and_share_measures_brute_force_and_judge_refuse_a_dummy_tier(latency: str, kind: str) -> None:
    make, ask, brute, judged, _ = OTHER_KINDS[kind]
    problem = make()
    optimum = solve(problem)
    with pytest.raises(UnknownTier) as error:
        optimum.measures.value(latency)
    _refuses(error)
    request = ask(latency)
    with pytest.raises(UnknownTier) as error:
        brute(problem, request)
    _refuses(error)
    reported = dataclasses.replace(optimum, request=request)
    with pytest.raises(UnknownTier) as error:
        judged(problem, optimum.assignment, optimum=reported)
    _refuses(error)


@pytest.mark.parametrize("kind", sorted(OTHER_KINDS))
def test_the_streams_and_share_exact_models_refuse_a_dummy_tier_where_it_fell_through(latency: str, kind: str) -> None:
    """The exact model refuses the dummy tier at its stage, by name, naming the stage: not after optimising it as
    stickiness, when the answer's measures are asked for it."""
    make, ask, _, _, where = OTHER_KINDS[kind]
    with pytest.raises(UnknownTier) as error:
        solve(make(), ask(latency))
    _refuses(error)
    assert error.value.where == where and error.value.kind == kind, str(error.value)
    assert "stickiness" in error.value.known  # the tiers it does handle, named beside the refusal


def test_the_streams_bounds_and_the_share_network_refuse_a_dummy_tier(latency: str) -> None:
    # The Streams model's bound of a tier (the ideal, the ceilings) once fell through to stickiness's ceilings.
    with pytest.raises(UnknownTier) as error:
        streams_optimum._Model(_streams(), core=True, tags=False).ceiling(latency)
    _refuses(error)
    # The share network's arc costs and a flow's value on a tier once fell through to stickiness's.
    network = share_optimum.build_network(_share(), ShareRequest())
    with pytest.raises(UnknownTier) as error:
        network.costs(latency)
    _refuses(error)
    # A certificate naming the dummy tier is refused by name, not verified as a stickiness stage.
    problem = _share()
    found = share_optimum.solve(problem)
    assert found.certificate is not None
    tiers_, potentials = found.certificate.tiers, found.certificate.potentials
    certificate = dataclasses.replace(
        found.certificate, tiers=(*tiers_[:-1], latency, tiers_[-1]), potentials=(*potentials, potentials[-1])
    )
    request = ShareRequest(objective=certificate.tiers)
    with pytest.raises(UnknownTier) as error:
        share_optimum.verify(problem, found.assignment, certificate, request)
    _refuses(error)


# -- the keys order values as the definitions do ---------------------------------------------------------------


def _tiny(seed: int) -> Problem:
    rnd = random.Random(seed)
    topics = {t: rnd.randint(1, 3) for t in ("t", "u")}
    members = {}
    for m in ("a", "b", "c")[: rnd.randint(2, 3)]:
        subscribed = [t for t in topics if rnd.random() < 0.8] or ["t"]
        owned = {t: [p for p in range(topics[t]) if rnd.random() < 0.4] for t in subscribed}
        members[m] = {"topics": subscribed, "owned": owned, "generation": 1, "rack": rnd.choice("xy")}
    described = {t: {"partitions": n, "racks": [[rnd.choice("xy")] for _ in range(n)]} for t, n in topics.items()}
    return Problem.from_mapping({"topics": described, "members": members})


@pytest.mark.parametrize("seed", range(12))
def test_the_keys_pick_the_brute_force_optimum(seed: int) -> None:
    """The best of every assignment by the table's keys (:meth:`TierTable.better` over the measures) is the
    brute force's optimum, found from its own definitions (least sorted loads, fewest cross-rack, most kept)."""
    problem = _tiny(seed)
    for order in itertools.permutations(("balance", "rack", "stickiness")):
        if order.index("balance") > order.index("stickiness") and seed % 2:
            continue
        p = dataclasses.replace(problem, objective=order)
        expected = brute_force.optimum(p)
        best = None
        for assignment, *_ in brute_force.all_assignments(p, limit=4096):
            m = measure(p, assignment)
            values = [m.value(t) for t in order]
            if best is None or tiers.CONSUMER.better(order, values, best) < 0:
                best = values
        found = dict(zip(order, best))
        assert tuple(found["balance"]) == expected.sorted_loads, order
        assert found["rack"] == expected.cross_rack, order
        assert found["stickiness"] == expected.retained, order
