"""A league's lines as columns (views.LineColumns): each match's number of lines, each line's
player and outcome, read from the rating's columns where they allow it, else from every match;
and each player's games, first and last match, peak and lowest grouped from them with numpy,
not a Python step per line. No I/O here."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from sitegen.model.views import NO_RESULT, RESULT_CODES, Games, PlayerView
from sitegen.rating.base import Match
from sitegen.rating.events import EventTable
from sitegen.rating.matchcolumns import played_at

if TYPE_CHECKING:
    from sitegen.model.lines import TableLines


Lines = tuple[np.ndarray, np.ndarray, np.ndarray]


def lines_of(matches: Sequence[Match], number: dict[str, int], system: Any) -> Lines:
    """``LineColumns``' sizes, players and outcomes, read from every match."""
    sizes = np.fromiter(map(len, (m.players for m in matches)), dtype=np.int64, count=len(matches))
    total = int(sizes.sum())
    codes = np.fromiter(map(number.__getitem__, chain.from_iterable(m.players for m in matches)),
                        dtype=np.int32, count=total)
    outcome = system.outcome
    results = chain.from_iterable(map(outcome, repeat(m, len(m.players)), range(len(m.players))) for m in matches)
    outcomes = np.fromiter(map(RESULT_CODES.get, results, repeat(NO_RESULT)), dtype=np.int8, count=total)
    return sizes, codes, outcomes


def column_lines(source: TableLines, number: dict[str, int], system: Any) -> Lines | None:
    """``lines_of`` from the rating's columns, where each row is the line at the same position
    (``EventTable.listed``) and the system reads its outcomes from them; else None."""
    table = source.table
    if not table.listed:
        return None
    outcomes = system.outcome_codes(table)
    if outcomes is None:
        return None
    # Each of the table's players numbered as ``number`` numbers them (-1: none such).
    renumber = np.fromiter((number.get(name, -1) for name in table.names), dtype=np.int32, count=len(table.names))
    codes = renumber[table.player] if len(table.player) else np.zeros(0, dtype=np.int32)
    if len(codes) and codes.min() < 0:
        return None
    return np.diff(table.offsets), codes, outcomes


def by_player(codes: np.ndarray, players: int) -> np.ndarray:
    """The stable order of ``codes`` (each a player's number, below ``players``): a radix sort
    where the numbers fit 16 bits (ten thousand players: a sixth of a general sort's time)."""
    return np.argsort(codes.astype(np.uint16) if players <= 1 << 16 else codes, kind="stable")


def group_games(games_of: dict[str, Games], codes: np.ndarray, sizes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
    """Each player's games from every line in history order: their match and their place in it,
    grouped with numpy, not an append per line (two million at a million matches). ``codes``:
    each line's player, numbered in ``games_of``'s order; ``sizes``: each match's lines.
    Returns the lines by player (each player's in history order), where each player's start
    in them, and each player's first and last match (-1: none)."""
    # C ints from the start (a game is two in Games): no conversion of two million of them.
    match = np.repeat(np.arange(len(sizes), dtype=np.intc), sizes)
    place = np.arange(len(codes), dtype=np.intc) - np.repeat((np.cumsum(sizes) - sizes).astype(np.intc), sizes)
    order = by_player(codes, len(games_of))         # each player's lines in history order
    bounds = np.zeros(len(games_of) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(games_of)), out=bounds[1:])
    # Each player's games a slice of the two, copied by the games as they are.
    matches, places = match[order], place[order]
    ends = bounds.tolist()
    for games, lo, hi in zip(games_of.values(), ends, ends[1:]):
        games.extend(matches[lo:hi], places[lo:hi])
    if not len(order):
        return order, bounds, [-1] * len(games_of), [-1] * len(games_of)
    played = bounds[1:] > bounds[:-1]
    first = np.where(played, matches[np.minimum(bounds[:-1], len(order) - 1)], -1)
    last = np.where(played, matches[np.maximum(bounds[1:] - 1, 0)], -1)
    return order, bounds, first.tolist(), last.tolist()


def table_extremes(table: EventTable, matches: Sequence[Match], players: list[PlayerView],
                   order: np.ndarray, bounds: np.ndarray) -> bool:
    """``views._extremes`` of every player from the columns, where row r is the r-th line of the
    league and every game is rated; ``order`` and ``bounds`` the lines by player as
    ``group_games`` sorts them. False (nothing set) unless the ratings after are finite
    numbers in an array (NaN compares differently in numpy and Python)."""
    after = table.after
    if not (isinstance(after, np.ndarray) and after.dtype.kind in "iuf" and len(after)
            and np.isfinite(after).all()):
        return False
    values = after[order]
    played = np.flatnonzero(bounds[1:] > bounds[:-1])
    starts = bounds[played]
    counts = bounds[played + 1] - starts
    position = np.arange(len(values))
    found = []
    for reduce in (np.maximum, np.minimum):
        best = np.repeat(reduce.reduceat(values, starts), counts)
        # The first of the player's rows reaching it, as the first game reaching it; its value
        # read back as the line's (Python int or float, and -0.0 where that came first).
        rows = order[np.minimum.reduceat(np.where(values == best, position, len(values)), starts)]
        # The match's time read from the column of times: no match made (model/matchcolumns.py).
        found.append(zip(after[rows].tolist(), played_at(matches, table.event_of_rows(rows).tolist())))
    for p, (peak, pe), (low, le) in zip(played.tolist(), *found):
        player = players[p]
        player.peak, player.lowest = (peak, pe), (low, le)
    return True
