"""The tests' third opinion is the library's: :mod:`optimal.brute_force` (sweeps cross-check with it too)."""

from assignment_oracle.optimal.brute_force import (  # noqa: F401
    BruteOptimum,
    Enumeration,
    all_assignments,
    enumerate_assignments,
    is_optimal,
    lexicographic_min,
    optimum,
    previous_owners,
)
