"""The errors users see: one small hierarchy, each message one line saying what went wrong.

::

    OracleError
    ├── InputError            bad input: "source: field: problem"                    exit 2
    ├── MissingExtra          a part of the install is not there: which extra to add  exit 2
    ├── MissingRuntime        the machine lacks a runtime (Java for Spark)            exit 2
    ├── SparkFailed           a sweep's Spark job or session failed (its log named)   exit 8
    ├── WriteFailed           an output could not be written whole (a full disk)     exit 74
    ├── SolverError           an exact model failed (a bug or a limit, never the user) exit 5
    └── AssignorError         an assignor delivered no assignment
        ├── UnknownAssignor       no assignor by that name                            exit 2
        ├── AssignorDidNotFinish  its own loop bound, or the caller's time limit      exit 6 (row status timeout)
        └── AssignorFailed        it raised, or returned something else               exit 7 (row status error)

Library code raises these and nothing else for the conditions above; the
command line prints ``str(error)`` and exits with ``error.exit_code``; a
sweep or ``compare`` row records an assignor's error as its status and
message.  What an assignor itself raised (a peer's ``KeyError``, an external
command's failure) is never shown as a traceback: the runner
(:func:`assignment_oracle.heuristics.run`) turns it into
:class:`AssignorFailed` with the message ``"<ExceptionType>: <text>"``.
"""

from __future__ import annotations

from typing import Iterable

__all__ = [
    "OracleError",
    "InputError",
    "MissingExtra",
    "MissingRuntime",
    "SolverError",
    "SparkFailed",
    "WriteFailed",
    "AssignorError",
    "UnknownAssignor",
    "AssignorDidNotFinish",
    "AssignorFailed",
    "UnsupportedRequest",
]


class OracleError(Exception):
    """Base of every error this project reports to users; ``str(error)`` is one line."""

    exit_code = 1


class InputError(OracleError, ValueError):
    """Bad input: ``source: field: problem`` on one line."""

    exit_code = 2

    def __init__(self, source: str, field: str, problem: str):
        self.source, self.field, self.problem = source, field, problem
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {problem}")


class MissingExtra(OracleError, ImportError):
    """Something needs an optional extra of the install that is not there."""

    exit_code = 2

    def __init__(self, extra: str, needed_by: str, module: str) -> None:
        self.extra, self.needed_by, self.module = extra, needed_by, module
        super().__init__(f"{needed_by} needs the '{extra}' extra ({module} is not installed): {install_hint(extra)}")


def install_hint(extra: str) -> str:
    """The command that adds ``extra`` to this install.  The distribution is on no package index, so the
    command names what it was installed from (pip's ``direct_url.json``: the checkout, editable or not, or the
    wheel), else says where a path goes."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        recorded = json.loads(metadata.distribution("assignment-oracle").read_text("direct_url.json") or "null")
        url = urlparse(recorded["url"])
        editable = bool(recorded.get("dir_info", {}).get("editable"))
    except (metadata.PackageNotFoundError, ValueError, TypeError, KeyError, AttributeError, OSError):
        url, editable = None, False
    if url is not None and url.scheme == "file" and url.path:
        return f"pip install {'-e ' if editable else ''}'{unquote(url.path)}[{extra}]'"
    return (
        f"pip install 'PATH[{extra}]' (PATH: the checkout or the wheel assignment-oracle was installed from; "
        "it is on no package index)"
    )


class MissingRuntime(OracleError):
    """Something the machine must provide outside Python is not there (Java for Spark in local mode)."""

    exit_code = 2


class UnsupportedRequest(OracleError, ValueError):
    """A request (objective tiers, balance definition, constraints, method) that cannot be answered
    exactly as asked: refused in one line naming the combination, never answered for another objective."""

    exit_code = 2


class SparkFailed(OracleError, RuntimeError):
    """Spark failed under a sweep (a job, the session, the JVM): the first line of its error and where
    its log is, instead of py4j's and Java's traces."""

    exit_code = 8


class WriteFailed(OracleError):
    """An output file (or standard output) could not be written whole: the disk is full, an I/O error,
    a closed descriptor.  ``where: reason (what became of it)`` on one line, shown after ``write failed:``;
    exit 74, sysexits.h's
    ``EX_IOERR``, of its own for every command (a path that cannot be created at all is bad input,
    :class:`InputError`).  An output file is left as it was (outputs are written in one rename)."""

    exit_code = 74

    def __init__(self, where: str, reason: str, outcome: str = "") -> None:
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}" + (f" ({outcome})" if outcome else ""))


class SolverError(OracleError, RuntimeError):
    """A solver failed in a way that is a bug or a limit, never a user error."""

    exit_code = 5


class AssignorError(OracleError, RuntimeError):
    """An assignor delivered no assignment."""

    exit_code = 7


class UnknownAssignor(AssignorError, LookupError):
    """No assignor is registered under this name."""

    exit_code = 2

    def __init__(self, name: object, known: Iterable[str] = (), *, message: str | None = None) -> None:
        self.name = name
        known = ", ".join(known)
        if message is None:
            message = f"unknown assignor {name!r}" + (f" (known: {known}, or external:COMMAND)" if known else "")
        super().__init__(message)


class AssignorOfAnotherKind(UnknownAssignor):
    """The assignor is registered, but for another kind of group than the scenario's
    (``heuristics.registry.get_assignor(name, kind=...)``)."""

    exit_code = 2


class AssignorDidNotFinish(AssignorError):
    """A heuristic's loop did not terminate within its bound, or the run hit its time limit (never hung)."""

    exit_code = 6


class AssignorFailed(AssignorError):
    """The assignor raised, or returned something that is not an assignment.

    The message is ``"<ExceptionType>: <text>"`` (what the assignor raised),
    the same whether it ran in this process or in a bounded child.
    Failures of the harness itself are not this exception: they propagate.
    """
