"""Honest ranks: a 95% interval for every rating and ranks grouped by significance.

A rank says more than the ratings know: two players 3 points apart are not really
first and second. Chatbot Arena's rule groups them: a player's rank is 1 + the
number of players *significantly* better, those whose interval lies wholly above
theirs (the other's lower bound above this one's upper bound).

The interval comes from the system where it has one (Glicko-2: rating ± 2 RD) and
from a bootstrap of the league's matches for the others (elo, lunaro, placement):
the matches are resampled with replacement, each resample replayed in history order
with the league's own system, and each player's 2.5th and 97.5th percentiles taken.
Arena's rating is a mean of game ratings, not a replayed history: it has neither.

The resamples are drawn from a seed derived from the league's input (its slug, and
every match's id, time and players), so the same input always gives the same page.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Mapping, Sequence

import numpy as np

from sitegen.model.history import RatedLeague
from sitegen.rating.base import Match, RatingDiverged
from sitegen.rating.placement import Placement, placement_terms

# Resamples per league: the 2.5th and 97.5th percentiles fall between the 2nd and 3rd values
# from either end, coarse but stable enough to group ranks. Measured on the demo site (four
# bootstrapped leagues, 2,653 matches): 100 resamples cost 8-9% of the build, 80 about 7%,
# inside the tenth of the build this feature may take.
RESAMPLES = 80
BOOTSTRAP_SYSTEMS = ("lunaro", "elo", "placement")
LOW_PCT, HIGH_PCT = 2.5, 97.5

Interval = tuple[float, float]


def seed_of(slug: str, matches: Sequence[Match]) -> int:
    """A seed that changes with the league's input and with nothing else (not the clock)."""
    h = hashlib.sha256(slug.encode("utf-8"))
    for m in matches:
        h.update(b"\x00" + m.id.encode("utf-8") + b"\x00" + m.played.isoformat().encode("ascii"))
        for p in m.players:
            h.update(b"\x01" + p.encode("utf-8"))
    return int.from_bytes(h.digest()[:8], "big")


def resamples(n: int, count: int, seed: int) -> list[list[int]]:
    """``count`` lists of n match positions drawn with replacement, each sorted so that a
    resample is replayed in history order (a drawn twice match is played twice in a row).

    random.Random with an integer seed and ``random()`` are the same on every Python
    version, so the draws are too.
    """
    rng = random.Random(seed)
    return [sorted(int(rng.random() * n) for _ in range(n)) for _ in range(count)]


def percentile_interval(values: Sequence[float], rating: float) -> Interval:
    """The 2.5th and 97.5th percentiles (linear between order statistics), widened to hold the
    rating itself: a resample holds about 63% of the distinct matches, so its ratings lean
    towards the starting rating, and an interval that misses the rating shown beside it
    would only confuse."""
    if not values:
        return (rating, rating)
    lo, hi = np.percentile(np.asarray(values, dtype=float), [LOW_PCT, HIGH_PCT]).tolist()
    return (min(lo, rating), max(hi, rating))


def bootstrap(rated: RatedLeague, count: int = RESAMPLES) -> dict[str, Interval]:
    """Each rated player's bootstrap interval; {} for a system without one here."""
    league = rated.league
    system = league.config.system
    if system.name not in BOOTSTRAP_SYSTEMS or not league.matches:
        return {}
    matches = league.matches
    draws = resamples(len(matches), count, seed_of(league.config.slug, matches))
    if isinstance(system, Placement):
        samples = placement_replays(system, matches, draws)
    else:
        samples = {}
        for idx in draws:
            try:
                standings = system.standings(system.rate([matches[i] for i in idx]))
            except RatingDiverged:
                continue        # a resample the margin rule cannot rate says nothing either way
            for s in standings:
                samples.setdefault(s.player, []).append(s.rating)
    return {r.standing.player: percentile_interval(samples.get(r.standing.player, ()), r.standing.rating)
            for r in rated.standings}


def placement_replays(system: Placement, matches: Sequence[Match],
                      draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """Every resample of a placement league replayed at once, one match of each per step.

    The engine's update, R' = max(floor, R + K (S - E)), on a (resamples x players) array:
    a 20-car race replayed match by match costs ~0.4 ms in Placement.rate, too slow for a
    hundred replays of a long league. tests/test_honest_ranks.py checks one resample
    against Placement.rate.
    """
    names = sorted({p for m in matches for p in m.players})
    pid = {n: i for i, n in enumerate(names)}
    pad = len(names)                       # a column no player owns: the padding's
    width = max(len(m.players) for m in matches)
    who = np.full((len(matches), width), pad)
    score = np.zeros((len(matches), width))
    size = np.array([len(m.players) for m in matches])
    for i, m in enumerate(matches):
        who[i, :len(m.players)] = [pid[p] for p in m.players]
        # S depends on the places alone: the engine's own formula, ratings aside.
        score[i, :len(m.players)] = placement_terms(np.zeros(len(m.players)),
                                                    np.array([e["place"] for e in m.entries]))[1]
    order = np.asarray(draws)
    count = len(order)
    start = np.full(pad + 1, float(system.initial))
    for name, r in system.starts.items():
        if name in pid:
            start[pid[name]] = float(r)
    ratings = np.tile(start, (count, 1))
    seen = np.zeros((count, pad + 1), dtype=bool)
    rows = np.arange(count)[:, None]
    diag = np.arange(width)
    for t in range(order.shape[1]):
        m = order[:, t]
        w = int(size[m].max())                        # resamples are sorted: similar matches at a step
        cols = who[m, :w]                             # (resamples, w)
        real = cols != pad
        r = ratings[rows, cols]
        # 1 / (1 + 10^((R_j - R_i)/400)) = q_i / (q_i + q_j), q = 10^((R - top)/400): n
        # powers instead of n^2 (equal to ~1e-15; relative to the match's top rating, q <= 1).
        top = np.where(real, r, -np.inf).max(axis=1, keepdims=True)
        q = np.where(real, 10.0 ** ((r - top) / 400.0), 1.0)
        win = q[:, :, np.newaxis] / (q[:, :, np.newaxis] + q[:, np.newaxis, :])
        win *= real[:, np.newaxis, :]                 # no duel against the padding
        win[:, diag[:w], diag[:w]] = 0.0              # nor against oneself
        expected = win.sum(axis=2)
        k = system.k_of(r.ravel()).reshape(r.shape)
        if system.normalize:
            k = k / (size[m] - 1)[:, None]
        after = np.maximum(float(system.floor), r + k * (score[m, :w] - expected))
        ratings[rows, cols] = np.where(real, after, r)
        seen[rows, cols] |= real
    out: dict[str, list[float]] = {}
    for name, i in pid.items():
        out[name] = ratings[seen[:, i], i].tolist()
    return out


def grouped_ranks(intervals: Mapping[str, Interval]) -> dict[str, int]:
    """Chatbot Arena's rule: 1 + the number of players whose lower bound is above this
    player's upper bound (significantly better)."""
    lows = sorted(lo for lo, _ in intervals.values())
    n = len(lows)
    return {name: 1 + n - bisect_right(lows, hi) for name, (_, hi) in intervals.items()}
