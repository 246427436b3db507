"""The pytest plugin of :mod:`assignment_oracle.testing` (registered as ``pytest11``: loaded by any pytest run
where the package is installed; ``-p no:assignment_oracle`` turns it off).

Guarantee: without ``--oracle-profile`` it changes nothing (no Hypothesis settings touched, nothing
imported beyond pytest at load time); it only adds:

``--oracle-profile quick|thorough``
    Registers and loads the Hypothesis profile of that name: ``quick`` draws few groups (a fast CI
    job), ``thorough`` many (a nightly job).  :func:`assignment_oracle.testing.check_assignor` draws as
    many as the loaded profile says unless given ``max_examples``.
``oracle_counterexamples`` (a fixture)
    The folder (under the test's ``tmp_path``) where the failing scenario and answer files of the
    test's oracle checks are written; the failure message names them in its replay command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: The profiles ``--oracle-profile`` loads: Hypothesis settings by name.
PROFILES = {
    "quick": {"max_examples": 20},
    "thorough": {"max_examples": 1000},
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("assignment-oracle", "assignment-oracle's CI oracle (assignment_oracle.testing)")
    group.addoption(
        "--oracle-profile",
        choices=tuple(PROFILES),
        default=None,
        help=f"load this Hypothesis profile: quick ({PROFILES['quick']['max_examples']} groups per check, each played "
        f"over check_assignor's rounds) or thorough ({PROFILES['thorough']['max_examples']}); default: the "
        "Hypothesis settings as they are (100 groups unless set otherwise)",
    )


def register_profiles() -> None:
    """Register :data:`PROFILES` with Hypothesis (no deadline: the optimum of a group takes its time)."""
    from hypothesis import HealthCheck, settings

    for name, options in PROFILES.items():
        settings.register_profile(
            name, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], **options
        )


def pytest_configure(config: pytest.Config) -> None:
    profile = config.getoption("oracle_profile", default=None)
    if profile is not None:
        from hypothesis import settings

        register_profiles()
        settings.load_profile(profile)


def pytest_report_header(config: pytest.Config) -> str | None:
    profile = config.getoption("oracle_profile", default=None)
    return None if profile is None else f"assignment-oracle: Hypothesis profile {profile!r}"


@pytest.fixture
def oracle_counterexamples(tmp_path: Path):
    """The folder where this test's oracle checks write their counterexample files (scenario and answer)."""
    from assignment_oracle import testing

    folder = tmp_path / "oracle-counterexamples"
    folder.mkdir(exist_ok=True)
    token = testing.counterexample_folder.set(folder)
    try:
        yield folder
    finally:
        testing.counterexample_folder.reset(token)
