"""Scoring predictions as columns: accuracy.csv's sums, the calibration bins and the plain-Elo
baseline over arrays of pairs, with the one-at-a-time code's numbers to the last bit.

A battle royale of 10,000 lobbies of 100 makes 49.5 million predictions; an object and a few
Python calls each took minutes. Here they arrive as runs of columns (forecasts.PairArrays)
and each measure is a loop (exact.run: compiled by numba for long leagues, plain Python
else) that adds its terms in history order, as the loops over Prediction objects did: a
float sum depends on its order, and the files are the same on every build.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from sitegen.rating.exact import TEN, TWO, run
from sitegen.rating.forecasts import PairArrays, pack
from sitegen.rating.protocol import System
from sitegen.rating.values import Match, RatingEvent

# See accuracy.EPS: E is clamped into [EPS, 1 - EPS] for the log loss only.
EPS = 1e-15
BINS = 10


def pair_arrays(system: System, matches: Sequence[Match],
                events: Iterable[RatingEvent]) -> Iterator[PairArrays]:
    """The system's predictions as runs of columns: its own ``pair_forecast_arrays`` when it
    has one (placement; elo's and lunaro's read their columns), else its ``pair_forecasts``
    packed (at most one a match or battle)."""
    # The events as they are: a sequence already (an EventTable makes each as it is read).
    held = events if isinstance(events, Sequence) else tuple(events)
    own = getattr(system, "pair_forecast_arrays", None)
    if own is not None:
        yield from own(matches, held)
        return
    yield from pack(system.pair_forecasts(matches, held))


# --- log loss, Brier score, right side ------------------------------------------------------

def summary_kernel(e: Any, s: Any, slot: Any, total: int, count: Any, ll: Any, br: Any, hit: Any,
                   eps: float, two: float) -> None:
    """Add each prediction's terms to its year's slot and to the ``total`` slot, in order:
    accuracy.log_loss_term, (E - S) ** 2 and accuracy.right_side, written out."""
    for i in range(len(e)):
        ei = e[i]
        si = s[i]
        c = min(max(ei, eps), 1.0 - eps)
        loss = -(si * math.log(c) + (1.0 - si) * math.log(1.0 - c))
        sq = (ei - si) ** two
        if ei == 0.5 or si == 0.5:
            h = 0.5
        elif (ei > 0.5) == (si > 0.5):
            h = 1.0
        else:
            h = 0.0
        k = slot[i]
        count[k] += 1
        ll[k] += loss
        br[k] += sq
        hit[k] += h
        count[total] += 1
        ll[total] += loss
        br[total] += sq
        hit[total] += h


class Summary:
    """accuracy.summarize's sums, fed runs of predictions in history order."""

    def __init__(self) -> None:
        self.years: dict[int, list[float]] = {}     # year -> [count, log loss, brier, right side]
        self.total = [0, 0.0, 0.0, 0.0]

    def add(self, year: np.ndarray, expected: np.ndarray, score: np.ndarray) -> None:
        if not len(expected):
            return
        # A slot per year from the run's first to its last (no sort: a run spans a year or two);
        # only the years that hold predictions are kept.
        first = int(year.min())
        slot = np.asarray(year, dtype=np.int64) - first
        present = np.flatnonzero(np.bincount(slot))
        years = np.arange(first, first + int(slot.max()) + 1)
        held = [self.years.get(int(y), [0, 0.0, 0.0, 0.0]) for y in years.tolist()] + [self.total]
        count = np.array([h[0] for h in held], dtype=np.int64)
        ll, br, hit = (np.array([h[i] for h in held], dtype=np.float64) for i in (1, 2, 3))
        args = (np.ascontiguousarray(expected, dtype=np.float64), np.ascontiguousarray(score, dtype=np.float64),
                slot, len(years), count, ll, br, hit, EPS, TWO)
        run(summary_kernel, len(expected), args, (4, 5, 6, 7))
        sums = [[int(n), a, b, c] for n, a, b, c in zip(count.tolist(), ll.tolist(), br.tolist(), hit.tolist())]
        for i in present.tolist():
            self.years[first + i] = sums[i]
        self.total = sums[-1]

    def rows(self) -> list[tuple[str, list[float]]]:
        """("all", sums), then each year's, oldest first."""
        return [("all", self.total)] + [(str(y), self.years[y]) for y in sorted(self.years)]


# --- calibration ----------------------------------------------------------------------------

def calibration_kernel(index: Any, e: Any, s: Any, n: Any, e_sum: Any, s_sum: Any) -> None:
    for i in range(len(index)):
        k = index[i]
        n[k] += 1
        e_sum[k] += e[i]
        s_sum[k] += s[i]


def bin_index(e: np.ndarray, bins: int) -> np.ndarray:
    """accuracy.calibration's bin, min(max(int(round(e * bins, 9)), 0), bins - 1), of each E.

    Python's round to 9 decimals moves a value by at most 5e-10: it changes the bin only of
    a value that close to a bound, and those few are rounded by Python itself.
    """
    v = e * bins
    index = np.floor(v)
    near = np.flatnonzero(np.abs(v - np.rint(v)) < 1e-6)
    if len(near):
        index[near] = [int(round(x, 9)) for x in v[near].tolist()]
    return np.clip(index, 0, bins - 1).astype(np.int64)


class Calibration:
    """accuracy.calibration's sums per bin, each prediction read from its neutral side."""

    def __init__(self, bins: int = BINS) -> None:
        self.bins = bins
        self.n = np.zeros(bins, dtype=np.int64)
        self.e_sum = np.zeros(bins)
        self.s_sum = np.zeros(bins)

    def add(self, pairs: PairArrays) -> None:
        if not len(pairs):
            return
        e = np.where(pairs.flip, 1.0 - pairs.expected, pairs.expected)
        s = np.where(pairs.flip, 1.0 - pairs.score, pairs.score)
        run(calibration_kernel, len(e), (bin_index(e, self.bins), e, s, self.n, self.e_sum, self.s_sum), (3, 4, 5))


# --- plain Elo ------------------------------------------------------------------------------

def plain_elo_kernel(a: Any, b: Any, s: Any, match: Any, ratings: Any, change: Any, touched: Any,
                     seen: Any, k: float, ten: float, out: Any) -> None:
    """baselines.plain_elo over whole matches (runs of equal ``match``): each pair's E from the
    ratings before its match (base.expected, written out), the update of elo.new_ratings, the
    changes of a match summed per player in pair order and applied after it."""
    n = len(a)
    i = 0
    while i < n:
        end = i
        while end < n and match[end] == match[i]:
            end += 1
        held = 0
        for p in range(i, end):
            pa = a[p]
            pb = b[p]
            r_a = ratings[pa]
            r_b = ratings[pb]
            x = (r_b - r_a) / 400.0
            if x > 300.0:
                t = ten ** -x
                e = t / (1.0 + t)
            else:
                e = 1.0 / (1.0 + ten ** x)
            out[p] = e
            sp = s[p]
            after_a = r_a + k * (sp - e)
            after_b = r_b + k * ((1.0 - sp) - (1.0 - e))
            if not seen[pa]:
                seen[pa] = True
                change[pa] = 0.0
                touched[held] = pa
                held += 1
            change[pa] += after_a - r_a
            if not seen[pb]:
                seen[pb] = True
                change[pb] = 0.0
                touched[held] = pb
                held += 1
            change[pb] += after_b - r_b
        for q in range(held):
            who = touched[q]
            ratings[who] += change[who]
            seen[who] = False
        i = end


class PlainElo:
    """The plain-Elo baseline's predictions of runs of pairs, scored as they come.

    A match may continue into the next run: the last match of a run waits for the next one.
    ``known``: the ratings by name where earlier matches left them (``held``), to carry on from;
    a run's names are then those of the matches that follow, indexed anew.
    """

    def __init__(self, k: float, initial: float, known: dict[str, float] | None = None,
                 summary: Summary | None = None) -> None:
        self.k = float(k)
        self.initial = float(initial)
        self.ratings = np.zeros(0)
        self.summary = summary if summary is not None else Summary()
        self.waiting: tuple[np.ndarray, ...] | None = None
        self.known = known if known is not None else {}
        self.names: tuple[str, ...] = ()

    def add(self, pairs: PairArrays) -> None:
        if len(pairs.names) > len(self.ratings):
            new = pairs.names[len(self.ratings):]
            self.ratings = np.concatenate([self.ratings, np.array([self.known.get(n, self.initial) for n in new],
                                                                  dtype=np.float64)])
        self.names = pairs.names
        cols: tuple[Any, ...] = (pairs.year, pairs.score, pairs.a, pairs.b, pairs.match)
        if self.waiting is not None:
            cols = tuple(np.concatenate([w, c]) for w, c in zip(self.waiting, cols))
        match = cols[4]
        changes = np.flatnonzero(match[1:] != match[:-1])
        cut = int(changes[-1]) + 1 if len(changes) else 0
        self.waiting = tuple(c[cut:] for c in cols)
        self._rate(tuple(c[:cut] for c in cols))

    def finish(self) -> Summary:
        if self.waiting is not None:
            self._rate(self.waiting)
            self.waiting = None
        return self.summary

    def held(self) -> dict[str, float]:
        """Every rating by name once ``finish``ed: ``known`` with the matches added since."""
        self.known.update(zip(self.names, self.ratings.tolist()))
        return self.known

    def _rate(self, cols: tuple[np.ndarray, ...]) -> None:
        year, score, a, b, match = cols
        n = len(a)
        if not n:
            return
        players = len(self.ratings)
        out = np.empty(n)
        change = np.zeros(players)
        args = (a, b, np.ascontiguousarray(score), match, self.ratings, change, np.zeros(2 * n, dtype=np.int64),
                np.zeros(players, dtype=bool), self.k, TEN, out)
        run(plain_elo_kernel, n, args, (4, 10))
        self.summary.add(year, out, score)
