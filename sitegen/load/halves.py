"""Checked matches sent from the child that checked them to the parent, as columns.

validate.py checks the second half of a long league's files in a forked child. Pickling its
matches (frozen dataclasses, a datetime each) and reading them back costs most of what
checking them does; as columns of plain values through ``marshal`` it costs a tenth. marshal
keeps each value's type and bits (True is not 1, -0.0 is not 0.0) and the order of each
table's keys, and writes a value the child's matches share (an entry such as
``{"score": 1}``, one object for thousands of matches) once. A column it cannot write (a
TOML date-time in a system's key) goes by pickle instead. The parent makes the matches again
from the columns: equal to the child's, field for field, and their repr the same, which the
build cache hashes (load/cache.py). The build cache keeps each checked file as these bytes;
their players and names played are bytes of their own inside them, which a rebuild reads
only for the files whose matches it makes again (``KeptNames``).
"""

from __future__ import annotations

import marshal
import pickle
from array import array
from collections.abc import Callable, Mapping
from datetime import datetime
from itertools import chain
from operator import is_
from typing import Any, NamedTuple

from sitegen.rating.arrays import once_each
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import EPOCH, MATCH_FIELDS, MICROSECOND, new_match  # noqa: F401  (re-exported)

MARSHAL, PICKLE = b"m", b"p"

# A checked match as validate.py sorts them: ((played, path in the league, position), the
# match, whether its id is explicit), the history order's sort key first.
Keyed = tuple[tuple[datetime, str, int], Match, bool]


def pack(keyed: list[Keyed], played: set[str], ids: set[str]) -> bytes:
    """The child's checked matches, the names they play and every id they use, as bytes."""
    files: dict[str, int] = {}          # a file's path -> its number, in order of first use
    rels: list[str] = []                # each file's path in its league (the sort key's)
    columns: tuple[list[Any], ...] = tuple([] for _ in range(10))
    file_col, id_col, when, position, notes, players, entries, extra, line, given = columns
    for (_, rel, _), m, explicit in keyed:
        index = files.get(m.file)
        if index is None:
            index = files[m.file] = len(files)
            rels.append(rel)
        file_col.append(index)
        id_col.append(m.id)
        # Whole microseconds since 1970: exact, where a float timestamp may not be.
        when.append((m.played - EPOCH) // MICROSECOND)
        position.append(m.position)
        notes.append(m.notes)
        players.append(m.players)
        entries.append(m.entries)
        extra.append(m.extra or None)
        line.append(m.line)
        given.append(explicit)
    # The whole numbers as machine words: read back without an object for each (``unpack_columns``).
    words = {id(c): array("q", c).tobytes() for c in (file_col, when, position)}
    # The players and the names played as bytes of their own, read only when asked for
    # (``KeptNames``): a rebuild reads few kept files' players, and making a million matches'
    # tuples of names was most of the time it spent on its kept files.
    words[id(players)] = marshal.dumps((players, sorted(played)))
    value = (list(files), rels, *(words.get(id(c), c) for c in columns), sorted(ids))
    try:
        return MARSHAL + marshal.dumps(value)
    except ValueError:          # a value marshal does not write (a date-time, a mapping type)
        return PICKLE + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _words(data: bytes) -> array[int]:
    words = array("q")
    words.frombytes(data)
    return words


class KeptNames:
    """A packed file's players (each match's tuple of names) and the names they play, read from
    their bytes when first asked for, each name the parent's copy (``unpack_columns``).

    A rebuild reads the players of the few kept files whose matches a page shows again; their
    bytes are whole (the cache entry unpickled, the columns around them read), and are read
    as ``unpack_columns`` read them when they were read at once."""

    __slots__ = ("_data", "_count", "_name", "_known", "_read")

    def __init__(self, data: bytes, count: int, name: Callable[[str], str],
                 known: Callable[[str], str | None] | None) -> None:
        self._data, self._count, self._name, self._known = data, count, name, known
        self._read: tuple[list[tuple[str, ...]], list[str]] | None = None

    def __len__(self) -> int:
        return self._count

    def read(self) -> tuple[list[tuple[str, ...]], list[str]]:
        """(each match's players, the names played), read once."""
        if self._read is None:
            players, played = marshal.loads(self._data)
            if len(players) != self._count:
                raise ValueError("the players are not of the columns' length")
            name, known = self._name, self._known
            # The names are interned (validate.Shared.name), and marshal reads an interned string
            # back as the one this process holds: the players' tuples are then the parent's copies
            # as read. Most are the parent's copies already (names kept from a file read before):
            # that is one look-up each in ``known``, where given; only where one is not is
            # ``name`` asked of each.
            if not (known is not None and all(map(is_, map(known, played), played))
                    or all(name(n) is n for n in played)):
                ours = once_each(list(chain.from_iterable(players)), name)
                players = [tuple(map(ours.__getitem__, map(id, p))) for p in players]
            self._read, self._data = (players, played), b""
        return self._read


class Unpacked(NamedTuple):
    """``pack``'s value read back as columns, each value the parent's copy (``unpack``)."""

    files: list[str]            # the files' paths, by number
    rels: list[str]             # each file's path in its league, by number
    file_col: array[int]        # each match's file, by number
    ids: list[str]
    at: array[int]              # each match's time: whole microseconds since 1970
    position: array[int]
    notes: list[str | None]
    names: KeptNames            # the players and the names played, read when asked for
    entries: list[tuple[Mapping[str, Any], ...]]
    extra: list[Mapping[str, Any]]
    line: list[int | None]
    given: list[bool]           # whether each match's id is explicit
    used: list[str]             # every id used

    @property
    def players(self) -> list[tuple[str, ...]]:
        return self.names.read()[0]

    @property
    def played(self) -> list[str]:
        """The names played."""
        return self.names.read()[1]


def unpack_columns(data: bytes, name: Callable[[str], str], fields: Callable[[tuple[Any, ...]], tuple[Any, ...]],
                   no_extra: Mapping[str, Any], known: Callable[[str], str | None] | None = None) -> Unpacked:
    """``pack``'s columns again, no match made; ``name`` and ``fields`` give the parent's one
    copy of each player's name and of a match's entries (validate.Shared), ``no_extra`` the
    mapping of a match without keys; ``known``, where given, the copy ``name`` holds already
    (None where it holds none), which ``name`` would give unchanged. The players and the names
    played are read when first asked for (``KeptNames``)."""
    body = data[1:]
    value = marshal.loads(body) if data[:1] == MARSHAL else pickle.loads(body)
    (files, rels, file_col, ids, when, position, notes, named, entries, extra, line, given, used) = value
    file_col, when, position = map(_words, (file_col, when, position))
    if len(set(map(len, (file_col, ids, when, position, notes, entries, extra, line, given)))) > 1:
        raise ValueError("the columns are not of one length")
    if not isinstance(named, bytes):
        raise ValueError("the players are not bytes")
    # The child's matches share their entries' tuples (and marshal keeps that): each distinct
    # one is looked up in the parent's copies once, by identity, not once for each match.
    entries = list(map(once_each(entries, fields).__getitem__, map(id, entries)))
    # Most matches have no system keys: then one list of the one mapping, without a look at each.
    keys = [no_extra] * len(extra) if extra.count(None) == len(extra) else [no_extra if k is None else k
                                                                           for k in extra]
    return Unpacked(files, rels, file_col, ids, when, position, notes, KeptNames(named, len(ids), name, known),
                    entries, keys, line, given, used)


def unpack(data: bytes, name: Callable[[str], str], fields: Callable[[tuple[Any, ...]], tuple[Any, ...]],
           no_extra: Mapping[str, Any], known: Callable[[str], str | None] | None = None
           ) -> tuple[list[Keyed], set[str], set[str]]:
    """``pack``'s matches again, made from ``unpack_columns``'."""
    u = unpack_columns(data, name, fields, no_extra, known)
    at = list(map(EPOCH.__add__, map(MICROSECOND.__mul__, u.at)))
    matches = list(map(new_match, u.ids, at, map(u.files.__getitem__, u.file_col), u.position, u.notes, u.players,
                       u.entries, u.extra, u.line))
    return (list(zip(zip(at, map(u.rels.__getitem__, u.file_col), u.position), matches, u.given)), set(u.played),
            set(u.used))
