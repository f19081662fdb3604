"""Checked matches sent from the child that checked them to the parent, as columns.

validate.py checks the second half of a long league's files in a forked child. Pickling its
matches (frozen dataclasses, a datetime each) and reading them back costs most of what
checking them does; as columns of plain values through ``marshal`` it costs a tenth. marshal
keeps each value's type and bits (True is not 1, -0.0 is not 0.0) and the order of each
table's keys, and writes a value the child's matches share (an entry such as
``{"score": 1}``, one object for thousands of matches) once. A column it cannot write (a
TOML date-time in a system's key) goes by pickle instead. The parent makes the matches again
from the columns: equal to the child's, field for field, and their repr the same, which the
build cache hashes (load/cache.py).
"""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from itertools import chain
from typing import Any

from sitegen.rating.arrays import once_each
from sitegen.rating.base import Match
from sitegen.rating.fields import slot_maker

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MICROSECOND = timedelta(microseconds=1)
MARSHAL, PICKLE = b"m", b"p"

MATCH_FIELDS = ("id", "played", "file", "position", "notes", "players", "entries", "extra", "line")


# Match(*values): half the cost of making a checked match (rating/fields.py).
new_match = slot_maker(Match, MATCH_FIELDS)

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
    value = (list(files), rels, *columns, sorted(played), sorted(ids))
    try:
        return MARSHAL + marshal.dumps(value)
    except ValueError:          # a value marshal does not write (a date-time, a mapping type)
        return PICKLE + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data: bytes, name: Callable[[str], str], fields: Callable[[tuple[Any, ...]], tuple[Any, ...]],
           no_extra: Mapping[str, Any]) -> tuple[list[Keyed], set[str], set[str]]:
    """``pack``'s matches again; ``name`` and ``fields`` give the parent's one copy of each
    player's name and of a match's entries (validate.Shared), ``no_extra`` the mapping of a
    match without keys."""
    body = data[1:]
    value = marshal.loads(body) if data[:1] == MARSHAL else pickle.loads(body)
    (files, rels, file_col, ids, when, position, notes, players, entries, extra, line, given,
     played, used) = value
    if len(set(map(len, (file_col, ids, when, position, notes, players, entries, extra, line, given)))) > 1:
        raise ValueError("the columns are not of one length")
    # The names are interned (validate.Shared.name), and marshal reads an interned string back
    # as the one this process holds: the players' tuples are then the parent's copies as read.
    if not all(name(n) is n for n in played):
        ours = once_each(list(chain.from_iterable(players)), name)
        players = [tuple(map(ours.__getitem__, map(id, p))) for p in players]
    # The child's matches share their entries' tuples (and marshal keeps that): each distinct
    # one is looked up in the parent's copies once, by identity, not once for each match.
    entries = list(map(once_each(entries, fields).__getitem__, map(id, entries)))
    at = list(map(EPOCH.__add__, map(MICROSECOND.__mul__, when)))
    keys = [no_extra if k is None else k for k in extra]
    matches = list(map(new_match, ids, at, map(files.__getitem__, file_col), position, notes, players, entries,
                       keys, line))
    return list(zip(zip(at, map(rels.__getitem__, file_col), position), matches, given)), set(played), set(used)
