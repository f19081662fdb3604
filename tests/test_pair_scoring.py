"""Pair scoring over columns (model/scoring.py, rating/exact.py, Placement.pair_forecast_arrays)
gives the one-at-a-time code's numbers to the last bit.

The oracles below are the straightforward per-pair loops the columns replaced: a placement
match's pairs made one by one with base.expected, and the sums of log loss, Brier score,
right side and calibration added one prediction at a time in history order. Every scorer
runs both ways: as plain Python and compiled by numba (arrays.MODE "off" and "on").
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timezone
from itertools import groupby

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitegen.model.accuracy import Prediction, calibration, right_side, summarize
from sitegen.model.baselines import PLAIN_INITIAL, PLAIN_K, plain_elo
from sitegen.model.scoring import EPS, PlainElo, Summary, pack
from helpers import bit_key, same_bits
from sitegen.rating import arrays
from sitegen.rating.base import expected
from sitegen.rating.exact import expected_many
from sitegen.rating.forecasts import PairForecast
from sitegen.rating.placement import Placement
from sitegen.rating.values import Change, Match, RatingEvent


def same(a, b) -> bool:
    """Equal to the last bit, an int equal to the same float (None only to None)."""
    if isinstance(a, float) or isinstance(b, float):
        return same_bits(float(a), float(b))
    return a == b


# --- the oracles --------------------------------------------------------------------------

def oracle_pairs(matches, events):
    """Placement's predictions one pair at a time: the better placed one's E, S = 1; on a tie
    the earlier listed, S = 0.5."""
    places_of = {m.id: [e["place"] for e in m.entries] for m in matches}
    for event in events:
        places = places_of[event.key]
        ratings = [c.before for c in event.changes]
        names = [c.player for c in event.changes]
        for i in range(len(ratings)):
            for j in range(i + 1, len(ratings)):
                a, b = (j, i) if places[j] < places[i] else (i, j)
                yield PairForecast(event.played.year, expected(ratings[a], ratings[b]),
                                   0.5 if places[i] == places[j] else 1.0, names[a], names[b], event.key)


def oracle_summarize(preds):
    sums, total = {}, [0, 0.0, 0.0, 0.0]
    for p in preds:
        e = min(max(p.expected, EPS), 1.0 - EPS)
        ll = -(p.score * math.log(e) + (1.0 - p.score) * math.log(1.0 - e))
        br, hit = (p.expected - p.score) ** 2, right_side(p.expected, p.score)
        year = sums.setdefault(p.year, [0, 0.0, 0.0, 0.0])
        for acc in (year, total):
            acc[0] += 1
            acc[1] += ll
            acc[2] += br
            acc[3] += hit
    rows = [("all", total)] + [(str(y), sums[y]) for y in sorted(sums)]
    return [(period, n, ll / n, br / n, hit / n) if n else (period, 0, None, None, None)
            for period, (n, ll, br, hit) in rows]


def oracle_calibration(preds, bins=10):
    n, e_sum, s_sum = [0] * bins, [0.0] * bins, [0.0] * bins
    for p in preds:
        e, s = (1.0 - p.expected, 1.0 - p.score) if p.b and p.b < p.a else (p.expected, p.score)
        i = min(max(int(round(e * bins, 9)), 0), bins - 1)
        n[i] += 1
        e_sum[i] += e
        s_sum[i] += s
    return [(n[i], e_sum[i] / n[i] if n[i] else None, s_sum[i] / n[i] if n[i] else None) for i in range(bins)]


def rows(accuracies):
    return [(a.period, a.predictions, a.log_loss, a.brier, a.accuracy) for a in accuracies]


def assert_same_rows(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert all(same(x, y) for x, y in zip(g, w)), (g, w)


# --- random lobbies -----------------------------------------------------------------------

def lobbies(seed: int, count: int, size_max: int, spread: float, tie_places: int):
    """Placement matches with ratings before (any numbers: the pair rule does not rate) and
    places from a small range, so that ties are common; spread over three calendar years."""
    rng = random.Random(seed)
    pool = [f"P{i:03d}" for i in range(3 * size_max)] + ["Ünïcode", "zed", "Zed", "a b"]
    matches, events = [], []
    for k in range(count):
        n = rng.randint(2, size_max)
        players = tuple(rng.sample(pool, n))
        places = [rng.randint(1, tie_places) for _ in range(n)]
        played = datetime(2021 + k * 3 // max(count, 1), 1 + k % 12, 1, tzinfo=timezone.utc)
        mid = f"m{k}"
        matches.append(Match(mid, played, "x.toml", k + 1, None, players, tuple({"place": p} for p in places)))
        ratings = [rng.choice([0.0, 1500.0, rng.gauss(1500, spread), rng.uniform(-200_000, 200_000)])
                   for _ in range(n)]
        events.append(RatingEvent(mid, played, (mid,), tuple(Change(p, r, r, {}) for p, r in zip(players, ratings))))
    return matches, events


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32), count=st.integers(1, 12), size_max=st.integers(2, 9),
       spread=st.sampled_from([10.0, 400.0, 5000.0]), tie_places=st.integers(1, 6),
       chunk=st.integers(1, 40))
@example(seed=1, count=3, size_max=4, spread=400.0, tie_places=1, chunk=1)      # every pair a tie
@pytest.mark.parametrize("mode", ["off", "on"])
def test_placement_pairs_as_columns_are_the_per_pair_loop_to_the_bit(mode, seed, count, size_max, spread,
                                                                      tie_places, chunk):
    if mode == "on" and arrays.compiler() is None:
        pytest.skip("numba is not installed")
    previous, arrays.MODE = arrays.MODE, mode
    try:
        matches, events = lobbies(seed, count, size_max, spread, tie_places)
        want = list(oracle_pairs(matches, events))
        runs = list(Placement().pair_forecast_arrays(matches, events, size=chunk))
        got = [f for run in runs for f in run.forecasts()]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert (g.played_year, g.a, g.b, g.match) == (w.played_year, w.a, w.b, w.match)
            assert same(g.expected, w.expected) and same(g.score, w.score), (g, w)
        for run in runs:       # the neutral side: b's name before a's by code point
            assert run.flip.tolist() == [run.names[b] < run.names[a] for a, b in zip(run.a, run.b)]

        preds = [Prediction(f.played_year, f.expected, f.score, f.a, f.b, f.match) for f in want]
        assert_same_rows(rows(summarize(preds)), oracle_summarize(preds))
        got_bins = [(b.predictions, b.predicted, b.observed) for b in calibration(preds)]
        assert_same_rows(got_bins, oracle_calibration(preds))

        # Plain Elo over runs that may split a match: the same as the per-pair baseline.
        plain = PlainElo(PLAIN_K, PLAIN_INITIAL)
        for run in runs:
            plain.add(run)
        assert_same_rows(rows_of_summary(plain.finish()), oracle_summarize(list(plain_elo(preds))))
    finally:
        arrays.MODE = previous


def rows_of_summary(summary: Summary):
    from sitegen.model.accuracy import rows_of
    return rows(rows_of(summary))


def test_expected_many_is_base_expected_to_the_bit_far_apart_and_near(kernel_mode):
    rng = np.random.default_rng(5)
    r_a = np.concatenate([rng.normal(1500, 400, 20_000), [0.0, 1e6, -1e6, 120_400.0, 1500.0]])
    r_b = np.concatenate([rng.normal(1500, 400, 20_000), [1e6, 0.0, 1e6, 0.0, 1500.0]])
    got = expected_many(r_a, r_b)
    want = [expected(a, b) for a, b in zip(r_a.tolist(), r_b.tolist())]
    assert [bit_key(x) for x in got.tolist()] == [bit_key(x) for x in want]


def test_sums_keep_history_order_where_another_order_changes_the_last_bit(kernel_mode):
    """Terms whose sum depends on its order: the scorer adds them one after another, as the
    per-prediction loop did, not pairwise (np.sum) nor sorted."""
    rng = random.Random(3)
    preds = [Prediction(2024, rng.choice([1e-12, 0.3, 0.7, 1 - 1e-9, rng.random()]), rng.choice([0.0, 0.5, 1.0]))
             for _ in range(5000)]
    want = oracle_summarize(preds)
    got = rows(summarize(preds))
    assert_same_rows(got, want)
    terms = np.array([(p.expected - p.score) ** 2 for p in preds])
    in_order = 0.0
    for t in terms.tolist():
        in_order += t
    assert same(got[0][3], in_order / len(preds))
    # The test means something: these terms sum differently in another order.
    assert not same(float(np.sum(terms)), in_order) or not same(math.fsum(terms.tolist()), in_order)


def test_a_run_split_anywhere_gives_the_same_sums(kernel_mode):
    rng = random.Random(11)
    preds = [Prediction(2020 + i // 700, rng.random(), rng.choice([0.0, 0.5, 1.0]), f"p{i % 7}", f"q{i % 5}",
                        f"m{i // 3}") for i in range(2000)]
    whole = Summary()
    split = Summary()
    forecasts = [PairForecast(p.year, p.expected, p.score, p.a, p.b, p.match) for p in preds]
    for run in pack(forecasts, size=10_000):
        whole.add(run.year, run.expected, run.score)
    for run in pack(forecasts, size=37):
        split.add(run.year, run.expected, run.score)
    assert whole.rows() == split.rows()
    assert_same_rows(rows_of_summary(whole), oracle_summarize(preds))


def test_plain_elo_of_a_match_split_across_runs_rates_its_pairs_together(kernel_mode):
    preds = [Prediction(2024, 0.5, s, a, b, m) for m, a, b, s in
             [("m1", "A", "B", 1.0), ("m1", "A", "C", 1.0), ("m1", "B", "C", 0.5),
              ("m2", "C", "A", 1.0), ("m2", "C", "B", 1.0), ("m3", "A", "B", 0.0)]]
    forecasts = [PairForecast(p.year, p.expected, p.score, p.a, p.b, p.match) for p in preds]
    want = oracle_summarize(list(plain_elo(preds)))
    for size in (1, 2, 4, 100):
        plain = PlainElo(PLAIN_K, PLAIN_INITIAL)
        for run in pack(forecasts, size=size):
            plain.add(run)
        assert_same_rows(rows_of_summary(plain.finish()), want)
    groups = [list(g) for _, g in groupby(plain_elo(preds), key=lambda p: p.match)]
    assert [p.expected for p in groups[0]] == [0.5, 0.5, 0.5], "a match's pairs all from the ratings before it"


@pytest.mark.parametrize("system", ["elo", "lunaro"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_duel_league_s_pairs_from_its_columns_are_those_of_its_events_to_the_bit(kernel_mode, tmp_path,
                                                                                   system, seed):
    """Elo and lunaro read their predictions from the rating columns (forecasts.first_listed_arrays):
    the same pairs as first_listed's objects, and every score of the accuracy page the same."""
    from sitegen.commands.build import check, rate
    from sitegen.model.baselines import SCORES, league_scores
    from sitegen.model.scoring import pair_arrays
    from sitegen.rating.forecasts import first_listed
    from sitegen.rating.events import EventTable
    from helpers import day, elo_match, league_toml, lunaro_match, write_files

    rng = random.Random(seed)
    names = ["b", "A", "ab", "Ä", "a", "B0"]
    games = []
    for i in range(300):
        a, b = rng.sample(names, 2)
        played = day(i * 60 * 24 * 5)           # five days apart: the pairs span several years
        games.append(elo_match(played, a, s := rng.choice([0, 0.5, 1]), b, 1 - s) if system == "elo"
                     else lunaro_match(played, a, rng.randrange(9), 30, b, rng.randrange(9), 40))
    root = write_files(tmp_path / "site", {"matches/l/league.toml": league_toml(system),
                                           "matches/l/m.toml": "".join(games)})
    rated = rate(check(root))[0]
    assert isinstance(rated.events, EventTable)
    runs = list(pair_arrays(rated.league.config.system, rated.league.matches, rated.events))
    objects = list(first_listed(rated.events))
    assert [f for run in runs for f in run.forecasts()] == objects
    assert [bool(x) for run in runs for x in run.flip.tolist()] == [bool(f.b) and f.b < f.a for f in objects]
    assert len({f.played_year for f in objects}) > 1
    got = league_scores(rated)
    rated.cache.pop(SCORES)
    monkeypatched = pytest.MonkeyPatch()
    monkeypatched.setattr(type(rated.league.config.system), "pair_forecast_arrays",
                          lambda self, matches, events: pack(first_listed(events)))
    try:
        want = league_scores(rated)
    finally:
        monkeypatched.undo()
    assert repr(got) == repr(want)
