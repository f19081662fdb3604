"""Glicko-2 over arrays: a league's whole history in one kernel (arrays.py), players as indices.

The kernel repeats glicko2.py's per-player functions (battle_score, g, expected_score,
variance_and_improvement, new_volatility, update, idle) operation for operation, so its floats
are those of the functions, to the bit, run plain or compiled. Where Python would raise inside
``update`` (a log of 0, a float power or exp that overflows, a division by zero, a bracket that
never closes) the kernel flags the update as failed and writes NaN, as ``Glicko2`` did when it
caught the exception; the first period with a value off the finite numbers ends the history.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitegen.rating import arrays
from sitegen.rating.values import Match

SCALE = 173.7178          # paper, step 1: r = 173.7178 mu + 1500, RD = 173.7178 phi
MAX_ITERATIONS = 200      # step 5 converges superlinearly; the cap only stops an epsilon
                          # below float spacing (say 1e-300) from looping forever
TRANSFORMS = ("sine", "share", "outcome")     # the kernel's transform codes: their positions
# Python's ``x ** 2`` is the C library's pow(x, 2.0), which differs from x * x in the last bit
# for about one value in a thousand; numba turns a literal exponent into x * x, so the kernel
# takes its 2.0 as an argument and calls pow like the interpreter does.
TWO = 2.0



def glicko2_history(period_first: Any, period_index: Any, match_first: Any, players: Any, scores: Any,
                    rating: Any, rd: Any, volatility: Any, tau: float, epsilon: float, transform: int,
                    two: float, change_player: Any, before: Any, after: Any, games: Any,
                    period_changes: Any, battle: Any, mark: Any, last: Any, slot: Any,
                    info: Any, surprise: Any) -> tuple[int, int]:
    """Every rating period of a league, from its players' starting values; (failed period or -1,
    changes written).

    Periods are runs of matches (``period_first``: offsets into the matches, one more than
    there are periods) with their calendar ``period_index``; matches are runs of entries
    (``match_first``), an entry a player index (``players``) and a raw score. ``rating``,
    ``rd`` and ``volatility`` hold each player's value before their first period and are
    updated in place. Written: a change per participant of each period, in order of first
    appearance (``change_player``, ``games``, ``before`` and ``after`` as flat (rating, RD,
    volatility) triples), each period's first change (``period_changes``), and a battle score
    per ordered pair of a match's players, match by match (``battle``). ``mark`` (all -1),
    ``last``, ``slot``, ``info`` and ``surprise`` are scratch, one per player.

    The arguments are NumPy arrays for the compiled kernel, lists for the plain one: list
    items are Python's own floats, so the plain kernel's arithmetic is the interpreter's.
    """

    def f(x: float, a: float, delta: float, phi2: float, v: float) -> tuple[float, bool]:
        # Step 5's f, and False where new_volatility would have raised (float power overflow:
        # OverflowError in the interpreter, inf when compiled).
        if x > 700.0:
            # e^x would overflow: numerator and denominator divided by e^2x, w = e^-x.
            w = math.exp(-x)
            base = (phi2 + v) * w + 1.0
        else:
            w = math.exp(x)
            base = phi2 + v + w
        try:
            square = base ** two
        except Exception:
            square = math.inf
        if (math.isinf(square) and not math.isinf(base)) or square == 0.0:
            return math.nan, False
        if x > 700.0:
            first = ((delta * delta - phi2 - v) * w - 1.0) / (2.0 * square)
        else:
            first = w * (delta * delta - phi2 - v - w) / (2.0 * square)
        return first - (x - a) / (tau * tau), True

    c = 0
    b = 0
    failed = -1
    periods = len(period_first) - 1
    for p in range(periods):
        period_changes[p] = c
        index = period_index[p]
        for m in range(period_first[p], period_first[p + 1]):
            m0 = match_first[m]
            m1 = match_first[m + 1]
            for e in range(m0, m1):
                q = players[e]
                if mark[q] != p:
                    # Entering the period: grown by step 6 for the periods sat out since the last.
                    sigma = volatility[q]
                    d = rd[q]
                    if mark[q] >= 0:
                        k = index - last[q] - 1
                        if k > 0:
                            phi = d / SCALE
                            d = SCALE * math.sqrt(phi * phi + k * sigma * sigma)
                    mark[q] = p
                    slot[q] = c
                    change_player[c] = q
                    games[c] = 0
                    before[3 * c] = rating[q]
                    before[3 * c + 1] = d
                    before[3 * c + 2] = sigma
                    info[q] = 0.0
                    surprise[q] = 0.0
                    c += 1
                games[slot[q]] += 1
            for i in range(m0, m1):
                me = 3 * slot[players[i]]
                for j in range(m0, m1):
                    if i == j:
                        continue
                    sa = scores[i]
                    sb = scores[j]
                    if transform == 2:
                        s = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
                    else:
                        total = sa + sb
                        if total == 0:
                            share = 0.5
                        elif math.isfinite(total):
                            share = sa / total
                        else:                   # two scores near the float limit: scale down first
                            top = max(sa, sb)
                            share = (sa / top) / (sa / top + sb / top)
                        if transform == 1:
                            s = share
                        else:
                            s = (math.sin((share - 0.5) * math.pi) + 1.0) / 2.0
                    battle[b] = s
                    b += 1
                    # Steps 3-4 against the opponent's value going into the period; each
                    # player's sums grow in the order of their battles, as the update adds them.
                    them = 3 * slot[players[j]]
                    phi_j = before[them + 1] / SCALE
                    gj = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (math.pi * math.pi))
                    z = gj * (before[me] - before[them]) / SCALE
                    if z < -700.0:
                        t = math.exp(z)
                        ev = t / (1.0 + t)
                    else:
                        ev = 1.0 / (1.0 + math.exp(-z))
                    q = players[i]
                    info[q] += gj * gj * ev * (1.0 - ev)
                    surprise[q] += gj * (s - ev)
        diverged = False
        for row in range(period_changes[p], c):
            q = change_player[row]
            r = before[3 * row]
            phi = before[3 * row + 1] / SCALE
            sigma = before[3 * row + 2]
            v = math.inf if info[q] == 0.0 else 1.0 / info[q]
            if math.isinf(v):
                # E is exactly 0 or 1 in every battle: no information, the player only ages.
                new_r = r
                new_rd = SCALE * math.sqrt(phi * phi + 1 * sigma * sigma)
                new_sigma = sigma
            else:
                new_r = new_rd = new_sigma = math.nan
                delta = v * surprise[q]
                phi2 = phi * phi
                ok = sigma * sigma > 0.0 or math.isnan(sigma)         # math.log raises on 0
                # Step 5: the Illinois iteration, A = ln(sigma^2) and B bracketing the root.
                big_a = a = math.log(sigma * sigma) if ok else math.nan
                big_b = math.nan
                if ok and delta * delta > phi2 + v:
                    ok = delta * delta - phi2 - v > 0.0
                    if ok:
                        big_b = math.log(delta * delta - phi2 - v)
                elif ok:
                    k = 1
                    while True:
                        fx, ok = f(a - k * tau, a, delta, phi2, v)
                        if not ok or not fx < 0:
                            break
                        k += 1
                        if k > MAX_ITERATIONS * 1000:
                            ok = False
                            break
                    big_b = a - k * tau
                f_a = f_b = phi_star = root = math.nan
                if ok:
                    f_a, ok = f(big_a, a, delta, phi2, v)
                if ok:
                    f_b, ok = f(big_b, a, delta, phi2, v)
                if ok:
                    for _ in range(MAX_ITERATIONS):
                        if abs(big_b - big_a) <= epsilon:
                            break
                        if f_b - f_a == 0.0:        # ZeroDivisionError in new_volatility
                            ok = False
                            break
                        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
                        f_c, ok = f(big_c, a, delta, phi2, v)
                        if not ok:
                            break
                        # <= 0 rather than < 0: a C exactly on the root still closes the bracket onto it.
                        if f_c * f_b <= 0:
                            big_a = big_b
                            f_a = f_b
                        else:
                            f_a /= 2.0
                        big_b = big_c
                        f_b = f_c
                if ok:
                    try:
                        new_sigma = math.exp(big_a / 2.0)
                    except Exception:           # OverflowError in the interpreter
                        new_sigma = math.inf
                    ok = not (math.isinf(new_sigma) and not math.isinf(big_a))
                if ok:
                    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)          # step 6
                    ok = phi_star * phi_star != 0.0 and v != 0.0               # ZeroDivisionError
                if ok:
                    root = math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
                    ok = root != 0.0
                if ok:
                    phi_new = 1.0 / root                                            # step 7
                    mu_change = phi_new * phi_new * surprise[q]
                    new_r = r + SCALE * mu_change                                   # step 8
                    new_rd = SCALE * phi_new
                else:
                    new_r = new_rd = new_sigma = math.nan
            after[3 * row] = new_r
            after[3 * row + 1] = new_rd
            after[3 * row + 2] = new_sigma
            if not (math.isfinite(new_r) and math.isfinite(new_rd) and math.isfinite(new_sigma)):
                diverged = True
            rating[q] = new_r
            rd[q] = new_rd
            volatility[q] = new_sigma
            last[q] = index
        period_changes[p + 1] = c
        if diverged:
            failed = p
            break
    return failed, c


@dataclass(frozen=True, slots=True)
class History:
    """A league's matches as the kernel reads them, encoded once (glicko2_history's columns):
    players by index in order of first appearance, with their starting values."""

    names: tuple[str, ...]
    period_first: np.ndarray
    period_index: np.ndarray
    match_first: np.ndarray
    players: np.ndarray
    scores: np.ndarray
    rating: np.ndarray
    rd: np.ndarray
    volatility: np.ndarray

    @property
    def matches(self) -> int:
        return len(self.match_first) - 1


def encode(periods: Sequence[tuple[int, Sequence[Match]]],
           start: Callable[[str], tuple[float, float, float]]) -> History:
    """The history of ``periods`` ((index, matches) in history order); ``start`` gives a
    player's (rating, RD, volatility) before their first period."""
    index: dict[str, int] = {}
    players: list[int] = []
    scores: list[float] = []
    match_first = [0]
    period_first = [0]
    period_index: list[int] = []
    for number, group in periods:
        for m in group:
            for name, entry in zip(m.players, m.entries):
                q = index.get(name)
                if q is None:
                    q = index[name] = len(index)
                players.append(q)
                scores.append(float(entry["score"]))
            match_first.append(len(players))
        period_first.append(len(match_first) - 1)
        period_index.append(number)
    names = tuple(index)
    starts = np.array([start(name) for name in names], np.float64).reshape(len(names), 3)
    return History(names, np.array(period_first, np.int64), np.array(period_index, np.int64),
                   np.array(match_first, np.int64), np.array(players, np.int64), np.array(scores, np.float64),
                   starts[:, 0].copy(), starts[:, 1].copy(), starts[:, 2].copy())


def arguments(history: History, *, tau: float, epsilon: float, transform: str, compiled: bool) -> tuple[Any, ...]:
    """glicko2_history's arguments for ``history``: fresh state and buffers, as NumPy arrays
    for the compiled kernel or lists for the plain one."""
    h = history
    n, entries, periods = len(h.names), len(h.players), len(h.period_index)
    sizes = np.diff(h.match_first)
    battles = int((sizes * (sizes - 1)).sum())
    columns: tuple[Any, ...] = (h.period_first, h.period_index, h.match_first, h.players, h.scores,
               h.rating.copy(), h.rd.copy(), h.volatility.copy())
    buffers: tuple[Any, ...] = (np.zeros(entries, np.int64), np.zeros(3 * entries), np.zeros(3 * entries),
               np.zeros(entries, np.int64), np.zeros(periods + 1, np.int64), np.zeros(battles),
               np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n), np.zeros(n))
    if not compiled:
        columns = tuple(c.tolist() for c in columns)
        buffers = tuple(c.tolist() for c in buffers)
    return (*columns, float(tau), float(epsilon), TRANSFORMS.index(transform), TWO, *buffers)


@dataclass(frozen=True, slots=True)
class Rated:
    """glicko2_history's columns as Python numbers (see there); ``failed`` is the period whose
    values left the finite numbers, or -1."""

    failed: int
    change_player: list[int]
    before: list[float]
    after: list[float]
    games: list[int]
    period_changes: list[int]
    battle: list[float]


def run(history: History, *, tau: float, epsilon: float, transform: str) -> Rated:
    """The kernel over ``history``, compiled or plain as arrays.kernel decides."""
    fn = arrays.kernel(glicko2_history, history.matches)
    args = arguments(history, tau=tau, epsilon=epsilon, transform=transform, compiled=fn is not glicko2_history)
    failed, count = fn(*args)
    out = [c if isinstance(c, list) else c.tolist() for c in args[12:18]]
    change_player, before, after, games, period_changes, battle = out
    return Rated(int(failed), change_player[:count], before[:3 * count], after[:3 * count], games[:count],
                 period_changes, battle)
