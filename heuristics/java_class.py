"""Any Java ``ConsumerPartitionAssignor`` (Kafka's, or your own), run by one long-lived JVM: ``java:CLASS``.

Guarantee: none of its own.  A Java class is judged on ``valid`` (a valid
assignment) unless its caller claims more (:func:`java_assignor`'s
``guarantee``; ``--guarantee G`` beside it on ``compare`` and ``simulate``);
``assignment-oracle test-assignor java:CLASS`` plays the CI oracle's battery
on it in the one JVM this module keeps per class; like :mod:`heuristics.external`, this module only guarantees
that whatever the class does is *reported*, never crashes the caller and is
never taken for a valid result by mistake.

``java:org.apache.kafka.clients.consumer.CooperativeStickyAssignor`` runs that
class from a classpath the user gives (``--classpath``, the
:data:`CLASSPATH_VARIABLE` environment variable that sweeps' workers
inherit, or the ``classpath`` keyword): jars and class folders separated by
``:`` as Java's ``-cp`` takes them.

One JVM per command, not per rebalance.  A JVM starts in about half a
second and Kafka's assignors are fast once loaded, so a sweep that started
one per rebalance would measure the JVM.  The JVM is started when the name
is first resolved (:func:`java_assignor`; its answer says which protocols
the class supports, which decides how it is judged), fed one scenario line
per rebalance on stdin, read one answer line on stdout, and closed at exit
(:mod:`atexit`, or :meth:`JavaClass.close`).  Runners are shared per class,
classpath and limits, so every lookup of the same name in a process talks to
the same JVM.  A forked child (the runner's ``isolation="process"``) never
talks to its parent's JVM, whose half-read answer a killed child would
leave behind: it starts its own, which dies with it.  On Linux a JVM is
also killed when the *thread* that started it ends (the parent-death signal
follows the starting thread): from a library, resolve a ``java:`` name in the
thread that will run it, or the next rebalance starts a fresh JVM.

Bounded as :mod:`heuristics.external` bounds a command, with its helpers
(its own process group, killed as one; the answer read by
:func:`heuristics.external.read_answer`; the same output cap,
``--max-output``):

* no answer within ``timeout`` (60 s by default; the caller's time limit
  interrupts it too): a ``timeout`` row, the JVM's process group killed;
* more than the cap on stdout or stderr in one rebalance: an ``error`` row,
  the JVM killed;
* the JVM dies (``System.exit``, a crash, out of memory): an ``error`` row
  naming its exit status and quoting the first lines of its stderr; the next
  rebalance starts a fresh JVM;
* the class throws: an ``error`` row, ``"ExceptionClass: message"`` and the
  frame it was thrown from; the JVM lives on;
* the answer names a member, topic or partition the group does not have:
  an ``error`` row (:func:`~heuristics.external.read_answer`); a partition
  twice, one missing, one to a member not subscribed: judged ``invalid``.

What is not a finding about the class is the caller's setup, refused in one
line before anything runs: no ``java`` or ``javac`` on ``PATH``
(:class:`~problem.errors.MissingRuntime`); no classpath, a class that is not
on it, is not a ``ConsumerPartitionAssignor``, is abstract or has no public
no-arg constructor, a classpath without Kafka's consumer API
(:class:`JavaClassError`, a ``ValueError``: the command line's exit 2).

The driver (``java/AssignorDriver.java``, shipped with the package) is
compiled on first use with ``javac`` against the user's classpath and
cached under ``$XDG_CACHE_HOME/assignment-oracle/java/`` (else
``~/.cache/...``), in a folder named by a hash of its source and ``javac
-version``; it is compiled into a private folder renamed into place, so
concurrent sweep workers never see half of it.  It is typed against Kafka's
API (``ConsumerPartitionAssignor`` and its nested classes,
``ConsumerGroupMetadata``, ``Cluster``, ``Node``, ``PartitionInfo``,
``TopicPartition``: kafka-clients 3.5 or later, or a stand-in with the same
signatures) rather than reflective: compiling against the classpath is the
check that the classpath has that API, and the calls read as Kafka's
consumer makes them.  Reflection is used only where the class is named at
run time (loading it, its constructor) and for ``Configurable``, which a
stand-in need not have.  It reads and writes its JSON itself, so nothing
else need be on the classpath.

What the driver hands the class each rebalance is what Kafka's consumers and
group leader hand it (``ConsumerCoordinator.metadata()`` at Kafka 1eb7644; the
driver's header says it field by field): per member a fresh instance told
its previous assignment and generation (``onAssignment``) and asked for its
``subscriptionUserData``, so ``StickyAssignor``'s owned partitions and
generation travel in user data exactly as a real consumer writes them; a
``Subscription`` with the topics, that user data, the owned partitions
(``COOPERATIVE``; empty under ``EAGER``, whose members revoke everything
before joining), the generation, the rack and the ``group.instance.id``; a
``Cluster`` with every partition and, when the scenario gives partition
racks, replicas on brokers in those racks.

Cooperative classes.  A class whose ``supportedProtocols()`` include
``COOPERATIVE`` is run as the consumer runs it (the highest protocol wins):
through :func:`heuristics.cooperative_sticky.rebalance` with the class's
``assign`` as the target and nothing withheld on its behalf, because the
class withholds by itself (Kafka's ``CooperativeStickyAssignor`` leaves
partitions transferring ownership out of its answer).  Each phase is the
class's own answer; members revoke what they held and were not given, and
rejoin with what they were given, one generation on, until a rebalance
revokes nothing.  A class that hands out a partition another member still
holds is therefore seen doing so.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import selectors
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path

from assignment_oracle.heuristics import cooperative_sticky
from assignment_oracle.heuristics.assignor import GUARANTEE_NAMES, Assignor
from assignment_oracle.heuristics.external import (
    DEFAULT_TIMEOUT,
    MAX_OUTPUT_VARIABLE,
    ExternalAssignorError,
    default_max_output,
    kill_group,
    mib,
    on_path,
    own_group_dying_with_parent,
    read_answer,
    scope_dying_with_parent,
    scoped,
    short_display,
    stderr_excerpt,
)
from assignment_oracle.heuristics.runner import MAX_TIME_LIMIT
from assignment_oracle.problem.errors import AssignorDidNotFinish, MissingRuntime
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "CLASSPATH_VARIABLE",
    "DRIVER_SOURCE",
    "PREFIX",
    "JavaAssignorError",
    "JavaClass",
    "JavaClassError",
    "cache_root",
    "java_assignor",
    "java_class",
]

#: The prefix of a Java class's assignor name: ``java:`` + its fully qualified class name.
PREFIX = "java:"
#: The environment variable ``--classpath`` sets, read by every ``java:`` name in this process and its children.
CLASSPATH_VARIABLE = "ASSIGNMENT_ORACLE_CLASSPATH"
#: The driver's source, shipped as package data.
DRIVER_SOURCE = Path(__file__).with_name("java") / "AssignorDriver.java"
#: Its main class (a package of its own: no clash with the user's classes).
DRIVER_CLASS = "assignment_oracle.AssignorDriver"
#: Seconds ``javac`` may take to compile the driver.
COMPILE_TIMEOUT = 120.0
#: Seconds a closing JVM gets to leave by itself once its stdin is closed.
CLOSE_GRACE = 1.0


class JavaClassError(ValueError):
    """The class cannot be run from this classpath (one line; the caller's setup, not a finding)."""


class JavaAssignorError(ExternalAssignorError):
    """The class threw, its JVM died, or its answer is not an assignment of this group (one line)."""


def java_assignor(
    name: str,
    *,
    classpath: str | None = None,
    guarantee: str = "valid",
    timeout: float = DEFAULT_TIMEOUT,
    max_output: int | None = None,
) -> Assignor:
    """The :class:`~heuristics.registry.Assignor` for ``java:CLASS`` (or a bare class name), its JVM started.

    ``classpath``: jars and class folders, ``:``-separated (default
    ``$ASSIGNMENT_ORACLE_CLASSPATH``).  ``guarantee``: what its author claims
    (default ``valid``).  A class supporting ``COOPERATIVE`` is a cooperative
    assignor (every rebalance of the protocol judged), any other an eager one.
    Raises :class:`JavaClassError` (a ``ValueError``) and
    :class:`~problem.errors.MissingRuntime` as the module docstring says.
    """
    if guarantee not in GUARANTEE_NAMES:
        raise ValueError(f"unknown guarantee {guarantee!r} (known: {', '.join(GUARANTEE_NAMES)})")
    runner = java_class(name, classpath=classpath, timeout=timeout, max_output=max_output)
    cooperative = runner.protocol == "cooperative"
    return Assignor(
        runner.display,
        runner.settled if cooperative else runner,
        f"Java class {runner.class_name} ({runner.name}; protocols {', '.join(runner.protocols)})",
        guarantee,
        runner.protocol,
        f"runs {runner.class_name} in one JVM through Kafka's assignor API (docs/external.md)",
        runner.rebalance if cooperative else None,
    )


#: Started runners by (class, classpath, timeout, max_output): one JVM per class in a process.
_RUNNERS: dict[tuple, JavaClass] = {}
_RUNNERS_LOCK = threading.Lock()


def java_class(
    name: str, *, classpath: str | None = None, timeout: float = DEFAULT_TIMEOUT, max_output: int | None = None
) -> JavaClass:
    """The shared, started :class:`JavaClass` for ``java:CLASS`` (or a bare class name) on ``classpath``."""
    class_name = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    class_name = class_name.strip()
    if not class_name:
        raise JavaClassError(f"{name!r}: no class after {PREFIX!r} (a fully qualified class name)")
    if classpath is None:
        classpath = os.environ.get(CLASSPATH_VARIABLE)
    if not classpath or not classpath.strip(os.pathsep + " "):
        raise JavaClassError(
            f"{PREFIX}{class_name} needs a classpath: --classpath JARS_OR_FOLDERS "
            f"(':'-separated, as java -cp takes them), or {CLASSPATH_VARIABLE}"
        )
    runner = _shared(class_name, _absolute(classpath), timeout, max_output)
    runner.start()
    return runner


def _shared(class_name: str, classpath: str, timeout: float, max_output: int | None) -> JavaClass:
    """This process's runner for these settings (also what an unpickled runner becomes), not started."""
    key = (class_name, classpath, float(timeout), max_output)
    with _RUNNERS_LOCK:
        runner = _RUNNERS.get(key)
        if runner is None:
            runner = _RUNNERS[key] = JavaClass(class_name, classpath, timeout=timeout, max_output=max_output)
    return runner


def _absolute(classpath: str) -> str:
    """Each entry made absolute (the JVM and javac may run elsewhere); ``dir/*`` kept as Java reads it."""
    entries = [e.strip() for e in classpath.split(os.pathsep) if e.strip()]
    return os.pathsep.join(str(Path(e).expanduser().absolute()) for e in entries)


def cache_root() -> Path:
    """Where compiled drivers are kept: ``$XDG_CACHE_HOME/assignment-oracle/java`` (else ``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "assignment-oracle" / "java"


class JavaClass:
    """One Java assignor class and the JVM that runs it (see the module docstring).

    Calling it runs one rebalance (the class's ``assign``): ``problem ->
    Assignment``.  :meth:`rebalance` runs the cooperative protocol to the end,
    :meth:`settled` its final assignment.  Thread-safe (one exchange at a
    time); pickles as its settings, never its JVM.
    """

    def __init__(
        self, class_name: str, classpath: str, *, timeout: float = DEFAULT_TIMEOUT, max_output: int | None = None
    ) -> None:
        if not (0 < timeout <= MAX_TIME_LIMIT):
            raise ValueError(f"timeout must be a positive number of seconds up to {MAX_TIME_LIMIT:g}, got {timeout!r}")
        self.class_name, self.classpath, self.timeout, self.max_output = class_name, classpath, timeout, max_output
        #: ``name()`` and ``supportedProtocols()`` as the class answered them when its JVM first started.
        self.name = ""
        self.protocols: tuple[str, ...] = ()
        self._process: subprocess.Popen | None = None
        self._owner = 0  # the pid that started the JVM: only that process talks to it
        self._lock = threading.Lock()
        self._stderr = bytearray()
        self.started = 0  # JVMs started by this process for this class (1 unless one died or was killed)
        _LIVE.add(self)

    def __reduce__(self):
        return (_shared, (self.class_name, self.classpath, self.timeout, self.max_output))

    @property
    def display(self) -> str:
        return PREFIX + self.class_name

    @property
    def protocol(self) -> str:
        """``cooperative`` when the class supports ``COOPERATIVE`` (the consumer picks the highest), else ``eager``."""
        return "cooperative" if "COOPERATIVE" in self.protocols else "eager"

    @property
    def pid(self) -> int | None:
        """The running JVM's process id, ``None`` when none runs for this process."""
        process = self._process
        if process is None or self._owner != os.getpid() or process.poll() is not None:
            return None
        return process.pid

    @property
    def output_cap(self) -> int:
        return self.max_output if self.max_output is not None else default_max_output()

    def start(self) -> None:
        """Start the JVM unless one runs for this process: compile the driver if needed, read its ``ready``."""
        with self._lock:
            self._ensure_started()

    def __call__(self, problem: Problem) -> Assignment:
        """One rebalance: the class's ``assign`` on ``problem``'s group."""
        payload = json.dumps(problem.to_mapping(), separators=(",", ":")).encode("ascii") + b"\n"
        with self._lock:
            self._ensure_started()
            line = self._exchange(payload)
        try:
            document = json.loads(line)
        except ValueError:
            document = None
        if isinstance(document, dict) and isinstance(document.get("error"), str):
            at = document.get("at")
            raise JavaAssignorError(
                f"{document['error']}{f' (at {at})' if at else ''} ({short_display(self.display)})"
            ) from None
        return read_answer(line, problem, self.display, bytes(self._stderr))

    def rebalance(self, problem: Problem) -> cooperative_sticky.CooperativeRebalance:
        """The cooperative protocol to the end, each phase the class's own answer (the module docstring)."""
        return cooperative_sticky.rebalance(problem, target=self, holdings=_withheld_by_the_class)

    def settled(self, problem: Problem) -> Assignment:
        """The assignment a cooperative group settles on after its follow-up rebalance(s)."""
        return self.rebalance(problem).final

    def close(self) -> None:
        """Stop this process's JVM (stdin closed, a moment to leave, then its process group killed)."""
        with self._lock:
            self._stop(graceful=True)

    # -- the JVM -------------------------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if self._process is not None and self._owner != os.getpid():
            self._process, self._lock = None, threading.Lock()  # a forked child: the JVM is its parent's
        if self._process is not None and self._process.poll() is None:
            return
        self._stop(graceful=False)
        java, javac = _tool("java", self.display), _tool("javac", self.display)
        classes = driver_classes(self.classpath, javac, self.display)
        argv = [java, "-cp", os.pathsep.join([str(classes), self.classpath]), DRIVER_CLASS, self.class_name]
        command = scoped(argv)  # the user's class runs in a scope: nothing it starts outlives its JVM
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=scope_dying_with_parent if command is not argv else own_group_dying_with_parent,
            )
        except OSError as err:
            raise MissingRuntime(f"{self.display}: cannot run {java}: {err.strerror or err}") from None
        assert process.stdin is not None
        os.set_blocking(process.stdin.fileno(), False)
        self._process, self._owner = process, os.getpid()
        self.started += 1
        try:
            line = self._exchange(b"")
        except (JavaAssignorError, AssignorDidNotFinish) as err:
            raise JavaClassError(f"{self.display}: its JVM did not start: {err}") from None
        try:
            hello = json.loads(line)
        except ValueError:
            hello = {"fatal": f"the driver's first line is not its ready line: {line[:80]!r}"}
        if "fatal" in hello or "ready" not in hello:
            self._stop(graceful=False)
            raise JavaClassError(f"{self.display}: {hello.get('fatal', hello)} ({self._classpath_note()})")
        ready = hello["ready"]
        self.name, self.protocols = ready["name"], tuple(ready["protocols"])

    def _classpath_note(self) -> str:
        return classpath_note(self.classpath)

    def _exchange(self, payload: bytes) -> bytes:
        """Send ``payload`` (a scenario line, or nothing), return the JVM's next line; kill it on any failure."""
        try:
            return self._read_line(payload)
        except BaseException:  # our timeout, a caller's deadline (SIGALRM), a dead JVM: no half-read answer left
            self._stop(graceful=False)
            raise

    def _read_line(self, payload: bytes) -> bytes:
        process = self._process
        assert process is not None
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        deadline = time.monotonic() + self.timeout
        cap = self.output_cap
        out = bytearray()
        self._stderr = bytearray()
        pending = memoryview(payload)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            selector.register(stderr, selectors.EVENT_READ)
            if pending:
                selector.register(stdin, selectors.EVENT_WRITE)
            while True:
                now = time.monotonic()
                if now >= deadline:
                    raise AssignorDidNotFinish(f"gave no answer in {self.timeout:g} s ({short_display(self.display)})")
                for key, _ in selector.select(timeout=min(0.25, deadline - now)):
                    stream = key.fileobj
                    if stream is stdin:
                        try:
                            pending = pending[os.write(key.fd, pending[:65536]) :]
                        except (BrokenPipeError, ConnectionResetError):
                            pending = pending[:0]  # the JVM is gone: stdout's end says how
                        if not pending:
                            selector.unregister(stream)
                        continue
                    chunk = os.read(key.fd, 1 << 20)
                    if not chunk:
                        selector.unregister(stream)
                        if stream is stdout:
                            raise self._died(process)
                        continue
                    received = out if stream is stdout else self._stderr
                    received += chunk
                    if len(received) > cap:
                        which = "stdout" if stream is stdout else "stderr"
                        raise JavaAssignorError(
                            f"wrote more than {mib(cap)} to {which} in one rebalance ({short_display(self.display)}): the "
                            f"cap on an external assignor's output; raise it with --max-output MIB "
                            f"(or {MAX_OUTPUT_VARIABLE})"
                        )
                    if stream is stdout and b"\n" in chunk:
                        return bytes(out[: out.index(b"\n")])

    def _died(self, process: subprocess.Popen) -> JavaAssignorError:
        """The JVM closed its stdout: wait for its status and the rest of its stderr, and say what happened."""
        deadline = time.monotonic() + CLOSE_GRACE
        assert process.stderr is not None
        os.set_blocking(process.stderr.fileno(), False)
        while time.monotonic() < deadline and len(self._stderr) < 65536:
            try:
                chunk = os.read(process.stderr.fileno(), 65536)
            except BlockingIOError:
                if process.poll() is not None:
                    break
                time.sleep(0.02)
                continue
            if not chunk:
                break
            self._stderr += chunk
        try:
            code = process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        how = (
            "closed its stdout"
            if code is None
            else f"was killed by signal {-code}"
            if code < 0
            else f"exited with status {code}"
        )
        return JavaAssignorError(f"the JVM {how} ({short_display(self.display)}){stderr_excerpt(bytes(self._stderr))}")

    def _stop(self, *, graceful: bool) -> None:
        process, self._process = self._process, None
        if process is None or self._owner != os.getpid():
            return
        if graceful and process.poll() is None:
            try:
                if process.stdin is not None:
                    process.stdin.close()  # the driver leaves at the end of its input
                process.wait(timeout=CLOSE_GRACE)
            except (OSError, subprocess.TimeoutExpired):
                pass
        kill_group(process, drain=False)  # whatever it left running, and the pipes closed


def _withheld_by_the_class(problem: Problem) -> dict:
    """What the cooperative loop withholds on a Java class's behalf: nothing (it withholds by itself)."""
    return {}


def _tool(program: str, display: str) -> str:
    return on_path(program, display, "a JDK, Java 17 or later", "apt install openjdk-17-jdk-headless")


_VERSIONS: dict[str, str] = {}


def _javac_version(javac: str) -> str:
    if javac not in _VERSIONS:
        try:
            result = subprocess.run([javac, "-version"], capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise JavaClassError(f"cannot run {javac} -version: {err}") from None
        _VERSIONS[javac] = (result.stdout + result.stderr).strip()
    return _VERSIONS[javac]


def classpath_note(classpath: str) -> str:
    """``classpath X``, and which of its entries do not exist (a mistyped jar is the usual cause)."""
    missing = [e for e in classpath.split(os.pathsep) if not e.endswith("*") and not os.path.exists(e)]
    return f"classpath {classpath}" + (f"; not found: {', '.join(missing)}" if missing else "")


def driver_classes(classpath: str, javac: str, display: str = "the Java driver") -> Path:
    """The folder with the compiled driver: cached (source + ``javac -version``), else compiled now.

    Compiled against ``classpath`` into a private folder renamed into place:
    a concurrent worker either finds the whole folder or builds its own, and
    the first rename wins.
    """
    source = DRIVER_SOURCE.read_bytes()
    key = hashlib.sha256(source + b"\0" + _javac_version(javac).encode()).hexdigest()[:16]
    root = cache_root() / key
    if (root / "assignment_oracle" / "AssignorDriver.class").is_file():
        return root
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=root.parent))
    except OSError as err:
        raise JavaClassError(
            f"{display}: cannot create the driver's cache folder {root.parent} ({err.strerror or err}); "
            "set XDG_CACHE_HOME to a writable folder"
        ) from None
    try:
        command = [javac, "-nowarn", "-encoding", "UTF-8", "-d", str(work), "-cp", classpath, str(DRIVER_SOURCE)]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise JavaClassError(f"{display}: javac took more than {COMPILE_TIMEOUT:g} s on the driver") from None
        if result.returncode != 0:
            errors = [line for line in (result.stdout + result.stderr).splitlines() if "error:" in line]
            first = (errors or ["javac failed"])[0].replace(str(DRIVER_SOURCE.parent) + os.sep, "")
            raise JavaClassError(
                f"{display}: the classpath lacks Kafka's consumer API (kafka-clients 3.5 or later): the driver "
                f"does not compile against it: {first.strip()} ({classpath_note(classpath)})"
            )
        try:
            work.rename(root)
        except OSError:  # another worker's rename came first: theirs is the same driver
            pass
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return root


_LIVE: weakref.WeakSet[JavaClass] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Every JVM this process started, stopped at exit."""
    for runner in list(_LIVE):
        runner.close()
