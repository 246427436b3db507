"""The independent battery against ``check_assignor``'s defaults (issue 49's done-criterion: "seeded-bug
assignors written independently of the strategies, on defect classes from the corpus, are caught too").

Three checks per assignor: on its own hand-written groups, each seeded mutant shows its defect on its
``trigger`` and keeps its guarantee on its ``plain`` group (so it is a real defect, not an assignor
wrong everywhere), and every correct assignor keeps its guarantee on every group of its kind; then
``check_assignor`` with its default budget must raise ``OracleAssertionError`` on every mutant and
pass every correct assignor.  Nothing is skipped: a mutant the strategies miss fails its test.
"""

from __future__ import annotations

import pytest

from assignment_oracle.testing import OracleAssertionError, assert_guarantee, check_assignor

from . import CORRECT, SEEDED


def outcome(assign, scenario, guarantee, folder):
    """``"raised"`` when the assignor raises, ``"broken"`` when its answer breaks ``guarantee`` (an
    invalid answer breaks every guarantee), else ``"kept"``."""
    try:
        answer = assign(scenario)
    except Exception:  # noqa: BLE001 - a crash is the defect of some mutants
        return "raised"
    try:
        assert_guarantee(scenario, answer, guarantee, folder=folder)
    except OracleAssertionError:
        return "broken"
    return "kept"


@pytest.mark.parametrize("seeded", SEEDED, ids=lambda s: s.name)
def test_each_mutant_shows_its_defect_on_its_trigger_only(seeded, tmp_path):
    assert outcome(seeded.assign, seeded.trigger, seeded.guarantee, tmp_path) != "kept", seeded.defect
    assert outcome(seeded.assign, seeded.plain, seeded.guarantee, tmp_path) == "kept", seeded.defect


@pytest.mark.parametrize("correct", CORRECT, ids=lambda c: c.name)
def test_each_correct_assignor_keeps_its_guarantee_on_every_hand_written_group(correct, tmp_path):
    groups = [group for s in SEEDED if s.kind == correct.kind for group in (s.trigger, s.plain)]
    assert groups
    for group in groups:
        assert outcome(correct.assign, group, correct.guarantee, tmp_path) == "kept", group


@pytest.mark.slow  # the blind check of the strategies (about 4 minutes of CPU): CI runs it with the slow tests
@pytest.mark.parametrize("seeded", SEEDED, ids=lambda s: s.name)
def test_check_assignor_with_its_defaults_catches_the_mutant(seeded, tmp_path):
    with pytest.raises(OracleAssertionError):
        check_assignor(seeded.assign, kinds=(seeded.kind,), guarantee=seeded.guarantee, folder=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("correct", CORRECT, ids=lambda c: c.name)
def test_check_assignor_with_its_defaults_passes_the_correct_assignor(correct, tmp_path):
    check_assignor(correct.assign, kinds=(correct.kind,), guarantee=correct.guarantee, folder=tmp_path)
