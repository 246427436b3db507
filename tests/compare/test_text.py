"""What ``check`` prints for large groups: summarized, and exact where it summarizes."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from assignment_oracle.compare.judge.text import LOADS_LISTED, LOADS_SHOWN, loads_text, runs


@given(st.lists(st.integers(0, 5), max_size=80).map(lambda xs: sorted(xs, reverse=True)))
def test_runs_are_exact(values):
    text = runs(values)
    expanded = []
    for part in re.findall(r"(\d+)(?:×(\d+))?", text):
        expanded += [int(part[0])] * int(part[1] or 1)
    assert expanded == values
    assert len(values) <= LOADS_LISTED or len(text) <= 8 * len(set(values)) + 2


@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=4), st.integers(0, 9), min_size=1, max_size=60))
def test_loads_name_every_member_of_a_small_group_and_the_extremes_of_a_large_one(loads):
    text = loads_text(loads)
    if len(loads) <= LOADS_LISTED:
        assert text == "loads: " + " ".join(f"{m}={x}" for m, x in loads.items())
        return
    assert f"of {len(loads):,} members" in text and "--verbose" in text
    busiest = sorted(loads.items(), key=lambda item: (-item[1], item[0]))[:LOADS_SHOWN]
    idlest = sorted(loads.items(), key=lambda item: (item[1], item[0]))[:LOADS_SHOWN]
    shown = text.split("busiest ")[1]
    assert shown.split("; idlest ")[0] == " ".join(f"{m}={x}" for m, x in busiest)
    assert shown.split("; idlest ")[1].split(" (--verbose")[0] == " ".join(f"{m}={x}" for m, x in idlest)
    assert loads_text(loads, verbose=True) == "loads: " + " ".join(f"{m}={x}" for m, x in loads.items())
