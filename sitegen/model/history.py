"""Replay each league in history order: rating events and ranked standings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from sitegen.rating import collector
from sitegen.rating.base import RatingEvent, Standing
from sitegen.rating.events import EventTable
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


def rate_league(league: League) -> RatedLeague:
    system = league.config.system
    # An event and its changes per match, all acyclic and kept to the end of the build; or
    # the columns they are made from when read (EventTable), kept as they are.
    with collector.paused():
        rated = system.rate(league.matches)
        events = rated if isinstance(rated, EventTable) else tuple(rated)
    return RatedLeague(league, events, rank(system.standings(events)))
