"""Match pages grouped by match file: one page per file, in numbered parts when it is long.

A page per match cost ~8 KB a match (a million matches would not fit a 1 GB site).
Every match instead is a row group with its own anchor on its file's page, so a
match's address is ``leagues/<league>/matches/<file>/#m-<id>``, or ``.../<file>/2/#m-<id>``
for the second part of a long file. No I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from slugify import slugify

if TYPE_CHECKING:
    from sitegen.model.views import MatchView

# A part closes at this many matches, or earlier once it holds this many player lines:
# a page of 100 duels is ~40 KB, and a 100-player lobby league still gets pages of that order.
MATCHES_PER_PART = 100
LINES_PER_PART = 2000

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def anchor(match_id: str) -> str:
    """The fragment naming a match on its page. Contract ids are already URL- and id-safe;
    anything else is escaped one-to-one (``~XX`` per UTF-8 byte, ``~`` itself included),
    so two ids never share an anchor. The ``m-`` prefix keeps clear of the layout's own ids
    ("main" is a valid match id)."""
    escaped = _UNSAFE.sub(lambda m: "".join(f"~{b:02X}" for b in m.group().encode()), match_id)
    return f"m-{escaped}"


@dataclass(slots=True)
class MatchGroup:
    """One page of matches: all or part of one match file, in history order."""

    file: str                       # the match file, relative to the site root
    name: str                       # the file within its league, without ".toml": "2026/04-april"
    url: str                        # "leagues/x/matches/2026/04-april/" or ".../2/"
    part: int                       # 1-based
    matches: list[MatchView] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)   # the urls of every part of the file
    number: int = 0                 # 0-based position among the league's pages


def _folder(name: str) -> str:
    """The file's path within its league as URL-safe folder names: "2026/04-april"."""
    return "/".join(slugify(part, max_length=64) or "file" for part in name.split("/"))


def group_matches(views: list[MatchView], base: str, per_part: int | None = None,
                  sizes: list[int] | None = None) -> list[MatchGroup]:
    """Assign every match its page (``view.page``; ``view.url`` is its anchor there).

    Pages come in order of each file's first match in history; within a page, matches
    keep history order. Folder names that clash (two files slugging alike, or a file
    "x/2.toml" beside part 2 of "x.toml") take "-2", "-3" in that same order. A part holds
    up to ``per_part`` matches (default ``MATCHES_PER_PART``) and ``LINES_PER_PART`` lines;
    ``sizes``, where given, are each view's lines counted (views.LineColumns).
    """
    per_part = per_part or MATCHES_PER_PART
    by_file: dict[str, list[tuple[MatchView, int]]] = {}
    for v, n in zip(views, sizes if sizes is not None else map(len, (v.lines for v in views))):
        by_file.setdefault(v.match.file, []).append((v, n))
    # Where no id needs escaping (one search over them all), an anchor is "m-" and the id.
    plain = _UNSAFE.search("".join([v.match.id for v in views])) is None
    groups: list[MatchGroup] = []
    taken: set[str] = set()
    for file, members in by_file.items():
        part: list[MatchView] = []
        parts = [part]
        lines = 0
        for v, n in members:
            if part and (len(part) >= per_part or lines + n > LINES_PER_PART):
                part = []
                parts.append(part)
                lines = 0
            part.append(v)
            lines += n
        rel = file.split("/", 2)[2] if file.count("/") >= 2 else file   # matches/<league>/<path>
        name = rel[: -len(".toml")] if rel.endswith(".toml") else rel
        folder = _folder(name)
        candidate, n = folder, 1
        while True:
            urls = [f"{base}matches/{candidate}/" + (f"{k}/" if k > 1 else "") for k in range(1, len(parts) + 1)]
            if not taken.intersection(urls):
                break
            n += 1
            candidate = f"{folder}-{n}"
        taken.update(urls)
        for k, (url, chunk) in enumerate(zip(urls, parts), start=1):
            group = MatchGroup(file, name, url, k, chunk, urls, len(groups))
            for v in chunk:
                v.page = url
            if not plain:
                for v in chunk:
                    v.escaped = anchor(v.match.id)
            groups.append(group)
    return groups
