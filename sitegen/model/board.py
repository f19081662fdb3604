"""The leaderboard a league page shows: who is active or provisional, how ranks moved.

Pure, no I/O: everything comes from the league's view model and its settings.
Time is measured back from the league's last match, never from the build's
clock, so that the same input always gives the same page.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from sitegen.load.config import BoardSettings, Tier
from sitegen.model.aggregates import start_ratings
from sitegen.model.history import RatedLeague
from sitegen.model.honest import RESAMPLES, bootstrap, grouped_ranks
from sitegen.model.views import LeagueView, PlayerView
from sitegen.rating.events import EventTable, event_times
from sitegen.rating.protocol import Interval
from sitegen.rating.values import RatingEvent

# An inactive list longer than this starts collapsed; a few names are shown as they are.
INACTIVE_OPEN = 10
MOST_ACTIVE = 10
MOVERS = 5
BINS = 12                    # about this many histogram bins, on round bounds


@dataclass(frozen=True, slots=True)
class Movement:
    """A player's rank now against their rank at the start of the movement window."""

    places: int | None       # places gained (negative: lost); None: not rated at the start
    text: str                # "▲3", "▼2", "–", "new"
    label: str               # "up 3 places since 2025-05-01", for screen readers and tooltips
    kind: str                # up, down, same or new

    @property
    def sort(self) -> int | None:
        return self.places


@dataclass(frozen=True, slots=True)
class Row:
    player: PlayerView
    rank: int                # among the players of its table: active ones, or everyone for the inactive
    games: int
    provisional: bool
    active: bool
    movement: Movement
    spread: float | None     # half-width of the interval (2 RD, 3 sigma); None where the system has none
    centre: float | None = None     # the interval's middle: the rating itself, or openskill's mu
    # The 95% interval (honest.py: the system's own, or a bootstrap of the matches) and the rank
    # it supports: 1 + the players of the same table significantly better. None for arena.
    interval: tuple[float, float] | None = None
    sure_rank: int | None = None

    @property
    def low(self) -> float | None:
        return None if self.spread is None else self._centre - self.spread

    @property
    def high(self) -> float | None:
        return None if self.spread is None else self._centre + self.spread

    @property
    def _centre(self) -> float:
        return self.player.rating if self.centre is None else self.centre


def interval_of(lv: LeagueView) -> Interval | None:
    """The league's system's own interval of a rating (2 RD, 3 sigma), or None."""
    return lv.config.system.interval


@dataclass(frozen=True, slots=True)
class Bin:
    """Players whose rating is at least ``low`` and below ``high``."""

    low: float
    high: float
    count: int


@dataclass(frozen=True, slots=True)
class Mover:
    player: PlayerView
    before: float
    change: float


@dataclass(frozen=True, slots=True)
class Activity:
    player: PlayerView
    games: int


@dataclass(frozen=True, slots=True)
class Board:
    settings: BoardSettings
    active: tuple[Row, ...]
    inactive: tuple[Row, ...]
    last_played: datetime | None          # the league's last match: the board's "now"
    active_since: datetime | None         # a player whose last match is older is inactive
    window_start: datetime | None         # movement, movers and activity count from here
    since: str                            # "since 2025-05-01" or "in rating period 2024-W12"
    by_period: bool
    provisional_rule: str                 # "fewer than 30 games", "an RD above 110"
    has_interval: bool
    interval: Interval | None
    interval_kind: str | None             # "rd", "bootstrap" or None: where Row.interval comes from
    platforms: tuple[str, ...]
    regions: tuple[str, ...]
    tiers: tuple[Tier, ...]               # the tiers some player is in, lowest first
    distribution: tuple[Bin, ...]
    distribution_of: str                  # "active players" or "all players"
    most_active: tuple[Activity, ...]     # empty when everyone played as often (see same_games)
    same_games: int | None                # every player of the window played this many matches
    most_games: tuple[Activity, ...]      # all-time: what "most active" shows when the window ranks nothing
    window_players: int
    gainers: tuple[Mover, ...]
    losers: tuple[Mover, ...]

    @property
    def rows(self) -> tuple[Row, ...]:
        return self.active + self.inactive

    @property
    def resamples(self) -> int:
        """How many resamples a bootstrap interval comes from (the legend says so)."""
        return RESAMPLES

    @property
    def collapsed(self) -> bool:
        return len(self.inactive) > INACTIVE_OPEN

    @property
    def bin_width(self) -> float | None:
        d = self.distribution
        return round(d[0].high - d[0].low, 9) if d else None


def build_board(lv: LeagueView, settings: BoardSettings,
                bootstrap_of: Callable[[RatedLeague], dict[str, tuple[float, float]]] = bootstrap) -> Board:
    """The league page's board; ``bootstrap_of`` gives the bootstrap intervals (honest.py), or
    the ones a build before computed from the same input (``honest.cached_bootstrap``)."""
    config = lv.config
    rated = lv.rated
    events = rated.events
    matches = rated.league.matches
    last = matches[-1].played if matches else None

    # The window: for a glicko2 league of calendar periods, its last rating period
    # (ratings only move once a period); otherwise the last movement_days.
    by_period = config.system.calendar_periods and bool(events)
    start: datetime | None = None
    if by_period:
        since = f"in rating period {events[-1].key}"
        before_events = len(events) - 1
        window_ids = set(events[-1].matches)
    elif last is not None:
        start = last - timedelta(days=settings.movement_days)
        since = f"since {start:%Y-%m-%d}"
        # Events and matches are in history order: the window is a suffix of each.
        before_events = window_start(events, start)
        window_ids = None
    else:
        since, before_events, window_ids = "", 0, set()

    # Each player's rating at the window's start: their last change before it, from the ledger frame.
    start_rating = start_ratings(lv, before_events)
    start_rank = _ranks(start_rating)

    # Games in the window, counted from the newest match back.
    played: Counter[str] = Counter()
    for m in reversed(matches):
        if window_ids is not None:
            if m.id not in window_ids:
                break
        else:
            assert start is not None        # no rating period: the window is movement_days of time
            if m.played < start:
                break
        played.update(m.players)

    active_since = None if last is None else last - timedelta(days=settings.inactive_days)
    provisional, rule = _provisional(lv, settings)
    interval = interval_of(lv)
    has_interval = interval is not None
    is_active = {p.name: active_since is not None and p.last_played is not None
                 and p.last_played >= active_since for p in lv.leaderboard}
    # The board ranks the active players among themselves (1, 2, 3, ... with ties shared), as
    # the list a reader sees; the inactive keep their rank among everyone, as in standings.csv.
    # Movement compares like with like: today's active players, ranked among themselves then.
    active_rank = _ranks({p.name: p.rating for p in lv.leaderboard if is_active[p.name]})
    active_start = _ranks({n: r for n, r in start_rating.items() if is_active.get(n)})
    # The rows are made once, their intervals and grouped ranks with them (_honest), and a
    # movement once per distinct number of places: ten thousand players' rows at a million matches.
    movements: dict[int | None, Movement] = {}

    def movement(before: int | None, now: int) -> Movement:
        places = None if before is None else before - now
        made = movements.get(places)
        if made is None:
            made = movements[places] = _movement(before, now, since)
        return made

    intervals, interval_kind, sure_ranks = _honest(lv, is_active, interval, bootstrap_of)
    rows = []
    for p in lv.leaderboard:
        name = p.name
        now_active = is_active[name]
        rows.append(Row(
            player=p, rank=active_rank[name] if now_active else p.rank, games=len(p.games),
            provisional=provisional(p), active=now_active,
            movement=movement(active_start.get(name), active_rank[name]) if now_active
            else movement(start_rank.get(name), p.rank),
            spread=interval.width * p.extra[interval.term] if interval else None,
            centre=None if interval is None or interval.centre is None else p.extra[interval.centre],
            interval=None if intervals is None else intervals[name],
            sure_rank=None if sure_ranks is None else sure_ranks[name],
        ))
    active = tuple(r for r in rows if r.active)
    inactive = tuple(r for r in rows if not r.active)

    shown = active or inactive
    movers = [Mover(lv.players[name], start_rating[name], lv.players[name].rating - start_rating[name])
              for name in played if name in start_rating]
    gainers = sorted((m for m in movers if m.change > 0), key=lambda m: (-m.change, m.player.name))
    losers = sorted((m for m in movers if m.change < 0), key=lambda m: (m.change, m.player.name))
    busiest = sorted(played.items(), key=lambda kv: (-kv[1], kv[0]))[:MOST_ACTIVE]
    # A list where every count is the same (a weekly period: one match each) ranks nothing.
    same = busiest[0][1] if len(played) > 1 and len(set(played.values())) == 1 else None
    held = {id(p.tier) for p in lv.leaderboard if p.tier is not None}

    return Board(
        settings=settings, active=active, inactive=inactive, last_played=last,
        active_since=active_since, window_start=start, since=since, by_period=by_period,
        provisional_rule=rule, has_interval=has_interval, interval=interval, interval_kind=interval_kind,
        platforms=tuple(sorted({p.platform for p in lv.leaderboard if p.platform})),
        regions=tuple(sorted({p.region for p in lv.leaderboard if p.region})),
        tiers=tuple(t for t in config.tiers if id(t) in held),
        distribution=bins([r.player.rating for r in shown], integer=lv.integer),
        distribution_of="active players" if active else "all players",
        most_active=() if same else tuple(Activity(lv.players[name], n) for name, n in busiest),
        same_games=same, window_players=len(played),
        most_games=tuple(Activity(p, len(p.games)) for p in
                         sorted(lv.leaderboard, key=lambda p: (-len(p.games), p.name))[:MOST_ACTIVE]),
        gainers=tuple(gainers[:MOVERS]), losers=tuple(losers[:MOVERS]),
    )


def _honest(lv: LeagueView, is_active: dict[str, bool], interval: Interval | None,
            bootstrap_of: Callable[[RatedLeague], dict[str, tuple[float, float]]] = bootstrap,
            ) -> tuple[dict[str, tuple[float, float]] | None, str | None, dict[str, int] | None]:
    """Each player's interval, where it comes from, and their grouped rank, counted like the
    board's rank: the active among the active, the inactive among every player (as
    standings.csv). (None, None, None) where the league has no interval."""
    intervals: dict[str, tuple[float, float]]
    kind: str | None
    if interval is not None:
        intervals = {p.name: _own_interval(p, interval) for p in lv.leaderboard}
        kind = "rd"
    else:
        intervals = bootstrap_of(lv.rated)
        kind = "bootstrap" if intervals else None
    if kind is None:
        return None, None, None
    among_all = grouped_ranks(intervals)
    among_active = grouped_ranks({p.name: intervals[p.name] for p in lv.leaderboard if is_active[p.name]})
    return intervals, kind, {p.name: (among_active if is_active[p.name] else among_all)[p.name]
                             for p in lv.leaderboard}


def _own_interval(p: PlayerView, interval: Interval) -> tuple[float, float]:
    """The system's own interval of a player, (low, high), as their row's ``low`` and ``high``."""
    spread = interval.width * p.extra[interval.term]
    centre = p.rating if interval.centre is None else p.extra[interval.centre]
    return centre - spread, centre + spread


def window_start(events: Sequence[RatingEvent], start: datetime) -> int:
    """The first event played at ``start`` or later (len(events) for none). Events are in
    history order, which is time order, so it is a bisection, not a walk over every event."""
    times = events.played if isinstance(events, EventTable) else event_times(events)
    return bisect_left(times, start)


def _ranks(ratings: dict[str, float]) -> dict[str, int]:
    """The standings' rank rule: 1 + the number of players with a strictly higher rating."""
    values = list(ratings.values())
    n = len(values)
    # With numpy where every rating is a float64 as it is (finite floats, ints within 2**53):
    # one sort and one search, not a bisection per player (ten thousand, three times a board).
    if n and all(type(r) is float or type(r) is int and -_EXACT < r < _EXACT for r in values):
        at = np.array(values, dtype=np.float64)
        if np.isfinite(at).all():
            return dict(zip(ratings, (n + 1 - np.searchsorted(np.sort(at), at, side="right")).tolist()))
    ordered = sorted(values)
    return {name: 1 + n - bisect_right(ordered, r) for name, r in ratings.items()}


_EXACT = 2 ** 53


def _movement(before: int | None, now: int, since: str) -> Movement:
    if before is None:
        return Movement(None, "new", f"first rated {since}", "new")
    places = before - now
    if places == 0:
        return Movement(0, "\u2013", f"no change {since}", "same")
    n = abs(places)
    what = f"{n} place" if n == 1 else f"{n} places"
    if places > 0:
        return Movement(places, f"\u25b2{n}", f"up {what} {since}", "up")
    return Movement(places, f"\u25bc{n}", f"down {what} {since}", "down")


def _provisional(lv: LeagueView, settings: BoardSettings):
    """The test of a provisional rating and its wording for the legend.

    Glicko-2 says how sure it is (RD); a system with its own provisional_games
    (elo's FIDE rule) keeps its own count; the others use the site's setting.
    """
    if "rd" in lv.standing_terms:
        limit = settings.provisional_rd
        return (lambda p: p.extra["rd"] > limit), f"an RD above {limit:g}"
    if "provisional_games" in lv.config.params:
        n = lv.config.params["provisional_games"]
        return (lambda p: len(p.games) < n), f"fewer than {n} games (the league's provisional_games)"
    n = settings.provisional_games
    return (lambda p: len(p.games) < n), f"fewer than {n} games"


def bins(values: list[float], *, integer: bool = False, target: int = BINS) -> tuple[Bin, ...]:
    """Histogram of ratings on round bounds (1, 2, 2.5 or 5 times a power of ten)."""
    if not values:
        return ()
    lo, hi = min(values), max(values)
    step = _nice((hi - lo) / target) if hi > lo else 1.0
    if integer:
        step = max(step, 1.0)
    # Quotients rounded before flooring: 0.3 / 0.1 is 2.9999999999999996 in floats.
    first = math.floor(round(lo / step, 9)) * step
    n = math.floor(round((hi - first) / step, 9)) + 1
    counts = [0] * n
    for v in values:
        counts[max(0, min(math.floor(round((v - first) / step, 9)), n - 1))] += 1
    # Rounded so that bounds such as 0.1 * 3 print as 0.3.
    return tuple(Bin(round(first + i * step, 9), round(first + (i + 1) * step, 9), c)
                 for i, c in enumerate(counts))


def _nice(x: float) -> float:
    power = 10.0 ** math.floor(math.log10(x))
    for m in (1, 2, 2.5, 5):
        if m * power >= x:
            return m * power
    return 10 * power
