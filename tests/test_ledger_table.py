"""The ledger as a DataFrame (sitegen/model/table.py), the data files written from its
columns, the Parquet files, and the career and board aggregates computed from it
(sitegen/model/aggregates.py) against their plain loop definitions in career.py."""

from __future__ import annotations

import io
import math
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import build_data, day, elo_match, league_toml, lunaro_match, read_csv, write_files
from sitegen.load import config as cfg
from sitegen.load.problems import Problems
from sitegen.load.site import load_site
from sitegen.load.validate import league_matches
from sitegen.model.aggregates import start_ratings
from sitegen.model.career import LeagueCareers, best_wins, periods, record, streaks
from sitegen.model.history import RatedLeague, Ranked, rate_league
from sitegen.load.provenance import Provenance
from sitegen.model.ledger import to_csv, to_json
from sitegen.model.table import (_rating, _term, changes_columns, iso, ledger_columns, ledger_frame, ledger_terms,
                                 matches_columns, release_ledger_frame, standings_columns, table_csv, table_json)
from sitegen.model.views import LeagueView, league_view
from sitegen.rating.base import Change, RatingEvent, Standing

# --- the frame and the files against the events, over random small ledgers --------------------

NAMES = ["Ana", "Bo", "Çelik, \"C\"", "Dee\nnewline", "Eve 2", "李"]
# Values that test the formatting's edges: negative zero and what rounds to it, halves at
# the 6th decimal, large and tiny magnitudes.
EDGES = [0.0, -0.0, -4e-7, -5e-7, 5e-7, 0.0000015, 2.5e-6, 1e-300, -1e-300, 123456789.1234565, 1e15, -2.675]
FLOATS = st.one_of(st.sampled_from(EDGES), st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False))



# The data files row by row, the plain way: the oracle the column writers of model/table.py
# are held to, byte for byte.

def standings_table(rated: RatedLeague) -> tuple:
    system = rated.league.config.system
    header = ("rank", "player", "rating", "games") + system.standing_terms
    rows = []
    for r in rated.standings:
        s = r.standing
        rows.append((r.rank, s.player, _rating(system, s.rating), s.games)
                    + tuple(s.extra.get(t) for t in system.standing_terms))
    return header, rows


def changes_table(rated: RatedLeague) -> tuple:
    system = rated.league.config.system
    terms = ledger_terms(system)
    header = ("event", "played", "player", "rating_before", "rating_after", "delta") + terms
    rows = []
    for event in rated.events:
        when = iso(event.played)
        for c in event.changes:
            rows.append((event.key, when, c.player, _rating(system, c.before), _rating(system, c.after),
                         _rating(system, c.delta)) + tuple(_term(c.terms.get(t)) for t in terms))
    return header, rows


def matches_table(rated: RatedLeague, provenance: Provenance | None = None) -> tuple:
    """``commit``: the commit that last changed the match's file, empty where none holds its content."""
    prov = provenance or Provenance()
    rows = []
    for m in rated.league.matches:
        commit = prov.commit_of(m.file)
        rows.append((m.id, iso(m.played), m.file, commit.sha if commit else None))
    return ("match_id", "played", "file", "commit"), rows


def fake_system(integer: bool) -> SimpleNamespace:
    """The parts of a System the ledger reads; elo's text terms among the numbers."""
    return SimpleNamespace(name="elo", terms=("expected", "k"), ledger_terms=("expected", "k", "challenger", "home"),
                           standing_terms=("rd",), integer_ratings=integer)


@st.composite
def ledgers(draw) -> RatedLeague:
    integer = draw(st.booleans())
    rating = st.integers(-10**6, 10**6) if integer else FLOATS
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    events = []
    for e in range(draw(st.integers(0, 6))):
        players = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
        changes = []
        for p in players:
            terms = {"expected": draw(st.none() | FLOATS), "k": draw(st.sampled_from([20, 32.0, None])),
                     "challenger": draw(st.none() | st.sampled_from(NAMES)), "home": None}
            changes.append(Change(p, draw(st.none() | rating), draw(rating), terms))
        played = t0 + timedelta(seconds=draw(st.integers(0, 10**8)), microseconds=draw(st.sampled_from([0, 250])))
        events.append(RatingEvent(f"m{e}", played, (f"m{e}",), tuple(changes)))
    standings = tuple(Ranked(i + 1, Standing(p, draw(rating), draw(st.integers(0, 99)), {"rd": draw(FLOATS)}))
                      for i, p in enumerate(draw(st.lists(st.sampled_from(NAMES), unique=True))))
    league = SimpleNamespace(config=SimpleNamespace(system=fake_system(integer)), matches=())
    return RatedLeague(league, tuple(events), standings)


@given(ledgers())
@settings(max_examples=200, deadline=None)
def test_frame_holds_every_change_in_history_order(rated):
    frame = ledger_frame(rated)
    flat = [(i, e, c) for i, e in enumerate(rated.events) for c in e.changes]
    assert len(frame) == len(flat)
    assert list(frame.columns[:7]) == ["event", "played", "order", "player", "rating_before", "rating_after", "delta"]
    assert str(frame["played"].dtype) == "datetime64[us, UTC]"
    for row, (i, e, c) in zip(frame.itertuples(index=False), flat):
        assert (row.event, row.played.to_pydatetime(), row.order, row.player) == (e.key, e.played, i, c.player)
        assert (None if math.isnan(row.rating_before) else row.rating_before) == c.before
        assert row.rating_after == c.after
        assert (None if math.isnan(row.delta) else row.delta) == c.delta
        for t in ("expected", "k"):
            value = getattr(row, t)
            assert (None if math.isnan(value) else value) == c.terms[t]
        assert (None if pd.isna(row.challenger) else row.challenger) == c.terms["challenger"]
    assert frame["home"].dtype == "string"       # a name column even where no match names one
    assert ledger_frame(rated) is frame          # built once per league


def assert_columns_are_the_frames(rated: RatedLeague) -> None:
    """ledger_columns holds the frame's order, players, ratings and deltas, value for value."""
    columns = ledger_columns(rated)
    frame = ledger_frame(rated)
    assert columns.order.tolist() == frame["order"].tolist()
    assert [columns.names[p] for p in columns.player.tolist()] == frame["player"].tolist()
    for name, values in (("rating_before", columns.before), ("rating_after", columns.after),
                         ("delta", columns.delta)):
        assert values.dtype == frame[name].dtype
        assert values.tobytes() == frame[name].to_numpy().tobytes()     # NaN where the frame has it
    release_ledger_frame(rated)
    assert ledger_frame(rated) is not frame and ledger_frame(rated).equals(frame)      # made again when asked


@given(ledgers())
@settings(max_examples=100, deadline=None)
def test_ledger_columns_are_the_frames_columns(rated):
    assert_columns_are_the_frames(rated)


@pytest.fixture
def demo_rated(rated):
    """The repository's demo checked and rated once a session (conftest's ``rated``); each call
    gives its leagues with caches of their own, empty, as a fresh rating leaves them."""
    from helpers import REPO
    return lambda: rated(REPO)[1]


def test_ledger_columns_from_the_rating_columns_are_the_frames(demo_rated):
    """Leagues rated into columns (elo, lunaro, placement) read them without a frame."""
    from sitegen.rating.events import EventTable
    tables = 0
    for rated in demo_rated():
        tables += isinstance(rated.events, EventTable)
        assert_columns_are_the_frames(rated)
    assert tables


@given(ledgers())
@settings(max_examples=200, deadline=None)
def test_column_files_are_the_row_files_byte_for_byte(rated):
    for columns, rows in ((changes_columns(rated), changes_table(rated)),
                          (standings_columns(rated), standings_table(rated))):
        assert table_csv(columns) == to_csv(rows)
        assert table_json(columns) == to_json(rows)


# --- the demo-sized leagues: files and Parquet -----------------------------------------------

def views(root: Path) -> dict[str, LeagueView]:
    problems = Problems()
    source = load_site(root, problems)
    roster = cfg.roster(source.players, problems)
    leagues = [league_matches(ls, c, roster, problems) for ls in source.leagues
               if (c := cfg.league_config(ls, problems)) is not None]
    assert not problems, list(problems)
    return {lg.config.slug: league_view(rate_league(lg), roster) for lg in leagues}


def elo_site(make_site):
    games = "".join(elo_match(day(i), a, s, b, 1 - s, challenger=a if i % 2 else None)
                    for i, (a, s, b) in enumerate([("Ana", 1, "Bo"), ("Bo", 0.5, "Cy"), ("Cy", 0, "Ana"),
                                                   ("Ana", 1, "Cy"), ("Bo", 1, "Ana")]))
    return make_site({"matches/x/league.toml": league_toml("elo"), "matches/x/games.toml": games})


def test_matches_file_from_columns_is_the_row_file(make_site):
    root = elo_site(make_site)
    rated = views(root)["x"].rated
    assert table_csv(matches_columns(rated)) == to_csv(matches_table(rated))
    assert table_json(matches_columns(rated)) == to_json(matches_table(rated))


def test_parquet_holds_the_csv_values_with_types(make_site, tmp_path):
    data = build_data(elo_site(make_site), "x", tmp_path / "out")
    for name in ("changes", "standings", "matches"):
        frame = pd.read_parquet(io.BytesIO(data[f"{name}.parquet"]))
        rows = read_csv(data[f"{name}.csv"])
        assert list(frame.columns) == list(rows[0])
        assert len(frame) == len(rows)
        for column in frame.columns:
            values = frame[column]
            if values.dtype.kind == "f":
                cells = ["" if math.isnan(v) else f"{v:.6f}" for v in values]
            elif values.dtype.kind == "M":
                assert str(values.dtype) == "datetime64[us, UTC]"
                cells = [v.strftime("%Y-%m-%dT%H:%M:%SZ") for v in values]
            else:
                cells = ["" if pd.isna(v) else str(v) for v in values]
            assert cells == [r[column] for r in rows], (name, column)
    changes = pd.read_parquet(io.BytesIO(data["changes.parquet"]))
    assert changes["player"].dtype == "string" and changes["challenger"].dtype == "string"
    assert changes["rating_after"].dtype == "float64"


def test_parquet_bytes_are_the_same_from_build_to_build(make_site, tmp_path):
    root = elo_site(make_site)
    one = build_data(root, "x", tmp_path / "one")
    two = build_data(root, "x", tmp_path / "two")
    names = sorted(n for n in one if n.endswith(".parquet"))
    assert names == ["changes.parquet", "matches.parquet", "standings.parquet"]
    for n in names:
        assert one[n] == two[n], n
        meta = pq.ParquetFile(io.BytesIO(one[n])).metadata
        assert meta.row_group(0).column(0).compression == "ZSTD"


# --- career and board aggregates against the loops ------------------------------------------

def typed(values) -> list:
    """Each value with its type: 1 == 1.0 == True, but a page writes them differently."""
    return [(type(v), v) for v in values]


def assert_careers_match_loops(lv: LeagueView) -> None:
    careers = LeagueCareers(lv)
    for player in lv.players.values():
        career = careers.of(player)
        games = player.games
        outcomes = [g for g in games if g.line.result] if careers.has_outcomes else []
        if careers.has_outcomes:
            assert career.record == record(outcomes)
        for got, want in zip((career.longest_win, career.longest_unbeaten, career.current), streaks(outcomes)):
            assert (got is None) == (want is None)
            if want is not None:
                assert (got.kind, got.length) == (want.kind, want.length)
                assert got.first == want.first and got.last == want.last
        want_periods, unit = periods(games)
        assert (career.periods, career.period_unit) == (want_periods, unit)
        assert [typed((p.games, p.end, p.high, p.low)) for p in career.periods] == [
            typed((p.games, p.end, p.high, p.low)) for p in want_periods]
        assert [(w.game, w.opponents, w.rating) for w in career.best_wins] == [
            (w.game, w.opponents, w.rating) for w in best_wins(outcomes)]
        assert [type(w.rating) for w in career.best_wins] == [float] * len(career.best_wins)
        if not careers.ranked_by:
            want_rivals = careers.rivals(player)
            assert career.rivals == want_rivals     # exact floats: the same sums in the same order
            assert [typed(r[1:]) for r in career.rivals] == [typed(r[1:]) for r in want_rivals]
    rated = lv.rated
    n = len(rated.events)
    for cut in sorted({0, 1, n // 3, n // 2, n - 1, n} if n > 40 else range(n + 1)):
        loop: dict[str, float] = {}
        for event in rated.events[:cut]:
            for c in event.changes:
                loop[c.player] = c.after
        got = start_ratings(lv, cut)
        assert got == loop and all(type(got[n]) is type(loop[n]) for n in loop)


RESULTS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from([0, 0.5, 1]),
                             st.integers(0, 60 * 24 * 90)), min_size=1, max_size=25)


def site_of(files: dict[str, str]) -> dict[str, LeagueView]:
    with tempfile.TemporaryDirectory() as tmp:
        return views(write_files(Path(tmp), files))


def minutes(n: int) -> str:
    t = datetime(2021, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=n)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@given(RESULTS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_duel_careers_equal_the_loops(games):
    players = "ABCDE"
    text = "".join(elo_match(minutes(t * 7 + i), players[a], s, players[b], 1 - s)
                   for i, (a, b, s, t) in enumerate(sorted(games, key=lambda g: g[3])) if a != b)
    if not text:
        return
    assert_careers_match_loops(site_of({"matches/x/league.toml": league_toml("elo", params="k = 20"),
                                        "matches/x/games.toml": text})["x"])


@given(RESULTS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_period_careers_equal_the_loops(games):
    """glicko2 by week: several matches share one rating event, only the last carries it."""
    players = "ABCDE"
    text = "".join(f"[[match]]\nplayed = {minutes(t * 7 + i)}\nplayers = [{{ name = \"{players[a]}\", score = {s} }}, "
                   f"{{ name = \"{players[b]}\", score = {1 - s} }}]\n\n"
                   for i, (a, b, s, t) in enumerate(sorted(games, key=lambda g: g[3])) if a != b)
    if not text:
        return
    assert_careers_match_loops(site_of({"matches/w/league.toml": league_toml("glicko2", params='period = "week"'),
                                        "matches/w/games.toml": text})["w"])


def test_lunaro_careers_keep_whole_ratings():
    text = "".join(lunaro_match(minutes(i * 50_000), "Ana" if i % 3 else "Bo", g, 30, "Cy", 5 - g, 40)
                   for i, g in enumerate([5, 3, 2, 0, 4, 1, 5, 5, 2, 3, 4, 0] * 4))
    lv = site_of({"matches/l/league.toml": league_toml("lunaro"), "matches/l/games.toml": text})["l"]
    assert lv.integer
    assert_careers_match_loops(lv)
    careers = LeagueCareers(lv)
    assert all(type(p.end) is int for p in careers.of(lv.players["Cy"]).periods)


@pytest.mark.parametrize("fixture", ["small", "hostile"])
def test_fixture_leagues_careers_equal_the_loops(fixture):
    """The test fixtures' leagues: odd names, draws and games without a result."""
    for lv in views(Path(__file__).resolve().parent / "fixtures" / fixture).values():
        assert_careers_match_loops(lv)


def test_demo_leagues_careers_equal_the_loops(rated):
    """Every league of the repository's own demo: teams, lobbies, periods, arena (checked and
    rated once a session, conftest's ``rated``)."""
    from helpers import REPO
    site, leagues = rated(REPO)
    assert len(leagues) == len(list((REPO / "matches").glob("*/league.toml")))
    for league in leagues:
        assert_careers_match_loops(league_view(league, site.roster))


def test_changes_rows_that_follow_are_the_whole_file_s_rows(demo_rated):
    """changes.csv's rows from any row on (what a grown file adds, output/memo.py), made from the
    rating columns without the whole frame, are the whole file's rows from there, byte for byte."""
    from sitegen.rating.events import EventTable
    from sitegen.model.table import LEDGER, release_ledger_frame, table_csv_parts
    tables = 0
    for rated in demo_rated():
        if not isinstance(rated.events, EventTable):
            continue
        tables += 1
        whole = b"".join(table_csv_parts(changes_columns(rated))).split(b"\n")
        release_ledger_frame(rated)
        rows = len(rated.events.player)
        for start in sorted({1, rows // 3, rows - 1}):
            tail = b"".join(table_csv_parts(changes_columns(rated, start), header=False))
            assert LEDGER not in rated.cache            # the tail alone, no frame made
            assert tail == b"\n".join(whole[1 + start:])
    assert tables


TEXTS = st.none() | st.text(alphabet=st.sampled_from('ab,"\n\r\0 é'), max_size=4)


@given(st.lists(st.tuples(TEXTS, TEXTS, st.none() | FLOATS), min_size=1, max_size=12), st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_a_table_s_rows_are_the_csv_module_s_whatever_its_cells_hold(rows, width):
    """Cells are joined by commas only where the csv module would not quote any (table_csv_parts)."""
    import csv

    import numpy as np

    from sitegen.model.table import Column, ColumnTable, _csv_cells

    columns = [Column("a", "text", [r[0] for r in rows]), Column("b", "text", [r[1] for r in rows]),
               Column("x", "float", np.array([np.nan if r[2] is None else r[2] for r in rows]))][:width]
    table = ColumnTable(tuple(columns))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.header)
    writer.writerows(zip(*(_csv_cells(c) for c in columns)))
    assert table_csv(table) == buf.getvalue()
    plain = ColumnTable(tuple(Column(c.name, c.kind, c.values if c.kind == "float" else
                                     ["" if v is None else v.replace(",", "").replace('"', "").replace("\n", "")
                                      .replace("\r", "").replace("\0", "") for v in c.values]) for c in columns))
    assert table_csv(plain).count("\n") == len(rows) + 1


# Values near what the text treats apart: -0.0, what rounds to 0 from below, NaN, halves at
# the 6th decimal, and numbers of every size.
_FEW = st.sampled_from([0.0, -0.0, -1e-7, 1e-7, 0.5, 1.0, 32.0, 0.0000005, -0.0000005, 2.5e-7,
                        math.nan, 1e300, -12.3456785, 1503.947])


@settings(max_examples=200, deadline=None)
@given(st.lists(_FEW, min_size=257, max_size=700),
       st.lists(st.floats(allow_infinity=False, width=64), max_size=300))
def test_float_text_of_few_distinct_values_is_each_values_own(few, many):
    """A column of few distinct values is written a distinct value at a time: every cell the
    text its own value gives, whatever values follow the first ones."""
    from sitegen.model import table

    def own(v: float) -> str:
        text = "" if math.isnan(v) else f"{v:.6f}"
        return "0.000000" if text == "-0.000000" else text

    for values in (few, few + many, many + few):
        assert table._float_text(np.array(values, dtype=float)) == [own(v) for v in values]
