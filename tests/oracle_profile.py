"""How hard the property tests try: ``ORACLE_PROFILE=large`` multiplies every example count by 10.

The default keeps the whole suite at a few minutes on 2 cores (CI); the large
profile is for a maintainer's machine or a nightly job::

    ORACLE_PROFILE=large python -m pytest -q
"""

import os

_FACTOR = {"default": 1, "large": 10}


def scaled(examples: int) -> int:
    """``examples`` under the default profile, ten times more under ``large``."""
    profile = os.environ.get("ORACLE_PROFILE", "default")
    if profile not in _FACTOR:
        raise ValueError(f"ORACLE_PROFILE must be one of {', '.join(_FACTOR)}, got {profile!r}")
    return examples * _FACTOR[profile]
