"""What a league's models carry over from the last build, through the build cache.

A player's career aggregates (model/career.py: record, streaks, months, best wins, head to head,
the chart's rows) are worked out from their own games alone: where this league's first k matches
are the last build's (the prefix identity of its history, load/blocks.py, as model/resume.py
takes up the rating), each match one rating event and the same players in the league, the games
of a player who played none of the matches since are the ones they had, with the same ratings,
and so are their aggregates. Those are taken from the build cache as the last build left them,
and only the players of the matches since have theirs worked out, from their rows alone
(``LeagueCareers.aggregates`` with ``only``): at a million matches, a few rows for the league's
two million. The match pages' plan (model/groups.py) carries each match's file number and
whether every id is plain over the same first matches, and reads only the matches since; and
each player's slug (model/views.py) is their name's alone, kept by name. Any other history,
league or entry, or no cache, and it is all worked out again. Either way the result is the one
a whole computation gives, array for array (tests/test_carried.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sitegen.load.blocks import prefix_identities
from sitegen.model.aggregates import BestTable, PeriodTable, RivalTable, Runs
from sitegen.model.groups import file_numbers, plain_ids
from sitegen.model.history import BUILD_CACHE, IDENTITIES, PREFIXES, RatedLeague, one_event_per_match

if TYPE_CHECKING:
    from sitegen.load.cache import Cache
    from sitegen.model.career import LeagueCareers, _Aggregates

CAREERS = "careers"     # the cache's folders of these entries, one a league (by slug)
PLAN = "plan"
SLUGS = "slugs"
T = TypeVar("T")


class Carried:
    """A league's entry of one kind as the last build left it, where the history it was made of
    (``upto`` matches) is the start of this one's; ``keep`` stores this build's."""

    def __init__(self, rated: RatedLeague, kind: str) -> None:
        self.kind, self.slug = kind, rated.league.config.slug
        self.cache: Cache | None = rated.cache.get(BUILD_CACHE)
        self.upto = 0
        self.value: Any = None
        ids = rated.cache.get(IDENTITIES)
        if self.cache is None or ids is None or not len(ids):
            self.cache = None
            return
        if PREFIXES not in rated.cache:
            rated.cache[PREFIXES] = prefix_identities(ids, np.arange(len(ids)))
        self.prefixes: np.ndarray = rated.cache[PREFIXES]
        hit = self.cache.get(kind, self.slug)
        if isinstance(hit, tuple) and len(hit) == 3:
            identity, upto, value = hit
            if isinstance(upto, int) and 0 < upto <= len(self.prefixes) and int(self.prefixes[upto - 1]) == identity:
                self.upto, self.value = upto, value

    def keep(self, value: Any) -> None:
        if self.cache is not None:
            # The careers are some 75 MB at a million matches: pickled and written beside.
            put = self.cache.put_aside if self.kind == CAREERS else self.cache.put
            put(self.kind, self.slug, (int(self.prefixes[-1]), len(self.prefixes), value))


def carried_aggregates(careers: LeagueCareers, compute: Callable[[np.ndarray | None], _Aggregates]) -> _Aggregates:
    """``compute()``, or where the cache holds the last build's and this history goes on from it,
    those with the players of the matches since worked out again (``compute(only)``)."""
    league = careers.league
    rated = league.rated
    lines = league.lines
    if (lines is None or one_event_per_match(rated) is None
            or getattr(rated.league.config.system, "rate_from", None) is None):
        return compute(None)
    kept = Carried(rated, CAREERS)
    if kept.cache is None:
        return compute(None)
    shape = (careers.duels, careers.has_outcomes, careers.ranked_by, careers._names)
    if kept.upto and isinstance(kept.value, tuple) and len(kept.value) == 2 and kept.value[0] == shape:
        before = kept.value[1]
        # The players of the matches since, numbered as the careers number them.
        start = int(lines.sizes[:kept.upto].sum())
        in_view = list(league.players)
        number = careers._number
        touched = np.array(sorted({number[in_view[i]] for i in set(lines.players[start:].tolist())}),
                           dtype=np.int64)
        result = before if not len(touched) else splice(before, compute(touched), touched, len(careers._names))
    else:
        result = compute(None)
    kept.keep((shape, result))
    return result


def carried_files(rated: RatedLeague, files: Sequence[str], ids: Sequence[str]
                  ) -> tuple[dict[str, int], np.ndarray, bool]:
    """The match pages' plan's ``known`` (model/groups.py): each file's number in order of its
    first match, each match's file number, and whether every id is plain; the last build's for
    the matches it had, where this history goes on from it, and worked out for the rest."""
    kept = Carried(rated, PLAN)
    if kept.cache is None:
        return (*file_numbers(files), plain_ids(ids))
    upto = kept.upto if isinstance(kept.value, tuple) and len(kept.value) == 3 else 0
    if upto:
        known, head, plain = kept.value
        number = dict(zip(known, range(len(known))))
        rest = files[upto:]
        for f in dict.fromkeys(rest):
            number.setdefault(f, len(number))
        code = np.concatenate((np.asarray(head, dtype=np.int64)[:upto],
                               np.fromiter(map(number.__getitem__, rest), dtype=np.int64, count=len(rest))))
        plain = bool(plain) and plain_ids(ids[upto:])
    else:
        number, code = file_numbers(files)
        plain = plain_ids(ids)
    kept.keep((list(number), code, plain))
    return number, code, plain


def carried_slugs(rated: RatedLeague, names: list[str]) -> dict[str, str]:
    """Each player's own slug (views.natural_slugs), the last build's for the names it had: a slug
    is its name's alone (and the slugify release's, which the entry's key names)."""
    from sitegen.model.views import natural_slugs
    cache: Cache | None = rated.cache.get(BUILD_CACHE)
    if cache is None:
        return natural_slugs(names)
    import slugify
    key = f"{rated.league.config.slug}\0{getattr(slugify, '__version__', '')}"
    known = cache.get(SLUGS, key)
    natural = natural_slugs(names, known if isinstance(known, dict) else None)
    if natural != known:
        cache.put(SLUGS, key, natural)
    return natural


def splice(old: _Aggregates, new: _Aggregates, touched: np.ndarray, players: int) -> _Aggregates:
    """``old``'s aggregates with those of the players ``touched`` (numbers) taken from ``new``."""
    from sitegen.model.career import _Aggregates
    mask = np.zeros(players, dtype=bool)
    mask[touched] = True
    bounds, (played, after, rated) = _rows(mask, old.bounds, new.bounds, (old.played, old.after, old.rated),
                                           (new.played, new.after, new.rated))
    records = old.records.copy()
    records[touched] = new.records[touched]
    at = touched.tolist()
    runs = Runs(*(_replaced(a, b, at) for a, b in ((old.runs.win, new.runs.win),
                                                   (old.runs.unbeaten, new.runs.unbeaten),
                                                   (old.runs.current, new.runs.current))))
    op, np_ = old.periods, new.periods
    first, (numbers, ratings) = _rows(mask, op.bounds, np_.bounds, (op.numbers, op.ratings), (np_.numbers, np_.ratings))
    periods = PeriodTable(first, _replaced(op.by_year, np_.by_year, at), numbers, ratings)
    best = rivals = None
    if old.best is not None and new.best is not None:
        ob, nb = old.best, new.best
        b, (game, opponent, rating) = _rows(mask, ob.bounds, nb.bounds, (ob.game, ob.opponent, ob.rating),
                                            (nb.game, nb.opponent, nb.rating))
        best = BestTable(b, game, opponent, rating)
    if old.rivals is not None and new.rivals is not None:
        orv, nrv = old.rivals, new.rivals
        b, (counts, change) = _rows(mask, orv.bounds, nrv.bounds, (orv.counts, orv.change),
                                    (nrv.counts, nrv.change))
        rivals = RivalTable(b, counts, change)
    return _Aggregates(bounds, played, after, rated, records, runs, periods, best, rivals)


def _replaced(old: list[T], new: list[T], at: list[int]) -> list[T]:
    out = list(old)
    for p in at:
        out[p] = new[p]
    return out


def _rows(mask: np.ndarray, old_bounds: Sequence[int], new_bounds: Sequence[int], old: Sequence[np.ndarray],
          new: Sequence[np.ndarray]) -> tuple[list[int], list[np.ndarray]]:
    """Tables grouped by player (player p's rows ``bounds[p]:bounds[p + 1]``): each player's rows
    of ``old``, but ``new``'s for the players of ``mask``; the new bounds and tables. Joined
    from slices (the old rows between two such players are one), not gathered row by row."""
    ob, nb = np.asarray(old_bounds, dtype=np.int64), np.asarray(new_bounds, dtype=np.int64)
    length = np.where(mask, np.diff(nb), np.diff(ob))
    bounds = np.zeros(len(mask) + 1, dtype=np.int64)
    np.cumsum(length, out=bounds[1:])
    cuts: list[tuple[bool, int, int]] = []      # (from new, start, end), in order
    done = 0
    for p in np.flatnonzero(mask).tolist():
        cuts += [(False, done, int(ob[p])), (True, int(nb[p]), int(nb[p + 1]))]
        done = int(ob[p + 1])
    cuts.append((False, done, int(ob[-1])))
    return bounds.tolist(), [_joined([(b if fresh else a)[lo:hi] for fresh, lo, hi in cuts])
                             for a, b in zip(old, new)]


def _joined(parts: list[np.ndarray]) -> Any:
    # Of the wider type where they differ (a head to head's counts: int16 while they fit), as the
    # whole computation's, whose largest count is the larger of the two.
    return np.concatenate(parts)
