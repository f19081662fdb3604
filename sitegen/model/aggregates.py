"""Every player's career aggregates of a league at once: record, streaks, the rating history
by month, head to head and best wins of 1v1 leagues, and the board's ratings at the start
of its window.

career.py states each aggregate as a loop over one player's games (the definition); here
the same numbers come from one table of the league's games, with numpy and pandas over
whole columns, so that no Python loop walks every change once per aggregate. A player's
games are a contiguous slice of the table, in the order of ``PlayerView.games``; the
ratings are joined from the ledger frame (table.py) by rating event and player.

The league-wide results stay arrays grouped by player, with each player's first row in
``bounds``: a player's Python rows are made when their page asks (``of``). A list of tuples
for every pair of players who met held a third of a GB at a million matches, and pages are
made in workers forked after these are computed, which share the arrays unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitegen.model.columns import by_player
from sitegen.model.history import one_event_per_match
from sitegen.model.table import ledger_columns
from sitegen.model.views import DRAW, LOSS, NO_RESULT, WIN, LeagueView
from sitegen.rating.events import EventTable, event_matches, occurrences
from sitegen.rating.matchcolumns import MatchColumns, played_micros
from sitegen.rating.values import Match

# One period of a player's rating history: (year, month or None, games, end, high, low).
PeriodRow = tuple[int, int | None, int, float | None, float | None, float | None]


@dataclass(frozen=True, slots=True)
class Runs:
    """Per player, a run of games with an outcome as (length, first, last), first and last
    indices into the player's games; None where the player has no such run."""

    win: list[tuple[int, int, int] | None]          # the first longest winning run
    unbeaten: list[tuple[int, int, int] | None]     # the first longest run without a loss
    current: list[tuple[str, int, int, int] | None]  # the last result and its run


@dataclass(frozen=True, slots=True)
class PeriodTable:
    """Every player's periods (LeagueGames.periods), player by player in ``bounds``: a row
    of numbers (year, month, games) and one of ratings (end, high, low) per period; one slice
    of each is a player's, in two calls. A period without a rated game has NaN ratings, and no
    other period has: they are taken over the rated games only, NaN where there are none."""

    bounds: list[int]       # per player, their first period; one more at the end
    by_year: list[bool]     # per player, whether counted by year
    numbers: np.ndarray     # (periods, 3): year, month, games
    ratings: np.ndarray     # (periods, 3): end, high, low

    def of(self, player: int) -> tuple[list[PeriodRow], bool]:
        s, e = self.bounds[player], self.bounds[player + 1]
        by_year = self.by_year[player]
        rows: list[PeriodRow] = []
        for (y, m, n), (end, high, low) in zip(self.numbers[s:e].tolist(), self.ratings[s:e].tolist()):
            month = None if by_year else m
            rows.append((y, month, n, None, None, None) if end != end else (y, month, n, end, high, low))
        return rows, by_year


@dataclass(frozen=True, slots=True)
class RivalTable:
    """Every player's opponents in a league of duels, player by player in ``bounds``, each
    player's by most games, then name."""

    bounds: list[int]
    counts: np.ndarray      # (pairs, 5): opponent, games, wins, draws, losses
    change: np.ndarray      # the player's net rating change against them

    def of(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The player's rows: (opponent, games, wins, draws, losses) and the net change."""
        s, e = self.bounds[player], self.bounds[player + 1]
        return self.counts[s:e], self.change[s:e]


@dataclass(frozen=True, slots=True)
class BestTable:
    """Every player's best wins in a league of duels, player by player in ``bounds``: the
    game (its index among the player's games), the opponent, and the opponent's rating."""

    bounds: list[int]
    game: np.ndarray
    opponent: np.ndarray
    rating: np.ndarray

    def of(self, player: int) -> list[tuple[int, int, float]]:
        s, e = self.bounds[player], self.bounds[player + 1]
        return list(zip(self.game[s:e].tolist(), self.opponent[s:e].tolist(), self.rating[s:e].tolist()))


class LeagueGames:
    """One row per (match, player) of a league, grouped by player (code point order of
    names), each player's rows in game order.

    Numbers, codes and indices are int32 (int8 for a result, a month): two million rows at a
    million matches. Their products with a count are taken in int64 (``_wide``)."""

    def __init__(self, league: LeagueView, names: Sequence[str], only: np.ndarray | None = None) -> None:
        """``only``: the rows of these players (numbers in ``names``) alone, each player's all of
        theirs (model/carried.py computes the players an appended match touched so)."""
        self.league = league
        self.names = list(names)
        number = {name: i for i, name in enumerate(self.names)}
        events = league.rated.events
        matches = league.matches
        # Who played which match, at which position, with which result: columns, with no tuple
        # per line (two million at a million matches, a fifth of a GB held at once).
        # Counted by the views (views.LineColumns): each line's player renumbered here.
        lines = league.lines
        assert lines is not None, "a league's view models count its lines"
        renumber = np.array([number[name] for name in league.players], dtype=np.int32)
        sizes, player, result = lines.sizes, renumber[lines.players], lines.outcomes
        total = len(player)
        one_event = one_event_per_match(league.rated) is not None
        listed = one_event and _rows_are_lines(league, total)
        # By player, then history order: the lines are in history order, so a stable sort of the
        # players' numbers alone (a tenth of a lexsort's time).
        match: np.ndarray | None = None
        if only is None:
            order = by_player(player, len(self.names))
            match = np.repeat(np.arange(len(matches), dtype=np.int32), sizes)
            index = (np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)).astype(np.int32)
            self.match, self.index = match[order], index[order]
            del index
        else:
            picked = np.flatnonzero(np.isin(player, only))
            order = picked[by_player(player[picked], len(self.names))]
            # Each row's match and place found by its line alone: no column of every line made.
            starts = np.cumsum(sizes) - sizes
            at = np.searchsorted(starts, order, "right") - 1
            self.match, self.index = at.astype(np.int32), (order - starts[at]).astype(np.int32)
            if not listed:      # the ledger's rows are matched to the lines by every line's match
                match = np.repeat(np.arange(len(matches), dtype=np.int32), sizes)
        self.line = order           # each row's line, in history order
        self.player, self.result = player[order], result[order]
        if one_event:
            self.event = self.match     # one event per match, in the matches' order: the same index
        else:
            event_of = {mid: i for i, ids in enumerate(event_matches(events)) for mid in ids}
            self.event = np.array([event_of[m.id] for m in matches], dtype=np.int32)[self.match]
        self.bounds = np.searchsorted(self.player, np.arange(len(self.names) + 1))
        self.before, self.after = _ratings(league, number, order, match, player, None if one_event else self.event,
                                           listed)
        # Each row's opponent (a duel's other player) and their rating before, where the rows are
        # some players' only and the opponent's row may not be among them (``opponents``).
        self._opponents: tuple[np.ndarray, np.ndarray] | None = None
        if only is not None and one_event and len(order) and bool((sizes == 2).all()):
            other = order ^ 1       # match k's lines are 2k and 2k + 1
            self._opponents = player[other], _ratings(league, number, other, match, player, None, listed)[0]
        del match, player, result
        self.delta = self.after - self.before       # the frame's delta, row for row
        # A period's change is carried by the player's last game in it (views._mark_rated).
        nxt = np.r_[self.player[1:], -1], np.r_[self.event[1:], -1]
        self.rated = (nxt[0] != self.player) | (nxt[1] != self.event)
        del nxt
        # Each match's time in microseconds (a datetime's own resolution: the chart's ranges),
        # read from the columns the matches are kept as, with no datetime made (a million of them
        # cost a rebuild a third of a second); its month counted from 1970-01 by numpy's calendar.
        micros = _micros(league.rated.league.matches)
        self.played = micros[self.match]
        # Counted for every match, or for the rows where they are some players' only (fewer).
        months = (micros.astype("datetime64[us]").astype("datetime64[M]").astype(np.int64)[self.match]
                  if only is None else self.played.astype("datetime64[us]").astype("datetime64[M]").astype(np.int64))
        del micros
        self.year = (months // 12 + 1970).astype(np.int32)
        self.month = (months % 12 + 1).astype(np.int8)

    # --- record and streaks ---------------------------------------------------------------

    def records(self) -> np.ndarray:
        """(players, 4): wins, draws, losses and games without a result."""
        return np.bincount(self.player * 4 + self.result, minlength=len(self.names) * 4).reshape(-1, 4)

    def runs(self) -> Runs:
        """streaks() of every player over their games with an outcome."""
        kept = np.flatnonzero(self.result != NO_RESULT)
        player, result = self.player[kept], self.result[kept]
        game = kept - self.bounds[player]             # index into the player's games
        n = len(self.names)
        win = _longest(player, game, result == WIN, n)
        unbeaten = _longest(player, game, result != LOSS, n)
        current: list[tuple[str, int, int, int] | None] = [None] * n
        if len(player):
            new = np.r_[True, (player[1:] != player[:-1]) | (result[1:] != result[:-1])]
            start = np.flatnonzero(new)
            last = np.r_[np.flatnonzero(player[1:] != player[:-1]), len(player) - 1]   # each player's last
            run_start = start[np.searchsorted(start, last, "right") - 1]
            labels = ("win", "draw", "loss")
            for p, s, e in zip(player[last].tolist(), run_start.tolist(), last.tolist()):
                current[p] = (labels[result[e]], e - s + 1, int(game[s]), int(game[e]))
        return Runs(win, unbeaten, current)

    # --- the rating history by month -------------------------------------------------------

    def periods(self, months_shown: int) -> PeriodTable:
        """Per player: (year, month or None, games, end, high, low) per period, and whether by year."""
        n = len(self.names)
        key_month = self.year * 12 + self.month - 1
        # Distinct months per player: rows are in time order, so a new month is a change of key.
        new_month = np.r_[True, (self.player[1:] != self.player[:-1]) | (key_month[1:] != key_month[:-1])]
        by_year = np.bincount(self.player[new_month], minlength=n) > months_shown
        key = np.where(by_year[self.player], self.year * 12, key_month)
        new = np.r_[True, (self.player[1:] != self.player[:-1]) | (key[1:] != key[:-1])]
        group = np.cumsum(new) - 1
        starts = np.flatnonzero(new)
        # Statistics of the rated games only (NaN elsewhere), NaN where a period has none.
        ratings = period_ratings(np.where(self.rated, self.after, np.nan), starts, group)
        first = np.searchsorted(self.player[starts], np.arange(n + 1))   # each player's first period
        numbers = np.column_stack((self.year[starts], self.month[starts], np.bincount(group))).astype(np.int32)
        return PeriodTable(first.tolist(), by_year.tolist(), numbers, ratings)

    # --- 1v1 leagues: head to head and best wins --------------------------------------------

    def opponents(self) -> tuple[np.ndarray, np.ndarray]:
        """In a league of duels, each row's opponent (their number) and the opponent's rating before."""
        if self._opponents is not None:
            return self._opponents
        other = self.opponent()
        return self.player[other], self.before[other]

    def opponent(self) -> np.ndarray:
        """In a league of duels, each row's opponent: the other player of its match."""
        if len(self.line) and bool((self.league.lines.sizes == 2).all()):    # type: ignore[union-attr]
            # Match k's lines are 2k and 2k + 1: a row's opponent is at the row of its line ^ 1.
            row_of = np.empty(len(self.line), dtype=np.int64)
            row_of[self.line] = np.arange(len(self.line), dtype=np.int64)
            return row_of[self.line ^ 1]
        mates = np.argsort(_wide(self.match) * 2 + self.index, kind="stable")     # rows by match, then position
        other = np.empty(len(mates), dtype=np.int64)
        other[mates] = mates.reshape(-1, 2)[:, ::-1].reshape(-1)
        return other

    def duel_rivals(self, against: np.ndarray) -> RivalTable:
        """Per player: (opponent, games, wins, draws, losses, net change) by most games, then name.
        ``against``: each row's opponent (``opponents``)."""
        n = len(self.names)
        pair = _wide(self.player) * n + against
        # The rows are by player: a stable sort of the pairs merges runs, and keeps each pair's
        # rows in row order (of int32 where the pairs fit, a fifth faster).
        perm = np.argsort(pair.astype(np.int32) if n * n < 2 ** 31 else pair, kind="stable")
        pair = pair[perm]
        first = np.r_[True, pair[1:] != pair[:-1]] if len(pair) else np.zeros(0, dtype=bool)
        group = np.cumsum(first) - 1            # each sorted row's pair
        keys = pair[first]
        del pair, first
        games = np.bincount(group, minlength=len(keys))
        result = self.result[perm]
        won, drawn, lost = (np.bincount(group[result == r], minlength=len(keys)) for r in (WIN, DRAW, LOSS))
        # bincount adds the weights one after another, each pair's in row order: the same float
        # sum as career.py's running total, game by game.
        change = np.bincount(group, weights=np.nan_to_num(self.delta, nan=0.0)[perm], minlength=len(keys))
        del group, result, perm
        who, against = keys // n, keys % n
        # By player, most games first, then by opponent (the keys' order, kept by a stable sort).
        most = int(games.max()) if len(games) else 0
        order = np.argsort(who * (most + 1) + (most - games), kind="stable")
        # int16 where every count and opponent's number fits: a row per pair of players who met.
        top = max(most, int(against.max())) if len(keys) else 2 ** 15
        counts = np.empty((len(keys), 5), dtype=np.int16 if top < 2 ** 15 else np.int32)
        for column, values in enumerate((against, games, won, drawn, lost)):
            counts[:, column] = values[order]
        return RivalTable(np.searchsorted(who, np.arange(n + 1)).tolist(), counts, change[order])

    def duel_best_wins(self, against: np.ndarray, rating: np.ndarray, n_best: int) -> BestTable:
        """Per player: up to ``n_best`` (game, opponent, opponent's rating before) of the wins
        against the highest-rated opponents, the earlier first among equals. ``against`` and
        ``rating``: each row's opponent and their rating before (``opponents``)."""
        rows = np.flatnonzero((self.result == WIN) & ~np.isnan(rating))
        if len(rows) and n_best > 0:
            # Only the wins at or above each player's n_best-th highest distinct rating can be
            # among their first n_best (-inf where they have fewer distinct ones: every win):
            # n_best passes of a maximum over each player's rows, so that the sort below takes
            # a few of each player's wins, not all of them.
            values, who = rating[rows], self.player[rows]
            new = np.r_[True, who[1:] != who[:-1]]
            starts, group = np.flatnonzero(new), np.cumsum(new) - 1
            floor = np.maximum.reduceat(values, starts)
            for _ in range(n_best - 1):
                floor = np.maximum.reduceat(np.where(values < floor[group], values, -np.inf), starts)
            rows = rows[values >= floor[group]]
            del values, who, new, starts, group
        # By player, then the highest rating; lexsort is stable, so the earlier row among equals.
        order = rows[np.lexsort((-rating[rows], self.player[rows]))]
        who = self.player[order]
        # The first n_best of each player's wins in that order.
        first = np.searchsorted(who, who)
        order = order[np.arange(len(order)) - first < n_best]
        who = self.player[order]
        return BestTable(np.searchsorted(who, np.arange(len(self.names) + 1)).tolist(),
                         (order - self.bounds[who]).astype(np.int32), against[order], rating[order])


def _longest(player: np.ndarray, game: np.ndarray, mask: np.ndarray, n: int) -> list[tuple[int, int, int] | None]:
    """Per player, the first longest run of True in ``mask``: (length, first game, last game)."""
    out: list[tuple[int, int, int] | None] = [None] * n
    if not mask.any():
        return out
    same = np.r_[False, player[1:] == player[:-1]]
    prev = np.r_[False, mask[:-1]] & same
    nxt = np.r_[mask[1:], False] & np.r_[same[1:], False]
    starts = np.flatnonzero(mask & ~prev)
    ends = np.flatnonzero(mask & ~nxt)
    length = ends - starts + 1
    who = player[starts]
    order = np.lexsort((starts, -length, who))      # longest first, the earliest among equals
    firsts = order[np.r_[True, who[order][1:] != who[order][:-1]]]
    for i in firsts.tolist():
        out[int(who[i])] = (int(length[i]), int(game[starts[i]]), int(game[ends[i]]))
    return out


def _rows_are_lines(league: LeagueView, total: int) -> bool:
    """Whether row offsets[k] + i of the rating's columns is player i of match k, which is line
    offsets[k] + i (of ``total``)."""
    events = league.rated.events
    return (isinstance(events, EventTable) and events.listed and events.rows == total
            and np.array_equal(np.asarray(events.offsets[1:]), np.cumsum(league.lines.sizes)))   # type: ignore[union-attr]


def _ratings(league: LeagueView, number: dict[str, int], order: np.ndarray, match: np.ndarray | None,
             player: np.ndarray, event: np.ndarray | None, listed: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's rating before and after, from the ledger's change of the row's player in the
    row's event (``event``: each row's, or None where each match is one event, in order);
    ``listed``: ``_rows_are_lines`` (``match``, every line's match, may then be None)."""
    events = league.rated.events
    if event is None and listed:
        # Each row's own line of the columns, with no ledger columns made nor compared.
        assert isinstance(events, EventTable)
        return events.float_befores()[order], events.after.astype(np.float64)[order]
    assert match is not None
    ledger = ledger_columns(league.rated)
    own = np.array([number.get(name, -1) for name in ledger.names], dtype=np.int64)
    ledger_player = own[ledger.player] if len(own) else np.zeros(0, dtype=np.int64)
    if event is None and len(ledger_player) == len(player) and np.array_equal(ledger.order, match) \
            and np.array_equal(ledger_player, player):
        # Row r of the ledger is line r (each match one event, its players in order).
        at = order
    else:
        n = max(len(number), 1)
        at = _index_of(_wide(ledger.order) * n + ledger_player,
                       _wide(match[order] if event is None else event) * n + player[order])
    return ledger.before[at], ledger.after[at]


def _index_of(keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The position of each query among the distinct ``keys``, -1 where it is not one of them
    (pandas' Index.get_indexer, by a sort)."""
    by = np.argsort(keys, kind="stable")
    at = np.searchsorted(keys[by], queries)
    at = np.minimum(at, max(len(keys) - 1, 0))
    found = by[at] if len(keys) else np.zeros(len(queries), dtype=np.int64)
    return np.where(keys[found] == queries, found, -1) if len(keys) else np.full(len(queries), -1)


def period_ratings(after: np.ndarray, starts: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each period's (last, high, low) of ``after`` (its rows ``starts[g]`` on, ``group`` each
    row's period), NaN skipped, NaN where a period has none: pandas' groupby last, max and min."""
    valid = ~np.isnan(after)
    if len(after) and not (after[valid] == 0).any():
        # A period's rows follow each other: each statistic is one reduceat over them.
        last = np.maximum.reduceat(np.where(valid, np.arange(len(after)), -1), starts)
        ratings = np.column_stack((after[last], np.maximum.reduceat(np.where(valid, after, -np.inf), starts),
                                   np.minimum.reduceat(np.where(valid, after, np.inf), starts)))
        ratings[last < 0] = np.nan
        return ratings
    if not len(after):
        return np.empty((0, 3))
    # With a zero, the high and the low are each one row holding the period's extreme, where
    # numpy's maximum may return either of 0.0 and -0.0: the row pandas' groupby (which did
    # this before, at the cost of its import in the main process) kept, the first such row
    # where the column holds a NaN (a game not rated), else the last.
    rows = np.arange(len(after))
    last = np.maximum.reduceat(np.where(valid, rows, -1), starts)
    extremes = [after[last]]
    first = not valid.all()
    for pick, outside in ((np.maximum, -np.inf), (np.minimum, np.inf)):
        extreme = pick.reduceat(np.where(valid, after, outside), starts)
        holding = valid & (after == extreme[group])
        if first:
            at = np.minimum.reduceat(np.where(holding, rows, len(after)), starts)
            extremes.append(after[np.minimum(at, len(after) - 1)])
        else:
            extremes.append(after[np.maximum.reduceat(np.where(holding, rows, -1), starts)])
    ratings = np.column_stack(extremes)
    ratings[last < 0] = np.nan
    return ratings


def _micros(matches: Sequence[Match]) -> np.ndarray:
    """Each match's time as whole microseconds since 1970 (int64): the kept columns' own, or of a
    tuple's datetimes by ``micros`` (30 ms for 100,000 matches; through pandas it cost a cold
    build's main process pandas' import, 0.5 s while the page workers waited)."""
    if isinstance(matches, MatchColumns):
        return np.asarray(matches.micros(), dtype=np.int64)
    return np.fromiter(played_micros(matches), dtype=np.int64, count=len(matches))


def _wide(a: np.ndarray) -> np.ndarray:
    """An index column as int64, for a product with a count that may pass int32."""
    return a.astype(np.int64, copy=False)


def start_ratings(league: LeagueView, before_events: int) -> dict[str, float]:
    """Each player's rating after their last change among the first ``before_events`` events
    (whole numbers where the system's ratings are, as the changes hold them), in the order of
    those last changes."""
    events = league.rated.events
    if isinstance(events, EventTable):
        # The events' rows are in event order: the first events' are a prefix of the rows, and
        # each player's last row in it is one pass (occurrences), with no ledger columns made.
        end = int(events.offsets[before_events]) if before_events < len(events.offsets) else events.rows
        player = events.player[:end]
        last_rows = np.sort(occurrences(player, len(events.names))[2])
        names, who = events.names, player[last_rows].tolist()
        ratings = events.after[last_rows].astype(np.float64).tolist()
    else:
        ledger = ledger_columns(league.rated)
        head = ledger.order < before_events
        if not head.any():
            return {}
        player = ledger.player[head]
        # Each player's last row among them, in row order.
        last = np.zeros(len(player), dtype=bool)
        last[np.sort(occurrences(player, len(ledger.names))[2])] = True
        ratings = ledger.after[head][last].tolist()
        names, who = ledger.names, player[last].tolist()
    if league.integer:
        ratings = [int(r) for r in ratings]
    return dict(zip([names[p] for p in who], ratings))
