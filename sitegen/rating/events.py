"""A rated history held as columns: the events of ``System.rate`` made only when they are read.

A kernel leaves its numbers in arrays, one row per change. Making a ``RatingEvent`` with its
``Change`` objects and their term dicts for every match cost more than the rating itself and
held hundreds of bytes per change to the end of a build. ``EventTable`` keeps the columns and
is a sequence of the very events the systems built before (equal to them, value for value):
an event is made when it is indexed or iterated, a page of rows at a time, and not kept.
Whoever reads every event for a few numbers (standings, the ledger frame, the board's window)
reads the columns instead, through the functions at the end, which take any sequence of
events (a system that builds its events one by one still returns a list).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import repeat
from typing import Any, overload

import numpy as np

from sitegen.rating.values import Change, RatingEvent

# Events made at a time: a page's rows become Python numbers by one tolist per column.
PAGE = 512


@dataclass(frozen=True, slots=True)
class Term:
    """A system's term as a column: ``values`` per change, or per event (``per_event``, shared
    by every change of the event). Numbers are a float64 or int64 array read back as Python
    floats or ints; ``none_at_nan``: NaN is read back as None (no value). Anything else (names)
    is a list of Python values."""

    values: Any
    per_event: bool = False
    none_at_nan: bool = False

    @property
    def numeric(self) -> bool:
        return isinstance(self.values, np.ndarray)


def occurrences(player: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of each player index that occurs in ``player`` (of ``players``), ascending: its first row,
    its last row and its number of rows. np.unique's, without its sort of every row (1.7 s of
    two million rows, against a few hundredths)."""
    rows = np.arange(len(player), dtype=np.int64)
    first = np.full(players, len(player), dtype=np.int64)
    last = np.full(players, -1, dtype=np.int64)
    np.minimum.at(first, player, rows)
    np.maximum.at(last, player, rows)
    count = np.bincount(player, minlength=players)
    who = np.flatnonzero(count)
    return who, first[who], last[who], count[who]


class EventTable(Sequence[RatingEvent]):
    """The events of a rated history, as columns (see the module's docstring).

    Per event: ``keys``, ``played`` and the ids of its ``matches`` (None: each event is the one
    match its key names). Per change, in event order, ``offsets[i]:offsets[i + 1]`` being event
    i's rows: ``player`` (an index into ``names``), ``before``, ``after`` and the ``terms``.
    ``exact_before`` holds the rows whose rating before is not the float of ``before`` (a
    starting rating given as an int, or None), as the value the change holds. ``listed``: the
    kernel made each event's rows its one match's players as the match lists them (row
    ``offsets[k] + i`` is player i of match k), so a reader of the lines need not compare them.
    """

    def __init__(self, keys: Sequence[str], played: Sequence[datetime], offsets: np.ndarray,
                 names: Sequence[str], player: np.ndarray, before: np.ndarray, after: np.ndarray,
                 terms: Mapping[str, Term], *, matches: Sequence[tuple[str, ...]] | None = None,
                 exact_before: Mapping[int, Any] | None = None, listed: bool = False) -> None:
        self.keys = keys
        self.played = played
        self.matches = matches
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.names = tuple(names)
        self.player = np.asarray(player, dtype=np.int64)
        self.before = before
        self.after = after
        self.terms = dict(terms)
        self.exact_before = dict(exact_before or {})
        self._exact_rows = np.array(sorted(self.exact_before), dtype=np.int64)
        self.listed = listed and matches is None
        self._page: tuple[int, list[RatingEvent]] | None = None

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, index: int) -> RatingEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[RatingEvent]: ...

    def __getitem__(self, index: int | slice) -> RatingEvent | list[RatingEvent]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        page = index // PAGE
        # The last page read is kept: reading events one after another makes each page once.
        if self._page is None or self._page[0] != page:
            self._page = (page, self.build(page * PAGE, min(n, (page + 1) * PAGE)))
        return self._page[1][index - page * PAGE]

    def __iter__(self) -> Iterator[RatingEvent]:
        n = len(self)
        for lo in range(0, n, PAGE):
            yield from self.build(lo, min(n, lo + PAGE))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (EventTable, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))         # as the list of the same events reads

    @property
    def rows(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0

    def event_of_rows(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Each change's event index; of ``rows`` only, when given."""
        if rows is None:
            return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.offsets))
        return np.searchsorted(self.offsets, rows, side="right") - 1

    def match_ids(self, i: int) -> tuple[str, ...]:
        return (self.keys[i],) if self.matches is None else self.matches[i]

    def column(self, name: str, lo: int, hi: int) -> list[Any]:
        """Term ``name`` of rows lo:hi as the Python values the changes hold."""
        term = self.terms[name]
        if term.per_event:
            events = (self.event_of_rows() if (lo, hi) == (0, self.rows)
                      else self.event_of_rows(np.arange(lo, hi, dtype=np.int64)))
            values = (term.values[events].tolist() if term.numeric
                      else [term.values[e] for e in events.tolist()])
        else:
            values = term.values[lo:hi].tolist() if term.numeric else list(term.values[lo:hi])
        if term.none_at_nan:
            values = [None if v != v else v for v in values]
        return values

    def before_at(self, row: int) -> Any:
        """``befores`` of one row."""
        exact = self.exact_before
        return exact[row] if row in exact else self.before[row].item()

    def float_befores(self, start: int = 0) -> np.ndarray:
        """Every row's rating before as float64, NaN where there was none (the ledger's column);
        the rows from ``start`` on."""
        before = self.before[start:].astype(np.float64)
        for row, value in self.exact_before.items():     # a starting rating as given: its float
            if row >= start:
                before[row - start] = np.nan if value is None else float(value)
        return before

    def befores(self, lo: int, hi: int) -> list[Any]:
        values = self.before[lo:hi].tolist()
        rows = self._exact_rows
        for r in rows[np.searchsorted(rows, lo):np.searchsorted(rows, hi)].tolist():
            values[r - lo] = self.exact_before[r]
        return values

    def build(self, lo: int, hi: int, *, row_terms: bool = False) -> list[RatingEvent]:
        """Events lo:hi as the system made them; with ``row_terms``, each change's terms are a
        ``RowTerms`` reading the columns instead of a dict of their values."""
        r0, r1 = int(self.offsets[lo]), int(self.offsets[hi])
        names = self.names
        who = [names[p] for p in self.player[r0:r1].tolist()]
        before, after = self.befores(r0, r1), self.after[r0:r1].tolist()
        terms: Iterable[Mapping[str, Any]]
        if row_terms:
            terms = map(RowTerms, repeat(self), range(r0, r1), self.event_of_rows(np.arange(r0, r1)).tolist())
        else:
            term_names = tuple(self.terms)
            term_rows = zip(*[self.column(t, r0, r1) for t in term_names]) if term_names else repeat(())
            terms = (dict(zip(term_names, t)) for t in term_rows)
        changes = [Change(p, b, a, t) for p, b, a, t in zip(who, before, after, terms)]
        ends = (self.offsets[lo:hi + 1] - r0).tolist()
        return [self.event(i, tuple(changes[ends[i - lo]:ends[i - lo + 1]])) for i in range(lo, hi)]

    def light(self) -> Iterator[RatingEvent]:
        """The events in order, each change's terms a ``RowTerms`` over the columns: for whoever
        keeps the terms of every change (the match pages), a few bytes each, not a dict."""
        n = len(self)
        for lo in range(0, n, PAGE):
            yield from self.build(lo, min(n, lo + PAGE), row_terms=True)

    def event(self, i: int, changes: tuple[Change, ...]) -> RatingEvent:
        """Event i around its changes; a system whose events hold more makes its own."""
        return RatingEvent(self.keys[i], self.played[i], self.match_ids(i), changes)

    def last_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(row of each player's last change, number of their changes), players in order of
        their first change, as ``last_ratings`` orders them."""
        _, first, last, count = occurrences(self.player, len(self.names))
        order = np.argsort(first, kind="stable")
        return last[order], count[order]

    def last_changes(self) -> tuple[dict[str, Change], dict[str, int]]:
        """``values.last_ratings`` of these events, from the columns."""
        rows, counts = self.last_rows()
        changes = self.changes_at(rows)
        return {c.player: c for c in changes}, {c.player: n for c, n in zip(changes, counts.tolist())}

    def last_afters(self) -> list[tuple[str, Any, int]]:
        """Each player's name, rating after their last change and number of changes, in
        ``last_changes``' order: the standings, without a Change made of every player's."""
        rows, counts = self.last_rows()
        names = self.names
        return list(zip([names[p] for p in self.player[rows].tolist()], self.after[rows].tolist(),
                        counts.tolist()))

    def tail(self, start: int) -> EventTable:
        """Events ``start`` on, as a table of their own: the same events, value for value, their
        rows counted from the first of them; the names are all kept, so player indices stay.
        For whoever carries on from the events before (the accuracy sums, model/baselines.py)."""
        r0 = int(self.offsets[start])
        terms = {name: Term(t.values[start:] if t.per_event else t.values[r0:], t.per_event, t.none_at_nan)
                 for name, t in self.terms.items()}
        return EventTable(self.keys[start:], self.played[start:], self.offsets[start:] - r0, self.names,
                          self.player[r0:], self.before[r0:], self.after[r0:], terms,
                          matches=None if self.matches is None else self.matches[start:],
                          exact_before={r - r0: v for r, v in self.exact_before.items() if r >= r0},
                          listed=self.listed)

    def changes_at(self, rows: np.ndarray) -> list[Change]:
        """The changes at ``rows`` (of any events), as the events hold them."""
        rows = np.asarray(rows, dtype=np.int64)
        who = [self.names[p] for p in self.player[rows].tolist()]
        before = self.before[rows].tolist()
        for k, row in enumerate(rows.tolist()):
            if row in self.exact_before:
                before[k] = self.exact_before[row]
        events = self.event_of_rows(rows)
        columns = []
        for term in self.terms.values():
            at = events if term.per_event else rows
            values = term.values[at].tolist() if term.numeric else [term.values[i] for i in at.tolist()]
            columns.append([None if v != v else v for v in values] if term.none_at_nan else values)
        names = tuple(self.terms)
        term_rows = zip(*columns) if columns else iter(lambda: (), None)
        return [Change(p, b, a, dict(zip(names, t)))
                for p, b, a, t in zip(who, before, self.after[rows].tolist(), term_rows)]


class RowTerms(Mapping[str, Any]):
    """One change's terms read from its table's columns when asked: a mapping equal to the dict
    of the change as ``EventTable`` makes it, values of the same types."""

    __slots__ = ("table", "row", "event")

    def __init__(self, table: EventTable, row: int, event: int) -> None:
        self.table = table
        self.row = row
        self.event = event

    def __getitem__(self, name: str) -> Any:
        term = self.table.terms[name]
        value = term.values[self.event if term.per_event else self.row]
        if term.numeric:
            value = value.item()
            if term.none_at_nan and value != value:
                return None
        return value

    def __contains__(self, name: object) -> bool:
        return name in self.table.terms

    def __iter__(self) -> Iterator[str]:
        return iter(self.table.terms)

    def __len__(self) -> int:
        return len(self.table.terms)

    def __repr__(self) -> str:
        return repr(dict(self))


# --- what a consumer reads of any sequence of events ---------------------------------------------

def event_keys(events: Sequence[RatingEvent]) -> list[str]:
    return list(events.keys) if isinstance(events, EventTable) else [e.key for e in events]


def event_times(events: Sequence[RatingEvent]) -> list[datetime]:
    return list(events.played) if isinstance(events, EventTable) else [e.played for e in events]


def event_matches(events: Sequence[RatingEvent]) -> list[tuple[str, ...]]:
    if isinstance(events, EventTable):
        return [(k,) for k in events.keys] if events.matches is None else list(events.matches)
    return [e.matches for e in events]
