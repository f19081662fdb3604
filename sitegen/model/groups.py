"""Match pages grouped by match file: one page per file, in numbered parts when it is long.

A page per match cost ~8 KB a match (a million matches would not fit a 1 GB site).
Every match instead is a row group with its own anchor on its file's page, so a
match's address is ``leagues/<league>/matches/<file>/#m-<id>``, or ``.../<file>/2/#m-<id>``
for the second part of a long file. No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, repeat
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from slugify import slugify

if TYPE_CHECKING:
    from sitegen.model.views import MatchView

# A part closes at this many matches, or earlier once it holds this many player lines:
# a page of 100 duels is ~40 KB, and a 100-player lobby league still gets pages of that order.
MATCHES_PER_PART = 100
LINES_PER_PART = 2000

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"


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
    matches: Sequence[MatchView] = field(default_factory=list)   # a views.MatchViews in a league
    parts: list[str] = field(default_factory=list)   # the urls of every part of the file
    number: int = 0                 # 0-based position among the league's pages

    # A results page lists every page's first and last time: read from the league's columns
    # (matchviews.played_of), no view made, where a rebuild keeps the pages they are on.
    @property
    def first_played(self) -> datetime:
        from sitegen.model.matchviews import played_of
        return played_of(self.matches, 0)

    @property
    def last_played(self) -> datetime:
        from sitegen.model.matchviews import played_of
        return played_of(self.matches, -1)


def _folder(name: str) -> str:
    """The file's path within its league as URL-safe folder names: "2026/04-april"."""
    return "/".join(slugify(part, max_length=64) or "file" for part in name.split("/"))


@dataclass(slots=True)
class Pages:
    """Which matches each page of a league shows (``plan``), before any view is made: the
    matches' positions by page (``order``; page g's are ``order[bounds[g]:bounds[g + 1]]``,
    in history order) and each page's file, name, url, part and its file's urls."""

    order: np.ndarray
    bounds: list[int]
    pages: list[tuple[str, str, str, int, list[str]]]
    plain: bool                     # no match id needs escaping in its anchor

    def urls(self, count: int) -> Iterator[str]:
        """Each match's page, the matches in history order."""
        urls = [url for _, _, url, _, _ in self.pages]
        order = self.order
        if not len(order) or bool((np.diff(order) == 1).all()):       # the pages one after another
            return chain.from_iterable(map(repeat, urls, np.diff(self.bounds).tolist()))
        page = np.empty(count, dtype=np.int64)
        page[order] = np.repeat(np.arange(len(self.pages), dtype=np.int64), np.diff(self.bounds))
        return map(urls.__getitem__, page.tolist())

    @property
    def contiguous(self) -> bool:
        """Whether the pages' matches follow each other in history order, as a file's usually do."""
        order = self.order
        return bool(len(order)) and bool((np.diff(order) == 1).all())

    def positions(self) -> Iterator[range | list[int]]:
        """Each page's matches' positions in history order, page by page."""
        bounds = self.bounds
        if self.contiguous:
            shift = int(self.order[0])
            return (range(shift + lo, shift + hi) for lo, hi in zip(bounds, bounds[1:]))
        at = self.order.tolist()
        return (at[lo:hi] for lo, hi in zip(bounds, bounds[1:]))

    def page_of(self, count: int) -> np.ndarray:
        """Each match's page (its number among ``pages``), the matches in history order."""
        page = np.empty(count, dtype=np.int32)
        page[self.order] = np.repeat(np.arange(len(self.pages), dtype=np.int32), np.diff(self.bounds))
        return page

    def groups(self, views: list[MatchView], paged: bool = False) -> list[MatchGroup]:
        """The pages of ``views`` (the matches planned, in history order), each view's page set
        unless it was made with it (``paged``: from ``urls``)."""
        order, bounds = self.order, self.bounds
        # Each page's views sliced off where its matches are a run, as a file's usually are.
        contiguous = bool(len(order)) and bool((np.diff(order) == 1).all())
        shift = int(order[0]) if contiguous else 0
        at = [] if contiguous else order.tolist()
        groups = []
        for g, (file, name, url, part, urls) in enumerate(self.pages):
            lo, hi = bounds[g], bounds[g + 1]
            chunk = views[shift + lo:shift + hi] if contiguous else [views[i] for i in at[lo:hi]]
            if not paged:
                for v in chunk:
                    v.page = url
            if not self.plain:
                for v in chunk:
                    v.escaped = anchor(v.match.id)
            groups.append(MatchGroup(file, name, url, part, chunk, urls, g))
        return groups


def plain_ids(ids: Iterable[str]) -> bool:
    """Whether no id needs escaping in its anchor (``anchor``)."""
    # No character of any id outside _UNSAFE's set: deleted by a translation in C, none is left.
    joined = "".join(ids)
    return joined.isascii() and not joined.encode("ascii").translate(None, _SAFE)


def file_numbers(files: Sequence[str]) -> tuple[dict[str, int], np.ndarray]:
    """Each file's number, in order of its first match, and each match's file number."""
    number = {f: i for i, f in enumerate(dict.fromkeys(files))}
    return number, np.fromiter(map(number.__getitem__, files), dtype=np.int64, count=len(files))


def plan(files: Sequence[str], ids: Iterable[str], sizes: Sequence[int] | np.ndarray, base: str,
         per_part: int | None = None, known: tuple[dict[str, int], np.ndarray, bool] | None = None) -> Pages:
    """The pages of matches in files ``files`` with ids ``ids`` and ``sizes`` lines, in history
    order, as ``group_matches`` describes them. ``known``: ``file_numbers`` and ``plain_ids`` of
    them, where worked out already (model/carried.py carries them over from the last build)."""
    per_part = per_part or MATCHES_PER_PART
    # The files in order of their first match; each one's matches by a stable sort of the
    # files' numbers (no list appended a match).
    number, code = file_numbers(files) if known is None else known[:2]
    order = (np.arange(len(code), dtype=np.int64) if not len(code) or bool((code[1:] >= code[:-1]).all())
             else np.argsort(code, kind="stable"))
    starts = np.searchsorted(code[order], np.arange(len(number) + 1)).tolist()
    lines = np.asarray(sizes, dtype=np.int64)[order]
    # Where per_part of the file's biggest matches fit a part, every part is per_part matches.
    fits = bool(len(lines)) and int(lines.max()) * per_part <= LINES_PER_PART
    plain = plain_ids(ids) if known is None else known[2]
    pages: list[tuple[str, str, str, int, list[str]]] = []
    bounds = [0]
    taken: set[str] = set()
    for file, lo, hi in zip(number, starts, starts[1:]):
        if fits:
            cuts = list(range(lo, hi, per_part))
        else:       # a part closes at per_part matches, or before the match that would pass the lines
            cuts, count, total = [lo], 0, 0
            for i, n in enumerate(lines[lo:hi].tolist(), lo):
                if count and (count >= per_part or total + n > LINES_PER_PART):
                    cuts.append(i)
                    count = total = 0
                count += 1
                total += n
        rel = file.split("/", 2)[2] if file.count("/") >= 2 else file   # matches/<league>/<path>
        name = rel[: -len(".toml")] if rel.endswith(".toml") else rel
        folder = _folder(name)
        candidate, n = folder, 1
        while True:
            urls = [f"{base}matches/{candidate}/" + (f"{k}/" if k > 1 else "") for k in range(1, len(cuts) + 1)]
            if not taken.intersection(urls):
                break
            n += 1
            candidate = f"{folder}-{n}"
        taken.update(urls)
        for k, (url, cut) in enumerate(zip(urls, cuts[1:] + [hi]), start=1):
            pages.append((file, name, url, k, urls))
            bounds.append(cut)
    return Pages(order, bounds, pages, plain)


def group_matches(views: list[MatchView], base: str, per_part: int | None = None,
                  sizes: list[int] | None = None) -> list[MatchGroup]:
    """Assign every match its page (``view.page``; ``view.url`` is its anchor there).

    Pages come in order of each file's first match in history; within a page, matches
    keep history order. Folder names that clash (two files slugging alike, or a file
    "x/2.toml" beside part 2 of "x.toml") take "-2", "-3" in that same order. A part holds
    up to ``per_part`` matches (default ``MATCHES_PER_PART``) and ``LINES_PER_PART`` lines;
    ``sizes``, where given, are each view's lines counted (views.LineColumns).
    """
    matches = [v.match for v in views]
    return plan([m.file for m in matches], [m.id for m in matches],
                sizes if sizes is not None else [len(v.lines) for v in views], base, per_part).groups(views)
