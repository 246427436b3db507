"""The optional parts of the install (``pyproject.toml``'s extras), checked before a command uses one.

The core install (``pip install PATH``, a checkout or its wheel) is the library and the
``solve``, ``check``, ``assign``, ``compare``, ``explain``, ``simulate``,
``bugs`` and ``demo`` commands.  Sweeps need the ``spark`` extra, reports the
``report`` extra, the ``kafka-python:*`` peers the ``kafka-python`` extra,
the live ``librdkafka:*`` peers the ``librdkafka`` extra, ``capture`` the
``capture`` extra (kafka-python 3.0);
``all`` is every one of them.  :func:`require` turns a missing one into
:class:`MissingExtra`, whose message is the one line a user sees.
"""

from __future__ import annotations

from importlib.util import find_spec
from types import MappingProxyType
from typing import Mapping

from assignment_oracle.problem.errors import MissingExtra

__all__ = ["EXTRAS", "MissingExtra", "require"]

#: Extra -> the import names it provides that the code uses (keep in step with pyproject.toml).
EXTRAS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "spark": ("pyspark", "pyarrow", "pandas", "tqdm"),
        "report": ("matplotlib", "pandas", "pyarrow", "nbformat", "nbclient", "nbconvert", "ipykernel"),
        "kafka-python": ("kafka",),
        "librdkafka": ("confluent_kafka",),
        "aiokafka": ("aiokafka",),
        "faust": ("faust",),
        "capture": ("kafka",),
    }
)


def require(extra: str, needed_by: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` can be imported."""
    for module in EXTRAS[extra]:
        if find_spec(module) is None:
            raise MissingExtra(extra, needed_by, module)
