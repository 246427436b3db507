"""Capture a group as a scenario and its current assignment: from a running cluster, or from what Kafka's
tools printed; then judge it in place.

``capture_group`` is the one entry (the command line's ``capture``): ``bootstrap`` reads the cluster
(:mod:`.live`, the ``capture`` extra: kafka-python), ``group_description`` and ``topic_description`` read
the tools' saved texts (:mod:`.offline`, no extra).  Either gives a :class:`~.group.Capture` (the scenario
the group's assignor saw, the assignment it made, what else the cluster said); :func:`~.judged.judge_capture`
gives ``check``'s verdict on it and what the optimum would move from the current assignment.
"""

from __future__ import annotations

from assignment_oracle.compare.capture.group import Capture, candidate_path
from assignment_oracle.compare.capture.judged import CapturedVerdict, judge_capture
from assignment_oracle.problem.errors import InputError

__all__ = ["Capture", "CapturedVerdict", "candidate_path", "capture_group", "judge_capture"]


def capture_group(
    group: str,
    *,
    bootstrap: str | None = None,
    command_config: str | None = None,
    group_type: str = "auto",
    timeout: float = 30.0,
    group_description: str | None = None,
    topic_description: str | None = None,
    brokers: str | None = None,
    subscriptions: str = "same",
) -> Capture:
    """The :class:`Capture` of ``group``: live from ``bootstrap`` (with the client properties file
    ``command_config``), or offline from the tools' saved outputs (``group_description``,
    ``topic_description``, optionally ``brokers``).  Exactly one of the two ways; one line (exit 2) for any
    problem."""
    offline = group_description is not None or topic_description is not None or brokers is not None
    if bootstrap is not None and offline:
        raise InputError(
            "capture", "", "give --bootstrap-server or the tools' texts (--group-description ...), not both"
        )
    if bootstrap is None and not offline:
        raise InputError(
            "capture", "", "give --bootstrap-server HOST:PORT, or --group-description FILE and --topic-description FILE"
        )
    if offline:
        from assignment_oracle.compare.capture.offline import capture_offline, read_text

        if group_description is None or topic_description is None:
            raise InputError("capture", "", "offline needs both --group-description and --topic-description")
        if command_config is not None:
            raise InputError("--command-config", "", "applies to --bootstrap-server (a live read)")
        return capture_offline(
            group,
            read_text(group_description),
            read_text(topic_description),
            brokers_text=read_text(brokers) if brokers is not None else None,
            subscriptions=subscriptions,
            sources=(group_description, topic_description),
        )
    from assignment_oracle.compare.capture.client_config import ClientConfig, read_properties
    from assignment_oracle.compare.capture.live import capture_live

    config = read_properties(command_config) if command_config is not None else ClientConfig()
    return capture_live(bootstrap, group, config=config, timeout=timeout, group_type=group_type)
