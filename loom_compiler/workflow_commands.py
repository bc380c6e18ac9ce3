"""GitHub Actions workflow commands (``::error file=…,line=…,title=…::message``): one spelling.

``loom diff``/``loom check`` (``review.render``) and ``loom deploy-check`` (``ops.deploy_report``)
print annotations; both escape the way the runner parses them: ``%``, CR and LF in the message, and
additionally ``:`` and ``,`` in a property. Rejected: each renderer escaping for itself (two copies
of a rule that a runner change would have to find twice).
"""

from __future__ import annotations

__all__ = ["escape_data", "escape_property", "command"]


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, *, title: str, file: str | None = None, line: int = 0, prefix: str = "") -> str:
    """One annotation at ``prefix + file``:``line`` (both optional), titled ``title``."""
    props = []
    if file:
        props.append(f"file={escape_property(prefix + file)}")
        if line:
            props.append(f"line={line}")
    props.append(f"title={escape_property(title)}")
    return f"::{level} {','.join(props)}::{escape_data(message)}"
