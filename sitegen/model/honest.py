"""Honest ranks: a 95% interval for every rating and ranks grouped by significance.

A rank says more than the ratings know: two players 3 points apart are not really
first and second. Chatbot Arena's rule groups them: a player's rank is 1 + the
number of players *significantly* better, those whose interval lies wholly above
theirs (the other's lower bound above this one's upper bound).

The interval comes from the system where it has one (Glicko-2: rating ± 2 RD) and
from a bootstrap of the league's matches for the others (elo, lunaro, placement),
each player's 2.5th and 97.5th percentiles over the resamples, each resample replayed
in history order with the league's own system. Arena's rating is a mean of game
ratings, not a replayed history: it has neither.

The bootstrap is Poisson's (Hanley & MacGibbon 2006; Chamandy et al. 2012, "Estimating
uncertainty for massive data streams"): in resample r the match at position i is played
w(r, i) times in a row, w ~ Poisson(1), rather than n matches drawn with replacement. w is a
pure function of the league's slug, r and i (``python_weight``), not of the other matches
nor of their number, so the same input always gives the same page, and a match appended
to a league leaves the draws of every earlier match as they were: only the players of the
new match get new ratings in the resamples, and so new intervals.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from decimal import Context, Decimal
from typing import Any, cast

import numpy as np

from sitegen.load.cache import Cache
from sitegen.model.history import KERNEL_COLUMNS, RatedLeague
from sitegen.rating.base import RatingDiverged

# Resamples per league: the 2.5th and 97.5th percentiles fall between the 2nd and 3rd values
# from either end, coarse but stable enough to group ranks. Measured on the demo site (four
# bootstrapped leagues, 2,653 matches): 100 resamples cost 8-9% of the build, 80 about 7%,
# inside the tenth of the build this feature may take.
RESAMPLES = 80
LOW_PCT, HIGH_PCT = 2.5, 97.5

Interval = tuple[float, float]

# SplitMix64 (Steele, Lea & Flood 2014): its increment and the two multipliers of its mix.
GAMMA = 0x9E3779B97F4A7C15
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
MASK = (1 << 64) - 1
# Resample r counts from r * 2**40: distinct (r, i) are distinct counters below 2**40 matches.
ROW_SHIFT = 40


def _poisson_cdf() -> tuple[float, ...]:
    """P(w <= k) for Poisson(1), k = 0..17: the double nearest e^-1 (1/0! + ... + 1/k!), worked
    out in 50 digits so every platform has the same table; the last is 1, the tail beyond 17
    (P(w > 17) = 6e-17, below what 53 bits of u can tell apart) counted as 17."""
    ctx = Context(prec=50)
    term = total = ctx.exp(Decimal(-1))
    out = [float(total)]
    for k in range(1, 17):
        term = ctx.divide(term, k)
        total = ctx.add(total, term)
        out.append(float(total))
    return (*out, 1.0)


POISSON_CDF = _poisson_cdf()


def league_key(slug: str) -> int:
    """The league's 64-bit key: the first 8 bytes of the SHA-256 of its slug (UTF-8), big-endian.
    Only the slug: the matches' draws must not move when another match is added."""
    return int.from_bytes(hashlib.sha256(slug.encode("utf-8")).digest()[:8], "big")


def python_weight(key: int, r: int, i: int) -> int:
    """How many times resample r plays the match at history position i: the definition.

    All arithmetic mod 2**64: z = key + (r * 2**40 + i + 1) * GAMMA (the SplitMix64 output number
    r * 2**40 + i of the stream seeded with key), mixed as SplitMix64 mixes; u = (z >> 11) / 2**53,
    uniform in [0, 1); w = the smallest k with u < POISSON_CDF[k] (inverse CDF of Poisson(1))."""
    z = (key + ((r << ROW_SHIFT) + i + 1) * GAMMA) & MASK
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    z ^= z >> 31
    return bisect_right(POISSON_CDF, (z >> 11) / 2 ** 53)


def python_resamples(n: int, count: int, key: int) -> list[list[int]]:
    """``resamples`` one weight at a time: what it must equal."""
    return [[i for i in range(n) for _ in range(python_weight(key, r, i))] for r in range(count)]


def resamples(n: int, count: int, key: int, start: int = 0) -> list[Sequence[int]]:
    """``count`` resamples of n matches, each the positions 0..n-1 in history order with position
    i repeated ``python_weight(key, r, i)`` times (a match drawn twice is played twice in a row);
    from ``start`` on only, the part of each resample that follows a shorter history's.

    The same weights in numpy's uint64 arithmetic, which wraps mod 2**64 as the definition masks;
    one resample at a time, so the temporaries stay a few arrays of n (8 MB each at a million
    matches). About n positions a resample, as many as a draw with replacement gave.
    """
    cdf = np.array(POISSON_CDF)
    positions = np.arange(start, n, dtype=np.int64)
    # key + (i + 1) * GAMMA for every i; a resample adds its (r * 2**40) * GAMMA.
    base = np.arange(start + 1, n + 1, dtype=np.uint64) * np.uint64(GAMMA) + np.uint64(key)
    s30, s27, s31, s11 = (np.uint64(s) for s in (30, 27, 31, 11))
    out: list[Sequence[int]] = []
    for r in range(count):
        z = base + np.uint64(((r << ROW_SHIFT) * GAMMA) & MASK)
        z ^= z >> s30
        z *= np.uint64(MIX1)
        z ^= z >> s27
        z *= np.uint64(MIX2)
        z ^= z >> s31
        u = (z >> s11).astype(np.float64) * 2.0 ** -53         # exact: below 2**53
        w = np.searchsorted(cdf, u, side="right")
        # Rows of int64 arrays, not lists of Python ints: 8 bytes a position, not 40.
        out.append(cast(Sequence[int], np.repeat(positions, w)))
    return out


def percentile_interval(values: Sequence[float], rating: float) -> Interval:
    """The 2.5th and 97.5th percentiles (linear between order statistics), widened to hold the
    rating itself: a resample holds about 63% of the distinct matches, so its ratings lean
    towards the starting rating, and an interval that misses the rating shown beside it
    would only confuse."""
    if not values:
        return (rating, rating)
    lo, hi = np.percentile(np.asarray(values, dtype=float), [LOW_PCT, HIGH_PCT]).tolist()
    return (min(lo, rating), max(hi, rating))


def percentile_intervals(samples: Mapping[str, Sequence[float]], ratings: Sequence[tuple[str, float]]
                         ) -> dict[str, Interval]:
    """``percentile_interval`` of every (player, rating) at once: the players with the same
    number of samples stacked as the rows of one array and np.percentile taken along them, the
    arithmetic of one player's row by row (10,000 calls took 1.3 s at a million matches)."""
    rows: dict[int, list[int]] = {}
    for k, (name, _) in enumerate(ratings):
        rows.setdefault(len(samples.get(name, ())), []).append(k)
    bounds: list[Interval | None] = [None] * len(ratings)
    for count, ks in rows.items():
        if not count:
            continue
        block = np.array([samples[ratings[k][0]] for k in ks], dtype=float).reshape(len(ks), count)
        lows, highs = np.percentile(block, [LOW_PCT, HIGH_PCT], axis=1).tolist()
        for k, lo, hi in zip(ks, lows, highs):
            bounds[k] = (lo, hi)
    out: dict[str, Interval] = {}
    for (name, rating), found in zip(ratings, bounds):
        out[name] = (rating, rating) if found is None else (min(found[0], rating), max(found[1], rating))
    return out


def intervals_of(rated: RatedLeague, samples: Mapping[str, Sequence[float]]) -> dict[str, Interval]:
    """Each rated player's interval from their samples, best first."""
    return percentile_intervals(samples, [(r.standing.player, r.standing.rating) for r in rated.standings])


def bootstrap(rated: RatedLeague, count: int = RESAMPLES) -> dict[str, Interval]:
    """Each rated player's bootstrap interval; {} for a system without one here."""
    league = rated.league
    system = league.config.system
    if not system.bootstraps or not league.matches:
        return {}
    matches = league.matches
    draws = resamples(len(matches), count, league_key(league.config.slug))
    # A system may replay every resample at once (placement's arrays); else one by one. Elo's
    # reads the matches as the league's rating encoded them, where it kept them (model/resume.py).
    cols = rated.cache.get(KERNEL_COLUMNS)
    resume = getattr(system, "resampled_from", None)
    fast = (system.resampled_ratings(matches, draws) if cols is None or resume is None
            else resume(matches, draws, None, cols=cols)[0])
    if fast is not None:
        samples = fast
    else:
        samples = {}
        for idx in draws:
            try:
                standings = system.standings(system.rate([matches[i] for i in idx]))
            except RatingDiverged:
                continue        # a resample the margin rule cannot rate says nothing either way
            for s in standings:
                samples.setdefault(s.player, []).append(s.rating)
    return intervals_of(rated, samples)


def bootstrap_from(rated: RatedLeague, before: Any, count: int = RESAMPLES) -> tuple[dict[str, Interval], Any]:
    """``bootstrap``, each resample's replay taken up where ``before`` (the replays of the league's
    first matches, as a system that can resume them keeps them: elo's) left it, and the replays
    as they stand after every match; where the system cannot, ``bootstrap`` and None."""
    league = rated.league
    system = league.config.system
    resume = getattr(system, "resampled_from", None)
    if resume is None or not system.bootstraps or not league.matches:
        return bootstrap(rated, count), None
    n, key = len(league.matches), league_key(league.config.slug)
    # The matches as the league's rating encoded them (model/resume.py), where it kept them.
    cols = rated.cache.get(KERNEL_COLUMNS)
    extra = {} if cols is None else {"cols": cols}
    try:
        samples, states = resume(league.matches, resamples(n, count, key, before.matches if before else 0), before,
                                 **extra)
    except ValueError:          # the replays before are of other players: every resample again
        samples, states = resume(league.matches, resamples(n, count, key), None, **extra)
    return intervals_of(rated, samples), states


def cached_bootstrap(cache: Cache, keys: Mapping[str, tuple[str, np.ndarray] | None]
                     ) -> Callable[[RatedLeague], dict[str, Interval]]:
    """``bootstrap`` through the build cache (load/cache.py). ``keys[slug]`` is a digest of every
    input of the league's ratings and its history's prefix identities (output/memo.py): under the
    digest, a rebuild after an edit elsewhere (a page of content/, a template, another league)
    does not replay the resamples again; and the replays as they stood after the last build's
    matches are kept, so that where its history is the start of this one (matches appended),
    each resample replays only the matches that follow (``bootstrap_from``), with the same
    numbers as every match replayed. A league without a key is resampled."""
    def run(rated: RatedLeague) -> dict[str, Interval]:
        slug = rated.league.config.slug
        found = keys.get(slug)
        if found is None:
            return bootstrap(rated)
        key, prefixes = found
        hit = cache.get("bootstrap", key)
        if isinstance(hit, dict) and all(isinstance(v, tuple) and len(v) == 2 for v in hit.values()):
            return hit
        kept = cache.get("replays", slug)
        before = None
        if isinstance(kept, tuple) and len(kept) == 2 and hasattr(kept[1], "matches"):
            upto = kept[1].matches
            if 0 < upto <= len(prefixes) and int(prefixes[upto - 1]) == kept[0]:
                before = kept[1]
        intervals, states = bootstrap_from(rated, before)
        cache.put("bootstrap", key, intervals)
        if states is not None and len(prefixes):
            cache.put("replays", slug, (int(prefixes[-1]), states))
        return intervals
    return run


def grouped_ranks(intervals: Mapping[str, Interval]) -> dict[str, int]:
    """Chatbot Arena's rule: 1 + the number of players whose lower bound is above this
    player's upper bound (significantly better)."""
    lows = sorted(lo for lo, _ in intervals.values())
    n = len(lows)
    return {name: 1 + n - bisect_right(lows, hi) for name, (_, hi) in intervals.items()}
