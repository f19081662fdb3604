"""Opponent pools through the build cache (model/pools.py ``_Kept``): a player whose row, rating
and window's sides are as the last build had them keeps its draws, reordered by the standings;
held to drawing every pool afresh over random leagues and random changes between two builds."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.load.cache import Cache
from sitegen.model.pools import _Kept, opponent_pools
from test_pools import synthetic

NAMES = [f"P{i:02d}" for i in range(30)]
# Whole ratings on a narrow range: equal ratings, and players exactly at a window's edge.
RATING = st.one_of(st.integers(1450, 1550).map(float), st.floats(1400, 1600, allow_nan=False))
BOARD = st.dictionaries(st.sampled_from(NAMES), RATING, min_size=1, max_size=30)


def drawn(pools):
    return [(p.player, p.rating, p.below, p.above, p.pick) for p in pools]


@settings(max_examples=150, deadline=None)
@given(BOARD, st.dictionaries(st.sampled_from(NAMES), RATING | st.none(), max_size=4),
       st.dictionaries(st.sampled_from(NAMES), st.integers(1, 3), max_size=4),
       st.integers(1, 60), st.integers(2, 12))
def test_pools_through_the_cache_equal_the_pools_drawn_afresh(board, moves, games, deviation, size):
    """``moves``: players whose rating moves (None: gone), or who come; ``games``: players whose
    game count changes (their row, not their rating)."""
    params = {"pool_deviation": deviation, "pool_size": size}
    after = {name: r for name, r in ({**board, **moves}).items() if r is not None}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp))
        first = opponent_pools(synthetic(board, **params), cache)
        assert drawn(first) == drawn(opponent_pools(synthetic(board, **params)))
        again = synthetic(after, games=games, **params)
        kept = _Kept.read(cache, again)
        assert kept is not None
        got = opponent_pools(again, cache)
        want = opponent_pools(synthetic(after, games=games, **params))
        assert drawn(got) == drawn(want)
        assert [repr(p) for p in got] == [repr(p) for p in want]


def test_a_moved_rating_redraws_only_the_windows_it_enters_or_leaves():
    # 40 players 10 points apart, windows of 30 points: one far move touches a few windows.
    board = {f"P{i:02d}": 1500.0 + 10 * i for i in range(40)}
    params = {"pool_deviation": 30, "pool_size": 4}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp))
        opponent_pools(synthetic(board, **params), cache)
        moved = synthetic({**board, "P00": 1800.05}, **params)
        kept = _Kept.read(cache, moved)
        assert kept is not None
        # P00 left the windows of P01..P03 (within 30 of 1500) and entered those of P28..P33
        # (1780 to 1830, within 30 of 1800.05): only those are drawn again, and P00's own.
        assert kept.held == {f"P{i:02d}" for i in (*range(4, 28), *range(34, 40))}
        assert drawn(opponent_pools(moved, cache)) == drawn(opponent_pools(synthetic({**board, "P00": 1800.05},
                                                                                      **params)))
