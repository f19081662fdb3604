"""The compact forms a kept page's key hashes (output/memo.py pool_key) tell two inputs apart
exactly where the plain values' reprs do; a drawn pool's (drawn_pool_key) wherever the views made
from them differ; the nearest players' (nearest_key) wherever the states the predictions are made
from differ."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.forecast import LeagueForecast, PoolRow, PoolView
from sitegen.model.pools import Opponent, Pool
from sitegen.model.predict import NEAREST, LeaguePredictor, rating_order
from sitegen.model.views import Link
from sitegen.output.memo import drawn_pool_key, nearest_key, page_key, pool_key, standing_key

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


def predictor(states: dict[str, dict]) -> LeaguePredictor:
    return LeaguePredictor(None, states, "", rating_order(states))


# Leagues of a few players on few ratings (ties, and windows reaching both ends), or a few
# dozen (windows inside the league); a second build moves, adds or drops a few of them.
league_states = st.one_of(
    st.dictionaries(st.sampled_from([f"P{i}" for i in range(8)]),
                    st.fixed_dictionaries({"r": st.sampled_from([1.0, 2.0, 3.0, 2.5]), "games": st.integers(0, 2)}),
                    max_size=8),
    st.dictionaries(st.sampled_from([f"P{i:02d}" for i in range(60)]),
                    st.fixed_dictionaries({"r": st.floats(0, 60, width=16), "games": st.integers(0, 1)}),
                    min_size=2 * NEAREST, max_size=60))


@st.composite
def two_builds(draw: st.DrawFn) -> tuple[dict[str, dict], dict[str, dict]]:
    a = draw(league_states)
    b = {name: dict(state) for name, state in a.items()}
    for _ in range(draw(st.integers(0, 3))):
        what = draw(st.sampled_from(["rating", "games", "add", "drop"]) if b else st.just("add"))
        name = draw(st.sampled_from(sorted(b))) if what != "add" else f"N{len(b)}"
        if what == "drop":
            del b[name]
        elif what == "add":
            b[name] = {"r": draw(st.sampled_from([1.0, 2.0, 30.0])), "games": 0}
        else:
            b[name][what if what == "games" else "r"] = draw(st.sampled_from([0, 1.0, 2.0, 2.5, 30.0]))
    return a, b


@settings(max_examples=400, deadline=None)
@given(two_builds())
def test_nearest_keys_are_equal_only_where_the_predictions_inputs_are(builds: tuple) -> None:
    """The key reads a window of the rating order, not the nearest players themselves: where two
    builds' keys are equal, so are the states each player's predictions are made from."""
    a, b = (predictor(states) for states in builds)
    seen_a: dict[str, str] = {}
    seen_b: dict[str, str] = {}
    for name in a.states.keys() | b.states.keys() | {"nobody"}:
        key_a, key_b = nearest_key(a, name, seen_a), nearest_key(b, name, seen_b)
        assert key_a == nearest_key(a, name, {})        # the texts made once are each name's own
        if key_a == key_b:
            assert repr(a.nearest_inputs(name)) == repr(b.nearest_inputs(name))
        if repr(builds[0]) == repr(builds[1]):
            assert key_a == key_b


def test_a_nearest_key_follows_each_state_it_holds() -> None:
    states = {f"P{i:02d}": {"r": float(i), "games": 1} for i in range(40)}
    before = {name: nearest_key(predictor(states), name, {}) for name in states}
    moved = {**states, "P20": {"r": 20.0, "games": 2}}
    after = {name: nearest_key(predictor(moved), name, {}) for name in states}
    # P20 is among the nearest of the players ten places either side of it, and only theirs.
    assert {name for name in states if before[name] != after[name]} == {f"P{i:02d}" for i in range(10, 31)}
    assert nearest_key(predictor(states), "nobody", {}) == ""


opponents = st.builds(Opponent, names, numbers)


@st.composite
def drawn_pools(draw: st.DrawFn) -> Pool:
    below = tuple(draw(st.lists(opponents, max_size=3, unique_by=lambda o: o.name)))
    above = tuple(draw(st.lists(opponents, max_size=3, unique_by=lambda o: o.name)))
    members = below + above
    pick = draw(st.sampled_from(members)) if members and draw(st.booleans()) else None
    return Pool("me", draw(numbers), below, above, pick)


def shown(pool: Pool | None, deviation: float, size: int) -> bytes | None:
    """The pool's view as the page is made from it (forecast.pool_of), by the view's key."""
    if pool is None:
        return pool_key(None)
    links = {o.name: Link(o.name, f"u/{o.name}/") for o in pool.members}
    return pool_key(LeagueForecast(None, {"me": pool}, (), (), links, deviation, size).pool_of("me"))


def changed(draw: st.DrawFn, pool: Pool) -> Pool:
    """The pool with one of the values it is made from changed (or none): two pools that differ in
    one place, which two pools drawn apart seldom do."""
    below, above, pick = list(pool.below), list(pool.above), pool.pick
    where = draw(st.sampled_from(["rating", "below", "above", "pick", "side", "none"]))
    if where == "rating":
        return Pool(pool.player, draw(numbers), pool.below, pool.above, pick)
    if where in ("below", "above") and (below if where == "below" else above):
        side = below if where == "below" else above
        k = draw(st.integers(0, len(side) - 1))
        name, rating = side[k].name, side[k].rating
        side[k] = Opponent(draw(names), rating) if draw(st.booleans()) else Opponent(name, draw(numbers))
    elif where == "pick":
        members = below + above
        pick = draw(st.sampled_from(members)) if members and draw(st.booleans()) else None
    elif where == "side" and below:
        above.insert(0, below.pop())
    return Pool(pool.player, pool.rating, tuple(below), tuple(above), pick)


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.none(), drawn_pools()), st.data(),
       st.sampled_from([(1.0, 2), (2.5, 2)]), st.sampled_from([(1.0, 2), (1.0, 3), (2.5, 2)]))
def test_a_drawn_pool_s_key_tells_apart_every_view_made_from_it(a: Pool | None, data: st.DataObject,
                                                               params_a: tuple, params_b: tuple) -> None:
    """The standing page's key holds the drawn pool, not its view (which is made only for a page
    made again): equal keys must mean equal views, whatever the pools and the league's parameters."""
    b = a if a is None or data.draw(st.booleans()) else data.draw(st.composite(lambda d: changed(d, a))())
    if drawn_pool_key(a, *params_a) == drawn_pool_key(b, *params_b):
        assert shown(a, *params_a) == shown(b, *params_b)


def test_a_drawn_pool_s_key_follows_each_value_it_is_made_from() -> None:
    one, two = Opponent("P1", 1500.0), Opponent("P2", 1490.0)
    pool = Pool("me", 1495.0, (two,), (one,), one)
    key = drawn_pool_key(pool, 100.0, 30)
    for other in (Pool("me", 1495.0, (two,), (one,), two), Pool("me", 1495.0, (two,), (one,), None),
                  Pool("me", 1495.0, (two, one), (), one), Pool("me", 1495.5, (two,), (one,), one),
                  Pool("me", 1495.0, (Opponent("P2", 1490.5),), (one,), one),
                  Pool("me", 1495.0, (Opponent("P3", 1490.0),), (one,), one)):
        assert drawn_pool_key(other, 100.0, 30) != key
    assert drawn_pool_key(pool, 100.0, 31) != key != drawn_pool_key(pool, 99.0, 30)
    # The page's key names its player; the pool's is the same for another's of the same values.
    assert drawn_pool_key(Pool("you", 1495.0, (two,), (one,), one), 100.0, 30) == key
    assert drawn_pool_key(None, 100.0, 30) is None


parts = st.tuples(names, numbers, st.one_of(st.none(), st.integers(0, 3)), names)
blobs = st.one_of(st.none(), st.sampled_from([b"", b"\0", b"\0-", b"\0+", b"x" * 32, b")\0"]), st.binary(max_size=40))
texts = st.one_of(st.none(), st.lists(names, max_size=3).map("\0".join), st.text(max_size=6))


@settings(max_examples=600, deadline=None)
@given(parts, blobs, texts, parts, blobs, texts)
def test_a_standing_key_tells_apart_what_the_plain_key_of_its_values_does(
        a: tuple, pool_a: bytes | None, near_a: str | None, b: tuple, pool_b: bytes | None, near_b: str | None) -> None:
    """Its pool digest and nearest players' text hashed as they are, not by their reprs."""
    same = standing_key(a, pool_a, near_a) == standing_key(b, pool_b, near_b)
    assert same == (page_key(*a, pool_a, near_a) == page_key(*b, pool_b, near_b))
