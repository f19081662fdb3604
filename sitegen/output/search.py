"""The site-wide search index: a static, sharded prefix index of names, written by the build.

What is found: each league (by its name and slug), each player of each league (name and
aliases) and each match (its id, date, title and the players in it); a big league's matches
through a record per match-file page (``group_records``). Records come from
the view models, not from re-reading the HTML. The search page (templates/assets/search.js)
fetches only the files a query needs, from the site itself, so search works offline and
under any sub-path (record URLs are site-relative).

Layout, under ``search/index/``:

* ``manifest.json``: the format, the words' shard keys, the record chunk size and, per
  league, the ranges of record numbers of its league record, players and matches. Records
  are numbered league by league (league, players by rank, matches in history order), so the
  kind and league filters are range checks that need no record data.
* ``words/<key>.json``: every word starting with the shard key (its first two characters,
  file named by the key's UTF-8 bytes in hex), each with its record numbers, delta-coded.
* ``records/<n>.json``: records ``n*CHUNK`` onwards, each ``[url, title, detail]``.

Building is linear in the records and memory stays bounded: records go out in chunks as
they are made, and the word lists are spilled to sorted runs on disk past ``SPILL``
entries, then merged shard by shard. Runs hold ascending record numbers, so merging them
in order keeps each word's numbers ascending without a sort. Everything is written in a
fixed order: the same input gives the same bytes.
"""

from __future__ import annotations

import heapq
import json
import re
import tempfile
import time
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from sitegen.model.groups import MatchGroup
from sitegen.model.scale import is_big
from sitegen.model.matchviews import MatchViews
from sitegen.model.views import LeagueView
from sitegen.output.render import fmt_date, fmt_rating
from sitegen.output.write import Output

FOLDER = "search/index"
FORMAT = 1
CHUNK = 256                 # records a records/ file holds
KEY_CHARS = 2               # a word's shard is its first two characters
SPILL = 1 << 21             # word entries held in memory before a run goes to disk
# A match title names this many players; a lobby of 40 says "and 36 more".
TITLE_PLAYERS = 4
NOTES_SHOWN = 80
KINDS = ("league", "player", "match")


class SearchIndexError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Record:
    url: str                           # site-relative: "leagues/duel/players/bo/"
    title: str                         # the result's link text
    detail: str                        # the line under it
    words: tuple[str, ...]             # the texts it is found by


@dataclass(slots=True)
class IndexStats:
    records: int = 0
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


# --- words ---------------------------------------------------------------------------------
#
# search.js splits a query the same way: NFKC, lower case, runs of letters, marks and
# digits (JavaScript's [\p{L}\p{M}\p{N}]+). Python's \w has no marks and adds "_".
# A regular-expression class of every letter, mark and digit of Unicode (~700 ranges) is
# matched several times slower than a class of few ranges, and most names are ASCII but
# for an en dash or an accent: so a non-ASCII text first has each code point that is no
# letter, mark or digit turned into a space (its category looked up once, then held), and
# what is left is split at ASCII's own separators.


class _Apart(dict[int, int]):
    """``str.translate``'s table: a non-ASCII code point that is no letter, mark or digit
    becomes a space; any other stays itself."""

    def __missing__(self, code: int) -> int:
        keep = code < 0x80 or unicodedata.category(chr(code))[0] in "LMN"
        value = self[code] = code if keep else 0x20
        return value


_APART = _Apart()
# The letters and digits of ASCII, lower case: most texts are ASCII, and this class
# is matched several times faster than one of the whole Unicode database.
_ASCII_WORD = re.compile("[a-z0-9]+")
# After _APART, every non-ASCII code point left is a letter, mark or digit.
_WIDE_WORD = re.compile("[a-z0-9\u0080-\U0010ffff]+")


def words(text: str) -> list[str]:
    """The words of ``text`` as the index and the search page see them."""
    text = unicodedata.normalize("NFKC", text).lower()
    if text.isascii():
        return _ASCII_WORD.findall(text)
    return _WIDE_WORD.findall(text.translate(_APART))


# Between the texts of one record, searched as one: a line feed is a starter that composes
# with nothing (so NFKC of the whole is the texts' NFKC joined), is neither cased nor
# case-ignorable (so lower() treats it as a text's end), and is in no word.
TEXTS_APART = "\n"


def record_words(texts: Iterable[str]) -> list[str]:
    """The distinct words of a record's texts, in order of first appearance: ``words`` of each
    text, in one call."""
    return list(dict.fromkeys(words(TEXTS_APART.join(texts))))


def shard_key(word: str) -> str:
    return word[:KEY_CHARS]


def shard_file(key: str) -> str:
    return f"words/{key.encode('utf-8').hex()}.json"


# --- records -------------------------------------------------------------------------------

def league_records(lv: LeagueView) -> Iterable[Record]:
    n = len(lv.leaderboard)
    yield Record(lv.url, lv.config.name, f"League · {n} player{'s' if n != 1 else ''} · {len(lv.matches)} "
                 f"match{'es' if len(lv.matches) != 1 else ''}", (lv.config.name, lv.config.slug))


def player_records(lv: LeagueView) -> Iterable[Record]:
    decimals = 0 if lv.integer else 1
    for p in lv.leaderboard:
        rating = fmt_rating(p.rating, decimals)
        detail = f"Rank {p.rank} · rating {rating}" + (f" · {p.tier.name}" if p.tier else "")
        yield Record(p.url, p.name, detail, (p.name, *p.aliases))


def match_title(names: list[str]) -> str:
    if len(names) == 2:
        return f"{names[0]} vs {names[1]}"
    shown = ", ".join(names[:TITLE_PLAYERS])
    return shown + (f" and {len(names) - TITLE_PLAYERS} more" if len(names) > TITLE_PLAYERS else "")


def short(text: str, size: int = NOTES_SHOWN) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= size else line[:size - 1].rstrip() + "…"


def match_records(lv: LeagueView) -> Iterable[Record]:
    """A match is shown by its players when they are few ("Ana vs Bo"), else by its id.
    It is found by its id, date, title and players: names, not its notes, so that the
    index grows with the matches' players and not with their prose."""
    dates: dict[object, str] = {}      # a day's matches share their date text
    for m in lv.matches:
        names = list(m.match.players)      # its lines' players, without making the lines
        day = m.match.played.date()
        date = dates.get(day)
        if date is None:
            date = dates[day] = fmt_date(m.match.played)
        few = len(names) <= TITLE_PLAYERS
        detail = [date, m.id if few else f"{len(names)} players: {match_title(names)}"]
        if m.match.notes:
            detail.append(short(m.match.notes))
        yield Record(m.url, match_title(names) if few else m.id, " · ".join(detail),
                     (m.id, date, m.title, *names))


def group_records(lv: LeagueView) -> Iterable[Record]:
    """A big league's matches (model/scale.py) are found by their match-file pages: a record
    per page, found by the ids, dates, titles and players of every match on it, leads to the
    page, where the match is a row at its anchor (search.js links a search for one match's id
    to that anchor). Each word is listed once a page, and the
    pages of a word follow each other closely, so its delta-coded numbers stay short: a
    record per match cost ~135 bytes a match."""
    dates: dict[object, str] = {}
    for g in lv.groups:
        yield group_record(g, dates)


def group_record(g: MatchGroup, dates: dict[object, str]) -> Record:
    """A match-file page's record (``group_records``); ``dates`` holds the date texts made so far."""
    texts: list[str] = [g.name]
    # The matches themselves, their titles as their views say them (MatchView.title): no view made.
    shown = g.matches
    matches = shown.plain if isinstance(shown, MatchViews) else [m.match for m in shown]
    headline = shown.headline if isinstance(shown, MatchViews) else (shown[0].headline if shown else None)
    for m in matches:
        day = m.played.date()
        date = dates.get(day)
        if date is None:
            date = dates[day] = fmt_date(m.played)
        texts += (m.id, date, headline(m) if headline is not None else "", *m.players)     # its lines' players
    n = len(matches)
    first, last = fmt_date(matches[0].played), fmt_date(matches[-1].played)
    part = f", part {g.part} of {len(g.parts)}" if len(g.parts) > 1 else ""
    return Record(g.url, f"Matches of {g.name}{part}",
                  f"{first}" + (f" to {last}" if last != first else "")
                  + f" · {n} match{'es' if n != 1 else ''}: {matches[0].id}"
                  + (f" to {matches[-1].id}" if n > 1 else ""),
                  tuple(texts))


def records(lv: LeagueView) -> Iterator[tuple[str, Record]]:
    """A league's records in number order, with their kinds; a big league's "match" records
    are its match-file pages."""
    matches = group_records if is_big(lv.rated) else match_records
    for kind, make in zip(KINDS, (league_records, player_records, matches)):
        for r in make(lv):
            yield kind, r


# --- the index -------------------------------------------------------------------------------

class _Words:
    """Word -> ascending record numbers, spilled to sorted runs past SPILL entries."""

    def __init__(self) -> None:
        self.held: dict[str, array] = {}
        self.size = 0
        self.runs: list[IO[str]] = []

    def add(self, number: int, texts: Iterable[str]) -> None:
        self.add_words(number, record_words(texts))      # each word once per record

    def add_words(self, number: int, found: list[str]) -> None:
        held = self.held
        for word in found:
            numbers = held.get(word)
            if numbers is None:
                numbers = held[word] = array("L")
            numbers.append(number)
        self.size += len(found)
        if self.size >= SPILL:
            self._spill()

    def _spill(self) -> None:
        run = tempfile.TemporaryFile("w+", encoding="utf-8")
        for word in sorted(self.held):
            run.write(json.dumps([word, self.held[word].tolist()], ensure_ascii=False) + "\n")
        run.seek(0)
        self.runs.append(run)
        self.held, self.size = {}, 0

    def merged(self) -> Iterator[tuple[str, list[int]]]:
        """Every word in sorted order with all its numbers; the runs are closed after."""
        def read(run: IO[str]) -> Iterator[tuple[str, list[int]]]:
            for line in run:
                word, numbers = json.loads(line)
                yield word, numbers

        # The run index breaks ties, so a word's numbers come out run by run: ascending.
        sources = [((w, i, ns) for w, ns in read(run)) for i, run in enumerate(self.runs)]
        sources.append(((w, len(self.runs), self.held[w].tolist()) for w in sorted(self.held)))
        try:
            word: str | None = None
            numbers: list[int] = []
            for w, _, ns in heapq.merge(*sources):
                if w != word:
                    if word is not None:
                        yield word, numbers
                    word, numbers = w, []
                numbers += ns
            if word is not None:
                yield word, numbers
        finally:
            for run in self.runs:
                run.close()
            self.runs, self.held, self.size = [], {}, 0


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _deltas(numbers: list[int]) -> list[int]:
    return [n - p for n, p in zip(numbers, [0, *numbers[:-1]])]


def manifest(records: int, keys: list[str], listed: list[dict]) -> bytes:
    return _json({"format": FORMAT, "chunk": CHUNK, "key_chars": KEY_CHARS,
                  "records": records, "keys": keys, "leagues": listed})


def index_writer(output: Output, stats: IndexStats) -> Callable[[str, bytes], None]:
    """What adds a file of the index to ``output`` (its path under search/index/), counted in ``stats``."""
    def put(rel: str, data: bytes) -> None:
        output.add(f"{FOLDER}/{rel}", data)
        stats.files += 1
        stats.bytes += len(data)
    return put


def write_search_index(leagues: Iterable[LeagueView], output: Output) -> IndexStats:
    """Index every league, player and match and add the index to ``output`` under search/index/."""
    started = time.perf_counter()
    stats = IndexStats()
    put = index_writer(output, stats)
    index = _Words()
    chunk: list[list[str]] = []
    listed = []
    number = 0
    for lv in leagues:
        ranges: dict[str, list[int]] = {}
        for kind, r in records(lv):         # by kind: each kind's numbers are one range
            index.add(number, r.words)
            chunk.append([r.url, r.title, r.detail])
            ranges.setdefault(kind, [number, number])
            number += 1
            ranges[kind][1] = number
            stats.counts[kind] = stats.counts.get(kind, 0) + 1
            if len(chunk) == CHUNK:
                put(f"records/{number // CHUNK - 1}.json", _json(chunk))
                chunk = []
        listed.append({"slug": lv.config.slug, "name": lv.config.name,
                       **{kind: ranges.get(kind, [number, number]) for kind in KINDS}})
    if chunk:
        put(f"records/{number // CHUNK}.json", _json(chunk))
    stats.records = number

    keys: list[str] = []
    shard: dict[str, list[int]] = {}
    for word, numbers in index.merged():
        key = shard_key(word)
        if keys and keys[-1] != key:
            put(shard_file(keys[-1]), _json(shard))
            shard = {}
        if not keys or keys[-1] != key:
            keys.append(key)
        shard[word] = _deltas(numbers)
    if shard:
        put(shard_file(keys[-1]), _json(shard))
    if len(set(keys)) != len(keys):       # sorted words put each key's words together
        raise SearchIndexError("a shard of the search index was split")
    put("manifest.json", manifest(number, keys, listed))
    stats.seconds = time.perf_counter() - started
    return stats
