"""What to configure for each assignor, and the choice among them (compare/judge/configuration.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assignment_oracle.compare.judge.configuration import (
    BALANCE_EDGE_PCT,
    CONFIGURATIONS,
    MOVES_TRADE_PCT,
    STOP_THE_WORLD,
    Measured,
    choose,
    configuration,
)
from assignment_oracle.heuristics.registry import ASSIGNORS, CLIENT_PEERS, LIVE_PEERS, PEERS


def test_every_configurable_port_has_a_setting_and_no_other_does():
    for name, entry in ASSIGNORS.items():
        assert (name in CONFIGURATIONS) == entry.configurable, name


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_a_setting_runs_the_protocol_the_registry_says(name):
    entry = {**ASSIGNORS, **PEERS, **LIVE_PEERS, **CLIENT_PEERS}[name]
    assert configuration(name).protocol == entry.protocol


def test_the_java_settings_name_the_class_or_the_broker_assignor():
    assert configuration("kafka4-cooperative-sticky").setting == (
        "group.protocol=classic, partition.assignment.strategy="
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
    )
    assert configuration("uniform").setting.startswith(
        "group.protocol=consumer, broker group.consumer.assignors=uniform"
    )
    assert "group.remote.assignor=range" in configuration("server-range").setting
    # proposals, replaced behaviour and the mock broker's own assignor are never recommended
    for name in ("fair", "sticky-kip54", "constrained-sticky", "uniform-4.0.0", "stream-join-sticky"):
        assert configuration(name) is None
    assert configuration("librdkafka:consumer-protocol") is None


def test_ties_go_to_fewer_stop_the_world_rebalances():
    same = dict(valid=1.0, busiest_over_ideal=0.0, cross_rack=0.0, moved=5.0)
    choice = choose([Measured("kafka4-sticky", **same), Measured("kafka4-cooperative-sticky", **same)])
    assert choice.choose == "kafka4-cooperative-sticky"
    assert choice.tied == ("kafka4-sticky",)
    assert "fewer stop-the-world rebalances (cooperative (KIP-429): only moved partitions pause)" in choice.why
    choice = choose(
        [Measured("roundrobin", **same), Measured("cooperative-sticky", **same), Measured("uniform", **same)]
    )
    assert choice.choose == "uniform" and choice.configuration.protocol == "consumer"


def test_a_small_balance_edge_is_not_worth_many_more_moves():
    # the weighted groups: roundrobin 0.6 points more balanced, 41% moved against sticky's 12%
    measured = [
        Measured("roundrobin", valid=1.0, busiest_over_ideal=2.0, cross_rack=None, moved=41.0),
        Measured("kafka4-cooperative-sticky", valid=1.0, busiest_over_ideal=2.6, cross_rack=None, moved=12.0),
    ]
    choice = choose(measured)
    assert (choice.choose, choice.traded) == ("kafka4-cooperative-sticky", "roundrobin")
    assert (
        "roundrobin is 0.6 points more balanced but moves 41.0% of partitions per rebalance against 12.0%" in choice.why
    )
    # a large edge is kept: 1 point or more of balance wins whatever it moves
    measured[1] = Measured(
        "kafka4-cooperative-sticky", valid=1.0, busiest_over_ideal=2.0 + BALANCE_EDGE_PCT, moved=12.0
    )
    assert choose(measured).choose == "roundrobin"
    # few more moves are not a trade: under 10 points the most balanced stays
    measured[1] = Measured(
        "kafka4-cooperative-sticky", valid=1.0, busiest_over_ideal=2.6, moved=41.0 - MOVES_TRADE_PCT + 0.5
    )
    assert choose(measured).choose == "roundrobin"


def test_validity_first_and_unconfigurable_never_chosen():
    assert choose([Measured("fair", valid=1.0, busiest_over_ideal=0.0)]) is None
    choice = choose(
        [
            Measured("fair", valid=1.0, busiest_over_ideal=0.0),
            Measured("range", valid=0.9, busiest_over_ideal=0.0),
            Measured("roundrobin", valid=1.0, busiest_over_ideal=30.0),
        ]
    )
    assert choice.choose == "roundrobin" and choice.runner_up == "range"


measures = st.builds(
    Measured,
    assignor=st.sampled_from(sorted(CONFIGURATIONS) + ["fair", "sticky-kip54"]),
    valid=st.sampled_from([0.5, 1.0]),
    busiest_over_ideal=st.none() | st.floats(0, 50),
    cross_rack=st.none() | st.floats(0, 50),
    moved=st.none() | st.floats(0, 100),
)


@given(st.lists(measures, max_size=8, unique_by=lambda m: m.assignor))
def test_the_choice_is_configurable_most_valid_and_order_free(measured):
    choice = choose(measured)
    configurable = [m for m in measured if m.assignor in CONFIGURATIONS]
    if not configurable:
        assert choice is None
        return
    chosen = next(m for m in configurable if m.assignor == choice.choose)
    assert chosen.valid == max(m.valid for m in configurable)
    # nothing tied with the choice stops more of the group... unless the trade rule chose it
    if choice.traded is None:
        assert all(
            STOP_THE_WORLD[configuration(t).protocol] >= choice.configuration.stop_the_world for t in choice.tied
        )
    # the same measures in another order: the same choice, up to equals that tie exactly
    again = choose(list(reversed(measured)))
    assert again.choose == choice.choose or again.choose in choice.tied
