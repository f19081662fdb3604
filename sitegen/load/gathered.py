"""A rebuild's league gathered as columns: its kept files' checked matches as the build cache
holds them (halves.unpack_columns), its changed files' as checked now, put in history order
without a ``Match`` made for each (rating/matchcolumns.py). The kept files' players are read
from their bytes only where a match of theirs is made (``Chunks``, halves.KeptNames).

History order is by time played, then the file's path in the league, then the position in the
file (validate.py sorts its checked matches by that key). The files come in their order, each
one's matches in position order, so the gathered columns are most often in history order
already: that is checked over the columns, and only where they are not are they sorted.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress
from operator import attrgetter
from typing import Any, NamedTuple, overload

import numpy as np

from sitegen.load.halves import KeptNames, Keyed, Unpacked
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import MATCH_FIELDS, MatchColumns, micros

# The fields of a match that its columns hold as they are (the time is held as micros).
AS_THEY_ARE = tuple(name for name in MATCH_FIELDS if name != "played")


class Kept(NamedTuple):
    """A rebuild's league from its kept files (``_from_cache``)."""

    matches: MatchColumns       # in history order
    explicit: set[str]          # the ids given explicitly
    played: set[str]            # the names played, where the league has [initial] players
    keys: dict[str, str]        # every file's checked key, by its path
    known_apart: bool           # every kept file was in a league checked without a problem
    changed: list[Match]        # the changed files' matches


class Chunks(Sequence[Any]):
    """A column gathered file after file, a kept file's part read from its bytes when one of its
    values is (``KeptNames``), the others' held as lists: the players of a million kept matches,
    of which a rebuild reads a few files'. Read, never written, once gathered."""

    __slots__ = ("_starts", "_parts", "_count")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._parts: list[list[Any] | KeptNames] = []
        self._count = 0

    def extend(self, values: Iterable[Any]) -> None:
        values = list(values)
        if values:
            self._starts.append(self._count)
            self._parts.append(values)
            self._count += len(values)

    def defer(self, names: KeptNames) -> None:
        """A kept file's players, read when one of them is."""
        if len(names):
            self._starts.append(self._count)
            self._parts.append(names)
            self._count += len(names)

    def _part(self, i: int) -> list[Any]:
        part = self._parts[i]
        if isinstance(part, KeptNames):
            part = self._parts[i] = part.read()[0]
        return part

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, k: int) -> Any: ...

    @overload
    def __getitem__(self, k: slice) -> list[Any]: ...

    def __getitem__(self, k: int | slice) -> Any:
        if isinstance(k, slice):
            return list(self)[k]
        if k < 0:
            k += self._count
        if not 0 <= k < self._count:
            raise IndexError("index out of range")
        i = bisect_right(self._starts, k) - 1
        return self._part(i)[k - self._starts[i]]

    def __iter__(self) -> Iterator[Any]:
        return chain.from_iterable(map(self._part, range(len(self._parts))))


class Gathered:
    """Checked matches gathered file after file as columns, with each one's path in the
    league (the history order's second key) and whether its id is explicit."""

    __slots__ = ("columns", "rels", "given")

    def __init__(self) -> None:
        # The times and positions as machine words, as the kept files give them (halves.pack).
        self.columns: dict[str, Any] = {name: array("q") if name in ("played", "position") else
                                        Chunks() if name == "players" else [] for name in MATCH_FIELDS}
        self.rels: list[str] = []
        self.given: list[bool] = []

    def add_unpacked(self, u: Unpacked) -> None:
        """A kept file's columns (a packed file holds one file's matches: its path once)."""
        c, n = self.columns, len(u.ids)
        for name, values in (("id", u.ids), ("played", u.at), ("position", u.position), ("notes", u.notes),
                             ("entries", u.entries), ("extra", u.extra), ("line", u.line)):
            c[name].extend(values)
        c["players"].defer(u.names)
        if len(u.files) == 1:
            c["file"] += [u.files[0]] * n
            self.rels += [u.rels[0]] * n
        else:
            c["file"] += map(u.files.__getitem__, u.file_col)
            self.rels += map(u.rels.__getitem__, u.file_col)
        self.given += u.given

    def add_keyed(self, keyed: list[Keyed]) -> None:
        """A file's matches as checked now."""
        c = self.columns
        matches = [m for _, m, _ in keyed]
        for name in AS_THEY_ARE:
            c[name].extend(map(attrgetter(name), matches))
        c["played"].extend(map(micros, map(attrgetter("played"), matches)))
        self.rels += [rel for (_, rel, _), _, _ in keyed]
        self.given += [explicit for _, _, explicit in keyed]

    def in_history_order(self) -> tuple[MatchColumns, set[str]]:
        """The matches in history order, and the ids given explicitly."""
        c = self.columns
        order = _order(c["played"], self.rels, c["position"])
        if order is not None:       # every kept file's players read: a list of them in order
            c = {name: list(map((list(values) if isinstance(values, Chunks) else values).__getitem__, order))
                 for name, values in c.items()}
            given = list(map(self.given.__getitem__, order))
        else:
            given = self.given
        matches = MatchColumns(c["id"], c["played"], c["file"], c["position"], c["notes"], c["players"],
                               c["entries"], c["extra"], c["line"])
        return matches, set(compress(c["id"], given))


def _order(at: array[int], rels: list[str], positions: array[int]) -> list[int] | None:
    """The history order of matches by their (time, path, position) keys, all distinct: None
    where they are in it already."""
    n = len(at)
    if n < 2:
        return None
    when = np.frombuffer(at, dtype=np.int64)
    names = sorted(set(rels))
    rank = {r: k for k, r in enumerate(names)}
    path = (np.fromiter(map(rank.__getitem__, rels), dtype=np.int64, count=n) if len(names) > 1
            else np.zeros(n, dtype=np.int64))
    place = np.frombuffer(positions, dtype=np.int64)
    # Each key after the one before: a later time, or the same time and a later path, or the
    # same time and path and a later position.
    dw, dp, dq = np.diff(when), np.diff(path), np.diff(place)
    if bool(np.all((dw > 0) | (dw == 0) & ((dp > 0) | (dp == 0) & (dq > 0)))):
        return None
    order: list[int] = np.lexsort((place, path, when)).tolist()
    return order
