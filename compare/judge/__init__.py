"""How good one assignment is, and how one assignor run is judged.

``check`` (the verdict against the optimum: validity, balance, stickiness,
per-topic spread, with the improving chain when one exists), ``balance``
(Kafka's local balance condition and the exact chain test), ``guarantees``
(what each assignor promises, checked against the oracle), ``evaluate``
(run an assignor, bounded in time, and judge it: one row), ``explain``
(what the assignor should have done).  Plain numbers about an assignment
live lower, in :mod:`assignment_oracle.problem.metrics`.
"""
