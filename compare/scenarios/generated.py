"""One generated scenario as a JSON document: what ``assignment-oracle generate`` writes.

The bundled generators, by the names a sweep spec gives them
(:mod:`compare.sweep.spec`): every consumer group family of
:mod:`compare.scenarios.families`, ``churn`` (a history of rebalances,
:func:`compare.scenarios.churn.random_history`, in the JSON form ``simulate``
reads), ``streams`` (a Streams group, KIP-1071,
:func:`compare.scenarios.streams_churn.random_scenario`) and ``share`` (a share
group, KIP-932, :func:`compare.scenarios.share_churn.random_scenario`).  The same family,
seed and parameters give the same document, so a test in any language can
ask for the same group again by its three values::

    document("random-subsets", 7, {"members": 5, "previous": "balanced"})

``streams-churn`` and ``share-churn`` are not here: their histories are played
by a sweep, and no command reads one from a file.
"""

from __future__ import annotations

from typing import Any, Mapping

from assignment_oracle.compare.scenarios import churn, families

__all__ = ["CHURN", "STREAMS", "SHARE", "GENERATORS", "CHURN_DEFAULTS", "document", "parameters", "catalogue"]

#: A churn history (``simulate`` reads it), the sweep's family name for it.
CHURN = "churn"
#: One Streams group rebalance, the sweep's family name for it.
STREAMS = "streams"
#: One share group rebalance, the sweep's family name for it.
SHARE = "share"
#: ``random_history``'s parameters and their defaults (its signature's).
CHURN_DEFAULTS: Mapping[str, int] = {"members": 3, "topics": 2, "partitions": 4, "rounds": 6, "events_per_round": 2}
#: Every name :func:`document` takes, consumer group families first.
GENERATORS: tuple[str, ...] = (*families.FAMILIES, CHURN, STREAMS, SHARE)


class UnknownGenerator(ValueError):
    """No generator by this name; the message lists the known ones."""

    def __init__(self, name: Any) -> None:
        super().__init__(f"unknown family {name!r} (known: {', '.join(GENERATORS)})")
        self.name = name


def parameters(name: str) -> Mapping[str, Any]:
    """The parameters generator ``name`` takes, with their defaults."""
    if name == CHURN:
        return dict(CHURN_DEFAULTS)
    if name == STREAMS:
        from assignment_oracle.compare.scenarios.streams_churn import DEFAULTS

        return {**DEFAULTS, "previous": False}
    if name == SHARE:
        from assignment_oracle.compare.scenarios.share_churn import DEFAULTS as SHARE_DEFAULTS

        return {**SHARE_DEFAULTS, "previous": False}
    if name in families.FAMILIES:
        return dict(families.FAMILIES[name].defaults)
    raise UnknownGenerator(name)


def _churn_history(seed: int, params: Mapping[str, Any]) -> churn.History:
    for key, value in params.items():
        if key not in CHURN_DEFAULTS:
            raise ValueError(f"churn: unknown parameter {key!r} (parameters: {', '.join(CHURN_DEFAULTS)})")
        least = 0 if key == "rounds" else 1
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= families.GROUP_MAXIMUM:
            raise ValueError(
                f"churn: {key} must be an integer from {least} to {families.GROUP_MAXIMUM:,}, got {value!r}"
            )
    return churn.random_history(seed, **params)


def document(name: str, seed: int, params: Mapping[str, Any] | None = None) -> dict:
    """The JSON document of generator ``name`` for ``seed`` and ``params``.

    A consumer group family gives a scenario (``solve``, ``check``,
    ``compare`` read it), ``churn`` a history (``simulate`` reads it),
    ``streams`` a Streams group scenario, ``share`` a share group scenario.  Deterministic: the same arguments
    give an equal document (byte-identical through
    :func:`problem.scenario_json.dumps`).

    Raises
    ------
    UnknownGenerator
        ``name`` is not a generator (the message lists them).
    ValueError
        An unknown parameter or a bad value, named in one line
        (``random-subsets: subscribe must be in (0, 1], got 2``).

    Examples
    --------
    >>> document("uniform", 1, {"members": 2, "topics": 1, "partitions": 3})["topics"]
    {'t0000': 3}
    """
    params = dict(params or {})
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if name == CHURN:
        return _churn_history(seed, params).to_mapping()
    if name == STREAMS:
        from assignment_oracle.compare.scenarios.streams_churn import random_scenario

        try:
            return random_scenario(seed, **params).to_mapping()
        except TypeError as err:  # a keyword random_scenario does not take
            raise ValueError(f"streams: {err}") from None
        except ValueError as err:
            raise ValueError(f"streams: {err}") from None
    if name == SHARE:
        from assignment_oracle.compare.scenarios.share_churn import random_scenario as share_scenario

        try:
            return share_scenario(seed, **params).to_mapping()
        except (TypeError, ValueError) as err:
            raise ValueError(f"share: {err}") from None
    if name not in families.FAMILIES:
        raise UnknownGenerator(name)
    return families.generate(name, seed, **params).to_mapping()


def catalogue() -> str:
    """Every generator with its parameters and defaults, one generator a line (``generate --list``)."""
    lines = []
    for name in GENERATORS:
        defaults = parameters(name)
        shown = " ".join(f"{k}={_shown(v)}" for k, v in sorted(defaults.items()))
        what = {
            CHURN: "a churn history (simulate reads it)",
            STREAMS: "a Streams group (KIP-1071)",
            SHARE: "a share group (KIP-932)",
        }.get(name) or families.FAMILIES[name].description
        lines.append(f"{name}: {what}\n    {shown}")
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    """A default as ``--param`` would take it: JSON (``null``, ``true``, ``[4, 8]``), strings bare."""
    import json

    if isinstance(value, str):
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value, separators=(",", ":"))
