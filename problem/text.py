"""How a name from a scenario is shown to a person: control characters escaped, nothing else changed.

A member, topic or rack name is any string Kafka accepts, and a scenario
can carry one with a newline, a carriage return, an ANSI escape sequence or
a bidirectional override in it.  Printed raw, such a name could forge a line
of the tool's own output (``"b\\nverdict: optimal on every tier"``), clear
the screen, or reorder what a terminal shows.  Every human-readable output
(``check``, ``compare``, ``explain``, ``simulate``, ``sweep``'s table, the
report's tables) shows names through :func:`printable`, which writes those
characters as Python-style escapes (``\\n``, ``\\x1b``, ``\\u202e``).  JSON
outputs carry the names exactly.
"""

from __future__ import annotations

import re

__all__ = ["printable", "lines_text"]

#: C0 and C1 controls and DEL (Unicode category Cc), the line and paragraph separators, the
#: bidirectional formatting characters (marks, embeddings, overrides, isolates), and lone surrogates
#: (not Unicode: no terminal could be sent one).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(name: str) -> str:
    """``name`` with every control, separator and bidi formatting character escaped (others as given)."""
    return _CONTROL.sub(_escape, name) if _CONTROL.search(name) else name


def lines_text(lines) -> str:
    """Text for people from ``lines``, each meant as one line: each shown through :func:`printable`, so a
    name inside a line cannot break it into two."""
    return "".join(printable(line) + "\n" for line in lines)
