"""A sweep's directory: who may write it, and how rows land in it exactly once.

Guarantee: whatever happens to the processes writing a sweep directory
(Ctrl-C, SIGTERM, ``kill -9`` of the driver or of a worker at any moment, a
second sweep started on the same directory), every scenario that finished
and was staged is kept, and a reader of ``rows/`` at any moment sees each
scenario's rows exactly once and whole: all its rounds and assignors, or
none of them.

Layout::

    DIR/spec.json       the sweep's spec (hash and document); another spec here is refused
    DIR/lock            held by the sweep writing DIR (an advisory ``flock``); names the holder
    DIR/staged/         finished scenarios, written by the workers, not yet in rows/
    DIR/rows/batch=pNNNNNN/family=F/assignor=A/part-0.parquet   the rows (hive partitioning)

The protocol, and why it is exactly once:

* **One writer.**  :func:`lock` takes ``DIR/lock`` with ``flock`` (released
  by the kernel when its holder dies, ``kill -9`` included) and writes the
  holder's pid, host, start time and command into it.  A second sweep finds
  the lock held and is refused with one line naming the holder; a lock whose
  holder died is taken over, and the file's stale contents say whose it was.
  On a file system without ``flock`` the holder's pid is checked instead.
* **Workers stage whole scenarios.**  A worker buffers a scenario's rows and
  writes them, with those of the scenarios it finished just before, to
  ``staged/`` (:func:`stage`): a hidden temporary file, flushed, then
  renamed, so a staged file is complete or absent.  A worker flushes at
  least every :data:`FLUSH_SECONDS` of work, so a kill loses at most that much
  per worker, plus the scenarios in progress.
* **The driver publishes in one rename.**  :func:`publish` reads the staged
  files, drops the scenarios ``rows/`` already has (a retried task, a staged
  file published before a crash could delete it) and those two staged files
  share, writes the rest into a hidden folder ``rows/.batch-*`` (one file per
  family and assignor), and renames that folder to ``rows/batch=pNNNNNN``:
  the rows appear together, in one step, or not at all (readers, Spark and
  pyarrow, skip hidden folders).  Only then are the staged files deleted.
  A crash before the rename leaves a hidden folder (:func:`recover` deletes
  it) and the staged files (published again); a crash after it leaves staged
  files whose scenarios ``rows/`` has (dropped by the next publish).

``batch`` is a partition column to readers: which publish wrote the row.
The driver publishes after each Spark job, when stopped (Ctrl-C, SIGTERM, an
error) and, for what a killed driver left, when the next sweep starts.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import socket
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from assignment_oracle.problem.scenario_json import InputError

__all__ = [
    "FLUSH_SECONDS",
    "FLUSH_SCENARIOS",
    "SweepLock",
    "lock",
    "stage",
    "publish_after_interrupt",
    "publish",
    "recover",
    "took_over_text",
    "published_ids",
    "partition_folder",
]

#: A worker writes what it finished to ``staged/`` at least this often (seconds of work) ...
FLUSH_SECONDS = 1.0
#: ... or after this many scenarios, whichever comes first.
FLUSH_SCENARIOS = 32

#: Characters Spark escapes in a partition folder's value (``ExternalCatalogUtils.escapePathName``).
_ESCAPED = frozenset(
    [chr(c) for c in range(0x20)] + ['"', "#", "%", "'", "*", "/", ":", "=", "?", "\\", "\x7f", "{", "[", "]", "^"]
)


def partition_folder(column: str, value: str) -> str:
    """``column=value`` with ``value`` escaped as Spark escapes it (``%XX``), as Spark and pyarrow read it."""
    return column + "=" + "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


# --- the lock -----------------------------------------------------------------------------------


@dataclass
class SweepLock:
    """A held ``DIR/lock``.  ``took_over`` names the holder a killed sweep left behind, if any."""

    path: Path
    fd: int
    took_over: dict | None = None

    def release(self) -> None:
        """Clear the holder and let go (the file stays: removing a locked file races with its next opener)."""
        if self.fd < 0:
            return
        try:
            os.ftruncate(self.fd, 0)
        finally:
            os.close(self.fd)  # closing the last descriptor drops the flock
            self.fd = -1


def _holder(fd: int) -> dict | None:
    try:
        text = os.pread(fd, 65536, 0).decode("utf-8", "replace").strip()
        found = json.loads(text) if text else None
    except (OSError, ValueError):
        return {"pid": "?", "host": "?", "since": "?", "command": "(unreadable lock file)"}
    return found if isinstance(found, dict) else None


def _describe(holder: dict | None) -> str:
    if not holder:
        return "a sweep that has not said who it is yet"
    return (
        f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}, since {holder.get('since', '?')}: "
        f"{ascii(holder.get('command', '?'))[1:-1]}"
    )


def _alive(holder: dict) -> bool:
    """The fallback where ``flock`` is not supported: a holder on this host whose pid still runs."""
    if holder.get("host") != socket.gethostname():
        return True  # another machine's process: cannot tell, so it holds
    try:
        os.kill(int(holder["pid"]), 0)
    except ProcessLookupError:
        return False
    except (KeyError, ValueError, TypeError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def lock(out: Path) -> SweepLock:
    """Take ``out/lock`` or refuse in one line (:class:`InputError`, exit 2) naming who holds it."""
    path = out / "lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise InputError(str(out), "", f"cannot lock the sweep directory ({err.strerror or err})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise InputError(
            str(out), "", f"another sweep is writing here ({_describe(holder)}); wait for it or choose another --out"
        ) from None
    except OSError as err:
        if err.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            os.close(fd)
            raise InputError(str(out), "", f"cannot lock the sweep directory ({err.strerror or err})") from None
        holder = _holder(fd)
        if holder and _alive(holder):
            os.close(fd)
            raise InputError(
                str(out),
                "",
                f"another sweep is writing here ({_describe(holder)}); wait for it or choose another --out",
            ) from None
    previous = _holder(fd)
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(sys.argv),
    }
    data = json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    os.fsync(fd)
    return SweepLock(path, fd, previous)


def took_over_text(held: SweepLock) -> str | None:
    """One line saying whose lock was taken over, or None."""
    if not held.took_over:
        return None
    return f"took over {held.path}, left by a sweep that is no longer running ({_describe(held.took_over)})"


# --- staging (workers) --------------------------------------------------------------------------


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_parquet(table, path: Path) -> None:
    """``table`` to ``path`` (a hidden temporary name), flushed to disk."""
    import pyarrow.parquet as pq

    with open(path, "wb") as handle:
        pq.write_table(table, handle)
        handle.flush()
        os.fsync(handle.fileno())


def stage(out: str | Path, table, name: str) -> Path:
    """Write ``table`` (whole scenarios' rows) to ``out/staged/<name>.parquet``: complete, or absent."""
    folder = Path(out) / "staged"
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    target = folder / f"{name}.parquet"
    try:
        _write_parquet(table, temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


# --- publishing (driver) ------------------------------------------------------------------------


def published_ids(out: str | Path) -> set[str]:
    """The scenario ids ``rows/`` holds (each whole, by the protocol above)."""
    rows = Path(out) / "rows"
    if not rows.exists() or not any(rows.glob("batch=*")):
        return set()
    import pyarrow.dataset as ds

    column = ds.dataset(str(rows), format="parquet", partitioning="hive").to_table(columns=["scenario_id"])
    return set(column.column(0).unique().to_pylist())


def recover(out: str | Path) -> None:
    """Delete what a killed sweep left half-written (hidden batches, temporary staged files); with the lock."""
    out = Path(out)
    rows = out / "rows"
    if rows.exists():
        for leftover in rows.glob(".batch-*"):
            shutil.rmtree(leftover, ignore_errors=True)
    staged = out / "staged"
    if staged.exists():
        for leftover in staged.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)


def _next_batch(rows: Path) -> str:
    numbers = [int(p.name[len("batch=p") :]) for p in rows.glob("batch=p*") if p.name[len("batch=p") :].isdigit()]
    return f"batch=p{max(numbers, default=0) + 1:06d}"


def publish(out: str | Path, done: set[str]) -> int:
    """Move every staged scenario not in ``done`` into ``rows/`` in one rename; returns how many, and adds
    them to ``done``.

    Call with the lock held.  Deterministic: a batch's rows of one (family,
    assignor) pair are sorted by scenario id and round.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out = Path(out)
    folder = out / "staged"
    if not folder.exists():
        return 0
    names = sorted(p.name for p in folder.glob("*.parquet") if not p.name.startswith("."))
    if not names:
        return 0
    kept = []
    consumed = []
    fresh: list[str] = []
    claimed = set(done)
    for name in names:
        try:
            table = pq.read_table(folder / name)
        except (OSError, pa.ArrowException):
            continue  # not one of ours (a staged file is complete or absent): left for a person to look at
        consumed.append(name)
        ids = [sid for sid in table.column("scenario_id").unique().to_pylist() if sid not in claimed]
        claimed.update(ids)
        fresh.extend(ids)
        if ids:
            kept.append(table.filter(pc.is_in(table.column("scenario_id"), value_set=pa.array(ids, pa.string()))))
    if kept:
        rows_dir = out / "rows"
        rows_dir.mkdir(exist_ok=True)
        hidden = rows_dir / f".batch-{uuid.uuid4().hex}"
        rows = pa.concat_tables(kept).sort_by(
            [("family", "ascending"), ("assignor", "ascending"), ("scenario_id", "ascending"), ("round", "ascending")]
        )
        family, assignor = rows.column("family").to_pylist(), rows.column("assignor").to_pylist()
        body = rows.drop_columns(["family", "assignor"])  # the folder names carry them (hive partitioning)
        try:
            start = 0
            for end in range(1, len(family) + 1):
                if end < len(family) and (family[end], assignor[end]) == (family[start], assignor[start]):
                    continue
                where = (
                    hidden / partition_folder("family", family[start]) / partition_folder("assignor", assignor[start])
                )
                where.mkdir(parents=True)
                _write_parquet(body.slice(start, end - start), where / "part-0.parquet")
                _fsync_folder(where)
                _fsync_folder(where.parent)
                start = end
            _fsync_folder(hidden)
            os.rename(hidden, rows_dir / _next_batch(rows_dir))  # the publish: all of it, at once
            done.update(fresh)
        except BaseException:
            shutil.rmtree(hidden, ignore_errors=True)
            raise
        _fsync_folder(rows_dir)
    for name in consumed:
        (folder / name).unlink(missing_ok=True)
    done.update(fresh)
    return len(fresh)


def publish_after_interrupt(out: str | Path) -> int:
    """:func:`publish` with the published scenarios read afresh from ``rows/``: what a sweep stopping on a
    signal runs.  The signal may have landed inside a publish after its rename and before it noted the
    scenarios as done and deleted their staged files; publishing those files again against the stale
    set would give their rows twice."""
    return publish(out, published_ids(out))
