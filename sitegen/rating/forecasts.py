"""What a system predicts: a scored pair of a past match, and a next match's outcomes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from sitegen.rating.events import EventTable
from sitegen.rating.values import RatingEvent


@dataclass(frozen=True, slots=True)
class PairForecast:
    """One prediction made before a match from the ratings held then, and what happened.

    ``a`` is the side predicted, ``b`` the other; ``expected`` is a's E and ``score`` a's S.
    """

    played_year: int      # calendar year of the match's played, UTC
    expected: float
    score: float
    a: str
    b: str
    match: str


@dataclass(frozen=True, slots=True)
class PairArrays:
    """A run of PairForecasts as columns (a battle royale holds 4,950 pairs a lobby), in history order.

    ``a``, ``b`` index ``names`` and ``match`` indexes ``match_ids``; the tables may be shared
    by every run of a league, and an index names the same thing in all of them. ``flip`` is
    whether b's name comes before a's by code point (accuracy.neutral_side).
    """

    year: np.ndarray          # int64
    expected: np.ndarray      # float64
    score: np.ndarray         # float64
    a: np.ndarray             # int64
    b: np.ndarray             # int64
    match: np.ndarray         # int64
    flip: np.ndarray          # bool
    names: tuple[str, ...]
    match_ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.expected)

    def forecasts(self) -> Iterator[PairForecast]:
        for y, e, s, a, b, m in zip(self.year.tolist(), self.expected.tolist(), self.score.tolist(),
                                    self.a.tolist(), self.b.tolist(), self.match.tolist()):
            yield PairForecast(y, e, s, self.names[a], self.names[b], self.match_ids[m])


@dataclass(frozen=True, slots=True)
class Outcome:
    """Ratings after one result; None where the system's formula has no value for it (an
    elo margin multiplier off its domain: the engine would refuse that match too)."""

    label: str
    score: float              # the first player's S
    after_a: float | None
    after_b: float | None
    # openskill: each side's (mu, sigma) after the result; after_a/after_b are the ordinals.
    skills: tuple[tuple[float, float], tuple[float, float]] | None = None


@dataclass(frozen=True, slots=True)
class PairPrediction:
    a: str
    b: str
    rating_a: float
    rating_b: float           # ratings the match starts from (after any season reversion)
    expected_a: float
    expected_b: float         # 1 - expected_a, except glicko2 (each side uses the other's RD)
    outcomes: tuple[Outcome, ...]
    skills: tuple[tuple[float, float], tuple[float, float]] | None = None     # openskill: (mu, sigma) before

    def change(self, outcome: Outcome) -> tuple[float | None, float | None]:
        return (None if outcome.after_a is None else outcome.after_a - self.rating_a,
                None if outcome.after_b is None else outcome.after_b - self.rating_b)


@dataclass(frozen=True, slots=True)
class LobbyPrediction:
    """A placement lobby: each player's expected score E (duels won, of n - 1) and K."""

    players: tuple[str, ...]
    ratings: tuple[float, ...]
    expected: tuple[float, ...]
    k: tuple[float, ...]
    floor: float

    def after(self, i: int, score: float) -> float:
        """Player i's rating after a result worth ``score`` (n - place with distinct places)."""
        return max(self.floor, self.ratings[i] + self.k[i] * (score - self.expected[i]))


def first_listed(events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
    """A two-player match's prediction: the first row of each event is the first listed player,
    its ``expected`` and ``score`` exactly as changes.csv holds them."""
    if isinstance(events, EventTable):      # the same, read from the columns
        expected, score = (events.column(t, 0, events.rows) for t in ("expected", "score"))
        names, player = events.names, events.player.tolist()
        for r, key, played in zip(events.offsets[:-1].tolist(), events.keys, events.played):
            yield PairForecast(played.year, float(expected[r]), float(score[r]), names[player[r]],
                               names[player[r + 1]], key)
        return
    for event in events:
        first, second = event.changes[0], event.changes[1]
        # Both terms are numbers in every change of a two-player system that predicts.
        yield PairForecast(event.played.year, float(cast(float, first.terms["expected"])),
                           float(cast(float, first.terms["score"])),
                           first.player, second.player, event.key)


def first_listed_arrays(events: Sequence[RatingEvent]) -> Iterator[PairArrays]:
    """``first_listed`` as columns: read at once from an EventTable's (a million matches made a
    million PairForecasts, 3 s), else packed. The same pairs and numbers; names and matches
    are indexed in the table's order, not in order of appearance."""
    columns = _first_listed_columns(events) if isinstance(events, EventTable) else None
    if columns is None:
        yield from pack(first_listed(events))
    elif len(columns):
        yield columns


def _first_listed_columns(events: EventTable) -> PairArrays | None:
    """None where a term is not a column of numbers, or lacks a value (``first_listed``'s float()
    then says so)."""
    first = events.offsets[:-1]
    terms = []
    for name in ("expected", "score"):
        term = events.terms[name]
        if not term.numeric:
            return None
        values = np.asarray(term.values if term.per_event else term.values[first], dtype=np.float64)
        if term.none_at_nan and np.isnan(values).any():
            return None
        terms.append(values)
    names = events.names
    a, b = events.player[first], events.player[first + 1]
    rank = np.empty(len(names), dtype=np.int64)            # position by code point
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names), dtype=np.int64)
    named = np.array([bool(n) for n in names], dtype=bool)
    year = np.fromiter((p.year for p in events.played), dtype=np.int64, count=len(events))
    return PairArrays(year, terms[0], terms[1], a, b, np.arange(len(events), dtype=np.int64),
                      named[b] & (rank[b] < rank[a]), names, tuple(events.keys))


# Predictions packed from objects (the systems without columns of their own) a run at a time.
PACK = 1 << 16


def pack(forecasts: Iterable[PairForecast], size: int = PACK) -> Iterator[PairArrays]:
    """PairForecast objects as runs of columns; names and matches indexed in order of appearance."""
    names: dict[str, int] = {}
    matches: dict[str, int] = {}
    cols: tuple[list[Any], ...] = ([], [], [], [], [], [], [])

    def flush() -> PairArrays:
        year, e, s, a, b, m, flip = cols
        run = PairArrays(np.array(year, dtype=np.int64), np.array(e, dtype=np.float64),
                         np.array(s, dtype=np.float64), np.array(a, dtype=np.int64), np.array(b, dtype=np.int64),
                         np.array(m, dtype=np.int64), np.array(flip, dtype=bool), tuple(names), tuple(matches))
        for c in cols:
            c.clear()
        return run

    for f in forecasts:
        year, e, s, a, b, m, flip = cols
        year.append(f.played_year)
        e.append(float(f.expected))
        s.append(float(f.score))
        a.append(names.setdefault(f.a, len(names)))
        b.append(names.setdefault(f.b, len(names)))
        m.append(matches.setdefault(f.match, len(matches)))
        flip.append(bool(f.b) and f.b < f.a)
        if len(e) >= size:
            yield flush()
    if cols[0]:
        yield flush()
