"""The compact forms a kept page's key hashes (output/memo.py pool_key, nearest_key) tell two
inputs apart exactly where the plain values' reprs do."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.forecast import PoolRow, PoolView
from sitegen.model.views import Link
from sitegen.output.memo import nearest_key, pool_key

# Few distinct values, so that two draws are often equal or differ in one place; names with
# NUL, quotes and lone surrogates reach the forms' fallbacks.
names = st.sampled_from(["P1", "P2", "a\0b", "a", "b\0", "'x'", "\ud800", ""])
numbers = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1, 2.5, 1e300, float("inf")]),
                    st.floats(allow_nan=False, width=16))
rows = st.builds(PoolRow, st.builds(Link, names, names), numbers, st.sampled_from(["below", "above"]),
                 numbers, st.booleans())
pools = st.one_of(st.none(), st.builds(lambda rs, dev, per: PoolView(tuple(rs), None, dev, per),
                                       st.lists(rows, max_size=4), numbers, st.sampled_from([1, 15])))


def plain_pool(pool: PoolView | None) -> str:
    """The form the key held before: the pool's values as a tuple's repr."""
    if pool is None:
        return repr(None)
    return repr((pool.deviation, pool.per_side,
                 tuple((r.opponent.text, r.opponent.url, r.rating, r.side, r.win_chance, r.picked)
                       for r in pool.rows)))


@settings(max_examples=400, deadline=None)
@given(pools, pools)
def test_pool_keys_differ_where_the_pools_values_do(a: PoolView | None, b: PoolView | None) -> None:
    assert (pool_key(a) == pool_key(b)) == (plain_pool(a) == plain_pool(b))


def test_names_holding_nul_are_told_apart() -> None:
    def pool(*texts: str) -> PoolView:
        return PoolView(tuple(PoolRow(Link(t, "u/"), 1.0, "below", 50.0, False) for t in texts), None, 1.0, 1)

    assert pool_key(pool("a\0b", "c")) != pool_key(pool("a", "b\0c"))


def test_a_nan_is_never_kept_for_another_value() -> None:
    row = PoolRow(Link("P1", "u/"), float("nan"), "below", 50.0, False)
    other = PoolRow(Link("P1", "u/"), 1.0, "below", 50.0, False)
    assert pool_key(PoolView((row,), None, 1.0, 1)) != pool_key(PoolView((other,), None, 1.0, 1))


class Predictor:
    """model/predict.LeaguePredictor's ``nearest_inputs``: a player's state and its neighbours'."""

    def __init__(self, inputs: dict[str, list[tuple[str, dict]]]) -> None:
        self.inputs = inputs

    def nearest_inputs(self, name: str) -> list[tuple[str, dict]]:
        return self.inputs[name]


states = st.dictionaries(st.sampled_from(["r", "games", "master", "rd"]),
                         st.one_of(numbers, st.booleans(), names), max_size=3)
nearest = st.lists(st.tuples(names, states), max_size=4, unique_by=lambda pair: pair[0])   # a name once


@settings(max_examples=400, deadline=None)
@given(nearest, nearest)
def test_nearest_keys_differ_where_the_states_do(a: list, b: list) -> None:
    # Each a league of its own: a league's states are the same objects all build long.
    key_a = nearest_key(Predictor({"me": a}), "me", {})
    key_b = nearest_key(Predictor({"me": b}), "me", {})
    assert (key_a == key_b) == (repr(a) == repr(b))


def test_a_state_s_repr_is_made_once_a_league_and_stays_its_own() -> None:
    shared = {"r": 1500.0, "games": 3}
    league = {"P1": [("P1", shared), ("P2", {"r": 1.0})], "P2": [("P2", {"r": 1.0}), ("P1", shared)]}
    seen: dict[str, str] = {}
    first, second = (nearest_key(Predictor(league), name, seen) for name in ("P1", "P2"))
    assert set(seen) == {"P1", "P2"}
    assert first == nearest_key(Predictor(league), "P1", {}) != second
