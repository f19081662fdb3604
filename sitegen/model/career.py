"""A player's career as their page shows it: record, streaks, best wins, every opponent,
the rating history summed up by month. No I/O; computed from the model's PlayerView.

The functions below state each aggregate for one player's games. The pages take
record, streaks, monthly history, and in 1v1 leagues head to head and best wins, from
aggregates.py, which computes the same numbers for every player at once over the
league's table of games. Head to head elsewhere counts opponents in C, never
with a Python loop over pairs (100-player lobbies give each game 99 opponents):
Counter over identity-hashed Links for teams, numpy slices and
bincount for the places of a lobby.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast, overload
from datetime import datetime, timedelta, timezone

import numpy as np

from sitegen.model.history import one_event_per_match
from sitegen.model.aggregates import BestTable, LeagueGames, PeriodTable, RivalTable, Runs
from sitegen.model.matchviews import ViewMaker
from sitegen.model.views import Games, LeagueView, Link, MatchLine, MatchView, PlayerGame, PlayerView
from sitegen.rating.titles import ordinal

BEST_WINS = 5           # as many as lichess lists
PODIUM = 3
# Past this many months the chart's text alternative counts by year: a table of
# 200 months read aloud is no summary of a career.
MONTHS_SHOWN = 36
RECENT_GAMES = 100      # the chart's "last 100 games"



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


class Rival(NamedTuple):
    """Head to head against one opponent. A named tuple, not a frozen dataclass: made four
    times as fast, and a big league makes one for every pair of players who met (millions)."""

    opponent: Link
    games: int
    wins: int            # or finished ahead, where the system has no outcomes
    draws: int
    losses: int
    change: float | None  # the player's rating change summed over their duels (1v1 leagues)


class Rivals(Sequence[Rival]):
    """A player's head to head in a league of duels, each row made when read from their slice of
    the league's RivalTable: a page shows the first 20 of some 200 opponents, and how many."""

    __slots__ = ("counts", "change", "links")

    def __init__(self, counts: np.ndarray, change: np.ndarray, links: list[Link]) -> None:
        self.counts, self.change, self.links = counts, change, links     # (opponent, games, w, d, l), net change

    def __len__(self) -> int:
        return len(self.counts)

    @overload
    def __getitem__(self, i: int) -> Rival: ...

    @overload
    def __getitem__(self, i: slice) -> list[Rival]: ...

    def __getitem__(self, i: int | slice) -> Rival | list[Rival]:
        at = range(len(self.counts))[i]         # a list's bounds, negative indices and steps
        if isinstance(at, range):
            links = self.links
            return [Rival(links[o], n, w, d, lo, change) for (o, n, w, d, lo), change in zip(
                self.counts[i].tolist(), self.change[i].tolist())]
        (o, n, w, d, lo), change = self.counts[at].tolist(), self.change[at].item()
        return Rival(self.links[o], n, w, d, lo, change)

    def __iter__(self) -> Iterator[Rival]:
        return iter(self[:])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"Rivals({list(self)!r})"


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


class ChartPoints(NamedTuple):
    """A player's rated games as the history chart's points: times in microseconds since the
    epoch, ratings after; the first and last point's times (None without a rated game)."""

    micros: np.ndarray
    ratings: np.ndarray
    first: datetime | None
    last: datetime | None


@dataclass(frozen=True, slots=True)
class Career:
    record: Record | None                 # systems with outcomes
    placings: Placings | None             # placement leagues
    longest_win: Streak | None
    longest_unbeaten: Streak | None
    current: Streak | None
    best_wins: tuple[BestWin, ...]
    rivals: Sequence[Rival]               # every opponent, most games first
    periods: tuple[Period, ...]
    period_unit: str                      # "month" or "year"
    ranges: tuple[Range, ...]             # "all" first; only ranges that leave points out


class LeagueCareers:
    """What every player's career in one league shares, worked out once for the league."""

    def __init__(self, league: LeagueView) -> None:
        self.league = league
        system = league.config.system
        self.has_outcomes = league.has_outcomes
        # What a match's order says of two players where the system has no win or loss: the
        # better place, or the higher score (as glicko2's battles count); the system says which.
        self.ranked_by = None if league.has_outcomes else system.ranked_by
        # First places are the wins of a record of placings.
        self.ranks_by_place = system.ranks_by_place
        # A change belongs to one opponent only where each match is one rating event
        # between two players (not a glicko2 period of several matches).
        lines = league.lines
        if lines is not None and not league.has_teams and one_event_per_match(league.rated) is not None:
            # No team and every event one match: two lines a match is all it takes (views.LineColumns).
            self.duels = bool(len(lines.sizes)) and bool((lines.sizes == 2).all())
        else:
            self.duels = bool(league.matches) and all(
                # A line's player and team are its match's: read without making the lines.
                len(m.match.players) == 2 and m.match.entries[0].get("team") is None and len(m.event_matches) <= 1
                for m in league.matches)
        # Ranked leagues count opponents by player number with numpy: a lobby of 100
        # gives each of its players 99 opponents, a million counts per 10,000 matches.
        names = sorted(league.players)
        self._number = {name: i for i, name in enumerate(names)}     # code point order: ties by name
        self._links = [_link_of(league, name) for name in names]
        # Per match, its players' numbers sorted by place (or score) and the sorted keys:
        # the opponents ahead or behind are then a slice. Built when first asked.
        self._order: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._names = names
        self._all: _Aggregates | None = None      # every player's aggregates, computed when first asked
        # Every month's label ("2024-03") written once, not once per player who played in it.
        self._labels: dict[int | tuple[int, int], str] = {}
        # Where opponents are counted by place, every match's lines as columns (``_ranked_table``).
        self._table: tuple[object, tuple[np.ndarray, np.ndarray, np.ndarray] | None] | None = None

    @property
    def outcome_labels(self) -> tuple[str, str, str] | None:
        if self.has_outcomes:
            return ("Won", "Drawn", "Lost")
        if self.ranked_by:
            return ("Ahead", "Level", "Behind")
        return None

    def of(self, player: PlayerView) -> Career:
        games = player.games
        agg = self._aggregates()
        p = self._number[player.name]
        w, d, lo, _ = agg.records[p].tolist()

        def streak(kind: str, run: tuple[int, int, int] | None) -> Streak | None:
            return None if run is None else Streak(kind, run[0], games[run[1]], games[run[2]])

        current = agg.runs.current[p]
        rows, by_year = agg.periods.of(p)
        labels = self._labels
        periods_: list[Period] = []
        if self.league.integer:         # as the lines hold ratings: the table's floats back to ints
            for y, m, n, end, high, low in rows:
                key = y if m is None else (y, m)
                periods_.append(Period(labels.get(key) or labels.setdefault(key, _label(key)), n,
                                       None if end is None else int(end), None if high is None else int(high),
                                       None if low is None else int(low)))
        else:                           # already floats
            for y, m, n, end, high, low in rows:
                key = y if m is None else (y, m)
                periods_.append(Period(labels.get(key) or labels.setdefault(key, _label(key)), n, end, high, low))
        months = tuple(periods_)
        if agg.best is not None:
            best = tuple(BestWin(games[g], (self._links[o],), rating) for g, o, rating in agg.best.of(p))
        else:
            best = best_wins([g for g in games if g.line.result]) if self.has_outcomes else ()
        rivals: Sequence[Rival]
        if self.ranked_by:
            rivals = self.ranked_rivals(player, self.ranked_by)
        elif agg.rivals is not None:
            rivals = Rivals(*agg.rivals.of(p), self._links)
        else:
            rivals = self.rivals(player)
        return Career(
            record=Record(w, d, lo) if self.has_outcomes else None,
            placings=placings(games) if self.ranks_by_place else None,
            longest_win=streak("win", agg.runs.win[p]) if self.has_outcomes else None,
            longest_unbeaten=streak("unbeaten", agg.runs.unbeaten[p]) if self.has_outcomes else None,
            current=None if current is None or not self.has_outcomes else streak(current[0], current[1:]),
            best_wins=best,
            rivals=rivals,
            periods=months, period_unit="year" if by_year else "month",
            ranges=self._ranges(player, agg, p),
        )

    def _ranges(self, player: PlayerView, table: _Aggregates, p: int) -> tuple[Range, ...]:
        """ranges(player.games), with the first rated game and the game of a year before the last
        found among the player's rows of the league's table, not by a walk over their games
        (a game's number is its row's place among the player's, from 1)."""
        s, e = table.bounds[p], table.bounds[p + 1]
        rated = table.rated[s:e]
        if not rated.any():
            return ()
        games = player.games
        # In microseconds since the epoch, as the table's times.
        year_ago = _micros(_year_before(games[-1].match.match.played))
        # The last game is in its own last year: some row is at or after year_ago.
        in_year = int(np.argmax(table.played[s:e] >= year_ago)) + 1
        return _ranges(games, int(np.argmax(rated)) + 1, in_year)

    def _aggregates(self) -> _Aggregates:
        if self._all is None:
            # With the build cache, the last build's where its history is the start of this one's,
            # but for the players of the matches since (model/carried.py).
            from sitegen.model.carried import carried_aggregates
            self._all = carried_aggregates(self, self.aggregates)
        return self._all

    def aggregates(self, only: np.ndarray | None = None) -> _Aggregates:
        """Every player's aggregates from the league's table of games; ``only``: those of these
        players (numbers in code point order of names), the others' left empty."""
        games = LeagueGames(self.league, self._names, only)
        runs = games.runs()
        periods_ = games.periods(MONTHS_SHOWN)
        best = rivals = None
        if self.duels and games.player.size:
            against, rating = games.opponents()
            best = games.duel_best_wins(against, rating, BEST_WINS) if self.has_outcomes else None
            rivals = None if self.ranked_by else games.duel_rivals(against)
        # Only what a page reads is kept: the table's other columns go with it.
        return _Aggregates(games.bounds.tolist(), games.played, games.after, games.rated, games.records(),
                           runs, periods_, best, rivals)

    def chart(self, player: PlayerView) -> ChartPoints:
        """The history chart's points, ``(g.match.match.played, g.after)`` of each rated game, read
        from the league's table as columns: no game or line made for each point."""
        games = player.games
        agg = self._aggregates()
        p = self._number[player.name]
        s, e = agg.bounds[p], agg.bounds[p + 1]
        rated = agg.rated[s:e]
        at = np.flatnonzero(rated)
        if not len(at):
            return ChartPoints(agg.played[:0], agg.after[:0], None, None)
        return ChartPoints(agg.played[s:e][rated], agg.after[s:e][rated], games[int(at[0])].match.match.played,
                           games[int(at[-1])].match.match.played)

    def rivals(self, player: PlayerView) -> tuple[Rival, ...]:
        """Every opponent: games, wins, draws, losses, and the net change in duels."""
        games: Counter[Link] = Counter()
        won: Counter[Link] = Counter()
        drawn: Counter[Link] = Counter()
        lost: Counter[Link] = Counter()
        change: dict[Link, float] = {}
        by = {"win": won, "draw": drawn, "loss": lost}
        for g in player.games:
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

    def ranked_rivals(self, player: PlayerView, ranked_by: tuple[str, int]) -> tuple[Rival, ...]:
        """Every opponent: the games in which the player finished ahead of, level with and behind
        them, by ``ranked_by`` (the league's field and direction)."""
        field, sign = ranked_by
        table = self._ranked_table(player.games, field, sign)
        n = len(self._links)
        if table is not None:
            # Every line of each of the player's matches against the player's own line, at once.
            starts, numbers, keys = table
            at = np.frombuffer(cast(Games, player.games).at, dtype=np.intc)
            first = starts[at]
            sizes = starts[at + 1] - first
            rows = np.arange(int(sizes.sum())) + np.repeat(first - (np.cumsum(sizes) - sizes), sizes)
            own = np.repeat(keys[first + np.frombuffer(cast(Games, player.games).place, dtype=np.intc)], sizes)
            theirs, them = keys[rows], numbers[rows]
            won, drawn, lost = (np.bincount(them[pick], minlength=n)
                                for pick in (theirs > own, theirs == own, theirs < own))
            return self._ranked(player, won, drawn, lost)
        ahead: list[np.ndarray] = []       # the opponents the player finished ahead of
        level: list[np.ndarray] = []
        behind: list[np.ndarray] = []
        for g in player.games:
            m = g.match
            order = self._order.get(m.id)
            if order is None:
                order = self._order[m.id] = self._ranking(m, field, sign)
            numbers, keys = order
            key = sign * m.match.entries[g.index][field]
            lo, hi = keys.searchsorted(key, "left"), keys.searchsorted(key, "right")
            behind.append(numbers[:lo])
            level.append(numbers[lo:hi])
            ahead.append(numbers[hi:])
        won, drawn, lost = (np.bincount(np.concatenate(parts), minlength=n) if parts else np.zeros(n, np.int64)
                            for parts in (ahead, level, behind))
        return self._ranked(player, won, drawn, lost)

    def _ranked(self, player: PlayerView, won: np.ndarray, drawn: np.ndarray, lost: np.ndarray) -> tuple[Rival, ...]:
        drawn[self._number[player.name]] = 0     # a player is level with themself in every game
        games = won + drawn + lost
        met = np.flatnonzero(games)
        # Most games first, then by name: numbers are in code point order of names.
        met = met[np.argsort(-games[met], kind="stable")]
        links = self._links
        return tuple(Rival(links[i], n, w, d, l_, None) for i, n, w, d, l_ in zip(
            met.tolist(), games[met].tolist(), won[met].tolist(), drawn[met].tolist(), lost[met].tolist()))

    def _ranked_table(self, games: Sequence[PlayerGame], field: str,
                      sign: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Every match's lines as the league's flat columns (each match's first row, the lines'
        player numbers and signed keys), made once a league, where a player's games are a Games
        over them; None where they are not, or a key is NaN (which the sorted keys order apart)."""
        if not isinstance(games, Games):
            return None
        if self._table is None or self._table[0] is not games.views:
            views = games.views
            matches = views.matches if isinstance(views, ViewMaker) else [v.match for v in views]
            number = self._number
            starts = np.zeros(len(matches) + 1, dtype=np.int64)
            np.cumsum([len(m.players) for m in matches], out=starts[1:])
            numbers = np.array([number[name] for m in matches for name in m.players], dtype=np.int32)
            keys = np.array([sign * e[field] for m in matches for e in m.entries], dtype=float)
            self._table = (views, None if np.isnan(keys).any() else (starts, numbers, keys))
        return self._table[1]

    def _ranking(self, m: MatchView, field: str, sign: int) -> tuple[np.ndarray, np.ndarray]:
        keys = np.array([sign * e[field] for e in m.match.entries], dtype=float)
        numbers = np.array([self._number[name] for name in m.match.players], dtype=np.int32)
        order = np.argsort(keys, kind="stable")
        return numbers[order], keys[order]


@dataclass(frozen=True, slots=True)
class _Aggregates:
    bounds: list[int]                     # per player, their first row of the league's games
    played: np.ndarray                    # each row's time in microseconds
    after: np.ndarray                     # each row's rating after, float64
    rated: np.ndarray                     # whether the row's game carries its event's change
    records: np.ndarray                   # (players, 4): wins, draws, losses, no result
    runs: Runs
    periods: PeriodTable
    best: BestTable | None                # 1v1 leagues with outcomes
    rivals: RivalTable | None             # 1v1 leagues


def _link_of(league: LeagueView, name: str) -> Link:
    """The player's one Link (compared by identity, as the match lines hold it)."""
    link = league.links.get(name)
    if link is not None:
        return link
    games = league.players[name].games
    return games[0].line.player if games else Link(name, league.players[name].url)


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
    the last result, over games that have an outcome (aggregates.runs leaves out the rest).
    A draw ends a winning run, not an unbeaten one."""
    best: dict[str, tuple[int, int] | None] = {"win": None, "unbeaten": None}
    start: dict[str, int | None] = {"win": None, "unbeaten": None}
    for i, g in enumerate(games):
        result = g.line.result
        for kind, counts in (("win", result == "win"), ("unbeaten", result in ("win", "draw"))):
            if not counts:
                start[kind] = None
                continue
            first = start[kind]
            if first is None:
                first = start[kind] = i
            run = best[kind]
            if run is None or i - first > run[1] - run[0]:
                best[kind] = (first, i)

    def streak(kind: str, run: tuple[int, int] | None) -> Streak | None:
        return None if run is None else Streak(kind, run[1] - run[0] + 1, games[run[0]], games[run[1]])

    current = None
    if games:
        last = games[-1].line.result
        assert last is not None, "streaks() counts games with an outcome"
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
    months = {(g.match.match.played.year, g.match.match.played.month) for g in games}
    by_year = len(months) > MONTHS_SHOWN
    rows: list[Period] = []
    label, count, end, high, low = None, 0, None, None, None
    for g in games:
        played = g.match.match.played
        this = played.year if by_year else (played.year, played.month)
        if this != label:
            if label is not None:
                rows.append(Period(_label(label), count, end, high, low))
            label, count, end, high, low = this, 0, None, None, None
        count += 1
        if g.rated:
            r = g.line.after
            end = r
            high = r if high is None else max(high, r)
            low = r if low is None else min(low, r)
    if label is not None:
        rows.append(Period(_label(label), count, end, high, low))
    return tuple(rows), "year" if by_year else "month"


def _label(period: int | tuple[int, int]) -> str:
    return f"{period:04d}" if isinstance(period, int) else f"{period[0]:04d}-{period[1]:02d}"


def ranges(games: Sequence[PlayerGame]) -> tuple[Range, ...]:
    """All games, the last year before the player's last game, the last 100 games; a range
    is offered only where it leaves out some of the chart's points."""
    rated = [g for g in games if g.rated]
    if not rated:
        return ()
    last = games[-1].match.match.played
    year_ago = _year_before(last)
    in_year = next(g.number for g in games if g.match.match.played >= year_ago)
    return _ranges(games, rated[0].number, in_year)


def _ranges(games: Sequence[PlayerGame], first_rated: int, in_year: int) -> tuple[Range, ...]:
    found = [Range("all", "All", 1)]
    for key, label, first in (("year", "Last year", in_year),
                              ("recent", f"Last {RECENT_GAMES} games", len(games) - RECENT_GAMES + 1)):
        if first > first_rated and all(first != r.first for r in found):
            found.append(Range(key, label, first))
    return tuple(found)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def _micros(t: datetime) -> int:
    """Microseconds since the epoch, as pandas counts them (a naive time as if in UTC), with
    integers: a pandas Timestamp per player cost more than the rest of their ranges."""
    return (t - (_EPOCH if t.tzinfo is not None else _EPOCH.replace(tzinfo=None))) // _MICROSECOND


def _year_before(t: datetime) -> datetime:
    try:
        return t.replace(year=t.year - 1)
    except ValueError:          # 29 February
        return t.replace(year=t.year - 1, day=28)
