import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# Shared helpers (brute force, strategies) live next to the tests.
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=True,
)
settings.load_profile("default")
