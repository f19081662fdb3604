"""The league's table of games (model/aggregates.py) from matches kept as columns (MatchColumns,
as a rebuild reads them) against the same league's from a tuple of matches, against the older
pandas forms of its times and ledger lookup, and against the loops of career.py."""

from __future__ import annotations

from array import array
from datetime import datetime, timedelta, timezone
from operator import attrgetter

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml
from sitegen.model.aggregates import LeagueGames, _index_of, period_ratings
from sitegen.model.career import LeagueCareers
from sitegen.model.views import LeagueView
from sitegen.rating.matchcolumns import MATCH_FIELDS, MatchColumns, micros
from test_ledger_table import assert_careers_match_loops, site_of

SYSTEMS = {"elo": "k = 20", "glicko2": 'period = "week"'}
# Times from the year 1000 to 9000, before and after 1970, month ends and leap days among them.
START = st.datetimes(datetime(1000, 1, 1), datetime(9000, 1, 1)).map(lambda t: t.replace(tzinfo=timezone.utc))
GAMES = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([0, 0.5, 1]),
                           st.integers(0, 60 * 24 * 800)), min_size=1, max_size=25)


def league_of(games, system: str, start: datetime) -> LeagueView | None:
    players = "ABCDE"
    text = "".join(elo_match((start + timedelta(minutes=t * 7 + i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                             players[a], s, players[b], 1 - s)
                   for i, (a, b, s, t) in enumerate(sorted(games, key=lambda g: g[3])) if a != b)
    if not text:
        return None
    return site_of({"matches/x/league.toml": league_toml(system, params=SYSTEMS[system]),
                    "matches/x/games.toml": text})["x"]


def as_columns(lv: LeagueView, words: bool) -> None:
    """The league's matches replaced by the same matches kept as columns."""
    league = lv.rated.league
    c = {name: list(map(attrgetter(name), league.matches)) for name in MATCH_FIELDS}
    at, positions = list(map(micros, c["played"])), c["position"]
    if words:
        at, positions = array("q", at), array("q", positions)
    columns = MatchColumns(c["id"], at, c["file"], positions, c["notes"], c["players"], c["entries"], c["extra"],
                           c["line"])
    assert columns == league.matches
    object.__setattr__(league, "matches", columns)


def table_columns(table: LeagueGames) -> dict[str, list]:
    out = {name: getattr(table, name).tolist() for name in (
        "line", "match", "index", "player", "result", "event", "bounds", "before", "after", "delta", "rated",
        "played", "year", "month")}
    for name, values in out.items():
        if values and isinstance(values[0], float):
            out[name] = [repr(v) for v in values]       # NaN equal to NaN, -0.0 told from 0.0
    return out


@given(GAMES, st.sampled_from(sorted(SYSTEMS)), START, st.booleans())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_table_from_columns_is_the_table_from_matches(games, system, start, words):
    lv = league_of(games, system, start)
    if lv is None:
        return
    names = LeagueCareers(lv)._names
    want = table_columns(LeagueGames(lv, names))
    # The older form: each match's datetime through pandas, its year and month pandas' calendar.
    played = pd.DatetimeIndex([m.played for m in lv.rated.league.matches])
    match = np.array(want["match"], dtype=np.int64)
    assert want["played"] == played.as_unit("us").asi8[match].tolist()
    assert want["year"] == played.year.to_numpy()[match].tolist()
    assert want["month"] == played.month.to_numpy()[match].tolist()
    as_columns(lv, words)
    table = LeagueGames(lv, names)
    assert table_columns(table) == want
    assert (table.played.dtype, table.year.dtype, table.month.dtype) == (np.int64, np.int32, np.int8)
    assert_careers_match_loops(lv)


@given(st.lists(st.integers(-50, 50), unique=True), st.lists(st.integers(-60, 60)))
def test_index_of_is_pandas_get_indexer(keys, queries):
    k, q = np.array(keys, dtype=np.int64), np.array(queries, dtype=np.int64)
    assert _index_of(k, q).tolist() == pd.Index(k).get_indexer(q).tolist()


VALUES = st.one_of(st.sampled_from([0.0, -0.0, float("nan"), 1.5, -1.5]),
                   st.floats(-3000, 3000, allow_nan=False))


@given(st.lists(st.tuples(VALUES, st.booleans()), min_size=1, max_size=40))
@settings(max_examples=500, deadline=None)
def test_period_ratings_are_pandas_groupby_last_max_min(rows):
    """Each period's last, high and low as pandas' groupby gave them, bit for bit: NaN skipped,
    NaN where a period has none, and of 0.0 and -0.0 the one pandas keeps."""
    after = np.array([v for v, _ in rows], dtype=np.float64)
    new = np.array([True] + [starts for _, starts in rows[1:]])
    group = np.cumsum(new) - 1
    want = pd.DataFrame({"group": group, "after": after}).groupby("group", sort=True)["after"].agg(
        ["last", "max", "min"])[["last", "max", "min"]].to_numpy()
    got = period_ratings(after, np.flatnonzero(new), group)
    assert got.shape == want.shape and got.tobytes() == want.tobytes(), (got, want)
