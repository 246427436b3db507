"""How good one assignment is, and how one assignor run is judged.

:func:`judge` (:mod:`compare.judge.front`) is the one front door, for every kind of group: it returns
the one :class:`Verdict` (:mod:`compare.judge.verdict`: validity, each tier beside the optimum's, the
findings, the guarantees).  Behind it, one module per kind (``consumer``, ``streams``) and one per family
of findings (``balance``: Kafka's local balance condition and the improving chain; ``co_partition``,
``weighted``, ``moves``: the optima those are judged against), ``guarantees`` (what each assignor
promises), ``evaluate`` (run an assignor, bounded in time, and judge it: one row), ``explain`` (what the
assignor should have done).  Plain numbers about an assignment live lower, in
:mod:`assignment_oracle.problem.metrics`.
"""

from assignment_oracle.compare.judge.front import KINDS, Kind, judge, kind_of
from assignment_oracle.compare.judge.verdict import FAIL_ON, Finding, TierLine, Verdict

__all__ = ["FAIL_ON", "KINDS", "Finding", "Kind", "TierLine", "Verdict", "judge", "kind_of"]
