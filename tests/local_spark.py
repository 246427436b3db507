"""Helpers for the tests that run Spark: processes on 127.0.0.1 and the rows a sweep must write.

The standalone-cluster and Spark Connect tests start JVMs in their own
sessions and kill exactly those (:func:`kill_session`); every wait is
bounded (:func:`wait_for`).  :func:`expected_rows` is what the workers must
produce, computed in this process scenario by scenario.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pandas as pd
import pytest

from assignment_oracle.compare.sweep.rows import COLUMNS, TIMING_COLUMNS, scenario_rows
from assignment_oracle.compare.sweep.spec import scenario_id

#: A row's identity.
KEY = ["scenario_id", "round", "assignor"]


def expected_rows(spec) -> pd.DataFrame:
    """What the workers must produce, computed in this process, scenario by scenario."""
    rows = []
    for i in range(spec.scenarios):
        point, seed = spec.task(i)
        rows += scenario_rows(
            spec.hash, scenario_id(spec.hash, point, seed), point, seed, spec.assignors, spec.time_limit, spec.checks
        )
    return normalized(pd.DataFrame(rows, columns=list(COLUMNS)))


def normalized(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.drop(columns=[c for c in TIMING_COLUMNS + ("version",) if c in frame])
    frame = frame[[c for c in COLUMNS if c in frame]].astype(object).where(frame.notna(), None)
    return frame.sort_values(KEY).reset_index(drop=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def session_members(leader: int) -> list[int]:
    """Every live process in the session ``leader`` started (``start_new_session``): its whole tree."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        if int(fields[3]) == leader and fields[0] != "Z":  # field 6 of stat: session id
            found.append(int(entry.name))
    return found


def kill_session(leader: int) -> None:
    """SIGKILL ``leader``'s session (Python daemons move to their own process group, not session)."""
    for _ in range(3):
        pids = session_members(leader)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)


def wait_for(predicate, timeout: float, what: str, logs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    tails = "\n".join(f"--- {p}\n{tail(p)}" for p in logs)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}\n{tails}")


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
