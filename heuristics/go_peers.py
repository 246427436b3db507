"""The Go client libraries' balancers, called directly: the peers ``sarama:range``, ``sarama:roundrobin``,
``sarama:sticky``, ``kafka-go:range``, ``kafka-go:roundrobin`` and ``kafka-go:rack-affinity``.

Versions judged: IBM/sarama 1.50.1 and segmentio/kafka-go 0.4.51, the newest installable here (Debian
forky and sid ``golang-github-ibm-sarama-dev`` 1.50.1-1, ``golang-github-segmentio-kafka-go-dev``
0.4.51+ds1-1; bookworm has sarama 1.22.1 and kafka-go 0.2.1, trixie sarama 1.45.1 and kafka-go 0.2.1,
and no Go module proxy is reachable), built with Debian's Go toolchain of the same suite.

Guarantees: theirs.  sarama's ``NewBalanceStrategyRange`` "follows the same
logic as" Kafka's ``RangeAssignor`` (its doc comment links the 3.1 javadoc):
judged as ``range``.  ``NewBalanceStrategyRoundRobin`` names no Kafka class
but takes Kafka's protocol name ``roundrobin``: judged as ``roundrobin``.
``NewBalanceStrategySticky`` is a translation of Kafka's ``StickyAssignor``
with KIP-341's generations (``prepopulateCurrentAssignments`` sorts each
partition's claimants by generation and remembers the previous one, Kafka
2.3's ``StickyAssignorUserDataV1``): judged as ``sticky``.  kafka-go's
``RangeGroupBalancer`` and ``RoundRobinGroupBalancer`` take the protocol
names ``range`` and ``roundrobin`` (a kafka-go member joins a group of Java
consumers under those names), so they are judged as Kafka's; their doc
comments promise contiguous ranges and "divides partitions evenly among
consumers".  ``RackAffinityGroupBalancer`` (protocol ``rack-affinity``)
claims no Kafka class: judged ``valid``; its doc comment's "primary
objective is to spread partitions evenly across consumers" is per topic.

How each library's group leader calls its balancer (read in the packaged
sources, ``usr/share/gocode/src/github.com/...``; ``heuristics/go/driver.go``
has the details next to the code):

* sarama, ``consumer_group.go`` (``newSession`` -> ``balance``): the leader
  decodes the JoinGroup members with ``JoinGroupResponse.GetMembers`` into a
  Go map (no member order survives; ``GroupInstanceId`` is never read),
  refreshes metadata for the union of the subscriptions, asks
  ``client.Partitions`` for each topic (a topic the cluster does not have
  fails the whole rebalance with ``ErrUnknownTopicOrPartition``) and calls
  ``strategy.Plan(members, topicPartitions)``.  Each member's metadata is
  what its ``joinGroupRequest`` sends (version 0: topics and ``c.userData``),
  encoded and decoded here by sarama's own ``AddGroupProtocolMetadata`` and
  ``GetMembers``.  ``c.userData`` is what the member kept from its last
  SyncGroup, ``strategy.AssignmentData(memberID, assignment, generationID)``:
  for sticky a ``StickyAssignorUserDataV1`` of the member's previous
  assignment and the generation it was made in, so a scenario member's
  ``owned`` and ``generation`` are passed exactly that way (a claim without a
  generation as ``StickyAssignorUserDataV0``, which sarama's decoder falls
  back to; a member with neither sends none).  Range and round robin send and
  read no user data.
* kafka-go, ``consumergroup.go`` (``joinGroup`` -> ``assignTopicPartitions``):
  the leader turns the JoinGroup members into ``[]GroupMember{ID, Topics,
  UserData}``, reads partitions for the union of the subscriptions (sorted)
  with ``conn.readPartitions`` and calls ``balancer.AssignGroups(members,
  partitions)``.  ``UserData`` is the balancer's ``UserData()``: nothing for
  range and round robin, the member's rack for rack-affinity; a partition's
  leader rack is the first replica's rack of the scenario (the preferred
  leader).  No claims or generations exist in kafka-go's protocol: none are
  passed.

The driver (package data: ``go/driver.go``, beside ``go/debian.json``, the
pinned manifest) is built on first use by :func:`install`:

* The Debian packages are fetched by URL from the Debian pool
  (``$ASSIGNMENT_ORACLE_DEBIAN_MIRROR``, default ``https://deb.debian.org/debian``),
  each checked against the manifest's SHA-256, cached in
  ``$XDG_CACHE_HOME/assignment-oracle/go/debs/``, and unpacked by this module
  (a ``.deb`` is an ``ar`` archive holding ``data.tar.xz``).  Not ``apt-get
  download``: that resolves whatever the suite holds today, and the sha256 of
  the manifest is what makes the install reproducible; nor ``dpkg -x``: so the
  install needs neither apt nor dpkg, only Python and the network.  The
  manifest itself was made by ``python -m assignment_oracle.heuristics.go_peers
  pin`` (apt-get with a private sources list for the suite, signatures checked
  by apt; the ``golang-*`` dependency closure of the two library packages plus
  the suite's default Go toolchain).  Debian removes superseded versions from
  its pool: when a pinned file is gone, the install fails in one line naming
  that command, which pins the suite's current versions.
* The sources (``usr/share/gocode/src``, test files and ``testdata`` left
  out) and the toolchain (``usr/lib/go-1.NN``) are unpacked in a temporary
  folder, the driver built there in GOPATH mode (``GO111MODULE=off``, no
  module downloads, ``CGO_ENABLED=0``: a static binary) with the runtime
  overlay below, and moved with its ``versions.json`` into
  ``$XDG_CACHE_HOME/assignment-oracle/go/<hash of the manifest, driver.go and
  runtime_rand.go>/`` by one rename, so a concurrent or killed install never
  leaves a half-built driver in use; the unpacked tree is deleted.  About
  115 MB are downloaded once (the toolchain is two fifths of it) and ``go
  build`` dominates the time: measured here, 52 s from nothing, 50 to 90 s
  with the downloads cached (the machine's load decides; the overlay costs
  nothing measurable, the runtime is compiled either way).

The same scenario gets the same answer in every run, byte for byte, though
Go randomises map order per process (sarama's sticky depends on it: below).
All of Go's map randomness -- each map's hash seed, each iteration's start --
comes from the runtime's generator (``runtime.rand``: per thread, chacha8,
seeded from a global state that ``randinit`` seeds from the kernel's random
bytes).  ``go build -overlay`` replaces the toolchain's
``src/runtime/rand.go`` for this build only (the unpacked toolchain is not
changed) with ``go/runtime_rand.go``: Go 1.27.3's file (checked by SHA-256
first) with two marked edits, the global seed the constant ``pinnedSeed``,
and a new thread's cheap generators seeded from the global state rather than
from the generator of the thread that starts it (which made the main
thread's draws depend on how many threads it had started, so on timing).
The driver locks its main goroutine to the main thread (its draws all come
from that thread's generator).  Measured: one answer in 400 runs of one
sticky scenario (8 at a time, ``GOMAXPROCS`` 1 to 3; also under ``GOGC=1``),
three runs of 300 generated scenarios identical (the unpinned build varied on
221 of them in three runs), and every other peer's answers unchanged.  What
the peer answers is what sarama answers with the runtime's random source in
that one state: one of the answers real sarama gives, the same every run,
not a sorted or "canonical" variant (the code run is sarama's, unchanged).

Not on Linux x86-64 (the pinned toolchain's architecture):
:class:`~assignment_oracle.problem.errors.MissingRuntime`; not installed:
:class:`GoLibrariesNotInstalled`, which names the command
(``assignment-oracle install-peers go``; also ``python -m assignment_oracle.heuristics.go_peers install``).

Found (tests/heuristics/test_go_peers.py):

* kafka-go's round robin deals each topic on its own, starting again at the
  first subscriber: topics ``t0`` and ``t1`` of one partition each, ``a`` and
  ``b`` subscribing to both: ``a`` gets both, ``b`` none (Kafka's round robin
  deals across topics: one each).  Unbalanced by more than one on identical
  subscriptions, which Kafka's ``roundrobin`` guarantees.
* kafka-go's range gives a topic's extra partitions to the *last* members:
  ``t0`` of 3 partitions, ``a`` and ``b``: ``a`` gets ``[0]``, ``b`` ``[1,
  2]``; Kafka gives ``a`` ``[0, 1]``.  Deliberate as far as its own tests go
  (``TestRangeAssignGroups`` expects it), while its doc comment shows Kafka's
  order ("5 partitions, 2 consumers: C0: [0, 1, 2]").  Per-topic balanced
  still, so ``range``'s guarantee holds; the answers differ.
* kafka-go assigns nothing at all when one subscribed topic does not exist:
  the coordinator's metadata request fails for all topics, and the leader
  balances an empty partition list (its comment says a missing topic only
  results "in no assignments for the topic").
* sarama's round robin orders partitions by the string ``"topic-partition"``:
  partition 10 comes before 2, and topics whose names extend another's
  interleave (topics ``t`` and ``t-0``: ``t-0-0`` sorts between ``t-0`` and
  ``t-1``).  Still balanced on identical subscriptions;
  not Kafka's order, so the answers differ once a topic has 11 partitions.
* sarama's leader fails the rebalance when a subscribed topic does not exist
  (``client.Partitions`` returns ``ErrUnknownTopicOrPartition``), whatever the
  strategy; Kafka skips the topic.  (sarama's own sticky tests cover a deleted
  topic by leaving it out of ``Plan``'s topics, which the leader never does.)
* sarama's sticky is not reproducible: it hands out unassigned partitions in
  Go map order, so in real groups the same JoinGroup gets different plans
  from run to run (``t0`` of 3 partitions, fresh members ``a`` and ``b``:
  three different answers over 30 runs, each balanced), and of two claims on
  one partition in the same generation the one Go's map meets first wins.
  Kafka's answer is one.  The peer gives one of them, the same every run (the
  runtime's seed pinned, above); the test shows the others by running the
  driver with its generator advanced first (``driver sarama:sticky N``).
* Neither library reads ``group.instance.id`` (KIP-345) or racks (KIP-881):
  with static members or racks in the group, Kafka's answer differs.

Notes
-----
Each call starts the driver (a static Go binary, a few milliseconds).
Measured on 400 generated scenarios (every family but join groups and
weights, 399 judged): sarama's three and kafka-go's range and rack affinity always kept
their guarantee; kafka-go's round robin broke it on 91 of them.  sarama's
range equals Kafka's range on every group it can express; its round robin
equals Kafka's while no topic has more than ten partitions.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Callable

from assignment_oracle.heuristics import external
from assignment_oracle.heuristics.external import DEFAULT_TIMEOUT, ExternalCommand, PeerLibrariesNotInstalled, on_path
from assignment_oracle.problem.errors import MissingRuntime
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "DRIVER_SOURCE",
    "EXTRA",
    "INSTALL_COMMAND",
    "LIBRARY",
    "MANIFEST",
    "RUNTIME_OVERLAY",
    "STRATEGIES",
    "GoLibrariesNotInstalled",
    "assign_kafka_go_rack_affinity",
    "assign_kafka_go_range",
    "assign_kafka_go_roundrobin",
    "assign_sarama_range",
    "assign_sarama_roundrobin",
    "assign_sarama_sticky",
    "install",
    "installed_driver",
    "pin",
    "require",
    "version",
]

#: The Go libraries whose balancers are judged here (pinned in ``go/debian.json``).
LIBRARY = ("sarama", "kafka-go")
#: The name of this group of peers in the install instructions.
EXTRA = "go"
#: The folder shipped as package data: the driver's source and the pinned manifest.
GO_DIR = Path(__file__).with_name("go")
DRIVER_SOURCE = GO_DIR / "driver.go"
MANIFEST = GO_DIR / "debian.json"
#: The overlay the driver is built with: Go's ``src/runtime/rand.go`` with the random generator's seed a constant.
RUNTIME_OVERLAY = GO_DIR / "runtime_rand.go"
#: The file of the pinned toolchain :data:`RUNTIME_OVERLAY` replaces, and the SHA-256 of the one it was made from
#: (Go 1.27.3's): a toolchain pinned since with another ``rand.go`` fails the install until the overlay is remade.
RUNTIME_FILE = "src/runtime/rand.go"
RUNTIME_FILE_SHA256 = "2cad544cf8ffabfb8fcf88e4687b6f6452d9f0ba5bb6aca570aa69bee6a167d0"
#: What installs the libraries (the message of :class:`GoLibrariesNotInstalled` names it).
INSTALL_COMMAND = "assignment-oracle install-peers go"
#: What re-pins the manifest when Debian's pool no longer has a pinned file.
PIN_COMMAND = "python -m assignment_oracle.heuristics.go_peers pin"
#: Seconds the whole install may take (download, unpack, build; about a minute here).
INSTALL_TIMEOUT = 900.0
#: The Debian mirror the pinned files are fetched from (``$ASSIGNMENT_ORACLE_DEBIAN_MIRROR`` overrides it).
MIRROR_VARIABLE = "ASSIGNMENT_ORACLE_DEBIAN_MIRROR"
DEFAULT_MIRROR = "https://deb.debian.org/debian"
#: The Debian package of each library (what :func:`pin` starts the dependency closure from).
PACKAGES = {"sarama": "golang-github-ibm-sarama-dev", "kafka-go": "golang-github-segmentio-kafka-go-dev"}
#: The suite :func:`pin` pins by default: Debian testing (the same versions as sid, a little slower to move).
DEFAULT_SUITE = "forky"


class GoLibrariesNotInstalled(PeerLibrariesNotInstalled):
    """The Go driver is not built in the cache: one line naming the install command."""

    extra, libraries, verb, command = EXTRA, "sarama and kafka-go", "built", INSTALL_COMMAND
    peers = "each Go peer"


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/assignment-oracle/go`` (else ``~/.cache/assignment-oracle/go``)."""
    return external.peer_cache_root("go")


def _install_dir(cache: Path | None = None) -> Path:
    """The install's folder, named by the manifest, the driver's source and the runtime overlay as shipped."""
    return external.peer_install_folder("go", (MANIFEST, DRIVER_SOURCE, RUNTIME_OVERLAY), cache)


def _complete(folder: Path) -> bool:
    return (folder / "driver").is_file() and (folder / "versions.json").is_file()


def installed_driver(cache: Path | None = None) -> Path | None:
    """The built driver, or ``None``."""
    folder = _install_dir(cache)
    return folder / "driver" if _complete(folder) else None


def version(library: str | None = None) -> str | None:
    """The installed version of ``library`` (``"sarama"`` or ``"kafka-go"``), or ``None``.

    Without ``library``: both, ``"sarama 1.50.1, kafka-go 0.4.51"``, or ``None`` when not installed.
    """
    if library is None:
        return external.joined_versions(LIBRARY, version)
    driver = installed_driver()
    return external.installed_library_version(
        library, LIBRARY, "Go", driver and driver.parent / "versions.json", library
    )


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text("utf-8"))


def _upstream(debian_version: str) -> str:
    """``1:0.58.0-1`` -> ``0.58.0``; ``0.4.51+ds1-1`` -> ``0.4.51``: the upstream release."""
    text = debian_version.split(":", 1)[-1].rsplit("-", 1)[0]
    return re.split(r"[+~]", text)[0]


def _check_platform(needed_by: str) -> None:
    """The pinned toolchain is Debian's ``amd64`` build: elsewhere, :class:`MissingRuntime` in one line."""
    machine = platform.machine().lower()
    if not sys.platform.startswith("linux") or machine not in ("x86_64", "amd64"):
        raise MissingRuntime(
            f"{needed_by} needs Linux on x86-64 (the pinned Go toolchain is Debian's amd64 build; this machine: "
            f"{sys.platform} {machine or 'unknown'})"
        )


# -- fetching and unpacking the pinned Debian packages ----------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fetch(entry: dict, debs: Path, mirror: str, deadline: float) -> Path:
    """The pinned ``.deb`` of ``entry``: from the download cache if its SHA-256 matches, else downloaded."""
    target = debs / Path(entry["filename"]).name
    if target.is_file() and _sha256(target) == entry["sha256"]:
        return target
    url = f"{mirror.rstrip('/')}/{entry['filename']}"
    partial = debs / f".{target.name}.{os.getpid()}.part"
    try:
        remaining = max(1.0, deadline - time.monotonic())
        with urllib.request.urlopen(url, timeout=min(60.0, remaining)) as response, partial.open("wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
        if _sha256(partial) != entry["sha256"]:
            raise RuntimeError(f"{url} does not match the SHA-256 pinned in {MANIFEST.name}")
        os.replace(partial, target)
    except urllib.error.HTTPError as err:
        if err.code == 404:
            raise RuntimeError(
                f"{entry['package']} {entry['version']} is no longer in Debian's pool ({url}): "
                f"re-pin with {PIN_COMMAND}"
            ) from None
        raise RuntimeError(f"cannot download {url}: HTTP {err.code}") from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", None) or err
        raise RuntimeError(f"cannot download {url}: {reason}") from None
    finally:
        partial.unlink(missing_ok=True)
    return target


def _ar_member(stream: IO[bytes], prefix: bytes) -> tuple[int, int]:
    """(offset, size) of the first member of an ``ar`` archive (a ``.deb``) whose name starts with ``prefix``."""
    if stream.read(8) != b"!<arch>\n":
        raise RuntimeError("not a Debian package (no ar header)")
    while True:
        header = stream.read(60)
        if len(header) < 60:
            raise RuntimeError(f"no {prefix.decode()}* member in the Debian package")
        name, size = header[:16].strip(), int(header[48:58].strip())
        if name.startswith(prefix):
            return stream.tell(), size
        stream.seek(size + (size & 1), os.SEEK_CUR)


class _Slice:
    """A read-only window ``[offset, offset + size)`` of a file, for :mod:`tarfile`."""

    def __init__(self, stream: IO[bytes], offset: int, size: int) -> None:
        self.stream, self.start, self.end, self.at = stream, offset, offset + size, offset

    def read(self, n: int = -1) -> bytes:
        self.stream.seek(self.at)
        n = self.end - self.at if n < 0 else min(n, self.end - self.at)
        data = self.stream.read(n)
        self.at += len(data)
        return data


def _wanted(name: str) -> bool:
    """Library sources without their tests and test data (``go build`` reads neither); the toolchain whole."""
    if "/gocode/" not in name:
        return True
    return not (name.endswith("_test.go") or "/testdata/" in f"{name}/")


def _unpack(deb: Path, root: Path) -> None:
    """``dpkg -x`` in Python: ``data.tar.*`` of the ``.deb`` into ``root`` (links kept inside ``root``)."""
    with deb.open("rb") as stream:
        offset, size = _ar_member(stream, b"data.tar")
        with tarfile.open(fileobj=_Slice(stream, offset, size), mode="r|*") as archive:  # type: ignore[call-overload]
            for member in archive:
                if not _wanted(member.name):
                    continue
                archive.extract(member, root, filter="data")


# -- building the driver ----------------------------------------------------------------------------------------


def _go_environment(root: Path, work: Path, goroot: Path) -> dict[str, str]:
    keep = {name: os.environ[name] for name in ("PATH", "TMPDIR") if name in os.environ}
    return {
        **keep,
        "HOME": str(work),
        "GOROOT": str(goroot),
        "GOPATH": str(root / "usr" / "share" / "gocode"),
        "GO111MODULE": "off",
        "GOCACHE": str(work / "gocache"),
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
        "GOPROXY": "off",
        "GOFLAGS": "",
        "CGO_ENABLED": "0",
    }


def _runtime_overlay(goroot: Path, work: Path) -> Path:
    """``go build -overlay``'s file: the toolchain's ``src/runtime/rand.go`` replaced by :data:`RUNTIME_OVERLAY`,
    once the toolchain's file is checked to be the one the overlay was made from."""
    original = goroot / RUNTIME_FILE
    if not original.is_file() or _sha256(original) != RUNTIME_FILE_SHA256:
        raise RuntimeError(
            f"the pinned Go toolchain's {RUNTIME_FILE} is not the one {RUNTIME_OVERLAY.name} was made from "
            f"(Go 1.27.3's): remake the overlay from the new file (see its pinnedSeed) and update RUNTIME_FILE_SHA256"
        )
    replacement = work / RUNTIME_OVERLAY.name
    shutil.copyfile(RUNTIME_OVERLAY, replacement)
    overlay = work / "overlay.json"
    overlay.write_text(json.dumps({"Replace": {str(original): str(replacement)}}), "utf-8")
    return overlay


def install(*, cache: Path | None = None, timeout: float = INSTALL_TIMEOUT, mirror: str | None = None) -> Path:
    """Fetch the pinned Debian packages, unpack them and build the driver; its folder.

    Idempotent: a driver built from the same manifest and source is reused.
    Everything happens in a private folder beside the target, renamed into
    place when complete (the first rename wins).  Downloads are kept in
    ``<cache>/debs`` and reused while their SHA-256 matches.  ``cache``: the
    folder holding installs (default :func:`cache_root`).  Raises
    :class:`~assignment_oracle.problem.errors.MissingRuntime` off Linux
    x86-64, ``RuntimeError`` (one line) when a download or the build fails
    or the whole takes more than ``timeout`` seconds.
    """
    target = _install_dir(cache)
    if _complete(target):
        return target
    _check_platform("installing the Go peers")
    deadline = time.monotonic() + timeout
    manifest = _manifest()
    mirror = mirror or os.environ.get(MIRROR_VARIABLE) or manifest.get("mirror") or DEFAULT_MIRROR
    debs = target.parent / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        root = work / "root"
        for entry in manifest["packages"]:
            _unpack(_fetch(entry, debs, mirror, deadline), root)
            if time.monotonic() > deadline:
                raise RuntimeError(f"installing the Go peers took more than {timeout:g} s (unpacking)")
        goroot = root / manifest["goroot"]
        versions = {name: _upstream(lib["version"]) for name, lib in manifest["libraries"].items()}
        stamp = ",".join(f"{name}={v}" for name, v in versions.items())
        out = work / "out"
        out.mkdir()
        shutil.copyfile(DRIVER_SOURCE, work / "driver.go")
        overlay = _runtime_overlay(goroot, work)
        command = [
            str(goroot / "bin" / "go"),
            "build",
            "-overlay",
            str(overlay),
            "-trimpath",
            "-ldflags",
            f"-s -w -X main.versions={stamp}",
            "-o",
            str(out / "driver"),
            str(work / "driver.go"),
        ]
        try:
            result = subprocess.run(
                command,
                cwd=work,
                env=_go_environment(root, work, goroot),
                capture_output=True,
                text=True,
                timeout=max(1.0, deadline - time.monotonic()),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"installing the Go peers took more than {timeout:g} s (go build)") from None
        if result.returncode != 0 or not (out / "driver").is_file():
            lines = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
            first = (lines or [f"exit status {result.returncode}"])[0][:200]
            raise RuntimeError(f"go build of the Go peers' driver failed: {first}")
        (out / "versions.json").write_text(
            json.dumps({**versions, "go": _upstream(manifest["go"]["version"])}, indent=1) + "\n", "utf-8"
        )
        try:
            out.rename(target)
        except OSError:  # another install's rename came first: the same manifest, the same driver
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


# -- running it -------------------------------------------------------------------------------------------------


@functools.cache
def _command(strategy: str, driver: str, timeout: float) -> ExternalCommand:
    return ExternalCommand((driver, strategy), timeout=timeout)


def require(needed_by: str = "the Go peers") -> None:
    """Raise unless the Go peers can run: :class:`~problem.errors.MissingRuntime` off Linux x86-64,
    :class:`GoLibrariesNotInstalled` before ``assignment-oracle install-peers go`` (both exit 2)."""
    if installed_driver() is None:
        _check_platform(needed_by)
        raise GoLibrariesNotInstalled(needed_by, str(_install_dir()))


def _run(strategy: str, problem: Problem, timeout: float = DEFAULT_TIMEOUT) -> Assignment:
    """``driver STRATEGY`` over the external protocol."""
    require(strategy)
    driver = installed_driver()
    assert driver is not None  # require() checked
    return _command(strategy, str(driver), timeout)(problem)


def assign_sarama_range(problem: Problem) -> Assignment:
    """sarama 1.50.1's ``NewBalanceStrategyRange``: per topic, contiguous ranges to its subscribers by id."""
    return _run("sarama:range", problem)


def assign_sarama_roundrobin(problem: Problem) -> Assignment:
    """sarama 1.50.1's ``NewBalanceStrategyRoundRobin``: partitions sorted as the strings ``"topic-N"``, dealt
    to members by id, skipping non-subscribers."""
    return _run("sarama:roundrobin", problem)


def assign_sarama_sticky(problem: Problem) -> Assignment:
    """sarama 1.50.1's ``NewBalanceStrategySticky`` (Kafka 2.3's sticky assignor, generations in the user
    data), with each member's claims sent as its ``AssignmentData``."""
    return _run("sarama:sticky", problem)


def assign_kafka_go_range(problem: Problem) -> Assignment:
    """kafka-go 0.4.51's ``RangeGroupBalancer``: per topic, contiguous ranges by id, the extras to the last."""
    return _run("kafka-go:range", problem)


def assign_kafka_go_roundrobin(problem: Problem) -> Assignment:
    """kafka-go 0.4.51's ``RoundRobinGroupBalancer``: each topic dealt on its own from its first subscriber."""
    return _run("kafka-go:roundrobin", problem)


def assign_kafka_go_rack_affinity(problem: Problem) -> Assignment:
    """kafka-go 0.4.51's ``RackAffinityGroupBalancer``: per topic, partitions to members in their leader's rack
    first, then the rest."""
    return _run("kafka-go:rack-affinity", problem)


#: ``"library:strategy"`` -> (assign function, this project's port of the Kafka class it claims to implement
#: or ``None``, summary).
STRATEGIES: dict[str, tuple[Callable[[Problem], Assignment], str | None, str]] = {
    "sarama:range": (
        assign_sarama_range,
        "range",
        "sarama's range: per topic, contiguous ranges to subscribers by id (no static members, no racks)",
    ),
    "sarama:roundrobin": (
        assign_sarama_roundrobin,
        "roundrobin",
        "sarama's round robin: partitions in string order ('t-10' before 't-2'), dealt to subscribers by id",
    ),
    "sarama:sticky": (
        assign_sarama_sticky,
        "sticky",
        "sarama's sticky: Kafka 2.3's StickyAssignor translated to Go, claims and generations in user data",
    ),
    "kafka-go:range": (
        assign_kafka_go_range,
        "range",
        "kafka-go's range: per topic, contiguous ranges to subscribers by id, extra partitions to the last",
    ),
    "kafka-go:roundrobin": (
        assign_kafka_go_roundrobin,
        "roundrobin",
        "kafka-go's round robin: each topic dealt separately from its first subscriber (not across topics)",
    ),
    "kafka-go:rack-affinity": (
        assign_kafka_go_rack_affinity,
        None,
        "kafka-go's rack affinity: per topic, to members in the partition leader's rack first",
    ),
}


# -- pinning (for maintainers: needs apt-get) -------------------------------------------------------------------


def _apt_options(folder: Path, suite: str, mirror: str) -> list[str]:
    (folder / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (folder / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = folder / "sources.list"
    sources.write_text(
        f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {mirror} {suite} main\n", "utf-8"
    )
    settings = {
        "Dir::Etc::SourceList": sources,
        "Dir::Etc::SourceParts": "/nonexistent",
        "Dir::State::Lists": folder / "lists",
        "Dir::Cache": folder / "cache",
    }
    return [part for name, value in settings.items() for part in ("-o", f"{name}={value}")]


def _show(apt_cache: str, options: list[str], package: str) -> dict[str, str]:
    result = subprocess.run(
        [apt_cache, *options, "show", "--no-all-versions", package],
        capture_output=True,
        text=True,
        check=False,
    )
    fields: dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line[:1].isspace() or ":" not in line:
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, value.strip())
    if "Filename" not in fields:
        raise RuntimeError(f"{package} is not in the suite ({result.stderr.strip()[:120]})")
    return fields


def _depends(fields: dict[str, str]) -> list[str]:
    names = []
    for clause in fields.get("Depends", "").split(","):
        first = clause.split("|")[0].strip()
        if first:
            names.append(re.split(r"[\s(:]", first)[0])
    return names


def pin(suite: str = DEFAULT_SUITE, mirror: str = DEFAULT_MIRROR, output: Path = MANIFEST) -> dict:
    """Write ``output``: the suite's current library packages, their ``golang-*`` dependency closure and the
    suite's default Go toolchain, each with its pool file name and SHA-256 (from apt's signed index).

    A toolchain whose ``src/runtime/rand.go`` is not the one ``go/runtime_rand.go`` was made from makes
    :func:`install` fail until the overlay is remade from the new file (:data:`RUNTIME_FILE_SHA256`)."""
    apt_get = on_path("apt-get", "pinning the Go peers", "Debian's apt", "a Debian or Ubuntu machine")
    apt_cache = on_path("apt-cache", "pinning the Go peers", "Debian's apt", "a Debian or Ubuntu machine")
    with tempfile.TemporaryDirectory(prefix="go-peers-pin.") as folder:
        options = _apt_options(Path(folder), suite, mirror)
        subprocess.run(
            [apt_get, *options, "-q", "update"],
            check=True,
            capture_output=True,
        )
        seen: dict[str, dict[str, str]] = {}
        pending = list(PACKAGES.values())
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen[name] = _show(apt_cache, options, name)
            pending += [d for d in _depends(seen[name]) if d.startswith("golang-") and d.endswith("-dev")]
        toolchain = [
            d for d in _depends(_show(apt_cache, options, "golang-go")) if re.fullmatch(r"golang-1\.\d+-go", d)
        ]
        go = toolchain[0]
        for name in (go, go.replace("-go", "-src")):
            seen[name] = _show(apt_cache, options, name)
    manifest = {
        "about": f"Debian {suite} packages the Go peers build from, pinned by {PIN_COMMAND}",
        "suite": suite,
        "mirror": mirror,
        "architecture": "amd64",
        "goroot": f"usr/lib/{go.removesuffix('-go').replace('golang-', 'go-')}",
        "go": {"package": go, "version": seen[go]["Version"]},
        "libraries": {lib: {"package": p, "version": seen[p]["Version"]} for lib, p in PACKAGES.items()},
        "packages": [
            {
                "package": name,
                "version": fields["Version"],
                "filename": fields["Filename"],
                "size": int(fields["Size"]),
                "sha256": fields["SHA256"],
            }
            for name, fields in sorted(seen.items())
        ],
    }
    output.write_text(json.dumps(manifest, indent=1) + "\n", "utf-8")
    return manifest


def _main(argv: list[str]) -> int:
    if argv not in (["install"], ["pin"]):
        print(f"usage: {INSTALL_COMMAND}  (or: {PIN_COMMAND})", file=sys.stderr)
        return 2

    def step() -> str:
        if argv == ["pin"]:
            manifest = pin()
            return f"pinned {len(manifest['packages'])} packages of Debian {manifest['suite']} in {MANIFEST}"
        folder = install()
        return f"sarama {version('sarama')} and kafka-go {version('kafka-go')} installed in {folder}"

    return external.install_peers_main(step)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
