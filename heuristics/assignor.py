"""One registered assignor of a consumer group, as every front door sees it: :class:`Assignor`, and the
guarantees an assignor can claim (:data:`GUARANTEE_NAMES`).

Guarantee: an :class:`Assignor` is a frozen record (its name, its ``assign(problem) -> Assignment``, where it
comes from, the one guarantee it claims, its protocol), whatever runs it: a port, a client library's peer, an
external program or a Java class.  The registry (:mod:`heuristics.registry`) lists them; the modules that
build one for a command (:mod:`heuristics.java_class`, :mod:`heuristics.external`) import this record, not the
registry, so the registry can import them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from assignment_oracle.problem.model import Assignment, Problem

if TYPE_CHECKING:
    from assignment_oracle.heuristics.cooperative_sticky import CooperativeRebalance

__all__ = ["Assignor", "GUARANTEE_NAMES"]


@dataclass(frozen=True)
class Assignor:
    """One registered assignor.

    Attributes
    ----------
    name:
        The registry key (Kafka's ``name()`` where Kafka has one).
    assign:
        ``assign(problem) -> Assignment``: the assignment members end up with
        (for a cooperative assignor, after its follow-up rebalances).
    origin:
        The Kafka class, or the KIP that proposed it.
    guarantee:
        The key of the guarantee it claims in :mod:`compare.judge.guarantees`.
    protocol:
        ``eager``, ``cooperative`` (KIP-429: moves take a second rebalance) or
        ``consumer`` (KIP-848: the group coordinator computes the target
        assignment, which members reach by revoking before they receive).
    summary:
        One line for ``assignment-oracle assignors``.
    rebalance:
        For a cooperative assignor, ``rebalance(problem)`` returns every
        rebalance of the protocol
        (:class:`heuristics.cooperative_sticky.CooperativeRebalance`), so
        that each can be judged on what members held in it.
    configurable:
        Whether a consumer can be configured with it in a Kafka release or client today
        (``False`` for proposals never shipped and for behaviour a newer release replaced):
        the report's verdict chooses among these.
    """

    name: str
    assign: Callable[[Problem], Assignment]
    origin: str
    guarantee: str
    protocol: str
    summary: str
    rebalance: Callable[[Problem], CooperativeRebalance] | None = None
    configurable: bool = True


#: The promises an assignor can claim; :data:`compare.judge.guarantees.GUARANTEES` checks each.
GUARANTEE_NAMES: tuple[str, ...] = (
    "per-topic-balance",
    "identical-subscriptions-balance",
    "kafka-balance",
    "cooperative-kafka-balance",
    "exact-balance",
    "stream-join",
    "valid",
)
