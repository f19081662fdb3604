"""LeagueGames.duel_best_wins (model/aggregates.py) sorts only the wins at or above each player's
n-th highest distinct rating: held to the sort of every win it replaces, over random tables with
ties, NaN, infinities and signed zeros."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.aggregates import LeagueGames
from sitegen.model.views import DRAW, LOSS, NO_RESULT, WIN

RATINGS = st.sampled_from([1500.0, 1500.0, 1400.5, 0.0, -0.0, float("nan"), float("inf"), -float("inf"),
                           1600.25, 1399.0]) | st.floats(-3000, 3000)


def every_win_sorted(games: LeagueGames, other: np.ndarray, n_best: int):
    """The form replaced: every win sorted by player, then rating, the first n_best kept."""
    rating = games.before[other]
    rows = np.flatnonzero((games.result == WIN) & ~np.isnan(rating))
    order = rows[np.lexsort((-rating[rows], games.player[rows]))]
    who = games.player[order]
    first = np.searchsorted(who, who)
    order = order[np.arange(len(order)) - first < n_best]
    who = games.player[order]
    return (np.searchsorted(who, np.arange(len(games.names) + 1)).tolist(),
            (order - games.bounds[who]).astype(np.int32), games.player[other[order]], rating[order])


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 7))
def test_best_wins_equal_the_sort_of_every_win(data, players, n_best):
    counts = data.draw(st.lists(st.integers(0, 12), min_size=players, max_size=players))
    total = sum(counts)
    games = object.__new__(LeagueGames)
    games.names = [f"P{i}" for i in range(players)]
    games.player = np.repeat(np.arange(players, dtype=np.int32), counts)
    games.bounds = np.searchsorted(games.player, np.arange(players + 1))
    games.result = np.array(data.draw(st.lists(st.sampled_from([WIN, WIN, DRAW, LOSS, NO_RESULT]),
                                               min_size=total, max_size=total)), dtype=np.int8)
    games.before = np.array(data.draw(st.lists(RATINGS, min_size=total, max_size=total)), dtype=np.float64)
    other = np.array(data.draw(st.lists(st.integers(0, max(total - 1, 0)), min_size=total, max_size=total)),
                     dtype=np.int64)
    got = games.duel_best_wins(games.player[other], games.before[other], n_best)
    bounds, game, opponent, rating = every_win_sorted(games, other, n_best)
    assert got.bounds == bounds
    for a, b in ((got.game, game), (got.opponent, opponent), (got.rating, rating)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()     # -0.0 and 0.0 told apart
