"""Assignors written in any language, run as a command over a JSON protocol.

Guarantee: none of its own.  An external assignor claims what its author
says (``guarantee``, default ``"valid"``: a valid assignment; declared with
``--guarantee G`` beside it on ``compare`` and ``simulate``, ``guarantee =``
in a sweep spec, ``external_assignor(..., guarantee=)`` from Python); this
module only guarantees that whatever the command does is *reported*, never
crashes the caller and is never taken for a valid result by mistake.
``assignment-oracle test-assignor external:COMMAND`` runs the CI oracle's
battery on it (many groups, several rounds, the first failure shrunk); each
call starts the command afresh (the protocol has no persistent mode).

The protocol, once per rebalance (``docs/external.md`` has complete
examples in Python, shell and Java):

1. The command is started with no shell (``argv``, split like a POSIX shell
   would split it, by :func:`shlex.split`), unless the user asks for one
   (``external-shell:...``, or ``shell=True``).  Nothing from the scenario
   is ever put on its command line.
2. Its stdin receives the scenario as this project's scenario JSON
   (``docs/formats.md``): topics with partition counts, members with their
   subscriptions, owned partitions and the generation of those claims,
   racks.  In a multi-round simulation each round's scenario carries the
   previous round's result as owned partitions with the next generation, as
   Kafka's group protocol delivers them to the leader.  Then stdin closes.
3. It writes the assignment to stdout, in the format ``assign`` and
   ``solve`` write: ``{"assignment": {member: {topic: [partitions]}}}``
   (other keys are ignored; a member left out gets nothing), and exits 0.

What is checked, and how each failure is reported (:class:`ExternalAssignorError`,
a row with status ``error`` whose message says what was wrong and quotes the
first lines of the command's stderr):

* the command cannot be started (not found, not executable);
* it exits non-zero, or is killed by a signal;
* stdout is empty, not JSON, truncated JSON, or JSON without an
  ``assignment`` object of objects of integer lists;
* the assignment names a member that is not in the group, a topic that does
  not exist, or a partition number outside its topic.

It writes more than the cap (:data:`DEFAULT_MAX_OUTPUT`, 64 MiB, to stdout
or to stderr; ``--max-output MIB`` raises it): the process group is killed
and the run fails in one line; memory stays bounded.

It runs longer than ``timeout`` seconds: the process group is killed and
the result is a ``timeout`` (:class:`~assignment_oracle.problem.errors.AssignorDidNotFinish`).
Everything else (a partition assigned twice, one left out, one given to a
member not subscribed to its topic) is an assignment the oracle judges:
an ``invalid`` result, with its violations.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.problem.errors import AssignorDidNotFinish, MissingExtra, MissingRuntime
from assignment_oracle.problem.model import Assignment, Problem, TopicPartition

__all__ = [
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_TIMEOUT",
    "MAX_OUTPUT_VARIABLE",
    "PREFIXES",
    "ExternalAssignorError",
    "ExternalCommand",
    "default_max_output",
    "kill_group",
    "mib",
    "on_path",
    "own_group_dying_with_parent",
    "parse_external",
    "scope_dying_with_parent",
    "scoped",
    "read_answer",
    "short_display",
    "stderr_excerpt",
]

#: Seconds an external command may take per rebalance unless told otherwise.
DEFAULT_TIMEOUT = 60.0
#: Name prefixes: ``external:CMD ARGS`` (no shell), ``external-shell:CMD`` (run by ``/bin/sh -c``).
PREFIXES = ("external:", "external-shell:")
#: How many lines of the command's stderr an error quotes.
STDERR_LINES = 3
#: Bytes an external command may write to stdout, and to stderr, unless told otherwise: 64 MiB, eight
#: times the answer for Kafka's 1,000,000-partition stress test.
DEFAULT_MAX_OUTPUT = 64 * 2**20
#: The environment variable ``--max-output`` sets (MiB), read by every external command in this process
#: and in the processes it starts.
MAX_OUTPUT_VARIABLE = "ASSIGNMENT_ORACLE_MAX_OUTPUT"


class ExternalAssignorError(RuntimeError):
    """The command failed or answered something that is not an assignment of this group (one line)."""


@dataclass(frozen=True)
class ExternalCommand:
    """``ExternalCommand(argv)(problem) -> Assignment``: one protocol exchange (see the module docstring).

    ``argv``: the program and its arguments (``shell=False``), or a single
    shell command line (``shell=True``).  ``env``: extra environment
    variables for the command.  ``max_output``: the cap on each of its
    stdout and stderr, in bytes (default :func:`default_max_output`).
    """

    argv: tuple[str, ...]
    shell: bool = False
    timeout: float = DEFAULT_TIMEOUT
    env: tuple[tuple[str, str], ...] = field(default=())
    #: Bytes stdout and stderr may each hold (``None``: :func:`default_max_output`).
    max_output: int | None = None
    #: Also send the group's order as lists, ``"join_order"`` (member ids) and ``"topic_order"`` (topic
    #: names): for this project's own adapters, whose language reorders object keys (JavaScript puts
    #: integer-like keys first); never for a user's command (the scenario format has no such keys).
    orders: bool = False

    def __post_init__(self) -> None:
        if not self.argv or not all(isinstance(a, str) and a for a in self.argv):
            raise ValueError("an external assignor needs a command (a non-empty program name)")
        if self.shell and len(self.argv) != 1:
            raise ValueError("with shell=True the command is one shell command line")
        if not (0 < self.timeout <= MAX_TIME_LIMIT):
            raise ValueError(
                f"timeout must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {self.timeout!r}"
            )

    @property
    def display(self) -> str:
        return self.argv[0] if self.shell else shlex.join(self.argv)

    def __call__(self, problem: Problem) -> Assignment:
        # The scenario in its own order (members in the group's join order, topics in the scenario's order):
        # the order a Kafka client's leader sees them in, which some assignors' answers depend on.
        document = problem.to_mapping()
        if self.orders:
            document["join_order"], document["topic_order"] = list(problem.join_order), list(problem.topic_listing)
        payload = orjson.dumps(document) + b"\n"
        env = {**os.environ, **dict(self.env)} if self.env else None
        argv = ["/bin/sh", "-c", self.argv[0]] if self.shell else list(self.argv)
        command = scoped(argv)  # nothing it starts outlives it (a setsid daemon included)
        try:
            if "\0" in "".join(argv):
                raise ValueError("embedded null byte")
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                preexec_fn=scope_dying_with_parent if command is not argv else own_group_dying_with_parent,
            )
        except (OSError, ValueError) as err:  # not found, not executable, a NUL byte in an argument
            raise ExternalAssignorError(
                f"cannot run {short_display(self.display)}: {getattr(err, 'strerror', None) or err}"
            ) from None
        try:
            stdout, stderr = self._exchange(process, payload)
        except BaseException:  # our timeout, a caller's deadline (SIGALRM), an interrupt: leave nothing running
            kill_group(process)
            raise
        kill_group(process)  # background processes it left behind
        reason = cannot_run(stderr) if process.returncode == 127 else None
        if reason is not None:  # the scope could not start it: not found, not executable
            raise ExternalAssignorError(f"cannot run {short_display(self.display)}: {reason}")
        if process.returncode != 0:
            how = (
                f"killed by signal {-process.returncode}"
                if process.returncode < 0
                else f"exited with status {process.returncode}"
            )
            raise ExternalAssignorError(f"{how} ({short_display(self.display)}){stderr_excerpt(stderr)}")
        return read_answer(stdout, problem, self.display, stderr)

    def _exchange(self, process: subprocess.Popen, payload: bytes) -> tuple[bytes, bytes]:
        """Send the scenario, read the answer and stderr: until EOF, or shortly after the command exits.

        A background process it started may hold stdout open: once the
        command has exited, waiting a second more is enough.  Each stream is
        capped at :attr:`output_cap` bytes: past it the command is stopped
        and the run fails in one line (memory stays bounded whatever it
        writes).
        """
        deadline = time.monotonic() + self.timeout
        cap = self.output_cap
        received = {process.stdout: bytearray(), process.stderr: bytearray()}
        pending = memoryview(payload)
        exited = killed = None
        with selectors.DefaultSelector() as selector:
            for stream in received:
                selector.register(stream, selectors.EVENT_READ)
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE)
            while selector.get_map():
                now = time.monotonic()
                if now >= deadline:
                    raise AssignorDidNotFinish(f"gave no answer in {self.timeout:g} s ({short_display(self.display)})")
                if process.poll() is not None:
                    exited = exited or now
                    if killed is None and now - exited > EXIT_GRACE:
                        kill_group(process, drain=False, reap=False)  # a background child holding the pipes
                        killed = now
                    elif killed is not None and now - killed > EXIT_GRACE:
                        raise ExternalAssignorError(
                            f"exited, but a process it started keeps its stdout open ({short_display(self.display)})"
                        )
                for key, _ in selector.select(timeout=min(0.25, deadline - now)):
                    stream = key.fileobj
                    if stream is process.stdin:
                        try:
                            pending = pending[os.write(stream.fileno(), pending[:65536]) :]
                        except (BrokenPipeError, ConnectionResetError):
                            pending = pending[:0]  # it stopped reading: its answer (or failure) says why
                        if not pending:
                            selector.unregister(stream)
                            stream.close()
                            process.stdin = None  # sent and closed: communicate() must not flush it again
                        continue
                    chunk = os.read(stream.fileno(), 1 << 20)
                    if not chunk:
                        selector.unregister(stream)
                        continue
                    received[stream] += chunk
                    if len(received[stream]) > cap:
                        which = "stdout" if stream is process.stdout else "stderr"
                        raise ExternalAssignorError(
                            f"wrote more than {mib(cap)} to {which} ({short_display(self.display)}): the cap on an "
                            "external assignor's output; raise it with --max-output MIB "
                            f"(or {MAX_OUTPUT_VARIABLE})"
                        )
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssignorDidNotFinish(
                f"gave no answer in {self.timeout:g} s ({short_display(self.display)})"
            ) from None
        return bytes(received[process.stdout]), bytes(received[process.stderr])

    @property
    def output_cap(self) -> int:
        """Bytes each of stdout and stderr may hold: ``max_output``, else :func:`default_max_output`."""
        return self.max_output if self.max_output is not None else default_max_output()


def default_max_output() -> int:
    """The cap on an external command's stdout and on its stderr, in bytes: ``$ASSIGNMENT_ORACLE_MAX_OUTPUT``
    MiB (what ``--max-output`` sets, for this process and its children), else :data:`DEFAULT_MAX_OUTPUT`."""
    text = os.environ.get(MAX_OUTPUT_VARIABLE)
    try:
        mib = float(text) if text else None
    except ValueError:
        mib = None
    return int(mib * 2**20) if mib is not None and 0 < mib <= 1 << 20 else DEFAULT_MAX_OUTPUT


def mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


#: Seconds the answer may still arrive after the command itself exited (a background child holding stdout).
EXIT_GRACE = 1.0


def _load_prctl():
    """libc's ``prctl`` on Linux (looked up here, not in the forked child), else ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1


def on_path(program: str, needed_by: str, what: str, install: str) -> str:
    """``program``'s path, or :class:`~assignment_oracle.problem.errors.MissingRuntime` in one line saying
    what needs it, what it is and how to install it (the Java and Node peers' runtimes)."""
    path = shutil.which(program)
    if path is None:
        raise MissingRuntime(
            f"{needed_by} needs {program!r} ({what}) on PATH: not found (on Debian or Ubuntu: {install})"
        )
    return path


def peer_cache_root(runtime: str) -> Path:
    """``$XDG_CACHE_HOME/assignment-oracle/RUNTIME`` (else ``~/.cache/...``): where the Node and Go peers'
    libraries are installed by ``assignment-oracle install-peers RUNTIME``."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "assignment-oracle" / runtime


class PeerLibrariesNotInstalled(MissingExtra):
    """A runtime's peer libraries are not in the cache: one line naming what needs them and the install
    command (exit 2).  Each runtime's module subclasses it with its libraries and command."""

    extra = ""  # the runtime's install step (``node``, ``go``)
    libraries = ""  # as named in the message (``kafkajs and kafka-node``)
    verb = "installed"
    command = ""
    peers = "each of these peers"  # what needs them, when no caller is named

    def __init__(self, needed_by: str = "", where: str = "") -> None:
        self.needed_by = needed_by or self.peers
        self.module, self.where = self.libraries.replace(" and ", ", "), where
        ImportError.__init__(
            self,
            f"{self.needed_by} needs {self.libraries} {self.verb} by this project (not in {where or 'its cache'}): "
            f"{self.command}",
        )

    def __reduce__(self):
        return (type(self), (self.needed_by, self.where))


def joined_versions(libraries, version) -> str | None:
    """``"a 1.0, b 2.0"`` from ``version(name)`` of each library, or ``None`` unless all are installed."""
    found = [(name, version(name)) for name in libraries]
    return ", ".join(f"{name} {v}" for name, v in found) if all(v for _, v in found) else None


def peer_install_folder(runtime: str, shipped, cache: Path | None = None) -> Path:
    """Where ``runtime``'s peer libraries built from the ``shipped`` files live: ``<cache>/<key>``.

    ``cache`` defaults to :func:`peer_cache_root`; the key is the first 16 hex digits of the SHA-256 of
    each shipped file's bytes followed by a NUL, so the same files as shipped always name the same
    folder and any change to one names a new one.
    """
    digest = hashlib.sha256()
    for path in shipped:
        digest.update(path.read_bytes() + b"\0")
    return (cache if cache is not None else peer_cache_root(runtime)) / digest.hexdigest()[:16]


def installed_library_version(library: str, libraries, runtime: str, record: Path | None, key: str) -> str | None:
    """The installed version of one of a runtime's peer ``libraries``: ``key`` of the JSON object in ``record``.

    Raises ``ValueError`` naming the known libraries when ``library`` is not one of them (before reading
    anything); ``None`` when nothing is installed (``record`` is ``None``) or the record cannot be read.
    """
    if library not in libraries:
        raise ValueError(f"unknown {runtime} library {library!r} (known: {', '.join(libraries)})")
    if record is None:
        return None
    try:
        return json.loads(record.read_text("utf-8")).get(key)
    except (OSError, ValueError):
        return None


def install_peers_main(step) -> int:
    """Run one ``install-peers`` step for the command line; its exit status.

    ``step()`` does the work and returns the line to print on success (exit 0).  A missing runtime
    prints ``error: ...`` on stderr and exits with its own code (2); a failed download, build or
    install (``RuntimeError``, ``CalledProcessError``) prints the same way and exits 1.
    """
    try:
        line = step()
    except MissingRuntime as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    except (RuntimeError, subprocess.CalledProcessError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(line)
    return 0


#: The scope an external assignor runs in (Linux): a small Python process between the caller and the
#: command.  It is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): whatever the command starts
#: stays below it, a daemon that double-forks and calls ``setsid`` included (an orphan is re-parented to
#: the nearest subreaper, not to init).  When the command exits, or when the caller ends the scope
#: (SIGTERM: a deadline, an interrupt; or the caller's own death, through ``PR_SET_PDEATHSIG``), it kills
#: every process still below it, reaps them, and exits as the command did (the same status, or the same
#: signal).  A command that cannot be started is reported on stderr after :data:`_CANNOT_RUN`, exit 127.
_SCOPE = r"""
import _ctypes, os, signal, sys  # _ctypes, not ctypes: a start of 40 ms, not 70
prctl = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")
_ctypes.call_function(prctl, (36, 1, 0, 0, 0))  # PR_SET_CHILD_SUBREAPER
me = os.getpid()
def below():
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == me:
                found.append(int(name))
    return found
def end():
    while True:
        children = below()
        if not children:
            break
        for pid in children:  # their own children come up to this process as they die
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    break
            except ChildProcessError:
                break
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
def stopped(signum, frame):
    end()
    os._exit(128 + signum)
signal.signal(signal.SIGTERM, stopped)
report_r, report_w = os.pipe()
command = os.fork()
if command == 0:
    try:
        os.close(report_r)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _ctypes.call_function(prctl, (1, int(signal.SIGKILL), 0, 0, 0))  # PR_SET_PDEATHSIG: dies with its scope
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as err:
        os.write(report_w, (err.strerror or str(err)).encode())
    os._exit(127)
os.close(report_w)
failed = os.read(report_r, 1024)
os.close(report_r)
for fd in (0, 1):  # the command's pipes stay the command's: its stdin and stdout end with it
    os.close(fd)
if failed:
    os.write(2, b"\0assignment-oracle: cannot run: " + failed + b"\n")
status = 0
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if pid == command:
        break
end()
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(me, os.WTERMSIG(status))
os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
"""
#: What the scope writes before the reason a command could not be started (then exits 127).
_CANNOT_RUN = "\x00assignment-oracle: cannot run: "


def scoped(argv: list[str]) -> list[str]:
    """``argv`` run inside the scope (:data:`_SCOPE`) on Linux, so that nothing it starts outlives it;
    elsewhere ``argv`` itself (its process group is all that is killed)."""
    if not sys.platform.startswith("linux") or _PRCTL is None:
        return argv
    return [sys.executable, "-I", "-S", "-c", _SCOPE, *argv]


def cannot_run(stderr: bytes) -> str | None:
    """The reason the scope could not start its command (from the command's stderr), or ``None``."""
    marker = _CANNOT_RUN.encode()
    if stderr.startswith(marker):
        return stderr[len(marker) :].decode("utf-8", "replace").strip()
    return None


def scope_dying_with_parent() -> None:
    """In the scope's process before exec: its own session, and SIGTERM when the caller dies (the scope
    then ends everything below it; :data:`_SCOPE`)."""
    os.setsid()
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGTERM))


def own_group_dying_with_parent() -> None:
    """In the child before exec: its own process group (killed as one), and SIGKILL if our process dies.

    The second part matters when the caller runs us in a forked child that
    is itself killed at a deadline (:mod:`assignment_oracle.heuristics.runner`).
    """
    os.setsid()
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def kill_group(process: subprocess.Popen, *, drain: bool = True, reap: bool = True) -> None:
    """End a scope that still runs (SIGTERM: it kills everything below it, :data:`_SCOPE`), then SIGKILL
    the command's process group; reap it without waiting on pipes a stray process may hold."""
    if isinstance(process.args, list) and process.args[:4] == [sys.executable, "-I", "-S", "-c"]:
        try:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGTERM)
                process.wait(timeout=EXIT_GRACE)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if not reap:
        return
    if drain and process.returncode is None:
        try:
            process.communicate(timeout=EXIT_GRACE)
            return
        except subprocess.TimeoutExpired:
            pass
    if process.returncode is None:
        for pipe in (process.stdin, process.stdout, process.stderr):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        process.wait()


def short_display(display: str, width: int = 80) -> str:
    text = repr(display)
    return text if len(text) <= width else text[: width - 4] + "...'"


def stderr_excerpt(stderr: bytes) -> str:
    """``; stderr (whole in FILE): <first lines>``: all of it kept in a file, named first (a row's
    message is cut at 300 characters), then its first lines quoted."""
    lines = [line.strip()[:200] for line in stderr[:65536].decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return ""
    kept = keep_stderr(stderr)
    return f"; stderr{f' (whole in {kept})' if kept else ''}: {' | '.join(lines[:STDERR_LINES])}"


def keep_stderr(stderr: bytes) -> Path | None:
    """A failed command's whole stderr, kept in ``$TMPDIR/assignment-oracle/stderr-<hash>.txt`` (the same
    text, the same file); ``None`` when it cannot be written (the quoted lines still say what went wrong)."""
    folder = Path(tempfile.gettempdir()) / "assignment-oracle"
    target = folder / f"stderr-{hashlib.sha256(stderr).hexdigest()[:16]}.txt"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if not target.exists():
            partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            partial.write_bytes(stderr)
            os.replace(partial, target)
    except OSError:
        return None
    return target


def _unique_keys(pairs: list) -> dict:
    """``json.loads`` hook: a key twice in one object is an error (which of the two would count?)."""
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


class _DuplicateKey(ValueError):
    pass


def read_answer(stdout: bytes, problem: Problem, display: str = "the command", stderr: bytes = b"") -> Assignment:
    """The assignment in a command's stdout, checked against ``problem`` (see the module docstring)."""

    def fail(what: str) -> ExternalAssignorError:
        return ExternalAssignorError(f"{what} ({short_display(display)}){stderr_excerpt(stderr)}")

    text = stdout.decode("utf-8", "replace")
    if not text.strip():
        raise fail('wrote nothing on stdout (expected {"assignment": {member: {topic: [partitions]}}})')
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        start = text.strip()[:60].replace("\n", " ")
        raise fail(
            f"stdout is not JSON ({err.msg} at line {err.lineno} column {err.colno}; it starts {start!r})"
        ) from None
    except _DuplicateKey as err:
        raise fail(f"stdout names {err.args[0]!r} twice in one JSON object") from None
    except (ValueError, RecursionError) as err:  # numbers too long to convert, nesting too deep
        raise fail(f"stdout is not usable JSON ({type(err).__name__}: {str(err)[:80]})") from None
    if not isinstance(document, dict) or not isinstance(document.get("assignment"), dict):
        raise fail('stdout is JSON but has no "assignment" object')
    members = set(problem.member_ids)
    sizes = {t.name: t.partitions for t in problem.topics}
    partitions: dict[str, list[TopicPartition]] = {}
    for member, topics in document["assignment"].items():
        if member not in members:
            raise fail(f"assignment names member {member!r}, who is not in the group")
        if not isinstance(topics, dict):
            raise fail(f"assignment.{member} is not an object of topic -> partitions")
        owned = partitions.setdefault(member, [])
        for topic, numbers in topics.items():
            if topic not in sizes:
                raise fail(f"assignment.{member} names topic {topic!r}, which does not exist")
            if not isinstance(numbers, list) or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in numbers
            ):
                raise fail(f"assignment.{member}.{topic} is not a list of partition numbers")
            for p in numbers:
                if not 0 <= p < sizes[topic]:
                    raise fail(
                        f"assignment.{member}.{topic} has partition {p}, which does not exist "
                        f"({topic} has {sizes[topic]})"
                    )
                owned.append(TopicPartition(topic, p))
    return Assignment.from_partitions(partitions, problem.member_ids)


def parse_external(name: str) -> ExternalCommand:
    """The command an ``external:CMD ARGS`` or ``external-shell:CMD`` name stands for.

    ``ValueError`` (one line) when the name holds no command or does not
    split (an unclosed quote).
    """
    if name.startswith("external-shell:"):
        line = name[len("external-shell:") :].strip()
        if not line:
            raise ValueError(f"{name!r}: no command after 'external-shell:'")
        return ExternalCommand((line,), shell=True)
    if not name.startswith("external:"):
        raise ValueError(f"{name!r} is not an external assignor (external:CMD or external-shell:CMD)")
    try:
        argv = tuple(shlex.split(name[len("external:") :]))
    except ValueError as err:
        raise ValueError(f"{name!r}: the command does not split ({err})") from None
    if not argv:
        raise ValueError(f"{name!r}: no command after 'external:'")
    return ExternalCommand(argv)
