"""``assignment-oracle``: a thin command line over the library.

Every subcommand is a few lines around a library call that notebooks and
other programs can make directly (``optimal.solve``, ``compare.judge.check.check``).
Bad input is one line on stderr naming the file and field, exit status 2,
never a traceback.

This module is the front and imports nothing of the library: the overview
(no arguments), ``--help`` and ``--version`` answer at once, and a command
imports :mod:`assignment_oracle.commands` (its options, the library) when
it runs.  Signals are handled here, around everything.
"""

from __future__ import annotations

import argparse
import errno
import gc
import io
import os
import signal
import sys
import threading
from typing import NoReturn, Sequence

from assignment_oracle.program import COMMANDS, EXIT_BAD_INPUT, PROG, Parser, bundled_examples

#: Exit status when standard output's reader went away (``| head``): 128 + SIGPIPE, as the shell reports
#: a program the pipe stopped.
CLOSED_PIPE = 141
#: Exit status when an output could not be written whole (a full disk, an I/O error, a closed standard
#: output): sysexits.h's ``EX_IOERR``, the same as :class:`~assignment_oracle.problem.errors.WriteFailed`'s.
WRITE_FAILED = 74
#: The environment variable ``--max-output`` sets (``heuristics.external.MAX_OUTPUT_VARIABLE``).
MAX_OUTPUT_VARIABLE = "ASSIGNMENT_ORACLE_MAX_OUTPUT"
#: The environment variable ``--classpath`` sets (``heuristics.java_class.CLASSPATH_VARIABLE``).
CLASSPATH_VARIABLE = "ASSIGNMENT_ORACLE_CLASSPATH"
#: The environment variable ``--max-input-bytes`` sets (``problem.scenario_json.MAX_INPUT_VARIABLE``).
MAX_INPUT_VARIABLE = "ASSIGNMENT_ORACLE_MAX_INPUT_BYTES"

__all__ = ["COMMANDS", "PROG", "Terminated", "bundled_examples", "command", "main", "overview", "version"]


#: Commands that read files, compute once and exit.  They allocate millions of
#: small objects on a large group (every claim list of a scenario, every row of
#: an answer) that live until the end; Python's cyclic collector would walk
#: them again and again (a quarter of ``solve``'s time on Kafka's 1M case) and
#: find nothing to free, so it is paused while they run.
ONE_SHOT = frozenset({"solve", "check", "assign", "compare", "explain"})
#: Commands run by the CI oracle's module (:mod:`assignment_oracle.assignor_check`), which imports
#: :mod:`assignment_oracle.testing` (Hypothesis): imported only when one of them runs.
ORACLE_COMMANDS = frozenset({"test-assignor"})


class OutputFailed(Exception):
    """Standard output took less than it was given (a full disk, an I/O error, a closed descriptor)."""


class CheckedStdout(io.TextIOBase):
    """Standard output for one command: UTF-8 text written to file descriptor 1 with ``os.write``, every
    byte accounted for.

    Python's own ``sys.stdout`` can lose the tail of a large write without a word (on a full file system
    the kernel takes 64 KiB, the rest is dropped and ``flush`` succeeds: ``solve big.json > file``
    exited 0 with a truncated answer).  Here a short write is written on from where it stopped, and an
    error ends the command: :class:`OutputFailed` (one line, :data:`WRITE_FAILED`), except a reader that
    went away (``| head``: ``BrokenPipeError``, exit 141 as before).  Buffered as Python buffers its own:
    a line at a time on a terminal, else up to 8 KiB; :meth:`flush` writes what is held.
    """

    def __init__(self, fd: int = 1) -> None:
        super().__init__()
        self._fd, self._pending, self._size = fd, [], 0
        self._lines = self.isatty()

    @property
    def encoding(self) -> str:
        return "utf-8"

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "surrogateescape")
        self._pending.append(data)
        self._size += len(data)
        if self._size >= io.DEFAULT_BUFFER_SIZE or (self._lines and "\n" in text):
            self.flush()
        return len(text)

    def flush(self) -> None:
        data, self._pending, self._size = memoryview(b"".join(self._pending)), [], 0
        while data:
            try:
                data = data[os.write(self._fd, data[: 1 << 20]) :]
            except InterruptedError:
                continue
            except BrokenPipeError:
                raise
            except OSError as err:
                reason = "it is closed" if err.errno == errno.EBADF else (err.strerror or str(err))
                raise OutputFailed(f"standard output: {reason} (the output is incomplete)") from None


def _reserve_standard_streams() -> None:
    """A standard stream closed before the program started (``>&-``): its descriptor is taken by a
    read-only ``/dev/null``, so a file the command opens never becomes its standard output (and writing
    to it fails, as it should), and a message for it goes nowhere instead of into standard output."""
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  (for the process's lifetime)


class Terminated(KeyboardInterrupt):
    """SIGTERM, delivered like Ctrl-C: every place that stops a search on ``KeyboardInterrupt`` (CP-SAT,
    HiGHS, an assignor's child, Spark) stops on it too; the command then exits 143 instead of 130."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def command() -> NoReturn:
    """The installed program: :func:`main`, then exit with its status.

    A stopped command (Ctrl-C 130, SIGTERM 143) leaves at once, without the
    interpreter's teardown (a few hundred ms after a sweep): what it wrote
    is complete, and Spark's JVM ends with the pipe to this process.
    """
    try:
        code = main()
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        code = CLOSED_PIPE
    if code == CLOSED_PIPE:
        # The reader went away (`| head`): stop quietly, as `yes | head` does; what is still buffered has
        # nowhere to go, and Python's own flush at exit must not say so in a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        os._exit(code)
    if code in (130, 143):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def overview() -> str:
    """What ``assignment-oracle`` with no arguments prints: every command in one line, and where to start."""
    lines = [
        f"usage: {PROG} COMMAND [options]   ({PROG} COMMAND --help for a command's options)",
        "",
        "Provably optimal Kafka consumer partition assignment: the optimum, and every assignor judged against it.",
        "",
        "commands:",
    ]
    width = max(len(name) for name in COMMANDS)
    lines += [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    lines += [
        "",
        f"start here:  {PROG} demo            (the KIP-54 and KIP-49 examples, solved and judged, in seconds)",
        f"             {PROG} solve FILE.json (the optimum of a scenario; formats: docs/formats.md)",
    ]
    return "\n".join(lines) + "\n"


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("assignment-oracle")
    except metadata.PackageNotFoundError:  # run from a source tree without an install
        return "unknown (not installed)"


def _front_parser() -> argparse.ArgumentParser:
    """``--help`` and ``--version`` of the program: the commands listed, none of their options."""
    parser = Parser(prog=PROG, description="Provably optimal Kafka consumer partition assignment.")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, text in COMMANDS.items():
        sub.add_parser(name, help=text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        sys.stdout.write(overview())
        return EXIT_BAD_INPUT
    if argv[0] in ("-h", "--help", "--version"):
        _front_parser().parse_args(argv)  # prints and exits (SystemExit), importing nothing else
    paused = argv[0] in ONE_SHOT and gc.isenabled()
    if paused:
        gc.disable()
    # SIGTERM as a KeyboardInterrupt (signal handlers belong to the main thread; restored on the way out).
    previous = (
        signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() else None
    )
    kept = {
        variable: os.environ.get(variable) for variable in (MAX_OUTPUT_VARIABLE, CLASSPATH_VARIABLE, MAX_INPUT_VARIABLE)
    }
    # The process's own standard output (not a test's capture) is written through CheckedStdout.
    own_stdout = sys.stdout is None or sys.stdout is sys.__stdout__
    if own_stdout:
        _reserve_standard_streams()
        if sys.stdout is not None:
            sys.stdout.flush()
        stdout, sys.stdout = sys.stdout, CheckedStdout()
    try:
        from assignment_oracle.commands import run

        handlers = {}
        if argv[0] in ORACLE_COMMANDS:  # the CI oracle's commands sit beside commands, not under it (layers)
            from assignment_oracle.assignor_check import HANDLERS as handlers
        try:
            code = run(argv, handlers)
        except SystemExit:  # --help: what it printed is written first
            sys.stdout.flush()
            raise
        sys.stdout.flush()
        return code
    except OutputFailed as err:
        print(f"{PROG}: write failed: {err}", file=sys.stderr)
        return WRITE_FAILED
    except Terminated:  # SIGTERM: stopped, nothing written past what is complete
        print(f"{PROG}: terminated (SIGTERM)", file=sys.stderr)
        return 143
    except KeyboardInterrupt:  # Ctrl-C
        print(f"{PROG}: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout's reader has gone (`| head`): nothing more to say, to anyone
        return CLOSED_PIPE
    finally:
        if own_stdout:
            sys.stdout = stdout
        # --max-output, --classpath and --max-input-bytes last for this command (main() is also called in-process)
        for variable, value in kept.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if paused:
            gc.enable()
