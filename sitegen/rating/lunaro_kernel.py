"""Lunaro over arrays: a league's matches encoded once as columns, replayed by one kernel.

``Lunaro.rate`` runs ``lunaro_replay`` over the history and builds its events from the
kernel's columns; the bootstrap (honest.py) replays each resample's match positions. What
depends on a match alone, sech(P / I) of each ping and the goal share, is worked out once by
lunaro.py's own functions while encoding; the kernel does the rest in the operations, and
the order, of ``Lunaro.k_for``, ``base.expected`` and ``base.round_half_away``.
tests/test_kernels_elo.py holds it, plain and compiled, to a per-match replay.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sitegen.rating import arrays
from sitegen.rating.events import EventTable, Term
from sitegen.rating.values import Match, RatingEvent

if TYPE_CHECKING:
    from sitegen.rating.lunaro import Lunaro


def lunaro_replay(order, a, b, sech_a, sech_b, share, rating, games, bands, low, band_k, k_fixed,
                  out_ra, out_rb, out_aa, out_ab, out_e, out_ka, out_kb, out_after_a, out_after_b,
                  out_first_a, out_first_b):
    """Replay the matches at positions ``order``, updating ``rating`` (whole numbers held as
    floats) and ``games`` per player index in place; row t of the out columns holds the t-th
    match replayed. K comes from the bands (``low``, ``band_k``) when ``bands``, else ``k_fixed``.
    """
    for t in range(len(order)):
        i = order[t]
        pa = a[i]
        pb = b[i]
        ra = rating[pa]
        rb = rating[pb]
        aa = ra * sech_a[i]         # spec equation (3): A = R sech(P / I)
        ab = rb * sech_b[i]
        x = (ab - aa) / 400.0
        if x > 300.0:
            q = 10.0 ** -x
            e = q / (1.0 + q)
        else:
            e = 1.0 / (1.0 + 10.0 ** x)
        # K follows the rank R, not the ability A: the last band whose minimum R reaches.
        ka = k_fixed
        kb = k_fixed
        if bands:
            ka = band_k[0]
            for j in range(len(low)):
                if ra >= low[j]:
                    ka = band_k[j]
                else:
                    break
            kb = band_k[0]
            for j in range(len(low)):
                if rb >= low[j]:
                    kb = band_k[j]
                else:
                    break
        s = share[i]
        # Rounded halves away from zero, never below 0 (-0.0 becomes 0, as int() makes it).
        xa = ra + ka * (s - e)
        va = math.copysign(math.floor(abs(xa) + 0.5), xa)
        after_a = va if va > 0.0 else 0.0
        xb = rb + kb * ((1.0 - s) - (1.0 - e))
        vb = math.copysign(math.floor(abs(xb) + 0.5), xb)
        after_b = vb if vb > 0.0 else 0.0
        out_ra[t] = ra
        out_rb[t] = rb
        out_aa[t] = aa
        out_ab[t] = ab
        out_e[t] = e
        out_ka[t] = ka
        out_kb[t] = kb
        out_after_a[t] = after_a
        out_after_b[t] = after_b
        out_first_a[t] = games[pa] == 0
        out_first_b[t] = games[pb] == 0
        games[pa] += 1
        games[pb] += 1
        rating[pa] = after_a
        rating[pb] = after_b
    return len(order)


class Replayer:
    """A lunaro league's columns and the kernel, ready to replay any order of its matches."""

    def __init__(self, system: Lunaro, matches: Sequence[Match], length: int, replays: int) -> None:
        from sitegen.rating.lunaro import goal_share, sech      # lunaro.py imports this module
        names, index = arrays.player_index(matches)
        self.names = names
        self.starts = tuple(system.starts.get(p, system.initial) for p in names)
        a, b = arrays.pair_columns(matches, index)
        n = len(matches)
        influence = system.ping_influence
        # ability(R, P, I) = R * sech(P / I): the sech of a match's pings, once.
        sech_a = np.fromiter((sech(m.entries[0]["ping"] / influence) for m in matches), dtype=np.float64, count=n)
        sech_b = np.fromiter((sech(m.entries[1]["ping"] / influence) for m in matches), dtype=np.float64, count=n)
        share = np.fromiter((goal_share(m.entries[0]["goals"], m.entries[1]["goals"]) for m in matches),
                            dtype=np.float64, count=n)
        self.share = share.tolist()
        bands = system.k == "bands"
        band_list = system.k_bands if bands else [(0.0, 0.0)]
        low = np.array([float(lo) for lo, _ in band_list])
        band_k = np.array([float(k) for _, k in band_list])
        self.fn: Any = arrays.kernel(lunaro_replay, length * replays)
        self.plain = self.fn is lunaro_replay
        inputs: tuple[Any, ...] = (a, b, sech_a, sech_b, share)
        # The plain kernel runs on lists: Python floats and list indexing are several times
        # faster than NumPy's scalars, with the same IEEE arithmetic.
        self.inputs = tuple(c.tolist() for c in inputs) if self.plain else inputs
        self.params = (bands, low.tolist() if self.plain else low, band_k.tolist() if self.plain else band_k,
                       0.0 if bands else float(system.k))
        self.start = np.array([float(r) for r in self.starts], dtype=np.float64)
        self.out: list[Any] = [np.zeros(length) for _ in range(9)] + [np.zeros(length, dtype=np.bool_)
                                                                      for _ in range(2)]
        if self.plain:
            self.out = [[0.0] * length for _ in range(9)] + [[False] * length for _ in range(2)]

    def run(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Replay ``order`` from the starting ratings: each player's final rating and games."""
        n = len(self.names)
        rating: Any = self.start.copy()
        games: Any = np.zeros(n, dtype=np.int64)
        seq: Any = order
        if self.plain:
            rating, games, seq = rating.tolist(), games.tolist(), order.tolist()
        self.fn(seq, *self.inputs, rating, games, *self.params, *self.out)
        return np.asarray(rating, dtype=np.float64), np.asarray(games, dtype=np.int64)

    def rows(self) -> list[list[Any]]:
        return [o if self.plain else o.tolist() for o in self.out]


def rate(system: Lunaro, matches: Sequence[Match]) -> Sequence[RatingEvent]:
    """``Lunaro.rate``: the kernel over the history, one event per match, held as its columns
    (events.py); ranks are ints."""
    if not matches:
        return []
    replayer = Replayer(system, matches, len(matches), 1)
    replayer.run(np.arange(len(matches), dtype=np.int64))
    ra, rb, aa, ab, e, ka, kb, after_a, after_b, first_a, first_b = (np.asarray(o) for o in replayer.out)
    n = len(matches)
    index = {p: i for i, p in enumerate(replayer.names)}
    # Row 2t is the first listed player of match t, row 2t + 1 the second.
    pair = np.empty(2 * n, dtype=np.int64)
    pair[0::2] = [index[m.players[0]] for m in matches]
    pair[1::2] = [index[m.players[1]] for m in matches]

    def rows(x: Any, y: Any, dtype: Any = np.float64) -> np.ndarray:
        out = np.empty(2 * n, dtype=dtype)
        out[0::2], out[1::2] = x, y
        return out

    # A first match starts from the rank as given; after it every rank is an int (truncated,
    # as int() of the float).
    first = np.flatnonzero(rows(first_a, first_b, np.bool_)).tolist()
    exact = {r: replayer.starts[p] for r, p in zip(first, pair[first].tolist())}
    share, exp_a = np.asarray(replayer.share, dtype=np.float64), np.asarray(e, dtype=np.float64)
    terms = {"ability": Term(rows(aa, ab)), "expected": Term(rows(exp_a, 1.0 - exp_a)),
             "score": Term(rows(share, 1.0 - share)), "k": Term(rows(ka, kb))}
    return EventTable([m.id for m in matches], [m.played for m in matches],
                      np.arange(0, 2 * n + 1, 2, dtype=np.int64), replayer.names, pair,
                      np.trunc(rows(ra, rb)).astype(np.int64), np.trunc(rows(after_a, after_b)).astype(np.int64),
                      terms, exact_before=exact, listed=True)


def resampled(system: Lunaro, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """``Lunaro.resampled_ratings``: each resample's final ranks, as ``standings(rate(...))``."""
    out: dict[str, list[float]] = {}
    if not matches or not draws:
        return out
    replayer = Replayer(system, matches, max(len(d) for d in draws), len(draws))
    for draw in draws:
        ratings, games = replayer.run(np.asarray(draw, dtype=np.int64))
        played = np.flatnonzero(games)
        for p, r in zip(played.tolist(), ratings[played].tolist()):
            out.setdefault(replayer.names[p], []).append(int(r))
    return out
