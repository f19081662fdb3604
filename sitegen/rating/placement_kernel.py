"""Placement Elo over arrays: a league's lobbies encoded once as columns, rated by one kernel.

``Placement.rate`` used to rate each lobby with ``placement.placement_terms`` (an n x n NumPy
matrix) and build its changes one match at a time. The kernel does the same arithmetic in the
same order, lobby by lobby: x = (R_j - R_i) / 400, the power 10^x, 1 / (1 + 10^x) with 0 for a
player against themselves, each row summed in NumPy's own pairwise order, then K, S and
R' = max(floor, R + K (S - E)) as NumPy's maximum picks it.

The power alone stays NumPy's: on CPUs with AVX-512 NumPy's ``power`` is a SIMD routine that
differs from the C library's ``pow`` (which Python and numba call) in the last bit for a few
percent of inputs, and those are the bits the placement ratings have always had. So the
kernel writes the exponents of as many coming lobbies as can be known (a *wave*: lobbies that
share no player with an earlier one of the wave), NumPy raises them all in one call, and the
kernel rates the wave and writes the next one's exponents. A 1v1 league's waves hold dozens of
matches, so its Python loop runs once per wave, not per match.

tests/test_placement_kernel.py holds the kernel, plain and compiled, to the per-match update it
replaced (``placement_terms`` lobby by lobby).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sitegen.rating import arrays
from sitegen.rating.events import EventTable, Term
from sitegen.rating.values import Match, RatingEvent

if TYPE_CHECKING:
    from sitegen.rating.placement import Placement

# The base of the power as an array: NumPy's SIMD power takes a contiguous base about twice as
# fast as a broadcast scalar, with the same bits (tests/test_placement_kernel.py checks it).
TEN = 10.0
# NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h): blocks of at most 128
# numbers are summed by 8 running sums, longer runs are halved (at a multiple of 8).
BLOCK = 128
# Exponents held at once: at least one lobby's n^2, else this many (a wave stops before it).
BUFFER = 1 << 16
# The plain kernel runs about this many duels (one player's term of E) in the time the plain
# elo kernel rates a match, and spends about ENTRY_MATCHES of those matches' time on each entry
# besides (its rating read and stored, K, the update, its lobby's share of the wave): 100 lobbies
# of 100 players weigh as 218,000 matches, 20,000 duels of two players as 88,000.
DUELS_PER_MATCH = 5
ENTRY_MATCHES = 2
FRAMES = 64         # depth of the pairwise sum's halvings: 2^64 numbers would not fit in memory


def placement_waves(start, stop, first, who, score, rating, power, x, at, stamp, duel, frames,   # noqa: PLR0913
                    bands, low, band_k, k_fixed, normalize, floor,
                    out_before, out_after, out_exp, out_k):
    """Rate lobbies ``start`` .. ``stop`` - 1, then write the exponents of the next wave into
    ``x``; returns (the wave's end, the exponents written).

    Lobby t is entries ``first[t]`` .. ``first[t + 1]`` - 1: ``who`` (player indices) and
    ``score`` (S, from the places alone). ``power[at[t] + i * n + j]`` holds 10^x of x =
    (R_j - R_i) / 400, as the last call wrote x. ``rating`` is updated in place; ``stamp``
    (one per player, 0 at first) marks the players of a wave; ``duel`` (one per player of
    the largest lobby) and ``frames`` are scratch for a row's pairwise sum. Written per
    entry: the rating before and after, E and the K applied.

    NumPy arrays for the compiled kernel, lists for the plain one (Python's own floats).
    """

    def block(lo, m):
        # numpy's pairwise_sum over at most BLOCK numbers of ``duel``: one loop below 8, else 8
        # running sums.
        if m < 8:
            res = 0.0
            for j in range(lo, lo + m):
                res += duel[j]
            return res
        r0 = duel[lo]
        r1 = duel[lo + 1]
        r2 = duel[lo + 2]
        r3 = duel[lo + 3]
        r4 = duel[lo + 4]
        r5 = duel[lo + 5]
        r6 = duel[lo + 6]
        r7 = duel[lo + 7]
        j = lo + 8
        end = lo + m - (m % 8)
        while j < end:
            r0 += duel[j]
            r1 += duel[j + 1]
            r2 += duel[j + 2]
            r3 += duel[j + 3]
            r4 += duel[j + 4]
            r5 += duel[j + 5]
            r6 += duel[j + 6]
            r7 += duel[j + 7]
            j += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while j < lo + m:
            res += duel[j]
            j += 1
        return res

    def half(m):
        h = m // 2
        return h - h % 8

    def row_sum(n):
        # pairwise(a, n) = pairwise(a, h) + pairwise(a + h, n - h) above BLOCK, without recursion.
        # Frame f is frames[4f .. 4f + 3]: first index, length, state (0 new, 1 left half
        # running, 2 right half running), the left half's sum.
        if n <= BLOCK:
            return block(0, n)
        frames[0] = 0.0
        frames[1] = n
        frames[2] = 0.0
        top = 1
        while True:
            f = 4 * (top - 1)
            lo = int(frames[f])
            m = int(frames[f + 1])
            if m > BLOCK:
                frames[f + 2] = 1.0
                g = 4 * top
                frames[g] = lo
                frames[g + 1] = half(m)
                frames[g + 2] = 0.0
                top += 1
                continue
            v = block(lo, m)
            top -= 1
            while top > 0 and frames[4 * (top - 1) + 2] == 2.0:
                v = frames[4 * (top - 1) + 3] + v
                top -= 1
            if top == 0:
                return v
            p = 4 * (top - 1)
            frames[p + 2] = 2.0
            frames[p + 3] = v
            h = half(int(frames[p + 1]))
            g = 4 * top
            frames[g] = frames[p] + h
            frames[g + 1] = frames[p + 1] - h
            frames[g + 2] = 0.0
            top += 1

    for t in range(start, stop):
        lo = first[t]
        n = first[t + 1] - lo
        base = at[t]
        for i in range(n):
            out_before[lo + i] = rating[who[lo + i]]
        for i in range(n):
            e = lo + i
            r = out_before[e]
            row = base + i * n
            for j in range(n):
                duel[j] = 1.0 / (1.0 + power[row + j])     # 1 / (1 + 10^((R_j - R_i)/400))
            duel[i] = 0.0                                   # no duel against oneself
            ex = row_sum(n)
            # The last band whose min_rating is at most R; the first band below all.
            k = k_fixed
            if bands:
                k = band_k[0]
                for b in range(len(low)):
                    if r >= low[b]:
                        k = band_k[b]
                    else:
                        break
            if normalize:
                k /= n - 1
            v = r + k * (score[e] - ex)
            # NumPy's maximum(floor, v): v unless below floor (so -0.0 stays, NaN passes).
            out_after[e] = floor if v < floor else v
            out_exp[e] = ex
            out_k[e] = k
        # All of a lobby from the ratings held before it, then stored together.
        for i in range(n):
            rating[who[lo + i]] = out_after[lo + i]

    # The next wave: lobbies from ``stop`` on, until one meets a player already in the wave
    # (whose rating the wave has yet to change) or the buffer is full.
    count = len(first) - 1
    mark = stop + 1
    size = 0
    u = stop
    while u < count:
        lo = first[u]
        n = first[u + 1] - lo
        if size + n * n > len(x) and u > stop:
            break
        clash = False
        for i in range(n):
            if stamp[who[lo + i]] == mark:
                clash = True
                break
        if clash:
            break
        for i in range(n):
            stamp[who[lo + i]] = mark
            duel[i] = rating[who[lo + i]]
        at[u] = size
        for i in range(n):
            ri = duel[i]
            row = size + i * n
            for j in range(n):
                x[row + j] = (duel[j] - ri) / 400.0      # placement_terms' (R_j - R_i) / 400
        size += n * n
        u += 1
    return u, size


class Lobbies:
    """A placement league's lobbies as columns: players, offsets, S of every entry."""

    def __init__(self, system: Placement, matches: Sequence[Match]) -> None:
        # Players by first appearance (arrays.player_index's order), listed in one pass.
        index: dict[str, int] = {}
        who = [index.setdefault(p, len(index)) for m in matches for p in m.players]
        self.names = names = tuple(index)
        self.starts = [system.start(p) for p in names]
        sizes = np.array([len(m.players) for m in matches], dtype=np.int64)
        self.first = np.zeros(len(matches) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.first[1:])
        self.who = np.array(who, dtype=np.int64)
        total = len(who)
        # S counts, for every entry, the players of its lobby placed at or above it and those placed
        # equal: runs of equal (lobby, place) in one sort of the whole league.
        lobby = np.repeat(np.arange(len(matches), dtype=np.int64), sizes)
        try:
            places = np.array([e["place"] for m in matches for e in m.entries], dtype=np.int64)
        except OverflowError:
            # Past int64 (TOML integers have no limit; validation keeps places to MAX_COUNT, a
            # caller of rate() may not): each place's rank in its lobby, which keeps the order.
            places = np.array([rank for m in matches for rank in _ranks([e["place"] for e in m.entries])],
                              dtype=np.int64)
        order = np.lexsort((places, lobby))
        run = np.ones(total + 1, dtype=np.bool_)          # where a run of equal (lobby, place) starts
        by_lobby, by_place = lobby[order], places[order]
        run[1:total] = (by_lobby[1:] != by_lobby[:-1]) | (by_place[1:] != by_place[:-1])
        starts = np.flatnonzero(run)                       # and the end of the last one
        of = np.empty(total, dtype=np.int64)
        of[order] = np.cumsum(run[:total]) - 1
        at_or_above = starts[of + 1]
        equal = at_or_above - starts[of] - 1
        # placement_terms: (players placed below) + 0.5 * (others placed equal), exact either way.
        self.score = (self.first[lobby + 1] - at_or_above) + 0.5 * equal
        self.duels = int((sizes * (sizes - 1)).sum())     # ordered pairs: each player's E sums n - 1


def _ranks(places: list[int]) -> list[int]:
    """Each place's position among the distinct places of its lobby."""
    rank = {p: i for i, p in enumerate(sorted(set(places)))}
    return [rank[p] for p in places]


def rate(system: Placement, matches: Sequence[Match]) -> Sequence[RatingEvent]:
    """``Placement.rate``: the kernel over the history, one event per match, held as the
    kernel's columns (events.py): each entry a change with terms expected, score and k."""
    if not matches:
        return []
    cols = Lobbies(system, matches)
    before, after, exp, k = replay(system, cols)
    # Every rating before is a float: ``Placement.start`` makes the starting ones floats.
    return EventTable([m.id for m in matches], [m.played for m in matches], cols.first, cols.names, cols.who,
                      before, after, {"expected": Term(exp), "score": Term(cols.score), "k": Term(k)}, listed=True)


def replay(system: Placement, cols: Lobbies) -> list[np.ndarray]:
    """The kernel over every lobby of ``cols``, wave by wave: each entry's rating before and
    after, E and K, as float64 columns."""
    count = len(cols.first) - 1
    total = len(cols.who)
    widest = int(np.diff(cols.first).max())
    capacity = max(widest * widest, BUFFER)
    # Compiled when the work repays numba's loading (arrays.JIT_MIN_MATCHES counts elo matches).
    fn: Any = arrays.kernel(placement_waves, cols.duels // DUELS_PER_MATCH + ENTRY_MATCHES * total)
    plain = fn is placement_waves
    bands = system.k == "bands"
    band_list = system.k_bands if bands else [(0.0, 0.0)]
    params: tuple[Any, ...] = (bands, [float(lo) for lo, _ in band_list], [float(k) for _, k in band_list],
              0.0 if bands else float(system.k), bool(system.normalize), float(system.floor))
    inputs: tuple[Any, ...] = (cols.first, cols.who, cols.score)
    out: list[Any] = [np.zeros(total) for _ in range(4)]
    rating: Any = np.array(cols.starts, dtype=np.float64)
    x: Any = np.zeros(capacity)
    ten = np.full(capacity, TEN)
    power: Any = np.zeros(capacity)
    at: Any = np.zeros(count, dtype=np.int64)
    stamp: Any = np.zeros(len(cols.names), dtype=np.int64)
    duel: Any = np.zeros(widest)
    frames: Any = np.zeros(4 * FRAMES)
    if plain:
        # Python floats and list indexing: several times faster than NumPy's scalars, the same IEEE
        # arithmetic.
        inputs = tuple(c.tolist() for c in inputs)
        out = [[0.0] * total for _ in range(4)]
        rating, power, x, at, stamp, duel, frames = (rating.tolist(), power.tolist(), x.tolist(), at.tolist(),
                                                     stamp.tolist(), duel.tolist(), frames.tolist())
    else:
        params = (bands, np.array(params[1]), np.array(params[2]), *params[3:])
    start, stop = 0, 0
    while True:
        # Rate the wave written last (none at first), write the next one's exponents.
        end, size = fn(start, stop, *inputs, rating, power, x, at, stamp, duel, frames, *params, *out)
        if size == 0:
            break
        # NumPy's power, as placement_terms' 10.0 ** x: the bits these ratings have always had.
        # Past the largest float it is inf and that duel's E is 0, as the rule wants: no warning.
        with np.errstate(over="ignore"):
            if plain:
                power[:size] = np.power(ten[:size], np.array(x[:size])).tolist()
            else:
                np.power(ten[:size], x[:size], out=power[:size])
        start, stop = stop, end
    # The plain kernel's Python floats as float64: the same bits (-0.0 and NaN included).
    return [np.array(o, dtype=np.float64) for o in out] if plain else out
