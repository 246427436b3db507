"""The heuristic assignors (Range, RoundRobin, Sticky, CooperativeSticky, KIP-49 fair,
constrained sticky, KIP-315 stream-join sticky), one module each, arrive with
issue 3.  Each will be a pure ``assign(problem) -> Assignment`` over the shared
model in :mod:`problem`.
"""
