"""TOML text for the files sitegen writes (`sitegen new-match`) and the demo generator's match files.

Every value's text (string escapes, numbers, dates and times, arrays) is tomlkit's, so one
maintained library decides what valid TOML is. The layout around the values (which keys,
where lines break, the comments) stays with each writer: match files keep one player per
line, and `sitegen new-match` aligns its comments, which a whole-document writer would not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomlkit


def value(v: Any) -> str:
    """A value's TOML text; a table is written inline, with a space inside its braces."""
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    return tomlkit.item(v).as_string()


def key(k: str) -> str:
    """A key: bare when TOML allows it, quoted otherwise."""
    return tomlkit.key(k).as_string()


def string(text: str) -> str:
    """A basic string, always quoted (a quoted key too): quotes, backslashes and control characters escaped."""
    return tomlkit.string(text).as_string()


def multiline(text: str) -> str:
    """A multi-line basic string that opens on a line of its own (TOML drops that first newline)."""
    body = tomlkit.string(text, multiline=True).as_string()
    # tomlkit opens on a line of its own only where the text starts with a newline itself.
    return body if body.startswith('"""\n') else '"""\n' + body[3:]
