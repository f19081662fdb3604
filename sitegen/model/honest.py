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
from collections.abc import Callable, Mapping, Sequence
from typing import cast
from pathlib import Path

import numpy as np

from sitegen.load.cache import Cache, league_history
from sitegen.model.history import RatedLeague
from sitegen.rating.base import Match, RatingDiverged

# Resamples per league: the 2.5th and 97.5th percentiles fall between the 2nd and 3rd values
# from either end, coarse but stable enough to group ranks. Measured on the demo site (four
# bootstrapped leagues, 2,653 matches): 100 resamples cost 8-9% of the build, 80 about 7%,
# inside the tenth of the build this feature may take.
RESAMPLES = 80
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


def resamples(n: int, count: int, seed: int) -> list[Sequence[int]]:
    """``count`` lists of n match positions drawn with replacement, each sorted so that a
    resample is replayed in history order (a drawn twice match is played twice in a row).

    The draws are ``int(random.Random(seed).random() * n)``, n per resample, one resample after
    the other; random.Random with an integer seed and ``random()`` are the same on every Python
    version, so the draws are too. They are drawn by numpy's Mersenne Twister started from
    Python's own state for the seed: its ``random_sample`` makes each double from two outputs
    exactly as ``random()`` does, so the numbers are the same, without a Python call for each
    of the million draws of a big league (``python_resamples`` is the definition, the tests
    hold the two equal).
    """
    rng = np.random.RandomState()
    state = random.Random(seed).getstate()[1]          # 624 words and the position
    rng.set_state(("MT19937", np.array(state[:624], dtype=np.uint32), state[624], 0, 0.0))
    # One resample at a time into the one array (the stream is the same drawn in one call or
    # row by row): the float draws, their product and the ints of every resample at once came
    # to three times the array's 640 MB at a million matches.
    draws = np.empty((count, n), dtype=np.int64)
    for row in draws:
        row[:] = rng.random_sample(n) * n       # int() of a positive: its floor, as astype truncates
        row.sort()
    # Rows of one array, not lists of Python ints: 8 bytes a draw, not 40 (3 GB at 1M matches).
    return cast(list[Sequence[int]], list(draws))      # each row indexes as a sequence of ints


def python_resamples(n: int, count: int, seed: int) -> list[list[int]]:
    """``resamples`` one ``random()`` at a time: what it must equal."""
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
    if not system.bootstraps or not league.matches:
        return {}
    matches = league.matches
    draws = resamples(len(matches), count, seed_of(league.config.slug, matches))
    # A system may replay every resample at once (placement's arrays); else one by one.
    fast = system.resampled_ratings(matches, draws)
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
    return {r.standing.player: percentile_interval(samples.get(r.standing.player, ()), r.standing.rating)
            for r in rated.standings}


def cached_bootstrap(cache: Cache, root: Path) -> Callable[[RatedLeague], dict[str, Interval]]:
    """``bootstrap`` through the build cache (load/cache.py), keyed by every input of the league's
    ratings (``league_history``'s digest): a rebuild after an edit elsewhere (a page of content/, a
    template, another league) does not replay the resamples again. The league's match-order
    fingerprint (``league_history``'s prefix digests) is stored on the way, from the same pass over its matches:
    this runs in a process of its own beside the pages (output/pages.py), where the pass costs
    the build no time (five seconds at a million matches)."""
    def run(rated: RatedLeague) -> dict[str, Interval]:
        order, key = league_history(root, rated.league)
        cache.put("order", rated.league.config.slug, order)
        hit = cache.get("bootstrap", key)
        if isinstance(hit, dict) and all(isinstance(v, tuple) and len(v) == 2 for v in hit.values()):
            return hit
        intervals = bootstrap(rated)
        cache.put("bootstrap", key, intervals)
        return intervals
    return run


def grouped_ranks(intervals: Mapping[str, Interval]) -> dict[str, int]:
    """Chatbot Arena's rule: 1 + the number of players whose lower bound is above this
    player's upper bound (significantly better)."""
    lows = sorted(lo for lo, _ in intervals.values())
    n = len(lows)
    return {name: 1 + n - bisect_right(lows, hi) for name, (_, hi) in intervals.items()}
