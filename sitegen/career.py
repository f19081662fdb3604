"""A player's career as their page shows it: record, streaks, best wins, every opponent,
the rating history summed up by month. No I/O; computed from the model's PlayerView.

Every player's games are walked once. Head to head counts opponents in C (Counter
over identity-hashed Links, list slices), never with a Python loop over pairs:
100-player lobbies give each game 99 opponents.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from .model import LeagueView, Link, MatchLine, MatchView, PlayerGame, PlayerView
from .rating.placement import ordinal

BEST_WINS = 5           # as many as lichess lists
PODIUM = 3
# Past this many months the chart's text alternative counts by year: a table of
# 200 months read aloud is no summary of a career.
MONTHS_SHOWN = 36
RECENT_GAMES = 100      # the chart's "last 100 games"

# What a match's order says of two players where the system has no win or loss:
# the better place (placement) or the higher score (glicko2, as its battles count).
RANKED_BY = {"placement": ("place", 1), "glicko2": ("score", -1)}


@dataclass(frozen=True, slots=True)
class Record:
    """Wins, draws and losses over the games that have an outcome."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> int:
        """Points won as a whole percentage, a draw half a point."""
        return round(100 * (self.wins + self.draws / 2) / self.games) if self.games else 0


@dataclass(frozen=True, slots=True)
class Placings:
    """A placement league's record: first places are its wins."""

    games: int
    firsts: int
    podiums: int         # placed PODIUM or better, ties included
    average: float       # mean place
    best: int

    @property
    def best_place(self) -> str:
        return ordinal(self.best)


@dataclass(frozen=True, slots=True)
class Streak:
    kind: str            # "win", "unbeaten", or the result repeated at the end: "win", "draw", "loss"
    length: int
    first: PlayerGame
    last: PlayerGame

    @property
    def start(self) -> datetime:
        return self.first.match.match.played

    @property
    def end(self) -> datetime:
        return self.last.match.match.played


@dataclass(frozen=True, slots=True)
class BestWin:
    game: PlayerGame
    opponents: tuple[Link, ...]
    rating: float        # the opponent's rating before the match; an opposing side's mean


@dataclass(frozen=True, slots=True)
class Rival:
    """Head to head against one opponent."""

    opponent: Link
    games: int
    wins: int            # or finished ahead, where the system has no outcomes
    draws: int
    losses: int
    change: float | None  # the player's rating change summed over their duels (1v1 leagues)


@dataclass(frozen=True, slots=True)
class Period:
    """A month (or a year) of the rating history, the chart's text alternative."""

    label: str           # "2024-03" or "2024"
    games: int
    end: float | None    # rating after the period's last rated game
    high: float | None
    low: float | None


@dataclass(frozen=True, slots=True)
class Range:
    """A range of the history chart: the points from game number ``first`` on."""

    key: str
    label: str
    first: int


@dataclass(frozen=True, slots=True)
class Career:
    record: Record | None                 # systems with outcomes
    placings: Placings | None             # placement leagues
    longest_win: Streak | None
    longest_unbeaten: Streak | None
    current: Streak | None
    best_wins: tuple[BestWin, ...]
    rivals: tuple[Rival, ...]             # every opponent, most games first
    periods: tuple[Period, ...]
    period_unit: str                      # "month" or "year"
    ranges: tuple[Range, ...]             # "all" first; only ranges that leave points out


class LeagueCareers:
    """What every player's career in one league shares, worked out once for the league."""

    def __init__(self, league: LeagueView) -> None:
        self.league = league
        system = league.config.system_name
        self.has_outcomes = league.has_outcomes
        self.ranked_by = None if league.has_outcomes else RANKED_BY.get(system)
        self.placement = system == "placement"
        # A change belongs to one opponent only where each match is one rating event
        # between two players (not a glicko2 period of several matches).
        self.duels = bool(league.matches) and all(
            len(m.lines) == 2 and m.lines[0].team is None and len(m.event_matches) <= 1
            for m in league.matches)
        # Per match, its players sorted by place (or score) and the sorted keys:
        # an opponent ahead or behind is then a slice. Built when first asked.
        self._order: dict[str, tuple[list[Link], list[float]]] = {}

    @property
    def outcome_labels(self) -> tuple[str, str, str] | None:
        if self.has_outcomes:
            return ("Won", "Drawn", "Lost")
        if self.ranked_by:
            return ("Ahead", "Level", "Behind")
        return None

    def of(self, player: PlayerView) -> Career:
        games = player.games
        outcomes = [g for g in games if g.line.result] if self.has_outcomes else []
        longest_win, longest_unbeaten, current = streaks(outcomes)
        months, unit = periods(games)
        return Career(
            record=record(outcomes) if self.has_outcomes else None,
            placings=placings(games) if self.placement else None,
            longest_win=longest_win, longest_unbeaten=longest_unbeaten, current=current,
            best_wins=best_wins(outcomes),
            rivals=self.rivals(player),
            periods=months, period_unit=unit,
            ranges=ranges(games),
        )

    def rivals(self, player: PlayerView) -> tuple[Rival, ...]:
        """Every opponent: games, wins, draws, losses (or ahead, level, behind), net change in duels."""
        games: Counter[Link] = Counter()
        won: Counter[Link] = Counter()
        drawn: Counter[Link] = Counter()
        lost: Counter[Link] = Counter()
        change: dict[Link, float] = {}
        by = {"win": won, "draw": drawn, "loss": lost}
        for g in player.games:
            if self.ranked_by:
                ahead, level, behind = self._split(g)
                games.update(ahead)
                games.update(level)
                games.update(behind)
                won.update(behind)
                drawn.update(level)
                lost.update(ahead)
                continue
            opponents = g.opponents
            games.update(opponents)
            result = g.line.result
            if result in by:
                by[result].update(opponents)
            if self.duels and g.line.delta is not None:
                opponent = opponents[0]
                change[opponent] = change.get(opponent, 0.0) + g.line.delta
        rows = [Rival(opp, n, won[opp], drawn[opp], lost[opp],
                      change.get(opp, 0.0) if self.duels else None)
                for opp, n in games.items()]
        rows.sort(key=lambda r: (-r.games, r.opponent.text))
        return tuple(rows)

    def _split(self, g: PlayerGame) -> tuple[list[Link], list[Link], list[Link]]:
        """The opponents placed ahead of, level with and behind the player in this game."""
        m = g.match
        order = self._order.get(m.id)
        if order is None:
            order = self._order[m.id] = _ranking(m, *self.ranked_by)
        links, keys = order
        key = _key(m, g.index, *self.ranked_by)
        lo, hi = bisect_left(keys, key), bisect_right(keys, key)
        me = g.line.player
        return links[:lo], [p for p in links[lo:hi] if p is not me], links[hi:]


def _key(m: MatchView, index: int, field: str, sign: int) -> float:
    return sign * m.match.entries[index][field]


def _ranking(m: MatchView, field: str, sign: int) -> tuple[list[Link], list[float]]:
    keyed = sorted((_key(m, i, field, sign), i) for i in range(len(m.lines)))
    return [m.lines[i].player for _, i in keyed], [k for k, _ in keyed]


def record(games: Sequence[PlayerGame]) -> Record:
    results = Counter(g.line.result for g in games)
    return Record(results["win"], results["draw"], results["loss"])


def placings(games: Sequence[PlayerGame]) -> Placings | None:
    places = [g.match.match.entries[g.index]["place"] for g in games]
    if not places:
        return None
    return Placings(len(places), places.count(1), sum(1 for p in places if p <= PODIUM),
                    sum(places) / len(places), min(places))


def streaks(games: Sequence[PlayerGame]) -> tuple[Streak | None, Streak | None, Streak | None]:
    """Longest winning run, longest run without a loss (the first of equals), and the run of
    the last result. A draw ends a winning run, not an unbeaten one."""
    best: dict[str, tuple[int, int] | None] = {"win": None, "unbeaten": None}
    start: dict[str, int | None] = {"win": None, "unbeaten": None}
    for i, g in enumerate(games):
        result = g.line.result
        for kind, counts in (("win", result == "win"), ("unbeaten", result in ("win", "draw"))):
            if not counts:
                start[kind] = None
                continue
            if start[kind] is None:
                start[kind] = i
            run = best[kind]
            if run is None or i - start[kind] > run[1] - run[0]:
                best[kind] = (start[kind], i)

    def streak(kind: str, run: tuple[int, int] | None) -> Streak | None:
        return None if run is None else Streak(kind, run[1] - run[0] + 1, games[run[0]], games[run[1]])

    current = None
    if games:
        last = games[-1].line.result
        i = len(games) - 1
        while i > 0 and games[i - 1].line.result == last:
            i -= 1
        current = streak(last, (i, len(games) - 1))
    return streak("win", best["win"]), streak("unbeaten", best["unbeaten"]), current


def _opponent_lines(g: PlayerGame) -> list[MatchLine]:
    lines, i = g.match.lines, g.index
    team = lines[i].team
    if team is None:
        return lines[:i] + lines[i + 1:]
    return [line for line in lines if line.team != team]


def best_wins(games: Sequence[PlayerGame], n: int = BEST_WINS) -> tuple[BestWin, ...]:
    """The wins against the highest-rated opponents at the time, the earlier first among equals.

    A team's (or a free-for-all field's) strength is its players' mean rating before
    the match, over those who had one (an arena player's first game has none)."""
    found = []
    for g in games:
        if g.line.result != "win":
            continue
        lines = _opponent_lines(g)
        ratings = [line.before for line in lines if line.before is not None]
        if ratings:
            found.append(BestWin(g, tuple(line.player for line in lines), sum(ratings) / len(ratings)))
    return tuple(heapq.nlargest(n, found, key=lambda w: (w.rating, -w.game.number)))


def periods(games: Sequence[PlayerGame]) -> tuple[tuple[Period, ...], str]:
    """Games, closing rating, high and low per month, or per year past MONTHS_SHOWN months.

    The ratings are those after each rated game (the chart's points) played in the period."""
    months = {f"{g.match.match.played:%Y-%m}" for g in games}
    unit, fmt = ("month", "%Y-%m") if len(months) <= MONTHS_SHOWN else ("year", "%Y")
    rows: list[Period] = []
    label, count, end, high, low = None, 0, None, None, None
    for g in games:
        this = g.match.match.played.strftime(fmt)
        if this != label:
            if label is not None:
                rows.append(Period(label, count, end, high, low))
            label, count, end, high, low = this, 0, None, None, None
        count += 1
        if g.rated:
            r = g.line.after
            end = r
            high = r if high is None else max(high, r)
            low = r if low is None else min(low, r)
    if label is not None:
        rows.append(Period(label, count, end, high, low))
    return tuple(rows), unit


def ranges(games: Sequence[PlayerGame]) -> tuple[Range, ...]:
    """All games, the last year before the player's last game, the last 100 games; a range
    is offered only where it leaves out some of the chart's points."""
    rated = [g for g in games if g.rated]
    if not rated:
        return ()
    found = [Range("all", "All", 1)]
    last = games[-1].match.match.played
    year_ago = _year_before(last)
    in_year = next(g.number for g in games if g.match.match.played >= year_ago)
    for key, label, first in (("year", "Last year", in_year),
                              ("recent", f"Last {RECENT_GAMES} games", len(games) - RECENT_GAMES + 1)):
        if first > rated[0].number and all(first != r.first for r in found):
            found.append(Range(key, label, first))
    return tuple(found)


def _year_before(t: datetime) -> datetime:
    try:
        return t.replace(year=t.year - 1)
    except ValueError:          # 29 February
        return t.replace(year=t.year - 1, day=28)
