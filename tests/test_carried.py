"""Career aggregates carried over from the last build (model/carried.py) against the whole
computation: random leagues of duels built match by match, each build with the cache the one
before left, must give every player's aggregates array for array (dtype and bytes) as one
computation over the league does; after a history that is not the start of this one (another
prefix identity), or with other players, every player's are computed again."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml
from sitegen.load.cache import Cache
from sitegen.model import carried
from sitegen.model.career import LeagueCareers, _Aggregates
from sitegen.model.groups import file_numbers, plain_ids, plan
from sitegen.model.history import BUILD_CACHE, IDENTITIES
from sitegen.model.views import LeagueView, natural_slugs
from test_ledger_table import minutes, site_of

GAMES = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0, 0.5, 1])), min_size=2,
                 max_size=30).map(lambda games: [g for g in games if g[0] != g[1]]).filter(lambda g: len(g) >= 2)


def bits(x: Any) -> Any:
    """Arrays by dtype, shape and bytes (-0.0 and NaN told apart); tables field by field."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if hasattr(x, "__slots__") and not isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(bits(getattr(x, f)) for f in x.__slots__))
    return repr(x)


def league(games: list[tuple[int, int, float]], upto: int, k: str = "20") -> LeagueView:
    text = "".join(elo_match(minutes(i * 7), f"P{a}", s, f"P{b}", 1 - s) for i, (a, b, s) in enumerate(games[:upto]))
    return site_of({"matches/x/league.toml": league_toml("elo", params=f"k = {k}"), "matches/x/games.toml": text})["x"]


def aggregates(lv: LeagueView, cache: Cache, ids: np.ndarray, asked: list[Any]) -> _Aggregates:
    lv.rated.cache[BUILD_CACHE] = cache
    lv.rated.cache[IDENTITIES] = ids
    careers = LeagueCareers(lv)

    def compute(only: np.ndarray | None) -> _Aggregates:
        asked.append(None if only is None else only.tolist())
        return careers.aggregates(only)
    return carried.carried_aggregates(careers, compute)


@given(GAMES, st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_carried_aggregates_are_the_whole_computation(games, data):
    n = len(games)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n), min_size=1, max_size=3)))) + [n]
    edited = data.draw(st.booleans())       # the last build's history not the start of this one's
    ids = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as leaving:
        cache = Cache(Path(tmp) / "cache")
        # The careers entry is written by a forked child (Cache.put_aside): it is waited for
        # before its folder goes, as a build waits for it before pruning, even where an
        # assertion fails (else the folder's removal fails too and hides which one).
        leaving.callback(cache.settle)
        asked: list[Any] = []
        last = None
        for cut in cuts:
            if cut == last:
                continue
            lv = league(games, cut)
            # An edit: the last build's identities differ from this one's in their first match.
            these = ids[:cut].copy()
            if edited and cut == n and len(cuts) > 1:
                these[0] += np.uint64(1)
            asked.clear()
            got = aggregates(lv, cache, these, asked)
            whole = LeagueCareers(league(games, cut)).aggregates()
            assert bits(got) == bits(whole)
            if last is not None and not (edited and cut == n):
                before = {f"P{a}" for a, b, _ in games[:last]} | {f"P{b}" for _, b, _ in games[:last]}
                now = {f"P{a}" for a, b, _ in games[:cut]} | {f"P{b}" for _, b, _ in games[:cut]}
                # The same players: only those of the matches since computed again.
                if before == now:
                    names = sorted(now)
                    since = sorted({names.index(f"P{p}") for a, b, _ in games[last:cut] for p in (a, b)})
                    assert asked == [since]
                else:
                    assert asked == [None]
            else:
                assert asked == [None]
            last = cut


def test_no_cache_computes_every_player():
    lv = league([(0, 1, 1), (1, 2, 0.5), (2, 0, 0)], 3)
    careers = LeagueCareers(lv)
    assert bits(careers._aggregates()) == bits(LeagueCareers(lv).aggregates())


def stub(cache: Cache, ids: np.ndarray) -> Any:
    """What ``Carried`` reads of a rated league: its cache entries and its slug."""
    return SimpleNamespace(cache={BUILD_CACHE: cache, IDENTITIES: ids}, league=SimpleNamespace(
        config=SimpleNamespace(slug="x")))


FILES = st.lists(st.tuples(st.sampled_from(["a.toml", "b.toml", "c/d.toml", "e.toml"]),
                           st.sampled_from(["m1", "m-2", "x y", "é", "ok.id", "~"])), min_size=1, max_size=40)


@given(FILES, st.data())
@settings(max_examples=200, deadline=None)
def test_carried_file_numbers_are_the_whole_computation(matches, data):
    """The plan's file numbers and plain ids, carried over cut after cut (or after an edit), are
    those worked out from every match."""
    files, ids = [f for f, _ in matches], [i for _, i in matches]
    n = len(matches)
    identities = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n), min_size=1, max_size=3)))) + [n]
    edited = data.draw(st.booleans())
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache")
        for cut in cuts:
            these = identities[:cut].copy()
            if edited and cut == n:
                these[0] += np.uint64(1)
            number, code, plain = carried.carried_files(stub(cache, these), files[:cut], ids[:cut])
            whole_number, whole_code = file_numbers(files[:cut])
            assert list(number.items()) == list(whole_number.items())
            assert bits(code) == bits(whole_code) and plain == plain_ids(ids[:cut])
            got, whole = (plan(files[:cut], ids[:cut], [2] * cut, "l/", None, known)
                          for known in ((number, code, plain), None))
            assert bits(got.order) == bits(whole.order)
            assert (got.bounds, got.pages, got.plain) == (whole.bounds, whole.pages, whole.plain)


NAMES = st.lists(st.sampled_from(["Ana", "Bo", "eve 2", "Zoë", "!!!", "東京", "a" * 80, "Player"]), unique=True)


@given(st.lists(NAMES, min_size=1, max_size=3))
@settings(max_examples=50, deadline=None)
def test_carried_slugs_are_the_names_own(builds):
    """Each build's names slugged as slugify slugs them, with the last build's slugs carried."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(Path(tmp) / "cache")
        for names in builds:
            assert carried.carried_slugs(stub(cache, np.zeros(1, dtype=np.uint64)), names) == natural_slugs(names)
