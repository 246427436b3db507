"""The program itself, shared by its front (:mod:`assignment_oracle.cli`) and its commands
(:mod:`assignment_oracle.commands`): its name, its commands with one line each, the argument parser
that says a bad option in one line, and the bundled examples.  Imports nothing of the library."""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

PROG = "assignment-oracle"
#: Bad input (``InputError.exit_code``), without importing the library for it.
EXIT_BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """argparse, with a bad option or argument said in one line (exit 2), without the usage."""

    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


#: The commands, one line each (``--help`` and the overview ``assignment-oracle`` alone prints).
COMMANDS: dict[str, str] = {
    "demo": "solve the bundled KIP-54 and KIP-49 examples and judge every assignor on them",
    "solve": "the best assignment under the objective asked for, with its proof",
    "check": "judge an assignment against the optimum",
    "explain": "why an assignment is not optimal: the improving chain, or what could have stayed",
    "compare": "every assignor (or some) against the optimum, one row each",
    "assign": "run a heuristic assignor (see `assignors`)",
    "assignors": "list the registered assignors (consumer and Streams groups), one line each",
    "simulate": "churn: rebalance round after round, each against its optimum",
    "bugs": "replay the historical bug corpus, write an entry's scenarios, or replay your assignor on one",
    "test-assignor": "the CI oracle's battery on any assignor (external:, java:, registered): a shrunk counterexample",
    "generate": "write one scenario, churn history or Streams group from the bundled generators (seeded)",
    "capture": "read a running group (or kafka-consumer-groups.sh's text) as a scenario and its current assignment; --judge",
    "install-peers": "install the Node (kafkajs:*, kafka-node:*) or Go (sarama:*, kafka-go:*) client libraries the peers run",
    "sweep": "run a scenario sweep on Spark into Parquet (resumable)",
    "report": "execute the gap report notebook against a sweep; write it as standalone HTML",
    "schema": "print the JSON Schema of a format (scenario, assignment, verdict, solution, ...); --list",
}


def bundled_examples() -> list[Path]:
    """The bundled example scenarios (KIP-54 examples 1-3, KIP-49, the chain move)."""
    folder = resources.files("assignment_oracle") / "examples"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))
