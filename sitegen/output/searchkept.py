"""The search index (search.py) made again from the one the build before made: the same bytes,
with the work of the records that changed.

A build with the cache keeps, under ("search", "index"), every record as it was numbered (what
it shows and its distinct words) and every word's entry of its shard file (``"word":[deltas]``).
The next build makes each record again, except a big league's match-file page: its record is
what its matches make, and it is known by the page's key, the history's prefix identity at its
last match with the page's place among the file's pages (output/memo.py). A page whose key is
the one its number had is the record kept. Then only the words of the records whose words or
number changed are listed again (the numbers of the others are where they were), and only
their entries are written anew; the shard files are their entries joined, as ``json.dumps``
writes the shard (search.py), and the records/ files are made from the records as they are.

After a match appended to a big league, a few records change: the league's (its counts), the
players whose rank moved and the page the match is on, and a few words (the page's and the
players'). A change that moves most numbers (a new player near the top of a board, a match
early in history) lists every word again, as a build without the cache does.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from sitegen.load.cache import Cache
from sitegen.model.scale import is_big
from sitegen.model.views import LeagueView
from sitegen.output.search import (
    CHUNK, KINDS, IndexStats, Record, _Words, _deltas, _json, group_record, index_writer, league_records, manifest,
    match_records, player_records, record_words, shard_file, shard_key,
)
from sitegen.output.write import Output

KIND, KEY = "search", "index"
# Past this share of the records changed, every word is listed again rather than patched.
REDO_SHARE = 4

# A match-file page's key (pages.py): its url, name, file, part, parts, matches and the prefix
# identity at its last match.
PageKey = tuple[Any, ...]


@dataclass(slots=True)
class IndexState:
    """A search index as a build made it, record by record and word by word."""

    idents: list[Any]                  # what each record is made from (``_entries``)
    rows: list[tuple[str, str, str]]   # url, title and detail of each record
    words: list[str]                   # each record's distinct words, joined by "\n" (in no word)
    shards: dict[str, tuple[list[str], list[bytes]]]    # shard key -> its words sorted, their entries


def _split(joined: str) -> list[str]:
    return joined.split("\n") if joined else []


# What json.dumps(..., ensure_ascii=False) writes a string as, a dict's keys too (search._json);
# an int it writes as its repr.
_string = json.encoder.encode_basestring


def _entry(word: str, numbers: list[int]) -> bytes:
    """A word's entry of its shard file as ``json.dumps`` writes it in the dict (search._json)."""
    return f"{_string(word)}:[{','.join(map(str, _deltas(numbers)))}]".encode("utf-8")


def _numbers(word: str, entry: bytes) -> list[int]:
    return list(accumulate(json.loads(entry[len(_string(word).encode("utf-8")) + 1:])))


def _entries(lv: LeagueView, keys: list[PageKey] | None, big: bool
             ) -> Iterator[tuple[str, Any, Callable[[], Record] | Record]]:
    """A league's records in number order (search.records): (kind, ident, the record or what
    makes it). The ident of a match-file page is its key, of any other record its values.
    ``big``: model/scale.is_big of the league."""
    for kind, make in zip(KINDS[:2], (league_records, player_records)):
        for r in make(lv):
            yield kind, _values(r), r
    if not big:
        for r in match_records(lv):
            yield "match", _values(r), r
        return
    dates: dict[object, str] = {}
    for i, g in enumerate(lv.groups):
        if keys is None:
            r = group_record(g, dates)
            yield "match", _values(r), r
        else:
            yield "match", ("page", keys[i]), functools.partial(group_record, g, dates)


def _values(r: Record) -> tuple[Any, ...]:
    return ("record", r.url, r.title, r.detail, r.words)


def _listed(words: list[str]) -> dict[str, tuple[list[str], list[bytes]]]:
    """Every word's numbers, in shards: the records' words listed from the start (search._Words,
    spilled to disk past its size as a build without the cache lists them)."""
    index = _Words()
    for number, joined in enumerate(words):
        index.add_words(number, _split(joined))
    shards: dict[str, tuple[list[str], list[bytes]]] = {}
    for word, numbers in index.merged():
        key = shard_key(word)
        shard = shards.get(key)
        if shard is None:
            shard = shards[key] = ([], [])
        shard[0].append(word)
        shard[1].append(_entry(word, numbers))
    return shards


def _patched(old: IndexState, words: list[str], changed: list[int]) -> dict[str, tuple[list[str], list[bytes]]]:
    """``old.shards`` with the words of the ``changed`` records (before or now) listed again:
    each keeps its numbers of the records that did not change and takes those that now hold it."""
    gone = set(changed)
    taken: dict[str, list[int]] = {}          # word -> the changed records holding it now, ascending
    for n in changed:
        if n < len(old.words):
            for word in _split(old.words[n]):
                taken.setdefault(word, [])
        if n < len(words):
            for word in _split(words[n]):
                taken.setdefault(word, []).append(n)
    by_key: dict[str, list[str]] = {}
    for word in taken:
        by_key.setdefault(shard_key(word), []).append(word)
    shards = dict(old.shards)
    for key, moved in by_key.items():
        listed, entries = shards.get(key, ([], []))
        entry_of = dict(zip(listed, entries))
        for word in moved:
            before = entry_of.get(word)
            kept = [] if before is None else [x for x in _numbers(word, before) if x not in gone]
            numbers = sorted(kept + taken[word])
            if numbers:
                entry_of[word] = _entry(word, numbers)
            elif before is not None:
                del entry_of[word]
        if entry_of:
            ordered = sorted(entry_of)
            shards[key] = (ordered, [entry_of[w] for w in ordered])
        else:
            shards.pop(key, None)
    return shards


def write_kept_index(leagues: Iterable[LeagueView], output: Output, cache: Cache,
                     page_keys: Mapping[str, list[PageKey]], big: Mapping[str, bool] | None = None) -> IndexStats:
    """search.write_search_index, the same files, from the index the build before kept in
    ``cache``; ``page_keys[slug]``: the keys of a big league's match-file pages, in order;
    ``big[slug]``: whether the league is big, where it is known already."""
    started = time.perf_counter()
    stats = IndexStats()
    put = index_writer(output, stats)

    found = cache.get(KIND, KEY)
    old = found if isinstance(found, IndexState) else None
    idents: list[Any] = []
    rows: list[tuple[str, str, str]] = []
    words: list[str] = []
    listed = []
    for lv in leagues:
        ranges: dict[str, list[int]] = {}
        slug = lv.config.slug
        large = big[slug] if big is not None and slug in big else is_big(lv.rated)
        for kind, ident, made in _entries(lv, page_keys.get(slug), large):
            number = len(idents)
            if old is not None and number < len(old.idents) and old.idents[number] == ident:
                rows.append(old.rows[number])
                words.append(old.words[number])
            else:
                r = made() if callable(made) else made
                rows.append((r.url, r.title, r.detail))
                words.append("\n".join(record_words(r.words)))
            idents.append(ident)
            ranges.setdefault(kind, [number, number])
            ranges[kind][1] = number + 1
            stats.counts[kind] = stats.counts.get(kind, 0) + 1
        number = len(idents)
        listed.append({"slug": lv.config.slug, "name": lv.config.name,
                       **{kind: ranges.get(kind, [number, number]) for kind in KINDS}})
    number = stats.records = len(idents)
    for start in range(0, number, CHUNK):
        put(f"records/{start // CHUNK}.json", _json([list(r) for r in rows[start:start + CHUNK]]))

    shards = None
    if old is not None:
        changed = [n for n in range(max(number, len(old.words)))
                   if n >= number or n >= len(old.words) or old.words[n] != words[n]]
        if len(changed) * REDO_SHARE <= number:
            shards = _patched(old, words, changed)
    if shards is None:
        shards = _listed(words)
    keys = sorted(shards)        # as the sorted words put them (a key is a word's start)
    for key in keys:
        put(shard_file(key), b"{" + b",".join(shards[key][1]) + b"}")
    put("manifest.json", manifest(number, keys, listed))
    cache.put(KIND, KEY, IndexState(idents, rows, words, shards))
    stats.seconds = time.perf_counter() - started
    return stats
