"""The Node client libraries' assignors, called directly: the peers ``kafkajs:roundrobin``, ``kafka-node:range``
and ``kafka-node:roundrobin``.

Guarantees: theirs, and the one they do not state.  kafkajs 2.2.4 ships one
assignor, ``PartitionAssigners.roundRobin`` (its JSDoc: "Assign the topics to
the provided members", an example that deals every partition around the
members); it names no Kafka class, but its name and protocol name claim
Kafka's round robin, so it is judged as ``roundrobin`` is (identical
subscriptions: balanced within one).  kafka-node 5.0.0's README offers
``'roundrobin' or 'range' string for built ins`` (``protocol`` of
``ConsumerGroup``), the Kafka strategies by their Kafka names: judged as
``roundrobin`` and ``range`` are (per-topic balance for range).

How each library's group leader calls its assignor (read in the libraries'
own source, ``node_modules`` of the pinned versions):

* kafkajs, ``src/consumer/consumerGroup.js`` (``[PRIVATE.SYNC]``): the leader
  calls ``assigner.assign({members, topics: topicsSubscribed})``: ``members``
  is the JoinGroup response (``memberId``, ``groupInstanceId``,
  ``memberMetadata``, the bytes each member's ``assigner.protocol({topics})``
  encoded with ``MemberMetadata.encode``), but ``topics`` is the *leader's own
  subscription*.  ``src/consumer/assigners/roundRobinAssigner/index.js`` never
  decodes the metadata: it deals every partition of those topics
  (``cluster.findTopicPartitionMetadata``) around all members sorted by id.
  It reads no claims and no generations (kafkajs sends no user data), so none
  are passed.  The leader here is the first member in the group's join order
  (the scenario's order; the broker makes the first member to join the leader).
* kafka-node, ``lib/consumerGroup.js`` (``handleJoinGroup`` ->
  ``assignPartitions``): the JoinGroup response decoded by
  ``lib/protocol/protocol.js`` ``decodeJoinGroupResponse`` (members ``{id,
  subscription, version, userData}``), metadata loaded for the union of the
  subscriptions, then ``protocol.assign(_.mapValues(metadata, Object.keys),
  groupMembers, cb)`` (``lib/assignment/range.js``, ``roundrobin.js``).  The
  adapter encodes the JoinGroup response as a broker sends it and decodes it
  with kafka-node's own decoder.  Built-in protocols send no user data: no
  claims, no generations.

``heuristics/node/adapter.js`` (package data, beside its ``package.json`` and
``package-lock.json`` pinning kafkajs 2.2.4 and kafka-node 5.0.0, the newest
on npm) does the calling; this module runs it over the external protocol
(:class:`~assignment_oracle.heuristics.external.ExternalCommand`, answers
checked by :func:`~assignment_oracle.heuristics.external.read_answer`) with
``NODE_PATH`` at the libraries :func:`install` put in
``$XDG_CACHE_HOME/assignment-oracle/node/<hash of the lockfile>/``.  Without
``node`` (or ``npm`` to install): :class:`~assignment_oracle.problem.errors.MissingRuntime`;
not installed: :class:`NodeLibrariesNotInstalled`, which names the command
(``assignment-oracle install-peers node``; also ``python -m assignment_oracle.heuristics.node_peers install``).

Found (tests/heuristics/test_node_peers.py):

* kafkajs's round robin gives members partitions of topics they never
  subscribed to whenever subscriptions differ, and leaves unassigned every
  topic only non-leaders subscribe to: topics ``t0`` (2 partitions) and
  ``t1`` (1), ``a`` on ``t0``, ``b`` on ``t1``: ``t0-1`` goes to ``b``, ``t1-0``
  to nobody.  A kafkajs member drops such topics on receipt
  (``consumerGroup.js``: "Consumer group received unsubscribed topics"), so
  those partitions go unconsumed.
* kafka-node's round robin deals topics in the metadata's order (here the
  scenario's topic order), not sorted as Kafka's ``RoundRobinAssignor`` does,
  and a JavaScript object lists integer-like topic names first (topics ``10``
  and ``9``: Kafka deals ``10`` first, kafka-node ``9``).
* kafka-node's range throws ``TypeError`` when a member subscribes to a topic
  the broker does not have (its metadata omits it; Kafka skips it).
* Both kafka-node assignors order members by id only (JoinGroup v0: no
  KIP-345 static members first, no KIP-881 racks); with static members or
  racks in the group, Kafka's answer differs.  On groups without them, range
  is Kafka's range, and round robin Kafka's on identical subscriptions.

Order: members reach both libraries in the group's join order and topics in
the scenario's order (:attr:`~assignment_oracle.problem.model.Problem.join_order`,
``topic_listing``; sent beside the scenario as ``join_order`` and
``topic_order``, since JavaScript puts integer-like object keys first), as a
leader receives them in JoinGroup and in its metadata.  Of the libraries'
own assignor tests the peers reproduce (``tests/heuristics/test_node_peers.py``):
kafkajs 2 of 2 (1 of 2 before issue 43: topics named like ``Object``'s
builtins crashed the adapter), kafka-node range 3 of 3, round robin 3 of 3
(1 of 3 before: topics were dealt in name order).

Notes
-----
Each call starts one ``node`` process (about 50 ms).  Partition numbers come
back from kafka-node's round robin as strings (``Object.keys``); the adapter
turns them into numbers, as kafka-node's SyncGroup encoder does.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from assignment_oracle.heuristics import external
from assignment_oracle.heuristics.external import DEFAULT_TIMEOUT, ExternalCommand, PeerLibrariesNotInstalled, on_path
from assignment_oracle.problem.model import Assignment, Problem

__all__ = [
    "ADAPTER",
    "EXTRA",
    "INSTALL_COMMAND",
    "LIBRARY",
    "STRATEGIES",
    "NodeLibrariesNotInstalled",
    "assign_kafka_node_range",
    "assign_kafka_node_roundrobin",
    "assign_kafkajs_roundrobin",
    "install",
    "installed_modules",
    "require",
    "version",
]

#: The npm packages whose assignors are judged here (pinned in ``node/package-lock.json``).
LIBRARY = ("kafkajs", "kafka-node")
#: The name of this group of peers in the install instructions.
EXTRA = "node"
#: The folder shipped as package data: the adapter, its package.json and lockfile.
NODE_DIR = Path(__file__).with_name("node")
ADAPTER = NODE_DIR / "adapter.js"
#: What installs the libraries (the message of :class:`NodeLibrariesNotInstalled` names it).
INSTALL_COMMAND = "assignment-oracle install-peers node"
#: Seconds ``npm ci`` may take (the two packages and their 126 dependencies take a few seconds).
INSTALL_TIMEOUT = 300.0
#: ``npm ci`` with no install scripts and no optional native codecs (kafka-node's snappy): pure JavaScript,
#: all the assignors need.
_NPM_CI = ("ci", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund", "--loglevel=error")


class NodeLibrariesNotInstalled(PeerLibrariesNotInstalled):
    """The pinned Node libraries are not in the cache: one line naming the install command."""

    extra, libraries, command = EXTRA, "kafkajs and kafka-node", INSTALL_COMMAND
    peers = "each Node peer"


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/assignment-oracle/node`` (else ``~/.cache/assignment-oracle/node``)."""
    return external.peer_cache_root("node")


def _install_dir(cache: Path | None = None) -> Path:
    """The install's folder, named by ``package.json`` and ``package-lock.json`` as shipped."""
    return external.peer_install_folder("node", (NODE_DIR / "package.json", NODE_DIR / "package-lock.json"), cache)


def _complete(folder: Path) -> bool:
    return all((folder / "node_modules" / name / "package.json").is_file() for name in LIBRARY)


def installed_modules(cache: Path | None = None) -> Path | None:
    """The ``node_modules`` folder of the installed libraries, or ``None``."""
    folder = _install_dir(cache)
    return folder / "node_modules" if _complete(folder) else None


def version(library: str | None = None) -> str | None:
    """The installed version of ``library`` (``"kafkajs"`` or ``"kafka-node"``), or ``None``.

    Without ``library``: both, ``"kafkajs 2.2.4, kafka-node 5.0.0"``, or ``None`` when not installed.
    """
    if library is None:
        return external.joined_versions(LIBRARY, version)
    modules = installed_modules()
    return external.installed_library_version(
        library, LIBRARY, "Node", modules and modules / library / "package.json", "version"
    )


def _program(name: str, needed_by: str) -> str:
    return on_path(name, needed_by, "Node.js 18 or later, with npm", "apt install nodejs npm")


def install(*, cache: Path | None = None, timeout: float = INSTALL_TIMEOUT) -> Path:
    """Install the pinned kafkajs and kafka-node (``npm ci`` of ``node/package-lock.json``); their folder.

    Idempotent: an install of the same lockfile is reused.  ``npm ci`` runs
    in a private folder beside the target, renamed into place when complete,
    so a concurrent install or a killed one never leaves a half-installed
    folder in use (the first rename wins).  ``cache``: the folder holding
    installs (default :func:`cache_root`).  Raises
    :class:`~assignment_oracle.problem.errors.MissingRuntime` without
    ``npm`` or ``node``, ``RuntimeError`` (one line) when ``npm ci`` fails
    or takes more than ``timeout`` seconds.
    """
    target = _install_dir(cache)
    if _complete(target):
        return target
    npm = _program("npm", "installing the Node peers")
    _program("node", "installing the Node peers")
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(NODE_DIR / name, work / name)
        try:
            result = subprocess.run(
                [npm, *_NPM_CI], cwd=work, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"npm ci took more than {timeout:g} s installing kafkajs and kafka-node") from None
        if result.returncode != 0 or not _complete(work):
            lines = [line.strip() for line in (result.stderr + result.stdout).splitlines() if "ERR" in line]
            first = (lines or [f"exit status {result.returncode}"])[0][:200]
            raise RuntimeError(f"npm ci failed installing kafkajs and kafka-node: {first}")
        try:
            work.rename(target)
        except OSError:  # another install's rename came first: the same lockfile, the same libraries
            pass
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return target


def require(needed_by: str = "the Node peers") -> None:
    """Raise unless the Node peers can run: :class:`~problem.errors.MissingRuntime` without ``node``,
    :class:`NodeLibrariesNotInstalled` before ``assignment-oracle install-peers node`` (both exit 2)."""
    _program("node", needed_by)
    if installed_modules() is None:
        raise NodeLibrariesNotInstalled(needed_by, str(_install_dir()))


@functools.cache
def _command(strategy: str, modules: str, node: str, timeout: float) -> ExternalCommand:
    return ExternalCommand((node, str(ADAPTER), strategy), timeout=timeout, env=(("NODE_PATH", modules),), orders=True)


def _run(strategy: str, problem: Problem, timeout: float = DEFAULT_TIMEOUT) -> Assignment:
    """``node adapter.js STRATEGY`` over the external protocol, with the installed libraries."""
    require(strategy)
    modules = installed_modules()
    assert modules is not None  # require() checked
    return _command(strategy, str(modules), _program("node", strategy), timeout)(problem)


def assign_kafkajs_roundrobin(problem: Problem) -> Assignment:
    """kafkajs 2.2.4's ``RoundRobinAssigner`` as its group leader calls it (see the module docstring).

    Every partition of the leader's subscribed topics, dealt around all
    members sorted by id, whatever each subscribes to.
    """
    return _run("kafkajs:roundrobin", problem)


def assign_kafka_node_range(problem: Problem) -> Assignment:
    """kafka-node 5.0.0's ``lib/assignment/range.js``: per topic, contiguous ranges to its subscribers by id."""
    return _run("kafka-node:range", problem)


def assign_kafka_node_roundrobin(problem: Problem) -> Assignment:
    """kafka-node 5.0.0's ``lib/assignment/roundrobin.js``: partitions dealt around members by id, skipping
    non-subscribers, topics in the metadata's order."""
    return _run("kafka-node:roundrobin", problem)


#: ``"library:strategy"`` -> (assign function, this project's port of the Kafka class it claims to implement
#: or ``None``, summary).
STRATEGIES: dict[str, tuple[Callable[[Problem], Assignment], str | None, str]] = {
    "kafkajs:roundrobin": (
        assign_kafkajs_roundrobin,
        "roundrobin",
        "kafkajs's RoundRobinAssigner: every partition of the leader's topics dealt to all members by id, "
        "subscriptions ignored",
    ),
    "kafka-node:range": (
        assign_kafka_node_range,
        "range",
        "kafka-node's range: per topic, contiguous ranges to subscribers by id (no static members, no racks)",
    ),
    "kafka-node:roundrobin": (
        assign_kafka_node_roundrobin,
        "roundrobin",
        "kafka-node's round robin: dealt to members by id, skipping non-subscribers, topics in metadata order",
    ),
}


def _main(argv: list[str]) -> int:
    if argv != ["install"]:
        print(f"usage: {INSTALL_COMMAND}", file=sys.stderr)
        return 2

    def step() -> str:
        folder = install()
        return f"kafkajs {version('kafkajs')} and kafka-node {version('kafka-node')} installed in {folder}"

    return external.install_peers_main(step)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
