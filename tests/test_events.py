"""The rated history as columns (sitegen/rating/events.py): an EventTable is the sequence of the
events it holds, whichever way it is read, and what the build reads of its columns (standings,
the ledger frame, the board's window, the first-listed forecasts, elo's predictor states) is
what the same events give as objects.

The events themselves are held to the per-match oracles in test_kernels_*.py; here the eager
side is the table read out once into a tuple (and, for glicko2, the system's own eager path).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.model.history import RatedLeague, rate_matches
from sitegen.model.table import ledger_frame
from sitegen.rating import events as events_module
from sitegen.rating.base import Match, last_ratings
from sitegen.rating.elo import Elo
from sitegen.rating.events import EventTable, RowTerms, event_keys, event_matches, event_times
from sitegen.rating.forecasts import first_listed
from sitegen.rating.glicko2 import Glicko2
from sitegen.rating.glicko2_kernel import encode as glicko2_encode, run as glicko2_run
from sitegen.rating.lunaro import Lunaro
from sitegen.rating.openskill import OpenSkill
from sitegen.rating.placement import Placement
from sitegen.rating import placement_kernel
from sitegen.rating.values import Change, RatingEvent
from helpers import bit_key

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = ("Ann", "Bo", "Cy", "Dee", "Ed", "Flo", "Gus")


def match(i: int, players: tuple[str, ...], entries: tuple[dict[str, Any], ...], extra: dict[str, Any] | None = None,
          hours: int = 1) -> Match:
    return Match(f"m{i}", START + timedelta(hours=hours * i), "games.toml", i + 1, None, players, entries,
                 extra or {})


# The strategies drawn for every match of a league, made once (hypothesis validates each new
# strategy, which cost more than the drawing): the same draws, in the same order.
PAIRS = st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True)
SCORES = st.sampled_from([1, 0.5, 0])
COIN = st.booleans()
SEASONS = st.sampled_from(["2024", "2025"])
WEIGHTS = st.sampled_from([0.5, 2])
GOALS, GOALS_B, PINGS = st.integers(0, 20), st.integers(0, 19), st.integers(0, 200)
TEAMS_OF_PLAYERS = st.lists(st.sampled_from(NAMES), min_size=2, max_size=6, unique=True)
PLACES_OF_TEAMS = st.integers(1, 3)
DUELS_TO_FOURS = st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True)
GLICKO_SCORES = st.integers(0, 5)
HOURS = st.sampled_from([5, 30])
LOBBIES = st.lists(st.sampled_from(NAMES), min_size=2, max_size=len(NAMES), unique=True)


@st.composite
def elo_leagues(draw: st.DrawFn) -> tuple[Elo, list[Match]]:
    home_adv = draw(st.sampled_from([0, 100]))
    system = Elo(k=draw(st.sampled_from(["fide", 32])), k_of=draw(st.sampled_from(["challenger", "each"])),
                 home_advantage=home_adv, season_reversion=draw(st.sampled_from([0, 0.25])),
                 starts={"Ann": 1600, "Bo": 1450.5})
    matches = []
    for i in range(draw(st.integers(0, 40))):
        a, b = draw(PAIRS)
        s = draw(SCORES)
        extra: dict[str, Any] = {}
        if draw(COIN):
            extra["challenger"] = draw(st.sampled_from([a, b]))
        if draw(COIN):
            extra["home"] = draw(st.sampled_from([a, b]))
        if draw(COIN):
            extra["season"] = draw(SEASONS)
        if draw(COIN):
            extra["weight"] = draw(WEIGHTS)
        matches.append(match(i, (a, b), ({"score": s}, {"score": 1 - s}), extra))
    return system, matches


@st.composite
def lunaro_leagues(draw: st.DrawFn) -> tuple[Lunaro, list[Match]]:
    matches = []
    for i in range(draw(st.integers(0, 40))):
        a, b = draw(PAIRS)
        ga, gb = draw(GOALS), draw(GOALS_B)
        matches.append(match(i, (a, b), ({"goals": ga, "ping": draw(PINGS)},
                                         {"goals": gb, "ping": draw(PINGS)})))
    return Lunaro(starts={"Cy": 1700}), matches


@st.composite
def openskill_leagues(draw: st.DrawFn) -> tuple[OpenSkill, list[Match]]:
    system = OpenSkill()
    matches = []
    for i in range(draw(st.integers(0, 30))):
        players = draw(TEAMS_OF_PLAYERS)
        teams = draw(st.integers(2, len(players)))
        raw = {"teams": [{"place": draw(PLACES_OF_TEAMS), "players": [{"name": p} for p in players[t::teams]]}
                         for t in range(teams)]}
        parsed = system.parse_match(raw, lambda path, message: pytest.fail(f"{path}: {message}"))
        assert parsed is not None
        matches.append(match(i, parsed.names, parsed.entries, dict(parsed.extra)))
    return system, matches


@st.composite
def glicko2_leagues(draw: st.DrawFn) -> tuple[Glicko2, list[Match]]:
    system = Glicko2(period=draw(st.sampled_from(["match", "day", "week"])))
    matches = []
    for i in range(draw(st.integers(0, 30))):
        players = draw(DUELS_TO_FOURS)
        entries = tuple({"score": draw(GLICKO_SCORES)} for _ in players)
        matches.append(match(i, tuple(players), entries, hours=draw(HOURS)))
    return system, matches


@st.composite
def placement_leagues(draw: st.DrawFn) -> tuple[Placement, list[Match]]:
    """Lobbies of 2 to 7 with ties (places from a few values), any of the options."""
    ks: list[float | str] = ["bands", 32, 0.5]
    system = Placement(initial=draw(st.sampled_from([0, 1500, -0.0])), floor=draw(st.sampled_from([0, -0.0, -1e6])),
                       k=draw(st.sampled_from(ks)), normalize=draw(st.booleans()),
                       starts=draw(st.sampled_from([{}, {"Ann": 2200, "Bo": 2400.0, "Cy": -50.5}])))
    matches = []
    for i in range(draw(st.integers(0, 30))):
        players = draw(LOBBIES)
        places = draw(st.lists(st.integers(1, 4), min_size=len(players), max_size=len(players)))
        matches.append(match(i, tuple(players), tuple({"place": p} for p in places)))
    return system, matches


LEAGUES = st.one_of(elo_leagues(), lunaro_leagues(), openskill_leagues(), glicko2_leagues(), placement_leagues())


def rated_league(system: Any, matches: list[Match], events: Any) -> RatedLeague:
    league = SimpleNamespace(config=SimpleNamespace(system=system), matches=tuple(matches))
    return RatedLeague(league, events, ())      # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(LEAGUES, st.integers(1, 7), st.data())
def test_a_table_reads_as_the_same_events_every_way(league: Any, page: int, data: st.DataObject) -> None:
    saved = events_module.PAGE
    events_module.PAGE = page           # small pages: every read crosses page bounds
    try:
        reads_the_same(league, data)
    finally:
        events_module.PAGE = saved


def reads_the_same(league: Any, data: st.DataObject) -> None:
    system, matches = league
    table = system.rate(matches)
    if not matches:
        assert list(table) == []
        return
    assert isinstance(table, EventTable)
    eager = tuple(table)
    assert len(table) == len(eager) == len(event_keys(table))
    assert table == eager and eager == table and table == list(eager) and not (table != eager)
    assert repr(table) == repr(list(eager))
    # Read in any order, one by one, negative or by slice: the same events.
    for i in data.draw(st.lists(st.integers(-len(eager), len(eager) - 1), max_size=20)):
        assert table[i] == eager[i]
    assert [table[i] for i in range(len(eager))] == list(eager)
    lo, hi = (data.draw(st.integers(-len(eager) - 2, len(eager) + 2)) for _ in range(2))
    step = data.draw(st.sampled_from([1, 2, -1]))
    assert table[lo:hi:step] == list(eager)[lo:hi:step]
    with pytest.raises(IndexError):
        table[len(eager)]
    with pytest.raises(IndexError):
        table[-len(eager) - 1]
    # The match pages' light events: the same events, each change's terms read from the columns.
    light = list(table.light())
    assert light == list(eager) and repr(light) == repr(list(eager))
    for a, b in zip(light, eager):
        for x, y in zip(a.changes, b.changes):
            assert isinstance(x.terms, RowTerms)
            assert [(k, x.terms[k], type(x.terms[k])) for k in x.terms] == [(k, v, type(v)) for k, v in y.terms.items()]
            assert len(x.terms) == len(y.terms) and "nothing" not in x.terms and all(k in x.terms for k in y.terms)
    # What the build reads of the columns is what the objects give.
    assert event_keys(table) == [e.key for e in eager]
    assert event_times(table) == [e.played for e in eager]
    assert event_matches(table) == [e.matches for e in eager]
    assert last_ratings(table) == last_ratings(eager)
    assert system.standings(table) == system.standings(eager)
    assert repr(system.standings(table)) == repr(system.standings(eager))      # an int stays an int


@settings(max_examples=80, deadline=None)
@given(LEAGUES)
def test_the_ledger_frame_from_columns_is_the_frame_of_the_objects(league: Any) -> None:
    system, matches = league
    table = system.rate(matches)
    got = ledger_frame(rated_league(system, matches, table))
    want = ledger_frame(rated_league(system, matches, tuple(table)))
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.columns) == list(want.columns)


@settings(max_examples=80, deadline=None)
@given(st.one_of(elo_leagues(), lunaro_leagues()))
def test_forecasts_and_predictor_states_from_columns(league: Any) -> None:
    system, matches = league
    table = system.rate(matches)
    eager = tuple(table)
    assert list(first_listed(table)) == list(first_listed(eager))
    standings = system.standings(eager)
    assert system.predictor_states(matches, table, standings) == system.predictor_states(matches, eager, standings)


@settings(max_examples=80, deadline=None)
@given(glicko2_leagues())
def test_glicko2_periods_are_the_eager_periods(league: Any) -> None:
    system, matches = league
    groups = system.periods(matches)
    history = glicko2_encode([(index, group) for _, index, group in groups], system.start)
    rated = glicko2_run(history, tau=system.tau, epsilon=system.epsilon, transform=system.score_transform)
    eager = system._events(groups, history.names, rated)
    table = system.rate(matches)
    assert repr(list(table)) == repr(eager)      # Period objects with their games and battles, type for type
    assert system.standings(table) == system.standings(eager)
    assert list(system.pair_forecasts(matches, table)) == list(system.pair_forecasts(matches, eager))


def test_rate_matches_keeps_the_table_and_a_list_as_a_tuple() -> None:
    elo = Elo()
    games = [match(i, ("Ann", "Bo"), ({"score": 1}, {"score": 0})) for i in range(3)]
    events, standings = rate_matches(elo, games)
    assert isinstance(events, EventTable)
    assert [s.games for s in standings] == [3, 3]
    assert type(events[0].changes[0].before) is int      # the starting 1500 as given
    assert type(events[1].changes[0].before) is float
    events, standings = rate_matches(elo, [])
    assert events == () and standings == []


def placement_events_before_the_table(system: Placement, matches: list[Match]) -> list[RatingEvent]:
    """Placement.rate as it was before its events were columns: the kernel's numbers as Python
    floats, a Change with its terms dict per entry, a RatingEvent per match."""
    if not matches:
        return []
    cols = placement_kernel.Lobbies(system, matches)
    before, after, exp, k = (c.tolist() for c in placement_kernel.replay(system, cols))
    score, first = cols.score.tolist(), cols.first.tolist()
    players = [p for m in matches for p in m.players]
    changes = [Change(p, b, a, {"expected": e, "score": s, "k": kk})
               for p, b, a, e, s, kk in zip(players, before, after, exp, score, k)]
    return [RatingEvent(m.id, m.played, (m.id,), tuple(changes[first[t]:first[t + 1]])) for t, m in enumerate(matches)]


def bits(events: Any) -> list[Any]:
    """Everything the events hold, floats by their bits and every value by its type."""
    out: list[Any] = []
    for e in events:
        out.append((type(e).__name__, e.key, e.played, e.matches))
        for c in e.changes:
            values = (c.before, c.after, *c.terms.values())
            out.append((c.player, tuple(c.terms), tuple(type(v).__name__ for v in values),
                        tuple(bit_key(v) for v in values)))
    return out


@settings(max_examples=100, deadline=None)
@given(placement_leagues())
def test_placement_table_is_the_events_it_replaced(kernel_mode: str, league: Any) -> None:
    """Plain and compiled: the table reads as the events Placement.rate built one by one, to the
    bit and type for type, and standings, last ratings, the ledger frame and the forecasts read
    from its columns are those of the old events."""
    system, matches = league
    table = system.rate(matches)
    old = placement_events_before_the_table(system, matches)
    if not matches:
        assert table == [] and old == []
        return
    assert isinstance(table, EventTable)
    assert bits(table) == bits(old) == bits(table.light())
    assert table == old
    assert last_ratings(table) == last_ratings(old)
    assert repr(system.standings(table)) == repr(system.standings(old))
    pd.testing.assert_frame_equal(ledger_frame(rated_league(system, matches, table)),
                                  ledger_frame(rated_league(system, matches, tuple(old))), check_exact=True)
    assert list(system.pair_forecasts(matches, table)) == list(system.pair_forecasts(matches, old))
    # The runs of columns, cut at the same matches (small runs: many cuts), value and type.
    for got, want in zip(system.pair_forecast_arrays(matches, table, size=7),
                         system.pair_forecast_arrays(matches, old, size=7), strict=True):
        assert (got.names, got.match_ids) == (want.names, want.match_ids)
        for name in ("year", "expected", "score", "a", "b", "match", "flip"):
            x, y = getattr(got, name), getattr(want, name)
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n - 1), max_size=40))))
def test_occurrences_are_np_unique_s(players_rows: tuple[int, list[int]]) -> None:
    """Each player's first and last row and count, without np.unique's sort: np.unique's."""
    import numpy as np
    players, rows = players_rows
    player = np.array(rows, dtype=np.int64)
    who, first, last, count = events_module.occurrences(player, players)
    want_who, want_first, want_count = np.unique(player, return_index=True, return_counts=True)
    _, from_end = np.unique(player[::-1], return_index=True)
    assert who.tolist() == want_who.tolist() and first.tolist() == want_first.tolist()
    assert count.tolist() == want_count.tolist() and last.tolist() == (len(rows) - 1 - from_end).tolist()
