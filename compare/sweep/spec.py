"""What a sweep runs: generator families with parameter grids, seeds, assignors, oracle checks.

A spec is TOML or JSON (``docs/sweeps.md`` documents every field), validated
here once, with one-line errors naming the field
(:class:`problem.scenario_json.InputError`).  Two specs are bundled and can
be named instead of a file: ``quick`` (about a minute on 2 cores; the README
and CI run it) and ``full`` (the large study).

Example::

    name = "mine"
    seeds = 10                       # seeds 0..9 for every grid point (or a list)
    assignors = ["all", "peers"]     # "all" (the ports), "peers" (kafka-python's), names, external commands
    time_limit = 30                  # seconds per assignor call

    [checks]
    cpsat_sample = 0.1               # share of scenarios also solved by CP-SAT
    cpsat_time_limit = 30
    brute_force_limit = 4096         # enumerate when at most this many assignments

    [[families]]
    family = "random-subsets"        # a compare.scenarios.families family, or "churn"
    grid = { members = [5, 20], topics = [4], subscribe = [0.3, 0.7] }

A grid value that is a list is a grid axis; anything else is a fixed
parameter.  ``churn`` runs :func:`compare.scenarios.churn.random_history` (parameters
``members``, ``topics``, ``partitions``, ``rounds``, ``events_per_round``)
and emits one row per round.

Streams groups (KIP-1071) have two families of their own, judged by
:func:`compare.judge.streams.judge` and run with Kafka's Streams assignor in
both iteration orders (:data:`compare.scenarios.streams_churn.ASSIGNORS`,
whatever ``assignors`` says: the consumer assignors cannot take a Streams
group): ``streams`` (one rebalance,
:func:`compare.scenarios.streams_churn.random_scenario`: ``processes``,
``members``, ``subtopologies``, ``tasks``, ``standby_replicas``, ``tags``,
``previous``) and ``streams-churn`` (a history,
:func:`compare.scenarios.streams_churn.plan`: ``history`` and the same but
``previous``, plus ``steps``), one row per step.

Share groups (KIP-932) likewise: ``share`` (one rebalance,
:func:`compare.scenarios.share_churn.random_scenario`: ``members``,
``topics``, ``partitions``, ``heterogeneous``, ``previous``) and
``share-churn`` (a history, :func:`compare.scenarios.share_churn.plan`:
``history`` and the same but ``previous``, plus ``steps``), run with Kafka's
``SimpleAssignor`` in both iteration orders
(:data:`compare.scenarios.share_churn.ASSIGNORS`) and judged by
:func:`compare.judge.share.judge`.

Identity.  The spec's *hash* is the SHA-256 of its canonical JSON (every
field, sorted keys), so any change makes a new sweep; a scenario's id hashes
the sweep hash, the family, its parameters and the seed.  The same spec and
seed always give the same ids, which is what makes a rerun skip finished
scenarios and never write one twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from assignment_oracle.compare.scenarios.families import FAMILIES, get_family
from assignment_oracle.heuristics.registry import (
    ASSIGNORS,
    LIVE_PEERS,
    PEERS,
    UnknownAssignor,
    external_assignor,
    resolve_names,
)
from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.problem.scenario_json import InputError, load_json, read_input

__all__ = [
    "CHURN",
    "STREAMS",
    "STREAMS_CHURN",
    "STREAMS_FAMILIES",
    "SHARE",
    "SHARE_CHURN",
    "SHARE_FAMILIES",
    "SweepSpec",
    "GridPoint",
    "Checks",
    "read_spec",
    "spec_from_mapping",
    "bundled_specs",
    "scenario_id",
]

#: The family name that runs churn histories instead of single rebalances.
CHURN = "churn"
CHURN_PARAMETERS = ("members", "topics", "partitions", "rounds", "events_per_round")
#: The Streams group families (module docstring): one rebalance, and a history of rebalances.
STREAMS, STREAMS_CHURN = "streams", "streams-churn"
STREAMS_FAMILIES = (STREAMS, STREAMS_CHURN)
#: The share group families (module docstring): one rebalance, and a history of rebalances.
SHARE, SHARE_CHURN = "share", "share-churn"
SHARE_FAMILIES = (SHARE, SHARE_CHURN)


@dataclass(frozen=True)
class Checks:
    """Oracle cross-checks: the flow model always; CP-SAT on a sample; brute force on small cases."""

    cpsat_sample: float = 0.0
    cpsat_time_limit: float = 30.0
    brute_force_limit: int = 4096


@dataclass(frozen=True)
class GridPoint:
    """One family with one set of parameters; a scenario is a grid point and a seed."""

    family: str
    params: Mapping[str, Any]

    def key(self) -> str:
        return json.dumps({"family": self.family, "params": dict(self.params)}, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep spec (see the module docstring)."""

    name: str
    description: str
    points: tuple[GridPoint, ...]
    seeds: tuple[int, ...]
    assignors: tuple[str, ...]
    time_limit: float
    checks: Checks
    document: Mapping[str, Any]
    #: Assignors defined in the spec itself (external commands given as tables), by name.
    definitions: Mapping[str, Any] = field(default_factory=dict)

    def assignor(self, name: str):
        """What to run for ``name``: its definition in the spec, or the name (a registry or ``external:`` name)."""
        return self.definitions.get(name, name)

    @property
    def scenarios(self) -> int:
        return len(self.points) * len(self.seeds)

    @property
    def hash(self) -> str:
        """SHA-256 (hex, 16 digits) of the canonical spec: the sweep's identity."""
        canonical = json.dumps(self.document, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def task(self, index: int) -> tuple[GridPoint, int]:
        """The ``index``-th scenario (``0 <= index < scenarios``): seeds vary fastest."""
        point, seed = divmod(index, len(self.seeds))
        return self.points[point], self.seeds[seed]


def scenario_id(sweep_hash: str, point: GridPoint, seed: int) -> str:
    """Deterministic id of one scenario of one sweep."""
    text = f"{sweep_hash}|{point.key()}|{seed}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def bundled_specs() -> dict[str, Path]:
    """The bundled specs by name (``quick``, ``full``, ``soundness``, ``live``)."""
    folder = resources.files("assignment_oracle.compare.sweep") / "specs"
    return {Path(str(p)).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml")}


def read_spec(name_or_path: str | Path) -> SweepSpec:
    """Read a spec file (``.toml`` or ``.json``), or a bundled one by name."""
    path = Path(name_or_path)
    if not path.exists() and str(name_or_path) in bundled_specs():
        path = bundled_specs()[str(name_or_path)]
    source = str(name_or_path)
    if not path.exists() and not path.is_symlink():
        known = ", ".join(sorted(bundled_specs()))
        raise InputError(source, "", f"no such file, and not a bundled spec ({known})")
    data = read_input(path, source)  # at most the input cap (--max-input-bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(source, "", f"is not UTF-8 text (byte {err.start}: {err.reason})") from None
    if "\x00" in text:  # never in TOML or JSON text: UTF-16 or UTF-32
        raise InputError(source, "", f"is not UTF-8 text (a NUL byte at byte {text.index(chr(0))}: UTF-16 or UTF-32?)")
    if path.suffix == ".json":  # strict: a key twice, NaN, nesting past the parser's limit are one line
        return spec_from_mapping(load_json(text, source=source), source=source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(source, "", f"not valid TOML: {err}") from None
    except RecursionError:
        raise InputError(source, "", "is nested too deeply to be a sweep spec") from None
    return spec_from_mapping(data, source=source)


def spec_from_mapping(data: Any, *, source: str = "spec") -> SweepSpec:
    """Validate a spec document; every problem is an :class:`InputError` naming the field."""
    if not isinstance(data, dict):
        raise InputError(source, "", "a spec is a table (TOML) or an object (JSON)")
    allowed = {"name", "description", "seeds", "assignors", "time_limit", "checks", "families"}
    for key in data:
        if key not in allowed:
            raise InputError(source, key, f"unknown field (allowed: {', '.join(sorted(allowed))})")
    name = data.get("name", "sweep")
    if not isinstance(name, str) or not name:
        raise InputError(source, "name", "must be a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InputError(source, "description", "must be a string")
    seeds = _seeds(data.get("seeds", 1), source)
    assignors, definitions = _assignors(data.get("assignors", "all"), source)
    time_limit = _positive(data.get("time_limit", 60), source, "time_limit", maximum=MAX_TIME_LIMIT)
    checks = _checks(data.get("checks", {}), source)
    families = data.get("families")
    if not isinstance(families, list) or not families:
        raise InputError(source, "families", "must be a non-empty list of [[families]] tables")
    points: list[GridPoint] = []
    for i, entry in enumerate(families):
        points.extend(_grid(entry, source, f"families[{i}]"))
    if len({p.key() for p in points}) != len(points):
        raise InputError(source, "families", "two grid points are the same family with the same parameters")
    return SweepSpec(name, description, tuple(points), seeds, assignors, time_limit, checks, data, definitions)


#: Seeds per grid point, at most (a count, or a list of seeds from 0 to 2^63-1: the rows' int64 column).
MAX_SEEDS = 1_000_000


def _seeds(value: Any, source: str) -> tuple[int, ...]:
    if isinstance(value, bool):
        raise InputError(source, "seeds", "must be a count or a list of integers")
    if isinstance(value, int):
        if not 1 <= value <= MAX_SEEDS:
            raise InputError(source, "seeds", f"must be a count from 1 to {MAX_SEEDS:,}, got {_shown(value)}")
        return tuple(range(value))
    if (
        isinstance(value, list)
        and 0 < len(value) <= MAX_SEEDS
        and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**63 for s in value)
    ):
        if len(set(value)) != len(value):
            raise InputError(source, "seeds", "lists a seed twice")
        return tuple(value)
    raise InputError(
        source, "seeds", f"must be a count or a non-empty list of integers from 0 to 2^63-1 (at most {MAX_SEEDS:,})"
    )


_EXTERNAL_KEYS = {"name", "command", "shell", "guarantee", "timeout", "env"}


def _assignors(value: Any, source: str) -> tuple[tuple[str, ...], dict]:
    """Names (``all``, ``peers``, registry names, ``external:...``) or external tables; see docs/sweeps.md."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise InputError(source, "assignors", 'must be "all" or a non-empty list of names and external tables')
    names: list[str] = []
    definitions: dict[str, Any] = {}
    for i, entry in enumerate(value):
        where = f"assignors[{i}]"
        if isinstance(entry, dict):
            assignor = _external_table(entry, source, where)
            names.append(assignor.name)
            definitions[assignor.name] = assignor
        elif isinstance(entry, str):
            names.append(entry)
        else:
            raise InputError(source, where, "must be a name or an external assignor table {name, command, ...}")
    plain = [n for n in names if n not in definitions]
    try:
        resolve_names(plain)
    except (UnknownAssignor, ValueError) as err:
        raise InputError(source, "assignors", str(err)) from None
    expanded: list[str] = []
    for name in names:
        expanded.extend(resolve_names([name]) if name not in definitions else [name])
    if len(set(expanded)) != len(expanded):
        twice = next(n for n in expanded if expanded.count(n) > 1)
        raise InputError(source, "assignors", f"names assignor {twice!r} twice")
    return tuple(expanded), definitions


def _external_table(entry: dict, source: str, where: str):
    unknown = sorted(set(entry) - _EXTERNAL_KEYS)
    if unknown:
        raise InputError(
            source, f"{where}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(_EXTERNAL_KEYS))})"
        )
    name = entry.get("name")
    if (
        not isinstance(name, str)
        or not name.strip()
        or name in ("all", "peers", "live")
        or "," in name
        or name.startswith(("external:", "external-shell:"))
    ):
        raise InputError(
            source,
            f"{where}.name",
            "must be a non-empty name without commas (not all, peers, live, or an external: name)",
        )
    if name in ASSIGNORS or name in PEERS or name in LIVE_PEERS:
        raise InputError(source, f"{where}.name", f"{name!r} is a registered assignor; choose another name")
    command = entry.get("command")
    shell = entry.get("shell", False)
    if not isinstance(shell, bool):
        raise InputError(source, f"{where}.shell", "must be true or false")
    if isinstance(command, list):
        if not command or not all(isinstance(a, str) and a for a in command) or shell:
            raise InputError(
                source, f"{where}.command", "must be a non-empty list of non-empty strings (without shell = true)"
            )
    elif not isinstance(command, str) or not command.strip():
        raise InputError(source, f"{where}.command", "must be a command line or a list of arguments")
    env = entry.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise InputError(source, f"{where}.env", "must be a table of strings")
    timeout = _positive(entry.get("timeout", 60), source, f"{where}.timeout", maximum=math.inf)
    if timeout > MAX_TIME_LIMIT:
        raise InputError(
            source, f"{where}.timeout", f"must be at most {MAX_TIME_LIMIT:g} seconds, got {_shown(timeout)}"
        )
    guarantee = entry.get("guarantee", "valid")
    if not isinstance(guarantee, str):
        raise InputError(source, f"{where}.guarantee", "must be the name of a guarantee (a string)")
    if shell and isinstance(command, str) and command.startswith(("external:", "external-shell:")):
        raise InputError(source, f"{where}.command", "give the command itself with shell = true, not an external: name")
    try:
        return external_assignor(command, name=name, guarantee=guarantee, timeout=timeout, shell=shell, env=env)
    except ValueError as err:
        field_name = "guarantee" if "guarantee" in str(err) else "command"
        raise InputError(source, f"{where}.{field_name}", str(err)) from None


#: The largest count or limit a spec may give (seconds, scenarios, enumerated assignments).
SPEC_MAXIMUM = 10**9


def _positive(value: Any, source: str, field: str, *, integer: bool = False, maximum: float = SPEC_MAXIMUM) -> float:
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    finite = ok and (not isinstance(value, float) or math.isfinite(value))  # a huge int is not a float
    if isinstance(value, bool) or not finite or not 0 < value <= maximum:
        kind = "a positive integer" if integer else "a positive number"
        raise InputError(source, field, f"must be {kind} up to {maximum:g}, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _checks(value: Any, source: str) -> Checks:
    if not isinstance(value, dict):
        raise InputError(source, "checks", "must be a table")
    allowed = {"cpsat_sample", "cpsat_time_limit", "brute_force_limit"}
    for key in value:
        if key not in allowed:
            raise InputError(source, f"checks.{key}", f"unknown field (allowed: {', '.join(sorted(allowed))})")
    sample = value.get("cpsat_sample", 0.0)
    if isinstance(sample, bool) or not isinstance(sample, (int, float)) or not 0 <= sample <= 1:
        raise InputError(source, "checks.cpsat_sample", f"must be a share between 0 and 1, got {sample!r}")
    return Checks(
        float(sample),
        float(
            _positive(value.get("cpsat_time_limit", 30.0), source, "checks.cpsat_time_limit", maximum=MAX_TIME_LIMIT)
        ),
        int(_positive(value.get("brute_force_limit", 4096), source, "checks.brute_force_limit", integer=True)),
    )


def _grid(entry: Any, source: str, path: str) -> list[GridPoint]:
    if not isinstance(entry, dict):
        raise InputError(source, path, "must be a table with family and grid")
    for key in entry:
        if key not in ("family", "grid"):
            raise InputError(source, f"{path}.{key}", "unknown field (allowed: family, grid)")
    family = entry.get("family")
    if family != CHURN and family not in STREAMS_FAMILIES and family not in SHARE_FAMILIES:
        if not isinstance(family, str) or family not in FAMILIES:
            known = ", ".join(sorted(FAMILIES) + [CHURN, *STREAMS_FAMILIES, *SHARE_FAMILIES])
            raise InputError(source, f"{path}.family", f"unknown family {family!r} (known: {known})")
    grid = entry.get("grid", {})
    if not isinstance(grid, dict):
        raise InputError(source, f"{path}.grid", "must be a table of parameter -> value or list of values")
    axes = {k: (v if isinstance(v, list) else [v]) for k, v in grid.items()}
    for k, values in axes.items():
        if not values:
            raise InputError(source, f"{path}.grid.{k}", "an empty list gives no scenarios")
    points = []
    for combo in itertools.product(*axes.values()):
        params = dict(zip(axes, combo))
        _check_params(family, params, source, f"{path}.grid")
        points.append(GridPoint(family, params))
    return points


def _check_params(family: str, params: dict, source: str, path: str) -> None:
    """Validate once on the driver, so a bad grid is an error, not a sweep of error rows."""
    if family == CHURN:
        for key, value in params.items():
            if key not in CHURN_PARAMETERS:
                raise InputError(
                    source, f"{path}.{key}", f"unknown churn parameter (known: {', '.join(CHURN_PARAMETERS)})"
                )
            least = 0 if key == "rounds" else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InputError(source, f"{path}.{key}", f"must be an integer >= {least}, got {value!r}")
        return
    if family in STREAMS_FAMILIES:
        from assignment_oracle.compare.scenarios.streams_churn import plan, random_scenario

        try:
            if family == STREAMS:
                random_scenario(0, **params)
            else:
                history = params.get("history")
                plan(history, seed=0, **{k: v for k, v in params.items() if k != "history"})
        except (ValueError, TypeError) as err:
            raise InputError(source, path, f"{family}: {err}") from None
        return
    if family in SHARE_FAMILIES:
        from assignment_oracle.compare.scenarios import share_churn

        try:
            if family == SHARE:
                share_churn.random_scenario(0, **params)
            else:
                rest = {k: v for k, v in params.items() if k != "history"}
                share_churn.plan(params.get("history"), seed=0, **rest)
        except (ValueError, TypeError) as err:
            raise InputError(source, path, f"{family}: {err}") from None
        return
    try:
        get_family(family).parameters(params)
    except ValueError as err:
        raise InputError(source, path, str(err)) from None
