"""The same match entered twice (docs/configuration): found among all of a league's matches,
or on a rebuild among the ones a changed file's matches could be the same as.

A league checked without a problem leaves its files' checked keys in the build cache
(``CLEAN``; validate.py also knows those files' ids apart by it). Every part of its matches
then reports no duplicate either: a match is reported where an earlier one is the same and
not both carry explicit ids, so a group of the same match reports nothing only when it is
one match or all its matches carry explicit ids, and so does any part of it. Where every
kept file of a rebuild was in that league, only the groups holding a changed file's match
can report, and they lie among the matches played at the same time as one of those
(``near``): the history is in played order, so each such time is a run found by bisection,
and the check runs over those runs alone.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from sitegen.load.problems import Problems
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import micros, played_micros

CLEAN = "clean"         # the cache's kind: by league head, the checked keys of a league without a problem


def near(matches: Sequence[Match], changed: Iterable[Match]) -> tuple[Match, ...]:
    """The matches of ``matches`` (in history order) played at the time of one of ``changed``,
    in history order; the times bisected in their column, no other match made."""
    times = played_micros(matches)
    at: set[int] = set()
    for m in changed:
        t = micros(m.played)
        lo = bisect_left(times, t)
        at.update(range(lo, bisect_right(times, t, lo=lo)))
    return tuple(matches[i] for i in sorted(at))


def report_duplicates(matches: Sequence[Match], explicit: set[str], system, problems: Problems) -> None:
    """The same match entered twice: same played, same players, same results (docs/configuration).

    Two matches that both carry explicit ids are taken as two real matches (a rematch at the
    same minute). Fields that are conditions rather than results (a lunaro ping) do not count.
    """
    conditions = {f.name for f in getattr(system, "fields", ()) if not f.result}

    def same_match(m: Match) -> tuple:
        results = tuple(sorted(
            (name, tuple(sorted((k, repr(v)) for k, v in entry.items() if k not in conditions)))
            for name, entry in zip(m.players, m.entries)))
        return m.played, results

    # Matches are first told apart by time and players, cheaply; the results of those that share
    # both are compared (as written) only then. The same match has the same time and players.
    alone: dict[tuple, Match | None] = {}       # (played, players) -> its one match; None when several
    first: dict[tuple, Match] = {}
    for m in matches:
        players = m.players
        cheap: tuple
        if len(players) == 2:       # sorted without a list made: most matches have two players
            a, b = players
            cheap = (m.played, a, b) if a <= b else (m.played, b, a)
        else:
            cheap = (m.played, *sorted(players))
        only = alone.setdefault(cheap, m)
        if only is m:
            continue
        if only is not None:
            first.setdefault(same_match(only), only)
            alone[cheap] = None
        earlier = first.setdefault(same_match(m), m)
        if earlier is m or (m.id in explicit and earlier.id in explicit):
            continue
        where = f"{earlier.file}:{earlier.line}" if earlier.line else earlier.file
        problems.add(m.file, f"the same match as {earlier.id!r} at {where} (same played, players and "
                             "results): remove the copy, or give both matches explicit ids if they "
                             "really are two matches", line=m.line,
                     match=f"{m.id!r} (#{m.position})" if m.id in explicit else f"#{m.position} ({m.id})")
