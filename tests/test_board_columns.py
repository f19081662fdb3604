"""The board's window, start ratings and rows as built now (model/board.py: a bisection for the
window, the start ratings from the rating columns' rows, each row made once with its interval)
held to the forms they replace: a walk over every event, the ledger columns' last changes and
rows made then replaced with their intervals, over random small leagues of each system."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.load.config import BoardSettings, LeagueConfig, Roster
from sitegen.load.validate import League
from sitegen.model.aggregates import start_ratings
from sitegen.model.board import (Activity, Board, Mover, Row, _movement, _provisional, bins, build_board,
                                 interval_of, window_start)
from sitegen.model.history import rate_league
from sitegen.model.honest import grouped_ranks
from sitegen.model.table import ledger_columns
from sitegen.model.views import league_view
from sitegen.rating import SYSTEMS
from sitegen.rating.base import Match
from sitegen.rating.events import event_times

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def league_of(system: str, games: list[tuple[int, int, int, int, int]], **params) -> League:
    cls = SYSTEMS[system]
    values = {p.name: p.default for p in cls.params} | params
    config = LeagueConfig("lg", "League", system, cls(**values), values, frozenset(params))
    matches = []
    for i, (hour, a, b, x, y) in enumerate(sorted(games, key=lambda g: g[0])):
        if a == b:
            b = (a + 1) % 7
        extra = {}
        if system == "lunaro":
            entries = ({"goals": x, "ping": 10 * y, "host": False}, {"goals": y, "ping": 10 * x, "host": False})
        elif system == "elo":
            entries = ({"score": 1 if x > y else 0.5 if x == y else 0}, {"score": 1 if y > x else 0.5 if x == y else 0})
        elif system == "openskill":
            places = [1 + (x < y), 1 + (y < x)]
            entries = ({"team": 0, "place": places[0]}, {"team": 1, "place": places[1]})
            extra = {"places": places}
        else:
            entries = ({"score": x}, {"score": y})
        matches.append(Match(f"m{i}", START + timedelta(hours=hour), "m.toml", i + 1, None,
                             (f"P{a}", f"P{b}"), entries, extra))
    return League(config, tuple(matches))


# --- the forms replaced -------------------------------------------------------------------------

def old_start_ratings(league, before_events):
    ledger = ledger_columns(league.rated)
    head = ledger.order < before_events
    if not head.any():
        return {}
    player = ledger.player[head]
    last = ~pd.Series(player).duplicated(keep="last").to_numpy()
    ratings = ledger.after[head][last].tolist()
    if league.integer:
        ratings = [int(r) for r in ratings]
    names = ledger.names
    return dict(zip([names[p] for p in player[last].tolist()], ratings))


def old_ranks(ratings):
    ordered = sorted(ratings.values())
    n = len(ordered)
    return {name: 1 + n - bisect_right(ordered, r) for name, r in ratings.items()}


def old_honest(lv, rows, has_interval, bootstrap_of):
    if has_interval:
        intervals = {r.player.name: (r.low, r.high) for r in rows}
        kind = "rd"
    else:
        intervals = bootstrap_of(lv.rated)
        kind = "bootstrap" if intervals else None
    if kind is None:
        return rows, None
    among_all = grouped_ranks(intervals)
    among_active = grouped_ranks({r.player.name: intervals[r.player.name] for r in rows if r.active})
    return [replace(r, interval=intervals[r.player.name],
                    sure_rank=(among_active if r.active else among_all)[r.player.name]) for r in rows], kind


def old_board(lv, settings, bootstrap_of):
    config = lv.config
    events = lv.rated.events
    matches = lv.rated.league.matches
    last = matches[-1].played if matches else None
    by_period = config.system.calendar_periods and bool(events)
    start = None
    if by_period:
        since = f"in rating period {events[-1].key}"
        before_events = len(events) - 1
        window_ids = set(events[-1].matches)
    elif last is not None:
        start = last - timedelta(days=settings.movement_days)
        since = f"since {start:%Y-%m-%d}"
        before_events = next((i for i, t in enumerate(event_times(events)) if t >= start), len(events))
        window_ids = None
    else:
        since, before_events, window_ids = "", 0, set()
    start_rating = old_start_ratings(lv, before_events)
    start_rank = old_ranks(start_rating)
    played = Counter()
    for m in reversed(matches):
        if window_ids is not None:
            if m.id not in window_ids:
                break
        elif m.played < start:
            break
        played.update(m.players)
    active_since = None if last is None else last - timedelta(days=settings.inactive_days)
    provisional, rule = _provisional(lv, settings)
    interval = interval_of(lv)
    is_active = {p.name: active_since is not None and p.last_played is not None
                 and p.last_played >= active_since for p in lv.leaderboard}
    active_rank = old_ranks({p.name: p.rating for p in lv.leaderboard if is_active[p.name]})
    active_start = old_ranks({n: r for n, r in start_rating.items() if is_active.get(n)})
    rows = []
    for p in lv.leaderboard:
        now_active = is_active[p.name]
        rows.append(Row(
            player=p, rank=active_rank[p.name] if now_active else p.rank, games=len(p.games),
            provisional=provisional(p), active=now_active,
            movement=_movement(active_start.get(p.name), active_rank[p.name], since) if now_active
            else _movement(start_rank.get(p.name), p.rank, since),
            spread=interval.width * p.extra[interval.term] if interval else None,
            centre=None if interval is None or interval.centre is None else p.extra[interval.centre]))
    rows, interval_kind = old_honest(lv, rows, interval is not None, bootstrap_of)
    active = tuple(r for r in rows if r.active)
    inactive = tuple(r for r in rows if not r.active)
    shown = active or inactive
    movers = [Mover(lv.players[n], start_rating[n], lv.players[n].rating - start_rating[n])
              for n in played if n in start_rating]
    gainers = sorted((m for m in movers if m.change > 0), key=lambda m: (-m.change, m.player.name))
    losers = sorted((m for m in movers if m.change < 0), key=lambda m: (m.change, m.player.name))
    busiest = sorted(played.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    same = busiest[0][1] if len(played) > 1 and len(set(played.values())) == 1 else None
    held = {id(p.tier) for p in lv.leaderboard if p.tier is not None}
    return Board(
        settings=settings, active=active, inactive=inactive, last_played=last,
        active_since=active_since, window_start=start, since=since, by_period=by_period,
        provisional_rule=rule, has_interval=interval is not None, interval=interval,
        interval_kind=interval_kind,
        platforms=tuple(sorted({p.platform for p in lv.leaderboard if p.platform})),
        regions=tuple(sorted({p.region for p in lv.leaderboard if p.region})),
        tiers=tuple(t for t in config.tiers if id(t) in held),
        distribution=bins([r.player.rating for r in shown], integer=lv.integer),
        distribution_of="active players" if active else "all players",
        most_active=() if same else tuple(Activity(lv.players[n], k) for n, k in busiest),
        same_games=same, window_players=len(played),
        most_games=tuple(Activity(p, len(p.games)) for p in
                         sorted(lv.leaderboard, key=lambda p: (-len(p.games), p.name))[:10]),
        gainers=tuple(gainers[:5]), losers=tuple(losers[:5]))


def fake_bootstrap(rated):
    """Intervals of every rated player that overlap some and not others, without resampling."""
    return {r.standing.player: (float(r.standing.rating) - 20.0, float(r.standing.rating) + 20.0)
            for r in rated.standings}


# --- the properties ---------------------------------------------------------------------------

game = st.tuples(st.integers(0, 24 * 30), st.integers(0, 6), st.integers(0, 6),
                 st.integers(0, 20), st.integers(0, 20))
SYSTEM = st.sampled_from([("elo", {}), ("lunaro", {}), ("glicko2", {"period": "day"}), ("glicko2", {}),
                          ("openskill", {})])


@settings(max_examples=80, deadline=None)
@given(st.lists(game, min_size=1, max_size=40), SYSTEM, st.integers(1, 25), st.integers(1, 30))
def test_board_equals_the_walk_over_every_event(games, system, movement_days, inactive_days):
    name, params = system
    if name == "glicko2":
        games = [(g[0], g[1], g[2], g[3] * 1000, g[4] * 1000) for g in games]
    rated = rate_league(league_of(name, games, **params))
    lv = league_view(rated, Roster())
    board_settings = BoardSettings(movement_days=movement_days, inactive_days=inactive_days)
    got = build_board(lv, board_settings, fake_bootstrap)
    assert got == old_board(lv, board_settings, fake_bootstrap)
    assert repr(got) == repr(old_board(lv, board_settings, fake_bootstrap))     # the same types
    n = len(rated.events)
    for cut in range(n + 1):
        new, old = start_ratings(lv, cut), old_start_ratings(lv, cut)
        assert list(new.items()) == list(old.items())
        assert [type(v) for v in new.values()] == [type(v) for v in old.values()]


@given(st.lists(st.integers(0, 50), max_size=30), st.integers(-5, 55))
def test_window_start_is_the_first_event_at_or_after_the_start(hours, at):
    class Event:
        def __init__(self, played):
            self.played = played

    events = [Event(START + timedelta(hours=h)) for h in sorted(hours)]
    start = START + timedelta(hours=at)
    assert window_start(events, start) == next((i for i, e in enumerate(events) if e.played >= start), len(events))
