"""Provably optimal Kafka partition assignment, and a judge of assignors against the optimum.

The API in one import; every name is loaded on first use, so ``import assignment_oracle`` (and the
``assignment-oracle`` command's ``--help``) imports nothing of the library::

    import assignment_oracle as ao

    problem = ao.load_scenario({"topics": {"t": 3}, "members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}})
    solution = ao.solve(problem)                       # the optimum, with its proof
    verdict = ao.judge(problem, ao.load_assignment({"a": {"t": [0, 1, 2]}}, problem))
    print(verdict.text())                              # a gap at the balance tier

``solve``, ``Request``
    The optimum of a consumer or Streams group (:mod:`assignment_oracle.optimal`).
``judge``, ``Verdict``
    An assignment against the optimum, tier by tier, with the findings (:mod:`assignment_oracle.compare.judge`).
``load_scenario``, ``load_assignment``
    A scenario or an assignment from a path, ``"-"``, JSON text or a dict (:mod:`assignment_oracle.problem.load`).
``assignment_oracle.strategies``
    Public Hypothesis strategies for every kind of group.
``assignment_oracle.testing``
    The CI oracle: ``assert_optimal``, ``check_assignor`` and the rest (docs/testing.md).

The ``assignment-oracle`` command line is :mod:`assignment_oracle.cli`.
"""

import importlib as _importlib

#: Public name -> (module, attribute); imported on first access (module ``__getattr__``, PEP 562).
_EXPORTS = {
    "solve": ("assignment_oracle.optimal", "solve"),
    "Request": ("assignment_oracle.optimal", "Request"),
    "judge": ("assignment_oracle.compare.judge", "judge"),
    "Verdict": ("assignment_oracle.compare.judge", "Verdict"),
    "load_scenario": ("assignment_oracle.problem.load", "load_scenario"),
    "load_assignment": ("assignment_oracle.problem.load", "load_assignment"),
}
#: Submodules reachable as attributes of the package once it is imported.
_SUBMODULES = ("strategies", "testing")

__all__ = [*_EXPORTS, *_SUBMODULES]


def __getattr__(name: str) -> object:
    """The public name ``name``, imported now and kept (a second access costs a dict lookup)."""
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        value = getattr(_importlib.import_module(module), attribute)
    elif name in _SUBMODULES:
        value = _importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names and the submodules imported so far (helpers, ``_``-prefixed, left out)."""
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_") or n.startswith("__"))})
