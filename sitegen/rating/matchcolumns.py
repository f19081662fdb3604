"""A league's matches held as columns, each ``Match`` made only when it is asked for.

A rebuild reads most of a league's matches back from the build cache as columns (load/halves.py):
making a ``Match`` of each (a datetime, a slotted object) cost a million-match rebuild about
3 s, though most of what follows reads only a few matches, or one column of every match.
``MatchColumns`` is the league's matches in history order as those columns: indexing makes
the match there once and keeps it, a walk over every match makes them all at once (as the
tuple it stands for would have held them), and ``column`` gives a field of every match in
one list without any match made.

It behaves as the tuple of the same matches: equal to it (and to another such sequence of
equal matches), the same hash and repr, a slice a tuple, the same match object each time an
index is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from operator import attrgetter, index
from typing import Any, overload

from sitegen.rating.fields import slot_maker
from sitegen.rating.values import Match

MATCH_FIELDS = ("id", "played", "file", "position", "notes", "players", "entries", "extra", "line")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MICROSECOND = timedelta(microseconds=1)

# Matches made one at a time before a walk by index makes every match at once.
MADE_ONE_AT_A_TIME = 4096

# Match(*values): half the cost of making a checked match (rating/fields.py).
new_match = slot_maker(Match, MATCH_FIELDS)


def micros(played: datetime) -> int:
    """An aware time as whole microseconds since 1970: exact, and ordered as the times are."""
    return (played - EPOCH) // MICROSECOND


def datetimes(at: Iterable[int]) -> list[datetime]:
    """The times ``micros`` gave ``at``, as datetimes again (``EPOCH + MICROSECOND * m`` each, in C)."""
    return list(map(EPOCH.__add__, map(MICROSECOND.__mul__, map(int, at))))


class MatchColumns(Sequence[Match]):
    """Matches as columns of their fields, in order; every column of one length.

    The columns are the fields of ``MATCH_FIELDS`` but the time, held as whole microseconds
    since 1970 (``micros``); lists, or arrays of machine words for the whole numbers. They are
    read, never written: the matches are made from them."""

    __slots__ = ("_columns", "_micros", "_played", "_made", "_every")

    def __init__(self, ids: Sequence[str], at: Sequence[int], files: Sequence[str], positions: Sequence[int],
                 notes: Sequence[str | None], players: Sequence[tuple[str, ...]],
                 entries: Sequence[tuple[Any, ...]], extra: Sequence[Any], lines: Sequence[int | None]) -> None:
        n = len(ids)
        if any(len(c) != n for c in (at, files, positions, notes, players, entries, extra, lines)):
            raise ValueError("the columns are not of one length")
        self._columns: dict[str, Sequence[Any]] = dict(zip(MATCH_FIELDS, (ids, at, files, positions, notes, players,
                                                                      entries, extra, lines)))
        self._micros = at
        self._played: list[datetime] | None = None
        self._made: dict[int, Match] = {}           # the matches made one at a time, by index
        self._every: tuple[Match, ...] | None = None

    def micros(self) -> Sequence[int]:
        """Each match's time as ``micros`` gives it: the column itself, read, never written."""
        return self._micros

    def column(self, name: str) -> list[Any]:
        """The field ``name`` of every match, in order (a list of its own)."""
        if name == "played":
            if self._played is None:
                self._played = datetimes(self._micros)
            return list(self._played)
        return list(self._columns[name])

    def field(self, name: str) -> Sequence[Any]:
        """The column of ``name`` itself (not the time): read, never written, no list copied."""
        return self._columns[name]

    def __len__(self) -> int:
        return len(self._micros)

    @overload
    def __getitem__(self, i: int) -> Match: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Match, ...]: ...

    def __getitem__(self, i: int | slice) -> Match | tuple[Match, ...]:
        if self._every is not None:
            return self._every[i]
        n = len(self)
        if isinstance(i, slice):
            at = range(*i.indices(n))
            if len(at) > n // 8:        # most of them: made at once
                return self.every()[i]
            return tuple([self._one(k) for k in at])
        k = index(i)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("tuple index out of range")
        return self._one(k)

    def _one(self, k: int) -> Match:
        m = self._made.get(k)
        if m is None:
            if len(self._made) > max(MADE_ONE_AT_A_TIME, len(self) // 16):
                # A walk by index over many of them: every match made at once costs a third as much.
                return self.every()[k]
            c = self._columns
            m = self._made[k] = new_match(c["id"][k], EPOCH + MICROSECOND * self._micros[k], c["file"][k],
                                          c["position"][k], c["notes"][k], c["players"][k], c["entries"][k],
                                          c["extra"][k], c["line"][k])
        return m

    def every(self) -> tuple[Match, ...]:
        """Every match, made at once in C loops (those made before kept): the tuple this stands for."""
        if self._every is None:
            c = self._columns
            made = list(map(new_match, c["id"], self.column("played"), c["file"], c["position"], c["notes"],
                            c["players"], c["entries"], c["extra"], c["line"]))
            for k, m in self._made.items():
                made[k] = m
            self._every, self._made = tuple(made), {}
        return self._every

    def __iter__(self) -> Iterator[Match]:
        return iter(self.every())

    def __reversed__(self) -> Iterator[Match]:
        # Newest first, as far as the walk goes: most such walks stop at a recent match.
        if self._every is not None:
            return reversed(self._every)
        return map(self.__getitem__, range(len(self) - 1, -1, -1))

    def __contains__(self, value: object) -> bool:
        return value in self.every()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MatchColumns):
            other = other.every()
        if not isinstance(other, tuple):
            return NotImplemented
        return self.every() == other

    def __hash__(self) -> int:
        return hash(self.every())

    # Joined with a tuple (a match added to a league, as a tuple of matches is), a tuple.
    def __add__(self, other: object) -> tuple[Match, ...]:
        if isinstance(other, MatchColumns):
            other = other.every()
        if not isinstance(other, tuple):
            return NotImplemented
        return self.every() + other

    def __radd__(self, other: object) -> tuple[Match, ...]:
        if not isinstance(other, tuple):
            return NotImplemented
        return other + self.every()

    def __repr__(self) -> str:
        return repr(self.every())

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (self.every(),)


class Times(Sequence[datetime]):
    """Times held as whole microseconds since 1970 (``micros``), each made the datetime it
    stands for when read, every one at once when walked over: a rebuild's events (elo_kernel
    ``events_of``) read the times of the few they show, not a million. Behaves as the list
    of the same times: equal to it, a slice of it the same times."""

    __slots__ = ("_micros", "_made")

    def __init__(self, at: Sequence[int]) -> None:
        self._micros = at
        self._made: list[datetime] | None = None

    def __len__(self) -> int:
        return len(self._micros)

    @overload
    def __getitem__(self, i: int) -> datetime: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[datetime]: ...

    def __getitem__(self, i: int | slice) -> datetime | Sequence[datetime]:
        if self._made is not None:
            return self._made[i]
        if isinstance(i, slice):
            return Times(self._micros[i])
        return EPOCH + MICROSECOND * int(self._micros[i])

    def every(self) -> list[datetime]:
        """Every time, made at once and kept (read, never written)."""
        if self._made is None:
            self._made = datetimes(self._micros)
        return self._made

    def __iter__(self) -> Iterator[datetime]:
        return iter(self.every())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Times):
            other = other.every()
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return self.every() == list(other)

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.every())

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (self.every(),)


def times(matches: Sequence[Match]) -> Sequence[datetime]:
    """Every match's time, in order: as ``Times`` of the column of micros where ``matches``
    holds them as columns (no datetime made until one is read), else a list of them."""
    if isinstance(matches, MatchColumns):
        return Times(matches.micros())
    return [m.played for m in matches]


def column(matches: Sequence[Match], name: str) -> list[Any]:
    """The field ``name`` of every match of ``matches``, in order: from the columns where
    ``matches`` holds them, without a match made."""
    if isinstance(matches, MatchColumns):
        return matches.column(name)
    return list(map(attrgetter(name), matches))


def fields(matches: Sequence[Match], name: str) -> Sequence[Any]:
    """``column``, read only: the column itself where ``matches`` holds them as columns (no
    copy), else a list of the field; never written by the caller."""
    if isinstance(matches, MatchColumns):
        return matches.field(name)
    return list(map(attrgetter(name), matches))


def played_at(matches: Sequence[Match], at: Sequence[int]) -> list[datetime]:
    """The times of the matches at positions ``at`` (each 0 or more), as ``matches[k].played``
    gives them: from the column of times where ``matches`` holds them as columns, with no match
    made (a view's first and last games, peaks and lows: twenty thousand matches made one by one
    made every one of a million)."""
    if isinstance(matches, MatchColumns):
        return datetimes(map(matches.micros().__getitem__, at))
    return [matches[k].played for k in at]


def played_micros(matches: Sequence[Match]) -> Sequence[int]:
    """Every match's time as ``micros`` gives it, in order."""
    if isinstance(matches, MatchColumns):
        return matches.micros()
    return [micros(m.played) for m in matches]
