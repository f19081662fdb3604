"""Values and keys in messages: how a curator's input is quoted and what a wrong key may mean.

Wording, not math: kept apart from the rating rules so that the words can change on their own.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time
from typing import Any

def type_name(value: Any) -> str:
    """The kind of a TOML value in words ("a table", "a time of day"), never a Python type name."""
    if isinstance(value, bool):
        return "a true/false value"
    if isinstance(value, datetime):
        return "a date-time"
    if isinstance(value, date):
        return "a date"
    if isinstance(value, time):
        return "a time of day"
    return {int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), "nothing")


# --- values and keys in messages ---------------------------------------------------
#
# A curator reads "got '3'" as the number 3 and "got datetime.time(20, 5)" as noise:
# values are shown as TOML writes them, with what they are and, for text that looks
# like a number, a date or a boolean, that quotes are the mistake.

SHOWN_CHARS = 80       # longer text, lists and tables are cut or described, not printed whole
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|inf|nan)\Z")
_DATE_TEXT = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2}:\d{2}")


def toml_text(value: Any) -> str:
    """A value in TOML notation: "text" (escaped), 3, 0.5, true, 2026-03-14, [1, 2], { a = 1 }."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)    # JSON escapes are TOML basic-string escapes
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{k if re.fullmatch(r'[A-Za-z0-9_-]+', k) else toml_text(k)} = {toml_text(v)}"
                          for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return str(value)


def value_text(value: Any) -> str:
    """What a curator wrote, for "got ...": the value as TOML shows it and what it is.

    ``the text "3" (numbers are written without quotes)``, ``a time of day without a
    date (20:05:00)``, ``the list [0, "Gold"]``: never a Python repr or type name.
    """
    if isinstance(value, str):
        shown = toml_text(value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS - 3] + "…")
        bare = value.strip()
        if _NUMBER_TEXT.match(bare):
            return f"the text {shown} (numbers are written without quotes)"
        if _DATE_TEXT.match(bare):
            return f"the text {shown} (dates are written without quotes)"
        if bare.lower() in ("true", "false"):
            return f"the text {shown} (true and false are written without quotes, in lower case)"
        return f"the text {shown}"
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return toml_text(value)
    if isinstance(value, datetime):
        return f"the date-time {toml_text(value)}"
    if isinstance(value, date):
        return f"the date {toml_text(value)}"
    if isinstance(value, time):
        return f"a time of day without a date ({toml_text(value)})"
    if isinstance(value, (list, dict)):
        kind = "list" if isinstance(value, list) else "table"
        shown = toml_text(value)
        if len(shown) <= SHOWN_CHARS:
            return f"the {kind} {shown}"
        return f"a list of {len(value)} values" if kind == "list" else f"a table with keys {', '.join(value)}"
    return "nothing"


def close_to(key: str, options: Iterable[str]) -> str | None:
    """The option a misspelt key most likely stands for (`player` -> `players`), or None."""
    lowered = {option.lower(): option for option in options}
    found = difflib.get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None


def did_you_mean(key: str, options: Iterable[str]) -> str:
    """"did you mean 'players'? " for a close option, else ""."""
    near = close_to(key, options)
    return f"did you mean {near!r}? " if near is not None and near != key else ""


def spec_page(system: str) -> str:
    return f"see the {system} spec page (spec/{system}/ on the site)"


def elsewhere(key: str, kind: str, system: str) -> str:
    """"'goals' is a key of lunaro players; " when another system has the key ``kind`` is
    "players" (player fields) or "matches" (match keys) — a match pasted into the wrong league."""
    from sitegen.rating.registry import SYSTEMS      # filled as the systems are imported
    owners = []
    for name, cls in SYSTEMS.items():
        keys = {f.name for f in cls.fields} if kind == "players" else set(cls.match_keys)
        if name != system and key in keys:
            owners.append(name)
    if not owners:
        return ""
    return f"{key!r} is a key of {' and '.join(owners)} {kind}; "


def unknown_key(key: str, allowed: Sequence[str], *, kind: str = "players", system: str | None = None,
                hint: str = "") -> str:
    """The message for a key that is not allowed: a close match, whose key it is, what is allowed.

    ``kind`` names the tables checked ("matches", "players", "teams"); with ``system`` the
    message names the league's system and its spec page. ``hint`` is the caller's own
    explanation ("...; "), used when no key is close.
    """
    return _unknown_key(key, tuple(allowed), kind, system, hint)


@functools.lru_cache(maxsize=1024)
def _unknown_key(key: str, allowed: tuple[str, ...], kind: str, system: str | None, hint: str) -> str:
    # Cached: a converted history repeats one wrong key in every match, and the close-match
    # search costs more than locating the problem's line.
    if system is None:
        hint = did_you_mean(key, allowed) or hint
        return f"unknown key; {hint}allowed keys: {', '.join(allowed)}"
    # Another system's exact key (a match pasted into the wrong league) says more than a
    # close spelling: lunaro's `ping` is not a misspelt elo `points`.
    owned = elsewhere(key, kind, system) if kind in ("players", "matches") else ""
    hint = owned or did_you_mean(key, allowed) or hint
    return f"unknown key; {hint}{kind} of this {system} league have: {', '.join(allowed)} — {spec_page(system)}"

