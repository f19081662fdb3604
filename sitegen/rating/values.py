"""The values that flow through the pipeline: a match, a rating change, an event, a standing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

@dataclass(frozen=True, slots=True)
class Match:
    """A validated match, in a system-neutral shape plus the system's own fields.

    ``players`` holds canonical names in the order the match file lists them;
    ``entries`` holds each player's validated fields (goals, ping, score, ...)
    in the same order, and ``extra`` the system's match-level keys.
    """

    id: str
    played: datetime              # aware, UTC
    file: str                     # relative to the site root
    position: int                 # 1-based position in its file
    notes: str | None
    players: tuple[str, ...]
    entries: tuple[Mapping[str, Any], ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None


def default_id(league_rel: str, position: int) -> str:
    """A match's id when its file gives none: `2024/week-03.toml`, 2nd match -> `2024-week-03-2`
    (the file's path in its league folder, '/' as '-', then the position in the file)."""
    stem = league_rel[: -len(".toml")] if league_rel.endswith(".toml") else league_rel
    return f"{stem.replace('/', '-')}-{position}"


@dataclass(frozen=True, slots=True)
class Change:
    """One player's rating change in one rating event, with the terms that explain it.

    ``before`` is None where no rating existed yet (an arena player's first game).
    ``terms`` holds the system's own columns, in the order of ``System.terms``: numbers, or
    names (elo's challenger and home player).
    """

    player: str
    before: float | None
    after: float
    terms: Mapping[str, float | str | None]

    @property
    def delta(self) -> float | None:
        return None if self.before is None else self.after - self.before

    def number(self, term: str) -> float:
        """A term the system itself writes as a number (mu, rd), read back as one."""
        value = self.terms[term]
        assert isinstance(value, (int, float)), (term, value)
        return value


@dataclass(frozen=True, slots=True)
class RatingEvent:
    """A rating update: one match, or (glicko2) one rating period."""

    key: str                          # match id, or a period key
    played: datetime                  # the match's time, or the period's last match
    matches: tuple[str, ...]          # ids of the matches rated in this event
    changes: tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's final rating in a league."""

    player: str
    rating: float
    games: int
    extra: Mapping[str, float] = field(default_factory=dict)   # rd, volatility for glicko2


class RatingDiverged(ArithmeticError):
    """A system's own math left the finite numbers in one rating event (docs/configuration).

    Raised by ``System.rate`` with the event's key (a match id or a rating period) and the
    value that ran away; the build reports it as a problem of the league.
    """

    def __init__(self, event: str, what: str, advice: str | None = None) -> None:
        self.event = event
        self.what = what
        # What the curator can change, when the system knows better than the build's default.
        self.advice = advice
        super().__init__(f"{what} left the finite numbers in {event}")



@dataclass(frozen=True, slots=True)
class ParsedMatch:
    """The system-specific part of a match: raw player names (before aliases) and fields."""

    names: tuple[str, ...]
    entries: tuple[Mapping[str, Any], ...]
    extra: Mapping[str, Any] = field(default_factory=dict)
    # Where each name sits in the match table, for problems found after parsing
    # (a player listed twice); None means ("players", i, "name").
    name_paths: tuple[tuple[str | int, ...], ...] | None = None


class Reporter(Protocol):
    """How a system reports a problem in the match it is parsing: field path, message."""

    def __call__(self, path: tuple[str | int, ...], message: str) -> None: ...


def last_ratings(events: Sequence[RatingEvent]) -> tuple[dict[str, Change], dict[str, int]]:
    """The last change of each player and how many events they took part in."""
    columns = getattr(events, "last_changes", None)     # an events.EventTable: from its columns
    if columns is not None:
        return columns()
    last: dict[str, Change] = {}
    count: dict[str, int] = {}
    for event in events:
        for change in event.changes:
            last[change.player] = change
            count[change.player] = count.get(change.player, 0) + 1
    return last, count

