"""The league's table of games (sitegen/model/aggregates.py) row for row against the games and
lines it stands for, and the history chart drawn from its columns (LeagueCareers.chart,
preview.history_columns) against the chart drawn from the games, byte for byte."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml
from sitegen.model.aggregates import LeagueGames
from sitegen.model import scale
from sitegen.model.career import LeagueCareers, ranges
from sitegen.model.views import LeagueView
from sitegen.output import preview
from sitegen.output.render import match_date_links, player_links
from sitegen.output.rows import day_links, game_rows, sibling_links
from test_ledger_table import RESULTS, minutes, site_of, views

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def same_float(a: float | None, b: float) -> bool:
    """A line's rating (None: no rating yet) as the table's float64 (NaN)."""
    return math.isnan(b) if a is None else float(a) == b and math.copysign(1, a) == math.copysign(1, b)


def assert_table_is_the_games(lv: LeagueView) -> None:
    careers = LeagueCareers(lv)
    table = LeagueGames(lv, careers._names)
    other = table.opponent() if careers.duels else None
    for p, name in enumerate(careers._names):
        games = lv.players[name].games
        rows = range(table.bounds[p], table.bounds[p + 1])
        assert len(rows) == len(games)
        for r, g in zip(rows, games):
            line = g.line
            assert (int(table.index[r]), bool(table.rated[r])) == (g.index, g.rated)
            assert lv.matches[int(table.match[r])] == g.match     # made when read: equal, not one object
            assert same_float(line.before, float(table.before[r])) and same_float(line.after, float(table.after[r]))
            if other is not None:
                assert careers._names[int(table.player[other[r]])] == g.opponents[0].text


def assert_chart_is_the_games(lv: LeagueView) -> None:
    careers = LeagueCareers(lv)
    for pv in lv.players.values():
        points = [(g.match.match.played, g.after) for g in pv.games if g.rated]
        chart = careers.chart(pv)
        assert careers.of(pv).ranges == ranges(pv.games)
        assert chart.ratings.tolist() == [float(y) for _, y in points]
        for compact in (False, True):
            assert preview.history_columns(*chart, compact) == preview.history(points, compact)


def leagues_of(games, system: str = "elo"):
    players = "ABCDE"
    text = "".join(elo_match(minutes(t * 7 + i), players[a], s, players[b], 1 - s)
                   for i, (a, b, s, t) in enumerate(sorted(games, key=lambda g: g[3])) if a != b)
    if not text:
        return None
    params = "k = 20" if system == "elo" else 'period = "week"'
    return site_of({"matches/x/league.toml": league_toml(system, params=params), "matches/x/games.toml": text})["x"]


def rows_of_games(lv: LeagueView) -> list[str]:
    """Every player's games list, with each kind of links and dates a player page uses."""
    out = []
    for compact in (False, True):
        lv.link_cache.clear()
        links = sibling_links(lv) if compact else player_links(lv, "../../", "")
        dates = day_links(lv, "../../") if compact else match_date_links(lv, "../../")
        out += [game_rows(pv.games[::-1], links, dates, 1) for pv in lv.players.values()]
    return out


def assert_rows_same_from_columns(monkeypatch, make) -> None:
    """A player's games list from lines read from the columns (a big league's, model/lines.py)
    is the list from lines held."""
    held = make()
    monkeypatch.setattr(scale, "HELD_LINES", -1)
    columns = make()
    monkeypatch.undo()
    assert rows_of_games(columns) == rows_of_games(held)


@given(RESULTS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
def test_generated_games_rows_same_from_columns(monkeypatch, games):
    if leagues_of(games) is not None:
        assert_rows_same_from_columns(monkeypatch, lambda: leagues_of(games))


def test_fixture_games_rows_same_from_columns(monkeypatch):
    for slug in views(FIXTURES / "small"):
        assert_rows_same_from_columns(monkeypatch, lambda: views(FIXTURES / "small")[slug])


@given(RESULTS, st.sampled_from(["elo", "glicko2"]))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_leagues_table_and_chart_are_the_games(games, system):
    """Duels (each match its event: the ledger's rows are the lines) and glicko2's weeks (a
    period's change carried by the player's last game in it)."""
    lv = leagues_of(games, system)
    if lv is None:
        return
    assert_table_is_the_games(lv)
    assert_chart_is_the_games(lv)


@pytest.mark.parametrize("fixture", ["small", "hostile"])
def test_fixture_leagues_table_and_chart_are_the_games(fixture):
    for lv in views(FIXTURES / fixture).values():
        assert_table_is_the_games(lv)
        assert_chart_is_the_games(lv)


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
TIMES = st.lists(st.tuples(st.integers(0, 4 * 10**15), st.integers(-14 * 60, 14 * 60),
                           st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=30)


# Many points a unit of the chart's width: the compact path's strokes and their rounding.
DENSE = st.integers(0, 4 * 10**15).flatmap(lambda t0: st.lists(st.tuples(
    st.integers(t0, t0 + 10**9), st.sampled_from([0, 60, -300]),
    st.one_of(st.floats(1400, 1600, allow_nan=False), st.integers(1000, 2000).map(lambda v: v + 0.5))),
    min_size=1, max_size=400))


@given(st.one_of(TIMES, DENSE), st.booleans())
@settings(max_examples=300, deadline=None)
def test_history_from_columns_is_the_history_of_points(points, compact):
    """Any microsecond and any UTC offset: the microseconds over 10**6 are the timestamp."""
    import numpy as np
    points = sorted(points)
    times = [(EPOCH + timedelta(microseconds=us)).astimezone(timezone(timedelta(minutes=off)))
             for us, off, _ in points]
    ratings = [y for _, _, y in points]
    micros = np.array([us for us, _, _ in points], dtype=np.int64)
    got = preview.history_columns(micros, np.array(ratings, dtype=np.float64), times[0], times[-1], compact)
    assert got == preview.history(list(zip(times, ratings)), compact)
