"""Replay each league in history order: rating events and ranked standings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from sitegen.rating import collector
from sitegen.rating.base import Match, RatingEvent, Standing
from sitegen.rating.events import EventTable
from sitegen.rating.matchcolumns import column
from sitegen.rating.protocol import System
from sitegen.load.validate import League


@dataclass(frozen=True, slots=True)
class Ranked:
    rank: int
    standing: Standing


@dataclass(frozen=True, slots=True)
class RatedLeague:
    league: League
    events: Sequence[RatingEvent]     # a tuple, or the rating's columns (rating/events.py)
    standings: tuple[Ranked, ...]     # best first
    # Tables computed once from the events and shared by the data files and the pages
    # (table.py's ledger frame); not part of the value.
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)


ONE_PER_MATCH = "one-event-per-match"      # RatedLeague.cache key
# RatedLeague.cache keys: the matches' identities (load/blocks.py) where the rate stage worked
# them out, and the columns the rating's kernel read (model/resume.py), for the bootstrap.
IDENTITIES = "match-identities"
KERNEL_COLUMNS = "kernel-columns"
# RatedLeague.cache key: the build cache the league was rated with (model/resume.py), for what
# the models that follow carry over from the last build (model/carried.py).
BUILD_CACHE = "build-cache"
# RatedLeague.cache key: the history's prefix identity at every match (load/blocks.py), where
# the rate stage worked it out (model/resume.py).
PREFIXES = "prefix-identities"


def one_event_per_match(rated: RatedLeague) -> EventTable | None:
    """The league's rating columns where every event is the one match at the same position
    (no rating period spans several matches), else None: then a match's event is its index, and
    its changes are rows of the columns. Worked out once per league (a million ids compared)."""
    if ONE_PER_MATCH not in rated.cache:
        events, matches = rated.events, rated.league.matches
        rated.cache[ONE_PER_MATCH] = (
            events if isinstance(events, EventTable) and events.matches is None
            and list(events.keys) == column(matches, "id") else None)
    return rated.cache[ONE_PER_MATCH]


def rank(standings: list[Standing]) -> tuple[Ranked, ...]:
    """Best first (rating descending, then name by code point); rank = 1 + number strictly higher."""
    ordered = sorted(standings, key=lambda s: (-s.rating, s.player))
    ranked: list[Ranked] = []
    for i, s in enumerate(ordered):
        if i and s.rating == ordered[i - 1].rating:
            r = ranked[-1].rank
        else:
            r = i + 1
        ranked.append(Ranked(r, s))
    return tuple(ranked)


def rate_matches(system: System, matches: Sequence[Match]) -> tuple[Sequence[RatingEvent], list[Standing]]:
    """What a build keeps of rating a league: its events and the players' final standings."""
    # An event and its changes per match, all acyclic and kept to the end of the build; or
    # the columns they are made from when read (EventTable), kept as they are.
    with collector.paused():
        rated = system.rate(matches)
        events = rated if isinstance(rated, EventTable) else tuple(rated)
    return events, system.standings(events)


def rate_league(league: League) -> RatedLeague:
    events, standings = rate_matches(league.config.system, league.matches)
    return RatedLeague(league, events, rank(standings))
