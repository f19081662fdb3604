"""How matches read to people: lists of names, an event's name from its id."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sitegen.rating.values import Match, default_id

EN_DASH = "\u2013"


def versus(names: Sequence[str], shown: int = 4) -> str:
    """"A vs B vs C", at most ``shown`` names and then how many more."""
    text = " vs ".join(names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def listing(names: Sequence[str], shown: int = 3) -> str:
    """"A", "A and B", "A, B and C", "A, B and 5 others"."""
    if len(names) > shown:
        return f"{', '.join(names[:shown - 1])} and {len(names) - shown + 1} others"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_SMALL_WORDS = frozenset("a an and at de del di du en et in la le of on the to vs von".split())


def event_name(match: Match) -> str | None:
    """The event a match id names, for people: "2023-06-monaco-grand-prix" played in 2023 is
    "Monaco Grand Prix 2023". Only an id the curator wrote names anything: a default id
    (the file's path and the match's position) and an id of numbers and codes do not.
    """
    parts = match.file.split("/", 2)          # matches/<league>/<path in the league>
    if len(parts) == 3 and match.id == default_id(parts[2], match.position):
        return None
    words = [w for w in re.split(r"[-_.]+", match.id) if w]
    while words and not any(c.isalpha() for c in words[0]):
        words.pop(0)                          # a leading date or round number
    # Words of three letters or more make a name; "w10-eu-t1" is a code.
    if sum(1 for w in words if w.isalpha() and len(w) >= 3) < 2:
        return None
    text = " ".join(w if any(c.isupper() for c in w) else w if i and w in _SMALL_WORDS
                    else w.upper() if len(w) <= 2 and w.isalpha() else w.capitalize()
                    for i, w in enumerate(words))
    year = str(match.played.year)
    return text if year in words else f"{text} {year}"


LOBBY = 3          # a lobby shows its first three (players or teams), then "+N more"


def first_of(items: list[str], noun: str = "") -> str:
    """The first LOBBY items, then "+N more" for the rest."""
    shown = items[:LOBBY]
    if len(items) > LOBBY:
        shown.append(f"+{len(items) - LOBBY} more{noun}")
    return ", ".join(shown)


def amount(value: float | int) -> str:
    """A score as its match file gave it: 310, not 310.0; 1,200.5 grouped."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st, 111th."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
