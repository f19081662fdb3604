"""The board's ranks (model/board.py ``_ranks``), searched with numpy where every rating is a
float64 as it is, against the rule itself: 1 + the players with a strictly higher rating,
over ties, signed zeros, ints, big ints, NaN and infinities (the last three by the loop)."""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.board import _ranks

RATING = st.one_of(st.sampled_from([1500.0, 1500, 0.0, -0.0, 1499.5, 2 ** 53 + 1, float("nan"), float("inf")]),
                   st.floats(-3000, 3000), st.integers(-3000, 3000))


def by_rule(ratings: dict[str, float]) -> dict[str, int]:
    return {name: 1 + sum(1 for other in ratings.values() if other > r) for name, r in ratings.items()}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=3), RATING, max_size=30))
def test_ranks_are_the_rule(ratings):
    got = _ranks(ratings)
    assert list(got) == list(ratings)
    if not any(r != r for r in ratings.values()):       # NaN: the loop's bisection, as before
        assert got == by_rule(ratings)
    ordered = sorted(ratings.values())
    assert got == {name: 1 + len(ordered) - bisect_right(ordered, r) for name, r in ratings.items()}
    assert all(type(rank) is int for rank in got.values())
