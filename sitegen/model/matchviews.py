"""A league's match views made when a page reads them (views.MatchView): ``ViewMaker`` makes the
k-th match's view as ``views._league_view`` made every view before any page, ``MatchViews`` reads
the views at positions of the history (every match, a match-file page's, a results page's) as a
list of them reads. A rebuild that keeps most pages (output/memo.py) makes views for the pages it
makes again, not one for each of a million matches. No I/O here."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, overload

import numpy as np

from sitegen.model.groups import anchor
from sitegen.model.views import MATCH_FACTS, MatchView, Rare
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import MatchColumns, played_at


class ViewMaker:
    """What makes the view of a league's k-th match when a page reads it (``MatchViews``): its
    lines' source (model/lines.py), event key, page and the rare fields, as ``_league_view``
    made every view before any page was made. A view held for each of a million matches took
    most of the 2.3 s a rebuild spent on the league's views, for the few pages it makes again."""

    __slots__ = ("matches", "held", "keys", "headline", "page_of", "urls", "plain")
    page_of: array[int]

    def __init__(self, matches: Sequence[Match], held: Any, keys: Sequence[str],
                 headline: Callable[[Match], str] | None, page_of: np.ndarray, urls: list[str],
                 plain: bool) -> None:
        self.matches, self.held, self.keys, self.headline = matches, held, keys, headline
        # Each match's page as C ints, read as Python ints (a numpy scalar a read was half a view's time).
        self.page_of = array("i", np.ascontiguousarray(page_of, dtype=np.intc).tobytes())
        self.urls, self.plain = urls, plain

    def __getitem__(self, k: int) -> MatchView:
        m = self.matches[k]
        extra = m.extra
        rare = None
        if extra:       # the match-level keys to show, of the matches that have any
            rare = Rare(facts=tuple([(label, str(extra[key])) for key, label in MATCH_FACTS.items()
                                     if extra.get(key) is not None]))
        if not self.plain:
            if rare is None:
                rare = Rare()
            rare.escaped = anchor(m.id)
        return MatchView(m, self.held, self.keys[k], self.headline, k, self.urls[self.page_of[k]], rare)

    def row(self, k: int) -> tuple[Match, Any, str, str]:
        """The k-th match, its lines, its page and its anchor, as its view gives them (``match``,
        ``lines``, ``page``, ``anchor``), without making the view: a player's data file reads
        these of each of their games, where the view's facts and escaped id are made for nothing."""
        m = self.matches[k]
        return m, self.held.match_lines(k), self.urls[self.page_of[k]], f"m-{m.id}" if self.plain else anchor(m.id)

    def __len__(self) -> int:
        return len(self.matches)


class MatchViews(Sequence[MatchView]):
    """A league's match views at ``positions`` of its history (every match, a page's, a results
    page's), read as a list of them reads, each made when read from ``views`` (a ``ViewMaker``,
    or the list of views made already). Nothing of them is held: the count, slices and the
    matches themselves (``plain``) need no view."""

    __slots__ = ("views", "positions")

    def __init__(self, views: ViewMaker | Sequence[MatchView], positions: range | Sequence[int]) -> None:
        self.views = views
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, i: int) -> MatchView: ...

    @overload
    def __getitem__(self, i: slice) -> MatchViews: ...

    def __getitem__(self, i: int | slice) -> MatchView | MatchViews:
        if isinstance(i, slice):
            return MatchViews(self.views, self.positions[i])
        return self.views[self.positions[i]]

    def __iter__(self) -> Iterator[MatchView]:
        return map(self.views.__getitem__, self.positions)

    def __reversed__(self) -> Iterator[MatchView]:
        return map(self.views.__getitem__, reversed(self.positions))

    @property
    def plain(self) -> list[Match]:
        """The matches themselves, without their views."""
        views, at = self.views, self.positions
        if isinstance(views, ViewMaker):
            matches = views.matches
            if isinstance(at, range) and at.step == 1:
                return list(matches[at.start:at.stop])
            return [matches[k] for k in at]
        return [views[k].match for k in at]

    @property
    def headline(self) -> Callable[[Match], str] | None:
        """The system's headline, the views' title (``MatchView.title``)."""
        views = self.views
        if isinstance(views, ViewMaker):
            return views.headline
        return views[self.positions[0]].headline if len(self.positions) else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def rated_together(self) -> bool:
        """Whether some match here was rated in one event with others (a period): never where
        the views are made when read, whose league has one event a match (views._league_view)."""
        return not isinstance(self.views, ViewMaker) and any(len(v.event_matches) > 1 for v in self)

    __hash__ = None     # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MatchViews({list(self)!r})"


def _columns_at(views: Sequence[MatchView], i: int) -> tuple[MatchColumns, int] | None:
    """A league's columns and the position in its history of ``views[i]``'s match, where the
    views are made when read from them; None otherwise."""
    if isinstance(views, MatchViews) and isinstance(views.views, ViewMaker) \
            and isinstance(views.views.matches, MatchColumns):
        return views.views.matches, int(views.positions[i])
    return None


def played_of(views: Sequence[MatchView], i: int) -> datetime:
    """``views[i].match.played``, from the league's column of times where it has one, with no
    view or match made: a rebuild's sitemap reads each match page's last match, in every file."""
    at = _columns_at(views, i)
    return views[i].match.played if at is None else played_at(at[0], [at[1]])[0]


def file_and_line(views: Sequence[MatchView], i: int) -> tuple[str, int | None]:
    """``views[i].match``'s file and line (``Provenance.source_at``), from the league's columns
    where it has them, with no view or match made."""
    at = _columns_at(views, i)
    if at is None:
        m = views[i].match
        return m.file, m.line
    matches, k = at
    return matches.field("file")[k], matches.field("line")[k]
